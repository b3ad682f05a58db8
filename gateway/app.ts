/**
 * The venue, assembled: storage and recovery, the engine behind the command pipeline,
 * workers, read models, routes, streams, drivers. Every boundary's implementation is
 * chosen here and only here (style.md habit 8).
 */
import { randomInt } from 'node:crypto';
import { Venue, type Hex, type VenueOptions } from '../engine/index.ts';
import { readsFor, replayable } from './replayable.ts';
import { createControlMetrics } from './http/controlMetrics.ts';
import { registerOpsMetrics } from './http/opsMetrics.ts';
import { createLiquidationMetrics } from './http/liquidationMetrics.ts';
import { openStorage, memoryStorage, type Storage } from '../persistence/storage.ts';
import { recover } from '../persistence/recover.ts';
import { Snapshotter, type SnapshotterOptions } from '../persistence/snapshotter.ts';
import { createSnapshotWorker, type SnapshotWorker } from './snapshotWorker.ts';
import { createPoolVerifier, createInlineVerifier } from '../workers/signatureVerifier.ts';
import { createPoolMarkComputer, createInlineMarkComputer } from '../workers/markComputer.ts';
import { venueConfigOf, type AppConfig } from './config.ts';
import { CommandPipeline } from './commandPipeline.ts';
import { createMetrics } from './http/metrics.ts';
import { createHttpServer } from './http/server.ts';
import { systemRoutes } from './http/systemRoutes.ts';
import { createAsyncApiRegistry } from './http/asyncapi.ts';
import { jsonLogger, type Logger } from './http/log.ts';
import { loadUws } from './uws.ts';
import { bootstrap, startDrivers, type Drivers } from './drivers.ts';
import type { Services } from './services.ts';
import { publicJournal } from './publicJournal.ts';
import { SiweDomains } from './auth/siweDomains.ts';
import { apiRoutes, apiInfo } from './routes/index.ts';
import { webRoutes } from './routes/web.ts';
import { attachStreams } from './streams/index.ts';
import { AlertBus } from './monitoring/alertBus.ts';
import type { Monitor } from './streams/monitorStream.ts';
import { openNatsJournal, type NatsJournal } from '../persistence/natsJournal.ts';
import { openKvStores, type KvStores } from '../persistence/kvStores.ts';
import { secretBox } from '../persistence/stores/secretBox.ts';
import { SESSION_TTL_MS } from './auth/sessions.ts';
import { NONCE_TTL_MS } from './auth/nonces.ts';
import { startEngineRole, type EngineRole } from './cluster/engineRole.ts';
import { clusterMetrics } from './cluster/clusterMetrics.ts';
import { commandSubject, serveCommands, startEdge, type Edge } from './cluster/edge.ts';
import { noChainInfo, startVenueChain, type VenueChain } from '../chain/venueChain.ts';
import { chainMetrics } from './http/chainMetrics.ts';

/** Kept here for the tools and tests that import it from the app (gateway/replayable.ts). */
export { replayable };

export type AppOptions = {
  readonly log?: Logger;
  /** Wall clock (Unix ms); tests pass a controllable one. */
  readonly clock?: () => number;
  /** Run workers in process (tests; slower for heavy load, identical results). */
  readonly inlineWorkers?: boolean;
  /** Keep everything in memory (tests of routes that need no restart). */
  readonly memory?: boolean;
  /** Start the clock and oracle timers (default true). */
  readonly drivers?: boolean;
  /**
   * Runs `fn` every `ms` and returns its stop: the venue@health second of /ws/monitor. Default:
   * an unref'd interval when the drivers run, none with `drivers: false`. Tests pass their own
   * to see the period and drive the ticks without real time.
   */
  readonly every?: Every;
  /** JOURNAL=nats: called when this node stops being the leader (clusterMain exits). */
  readonly onDeposed?: (reason: string) => void;
  /**
   * Take periodic snapshots on the main thread, as before the snapshot worker (tests and
   * benchmarks comparing the two). Default false: on the LMDB journal a worker thread writes them.
   */
  readonly snapshotInThread?: boolean;
};

export type Every = (ms: number, fn: () => void) => () => void;

/** venue@health's period (extensions.md "Admin monitoring stream": every second). */
export const HEALTH_INTERVAL_MS = 1000;

const realEvery: Every = (ms, fn) => {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export type App = {
  readonly port: number;
  readonly services: Services;
  /**
   * The engine itself, for tests, benchmarks and operator tools that inspect it (its state
   * hash, its state): the gateway's own code reaches it only through `services.venue`, the
   * front door, and reads views from `services.reads`.
   */
  readonly engine: Venue;
  readonly storage: Storage;
  /** The admin monitoring stream: `tick()` sends venue@health (every second, by a timer, when the drivers run; tests call it). */
  readonly monitor: Monitor;
  /** JOURNAL=nats: this node's role (standby, leader, deposed); null on the LMDB journal and on an edge. */
  readonly role: EngineRole | null;
  /** EDGE=1: this edge gateway (follows the stream, forwards writes to the leader); else null. */
  readonly edge: Edge | null;
  /** CHAIN=embedded|rpc: the settlement chain and its relayer (docs/chain.md); null with CHAIN=none. */
  readonly chain: VenueChain | null;
  close(): Promise<void>;
};

/**
 * JOURNAL=nats: the journal is the JetStream stream; snapshots stay in this node's DATA_DIR.
 * With STORES=shared (the default there) sessions, API keys, users, SIWE nonces and the
 * replay window are JetStream KV buckets every node shares, on the journal's connection;
 * order nonces stay local (docs/persistence.md "Shared stores").
 */
async function withNatsJournal(storage: Storage, config: AppConfig, log: Logger, now: number): Promise<Storage> {
  let journal: NatsJournal | undefined;
  let shared: KvStores | null = null;
  try {
    journal = await openNatsJournal({ servers: [...config.natsUrls], stream: config.natsStream, name: config.nodeId });
    if (config.stores === 'shared') {
      shared = await openKvStores({
        connection: journal.connection,
        prefix: config.natsStream,
        replicas: config.natsUrls.length >= 3 ? 3 : 1,
        box: secretBox(Buffer.from(config.keyEncryptionKey ?? '', 'hex')),
        log,
        now,
        sessionTtlMs: SESSION_TTL_MS,
        nonceTtlMs: NONCE_TTL_MS,
        orderNonces: storage.stores.orderNonces,
      });
      log.info('stores: shared on JetStream key-value buckets', { buckets: shared.buckets });
    }
  } catch (e) {
    await journal?.close();
    await storage.close();
    throw e;
  }
  const opened = journal;
  return {
    ...storage,
    journal: opened,
    stores: shared ?? storage.stores,
    close: async () => {
      await shared?.close();
      await opened.close();
      await storage.close();
    },
  };
}

export async function startApp(config: AppConfig, options: AppOptions = {}): Promise<App> {
  const log = options.log ?? jsonLogger(config.logLevel);
  const clock = options.clock ?? Date.now;
  const uws = loadUws().uws; // refuses to start on the slow pure-JS fallback

  const local = options.memory ? memoryStorage({ log, keepGenesis: config.publicJournal }) : openStorage({ dataDir: config.dataDir, log, keyEncryptionKey: process.env.KEY_ENCRYPTION_KEY, keepGenesis: config.publicJournal });
  const nats = config.journal === 'nats';
  const storage = nats ? await withNatsJournal(local, config, log, clock()) : local;
  if (config.chain !== null && options.memory === true) throw new Error('CHAIN needs the LMDB journal in DATA_DIR (the relayer follows it): use CHAIN=none with in-memory storage');
  // The open order index's hash seed, secret from clients (engine/actors/orderIdIndex.ts): no output depends on it.
  const venueOptions: VenueOptions = { idHashSeed: randomInt(2 ** 32) | 0 };
  let recovered: ReturnType<typeof recover<ReturnType<typeof replayable>>>;
  try {
    recovered = recover({
      journal: storage.journal,
      snapshots: storage.snapshots,
      create: () => replayable(Venue.create(venueConfigOf(config), venueOptions)),
      restore: (bytes, read) => {
        const venue = Venue.restore(bytes, venueOptions);
        return replayable(venue, readsFor(venue, read, log));
      },
      log,
      // A torn tail is cut: every order nonce used so far stays used (persistence/stores/orderNonceStore.ts).
      beforeTruncate: () => void storage.stores.orderNonces.burnAll(),
    });
  } catch (e) {
    await storage.close(); // releases DATA_DIR for the operator's `npm run recover`
    throw e;
  }
  if (storage.masterKeyFile !== null && config.network !== 'local') {
    log.warn(
      `keys: the key-encryption key is the file ${storage.masterKeyFile}, inside DATA_DIR, on ${config.network}: a copy of DATA_DIR carries both the sealed API-key secrets and the key that opens them; set KEY_ENCRYPTION_KEY (from a secret manager) instead`,
      { path: storage.masterKeyFile, network: config.network },
    );
  }
  const { venue, reads } = recovered.engine;
  log.info('recovered', { snapshotSeq: recovered.snapshotSeq, replayed: recovered.replayed, lastSeq: recovered.lastSeq, series: reads.catalog.series.size });

  const metrics = createMetrics();
  const alerts = new AlertBus(clock);
  alerts.raise({
    kind: 'recovery',
    severity: recovered.warnings.length > 0 ? 'warning' : 'info',
    message: `recovered at seq ${recovered.lastSeq}: snapshot at ${recovered.snapshotSeq}, ${recovered.replayed} commands replayed${recovered.warnings.length > 0 ? `, ${recovered.warnings.length} warnings` : ''}`,
    details: { snapshotSeq: recovered.snapshotSeq, replayed: recovered.replayed, lastSeq: recovered.lastSeq, warnings: recovered.warnings },
  });
  const controls = createControlMetrics(
    metrics,
    (owner, pairId) => reads.mmp.get(owner, pairId as Hex)?.frozen === true,
    (e) => alerts.raise({ kind: 'mmp_trip', message: `market maker protection tripped (${e.reason}) for ${e.owner}`, details: { owner: e.owner, pairId: e.pairId, reason: e.reason, frozenUntil: e.frozenUntil, seq: e.seq } }),
  );
  const liquidationMetrics = createLiquidationMetrics(metrics, reads.liquidations, () => reads.ts, log, (e) =>
    alerts.raise({
      kind: 'bad_debt',
      severity: 'critical',
      message: `bad debt: the insurance fund could not cover ${Number(e.amount) / 1e6} USDC of bankrupt portfolio ${e.portfolioId} of ${e.owner} (total ${Number(e.totalBadDebt) / 1e6} USDC)`,
      details: { liquidationId: e.liquidationId, owner: e.owner, portfolioId: e.portfolioId, amount: e.amount.toString(), totalBadDebt: e.totalBadDebt.toString(), seq: e.seq },
    }),
  );
  const pipeline = new CommandPipeline(venue, storage.journal, clock, metrics, storage.stores.orderNonces);
  const chainHold = { seq: 0 };
  pipeline.onJournalError((error, command) => alerts.raise({ kind: 'journal_error', severity: 'critical', message: `journal write failed at seq ${command.seq} (${command.type}): ${error instanceof Error ? error.message : String(error)}`, details: { seq: command.seq, type: command.type } }));
  const snapshotOptions: SnapshotterOptions = {
    snapshots: storage.snapshots,
    journal: storage.journal,
    source: recovered.engine,
    clock,
    log,
    everyCommands: config.snapshotEveryCommands,
    everyMs: config.snapshotEveryMs,
    startSeq: recovered.lastSeq,
    // The stream is shared by the standby and every edge: its retention is the operator's (docs/persistence.md).
    // PUBLIC_JOURNAL: the whole journal is published, from the genesis on (docs/chain.md "The audit").
    pruneJournal: !nats && !config.publicJournal,
    // The relayer replays the journal from its checkpoint: nothing after it is pruned (0 until it says).
    ...(config.chain !== null ? { hold: () => chainHold.seq } : {}),
  };
  // A venue's first start records the state it was created with as a snapshot at seq 0: its
  // config (fees, referral rebate, liquidation band and fee) is then fixed by the data, so a
  // crash before the first periodic snapshot never replays the journal under the rules of
  // another environment (docs/persistence.md "Recovery"). Taken here (the worker's replica starts from it).
  if (!nats && recovered.lastSeq === 0 && storage.snapshots.seqs().length === 0) {
    const first = await new Snapshotter(snapshotOptions).takeNow(0);
    if (!first.ok) {
      await storage.close();
      throw new Error(`the first snapshot (the state as created, seq 0) could not be written: ${first.error}`);
    }
  }
  // On the LMDB journal in DATA_DIR, snapshots are written by a worker thread's replica (docs/persistence.md).
  const snapshotWorker: SnapshotWorker | null =
    nats || options.memory === true || options.snapshotInThread === true
      ? null
      : createSnapshotWorker({ dataDir: config.dataDir, keepGenesis: config.publicJournal, onWorkerError: (error) => log.error('snapshot worker thread failed outside a task', { error: error.message }) });
  const snapshotter = new Snapshotter(snapshotWorker === null ? snapshotOptions : { ...snapshotOptions, produce: (takenAt) => snapshotWorker.take(takenAt) });
  // An order's reply is out before its fold (`replyFirst`): a listener that fails then is logged.
  pipeline.onListenerError((error, command) => log.error('publishing a committed command failed', { seq: command.seq, type: command.type, error: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined }));
  // The read models fold every committed command first: what listeners after them read is at its seq.
  pipeline.onEvents((events, command) => {
    controls.onEvents(events);
    liquidationMetrics.onEvents(events);
    reads.apply(command.seq, events.length > 0 ? events[0]!.ts : command.ts, events);
    // A snapshot holds the engine and the read models at one seq: only when no later command
    // is applied but not yet committed (the engine runs ahead of the commit; the reads do not).
    if (venue.seq === command.seq) void snapshotter.afterApply(command.seq);
  });

  // A worker thread failing outside a task (e.g. while loading) is logged, never a crash.
  const onWorkerError = (error: Error) => log.error('worker thread failed outside a task', { error: error.message });
  const verifier = options.inlineWorkers ? createInlineVerifier() : createPoolVerifier({ threads: config.workers, onWorkerError });
  const marks = options.inlineWorkers ? createInlineMarkComputer() : createPoolMarkComputer(1, onWorkerError);
  const siweDomains = new SiweDomains(config);
  const services: Services = { config, venue, reads, pipeline, market: reads.market, stores: storage.stores, verifier, marks, metrics, log, siweDomains, alerts, rateLimited: { count: 0 }, chain: { info: noChainInfo(config.chainId), statusListeners: [] }, publicJournal: config.publicJournal ? publicJournal(storage.journal, storage.snapshots, () => reads.seq) : null };
  metrics.gauge({ name: 'worker_pool_queue_size', help: 'Signature batches waiting for a worker.', collect() { this.set(verifier.stats().queueSize); } });
  metrics.gauge({ name: 'worker_pool_utilization', help: 'Share of the signature pool capacity in use (0..1).', collect() { this.set(verifier.stats().utilization); } });
  metrics.gauge({ name: 'marks_pool_queue_size', help: 'Mark recomputations waiting for the pricing worker.', collect() { this.set(marks.stats().queueSize); } });
  metrics.counter({ name: 'marks_pool_completed_total', help: 'Mark recomputations (one per oracle update) finished by the pricing worker.', collect() { this.reset(); this.inc(marks.stats().completed); } });
  registerOpsMetrics(metrics, {
    recoveryWarnings: recovered.warnings.length,
    journalCommits: () => storage.stats().journalTransactions,
    inFlight: () => pipeline.inFlightCount(),
    oracleUpdates: () => [...reads.catalog.oracles].map(([pairId, o]) => ({ pair: reads.catalog.pairs.get(pairId)?.symbol ?? pairId, lastUpdate: o.lastUpdate })),
  });

  // The settlement chain and its relayer (docs/chain.md): started before the venue takes requests.
  let chain: VenueChain | null = null;
  const chainObserved = chainMetrics(metrics, () => chain?.metrics() ?? null);
  if (config.chain !== null) {
    const c = config.chain;
    try {
      chain = await startVenueChain(
        {
          mode: c.mode,
          dataDir: config.dataDir,
          chainId: config.chainId,
          serviceName: config.serviceName,
          rpcUrl: c.rpcUrl,
          publicRpcUrl: c.publicRpcUrl,
          port: c.port,
          blockTimeMs: c.blockTimeMs,
          forcedActionTimeout: c.forcedActionTimeout,
          relayerKey: c.relayerKey,
          oracleKey: c.oracleKey,
          addresses: config.contracts,
          deploymentBlock: c.deployment?.deploymentBlock ?? 0,
          relayer: { maxFills: c.maxFills, maxGas: c.maxGas, windowMs: c.windowMs, maxInFlight: c.maxInFlight, confirmations: c.confirmations, stuckMs: Math.max(15_000, 5 * c.blockTimeMs), checkpointCommands: 10_000, checkpointMs: 60_000, reconcileEvery: 10, foldPerStep: 2000 },
          idHashSeed: venueOptions.idHashSeed ?? 0,
        },
        {
          submit: (body) => pipeline.submit(body),
          alert: (a) => alerts.raise({ kind: a.kind, severity: a.severity, message: a.message, details: a.details }),
          log,
          status: (m) => {
            pipeline.publishPending();
            reads.settlement.observe(m);
            for (const l of services.chain.statusListeners) l(m);
          },
          hold: (seq) => {
            chainHold.seq = seq;
          },
          reconciled: (r) => chainObserved.reconciled(r),
        },
      );
    } catch (e) {
      await Promise.all([verifier.close(), marks.close(), snapshotWorker?.close()]);
      await storage.close();
      throw new Error(`the settlement chain (CHAIN=${c.mode}) did not start: ${(e as Error).message}`);
    }
    services.chain.info = chain.info;
  }

  const running: { drivers: Drivers | null } = { drivers: null };
  const lead = async (): Promise<void> => {
    await bootstrap(pipeline, reads, config, log);
    if (options.drivers !== false) running.drivers = startDrivers(pipeline, reads, config, marks, log);
  };
  let role: EngineRole | null = null;
  let edge: Edge | null = null;
  /** The leader answers writes forwarded by edges while it leads. */
  const served: { commands: { stop(): void } | null } = { commands: null };
  const natsJournal = storage.journal as Awaited<ReturnType<typeof openNatsJournal>>;
  const replicas = config.natsUrls.length >= 3 ? 3 : 1;
  if (nats && config.edge) {
    edge = await startEdge({ journal: natsJournal, pipeline, appliedSeq: () => venue.seq, stream: config.natsStream, nodeId: config.nodeId, leaseTtlMs: config.leaseTtlMs, replicas, log });
  } else if (nats) {
    role = await startEngineRole({
      journal: natsJournal,
      pipeline,
      stateHash: () => venue.stateHash(),
      appliedSeq: () => venue.seq,
      nodeId: config.nodeId,
      leaseTtlMs: config.leaseTtlMs,
      hashEvery: config.hashCheckEvery,
      replicas,
      log,
      onLead: async () => {
        await lead();
        served.commands ??= serveCommands(natsJournal.connection, commandSubject(config.natsStream), pipeline, log);
      },
      onDeposed: (reason) => {
        served.commands?.stop();
        void running.drivers?.stop();
        options.onDeposed?.(reason);
      },
    });
  }
  clusterMetrics(metrics, role, () => venue.seq, edge);

  const api = apiRoutes(services);
  const documented = [...api.routes, ...webRoutes()];
  const asyncapi = createAsyncApiRegistry();
  const server = createHttpServer({
    uws,
    routes: [...documented, ...systemRoutes({ apiRoutes: documented, info: apiInfo(config), metrics, asyncapi })],
    authenticate: api.authenticate,
    isAdmin: (address) => config.adminAddresses.has(address),
    rateLimiter: api.rateLimiter,
    metrics,
    log,
    clock,
    beforeDispatch: () => pipeline.publishPending(),
  });
  const streams = attachStreams(server.app, services, api.authenticate, asyncapi, api.rateLimiter);
  const every = options.every ?? (options.drivers === false ? null : realEvery);
  const stopHealth = every === null ? null : every(HEALTH_INTERVAL_MS, () => streams.monitor.tick());
  if (!nats) await lead();
  let port: number;
  try {
    port = await server.listen(config.host, config.port);
  } catch (e) {
    // Nothing was served: release what was opened (DATA_DIR, workers, timers) and report.
    served.commands?.stop();
    await chain?.close();
    await edge?.stop();
    await role?.stop();
    await running.drivers?.stop();
    stopHealth?.();
    streams.close();
    server.close();
    await pipeline.drain();
    await Promise.all([verifier.close(), marks.close(), snapshotWorker?.close()]);
    await storage.close();
    throw e;
  }
  siweDomains.bindPort(port);
  log.info('listening', { url: `http://${config.host}:${port}`, network: config.network, chainId: config.chainId, siweDomains: siweDomains.accepted() });

  let closing: Promise<void> | null = null;
  return {
    port,
    services,
    engine: venue,
    storage,
    monitor: streams.monitor,
    role,
    edge,
    chain,
    close() {
      closing ??= (async () => {
        served.commands?.stop();
        // An edge stopping is not the venue's shutdown: its sockets' cancel on disconnect
        // reaches the leader before this edge stops forwarding (docs/streams.md).
        if (edge !== null) await streams.closeAsDrops();
        await edge?.stop();
        await role?.stop();
        await running.drivers?.stop();
        stopHealth?.();
        streams.close();
        server.close();
        await pipeline.drain();
        // The relayer's last reports go in before the journal closes; then the chain stops.
        await chain?.close();
        await pipeline.drain();
        const final = await snapshotter.takeNow(storage.journal.lastSeq());
        if (!final.ok) log.warn('final snapshot failed', { error: final.error });
        await Promise.all([verifier.close(), marks.close(), snapshotWorker?.close()]);
        await storage.close();
        log.info('stopped', { lastSeq: storage.journal.lastSeq() });
      })();
      return closing;
    },
  };
}
