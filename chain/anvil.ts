/**
 * A local anvil for the embedded chain mode and the tests (docs/chain.md "Operations"): the
 * binary of the @foundry-rs/anvil package for this platform, on 127.0.0.1.
 *
 * Without a given port anvil binds port 0 and the port is read from its own "Listening on"
 * line: a port found free and then bound by anvil is a race another process can win (tests run
 * in parallel, each with its anvil), and the RPC of the winner would answer this one's start,
 * so two venues would settle on one chain. With a given port (CHAIN_PORT, or a restart on the
 * same port) the same line is waited for: a port taken by someone else is anvil exiting with
 * "address in use", never another node's RPC taken for this one's. anvil logs each RPC call
 * on stdout after that line: read and dropped.
 *
 * With `stateDir`, anvil keeps the chain in `<stateDir>/state.json` (`--state`, dumped every
 * `--state-interval` seconds and at SIGTERM). anvil rewrites that file in place, so a kill -9
 * during a dump leaves it cut, and anvil then refuses to start (docs/chain.md "Operations"). So
 * a copy known to be whole is kept beside it, `state.json.bak`: taken at each start and every
 * `backupIntervalSec` while the dump looks whole (its size unchanged since the last look and
 * its last byte `}`), written to a temporary file and renamed. At start a state.json that does
 * not parse is moved aside (`state.json.corrupt-<time>`) and the backup used in its place.
 *
 * On POSIX anvil runs under a guard, a tiny `sh` that starts it in the background and kills it
 * when the guard's stdin closes: the pipe from this process closes when it exits however it
 * exits, SIGKILL included, so no anvil outlives the process that started it
 * (test/chain/anvilGuard.test.ts). `stop()` closes that pipe too: the guard sends SIGTERM, then
 * SIGKILL after `killAfterMs`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync } from 'node:fs';
import { copyFile, open, rename, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export type AnvilOptions = {
  /** The chain id (anvil's default 31337). */
  chainId?: number;
  /** A port to listen on; a free one when absent. */
  port?: number;
  /** Interval mining every this many milliseconds; absent: a block for every transaction. */
  blockTimeMs?: number;
  /** The block gas limit (default 1,000,000,000: room for settle() batches of hundreds of fills). */
  gasLimit?: bigint;
  /** Keep the chain in `<stateDir>/state.json`: loaded at start, dumped every `stateIntervalSec` and at a clean exit. */
  stateDir?: string;
  /** Seconds between state dumps (default 1). */
  stateIntervalSec?: number;
  /** Seconds between copies of a whole state dump to state.json.bak (default 10). */
  backupIntervalSec?: number;
  /** The genesis block's timestamp (Unix seconds). */
  timestamp?: number;
  /** The hardfork (anvil's default: its latest). */
  hardfork?: string;
  /** How long to wait for the RPC to answer (default 30 s). */
  startTimeoutMs?: number;
  /** After stop()'s SIGTERM, how long before SIGKILL (default 3 s). */
  killAfterMs?: number;
  /**
   * anvil's niceness on POSIX (default 10): on a machine shared with the venue, executing a
   * block of settlement batches takes a core for a good part of a second, and the order route
   * must not wait behind it (bench/settlement); the chain only needs to keep up on average.
   */
  nice?: number;
};

export type Anvil = {
  readonly rpcUrl: string;
  readonly port: number;
  /** anvil's own process id (not the guard's). */
  readonly pid: number;
  /** Resolves once anvil and its guard have exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after the timeout; resolves when it has exited. */
  stop(): Promise<void>;
};

const require = createRequire(import.meta.url);

const PLATFORM_ARCH: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/** The anvil binary of the @foundry-rs/anvil package for this platform. */
export function anvilBinary(): string {
  const target = PLATFORM_ARCH[`${process.platform}-${process.arch}`];
  if (target === undefined) throw new Error(`anvil: no @foundry-rs/anvil binary for ${process.platform}-${process.arch}`);
  const name = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  // Resolved from the wrapper package, as its own bin.mjs does, so its optional dependency is the one found.
  const fromWrapper = createRequire(require.resolve('@foundry-rs/anvil/package.json'));
  const path = fromWrapper.resolve(`@foundry-rs/anvil-${target}/bin/${name}`);
  if (!existsSync(path)) throw new Error(`anvil: ${path} is missing (npm install @foundry-rs/anvil)`);
  return path;
}

// The guard: anvil in the background at niceness $NICE (nice execs it: the pid is anvil's), its pid on stdout (then anvil's own output); when stdin reaches its end (the parent
// closed it or died), SIGTERM, then SIGKILL after $KILL_AFTER seconds; the guard exits with anvil.
// stdin is read through fd 3: a background list's own stdin is /dev/null.
const GUARD = [
  'exec 3<&0',
  'if command -v nice >/dev/null 2>&1; then nice -n "$NICE" "$ANVIL" "$@" </dev/null 3<&- & else "$ANVIL" "$@" </dev/null 3<&- & fi',
  'pid=$!',
  'echo "anvil-guard-pid $pid"',
  '( while read -r _ <&3; do :; done; kill -TERM "$pid" 2>/dev/null; sleep "$KILL_AFTER"; kill -KILL "$pid" 2>/dev/null ) &',
  'watcher=$!',
  'wait "$pid"',
  'code=$?',
  'kill "$watcher" 2>/dev/null',
  'exit "$code"',
].join('\n');

/** Starts anvil; resolves once its RPC answers. */
export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  return startOn(opts.port ?? 0, opts);
}

function argsOf(port: number, opts: AnvilOptions): string[] {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--gas-limit', String(opts.gasLimit ?? 1_000_000_000n)];
  if (opts.chainId !== undefined) args.push('--chain-id', String(opts.chainId));
  if (opts.blockTimeMs !== undefined) args.push('--block-time', String(opts.blockTimeMs / 1000));
  if (opts.stateDir !== undefined) args.push('--state', join(opts.stateDir, 'state.json'), '--state-interval', String(opts.stateIntervalSec ?? 1));
  if (opts.timestamp !== undefined) args.push('--timestamp', String(opts.timestamp));
  if (opts.hardfork !== undefined) args.push('--hardfork', opts.hardfork);
  return args;
}

/** Whether a file holds one whole JSON document. */
function parses(path: string): boolean {
  try {
    JSON.parse(readFileSync(path, 'utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Before anvil loads `<stateDir>/state.json`: one that does not parse (cut by a kill during a
 * dump) is moved aside and the last whole copy put in its place; with none, an Error.
 */
export function recoverState(stateDir: string): 'absent' | 'whole' | 'restored' {
  const file = join(stateDir, 'state.json');
  const backup = `${file}.bak`;
  if (!existsSync(file)) {
    if (!existsSync(backup) || !parses(backup)) return 'absent';
    copyFileSync(backup, file);
    return 'restored';
  }
  if (parses(file)) return 'whole';
  const aside = `${file}.corrupt-${Date.now()}`;
  renameSync(file, aside);
  if (existsSync(backup) && parses(backup)) {
    copyFileSync(backup, file);
    return 'restored';
  }
  throw new Error(`anvil: ${file} is not a whole state dump (moved to ${aside}) and there is no whole backup (${backup})`);
}

/** Copies state.json to state.json.bak when it looks whole and has not changed size since `lastSize`; returns its size. */
async function backupState(stateDir: string, lastSize: number): Promise<number> {
  const file = join(stateDir, 'state.json');
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return -1;
  }
  if (size === 0 || size !== lastSize) return size;
  const fd = await open(file, 'r');
  const last = Buffer.alloc(1);
  try {
    await fd.read(last, 0, 1, size - 1);
  } finally {
    await fd.close();
  }
  if (last[0] !== 0x7d) return size;
  const tmp = `${file}.bak.tmp`;
  await copyFile(file, tmp);
  if ((await stat(tmp)).size !== size) return -1;
  await rename(tmp, `${file}.bak`);
  return size;
}

async function startOn(requestedPort: number, opts: AnvilOptions): Promise<Anvil> {
  const binary = anvilBinary();
  if (opts.stateDir !== undefined) recoverState(opts.stateDir);
  const args = argsOf(requestedPort, opts);
  const killAfterMs = opts.killAfterMs ?? 3000;
  const guarded = process.platform !== 'win32';
  const child: ChildProcess = guarded
    ? spawn('sh', ['-c', GUARD, 'anvil-guard', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ANVIL: binary, NICE: String(opts.nice ?? 10), KILL_AFTER: String(Math.max(1, Math.ceil(killAfterMs / 1000))) },
    })
    : spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  // stdout: the guard's "anvil-guard-pid N", anvil's banner up to "Listening on 127.0.0.1:PORT", then a line per RPC call (dropped).
  const started = new Promise<{ pid: number; port: number }>((resolve, reject) => {
    let out = '';
    let pid: number | null = guarded ? null : child.pid!;
    let done = false;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      if (done) return;
      out = (out + d).slice(-64_000);
      pid ??= Number(/^anvil-guard-pid (\d+)$/m.exec(out)?.[1] ?? Number.NaN) || null;
      const listening = /^Listening on 127\.0\.0\.1:(\d+)\s*$/m.exec(out);
      if (pid !== null && listening !== null) {
        done = true;
        out = '';
        resolve({ pid, port: Number(listening[1]) });
      }
    });
    child.on('error', reject);
    void exited.then(() => reject(new Error(`anvil exited at start: ${stderr.trim()}`)));
  });
  started.catch(() => {}); // a timeout may win the race below; anvil exiting after it is not an error of its own
  let pid: number = child.pid!;
  let port: number;
  try {
    const timeoutMs = opts.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`anvil did not start listening within ${timeoutMs} ms: ${stderr.trim()}`)), timeoutMs);
    });
    try {
      ({ pid, port } = await Promise.race([started, timeout]));
    } finally {
      clearTimeout(timer);
    }
    if (requestedPort !== 0 && port !== requestedPort) throw new Error(`anvil listens on ${port}, not the port asked for (${requestedPort})`);
  } catch (e) {
    if (guarded) child.stdin!.end();
    else child.kill('SIGTERM');
    await exited;
    throw e;
  }
  const rpcUrl = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    if (stopping === null) {
      stopping = (async () => {
        if (guarded) child.stdin!.end();
        else child.kill('SIGTERM');
        const late = setTimeout(() => {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }, killAfterMs + 2000);
        await exited;
        clearTimeout(late);
      })();
    }
    return stopping;
  };
  try {
    await waitForRpc(rpcUrl, opts.startTimeoutMs ?? 30_000, exited, () => stderr);
  } catch (e) {
    await stop();
    throw e;
  }
  const stateDir = opts.stateDir;
  if (stateDir !== undefined) {
    // A whole copy now (state.json parsed at start, or none yet), then one whenever the dump looks whole.
    const file = join(stateDir, 'state.json');
    if (existsSync(file)) copyFileSync(file, `${file}.bak`);
    let lastSize = -1;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      backupState(stateDir, lastSize).then(
        (size) => {
          lastSize = size;
          busy = false;
        },
        () => {
          busy = false;
        },
      );
    }, (opts.backupIntervalSec ?? 10) * 1000);
    timer.unref();
    void exited.then(() => clearInterval(timer));
  }
  return { rpcUrl, port, pid, exited, stop };
}

async function waitForRpc(rpcUrl: string, timeoutMs: number, exited: Promise<unknown>, stderr: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`anvil exited at start: ${stderr().trim()}`);
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`anvil did not answer at ${rpcUrl} within ${timeoutMs} ms: ${stderr().trim()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
