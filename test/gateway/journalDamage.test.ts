/**
 * Damage in the middle of the journal stops start-up (the real process exits non-zero with
 * a message naming the entry); the operator's `npm run recover -- --truncate-at <seq>`
 * drops it and everything after, and a signed order from the dropped part, submitted again
 * with the same signature and nonce, is still refused: order nonces live apart from the
 * journal (persistence/stores/orderNonceStore.ts).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { startTestApp, request } from './support/testApp.ts';
import { post } from './routes/ordersFixture.ts';
import { JournalDamageError } from '../../persistence/recover.ts';

const START_AT = Date.UTC(2026, 0, 5, 12, 0, 0);
const root = fileURLToPath(new URL('../../', import.meta.url));

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(root, script), ...args], { env: { ...process.env, CHAIN: 'none', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.once('exit', (code) => resolve({ code, out, err }));
  });
}

type Crashed = { seqA: number; last: number; orderA: string; signedA: Record<string, unknown>; nonceB: string; address: string; portfolioId: number; seriesId: string };

/** The venue in a child process places order A, then more; killed with SIGKILL once it says so (no final snapshot). */
function ordersThenKill(dataDir: string): Promise<Crashed> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/gateway/support/ordersThenCrashChild.ts'), dataDir, String(START_AT)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let result: Crashed | null = null;
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (result === null && out.includes('\n')) {
        result = JSON.parse(out.slice(0, out.indexOf('\n'))) as Crashed;
        p.kill('SIGKILL');
      }
    });
    p.once('exit', () => (result !== null ? resolve(result) : reject(new Error(`child ended without its line: ${err.slice(0, 2000)}`))));
  });
}

/** Flip one bit inside the stored frame of journal entry `seq` (venue stopped). */
async function flipBit(dataDir: string, seq: number): Promise<void> {
  const env = open({ path: join(dataDir, 'lmdb'), maxDbs: 24 });
  const db = env.openDB('journal', { encoding: 'binary' });
  const key = [...db.getKeys({ start: seq, reverse: true, limit: 1 })][0] as number;
  const b = Buffer.from(db.getBinary(key) as Buffer);
  let pos = 9; // batch header: format u8, crc32 u32, count u32; then [length u32][frame] per entry
  for (let i = key; i < seq; i++) pos += 4 + b.readUInt32BE(pos);
  const len = b.readUInt32BE(pos);
  b[pos + 4 + (len >> 1)]! ^= 0x10;
  await db.put(key, b);
  await env.close();
}

t.test('mid-journal damage: start refuses, recover --truncate-at drops it, the dropped signed order stays refused', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'journal-damage-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  const crashed = await ordersThenKill(dataDir);
  const { seqA, last, orderA, signedA, nonceB } = crashed;
  t.ok(last > seqA + 1, `entries ${seqA + 1}..${last} (order B, a deposit) follow order A (${seqA})`);

  await flipBit(dataDir, seqA);

  await t.rejects(startTestApp({ dataDir, startAt: START_AT }), JournalDamageError, 'the app refuses to start');
  const started = await run('gateway/main.ts', [], { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WORKERS: '1' });
  t.equal(started.code, 1, 'the process exits non-zero');
  t.match(started.err, new RegExp(`journal: entry ${seqA} failed its check \\(checksum mismatch\\); entries up to ${last} follow it`));
  t.match(started.err, new RegExp(`npm run recover -- --truncate-at ${seqA}`));
  t.notMatch(started.err, /"msg":"listening"/);

  const beyond = await run('gateway/recoverMain.ts', ['--truncate-at', String(last + 5)], { DATA_DIR: dataDir });
  t.same([beyond.code, beyond.err.trim().split('\n').pop()], [1, `recover: the journal ends at ${last}; there is nothing at or after ${last + 5} to drop`]);
  const nowhere = await run('gateway/recoverMain.ts', ['--truncate-at', '1'], { DATA_DIR: join(dataDir, 'missing') });
  t.same([nowhere.code, nowhere.err.trim()], [1, `recover: no LMDB environment at ${join(dataDir, 'missing', 'lmdb', 'data.mdb')}: is DATA_DIR right? (nothing was created)`]);
  const badArg = await run('gateway/recoverMain.ts', ['--truncate-at', 'x'], { DATA_DIR: dataDir });
  t.equal(badArg.code, 2, 'a bad argument exits 2');

  const dry = await run('gateway/recoverMain.ts', ['--truncate-at', String(seqA), '--dry-run'], { DATA_DIR: dataDir });
  t.equal(dry.code, 0, 'dry run', { err: dry.err });
  t.match(dry.out, new RegExp(`drops entries ${seqA}\\.\\.${last} \\(${last - seqA + 1} stored; first damage: entry ${seqA} failed its check \\(checksum mismatch\\)\\)`));
  t.match(dry.out, /dry run: nothing changed/);

  const rec = await run('gateway/recoverMain.ts', ['--truncate-at', String(seqA)], { DATA_DIR: dataDir });
  t.equal(rec.code, 0, 'recover exits 0', { err: rec.err });
  t.match(rec.out, new RegExp(`done: dropped ${last - seqA + 1} entries from ${seqA}; the journal now ends at ${seqA - 1}; order-nonce floors set for 1 wallets`));
  t.match(rec.err, /"msg":"recover: journal truncated by the operator"/, 'logged what it did');

  const again = await startTestApp({ dataDir, startAt: START_AT + 1000 });
  t.teardown(() => again.close());
  t.equal(again.app.storage.journal.lastSeq(), seqA - 1);
  const token = await again.session(crashed.address);
  const gone = await request(`${again.url}/api/mm/orders/${orderA}`, { token });
  t.equal(gone.status, 404, 'order A was dropped with the journal part');
  const replay = await post(again, '/api/mm/orders/place', token, signedA);
  t.equal(replay.status, 400, 'the same signed order, submitted again, is refused', { body: replay.body });
  t.equal(replay.body.details?.reason, 'nonce_used');
  const fresh = await post(again, '/api/mm/orders/place', token, { seriesId: crashed.seriesId, isBuy: true, size: '0.1', price: '26', portfolioId: crashed.portfolioId });
  t.ok(BigInt(fresh.body.typedData.message.nonce) > BigInt(nonceB), 'new nonces start above every used one, dropped ones included');
});
