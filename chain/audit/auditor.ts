/**
 * The auditor (docs/chain.md "The audit"): replays a venue's published command journal through
 * the engine from its genesis (or a later published snapshot) and checks it against what the
 * chain holds, trusting neither the venue's replies nor its relayer:
 *
 * - **every batch on chain** is exactly the settlement stream the journal makes: the auditor
 *   folds the replayed events into items as the relayer does (chain/settlementFold.ts), cuts
 *   them where each batch's `journalPos` says, and compares the bytes with the batch's calldata;
 *   its match time too; and the rolling `settleHash` recomputed over the chain's batches equals
 *   each `Settled` log's and the contract's;
 * - **every state hash posted** (a batch's `stateHash` after journal command `stateSeq`) equals
 *   the replayed engine's at that command;
 * - **every signed order** in the journal carries its owner's EIP-712 signature of exactly its
 *   fields (the orderId is the digest);
 * - **every chain event** the journal credits that comes from a user's log (deposits, forced
 *   withdrawals, nonce floors, MMM nonce increments, orders and fills sent to the contracts) is
 *   that log, as the indexer reads it.
 *
 * It stops at the first divergence and names the command that caused it. Sources are
 * injected (chain/audit/sources.ts reads a venue over HTTP and the chain over JSON-RPC).
 */
import type { Hex } from 'viem';
import { Venue, WireEvents, hashBytes, type ChainEventData, type Command, type PlaceOrder } from '../../engine/index.ts';
import { batchHash, nextSettleHash, type BatchHeader } from '../items.ts';
import { decodeItems, type DecodedItem } from '../itemsDecode.ts';
import { SettlementFold, SettlementGap } from '../settlementFold.ts';
import { Batcher } from '../relayer/batcher.ts';
import { checkPlaceSignatures, type PlaceCheckDomain } from './signatures.ts';

const ZERO_HASH = `0x${'0'.repeat(64)}` as Hex;
const NO_SIGNATURE = `0x${'0'.repeat(130)}` as Hex;

/** One batch as the chain holds it: its settle() arguments, from its transaction, and its Settled log's settleHash. */
export type ChainBatch = { readonly header: BatchHeader; readonly items: Uint8Array; readonly settleHash: Hex; readonly txHash: Hex };

export type AuditSources = {
  /** The venue's snapshot to start from: its engine state, seq and recorded hash. */
  readonly start: { readonly seq: number; readonly hash: string; readonly state: Uint8Array };
  /** The journal's commands after `start.seq`, in order (pages fetched as they are read). */
  readonly commands: AsyncIterable<Command>;
  /** Every batch on chain, in seq order, and the contract's settleHash now. */
  readonly batches: readonly ChainBatch[];
  readonly chainSettleHash: Hex;
  /** The users' chain events by id (`chainId:txHash:logIndex`), as the indexer reads the logs. */
  readonly chainEvents: ReadonlyMap<string, ChainEventData>;
  /** The order book's EIP-712 domain (PlaceOrder). */
  readonly domain: PlaceCheckDomain;
};

export type Divergence = {
  /** The command that caused it (null: the chain or the journal's end). */
  readonly seq: number | null;
  readonly commandType: string | null;
  readonly batch: number | null;
  readonly what: string;
};

export type AuditProgress = { readonly commands: number; readonly lastSeq: number; readonly batchesChecked: number; readonly batches: number; readonly stateHashesPosted: number; readonly stateHashesChecked: number; readonly ordersVerified: number; readonly chainEventsChecked: number };

export type AuditResult = AuditProgress & { readonly ok: boolean; readonly divergence: Divergence | null; readonly startSeq: number; readonly batchesAfterJournal: number; readonly commandsAfterLastBatch: number };

/** Chain event kinds that come from a user's log on chain (the others are the venue's reports of its own batches). */
const LOG_KINDS: ReadonlySet<string> = new Set(['deposit', 'nonce_floor', 'mmm_nonce_request', 'withdrawal_request', 'forced_withdrawal_executed', 'direct_orders', 'direct_rfq_fill']);

/** JSON with sorted keys and bigints as `123n`: equal values, equal strings. */
function canonical(v: unknown): string {
  if (typeof v === 'bigint') return `"${v}n"`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

const describe = (item: DecodedItem | undefined): string => (item === undefined ? 'nothing' : canonical({ ...item, index: undefined, offset: undefined }));

export class Auditor {
  private readonly wire = new WireEvents();
  private readonly fold = new SettlementFold();
  private replica!: Venue;
  private batcher!: Batcher;
  private batchIndex = 0;
  /** The chain batch being rebuilt: the commands whose items went into it, by their first item's index. */
  private written: { seq: number; type: string; from: number }[] = [];
  private readonly progress = { commands: 0, lastSeq: 0, batchesChecked: 0, batches: 0, stateHashesPosted: 0, stateHashesChecked: 0, ordersVerified: 0, chainEventsChecked: 0 };
  private hashIndex = 0;
  private readonly hashes: { seq: number; hash: Hex; batch: number }[];

  constructor(
    private readonly src: AuditSources,
    private readonly onProgress: (p: AuditProgress) => void = () => {},
  ) {
    this.progress.batches = src.batches.length;
    // Each distinct (stateSeq, stateHash) once, in seq order: a batch may post the hash an earlier one did (chain/relayer/stateHashes.ts).
    const seen = new Set<string>();
    this.hashes = src.batches
      .map((b) => ({ seq: Number(b.header.stateSeq), hash: b.header.stateHash, batch: Number(b.header.seq) }))
      .filter((h) => !seen.has(`${h.seq}:${h.hash}`) && seen.add(`${h.seq}:${h.hash}`) !== undefined)
      .sort((a, b) => a.seq - b.seq);
    this.progress.stateHashesPosted = this.hashes.length;
  }

  async run(): Promise<AuditResult> {
    const d = (await this.replay()) ?? this.end();
    return { ok: d === null, divergence: d, startSeq: this.src.start.seq, ...this.progress, batchesAfterJournal: this.src.batches.length - this.batchIndex, commandsAfterLastBatch: this.afterLastBatch };
  }

  private afterLastBatch = 0;

  private async replay(): Promise<Divergence | null> {
    const start = this.src.start;
    const chainCheck = this.checkChainHashes();
    if (chainCheck !== null) return chainCheck;
    if (hashBytes(start.state) !== start.hash) return { seq: start.seq, commandType: null, batch: null, what: `the snapshot at seq ${start.seq} does not hash to the hash it was published with (${start.hash})` };
    this.replica = Venue.restore(start.state);
    this.fold.seed(this.wire.events(this.replica.imageEvents()), 0n);
    this.batcher = new Batcher({ maxFills: Number.POSITIVE_INFINITY, maxGas: Number.POSITIVE_INFINITY, signPrice: (pairId, expiry, price) => this.postedPriceSignature(pairId, expiry, price), nextSeq: 1, state: () => ({ seq: this.replica.seq, hash: ZERO_HASH }) });
    // From a later snapshot: batches that end at or before it are not rebuilt, nor the first
    // after it (it may hold items of commands before the snapshot); their state hashes at the
    // snapshot's seq must be its hash.
    if (start.seq > 0) {
      while (this.batchIndex < this.src.batches.length && this.endOf(this.batchIndex).seq <= start.seq) this.batchIndex++;
      this.skipOpen = this.batchIndex < this.src.batches.length;
      while (this.hashIndex < this.hashes.length && this.hashes[this.hashIndex]!.seq <= start.seq) {
        const h = this.hashes[this.hashIndex++]!;
        if (h.seq === start.seq && h.hash !== start.hash) return { seq: start.seq, commandType: null, batch: h.batch, what: `the snapshot at seq ${start.seq} has hash ${start.hash}; batch ${h.batch} posted ${h.hash} for that command` };
      }
    }
    let last = Date.now();
    for await (const command of this.src.commands) {
      if (command.seq !== this.replica.seq + 1) return { seq: command.seq, commandType: command.type, batch: null, what: `the journal goes from seq ${this.replica.seq} to ${command.seq}` };
      const d = this.apply(command);
      if (d !== null) return d;
      this.progress.commands++;
      this.progress.lastSeq = command.seq;
      if (Date.now() - last >= 1000) {
        last = Date.now();
        this.onProgress({ ...this.progress });
      }
    }
    this.onProgress({ ...this.progress });
    return null;
  }

  /** The rolling settleHash over the chain's batches, as each Settled log and the contract say. */
  private checkChainHashes(): Divergence | null {
    let h = ZERO_HASH;
    for (const b of this.src.batches) {
      h = nextSettleHash(h, batchHash(b.header, b.items));
      if (h !== b.settleHash) return { seq: null, commandType: null, batch: Number(b.header.seq), what: `batch ${b.header.seq}'s calldata (tx ${b.txHash}) rolls the settleHash to ${h}, its Settled log says ${b.settleHash}` };
    }
    if (h !== this.src.chainSettleHash) return { seq: null, commandType: null, batch: null, what: `the contract's settleHash ${this.src.chainSettleHash} is not the one the batches roll to (${h})` };
    return null;
  }

  /** The first batch after a later start snapshot: rebuilt in part only, not compared. */
  private skipOpen = false;

  private endOf(i: number): { seq: number; item: number } {
    const jp = this.src.batches[i]!.header.journalPos;
    return { seq: Number(jp >> 32n), item: Number(jp & 0xffffffffn) };
  }

  private apply(command: Command): Divergence | null {
    const at = (what: string, batch: number | null = null): Divergence => ({ seq: command.seq, commandType: command.type, batch, what });
    const signed = this.checkSignatures(command);
    if (signed !== null) return at(signed);
    const chainEvent = this.checkChainEvent(command);
    if (chainEvent !== null) return at(chainEvent);
    const result = this.wire.result(this.replica.apply(command));
    let items;
    try {
      items = this.fold.apply(command, result);
    } catch (e) {
      if (e instanceof SettlementGap) return at(e.message);
      throw e;
    }
    let cursor = 0;
    while (this.batchIndex < this.src.batches.length) {
      const end = this.endOf(this.batchIndex);
      if (command.seq < end.seq) {
        this.add(command, items, cursor, items.length);
        cursor = items.length;
        break;
      }
      if (command.seq > end.seq) return at(`batch ${this.batchIndex + 1} ends at command ${end.seq}, which the journal passed without reaching the batch's end`, this.batchIndex + 1);
      if (end.item > items.length) return at(`batch ${this.batchIndex + 1} ends at item ${end.item} of this command, which makes ${items.length} items`, this.batchIndex + 1);
      this.add(command, items, cursor, end.item);
      cursor = end.item;
      const d = this.compareBatch();
      if (d !== null) return d;
      this.batchIndex++;
    }
    if (this.batchIndex >= this.src.batches.length && items.length > cursor) this.afterLastBatch++;
    // Every state hash posted for this command.
    while (this.hashIndex < this.hashes.length && this.hashes[this.hashIndex]!.seq === command.seq) {
      const h = this.hashes[this.hashIndex++]!;
      const mine = this.replica.stateHash();
      if (mine !== h.hash) return at(`the engine's state after this command hashes to ${mine}; batch ${h.batch} posted ${h.hash}`, h.batch);
      this.progress.stateHashesChecked++;
    }
    return null;
  }

  private add(command: Command, items: Parameters<Batcher['add']>[1], from: number, to: number): void {
    if (to <= from) return;
    this.written.push({ seq: command.seq, type: command.type, from: this.batcher.pending });
    this.batcher.add(command, to === items.length ? items : items.slice(0, to), from);
  }

  /** The rebuilt batch against the chain's; on a difference, the command that wrote the first differing item. */
  private compareBatch(): Divergence | null {
    const chain = this.src.batches[this.batchIndex]!;
    const seq = Number(chain.header.seq);
    const mine = this.batcher.cut();
    const written = this.written;
    this.written = [];
    if (this.skipOpen) {
      this.skipOpen = false;
      return null;
    }
    const ours = mine?.items ?? new Uint8Array(0);
    const same = ours.length === chain.items.length && ours.every((b, i) => b === chain.items[i]);
    if (same) {
      if (mine !== null && BigInt(mine.matchTime) !== chain.header.matchTime) {
        const first = written[0]!;
        return { seq: first.seq, commandType: first.type, batch: seq, what: `batch ${seq} carries match time ${chain.header.matchTime}; its first command's time is ${mine.matchTime}` };
      }
      this.progress.batchesChecked++;
      return null;
    }
    const a = decodeItems(ours);
    let b: DecodedItem[];
    try {
      b = decodeItems(chain.items);
    } catch (e) {
      return { seq: null, commandType: null, batch: seq, what: `batch ${seq}'s items do not decode: ${(e as Error).message}` };
    }
    let i = 0;
    while (i < a.length && i < b.length && describe(a[i]) === describe(b[i])) i++;
    const by = [...written].reverse().find((w) => w.from <= i) ?? written[written.length - 1];
    return { seq: by?.seq ?? null, commandType: by?.type ?? null, batch: seq, what: `batch ${seq} differs from the journal's settlement at item ${i}: the journal makes ${describe(a[i])}, the chain holds ${describe(b[i])}` };
  }

  /** The oracle's signature of a settlement price, as the chain batch being rebuilt carries it (the auditor holds no oracle key). */
  private postedPriceSignature(pairId: Hex, expiry: number, price: bigint): Hex {
    const chain = this.src.batches[this.batchIndex];
    if (chain === undefined) return NO_SIGNATURE;
    for (const item of decodeItems(chain.items)) {
      if (item.kind === 'SETTLEMENT_PRICE' && item.pairId === pairId && item.expiry === expiry && item.price === price) return item.signature;
    }
    return NO_SIGNATURE;
  }

  private checkSignatures(command: Command): string | null {
    let orders: readonly PlaceOrder[];
    switch (command.type) {
      case 'place':
      case 'strategy':
        orders = command.orders;
        break;
      case 'replace':
        orders = command.pairs.map((p) => p.place);
        break;
      default:
        return null;
    }
    const r = checkPlaceSignatures(this.src.domain, orders);
    this.progress.ordersVerified += orders.length;
    return r;
  }

  private checkChainEvent(command: Command): string | null {
    if (command.type !== 'chain_event' || !LOG_KINDS.has(command.event.kind)) return null;
    if (command.event.kind === 'deposit' && command.event.depositId === undefined) return 'a deposit credited without the vault\'s deposit id: no log on chain says it happened';
    const onChain = this.src.chainEvents.get(command.id);
    if (onChain === undefined) return `chain event ${command.id} (${command.event.kind}) is not a log on chain`;
    if (canonical(onChain) !== canonical(command.event)) return `chain event ${command.id} differs from its log on chain: the journal has ${canonical(command.event)}, the chain ${canonical(onChain)}`;
    this.progress.chainEventsChecked++;
    return null;
  }

  /** After the journal's last command: every batch on chain must have been reached. */
  private end(): Divergence | null {
    if (this.batchIndex < this.src.batches.length) {
      const b = this.src.batches[this.batchIndex]!;
      return { seq: null, commandType: null, batch: Number(b.header.seq), what: `batch ${b.header.seq} ends at command ${this.endOf(this.batchIndex).seq}, beyond the journal's last command (${this.replica.seq}): the journal does not hold what the chain settled` };
    }
    const h = this.hashes[this.hashIndex];
    if (h !== undefined) return { seq: null, commandType: null, batch: h.batch, what: `batch ${h.batch} posted a state hash for command ${h.seq}, beyond the journal's last command (${this.replica.seq})` };
    return null;
  }
}
