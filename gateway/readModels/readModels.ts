/**
 * The read side (architecture.md rule 6): every view the gateway serves, REST and WebSocket
 * alike, is a fold over the engine's committed events, never a look into engine state. The
 * command pipeline hands each command's events here after its journal commit, so a read
 * never shows what the journal has not committed, and every view stands at the same `seq`.
 *
 * Each fold keeps its own state as plain data; `serialize` writes all of it with the
 * journal's codec beside the engine's snapshot (at the same seq), and `restore` resumes
 * from it, so a restart needs no event before the snapshot.
 */
import type { VenueEvent } from '../../engine/index.ts';
import { encodeValue, decodeValue } from '../../persistence/codec.ts';
import { Catalog } from './catalog.ts';
import { MarketData } from './marketData.ts';
import { RfqBook } from './rfqBook.ts';
import { Accounts } from './accounts.ts';
import { OrderHistory } from '../orders/orderHistory.ts';
import { MmpBook } from './mmp.ts';
import { Activity } from './activity.ts';
import { ReferralBook } from './referrals.ts';
import { Liquidations } from './liquidations.ts';
import { SettlementBook } from './settlement.ts';

/** A read model: applies committed events in order, and exports and imports its state as plain data. */
export type Fold = {
  apply(e: VenueEvent): void;
  exportState(): unknown;
  importState(state: never): void;
};

/** Version of the serialised read state; a snapshot with another version is passed over (recovery folds the journal instead). */
const FORMAT = 1;
/** Folds added after FORMAT 1 without a new format: absent from an older read state means empty (no event of theirs existed). */
const ADDED_LATER = new Set(['mmp', 'activity', 'referrals', 'liquidations', 'settlement']);

export class ReadModels {
  /** The sequence number and time (Unix ms) of the last command folded. */
  seq = 0;
  ts = 0;
  readonly catalog = new Catalog();
  /** Public market data: books, trades, 24-hour statistics, open interest, and the replies' caches. */
  readonly market = new MarketData(this.catalog, () => this.ts);
  /** RFQ auctions and their quotes (quote statuses read market makers' nonces from the catalog). */
  readonly rfq = new RfqBook(this.catalog);
  /** Per wallet: portfolios, positions, trades, fees and traded volume. */
  readonly accounts = new Accounts();
  /** Per wallet: open orders and the last finished ones. */
  readonly orders = new OrderHistory(this.catalog);
  /** Per wallet and pair: market maker protection's config, frozen state and window. */
  readonly mmp = new MmpBook();
  /** Volume, PnL, points and equity per wallet and hour, platform statistics, leaderboards (points, leaderboard, user and platform routes). */
  readonly activity = new Activity(this.catalog);
  /** Per wallet: its referral code, referrer, referees, rebates earned and volume referred. */
  readonly referrals = new ReferralBook();
  /** Per wallet its liquidations; the insurance fund's balance, bad debt and last 24 hours. */
  readonly liquidations = new Liquidations();
  /** Per trade and order: its settlement on chain (docs/chain.md). */
  readonly settlement = new SettlementBook();
  /** Every fold, in the order each event is applied to them (the catalog first: the others look series up in it). */
  private readonly folds: readonly (readonly [string, Fold])[];

  constructor() {
    this.folds = [
      ['catalog', this.catalog],
      ['market', this.market],
      ['rfq', this.rfq],
      ['accounts', this.accounts],
      ['orders', this.orders],
      ['mmp', this.mmp],
      ['activity', this.activity],
      ['referrals', this.referrals],
      ['liquidations', this.liquidations],
      ['settlement', this.settlement],
    ];
  }

  /** Fold one committed command's events. */
  apply(seq: number, ts: number, events: readonly VenueEvent[]): void {
    const folds = this.folds;
    for (const e of events) for (let i = 0; i < folds.length; i++) folds[i]![1].apply(e);
    this.seq = seq;
    this.ts = ts;
  }

  serialize(): Uint8Array {
    const parts: Record<string, unknown> = {};
    for (const [name, fold] of this.folds) parts[name] = fold.exportState();
    return encodeValue({ format: FORMAT, seq: this.seq, ts: this.ts, parts });
  }

  /** Read models restored from `serialize`'s bytes; throws when they are not a read state this version can resume. */
  static restore(bytes: Uint8Array): ReadModels {
    const v = decodeValue(bytes) as { format?: unknown; seq?: unknown; ts?: unknown; parts?: Record<string, unknown> };
    if (v.format !== FORMAT || typeof v.seq !== 'number' || typeof v.ts !== 'number' || typeof v.parts !== 'object' || v.parts === null) throw new Error(`read-model state has format ${String(v.format)}, expected ${FORMAT}`);
    const reads = new ReadModels();
    for (const [name, fold] of reads.folds) {
      const part = v.parts[name];
      if (part === undefined) {
        // Folds added since FORMAT 1 start empty from a read state written before them.
        if (ADDED_LATER.has(name)) continue;
        throw new Error(`read-model state lacks ${name}`);
      }
      fold.importState(part as never);
    }
    reads.seq = v.seq;
    reads.ts = v.ts;
    return reads;
  }
}
