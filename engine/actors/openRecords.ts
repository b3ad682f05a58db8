/**
 * A series' open orders' records by book ref (the book reports fills by ref), without a JS Map:
 * orders rest and leave all the time, and a Map's table is rebuilt every few thousand inserts
 * (its deleted entries count against its capacity until a rehash), an allocation of the whole
 * table each time. Here an `IntIndex` (book/intIndex.ts: typed arrays, backward-shift deletion,
 * grows only) maps a ref to a slot of `records`, and a freed slot is reused, so resting and
 * leaving allocate nothing once the storage has grown to the most orders open at once.
 *
 * `values()` gives the records in the order they were added, as the Map did (a snapshot lists
 * them in that order, so a re-serialisation stays byte-identical): each slot keeps the sequence
 * number of its insertion. It allocates, and is for snapshots, the image, settlement and the
 * fill-or-kill check under market maker protection, not the hot path.
 */
import { IntIndex } from '../book/intIndex.ts';
import type { OrderRecord } from './orderRecord.ts';

export class OpenRecords {
  private readonly slotOf = new IntIndex();
  private readonly records: (OrderRecord | null)[] = [];
  /** The insertion sequence number of each slot's record. */
  private readonly added: number[] = [];
  private readonly free: number[] = [];
  private freeCount = 0;
  private sequence = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The record of the open order with book ref `ref` (a ref is >= 1). */
  get(ref: number): OrderRecord | undefined {
    const slot = this.slotOf.get(ref);
    return slot < 0 ? undefined : this.records[slot]!;
  }

  /** Add `r` under its ref; a ref already held keeps its place and takes the new record (a Map's `set`). */
  set(r: OrderRecord): void {
    const held = this.slotOf.get(r.ref);
    if (held >= 0) {
      this.records[held] = r;
      return;
    }
    const slot = this.freeCount > 0 ? this.free[--this.freeCount]! : this.records.length;
    this.records[slot] = r;
    this.added[slot] = ++this.sequence;
    this.slotOf.set(r.ref, slot);
    this.count++;
  }

  /** Remove the record under `ref`; whether there was one. */
  delete(ref: number): boolean {
    const slot = this.slotOf.delete(ref);
    if (slot < 0) return false;
    this.records[slot] = null;
    this.free[this.freeCount++] = slot;
    this.count--;
    return true;
  }

  /** The open records in the order they were added (a fresh array). */
  values(): OrderRecord[] {
    const slots: number[] = [];
    for (let s = 0; s < this.records.length; s++) if (this.records[s] !== null) slots.push(s);
    slots.sort((a, b) => this.added[a]! - this.added[b]!);
    return slots.map((s) => this.records[s]!);
  }
}
