/**
 * The liquidation and market maker protection suites again with settlement on an embedded chain
 * (TEST_CHAIN=embedded: test/gateway/support/testApp.ts): liquidation fills (the liquidated side
 * unsigned), the insurance fund's take-overs, fees and deficits, bad debt, and a market maker's
 * portfolio 0 with its internal trading portfolios all settle, final and reconciled, with the
 * same replies.
 */
import t from 'tap';

// Several suites' apps, each settling on a chain of its own: minutes on a busy 2-core host.
t.setTimeout(600_000);
process.env['TEST_CHAIN'] = 'embedded';
await import('../gateway/routes/liquidations.test.ts');
