import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hashTypedData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  cancelOrderDigestHex,
  domainSeparator,
  fillQuoteDigestHex,
  personalMessageDigestHex,
  placeOrderDigestHex,
  rfqQuoteDigestHex,
} from '../../workers/eip712/digest.ts';
import { placeOrderTypes } from '../../workers/eip712/types.ts';
import { createInlineVerifier, createPoolVerifier } from '../../workers/signatureVerifier.ts';
import type { VerifyBatch } from '../../workers/verifyBatch.ts';
import { DIGEST, DOMAIN, MESSAGE, PRIVATE_KEY, SIGNATURE, SIGNER } from './fixtures/signedPlaceOrder.ts';
import { cancelOrder, DOMAINS, fillQuote, highSTwin, placeOrder, random, rfqQuote, signers, signHash } from './helpers/fixtures.ts';

const keys = signers(8);
const r = random(400);

/** n signed items, every 7th with a broken signature and every 11th high-s. */
function items<M>(n: number, make: () => M, digest: (m: M) => Hex): Array<{ message: M; signature: string }> {
  const out: Array<{ message: M; signature: string }> = [];
  for (let i = 0; i < n; i++) {
    const message = make();
    let signature: string = signHash(digest(message), keys[i % keys.length]!.privateKey);
    if (i % 7 === 3) signature = `${signature.slice(0, 40)}${signature[40] === '0' ? '1' : '0'}${signature.slice(41)}`;
    if (i % 11 === 5) signature = highSTwin(signature as Hex);
    out.push({ message, signature });
  }
  return out;
}

// Signed over our own digests (test/workers/verifyBatch.test.ts checks them against viem):
// here only pool = inline matters, and viem's hashing would dominate the file's run time.
const ob = domainSeparator(DOMAINS.orderBook);
const rfq = domainSeparator(DOMAINS.rfq);
const batches: VerifyBatch[] = [
  { kind: 'place', domain: DOMAINS.orderBook, items: items(700, () => placeOrder(r), (m) => placeOrderDigestHex(ob, m)) },
  { kind: 'cancel', domain: DOMAINS.orderBook, items: items(100, () => cancelOrder(r), (m) => cancelOrderDigestHex(ob, m)) },
  { kind: 'quote', domain: DOMAINS.rfq, items: items(100, () => rfqQuote(r), (m) => rfqQuoteDigestHex(rfq, m)) },
  { kind: 'fill', domain: DOMAINS.rfq, items: items(100, () => fillQuote(r), (m) => fillQuoteDigestHex(rfq, m)) },
  { kind: 'personal', items: items(100, () => r.text(), personalMessageDigestHex) },
  { kind: 'place', domain: DOMAINS.orderBook, items: [] },
];

// One pool for the file: starting workers (tsx included) is the slow part of these tests.
const pool = createPoolVerifier({ threads: 2 });
t.teardown(() => pool.close());

t.test('the pool gives exactly the inline results, in order, for every kind', async (t) => {
  const inline = createInlineVerifier();
  const expected = await Promise.all(batches.map((b) => inline.verify(b)));
  // All batches in flight at once: the 700-item one is split over both threads.
  const got = await Promise.all(batches.map((b) => pool.verify(b)));
  for (const [i, b] of batches.entries()) t.same(got[i], expected[i], `${b.kind} x ${b.items.length}`);
  const placeResults = expected[0]!;
  t.ok(placeResults.filter((x) => x.signer !== null).length > 500, 'most signatures valid');
  t.ok(placeResults.some((x) => x.signer === null), 'and some invalid, compared too');

  const total = batches.reduce((n, b) => n + b.items.length, 0);
  const stats = pool.stats();
  t.equal(stats.implementation, 'pool');
  t.equal(stats.backend, 'native');
  t.equal(stats.threads, 2);
  t.equal(stats.verifiedItems, total);
  t.ok(stats.completedBatches >= batches.length + 2, `the big batch went out as several tasks (${stats.completedBatches} tasks)`);
  t.equal(stats.queueSize, 0);
  t.ok(stats.utilization > 0 && stats.utilization <= 1, `utilization ${stats.utilization}`);
  t.ok(stats.busySeconds > 0, 'busy time reported by the workers');
  const { busySeconds, ...inlineStats } = inline.stats();
  t.same(inlineStats, { implementation: 'inline', backend: 'native', threads: 0, queueSize: 0, utilization: 0, completedBatches: batches.length, verifiedItems: total });
  t.ok(busySeconds > 0);
});

t.test('a malformed batch rejects its own promise, and the pool keeps working', async (t) => {
  await t.rejects(pool.verify({ kind: 'place', items: [] } as never), /needs a domain/);
  t.same(await pool.verify(batches[1]!), await createInlineVerifier().verify(batches[1]!));
});

t.test('the child processes\' hard-coded signed order is what viem signs', async (t) => {
  const account = privateKeyToAccount(PRIVATE_KEY);
  t.equal(account.address, SIGNER);
  t.equal(hashTypedData({ domain: DOMAIN, types: placeOrderTypes, primaryType: 'PlaceOrder', message: MESSAGE }), DIGEST);
  t.equal(await account.signTypedData({ domain: DOMAIN, types: placeOrderTypes, primaryType: 'PlaceOrder', message: MESSAGE }), SIGNATURE);
});

function runChild(args: string[]): Promise<{ execArgv: string[]; results: unknown }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 60_000 }, (err, out, errOut) => {
      if (err) reject(new Error(`${err.message}\n${errOut}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()!));
    });
  });
}

t.test('workers load the .ts task under `node --import tsx` and under tsx registered by its API', async (t) => {
  const child = fileURLToPath(new URL('./fixtures/poolChild.ts', import.meta.url));
  const viaFlag = await runChild(['--import', 'tsx', child]);
  t.same(viaFlag.execArgv, ['--import', 'tsx']);
  t.same(viaFlag.results, [{ digest: DIGEST, signer: SIGNER }]);
  const viaApi = await runChild([fileURLToPath(new URL('./fixtures/registerThenPool.mjs', import.meta.url))]);
  t.same(viaApi.execArgv, [], 'no loader in execArgv: the pool had to add it');
  t.same(viaApi.results, [{ digest: DIGEST, signer: SIGNER }]);
});
