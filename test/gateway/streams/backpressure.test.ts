/**
 * Slow consumers (api.md "WebSocket"): a reader that stops reading is closed with 4008 once
 * its send buffer passes the bound, while a reader of the same channels keeps receiving
 * every message, with no depth gap.
 */
import t from 'tap';
import type { Socket } from 'node:net';
import { startTestApp, request } from '../support/testApp.ts';
import { within } from '../../support/within.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, order, wallet, BTC, type Client, type Frame } from './support.ts';

// The bound well above one turn of traffic (400 tickers and a depth change, ~150 KB): uWS's own
// hard limit, twice the bound, must not be what closes the reader within a single turn.
wsEnv({ WS_MESSAGES_PER_MINUTE: '10000', WS_MAX_BUFFERED_BYTES: '524288', WS_MAX_SUBSCRIPTIONS: '1000' });
// A fixed start: what is listed and the tickers' values (so their sizes) follow the clock. On
// the wall clock, with a bound of 64 KB, one turn's tickers passed uWS's hard limit on some
// days and the reader was dropped with 1006 instead of closed with 4008.
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
await priceMarks(app);
const alice = wallet(0xa11ce);
await fund(app, alice);
const series = atmSeries(app);
const s = app.app.services;
const tickers = [...app.app.engine.state.series.values()].filter((x) => x.spec.pairId === BTC).map((x) => `${x.spec.symbol}@ticker`);
const depth = `${series.spec.symbol}@depth`;

async function subscribeAll(c: Client, channels: string[]): Promise<void> {
  for (let i = 0; i < channels.length; i += 100) {
    c.send({ method: 'SUBSCRIBE', params: channels.slice(i, i + 100), id: i });
    await c.next((f) => f['id'] === i, 'ack');
  }
}

async function slowCloses(): Promise<number> {
  const text = (await request(`${app.url}/metrics`)).body as string;
  return Number(/ws_slow_consumer_closes_total\{stream="public"\} (\d+)/.exec(text)?.[1] ?? 0);
}

/** One turn of traffic: an oracle update (every BTC ticker changes) and a book change. */
let step = 0;
async function traffic(): Promise<void> {
  const o = app.app.engine.state.oracles.get(BTC)!;
  step++;
  await Promise.all([
    s.pipeline.submit({ type: 'oracle', pairId: BTC, spot: o.spot + (step % 2 === 0 ? 1n : -1n) * 10n ** 18n, volatility: o.volatility, riskFreeRate: o.riskFreeRate, marks: [] }),
    s.pipeline.submit({ type: 'place', orders: [order(app, alice, series, true, 100 + (step % 300), 0.01)] }),
  ]);
  // Let the turn end so that tickers are flushed and buffers checked.
  await new Promise((r) => setImmediate(r));
}

t.test('a reader that stops reading is cut off with 4008; the others keep receiving', async (t) => {
  t.ok(tickers.length > 50, `${tickers.length} ticker channels`);
  const slow = await connect(app, '/ws/public');
  const fast = await connect(app, '/ws/public');
  await subscribeAll(slow, [...tickers, depth]);
  await subscribeAll(fast, [...tickers, depth]);
  const deltas: Frame[] = [];
  fast.ws.on('message', (d) => {
    const f = JSON.parse(d.toString()) as Frame;
    if (f['channel'] === depth) deltas.push(f);
  });
  const before = await slowCloses();
  (slow.ws as unknown as { _socket: Socket })._socket.pause();
  let turns = 0;
  while (turns < 3000) {
    await traffic();
    turns++;
    if (turns % 25 === 0 && (await slowCloses()) > before) break;
  }
  t.equal(await slowCloses(), before + 1, `the slow reader was closed after ${turns} turns`);
  for (let i = 0; i < 20; i++) await traffic();
  (slow.ws as unknown as { _socket: Socket })._socket.resume();
  const closed = await within(slow.closed, 60_000, "the slow reader's close");
  t.equal(closed.code, 4008, 'close code 4008');
  t.match(closed.reason, /slow consumer/);
  t.ok(app.app.services.alerts.recent().some((a) => a.kind === 'slow_consumer' && a.details?.['stream'] === 'public'), 'the close is an alert on venue@alerts too');
  t.ok(slow.frames.length > 0, `the slow reader read its backlog (${slow.frames.length} frames) before the close frame`);

  t.equal(fast.isClosed(), false, 'the fast reader is still connected');
  const last = app.app.engine.state.series.get(series.spec.seriesId)!.bookSeq;
  // Awaited: the last delta's arrival (fast.next fails with a message if it never comes).
  await fast.next((f) => f['channel'] === depth && f['data'].seq === last, `the depth delta at seq ${last}`, 60_000);
  const gaps = deltas.slice(1).filter((f, i) => f['data'].prevSeq !== deltas[i]!['data'].seq);
  t.same(gaps, [], 'every delta reached the fast reader, in order');
  t.equal(deltas[deltas.length - 1]!['data'].seq, last, 'up to the last one');
  const afterCut = fast.frames.filter((f) => typeof f['channel'] === 'string' && f['channel'].endsWith('@ticker')).length;
  t.ok(afterCut >= turns, `the fast reader got its tickers (${afterCut})`);
  fast.close();
});
