/**
 * RFQ auctions as the gateway reads them (architecture.md rule 6): requests, the quotes
 * market makers sent for them with what was filled, and each request's status, folded from
 * `rfq_created`, `rfq_quote` and `rfq_resolved`. It keeps what the engine's RFQ actor keeps
 * for reads (engine/actors/rfq.ts): every open request, the last 10,000 resolved ones, and
 * the same two indexes (open requests in creation order; per quote id its holders, oldest
 * first). A quote's status also needs its market maker's current nonce: the catalog's.
 */
import type { Hex, QuoteStatus, RfqEvent, RfqQuoteFields, VenueEvent } from '../../engine/index.ts';
import { quoteStatus } from '../../engine/index.ts';
import type { Catalog } from './catalog.ts';

/** Resolved requests kept for reads, as the engine keeps them. */
export const RFQ_RESOLVED_KEPT = 10_000;

/** A quote as reads show it (its signature is the settlement stream's: docs/chain.md). */
export type RfqQuoteView = Omit<RfqQuoteFields, 'signature'> & {
  /** WAD filled from this quote for this request. */
  filled: bigint;
  /** When the quote arrived (Unix ms): the `rfq_quote` event's time. */
  readonly submittedAt: number;
};

export type RfqRequestStatus = 'open' | 'filled' | 'expired' | 'cancelled';

export type RfqRequestView = {
  readonly requestId: Hex;
  readonly taker: string;
  readonly portfolioId: number;
  readonly seriesId: Hex;
  readonly pairId: Hex;
  readonly size: bigint; // WAD
  readonly takerIsBuying: boolean;
  /** Unix ms: the `rfq_created` event's time. */
  readonly createdAt: number;
  /** Unix seconds. */
  readonly expiresAt: number;
  status: RfqRequestStatus;
  filledQuoteId: Hex | null;
  /** In arrival order. */
  readonly quotes: Map<Hex, RfqQuoteView>;
};

/** The exported form: plain data (no Map), requests in creation order. */
type RequestState = Omit<RfqRequestView, 'quotes'> & { quotes: RfqQuoteView[] };
type RfqBookState = { requests: RequestState[]; resolved: Hex[] };

export class RfqBook {
  /** Every request kept, in creation order. */
  readonly requests = new Map<Hex, RfqRequestView>();
  /** Resolved requests kept for reads, in resolution order, bounded. */
  private readonly resolved: Hex[] = [];
  private readonly openRequests = new Set<RfqRequestView>();
  /** Per quote id, the requests holding it, oldest first (one signed quote may answer several). */
  private readonly quoteHolders = new Map<Hex, RfqRequestView[]>();

  constructor(private readonly catalog: Catalog) {}

  apply(e: VenueEvent): void {
    switch (e.type) {
      case 'rfq_created':
        this.add({
          requestId: e.requestId,
          taker: e.taker,
          portfolioId: e.portfolioId,
          seriesId: e.seriesId,
          pairId: e.pairId,
          size: e.size,
          takerIsBuying: e.takerIsBuying,
          createdAt: e.ts,
          expiresAt: e.expiresAt,
          status: 'open',
          filledQuoteId: null,
          quotes: new Map(),
        });
        return;
      case 'rfq_quote': {
        const r = this.requests.get(e.requestId);
        if (r === undefined) return;
        const { signature: _signature, ...quote } = e.quote;
        r.quotes.set(e.quote.quoteId, { ...quote, filled: 0n, submittedAt: e.ts });
        this.indexQuote(e.quote.quoteId, r);
        return;
      }
      case 'rfq_resolved':
        this.resolve(e);
        return;
      default:
        return;
    }
  }

  /** Open requests in creation order (including those past their time the clock has not closed yet). */
  open(): RfqRequestView[] {
    return [...this.openRequests];
  }

  /** The request holding a quote id: the oldest one kept, as the engine's `findQuote` (a fill must name it). */
  findQuote(quoteId: Hex): { request: RfqRequestView; quote: RfqQuoteView } | null {
    const request = this.quoteHolders.get(quoteId)?.[0];
    return request === undefined ? null : { request, quote: request.quotes.get(quoteId)! };
  }

  /** A quote's status at `nowSec`, with its market maker's current nonce from the catalog. */
  quoteStatus(q: RfqQuoteView, nowSec: number): QuoteStatus {
    return quoteStatus(q, this.catalog.mmmNonce(q.mmm), nowSec);
  }

  /** Resolved request ids kept, in resolution order. */
  resolvedIds(): readonly Hex[] {
    return this.resolved;
  }

  private add(r: RfqRequestView): void {
    this.requests.set(r.requestId, r);
    if (r.status === 'open') this.openRequests.add(r);
    for (const quoteId of r.quotes.keys()) this.indexQuote(quoteId, r);
  }

  private resolve(e: Extract<RfqEvent, { type: 'rfq_resolved' }>): void {
    const r = this.requests.get(e.requestId);
    if (r === undefined) return;
    if (e.status === 'filled' && e.quoteId !== null) {
      r.filledQuoteId = e.quoteId;
      const q = r.quotes.get(e.quoteId);
      if (q !== undefined && e.fillSize !== null) q.filled += e.fillSize;
    }
    r.status = e.status;
    this.openRequests.delete(r);
    this.resolved.push(r.requestId);
    while (this.resolved.length > RFQ_RESOLVED_KEPT) this.forget(this.resolved.shift()!);
  }

  private indexQuote(quoteId: Hex, r: RfqRequestView): void {
    const holders = this.quoteHolders.get(quoteId);
    if (holders === undefined) this.quoteHolders.set(quoteId, [r]);
    else holders.push(r);
  }

  private forget(requestId: Hex): void {
    const r = this.requests.get(requestId);
    if (r === undefined) return;
    this.requests.delete(requestId);
    this.openRequests.delete(r);
    for (const quoteId of r.quotes.keys()) {
      const rest = this.quoteHolders.get(quoteId)!.filter((h) => h !== r);
      if (rest.length === 0) this.quoteHolders.delete(quoteId);
      else this.quoteHolders.set(quoteId, rest);
    }
  }

  exportState(): RfqBookState {
    const requests: RequestState[] = [];
    for (const r of this.requests.values()) requests.push({ ...r, quotes: [...r.quotes.values()].map((q) => ({ ...q })) });
    return { requests, resolved: [...this.resolved] };
  }

  importState(s: RfqBookState): void {
    for (const r of s.requests) this.add({ ...r, quotes: new Map(r.quotes.map((q) => [q.quoteId, { ...q }])) });
    this.resolved.push(...s.resolved);
  }
}
