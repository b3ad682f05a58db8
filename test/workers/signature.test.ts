import t from 'tap';
import { keccak256, parseSignature, serializeCompactSignature, signatureToCompactSignature, toBytes, type Hex } from 'viem';
import { canonicalSignature, parseSignatureInto, SignatureError } from '../../workers/signature.ts';
import { highSTwin, SECP256K1_N, signers, signHash } from './helpers/fixtures.ts';

const [signer] = signers(1);
const hash = keccak256(toBytes('signature rules'));
const sig = signHash(hash, signer!.privateKey);
const r = sig.slice(2, 66);
const s = sig.slice(66, 130);
const v = sig.slice(130);
const hex64 = (n: bigint): string => n.toString(16).padStart(64, '0');

function parse(input: unknown): { code: number; rs: Hex } {
  const out = new Uint8Array(64);
  const code = parseSignatureInto(input, out);
  return { code, rs: `0x${Buffer.from(out).toString('hex')}` };
}

t.test('65-byte signatures: v = 27/28 and 0/1 give the same recovery id and r || s', async (t) => {
  const want = v === '1b' ? 0 : 1;
  t.same(parse(sig), { code: want, rs: `0x${r}${s}` });
  t.equal(parse(`0x${r}${s}${want === 0 ? '00' : '01'}`).code, want);
  t.equal(parse(`0x${r}${s}${v.toUpperCase()}`).code, want, 'hex case of v does not matter');
  t.equal(parse(sig.toUpperCase().replace('0X', '0x')).code, want, 'uppercase hex body');
});

t.test('64-byte EIP-2098 compact signatures are accepted and expand to the 65-byte form', async (t) => {
  const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(sig)));
  t.equal(compact.length, 130);
  t.same(parse(compact), parse(sig));
  t.equal(canonicalSignature(compact), sig);
  t.equal(canonicalSignature(`0x${r}${s}${v === '1b' ? '00' : '01'}`), sig, 'v normalised to 27/28');
});

t.test('malformed signatures are codes, never exceptions', async (t) => {
  const cases: Array<[unknown, number, string]> = [
    [undefined, SignatureError.format, 'undefined'],
    [null, SignatureError.format, 'null'],
    [12, SignatureError.format, 'a number'],
    [toBytes(sig), SignatureError.format, 'bytes instead of hex'],
    ['', SignatureError.format, 'empty'],
    [sig.slice(2), SignatureError.format, 'no 0x'],
    [sig.slice(0, -1), SignatureError.format, '64.5 bytes'],
    [sig.slice(0, -4), SignatureError.format, '63 bytes'],
    [`${sig}00`, SignatureError.format, '66 bytes'],
    [`0x${r}${s.slice(0, 62)}zz${v}`, SignatureError.format, 'non-hex in s'],
    [`0x${r}${s}1d`, SignatureError.v, 'v = 29'],
    [`0x${r}${s}02`, SignatureError.v, 'v = 2'],
    [`0x${r}${s}25`, SignatureError.v, 'v = 37 (EIP-155)'],
    [`0x${r}${s}zz`, SignatureError.format, 'v not hex'],
    [`0x${hex64(0n)}${s}${v}`, SignatureError.r, 'r = 0'],
    [`0x${hex64(SECP256K1_N)}${s}${v}`, SignatureError.r, 'r = n'],
    [`0x${'f'.repeat(64)}${s}${v}`, SignatureError.r, 'r > n'],
    [`0x${r}${hex64(0n)}${v}`, SignatureError.s, 's = 0'],
    [`0x${r}${hex64(SECP256K1_N)}${v}`, SignatureError.s, 's = n'],
    [highSTwin(sig), SignatureError.highS, 'high s (the malleable twin)'],
    [`0x${r}${hex64(SECP256K1_N / 2n + 1n)}${v}`, SignatureError.highS, 's = n/2 + 1'],
  ];
  for (const [input, code, name] of cases) {
    t.equal(parse(input).code, code, name);
    t.equal(canonicalSignature(input), null, `${name}: no canonical form`);
  }
  t.equal(parse(`0x${r}${hex64(SECP256K1_N / 2n)}${v}`).code >= 0, true, 's = n/2 is the largest low s');
});
