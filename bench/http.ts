/**
 * Public REST reads per second (ticker and order book) on the venue's uWebSockets.js
 * gateway against the same read-model handlers on fastify, in the same run, alternating.
 *
 * Both servers run in one child process; the load generator (bench/http/loadgen.ts, raw
 * sockets, HTTP pipelining) runs in this process on the same 2-core machine, so it takes
 * roughly a core from the server: absolute figures understate the server, the ratio is
 * the meaningful number. Latency is per request from write to the end of its response,
 * at full pipelined load (so it includes queueing).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { report } from './lib/report.ts';
import { percentile } from './lib/stats.ts';
import { load } from './http/loadgen.ts';

const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./http/servers.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise<{ uwsPort: number; fastifyPort: number; symbol: string }>((resolve, reject) => {
  createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});

const opts = { connections: 32, depth: 8, seconds: 3 };
const paths = { ticker: `/api/markets/ticker/${info.symbol}`, orderbook: `/api/markets/orderbook/${info.symbol}?depth=20` };
const best: Record<string, { uws: number; fastify: number; lat: Float64Array }> = {};
try {
  for (const [name, path] of Object.entries(paths)) {
    let uws = 0;
    let fastify = 0;
    let lat: Float64Array = new Float64Array(0);
    await load(info.uwsPort, path, { ...opts, seconds: 1 }); // warm up both
    await load(info.fastifyPort, path, { ...opts, seconds: 1 });
    for (let round = 0; round < 3; round++) {
      const u = await load(info.uwsPort, path, opts);
      if (u.perSec > uws) {
        uws = u.perSec;
        lat = u.latenciesUs;
      }
      fastify = Math.max(fastify, (await load(info.fastifyPort, path, opts)).perSec);
    }
    best[name] = { uws, fastify, lat };
    console.log(`# ${name}: uWS ${Math.round(uws)} req/s, fastify ${Math.round(fastify)} req/s, ratio ${(uws / fastify).toFixed(2)}, p50 ${percentile(lat, 50).toFixed(0)} us, p99 ${percentile(lat, 99).toFixed(0)} us`);
  }
} finally {
  child.kill('SIGTERM');
}

const t = best.ticker!;
const o = best.orderbook!;
report({
  bench: 'http',
  metric: 'ticker_reads_per_s',
  unit: 'req/s',
  value: t.uws,
  peer: 'fastify',
  peerValue: t.fastify,
  ratio: t.uws / t.fastify,
  p50_us: percentile(t.lat, 50),
  p99_us: percentile(t.lat, 99),
  extra: {
    orderbookPerSec: Math.round(o.uws),
    orderbookFastifyPerSec: Math.round(o.fastify),
    orderbookRatio: o.uws / o.fastify,
    orderbookP99Us: percentile(o.lat, 99),
    load: `${opts.connections} connections x ${opts.depth} pipelined, load generator in the same machine (2 cores)`,
  },
});
