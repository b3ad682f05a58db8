/**
 * Child process for the cluster tests: the real venue as an edge gateway, started as the
 * tests start apps (support/edgeCluster.ts). Argv: <data dir> <config env as JSON> (JOURNAL=nats,
 * NATS_URL, NATS_STREAM, NODE_ID, EDGE=1). Prints `serving <url>` once it listens; runs until killed.
 */
import { startTestApp } from '../../gateway/support/testApp.ts';

const app = await startTestApp({ dataDir: process.argv[2]!, env: JSON.parse(process.argv[3]!) as Record<string, string> });
process.stdout.write(`serving ${app.url}\n`);
