/**
 * `npm start`'s entry point as a process: it starts on a fresh DATA_DIR with the defaults
 * (the embedded chain included: anvil holds the contracts the venue lists), serves, stops
 * gracefully on SIGTERM (exit 0, final snapshot), recovers the same state on
 * restart, refuses a second process on the same DATA_DIR, and refuses bad configuration.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url));
// The child's wall clock starts at a fixed instant (test/support/fakeToday.mjs), so that the
// series it lists and everything priced from them are the same whatever the day.
const fakeToday = fileURLToPath(new URL('../support/fakeToday.mjs', import.meta.url));
const START = Date.UTC(2026, 0, 5, 12, 0, 0);
/** `node gateway/main.ts` with its clock starting at `startAt`. */
const mainProcess = (env: Record<string, string>, startAt: number) =>
  spawn(process.execPath, ['--import', fakeToday, '--import', 'tsx', main], { env: { ...process.env, FAKE_TODAY: String(startAt), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
const dataDir = mkdtempSync(join(tmpdir(), 'venue-main-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

type Started = { child: ChildProcess; port: number; lines: Record<string, unknown>[]; exited: Promise<number | null> };

function start(env: Record<string, string>, startAt: number): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = mainProcess({ PORT: '0', DATA_DIR: dataDir, WORKERS: '1', ORACLE_INTERVAL_MS: '200', CLOCK_INTERVAL_MS: '200', ...env }, startAt);
    const lines: Record<string, unknown>[] = [];
    let buf = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      for (const p of parts) {
        try {
          const line = JSON.parse(p) as Record<string, unknown>;
          lines.push(line);
          if (line.msg === 'listening') resolve({ child, port: Number(new URL(String(line.url)).port), lines, exited });
        } catch {
          lines.push({ raw: p });
        }
      }
    });
    void exited.then((code) => reject(new Error(`exited with ${code} before listening: ${JSON.stringify(lines).slice(0, 2000)}`)));
  });
}

type Applied = { oracle: number; clock: number };

/**
 * Resolves with the child's applied oracle and clock commands (engine_commands_total on
 * /metrics) once `enough` holds; fails after 60 s, a safety net rather than a timing.
 */
async function commandsApplied(port: number, enough: (c: Applied) => boolean): Promise<Applied> {
  const deadline = performance.now() + 60_000;
  let last: Applied = { oracle: 0, clock: 0 };
  for (;;) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const count = (type: string) => Number(new RegExp(`^engine_commands_total\\{type="${type}",outcome="ok"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    last = { oracle: count('oracle'), clock: count('clock') };
    if (enough(last)) return last;
    if (performance.now() > deadline) throw new Error(`the drivers applied too few commands within 60 s: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('start, serve, stop on SIGTERM, recover', async (t) => {
  const first = await start({}, START);
  const health = await fetch(`http://127.0.0.1:${first.port}/api/health`);
  t.equal(health.status, 200);
  const pairs = (await (await fetch(`http://127.0.0.1:${first.port}/api/markets/pairs`)).json()) as unknown[];
  t.equal(pairs.length, 2, 'BTC-USDC and ETH-USDC listed');
  // The defaults settle on the embedded chain: anvil from node_modules, the contracts at the published addresses.
  const listed = (await (await fetch(`http://127.0.0.1:${first.port}/api/markets/contracts`)).json()) as { contracts: Record<string, string>; chain: { mode: string; rpcUrl: string } };
  t.equal(listed.chain.mode, 'embedded', 'npm start settles on the embedded chain');
  const deployed = (await (await fetch(listed.chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [listed.contracts.orderBook, 'latest'] }) })).json()) as { result: string };
  t.ok(deployed.result.length > 1000, 'and the order book listed there holds its code');
  // The drivers' own updates (beyond the bootstrap's 2 oracle commands and 1 clock): awaited, not slept for.
  const applied = await commandsApplied(first.port, (c) => c.oracle >= 4 && c.clock >= 2);
  t.ok(applied.oracle >= 4 && applied.clock >= 2, `simulated oracle updates and clock ticks applied (${JSON.stringify(applied)})`);
  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0, 'exit 0 on SIGTERM');
  const stopped = first.lines.find((l) => l.msg === 'stopped');
  t.ok(stopped, 'logged a clean stop');
  t.ok(first.lines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('snapshots: saved')), 'final snapshot taken');

  const second = await start({}, START + 3600_000); // restarted an hour later
  const recovered = second.lines.find((l) => l.msg === 'recovered');
  t.equal(recovered?.lastSeq, stopped?.lastSeq, 'recovered to the last command before the stop');
  t.equal(recovered?.replayed, 0, 'from the final snapshot, nothing left to replay');
  t.notOk(second.lines.some((l) => l.msg === 'listed pairs'), 'pairs are not listed twice');

  const third = mainProcess({ PORT: '0', DATA_DIR: dataDir }, START + 3600_000);
  let err = '';
  third.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => third.once('exit', r));
  t.not(code, 0, 'a second process on the same DATA_DIR refuses to start');
  t.match(err, /in use by pid/);
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0);
});

t.test('bad configuration stops with a message naming the variable', async (t) => {
  const child = mainProcess({ NETWORK: 'moon', PORT: 'x' }, START);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  t.equal(code, 2);
  t.match(err, /NETWORK must be one of local, testnet, mainnet/);
  t.match(err, /PORT must be a whole number/);
});
