/**
 * Per-wallet and venue-wide activity folded from committed events (architecture.md rule 6):
 * traded volume, trades, fees, realized PnL, points and equity in hourly buckets, the
 * rolling 24 h / 7 d / 30 d sums, points per weekly epoch, and the leaderboard rankings.
 * It serves the platform, leaderboard, points and user-analytics routes
 * (extensions.md "Points, leaderboard, referrals, user analytics, platform").
 *
 * - Volume is a fill's `notional` (size x spot, C6), counted for both sides; fees are what the
 *   side paid (negative: a rebate); realized PnL is the change of each position's cumulative
 *   `realizedPnl` (fills that reduce it, settlement).
 * - Points, kept in millionths: per 1,000 USDC of premium, 2 to the maker and 1 to the taker;
 *   a wallet that applied a referral code (`referral_applied`) gives its referrer 10% of the
 *   points it earns from then on, rounded down to a millionth per fill.
 * - A window of N hours is the current UTC hour and the N-1 before it; it moves when an event
 *   of a later hour arrives (the clock command sends one every second).
 * - Epochs are weeks from Monday 00:00 UTC; an epoch's ranks are fixed when it ends.
 * - Rankings are sorted on clock events (when something changed since, or the hour moved),
 *   never at request time: value descending, ties by address ascending.
 */
import type { Hex, VenueEvent, TradeEvent, PositionEvent, PortfolioEvent } from '../../engine/index.ts';
import type { Catalog } from './catalog.ts';
import { Ranking, type RankingState } from './ranking.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;
/** Monday 1970-01-05 00:00 UTC: epoch 0 starts here. */
const EPOCH_ORIGIN_MS = 4 * DAY_MS;

export const periods = ['24h', '7d', '30d', 'all'] as const;
export type Period = (typeof periods)[number];
export const metrics = ['volume', 'pnl', 'points'] as const;
export type Metric = (typeof metrics)[number];
/** Hours per windowed period. */
const WINDOW_HOURS = { '24h': 24, '7d': 168, '30d': 720 } as const;
type WindowPeriod = keyof typeof WINDOW_HOURS;
const windowPeriods = ['24h', '7d', '30d'] as const;
const LONGEST = 720;

/** Points in millionths: per 1,000 USDC (1e9 C6) of premium, maker 2 and taker 1 point = 2e6 and 1e6 millionths. */
const MAKER_MICRO_PER_C6 = 2n;
const TAKER_MICRO_PER_C6 = 1n;
const PREMIUM_UNIT = 1000n; // 1e9 C6 per 1e6 millionths
const REFERRAL_SHARE_DIVISOR = 10n; // 10%

export const epochOf = (ms: number): number => Math.floor((ms - EPOCH_ORIGIN_MS) / WEEK_MS);
export const epochStart = (id: number): number => EPOCH_ORIGIN_MS + id * WEEK_MS;

/** One hour of a wallet. `equity` is the wallet's equity (C6, all portfolios) at its last change up to the end of the hour. */
export type WalletBucket = { h: number; volume: bigint; trades: number; fees: bigint; pnl: bigint; points: bigint; equity: bigint };
export type PlatformBucket = { h: number; volume: bigint; trades: number; pairs: [Hex, bigint][] };
type Sums = { volume: bigint; pnl: bigint; points: bigint; trades: number };
const zeroSums = (): Sums => ({ volume: 0n, pnl: 0n, points: 0n, trades: 0 });

export type WalletActivity = {
  address: string;
  buckets: WalletBucket[];
  /** Per portfolio: [deposit, equity] (C6), from portfolio events. */
  portfolios: [number, bigint, bigint][];
  equity: bigint;
  /** `${portfolioId}:${seriesId}` -> cumulative realized PnL of the live position. */
  realized: [string, bigint][];
  firstTradeAt: number | null;
  lastActiveHour: number;
  lastTradeHour: number;
  referrer: string | null;
  maker: bigint;
  taker: bigint;
  referral: bigint;
  all: Sums;
  windows: Record<WindowPeriod, Sums>;
  /** Points per epoch (ascending ids) and the rank fixed when the epoch ended (null while current or unranked). */
  epochs: { id: number; points: bigint; rank: number | null }[];
};

type Wallet = Omit<WalletActivity, 'portfolios' | 'realized'> & { portfolios: Map<number, [bigint, bigint]>; realized: Map<string, bigint> };

export type PlatformStats = {
  volume24h: bigint;
  trades24h: number;
  traders24h: number;
  totalCollateral: bigint;
  pairs: { pairId: Hex; volume24h: bigint; openInterest: bigint }[];
  updatedAt: number;
};

export type ActivityState = {
  hour: number;
  epoch: number;
  dirty: boolean;
  rankedHour: number;
  updatedAt: number;
  wallets: WalletActivity[];
  platform: PlatformBucket[];
  platformWindow: { volume: bigint; trades: number; pairs: [Hex, bigint][] };
  /** Hour -> wallets active in it, for the last 30 days. */
  activeHours: [number, string[]][];
  totalCollateral: bigint;
  openInterest: [Hex, bigint][];
  stats: PlatformStats;
  rankings: [string, RankingState][];
};

const rankingKey = (metric: Metric, period: Period | 'epoch') => `${metric}:${period}`;

export class Activity {
  private hour = -1;
  private epoch = -1;
  private dirty = false;
  private rankedHour = -1;
  /** When the rankings and the platform stats were last computed (ms). */
  updatedAt = 0;
  private readonly wallets = new Map<string, Wallet>();
  private platform: PlatformBucket[] = [];
  private platformWindow = { volume: 0n, trades: 0, pairs: new Map<Hex, bigint>() };
  private readonly activeHours = new Map<number, Set<string>>();
  private totalCollateral = 0n;
  private readonly openInterest = new Map<Hex, bigint>();
  stats: PlatformStats = { volume24h: 0n, trades24h: 0, traders24h: 0, totalCollateral: 0n, pairs: [], updatedAt: 0 };
  private readonly rankings = new Map<string, Ranking>();
  /** Bumped at every recompute: reply caches keyed on it. */
  version = 0;

  constructor(private readonly catalog: Catalog) {
    for (const m of metrics) for (const p of periods) this.rankings.set(rankingKey(m, p), new Ranking());
    this.rankings.set(rankingKey('points', 'epoch'), new Ranking());
  }

  apply(e: VenueEvent): void {
    const h = Math.floor(e.ts / HOUR_MS);
    if (h > this.hour) this.advanceHour(h);
    const ep = epochOf(e.ts);
    if (ep > this.epoch) this.advanceEpoch(ep);
    switch (e.type) {
      case 'trade':
        return this.onTrade(e);
      case 'position':
        return this.onPosition(e);
      case 'portfolio':
        return this.onPortfolio(e);
      case 'referral_applied':
        this.wallet(e.owner).referrer = e.referrer;
        return;
      case 'series_settled':
        this.openInterest.set(e.seriesId, e.openInterest);
        this.dirty = true;
        return;
      case 'clock':
        if (this.dirty || this.rankedHour !== this.hour) this.recompute(e.ts);
        return;
      default:
        return;
    }
  }

  // ---- reads

  ranking(metric: Metric, period: Period): Ranking {
    return this.rankings.get(rankingKey(metric, period))!;
  }

  epochRanking(): Ranking {
    return this.rankings.get(rankingKey('points', 'epoch'))!;
  }

  get(address: string): Readonly<Omit<WalletActivity, 'portfolios' | 'realized'>> | undefined {
    return this.wallets.get(address);
  }

  /** Some wallet the fold has seen (for documentation examples), undefined before any. */
  anyAddress(): string | undefined {
    return this.wallets.keys().next().value;
  }

  walletBuckets(address: string): readonly WalletBucket[] {
    return this.wallets.get(address)?.buckets ?? [];
  }

  platformBuckets(): readonly PlatformBucket[] {
    return this.platform;
  }

  currentEpoch(): number {
    return this.epoch;
  }

  // ---- events

  private onTrade(e: TradeEvent): void {
    const makerPoints = (e.premium * MAKER_MICRO_PER_C6) / PREMIUM_UNIT;
    const takerPoints = (e.premium * TAKER_MICRO_PER_C6) / PREMIUM_UNIT;
    this.side(e, e.maker, e.makerFee, makerPoints, 'maker');
    this.side(e, e.taker, e.takerFee, takerPoints, 'taker');
    this.openInterest.set(e.seriesId, e.openInterest);
    const b = this.platformBucket();
    b.volume += e.notional;
    b.trades++;
    this.platformWindow.volume += e.notional;
    this.platformWindow.trades++;
    const pairId = this.catalog.series.get(e.seriesId)?.pairId;
    if (pairId !== undefined) {
      const entry = b.pairs.find((p) => p[0] === pairId);
      if (entry) entry[1] += e.notional;
      else b.pairs.push([pairId, e.notional]);
      this.platformWindow.pairs.set(pairId, (this.platformWindow.pairs.get(pairId) ?? 0n) + e.notional);
    }
    this.dirty = true;
  }

  private side(e: TradeEvent, address: string, fee: bigint, points: bigint, role: 'maker' | 'taker'): void {
    const w = this.wallet(address);
    const b = this.bucket(w);
    b.volume += e.notional;
    b.trades++;
    b.fees += fee;
    w.firstTradeAt ??= e.ts;
    w.lastTradeHour = this.hour;
    this.add(w, 'volume', e.notional, 1);
    if (points > 0n) {
      w[role] += points;
      this.earn(w, points);
      if (w.referrer !== null) {
        const share = points / REFERRAL_SHARE_DIVISOR;
        if (share > 0n) {
          const r = this.wallet(w.referrer);
          r.referral += share;
          this.earn(r, share);
        }
      }
    }
  }

  private earn(w: Wallet, points: bigint): void {
    this.bucket(w).points += points;
    this.add(w, 'points', points);
    const last = w.epochs[w.epochs.length - 1];
    if (last !== undefined && last.id === this.epoch) last.points += points;
    else w.epochs.push({ id: this.epoch, points, rank: null });
  }

  private onPosition(e: PositionEvent): void {
    const w = this.wallet(e.owner);
    const key = `${e.portfolioId}:${e.seriesId}`;
    const delta = e.realizedPnl - (w.realized.get(key) ?? 0n);
    if (e.balance === 0n && e.premium === 0n) w.realized.delete(key);
    else w.realized.set(key, e.realizedPnl);
    if (delta === 0n) return;
    this.bucket(w).pnl += delta;
    this.add(w, 'pnl', delta);
    this.dirty = true;
  }

  private onPortfolio(e: PortfolioEvent): void {
    const w = this.wallet(e.owner);
    const [deposit, equity] = w.portfolios.get(e.portfolioId) ?? [0n, 0n];
    w.portfolios.set(e.portfolioId, [e.deposit, e.equity]);
    w.equity += e.equity - equity;
    this.totalCollateral += e.deposit - deposit;
    this.bucket(w).equity = w.equity;
    if (deposit !== e.deposit) this.dirty = true;
  }

  // ---- windows, epochs, rankings

  /** A wallet's activity in the hour: one sum moves (all time, each window; one figure a call, a bigint sum allocates). */
  private add(w: Wallet, field: 'volume' | 'pnl' | 'points', v: bigint, trades = 0): void {
    for (const s of [w.all, w.windows['24h'], w.windows['7d'], w.windows['30d']]) {
      s[field] += v;
      s.trades += trades;
    }
    if (w.lastActiveHour !== this.hour) {
      w.lastActiveHour = this.hour;
      let set = this.activeHours.get(this.hour);
      if (set === undefined) this.activeHours.set(this.hour, (set = new Set()));
      set.add(w.address);
    }
  }

  private advanceHour(h: number): void {
    const before = this.hour;
    this.hour = h;
    if (before < 0) return;
    // Hours leaving each window: those in (before - N, h - N].
    for (const p of windowPeriods) {
      const n = WINDOW_HOURS[p];
      for (const [hour, owners] of this.activeHours) {
        if (hour > h - n) break;
        if (hour <= before - n) continue;
        for (const owner of owners) {
          const w = this.wallets.get(owner)!;
          const b = findBucket(w.buckets, hour);
          if (b === undefined) continue;
          const s = w.windows[p];
          s.volume -= b.volume;
          s.pnl -= b.pnl;
          s.points -= b.points;
          s.trades -= b.trades;
        }
      }
    }
    for (const hour of this.activeHours.keys()) {
      if (hour > h - LONGEST) break;
      this.activeHours.delete(hour);
    }
    for (let i = lowerBound(this.platform, before - 23); i < this.platform.length; i++) {
      const b = this.platform[i]!;
      if (b.h > h - 24) break;
      this.platformWindow.volume -= b.volume;
      this.platformWindow.trades -= b.trades;
      for (const [pairId, v] of b.pairs) this.platformWindow.pairs.set(pairId, this.platformWindow.pairs.get(pairId)! - v);
    }
  }

  private advanceEpoch(ep: number): void {
    if (this.epoch >= 0) {
      // The ending epoch's ranks are fixed from its final points.
      const ranking = this.epochRanking();
      this.rankEpoch(ranking);
      for (let i = 0; i < ranking.size; i++) {
        const w = this.wallets.get(ranking.addressAt(i))!;
        const last = w.epochs[w.epochs.length - 1]!;
        last.rank = i + 1;
      }
      ranking.set([]);
    }
    this.epoch = ep;
  }

  private rankEpoch(ranking: Ranking): void {
    const entries: [string, bigint][] = [];
    for (const w of this.wallets.values()) {
      const last = w.epochs[w.epochs.length - 1];
      if (last !== undefined && last.id === this.epoch && last.points > 0n) entries.push([w.address, last.points]);
    }
    ranking.set(entries);
  }

  private recompute(ts: number): void {
    const entries: Record<string, [string, bigint][]> = {};
    for (const m of metrics) for (const p of periods) entries[rankingKey(m, p)] = [];
    let traders24h = 0;
    for (const w of this.wallets.values()) {
      if (w.lastTradeHour > this.hour - 24 && w.lastTradeHour >= 0) traders24h++;
      if (w.lastActiveHour < 0) continue;
      for (const p of periods) {
        const s = p === 'all' ? w.all : w.lastActiveHour > this.hour - WINDOW_HOURS[p] ? w.windows[p] : null;
        if (s === null) continue;
        if (s.trades > 0) entries[rankingKey('volume', p)]!.push([w.address, s.volume]);
        if (s.trades > 0 || s.pnl !== 0n) entries[rankingKey('pnl', p)]!.push([w.address, s.pnl]);
        if (s.points > 0n) entries[rankingKey('points', p)]!.push([w.address, s.points]);
      }
    }
    for (const [key, list] of Object.entries(entries)) this.rankings.get(key)!.set(list);
    this.rankEpoch(this.epochRanking());
    const pairs: PlatformStats['pairs'] = [];
    for (const pairId of this.catalog.pairs.keys()) {
      let oi = 0n;
      for (const [seriesId, v] of this.openInterest) if (this.catalog.series.get(seriesId)?.pairId === pairId) oi += v;
      pairs.push({ pairId, volume24h: this.platformWindow.pairs.get(pairId) ?? 0n, openInterest: oi });
    }
    this.stats = { volume24h: this.platformWindow.volume, trades24h: this.platformWindow.trades, traders24h, totalCollateral: this.totalCollateral, pairs, updatedAt: ts };
    this.updatedAt = ts;
    this.rankedHour = this.hour;
    this.dirty = false;
    this.version++;
  }

  // ---- helpers

  private wallet(address: string): Wallet {
    let w = this.wallets.get(address);
    if (w === undefined) {
      w = {
        address,
        buckets: [],
        portfolios: new Map(),
        equity: 0n,
        realized: new Map(),
        firstTradeAt: null,
        lastActiveHour: -1,
        lastTradeHour: -1,
        referrer: null,
        maker: 0n,
        taker: 0n,
        referral: 0n,
        all: zeroSums(),
        windows: { '24h': zeroSums(), '7d': zeroSums(), '30d': zeroSums() },
        epochs: [],
      };
      this.wallets.set(address, w);
    }
    return w;
  }

  private bucket(w: Wallet): WalletBucket {
    const last = w.buckets[w.buckets.length - 1];
    if (last !== undefined && last.h === this.hour) return last;
    const b: WalletBucket = { h: this.hour, volume: 0n, trades: 0, fees: 0n, pnl: 0n, points: 0n, equity: w.equity };
    w.buckets.push(b);
    return b;
  }

  private platformBucket(): PlatformBucket {
    const last = this.platform[this.platform.length - 1];
    if (last !== undefined && last.h === this.hour) return last;
    const b: PlatformBucket = { h: this.hour, volume: 0n, trades: 0, pairs: [] };
    this.platform.push(b);
    return b;
  }

  // ---- state

  exportState(): ActivityState {
    return {
      hour: this.hour,
      epoch: this.epoch,
      dirty: this.dirty,
      rankedHour: this.rankedHour,
      updatedAt: this.updatedAt,
      wallets: [...this.wallets.values()].map((w) => ({ ...w, portfolios: [...w.portfolios].map(([id, [d, eq]]) => [id, d, eq]), realized: [...w.realized] })),
      platform: this.platform,
      platformWindow: { volume: this.platformWindow.volume, trades: this.platformWindow.trades, pairs: [...this.platformWindow.pairs] },
      activeHours: [...this.activeHours].map(([h, s]) => [h, [...s]]),
      totalCollateral: this.totalCollateral,
      openInterest: [...this.openInterest],
      stats: this.stats,
      rankings: [...this.rankings].map(([k, r]) => [k, r.exportState()]),
    };
  }

  importState(s: ActivityState): void {
    this.hour = s.hour;
    this.epoch = s.epoch;
    this.dirty = s.dirty;
    this.rankedHour = s.rankedHour;
    this.updatedAt = s.updatedAt;
    this.wallets.clear();
    for (const w of s.wallets) {
      this.wallets.set(w.address, {
        ...w,
        buckets: w.buckets.map((b) => ({ ...b })),
        portfolios: new Map(w.portfolios.map(([id, d, eq]) => [id, [d, eq]])),
        realized: new Map(w.realized),
        all: { ...w.all },
        windows: { '24h': { ...w.windows['24h'] }, '7d': { ...w.windows['7d'] }, '30d': { ...w.windows['30d'] } },
        epochs: w.epochs.map((x) => ({ ...x })),
      });
    }
    this.platform = s.platform.map((b) => ({ ...b, pairs: b.pairs.map(([p, v]) => [p, v]) }));
    this.platformWindow = { volume: s.platformWindow.volume, trades: s.platformWindow.trades, pairs: new Map(s.platformWindow.pairs) };
    this.activeHours.clear();
    for (const [h, owners] of s.activeHours) this.activeHours.set(h, new Set(owners));
    this.totalCollateral = s.totalCollateral;
    this.openInterest.clear();
    for (const [id, v] of s.openInterest) this.openInterest.set(id, v);
    this.stats = s.stats;
    for (const [k, r] of s.rankings) this.rankings.get(k)?.importState(r);
    this.version++;
  }
}

/** The bucket of hour `h` (buckets ascending by hour), by binary search. */
export function findBucket<B extends { h: number }>(buckets: readonly B[], h: number): B | undefined {
  const i = lowerBound(buckets, h);
  const b = buckets[i];
  return b !== undefined && b.h === h ? b : undefined;
}

/** The index of the first bucket at or after hour `h`. */
export function lowerBound(buckets: readonly { h: number }[], h: number): number {
  let lo = 0;
  let hi = buckets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (buckets[mid]!.h < h) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
