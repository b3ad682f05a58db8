/**
 * The private stream, WebSocket order entry and RFQ stream suites again with settlement on an
 * embedded chain (TEST_CHAIN=embedded: test/gateway/support/testApp.ts): the same frames, and
 * every app settles all it committed, final and reconciled, before it closes.
 */
import t from 'tap';

// Several suites' apps, each settling on a chain of its own: minutes on a busy 2-core host.
t.setTimeout(600_000);
process.env['TEST_CHAIN'] = 'embedded';
// The suites load inside this first test, so the root cannot end between two of them (see suitesOrders.test.ts).
const suites = ['private', 'orderEntry', 'rfq'];
t.test(`the ${suites.length} stream suites load, each with its apps`, async (t) => {
  for (const suite of suites) await import(`../gateway/streams/${suite}.test.ts`);
  t.pass('loaded');
});
