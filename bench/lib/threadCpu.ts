/**
 * CPU time per thread of the current process (Linux /proc; clock ticks, so 10 ms
 * resolution; empty elsewhere): how a server's time per request splits between its main
 * thread and the others (pool workers, LMDB's writer, V8's and libuv's helpers). Node names
 * none of its threads, so the main thread is `main` (its id is the pid) and the others
 * `tid N`.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function threadCpuMicros(): Record<string, number> {
  const out: Record<string, number> = {};
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat (1-based), in clock ticks (100 Hz).
      const micros = (Number(fields[11]) + Number(fields[12])) * 10_000;
      const name = Number(tid) === process.pid ? 'main' : `tid ${tid}`;
      out[name] = (out[name] ?? 0) + micros;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** µs of CPU per item by thread between two samples, busiest first (threads under 1 µs/item left out). */
export function perThreadUsPerItem(before: Record<string, number>, after: Record<string, number>, items: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, us]) => [name, Math.round((us - (before[name] ?? 0)) / items)] as const)
      .filter(([, us]) => us >= 1)
      .sort((x, y) => y[1] - x[1]),
  );
}
