/**
 * The CLI (client/cli.ts) as a user runs it: each command a child process against a real
 * venue process (gateway/main.ts on a free port, a temporary data directory, its clock
 * starting at a fixed instant through test/support/fakeToday.mjs).
 */
import t from 'tap';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keccak256, toBytes } from 'viem';
import { within } from '../support/within.ts';

// Each command is a process of its own (tsx compiles on start): more than the default file budget on a busy machine.
t.setTimeout(360_000);
const root = fileURLToPath(new URL('../../', import.meta.url));
const fakeToday = join(root, 'test/support/fakeToday.mjs');
const START = Date.UTC(2026, 0, 5, 12, 0, 0);
const dir = mkdtempSync(join(tmpdir(), 'venue-cli-'));
const keyFile = join(dir, 'wallet.key');
writeFileSync(keyFile, keccak256(toBytes('cli-test-wallet')));

const server: ChildProcess = spawn(process.execPath, ['--import', fakeToday, '--import', 'tsx', join(root, 'gateway/main.ts')], {
  env: { ...process.env, CHAIN: 'none', FAKE_TODAY: String(START), PORT: '0', DATA_DIR: join(dir, 'data'), WORKERS: '1', ORACLE_INTERVAL_MS: '200', WS_CONNECTIONS_PER_MINUTE: '1000' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
t.teardown(async () => {
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await within(exited, 30_000, 'the venue exiting');
  rmSync(dir, { recursive: true, force: true });
});
const url = await within(
  new Promise<string>((resolve, reject) => {
    let buf = '';
    server.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(buf) ?? /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(buf);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`the venue exited (${code}): ${buf.slice(0, 2000)}`)));
  }),
  60_000,
  'the venue listening',
);

type Run = { code: number | null; stdout: string; stderr: string };
/** `npm run cli -- <args>` as its script runs it: node --import tsx client/cli.ts. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return within(
    new Promise<Run>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', join(root, 'client/cli.ts'), ...args], { env: { ...process.env, VENUE_URL: url, ...env }, cwd: root }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    }),
    60_000,
    `cli ${args.join(' ')}`,
  );
}
const json = async (args: string[], env: Record<string, string> = {}) => {
  const r = await cli(args, env);
  if (r.code !== 0) throw new Error(`cli ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

t.test('the CLI: login, markets, chain, book --watch, place, cancel, cancel-all, positions, keys', async (t) => {
  const help = await cli(['help']);
  t.match(help.stdout, /usage: npm run cli/);

  const login = await json(['login', '--key-file', keyFile]);
  t.match(login.token, /^\S+$/, 'login prints a token');
  // The token authenticates; the key file signs the orders.
  const auth = { VENUE_TOKEN: login.token as string, VENUE_KEY_FILE: keyFile };
  t.equal((await json(['portfolio', 'create'], auth)).id, 1);
  t.equal((await json(['portfolio', 'deposit', '--portfolio', '1', '--amount', '1000000000000'], auth)).portfolioId, 1);

  const markets = await json(['markets', '--pair', 'BTC-USDC', '--limit', '5']);
  t.equal(markets.markets.length, 5);
  // The simulated oracle prices the series shortly after the start (polled here, then read with the CLI).
  await within(
    (async () => {
      for (;;) {
        const c = (await (await fetch(`${url}/api/markets/chain?pairId=${markets.markets[0].pairId}`)).json()) as any;
        if (c.strikes.some((s: any) => s.call.markPrice !== '0')) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    })(),
    60_000,
    'marks on the chain',
  );
  const chain = await json(['chain', '--pair', 'BTC-USDC']);
  const side = chain.strikes.find((s: any) => s.call.markPrice !== '0').call;

  // Follow the book while an order goes in: the snapshot, then the delta with the bid.
  const watcher = execFile(process.execPath, ['--import', 'tsx', join(root, 'client/cli.ts'), 'book', side.symbol, '--watch', '--count', '2'], { env: { ...process.env, VENUE_URL: url } });
  let watched = '';
  watcher.stdout!.on('data', (d: Buffer) => (watched += d.toString()));
  const watchExit = new Promise<number | null>((r) => watcher.once('exit', r));
  await within(
    (async () => {
      while (!watched.includes('\n')) await new Promise((r) => setTimeout(r, 20));
    })(),
    60_000,
    'the first book line',
  );
  const placed = await json(['place', '--series', side.symbol, '--side', 'buy', '--size', '1', '--price', '1.5', '--client-order-id', 'cli-1'], auth);
  t.equal(placed.orders[0].status, 'open', 'placed through both phases');
  t.equal(await within(watchExit, 60_000, 'book --watch ending after 2 updates'), 0);
  const lines = watched.trim().split('\n').map((l) => JSON.parse(l));
  t.same(lines[1].bids[0], ['1500000000000000000', '1000000000000000000'], 'book --watch shows the bid');

  const one = await json(['place', '--series', side.seriesId, '--side', 'buy', '--size', '1', '--price', '1.2', '--one-trip'], auth);
  t.equal(one.mode, 'relay', 'one round trip');
  t.equal((await json(['cancel', '--client-order-id', 'cli-1'], auth)).orders[0].status, 'cancelled');
  t.equal((await json(['cancel-all', '--pair', 'BTC-USDC'], auth)).cancelled, 1);
  const positions = await json(['positions'], auth);
  t.ok(Array.isArray(positions) && positions.some((p: any) => p.portfolioId === 1), 'positions per portfolio');

  const key = await json(['keys', 'create', '--label', 'bot', '--scopes', 'read,trade'], auth);
  t.match(key.keyId, /^ok_/);
  const orders = await json(['orders', '--status', 'cancelled', '--api-key', `${key.keyId}:${key.secret}`]);
  t.equal(orders.orders.length, 2, 'an API key signs the requests (HMAC)');
  t.equal((await json(['keys', 'list'], auth)).keys.length, 1);
  const rotated = await json(['keys', 'rotate', key.keyId], auth);
  const oldSecret = await cli(['orders', '--api-key', `${key.keyId}:${key.secret}`]);
  t.equal(oldSecret.code, 1, 'the rotated-out secret no longer signs');
  t.equal((await json(['orders', '--status', 'cancelled', '--api-key', `${rotated.keyId}:${rotated.secret}`])).orders.length, 2, 'the new one does');
  await json(['keys', 'revoke', rotated.keyId], auth);
  t.same((await json(['keys', 'list'], auth)).keys, [], 'revoked');

  const refused = await cli(['cancel', `0x${'00'.repeat(32)}`], auth);
  t.equal(refused.code, 1, 'a refusal exits 1');
  t.match(refused.stderr, /not_found \(404\)/);
  const missing = await cli(['place'], {});
  t.equal(missing.code, 1);
  t.match(missing.stderr, /needs --key-file, --api-key or --token/);
});
