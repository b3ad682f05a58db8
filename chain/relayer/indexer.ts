/**
 * The indexer (docs/chain.md "The indexer"): reads the contracts' logs from a cursor kept in
 * the relayer's outbox, a block range at a time, and hands on each log once it is
 * `confirmations` deep. Every log becomes one engine command `chain_event` with the id
 * `chainId:txHash:logIndex` (the same id a chain-indexing provider's webhook carries for it), so
 * the engine applies each event once whoever delivers it, and a restart that delivers a log
 * again changes nothing. The logs read are the users' (chainClient.ts `userLogs`): deposits,
 * nonce floors and market makers' nonce increments asked for, forced withdrawals asked for and
 * executed (docs/chain.md "Leaving without the venue"), orders and cancels sent to the order
 * book directly ("Writing to the contracts").
 *
 * Nothing is lost between the chain and the journal: the cursor moves past a block range only
 * once every event delivered from it is in the venue's state (`taken`, which the relayer answers
 * from its replica of the committed journal); until then the range's events are delivered again
 * every `redeliverMs`, so a venue that stopped before it journaled one gets it after its restart.
 *
 * Reorgs: only confirmed blocks are read, and the cursor remembers its block's hash. If that
 * block is no longer canonical the chain reorganised deeper than `confirmations`: what was
 * delivered cannot be taken back, so the indexer stops with an alert instead of guessing. The
 * embedded devnet is the exception (`rescanOnLoss`): anvil started again from its last state
 * dump has lost its newest blocks, and the indexer reads its logs again from the deployment
 * (every log it delivered before comes with the same id, and the engine takes each id once).
 */
import type { Hex } from 'viem';
import type { CancelOrder, ChainEventData, PlaceOrder } from '../../engine/index.ts';
import { canonicalSignature } from '../../workers/signature.ts';
import type { ChainClient, DirectCancel, DirectPlace, UserLog } from './chainClient.ts';
import type { IndexerCursor, Outbox } from './outbox.ts';

export type IndexerEvents = {
  /** A confirmed user log as the engine command's event, under its id. */
  event(id: string, event: ChainEventData): void;
  /** Whether the venue's committed state holds the event `id` (taken, or refused for good). */
  taken(id: string): boolean;
  stopped(reason: string, details: Record<string, unknown>): void;
  error(what: string, e: unknown): void;
};

/** Blocks read per `eth_getLogs` call. */
const RANGE = 2000;

type Delivered = { readonly cursor: IndexerCursor; readonly events: readonly { id: string; event: ChainEventData }[]; at: number };

/** A portfolio id from the chain (uint64) as the engine's number; one beyond it is -1, a portfolio no wallet has. */
const portfolioOf = (id: bigint): number => (id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : -1);

/** The engine's event of a user log. */
export function eventOf(l: UserLog): ChainEventData {
  switch (l.kind) {
    case 'deposit':
      return { kind: 'deposit', owner: l.owner, portfolioId: portfolioOf(l.portfolioId), amount: l.amount, txHash: l.txHash, depositId: l.depositId };
    case 'nonce_floor':
      return { kind: 'nonce_floor', owner: l.owner, floor: l.floor, txHash: l.txHash };
    case 'mmm_nonce_request':
      return { kind: 'mmm_nonce_request', mmm: l.mmm, nonce: l.nonce, txHash: l.txHash };
    case 'withdrawal_request':
      return { kind: 'withdrawal_request', owner: l.owner, portfolioId: portfolioOf(l.portfolioId), amount: l.amount, requestId: l.requestId, txHash: l.txHash };
    case 'forced_withdrawal_executed':
      return { kind: 'forced_withdrawal_executed', owner: l.owner, portfolioId: portfolioOf(l.portfolioId), requestId: l.requestId, paid: l.paid, txHash: l.txHash };
    case 'direct_orders':
      return { kind: 'direct_orders', cancels: l.cancels.map(cancelOf), places: l.places.map(placeOf), replace: l.replace, txHash: l.txHash };
    case 'direct_rfq_fill':
      return {
        kind: 'direct_rfq_fill', quoteId: l.quoteId, taker: l.taker, portfolioId: portfolioOf(l.portfolioId), fillSize: l.fillSize, nonce: l.nonce,
        deadline: secondsOf(l.deadline), ...(l.deadline > MAX_SAFE ? { signedDeadline: l.deadline } : {}), signature: signatureOf(l.signature), txHash: l.txHash,
      };
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const secondsOf = (deadline: bigint): number => (deadline > MAX_SAFE ? Number.MAX_SAFE_INTEGER : Number(deadline));
/** The contract recovered the signer from it: canonical form (low s, v 27/28) as the REST route keeps it. */
const signatureOf = (sig: Hex): Hex => canonicalSignature(sig) ?? sig;

/** The place command's order of a signed order sent to the chain, as the REST route builds it (gateway/orders/orderEntry.ts). */
function placeOf(p: DirectPlace): PlaceOrder {
  const o = p.order;
  return {
    orderId: p.orderId, owner: p.owner, portfolioId: portfolioOf(o.portfolioId), seriesId: o.seriesId, isBuy: o.isBuy, tick: o.tick, size: o.size, expiry: o.expiry, nonce: o.nonce,
    deadline: secondsOf(o.deadline), ...(o.deadline > MAX_SAFE ? { signedDeadline: o.deadline } : {}), signature: signatureOf(p.signature),
  };
}

function cancelOf(c: DirectCancel): CancelOrder {
  return { orderId: c.cancel.orderId, owner: c.owner, nonce: c.cancel.nonce, deadline: secondsOf(c.cancel.deadline) };
}

export class Indexer {
  private halted: string | null = null;
  /** The last range read whose events the venue has not all taken yet. */
  private delivered: Delivered | null = null;

  constructor(
    private readonly chain: ChainClient,
    private readonly outbox: Outbox,
    private readonly confirmations: number,
    /** The block the contracts were deployed in: nothing before it to read. */
    private readonly fromBlock: number,
    private readonly on: IndexerEvents,
    private readonly rescanOnLoss = false,
    private readonly clock: () => number = Date.now,
    private readonly redeliverMs = 5000,
  ) {}

  get stoppedFor(): string | null {
    return this.halted;
  }

  /** The block the indexer has read up to. */
  get cursor(): number {
    return this.outbox.cursor()?.block ?? this.fromBlock - 1;
  }

  async step(): Promise<void> {
    if (this.halted !== null) return;
    if (!(await this.settleDelivered())) return;
    let head: number;
    try {
      head = (await this.chain.head()).number;
    } catch (e) {
      this.on.error('reading the head', e);
      return;
    }
    const confirmed = head - this.confirmations + 1;
    let saved: IndexerCursor | null = this.outbox.cursor();
    if (saved !== null) {
      const hash = await this.chain.blockHash(saved.block).catch(() => null);
      if ((hash === null || hash !== saved.hash) && this.rescanOnLoss) {
        this.on.error(`block ${saved.block} is gone (a chain started again from an older state): reading its logs again from block ${this.fromBlock}`, new Error('lost blocks'));
        saved = null;
      } else if (hash === null || hash !== saved.hash) {
        this.halted = `the chain no longer holds block ${saved.block} (${saved.hash}) the indexer read: a reorganisation deeper than CONFIRMATIONS (${this.confirmations}) or a chain that lost blocks`;
        this.on.stopped(this.halted, { block: saved.block, hash: saved.hash, now: hash });
        return;
      }
    }
    let from = (saved?.block ?? this.fromBlock - 1) + 1;
    while (from <= confirmed && this.halted === null) {
      const to = Math.min(confirmed, from + RANGE - 1);
      let logs: UserLog[];
      let hash: Hex | null;
      try {
        logs = await this.chain.userLogs(from, to);
        hash = await this.chain.blockHash(to);
      } catch (e) {
        this.on.error(`reading logs ${from}-${to}`, e);
        return;
      }
      if (hash === null) return;
      const events = logs.map((l) => ({ id: `${this.chain.chainId}:${l.txHash}:${l.logIndex}`, event: eventOf(l) }));
      this.delivered = { cursor: { block: to, hash }, events, at: this.clock() };
      for (const e of events) this.on.event(e.id, e.event);
      if (!(await this.settleDelivered())) return;
      from = to + 1;
    }
  }

  /**
   * Moves the cursor past the delivered range once the venue took all of its events; true when
   * there is nothing outstanding. Events not taken within `redeliverMs` are delivered again.
   */
  private async settleDelivered(): Promise<boolean> {
    const d = this.delivered;
    if (d === null) return true;
    const missing = d.events.filter((e) => !this.on.taken(e.id));
    if (missing.length !== 0) {
      if (this.clock() - d.at >= this.redeliverMs) {
        d.at = this.clock();
        for (const e of missing) this.on.event(e.id, e.event);
      }
      return false;
    }
    await this.outbox.saveCursor(d.cursor);
    this.delivered = null;
    return true;
  }
}
