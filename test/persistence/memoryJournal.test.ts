import t from 'tap';
import { memoryJournal } from '../../persistence/memoryJournal.ts';
import { journalContract } from './fixtures/journalContract.ts';
import { toyCommand } from './fixtures/toyEngine.ts';

t.test('contract', async (t) => {
  journalContract(t, () => ({ journal: memoryJournal(), reopen: () => null, close: async () => {} }));
});

t.test('corruption hooks behave like damaged storage', async (t) => {
  const j = memoryJournal();
  for (let s = 1; s <= 5; s++) await j.append(toyCommand(1, s));
  j.overwriteRaw(4, Buffer.from('garbage'));
  t.same([...j.read(1)].map((c) => c.seq), [1, 2, 3]);
  t.match([...j.scan(4)][0], { ok: false, seq: 4 });
  const k = memoryJournal();
  for (let s = 1; s <= 5; s++) await k.append(toyCommand(1, s));
  k.deleteRaw(3);
  t.same([...k.read(1)].map((c) => c.seq), [1, 2], 'read stops at a gap');
});
