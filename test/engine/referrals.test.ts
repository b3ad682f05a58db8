/**
 * Referrals in the engine (extensions.md "Points, leaderboard, referrals ..."): codes, their
 * use and every refusal (a refused command changes nothing), the rebate at the referee's taker
 * fills (REFERRAL_REBATE_BPS of the fee into the referrer's portfolio 0, in the same command,
 * nothing for its maker fills), replay and snapshots, and a snapshot older than referrals.
 */
import t from 'tap';
import { listedVenue, BTC, ALICE, BOB, CAROL, usdc, type Harness } from './support/venueFixture.ts';
import type { ReferralRebateEvent, TradeEvent, PortfolioEvent } from '../../engine/events.ts';
import { Venue } from '../../engine/venue.ts';

function setup(config: Parameters<typeof listedVenue>[0] = {}): Harness {
  const h = listedVenue(config);
  for (const w of [ALICE, BOB, CAROL]) h.fund(w, usdc(10_000_000));
  return h;
}

/** The state without the command counter and clock (every command, refused or not, moves them). */
const stateOf = (h: Harness) => {
  const dump = JSON.parse(new TextDecoder().decode(h.venue.serialize()));
  delete dump.seq;
  delete dump.now;
  return JSON.stringify(dump);
};

const refused = (h: Harness, body: Parameters<Harness['run']>[0], code: string) => {
  const before = stateOf(h);
  const r = h.run(body);
  return { ok: !r.ok && r.rejection.code === code, unchanged: stateOf(h) === before, r };
};

t.test('codes and their use, with every refusal changing nothing', async (t) => {
  const h = setup();
  const code = h.ok({ type: 'referral_code', owner: ALICE, code: 'ALICE1' });
  t.same(code.value, { referralCode: 'ALICE1' });
  t.match(code.events, [{ type: 'referral_code', owner: ALICE, code: 'ALICE1' }]);
  for (const [body, reason] of [
    [{ type: 'referral_code', owner: BOB, code: 'abc1' }, 'referral_bad_code'],
    [{ type: 'referral_code', owner: BOB, code: 'ABC' }, 'referral_bad_code'],
    [{ type: 'referral_code', owner: BOB, code: 'A'.repeat(17) }, 'referral_bad_code'],
    [{ type: 'referral_code', owner: BOB, code: 'ALICE1' }, 'referral_code_taken'],
    [{ type: 'referral_code', owner: ALICE, code: 'ALICE2' }, 'referral_code_exists'],
    [{ type: 'referral_apply', owner: BOB, code: 'NOPE1' }, 'referral_unknown_code'],
    [{ type: 'referral_apply', owner: ALICE, code: 'ALICE1' }, 'referral_own_code'],
  ] as const) {
    const x = refused(h, body, reason);
    t.ok(x.ok, `${body.type} ${body.code} by ${body.owner.slice(-4)}: ${reason}`, { r: x.r });
    t.ok(x.unchanged, 'nothing changed');
  }
  const applied = h.ok({ type: 'referral_apply', owner: BOB, code: 'ALICE1' });
  t.same(applied.value, { referrer: ALICE });
  t.match(applied.events, [{ type: 'referral_applied', owner: BOB, referrer: ALICE, code: 'ALICE1' }]);
  h.ok({ type: 'referral_code', owner: CAROL, code: 'CAROL1' });
  const again = refused(h, { type: 'referral_apply', owner: BOB, code: 'CAROL1' }, 'referral_already_applied');
  t.ok(again.ok && again.unchanged, 'a second apply is refused and changes nothing');
});

t.test('the rebate: REFERRAL_REBATE_BPS of the referee\'s taker fee, into the referrer\'s portfolio 0, in the fill\'s command', async (t) => {
  const h = setup({ referralRebateBps: 2500 });
  h.ok({ type: 'referral_code', owner: ALICE, code: 'ALICE1' });
  h.ok({ type: 'referral_apply', owner: BOB, code: 'ALICE1' });
  const call = h.atm(BTC, true);
  const cashBefore = h.venue.state.accounts.depositOf(h.venue.state.accounts.portfolio(ALICE, 0)!);
  // CAROL rests, BOB (the referee) takes: a rebate.
  h.ok({ type: 'place', orders: [h.order(CAROL, call, false, 500, 1)] });
  const take = h.ok({ type: 'place', orders: [h.order(BOB, call, true, 500, 0.5)] });
  const trade = take.events.find((e): e is TradeEvent => e.type === 'trade')!;
  t.ok(trade.takerFee > 0n, 'the referee paid a taker fee');
  const rebate = take.events.find((e): e is ReferralRebateEvent => e.type === 'referral_rebate')!;
  t.same({ ...rebate }, { type: 'referral_rebate', seq: trade.seq, ts: trade.ts, referrer: ALICE, referee: BOB, tradeId: trade.tradeId, amount: (trade.takerFee * 2500n) / 10_000n });
  t.ok(take.events.indexOf(rebate) > take.events.indexOf(trade), 'after its trade event');
  t.equal(h.venue.state.accounts.depositOf(h.venue.state.accounts.portfolio(ALICE, 0)!), cashBefore + rebate.amount, "the referrer's portfolio 0 got it");
  t.match(take.events.filter((e): e is PortfolioEvent => e.type === 'portfolio' && e.owner === ALICE && e.portfolioId === 0), [{ deposit: cashBefore + rebate.amount }], 'with its portfolio event');
  // BOB rests, CAROL takes: BOB is the maker, no rebate.
  h.ok({ type: 'place', orders: [h.order(BOB, call, false, 600, 0.2)] });
  const makerFill = h.ok({ type: 'place', orders: [h.order(CAROL, call, true, 600, 0.2)] });
  t.ok(makerFill.events.some((e) => e.type === 'trade'), 'a fill');
  t.notOk(makerFill.events.some((e) => e.type === 'referral_rebate'), 'no rebate when the referee is the maker');
  // After a trade, a wallet can no longer apply a code.
  const late = refused(h, { type: 'referral_apply', owner: CAROL, code: 'ALICE1' }, 'referral_after_trade');
  t.ok(late.ok && late.unchanged, 'apply after the first trade is refused and changes nothing');
});

t.test('snapshots hold referrals; a snapshot from before referrals still loads', async (t) => {
  const h = setup();
  h.ok({ type: 'referral_code', owner: ALICE, code: 'ALICE1' });
  h.ok({ type: 'referral_apply', owner: BOB, code: 'ALICE1' });
  const restored = Venue.restore(h.venue.serialize());
  t.equal(restored.stateHash(), h.venue.stateHash(), 'same state after a restore');
  t.equal(restored.state.referrals.referrerOf(BOB), ALICE);
  t.equal(restored.state.referrals.owners.get('ALICE1'), ALICE);
  t.equal(restored.config.referralRebateBps, 1000);

  // An older snapshot: no referrals, no referralRebateBps in its config.
  const old = setup();
  const dump = JSON.parse(new TextDecoder().decode(old.venue.serialize()));
  delete dump.config.referralRebateBps;
  t.equal(dump.referrals, undefined, 'no referrals key without codes');
  const loaded = Venue.restore(new TextEncoder().encode(JSON.stringify(dump)));
  t.equal(loaded.config.referralRebateBps, 1000, 'the default rule');
  t.equal(loaded.state.referrals.owners.size, 0);
  const r = loaded.apply({ seq: loaded.seq + 1, ts: loaded.now + 1, type: 'referral_code', owner: ALICE, code: 'ALICE1' });
  t.ok(r.ok, 'and takes referral commands');
});
