/**
 * The account suite again with settlement on an embedded chain (TEST_CHAIN=embedded:
 * test/gateway/support/testApp.ts): the same replies, and every app settles all it committed,
 * final and reconciled, before it closes.
 */
import t from 'tap';

// Several suites' apps, each settling on a chain of its own: minutes on a busy 2-core host.
t.setTimeout(600_000);
process.env['TEST_CHAIN'] = 'embedded';
await import('../gateway/routes/account.test.ts');
