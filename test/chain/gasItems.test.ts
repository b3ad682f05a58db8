/**
 * Gas of settle() per item kind (docs/chain.md "Gas"), measured on anvil for fresh state (every
 * storage write from zero): what each kind adds to a batch, less its calldata, must be within
 * the gas model's figure (chain/gasModel.ts) and close to it. Steady-state fills are in
 * gas.test.ts. Gas is deterministic; the figures print as comments.
 */
import t from 'tap';
import type { Address, Hex } from 'viem';
import { accountOf, chainFixture, T0, WAD } from './support/fixture.ts';
import { listMarket, STRIKE } from './support/market.ts';
import { pairIdOf, seriesIdOf } from './support/ids.ts';
import { BatchWriter, type ItemKindName } from '../../chain/items.ts';
import { SETTLE_GAS } from '../../chain/gasModel.ts';
import { collateralVaultAbi, mockCollateralTokenAbi } from '../../chain/artifacts.ts';

const fx = await chainFixture('gas-items');
t.teardown(() => fx.stop());
// A series that has never traded: its first fills write its open interest from zero too.
const m = await listMarket(fx, 'GASI', 1);
const fees = { maker: 100n, taker: 200n };
const report: string[] = [];

t.test('each item kind: what it adds to a batch, fresh state', async (t) => {
  const fresh = (tag: string, i: number): Address => accountOf(`gas:fresh:${tag}:${i}`).address;
  const K = 5;
  /**
   * The gas `add` adds to a batch of one MINT (which makes the batch's ledger calls), per item,
   * less its calldata, from receipts; `cleared` storage slots an item empties, whose refunds
   * (4,800 each) a transaction's gas limit must still cover, are added back.
   */
  async function perItem(kind: ItemKindName, add: (w: BatchWriter, i: number) => Promise<void> | void, cleared = 0): Promise<number> {
    const base = new BatchWriter();
    base.mint(fresh(`base-${kind}`, 0), 1n, 1n);
    const w = new BatchWriter();
    w.mint(fresh(`base-${kind}`, 1), 1n, 1n);
    for (let i = 0; i < K; i++) await add(w, i);
    const calldata = SETTLE_GAS.calldataGas(w.byteLength, zeros(w.bytes())) - SETTLE_GAS.calldataGas(base.byteLength, zeros(base.bytes()));
    const baseGas = Number((await fx.settle(base)).gasUsed);
    const gas = Number((await fx.settle(w)).gasUsed);
    return check(kind, Math.ceil((gas - baseGas - calldata) / K) + 4_800 * cleared);
  }
  function check(kind: ItemKindName, per: number): number {
    const model = SETTLE_GAS.item[kind];
    report.push(`${kind}: ${per}`);
    t.ok(model >= per, `${kind}: model ${model} >= ${per} measured`);
    t.ok(model <= per + 20_000, `${kind}: model ${model} close to ${per} measured`);
    return per;
  }
  let nonce = 10n ** 9n;
  const sign = (who: number, tag: string, isBuy: boolean, size = WAD) => fx.signOrder(accountOf(`gas:fresh:${tag}:${who}`), { seriesId: m.seriesId, portfolioId: 1n, isBuy, tick: 50_000, size, expiry: T0 + 86400, nonce: nonce++, deadline: BigInt(T0 + 86400) });
  // Signed orders declared and not filled.
  await perItem('ORDER', async (w, i) => {
    const o = await sign(i, 'order', true);
    w.order(o.orderId, o.order);
  });
  const funded = new BatchWriter();
  for (let i = 0; i < 40; i++) funded.mint(accountOf(`gas:fresh:fill:${i}`).address, 1n, 10n ** 12n);
  await fx.settle(funded);
  const orders: { orderId: Hex; order: Parameters<BatchWriter['order']>[1] }[][] = [];
  for (let i = 0; i < K; i++) orders.push([await sign(2 * i, 'fill', false), await sign(2 * i + 1, 'fill', true)]);
  /**
   * A kind that needs declared orders: the batch with its K items less the same batch with the
   * orders alone (declaring an order writes nothing, so both can settle).
   */
  async function withOrders(kind: ItemKindName, orders: { orderId: Hex; order: Parameters<BatchWriter['order']>[1] }[], add: (w: BatchWriter, numbers: number[]) => void): Promise<void> {
    const declared = new BatchWriter();
    const filled = new BatchWriter();
    for (const w of [declared, filled]) {
      w.mint(fresh(`base-${kind}`, w === declared ? 0 : 1), 1n, 1n);
      const numbers = orders.map((o) => w.order(o.orderId, o.order));
      if (w === filled) add(w, numbers);
    }
    const calldata = SETTLE_GAS.calldataGas(filled.byteLength, zeros(filled.bytes())) - SETTLE_GAS.calldataGas(declared.byteLength, zeros(declared.bytes()));
    const declaredGas = Number((await fx.settle(declared)).gasUsed);
    const filledGas = Number((await fx.settle(filled)).gasUsed);
    check(kind, Math.ceil((filledGas - declaredGas - calldata) / K));
  }
  // Book fills between accounts with cash and no position: new positions, new cumulative fills.
  await withOrders('FILL', orders.flat(), (w, n) => {
    for (let i = 0; i < K; i++) w.fill(n[2 * i]!, n[2 * i + 1]!, WAD, fees.maker, fees.taker);
  });
  // Liquidation fills of resting orders, the liquidated side unsigned.
  const books = [];
  for (let i = 0; i < K; i++) books.push(await sign(10 + i, 'fill', true));
  await withOrders('LIQUIDATION_FILL', books, (w, n) => {
    n.forEach((x, i) => w.liquidationFill(x, accountOf(`gas:fresh:fill:${20 + i}`).address, 1n, WAD));
  });
  await perItem('FUND_FILL', (w, i) => w.fundFill(accountOf(`gas:fresh:fill:${30 + i}`).address, 1n, m.seriesId, i % 2 === 0, WAD, 3n * 10n ** 17n));
  // RFQ: fresh market makers and fresh takers, each fill opening both positions (the worst case:
  // one market maker's later fills in a batch find its position warm).
  {
    const mms = Array.from({ length: 5 }, (_, i) => accountOf(`gas:mm:${i}`));
    const setup = new BatchWriter();
    for (const mm of mms) setup.mmm(mm.address, true);
    await fx.settle(setup);
    await perItem('RFQ_FILL', async (w, i) => {
      const mm = mms[i]!;
      const q = await fx.signQuote(mm, { taker: '0x0000000000000000000000000000000000000000', seriesId: m.seriesId, takerIsBuying: true, price: 3n * 10n ** 17n, size: WAD + BigInt(i), nonce: 0n, quoteExpiry: BigInt(T0), pairId: m.pairId, strike: STRIKE, optionExpiry: BigInt(T0 + 30 * 86400), isCall: true });
      const taker = accountOf(`gas:fresh:fill:${35 + i}`);
      const f = await fx.signFill(taker, await fx.quoteId(q), { portfolioId: 1n, fillSize: WAD, nonce: BigInt(i), deadline: BigInt(T0) });
      w.rfqFill(q, f, 0n, 0n);
    });
  }
  await perItem('MMM_NONCE', (w, i) => w.mmmNonce(fresh('nonce', i), 5n));
  await perItem('NONCE_FLOOR', (w, i) => w.nonceFloor(fresh('floor', i), 5n));
  // Deposits by fresh wallets, credited or refunded.
  const depositor = accountOf('gas:depositor');
  await fx.fund(depositor.address);
  const token = { address: fx.addresses.collateralToken, abi: mockCollateralTokenAbi } as const;
  const vault = { address: fx.addresses.collateralVault, abi: collateralVaultAbi } as const;
  const wallet = fx.walletOf(depositor);
  const tx = async (call: object) => fx.pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ ...call, account: depositor, chain: fx.chain } as never) });
  await tx({ ...token, functionName: 'mint', args: [depositor.address, 10n ** 12n] });
  await tx({ ...token, functionName: 'approve', args: [fx.addresses.collateralVault, 10n ** 12n] });
  const ids: bigint[] = [];
  for (let i = 0; i < 2 * K; i++) {
    await tx({ ...vault, functionName: 'depositFor', args: [fresh('dep', i), 1n, 1_000n] });
    ids.push(await fx.pub.readContract({ ...vault, functionName: 'depositCount' }));
  }
  await perItem('DEPOSIT', (w, i) => w.deposit(ids[i]!), 2);
  await perItem('DEPOSIT_REFUND', (w, i) => w.depositRefund(ids[K + i]!), 2);
  await perItem('MINT', (w, i) => w.mint(fresh('mint', i), 1n, 1_000n));
  // Withdrawals to wallets holding no tokens, from accounts minted just before.
  const rich = new BatchWriter();
  for (let i = 0; i < K; i++) rich.mint(fresh('wd', i), 1n, 1_000n);
  await fx.settle(rich);
  await perItem('WITHDRAW', (w, i) => w.withdraw(fresh('wd', i), 1n, 500n, BigInt(i)));
  await perItem('TRANSFER', (w, i) => w.transfer(fresh('wd', i), 1n, 2n, 100n));
  // Forced-withdrawal requests of those wallets, taken in and paid.
  const requests: bigint[] = [];
  for (let i = 0; i < K; i++) {
    const owner = accountOf(`gas:fresh:wd:${i}`);
    await fx.fund(owner.address);
    const hash = await fx.walletOf(owner).writeContract({ ...vault, functionName: 'requestWithdrawal', args: [1n, 100n], account: owner, chain: fx.chain } as never);
    await fx.pub.waitForTransactionReceipt({ hash });
    requests.push(await fx.pub.readContract({ ...vault, functionName: 'withdrawalRequestCount' }));
  }
  await perItem('FORCED_WITHDRAW', (w, i) => w.forcedWithdraw(requests[i]!, 100n));
  await perItem('LIQUIDATION_FEE', (w, i) => w.liquidationFee(fresh('lf', i), 1n, 10n));
  await perItem('DEFICIT', (w, i) => w.deficit(fresh('def', i), 1n, 10n, 10n));
  await perItem('REBATE', (w, i) => w.rebate(fresh('reb', i), 1n));
  const pairs = [0, 1, 2, 3, 4].map((i) => pairIdOf(`GASPAIR${i}-USDC`));
  await perItem('PAIR', (w, i) => w.pair(pairs[i]!, 2));
  const E = T0 - 100;
  await perItem('SERIES', (w, i) => w.series(pairs[0]!, BigInt(i + 1) * WAD, E + i, true));
  await perItem('MMM', (w, i) => w.mmm(fresh('mmm', i), true));
  // Positions in the first of those series, to settle at its expiry.
  const expiring = seriesIdOf(pairs[0]!, WAD, E, true);
  {
    const w = new BatchWriter();
    for (let i = 0; i < K; i++) {
      const a = await fx.signOrder(accountOf(`gas:fresh:fill:${i}`), { seriesId: expiring, portfolioId: 1n, isBuy: false, tick: 777, size: WAD, expiry: T0 + 86400, nonce: nonce++, deadline: BigInt(T0 + 86400) });
      const b = await fx.signOrder(accountOf(`gas:fresh:fill:${K + i}`), { seriesId: expiring, portfolioId: 1n, isBuy: true, tick: 777, size: WAD, expiry: T0 + 86400, nonce: nonce++, deadline: BigInt(T0 + 86400) });
      w.fill(w.order(a.orderId, a.order), w.order(b.orderId, b.order), WAD / 3n, 0n, 0n);
    }
    await fx.settle(w);
  }
  const priced: { expiry: number; sig: Hex }[] = [];
  for (let i = 0; i < K; i++) priced.push({ expiry: E + i, sig: await fx.signSettlementPrice(pairs[0]!, E + i, 5n * WAD) });
  fx.setMatchTime(BigInt(T0));
  await perItem('SETTLEMENT_PRICE', (w, i) => w.settlementPrice(pairs[0]!, priced[i]!.expiry, 5n * WAD, priced[i]!.sig));
  await perItem('SERIES_SETTLED', (w, i) => w.seriesSettled(seriesIdOf(pairs[0]!, BigInt(i + 1) * WAD, E + i, true)));
  // Settling positions of a settled series: each a position held and a payout to cash held.
  await perItem('SETTLE_POSITION', (w, i) => w.settlePosition(accountOf(`gas:fresh:fill:${i}`).address, 1n, expiring), 1);
  t.comment(report.join('\n'));
});

function zeros(b: Uint8Array): number {
  let n = 0;
  for (const x of b) if (x === 0) n++;
  return n;
}
