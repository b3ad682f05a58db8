/**
 * The market maker protection suite again with settlement on an embedded chain
 * (TEST_CHAIN=embedded: test/gateway/support/testApp.ts): a market maker's quotes from portfolio
 * 0 (its internal trading portfolios on chain as its portfolio 0) settle, final and reconciled.
 */
import t from 'tap';

t.setTimeout(600_000);
process.env['TEST_CHAIN'] = 'embedded';
await import('../gateway/routes/mmp.test.ts');
