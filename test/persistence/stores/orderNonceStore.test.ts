/** Order nonces kept apart from the journal: the highest per wallet, and the floor a truncation sets. */
import t from 'tap';
import { bothKinds } from '../fixtures/storesHarness.ts';
import { cases, A, B } from '../fixtures/storeCases/orderNonces.ts';

for (const c of cases) bothKinds(t, c.name, c.body);

