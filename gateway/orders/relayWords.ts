/**
 * The ABI encoding of the single-order relay calls (`placeOrderSigned`, `replaceOrderSigned`)
 * written out word by word: their arguments are static tuples and 65-byte signatures, so the
 * layout is fixed and needs none of viem's generic walk over the ABI (~20 us of the main
 * thread per order, docs/performance.md "Where an order's microseconds go"). The result is
 * byte for byte what viem's `encodeFunctionData` gives (test/gateway/orders/relayWords.test.ts);
 * an argument this encoder does not take (a value out of its type's range, a signature of
 * another length) returns null and the caller encodes through viem, which names the error.
 */
import type { Hex } from 'viem';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../workers/eip712/types.ts';

const ZEROS = '0'.repeat(64);
const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_UINT128 = (1n << 128n) - 1n;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE_65 = /^0x[0-9a-fA-F]{130}$/;

/** A word of hex digits, left-padded with zeros. */
const word = (hex: string): string => ZEROS.slice(hex.length) + hex;

/** One word of a uint of at most `max`, or null. */
function uintWord(v: bigint, max: bigint): string | null {
  return typeof v !== 'bigint' || v < 0n || v > max ? null : word(v.toString(16));
}

function uint32Word(v: number): string | null {
  return !Number.isInteger(v) || v < 0 || v > 0xffffffff ? null : word(v.toString(16));
}

function bytes32Word(v: string): string | null {
  return typeof v === 'string' && BYTES32.test(v) ? v.slice(2) : null;
}

/** The words of a PlaceOrder tuple (8), or null. */
function placeWords(m: PlaceOrderMessage): string | null {
  const words = [
    bytes32Word(m.seriesId),
    uintWord(m.portfolioId, MAX_UINT256),
    typeof m.isBuy === 'boolean' ? word(m.isBuy ? '1' : '0') : null,
    uint32Word(m.tick),
    uintWord(m.size, MAX_UINT128),
    uint32Word(m.expiry),
    uintWord(m.nonce, MAX_UINT256),
    uintWord(m.deadline, MAX_UINT256),
  ];
  return words.includes(null) ? null : words.join('');
}

/** The words of a CancelOrder tuple (3), or null. */
function cancelWords(m: CancelOrderMessage): string | null {
  const words = [bytes32Word(m.orderId), uintWord(m.nonce, MAX_UINT256), uintWord(m.deadline, MAX_UINT256)];
  return words.includes(null) ? null : words.join('');
}

/** A 65-byte signature's tail: its length word and three words of data (the last padded), or null. */
function signatureTail(signature: string): string | null {
  if (typeof signature !== 'string' || !SIGNATURE_65.test(signature)) return null;
  return `${word('41')}${signature.slice(2)}${ZEROS.slice(2)}`;
}

const offsetWord = (bytes: number): string => word(bytes.toString(16));

/** `placeOrderSigned(order, signature)` calldata after `selector` (0x and 8 hex digits), or null. */
export function placeOrderSignedWords(selector: Hex, order: PlaceOrderMessage, signature: string): Hex | null {
  const o = placeWords(order);
  const s = signatureTail(signature);
  if (o === null || s === null) return null;
  // Head: the tuple's 8 words, then the signature's offset (9 words).
  return `${selector}${o}${offsetWord(9 * 32)}${s}` as Hex;
}

/** `replaceOrderSigned(cancel, cancelSignature, place, placeSignature)` calldata after `selector`, or null. */
export function replaceOrderSignedWords(selector: Hex, cancel: CancelOrderMessage, cancelSignature: string, place: PlaceOrderMessage, placeSignature: string): Hex | null {
  const c = cancelWords(cancel);
  const cs = signatureTail(cancelSignature);
  const p = placeWords(place);
  const ps = signatureTail(placeSignature);
  if (c === null || cs === null || p === null || ps === null) return null;
  // Head: 3 + 1 + 8 + 1 = 13 words; each signature's tail is 4 words.
  const head = 13 * 32;
  return `${selector}${c}${offsetWord(head)}${p}${offsetWord(head + 4 * 32)}${cs}${ps}` as Hex;
}
