/**
 * The indexer (docs/chain.md "The indexer"): reads the contracts' logs from a cursor kept in
 * the relayer's outbox, a block range at a time, and hands on each log once it is
 * `confirmations` deep. Every log becomes one engine command `chain_event` with the id
 * `chainId:txHash:logIndex` (the same id a chain-indexing provider's webhook carries for it), so
 * the engine applies each event once whoever delivers it, and a restart that delivers a log
 * again changes nothing.
 *
 * Reorgs: only confirmed blocks are read, and the cursor remembers its block's hash. If that
 * block is no longer canonical the chain reorganised deeper than `confirmations`: what was
 * delivered cannot be taken back, so the indexer stops with an alert instead of guessing. The
 * embedded devnet is the exception (`rescanOnLoss`): anvil started again from its last state
 * dump has lost its newest blocks, and the indexer reads its logs again from the deployment
 * (every log it delivered before comes with the same id, and the engine takes each id once).
 */
import type { Hex } from 'viem';
import type { ChainClient, DepositLog } from './chainClient.ts';
import type { IndexerCursor, Outbox } from './outbox.ts';

export type ChainDeposit = {
  readonly id: string;
  readonly owner: string;
  readonly portfolioId: number;
  readonly amount: bigint;
  readonly txHash: Hex;
  readonly depositId: bigint;
};

export type IndexerEvents = {
  /** A confirmed deposit; resolves once the venue took it (its command is journaled). */
  deposit(d: ChainDeposit): Promise<void>;
  stopped(reason: string, details: Record<string, unknown>): void;
  error(what: string, e: unknown): void;
};

/** Blocks read per `eth_getLogs` call. */
const RANGE = 2000;

export class Indexer {
  private halted: string | null = null;

  constructor(
    private readonly chain: ChainClient,
    private readonly outbox: Outbox,
    private readonly confirmations: number,
    /** The block the contracts were deployed in: nothing before it to read. */
    private readonly fromBlock: number,
    private readonly on: IndexerEvents,
    private readonly rescanOnLoss = false,
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
      let logs: DepositLog[];
      let hash: Hex | null;
      try {
        logs = await this.chain.deposits(from, to);
        hash = await this.chain.blockHash(to);
      } catch (e) {
        this.on.error(`reading logs ${from}-${to}`, e);
        return;
      }
      if (hash === null) return;
      for (const l of logs) {
        const portfolioId = l.portfolioId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(l.portfolioId) : -1;
        await this.on.deposit({ id: `${this.chain.chainId}:${l.txHash}:${l.logIndex}`, owner: l.owner, portfolioId, amount: l.amount, txHash: l.txHash, depositId: l.depositId });
      }
      await this.outbox.saveCursor({ block: to, hash });
      from = to + 1;
    }
  }
}
