import t from 'tap';
import { memorySeenRequests } from '../../../persistence/stores/seenRequests.ts';
import { bothKinds } from '../fixtures/storesHarness.ts';
import { cases } from '../fixtures/storeCases/seenRequests.ts';

for (const c of cases) bothKinds(t, c.name, c.body);

t.test('the window is configurable', async (t) => {
  const seen = memorySeenRequests(5_000);
  t.equal(seen.markSeen('k', 0, 5_001), false);
  t.equal(seen.markSeen('k', 1, 5_001), true);
});
