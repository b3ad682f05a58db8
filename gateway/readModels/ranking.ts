/**
 * A ranking of wallets by one value, sorted when it is set (on the clock, readModels/activity.ts)
 * and never at request time: value descending, ties by address ascending. Ranks start at 1.
 */
export type RankingState = [string, bigint][];

/** Addresses compare case-insensitively (a checksummed address mixes cases). */
function byAddress(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

export class Ranking {
  private entries: RankingState = [];
  private readonly index = new Map<string, number>();

  /** Replace the ranking with `entries` (any order). */
  set(entries: RankingState): void {
    entries.sort((a, b) => (a[1] === b[1] ? byAddress(a[0], b[0]) : a[1] > b[1] ? -1 : 1));
    this.entries = entries;
    this.index.clear();
    for (let i = 0; i < entries.length; i++) this.index.set(entries[i]![0], i);
  }

  get size(): number {
    return this.entries.length;
  }

  addressAt(i: number): string {
    return this.entries[i]![0];
  }

  /** 1-based rank, null when the wallet is not ranked. */
  rankOf(address: string): number | null {
    const i = this.index.get(address);
    return i === undefined ? null : i + 1;
  }

  valueOf(address: string): bigint | null {
    const i = this.index.get(address);
    return i === undefined ? null : this.entries[i]![1];
  }

  /** Entries from 0-based `offset`, at most `limit`. */
  page(offset: number, limit: number): readonly (readonly [string, bigint])[] {
    return this.entries.slice(offset, offset + limit);
  }

  exportState(): RankingState {
    return this.entries;
  }

  importState(s: RankingState): void {
    this.set(s.map(([a, v]) => [a, v]));
  }
}
