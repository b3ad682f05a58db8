/**
 * The RFQ fold (gateway/readModels/rfqBook.ts) is sufficient: folded from the committed
 * events alone into fresh read models (which hold no venue), it shows the requests, their
 * quotes with filled sizes, their statuses, the open requests, which request holds a quote
 * id and every quote's status exactly as the engine's RFQ actor holds them. A field an event
 * loses, or a look into engine state, makes it differ. Its state survives serialisation.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { keccak256, toHex } from 'viem';
import type { Hex } from '../../../engine/domain/hex.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { quoteStatus } from '../../../engine/actors/rfq.ts';
import type { Venue } from '../../../engine/venue.ts';
import { ReadModels } from '../../../gateway/readModels/readModels.ts';
import { RFQ_RESOLVED_KEPT } from '../../../gateway/readModels/rfqBook.ts';
import { Harness, BTC, ALICE, MM } from '../../engine/support/venueFixture.ts';
import { fullBodies, STREAM_MMM } from './support/fullStream.ts';

/** The engine's RFQ state as plain data, in the shape the fold keeps. */
function engineView(venue: Venue) {
  const rfq = venue.state.rfq;
  return {
    requests: [...rfq.requests.values()].map((r) => ({
      requestId: r.requestId,
      taker: r.taker,
      portfolioId: r.portfolioId,
      seriesId: r.seriesId,
      pairId: r.pairId,
      size: r.size,
      takerIsBuying: r.takerIsBuying,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
      status: r.status,
      filledQuoteId: r.filledQuoteId,
      quotes: [...r.quotes.values()].map((q) => ({ ...q })),
    })),
    open: rfq.open().map((r) => r.requestId),
  };
}

function foldView(reads: ReadModels) {
  const rfq = reads.rfq;
  return {
    requests: [...rfq.requests.values()].map((r) => ({ ...r, quotes: [...r.quotes.values()].map((q) => ({ ...q })) })),
    open: rfq.open().map((r) => r.requestId),
  };
}

/** Everything the gateway reads of the RFQ state, fold against engine; returns the number of differences (each reported once). */
function compare(t: Test, venue: Venue, reads: ReadModels, where: string, opts: { resolvedOrder?: boolean } = {}): number {
  let bad = 0;
  const check = (ok: boolean, what: string, found?: unknown, wanted?: unknown) => {
    if (!ok) {
      bad++;
      t.fail(`${where}: ${what}`, { found, wanted });
    }
  };
  const e = engineView(venue);
  const f = foldView(reads);
  const same = (a: unknown, b: unknown) => JSON.stringify(a, big) === JSON.stringify(b, big);
  check(same(f.requests, e.requests), 'requests, quotes, filled sizes and statuses', f.requests, e.requests);
  check(same(f.open, e.open), 'open requests in creation order', f.open, e.open);
  if (opts.resolvedOrder !== false) check(same(reads.rfq.resolvedIds(), venue.state.rfq.resolved), 'resolved requests kept', reads.rfq.resolvedIds(), venue.state.rfq.resolved);
  const nowSec = venue.state.nowSec;
  for (const r of venue.state.rfq.requests.values()) {
    for (const q of r.quotes.values()) {
      const held = venue.state.rfq.findQuote(q.quoteId)!.request.requestId;
      const found = reads.rfq.findQuote(q.quoteId);
      check(found?.request.requestId === held && found.quote.filled === venue.state.rfq.findQuote(q.quoteId)!.quote.filled, `findQuote ${q.quoteId}`, found?.request.requestId, held);
      const mmm = venue.state.accounts.walletOf(q.mmm);
      const wanted = quoteStatus(q, mmm < 0 ? 0n : venue.state.accounts.mmmNonce[mmm]!, nowSec);
      const mine = reads.rfq.requests.get(r.requestId)?.quotes.get(q.quoteId);
      check(mine !== undefined && reads.rfq.quoteStatus(mine, nowSec) === wanted, `quote status ${q.quoteId}`, mine && reads.rfq.quoteStatus(mine, nowSec), wanted);
      check(reads.catalog.isMmm(q.mmm) === (mmm >= 0 && venue.state.accounts.isMmm[mmm] === 1), `isMmm ${q.mmm}`);
    }
  }
  return bad;
}

const big = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

t.test('the fold matches the engine after every command of seeded streams with RFQ auctions', async (t) => {
  for (const seed of [1, 7, 42]) {
    const h = new Harness();
    const reads = new ReadModels();
    let bad = 0;
    let k = 0;
    for (const { body, advance } of fullBodies(h, seed, 600)) {
      const r = h.run(body, advance);
      reads.apply(h.seq, h.ts, r.events);
      if (body.type.startsWith('rfq') || body.type === 'clock' || body.type.startsWith('mmm') || body.type === 'set_mmm' || ++k % 25 === 0) bad += compare(t, h.venue, reads, `seed ${seed} seq ${h.seq} (${body.type})`);
      if (bad > 3) break;
    }
    // The stream exercised what the fold must follow.
    const requests = [...h.venue.state.rfq.requests.values()];
    const statuses = new Set(requests.map((r) => r.status));
    t.ok(requests.length >= 10, `seed ${seed}: ${requests.length} auctions`);
    t.ok(statuses.has('filled') && statuses.has('expired'), `seed ${seed}: filled and expired auctions (${[...statuses].join(', ')})`);
    t.ok(requests.some((r) => r.quotes.size > 1), `seed ${seed}: an auction with two quotes`);
    t.ok(h.venue.state.accounts.mmmNonce[h.venue.state.accounts.walletOf(STREAM_MMM)]! > 0n, `seed ${seed}: the market maker's nonce moved`);
    t.equal(bad, 0, `seed ${seed}: no difference`);

    // exportState -> importState (through the persistence codec, as beside a snapshot).
    const restored = ReadModels.restore(reads.serialize());
    t.same(JSON.stringify(restored.rfq.exportState(), big), JSON.stringify(reads.rfq.exportState(), big), `seed ${seed}: the state round-trips`);
    t.equal(compare(t, h.venue, restored, `seed ${seed} restored`), 0, `seed ${seed}: the restored fold matches the engine`);
  }
});

t.test('the state exported is plain data (no Map, Set or class instance)', async (t) => {
  const h = new Harness();
  const reads = new ReadModels();
  for (const { body, advance } of fullBodies(h, 3, 300)) reads.apply(h.seq, h.ts, h.run(body, advance).events);
  const walk = (v: unknown, path: string): void => {
    if (v === null || typeof v !== 'object') return;
    const proto = Object.getPrototypeOf(v);
    t.ok(Array.isArray(v) || proto === Object.prototype, `${path} is an array or a plain object`);
    for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  const state = reads.rfq.exportState();
  t.ok(state.requests.length > 0);
  walk(state, 'rfq');
});

t.test('the restored fold follows the stream on as the engine does', async (t) => {
  const h = new Harness();
  let reads = new ReadModels();
  let i = 0;
  let bad = 0;
  for (const { body, advance } of fullBodies(h, 11, 600)) {
    const r = h.run(body, advance);
    reads.apply(h.seq, h.ts, r.events);
    // Round-trip every 50 commands: indexes (open, quote holders) are rebuilt on import.
    if (++i % 50 === 0) reads = ReadModels.restore(reads.serialize());
    if (body.type.startsWith('rfq') || body.type === 'clock') bad += compare(t, h.venue, reads, `seq ${h.seq} (${body.type})`);
    if (bad > 3) break;
  }
  t.equal(bad, 0);
});

t.test('folding the engine image gives the same requests and quotes', async (t) => {
  const h = new Harness();
  const reads = new ReadModels();
  for (const { body, advance } of fullBodies(h, 5, 500)) reads.apply(h.seq, h.ts, h.run(body, advance).events);
  const seeded = new ReadModels();
  seeded.apply(h.venue.seq, h.venue.now, h.wire.events(h.venue.imageEvents()));
  // The image resolves requests in creation order, not in the order they were resolved.
  t.equal(compare(t, h.venue, seeded, 'image', { resolvedOrder: false }), 0);
  t.same([...seeded.rfq.resolvedIds()].sort(), [...h.venue.state.rfq.resolved].sort());
});

t.test('resolved requests are bounded as in the engine; a quote id held by several requests goes to the oldest kept', async (t) => {
  const h = new Harness();
  const reads = new ReadModels();
  const run = (body: Parameters<Harness['run']>[0], advance = 1) => {
    const r = h.run(body, advance);
    reads.apply(h.seq, h.ts, r.events);
    return r;
  };
  // Setup: a listed, priced series and a market maker.
  for (const { body, advance } of fullBodies(h, 9, 0)) run(body, advance);
  const series = [...h.venue.state.series.values()].find((s) => s.spec.pairId === BTC && !s.settled && s.marks !== null && s.spec.expiry * 1000 > h.ts + 86_400_000)!;
  t.ok(series, 'a live series');
  const seriesId = series.spec.seriesId;
  run({ type: 'set_mmm', address: MM, isMmm: true });
  run({ type: 'create_portfolio', owner: ALICE });
  const nowSec = () => Math.floor(h.ts / 1000);
  const quote = (quoteId: Hex, nonce = 0n) => ({ quoteId, mmm: MM, taker: ALICE, seriesId, takerIsBuying: true, price: WAD, size: WAD / 10n, nonce, quoteExpiry: nowSec() + 15 });
  const request = () => {
    const r = run({ type: 'rfq_request', taker: ALICE, portfolioId: 1, seriesId, size: WAD / 10n, takerIsBuying: true, expiresAt: nowSec() + 5 });
    if (!r.ok) throw new Error(`rfq_request refused: ${r.rejection.code}`);
    return (r as { value: { requestId: Hex } }).value.requestId;
  };
  // One signed quote sent to two requests: the older holds it.
  const shared = keccak256(toHex('shared'));
  const first = request();
  const second = request();
  t.ok(run({ type: 'rfq_quote', requestId: first, quote: quote(shared) }).ok);
  t.ok(run({ type: 'rfq_quote', requestId: second, quote: quote(shared) }).ok);
  t.equal(reads.rfq.findQuote(shared)?.request.requestId, first);
  t.equal(compare(t, h.venue, reads, 'shared quote'), 0);
  run({ type: 'mmm_nonce_increment', mmm: MM });
  t.equal(reads.rfq.quoteStatus(reads.rfq.findQuote(shared)!.quote, nowSec()), 'cancelled', 'a quote at an older nonce reads as cancelled');
  t.equal(compare(t, h.venue, reads, 'after the nonce increment'), 0);

  // Past the bound: the oldest resolved requests are forgotten, their quote holders with them.
  for (let i = 0; i < RFQ_RESOLVED_KEPT + 5; i += 500) {
    for (let j = 0; j < 500; j++) request();
    run({ type: 'clock' }, 10_000);
  }
  t.equal(h.venue.state.rfq.resolved.length, RFQ_RESOLVED_KEPT);
  t.equal(reads.rfq.resolvedIds().length, RFQ_RESOLVED_KEPT);
  t.notOk(reads.rfq.requests.has(first), 'the oldest request is forgotten');
  t.equal(reads.rfq.findQuote(shared), null, 'and the quote with it');
  t.equal(compare(t, h.venue, reads, 'bounded'), 0);
  const restored = ReadModels.restore(reads.serialize());
  t.equal(compare(t, h.venue, restored, 'bounded, restored'), 0);
});

t.test('the fold reads events only: its module imports the engine through its front door alone', async (t) => {
  const source = readFileSync(new URL('../../../gateway/readModels/rfqBook.ts', import.meta.url), 'utf8');
  const engineImports = [...source.matchAll(/from '([^']*engine[^']*)'/g)].map((m) => m[1]);
  t.same(engineImports, ['../../engine/index.ts', '../../engine/index.ts']);
  t.notMatch(source, /\bvenue\b|\bVenue\b|\.state\b/, 'no venue, no engine state');
});
