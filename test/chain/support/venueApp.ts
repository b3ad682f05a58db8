/**
 * The real venue with the embedded chain, for the settlement tests against the whole server
 * (test/chain/venue*.test.ts): a fixed venue start time, fast interval mining, and helpers to
 * wait until everything committed is settled, final and reconciled, and to read the chain as a
 * trader would (viem against the embedded anvil, the contracts' views).
 *
 * Waiting here is waiting for other processes (the relayer's thread, anvil's blocks), always
 * bounded by a timeout; no assertion depends on how long anything took.
 */
import { createPublicClient, createWalletClient, http, type Address, type Hex, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { collateralVaultAbi, mockCollateralTokenAbi, positionManagerAbi, orderBookAbi } from '../../../chain/artifacts.ts';
import { startTestApp, type TestApp, type TestAppOptions } from '../../gateway/support/testApp.ts';

export const CHAIN_ENV = { CHAIN: 'embedded', CHAIN_BLOCK_TIME_MS: '200' } as const;

export async function startChainApp(options: TestAppOptions = {}): Promise<TestApp> {
  return startTestApp({ ...options, env: { ...CHAIN_ENV, ...options.env } });
}

/** Polls `done` every 100 ms until it holds, or fails after `timeoutMs` saying what it waited for and what it last saw. */
export async function until<T>(what: string, check: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 60_000, seen: () => unknown = () => null): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(seen(), (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Everything the venue committed is settled: the relayer folded the journal to its end, cut and
 * sent every batch, the chain holds them all, the engine recorded the last one final, and the
 * last batch was reconciled. Returns the relayer's metrics then.
 */
export async function settled(app: TestApp, timeoutMs = 60_000) {
  const chain = app.app.chain!;
  await app.app.services.pipeline.drain();
  return until(
    'settlement of everything committed',
    () => {
      const m = chain.metrics();
      if (m === null || m.halted !== null) return m?.halted ? Promise.reject(new Error(`settlement halted: ${m.halted}`)) : null;
      const last = app.app.storage.journal.lastSeq();
      const reads = app.app.services.reads;
      const lastTrade = app.app.engine.state.nextTradeId - 1;
      const tradesFinal = lastTrade === 0 || reads.settlement.trade(String(lastTrade)).relayStatus === 'final';
      const done = m.replicaSeq >= last && m.openItems === 0 && m.outboxBatches === 0 && m.chainSeq > 0 && reads.settlement.settledBatch === m.chainSeq && m.lastReconciledBatch === m.chainSeq && tradesFinal;
      return done ? m : null;
    },
    timeoutMs,
    () => ({ metrics: chain.metrics(), journal: app.app.storage.journal.lastSeq(), settledBatch: app.app.services.reads.settlement.settledBatch }),
  );
}

/** Viem clients on the venue's chain and its contracts' addresses. */
export function chainOf(app: TestApp) {
  const info = app.app.chain!.info;
  const client: PublicClient = createPublicClient({ transport: http(info.rpcUrl!) });
  const addresses = app.app.services.config.contracts;
  return {
    client,
    addresses,
    rpcUrl: info.rpcUrl!,
    cashOf: (owner: Address, portfolioId: number) => client.readContract({ address: addresses.collateralVault, abi: collateralVaultAbi, functionName: 'cashOf', args: [owner, BigInt(portfolioId)] }) as Promise<bigint>,
    positionOf: (owner: Address, portfolioId: number, seriesId: Hex) => client.readContract({ address: addresses.positionManager, abi: positionManagerAbi, functionName: 'positionOf', args: [owner, BigInt(portfolioId), seriesId] }) as Promise<bigint>,
    premiumOf: (owner: Address, portfolioId: number, seriesId: Hex) => client.readContract({ address: addresses.positionManager, abi: positionManagerAbi, functionName: 'premiumOf', args: [owner, BigInt(portfolioId), seriesId] }) as Promise<bigint>,
    filledOf: (signer: Address, orderId: Hex) => client.readContract({ address: addresses.orderBook, abi: orderBookAbi, functionName: 'filledOf', args: [signer, orderId] }) as Promise<bigint>,
    lastSeq: () => client.readContract({ address: addresses.orderBook, abi: orderBookAbi, functionName: 'lastSeq' }) as Promise<bigint>,
    tokenBalance: (owner: Address) => client.readContract({ address: addresses.collateralToken, abi: mockCollateralTokenAbi, functionName: 'balanceOf', args: [owner] }) as Promise<bigint>,
    /** Test ether for a wallet's own transactions (deposits, nonce floors). */
    fund: (owner: Address) => client.request({ method: 'anvil_setBalance' as never, params: [owner, '0x56bc75e2d63100000'] as never }),
    /** A wallet's own calls, as a trader makes them. */
    wallet: (account: PrivateKeyAccount) => createWalletClient({ account, transport: http(info.rpcUrl!), chain: { id: info.chainId } as never }),
  };
}
