/**
 * The live engine against the frozen reference (test/engine/reference/): seeded full streams
 * (every command type), seeds 5 and 6. See support.ts.
 */
import t from 'tap';
import { fullStreamDiff } from './support.ts';

for (const seed of [5, 6]) t.test(`full stream, seed ${seed}`, async (t) => fullStreamDiff(t, seed, 2_500));
