/**
 * The shared stores' buckets (persistence/kvBucket.ts `guarded`): an operation NATS does not
 * answer fails as UnavailableError (HTTP 503 `unavailable`), a failed revision check stays
 * itself (the stores decide one-time things by it), and everything else of the bucket
 * passes through untouched.
 */
import t from 'tap';
import type { KV } from 'nats';
import { guarded, isWrongRevision } from '../../persistence/kvBucket.ts';
import { UnavailableError } from '../../persistence/unavailable.ts';

const wrongRevision = Object.assign(new Error('wrong last sequence: 7'), { api_error: { err_code: 10071 } });
const fake = {
  bucket: 'b',
  get: async () => Promise.reject(Object.assign(new Error('TIMEOUT'), { code: 'TIMEOUT' })),
  create: async () => Promise.reject(wrongRevision),
  put: async (_k: string) => 3,
  delete: async () => Promise.reject(new TypeError('bad key')),
  watch() {
    return this.bucket;
  },
};

t.test('NATS not answering is unavailable; revision checks and input errors stay as they are', async (t) => {
  const kv = guarded(fake as unknown as KV, 'venue-sessions');
  const timedOut = await kv.get('k').catch((e: unknown) => e);
  t.ok(timedOut instanceof UnavailableError, 'a timeout becomes UnavailableError');
  t.match((timedOut as Error).message, /shared stores do not answer \(venue-sessions: TIMEOUT\)/);
  const refused = await kv.create('k', new Uint8Array()).catch((e: unknown) => e);
  t.equal(refused, wrongRevision, 'a failed revision check is passed on unchanged');
  t.ok(isWrongRevision(refused));
  t.ok((await kv.delete('k').catch((e: unknown) => e)) instanceof TypeError, 'an input error is passed on unchanged');
  t.equal(await kv.put('k', new Uint8Array()), 3, 'results pass through');
  t.equal((kv as unknown as { watch(): string }).watch(), 'b', 'other methods run on the bucket itself');
});
