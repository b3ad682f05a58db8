/**
 * Hex identifiers at the edge: bytes32 ids (seriesId, pairId, orderId) and addresses.
 * Input is case-insensitive; output is canonical (lowercase bytes32, EIP-55 addresses) so
 * that ids compare as strings everywhere inside the engine.
 */
import { getAddress } from 'viem';
import { fail, ok, type Parsed } from './result.ts';

export type Hex = `0x${string}`;
export type Address = Hex;

export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';
export const ZERO_BYTES32: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000';

const HEX_RE = /^0[xX][0-9a-fA-F]*$/;
const BYTES32_RE = /^0[xX][0-9a-fA-F]{64}$/;
const ADDRESS_RE = /^0[xX][0-9a-fA-F]{40}$/;

/** `0x` (or `0X`) followed by any number of hex digits, `0x` alone included. */
export function isHex(text: unknown): text is Hex {
  return typeof text === 'string' && HEX_RE.test(text);
}

/**
 * A bytes32 id: `0x` + exactly 64 hex digits, any case (the `0X` prefix too); returned in
 * lowercase. Not hex at all -> "`field` must be a hex string"; hex of the wrong length ->
 * "`field` must be a valid bytes32 hex".
 */
export function parseBytes32(text: unknown, field: string): Parsed<Hex> {
  if (text === undefined || text === null || text === '') return fail(field, `${field} is required`);
  if (typeof text !== 'string' || !HEX_RE.test(text)) return fail(field, `${field} must be a hex string`);
  if (!BYTES32_RE.test(text)) return fail(field, `${field} must be a valid bytes32 hex (0x followed by 64 hex characters)`);
  return ok(('0x' + text.slice(2).toLowerCase()) as Hex);
}

/** Fields whose error is the interface's own wording, "Invalid wallet address". */
const WALLET_FIELDS = new Set(['walletAddress', 'address', 'wallet']);

/**
 * An address: `0x` + 40 hex digits in any case; returned EIP-55 checksummed. A mixed-case
 * input whose checksum is wrong is accepted like any other case (input is case-insensitive
 * by decision: clients differ in what they send, and the output is always checksummed).
 */
export function parseAddress(text: unknown, field: string): Parsed<Address> {
  if (text === undefined || text === null || text === '') return fail(field, `${field} is required`);
  if (typeof text !== 'string' || !ADDRESS_RE.test(text)) {
    return fail(field, WALLET_FIELDS.has(field) ? 'Invalid wallet address' : `Invalid ${field} address`);
  }
  return ok(getAddress(('0x' + text.slice(2).toLowerCase()) as Hex));
}
