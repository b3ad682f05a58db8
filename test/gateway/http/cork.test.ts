/**
 * A reply written after an await must be corked, also on routes that read no body
 * (uWS otherwise warns on stderr and writes the reply in several syscalls).
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./fixtures/asyncReplyChild.ts', import.meta.url));
const r = spawnSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8', timeout: 60_000 });
t.equal(r.status, 0, r.stderr);
t.match(r.stdout, /^ok 20$/m, 'every request answered');
t.notMatch(r.stderr, /corked/, 'no uncorked write');
