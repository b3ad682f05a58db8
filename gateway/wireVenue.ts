/**
 * The engine's events in wire form: the one place the gateway converts them (docs/events.md
 * "The engine's compact form"). `Venue.apply` and `Venue.imageEvents` give the compact form
 * (lots, ticks, cash in doubles); every reader in the gateway (read models, streams, metrics,
 * routes, the cluster's standby and edges, recovery's replay) sees only what this hands on,
 * `VenueEvent`s with today's fields and values.
 *
 * The converter (engine/wire.ts `WireEvents`) learns each series' grid from the listing events
 * it converts; at construction it folds the engine's image, so a venue restored from a snapshot
 * (whose listings are older than any command it will apply) converts from its first command.
 * One `WireVenue` per engine, fed every command in order.
 */
import { WireEvents, type ApplyResult, type Command, type Venue, type VenueEvent } from '../engine/index.ts';

export class WireVenue {
  private readonly wire = new WireEvents();

  constructor(readonly venue: Venue) {
    this.wire.learn(venue.imageEvents());
  }

  /** Apply a command; its result with the events in wire form. */
  apply(command: Command): ApplyResult {
    return this.wire.result(this.venue.apply(command));
  }

  /** The engine's image (engine/image.ts) in wire form. */
  imageEvents(): VenueEvent[] {
    return this.wire.events(this.venue.imageEvents());
  }
}

/** A venue's WireVenue (made once per venue: its converter has folded every listing since). */
const wired = new WeakMap<Venue, WireVenue>();
export function wireVenueOf(venue: Venue): WireVenue {
  let w = wired.get(venue);
  if (w === undefined) wired.set(venue, (w = new WireVenue(venue)));
  return w;
}
