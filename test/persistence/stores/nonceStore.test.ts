import t from 'tap';
import { bothKinds } from '../fixtures/storesHarness.ts';

const record = { address: '0xAbC0000000000000000000000000000000000001', chainId: 10143, expiresAt: 10_000 };

bothKinds(t, 'single use', async (t, h) => {
  await h.stores.nonces.issue('n1', record);
  t.same(await h.stores.nonces.consume('n1', 5_000), record);
  t.equal(await h.stores.nonces.consume('n1', 5_000), null, 'second use refused');
  t.equal(await h.stores.nonces.consume('never-issued', 5_000), null);
});

bothKinds(t, 'two consumes in the same turn: exactly one wins', async (t, h) => {
  await h.stores.nonces.issue('n2', record);
  const results = await Promise.all([h.stores.nonces.consume('n2', 1), h.stores.nonces.consume('n2', 1), h.stores.nonces.consume('n2', 1)]);
  t.equal(results.filter((r) => r !== null).length, 1);
});

bothKinds(t, 'expired is null, and gone', async (t, h) => {
  await h.stores.nonces.issue('n3', record);
  t.equal(await h.stores.nonces.consume('n3', 10_000), null, 'now == expiresAt is expired');
  await h.stores.nonces.issue('n4', { ...record, address: null });
  t.same(await h.stores.nonces.consume('n4', 9_999), { ...record, address: null }, 'address may be unknown at issue time');
});

bothKinds(t, 'sweep deletes expired nonces only', async (t, h) => {
  await h.stores.nonces.issue('old', { ...record, expiresAt: 100 });
  await h.stores.nonces.issue('new', { ...record, expiresAt: 1_000 });
  t.equal(await h.stores.nonces.sweep(500), 1);
  t.equal(await h.stores.nonces.consume('old', 50), null, 'swept');
  t.not(await h.stores.nonces.consume('new', 500), null);
});

bothKinds(t, 'an issued nonce survives a restart, still single use', async (t, h) => {
  await h.stores.nonces.issue('n5', record);
  const stores = await h.restart();
  if (stores === null) {
    t.equal(h.kind, 'memory', 'nothing to restart in memory');
    return;
  }
  t.same(await stores.nonces.consume('n5', 1), record);
  await h.restart();
  t.equal(await h.stores.nonces.consume('n5', 1), null, 'consumption survived too');
});

bothKinds(t, 'consuming for another address leaves the nonce to its owner', async (t, h) => {
  await h.stores.nonces.issue('n6', record);
  t.equal(await h.stores.nonces.consume('n6', 5_000, '0x00000000000000000000000000000000000000ff'), null, 'not usable by another address');
  t.same(await h.stores.nonces.consume('n6', 5_000, record.address.toLowerCase()), record, 'still there for its owner (any case)');
  t.equal(await h.stores.nonces.consume('n6', 5_000, record.address), null, 'and then gone');
  await h.stores.nonces.issue('n7', { ...record, address: null });
  t.same(await h.stores.nonces.consume('n7', 5_000, '0x00000000000000000000000000000000000000ff'), { ...record, address: null }, 'a nonce issued without an address is anyone\'s');
});
