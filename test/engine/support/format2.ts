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
