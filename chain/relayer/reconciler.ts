/**
 * Reconciliation (docs/chain.md "Reconciliation"): after a batch is included, what the chain
 * holds is compared with what the engine said at that batch, for everything the batches since
 * the last comparison touched: each account's cash, each position's balance and deferred
 * premium, each signed order's fill amount, each market maker's quote nonce, each nonce floor
 * the stream set; and the totals:
 * the sum of every account's cash and of every deferred premium, the fees account, bad debt,
 * and the vault's solvency identity. The rolling settleHash is checked at every batch by the
 * sender (chain/relayer/sender.ts). A mismatch stops the relayer and raises an alert; nothing is
 * corrected automatically.
 */
import type { Address, Hex } from 'viem';
import { getAddress } from 'viem';
import type { ChainClient } from './chainClient.ts';
import { type Expectations, emptyExpectations } from '../settlementFold.ts';

/** What the engine said at a batch's end: the touched keys (since the previous expectation) and the totals. */
export type BatchExpectation = {
  readonly touched: Expectations;
  readonly cashTotal: bigint;
  readonly premiumTotal: bigint;
  readonly fees: bigint;
  readonly badDebt: bigint;
  /** Forced withdrawals executed on chain that the engine had taken in at this point. */
  readonly forcedExecutions: number;
};

/** A batch's expected totals, without the touched keys. */
export type BatchTotals = Omit<BatchExpectation, 'touched'>;

export type Mismatch = { readonly what: string; readonly key: string; readonly venue: string; readonly chain: string };

export type ReconcileResult = { readonly batch: number; readonly block: number; readonly checked: number; readonly mismatches: readonly Mismatch[] };

/** Later values of the same key win: `into` becomes the union, at `from`'s point. */
export function mergeExpectations(into: Expectations, from: Expectations): Expectations {
  for (const [k, v] of from.cash) into.cash.set(k, v);
  for (const [k, v] of from.positions) into.positions.set(k, v);
  for (const [k, v] of from.fills) into.fills.set(k, v);
  for (const [k, v] of from.mmmNonces) into.mmmNonces.set(k, v);
  for (const [k, v] of from.floors) into.floors.set(k, v);
  return into;
}

/** Keys compared per view call. */
const CHUNK = 500;

function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

/**
 * Compare the chain at `block` (where batch `batch` is the last one applied) with `expected`,
 * the union of the expectations of every batch since the last comparison, at `batch`'s end.
 */
export async function reconcile(chain: ChainClient, batch: number, block: number, expected: BatchExpectation): Promise<ReconcileResult> {
  const mismatches: Mismatch[] = [];
  const t = expected.touched;
  let checked = 0;
  const note = (what: string, key: string, venue: bigint, onChain: bigint) => {
    checked++;
    if (venue !== onChain) mismatches.push({ what, key, venue: venue.toString(), chain: onChain.toString() });
  };
  for (const part of chunks([...t.cash.values()])) {
    const got = await chain.cashOf(part.map((c) => c.owner), part.map((c) => BigInt(c.portfolioId)), block);
    part.forEach((c, i) => note('cash', `${c.owner}/${c.portfolioId}`, c.cash, got[i]!));
  }
  for (const part of chunks([...t.positions.values()])) {
    const got = await chain.positionsOf(part.map((p) => p.owner), part.map((p) => BigInt(p.portfolioId)), part.map((p) => p.seriesId), block);
    part.forEach((p, i) => {
      note('position', `${p.owner}/${p.portfolioId}/${p.seriesId}`, p.balance, got.balances[i]!);
      note('premium', `${p.owner}/${p.portfolioId}/${p.seriesId}`, p.premium, got.premiums[i]!);
    });
  }
  for (const part of chunks([...t.fills.values()])) {
    const got = await chain.filledOf(part.map((f) => f.owner), part.map((f) => f.orderId), block);
    part.forEach((f, i) => note('filled', `${f.owner}/${f.orderId}`, f.filled, got[i]!));
  }
  for (const [mmm, nonce] of t.mmmNonces) note('mmmNonce', mmm, nonce, await chain.mmmNonce(getAddress(mmm) as Address, block));
  for (const part of chunks([...t.floors])) {
    const got = await chain.nonceFloors(part.map(([owner]) => getAddress(owner) as Address), block);
    part.forEach(([owner, floor], i) => note('nonceFloor', owner, floor, got[i]!));
  }
  const s = await chain.solvency(block);
  note('fees', 'collateralVault/0', expected.fees, s.fees);
  note('badDebt', 'collateralVault/1', expected.badDebt, s.badDebt);
  // Every account's cash: the traders', the fund's, plus the fees and (negative) bad-debt accounts.
  note('totalCash', 'all accounts', expected.cashTotal + expected.fees - expected.badDebt, s.totalCash);
  note('totalPremium', 'all positions', expected.premiumTotal, s.totalPremium);
  note('solvency', 'collateralToken.balanceOf(vault)', s.totalCash + s.totalPremium + s.pendingDeposits - s.settlementImbalance, s.tokenBalance);
  return { batch, block, checked, mismatches };
}

export { emptyExpectations };
export type { Hex };
