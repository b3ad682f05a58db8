/**
 * Series symbols (interface.md "Symbols"):
 *   canonical ("diffusal"):   UNDERLYING-STRIKE-TYPE-EXPIRY[-SHORT]   BTC-82000-C-1767254400
 *   user-facing ("external"): UNDERLYING-DDMMMYY-STRIKE-TYPE[-SHORT]  BTC-01JAN26-82000-C
 * Parsing is case-insensitive (WebSocket channel names arrive lowercased); every output is
 * uppercase and canonical, so a symbol maps to exactly one text.
 */
import { fail, ok, type Parsed } from './result.ts';
import { WAD, type Wad } from './fixed.ts';
import { EXPIRY_HOUR_UTC, expiryOfDate, isExpiryTime, isValidDate, utcDate } from './expiries.ts';

export type SeriesKey = { underlying: string; strike: Wad; isCall: boolean; expiry: number };
export type SymbolFormat = 'diffusal' | 'external';
export type ParsedSymbol = SeriesKey & { format: SymbolFormat; isShort: boolean };
export type Translation = {
  input: string;
  inputFormat: SymbolFormat;
  output: string;
  outputFormat: SymbolFormat;
  isShort?: boolean;
};

export const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
export const SHORT_SUFFIX = '-SHORT';

/**
 * The user-facing form has a two-digit year, read as 20YY; a canonical expiry must fall in
 * 2000-01-01 .. 2099-12-31 UTC so that the two forms stay a bijection.
 */
export const MIN_EXPIRY = 946_684_800; // 2000-01-01T00:00:00Z
export const MAX_EXPIRY = 4_102_444_799; // 2099-12-31T23:59:59Z
const MAX_SYMBOL_LENGTH = 100;
const MAX_STRIKE_DECIMALS = 18;

const UNDERLYING_RE = /^[A-Z0-9]{1,20}$/;
const STRIKE_RE = /^(0|[1-9][0-9]*)(?:_([0-9]+))?$/;
const EXPIRY_RE = /^[1-9][0-9]{0,11}$/;
const DATE_RE = /^([0-9]{2})([A-Z]{3})([0-9]{2})$/;
const SYMBOL_FIELD = 'symbol';

function invalid(reason: string): { readonly ok: false; readonly error: { field: string; message: string } } {
  return fail(SYMBOL_FIELD, `Invalid symbol format: ${reason}`);
}

/**
 * Strike text: `_` as the decimal separator, trailing zeros stripped, no `_` for whole
 * numbers, a leading zero below 1. 3550.5 -> "3550_5", 0.00001234 -> "0_00001234".
 */
export function formatStrike(strike: Wad): string {
  if (strike < 0n) throw new RangeError('formatStrike: negative strike');
  const int = strike / WAD;
  const frac = strike % WAD;
  if (frac === 0n) return int.toString();
  return `${int}_${frac.toString().padStart(MAX_STRIKE_DECIMALS, '0').replace(/0+$/, '')}`;
}

/**
 * Strike text to WAD. Canonical text always parses; trailing fractional zeros ("3550_50",
 * "3550_0") are tolerated since their value is unambiguous, and outputs re-format them
 * canonically. Refused: leading zeros ("03550"), an empty side of `_`, a `.` separator,
 * more than 18 decimals, zero.
 */
export function parseStrike(text: string): Parsed<Wad> {
  const m = STRIKE_RE.exec(text);
  if (m === null) return fail('strike', 'Invalid strike: expected digits with an optional _ decimal separator, no leading zeros');
  const frac = m[2] ?? '';
  if (frac.length > MAX_STRIKE_DECIMALS) return fail('strike', 'Invalid strike: has more than 18 decimals');
  const value = BigInt(m[1] ?? '0') * WAD + (frac.length > 0 ? BigInt(frac.padEnd(MAX_STRIKE_DECIMALS, '0')) : 0n);
  if (value === 0n) return fail('strike', 'Invalid strike: must be positive');
  return ok(value);
}

function typeLetter(isCall: boolean): 'C' | 'P' {
  return isCall ? 'C' : 'P';
}

/** BTC-82000-C-1767254400, with -SHORT when isShort. */
export function canonicalSymbol(k: SeriesKey & { isShort?: boolean }): string {
  const base = `${k.underlying.toUpperCase()}-${formatStrike(k.strike)}-${typeLetter(k.isCall)}-${k.expiry}`;
  return k.isShort === true ? base + SHORT_SUFFIX : base;
}

/** DDMMMYY of an expiry's UTC date, e.g. 01JAN26. Throws outside 2000..2099 (no 2-digit year). */
export function expiryDateCode(expiry: number): string {
  const d = utcDate(expiry);
  if (d.year < 2000 || d.year > 2099) throw new RangeError(`expiry ${expiry} is outside 2000..2099`);
  const month = MONTHS[d.month - 1];
  return `${String(d.day).padStart(2, '0')}${month}${String(d.year - 2000).padStart(2, '0')}`;
}

/**
 * BTC-01JAN26-82000-C (with -SHORT when isShort). The user-facing form has no time of
 * day: it always means 08:00 UTC, so only pass expiries at 08:00 UTC if the text must
 * translate back to the same series.
 */
export function userSymbol(k: SeriesKey & { isShort?: boolean }): string {
  const base = `${k.underlying.toUpperCase()}-${expiryDateCode(k.expiry)}-${formatStrike(k.strike)}-${typeLetter(k.isCall)}`;
  return k.isShort === true ? base + SHORT_SUFFIX : base;
}

function parseType(text: string): boolean | null {
  if (text === 'C') return true;
  if (text === 'P') return false;
  return null;
}

/**
 * Parse either form, detected by its second part (a DDMMMYY date, else a strike). Input is
 * case-insensitive; the underlying is returned uppercase. `-SHORT` is accepted on both
 * forms. A canonical expiry must be a whole Unix second in 2000..2099 but need not be at
 * 08:00 UTC: parsing is syntax, and whether such a series exists is the venue's question.
 * A user-facing expiry is 08:00 UTC of its date.
 */
export function parseSymbol(text: string): Parsed<ParsedSymbol> {
  if (typeof text !== 'string' || text.length === 0) return invalid('empty');
  if (text.length > MAX_SYMBOL_LENGTH) return invalid('too long');
  const parts = text.toUpperCase().split('-');
  let isShort = false;
  if (parts.length === 5 && parts[4] === 'SHORT') {
    isShort = true;
    parts.pop();
  }
  if (parts.length !== 4) {
    return invalid('expected UNDERLYING-STRIKE-C|P-EXPIRY or UNDERLYING-DDMMMYY-STRIKE-C|P, optionally followed by -SHORT');
  }
  const [underlying, second, third, fourth] = parts as [string, string, string, string];
  if (!UNDERLYING_RE.test(underlying)) return invalid('the underlying must be 1-20 letters or digits');

  const date = DATE_RE.exec(second);
  if (date !== null) {
    const day = Number(date[1]);
    const month = MONTHS.indexOf(date[2] as (typeof MONTHS)[number]) + 1;
    const year = 2000 + Number(date[3]);
    if (month === 0) return invalid(`unknown month ${date[2]}`);
    if (!isValidDate(year, month, day)) return invalid(`no such date ${second}`);
    const strike = parseStrike(third);
    if (!strike.ok) return invalid(strike.error.message.replace('Invalid strike: ', 'strike '));
    const isCall = parseType(fourth);
    if (isCall === null) return invalid('the type must be C or P');
    return ok({ underlying, strike: strike.value, isCall, expiry: expiryOfDate(year, month, day), format: 'external', isShort });
  }

  const strike = parseStrike(second);
  if (!strike.ok) return invalid(strike.error.message.replace('Invalid strike: ', 'strike '));
  const isCall = parseType(third);
  if (isCall === null) return invalid('the type must be C or P');
  if (!EXPIRY_RE.test(fourth)) return invalid('the expiry must be Unix seconds');
  const expiry = Number(fourth);
  if (expiry < MIN_EXPIRY || expiry > MAX_EXPIRY) return invalid('the expiry must fall in the years 2000-2099');
  return ok({ underlying, strike: strike.value, isCall, expiry, format: 'diffusal', isShort });
}

/**
 * Translate between the forms; the direction follows the detected input format. `-SHORT`
 * is kept on the output (so translation is reversible) and reported as `isShort: true`;
 * `isShort` is absent otherwise. A canonical symbol whose expiry is not 08:00 UTC has no
 * user-facing form and is refused rather than silently moved to 08:00.
 */
export function translateSymbol(text: string): Parsed<Translation> {
  const parsed = parseSymbol(text);
  if (!parsed.ok) return parsed;
  const key = parsed.value;
  let output: string;
  let outputFormat: SymbolFormat;
  if (key.format === 'diffusal') {
    if (!isExpiryTime(key.expiry)) return invalid(`the expiry is not at 0${EXPIRY_HOUR_UTC}:00 UTC, so it has no user-facing form`);
    output = userSymbol(key);
    outputFormat = 'external';
  } else {
    output = canonicalSymbol(key);
    outputFormat = 'diffusal';
  }
  const result: Translation = { input: text, inputFormat: key.format, output, outputFormat };
  if (key.isShort) result.isShort = true;
  return ok(result);
}
