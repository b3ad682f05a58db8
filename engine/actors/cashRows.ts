/**
 * The portfolios' deposits (COLLATERAL6), one row per portfolio handle: the account actor's
 * (engine/actors/accounts.ts owns one set per venue; never shared between venues, so two
 * engines in one process keep apart).
 *
 * A deposit is an integer in a double while |deposit| <= 2^53 - 1 (engine/risk/exactCash.ts),
 * checked at every change; beyond the bound the row holds NaN and the exact bigint is kept
 * beside it (`wide`, an array by the same handle: a read, not a hash), never a rounded double. Read a deposit exactly with `of`, change it with
 * `add` or `set`; the margin book reads the double row (`deposit[h]`) and falls back to `of`
 * on NaN.
 */
import { MAX_EXACT, exact, exactOf, type Cash } from '../risk/exactCash.ts';
import { grown } from '../risk/exposure.ts';
import { REG, R_DEPOSIT_CHANGE } from '../domain/registers.ts';

const MAX_EXACT_BIG = BigInt(MAX_EXACT);
const MIN_EXACT_BIG = -MAX_EXACT_BIG;

export class CashRows {
  /** The deposit of portfolio handle h in a double (NaN while wide). Replaced when it grows: read it through the rows, never keep it. */
  deposit = new Float64Array(64);
  /** The deposits beyond the doubles' bound, by handle (null within it). */
  private readonly wide: (bigint | null)[] = [];

  /** Room for handle `h` (a new portfolio's row, 0). */
  ensure(h: number): void {
    if (h >= this.deposit.length) this.deposit = grown(this.deposit, h + 1);
    while (this.wide.length <= h) this.wide.push(null);
  }

  /** The deposit, exact; 0 for no portfolio (handle -1: a wallet's portfolio 0 before it exists). */
  of(h: number): bigint {
    if (h < 0) return 0n;
    const n = this.deposit[h]!;
    return n === n ? BigInt(n) : this.wide[h]!;
  }

  /** The wide deposit of handle h, or null while it is held in the double row. */
  wideOf(h: number): bigint | null {
    return this.wide[h] ?? null;
  }

  /** Set the deposit: in the double row when within the bound, else wide. */
  set(h: number, v: bigint): void {
    this.ensure(h);
    const n = exactOf(v);
    this.deposit[h] = n;
    this.wide[h] = exact(n) ? null : v;
  }

  /**
   * Add `amount` (COLLATERAL6, signed) to the deposit, or take it away (`sign` -1: no negated
   * bigint to allocate): one checked sum in doubles, in bigint when the amount or the result is
   * beyond the bound.
   */
  add(h: number, amount: bigint, sign: 1 | -1 = 1): void {
    const d = this.deposit[h]!;
    if (d === d) {
      const sum = d + sign * exactOf(amount);
      if (exact(sum)) {
        this.deposit[h] = sum;
        return;
      }
    }
    const v = sign === 1 ? this.of(h) + amount : this.of(h) - amount;
    // Wide and staying wide (bigint compares only): the bigint as it is, no conversion.
    if (v > MAX_EXACT_BIG || v < MIN_EXACT_BIG) {
      this.deposit[h] = NaN;
      this.wide[h] = v;
    } else this.set(h, v);
  }

  /**
   * `add` of an amount given as Cash (a fill's premium or fee: a double only when it is an exact
   * integer, else a bigint): summed in doubles while the result is exact, no bigint made.
   */
  addCash(h: number, amount: Cash): void {
    if (typeof amount === 'bigint') return this.add(h, amount);
    REG[R_DEPOSIT_CHANGE] = amount;
    this.addCashAt(h, R_DEPOSIT_CHANGE);
  }

  /** `addCash` of the exact integer in register `reg` (domain/registers.ts: the hot path's form, no double passed). */
  addCashAt(h: number, reg: number): void {
    const amount = REG[reg]!;
    const d = this.deposit[h]!;
    const sum = d + amount;
    if (d === d && exact(sum)) this.deposit[h] = sum;
    else this.add(h, BigInt(amount));
  }
}
