import t from 'tap';
import { bothKinds } from '../fixtures/storesHarness.ts';
import { cases, A, B, C } from '../fixtures/storeCases/users.ts';

for (const c of cases) bothKinds(t, c.name, c.body);

