/**
 * A format-1 engine dump (the engine before issue 19, and the frozen reference engine in
 * test/engine/reference/) as format 2 writes the same engine state, defined here on its own,
 * apart from the engine's migration (engine/snapshot.ts migrateFormat1), from
 * docs/persistence.md "Snapshot formats": the readers' history removed (each series' recent
 * trades and 24-hour window; each wallet's fee totals, fee log, volume per day and trades; the
 * `recentTradesPerSeries` setting), each wallet's `hasTraded` (a non-empty trade list)
 * appended, the format number 2. Keys keep their order: the result is byte for byte what
 * format 2 writes for that state.
 */
import { bytesToHex } from 'viem';
import { keccak256 } from '../../../engine/domain/keccak256.ts';

export function asFormat2(format1: Uint8Array): Uint8Array {
  const d = JSON.parse(new TextDecoder().decode(format1));
  if (d.format !== 1) throw new Error(`not a format-1 dump: format ${d.format}`);
  d.format = 2;
  delete d.config.recentTradesPerSeries;
  for (const s of d.series) {
    delete s.recentTrades;
    delete s.window;
  }
  for (const a of d.accounts) {
    const hasTraded = a.trades.length > 0;
    for (const k of ['fees', 'feeLog', 'volumeDays', 'trades']) delete a[k];
    a.hasTraded = hasTraded;
  }
  return new TextEncoder().encode(JSON.stringify(d));
}

/**
 * A format-1 or format-2 dump as format 3 writes the same state (docs/persistence.md "Snapshot
 * formats"): format 2 first (asFormat2), then each open order's record gains `signed: null`
 * (format 2 kept no signatures) after its last field.
 */
export function asFormat3(dump: Uint8Array): Uint8Array {
  const d = JSON.parse(new TextDecoder().decode(dump));
  const two = d.format === 1 ? JSON.parse(new TextDecoder().decode(asFormat2(dump))) : d;
  if (two.format !== 2) throw new Error(`not a format-1 or format-2 dump: format ${two.format}`);
  two.format = 3;
  for (const s of two.series) for (const r of s.records) r.signed = null;
  return new TextEncoder().encode(JSON.stringify(two));
}

/**
 * The format-2 form of a format-3 dump whose open orders carry no signed fields (`signed: null`
 * everywhere): what format 2 wrote for that state, so that hashes recorded as format 2 gave them
 * (the format-1 fixture's, test/persistence/fixtures/format1/) still check a state today.
 */
export function format2Of(format3: Uint8Array): Uint8Array {
  const d = JSON.parse(new TextDecoder().decode(format3));
  if (d.format !== 3) throw new Error(`not a format-3 dump: format ${d.format}`);
  d.format = 2;
  for (const s of d.series) {
    for (const r of s.records) {
      if (r.signed !== null) throw new Error(`order ${r.orderId} has signed fields: format 2 cannot hold them`);
      delete r.signed;
    }
  }
  return new TextEncoder().encode(JSON.stringify(d));
}

/** The hash format 2 gives a venue's state (format2Of its serialisation). */
export const format2Hash = (bytes: Uint8Array): string => bytesToHex(keccak256(format2Of(bytes)));
