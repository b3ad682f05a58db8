/**
 * The engine and its read models as recovery and snapshots see them, apart from the app so
 * that a worker thread can load them without the HTTP server (gateway/snapshot.task.ts).
 */
import { Venue, hashBytes, type Command } from '../engine/index.ts';
import { ReadModels } from './readModels/readModels.ts';
import { wireVenueOf } from './wireVenue.ts';
import type { Logger } from './http/log.ts';
import type { Command as StoredCommand } from '../persistence/types.ts';

/**
 * The engine and its read models as recovery and snapshots see them: commands from the
 * journal are the engine's commands, and each one's events are folded into the read models
 * as it replays. A snapshot asks for the state and then its hash at the same sequence
 * number (the serialisation is made once for both), and the read models' state beside it.
 */
export function replayable(venue: Venue, reads: ReadModels = new ReadModels()) {
  let last: { seq: number; bytes: Uint8Array } | null = null;
  // Events in wire form (gateway/wireVenue.ts); the same converter goes on in the command pipeline.
  const wired = wireVenueOf(venue);
  return {
    venue,
    reads,
    apply: (c: StoredCommand) => {
      const result = wired.apply(c as unknown as Command);
      reads.apply(venue.seq, venue.now, result.events);
    },
    serialize: () => {
      const bytes = venue.serialize();
      last = { seq: venue.seq, bytes };
      return bytes;
    },
    serializeRead: () => reads.serialize(),
    stateHash: () => {
      const bytes = last !== null && last.seq === venue.seq ? last.bytes : venue.serialize();
      last = null;
      return hashBytes(bytes);
    },
    restoredHash: () => venue.restoredHash(),
  };
}

/**
 * The read models that go with a restored engine: the snapshot's own, or, for a snapshot
 * without them (taken before read models were stored) or whose read state this version
 * cannot resume, folded from the engine's image of its state (docs/events.md "Seeding").
 */
export function readsFor(venue: Venue, read: Uint8Array | null, log: Logger): ReadModels {
  if (read !== null) {
    try {
      return ReadModels.restore(read);
    } catch (e) {
      log.warn(`snapshots: the read-model state at seq ${venue.seq} could not be resumed (${(e as Error).message}); folding the engine's image instead`, { seq: venue.seq });
    }
  }
  const reads = new ReadModels();
  reads.apply(venue.seq, venue.now, wireVenueOf(venue).imageEvents());
  return reads;
}
