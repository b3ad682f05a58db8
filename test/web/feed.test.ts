/**
 * The page's feed (web/feed.js) against the real venue, with the `ws` package as the
 * browser's WebSocket: channels beyond one socket's subscription limit are spread over
 * several sockets, a limit lower than the feed assumes is learnt from the refusal, an
 * unknown channel in a batch is found and left out while the rest are held, and
 * `resubscribe` brings a fresh depth snapshot.
 */
import t from 'tap';
import WebSocket from 'ws';
import { startTestApp, request } from '../gateway/support/testApp.ts';
import { wsEnv, priceMarks, BTC } from '../gateway/streams/support.ts';

wsEnv({ WS_MAX_SUBSCRIPTIONS: '10' });
Object.assign(globalThis, { WebSocket });
const { Feed } = await import('../../web/feed.js');

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const chain = (await request(`${app.url}/api/markets/chain?pairId=${BTC}`)).body;
const symbols: string[] = chain.strikes.flatMap((r: { call: { symbol: string }; put: { symbol: string } }) => [r.call.symbol, r.put.symbol]);

type Watch = { feed: InstanceType<typeof Feed>; acked: Set<string>; status: () => string };
function watch(): Watch {
  const acked = new Set<string>();
  let status = '';
  const feed = new Feed(`${app.url.replace('http', 'ws')}/ws/public`, { onStatus: (s: string) => (status = s), onSubscribed: (cs: string[]) => cs.forEach((c) => acked.add(c)) });
  t.teardown(() => feed.close());
  return { feed, acked, status: () => status };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
}

t.test('more channels than a socket may hold, under a lower limit than the feed assumes', async (t) => {
  const w = watch();
  const got = new Map<string, number>();
  const channels = new Map<string, (d: unknown) => void>();
  for (const name of [...symbols.map((s) => `${s}@ticker`), 'btc-usdc@index']) channels.set(name, () => got.set(name, (got.get(name) ?? 0) + 1));
  t.ok(channels.size > 25, `${channels.size} channels`);
  w.feed.want(channels);
  await until('every channel acknowledged', () => w.acked.size === channels.size && w.status() === 'live');
  await priceMarks(app);
  await until('a frame on every channel', () => got.size === channels.size);
  t.same([...got.keys()].sort(), [...channels.keys()].sort(), 'every ticker and the index arrived');
});

t.test('an unknown channel is left out, the rest of its request is held', async (t) => {
  const w = watch();
  const good = symbols.slice(0, 4).map((s) => `${s}@ticker`);
  const channels = new Map([...good, 'BTC-1-C-1@ticker'].map((c) => [c, () => {}]));
  w.feed.want(channels);
  await until('the known channels acknowledged', () => w.acked.size === good.length && w.status() === 'live');
  t.same([...w.acked].sort(), good.slice().sort());
});

t.test('resubscribe brings a fresh depth snapshot', async (t) => {
  const w = watch();
  const depth = `${symbols[0]}@depth`;
  const snapshots: number[] = [];
  w.feed.want(new Map([[depth, (d: { type: string; seq: number }) => d.type === 'snapshot' && snapshots.push(d.seq)]]));
  await until('the first snapshot', () => snapshots.length === 1);
  w.feed.resubscribe(depth);
  await until('a second snapshot', () => snapshots.length === 2);
  t.equal(snapshots[1], snapshots[0], 'at the same seq (nothing changed)');
});
