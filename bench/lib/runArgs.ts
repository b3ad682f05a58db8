/**
 * bench/run.ts's arguments: benchmark names, each optionally followed by flags for it
 * (`npm run bench -- book --instructions` runs bench/book.ts with `--instructions`).
 */

export type BenchRun = { name: string; args: string[] };

/**
 * Names run in the order given; an argument starting with `-` goes to the benchmark named
 * before it. No names: every available benchmark, with no flags. Throws on an unknown name
 * or on a flag before any name.
 */
export function parseRunArgs(argv: readonly string[], available: readonly string[]): BenchRun[] {
  const runs: BenchRun[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) {
      const last = runs[runs.length - 1];
      if (last === undefined) throw new Error(`flag "${a}" before any benchmark name: flags follow the benchmark they are for (npm run bench -- book ${a})`);
      last.args.push(a);
    } else if (!available.includes(a)) {
      throw new Error(`unknown benchmark "${a}"; available: ${available.join(', ')}`);
    } else runs.push({ name: a, args: [] });
  }
  return runs.length > 0 ? runs : available.map((name) => ({ name, args: [] }));
}
