/**
 * Both books behind the one OrderBook type, so that every rule is tested against both. The fast
 * book starts at a tiny capacity so that tests also exercise its doubling growth.
 */
import { createFastBook } from '../../../../engine/book/fastBook.ts';
import { createNaiveBook } from '../../../../engine/book/naiveBook.ts';
import type { OrderBook } from '../../../../engine/book/types.ts';

export const implementations: ReadonlyArray<readonly [name: string, create: () => OrderBook]> = [
  ['fast', () => createFastBook(1)],
  ['naive', () => createNaiveBook()],
];
