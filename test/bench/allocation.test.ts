/**
 * bench/lib/allocation.ts against allocations of a known size: arrays of n holey elements
 * (a JSArray header of 4 pointers and a FixedArray of 2 + n pointers each, no other
 * allocation per iteration once the loop is warm). Checks sizes, not times.
 */
import t from 'tap';
import { measureAllocation } from '../../bench/lib/allocation.ts';

const POINTER = (process.config.variables as Record<string, unknown>)['v8_enable_pointer_compression'] ? 4 : 8;
let keep: unknown = null;

/**
 * Bytes per array: warmed twice, then the least of three measures (what the loop's code still
 * allocates while the JIT finishes compiling it, tens of KB, is added to a measure, never taken away).
 */
function perArray(n: number, count: number): number {
  const run = (): void => {
    for (let i = 0; i < count; i++) keep = new Array(n);
  };
  run();
  run();
  let least = Infinity;
  for (let k = 0; k < 3; k++) least = Math.min(least, measureAllocation(run).bytes / count);
  return least;
}

t.test('arrays of a known size: within 1% of their size, collections included', async (t) => {
  for (const n of [0, 8, 100]) {
    const expected = 4 * POINTER + (n === 0 ? 0 : (2 + n) * POINTER);
    const got = perArray(n, 200_000);
    t.ok(Math.abs(got - expected) <= expected * 0.01, `new Array(${n}): ${got} bytes each, expected ${expected}`);
  }
  const r = measureAllocation(() => {
    for (let i = 0; i < 200_000; i++) keep = new Array(100);
  });
  t.ok(r.collections > 0, 'the loop ran collections, whose freed bytes were counted');
  t.ok(keep !== null);
});

t.test('an empty run: only the measure itself (a few KB at most)', async (t) => {
  const r = measureAllocation(() => {});
  t.ok(r.bytes >= 0 && r.bytes < 8192, `${r.bytes} bytes`);
});

t.test('the steady-state figure of bench/book measures only the stream\'s last ops, and refuses a stream too short for them', async (t) => {
  const { makeOpStream } = await import('../../bench/book.ts');
  const { seriesActorSteadyAllocation } = await import('../../bench/lib/seriesActorSubject.ts');
  const stream = makeOpStream(6_000, 7);
  t.throws(() => seriesActorSteadyAllocation(stream, 6_000), RangeError, 'the measured ops must leave some to warm on');
  const r = seriesActorSteadyAllocation(stream, 2_000);
  t.ok(Number.isFinite(r.bytesPerOp) && r.bytesPerOp >= 0, `a byte count (${r.bytesPerOp})`);
  const large = seriesActorSteadyAllocation(stream, 2_000, 40);
  t.ok(Number.isFinite(large.bytesPerOp) && large.bytesPerOp >= 0, `at 40 times the sizes (${large.bytesPerOp})`);
});
