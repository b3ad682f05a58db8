/**
 * bench/book's diagnostic subject: the same commands as lib/seriesActorSubject.ts, through the
 * series actor alone, without the account actor's risk and accounting. It separates the two
 * halves of `Venue.apply`'s cost (docs/book.md "Where the series actor's time goes").
 *
 * Kept, with the engine's own functions: every order check of `validatePlace` and
 * `validateCancel` (series live, tick and size grid, deadlines, nonce, duplicate id, owner,
 * portfolio), nonces used, the order's record, matching in the series actor, the order index
 * and good-till tracking,
 * the order events of the taker, of each maker touched and of each cancel, and the depth event.
 * Left out (the account actor's half): the open-interest cap and the pre-trade margin and cash
 * check, the margin book's order upkeep, and each fill's positions, premium, fees, open
 * interest, trade records, trade event and position and portfolio events.
 *
 * This is not the budget's measure: the issue's 500,000 ops/s is "with validation, risk and
 * events", which is the `Venue.apply` subject.
 */
import type { Command } from '../../engine/commands.ts';
import { EventSink } from '../../engine/flows/eventSink.ts';
import { newRecord, orderEvent, pushOrderEvent, validateCancel, validatePlace } from '../../engine/flows/orders.ts';
import { withPortfolio } from '../../engine/flows/orderRules.ts';
import type { VenueState } from '../../engine/state.ts';
import { tickToPx } from '../../engine/domain/ticks.ts';
import type { OpStream } from '../book.ts';
import { prepare } from './seriesActorSubject.ts';

/** Apply one place or cancel command through the series actor alone; returns its event count (0 if refused). */
function applyAlone(state: VenueState, sink: EventSink, cmd: Command): number {
  state.series.records.recycle(); // as Venue.apply: the previous command's finished order records are free again
  state.seq = cmd.seq;
  if (cmd.ts > state.now) state.now = cmd.ts;
  sink.begin(cmd.seq, state);
  // One entry a command, as the bench builds them (a batch would need the engine's all-or-nothing checks).
  if (cmd.type === 'cancel' && cmd.cancels.length === 1) {
    const c = cmd.cancels[0]!;
    const v = validateCancel(state, c);
    if ('code' in v) return 0;
    state.accounts.nonces[v.wallet]!.use(c.nonce);
    const slots = state.accounts.orders;
    const series = state.series.get(slots.seriesId[v.open]!)!;
    const record = series.removeRef(slots.ref[v.open]!, 'cancelled');
    state.orderIndex.delete(record.orderId);
    slots.close(v.open);
    sink.book(series);
    orderEvent(sink, record, 'cancelled_by_owner', 'user');
  } else if (cmd.type === 'place' && cmd.orders.length === 1) {
    const o = cmd.orders[0]!;
    const checked = validatePlace(state, o);
    if ('code' in checked) return 0;
    const v = withPortfolio(state, checked);
    const { pair } = v;
    const series = state.series.at(v.seriesHandle);
    state.accounts.nonces[v.wallet]!.use(o.nonce);
    const record = newRecord(state, v);
    const outcome = series.match(record);
    for (let i = 0; i < outcome.fillCount; i++) {
      const maker = outcome.fillMaker[i]!;
      const slot = state.orderIndex.get(maker.orderId)!;
      if (maker.status === 'filled') {
        state.orderIndex.delete(maker.orderId);
        state.accounts.orders.close(slot);
      } else state.accounts.orders.lots[slot]! -= outcome.fillLots[i]!;
      orderEvent(sink, maker, null, null);
    }
    for (let i = 0; i < outcome.selfTradeCount; i++) {
      const m = outcome.selfTradeCancels[i]!;
      state.accounts.orders.close(state.orderIndex.get(m.orderId)!);
      state.orderIndex.delete(m.orderId);
      orderEvent(sink, m, 'self_trade_prevention', 'self_trade');
    }
    if (outcome.restingLots > 0) {
      // Its slot, not listed in its portfolio nor counted (the account actor's half is left out).
      const slot = state.accounts.orders.open(record, { pairId: pair.pairId, holder: v.portfolio.handle, lots: outcome.restingLots, price: v.price, px: tickToPx(o.tick, pair.tickDecimals), lot: pair.sizeStep, lotNumber: NaN, perLotTick: 0 });
      state.orderIndex.set(o.orderId, slot);
      if (record.expiry < series.spec.expiry) state.trackGoodTill(slot);
    }
    sink.book(series);
    pushOrderEvent(sink, record, record.filledLots, outcome.restingLots > 0 ? record.lots - record.filledLots : 0, null, null);
  } else throw new Error(`the series-alone subject applies single place and cancel commands, not this ${cmd.type}`);
  return sink.finish(state).length;
}

export type SeriesAlone = { apply(i: number): number; prefill: number; length: number; state: VenueState };

/** A venue with the stream's wallets funded and its commands built (untimed), applied through the series actor alone. */
export function prepareSeriesAlone(s: OpStream): SeriesAlone {
  const p = prepare(s);
  const state = p.venue.state;
  const sink = new EventSink();
  return { apply: (i) => applyAlone(state, sink, p.commands[i]!), prefill: p.prefill, length: p.commands.length, state };
}

/** ops/s through the series actor alone over the timed part of the stream. */
export function runSeriesAlone(s: OpStream): number {
  const p = prepareSeriesAlone(s);
  for (let i = 0; i < p.prefill; i++) p.apply(i);
  const start = process.hrtime.bigint();
  for (let i = p.prefill; i < p.length; i++) p.apply(i);
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  return (p.length - p.prefill) / secs;
}

/**
 * Both subjects over the whole stream: the series actor alone must end with the same book (every
 * level's tick, qty and order count) and the same open orders as `Venue.apply`, and refuse the
 * same commands, or it did not do the same matching work. Throws naming the difference.
 */
export function checkSeriesAlone(s: OpStream): void {
  const alone = prepareSeriesAlone(s);
  let aloneRefused = 0;
  for (let i = 0; i < alone.length; i++) if (alone.apply(i) === 0) aloneRefused++;
  const whole = prepare(s);
  let wholeRefused = 0;
  for (const c of whole.commands) if (!whole.venue.apply(c).ok) wholeRefused++;
  const book = (st: VenueState): string => {
    const series = [...st.series.values()].filter((x) => x.openOrderCount > 0);
    return JSON.stringify(series.map((x) => [x.spec.seriesId, x.book.depth(true, 1e9), x.book.depth(false, 1e9)]));
  };
  if (aloneRefused !== wholeRefused) throw new Error(`series alone refused ${aloneRefused} commands, Venue.apply ${wholeRefused}`);
  if (alone.state.orderIndex.size !== whole.venue.state.orderIndex.size) throw new Error('series alone and Venue.apply end with different open orders');
  if (book(alone.state) !== book(whole.venue.state)) throw new Error('series alone and Venue.apply end with different books');
}
