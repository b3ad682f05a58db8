/**
 * A series' open records by ref (engine/actors/openRecords.ts) against the Map it replaced:
 * the same lookups, sizes and insertion order over seeded steps, with slots freed and reused.
 */
import t from 'tap';
import { OpenRecords } from '../../../engine/actors/openRecords.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const record = (ref: number, tag = 0): OrderRecord => ({ orderId: `0x${ref.toString(16)}`, ref, tag }) as unknown as OrderRecord;

t.test('the same as a Map over 40,000 seeded steps', (t) => {
  const random = rng(19);
  const index = new OpenRecords();
  const model = new Map<number, OrderRecord>();
  let nextRef = 1;
  let mismatch: string | null = null;
  let most = 0;
  for (let step = 0; step < 40_000 && mismatch === null; step++) {
    const r = random();
    if (r < 0.45 || model.size === 0) {
      const rec = record(nextRef++);
      index.set(rec);
      model.set(rec.ref, rec);
    } else if (r < 0.9) {
      const refs = [...model.keys()];
      const ref = refs[Math.floor(random() * refs.length)]!;
      if (index.delete(ref) !== model.delete(ref)) mismatch = `delete ${ref} at step ${step}`;
    } else if (r < 0.95) {
      // A ref never added, or one removed: both absent.
      const ref = 1 + Math.floor(random() * (nextRef + 10));
      if (index.get(ref) !== model.get(ref)) mismatch = `get ${ref} at step ${step}`;
      if (index.delete(ref) !== model.delete(ref)) mismatch = `delete of ${ref} at step ${step}`;
    } else {
      // A record set again under a ref it holds keeps its place (a Map's set).
      const refs = [...model.keys()];
      const ref = refs[Math.floor(random() * refs.length)]!;
      const rec = record(ref, step);
      index.set(rec);
      model.set(ref, rec);
    }
    most = Math.max(most, model.size);
    if (index.size !== model.size) mismatch = `size ${index.size} against ${model.size} at step ${step}`;
    if (step % 1000 === 0) {
      const got = index.values();
      const want = [...model.values()];
      if (got.length !== want.length || got.some((x, i) => x !== want[i])) mismatch = `values differ at step ${step}`;
      for (const [ref, rec] of model) if (index.get(ref) !== rec) mismatch = `get ${ref} at step ${step}`;
    }
  }
  t.equal(mismatch, null, 'every lookup, size, removal and the insertion order as the Map');
  t.ok(most > 100, `many open at once (${most})`);
  t.same(index.values(), [...model.values()], 'the same records in the same order at the end');
  const slots = (index as unknown as { records: unknown[] }).records.length;
  t.equal(slots, most, 'freed slots were reused: as many as the most records open at once');
  t.end();
});
