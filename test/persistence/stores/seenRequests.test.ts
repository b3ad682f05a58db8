import t from 'tap';
import { memorySeenRequests } from '../../../persistence/stores/seenRequests.ts';
import { bothKinds } from '../fixtures/storesHarness.ts';

bothKinds(t, 'a (key, timestamp) pair is accepted once', async (t, h) => {
  const seen = h.stores.seenRequests;
  t.equal(seen.markSeen('k1', 1_000_000, 1_000_500), true);
  t.equal(seen.markSeen('k1', 1_000_000, 1_000_600), false, 'replay refused');
  t.equal(seen.markSeen('k2', 1_000_000, 1_000_600), true, 'another key, same timestamp');
  t.equal(seen.markSeen('k1', 1_000_001, 1_000_600), true, 'same key, another timestamp');
});

bothKinds(t, 'timestamps outside the window are refused', async (t, h) => {
  const seen = h.stores.seenRequests;
  t.equal(seen.markSeen('k', 1_000_000 - 30_001, 1_000_000), false, 'too old');
  t.equal(seen.markSeen('k', 1_000_000 + 30_001, 1_000_000), false, 'too far ahead');
  t.equal(seen.markSeen('k', 1_000_000 - 30_000, 1_000_000), true, 'the edge is inside');
  t.equal(seen.markSeen('k', Number.NaN, 1_000_000), false);
});

bothKinds(t, 'memory stays bounded: pairs are forgotten once their window has passed', async (t, h) => {
  const seen = h.stores.seenRequests;
  let now = 5_000_000;
  for (let i = 0; i < 2_000; i++) seen.markSeen('k', now + i, now + i);
  t.equal(seen.size(), 2_000);
  now += 60_000;
  seen.markSeen('k', now, now);
  t.equal(seen.size(), 1, 'the old ones are gone');
});

bothKinds(t, 'seen pairs survive a restart within the window', async (t, h) => {
  t.equal(h.stores.seenRequests.markSeen('k9', 7_000_000, 7_000_000), true);
  const stores = await h.restart(7_010_000);
  if (stores === null) {
    t.equal(h.kind, 'memory', 'nothing to restart in memory');
    return;
  }
  t.equal(stores.seenRequests.markSeen('k9', 7_000_000, 7_010_000), false, 'a request captured before the restart cannot be replayed after it');
  t.equal(stores.seenRequests.size(), 1);
});

t.test('the window is configurable', async (t) => {
  const seen = memorySeenRequests(5_000);
  t.equal(seen.markSeen('k', 0, 5_001), false);
  t.equal(seen.markSeen('k', 1, 5_001), true);
});
