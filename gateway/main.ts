/**
 * `npm start`: the venue with its embedded defaults (api.md), configured by environment
 * variables. Stops gracefully on SIGTERM/SIGINT: no new requests, in-flight writes
 * finished, a final snapshot, exit 0.
 */
import { loadConfig } from './config.ts';
import { startApp } from './app.ts';
import { jsonLogger } from './http/log.ts';

const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const e of loaded.errors) process.stderr.write(`config: ${e}\n`);
  process.exit(2);
}
const config = loaded.config;
const log = jsonLogger(config.logLevel);

// Signals are handled from the very start: a SIGTERM that arrives while the venue is still
// starting (or just after it logged "listening") stops it gracefully once started, instead
// of killing it with Node's default action.
let app: Awaited<ReturnType<typeof startApp>> | null = null;
let stopRequested: string | null = null;
let stopping = false;
const stop = (signal: string) => {
  stopRequested ??= signal;
  if (app === null || stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  app.close().then(
    () => process.exit(0),
    (e: unknown) => {
      log.error('shutdown failed', { error: String(e) });
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

try {
  app = await startApp(config, {
    log,
    // JOURNAL=nats: a deposed leader applied commands the stream may not hold; it exits (code 3)
    // and its supervisor starts it again as a standby, rebuilt from the stream.
    onDeposed: (reason) => {
      log.error('deposed: exiting', { reason });
      process.exit(3);
    },
  });
  if (stopRequested !== null) stop(stopRequested);
} catch (e) {
  log.error('failed to start', { error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
