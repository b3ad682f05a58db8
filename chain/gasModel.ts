/**
 * The gas model of `orderBook.settle` (docs/chain.md "Gas"): a bound for the relayer to cut
 * batches under a gas limit and to set the transaction's gas limit. Each item's figure is its
 * execution measured on anvil for cold state (new accounts, new positions, a new order's first
 * fill: every storage write from zero), so the bound holds for any state; calldata is counted
 * exactly, byte by byte (16 gas a non-zero byte, 4 a zero byte, and EIP-7623's floor).
 * test/chain/gas.test.ts measures the figures and checks that the model bounds every case it runs.
 */
import type { ItemKindName } from './items.ts';

export const SETTLE_GAS = {
  /** The transaction (21,000) and settle()'s fixed work: batch checks, hashes, the two ledger calls. */
  base: 21_000 + 60_000,
  item: {
    ORDER: 40_000,
    FILL: 60_000,
    LIQUIDATION_FILL: 60_000,
    FUND_FILL: 60_000,
    RFQ_FILL: 130_000,
    MMM_NONCE: 30_000,
    DEPOSIT: 40_000,
    DEPOSIT_REFUND: 50_000,
    MINT: 60_000,
    WITHDRAW: 60_000,
    TRANSFER: 40_000,
    LIQUIDATION_FEE: 40_000,
    DEFICIT: 60_000,
    REBATE: 40_000,
    PAIR: 30_000,
    SERIES: 80_000,
    MMM: 30_000,
    SETTLEMENT_PRICE: 40_000,
    SERIES_SETTLED: 30_000,
    SETTLE_POSITION: 40_000,
  } satisfies Record<ItemKindName, number>,
  /** Calldata of `length` bytes of items of which `zeros` are zero, and settle()'s 164 bytes of head. */
  calldataGas(length: number, zeros: number): number {
    const headZeros = 150;
    const nonZero = length - zeros + (164 - headZeros);
    const zero = zeros + headZeros;
    const standard = 16 * nonZero + 4 * zero;
    const floor = 10 * (zero + 4 * nonZero);
    return Math.max(standard, floor - 0);
  },
};
