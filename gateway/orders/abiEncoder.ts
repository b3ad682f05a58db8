/**
 * ABI encoding of the order book's relay calls (placeOrderSigned, replaceOrderSigned and
 * the three batch functions), written for their shapes only: static tuples of `bytes32`,
 * `uintN` and `bool` fields, `bytes`, arrays of those tuples and `bytes[]`. The output is
 * the very string viem's `encodeFunctionData` returns for the same ABI and arguments (the
 * tests compare them on seeded random inputs): 32-byte words in lowercase hex, with hex
 * inputs (`bytes32`, `bytes`) copied as given, as viem does. viem's generic encoder walks
 * the ABI and concatenates padded hex strings for every value; on the signed place path it
 * was the largest allocator of an order (about 15 KB) and some 20 µs of main-thread time.
 *
 * Values are range-checked as viem checks them: one viem would refuse throws here too, as
 * does malformed or odd-length hex (a bug in the caller either way: every message reaching
 * a relay reply has passed the parser and the verifier).
 */

type Field = { readonly name: string; readonly type: string };
type AbiParam = { readonly type: string; readonly components?: readonly Field[] };

/** One top-level parameter, resolved once from the ABI. */
type Param =
  | { readonly kind: 'tuple'; readonly fields: readonly FieldWriter[] }
  | { readonly kind: 'tuple[]'; readonly fields: readonly FieldWriter[] }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'bytes[]' };

type FieldWriter = { readonly name: string; readonly word: (value: unknown) => string };

const ZERO_WORD = '0'.repeat(64);
const ONE_WORD = `${'0'.repeat(63)}1`;
const HEX_BODY = /^0x(?:[0-9a-fA-F]{2})*$/;

function uintWord(bits: number): (value: unknown) => string {
  const max = (1n << BigInt(bits)) - 1n;
  return (value) => {
    // viem's encoder takes a number or a bigint for every uint width.
    const v = typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
    if (typeof v !== 'bigint' || v < 0n || v > max) throw new RangeError(`abi: ${String(value)} is not a uint${bits}`);
    return v.toString(16).padStart(64, '0');
  };
}

function bytes32Word(value: unknown): string {
  if (typeof value !== 'string' || value.length !== 66 || !HEX_BODY.test(value)) throw new TypeError(`abi: ${String(value)} is not a bytes32`);
  return value.slice(2);
}

function boolWord(value: unknown): string {
  if (typeof value !== 'boolean') throw new TypeError(`abi: ${String(value)} is not a bool`);
  return value ? ONE_WORD : ZERO_WORD;
}

function fieldWriter(f: Field): FieldWriter {
  const uint = /^uint(\d+)$/.exec(f.type);
  if (uint) return { name: f.name, word: uintWord(Number(uint[1])) };
  if (f.type === 'bytes32') return { name: f.name, word: bytes32Word };
  if (f.type === 'bool') return { name: f.name, word: boolWord };
  throw new Error(`abi: field type ${f.type} (${f.name}) is not supported by this encoder`);
}

function param(p: AbiParam): Param {
  if (p.type === 'bytes') return { kind: 'bytes' };
  if (p.type === 'bytes[]') return { kind: 'bytes[]' };
  if ((p.type === 'tuple' || p.type === 'tuple[]') && p.components !== undefined) return { kind: p.type, fields: p.components.map(fieldWriter) };
  throw new Error(`abi: parameter type ${p.type} is not supported by this encoder`);
}

const lengthWord = (n: number): string => n.toString(16).padStart(64, '0');

function pushTuple(out: string[], fields: readonly FieldWriter[], value: unknown): void {
  if (typeof value !== 'object' || value === null) throw new TypeError('abi: a tuple must be an object');
  const o = value as Readonly<Record<string, unknown>>;
  for (const f of fields) out.push(f.word(o[f.name]));
}

/** `bytes`: its length word, then the data right-padded to whole words. Returns the words written. */
function pushBytes(out: string[], value: unknown): number {
  if (typeof value !== 'string' || !HEX_BODY.test(value)) throw new TypeError('abi: bytes must be 0x-prefixed hex');
  const hex = value.slice(2);
  const words = Math.ceil(hex.length / 64);
  out.push(lengthWord(hex.length / 2));
  if (words > 0) out.push(hex.padEnd(words * 64, '0'));
  return 1 + words;
}

function asArray(value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError('abi: an array parameter must be an array');
  return value;
}

/** The tail of one dynamic parameter (its words), and how many words it took. */
function pushDynamic(out: string[], p: Param, value: unknown): number {
  if (p.kind === 'bytes') return pushBytes(out, value);
  const items = asArray(value);
  out.push(lengthWord(items.length));
  if (p.kind === 'tuple[]') {
    for (const item of items) pushTuple(out, p.fields, item);
    return 1 + items.length * p.fields.length;
  }
  // bytes[]: offsets (from the first offset word) to each element, then the elements.
  const tails: string[] = [];
  let tailWords = 0;
  for (const item of items) {
    out.push(lengthWord((items.length + tailWords) * 32));
    tailWords += pushBytes(tails, item);
  }
  for (const w of tails) out.push(w);
  return 1 + items.length + tailWords;
}

export type CallEncoder = (args: readonly unknown[]) => `0x${string}`;

/**
 * An encoder of calls to `functionName` of `abi` with the given 4-byte `selector` (viem's
 * `prepareEncodeFunctionData(...).functionName`). Throws at once when the function has a
 * parameter this encoder does not support.
 */
export function callEncoder(abi: readonly unknown[], functionName: string, selector: string): CallEncoder {
  const fn = (abi as readonly { type?: string; name?: string; inputs?: readonly AbiParam[] }[]).find((x) => x.type === 'function' && x.name === functionName);
  if (fn?.inputs === undefined) throw new Error(`abi: no function ${functionName}`);
  const params = fn.inputs.map(param);
  const headWords = params.reduce((n, p) => n + (p.kind === 'tuple' ? p.fields.length : 1), 0);
  return (args) => {
    if (args.length !== params.length) throw new RangeError(`abi: ${functionName} takes ${params.length} arguments, got ${args.length}`);
    const head: string[] = [];
    const tail: string[] = [];
    let tailWords = 0;
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      if (p.kind === 'tuple') pushTuple(head, p.fields, args[i]);
      else {
        head.push(lengthWord((headWords + tailWords) * 32));
        tailWords += pushDynamic(tail, p, args[i]);
      }
    }
    return `${selector}${head.join('')}${tail.join('')}` as `0x${string}`;
  };
}
