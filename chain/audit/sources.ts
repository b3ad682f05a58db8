/**
 * What the auditor reads (docs/chain.md "The audit"): a venue's public journal over HTTP
 * (PUBLIC_JOURNAL=1: GET /api/journal, /api/journal/snapshots) and its contracts' addresses, and
 * the chain over JSON-RPC: every `Settled` batch with its calldata, the order book's settleHash,
 * the users' logs. The chain is read first, at one block, so that the journal read after it
 * holds every command a batch names.
 */
import { createPublicClient, http, type Address, type Hex, type PublicClient } from 'viem';
import type { ChainEventData, Command } from '../../engine/index.ts';
import { decodeValue } from '../../persistence/index.ts';
import { orderBookAbi } from '../artifacts.ts';
import { decodeSettleCalldata } from '../items.ts';
import { eventOf } from '../relayer/indexer.ts';
import { userLogsOf } from '../relayer/userLogs.ts';
import type { ChainBatch } from './auditor.ts';
import type { PlaceCheckDomain } from './signatures.ts';

export type VenueInfo = {
  readonly contracts: { readonly orderBook: Address; readonly rfq: Address; readonly collateralVault: Address };
  readonly domain: PlaceCheckDomain;
  readonly chain: { readonly mode: string; readonly chainId: number; readonly rpcUrl: string | null; readonly deploymentBlock: number };
};

export class AuditInputError extends Error {
  override name = 'AuditInputError';
}

const PAGE = 1000;
/** Blocks per eth_getLogs. */
const LOG_RANGE = 5000n;

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url);
  const text = await r.text();
  if (!r.ok) throw new AuditInputError(`GET ${url}: HTTP ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** The venue's contracts, its order book's EIP-712 domain and its chain, from GET /api/markets/contracts. */
export async function venueInfo(venue: string): Promise<VenueInfo> {
  const c = await getJson<{ contracts: VenueInfo['contracts']; domains: { orderBook: PlaceCheckDomain }; chain: VenueInfo['chain'] }>(`${venue}/api/markets/contracts`);
  return { contracts: c.contracts, domain: c.domains.orderBook, chain: c.chain };
}

/** A published snapshot: `genesis` (seq 0), `latest`, or a seq; its bytes and the hash the venue gives for them. */
export async function venueSnapshot(venue: string, which: string): Promise<{ seq: number; hash: string; state: Uint8Array }> {
  const list = await getJson<{ snapshots: { seq: number; hash: string }[] }>(`${venue}/api/journal/snapshots`);
  const want = which === 'genesis' ? 0 : which === 'latest' ? (list.snapshots[0]?.seq ?? -1) : Number(which);
  const info = list.snapshots.find((s) => s.seq === want);
  if (info === undefined) throw new AuditInputError(`the venue has no snapshot ${which === 'genesis' ? 'at seq 0 (its genesis)' : which} (it has ${list.snapshots.map((s) => s.seq).join(', ') || 'none'}): use --from latest or a seq it has`);
  const r = await fetch(`${venue}/api/journal/snapshots/${want}`);
  if (!r.ok) throw new AuditInputError(`GET ${venue}/api/journal/snapshots/${want}: HTTP ${r.status}`);
  return { seq: want, hash: info.hash, state: new Uint8Array(await r.arrayBuffer()) };
}

/** The journal's commands from `fromSeq` on, page by page, each decoded from its frame (and checked against its page entry). */
export async function* venueCommands(venue: string, fromSeq: number): AsyncGenerator<Command> {
  let next = fromSeq;
  for (;;) {
    const page = await getJson<{ commands: { seq: number; frame: string }[]; nextSeq: number; lastSeq: number }>(`${venue}/api/journal?fromSeq=${next}&limit=${PAGE}`);
    if (page.commands.length === 0) return;
    for (const entry of page.commands) {
      const command = decodeValue(Buffer.from(entry.frame, 'base64')) as Command;
      if (command === null || typeof command !== 'object' || command.seq !== entry.seq) throw new AuditInputError(`journal entry ${entry.seq}: its frame does not decode to command ${entry.seq}`);
      yield command;
    }
    next = page.nextSeq;
  }
}

export type ChainView = { readonly block: bigint; readonly batches: ChainBatch[]; readonly settleHash: Hex; readonly chainEvents: Map<string, ChainEventData> };

/** The chain at its head: every settled batch (from its transaction's calldata), the settleHash, the users' chain events by id. */
export async function chainView(rpcUrl: string, info: VenueInfo, onProgress: (what: string) => void = () => {}): Promise<ChainView> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: 30_000 }) }) as PublicClient;
  const chainId = await client.getChainId();
  if (chainId !== info.chain.chainId) throw new AuditInputError(`the RPC at ${rpcUrl} serves chain ${chainId}, the venue settles on chain ${info.chain.chainId}`);
  const block = await client.getBlockNumber();
  const from = BigInt(info.chain.deploymentBlock);
  const logs: { seq: bigint; settleHash: Hex; stateSeq: bigint; stateHash: Hex; txHash: Hex }[] = [];
  for (let lo = from; lo <= block; lo += LOG_RANGE) {
    const hi = lo + LOG_RANGE - 1n < block ? lo + LOG_RANGE - 1n : block;
    const found = await client.getContractEvents({ address: info.contracts.orderBook, abi: orderBookAbi, eventName: 'Settled', fromBlock: lo, toBlock: hi });
    for (const l of found) {
      const a = l.args as { seq: bigint; settleHash: Hex; stateSeq: bigint; stateHash: Hex };
      logs.push({ seq: a.seq, settleHash: a.settleHash, stateSeq: a.stateSeq, stateHash: a.stateHash, txHash: l.transactionHash });
    }
  }
  onProgress(`chain: ${logs.length} batches settled up to block ${block}`);
  const batches: ChainBatch[] = new Array(logs.length);
  for (let i = 0; i < logs.length; i += 16) {
    await Promise.all(
      logs.slice(i, i + 16).map(async (l, j) => {
        const tx = await client.getTransaction({ hash: l.txHash });
        const call = decodeSettleCalldata(tx.input);
        if (call === null) throw new AuditInputError(`transaction ${l.txHash} logged batch ${l.seq} but is not a settle() call to the order book`);
        if (call.header.seq !== l.seq || call.header.stateSeq !== l.stateSeq || call.header.stateHash !== l.stateHash) throw new AuditInputError(`transaction ${l.txHash}: its calldata and its Settled log name different batches`);
        batches[i + j] = { header: call.header, items: call.items, settleHash: l.settleHash, txHash: l.txHash };
      }),
    );
  }
  batches.forEach((b, i) => {
    if (b.header.seq !== BigInt(i + 1)) throw new AuditInputError(`the chain's batches are not 1..${batches.length} in order (batch ${b.header.seq} at ${i + 1})`);
  });
  const settleHash = (await client.readContract({ address: info.contracts.orderBook, abi: orderBookAbi, functionName: 'settleHash', blockNumber: block })) as Hex;
  const chainEvents = new Map<string, ChainEventData>();
  for (let lo = from; lo <= block; lo += LOG_RANGE) {
    const hi = lo + LOG_RANGE - 1n < block ? lo + LOG_RANGE - 1n : block;
    for (const l of await userLogsOf(client, info.contracts, Number(lo), Number(hi))) chainEvents.set(`${chainId}:${l.txHash}:${l.logIndex}`, eventOf(l));
  }
  onProgress(`chain: ${chainEvents.size} users' events`);
  return { block, batches, settleHash, chainEvents };
}
