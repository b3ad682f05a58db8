/**
 * On-chain events a chain-indexing provider tells the venue about (extensions.md "Webhooks"):
 * a deposit (credits collateral), a confirmed withdrawal, a relay of orders confirmed or failed.
 * Journaled as `chain_event` commands, each once by its provider id.
 */
import type { Hex } from './hex.ts';

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
    };

export type ChainEventKind = ChainEventData['kind'];
export const chainEventKinds = ['deposit', 'withdrawal_confirmed', 'relay_confirmed', 'relay_failed'] as const satisfies readonly ChainEventKind[];
