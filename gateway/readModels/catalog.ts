/**
 * The catalog: pairs, series, their latest marks, the oracle state of each pair and the
 * venue's market makers, folded from committed events (architecture.md rule 6). Every other
 * read model names series and pairs through it.
 */
import type { Hex, PairListedEvent, SeriesListedEvent, SeriesMarkValues, VenueEvent } from '../../engine/index.ts';
import { parseSymbol, seriesIdOf } from '../../engine/index.ts';

export type PairInfo = {
  readonly pairId: Hex;
  readonly symbol: string;
  readonly underlying: string;
  readonly quote: string;
  readonly tickDecimals: number;
  readonly minSize: bigint; // WAD
  readonly sizeStep: bigint; // WAD
  maxCallOI: bigint; // WAD, 0 = unlimited
  maxPutOI: bigint;
};

export type OracleInfo = { spot: bigint; volatility: bigint; riskFreeRate: bigint; /** Unix seconds */ lastUpdate: number };

export type SeriesInfo = {
  readonly seriesId: Hex;
  readonly pairId: Hex;
  readonly pairSymbol: string;
  readonly underlying: string;
  readonly symbol: string; // canonical
  readonly strike: bigint; // WAD
  readonly expiry: number; // Unix seconds
  readonly isCall: boolean;
  settled: boolean;
  settlementPrice: bigint | null; // WAD
  /** The latest marks (at listing, then every oracle update until settlement). */
  marks: SeriesMarkValues;
};

/** A market maker's status and RFQ quote nonce. */
export type MmmInfo = { isMmm: boolean; nonce: bigint };

type CatalogState = { pairs: PairInfo[]; oracles: [Hex, OracleInfo][]; series: SeriesInfo[]; mmms: [string, MmmInfo][] };

export class Catalog {
  readonly pairs = new Map<Hex, PairInfo>();
  readonly oracles = new Map<Hex, OracleInfo>();
  /** In listing order. */
  readonly series = new Map<Hex, SeriesInfo>();
  private readonly mmms = new Map<string, MmmInfo>();
  /** Lookups by the text clients send (symbol or id), found series only. */
  private readonly lookups = new Map<string, SeriesInfo>();

  apply(e: VenueEvent): void {
    switch (e.type) {
      case 'pair_listed':
        this.pairs.set(e.pairId, pairOf(e));
        return;
      case 'oi_caps': {
        const p = this.pairs.get(e.pairId);
        if (p) {
          p.maxCallOI = e.maxCallOI;
          p.maxPutOI = e.maxPutOI;
        }
        return;
      }
      case 'oracle': {
        this.oracles.set(e.pairId, { spot: e.spot, volatility: e.volatility, riskFreeRate: e.riskFreeRate, lastUpdate: Math.floor(e.ts / 1000) });
        for (const m of e.marks) {
          const s = this.series.get(m.seriesId);
          if (s && !s.settled) s.marks = m;
        }
        return;
      }
      case 'series_listed':
        this.series.set(e.seriesId, seriesOf(e));
        return;
      case 'series_settled': {
        const s = this.series.get(e.seriesId);
        if (s) {
          s.settled = true;
          s.settlementPrice = e.settlementPrice;
        }
        return;
      }
      case 'mmm':
        this.mmm(e.address).isMmm = e.isMmm;
        return;
      case 'mmm_nonce':
        this.mmm(e.address).nonce = e.nonce;
        return;
      default:
        return;
    }
  }

  private mmm(address: string): MmmInfo {
    let m = this.mmms.get(address);
    if (m === undefined) this.mmms.set(address, (m = { isMmm: false, nonce: 0n }));
    return m;
  }

  isMmm(address: string): boolean {
    return this.mmms.get(address)?.isMmm === true;
  }

  /** A market maker's current RFQ quote nonce (0 before its first increment). */
  mmmNonce(address: string): bigint {
    return this.mmms.get(address)?.nonce ?? 0n;
  }

  /** The pair of a series (null for an unknown series). */
  pairOf(seriesId: Hex): PairInfo | null {
    const s = this.series.get(seriesId);
    return s ? (this.pairs.get(s.pairId) ?? null) : null;
  }

  /** A pair id as a client wrote it (any case), when listed. */
  pairId(raw: string): Hex | null {
    const id = raw.toLowerCase() as Hex;
    return this.pairs.has(id) ? id : null;
  }

  /** The symbol of a series, or its id when unknown. */
  symbolOf(seriesId: Hex): string {
    return this.series.get(seriesId)?.symbol ?? seriesId;
  }

  /**
   * Resolve a seriesId, a canonical symbol (`BTC-82000-C-1767254400`) or a user-facing one
   * (`BTC-01JAN26-82000-C`), remembering hits: resolving a symbol hashes (keccak) and a hot
   * read path should not. Only found series are remembered, so the map is bounded by the
   * forms clients use for listed series.
   */
  find(text: string): SeriesInfo | null {
    const hit = this.lookups.get(text);
    if (hit !== undefined) return hit;
    const found = this.resolve(text);
    if (found && this.lookups.size < 100_000) this.lookups.set(text, found);
    return found;
  }

  private resolve(text: string): SeriesInfo | null {
    if (/^0x[0-9a-fA-F]{64}$/.test(text)) return this.series.get(text.toLowerCase() as Hex) ?? null;
    const parsed = parseSymbol(text);
    if (!parsed.ok) return null;
    const k = parsed.value;
    for (const pair of this.pairs.values()) {
      if (pair.underlying !== k.underlying) continue;
      const s = this.series.get(seriesIdOf(pair.pairId, k.strike, k.expiry, k.isCall));
      if (s) return s;
    }
    return null;
  }

  exportState(): CatalogState {
    return { pairs: [...this.pairs.values()], oracles: [...this.oracles], series: [...this.series.values()], mmms: [...this.mmms] };
  }

  importState(s: CatalogState): void {
    for (const p of s.pairs) this.pairs.set(p.pairId, { ...p });
    for (const [k, o] of s.oracles) this.oracles.set(k, { ...o });
    for (const x of s.series) this.series.set(x.seriesId, { ...x });
    for (const [k, m] of s.mmms) this.mmms.set(k, { ...m });
  }
}

function pairOf(e: PairListedEvent): PairInfo {
  return { pairId: e.pairId, symbol: e.symbol, underlying: e.underlying, quote: e.quote, tickDecimals: e.tickDecimals, minSize: e.minSize, sizeStep: e.sizeStep, maxCallOI: e.maxCallOI, maxPutOI: e.maxPutOI };
}

function seriesOf(e: SeriesListedEvent): SeriesInfo {
  return { seriesId: e.seriesId, pairId: e.pairId, pairSymbol: e.pairSymbol, underlying: e.underlying, symbol: e.symbol, strike: e.strike, expiry: e.expiry, isCall: e.isCall, settled: false, settlementPrice: null, marks: e.marks };
}
