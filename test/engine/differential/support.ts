/**
 * Issue 3/8's safety net (the shared part of test/engine/differential/*.test.ts): the live engine against the frozen reference copy of the engine as it
 * stood before the account side's rewrite (test/engine/reference/). The same seeded command
 * streams go through both; every result code and value and every event, serialised as the wire
 * serialises them (bigints as decimal strings), must be equal, command for command, and so must
 * the state and the image events at the end. The live engine's events are in its compact form
 * (lots, ticks, cash in doubles); they are compared after the converter (engine/wire.ts
 * `WireEvents`) made them wire events, so these tests are also the converter's proof. The state: the live engine's snapshot bytes
 * equal the reference's (format 1, with the readers' history the engine dropped in issue 19)
 * as format 2 writes that state (test/engine/support/format2.ts), byte for byte.
 *
 * Streams: the read-model sufficiency stream (every command type: orders with instructions,
 * cancels, replaces, MMP, RFQ, a market maker, cash, caps, mass cancels, the dead-man switch,
 * expiries and settlement) over several seeds, and the book benchmark's stream (1,000 funded
 * wallets on one series: the whole-engine hot path).
 */
import type { Test } from 'tap';
import type { Command } from '../../../engine/commands.ts';
import { Venue } from '../../../engine/venue.ts';
import { Venue as ReferenceVenue } from '../reference/engine/venue.ts';
import { defaultVenueConfig as referenceConfig } from '../reference/engine/config.ts';
import { fullBodies } from '../../gateway/readModels/support/fullStream.ts';
import { Harness } from '../support/venueFixture.ts';
import { asFormat3 } from '../support/format2.ts';
import { hashBytes } from '../../../engine/snapshot.ts';
import { WireEvents } from '../../../engine/wire.ts';

/**
 * How many times longer than the suite's default the streams run: `DIFF_SCALE=20 npx tap --timeout 0
 * 'test/engine/differential/*.test.ts'` (each file's own limit grows with it) is the long differential run (docs/book.md);
 * the suite itself runs at 1.
 */
export const DIFF_SCALE = Math.max(1, Math.floor(Number(process.env['DIFF_SCALE'] ?? 1)) || 1);

/**
 * JSON with bigints as decimal strings, as the wire carries them; without what the engine added
 * for the settlement stream when a stream leaves it empty (an order's `signed`, a quote's
 * `signature`, a resolution's `takerFill`, a chain event's `refused`: null) and without the cash
 * commands' `cash` events, which the reference does not know: additions, compared by their own
 * tests (test/engine/settlementFields.test.ts).
 */
export const wire = (x: unknown): string =>
  JSON.stringify(x, function (this: unknown, k: string, v: unknown) {
    if (typeof v === 'bigint') return v.toString();
    if (v === null && (k === 'signed' || k === 'signature' || k === 'takerFill' || k === 'refused')) return undefined;
    if (k === 'events' && Array.isArray(v)) return v.filter((e: { type?: string }) => e?.type !== 'cash');
    return v;
  });

export type Mismatch = { index: number; cmd: string; live: string; reference: string };

/** Applies `cmd` to the reference and compares with the live result already serialised. */
export function compare(reference: ReferenceVenue, cmd: Command, index: number, liveWire: string): Mismatch | null {
  const refWire = wire(reference.apply(cmd as Parameters<ReferenceVenue['apply']>[0]));
  return refWire === liveWire ? null : { index, cmd: wire(cmd), live: liveWire, reference: refWire };
}

/** The live engine's state against the reference's, as format 2 writes it: null when the bytes are equal, else where they first differ. */
export function stateDifference(live: Venue, reference: ReferenceVenue): string | null {
  const mine = new TextDecoder().decode(live.serialize());
  const theirs = new TextDecoder().decode(asFormat3(reference.serialize()));
  if (mine === theirs) return null;
  let i = 0;
  while (mine[i] === theirs[i]) i++;
  return `hash ${hashBytes(new TextEncoder().encode(mine))} vs ${hashBytes(new TextEncoder().encode(theirs))}; first difference at ${i}: live ...${mine.slice(Math.max(0, i - 80), i + 80)}... reference ...${theirs.slice(Math.max(0, i - 80), i + 80)}...`;
}

export function checkEnd(t: Test, live: Venue, reference: ReferenceVenue): void {
  t.equal(stateDifference(live, reference), null, "the same state at the end (snapshot bytes equal to the reference's less its readers' history)");
  // The live image converted by a converter that knows nothing else: it learns the grids from the image itself.
  t.equal(wire(new WireEvents().events(live.imageEvents())), wire(reference.imageEvents()), 'the same image events at the end, in wire form');
}

/** What one seeded full stream did: the first command whose result differs from the reference's (null: none), and the stream's size. */
export type FullStreamRun = { first: Mismatch | null; commands: number; fills: number; refusals: number; reference: ReferenceVenue };

/** One seeded full stream through `h`'s live engine and a fresh reference; every result compared. */
export function runFullStream(h: Harness, seed: number, n: number): FullStreamRun {
  const reference = ReferenceVenue.create(referenceConfig);
  let first: Mismatch | null = null;
  let fills = 0;
  let refusals = 0;
  let index = 0;
  for (const { body, advance } of fullBodies(h, seed, n)) {
    const r = h.run(body, advance);
    if (!r.ok) refusals++;
    for (const e of r.events) if (e.type === 'trade') fills++;
    const m = compare(reference, h.log[h.log.length - 1]!, index++, wire(r));
    if (m !== null && first === null) first = m;
  }
  return { first, commands: index, fills, refusals, reference };
}

/** One seeded full stream through the live engine (`h`'s, a fresh one by default) and the reference; every result compared. */
export function fullStreamDiff(t: Test, seed: number, n: number, h = new Harness()): void {
  const { first, commands, fills, refusals, reference } = runFullStream(h, seed, n);
  t.equal(first, null, 'every command: the same result and events, in wire form');
  t.ok(commands > n && fills > 200 && refusals > 20, `a long stream with fills and refusals (${commands} commands, ${fills} trades, ${refusals} refusals)`);
  checkEnd(t, h.venue, reference);
}
