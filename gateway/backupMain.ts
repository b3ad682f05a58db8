/**
 * `npm run backup -- <targetDir>`: a consistent copy of a RUNNING (or stopped) venue's LMDB
 * environment (journal, snapshots, sessions, API keys, nonces) as `<targetDir>/data.mdb`,
 * with the same environment as `npm start` (DATA_DIR). It opens the environment read-only
 * beside the venue (LMDB allows readers in other processes) and copies it from one read
 * transaction (LMDB's mdb_env_copy): the venue keeps writing meanwhile, and the copy is the
 * state at one commit. The key-encryption key is not copied (docs/operations.md "Back up").
 * To restore, `<targetDir>` becomes `DATA_DIR/lmdb` of a stopped venue. Exit 0 when done,
 * 1 when refused (message on stderr), 2 on bad arguments or configuration.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { open } from 'lmdb';
import { loadConfig } from './config.ts';
import { makePrivateFile } from '../persistence/fileModes.ts';

const USAGE = 'usage: npm run backup -- <targetDir>';

const args = process.argv.slice(2);
if (args.length !== 1 || args[0]!.startsWith('-')) {
  process.stderr.write(`backup: ${args.length === 0 ? 'a target directory is required' : `unexpected arguments "${args.join(' ')}"`}\n${USAGE}\n`);
  process.exit(2);
}
const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const e of loaded.errors) process.stderr.write(`config: ${e}\n`);
  process.exit(2);
}
const lmdbDir = join(loaded.config.dataDir, 'lmdb');
const target = resolve(args[0]!);
let code = 0;
try {
  if (!existsSync(join(lmdbDir, 'data.mdb'))) throw new Error(`no LMDB environment at ${join(lmdbDir, 'data.mdb')}: is DATA_DIR right?`);
  if (existsSync(join(target, 'data.mdb'))) throw new Error(`${join(target, 'data.mdb')} exists already: choose a new directory`);
  mkdirSync(target, { recursive: true, mode: 0o700 });
  const env = open({ path: lmdbDir, maxDbs: 24, readOnly: true });
  try {
    await env.backup(target, false);
  } finally {
    await env.close();
  }
  const copy = join(target, 'data.mdb');
  makePrivateFile(copy); // as private as DATA_DIR
  process.stdout.write(`backup: ${lmdbDir} copied to ${copy} (${statSync(copy).size} bytes). Restore: stop the venue, make this directory DATA_DIR/lmdb.\n`);
} catch (e) {
  process.stderr.write(`backup: ${e instanceof Error ? e.message : String(e)}\n`);
  code = 1;
}
process.exit(code);
