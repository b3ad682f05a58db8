/**
 * Thrown by an order book when its caller breaks the contract (duplicate ref, qty that is not a
 * positive integer, re-entry from a sink). These are bugs in the caller, never business
 * outcomes: the series actor validates every command before it reaches the book, so on the
 * expected path the book returns values and never throws (docs/book.md "What throws").
 */
export class BookInvariantError extends Error {
  override readonly name = 'BookInvariantError';
}
