/**
 * Every worker thread loads its task the same way whenever it starts (pool start, the
 * replacement of a worker that died, after close nothing starts), and a task that fails to
 * load reports its own error, not Piscina's ESM fallback ("Unknown file extension .ts").
 */
import t from 'tap';
import { once } from 'node:events';
import { Piscina } from 'piscina';
import { onWorkerError, taskWorkerOptions, workerExecArgv } from '../../workers/taskWorker.ts';
import { createPoolVerifier, createInlineVerifier } from '../../workers/signatureVerifier.ts';
import { createPoolMarkComputer } from '../../workers/markComputer.ts';
import type { VerifyBatch } from '../../workers/verifyBatch.ts';
import { DOMAIN, MESSAGE, SIGNATURE } from './fixtures/signedPlaceOrder.ts';

const batch: VerifyBatch = { kind: 'place', domain: DOMAIN, items: [{ message: MESSAGE, signature: SIGNATURE }] } as VerifyBatch;

t.test('workers get the parent execArgv without loader flags and without V8 flags', async (t) => {
  t.same(workerExecArgv(['--import', 'tsx', '--enable-source-maps', '--import=file:///x/import.mjs', '--max-old-space-size=100', '-r', 'foo', '--loader=bar', '--require', 'baz']), ['--enable-source-maps']);
  t.same(workerExecArgv(['--trace-gc', '--no-parallel-scavenge', '--max_semi_space_size=64', '--cpu-prof', '--cpu-prof-dir=/tmp/x', '--heap-prof']), ['--cpu-prof', '--cpu-prof-dir=/tmp/x', '--heap-prof']);
  t.same(workerExecArgv([]), []);
});

t.test('a pool serves when the parent runs with V8 flags', async (t) => {
  // Each of these, passed on, made the worker refuse to start (ERR_WORKER_INVALID_EXEC_ARGV).
  const parent = process.execArgv.splice(0, process.execArgv.length);
  t.teardown(() => process.execArgv.splice(0, process.execArgv.length, ...parent));
  process.execArgv.push(...parent, '--trace-gc-ignore-scavenger', '--max-semi-space-size=32', '--no-parallel-scavenge');
  const pool = new Piscina<VerifyBatch, { results: unknown[] }>({ ...taskWorkerOptions(new URL('../../workers/verify.task.ts', import.meta.url), {}), minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.destroy());
  t.same((await pool.run(batch)).results, await createInlineVerifier().verify(batch), 'the worker started and ran the task');
});

t.test('a task that fails to load reports its own error', async (t) => {
  const pool = new Piscina({ ...taskWorkerOptions(new URL('./fixtures/throwsAtLoad.task.ts', import.meta.url), {}), minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.destroy());
  // The worker starts with the pool and fails before any task: Piscina reports it as the pool's
  // 'error', again for each replacement worker, so the listener stays until the pool is gone.
  const err = await new Promise<Error>((resolve) => onWorkerError(pool, resolve));
  t.match(err.message, /boom: this task fails while loading/, 'the task module\'s own error');
  t.notMatch(err.message, /Unknown file extension/);
});

t.test('a worker failing outside a task goes to the handler, not to an uncaught exception', async (t) => {
  const pool = new Piscina({ ...taskWorkerOptions(new URL('./fixtures/throwsAtLoad.task.ts', import.meta.url), {}), minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.destroy());
  const seen = new Promise<Error>((resolve) => onWorkerError(pool, resolve));
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  process.on('uncaughtException', onUncaught);
  t.teardown(() => process.off('uncaughtException', onUncaught));
  t.match((await seen).message, /boom: this task fails while loading/, 'the handler has the worker\'s error');
  t.same(uncaught, [], 'nothing escaped as an uncaught exception');
  t.equal(pool.listenerCount('error'), 1, 'the pool has its error listener');
});

t.test('a worker started to replace one that died loads the task and serves', async (t) => {
  const pool = new Piscina<VerifyBatch, { results: unknown[] }>({ ...taskWorkerOptions(new URL('../../workers/verify.task.ts', import.meta.url), {}), minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.destroy());
  const expected = await createInlineVerifier().verify(batch);
  t.same((await pool.run(batch)).results, expected);
  const created = once(pool, 'workerCreate');
  await pool.threads[0]!.terminate();
  await created;
  t.same((await pool.run(batch)).results, expected, 'the replacement worker loaded the .ts task');
});

t.test('after close, the signature verifier starts no worker', async (t) => {
  const verifier = createPoolVerifier({ threads: 1 });
  t.same(await verifier.verify(batch), await createInlineVerifier().verify(batch));
  await verifier.close();
  t.equal(verifier.stats().threads, 0, 'closed: no worker left');
  await t.rejects(verifier.verify(batch), /signature verifier: closed/);
  t.equal(verifier.stats().threads, 0, 'a verify after close started no worker');
  await verifier.close(); // idempotent
});

t.test('after close, the mark computer starts no worker', async (t) => {
  const marks = createPoolMarkComputer();
  t.same(await marks.compute([]), []);
  await marks.close();
  await t.rejects(marks.compute([]), /mark computer: closed/);
  await marks.close();
});
