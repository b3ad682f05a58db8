/**
 * Tool test (`npm run test:tools`, not part of `npm test`): `promtool check metrics` on the
 * venue's `/metrics` reports nothing. Needs promtool on the PATH (Debian: the `prometheus`
 * package; .ci/run installs it).
 */
import t from 'tap';
import { startTestApp } from '../gateway/support/testApp.ts';
import { promtool } from './support/promtool.ts';

t.test('promtool check metrics on /metrics reports nothing', async (t) => {
  const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
  t.teardown(() => app.close());
  // Some traffic first, so that the labelled families have samples.
  for (const path of ['/api/markets/pairs', '/api/health', '/nowhere']) await (await fetch(app.url + path)).arrayBuffer();
  const text = await (await fetch(app.url + '/metrics')).text();
  t.match(text, /^http_requests_total\{/m, 'the families have samples');
  const { code, output } = await promtool(['check', 'metrics'], { input: text });
  t.equal(output, '', 'promtool printed nothing');
  t.equal(code, 0, 'promtool exit code 0');
});
