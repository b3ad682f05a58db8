/**
 * The order-entry suites again, every app of theirs settling on an embedded chain
 * (TEST_CHAIN=embedded: test/gateway/support/testApp.ts): every reply and event they check is the
 * same with settlement on, and each app settles everything it committed, final and reconciled,
 * before it closes (a halt fails the test).
 */
import t from 'tap';

// Several suites' apps, each settling on a chain of its own: minutes on a busy 2-core host.
t.setTimeout(600_000);
process.env['TEST_CHAIN'] = 'embedded';
// The suites load inside this first test: each one's top-level await (its app, its chain) ends
// before the root's queue can run dry, which would end the root while the next suite still
// starts and refuse its tests. Their tests run after it, in order.
const suites = ['orders', 'ordersBatch', 'ordersCancel', 'ordersInstructions', 'ordersNonceEdge', 'ordersPrecheck', 'ordersReplay'];
t.test(`the ${suites.length} order-entry suites load, each with its apps`, async (t) => {
  for (const suite of suites) await import(`../gateway/routes/${suite}.test.ts`);
  t.pass('loaded');
});
