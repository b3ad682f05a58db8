import t from 'tap';
import { bothKinds } from '../fixtures/storesHarness.ts';

const A = '0xAAAA000000000000000000000000000000000001';
const B = '0xBBBB000000000000000000000000000000000002';
const C = '0xCCCC000000000000000000000000000000000003';

bothKinds(t, 'getOrCreate is idempotent per wallet, any letter case', async (t, h) => {
  const u1 = await h.stores.users.getOrCreate(A, 100);
  t.same(u1, { id: '1', address: A.toLowerCase(), createdAt: 100 });
  t.same(await h.stores.users.getOrCreate(A.toLowerCase(), 200), u1);
  const u2 = await h.stores.users.getOrCreate(B, 300);
  t.equal(u2.id, '2');
  t.same(h.stores.users.get('1'), u1);
  t.same(h.stores.users.byAddress(A), u1);
  t.equal(h.stores.users.get('99'), null);
  t.equal(h.stores.users.byAddress(C), null);
});

bothKinds(t, 'two first sign-ins of one wallet in the same turn create one user', async (t, h) => {
  const [x, y] = await Promise.all([h.stores.users.getOrCreate(C, 1), h.stores.users.getOrCreate(C, 2)]);
  t.same(x, y);
});

bothKinds(t, 'linked wallets', async (t, h) => {
  const u = await h.stores.users.getOrCreate(A, 100);
  const other = await h.stores.users.getOrCreate(C, 100);
  t.same(await h.stores.users.link(u.id, B, 200), { ok: true, wallet: { address: B.toLowerCase(), isPrimary: false, linkedAt: 200 } });
  t.same(h.stores.users.byAddress(B), u, 'signing in with the linked wallet finds the same user');
  t.same(await h.stores.users.getOrCreate(B, 300), u);
  t.same(h.stores.users.wallets(u.id), [
    { address: A.toLowerCase(), isPrimary: true, linkedAt: 100 },
    { address: B.toLowerCase(), isPrimary: false, linkedAt: 200 },
  ]);
  t.same(await h.stores.users.link(u.id, B, 999), { ok: true, wallet: { address: B.toLowerCase(), isPrimary: false, linkedAt: 200 } }, 'linking again changes nothing');
  t.same(await h.stores.users.link(other.id, B, 400), { ok: false, reason: 'linked-to-another-user' });
  t.same(await h.stores.users.link('404', '0x0000000000000000000000000000000000000404', 400), { ok: false, reason: 'unknown-user' });
  t.same(h.stores.users.wallets('404'), []);
});

bothKinds(t, 'users and wallets survive a restart; ids keep increasing', async (t, h) => {
  const u = await h.stores.users.getOrCreate(A, 1);
  await h.stores.users.link(u.id, B, 2);
  const stores = await h.restart();
  if (stores === null) {
    t.equal(h.kind, 'memory', 'nothing to restart in memory');
    return;
  }
  t.same(stores.users.byAddress(B), u);
  t.equal(stores.users.wallets(u.id).length, 2);
  t.equal((await stores.users.getOrCreate(C, 3)).id, '2');
});
