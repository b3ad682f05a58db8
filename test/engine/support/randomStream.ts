/**
 * Seeded random command streams over a listed venue: deposits, orders around the mark,
 * cancels, replaces, oracle moves and clock ticks that cross an expiry, with market maker
 * protection on some wallets (set, tripped by mmp orders, reset, unfrozen by time). Used by
 * the determinism and snapshot tests.
 */
import type { Command, CommandBody } from '../../../engine/commands.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { Harness, BTC, ETH, usdc } from './venueFixture.ts';
import { prng } from '../domain/prng.ts';
import { instructionsOf, type OrderInstructions } from '../../../engine/domain/instructions.ts';


const WALLETS = Array.from({ length: 6 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);

/** The commands that list and price the two pairs of `listedVenue` and fund the wallets. */
export function* setupBodies(): Generator<{ body: CommandBody; advance: number }> {
  for (const [symbol, underlying, tickDecimals] of [
    ['BTC-USDC', 'BTC', 2],
    ['ETH-USDC', 'ETH', 3],
  ] as const) {
    yield { body: { type: 'list_pair', pair: { symbol, underlying, quote: 'USDC', tickDecimals, minSize: WAD / 100n, sizeStep: WAD / 100n, maxCallOI: 0n, maxPutOI: 0n } }, advance: 1 };
  }
  yield { body: { type: 'oracle', pairId: BTC, spot: 100_000n * WAD, volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, advance: 1 };
  yield { body: { type: 'oracle', pairId: ETH, spot: 3_500n * WAD, volatility: (7n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, advance: 1 };
  yield { body: { type: 'clock' }, advance: 1 };
  for (const owner of WALLETS) {
    yield { body: { type: 'create_portfolio', owner }, advance: 1 };
    yield { body: { type: 'deposit', owner, portfolioId: 1, amount: usdc(5_000_000) }, advance: 1 };
  }
}

/**
 * A seeded stream of command bodies for a harness that starts empty: the setup of
 * `listedVenue`, funded wallets, then `n` random commands. The caller applies each body
 * (with `h.run(body, advance)`) before taking the next: later choices read the state.
 */
export function* randomBodies(h: Harness, seed: number, n: number): Generator<{ body: CommandBody; advance: number }> {
  yield* setupBodies();
  // Market maker protection on half the wallets (BTC): tight limits, so that mmp orders trip it;
  // frozen for a while or until a reset. Drawn from its own generator, like the instructions.
  const mrnd = prng(seed + 15_485_863);
  for (let k = 0; k < 3; k++) {
    const owner = WALLETS[k]!;
    yield { body: { type: 'set_mmp', owner, pairId: BTC, windowMs: 60_000, frozenMs: k === 2 ? 0 : 90_000, qtyLimit: k === 0 ? WAD / 2n : 0n, deltaLimit: k === 1 ? WAD / 5n : 0n, vegaLimit: 0n, tradeCountLimit: 3 }, advance: 1 };
  }
  const rnd = prng(seed);
  // Order instructions draw from their own generator, so the rest of the stream is as it was without them.
  const irnd = prng(seed + 7_919);
  let cids = 0;
  const instructions = (): { instructions: OrderInstructions } | Record<string, never> => {
    const u = irnd();
    if (u < 0.6) return {};
    const timeInForce = u < 0.7 ? 'IOC' : u < 0.78 ? 'FOK' : 'GTC';
    return { instructions: instructionsOf({ timeInForce, postOnly: timeInForce === 'GTC' && irnd() < 0.4, reduceOnly: irnd() < 0.15, mmp: irnd() < 0.2, clientOrderId: irnd() < 0.5 ? `c${++cids % 12}` : null }) };
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const seriesPool = (): Hex[] => {
    const live = [...h.venue.state.series.values()].filter((s) => !s.settled && s.spec.expiry * 1000 > h.ts);
    live.sort((a, b) => a.spec.expiry - b.spec.expiry || Number(a.spec.strike - b.spec.strike));
    const near = live.filter((s) => s.spec.expiry === live[0]!.spec.expiry);
    return near.slice(Math.floor(near.length / 2) - 3, Math.floor(near.length / 2) + 3).map((s) => s.spec.seriesId);
  };
  let pool = seriesPool();
  const spots = new Map<Hex, number>([[BTC, 100_000], [ETH, 3_500]]);
  for (let i = 0; i < n; i++) {
    if (i % 200 === 0) pool = seriesPool();
    if (mrnd() < 0.01) yield { body: { type: 'reset_mmp', owner: WALLETS[Math.floor(mrnd() * 3)]!, pairId: BTC }, advance: 1 };
    const x = rnd();
    const owner = pick(WALLETS);
    // Time moves on so that a long stream crosses a daily expiry and settles it.
    const advance = Math.floor(rnd() * 60_000);
    if (x < 0.55) {
      const seriesId = pick(pool);
      const s = h.venue.state.series.get(seriesId)!;
      const mark = Number(s.marks!.mark) / 1e18;
      const isBuy = rnd() < 0.5;
      const price = Math.max(0.1, Math.round(mark * (1 + (rnd() - 0.5) * 0.2) * 10) / 10);
      yield { body: { type: 'place', orders: [h.order(owner, seriesId, isBuy, price, 0.01 * (1 + Math.floor(rnd() * 50)), instructions())] }, advance };
    } else if (x < 0.75) {
      const open = [...h.venue.state.orderIndex.keys()];
      if (open.length === 0) continue;
      const orderId = pick(open);
      const held = h.venue.state.orderIndex.get(orderId)!;
      const rec = h.venue.state.series.get(h.venue.state.accounts.orders.seriesId[held]!)!.openOrder(h.venue.state.accounts.orders.ref[held]!)!;
      const cancel = { orderId, owner: rec.owner, nonce: h.nextNonce(rec.owner), deadline: Math.floor(h.ts / 1000) + 60 };
      yield { body: rnd() < 0.5 ? { type: 'cancel', cancels: [cancel] } : { type: 'replace', pairs: [{ cancel, place: h.order(rec.owner, rec.seriesId, rec.isBuy, (rec.tick + 1) / 100, 0.05) }] }, advance };
    } else if (x < 0.78) {
      const pairId = rnd() < 0.5 ? BTC : ETH;
      const spot = spots.get(pairId)! * Math.exp((rnd() - 0.5) * 0.01);
      spots.set(pairId, spot);
      yield { body: { type: 'oracle', pairId, spot: BigInt(Math.round(spot * 100)) * (WAD / 100n), volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, advance };
    } else if (x < 0.97) {
      yield { body: { type: 'clock' }, advance };
    } else {
      yield { body: { type: 'deposit', owner, portfolioId: 1, amount: usdc(1000) }, advance };
    }
  }
}

/** Generate and apply a whole stream on a fresh harness; returns it with its command log. */
export function randomStream(seed: number, n: number): { harness: Harness; commands: Command[] } {
  const h = new Harness();
  for (const { body, advance } of randomBodies(h, seed, n)) h.run(body, advance);
  return { harness: h, commands: h.log };
}
