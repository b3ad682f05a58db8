/**
 * `npm run recover -- --truncate-at <seq> [--dry-run]`: the operator's explicit way past
 * journal damage that stops start-up (persistence/recover.ts, docs/persistence.md
 * "Recovery"). Run it with the venue stopped and the same environment (DATA_DIR,
 * KEY_ENCRYPTION_KEY) as `npm start`. It says what it will drop, then:
 *   1. marks every order nonce ever used as used (each wallet's highest becomes its floor),
 *   2. replays the journal up to seq-1 and moves seq and everything after it to the
 *      journal-quarantine database (kept, for forensics),
 *   3. logs what it did (JSON lines on stderr) and exits 0; any refusal exits 1.
 * `--dry-run` only says what it would drop.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, venueConfigOf } from './config.ts';
import { jsonLogger } from './http/log.ts';
import { replayable } from './app.ts';
import { Venue } from '../engine/index.ts';
import { openStorage, type Storage } from '../persistence/storage.ts';
import { recover } from '../persistence/recover.ts';

const USAGE = 'usage: npm run recover -- --truncate-at <seq> [--dry-run]';

function parseArgs(argv: readonly string[]): { truncateAt: number; dryRun: boolean } | string {
  let truncateAt: number | null = null;
  let dryRun = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--dry-run') dryRun = true;
    else if (a === '--truncate-at' || a.startsWith('--truncate-at=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || !/^[1-9]\d*$/.test(v) || !Number.isSafeInteger(Number(v))) return `--truncate-at needs a sequence number >= 1 (got ${v === undefined ? 'nothing' : `"${v}"`})`;
      truncateAt = Number(v);
    } else return `unknown argument "${a}"`;
  }
  return truncateAt === null ? '--truncate-at <seq> is required' : { truncateAt, dryRun };
}

/** What a truncation at `from` drops: stored entries, the journal's end, the first damaged entry if any. */
function plan(storage: Storage, from: number): { end: number; stored: number; damage: string | null } {
  let stored = 0;
  let damage: string | null = null;
  let expected = from;
  for (const e of storage.journal.scan(from)) {
    if (e.seq < from) continue;
    if (damage === null && !e.ok) damage = `entry ${e.seq} failed its check (${e.reason})`;
    else if (damage === null && e.seq !== expected) damage = `entry ${expected} is missing (next is ${e.seq})`;
    stored++;
    expected = e.seq + 1;
  }
  return { end: storage.journal.lastSeq(), stored, damage };
}

const args = parseArgs(process.argv.slice(2));
if (typeof args === 'string') {
  process.stderr.write(`recover: ${args}\n${USAGE}\n`);
  process.exit(2);
}
const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const e of loaded.errors) process.stderr.write(`config: ${e}\n`);
  process.exit(2);
}
const { dataDir } = loaded.config;
const log = jsonLogger('info');
const say = (line: string): void => void process.stdout.write(`recover: ${line}\n`);

let storage: Storage | null = null;
let code = 0;
try {
  const dataFile = join(dataDir, 'lmdb', 'data.mdb');
  if (!existsSync(dataFile)) throw new Error(`no LMDB environment at ${dataFile}: is DATA_DIR right? (nothing was created)`);
  storage = openStorage({ dataDir, log, keyEncryptionKey: process.env.KEY_ENCRYPTION_KEY });
  const p = plan(storage, args.truncateAt);
  if (args.truncateAt > p.end) throw new Error(`the journal ends at ${p.end}; there is nothing at or after ${args.truncateAt} to drop`);
  say(
    `DATA_DIR ${dataDir}: the journal ends at ${p.end}; --truncate-at ${args.truncateAt} drops entries ${args.truncateAt}..${p.end} ` +
      `(${p.stored} stored${p.damage === null ? ', none damaged' : `; first damage: ${p.damage}`}), moving them to the journal-quarantine database, ` +
      "and makes each wallet's highest used order nonce its floor (nonces at or below it stay used)",
  );
  if (args.dryRun) say('dry run: nothing changed');
  else {
    const s = storage;
    let wallets = 0;
    const r = recover({
      journal: s.journal,
      snapshots: s.snapshots,
      create: () => replayable(Venue.create(venueConfigOf(loaded.config))),
      restore: (bytes) => replayable(Venue.restore(bytes)),
      log,
      truncateAt: args.truncateAt,
      beforeTruncate: () => (wallets = s.stores.orderNonces.burnAll()),
    });
    const removed = r.truncated?.removed ?? 0;
    log.warn('recover: journal truncated by the operator', { truncateAt: args.truncateAt, removed, lastSeq: r.lastSeq, nonceFloorWallets: wallets, dataDir });
    say(`done: dropped ${removed} entries from ${args.truncateAt}; the journal now ends at ${r.lastSeq}; order-nonce floors set for ${wallets} wallets. Start the venue with npm start.`);
  }
} catch (e) {
  process.stderr.write(`recover: ${e instanceof Error ? e.message : String(e)}\n`);
  code = 1;
} finally {
  await storage?.close();
}
process.exit(code);
