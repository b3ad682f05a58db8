/**
 * The server side of bench/http, run in a child process so that the load generator does
 * not share its event loop: the venue on uWebSockets.js (its real routes) and, in the same
 * process, the same read-model handlers on fastify. Prints one JSON line with both ports
 * and a series symbol, then serves until killed.
 */
import Fastify from 'fastify';
import { loadConfig } from '../../gateway/config.ts';
import { startApp } from '../../gateway/app.ts';
import { silentLogger } from '../../gateway/http/log.ts';

// No chain: reads do not need one, and the embedded chain needs DATA_DIR's journal.
const loaded = loadConfig({ PORT: '0', CHAIN: 'none', WORKERS: '1', LOG_LEVEL: 'error', RATE_LIMITS: JSON.stringify({ markets: { anonymous: null }, platform: { anonymous: null } }) });
if (!loaded.ok) throw new Error(loaded.errors.join('; '));
const app = await startApp(loaded.config, { log: silentLogger, memory: true, inlineWorkers: true, drivers: false });
const s = app.services;
const series = [...s.reads.catalog.series.values()][Math.floor(s.reads.catalog.series.size / 4)]!;

// Leaderboard and platform reads over 1,000 ranked wallets: fills folded into the activity read
// model as the engine would send them (one trade event each), then a clock event ranks them.
{
  const ts = s.reads.ts;
  const wallet = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;
  for (let i = 0; i < 1000; i++) {
    const premium = BigInt(1 + (i % 97)) * 1_000_000_000n;
    s.reads.activity.apply({ type: 'trade', seq: s.reads.seq, ts, tradeId: `b${i}`, seriesId: series.seriesId, price: 0n, size: 0n, premium, notional: premium * 50n, takerSide: 'buy', maker: wallet(i), taker: wallet((i * 7 + 3) % 1000), makerOrderId: null, takerOrderId: null, makerPortfolioId: 1, takerPortfolioId: 1, makerFee: 0n, takerFee: 0n, openInterest: 0n, source: 'book' });
  }
  s.reads.activity.apply({ type: 'clock', seq: s.reads.seq, ts: ts + 1 });
}

// The same handlers as gateway/routes/markets.ts: resolve the series, answer the cached JSON.
const fastify = Fastify({ logger: false });
fastify.get<{ Params: { symbol: string } }>('/api/markets/ticker/:symbol', (req, reply) => {
  const found = s.market.find(req.params.symbol);
  if (!found) return reply.code(404).send({ code: 'not_found', message: `Series not found: ${req.params.symbol}`, details: null });
  return reply.type('application/json; charset=utf-8').send(s.market.tickerJson(found));
});
fastify.get<{ Params: { symbol: string }; Querystring: { depth?: string } }>('/api/markets/orderbook/:symbol', (req, reply) => {
  const found = s.market.find(req.params.symbol);
  if (!found) return reply.code(404).send({ code: 'not_found', message: `Series not found: ${req.params.symbol}`, details: null });
  return reply.type('application/json; charset=utf-8').send(s.market.orderbookJson(found, Number(req.query.depth ?? 20), Date.now()));
});
await fastify.listen({ host: '127.0.0.1', port: 0 });
const address = fastify.server.address();
const fastifyPort = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(JSON.stringify({ uwsPort: app.port, fastifyPort, symbol: series.symbol }) + '\n');
process.on('SIGTERM', () => {
  void Promise.all([app.close(), fastify.close()]).then(() => process.exit(0));
});
// Never outlive the generator (bench/http.ts): its end of stdin closes when it exits.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();
