/**
 * Order bodies, parsed: every place, cancel and replace entry is either unsigned (phase one:
 * the server fills in the signed fields) or signed (phase two: exactly the EIP-712 message
 * plus its signature). A signed entry is recognised by its `signature` field, so a client
 * that already knows the typed data may post it directly and skip phase one.
 *
 * Only the shape is checked here (types, ranges, presence); whether the venue accepts the
 * values is the engine's pre-check's job (entryChecks.ts, engine/precheck.ts).
 */
import { ok, type Hex, type OrderInstructions, type Parsed } from '../../engine/index.ts';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../workers/eip712/types.ts';
import { readInstructions } from './instructionFields.ts';
import {
  fieldPath,
  isPresent,
  readArray,
  readBool,
  readBytes32,
  readHumanWad,
  readObject,
  readOptionalUint,
  readSignature,
  readUint,
  readUint32,
  type Fields,
  type SignatureField,
} from './fields.ts';

export type UnsignedPlace = {
  readonly signed: false;
  readonly path: string;
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  /** WAD, from human units */
  readonly size: bigint;
  /** WAD, from human units; must be a whole number of ticks */
  readonly price: bigint;
  /** null: not given (MMM wallets default to 0) */
  readonly portfolioId: bigint | null;
  /** good-till, Unix seconds; null: the series' expiry */
  readonly expiry: number | null;
  /** Unix seconds; null: now + 5 minutes */
  readonly deadline: bigint | null;
  /** Beside the signed struct (instructionFields.ts). */
  readonly instructions: OrderInstructions;
};

export type SignedPlace = { readonly signed: true; readonly path: string; readonly message: PlaceOrderMessage; readonly signature: SignatureField; readonly instructions: OrderInstructions };
export type PlaceEntry = UnsignedPlace | SignedPlace;

export type UnsignedCancel = { readonly signed: false; readonly path: string; readonly orderId: Hex; readonly nonce: bigint | null; readonly deadline: bigint | null };
export type SignedCancel = { readonly signed: true; readonly path: string; readonly message: CancelOrderMessage; readonly signature: SignatureField };
export type CancelEntry = UnsignedCancel | SignedCancel;

export type ReplaceEntry =
  | { readonly signed: false; readonly cancel: UnsignedCancel; readonly place: UnsignedPlace }
  | { readonly signed: true; readonly cancel: SignedCancel; readonly place: SignedPlace };

/** Why a body was refused: the field, and a reason for the mode errors (partial signatures, mixed batches). */
export type EntryError = { readonly field: string; readonly message: string; readonly reason?: string };

export type EntryResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: EntryError };

const MAX_BATCH = 50;

function err(field: string, message: string, reason?: string): { ok: false; error: EntryError } {
  return { ok: false, error: reason === undefined ? { field, message } : { field, message, reason } };
}

function hasSignature(o: Fields): boolean {
  return isPresent(o['signature']);
}

export function parsePlace(value: unknown, path: string): Parsed<PlaceEntry> {
  const obj = readObject(value, path === '' ? 'body' : path);
  if (!obj.ok) return obj;
  const o = obj.value;
  const seriesId = readBytes32(o, 'seriesId', path);
  if (!seriesId.ok) return seriesId;
  const instructions = readInstructions(o, path);
  if (!instructions.ok) return instructions;
  if (!hasSignature(o)) {
    const isBuy = readBool(o, 'isBuy', path);
    if (!isBuy.ok) return isBuy;
    const size = readHumanWad(o, 'size', path, 128);
    if (!size.ok) return size;
    const price = readHumanWad(o, 'price', path, 256);
    if (!price.ok) return price;
    const portfolioId = readOptionalUint(o, 'portfolioId', path, 256);
    if (!portfolioId.ok) return portfolioId;
    const expiry = isPresent(o['expiry']) ? readUint32(o, 'expiry', path, true) : ok(null);
    if (!expiry.ok) return expiry;
    const deadline = readOptionalUint(o, 'deadline', path, 256);
    if (!deadline.ok) return deadline;
    return ok({ signed: false, path, seriesId: seriesId.value, isBuy: isBuy.value, size: size.value, price: price.value, portfolioId: portfolioId.value, expiry: expiry.value, deadline: deadline.value, instructions: instructions.value });
  }
  const portfolioId = readUint(o, 'portfolioId', path, 256);
  if (!portfolioId.ok) return portfolioId;
  const isBuy = readBool(o, 'isBuy', path);
  if (!isBuy.ok) return isBuy;
  const tick = readUint32(o, 'tick', path);
  if (!tick.ok) return tick;
  const size = readUint(o, 'size', path, 128, true);
  if (!size.ok) return size;
  const expiry = readUint32(o, 'expiry', path);
  if (!expiry.ok) return expiry;
  const nonce = readUint(o, 'nonce', path, 256);
  if (!nonce.ok) return nonce;
  const deadline = readUint(o, 'deadline', path, 256);
  if (!deadline.ok) return deadline;
  const signature = readSignature(o, 'signature', path);
  if (!signature.ok) return signature;
  const message: PlaceOrderMessage = {
    seriesId: seriesId.value,
    portfolioId: portfolioId.value,
    isBuy: isBuy.value,
    tick: tick.value,
    size: size.value,
    expiry: expiry.value,
    nonce: nonce.value,
    deadline: deadline.value,
  };
  return ok({ signed: true, path, message, signature: signature.value, instructions: instructions.value });
}

export function parseCancel(value: unknown, path: string): Parsed<CancelEntry> {
  const obj = readObject(value, path);
  if (!obj.ok) return obj;
  const o = obj.value;
  const orderId = readBytes32(o, 'orderId', path);
  if (!orderId.ok) return orderId;
  if (!hasSignature(o)) {
    const nonce = readOptionalUint(o, 'nonce', path, 256);
    if (!nonce.ok) return nonce;
    const deadline = readOptionalUint(o, 'deadline', path, 256);
    if (!deadline.ok) return deadline;
    return ok({ signed: false, path, orderId: orderId.value, nonce: nonce.value, deadline: deadline.value });
  }
  const nonce = readUint(o, 'nonce', path, 256);
  if (!nonce.ok) return nonce;
  const deadline = readUint(o, 'deadline', path, 256);
  if (!deadline.ok) return deadline;
  const signature = readSignature(o, 'signature', path);
  if (!signature.ok) return signature;
  return ok({ signed: true, path, message: { orderId: orderId.value, nonce: nonce.value, deadline: deadline.value }, signature: signature.value });
}

/** `{ cancel, place }`: both signed or neither (interface rule 3). */
export function parseReplace(value: unknown, path: string): EntryResult<ReplaceEntry> {
  const obj = readObject(value, path === '' ? 'body' : path);
  if (!obj.ok) return obj;
  const cancelPath = fieldPath(path, 'cancel');
  const placePath = fieldPath(path, 'place');
  const c = readObject(obj.value['cancel'], cancelPath);
  if (!c.ok) return c;
  const p = readObject(obj.value['place'], placePath);
  if (!p.ok) return p;
  if (hasSignature(c.value) !== hasSignature(p.value)) {
    const missing = hasSignature(c.value) ? placePath : cancelPath;
    return err(`${missing}.signature`, `a replacement needs both signatures (${cancelPath}.signature and ${placePath}.signature) or neither`, 'partial_signatures');
  }
  const cancel = parseCancel(c.value, cancelPath);
  if (!cancel.ok) return cancel;
  const place = parsePlace(p.value, placePath);
  if (!place.ok) return place;
  if (cancel.value.signed && place.value.signed) return ok({ signed: true, cancel: cancel.value, place: place.value });
  if (!cancel.value.signed && !place.value.signed) return ok({ signed: false, cancel: cancel.value, place: place.value });
  return err(placePath, 'a replacement needs both signatures or neither', 'partial_signatures');
}

/**
 * A batch: 1 to 50 entries, uniformly signed or uniformly unsigned (interface rule 4).
 * The mode check runs before any entry is parsed in depth, so a mixed batch is named as such.
 */
export function parseBatch<T extends { readonly signed: boolean }>(
  value: unknown,
  field: string,
  entrySigned: (entry: unknown) => boolean | 'partial',
  parse: (entry: unknown, path: string) => EntryResult<T>,
): EntryResult<{ readonly signed: boolean; readonly entries: readonly T[] }> {
  const arr = readArray(value, field);
  if (!arr.ok) return arr;
  const list = arr.value;
  if (list.length === 0) return err(field, `${field} must not be empty`, 'batch_empty');
  if (list.length > MAX_BATCH) return err(field, `${field} has ${list.length} entries; at most ${MAX_BATCH} are allowed in one batch`, 'batch_too_large');
  let signed: boolean | null = null;
  for (let i = 0; i < list.length; i++) {
    const mode = entrySigned(list[i]);
    if (mode === 'partial') {
      // The entry's own parser names the missing signature precisely.
      const r = parse(list[i], `${field}[${i}]`);
      return r.ok ? err(`${field}[${i}]`, 'partially signed entry', 'partial_signatures') : r;
    }
    if (signed === null) signed = mode;
    else if (signed !== mode) {
      return err(`${field}[${i}].signature`, `mixed batch: every entry of ${field} must carry its signatures, or none may (entry ${i} differs from entry 0)`, 'mixed_batch');
    }
  }
  const entries: T[] = [];
  for (let i = 0; i < list.length; i++) {
    const r = parse(list[i], `${field}[${i}]`);
    if (!r.ok) return r;
    entries.push(r.value);
  }
  return ok({ signed: signed === true, entries });
}

/** Whether a raw place or cancel entry carries a signature (non-objects count as unsigned; parsing reports them). */
export function rawSigned(entry: unknown): boolean {
  return entry !== null && typeof entry === 'object' && hasSignature(entry as Fields);
}

/** A raw replacement: signed, unsigned, or partially signed. */
export function rawReplaceSigned(entry: unknown): boolean | 'partial' {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Fields;
  const c = rawSigned(e['cancel']);
  const p = rawSigned(e['place']);
  return c === p ? c : 'partial';
}
