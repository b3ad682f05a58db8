/**
 * The venue's series by id and by handle: a `Map` from series id to its actor (what commands
 * and snapshots name) that also gives each series a dense integer handle when it first enters
 * (listing, or restore in the snapshot's order), so the flows and a match's outcome name a
 * series by a small integer and reach it with an array read instead of hashing its id.
 * Handles are not stored anywhere (not in snapshots, events or results): a restore assigns
 * them again, deterministically, in the order the series are restored.
 */
import type { Hex } from '../domain/hex.ts';
import type { SeriesActor } from './series.ts';
import { RecordPool } from './recordPool.ts';

export class SeriesTable extends Map<Hex, SeriesActor> {
  /** The order records of every series, recycled (actors/recordPool.ts): each series entering the table hands its finished records back here. */
  readonly records = new RecordPool();
  private readonly slots: SeriesActor[] = [];
  /** The id and series `byId` found last (null: none, or the table changed since). */
  private lastId: Hex | null = null;
  private last: SeriesActor | null = null;

  override set(seriesId: Hex, series: SeriesActor): this {
    this.last = null;
    const held = super.get(seriesId);
    if (held !== undefined && held !== series) {
      // The same id again with another actor takes over its handle.
      series.handle = held.handle;
      this.slots[held.handle] = series;
    } else if (this.slots[series.handle] !== series) {
      series.handle = this.slots.length;
      this.slots.push(series);
    }
    series.records = this.records;
    return super.set(seriesId, series);
  }

  override delete(seriesId: Hex): boolean {
    throw new Error(`series ${seriesId}: a listed series is never removed (its handle would dangle)`);
  }

  /**
   * `get` for the order rules: the series found last is kept, so a command on the same series as
   * the one before (a market maker's quotes, most of the book's flow) costs a string comparison
   * instead of hashing its id. Any `set` forgets it (a series taken over by another actor).
   */
  byId(seriesId: Hex): SeriesActor | undefined {
    if (seriesId === this.lastId && this.last !== null) return this.last;
    const s = super.get(seriesId);
    if (s !== undefined) {
      this.lastId = seriesId;
      this.last = s;
    }
    return s;
  }

  /** The series of handle `handle` (assigned when it entered the table). */
  at(handle: number): SeriesActor {
    const s = this.slots[handle];
    if (s === undefined) throw new Error(`no series with handle ${handle}`);
    return s;
  }
}
