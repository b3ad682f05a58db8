/**
 * Cross-check against viem on thousands of seeded random messages: for every kind the
 * digest must equal viem's, the recovered signer must equal the signing account, and
 * (on a sample, viem's recovery being slow) viem's recoverTypedDataAddress /
 * recoverMessageAddress. Then invalid signatures: a null signer, never a throw.
 */
import t from 'tap';
import { recoverMessageAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import {
  cancelOrderTypes,
  fillQuoteTypes,
  placeOrderTypes,
  rfqQuoteTypes,
  type Eip712Domain,
} from '../../workers/eip712/types.ts';
import { signatureErrorMessage, SignatureError } from '../../workers/signature.ts';
import { verifyBatch, type VerifyBatch, type VerifyKind } from '../../workers/verifyBatch.ts';
import { cancelOrder, DOMAINS, fillQuote, highSTwin, placeOrder, random, rfqQuote, signers, signHash, viemDigest, type Random } from './helpers/fixtures.ts';

const PER_KIND = 1000;
const VIEM_SAMPLE_EVERY = 12; // viem's recovery runs ~200/s here
const keys = signers(16);

type Case = { kind: VerifyKind; domain: Eip712Domain | undefined; message: unknown; digest: Hex; key: (typeof keys)[number] };

function makeCases(kind: VerifyKind, r: Random, n: number): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < n; i++) {
    const key = keys[r.int(keys.length)]!;
    switch (kind) {
      case 'place': { const m = placeOrder(r); out.push({ kind, domain: DOMAINS.orderBook, message: m, digest: viemDigest.place(DOMAINS.orderBook, m), key }); break; }
      case 'cancel': { const m = cancelOrder(r); out.push({ kind, domain: DOMAINS.orderBook, message: m, digest: viemDigest.cancel(DOMAINS.orderBook, m), key }); break; }
      case 'quote': { const m = rfqQuote(r); out.push({ kind, domain: DOMAINS.rfq, message: m, digest: viemDigest.quote(DOMAINS.rfq, m), key }); break; }
      case 'fill': { const m = fillQuote(r); out.push({ kind, domain: DOMAINS.rfq, message: m, digest: viemDigest.fill(DOMAINS.rfq, m), key }); break; }
      case 'personal': { const m = r.text(); out.push({ kind, domain: undefined, message: m, digest: viemDigest.personal(m), key }); break; }
    }
  }
  return out;
}

const TYPES = {
  place: { types: placeOrderTypes, primaryType: 'PlaceOrder' },
  cancel: { types: cancelOrderTypes, primaryType: 'CancelOrder' },
  quote: { types: rfqQuoteTypes, primaryType: 'RfqQuote' },
  fill: { types: fillQuoteTypes, primaryType: 'FillQuote' },
} as const;

/** viem's answer for a signature, or null when viem refuses it. */
async function viemRecover(c: Case, signature: Hex): Promise<Address | null> {
  try {
    if (c.kind === 'personal') return await recoverMessageAddress({ message: c.message as string, signature });
    const { types, primaryType } = TYPES[c.kind];
    return await recoverTypedDataAddress({ domain: c.domain!, types, primaryType, message: c.message, signature } as never);
  } catch {
    return null;
  }
}

function batchOf(kind: VerifyKind, domain: Eip712Domain | undefined, items: Array<{ message: unknown; signature: unknown }>): VerifyBatch {
  return { kind, domain, items } as unknown as VerifyBatch;
}

const kinds: VerifyKind[] = ['place', 'cancel', 'quote', 'fill', 'personal'];
for (const [k, kind] of kinds.entries()) {
  t.test(`${kind}: ${PER_KIND} random signed messages match viem`, async (t) => {
    const cases = makeCases(kind, random(100 + k), PER_KIND);
    const signatures = cases.map((c) => signHash(c.digest, c.key.privateKey));
    const results = verifyBatch(batchOf(kind, cases[0]!.domain, cases.map((c, i) => ({ message: c.message, signature: signatures[i] }))));
    t.equal(results.length, cases.length);
    let badDigest = 0;
    let badSigner = 0;
    for (const [i, c] of cases.entries()) {
      if (results[i]!.digest !== c.digest) badDigest++;
      if (results[i]!.signer !== c.key.address || results[i]!.error !== undefined) badSigner++;
    }
    t.equal(badDigest, 0, 'digest = viem hashTypedData / hashMessage');
    t.equal(badSigner, 0, 'signer = the signing account');
    let badViem = 0;
    for (let i = 0; i < cases.length; i += VIEM_SAMPLE_EVERY) {
      if ((await viemRecover(cases[i]!, signatures[i]!)) !== results[i]!.signer) badViem++;
    }
    t.equal(badViem, 0, `signer = viem's recovery on ${Math.ceil(PER_KIND / VIEM_SAMPLE_EVERY)} samples`);
  });
}

t.test('invalid signatures give a null signer with a reason, never a throw', async (t) => {
  const r = random(200);
  const cases = makeCases('place', r, 120);
  const good = cases.map((c) => signHash(c.digest, c.key.privateKey));
  const mutated: Hex[] = good.map((sig, i) => {
    const chars = sig.split('');
    const pos = 2 + (i % 130); // flip one hex digit of r, s or v
    chars[pos] = ((Number.parseInt(chars[pos]!, 16) ^ (1 + (i % 15))) & 0xf).toString(16);
    return chars.join('') as Hex;
  });
  const results = verifyBatch(batchOf('place', DOMAINS.orderBook, cases.map((c, i) => ({ message: c.message, signature: mutated[i] }))));
  let agreed = 0;
  for (const [i, c] of cases.entries()) {
    const res = results[i]!;
    t.not(res.signer, c.key.address, `flipped digit ${i}: not the signer`);
    t.equal(res.digest, c.digest, 'the digest is still reported');
    if (res.signer === null) t.type(res.error, 'string');
    // Where we return an address it is the one viem recovers; we also refuse what viem accepts with high s.
    if (res.error !== signatureErrorMessage[SignatureError.highS]) {
      t.equal(res.signer, await viemRecover(c, mutated[i]!), `flipped digit ${i}: same answer as viem`);
      agreed++;
    }
  }
  t.ok(agreed > 50, 'most mutations compared with viem');

  const c = cases[0]!;
  const sig = good[0]!;
  const bad: Array<[unknown, string]> = [
    [sig.slice(0, -4), 'wrong length (63 bytes)'],
    [`${sig}00`, 'wrong length (66 bytes)'],
    [`${sig.slice(0, -2)}1d`, 'bad v'],
    [`${sig.slice(0, -2)}25`, 'EIP-155 v'],
    [highSTwin(sig), 'high s'],
    [`0x${'00'.repeat(32)}${sig.slice(66)}`, 'r = 0'],
    [undefined, 'missing'],
    [42, 'not a string'],
  ];
  const res = verifyBatch(batchOf('place', DOMAINS.orderBook, bad.map(([signature]) => ({ message: c.message, signature }))));
  for (const [i, [, name]] of bad.entries()) t.equal(res[i]!.signer, null, name);
  t.equal(await viemRecover(c, highSTwin(sig)), c.key.address, 'viem accepts the malleable twin; we do not');
  t.equal(res[4]!.error, signatureErrorMessage[SignatureError.highS]);
  // A 65-byte signature cut to 64 bytes reads as EIP-2098 compact with yParity 0: the same
  // signature when v was 27 (so the signer, as viem agrees), another one when v was 28.
  const cut = sig.slice(0, -2);
  const [asCompact] = verifyBatch(batchOf('place', DOMAINS.orderBook, [{ message: c.message, signature: cut }]));
  t.equal(asCompact!.signer, sig.endsWith('1b') ? c.key.address : await viemRecover(c, cut as Hex));
});

t.test('one malformed item does not affect the others in its batch', async (t) => {
  const r = random(300);
  const [a, b] = makeCases('place', r, 2);
  const sigA = signHash(a!.digest, a!.key.privateKey);
  const results = verifyBatch(
    batchOf('place', DOMAINS.orderBook, [
      { message: a!.message, signature: sigA },
      { message: { ...(b!.message as object), tick: 2 ** 32 }, signature: sigA },
      { message: null, signature: sigA },
      null as never,
      { message: a!.message, signature: sigA },
    ]),
  );
  t.same(results[0], { digest: a!.digest, signer: a!.key.address });
  t.same(results[1], { digest: null, signer: null, error: 'tick: expected uint32' });
  t.same(results[2], { digest: null, signer: null, error: 'message: expected an object' });
  t.equal(results[3]!.signer, null);
  t.same(results[4], results[0]);
  t.same(verifyBatch({ kind: 'personal', items: [{ message: 5 as never, signature: sigA }] }), [{ digest: null, signer: null, error: 'message: expected a string' }]);
});

t.test('a malformed batch is the caller bug it is: it throws', async (t) => {
  t.throws(() => verifyBatch({ kind: 'place', items: [] } as never), TypeError);
  t.throws(() => verifyBatch({ kind: 'nope', items: [] } as never), TypeError);
  t.same(verifyBatch({ kind: 'fill', domain: DOMAINS.rfq, items: [] }), []);
});
