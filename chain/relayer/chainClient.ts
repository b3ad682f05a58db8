/**
 * The relayer's view of the chain: the settlement stream's anchors (`lastSeq`, `settleHash`),
 * sending `settle` transactions signed by the relayer's key, their receipts, the users' logs
 * (deposits and the requests of docs/chain.md "Leaving without the venue"), and the batch views reconciliation compares (docs/chain.md). Every call
 * goes through one viem public client over HTTP (no retries here: the relayer decides when to
 * try again); transactions are signed locally and sent raw.
 */
import { createPublicClient, decodeEventLog, getAddress, http, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { fastSigner, type FastSigner } from './txSigner.ts';
import { collateralVaultAbi, orderBookAbi, positionManagerAbi, rfqAbi } from '../artifacts.ts';
import type { ContractAddresses } from '../deploy.ts';
import { userLogsOf } from './userLogs.ts';

export type StreamAnchors = { readonly lastSeq: number; readonly settleHash: Hex; readonly lastJournalPos: bigint };
export type Fees = { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint };
export type SettledLog = { readonly seq: number; readonly journalPos: bigint; readonly matchTime: bigint; readonly settleHash: Hex; readonly fills: bigint; readonly stateSeq: bigint; readonly stateHash: Hex };
/**
 * A user's log the indexer turns into a `chain_event` (docs/chain.md "The indexer"): a deposit,
 * a nonce floor asked for, a market maker's nonce increment asked for.
 */
export type UserLog = { readonly txHash: Hex; readonly logIndex: number; readonly block: number } & (
  | { readonly kind: 'deposit'; readonly owner: Address; readonly portfolioId: bigint; readonly amount: bigint; readonly depositId: bigint }
  | { readonly kind: 'nonce_floor'; readonly owner: Address; readonly floor: bigint }
  | { readonly kind: 'mmm_nonce_request'; readonly mmm: Address; readonly nonce: bigint }
  | { readonly kind: 'withdrawal_request'; readonly owner: Address; readonly portfolioId: bigint; readonly amount: bigint; readonly requestId: bigint }
  | { readonly kind: 'forced_withdrawal_executed'; readonly owner: Address; readonly portfolioId: bigint; readonly requestId: bigint; readonly paid: bigint }
  | { readonly kind: 'direct_orders'; readonly cancels: readonly DirectCancel[]; readonly places: readonly DirectPlace[]; readonly replace: boolean }
  | { readonly kind: 'direct_rfq_fill'; readonly quoteId: Hex; readonly taker: Address; readonly portfolioId: bigint; readonly fillSize: bigint; readonly nonce: bigint; readonly deadline: bigint; readonly signature: Hex }
);

/** A signed order a wallet sent to the order book itself, with its id and signer as the contract recovered them. */
export type DirectPlace = {
  readonly order: { seriesId: Hex; portfolioId: bigint; isBuy: boolean; tick: number; size: bigint; expiry: number; nonce: bigint; deadline: bigint };
  readonly orderId: Hex;
  readonly owner: Address;
  readonly signature: Hex;
};
export type DirectCancel = { readonly cancel: { orderId: Hex; nonce: bigint; deadline: bigint }; readonly owner: Address; readonly signature: Hex };
export type Solvency = { readonly tokenBalance: bigint; readonly totalCash: bigint; readonly totalPremium: bigint; readonly pendingDeposits: bigint; readonly settlementImbalance: bigint };

export class ChainClient {
  readonly client: PublicClient;
  readonly account: PrivateKeyAccount;
  /** Native signing of settle() transactions (txSigner.ts), or null: viem's. */
  private readonly signer: FastSigner | null;

  constructor(
    readonly rpcUrl: string,
    readonly chainId: number,
    readonly addresses: ContractAddresses,
    relayerKey: Hex,
    timeoutMs = 10_000,
  ) {
    // No cache: viem keeps eth_blockNumber for its polling interval by default, and a stale head reads state from the past.
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: timeoutMs }), cacheTime: 0 });
    this.account = privateKeyToAccount(relayerKey);
    this.signer = fastSigner(relayerKey, chainId, addresses.orderBook);
  }

  get relayer(): Address {
    return this.account.address;
  }

  async head(): Promise<{ number: number; hash: Hex; timestamp: number }> {
    const b = await this.client.getBlock({ blockTag: 'latest' });
    return { number: Number(b.number), hash: b.hash, timestamp: Number(b.timestamp) };
  }

  async blockHash(number: number): Promise<Hex | null> {
    try {
      return (await this.client.getBlock({ blockNumber: BigInt(number) })).hash;
    } catch {
      return null;
    }
  }

  /** The stream's anchors at one block (the latest when none is named): read together, never across two blocks. */
  async anchors(blockNumber?: number): Promise<StreamAnchors & { block: number }> {
    // Never the head block: anvil serves a read "at" its latest block from its live state, which a
    // block being mined changes between two calls (lastSeq of one batch, settleHash of the next: a
    // false mismatch seen under load). The block before the head is immutable; a wanted block not
    // yet behind the head is read there instead (the caller sees an older lastSeq and waits).
    const head = Number(await this.client.getBlockNumber());
    const block = Math.max(0, Math.min(blockNumber ?? head - 1, head - 1));
    const at = { blockNumber: BigInt(block) };
    const read = (functionName: 'lastSeq' | 'settleHash' | 'lastJournalPos') => this.client.readContract({ address: this.addresses.orderBook, abi: orderBookAbi, functionName, ...at });
    const [lastSeq, settleHash, lastJournalPos, again] = await Promise.all([read('lastSeq'), read('settleHash'), read('lastJournalPos'), read('lastSeq')]);
    if (again !== lastSeq) throw new Error(`the order book's state at block ${block} changed while it was read (lastSeq ${lastSeq}, then ${again})`);
    return { lastSeq: Number(lastSeq), settleHash: settleHash as Hex, lastJournalPos: lastJournalPos as bigint, block };
  }

  /** The relayer's next nonce, pending transactions counted. */
  nonce(): Promise<number> {
    return this.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' });
  }

  async fees(): Promise<Fees> {
    const f = await this.client.estimateFeesPerGas();
    return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
  }

  /** Runs the call: null when it would succeed, else the revert data (hex), or null revert data and the error's message when the node answered no revert (a transport or node error, not a refusal). */
  async simulate(data: Hex, gas: bigint): Promise<{ revert: Hex | null; message: string } | null> {
    // Against the block to come first: its timestamp is the one the transaction will see (the
    // latest block's may be older than the batch's match time). anvil sometimes answers a call
    // on its pending block with an internal error and no revert: then against the latest block.
    let message = '';
    for (const blockTag of ['pending', 'latest'] as const) {
      try {
        await this.client.call({ account: this.account.address, to: this.addresses.orderBook, data, gas, blockTag });
        return null;
      } catch (e) {
        const revert = revertDataOf(e);
        if (revert !== null) return { revert, message: shortMessage(e) };
        message = `${message}${message === '' ? '' : '; '}${blockTag}: ${shortMessage(e)}`;
      }
    }
    return { revert: null, message };
  }

  /** Signs and sends a settle transaction; its hash. */
  async send(data: Hex, gas: bigint, nonce: number, fees: Fees): Promise<Hex> {
    const raw = this.signer !== null ? this.signer({ nonce, gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas, data }) : await this.account.signTransaction({
      chainId: this.chainId,
      type: 'eip1559',
      to: this.addresses.orderBook,
      data,
      gas,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      value: 0n,
    });
    return this.client.sendRawTransaction({ serializedTransaction: raw });
  }

  async receipt(hash: Hex): Promise<TransactionReceipt | null> {
    try {
      return await this.client.getTransactionReceipt({ hash });
    } catch (e) {
      if ((e as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
      throw e;
    }
  }

  /** Whether the node still knows the transaction (in its pool or in a block). */
  async known(hash: Hex): Promise<boolean> {
    try {
      await this.client.getTransaction({ hash });
      return true;
    } catch (e) {
      if ((e as { name?: string }).name === 'TransactionNotFoundError') return false;
      throw e;
    }
  }

  /** The `Settled` log of the order book in a receipt. */
  settledIn(receipt: TransactionReceipt): SettledLog | null {
    for (const log of receipt.logs) {
      if (getAddress(log.address) !== this.addresses.orderBook) continue;
      try {
        const d = decodeEventLog({ abi: orderBookAbi, data: log.data, topics: log.topics });
        if (d.eventName !== 'Settled') continue;
        const a = d.args as { seq: bigint; journalPos: bigint; matchTime: bigint; settleHash: Hex; fills: bigint; stateSeq: bigint; stateHash: Hex };
        return { seq: Number(a.seq), journalPos: a.journalPos, matchTime: a.matchTime, settleHash: a.settleHash, fills: a.fills, stateSeq: a.stateSeq, stateHash: a.stateHash };
      } catch {
        continue;
      }
    }
    return null;
  }

  /** The transaction and block of batch `seq`'s `Settled` log (null when the chain holds none). */
  async settledTx(seq: number): Promise<{ txHash: Hex; block: number; settleHash: Hex } | null> {
    const logs = await this.client.getContractEvents({ address: this.addresses.orderBook, abi: orderBookAbi, eventName: 'Settled', args: { seq: BigInt(seq) }, fromBlock: 0n });
    const l = logs.at(-1);
    return l === undefined ? null : { txHash: l.transactionHash, block: Number(l.blockNumber), settleHash: (l.args as { settleHash: Hex }).settleHash };
  }

  /** The calldata of the transaction that settled batch `seq`, with its Settled log's settleHash (diagnostics), or null. */
  async settledCall(seq: number): Promise<{ txHash: Hex; input: Hex; settleHash: Hex } | null> {
    const settled = await this.settledTx(seq);
    if (settled === null) return null;
    const tx = await this.client.getTransaction({ hash: settled.txHash });
    return { txHash: settled.txHash, input: tx.input, settleHash: settled.settleHash };
  }

  /** The users' logs in blocks `from..to`, in chain order (chain/relayer/userLogs.ts). */
  userLogs(from: number, to: number): Promise<UserLog[]> {
    return userLogsOf(this.client, this.addresses, from, to);
  }

  /** How many forced withdrawals the vault executed without the venue, at `blockNumber`. */
  async forcedExecutions(blockNumber: number): Promise<number> {
    return Number(await this.client.readContract({ address: this.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'forcedExecutions', blockNumber: BigInt(blockNumber) }));
  }

  async nonceFloors(owners: readonly Address[], blockNumber: number): Promise<readonly bigint[]> {
    return Promise.all(owners.map((o) => this.client.readContract({ address: this.addresses.orderBook, abi: orderBookAbi, functionName: 'nonceFloor', args: [o], blockNumber: BigInt(blockNumber) }) as Promise<bigint>));
  }

  async cashOf(owners: readonly Address[], portfolioIds: readonly bigint[], blockNumber: number): Promise<readonly bigint[]> {
    if (owners.length === 0) return [];
    return this.client.readContract({ address: this.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'cashOfMany', args: [owners, portfolioIds], blockNumber: BigInt(blockNumber) }) as Promise<readonly bigint[]>;
  }

  async positionsOf(owners: readonly Address[], portfolioIds: readonly bigint[], seriesIds: readonly Hex[], blockNumber: number): Promise<{ balances: readonly bigint[]; premiums: readonly bigint[] }> {
    if (owners.length === 0) return { balances: [], premiums: [] };
    const [balances, premiums] = (await this.client.readContract({ address: this.addresses.positionManager, abi: positionManagerAbi, functionName: 'positionsOf', args: [owners, portfolioIds, seriesIds], blockNumber: BigInt(blockNumber) })) as readonly [readonly bigint[], readonly bigint[]];
    return { balances, premiums };
  }

  async filledOf(signers: readonly Address[], orderIds: readonly Hex[], blockNumber: number): Promise<readonly bigint[]> {
    if (signers.length === 0) return [];
    return this.client.readContract({ address: this.addresses.orderBook, abi: orderBookAbi, functionName: 'filledOfMany', args: [signers, orderIds], blockNumber: BigInt(blockNumber) }) as Promise<readonly bigint[]>;
  }

  async mmmNonce(mmm: Address, blockNumber: number): Promise<bigint> {
    return this.client.readContract({ address: this.addresses.rfq, abi: rfqAbi, functionName: 'mmmNonce', args: [mmm], blockNumber: BigInt(blockNumber) }) as Promise<bigint>;
  }

  async solvency(blockNumber: number): Promise<Solvency & { fees: bigint; badDebt: bigint }> {
    const at = { address: this.addresses.collateralVault, abi: collateralVaultAbi, blockNumber: BigInt(blockNumber) } as const;
    const [s, fees, badDebt] = await Promise.all([
      this.client.readContract({ ...at, functionName: 'solvency' }) as Promise<readonly [bigint, bigint, bigint, bigint, bigint]>,
      this.client.readContract({ ...at, functionName: 'feesCollected' }) as Promise<bigint>,
      this.client.readContract({ ...at, functionName: 'badDebt' }) as Promise<bigint>,
    ]);
    return { tokenBalance: s[0], totalCash: s[1], totalPremium: s[2], pendingDeposits: s[3], settlementImbalance: s[4], fees, badDebt };
  }

  /** anvil only: the next block's timestamp at least `seconds` (the embedded chain follows the venue's clock when it runs ahead: docs/chain.md). */
  async timeAtLeast(seconds: number): Promise<void> {
    const head = await this.head();
    if (head.timestamp >= seconds) return;
    await this.client.request({ method: 'evm_setNextBlockTimestamp' as never, params: [`0x${seconds.toString(16)}`] as never });
  }
}

/** The revert data of a failed call, where viem's error chain carries it. */
export function revertDataOf(e: unknown): Hex | null {
  for (let err: unknown = e; err !== undefined && err !== null; err = (err as { cause?: unknown }).cause) {
    const data = (err as { data?: unknown }).data;
    if (typeof data === 'string' && data.startsWith('0x')) return data as Hex;
    if (data !== null && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string') return (data as { data: Hex }).data;
  }
  return null;
}

export function shortMessage(e: unknown): string {
  const err = e as { shortMessage?: string; message?: string; details?: unknown };
  const first = (err.shortMessage ?? err.message ?? String(e)).split('\n')[0]!;
  // viem keeps what the node itself said in `details` (an "internal error" says nothing without it).
  const details = typeof err.details === 'string' && err.details !== '' && !first.includes(err.details) ? err.details.split('\n')[0] : null;
  return details === null ? first : `${first} (${details})`;
}
