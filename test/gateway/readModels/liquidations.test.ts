/**
 * The liquidations fold (gateway/readModels/liquidations.ts) on hand-made events: a wallet's
 * liquidations newest first and capped at LIQUIDATION_HISTORY, the fund's cash from its
 * insurance_fund and portfolio events, and the 24-hour figures of GET /api/platform/insurance-fund
 * (a liquidation counts until 24 hours have passed, also between clock events), kept across
 * export and import.
 */
import t from 'tap';
import { INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO, type LiquidationEvent, type VenueEvent } from '../../../engine/index.ts';
import { Liquidations, LIQUIDATION_HISTORY } from '../../../gateway/readModels/liquidations.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 12);
const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';

let seq = 0;
function liquidation(owner: string, id: number, ts: number, fee: bigint): LiquidationEvent {
  return { type: 'liquidation', seq: ++seq, ts, liquidationId: String(id), owner, portfolioId: 1, startedAt: Math.floor(ts / 1000), endedAt: Math.floor(ts / 1000), trigger: { equity: 1n, maintenanceMargin: 2n }, cancelledOrders: [], closes: [], fee, deficit: 0n, fundPaid: 0n, badDebt: 0n } as LiquidationEvent;
}
const clock = (ts: number) => ({ type: 'clock', seq: ++seq, ts }) as VenueEvent;

t.test('per wallet, newest first, the last LIQUIDATION_HISTORY kept', async (t) => {
  const f = new Liquidations();
  for (let i = 1; i <= LIQUIDATION_HISTORY + 5; i++) f.apply(liquidation(A, i, T0, 0n));
  f.apply(liquidation(B, LIQUIDATION_HISTORY + 6, T0, 0n));
  const a = f.forOwner(A);
  t.equal(a.length, LIQUIDATION_HISTORY);
  t.same([a[0]!.id, a.at(-1)!.id], [String(LIQUIDATION_HISTORY + 5), '6'], 'newest first, the oldest dropped');
  t.same(f.forOwner(B).map((r) => r.id), [String(LIQUIDATION_HISTORY + 6)], "another wallet's apart");
  t.same(f.forOwner('0x00000000000000000000000000000000000000c3'), []);
});

t.test("the fund: cash from its events, liquidations and fees of the last 24 hours", async (t) => {
  const f = new Liquidations();
  t.same(f.fund(T0), { balance: 0n, badDebt: 0n, funded: false, liquidations24h: 0, feesCollected24h: 0n });
  f.apply({ type: 'insurance_fund', seq: ++seq, ts: T0, reason: 'seed', amount: 1000n, balance: 1000n, badDebt: 0n } as VenueEvent);
  f.apply(liquidation(A, 1, T0, 30n));
  f.apply(liquidation(B, 2, T0 + 2 * HOUR, 70n));
  f.apply({ type: 'insurance_fund', seq: ++seq, ts: T0 + 2 * HOUR, reason: 'liquidation', amount: -400n, balance: 700n, badDebt: 25n } as VenueEvent);
  f.apply({ type: 'portfolio', seq: ++seq, ts: T0 + 3 * HOUR, owner: INSURANCE_FUND_OWNER, portfolioId: INSURANCE_FUND_PORTFOLIO, deposit: 650n } as unknown as VenueEvent);
  f.apply({ type: 'portfolio', seq: ++seq, ts: T0 + 3 * HOUR, owner: A, portfolioId: 1, deposit: 5n } as unknown as VenueEvent);
  t.same(f.fund(T0 + 3 * HOUR), { balance: 650n, badDebt: 25n, funded: true, liquidations24h: 2, feesCollected24h: 100n }, "the fund's portfolio event moves its cash, another's does not");
  t.same(f.fund(T0 + 24 * HOUR - 1), { balance: 650n, badDebt: 25n, funded: true, liquidations24h: 2, feesCollected24h: 100n }, 'both within 24 hours');
  t.match(f.fund(T0 + 24 * HOUR), { liquidations24h: 1, feesCollected24h: 70n }, 'the first out at 24 hours, with no clock event');
  f.apply(clock(T0 + 25 * HOUR));
  const copy = new Liquidations();
  copy.importState(structuredClone(f.exportState()));
  for (const x of [f, copy]) {
    t.match(x.fund(T0 + 25 * HOUR), { balance: 650n, badDebt: 25n, liquidations24h: 1, feesCollected24h: 70n }, 'after a clock event, and after export and import');
    t.match(x.fund(T0 + 27 * HOUR), { liquidations24h: 0, feesCollected24h: 0n }, 'none after 24 hours of the last');
  }
  t.same(copy.forOwner(A).map((r) => r.id), ['1']);
});
