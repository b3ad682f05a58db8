/**
 * The venue's side of the chain, as the gateway starts it (docs/chain.md): the chain itself
 * (the embedded anvil, or a node at CHAIN_RPC_URL), the relayer's thread, and what the relayer
 * tells the venue turned into engine commands (a deposit the indexer confirmed, a batch final
 * or refused: `chain_event`), alerts, the journal's prune hold and the settlement statuses the
 * reads show. Nothing here reads engine state: commands go in through `submit`.
 */
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ApplyResult, CommandBody } from '../engine/index.ts';
import type { ContractAddresses } from './deploy.ts';
import { startEmbeddedChain, type EmbeddedChain } from './embeddedChain.ts';
import { startRelayerThread, type RelayerHandle } from './relayer/relayerHandle.ts';
import type { RelayerMessage, RelayerMetrics, RelayerOptions } from './relayer/relayer.ts';
import type { ReconcileResult } from './relayer/reconciler.ts';

export type ChainMode = 'embedded' | 'rpc' | 'none';

export type VenueChainConfig = {
  readonly mode: Exclude<ChainMode, 'none'>;
  readonly dataDir: string;
  readonly chainId: number;
  readonly serviceName: string;
  /** rpc: the node the relayer talks to; embedded: none (anvil's). */
  readonly rpcUrl: string | null;
  /** What /api/markets/contracts publishes as the chain's RPC (CHAIN_PUBLIC_RPC_URL; default the relayer's). */
  readonly publicRpcUrl: string | null;
  /** embedded: CHAIN_PORT, or a free port. */
  readonly port: number | null;
  readonly blockTimeMs: number;
  /** embedded: the collateral vault's forced-withdrawal timeout (FORCED_ACTION_TIMEOUT_S). */
  readonly forcedActionTimeout: number;
  readonly relayerKey: Hex;
  readonly oracleKey: Hex;
  /** rpc: the deployment file's addresses and block; embedded: the published addresses, installed at start. */
  readonly addresses: ContractAddresses;
  readonly deploymentBlock: number;
  readonly relayer: Omit<RelayerOptions, 'signPrice' | 'venueOptions' | 'deploymentBlock' | 'followVenueClock'>;
  readonly idHashSeed: number;
};

export type ChainInfo = {
  readonly mode: ChainMode;
  readonly chainId: number;
  readonly rpcUrl: string | null;
  readonly deploymentBlock: number | null;
  readonly relayer: Address | null;
};

export type ChainStatusMessage = Extract<RelayerMessage, { type: 'status' }>;

export type VenueChainHooks = {
  /** An engine command through the command pipeline (journaled, then applied). */
  submit(body: CommandBody): Promise<ApplyResult>;
  alert(a: { kind: string; severity: 'critical' | 'warning' | 'info'; message: string; details: Record<string, unknown> }): void;
  log: { info(msg: string, f?: object): void; warn(msg: string, f?: object): void; error(msg: string, f?: object): void };
  /** A batch's settlement status changed (sent, included, final, failed). */
  status(m: ChainStatusMessage): void;
  /** The journal must be kept from this seq on (the relayer's checkpoint). */
  hold(seq: number): void;
  reconciled(r: ReconcileResult): void;
};

export type VenueChain = {
  readonly info: ChainInfo;
  metrics(): RelayerMetrics | null;
  /** The embedded chain's anvil (tests kill it), or null. */
  readonly embedded: EmbeddedChain | null;
  close(): Promise<void>;
};

/** What the venue answers for the chain with CHAIN=none. */
export const noChainInfo = (chainId: number): ChainInfo => ({ mode: 'none', chainId, rpcUrl: null, deploymentBlock: null, relayer: null });

/** Codes a relayer report may be refused with that mean "already done": a restart reporting again. */
const ALREADY = new Set(['relay_out_of_order', 'chain_event_duplicate']);

export async function startVenueChain(cfg: VenueChainConfig, hooks: VenueChainHooks): Promise<VenueChain> {
  const relayer = privateKeyToAccount(cfg.relayerKey).address;
  const oracleSigner = privateKeyToAccount(cfg.oracleKey).address;
  let embedded: EmbeddedChain | null = null;
  let rpcUrl = cfg.rpcUrl;
  let addresses = cfg.addresses;
  let deploymentBlock = cfg.deploymentBlock;
  if (cfg.mode === 'embedded') {
    embedded = await startEmbeddedChain({
      dataDir: cfg.dataDir,
      chainId: cfg.chainId,
      serviceName: cfg.serviceName,
      ...(cfg.port !== null ? { port: cfg.port } : {}),
      blockTimeMs: cfg.blockTimeMs,
      forcedActionTimeout: cfg.forcedActionTimeout,
      relayer,
      oracleSigner,
      log: hooks.log,
      onExit: (how) => hooks.alert({ kind: 'chain_down', severity: 'warning', message: `the embedded chain (anvil) exited (code ${how.code}, signal ${how.signal}); starting it again`, details: { ...how } }),
    });
    rpcUrl = embedded.rpcUrl;
    addresses = embedded.addresses;
    deploymentBlock = embedded.deploymentBlock;
    hooks.log.info('embedded chain: anvil listening, contracts installed', { rpcUrl, chainId: cfg.chainId, deploymentBlock });
  }
  const submit = async (body: CommandBody, what: string) => {
    try {
      const r = await hooks.submit(body);
      if (!r.ok && !ALREADY.has(r.rejection.code)) hooks.log.warn(`chain: the venue refused ${what}`, { code: r.rejection.code, details: r.rejection.details });
    } catch (e) {
      // A node that does not take writes (a standby): the leader's relayer reports it.
      hooks.log.warn(`chain: ${what} not submitted`, { error: (e as Error).message });
    }
  };
  const onMessage = (m: RelayerMessage | { type: 'metrics' } | { type: 'stopped' }): void => {
    switch (m.type) {
      case 'status':
        hooks.status(m);
        if (m.status === 'final' || m.status === 'failed') {
          void submit(
            {
              type: 'chain_event',
              id: `${cfg.chainId}:settle:${m.batch}`,
              event: { kind: m.status === 'final' ? 'relay_confirmed' : 'relay_failed', orderIds: m.orderIds, txHash: (m.txHash ?? `0x${'0'.repeat(64)}`) as Hex, reason: m.failure, batch: m.batch, tradeIds: m.tradeIds, withdrawalIds: m.withdrawals.map((w) => w.withdrawalId) },
            },
            `batch ${m.batch} ${m.status}`,
          );
        }
        return;
      case 'chain_event':
        void submit({ type: 'chain_event', id: m.id, event: m.event }, `${m.event.kind} ${m.id}`);
        return;
      case 'hold':
        hooks.hold(m.seq);
        return;
      case 'alert':
        hooks.alert({ kind: m.kind, severity: m.severity, message: m.message, details: m.details });
        hooks.log.error(m.message, m.details);
        return;
      case 'reconciled':
        hooks.reconciled(m.result);
        return;
      case 'log':
        hooks.log[m.level](m.message, m.details);
        return;
      default:
        return;
    }
  };
  let handle: RelayerHandle;
  try {
    handle = startRelayerThread(
      {
        dataDir: cfg.dataDir,
        rpcUrl: rpcUrl!,
        chainId: cfg.chainId,
        serviceName: cfg.serviceName,
        addresses,
        relayerKey: cfg.relayerKey,
        oracleKey: cfg.oracleKey,
        options: { ...cfg.relayer, deploymentBlock, followVenueClock: cfg.mode === 'embedded' },
        idHashSeed: cfg.idHashSeed,
      },
      onMessage,
      (e) => hooks.log.error('relayer thread failed', { error: e.message }),
    );
  } catch (e) {
    await embedded?.stop();
    throw e;
  }
  return {
    info: { mode: cfg.mode, chainId: cfg.chainId, rpcUrl: cfg.publicRpcUrl ?? rpcUrl, deploymentBlock, relayer },
    metrics: () => handle.metrics(),
    embedded,
    async close() {
      await handle.stop();
      await embedded?.stop();
    },
  };
}
