/**
 * The gas model of `orderBook.settle` (docs/chain.md "Gas"): a bound for the relayer to cut
 * batches under a gas limit and to set the transaction's gas limit. Each item's figure is its
 * execution measured on anvil (test/chain/gasItems.test.ts) for fresh state, rounded up: new
 * positions, an order's first fill, wallets and accounts credited for the first time, refunds
 * of emptied slots added back (a gas limit must cover the gas before refunds). One assumption:
 * an account a fill charges a fee already holds cash (it deposited before trading); each one
 * that does not costs up to 17,100 more. An ORDER's figure counts a cold read of its owner's
 * nonce floor. Calldata is counted byte by byte (16 gas a non-zero byte, 4 a zero byte) and the
 * whole is at least EIP-7623's floor. In steady state (positions, cash and wallets that exist)
 * a batch uses about two thirds of the bound.
 */
import type { ItemKindName } from './items.ts';

export const SETTLE_GAS = {
  /**
   * The transaction (21,000) and settle()'s fixed work: batch checks and state, hashes, the two
   * ledger calls, the totals; and 40,000 for the venue-wide slots a fresh deployment's first
   * trades write from zero (the fees account, the total premium: 22,100 each, not 5,000), which
   * the items' figures do not carry (test/chain/gasFirst.test.ts).
   */
  base: 21_000 + 50_000 + 40_000,
  item: {
    ORDER: 9_000,
    FILL: 111_000,
    LIQUIDATION_FILL: 76_000,
    FUND_FILL: 52_000,
    RFQ_FILL: 128_000,
    MMM_NONCE: 28_000,
    NONCE_FLOOR: 52_000,
    DEPOSIT: 41_000,
    DEPOSIT_REFUND: 42_000,
    MINT: 29_000,
    WITHDRAW: 38_000,
    TRANSFER: 35_000,
    LIQUIDATION_FEE: 34_000,
    DEFICIT: 36_000,
    REBATE: 30_000,
    FORCED_WITHDRAW: 46_000,
    PAIR: 28_000,
    SERIES: 76_000,
    MMM: 28_000,
    SETTLEMENT_PRICE: 34_000,
    SERIES_SETTLED: 18_000,
    SETTLE_POSITION: 34_000,
  } satisfies Record<ItemKindName, number>,
  /** Calldata of `length` bytes of items of which `zeros` are zero, with settle()'s head: 16 gas a non-zero byte, 4 a zero byte. */
  calldataGas(length: number, zeros: number): number {
    const { nonZero, zero } = bytesOf(length, zeros);
    return 16 * nonZero + 4 * zero;
  },
  /** EIP-7623's floor of the whole transaction: 21,000 and 10 gas a token (a zero byte 1 token, another 4). */
  floorGas(length: number, zeros: number): number {
    const { nonZero, zero } = bytesOf(length, zeros);
    return 21_000 + 10 * (zero + 4 * nonZero);
  },
};

/** settle()'s selector and five words of head: 164 bytes, about 150 of them zero. */
function bytesOf(length: number, zeros: number): { nonZero: number; zero: number } {
  const padding = (32 - (length % 32)) % 32;
  return { nonZero: length - zeros + 14, zero: zeros + 150 + padding };
}
