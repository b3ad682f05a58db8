/**
 * Depth stream against the real venue: a snapshot plus the deltas that follow rebuild the
 * REST order book exactly through a burst of random orders and cancels (submitted
 * concurrently, so that commands are in flight while clients subscribe), with no seq gap,
 * for clients that subscribe before, during and after the burst, under every channel name.
 */
import t from 'tap';
import { startTestApp, request } from '../support/testApp.ts';
import { userSymbol } from '../../../engine/domain/symbols.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import type { CommandBody } from '../../../engine/commands.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, order, cancel, wallet, asyncApiValidator, type Client, type Frame } from './support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000' });
const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
await priceMarks(app);
const alice = wallet(0xa11ce);
const bob = wallet(0xb0b);
await fund(app, alice);
await fund(app, bob);
const series = atmSeries(app);
const mark = Number(series.marks!.mark) / 1e18;
const api = await asyncApiValidator(app);

/** Local book from a snapshot and deltas; checks prevSeq continuity. */
class LocalBook {
  seq = -1;
  gaps: string[] = [];
  deltas = 0;
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();
  apply(f: Frame): void {
    const d = f['data'];
    if (d.type === 'snapshot') {
      this.bids.clear();
      this.asks.clear();
      for (const [p, s] of d.bids) this.bids.set(p, s);
      for (const [p, s] of d.asks) this.asks.set(p, s);
      this.seq = d.seq;
      return;
    }
    if (d.prevSeq !== this.seq) this.gaps.push(`prevSeq ${d.prevSeq} after seq ${this.seq}`);
    this.seq = d.seq;
    this.deltas++;
    for (const [side, levels] of [[this.bids, d.bids], [this.asks, d.asks]] as const) {
      for (const [p, s] of levels as [string, string][]) {
        if (s === '0') side.delete(p);
        else side.set(p, s);
      }
    }
  }
  levels(bids: boolean): [string, string][] {
    const m = bids ? this.bids : this.asks;
    return [...m.entries()].sort((a, b) => (BigInt(a[0]) === BigInt(b[0]) ? 0 : (BigInt(a[0]) < BigInt(b[0])) === bids ? 1 : -1));
  }
}

/** Subscribes and feeds every frame of `channel` into a LocalBook, validating each against the document. */
async function follow(channel: string): Promise<{ client: Client; book: LocalBook; invalid: string[] }> {
  const client = await connect(app, '/ws/public');
  const book = new LocalBook();
  const invalid: string[] = [];
  client.ws.on('message', (data) => {
    const f = JSON.parse(data.toString()) as Frame;
    if (f['channel'] === undefined) return;
    const key = `${f['channel'].startsWith('orderbook:') ? 'orderbookEarlier' : 'depth'}.${f['data'].type === 'snapshot' ? 'depthSnapshot' : 'depthDelta'}`;
    const err = api.check(key, f);
    if (err) invalid.push(err);
    book.apply(f);
  });
  client.send({ method: 'SUBSCRIBE', params: [channel], id: 1 });
  await client.next((f) => f['id'] === 1, 'ack');
  await client.next((f) => f['data']?.type === 'snapshot', 'snapshot');
  return { client, book, invalid };
}

async function restBook() {
  const r = await request(`${app.url}/api/markets/orderbook/${series.spec.seriesId}?depth=500`);
  return { seq: r.body.seq as number, bids: r.body.bids.map((l: { price: string; size: string }) => [l.price, l.size]), asks: r.body.asks.map((l: { price: string; size: string }) => [l.price, l.size]) };
}

/** Random orders around the mark from two wallets (crossing ones trade; same-wallet crossings cancel by STP) and random cancels. */
function randomCommands(n: number, seed: number): CommandBody[] {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const open: { owner: string; orderId: Hex }[] = [];
  const out: CommandBody[] = [];
  for (let i = 0; i < n; i++) {
    if (open.length > 5 && rnd() < 0.25) {
      const [o] = open.splice(Math.floor(rnd() * open.length), 1);
      out.push({ type: 'cancel', cancels: [cancel(app, o!.owner, o!.orderId)] });
      continue;
    }
    const owner = rnd() < 0.5 ? alice : bob;
    const isBuy = rnd() < 0.5;
    const price = Math.max(1, Math.round(mark * (isBuy ? 0.97 + rnd() * 0.05 : 0.98 + rnd() * 0.05)));
    const o = order(app, owner, series, isBuy, price, Math.ceil(rnd() * 50) / 100);
    open.push({ owner, orderId: o.orderId });
    out.push({ type: 'place', orders: [o] });
  }
  return out;
}

t.test('snapshot + deltas rebuild the REST book through a burst of random orders, with no seq gap', async (t) => {
  const before = await follow(`${series.spec.symbol}@depth`);
  const earlier = await follow(`orderbook:${series.spec.seriesId.toUpperCase().replace('0X', '0x')}`);
  const commands = randomCommands(400, 7);
  // Submitted in waves of concurrent commands: several are in flight (applied, not yet durable) at once.
  const joiners: Promise<{ client: Client; book: LocalBook; invalid: string[] }>[] = [];
  let trades = 0;
  for (let i = 0; i < commands.length; i += 40) {
    const wave = commands.slice(i, i + 40).map((c) => app.app.services.pipeline.submit(c));
    // Subscribe while this wave's commands are applied but not yet published.
    if (i === 120) joiners.push(follow(userSymbol({ underlying: 'BTC', strike: series.spec.strike, isCall: true, expiry: series.spec.expiry }).toLowerCase() + '@DEPTH'));
    if (i === 280) joiners.push(follow(series.spec.seriesId + '@depth'));
    for (const r of await Promise.all(wave)) if (r.ok) for (const e of r.events) if (e.type === 'trade') trades++;
  }
  const during = await Promise.all(joiners);
  const rest = await restBook();
  t.equal(rest.seq, series.bookSeq, 'REST carries the book seq');
  t.ok(trades > 0, `the burst traded (${trades} trades)`);
  t.ok(rest.bids.length > 0 && rest.asks.length > 0, 'both sides have levels');
  const after = await follow(`${series.spec.symbol}@depth`);
  for (const [name, f] of [['before', before], ['earlier name', earlier], ['joined at 120', during[0]!], ['joined at 280', during[1]!], ['after', after]] as const) {
    // Awaited: the frame that brings the client to the REST seq (next() fails with a message if it never comes).
    if (f.book.seq < rest.seq) await f.client.next((x) => x['channel'] !== undefined && x['data']?.seq === rest.seq, `${name}: the frame at seq ${rest.seq}`, 60_000);
    t.equal(f.book.seq, rest.seq, `${name}: last seq = REST seq`);
    t.same(f.book.gaps, [], `${name}: every delta's prevSeq is the previous seq`);
    t.same(f.book.levels(true), rest.bids, `${name}: bids equal the REST book`);
    t.same(f.book.levels(false), rest.asks, `${name}: asks equal the REST book`);
    t.same(f.invalid, [], `${name}: every frame validates against the AsyncAPI document`);
  }
  t.ok(before.book.deltas >= 300, `the first client saw every delta (${before.book.deltas})`);
  t.equal(app.app.engine.state.series.get(series.spec.seriesId)!.bookSeq, rest.seq);
  for (const f of [before, earlier, ...during, after]) f.client.close();
});

t.test('re-subscribing sends a fresh snapshot at the current seq; UNSUBSCRIBE stops deltas', async (t) => {
  const f = await follow(`${series.spec.symbol}@depth`);
  const seq0 = f.book.seq;
  await app.app.services.pipeline.submit({ type: 'place', orders: [order(app, alice, series, true, Math.round(mark * 0.5), 0.01)] });
  await f.client.next((x) => x['data']?.type === 'delta' && x['data'].seq === seq0 + 1, 'delta');
  f.client.send({ method: 'SUBSCRIBE', params: [`${series.spec.symbol}@depth`], id: 2 });
  const snap = await f.client.next((x) => x['data']?.type === 'snapshot' && x['data'].seq === seq0 + 1, 'second snapshot');
  t.equal(snap['data'].bids.length, f.book.bids.size, 'the new snapshot has the same levels');
  f.client.send({ method: 'UNSUBSCRIBE', params: [`${series.spec.symbol.toLowerCase()}@depth`], id: 3 });
  const ack = await f.client.next((x) => x['id'] === 3, 'unsubscribe ack');
  t.same(ack, { result: null, id: 3, channels: [`${series.spec.symbol}@depth`] });
  const count = f.client.frames.length;
  await app.app.services.pipeline.submit({ type: 'place', orders: [order(app, alice, series, true, Math.round(mark * 0.5) + 1, 0.01)] });
  f.client.send({ method: 'PING', id: 4 });
  await f.client.next((x) => x['id'] === 4, 'pong');
  t.equal(f.client.frames.length, count + 1, 'only the pong arrived after UNSUBSCRIBE');
  f.client.close();
});
