/**
 * bench/orders' floor subject: the smallest server that makes the hops the order route must
 * make, and nothing else. uWebSockets.js reads the same request; the body is parsed; the
 * signature is recovered through the same micro-batcher and Piscina pool; the body is written
 * to LMDB and acknowledged after the commit's fdatasync (the journal's durability); a reply of
 * the relay's size is written. No auth, checks, engine, events, calldata or metrics. Measured
 * with the same generator at the same rate in the same run, its latency is what this machine
 * gives the architecture itself; the venue's latency minus the floor is the venue's own.
 *
 * It runs in a process of its own (`runFloorChild`, forked by bench/orders.ts) with a pool of
 * its own (the venue's default size): the venue's heap and its collections stay out of it.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { open } from 'lmdb';
import { loadUws } from '../../gateway/uws.ts';
import { ackTracker } from '../../persistence/lmdbAck.ts';
import { createMicroBatcher } from '../../workers/microBatcher.ts';
import { createPoolVerifier, type SignatureVerifier } from '../../workers/signatureVerifier.ts';
import type { Eip712Domain, PlaceOrderMessage } from '../../workers/eip712/types.ts';
import { within } from './deadline.ts';
import { threadCpuMicros } from './threadCpu.ts';

export type FloorServer = { readonly port: number; close(): Promise<void> };

type Body = { seriesId: `0x${string}`; portfolioId: string; isBuy: boolean; tick: number; size: string; expiry: number; nonce: string; deadline: string; signature: string };

const REPLY = JSON.stringify({ mode: 'relay', operation: 'place_order', relay: { calldata: `0x${'00'.repeat(420)}` }, orders: [{ status: 'open' }] });

export function startFloorServer(verifier: SignatureVerifier, domain: Eip712Domain): Promise<FloorServer> {
  const { uws } = loadUws();
  const dir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const env = open({ path: dir, maxDbs: 2, separateFlushed: true });
  const db = env.openDB({ name: 'journal', keyEncoding: 'uint32', encoding: 'binary' });
  const tracker = ackTracker('flush');
  const batcher = createMicroBatcher(verifier, { maxBatch: 64 });
  let seq = 0;
  const app = uws.App();
  app.post('/api/mm/orders/place', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      const bytes = Buffer.concat(chunks);
      const b = JSON.parse(bytes.toString()) as Body;
      const message: PlaceOrderMessage = { seriesId: b.seriesId, portfolioId: BigInt(b.portfolioId), isBuy: b.isBuy, tick: b.tick, size: BigInt(b.size), expiry: b.expiry, nonce: BigInt(b.nonce), deadline: BigInt(b.deadline) };
      void batcher
        .verify({ kind: 'place', domain, message, signature: b.signature })
        .then(() => tracker.ack(db.put(++seq, bytes)))
        .then(
          () => {
            if (!aborted) res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(REPLY));
          },
          // The generator counts non-200 replies and the benchmark refuses a floor with errors.
          () => {
            if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').end());
          },
        );
    });
  });
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => {
      if (!socket) return reject(new Error('floor server: listen failed'));
      resolve({
        port: uws.us_socket_local_port(socket),
        async close() {
          uws.us_listen_socket_close(socket);
          await env.close();
          rmSync(dir, { recursive: true, force: true });
        },
      });
    });
  });
}

type FloorMessage = { type: 'start'; domain: Eip712Domain } | { type: 'cpu' } | { type: 'stop' };
type FromFloor = { port: number } | { cpu: Record<string, number> };

/** The forked floor: its port, its CPU time by thread so far (bench/lib/threadCpu.ts), and a stop that waits for its exit. */
export type ForkedFloor = { port: number; cpu(): Promise<Record<string, number>>; stop(): Promise<void> };

/** Fork the floor in its own process; resolves once it listens. */
export function forkFloor(domain: Eip712Domain): Promise<ForkedFloor> {
  const child = fork(fileURLToPath(import.meta.url), ['--floor-child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = new Promise<ForkedFloor>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`floor server exited (${code}) before it was ready`)));
    child.once('message', (m: FromFloor) => {
      child.removeAllListeners('exit');
      resolve({
        port: (m as { port: number }).port,
        cpu: () => {
          const answer = new Promise<Record<string, number>>((done) => child.once('message', (r: FromFloor) => done((r as { cpu: Record<string, number> }).cpu)));
          child.send({ type: 'cpu' } satisfies FloorMessage);
          return within(answer, 'floor server: its CPU time');
        },
        stop: () => {
          if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
          const exited = new Promise<void>((done) => child.once('exit', () => done()));
          child.send({ type: 'stop' } satisfies FloorMessage);
          return within(exited, 'floor server: exiting after stop').catch((e: unknown) => {
            child.kill('SIGKILL');
            throw e;
          });
        },
      });
    });
    child.send({ type: 'start', domain } satisfies FloorMessage);
  });
  return within(ready, 'floor server: start-up (its port)').catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
}

async function runFloorChild(): Promise<void> {
  // Never outlive the generator.
  process.on('disconnect', () => process.exit(1));
  const verifier = createPoolVerifier();
  let server: FloorServer | null = null;
  process.on('message', (m: FloorMessage) => {
    if (m.type === 'start') {
      void startFloorServer(verifier, m.domain).then((s) => {
        server = s;
        process.send!({ port: s.port } satisfies FromFloor);
      });
    } else if (m.type === 'cpu') {
      process.send!({ cpu: threadCpuMicros() } satisfies FromFloor);
    } else {
      void Promise.all([server?.close(), verifier.close()]).then(() => process.exit(0));
    }
  });
}

if (process.argv.includes('--floor-child')) await runFloorChild();
