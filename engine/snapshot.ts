/**
 * Canonical serialisation of the whole venue state, and its hash. Pure: bytes in, bytes
 * out. Maps are written in their iteration order and rebuilt in the same order, so that
 * serialise(restore(serialise(s))) is byte-identical and replay can be compared by hash
 * (architecture.md rule 2, style.md habit 6).
 *
 * Format 2 (issue 19) holds engine state only: the readers' history (each wallet's trades, fee
 * totals, fee log and volume per day; each series' recent trades and 24-hour window; the
 * `recentTradesPerSeries` setting) left the engine for the read models, and a wallet keeps
 * only `hasTraded`. Format 3 adds each open order's signed fields (`signed`: the signed good-till,
 * deadline and signature, null for an order without them) for the settlement stream. A format-1
 * or format-2 snapshot is migrated on restore (`migrateFormat1`, `migrateFormat2`) and the
 * conversion checked (docs/persistence.md "Snapshot formats").
 */
import { bytesToHex } from 'viem';
import { keccak256 } from './domain/keccak256.ts';
import type { Hex } from './domain/hex.ts';
import { defaultVenueConfig, type VenueConfig } from './config.ts';
import { VenueState } from './state.ts';
import { instructionsOf } from './domain/instructions.ts';
import { SeriesActor, type SeriesSpec } from './actors/series.ts';
import type { OrderRecord } from './actors/orderRecord.ts';
import type { Portfolio } from './actors/portfolio.ts';
import type { OrderSlots } from './actors/openOrders.ts';
import { balanceOf, newPosition, premiumOf, realizedOf, type Position } from './actors/position.ts';
import { lotsOfWad, wadOfLots } from './domain/lots.ts';

/** A position as a snapshot holds it: its figures in bigint (engine/actors/position.ts keeps them in doubles where exact). */
type PositionDump = { seriesId: Hex; balance: bigint; premium: bigint; realized: bigint };

const positionDump = (x: Position): PositionDump => ({ seriesId: x.seriesId, balance: balanceOf(x), premium: premiumOf(x), realized: realizedOf(x) });
import type { Pair, OracleState } from './actors/registry.ts';
import type { RfqRequest, QuoteRecord } from './actors/rfq.ts';
import type { SeriesMarks, SignedOrderFields } from './commands.ts';
import { createFastBook } from './book/fastBook.ts';
import type { MmpConfig, MmpReason } from './domain/mmp.ts';
import type { MmpFill } from './actors/mmp.ts';

/** The format written; formats 1 and 2 are read and migrated (migrateFormat1, migrateFormat2). */
const FORMAT = 3;

type SeriesDump = {
  spec: SeriesSpec;
  records: OrderRecord[];
  priority: number[];
  bookSeq: number;
  settled: boolean;
  settlementPrice: bigint | null;
  marks: SeriesMarks | null;
  openInterest: bigint;
};
/** An open order's reservation as snapshots hold it: remaining size and price in WAD. */
type OpenOrderDump = { orderId: Hex; seriesId: Hex; isBuy: boolean; remaining: bigint; price: bigint };
type PortfolioDump = Pick<Portfolio, 'owner' | 'id' | 'createdAt' | 'internalPair'> & { deposit: bigint; positions: PositionDump[]; openOrders: OpenOrderDump[] };
type AccountDump = {
  owner: string;
  nextPortfolioId: number;
  portfolios: PortfolioDump[];
  isMmm: boolean;
  mmmNonce: bigint;
  nonceBase: bigint;
  nonceUsed: bigint[];
  hasTraded: boolean;
};
type RfqDump = Omit<RfqRequest, 'quotes'> & { quotes: QuoteRecord[] };
/** Market maker protection of one (wallet, pair): its window's fills, oldest first (sums rebuilt). */
type MmpDump = { owner: string; config: MmpConfig; frozen: boolean; frozenUntil: number | null; reason: MmpReason | null; fills: MmpFill[] };

type Dump = {
  format: number;
  config: VenueConfig;
  now: number;
  seq: number;
  nextRef: number;
  nextTradeId: number;
  pairs: Pair[];
  oracles: [Hex, OracleState][];
  listedExpiries: [Hex, number[]][];
  ownerIndex: [string, number][];
  orderIndex: [Hex, Hex][];
  expiryHeap: [number, Hex][];
  series: SeriesDump[];
  accounts: AccountDump[];
  rfq: RfqDump[];
  rfqResolved: Hex[];
  /** Armed dead-man switches [wallet, ms]; absent when none (and in snapshots written before them). */
  cancelAfter?: [string, number][];
  /** Absent when no wallet has an MMP config (and in snapshots written before MMP): none. */
  mmp?: MmpDump[];
  /** Absent when no referral code exists (and in snapshots written before referrals): none. Codes [code, owner] and links [referee, referrer, code], each in order. */
  referrals?: { codes: [string, string][]; links: [string, string, string][] };
  /** Provider ids of the chain events applied, in order; absent when none (and in older snapshots). */
  chainEvents?: string[];
  /** The last settlement batch confirmed final; absent when none (and in older snapshots): 0. */
  settledBatch?: number;
  /** Forced-withdrawal requests taken in [requestId, paid], in order; absent when none (and in older snapshots). */
  forcedWithdrawals?: [string, bigint][];
  /** Forced withdrawals executed on chain and taken in; absent when none (and in older snapshots): 0. */
  forcedExecutions?: number;
  /** The insurance fund's bad debt and next liquidation id; absent before the first liquidation or fund deposit (and in older snapshots): the defaults. */
  insurance?: { badDebt: bigint; nextLiquidationId: number };
};

/** The wallets in order of first use (their handles' order), each one's portfolios in order of creation. */
function accountDumps(s: VenueState): AccountDump[] {
  const a = s.accounts;
  const out = new Array<AccountDump>(a.walletCount);
  for (let w = 0; w < a.walletCount; w++) {
    out[w] = {
      owner: a.owners[w]!,
      nextPortfolioId: a.nextPortfolioId[w]!,
      portfolios: [...a.walletPortfolios(w)].map((p) => ({
        owner: p.owner,
        id: p.id,
        deposit: a.depositOf(p),
        positions: [...p.positions.values()].map(positionDump),
        openOrders: [...a.orders.values(p.openOrders)].map((o) => openOrderDump(a.orders, o)),
        createdAt: p.createdAt,
        internalPair: p.internalPair,
      })),
      isMmm: a.isMmm[w] === 1,
      mmmNonce: a.mmmNonce[w]!,
      nonceBase: a.nonces[w]!.base,
      nonceUsed: a.nonces[w]!.remembered(),
      hasTraded: a.hasTraded[w] === 1,
    };
  }
  return out;
}

export function serializeState(s: VenueState): Uint8Array {
  const dump: Dump = {
    format: FORMAT,
    config: s.config,
    now: s.now,
    seq: s.seq,
    nextRef: s.nextRef,
    nextTradeId: s.nextTradeId,
    pairs: [...s.pairs.values()],
    oracles: [...s.oracles],
    listedExpiries: [...s.listedExpiries].map(([k, v]) => [k, [...v]]),
    ownerIndex: [...s.ownerIndex],
    orderIndex: [...s.orderIndex].map(([orderId, o]) => [orderId, s.accounts.orders.seriesId[o]!]),
    expiryHeap: s.expiryHeap.entries(),
    series: [...s.series.values()].map((a) => ({
      spec: a.spec,
      records: [...a.openOrders()].map(recordDump),
      priority: a.book.orders().map((o) => o.ref),
      bookSeq: a.bookSeq,
      settled: a.settled,
      settlementPrice: a.settlementPrice,
      marks: a.marks,
      openInterest: s.openInterestWad(a),
    })),
    accounts: accountDumps(s),
    rfq: [...s.rfq.requests.values()].map((r) => ({ ...r, quotes: [...r.quotes.values()] })),
    rfqResolved: s.rfq.resolved,
    ...(s.cancelAfter.size > 0 ? { cancelAfter: [...s.cancelAfter] } : {}),
  };
  if (s.insurance.badDebt !== 0n || s.insurance.nextLiquidationId !== 1) dump.insurance = s.insurance.dump();
  if (s.mmp.entries.size > 0) {
    dump.mmp = [...s.mmp.entries.values()].map((e) => ({ owner: e.owner, config: e.config, frozen: e.frozen, frozenUntil: e.frozenUntil, reason: e.reason, fills: e.fills.toArray() }));
  }
  if (s.referrals.owners.size > 0) {
    dump.referrals = { codes: [...s.referrals.owners], links: [...s.referrals.links].map(([referee, l]) => [referee, l.referrer, l.code]) };
  }
  if (s.chainEvents.size > 0) dump.chainEvents = [...s.chainEvents];
  if (s.settledBatch > 0) dump.settledBatch = s.settledBatch;
  if (s.forcedWithdrawals.size > 0) dump.forcedWithdrawals = [...s.forcedWithdrawals];
  if (s.forcedExecutions > 0) dump.forcedExecutions = s.forcedExecutions;
  return encode(dump);
}

function encode(dump: Dump): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(dump, (_k, v: unknown) => (typeof v === 'bigint' ? { $b: v.toString() } : v)));
}

function decode(bytes: Uint8Array): Dump {
  return JSON.parse(new TextDecoder().decode(bytes), (_k, v: unknown) =>
    v !== null && typeof v === 'object' && '$b' in v && Object.keys(v).length === 1 ? BigInt((v as { $b: string }).$b) : v,
  ) as Dump;
}

/** The history fields of a format-1 dump that format 2 no longer holds. */
type Format1Series = SeriesDump & { recentTrades?: unknown; window?: unknown };
type Format1Account = Omit<AccountDump, 'hasTraded'> & { hasTraded?: boolean; fees?: unknown; feeLog?: unknown; volumeDays?: unknown; trades?: unknown[] };

/**
 * A format-1 dump as the format-2 dump of the same engine state, in place: the history fields
 * removed, each wallet's `hasTraded` from its trade list (non-empty: it has traded; the list
 * kept the last 10,000, so it is never empty after a first trade), appended where format 2
 * writes it, and the `recentTradesPerSeries` setting dropped. Keys keep their order, so the
 * result encodes as `serializeState` would write that state.
 */
function migrateFormat1(dump: Dump): Dump {
  dump.format = 2;
  delete (dump.config as Partial<Record<'recentTradesPerSeries', unknown>>).recentTradesPerSeries;
  for (const d of dump.series as Format1Series[]) {
    delete d.recentTrades;
    delete d.window;
  }
  for (const a of dump.accounts as Format1Account[]) {
    const hasTraded = (a.trades?.length ?? 0) > 0;
    delete a.fees;
    delete a.feeLog;
    delete a.volumeDays;
    delete a.trades;
    a.hasTraded = hasTraded;
  }
  return dump;
}

/**
 * A format-2 dump as the format-3 dump of the same state, in place: every open order's record
 * gains `signed: null` after its last field (format 2 kept no signatures). Keys keep their order.
 */
function migrateFormat2(dump: Dump): Dump {
  dump.format = 3;
  for (const d of dump.series) for (const r of d.records) (r as { signed?: null }).signed = null;
  return dump;
}

/** A restored state, and whether it came from an older format (migrated, and the conversion checked). */
export type Restored = { state: VenueState; migratedFrom: number | null };

/**
 * Restore a snapshot of the current format, or of an older one: migrated step by step
 * (migrateFormat1, migrateFormat2), then restored, and the restored state must serialise to
 * exactly the migrated dump (else this throws, as a snapshot that cannot be restored). The caller
 * checks the hash the snapshot recorded: for the current format against the restored state's,
 * for an older one against its own bytes (every format hashed its whole serialisation;
 * Venue.restoredHash).
 */
export function restoreSnapshot(bytes: Uint8Array, idHashSeed = 0): Restored {
  const dump = decode(bytes);
  const from = dump.format;
  if (from === FORMAT) return { state: fromDump(dump, idHashSeed), migratedFrom: null };
  if (from !== 1 && from !== 2) throw new Error(`unsupported snapshot format ${from}`);
  const migrated = migrateFormat2(from === 1 ? migrateFormat1(dump) : dump);
  const expected = encode(migrated);
  const state = fromDump(decode(expected), idHashSeed);
  const got = serializeState(state);
  if (hashBytes(got) !== hashBytes(expected)) throw new Error(`a format-${from} snapshot restored to other state than its conversion to format ${FORMAT}`);
  return { state, migratedFrom: from };
}

/**
 * An open order's record as snapshots hold it: its fields as they are, its signed fields (the
 * place command's PlaceOrder in memory) reduced to what `SignedOrderFields` names.
 */
function recordDump(r: OrderRecord): OrderRecord {
  const s = r.signed;
  if (s === undefined || s === null) return r;
  const signed: SignedOrderFields = { expiry: s.expiry, deadline: s.deadline, ...(s.signedDeadline !== undefined ? { signedDeadline: s.signedDeadline } : {}), ...(s.signature !== undefined ? { signature: s.signature } : {}) };
  return { ...r, signed };
}

/** The stored fields of an open order's reservation, in their original order (the derived reserve is left out). */
function openOrderDump(slots: OrderSlots, o: number): OpenOrderDump {
  return { orderId: slots.orderId[o]!, seriesId: slots.seriesId[o]!, isBuy: slots.buy[o] === 1, remaining: wadOfLots(slots.lots[o]!, slots.lot[o]!), price: slots.price[o]! };
}

function fromDump(dump: Dump, idHashSeed: number): VenueState {
  // Rules added since the snapshot was written take their defaults.
  const s = new VenueState({ ...defaultVenueConfig, ...dump.config }, idHashSeed);
  s.now = dump.now;
  s.seq = dump.seq;
  s.nextRef = dump.nextRef;
  s.nextTradeId = dump.nextTradeId;
  for (const p of dump.pairs) s.pairs.set(p.pairId, p);
  for (const [k, o] of dump.oracles) s.oracles.set(k, o);
  for (const [k, v] of dump.listedExpiries) s.listedExpiries.set(k, new Set(v));
  for (const [k, v] of dump.ownerIndex) s.ownerIndex.set(k, v);
  for (const [key, id] of dump.expiryHeap) s.expiryHeap.push(key, id);
  const records = new Map<Hex, OrderRecord>(); // every series' open orders, for the order index
  for (const d of dump.series) {
    for (const r of d.records) {
      // Snapshots written before order instructions hold none: the defaults. The signed fields come
      // last, as the records of the pool (actors/recordPool.ts) hold them: the same bytes again.
      const w = r as { instructions: OrderRecord['instructions']; signed?: SignedOrderFields | null };
      w.instructions = instructionsOf(r.instructions as OrderRecord['instructions'] | undefined);
      const signed = w.signed ?? null;
      delete w.signed;
      w.signed = signed;
      records.set(r.orderId, r);
    }
    const a = new SeriesActor(d.spec, createFastBook());
    a.restore(d.records, d.priority);
    a.bookSeq = d.bookSeq;
    a.settled = d.settled;
    a.settlementPrice = d.settlementPrice;
    if (d.marks) a.setMarks(d.marks, dump.oracles.find(([k]) => k === d.spec.pairId)![1].spot);
    a.openInterest = lotsOfWad(d.openInterest, s.pairs.get(d.spec.pairId)!.sizeStep);
    s.series.set(d.spec.seriesId, a);
    s.accounts.margin.marksChanged(d.spec.seriesId, a.quoteNow()); // the account side's quote, before its margin book is rebuilt
  }
  const opened = new Map<Hex, number>(); // every portfolio's open orders (slots), for the order index
  for (const d of dump.accounts) {
    const w = s.accounts.wallet(d.owner);
    s.accounts.nextPortfolioId[w] = d.nextPortfolioId;
    s.accounts.setMmm(w, d.isMmm);
    s.accounts.mmmNonce[w] = d.mmmNonce;
    s.accounts.nonces[w]!.restore(d.nonceBase, d.nonceUsed);
    s.accounts.hasTraded[w] = d.hasTraded ? 1 : 0;
    for (const p of d.portfolios) {
      const positions = new Map(p.positions.map((x) => [x.seriesId, newPosition(x.seriesId, s.pairs.get(s.series.get(x.seriesId)!.spec.pairId)!.sizeStep, x.balance, x.premium, x.realized)]));
      const portfolio = s.accounts.restorePortfolio(w, p.id, p.createdAt, p.internalPair, positions, p.deposit);
      for (const x of p.openOrders) {
        const record = records.get(x.orderId);
        const series = s.series.get(x.seriesId);
        if (!record || !series || series.openOrder(record.ref) !== record || record.isBuy !== x.isBuy || record.routedPortfolioId !== p.id) throw new Error(`snapshot portfolio ${p.owner}/${p.id} holds order ${x.orderId} that its series does not`);
        const pair = s.pairs.get(series.spec.pairId)!;
        // In lots of the pair's size step: the series' record of what rests, exactly.
        const lots = x.remaining % pair.sizeStep === 0n ? lotsOfWad(x.remaining, pair.sizeStep) : -1;
        if (lots !== record.lots - record.filledLots) throw new Error(`snapshot portfolio ${p.owner}/${p.id} reserves ${x.remaining} of order ${x.orderId}, its series holds ${record.lots - record.filledLots} lots`);
        opened.set(x.orderId, s.accounts.restOrder(record, portfolio, pair, lots, x.price, false)); // counted by the margin book's rebuild below
      }
    }
  }
  for (const r of dump.rfq) s.rfq.add({ ...r, quotes: new Map(r.quotes.map((q) => [q.quoteId, q])) });
  s.rfq.resolved.push(...dump.rfqResolved);
  for (const [owner, at] of dump.cancelAfter ?? []) s.cancelAfter.set(owner, at);
  for (const [code, owner] of dump.referrals?.codes ?? []) s.referrals.addCode(owner, code);
  for (const [referee, referrer, code] of dump.referrals?.links ?? []) s.referrals.link(referee, referrer, code);
  for (const id of dump.chainEvents ?? []) s.chainEvents.add(id);
  s.settledBatch = dump.settledBatch ?? 0;
  for (const [id, paid] of dump.forcedWithdrawals ?? []) s.forcedWithdrawals.set(id, paid);
  s.forcedExecutions = dump.forcedExecutions ?? 0;
  s.insurance.restore(dump.insurance);
  for (const m of dump.mmp ?? []) s.mmp.restore(m.owner, m.config, m.frozen, m.frozenUntil, m.reason, m.fills);
  s.accounts.margin.rebuild(s.accounts.allPortfolios());
  s.recountOpenInterest();
  for (const [orderId, seriesId] of dump.orderIndex) {
    const open = opened.get(orderId);
    if (open === undefined || s.accounts.orders.seriesId[open] !== seriesId) throw new Error(`snapshot order index names order ${orderId} that is not open`);
    s.orderIndex.set(orderId, open);
  }
  return s;
}

export function hashBytes(bytes: Uint8Array): Hex {
  return bytesToHex(keccak256(bytes));
}
