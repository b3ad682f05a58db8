/**
 * Child process for the cluster tests: the real venue as an edge gateway, started as the
 * tests start apps (support/edgeCluster.ts). Argv: <data dir> <config env as JSON> (JOURNAL=nats,
 * NATS_URL, NATS_STREAM, NODE_ID, EDGE=1) <API keys to hold, as JSON>. Prints `serving <url>`
 * once it listens; runs until killed.
 */
import { startTestApp } from '../../gateway/support/testApp.ts';
import { putKey, type TestKey } from './edgeCluster.ts';

const app = await startTestApp({ dataDir: process.argv[2]!, env: JSON.parse(process.argv[3]!) as Record<string, string> });
for (const key of JSON.parse(process.argv[4] ?? '[]') as TestKey[]) await putKey(app, key);
process.stdout.write(`serving ${app.url}\n`);
