/**
 * Forced withdrawals through the real server, the venue running (docs/chain.md "Leaving without
 * the venue"): a wallet's `collateralVault.requestWithdrawal` is taken into the stream, paid up
 * to the portfolio's free collateral or refused. With the venue stopped: venueForced.test.ts.
 */
import t from 'tap';
import { createWalletClient, http, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { collateralVaultAbi } from '../../chain/artifacts.ts';
import { request, type TestApp } from '../gateway/support/testApp.ts';
import { trader, usdc, type Trader } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(300_000);

const depositOf = async (app: TestApp, w: Trader) => BigInt((await request(`${app.url}/api/account/portfolios/${w.portfolioId}/collateral`, { token: w.token })).body.deposit);

/** The wallet's own call to the vault; returns the receipt. */
async function callVault(client: PublicClient, rpcUrl: string, chainId: number, vault: `0x${string}`, account: PrivateKeyAccount, functionName: string, args: readonly unknown[]) {
  const hash = await createWalletClient({ account, transport: http(rpcUrl), chain: { id: chainId } as never }).writeContract({ address: vault, abi: collateralVaultAbi, functionName, args } as never);
  return client.waitForTransactionReceipt({ hash });
}

t.test('the running venue takes a request in: paid up to free collateral, or refused', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const vault = chain.addresses.collateralVault;
  const chainId = app.app.services.config.chainId;
  const alice = await trader(app, 'forced-alice', { deposit: 100_000 });
  await settled(app);
  await chain.fund(alice.address);
  const ask = (amount: bigint) => callVault(chain.client, chain.rpcUrl, chainId, vault, alice.account, 'requestWithdrawal', [BigInt(alice.portfolioId), amount]);

  await ask(usdc(30_000));
  await until('the request taken in', async () => ((await depositOf(app, alice)) === usdc(70_000) ? true : null));
  await settled(app);
  t.equal(await chain.tokenBalance(alice.address), usdc(30_000), 'paid to the wallet on chain');
  t.equal(await chain.cashOf(alice.address, alice.portfolioId), usdc(70_000), "the vault's cash is the venue's deposit");

  await ask(usdc(1_000_000));
  await until('a request beyond the free collateral', async () => ((await depositOf(app, alice)) === 0n ? true : null));
  await settled(app);
  t.equal(await chain.tokenBalance(alice.address), usdc(100_000), 'paid what was free, no more');

  const receipt = await ask(usdc(1));
  const requestId = BigInt(receipt.logs[0]!.topics[3]!);
  await until('the refused request taken in', async () => {
    const r = await chain.client.readContract({ address: vault, abi: collateralVaultAbi, functionName: 'withdrawalRequestOf', args: [requestId] });
    return r[4] === 2n ? r : null;
  });
  t.equal(await chain.tokenBalance(alice.address), usdc(100_000), 'refused: nothing paid, and the request is no longer pending');
  await settled(app);
});
