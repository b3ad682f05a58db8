/**
 * The WebSocket subscribers of the fan-out benchmarks (bench/fanout.ts, bench/cluster.ts), in a
 * process of their own (the server keeps its own core): raw TCP sockets that do the WebSocket
 * handshake by hand and count frames by parsing only frame headers (payloads are skipped,
 * except on every `sampleEvery`-th socket, which reads the seq for latency samples). Sockets
 * are in named groups (`target`), each counted apart; counts are reported every 2 ms.
 *
 * Forked as `bench/lib/fanoutClient.ts client <bulk|probe>` (`forkFanoutClient`): probes
 * sample every socket. It never outlives the process that forked it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { within } from './deadline.ts';

/** Every 50th socket of a bulk client reads the seq of each frame. */
const SAMPLE_EVERY = 50;
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** `target`: a group of sockets, named by the caller (a server, or part of one); counts are per group. */
export type ToClient = { cmd: 'connect'; target: string; port: number; path: string; n: number } | { cmd: 'send'; target: string; text: string; expectFrames: number } | { cmd: 'reset' } | { cmd: 'samples' } | { cmd: 'cpu' } | { cmd: 'exit' };
export type FromClient = { t: 'done'; cpuUs?: number } | { t: 'progress'; counts: Record<string, number> } | { t: 'samples'; samples: [number, number][] };
export const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function runClient(sampleEvery: number): void {
  const counts: Record<string, number> = {};
  const sockets: Record<string, Socket[]> = {};
  let samples: [number, number][] = [];
  let waitFrames = 0;
  let onFrames: (() => void) | null = null;
  const send = (m: FromClient) => process.send!(m);
  const maskedText = (text: string): Buffer => {
    const payload = Buffer.from(text);
    const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
    return Buffer.concat([head, Buffer.alloc(4), payload]); // mask key 0: payload unchanged (RFC 6455 allows any key)
  };

  /** Counts server frames in a TCP stream by their headers; answers pings; sampled sockets read each seq. */
  function attach(s: Socket, target: string, sampled: boolean): void {
    let head = Buffer.alloc(0);
    let skip = 0;
    let text: Buffer[] | null = null;
    let opcode = 0;
    s.on('data', (chunk: Buffer) => {
      let buf = head.length > 0 ? Buffer.concat([head, chunk]) : chunk;
      head = Buffer.alloc(0);
      let i = 0;
      while (i < buf.length) {
        if (skip > 0) {
          const n = Math.min(skip, buf.length - i);
          if (text) text.push(buf.subarray(i, i + n));
          skip -= n;
          i += n;
          if (skip === 0) finish();
          continue;
        }
        if (buf.length - i < 2) break;
        const b1 = buf[i + 1]! & 127;
        const hl = b1 === 126 ? 4 : b1 === 127 ? 10 : 2;
        if (buf.length - i < hl) break;
        opcode = buf[i]! & 15;
        const len = b1 === 126 ? buf.readUInt16BE(i + 2) : b1 === 127 ? Number(buf.readBigUInt64BE(i + 2)) : b1;
        i += hl;
        text = (sampled && opcode === 1) || opcode === 9 ? [] : null;
        skip = len;
        if (len === 0) finish();
      }
      if (i < buf.length) head = Buffer.from(buf.subarray(i));
      buf = Buffer.alloc(0);
    });
    function finish(): void {
      if (opcode === 1) {
        counts[target] = (counts[target] ?? 0) + 1;
        if (text) {
          const m = /"seq":(\d+)/.exec(Buffer.concat(text).toString());
          if (m) samples.push([Number(m[1]), nowUs()]);
        }
        if (waitFrames > 0 && --waitFrames === 0) onFrames?.();
      } else if (opcode === 9) {
        const p = Buffer.concat(text ?? []);
        s.write(Buffer.concat([Buffer.from([0x8a, 0x80 | p.length]), Buffer.alloc(4), p])); // pong
      }
      text = null;
    }
  }

  function open(port: number, path: string): Promise<Socket> {
    let sock: Socket | null = null;
    const handshake = new Promise<Socket>((resolve, reject) => {
      const s = (sock = tcpConnect(port, '127.0.0.1', () => s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)));
      s.setNoDelay(true);
      s.on('error', reject);
      let got = '';
      const onData = (d: Buffer) => {
        got += d.toString('latin1');
        const end = got.indexOf('\r\n\r\n');
        if (end < 0) return;
        s.off('data', onData);
        if (!got.startsWith('HTTP/1.1 101')) return reject(new Error(got.split('\r\n')[0]));
        resolve(s);
      };
      s.on('data', onData);
    });
    return within(handshake, `fanout client: the WebSocket handshake with 127.0.0.1:${port}${path}`).catch((e: unknown) => {
      (sock as Socket | null)?.destroy();
      throw e;
    });
  }

  process.on('message', async (m: ToClient) => {
    if (m.cmd === 'connect') {
      const group = (sockets[m.target] ??= []);
      counts[m.target] ??= 0;
      for (let i = 0; i < m.n; i += 250) {
        const batch = await Promise.all(Array.from({ length: Math.min(250, m.n - i) }, () => open(m.port, m.path)));
        for (const s of batch) {
          attach(s, m.target, group.length % sampleEvery === 0);
          group.push(s);
        }
      }
      send({ t: 'done' });
    } else if (m.cmd === 'send') {
      waitFrames = m.expectFrames;
      onFrames = () => send({ t: 'done' });
      const frame = maskedText(m.text);
      for (const s of sockets[m.target] ?? []) s.write(frame);
    } else if (m.cmd === 'reset') {
      for (const k of Object.keys(counts)) counts[k] = 0;
      samples = [];
      send({ t: 'done', cpuUs: cpuUs() });
    } else if (m.cmd === 'samples') {
      send({ t: 'samples', samples });
    } else if (m.cmd === 'cpu') {
      send({ t: 'done', cpuUs: cpuUs() });
    } else {
      for (const s of Object.values(sockets).flat()) s.destroy();
      process.exit(0);
    }
  });
  // Never outlive the server process.
  process.on('disconnect', () => process.exit(0));
  let last = -1;
  setInterval(() => {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total === last) return;
    last = total;
    send({ t: 'progress', counts: { ...counts } });
  }, 2).unref();
}

/** A client process as its benchmark sees it: the latest counts per group, bounded questions. */
export type FanoutClient = {
  readonly child: ChildProcess;
  /** Frames counted per group, as of the last progress report. */
  progress: Record<string, number>;
  /** Called once at the next progress report (then cleared). */
  progressWaiter: (() => void) | null;
  ask(m: ToClient): Promise<FromClient>;
};

/**
 * Fork a client process (`bulk`: every SAMPLE_EVERY-th socket sampled; `probe`: every socket),
 * added to `children` (the benchmark kills them if it fails). Every question to it is bounded
 * (deadline.ts): one that stops answering, or exits, fails the run.
 */
export function startFanoutClient(bench: string, role: 'bulk' | 'probe', children: ChildProcess[]): FanoutClient {
  const child = fork(fileURLToPath(import.meta.url), ['client', role], { execArgv: process.execArgv, stdio: 'inherit' });
  let waiter: { resolve: (m: FromClient) => void; reject: (e: Error) => void } | null = null;
  children.push(child);
  child.once('exit', (code, signal) => waiter?.reject(new Error(`${bench}: the ${role} client process exited (${code ?? signal})`)));
  const c: FanoutClient = {
    child,
    progress: {},
    progressWaiter: null,
    ask: (m) => within(new Promise<FromClient>((resolve, reject) => ((waiter = { resolve, reject }), child.send(m))), `${bench}: the ${role} client's answer to ${m.cmd}`),
  };
  child.on('message', (m: FromClient) => {
    if (m.t !== 'progress') return waiter?.resolve(m);
    c.progress = m.counts;
    const w = c.progressWaiter;
    c.progressWaiter = null;
    w?.();
  });
  return c;
}

if (process.argv[2] === 'client') runClient(process.argv[3] === 'probe' ? 1 : SAMPLE_EVERY);
