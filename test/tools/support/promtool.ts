/**
 * Runs promtool (Debian: the `prometheus` package; .ci/run installs it when missing) for the
 * tool tests, bounded by a timeout.
 */
import { spawn } from 'node:child_process';

/** Run `promtool ...args` (in `cwd`, with `input` on stdin); its exit code and all it printed. */
export function promtool(args: readonly string[], options: { input?: string; cwd?: string } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('promtool', [...args], { stdio: ['pipe', 'pipe', 'pipe'], ...(options.cwd !== undefined ? { cwd: options.cwd } : {}) });
    let output = '';
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`promtool ${args.join(' ')} did not finish within 60 s`));
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
    p.stdin.end(options.input ?? '');
  });
}
