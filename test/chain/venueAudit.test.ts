/**
 * The audit (docs/chain.md "The audit") against the real server with the embedded chain and
 * PUBLIC_JOURNAL=1: a venue that trades, cancels and settles; its journal, replayed by the
 * auditor from the genesis snapshot, rebuilds every batch on chain and every state hash posted
 * (through `npm run audit` too). The same venue behind a proxy that alters one command of the
 * journal it serves fails the audit at exactly that command: a signed order resized (its
 * signature no longer covers it), a faucet deposit enlarged (the chain settled another amount),
 * a command left out (a gap). Without PUBLIC_JOURNAL the routes answer 404 and global@journal
 * is refused.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import t from 'tap';
import type { Hex } from 'viem';
import { audit } from '../../chain/audit/auditMain.ts';
import { decodeValue, encodeValue } from '../../persistence/index.ts';
import { request } from '../gateway/support/testApp.ts';
import { liveSeries, place, trader } from '../gateway/routes/ordersFixture.ts';
import { asyncApiValidator, connect } from '../gateway/streams/support.ts';
import { settled, startChainApp } from './support/venueApp.ts';

type Entry = { seq: number; type: string; frame: string; command: Record<string, unknown> };
type Alter = (entry: Entry) => Entry | null;

/** A proxy in front of the venue that passes everything through but the journal's pages, whose entries go through `alter` (null drops one). */
async function alteringProxy(target: string, alter: Alter): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const upstream = await fetch(`${target}${req.url}`);
    const body = Buffer.from(await upstream.arrayBuffer());
    const headers: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') headers[k] = v;
    });
    if (req.url?.startsWith('/api/journal?') && upstream.ok) {
      const page = JSON.parse(body.toString('utf8')) as { commands: Entry[] };
      page.commands = page.commands.map(alter).filter((e): e is Entry => e !== null);
      res.writeHead(upstream.status, headers).end(JSON.stringify(page));
      return;
    }
    res.writeHead(upstream.status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** An entry whose command is changed by `change` (on the decoded command), re-encoded as the venue would have served it. */
function rewrite(entry: Entry, change: (c: Record<string, unknown>) => void): Entry {
  const c = decodeValue(Buffer.from(entry.frame, 'base64')) as Record<string, unknown>;
  change(c);
  return { ...entry, frame: encodeValue(c).toString('base64') };
}

t.test('an honest venue passes the audit; one altered command fails it at that command', async (t) => {
  const app = await startChainApp({ env: { PUBLIC_JOURNAL: '1', SNAPSHOT_EVERY_COMMANDS: '8' } });
  t.teardown(() => app.close());
  const seriesId = liveSeries(app).spec.seriesId;
  const alice = await trader(app, 'audit-alice', { deposit: 50_000 });
  const bob = await trader(app, 'audit-bob', { deposit: 50_000 });
  const ask = await place(app, alice, { seriesId, isBuy: false, size: '2', price: '2000' });
  const bid = await place(app, bob, { seriesId, isBuy: true, size: '0.5', price: '2100' });
  t.equal(bid.relay.status, 200, 'bob buys from alice');
  const rest = await place(app, bob, { seriesId, isBuy: true, size: '1', price: '1500' });
  t.equal(rest.relay.status, 200, 'a bid that rests');
  await settled(app);
  await place(app, alice, { seriesId, isBuy: false, size: '0.3', price: '1500' });
  await settled(app);

  const journal = await request(`${app.url}/api/journal?fromSeq=1&limit=1000`);
  t.equal(journal.status, 200);
  const entries = journal.body.commands as Entry[];
  t.equal(entries[0]!.seq, 1, 'the journal from its first command');
  t.equal(journal.body.lastSeq, entries[entries.length - 1]!.seq, 'to its last committed one');
  const snapshots = await request(`${app.url}/api/journal/snapshots`);
  t.ok((snapshots.body.snapshots as { seq: number }[]).some((s) => s.seq === 0), 'the genesis snapshot is published');

  const honest = await audit({ venue: app.url });
  t.equal(honest.divergence, null, 'the honest journal passes');
  t.ok(honest.ok);
  t.ok(honest.batches >= 2, `batches on chain: ${honest.batches}`);
  t.equal(honest.batchesChecked, honest.batches, 'every batch rebuilt item for item');
  t.ok(honest.stateHashesPosted >= 1, `state hashes posted: ${honest.stateHashesPosted}`);
  t.equal(honest.stateHashesChecked, honest.stateHashesPosted, 'every state hash posted equals the replay');
  t.ok(honest.ordersVerified >= 4, 'every signed order verified');
  t.equal(honest.lastSeq, app.app.storage.journal.lastSeq(), 'the whole journal replayed');

  const published = (snapshots.body.snapshots as { seq: number }[]).map((x) => x.seq);
  t.ok(published.some((q) => q > 0), `later snapshots too: ${published.join(', ')}`);
  const later = await audit({ venue: app.url, from: 'latest' });
  t.equal(later.divergence, null, 'the audit from the newest published snapshot passes too');
  // How many hashes come after it depends on the relayer's hashing budget (chain/relayer/stateHashes.ts): not asserted.
  t.ok(later.startSeq > 0, `from seq ${later.startSeq} (${later.stateHashesChecked} state hashes posted after it checked)`);

  // npm run audit: the same verdict, exit code 0.
  const cli = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'chain/audit/auditMain.ts', '--venue', app.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
  t.equal(cli.code, 0, 'npm run audit exits 0');
  t.match(cli.out.trim().split('\n').at(-1), /^audit passed: the journal from seq 0 to \d+ replays to every one of the \d+ batches on chain/);

  const bidSeq = entries.find((e) => e.type === 'place' && (e.command['orders'] as { orderId: Hex }[])[0]!.orderId === bid.relay.body.orders[0].orderId)!.seq;
  const resized = await alteringProxy(app.url, (e) => (e.seq !== bidSeq ? e : rewrite(e, (c) => ((c['orders'] as { size: bigint }[])[0]!.size = 10n ** 17n))));
  t.teardown(resized.close);
  const r1 = await audit({ venue: resized.url });
  t.notOk(r1.ok, 'a resized order fails the audit');
  t.match(r1.divergence, { seq: bidSeq, commandType: 'place', what: /changed after it was signed/ }, 'at that command, for its signature');

  const depositSeq = entries.find((e) => e.type === 'deposit' && e.command['owner'] === bob.address)!.seq;
  const enlarged = await alteringProxy(app.url, (e) => (e.seq !== depositSeq ? e : rewrite(e, (c) => (c['amount'] = (c['amount'] as bigint) * 2n))));
  t.teardown(enlarged.close);
  const r2 = await audit({ venue: enlarged.url });
  t.notOk(r2.ok, 'an enlarged deposit fails the audit');
  t.match(r2.divergence, { seq: depositSeq, commandType: 'deposit', what: /differs from the journal's settlement/ }, 'at that command: the chain settled another amount');

  const cancelled = entries.find((e) => e.seq > bidSeq && e.type === 'place')!.seq;
  const dropped = await alteringProxy(app.url, (e) => (e.seq === cancelled ? null : e));
  t.teardown(dropped.close);
  const r3 = await audit({ venue: dropped.url });
  t.match(r3.divergence, { seq: cancelled + 1, what: new RegExp(`journal goes from seq ${cancelled - 1} to ${cancelled + 1}`) }, 'a command left out: the gap');
});

t.test('without PUBLIC_JOURNAL: the journal routes answer 404 and global@journal is refused', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  for (const path of ['/api/journal', '/api/journal/snapshots', '/api/journal/snapshots/0']) {
    const r = await request(`${app.url}${path}`);
    t.equal(r.status, 404, path);
    t.match(r.body, { code: 'not_found', message: /PUBLIC_JOURNAL is off/ });
  }
  const ws = await connect(app, '/ws/public');
  t.teardown(() => ws.close());
  ws.send({ method: 'SUBSCRIBE', params: ['global@journal'], id: 1 });
  const refused = await ws.next((f) => f['id'] === 1, 'the refusal');
  t.match(refused, { error: { code: 4004, msg: /does not publish its journal/ } });
});

t.test('global@journal streams each command as it commits, the frame GET /api/journal pages', async (t) => {
  const app = await startChainApp({ env: { PUBLIC_JOURNAL: '1' } });
  t.teardown(() => app.close());
  const api = await asyncApiValidator(app);
  const ws = await connect(app, '/ws/public');
  t.teardown(() => ws.close());
  ws.send({ method: 'SUBSCRIBE', params: ['global@journal'], id: 1 });
  await ws.next((f) => f['id'] === 1, 'the ack');
  const w = await trader(app, 'audit-stream', { deposit: 1_000 });
  const frame = await ws.next((f) => f['channel'] === 'global@journal' && (f['data'] as Entry).type === 'deposit', 'the deposit on global@journal');
  t.equal(api.check('journal.journalEntry', frame), null, 'the frame validates against the AsyncAPI document');
  const data = frame['data'] as Entry;
  const paged = await request(`${app.url}/api/journal?fromSeq=${data.seq}&limit=1`);
  t.same(paged.body.commands[0], data, 'the same entry as the page');
  t.match(data.command, { type: 'deposit', owner: w.address, amount: '1000000000' }, 'the command in JSON, bigints as strings');
  const snapshot = await fetch(`${app.url}/api/journal/snapshots/0`);
  t.equal(snapshot.headers.get('content-type'), 'application/octet-stream');
  t.match(snapshot.headers.get('x-state-hash'), /^0x[0-9a-f]{64}$/, 'the genesis with its state hash');
});
