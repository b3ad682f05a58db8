/**
 * Tool test (`npm run test:tools`, not part of `npm test`): `promtool check metrics` on the
 * venue's `/metrics` reports nothing. Needs promtool on the PATH (Debian: the `prometheus`
 * package; .ci/run installs it).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { startTestApp } from '../gateway/support/testApp.ts';

/** Run `promtool check metrics` with `input` on stdin; its exit code and all it printed. */
function promtoolCheck(input: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('promtool check metrics did not finish within 60 s'));
    }, 60_000);
    p.stdout.on('data', (d: Buffer) => (output += d.toString()));
    p.stderr.on('data', (d: Buffer) => (output += d.toString()));
    p.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`promtool could not be run (install the prometheus package): ${e.message}`));
    });
    p.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    p.stdin.end(input);
  });
}

t.test('promtool check metrics on /metrics reports nothing', async (t) => {
  const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
  t.teardown(() => app.close());
  // Some traffic first, so that the labelled families have samples.
  for (const path of ['/api/markets/pairs', '/api/health', '/nowhere']) await (await fetch(app.url + path)).arrayBuffer();
  const text = await (await fetch(app.url + '/metrics')).text();
  t.match(text, /^http_requests_total\{/m, 'the families have samples');
  const { code, output } = await promtoolCheck(text);
  t.equal(output, '', 'promtool printed nothing');
  t.equal(code, 0, 'promtool exit code 0');
});
