/**
 * `npm run audit -- --venue URL [--rpc URL] [--from genesis|latest|SEQ] [--json]` (docs/chain.md
 * "The audit"): replays a venue's published journal (PUBLIC_JOURNAL=1) through the engine and
 * checks it against the chain: every batch's items and settleHash, every state hash posted,
 * every signed order, every user's chain event. Progress goes to stderr; the verdict is the last
 * line on stdout (with --json, one JSON object). Exit code 0: the journal and the chain agree;
 * 1: they diverge (the first divergence names the command); 2: the audit could not run.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Auditor, type AuditProgress, type AuditResult } from './auditor.ts';
import { AuditInputError, chainView, venueCommands, venueInfo, venueSnapshot } from './sources.ts';

const USAGE = 'usage: npm run audit -- --venue URL [--rpc URL] [--from genesis|latest|SEQ] [--json]';

function line(p: AuditProgress): string {
  return `audit: commands up to seq ${p.lastSeq} (${p.commands} replayed) · batches ${p.batchesChecked} of ${p.batches} match · state hashes ${p.stateHashesChecked} of ${p.stateHashesPosted} match · orders ${p.ordersVerified} signed · chain events ${p.chainEventsChecked} on chain`;
}

export function verdict(r: AuditResult): string {
  if (r.ok) {
    const tail = r.commandsAfterLastBatch > 0 ? `; ${r.commandsAfterLastBatch} commands after the last batch still to settle` : '';
    return `audit passed: the journal from seq ${r.startSeq} to ${r.lastSeq} replays to every one of the ${r.batches} batches on chain (${r.batchesChecked} rebuilt item for item, ${r.stateHashesChecked} of the ${r.stateHashesPosted} state hashes posted equal)${tail}`;
  }
  const d = r.divergence!;
  const at = d.seq === null ? '' : ` at command ${d.seq}${d.commandType === null ? '' : ` (${d.commandType})`}`;
  return `audit FAILED${at}${d.batch === null ? '' : `, batch ${d.batch}`}: ${d.what}`;
}

export async function audit(opts: { venue: string; rpc?: string; from?: string; progress?: (s: string) => void }): Promise<AuditResult> {
  const say = opts.progress ?? (() => {});
  const venue = opts.venue.replace(/\/+$/, '');
  const info = await venueInfo(venue);
  if (info.chain.mode === 'none') throw new AuditInputError(`the venue at ${venue} settles on no chain (CHAIN=none): nothing to audit against`);
  const rpc = opts.rpc ?? info.chain.rpcUrl;
  if (rpc === null || rpc === '') throw new AuditInputError('the venue publishes no RPC URL for its chain: give one with --rpc');
  say(`audit: venue ${venue}, chain ${info.chain.chainId} at ${rpc}, order book ${info.contracts.orderBook}`);
  const chain = await chainView(rpc, info, say);
  const start = await venueSnapshot(venue, opts.from ?? 'genesis');
  say(`audit: replaying from the snapshot at seq ${start.seq} (${start.state.length} bytes)`);
  const auditor = new Auditor(
    { start, commands: venueCommands(venue, start.seq + 1), batches: chain.batches, chainSettleHash: chain.settleHash, chainEvents: chain.chainEvents, domain: info.domain },
    (p) => say(line(p)),
  );
  return auditor.run();
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({ options: { venue: { type: 'string' }, rpc: { type: 'string' }, from: { type: 'string' }, json: { type: 'boolean' } } }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.venue === undefined) {
    console.error(USAGE);
    return 2;
  }
  try {
    const r = await audit({ venue: args.venue, ...(args.rpc !== undefined ? { rpc: args.rpc } : {}), ...(args.from !== undefined ? { from: args.from } : {}), progress: (s) => console.error(s) });
    console.log(args.json === true ? JSON.stringify(r) : verdict(r));
    return r.ok ? 0 : 1;
  } catch (e) {
    console.error(`audit could not run: ${e instanceof AuditInputError ? e.message : ((e as Error).stack ?? String(e))}`);
    return 2;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main().then((code) => process.exit(code));
