/**
 * On-chain events the venue is told about: by a chain-indexing provider (docs/webhooks.md) a
 * deposit (credits collateral), a confirmed withdrawal, a relay of orders confirmed or failed;
 * by the venue's own indexer (docs/chain.md "The indexer") also a wallet's requests made on
 * chain: a nonce floor, a market maker's nonce increment, a forced withdrawal asked for or
 * executed, orders and cancels sent to the order book directly. Journaled as `chain_event`
 * commands, each once by its id.
 */
import type { Hex } from './hex.ts';
import type { CancelOrder, PlaceOrder } from './signedOrders.ts';

export type ChainEventData =
  /** `depositId`: the collateral vault's id of an on-chain deposit (the indexer's); absent for a provider's report without a chain. */
  | { readonly kind: 'deposit'; readonly owner: string; readonly portfolioId: number; readonly amount: bigint; readonly txHash: Hex; readonly depositId?: bigint }
  | { readonly kind: 'withdrawal_confirmed'; readonly owner: string; readonly withdrawalId: string; readonly txHash: Hex }
  /**
   * A relay of orders confirmed or failed. The venue's relayer names its batch (`batch`, the
   * settlement stream's seq: docs/chain.md) with the trades and withdrawals it carried; a
   * provider's report has none of these.
   */
  | {
      readonly kind: 'relay_confirmed' | 'relay_failed';
      readonly orderIds: readonly Hex[];
      readonly txHash: Hex;
      readonly reason: string | null;
      readonly batch?: number;
      readonly tradeIds?: readonly string[];
      readonly withdrawalIds?: readonly string[];
    }
  /** `orderBook.raiseNonceFloor(floor)` by `owner`: its open orders signed below `floor` are cancelled, and no nonce below it is taken again. */
  | { readonly kind: 'nonce_floor'; readonly owner: string; readonly floor: bigint; readonly txHash: Hex }
  /** `rfq.incrementMmmNonce()` by `mmm` (at chain nonce `nonce`): its quote nonce goes up by one, as `POST /api/mm/nonce/increment` does. */
  | { readonly kind: 'mmm_nonce_request'; readonly mmm: string; readonly nonce: bigint; readonly txHash: Hex }
  /** `collateralVault.requestWithdrawal(portfolioId, amount)` by `owner`, the vault's request `requestId`: paid up to the portfolio's free collateral, or refused. */
  | { readonly kind: 'withdrawal_request'; readonly owner: string; readonly portfolioId: number; readonly amount: bigint; readonly requestId: bigint; readonly txHash: Hex }
  /** `collateralVault.executeForcedWithdrawal(requestId)` after the timeout: the vault paid `paid` of the portfolio's cash to `owner`. */
  | { readonly kind: 'forced_withdrawal_executed'; readonly owner: string; readonly portfolioId: number; readonly requestId: bigint; readonly paid: bigint; readonly txHash: Hex }
  /**
   * Signed orders and cancels a wallet sent to `orderBook` itself (placeOrderSigned,
   * batchPlaceOrders, batchCancelOrders; `replace` for replaceOrderSigned and
   * batchReplaceOrders, pairs index by index), the signers recovered by the contract: entered as
   * the REST route's place, cancel or replace command would be, or refused as one (the event's
   * `refused`).
   */
  | { readonly kind: 'direct_orders'; readonly cancels: readonly CancelOrder[]; readonly places: readonly PlaceOrder[]; readonly replace: boolean; readonly txHash: Hex }
  /** A taker's signed fill sent to `rfq.fillQuote` itself, the taker recovered by the contract: entered as `POST /api/rfq/fill`'s command, or refused as it would be. */
  | { readonly kind: 'direct_rfq_fill'; readonly quoteId: Hex; readonly taker: string; readonly portfolioId: number; readonly fillSize: bigint; readonly nonce: bigint; readonly deadline: number; readonly signedDeadline?: bigint; readonly signature: Hex; readonly txHash: Hex };

export type ChainEventKind = ChainEventData['kind'];
/** The kinds a provider's webhook may carry; the venue's indexer alone reports the wallets' requests. */
export const chainEventKinds = ['deposit', 'withdrawal_confirmed', 'relay_confirmed', 'relay_failed'] as const satisfies readonly ChainEventKind[];
