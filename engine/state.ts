/**
 * The venue's whole state: the actors and the few indexes that route messages between them.
 * Only the engine's flows (engine/flows) change it, one command at a time.
 */
import type { Hex } from './domain/hex.ts';
import type { VenueConfig } from './config.ts';
import type { Pair, OracleState } from './actors/registry.ts';
import type { SeriesActor } from './actors/series.ts';
import { AccountActor, type MarkSource, type SeriesQuote } from './actors/accounts.ts';
import { MinHeap } from './actors/minHeap.ts';
import { RfqActor } from './actors/rfq.ts';

export class VenueState {
  /** Venue clock (Unix ms): the latest command timestamp; never moves backwards. */
  now = 0;
  seq = 0;
  readonly pairs = new Map<Hex, Pair>();
  readonly oracles = new Map<Hex, OracleState>();
  readonly series = new Map<Hex, SeriesActor>();
  /** Expiries already listed, per pair. */
  readonly listedExpiries = new Map<Hex, Set<number>>();
  readonly accounts: AccountActor;
  readonly rfq = new RfqActor();
  /** Wallet -> small integer for the book's self-trade prevention. */
  readonly ownerIndex = new Map<string, number>();
  /** Open order -> its series. */
  readonly orderIndex = new Map<Hex, Hex>();
  /** Good-till times of open orders: [expiry seconds, orderId]; stale entries are skipped. */
  readonly expiryHeap = new MinHeap<Hex>();
  nextRef = 1;
  nextTradeId = 1;
  readonly marks: MarkSource;
  /** config.maxOrderLots as a bigint, for the order check. */
  readonly maxOrderLots: bigint;

  constructor(readonly config: VenueConfig) {
    this.marks = { quote: (seriesId) => this.quote(seriesId) };
    this.accounts = new AccountActor(config, this.marks);
    this.maxOrderLots = BigInt(config.maxOrderLots);
  }

  get nowSec(): number {
    return Math.floor(this.now / 1000);
  }

  internOwner(owner: string): number {
    let i = this.ownerIndex.get(owner);
    if (i === undefined) {
      i = this.ownerIndex.size;
      this.ownerIndex.set(owner, i);
    }
    return i;
  }

  /** Marks of a live series for the risk engine; null once settled (no risk left). */
  private quote(seriesId: Hex): SeriesQuote | null {
    const s = this.series.get(seriesId);
    return s && !s.settled ? s.riskQuote : null;
  }
}
