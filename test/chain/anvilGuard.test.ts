/**
 * chain/anvil.ts: an anvil answers once started, stop() ends it, and no anvil outlives the
 * process that started it, even one killed with SIGKILL (the guard's stdin pipe closes); its
 * state directory survives restarts, and a dump cut by a kill gives way to the last whole copy.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recoverState, startAnvil } from '../../chain/anvil.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !alive(pid);
}

async function chainId(rpcUrl: string): Promise<string> {
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
  return ((await res.json()) as { result: string }).result;
}

t.test('start, answer, stop', async (t) => {
  const anvil = await startAnvil({ chainId: 4242, blockTimeMs: 500 });
  t.equal(await chainId(anvil.rpcUrl), '0x1092');
  t.ok(alive(anvil.pid));
  await anvil.stop();
  t.ok(await gone(anvil.pid, 5000), 'anvil gone after stop()');
  t.same(await anvil.exited, { code: 0, signal: null });
  await anvil.stop();
  t.pass('stop() twice is fine');
});

t.test('two at once get two ports', async (t) => {
  const [a, b] = await Promise.all([startAnvil(), startAnvil()]);
  t.not(a.port, b.port);
  await Promise.all([a.stop(), b.stop()]);
});

t.test('a SIGKILLed parent leaves no anvil behind', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./support/anvilChild.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', () => reject(new Error('the child exited first')));
  });
  const { pid, rpcUrl } = JSON.parse(line) as { pid: number; rpcUrl: string };
  t.equal(await chainId(rpcUrl), '0x7a69', 'the child\'s anvil answers');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  t.ok(await gone(pid, 10_000), `anvil ${pid} gone after its parent's SIGKILL`);
});

t.test('stateDir: the chain survives a restart; a dump cut by a kill is replaced by the last whole copy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'anvil-state-'));
  const file = join(dir, 'state.json');
  const rpc = async (url: string, method: string, params: unknown[] = []): Promise<string> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await res.json()) as { result: string }).result;
  };
  const who = '0x00000000000000000000000000000000000000aa';
  const a = await startAnvil({ stateDir: dir });
  await rpc(a.rpcUrl, 'anvil_setBalance', [who, '0x1']);
  await rpc(a.rpcUrl, 'evm_mine');
  await a.stop();
  t.ok(existsSync(file), 'dumped at SIGTERM');
  const b = await startAnvil({ stateDir: dir });
  t.equal(await rpc(b.rpcUrl, 'eth_getBalance', [who, 'latest']), '0x1', 'loaded');
  t.ok(existsSync(`${file}.bak`), 'a whole copy taken at start');
  await rpc(b.rpcUrl, 'anvil_setBalance', [who, '0x2']);
  process.kill(b.pid, 'SIGKILL');
  await b.exited;
  // A kill during a dump: anvil writes the file in place.
  truncateSync(file, Math.floor(statSync(file).size / 2));
  t.equal(recoverState(dir), 'restored');
  truncateSync(file, 10);
  const c = await startAnvil({ stateDir: dir });
  t.equal(await rpc(c.rpcUrl, 'eth_getBalance', [who, 'latest']), '0x1', 'the backup\'s state');
  await c.stop();
  rmSync(`${file}.bak`);
  truncateSync(file, 10);
  t.throws(() => recoverState(dir), /is not a whole state dump .* no whole backup/);
  t.ok(readdirSync(dir).some((f) => f.startsWith('state.json.corrupt-')), 'the cut dump kept aside');
});
