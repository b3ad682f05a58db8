/**
 * `replyFirst` (gateway/commandPipeline.ts, docs/performance.md "Replies before folds"): the
 * submitter of an order command gets its result before the command is folded and published;
 * the turn's commands are published after, in sequence order, and a read barrier (another
 * submit, `publishPending`, `drain`, any HTTP request) publishes them first. A listener that
 * throws then is reported, and the other listeners and commands still run.
 */
import t from 'tap';
import { startTestApp, request } from './support/testApp.ts';
import type { MemoryJournal } from '../../persistence/memoryJournal.ts';

const START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);
const OWNER = '0x00000000000000000000000000000000000000a1';
const deposit = (amount: bigint) => ({ type: 'deposit', owner: OWNER, portfolioId: 0, amount }) as const;
const nextTurn = () => new Promise((r) => setImmediate(r));

t.test('replies of one commit go out before its commands are published, which follow in order', async (t) => {
  const app = await startTestApp({ memory: true, startAt: START_AT });
  t.teardown(() => app.close());
  const pipeline = app.app.services.pipeline;
  const journal = app.app.storage.journal as MemoryJournal;
  const published: number[] = [];
  pipeline.onEvents((_e, command) => published.push(command.seq));

  const hold = journal.holdCommits();
  const a = pipeline.submit(deposit(1n), { replyFirst: true });
  const b = pipeline.submit(deposit(2n), { replyFirst: true });
  hold.release();
  const [ra, rb] = await Promise.all([a, b]);
  t.ok(ra.ok && rb.ok, 'both applied');
  t.same(published, [], 'both answered, neither published yet');
  await nextTurn();
  t.equal(published.length, 2, 'published at the end of the turn');
  t.ok(published[0]! < published[1]!, 'in sequence order');
  const folded = app.app.services.reads.seq;
  t.equal(folded, published[1], 'the read models are at the last answered command');

  // Another submit publishes the earlier ones first.
  published.length = 0;
  await pipeline.submit(deposit(3n), { replyFirst: true });
  await pipeline.submit(deposit(4n));
  t.equal(published.length, 2, 'a plain submit publishes the pending command, then its own');
  t.ok(published[0]! < published[1]!, 'in sequence order');

  // publishPending is the barrier readers call; drain calls it too.
  published.length = 0;
  await pipeline.submit(deposit(5n), { replyFirst: true });
  t.equal(published.length, 0);
  pipeline.publishPending();
  t.equal(published.length, 1, 'publishPending publishes it at once');
  await pipeline.submit(deposit(6n), { replyFirst: true });
  await pipeline.drain();
  t.equal(published.length, 2, 'drain publishes what is pending');
});

t.test('every HTTP request runs the read barrier first', async (t) => {
  const app = await startTestApp({ memory: true, startAt: START_AT });
  t.teardown(() => app.close());
  const pipeline = app.app.services.pipeline;
  const token = await app.session(OWNER);
  const barrier = pipeline.publishPending.bind(pipeline);
  let calls = 0;
  pipeline.publishPending = () => {
    calls++;
    barrier();
  };
  const before = await request(`${app.url}/api/account/portfolios`, { token });
  t.equal(before.status, 200);
  t.equal(calls, 1, 'the request ran the barrier');
  const journal = app.app.storage.journal as MemoryJournal;
  await pipeline.submit(deposit(7_000_000n), { replyFirst: true });
  t.not(app.app.services.reads.seq, journal.lastSeq(), 'not yet folded when the reply is out');
  t.equal((await request(`${app.url}/api/account/portfolios`, { token })).status, 200);
  // The end of the submit's turn ran it too: the requests' own calls are counted while idle.
  const idle = calls;
  t.equal((await request(`${app.url}/api/health`)).status, 200);
  t.equal((await request(`${app.url}/api/portfolio/deposit`, { method: 'POST', token, body: { portfolioId: 0, amount: 'x' } })).status, 400);
  t.equal(calls - idle, 2, 'a GET and a POST ran it, once each');
  t.equal(app.app.services.reads.seq, journal.lastSeq(), 'folded through the last command');
});

t.test('a listener that throws after the reply is reported; the rest still publish', async (t) => {
  const app = await startTestApp({ memory: true, startAt: START_AT });
  t.teardown(() => app.close());
  const pipeline = app.app.services.pipeline;
  const failures: number[] = [];
  pipeline.onListenerError((_e, command) => failures.push(command.seq));
  let failOn = -1;
  pipeline.onEvents((_e, command) => {
    if (command.seq === failOn) throw new Error('boom');
  });
  const seen: number[] = [];
  pipeline.onEvents((_e, command) => seen.push(command.seq));
  const journal = app.app.storage.journal as MemoryJournal;
  const hold = journal.holdCommits();
  const a = pipeline.submit(deposit(1n), { replyFirst: true });
  const b = pipeline.submit(deposit(2n), { replyFirst: true });
  failOn = journal.lastSeq() - 1;
  hold.release();
  await Promise.all([a, b]);
  await nextTurn();
  t.same(failures, [failOn], 'the failure is reported with its command');
  t.same(seen, [failOn, failOn + 1], 'the next listener and the next command still ran');
});
