/**
 * The public journal's reads (gateway/publicJournal.ts, docs/chain.md "The audit"): pages of
 * committed commands, never past the last committed seq, an empty page past the end, and the
 * commands a venue pruned before it published its journal refused by name.
 */
import t from 'tap';
import { publicJournal } from '../../gateway/publicJournal.ts';
import { decodeValue, memoryStorage } from '../../persistence/index.ts';

t.test('pages, the committed end, and what was pruned', async (t) => {
  const storage = memoryStorage();
  for (let seq = 1; seq <= 25; seq++) await storage.journal.append({ seq, ts: 1_000 * seq, type: 'deposit', owner: '0xabc', portfolioId: 0, amount: BigInt(seq) * 10n ** 30n });
  let committed = 20;
  const j = publicJournal(storage.journal, storage.snapshots, () => committed);
  const first = j.page(1, 8);
  if ('pruned' in first) throw new Error('pruned');
  t.same(first.commands.map((c) => c.seq), [1, 2, 3, 4, 5, 6, 7, 8]);
  t.equal(first.nextSeq, 9);
  t.equal(first.lastSeq, 20);
  t.same(decodeValue(Buffer.from(first.commands[2]!.frame, 'base64')), first.commands[2]!.command, 'the frame decodes to the command, bigints exact');
  const tail = j.page(18, 100);
  if ('pruned' in tail) throw new Error('pruned');
  t.same(tail.commands.map((c) => c.seq), [18, 19, 20], 'never past the last committed command');
  const past = j.page(30, 10);
  t.same(past, { commands: [], nextSeq: 21, lastSeq: 20 }, 'past the end: an empty page');
  committed = 25;
  await storage.journal.pruneBefore(11);
  t.same(j.page(5, 10), { pruned: 10 }, 'pruned commands are refused, naming the last one gone');
  const after = j.page(11, 100);
  t.same('pruned' in after ? [] : after.commands.map((c) => c.seq), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
});
