/** Order nonces kept apart from the journal: the highest per wallet, and the floor a truncation sets. */
import t from 'tap';
import { bothKinds } from '../fixtures/storesHarness.ts';

const A = '0xAbCdEf0000000000000000000000000000000001';
const B = '0x00000000000000000000000000000000000000b2';

bothKinds(t, 'the highest nonce per wallet becomes its floor on burnAll, and survives a restart', async (t, h) => {
  const s = h.stores.orderNonces;
  t.equal(s.floor(A), null, 'no floor before any truncation');
  s.noteUsed(A, 7n);
  s.noteUsed(A.toLowerCase(), 12n); // addresses are case-insensitive
  s.noteUsed(A, 9n); // lower than the highest: no change
  s.noteUsed(B, 2n ** 200n);
  t.equal(s.floor(A), null, 'noting nonces sets no floor');
  t.equal(s.burnAll(), 2, 'two wallets');
  t.equal(s.floor(A), 12n);
  t.equal(s.floor(B), 2n ** 200n, 'any size');
  s.noteUsed(A, 20n);
  t.equal(s.floor(A), 12n, 'the floor moves only on the next truncation');
  const again = await h.restart();
  if (again === null) return;
  t.equal(again.orderNonces.floor(A), 12n, 'floors survive a restart');
  again.orderNonces.burnAll();
  t.equal(again.orderNonces.floor(A), 20n, 'the highest noted before the restart was durable too');
});
