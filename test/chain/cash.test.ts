/**
 * The cash items and the wallet's calls (docs/chain.md "The calls a wallet makes", DEPOSIT to
 * REBATE): deposits credited or refunded, the faucet, withdrawals paid to the owner's address,
 * transfers, liquidation fees, deficits, rebates; the refusals; and the solvency identity
 * after every batch.
 */
import t, { type Test } from 'tap';
import { parseEventLogs } from 'viem';
import { accountOf, chainFixture, FUND, headerAt, revertData, SERVICE, WAD } from './support/fixture.ts';
import { BatchWriter, decodeSettleError, journalPosOf, settleCalldata } from '../../chain/items.ts';
import { collateralVaultAbi, mockCollateralTokenAbi } from '../../chain/artifacts.ts';
import { installContracts } from '../../chain/deploy.ts';

const fx = await chainFixture('cash');
t.teardown(() => fx.stop());
const alice = accountOf('cash:alice');
const bob = accountOf('cash:bob');
const carol = accountOf('cash:carol');
for (const a of [alice, bob, carol]) await fx.fund(a.address);
const vault = { address: fx.addresses.collateralVault, abi: collateralVaultAbi } as const;
const token = { address: fx.addresses.collateralToken, abi: mockCollateralTokenAbi } as const;
const state = () => fx.fingerprint({ accounts: [[alice.address, 1n], [alice.address, 2n], [bob.address, 1n], [FUND, 1n], [fx.addresses.collateralVault, 0n], [fx.addresses.collateralVault, 1n]] });

async function solvent(t: Test, what: string): Promise<void> {
  const [tokenBalance, totalCash, totalPremium, pending, imbalance] = await fx.solvency();
  t.equal(tokenBalance, BigInt(totalCash) + BigInt(totalPremium) + pending - BigInt(imbalance), `solvency after ${what}`);
}

async function send(account: typeof alice, call: Parameters<ReturnType<typeof fx.walletOf>['writeContract']>[0]) {
  const hash = await fx.walletOf(account).writeContract({ ...call, account, chain: fx.chain } as never);
  return fx.pub.waitForTransactionReceipt({ hash });
}

t.test('the token: 6 decimals, constant name and symbol, open mint', async (t) => {
  t.equal(await fx.pub.readContract({ ...token, functionName: 'decimals' }), 6);
  t.equal(await fx.pub.readContract({ ...token, functionName: 'name' }), 'Mock USD Coin');
  t.equal(await fx.pub.readContract({ ...token, functionName: 'symbol' }), 'mUSDC');
  await send(alice, { ...token, functionName: 'mint', args: [alice.address, 1_000_000_000n] } as never);
  t.equal(await fx.tokenBalance(alice.address), 1_000_000_000n);
});

t.test('deposit -> Deposited -> DEPOSIT credits it; again: UnknownDeposit', async (t) => {
  await send(alice, { ...token, functionName: 'approve', args: [fx.addresses.collateralVault, 10n ** 30n] } as never);
  const receipt = await send(alice, { ...vault, functionName: 'deposit', args: [1n, 300_000_000n] } as never);
  const [ev] = parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: 'Deposited' });
  t.same(ev?.args, { owner: alice.address, portfolioId: 1n, amount: 300_000_000n, depositId: 1n });
  t.same(await fx.pub.readContract({ ...vault, functionName: 'depositOf', args: [1n] }), [alice.address, 1n, alice.address, 300_000_000n]);
  t.equal(await fx.pub.readContract({ ...vault, functionName: 'pendingDeposits' }), 300_000_000n);
  await solvent(t, 'a deposit');
  const w = new BatchWriter();
  w.deposit(1n);
  const settled = await fx.settle(w);
  t.equal(await fx.cashOf(alice.address, 1n), 300_000_000n);
  t.equal(await fx.pub.readContract({ ...vault, functionName: 'pendingDeposits' }), 0n);
  const [credited] = parseEventLogs({ abi: collateralVaultAbi, logs: settled.logs, eventName: 'DepositCredited' });
  t.same(credited?.args, { depositId: 1n, owner: alice.address, portfolioId: 1n, amount: 300_000_000n });
  await solvent(t, 'its credit');
  t.match(await fx.settleReverts(w, state), { name: 'UnknownDeposit', args: { item: 0n, depositId: 1n }, item: 0 });
  const never = new BatchWriter();
  never.mint(bob.address, 1n, 1n);
  never.depositRefund(99n);
  t.match(await fx.settleReverts(never, state), { name: 'UnknownDeposit', args: { item: 1n, depositId: 99n }, item: 1 });
});

t.test('depositFor, then DEPOSIT_REFUND pays the depositor back', async (t) => {
  await send(carol, { ...token, functionName: 'mint', args: [carol.address, 50_000_000n] } as never);
  await send(carol, { ...token, functionName: 'approve', args: [fx.addresses.collateralVault, 50_000_000n] } as never);
  const receipt = await send(carol, { ...vault, functionName: 'depositFor', args: [bob.address, 1n, 50_000_000n] } as never);
  const [ev] = parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: 'Deposited' });
  t.same(ev?.args, { owner: bob.address, portfolioId: 1n, amount: 50_000_000n, depositId: 2n });
  t.equal(await fx.tokenBalance(carol.address), 0n);
  const w = new BatchWriter();
  w.depositRefund(2n);
  const settled = await fx.settle(w);
  t.equal(await fx.tokenBalance(carol.address), 50_000_000n, 'back to the wallet that deposited');
  t.equal(await fx.cashOf(bob.address, 1n), 0n);
  t.same(await fx.pub.readContract({ ...vault, functionName: 'depositOf', args: [2n] }), ['0x0000000000000000000000000000000000000000', 0n, '0x0000000000000000000000000000000000000000', 0n]);
  t.equal(parseEventLogs({ abi: collateralVaultAbi, logs: settled.logs, eventName: 'DepositRefunded' }).length, 1);
  await solvent(t, 'a refund');
});

t.test('MINT credits test collateral; WITHDRAW pays the owner\'s address; TRANSFER; both refuse to go below zero', async (t) => {
  const w = new BatchWriter();
  w.mint(bob.address, 1n, 80_000_000n);
  await fx.settle(w);
  t.equal(await fx.cashOf(bob.address, 1n), 80_000_000n);
  await solvent(t, 'a mint');
  w.reset();
  w.withdraw(bob.address, 1n, 30_000_000n, 7n);
  const receipt = await fx.settle(w);
  t.equal(await fx.tokenBalance(bob.address), 30_000_000n, 'paid to the owner');
  t.equal(await fx.cashOf(bob.address, 1n), 50_000_000n);
  const [ev] = parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: 'Withdrawn' });
  t.same(ev?.args, { owner: bob.address, portfolioId: 1n, amount: 30_000_000n, withdrawalId: 7n });
  await solvent(t, 'a withdrawal');
  w.reset();
  w.withdraw(bob.address, 1n, 50_000_001n, 8n);
  t.match(await fx.settleReverts(w, state), { name: 'InsufficientCash', args: { item: 0n, cash: 50_000_000n, amount: 50_000_001n } });
  w.reset();
  w.transfer(alice.address, 1n, 2n, 100_000_000n);
  await fx.settle(w);
  t.equal(await fx.cashOf(alice.address, 2n), 100_000_000n);
  t.equal(await fx.cashOf(alice.address, 1n), 200_000_000n);
  w.reset();
  w.transfer(alice.address, 2n, 1n, 100_000_001n);
  t.match(await fx.settleReverts(w, state), { name: 'InsufficientCash', args: { item: 0n, cash: 100_000_000n, amount: 100_000_001n } });
  // An earlier item of the same batch counts: a withdrawal after a mint.
  w.reset();
  w.mint(carol.address, 1n, 5n);
  w.withdraw(carol.address, 1n, 5n, 9n);
  w.withdraw(carol.address, 1n, 1n, 10n);
  t.match(await fx.settleReverts(w, state), { name: 'InsufficientCash', args: { item: 2n, cash: 0n, amount: 1n } });
  await solvent(t, 'transfers');
});

t.test('LIQUIDATION_FEE to the fund, DEFICIT from the fund and bad debt, REBATE from the fees', async (t) => {
  const w = new BatchWriter();
  w.mint(FUND, 1n, 1_000n);
  w.liquidationFee(alice.address, 1n, 40n);
  w.deficit(bob.address, 1n, 300n, 200n);
  w.rebate(carol.address, 25n);
  const receipt = await fx.settle(w);
  t.equal(await fx.cashOf(alice.address, 1n), 200_000_000n - 40n);
  t.equal(await fx.cashOf(FUND, 1n), 1_000n + 40n - 300n);
  t.equal(await fx.cashOf(bob.address, 1n), 50_000_000n + 500n);
  t.equal(await fx.pub.readContract({ ...vault, functionName: 'badDebt' }), 200n);
  t.equal(await fx.cashOf(carol.address, 0n), 25n, 'the referrer\'s portfolio 0');
  t.equal(await fx.pub.readContract({ ...vault, functionName: 'feesCollected' }), -25n);
  t.same(await fx.pub.readContract({ ...vault, functionName: 'cashOfMany', args: [[alice.address, FUND, carol.address], [1n, 1n, 0n]] }), [200_000_000n - 40n, 740n, 25n]);
  for (const name of ['LiquidationFeeCharged', 'DeficitCovered', 'RebatePaid'] as const) t.equal(parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: name }).length, 1, name);
  await solvent(t, 'fees and deficits');
});

t.test('the wallet calls refuse nothing to deposit, an amount or a portfolio beyond its width', async (t) => {
  for (const [args, error] of [[[1n, 0n], 'ZeroAmount'], [[1n, 1n << 96n], 'AmountTooLarge'], [[1n << 64n, 1n], 'PortfolioIdTooLarge']] as const) {
    let err: unknown = null;
    try {
      await fx.pub.simulateContract({ ...vault, account: alice, functionName: 'deposit', args });
    } catch (e) {
      err = e;
    }
    t.match(String(err), new RegExp(error));
  }
});

t.test('FaucetDisabled: MINT on a vault whose token is not the test token', async (t) => {
  const real = await installContracts(fx.anvil.rpcUrl, {
    serviceName: `${SERVICE}Real`, chainId: fx.chainId, relayer: fx.relayer.address, oracleSigner: fx.oracleSigner.address, faucet: false, collateralToken: fx.addresses.collateralToken,
  });
  t.equal(real.addresses.collateralToken, fx.addresses.collateralToken, 'no token installed: the given one');
  t.equal(await fx.pub.readContract({ address: real.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'faucet' }), false);
  const w = new BatchWriter();
  w.mint(alice.address, 1n, 1n);
  let err: unknown = null;
  try {
    await fx.pub.call({ account: fx.relayer.address, to: real.addresses.orderBook, data: settleCalldata(headerAt(1n, BigInt(1_700_000_000), journalPosOf(1, 0)), w.bytes()) });
  } catch (e) {
    err = e;
  }
  t.match(decodeSettleError(revertData(err)!), { name: 'FaucetDisabled', args: { item: 0n }, item: 0 });
});
