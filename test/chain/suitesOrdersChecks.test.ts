/**
 * Order-entry suites again (the others in test/chain/suitesOrders*.test.ts: each file stays well under
 * the runner's per-file limit on a busy host), every app of theirs settling on an embedded chain
 * (TEST_CHAIN=embedded: test/gateway/support/testApp.ts): every reply and event they check is the
 * same with settlement on, and each app settles everything it committed, final and reconciled,
 * before it closes (a halt fails the test).
 */
import { suitesOnChain } from './support/suites.ts';

suitesOnChain('order-entry', 'gateway/routes', ['ordersNonceEdge', 'ordersPrecheck']);
