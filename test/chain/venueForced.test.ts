/**
 * A forced withdrawal with the venue stopped (docs/chain.md "Leaving without the venue"): the
 * wallet's request is executed by anyone after FORCED_ACTION_TIMEOUT_S, the tokens reach the
 * wallet, and the venue, started again, takes the request and its execution in so that its
 * books and the chain's agree (reconciled). The venue running: venueForcedRunning.test.ts.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, http, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { collateralVaultAbi, mockCollateralTokenAbi } from '../../chain/artifacts.ts';
import { startAnvil } from '../../chain/anvil.ts';
import { request, type TestApp } from '../gateway/support/testApp.ts';
import { trader, usdc, wallet, type Trader } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(300_000);

const depositOf = async (app: TestApp, w: Trader) => BigInt((await request(`${app.url}/api/account/portfolios/${w.portfolioId}/collateral`, { token: w.token })).body.deposit);

/** The wallet's own call to the vault; returns the receipt. */
async function callVault(client: PublicClient, rpcUrl: string, chainId: number, vault: `0x${string}`, account: PrivateKeyAccount, functionName: string, args: readonly unknown[]) {
  const hash = await createWalletClient({ account, transport: http(rpcUrl), chain: { id: chainId } as never }).writeContract({ address: vault, abi: collateralVaultAbi, functionName, args } as never);
  return client.waitForTransactionReceipt({ hash });
}

t.test('with the venue stopped: executed by anyone after the timeout, then taken in by the venue started again', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chain-forced-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { FORCED_ACTION_TIMEOUT_S: '60' };
  const first = await startChainApp({ dataDir, env });
  const startAt = first.clock.now;
  const bob = await trader(first, 'forced-bob', { deposit: 50_000 });
  await settled(first);
  const { addresses } = chainOf(first);
  const chainId = first.app.services.config.chainId;
  await first.close();

  // The venue is down; the chain is not: its state, served by an anvil of the wallet's own.
  const anvil = await startAnvil({ chainId, stateDir: join(dataDir, 'chain', 'anvil') });
  const client: PublicClient = createPublicClient({ transport: http(anvil.rpcUrl) });
  try {
    const fund = (a: `0x${string}`) => client.request({ method: 'anvil_setBalance' as never, params: [a, '0x56bc75e2d63100000'] as never });
    const keeper = wallet('forced-keeper');
    await fund(bob.address);
    await fund(keeper.address);
    const requested = await callVault(client, anvil.rpcUrl, chainId, addresses.collateralVault, bob.account, 'requestWithdrawal', [BigInt(bob.portfolioId), usdc(20_000)]);
    const requestId = BigInt(requested.logs[0]!.topics[3]!);
    await t.rejects(callVault(client, anvil.rpcUrl, chainId, addresses.collateralVault, keeper, 'executeForcedWithdrawal', [requestId]), /TooEarly/, 'not before FORCED_ACTION_TIMEOUT_S');
    await client.request({ method: 'evm_increaseTime' as never, params: [61] as never });
    await client.request({ method: 'evm_mine' as never, params: [] as never });
    const executed = await callVault(client, anvil.rpcUrl, chainId, addresses.collateralVault, keeper, 'executeForcedWithdrawal', [requestId]);
    t.equal(executed.status, 'success', 'anyone executes it');
    const balance = await client.readContract({ address: addresses.collateralToken, abi: mockCollateralTokenAbi, functionName: 'balanceOf', args: [bob.address] });
    t.equal(balance, usdc(20_000), 'the tokens are in the wallet, the venue down');
  } finally {
    await anvil.stop();
  }

  const second = await startChainApp({ dataDir, env, startAt: startAt + 1000 });
  t.teardown(() => second.close());
  const bobAgain = { ...bob, token: await second.session(bob.address) };
  await until('the venue to take the request and its execution in', async () => ((await depositOf(second, bobAgain)) === usdc(30_000) ? true : null), 90_000);
  await settled(second, 90_000);
  const chain = chainOf(second);
  t.equal(await chain.cashOf(bob.address, bob.portfolioId), usdc(30_000), "the vault's cash and the venue's deposit agree (and were reconciled)");
  t.equal(await chain.tokenBalance(bob.address), usdc(20_000), 'paid once: the venue taking the request in later paid nothing more');
});
