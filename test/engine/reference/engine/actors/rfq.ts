/**
 * The RFQ actor: alone owns auctions and the quotes market makers sent for them.
 * Who may quote and whether a quote is still good (nonce, expiry, size) is decided here;
 * the trade itself goes through the same fill path as the book's.
 */
import type { Hex } from '../domain/hex.ts';
import type { RfqQuoteData } from '../commands.ts';

export type QuoteRecord = RfqQuoteData & { filled: bigint; readonly submittedAt: number };

export type RfqRequest = {
  readonly requestId: Hex;
  readonly taker: string;
  readonly portfolioId: number;
  readonly seriesId: Hex;
  readonly pairId: Hex;
  readonly size: bigint;
  readonly takerIsBuying: boolean;
  readonly createdAt: number; // ms
  readonly expiresAt: number; // Unix seconds
  status: 'open' | 'filled' | 'expired' | 'cancelled';
  filledQuoteId: Hex | null;
  readonly quotes: Map<Hex, QuoteRecord>;
};

export class RfqActor {
  readonly requests = new Map<Hex, RfqRequest>();
  /** Resolved requests kept for reads, oldest first, bounded. */
  readonly resolved: Hex[] = [];
  /**
   * Derived indexes (rebuilt by `add` on restore), so that a clock and a quote fill cost what
   * they touch rather than a pass over the 10,000 resolved requests kept for reads: the open
   * requests in creation order, and per quote id the requests holding it in creation order (a
   * market maker may send one signed quote to several requests; a fill takes the oldest).
   */
  private readonly openRequests = new Set<RfqRequest>();
  private readonly quoteHolders = new Map<Hex, RfqRequest[]>();

  open(): RfqRequest[] {
    return [...this.openRequests];
  }

  add(r: RfqRequest): void {
    this.requests.set(r.requestId, r);
    if (r.status === 'open') this.openRequests.add(r);
    for (const quoteId of r.quotes.keys()) this.indexQuote(quoteId, r);
  }

  addQuote(r: RfqRequest, q: QuoteRecord): void {
    r.quotes.set(q.quoteId, q);
    this.indexQuote(q.quoteId, r);
  }

  resolve(r: RfqRequest, status: 'filled' | 'expired' | 'cancelled'): void {
    r.status = status;
    this.openRequests.delete(r);
    this.resolved.push(r.requestId);
    while (this.resolved.length > 10_000) this.forget(this.resolved.shift()!);
  }

  /** Open requests whose time is up at `nowSec`, in creation order. */
  due(nowSec: number): RfqRequest[] {
    const out: RfqRequest[] = [];
    for (const r of this.openRequests) if (r.expiresAt <= nowSec) out.push(r);
    return out;
  }

  findQuote(quoteId: Hex): { request: RfqRequest; quote: QuoteRecord } | null {
    const request = this.quoteHolders.get(quoteId)?.[0];
    return request === undefined ? null : { request, quote: request.quotes.get(quoteId)! };
  }

  private indexQuote(quoteId: Hex, r: RfqRequest): void {
    // Requests are added in creation order (a restore adds them in map order, the same one).
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
      const holders = this.quoteHolders.get(quoteId)!;
      const rest = holders.filter((h) => h !== r);
      if (rest.length === 0) this.quoteHolders.delete(quoteId);
      else this.quoteHolders.set(quoteId, rest);
    }
  }
}

export type QuoteStatus = 'active' | 'filled' | 'expired' | 'cancelled';

/** A quote's status as the interface shows it, at `nowSec` with the maker's current nonce. */
export function quoteStatus(q: Pick<QuoteRecord, 'filled' | 'size' | 'nonce' | 'quoteExpiry'>, currentNonce: bigint, nowSec: number): QuoteStatus {
  if (q.filled >= q.size) return 'filled';
  if (q.nonce !== currentNonce) return 'cancelled';
  if (q.quoteExpiry <= nowSec) return 'expired';
  return 'active';
}
