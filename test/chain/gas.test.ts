/**
 * Gas of settle() (docs/chain.md "Gas"), measured on anvil, calldata included: per fill in
 * steady state (makers and takers already hold positions and cash in the series, new orders
 * each fill): batched (100 fills, 100 makers, 100 takers), sweep (one taker, 100 makers), single
 * (one fill alone in a batch), each within its budget and bounded by the gas model
 * (chain/gasModel.ts). The model's figure per item kind is checked in gasItems.test.ts. Gas is
 * deterministic; the figures print as comments.
 */
import t from 'tap';
import { chainFixture, headerAt, WAD } from './support/fixture.ts';
import { listMarket } from './support/market.ts';
import { BatchWriter, journalPosOf, settleCalldata } from '../../chain/items.ts';

const BATCHED_BUDGET = 90_000;
const SWEEP_BUDGET = 60_000;
const fx = await chainFixture('gas');
t.teardown(() => fx.stop());
const m = await listMarket(fx, 'GAS', 201);
const makers = m.accounts.slice(0, 100);
const takers = m.accounts.slice(100, 200);
const sweeper = m.accounts[200]!;
const fees = { maker: 100n, taker: 200n };

/** Settles `w`; the model must bound what it used and what eth_estimateGas asks for it. */
async function measured(t: { ok(v: unknown, msg: string): void }, w: BatchWriter, what: string): Promise<{ used: number; needed: number }> {
  const needed = await estimate(w);
  const receipt = await fx.settle(w);
  const used = Number(receipt.gasUsed);
  t.ok(w.gas >= needed && w.gas >= used, `${what}: the model's ${w.gas} bounds the ${used} used and the ${needed} estimated`);
  return { used, needed };
}

/** anvil's eth_estimateGas of settle() of `w`: what a relayer would ask for. */
async function estimate(w: BatchWriter | Uint8Array): Promise<number> {
  const bytes = w instanceof BatchWriter ? w.bytes() : w;
  const seq = (await fx.lastSeq()) + 1n;
  const data = settleCalldata(headerAt(seq, fx.matchTime, journalPosOf(10 ** 9, 0)), bytes);
  return Number(await fx.pub.estimateGas({ account: fx.relayer.address, to: fx.addresses.orderBook, data }));
}

const report: string[] = [];

t.test('fills in steady state, within budget', async (t) => {
  const w = new BatchWriter();
  for (let i = 0; i < 100; i++) await m.fill(w, makers[i]!, takers[i]!, 2n * WAD, 50_000, true, fees);
  await measured(t, w, 'opening positions');
  w.reset();
  for (let i = 0; i < 100; i++) await m.fill(w, makers[i]!, takers[(i + 1) % 100]!, WAD, 50_000, true, fees);
  const batched = (await measured(t, w, 'batched')).used / 100;
  w.reset();
  // The sweeper gets a position first; then its one order meets 100 makers.
  await m.fill(w, makers[0]!, sweeper, WAD, 50_000, true, fees);
  await fx.settle(w);
  w.reset();
  const big = await m.order(sweeper, true, 50_000, 100n * WAD);
  const ti = w.order(big.orderId, big.order);
  for (let i = 0; i < 100; i++) {
    const mo = await m.order(makers[i]!, false, 50_000, WAD);
    w.fill(w.order(mo.orderId, mo.order), ti, WAD, fees.maker, fees.taker);
  }
  const sweep = (await measured(t, w, 'sweep')).used / 100;
  w.reset();
  await m.fill(w, makers[5]!, takers[7]!, WAD, 50_000, true, fees);
  const single = (await measured(t, w, 'single')).used;
  // The engine's default fees (engine/config.ts): no maker fee, so a maker's cash moves only when it realises.
  w.reset();
  for (let i = 0; i < 100; i++) await m.fill(w, makers[i]!, takers[(i + 2) % 100]!, WAD, 50_000, true, { maker: 0n, taker: 200n });
  const noMakerFee = (await measured(t, w, 'batched, no maker fee')).used / 100;
  report.push(`per fill: batched ${batched.toFixed(0)}, sweep ${sweep.toFixed(0)}, single ${single}, batched without a maker fee ${noMakerFee.toFixed(0)}`);
  t.comment(report.at(-1)!);
  t.ok(batched <= BATCHED_BUDGET, `batched: ${batched.toFixed(0)} <= ${BATCHED_BUDGET}`);
  t.ok(sweep <= SWEEP_BUDGET, `sweep: ${sweep.toFixed(0)} <= ${SWEEP_BUDGET}`);
});

function zeros(b: Uint8Array): number {
  let n = 0;
  for (const x of b) if (x === 0) n++;
  return n;
}
