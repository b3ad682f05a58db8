/**
 * Runs suites of other folders again with every test app settling on an embedded chain
 * (TEST_CHAIN=embedded: test/gateway/support/testApp.ts), for test/chain/suites*.test.ts.
 *
 * The suites load inside one first test: each one's top-level await (its app, its chain) ends
 * before the root's queue can run dry, which would end the root while the next suite still
 * starts and refuse its tests. Their tests run after it, in order.
 */
import t from 'tap';

/** `dir` relative to test/ (`gateway/routes`), each suite a `${name}.test.ts` there. */
export function suitesOnChain(what: string, dir: string, suites: readonly string[]): void {
  // Several suites' apps, each settling on a chain of its own: minutes on a busy 2-core host.
  t.setTimeout(600_000);
  process.env['TEST_CHAIN'] = 'embedded';
  t.test(`the ${suites.length} ${what} suites load, each with its apps`, async (t) => {
    for (const suite of suites) await import(`../../${dir}/${suite}.test.ts`);
    t.pass('loaded');
  });
}
