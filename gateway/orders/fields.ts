/**
 * Readers of single body fields for order entry and RFQ. Every failure is a returned value
 * naming the field by its full path (`orders[3].size`), so that a batch entry's error says
 * which entry and which field. Integers are accepted as JSON numbers (safe integers only)
 * or decimal strings; money is bigint from here on.
 */
import { type Hex, parseAddress, parseBytes32, parseHuman, parseIntString, type IntBits, fail, ok, type Parsed } from '../../engine/index.ts';
import { parseSignatureInto, signatureErrorMessage, type SignatureErrorCode } from '../../workers/signature.ts';

export type Fields = Readonly<Record<string, unknown>>;

/** `prefix.name`, or `name` at the top level. */
export function fieldPath(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}.${name}`;
}

export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function readObject(value: unknown, field: string): Parsed<Fields> {
  if (value === undefined || value === null) return fail(field, `${field} is required`);
  if (typeof value !== 'object' || Array.isArray(value)) return fail(field, `${field} must be an object`);
  return ok(value as Fields);
}

export function readArray(value: unknown, field: string): Parsed<readonly unknown[]> {
  if (value === undefined || value === null) return fail(field, `${field} is required`);
  if (!Array.isArray(value)) return fail(field, `${field} must be an array`);
  return ok(value);
}

export function readBytes32(o: Fields, name: string, prefix: string): Parsed<Hex> {
  return parseBytes32(o[name], fieldPath(prefix, name));
}

export function readAddress(o: Fields, name: string, prefix: string): Parsed<Hex> {
  return parseAddress(o[name], fieldPath(prefix, name));
}

export function readBool(o: Fields, name: string, prefix: string): Parsed<boolean> {
  const field = fieldPath(prefix, name);
  const v = o[name];
  if (v === undefined || v === null) return fail(field, `${field} is required`);
  if (typeof v !== 'boolean') return fail(field, `${field} must be a boolean`);
  return ok(v);
}

/** An unsigned integer of a Solidity width, as a safe-integer JSON number or a decimal string. */
export function readUint(o: Fields, name: string, prefix: string, bits: IntBits, positive = false): Parsed<bigint> {
  return parseIntString(o[name], fieldPath(prefix, name), { bits, positive });
}

/** Like readUint, absent (undefined or null) allowed. */
export function readOptionalUint(o: Fields, name: string, prefix: string, bits: IntBits): Parsed<bigint | null> {
  return isPresent(o[name]) ? readUint(o, name, prefix, bits) : ok(null);
}

/** A uint32 (tick, expiry) as a JavaScript number, the way viem types it in messages. */
export function readUint32(o: Fields, name: string, prefix: string, positive = false): Parsed<number> {
  const r = parseIntString(o[name], fieldPath(prefix, name), { bits: 32, positive });
  return r.ok ? ok(Number(r.value)) : r;
}

/** A decimal in human units (`"0.05"`) into WAD; more than 18 decimals is refused, never rounded. */
export function readHumanWad(o: Fields, name: string, prefix: string, bits: 128 | 256): Parsed<bigint> {
  return parseHuman(o[name], 18, fieldPath(prefix, name), { positive: true, bits });
}

export type SignatureField = {
  /** As sent (the verifier accepts 65-byte and 64-byte EIP-2098 forms). */
  readonly raw: string;
  /** The 65-byte r || s || v form relay calldata carries. */
  readonly canonical: Hex;
};

const scratch = new Uint8Array(64);

/** A signature the verifier can take: 0x hex of 65 bytes (v 27/28/0/1) or 64 bytes, low s. */
export function readSignature(o: Fields, name: string, prefix: string): Parsed<SignatureField> {
  const field = fieldPath(prefix, name);
  const v = o[name];
  if (v === undefined || v === null) return fail(field, `${field} is required`);
  const recid = parseSignatureInto(v, scratch);
  if (recid < 0) return fail(field, `${field}: ${signatureErrorMessage[recid as SignatureErrorCode].replace(/^signature: /, '')}`);
  // The 65-byte form of workers/signature.ts canonicalSignature, from the bytes just parsed.
  return ok({ raw: v as string, canonical: `0x${Buffer.from(scratch).toString('hex')}${recid === 0 ? '1b' : '1c'}` });
}
