/**
 * The journal contract on a JetStream stream (one nats-server started here, a fresh stream
 * per case), and what only the JetStream journal does: fencing a second writer, a follower
 * seeing every record.
 */
import t, { type Test } from 'tap';
import { openNatsJournal, type NatsJournal } from '../../persistence/natsJournal.ts';
import { startNatsCluster } from '../../gateway/cluster/natsServers.ts';
import type { Command } from '../../persistence/types.ts';
import { journalContract } from './fixtures/journalContract.ts';
import { tempDir } from './fixtures/tempDir.ts';
import { toyCommand } from './fixtures/toyEngine.ts';

const nats = await startNatsCluster(tempDir(t, 'nats-'), 1);
t.teardown(() => nats.stop());
let streams = 0;
const open = (stream: string): Promise<NatsJournal> => openNatsJournal({ servers: nats.urls, stream, timeoutMs: 15_000 });
const cmd = (seq: number): Command => toyCommand(5, seq);
/** Opened for one test and closed at its end. */
async function openFor(t: Test, stream: string): Promise<NatsJournal> {
  const j = await open(stream);
  t.teardown(() => j.close());
  return j;
}

t.test('contract', async (t) => {
  journalContract(t, async () => {
    const stream = `J${++streams}`;
    let journal = await open(stream);
    const h = {
      journal,
      async reopen() {
        await journal.close();
        journal = await open(stream);
        h.journal = journal;
        return journal;
      },
      close: () => journal.close(),
    };
    return h;
  });
});

t.test('a reopen folds truncations and prunes exactly as the writer saw them', async (t) => {
  const a = await open('FOLD');
  for (let s = 1; s <= 10; s++) void a.append(cmd(s));
  await a.append(cmd(11));
  t.equal(a.truncateFrom(9), 3);
  for (let s = 9; s <= 14; s++) void a.append(cmd(s));
  await a.append(cmd(15));
  t.equal(await a.pruneBefore(4), 3);
  await a.close();
  const b = await openFor(t, 'FOLD');
  t.equal(b.lastSeq(), 15);
  t.equal(b.prunedThrough(), 3);
  t.same([...b.read(1)], Array.from({ length: 12 }, (_, i) => cmd(i + 4)), 'the commands after the truncation, from the prune on');
  t.equal(await b.pruneBefore(15), 11);
  const jsm = await b.connection.jetstreamManager();
  t.equal((await jsm.streams.info('FOLD')).state.first_seq, 3, 'the records before the batch still holding 15 are purged from the stream');
  const c = await openFor(t, 'FOLD');
  t.same([...c.read(1)], [cmd(15)]);
  t.equal(c.prunedThrough(), 14);
});

t.test('fencing: once another writer appended, this journal refuses every append', async (t) => {
  const a = await openFor(t, 'FENCE');
  await a.append(cmd(1));
  const b = await openFor(t, 'FENCE');
  t.equal(b.lastSeq(), 1);
  await b.append(cmd(2)); // the new writer
  await t.rejects(a.append(cmd(2)), /may no longer write/, 'the deposed writer fails on the stream sequence check');
  t.match(a.fenced(), /may no longer write/);
  await t.rejects(a.append(cmd(3)), /may no longer write/, 'and stays fenced');
  const c = await openFor(t, 'FENCE');
  t.same([...c.read(1)], [cmd(1), cmd(2)], 'the stream holds only what the live writer appended');
});

t.test('a follower receives every command another writer appends, then takes over', async (t) => {
  const leader = await openFor(t, 'FOLLOW');
  await leader.append(cmd(1));
  const standby = await openFor(t, 'FOLLOW');
  const got: number[] = [];
  standby.follow((c) => got.push(c.seq), () => t.fail('nothing was voided'));
  for (let s = 2; s <= 40; s++) void leader.append(cmd(s));
  await leader.append(cmd(41));
  await standby.catchUp();
  t.same(got, Array.from({ length: 40 }, (_, i) => i + 2), 'every command once, in order');
  t.equal(standby.lastSeq(), 41);
  await standby.append(cmd(42));
  await t.rejects(leader.append(cmd(42)), /may no longer write/, 'the old writer is fenced by the takeover');
});
