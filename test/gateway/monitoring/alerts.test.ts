/**
 * The alert sources of venue@alerts that the real-server tests cannot provoke cheaply: a
 * journal write that fails (the pipeline tells its listeners, the submitter still gets the
 * error), an MMP trip (the control metrics' trip detection calls back once per trip), and the
 * bus and the commit-latency window themselves.
 */
import t from 'tap';
import { Venue, type MmpEvent, type Command } from '../../../engine/index.ts';
import { CommandPipeline } from '../../../gateway/commandPipeline.ts';
import { createMetrics } from '../../../gateway/http/metrics.ts';
import { createControlMetrics } from '../../../gateway/http/controlMetrics.ts';
import { createLiquidationMetrics } from '../../../gateway/http/liquidationMetrics.ts';
import { Liquidations } from '../../../gateway/readModels/liquidations.ts';
import type { BadDebtEvent } from '../../../engine/index.ts';
import { AlertBus } from '../../../gateway/monitoring/alertBus.ts';
import { LatencyWindow } from '../../../gateway/monitoring/latencyWindow.ts';
import type { Journal } from '../../../persistence/types.ts';

t.test('a failed journal write reaches the journal-error listeners and the submitter', async (t) => {
  let last = 0;
  const journal = { lastSeq: () => last, append: (c: Command) => ((last = c.seq), Promise.reject(new Error('disk full'))) } as unknown as Journal;
  const pipeline = new CommandPipeline(Venue.create(), journal, () => 1_000, createMetrics({ defaultMetrics: false }));
  const seen: string[] = [];
  pipeline.onJournalError((e, c) => seen.push(`${c.seq} ${c.type} ${(e as Error).message}`));
  await t.rejects(pipeline.submit({ type: 'clock' }), /disk full/);
  t.same(seen, ['1 clock disk full']);
});

t.test('an MMP trip calls back once; a frozen protection that changes again does not', async (t) => {
  const trips: MmpEvent[] = [];
  let frozen = false;
  const controls = createControlMetrics(createMetrics({ defaultMetrics: false }), () => frozen, (e) => trips.push(e));
  const e: MmpEvent = { type: 'mmp', seq: 7, ts: 1, owner: '0x00000000000000000000000000000000000000aa', pairId: `0x${'11'.repeat(32)}`, config: { pairId: `0x${'11'.repeat(32)}`, windowMs: 1000, frozenMs: 0, qtyLimit: 1n, deltaLimit: 0n, vegaLimit: 0n, tradeCountLimit: 0 }, frozen: true, frozenUntil: null, reason: 'qty', window: { qty: 1n, delta: 0n, vega: 0n, trades: 1 } };
  controls.onEvents([e]);
  frozen = true;
  controls.onEvents([{ ...e, seq: 8 }]);
  controls.onEvents([{ ...e, seq: 9, frozen: false, reason: null }]);
  t.same(trips.map((x) => x.seq), [7]);
});

t.test('bad debt reaches the alert callback once per bad_debt event, nothing else does', async (t) => {
  const seen: BadDebtEvent[] = [];
  const logged: string[] = [];
  const log = { error: (m: string) => logged.push(m), warn: () => {}, info: () => {}, debug: () => {} } as unknown as Parameters<typeof createLiquidationMetrics>[3];
  const m = createLiquidationMetrics(createMetrics({ defaultMetrics: false }), new Liquidations(), () => 0, log, (e) => seen.push(e));
  const e: BadDebtEvent = { type: 'bad_debt', seq: 3, ts: 1, liquidationId: '1', owner: '0x00000000000000000000000000000000000000aa', portfolioId: 1, amount: 5_000_000n, totalBadDebt: 5_000_000n };
  m.onEvents([{ type: 'clock', seq: 2, ts: 1 } as never, e]);
  t.same(seen, [e]);
  t.equal(logged.length, 1);
});

t.test('the bus keeps the last alerts, numbers them, and survives a broken listener', async (t) => {
  let now = 5;
  const bus = new AlertBus(() => now, 3);
  const got: number[] = [];
  bus.onAlert(() => {
    throw new Error('broken');
  });
  bus.onAlert((a) => got.push(a.id));
  for (let i = 0; i < 5; i++) {
    now++;
    bus.raise({ kind: 'test', message: `alert ${i}` });
  }
  t.same(got, [1, 2, 3, 4, 5]);
  t.same(bus.recent().map((a) => [a.id, a.timestamp, a.severity]), [[3, 8, 'warning'], [4, 9, 'warning'], [5, 10, 'warning']]);
});

t.test('the latency window: p99 of what was recorded since the last look', async (t) => {
  const w = new LatencyWindow(1000);
  t.equal(w.takeP99(), null);
  for (let i = 1; i <= 200; i++) w.record(i);
  t.equal(w.takeP99(), 198);
  t.equal(w.takeP99(), null, 'emptied by the look');
  for (let i = 1; i <= 1500; i++) w.record(i); // beyond capacity: the latest 1,000 (501..1500)
  t.equal(w.takeP99(), 1490);
});
