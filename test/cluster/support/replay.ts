/** A fresh replay of a journal stream, and the expected history of a seeded random stream. */
import { openNatsJournal } from '../../../persistence/natsJournal.ts';
import { Venue } from '../../../engine/venue.ts';
import type { Command } from '../../../engine/index.ts';
import { Harness } from '../../engine/support/venueFixture.ts';
import { randomBodies } from '../../engine/support/randomStream.ts';

/** Replays the stream's commands 1..upTo into a new engine: its hash, and the stream's last seq. */
export async function replayStream(urls: string[], stream: string, upTo = Number.MAX_SAFE_INTEGER): Promise<{ lastSeq: number; seq: number; hash: string }> {
  const journal = await openNatsJournal({ servers: urls, stream, timeoutMs: 15_000, name: 'replay' });
  try {
    const venue = Venue.create();
    for (const c of journal.read(1)) {
      if (c.seq > upTo) break;
      venue.apply(c as unknown as Command);
    }
    return { lastSeq: journal.lastSeq(), seq: venue.seq, hash: venue.stateHash() };
  } finally {
    await journal.close();
  }
}

/** The state hash after the first `n` commands of the child's seeded stream. */
export function expectedHash(seed: number, n: number): string {
  const h = new Harness();
  for (const { body, advance } of randomBodies(h, seed, 1_000_000)) {
    if (h.seq === n) break;
    h.run(body, advance);
  }
  return h.venue.stateHash();
}
