/**
 * bench/settlement's venue with an injected clock (bench/lib/benchClock.ts), for the phases that
 * need one: RFQ fills on chain (bench/lib/settlementRfq.ts) and expiry settlement on chain
 * (bench/lib/settlementExpiry.ts). This file holds the child's side of them, what the two
 * processes say to each other, and the bench's `--only=` parts.
 *
 * The child answers, beside bench/settlement's own messages (reset, pause, resume, drain):
 * - `markets`: the venue's time and every live series (with its mark and tick), and the RFQ
 *   signing domain (docs/rfq.md);
 * - `advance { ms }`: the injected clock `ms` forward (the generator takes the venue past an
 *   expiry's 08:00 UTC so);
 * - `expire`: the relayer idle, then the venue's clock command, which settles every series due
 *   (docs/chain.md "Items": one SETTLEMENT_PRICE a pair and expiry signed by the oracle key, a
 *   SERIES_SETTLED a series, a SETTLE_POSITION a position); its answer, once the relayer is idle
 *   again, is every batch included since, read back from the chain (items by kind, gas used),
 *   and the times from the command to the last batch holding a SETTLE_POSITION.
 */
import { createPublicClient, http, type Hex } from 'viem';
import type { App } from '../../gateway/app.ts';
import { decodeItems, decodeSettleCalldata } from '../../chain/items.ts';
import { rfqDomain, type Eip712Domain } from '../../workers/eip712/types.ts';
import type { BenchClock } from './benchClock.ts';
import type { BenchVenueSetup } from './benchServer.ts';

/** The timed venue's start: a Monday, 12:00 UTC (the tests' TEST_START_AT, test/gateway/support/testApp.ts); its nearest expiry is 20 hours on. */
export const TIMED_START_MS = Date.UTC(2026, 0, 5, 12, 0, 0);
/** How long the child waits for the relayer to fold, cut and see included what was committed. */
const IDLE_MS = 90_000;

export const SETTLEMENT_PARTS = ['fills', 'rfq', 'expiry', 'route'] as const;
export type SettlementPart = (typeof SETTLEMENT_PARTS)[number];

/** `--only=fills,rfq,expiry,route` (comma-separated; default every part, in that order). */
export function parseSettlementParts(argv: readonly string[]): SettlementPart[] {
  let only: SettlementPart[] = [...SETTLEMENT_PARTS];
  for (const a of argv) {
    const m = /^--only=(.*)$/.exec(a);
    if (m === null) throw new Error(`bench/settlement: unknown flag "${a}" (flags: --only=${SETTLEMENT_PARTS.join(',')})`);
    const named = m[1]!.split(',').filter((p) => p !== '');
    for (const p of named) if (!(SETTLEMENT_PARTS as readonly string[]).includes(p)) throw new Error(`bench/settlement: --only takes ${SETTLEMENT_PARTS.join(', ')} (comma-separated), got "${p}"`);
    only = SETTLEMENT_PARTS.filter((p) => named.includes(p));
  }
  if (only.length === 0) throw new Error('bench/settlement: --only named no part');
  return only;
}

/** A live series as the generator needs it (integers as decimal strings: the IPC channel is JSON). */
export type MarketSeries = { seriesId: Hex; pairId: Hex; strike: string; expiry: number; isCall: boolean; mark: string; markTick: number };
/** An included batch after the expiry: its items by kind, read back from its calldata, and its gas. */
export type ExpiryBatch = { batch: number; gasUsed: number; items: Record<string, number> };
export type Expired = {
  type: 'expired';
  /** Series the clock command settled, and the positions its events paid. */
  series: number;
  positions: number;
  /** From the clock command's start: its commit, and the last SETTLE_POSITION's batch included (ms). */
  commandMs: number;
  spanMs: number;
  batches: ExpiryBatch[];
};
export type TimedTo = { type: 'markets' } | { type: 'advance'; ms: number } | { type: 'expire' };
export type TimedFrom = { type: 'markets'; nowMs: number; rfqDomain: Eip712Domain; series: MarketSeries[] } | { type: 'clock'; nowMs: number } | Expired | { type: 'failed'; message: string };

/** What the parent's phases need of the timed venue (bench/settlement.ts builds it). */
export type TimedVenue = {
  readonly prefix: string;
  readonly port: number;
  readonly setup: BenchVenueSetup;
  readonly nonces: bigint[];
  /** The child's answer to one of the messages above ('failed' thrown). */
  ask(m: TimedTo): Promise<Exclude<TimedFrom, { type: 'failed' }>>;
  /** bench/settlement's backlog controls: forget fills seen, pause and resume block production, wait for every fill committed since the reset on chain. */
  reset(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  drain(): Promise<{ fills: number; spanMs: number; batches: { batch: number; fills: number; gasUsed: number }[] }>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The child's handler of TimedTo messages, for a venue started with an injected clock. */
export function timedChild(app: App, clock: BenchClock): (m: TimedTo) => Promise<TimedFrom> {
  const chain = app.chain;
  const rpcUrl = app.services.chain.info.rpcUrl;
  if (chain === null || rpcUrl === null) throw new Error('settlement: the timed venue started without a chain');
  const rpc = createPublicClient({ transport: http(rpcUrl) });
  const { pipeline, reads, config } = app.services;
  /** Every batch the relayer reported included: its transaction and when (performance.now). */
  const included = new Map<number, { tx: Hex; at: number }>();
  app.services.chain.statusListeners.push((m) => {
    if (m.status === 'included' && m.txHash !== null && !included.has(m.batch)) included.set(m.batch, { tx: m.txHash, at: performance.now() });
  });

  /** Everything committed folded, cut and included (the relayer's metrics). */
  const idle = async (what: string) => {
    await pipeline.drain();
    const deadline = performance.now() + IDLE_MS;
    for (;;) {
      const m = chain.metrics();
      if (m?.halted) throw new Error(`settlement halted: ${m.halted}`);
      if (m !== null && m.replicaSeq >= app.storage.journal.lastSeq() && m.openItems === 0 && m.outboxBatches === 0) return m;
      if (performance.now() > deadline) throw new Error(`settlement: ${what} not on chain within ${IDLE_MS} ms (relayer: ${JSON.stringify(m)})`);
      await sleep(20);
    }
  };

  const markets = (): TimedFrom => {
    const series: MarketSeries[] = [];
    for (const s of reads.catalog.series.values()) {
      if (s.settled) continue;
      const tickDecimals = reads.catalog.pairs.get(s.pairId)!.tickDecimals;
      const markTick = Math.max(1, Number(s.marks.mark / 10n ** BigInt(18 - tickDecimals)));
      series.push({ seriesId: s.seriesId, pairId: s.pairId, strike: s.strike.toString(), expiry: s.expiry, isCall: s.isCall, mark: s.marks.mark.toString(), markTick });
    }
    return { type: 'markets', nowMs: pipeline.now(), rfqDomain: rfqDomain(config.serviceName, config.chainId, config.contracts.rfq), series };
  };

  const expire = async (): Promise<TimedFrom> => {
    const settledBefore = await idle('what was committed before the expiry');
    const before = Math.max(settledBefore.chainSeq, ...included.keys());
    const t0 = performance.now();
    const r = await pipeline.submit({ type: 'clock' });
    const committedAt = performance.now();
    if (!r.ok) return { type: 'failed', message: `the clock command was refused: ${r.rejection.code}` };
    const settled = new Set<string>();
    for (const e of r.events) if (e.type === 'series_settled') settled.add(e.seriesId);
    let paid = 0;
    for (const e of r.events) if (e.type === 'position' && settled.has(e.seriesId)) paid++;
    if (settled.size === 0) return { type: 'failed', message: `no series settled at venue time ${new Date(pipeline.now()).toISOString()}` };
    await idle('the expiry');
    const after = [...included].filter(([b]) => b > before).sort((a, b) => a[0] - b[0]);
    const batches: ExpiryBatch[] = [];
    let last = 0;
    let positions = 0;
    for (const [batch, { tx, at }] of after) {
      const [t, receipt] = await Promise.all([rpc.getTransaction({ hash: tx }), rpc.getTransactionReceipt({ hash: tx })]);
      const decoded = decodeSettleCalldata(t.input);
      if (decoded === null) return { type: 'failed', message: `batch ${batch}'s transaction ${tx} is not a settle() call` };
      const items: Record<string, number> = {};
      for (const item of decodeItems(decoded.items)) items[item.kind] = (items[item.kind] ?? 0) + 1;
      const n = items.SETTLE_POSITION ?? 0;
      positions += n;
      if (n > 0 && at > last) last = at;
      batches.push({ batch, gasUsed: Number(receipt.gasUsed), items });
    }
    if (positions !== paid) return { type: 'failed', message: `${positions} SETTLE_POSITION items on chain, ${paid} positions paid by the venue` };
    return { type: 'expired', series: settled.size, positions, commandMs: committedAt - t0, spanMs: last - t0, batches };
  };

  return async (m) => {
    if (m.type === 'markets') return markets();
    if (m.type === 'advance') {
      clock.advance(m.ms);
      return { type: 'clock', nowMs: pipeline.now() };
    }
    return expire();
  };
}
