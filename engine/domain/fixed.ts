/**
 * Fixed-point money: WAD (18 decimals) for prices, sizes, strikes, Greeks and volatility;
 * COLLATERAL6 (6 decimals) for collateral. Everything here is bigint; floats only cross
 * in `floatToWad` / `wadToFloat`, at the edge of pricing, with explicit rounding.
 */
import { fail, ok, type Parsed } from './result.ts';

export type Wad = bigint;
export type Collateral = bigint;

export const WAD = 10n ** 18n;
export const C6 = 10n ** 6n;
/** WAD / COLLATERAL6: how many WAD units make one collateral unit. */
export const WAD_PER_C6 = 10n ** 12n;

export const UINT32_MAX = 2n ** 32n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;
export const UINT128_MAX = 2n ** 128n - 1n;
export const UINT256_MAX = 2n ** 256n - 1n;
export const INT256_MAX = 2n ** 255n - 1n;
export const INT256_MIN = -(2n ** 255n);

export type Rounding = 'down' | 'up' | 'floor' | 'ceil' | 'half';
export type IntBits = 32 | 64 | 128 | 256;

/**
 * The longest text we look at. uint256 has 78 digits; a few more leave room for leading
 * zeros and a sign, and the cap keeps a hostile 1 MB digit string from reaching BigInt.
 */
const MAX_TEXT = 100;

const INT_RE = /^-?[0-9]+$/;
const HUMAN_RE = /^(-?)([0-9]*)(?:\.([0-9]*))?$/;

/** Inclusive range of a Solidity integer type. */
/** Ranges by width and sign, made once: every integer field of a request is checked against one (bigints allocate). */
const ranges = new Map<number, { readonly min: bigint; readonly max: bigint }>();

export function intRange(bits: IntBits, signed: boolean): { readonly min: bigint; readonly max: bigint } {
  const key = signed ? -bits : bits;
  let r = ranges.get(key);
  if (r === undefined) {
    const b = BigInt(bits);
    r = Object.freeze(signed ? { min: -(1n << (b - 1n)), max: (1n << (b - 1n)) - 1n } : { min: 0n, max: (1n << b) - 1n });
    ranges.set(key, r);
  }
  return r;
}

function typeName(bits: IntBits, signed: boolean): string {
  return `${signed ? 'int' : 'uint'}${bits}`;
}

function shapeMessage(field: string, positive: boolean, signed: boolean): string {
  if (positive) return `${field} must be a positive numeric string`;
  return signed ? `${field} must be a numeric string` : `${field} must be a non-negative numeric string`;
}

/**
 * Parse a wire integer string (a WAD or COLLATERAL6 amount, a nonce, a portfolio id) into
 * a bigint within a Solidity integer type. Accepts decimal digits with an optional leading
 * `-` when signed; leading zeros are tolerated ("007" is 7). A JSON number is accepted only
 * when it is a safe integer, since a larger one has already lost digits in JSON parsing.
 * Refuses: other types, empty or whitespace-padded text, `+`, decimal points, exponents,
 * hex, NaN/Infinity, a sign on an unsigned field, values outside the type.
 */
export function parseIntString(
  text: unknown,
  field: string,
  opts: { bits: IntBits; signed?: boolean; positive?: boolean },
): Parsed<bigint> {
  const signed = opts.signed === true;
  const positive = opts.positive === true;
  if (text === undefined || text === null) return fail(field, `${field} is required`);
  let value: bigint;
  if (typeof text === 'number') {
    if (!Number.isSafeInteger(text)) return fail(field, shapeMessage(field, positive, signed));
    if (!signed && !positive && text < 0) return fail(field, `${field} must not be negative`);
    value = BigInt(text);
  } else if (typeof text === 'string') {
    if (text.length === 0 || text.length > MAX_TEXT || !INT_RE.test(text)) {
      if (text.length > 0 && text.length <= MAX_TEXT && /^-?[0-9]*\.[0-9]*$/.test(text) && /[0-9]/.test(text)) {
        return fail(field, `${field} must be an integer string in fixed point (no decimal point)`);
      }
      return fail(field, shapeMessage(field, positive, signed));
    }
    if (!signed && text.charCodeAt(0) === 45 /* - */) {
      return fail(field, positive ? shapeMessage(field, true, false) : `${field} must not be negative`);
    }
    value = BigInt(text);
  } else {
    return fail(field, shapeMessage(field, positive, signed));
  }
  if (positive && value <= 0n) return fail(field, shapeMessage(field, true, signed));
  const { min, max } = intRange(opts.bits, signed);
  if (value < min || value > max) return fail(field, `${field} is out of range for ${typeName(opts.bits, signed)}`);
  return ok(value);
}

/**
 * Parse a human decimal ("0.05", "1.5", "3550.50") into fixed point with `decimals`
 * decimals. Accepted: digits with at most one `.`, ".5" and "5." included (both sides of
 * the point may be empty, not both); a leading `-` only when signed; leading zeros. A JSON
 * number is read through its shortest JavaScript text, so 0.1 means "0.1" while 1e-7 (an
 * exponent) is refused. Refused: more decimals than `decimals` (never silently rounded),
 * exponents, `+`, whitespace, empty text, values outside the integer type (default 256 bits).
 */
export function parseHuman(
  text: unknown,
  decimals: number,
  field: string,
  opts: { signed?: boolean; positive?: boolean; bits?: 128 | 256 } = {},
): Parsed<bigint> {
  const signed = opts.signed === true;
  const positive = opts.positive === true;
  if (text === undefined || text === null) return fail(field, `${field} is required`);
  let s: string;
  if (typeof text === 'string') s = text;
  else if (typeof text === 'number' && Number.isFinite(text)) s = String(text);
  else return fail(field, `${field} must be a decimal string`);
  const m = s.length <= MAX_TEXT ? HUMAN_RE.exec(s) : null;
  if (m === null) return fail(field, `${field} must be a decimal string`);
  const intPart = m[2] ?? '';
  const fracPart = m[3] ?? '';
  if (intPart.length === 0 && fracPart.length === 0) return fail(field, `${field} must be a decimal string`);
  if (fracPart.length > decimals) return fail(field, `${field} has more than ${decimals} decimal places`);
  const negative = m[1] === '-';
  const magnitude = BigInt((intPart.length === 0 ? '0' : intPart) + fracPart.padEnd(decimals, '0'));
  const value = negative ? -magnitude : magnitude;
  if (positive && value <= 0n) return fail(field, `${field} must be a positive numeric string`);
  if (negative && !signed) return fail(field, `${field} must not be negative`);
  const { min, max } = intRange(opts.bits ?? 256, signed);
  if (value < min || value > max) return fail(field, `${field} is out of range`);
  return ok(value);
}

const POW10: bigint[] = Array.from({ length: 78 }, (_, i) => 10n ** BigInt(i));

/** 10^n as a bigint, for n in 0..77. */
export function pow10(n: number): bigint {
  const p = POW10[n];
  if (p === undefined) throw new RangeError(`pow10: exponent ${n} out of range`);
  return p;
}

/** Fixed point to a human decimal: no trailing zeros, "0" for zero, "-" for negatives. */
export function formatHuman(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = pow10(decimals);
  const int = abs / scale;
  const frac = abs % scale;
  let out = int.toString();
  if (frac !== 0n) out += '.' + frac.toString().padStart(decimals, '0').replace(/0+$/, '');
  return negative ? '-' + out : out;
}

/** A WAD on the wire: its integer string. */
export function formatWad(v: bigint): string {
  return v.toString();
}

/**
 * a * b / d with an explicit rounding of the exact quotient: `down` toward zero, `up` away
 * from zero, `floor` toward -infinity, `ceil` toward +infinity, `half` to nearest with ties
 * away from zero. The product is exact (bigint), so there is no intermediate overflow.
 * Division by zero is a broken invariant and throws.
 */
export function mulDiv(a: bigint, b: bigint, d: bigint, rounding: Rounding): bigint {
  if (d === 0n) throw new RangeError('mulDiv: division by zero');
  const p = a * b;
  const q = p / d;
  const r = p % d;
  if (r === 0n) return q;
  const negative = p < 0n !== d < 0n;
  switch (rounding) {
    case 'down':
      return q;
    case 'up':
      return negative ? q - 1n : q + 1n;
    case 'floor':
      return negative ? q - 1n : q;
    case 'ceil':
      return negative ? q : q + 1n;
    case 'half': {
      const r2 = (r < 0n ? -r : r) * 2n;
      const ad = d < 0n ? -d : d;
      if (r2 >= ad) return negative ? q - 1n : q + 1n;
      return q;
    }
  }
}

/** a * b in WAD, truncated toward zero. */
export function wadMul(a: Wad, b: Wad): Wad {
  return (a * b) / WAD;
}

/** a / b in WAD, truncated toward zero. Throws on b = 0 (broken invariant). */
export function wadDiv(a: Wad, b: Wad): Wad {
  if (b === 0n) throw new RangeError('wadDiv: division by zero');
  return (a * WAD) / b;
}

/** WAD (18 decimals) to COLLATERAL6 (6 decimals) with the caller's rounding. */
export function wadToCollateral(v: Wad, rounding: Rounding): Collateral {
  return mulDiv(v, 1n, WAD_PER_C6, rounding);
}

/** COLLATERAL6 to WAD: exact. */
export function collateralToWad(v: Collateral): Wad {
  return v * WAD_PER_C6;
}

const FLOAT_TEXT_RE = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:e([+-][0-9]+))?$/;

/**
 * The WAD of a double, read through the decimal JavaScript prints for it (its shortest
 * round-trip text) and rounded half away from zero to 18 decimals. So 0.05 gives exactly
 * 5e16 (not the 50000000000000003 of the binary value 0.0500000000000000027...), any value
 * whose shortest text has at most 18 decimals is converted exactly, and for |x| >= 0.1
 * `wadToFloat(floatToWad(x)) === x`. NaN and infinities mean the pricing produced garbage:
 * a broken invariant, thrown.
 */
export function floatToWad(x: number): Wad {
  if (!Number.isFinite(x)) throw new RangeError(`floatToWad: not a finite number (${x})`);
  if (x === 0) return 0n;
  const m = FLOAT_TEXT_RE.exec(String(x));
  if (m === null) throw new RangeError(`floatToWad: unexpected number text ${String(x)}`);
  const frac = m[3] ?? '';
  const digits = BigInt((m[2] ?? '0') + frac);
  const shift = Number(m[4] ?? '0') - frac.length + 18;
  const magnitude = shift >= 0 ? digits * 10n ** BigInt(shift) : mulDiv(digits, 1n, 10n ** BigInt(-shift), 'half');
  return m[1] === '-' ? -magnitude : magnitude;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The double nearest to a WAD. Below 2^53 both the integer and 1e18 are exact doubles and
 * one division rounds once; above, the decimal text is parsed (correctly rounded by JS).
 */
export function wadToFloat(v: Wad): number {
  if (v <= SAFE && v >= -SAFE) return Number(v) / 1e18;
  return Number(formatHuman(v, 18));
}
