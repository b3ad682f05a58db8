import t from 'tap';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createMicroBatcher, type SingleVerifyRequest } from '../../workers/microBatcher.ts';
import { createInlineVerifier, type SignatureVerifier, type VerifierStats } from '../../workers/signatureVerifier.ts';
import type { VerifyBatch, VerifyResult } from '../../workers/verifyBatch.ts';
import { DOMAINS, placeOrder, random, signers, signHash, viemDigest } from './helpers/fixtures.ts';
import { orderBookDomain } from '../../workers/eip712/types.ts';

/** A verifier that records the batches it gets and answers each item with its index in the batch. */
function recorder(fail = false): SignatureVerifier & { batches: VerifyBatch[] } {
  const batches: VerifyBatch[] = [];
  return {
    batches,
    async verify(batch) {
      batches.push(batch);
      if (fail) throw new Error('worker died');
      return batch.items.map((item, i): VerifyResult => ({ digest: `0x${i}`, signer: item.signature as `0x${string}` }));
    },
    stats: () => ({}) as VerifierStats,
    close: async () => {},
  };
}

const r = random(500);
const place = (signature: string): SingleVerifyRequest => ({ kind: 'place', domain: DOMAINS.orderBook, message: placeOrder(r), signature });

t.test('requests of one turn go out as one batch, each caller gets its own result', async (t) => {
  const v = recorder();
  const batcher = createMicroBatcher(v);
  const pending = Array.from({ length: 10 }, (_, i) => batcher.verify(place(`s${i}`)));
  t.equal(v.batches.length, 0, 'nothing sent before the end of the turn');
  t.equal(batcher.stats().pendingItems, 10);
  const results = await Promise.all(pending);
  t.equal(v.batches.length, 1);
  t.equal(v.batches[0]!.items.length, 10);
  t.same(results.map((x) => x.signer), Array.from({ length: 10 }, (_, i) => `s${i}`));
  t.same(batcher.stats(), { batches: 1, batchedItems: 10, pendingItems: 0, largestBatch: 10 });
});

t.test('kinds and domains are batched apart', async (t) => {
  const v = recorder();
  const batcher = createMicroBatcher(v);
  const other = orderBookDomain('Other', 1, '0x0000000000000000000000000000000000000002');
  await Promise.all([
    batcher.verify(place('a')),
    batcher.verify({ kind: 'personal', message: 'hi', signature: 'b' }),
    batcher.verify({ ...place('c'), domain: other } as SingleVerifyRequest),
    batcher.verify(place('d')),
    batcher.verify({ kind: 'personal', message: 'yo', signature: 'e' }),
    // Same domain spelled with another address case: same separator, same batch.
    batcher.verify({ ...place('f'), domain: { ...DOMAINS.orderBook, verifyingContract: DOMAINS.orderBook.verifyingContract.toLowerCase() as `0x${string}` } } as SingleVerifyRequest),
  ]);
  const shapes = v.batches.map((b) => `${b.kind}:${b.domain?.name ?? '-'}:${b.items.map((i) => i.signature).join('')}`).sort();
  t.same(shapes, ['personal:-:be', 'place:DiffusalOptionsOrderBook:adf', 'place:OtherOptionsOrderBook:c']);
});

t.test('a full batch goes at once; later turns make new batches', async (t) => {
  const v = recorder();
  const batcher = createMicroBatcher(v, { maxBatch: 4 });
  const first = Array.from({ length: 10 }, (_, i) => batcher.verify(place(`x${i}`)));
  t.same(v.batches.map((b) => b.items.length), [4, 4], 'two full batches sent synchronously');
  await Promise.all(first);
  t.same(v.batches.map((b) => b.items.length), [4, 4, 2]);
  await nextTurn();
  await batcher.verify(place('y'));
  t.same(v.batches.map((b) => b.items.length), [4, 4, 2, 1]);
  t.equal(batcher.stats().largestBatch, 4);
});

t.test('flush sends at once; a failed batch rejects each of its callers', async (t) => {
  const v = recorder(true);
  const batcher = createMicroBatcher(v);
  const a = batcher.verify(place('a'));
  const b = batcher.verify(place('b'));
  batcher.flush();
  t.equal(v.batches.length, 1);
  await Promise.all([t.rejects(a, /worker died/), t.rejects(b, /worker died/)]);
});

t.test('a verifier that throws synchronously rejects its callers too', async (t) => {
  const v: SignatureVerifier = {
    verify: () => {
      throw new Error('sync boom');
    },
    stats: () => ({}) as VerifierStats,
    close: async () => {},
  };
  const batcher = createMicroBatcher(v);
  await Promise.all([t.rejects(batcher.verify(place('a')), /sync boom/), t.rejects(batcher.verify(place('b')), /sync boom/)]);
});

t.test('with the real verifier: signers and orderIds per request', async (t) => {
  const keys = signers(3);
  const batcher = createMicroBatcher(createInlineVerifier());
  const messages = Array.from({ length: 30 }, () => placeOrder(r));
  const results = await Promise.all(
    messages.map((message, i) =>
      batcher.verify({ kind: 'place', domain: DOMAINS.orderBook, message, signature: signHash(viemDigest.place(DOMAINS.orderBook, message), keys[i % 3]!.privateKey) }),
    ),
  );
  for (const [i, res] of results.entries()) {
    t.equal(res.signer, keys[i % 3]!.address);
    t.equal(res.digest, viemDigest.place(DOMAINS.orderBook, messages[i]!));
  }
  t.equal(batcher.stats().batches, 1);
});
