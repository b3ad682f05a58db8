/**
 * What the engine does not keep of an RFQ quote: the market maker's signature and the
 * series fields of the signed message. A taker needs both to fill (the relay calldata
 * carries them), and reads them from `GET /api/rfq/quotes/:requestId`. Held in memory for
 * the life of the request (quotes live at most 30 s); dropped when the request resolves.
 */
import type { Hex, VenueEvent } from '../../engine/index.ts';
import type { RfqQuoteMessage } from '../../workers/eip712/types.ts';

export type StoredQuote = { readonly requestId: Hex; readonly message: RfqQuoteMessage; readonly signature: Hex };

/** Bound on quotes held, whatever happens to their requests. */
const MAX_QUOTES = 100_000;

export class QuoteBook {
  private readonly quotes = new Map<Hex, StoredQuote>();
  private readonly byRequest = new Map<Hex, Hex[]>();

  add(quoteId: Hex, q: StoredQuote): void {
    if (this.quotes.size >= MAX_QUOTES) this.dropRequest(this.byRequest.keys().next().value as Hex);
    this.quotes.set(quoteId, q);
    let ids = this.byRequest.get(q.requestId);
    if (!ids) this.byRequest.set(q.requestId, (ids = []));
    ids.push(quoteId);
  }

  get(quoteId: Hex): StoredQuote | undefined {
    return this.quotes.get(quoteId);
  }

  onEvents(events: readonly VenueEvent[]): void {
    for (const e of events) if (e.type === 'rfq_resolved') this.dropRequest(e.requestId);
  }

  private dropRequest(requestId: Hex): void {
    for (const id of this.byRequest.get(requestId) ?? []) this.quotes.delete(id);
    this.byRequest.delete(requestId);
  }
}
