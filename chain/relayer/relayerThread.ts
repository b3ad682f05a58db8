/**
 * The relayer's worker thread (docs/chain.md "The relayer"): off the main thread, it reads the
 * venue's committed journal from DATA_DIR (as the snapshot worker does), runs the relayer
 * (chain/relayer/relayer.ts) on a timer, and posts what it says to the main thread
 * (chain/relayer/relayerHandle.ts). Loaded through workers/loadTask.cjs (tsx's CommonJS hook):
 * no top-level await here or in anything imported.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Hex } from 'viem';
import type { Command } from '../../engine/index.ts';
import { openSnapshotAccess } from '../../persistence/storage.ts';
import type { Logger } from '../../persistence/types.ts';
import type { ContractAddresses } from '../deploy.ts';
import { ChainClient, shortMessage } from './chainClient.ts';
import { Outbox } from './outbox.ts';
import { settlementPriceSigner } from './oracleSigner.ts';
import { Relayer, type JournalSource, type RelayerMessage, type RelayerMetrics, type RelayerOptions } from './relayer.ts';

export type RelayerThreadData = {
  readonly dataDir: string;
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly serviceName: string;
  readonly addresses: ContractAddresses;
  readonly relayerKey: Hex;
  readonly oracleKey: Hex;
  readonly options: Omit<RelayerOptions, 'signPrice' | 'venueOptions'>;
  readonly idHashSeed: number;
};

/** What the thread posts: the relayer's messages, its metrics four times a second, and its end. */
export type RelayerThreadMessage = RelayerMessage | { readonly type: 'metrics'; readonly metrics: RelayerMetrics } | { readonly type: 'stopped' };

const data = workerData as RelayerThreadData & { taskFile: string };
const port = parentPort!;
const post = (m: RelayerThreadMessage) => port.postMessage(m);

const quiet: Logger = { info: () => {}, warn: (msg) => post({ type: 'log', level: 'warn', message: msg, details: {} }), error: (msg) => post({ type: 'log', level: 'error', message: msg, details: {} }) } as Logger;

let running = true;
port.on('message', (m: { type: string }) => {
  if (m.type === 'stop') running = false;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * This thread at niceness 10 where the system lets one thread have its own: on
 * Linux `setpriority` takes a thread id, read here from /proc/thread-self. Settlement only has to
 * keep up on average; the order route's latency is the main thread's and the signature pool's,
 * which must not wait behind a batch being encoded and signed (bench/settlement: the order route
 * with the relayer on). Elsewhere, or refused, the thread keeps the process's priority.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(/\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: the process's priority
  }
}

async function main(): Promise<void> {
  lowerThreadPriority();
  const access = openSnapshotAccess({ dataDir: data.dataDir, log: quiet });
  const journal: JournalSource = {
    refresh: () => access.refresh(),
    read: (fromSeq) => access.journal.read(fromSeq) as Iterable<Command>,
    genesis: () => {
      for (const c of access.snapshots.candidates()) if (c.ok && c.snapshot.seq === 0) return c.snapshot.state;
      return null;
    },
  };
  const outbox = Outbox.open(data.dataDir);
  const chain = new ChainClient(data.rpcUrl, data.chainId, data.addresses, data.relayerKey);
  const mine = outbox.chainOf();
  try {
    if (mine === null) await outbox.saveChain({ chainId: data.chainId, orderBook: data.addresses.orderBook });
    else if (mine.chainId !== data.chainId || mine.orderBook !== data.addresses.orderBook) {
      post({ type: 'alert', kind: 'settlement_halted', severity: 'critical', message: `settlement halted: the relayer's outbox in ${data.dataDir}/chain/relayer settles to chain ${mine.chainId} (order book ${mine.orderBook}), not ${data.chainId} (${data.addresses.orderBook})`, details: { outbox: mine } });
      return;
    }
    const relayer = new Relayer(journal, outbox, chain, { ...data.options, signPrice: settlementPriceSigner(data.oracleKey, data.serviceName, data.chainId, data.addresses.oracle), venueOptions: { idHashSeed: data.idHashSeed } }, post);
    // The chain may be unreachable for a while at start (trading goes on): start once it answers.
    let started = false;
    let lastSaid = 0;
    while (running && !started) {
      try {
        started = await relayer.start();
        if (!started) break; // halted, with its alert
      } catch (e) {
        if (Date.now() - lastSaid > 10_000) {
          lastSaid = Date.now();
          post({ type: 'log', level: 'warn', message: `relayer: the chain at ${data.rpcUrl} does not answer yet (${shortMessage(e)}); settlement starts when it does`, details: {} });
        }
        await sleep(500);
      }
    }
    // Metrics four times a second, also while a step waits on a chain that does not answer.
    const metricsTimer = setInterval(() => {
      relayer.measure();
      post({ type: 'metrics', metrics: { ...relayer.metrics } });
    }, 250);
    while (running) {
      const before = relayer.metrics.replicaSeq;
      try {
        if (started) await relayer.step();
      } catch (e) {
        post({ type: 'log', level: 'error', message: `relayer: ${(e as Error).stack ?? String(e)}`, details: {} });
        await sleep(1000);
      }
      // Busy while the journal has more to fold; otherwise a short sleep (the batch window is 250 ms).
      await sleep(relayer.metrics.replicaSeq !== before ? 1 : 20);
    }
    clearInterval(metricsTimer);
    relayer.measure();
    post({ type: 'metrics', metrics: { ...relayer.metrics } });
  } finally {
    await outbox.close();
    await access.close();
  }
}

main().then(
  () => post({ type: 'stopped' }),
  (e: unknown) => {
    post({ type: 'log', level: 'error', message: `relayer thread failed: ${(e as Error).stack ?? String(e)}`, details: {} });
    post({ type: 'stopped' });
  },
);
