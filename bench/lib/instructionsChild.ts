/**
 * The child process of `bench/book.ts --instructions` (lib/instructions.ts), run under
 * cachegrind: builds the benchmark's op stream and prepared venue, applies the prefill, then
 * applies the first `applyOps` timed commands through Venue.apply and exits.
 * Usage: node --import tsx bench/lib/instructionsChild.ts <streamOps> <applyOps>
 */
import { makeOpStream } from '../book.ts';
import { prepare } from './seriesActorSubject.ts';

const streamOps = Number(process.argv[2]);
const applyOps = Number(process.argv[3]);
if (!Number.isInteger(streamOps) || !Number.isInteger(applyOps) || applyOps < 0 || applyOps > streamOps) {
  console.error('usage: instructionsChild.ts <streamOps> <applyOps> (0 <= applyOps <= streamOps)');
  process.exit(2);
}
const p = prepare(makeOpStream(streamOps));
const end = p.prefill + applyOps;
for (let i = 0; i < end; i++) p.venue.apply(p.commands[i]!);
console.log(`applied ${p.prefill} prefill + ${applyOps} ops`);
