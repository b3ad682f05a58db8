/**
 * Child process for test/gateway/activityRestart.test.ts: the real venue on DATA_DIR at a fixed
 * start time; alice and bob trade in `round` (1: two hours of fills; 2: more fills a day later).
 * Round 1 also takes a chain webhook's deposit (activityFixture.ts `chainDeposit`).
 * Round 1 with `close` ends with a clean close (a snapshot with the read models at its last seq);
 * otherwise it prints every read of the platform, leaderboard, points and user groups as one JSON
 * line and waits to be killed with SIGKILL (no final snapshot).
 */
import { startTestApp, TEST_START_AT } from './testApp.ts';
import { traders, trade, tick, allReads, chainDeposit, WEBHOOK_SECRET } from '../routes/activityFixture.ts';

const [dataDir, startAtText, round, end] = process.argv.slice(2);
const startAt = Number(startAtText);
const HOUR = 3_600_000;
const app = await startTestApp({ dataDir: dataDir!, startAt, env: { SNAPSHOT_EVERY_MS: String(2 ** 31 - 1), WEBHOOK_SECRET } });
const pair = await traders(app, 'restart');
if (round === '1') {
  await trade(app, pair, '1000');
  const hook = await chainDeposit(app, pair.alice.address, pair.alice.portfolioId);
  if (hook.status !== 200 || hook.body.duplicate !== false) throw new Error(`webhook: ${JSON.stringify(hook.body)}`);
  await tick(app, HOUR);
  await trade(app, pair, '250', '3');
  await tick(app);
} else {
  await trade(app, pair, '700', '2');
  await tick(app, 2 * HOUR);
  await trade(app, pair, '300');
  await tick(app);
}
if (end === 'close') {
  await app.close();
  process.stdout.write(JSON.stringify({ now: app.clock.now }) + '\n');
} else {
  const reads = await allReads(app, pair, TEST_START_AT - 26 * HOUR, app.clock.now);
  process.stdout.write(JSON.stringify({ now: app.clock.now, reads }) + '\n');
  setInterval(() => {}, 1_000); // stay alive until killed
}
