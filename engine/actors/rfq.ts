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

  open(): RfqRequest[] {
    return [...this.requests.values()].filter((r) => r.status === 'open');
  }

  add(r: RfqRequest): void {
    this.requests.set(r.requestId, r);
  }

  resolve(r: RfqRequest, status: 'filled' | 'expired' | 'cancelled'): void {
    r.status = status;
    this.resolved.push(r.requestId);
    while (this.resolved.length > 10_000) this.requests.delete(this.resolved.shift()!);
  }

  /** Open requests whose time is up at `nowSec`. */
  due(nowSec: number): RfqRequest[] {
    const out: RfqRequest[] = [];
    for (const r of this.requests.values()) if (r.status === 'open' && r.expiresAt <= nowSec) out.push(r);
    return out;
  }

  findQuote(quoteId: Hex): { request: RfqRequest; quote: QuoteRecord } | null {
    for (const request of this.requests.values()) {
      const quote = request.quotes.get(quoteId);
      if (quote) return { request, quote };
    }
    return null;
  }
}

/** A quote's status as the interface shows it, at `nowSec` with the maker's current nonce. */
export function quoteStatus(q: QuoteRecord, currentNonce: bigint, nowSec: number): 'active' | 'filled' | 'expired' | 'cancelled' {
  if (q.filled >= q.size) return 'filled';
  if (q.nonce !== currentNonce) return 'cancelled';
  if (q.quoteExpiry <= nowSec) return 'expired';
  return 'active';
}
