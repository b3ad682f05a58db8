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
for (const suite of ['orders', 'ordersBatch', 'ordersCancel', 'ordersInstructions', 'ordersNonceEdge', 'ordersPrecheck', 'ordersReplay']) {
  await import(`../gateway/routes/${suite}.test.ts`);
}
