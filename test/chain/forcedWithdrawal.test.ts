/**
 * Forced withdrawals in the collateral vault (docs/chain.md "Leaving without the venue"): a
 * request is queued (`requestWithdrawal`); the stream's FORCED_WITHDRAW takes it in, paying
 * what the venue paid (or nothing: refused) to the owner only; a request nobody took within the
 * timeout is executed by anyone, paying the owner's cash above zero up to the amount asked for;
 * a request taken cannot be executed and one executed is skipped by the stream; the refusals;
 * and the solvency identity after every step.
 */
import t, { type Test } from 'tap';
import { parseEventLogs } from 'viem';
import { accountOf, chainFixture } from './support/fixture.ts';
import { BatchWriter } from '../../chain/items.ts';
import { collateralVaultAbi } from '../../chain/artifacts.ts';
import { DEFAULT_FORCED_ACTION_TIMEOUT_S } from '../../chain/deploy.ts';

const fx = await chainFixture('forced');
t.teardown(() => fx.stop());
const alice = accountOf('forced:alice');
const bob = accountOf('forced:bob');
const keeper = accountOf('forced:keeper');
for (const a of [alice, bob, keeper]) await fx.fund(a.address);
const vault = { address: fx.addresses.collateralVault, abi: collateralVaultAbi } as const;
const state = () => fx.fingerprint({ accounts: [[alice.address, 1n], [bob.address, 1n]] });

async function solvent(t: Test, what: string): Promise<void> {
  const [tokenBalance, totalCash, totalPremium, pending, imbalance] = await fx.solvency();
  t.equal(tokenBalance, BigInt(totalCash) + BigInt(totalPremium) + pending - BigInt(imbalance), `solvency after ${what}`);
}

async function send(account: typeof alice, call: object) {
  const hash = await fx.walletOf(account).writeContract({ ...call, account, chain: fx.chain } as never);
  return fx.pub.waitForTransactionReceipt({ hash });
}

/** Why a call of `account`'s would revert, or null. */
async function refusal(account: typeof alice, functionName: string, args: readonly unknown[]): Promise<string | null> {
  try {
    await fx.pub.simulateContract({ ...vault, account, functionName, args } as never);
    return null;
  } catch (e) {
    return String(e);
  }
}

async function request(account: typeof alice, amount: bigint): Promise<bigint> {
  const receipt = await send(account, { ...vault, functionName: 'requestWithdrawal', args: [1n, amount] });
  const [ev] = parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: 'WithdrawalRequested' });
  t.same(ev?.args ? { ...ev.args, requestId: 0n } : null, { owner: account.address, portfolioId: 1n, amount, requestId: 0n }, 'WithdrawalRequested names owner, portfolio and amount');
  return ev!.args.requestId;
}

const later = async (seconds: number) => {
  await fx.pub.request({ method: 'evm_increaseTime' as never, params: [seconds] as never });
  await fx.pub.request({ method: 'evm_mine' as never, params: [] as never });
};

const cash = new BatchWriter();
cash.mint(alice.address, 1n, 1_000_000n);
cash.mint(bob.address, 1n, 500_000n);
await fx.settle(cash);

t.test('taken in by the stream: what the venue paid goes to the owner; the request cannot be executed after', async (t) => {
  const id = await request(alice, 400_000n);
  const [owner, portfolioId, amount, , pending] = await fx.pub.readContract({ ...vault, functionName: 'withdrawalRequestOf', args: [id] });
  t.same([owner, portfolioId, amount, pending], [alice.address, 1n, 400_000n, 1n], 'queued: state 1, pending');
  const before = await fx.tokenBalance(alice.address);
  const w = new BatchWriter();
  w.forcedWithdraw(id, 250_000n);
  const receipt = await fx.settle(w);
  t.same(parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: 'ForcedWithdrawalTaken' }).map((l) => l.args), [{ requestId: id, owner: alice.address, portfolioId: 1n, requested: 400_000n, paid: 250_000n }]);
  t.equal(await fx.tokenBalance(alice.address), before + 250_000n, 'paid to the owner');
  t.equal(await fx.cashOf(alice.address, 1n), 750_000n, 'out of its cash');
  t.equal((await fx.pub.readContract({ ...vault, functionName: 'withdrawalRequestOf', args: [id] }))[4], 2n, 'state 2: taken');
  await solvent(t, 'a request taken in');
  await later(DEFAULT_FORCED_ACTION_TIMEOUT_S + 1);
  t.match(await refusal(keeper, 'executeForcedWithdrawal', [id]), /RequestNotPending/, 'a request the venue took cannot be executed');
  t.match(await fx.settleReverts(w, state), { name: 'UnknownWithdrawalRequest', args: { item: 0n, requestId: id } }, 'nor taken twice');
});

t.test('refused by the venue (paid 0): taken, nothing moves', async (t) => {
  const id = await request(bob, 600_000n);
  const w = new BatchWriter();
  w.forcedWithdraw(id, 0n);
  await fx.settle(w);
  t.equal(await fx.cashOf(bob.address, 1n), 500_000n);
  t.equal((await fx.pub.readContract({ ...vault, functionName: 'withdrawalRequestOf', args: [id] }))[4], 2n);
  const over = await request(bob, 100_000n);
  const w2 = new BatchWriter();
  w2.forcedWithdraw(over, 100_001n);
  t.match(await fx.settleReverts(w2, state), { name: 'PaidAboveRequested', args: { item: 0n, requestId: over, paid: 100_001n, requested: 100_000n } });
  const w3 = new BatchWriter();
  w3.forcedWithdraw(999n, 0n);
  t.match(await fx.settleReverts(w3, state), { name: 'UnknownWithdrawalRequest', args: { item: 0n, requestId: 999n } });
  w2.reset();
  w2.forcedWithdraw(over, 0n);
  await fx.settle(w2);
});

t.test('nobody took it: anyone executes it after the timeout, paying the owner at most its cash; the stream then skips it', async (t) => {
  const executedBefore = await fx.pub.readContract({ ...vault, functionName: 'forcedExecutions' });
  const id = await request(alice, 10_000_000n);
  t.match(await refusal(keeper, 'executeForcedWithdrawal', [id]), /TooEarly/, 'not before the timeout');
  t.equal(await fx.pub.readContract({ ...vault, functionName: 'forcedActionTimeout' }), BigInt(DEFAULT_FORCED_ACTION_TIMEOUT_S));
  await later(DEFAULT_FORCED_ACTION_TIMEOUT_S);
  const before = await fx.tokenBalance(alice.address);
  const receipt = await send(keeper, { ...vault, functionName: 'executeForcedWithdrawal', args: [id] });
  t.same(parseEventLogs({ abi: collateralVaultAbi, logs: receipt.logs, eventName: 'ForcedWithdrawalExecuted' }).map((l) => l.args), [{ requestId: id, owner: alice.address, portfolioId: 1n, requested: 10_000_000n, paid: 750_000n }], 'its cash, less than asked for');
  t.equal(await fx.tokenBalance(alice.address), before + 750_000n, 'paid to the owner, not to the caller');
  t.equal(await fx.tokenBalance(keeper.address), 0n);
  t.equal(await fx.cashOf(alice.address, 1n), 0n);
  t.equal(await fx.pub.readContract({ ...vault, functionName: 'forcedExecutions' }), executedBefore + 1n, 'counted');
  await solvent(t, 'an execution');
  t.match(await refusal(keeper, 'executeForcedWithdrawal', [id]), /RequestNotPending/, 'once');
  const w = new BatchWriter();
  w.forcedWithdraw(id, 5n);
  const skipped = await fx.settle(w);
  t.same(parseEventLogs({ abi: collateralVaultAbi, logs: skipped.logs, eventName: 'ForcedWithdrawalSkipped' }).map((l) => l.args), [{ requestId: id }], 'the venue taking it in later changes nothing (and does not halt)');
  t.equal(await fx.cashOf(alice.address, 1n), 0n);
  await solvent(t, 'a skipped request');
  t.match(await refusal(alice, 'requestWithdrawal', [1n, 0n]), /ZeroAmount/);
  t.match(await refusal(alice, 'requestWithdrawal', [2n ** 64n, 1n]), /PortfolioIdTooLarge/);
});
