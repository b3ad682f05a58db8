/**
 * Time and prices come from outside the engine (architecture.md "Threads"): a clock
 * command every second, and on ORACLE=simulated a price step per pair with its marks
 * recomputed in a worker. Listing the configured pairs on a fresh venue, and seeding the
 * insurance fund on local/testnet, are done here too.
 * What they need to know of the venue (pairs, live series, oracle states) they read from the
 * read models, never from the engine (architecture.md rule 5).
 */
import { WAD, pairIdOf, type Hex, type MarkInput } from '../engine/index.ts';
import type { ReadModels } from './readModels/readModels.ts';
import type { AppConfig } from './config.ts';
import type { CommandPipeline } from './commandPipeline.ts';
import type { MarkComputer } from '../workers/markComputer.ts';
import type { Logger } from './http/log.ts';
import { SimulatedFeed } from './oracle/simulatedFeed.ts';

const toWad = (x: number): bigint => BigInt(Math.round(x * 1e8)) * (WAD / 100_000_000n);

/** On a fresh venue: list the configured pairs, give them a first price, list their series. */
export async function bootstrap(pipeline: CommandPipeline, reads: ReadModels, config: AppConfig, log: Logger): Promise<void> {
  const catalog = reads.catalog;
  let listed = 0;
  for (const p of config.pairs) {
    const pairId = pairIdOf(p.symbol);
    if (catalog.pairs.has(pairId)) continue;
    const step = WAD / 100n;
    await pipeline.submit({ type: 'list_pair', pair: { symbol: p.symbol, underlying: p.underlying, quote: p.quote, tickDecimals: p.tickDecimals, minSize: step, sizeStep: step, maxCallOI: 0n, maxPutOI: 0n } });
    await pipeline.submit({ type: 'oracle', pairId, spot: toWad(p.initialSpot), volatility: toWad(p.volatility), riskFreeRate: WAD / 20n, marks: [] });
    listed++;
  }
  // The insurance fund's seed, once, at a local/testnet venue's first start.
  if (config.network !== 'mainnet' && config.insuranceFundSeed > 0n && !reads.liquidations.fund(pipeline.now()).funded) {
    await pipeline.submit({ type: 'insurance_fund_deposit', amount: config.insuranceFundSeed, reason: 'seed' });
  }
  if (listed > 0) {
    await pipeline.submit({ type: 'clock' });
    log.info('listed pairs', { pairs: config.pairs.map((p) => p.symbol), series: catalog.series.size });
  }
}

/** The inputs to recompute every live series of a pair at a new oracle state. */
export function markInputs(reads: ReadModels, pairId: Hex, spot: bigint, volatility: bigint, riskFreeRate: bigint, nowMs: number): MarkInput[] {
  const out: MarkInput[] = [];
  for (const s of reads.catalog.series.values()) {
    if (s.pairId !== pairId || s.settled) continue;
    out.push({ seriesId: s.seriesId, isCall: s.isCall, strike: s.strike, expiry: s.expiry, spot, volatility, riskFreeRate, nowMs });
  }
  return out;
}

/** Submit an oracle update with the marks of every live series computed off the event loop. */
export async function submitOracle(pipeline: CommandPipeline, reads: ReadModels, marks: MarkComputer, pairId: Hex, spot: bigint, volatility: bigint, riskFreeRate: bigint) {
  const computed = await marks.compute(markInputs(reads, pairId, spot, volatility, riskFreeRate, pipeline.now()));
  return pipeline.submit({ type: 'oracle', pairId, spot, volatility, riskFreeRate, marks: computed });
}

/** `stop` clears the timers and resolves once a clock or oracle update already under way has been submitted. */
export type Drivers = { stop(): Promise<void> };

export function startDrivers(pipeline: CommandPipeline, reads: ReadModels, config: AppConfig, marks: MarkComputer, log: Logger): Drivers {
  const timers: NodeJS.Timeout[] = [];
  let clockRun: Promise<unknown> | null = null;
  let oracleRun: Promise<unknown> | null = null;
  timers.push(
    setInterval(() => {
      if (clockRun) return;
      clockRun = pipeline
        .submit({ type: 'clock' })
        .catch((e: unknown) => log.error('clock command failed', { error: String(e) }))
        .finally(() => (clockRun = null));
    }, config.clockIntervalMs),
  );
  if (config.oracle === 'simulated') {
    const feed = new SimulatedFeed(config.oracleSeed);
    const vols = new Map(config.pairs.map((p) => [pairIdOf(p.symbol), p.volatility]));
    timers.push(
      setInterval(() => {
        if (oracleRun) return;
        const run = async () => {
          for (const [pairId, o] of [...reads.catalog.oracles]) {
            const volatility = vols.get(pairId) ?? Number(o.volatility) / 1e18;
            const spot = feed.step({ spot: Number(o.spot) / 1e18, volatility }, config.oracleIntervalMs / 1000);
            await submitOracle(pipeline, reads, marks, pairId, toWad(spot), o.volatility, o.riskFreeRate);
          }
        };
        oracleRun = run()
          .catch((e: unknown) => log.error('oracle update failed', { error: String(e) }))
          .finally(() => (oracleRun = null));
      }, config.oracleIntervalMs),
    );
  }
  for (const t of timers) t.unref();
  return {
    async stop() {
      timers.forEach(clearInterval);
      await Promise.all([clockRun, oracleRun]);
    },
  };
}
