/**
 * The readers' history as the engine kept it before issue 19: the frozen reference engine
 * (test/engine/reference/) following a harness's commands. The engine no longer keeps trade
 * lists, fee totals and logs, traded volume, recent trades or 24-hour windows (they are folds
 * of the trade events only); the reference still does, so the folds are checked against what
 * the engine kept, command for command.
 */
import { Venue as ReferenceVenue } from '../../../engine/reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from '../../../engine/reference/engine/config.ts';
import type { VenueState as ReferenceState } from '../../../engine/reference/engine/state.ts';
import type { Harness } from '../../../engine/support/venueFixture.ts';

export type { ReferenceState };

export class HistoryTwin {
  private readonly venue = ReferenceVenue.create(referenceConfig);
  private applied = 0;

  constructor(private readonly h: Harness) {}

  /** The reference's state after every command the harness has run. */
  state(): ReferenceState {
    const log = this.h.log;
    while (this.applied < log.length) this.venue.apply(log[this.applied++] as Parameters<ReferenceVenue['apply']>[0]);
    return this.venue.state;
  }
}
