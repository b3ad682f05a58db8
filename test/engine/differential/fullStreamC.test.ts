/**
 * The live engine against the frozen reference (test/engine/reference/): seeded full streams
 * (every command type), seeds 5 and 6. See support.ts.
 */
import t from 'tap';
import { DIFF_SCALE, fullStreamDiff } from './support.ts';

// Thousands of commands through two engines: minutes on a busy 2-core host (tap's default is 120 s).
t.setTimeout(600_000 * DIFF_SCALE);

for (const seed of [5, 6]) t.test(`full stream, seed ${seed}`, async (t) => fullStreamDiff(t, seed, 2_500 * DIFF_SCALE));
