import t from 'tap';
import { bothKinds } from '../fixtures/storesHarness.ts';
import { cases, record } from '../fixtures/storeCases/nonces.ts';

for (const c of cases) bothKinds(t, c.name, c.body);

