/**
 * The order nonces a command uses, per wallet (the highest of each), for the order-nonce
 * store kept apart from the journal (persistence/stores/orderNonceStore.ts). Order, cancel
 * and RFQ-fill nonces share one space per wallet, as in the engine. An RFQ quote's nonce is
 * the market maker's quote generation, not a single-use nonce, and is not recorded.
 */
import type { Command } from '../../engine/index.ts';

export type NonceSink = { noteUsed(owner: string, nonce: bigint): void };

export function noteUsedNonces(command: Command, sink: NonceSink): void {
  switch (command.type) {
    case 'place':
    case 'strategy':
      for (const o of command.orders) note(sink, o.owner, o.nonce);
      return;
    case 'cancel':
      for (const c of command.cancels) note(sink, c.owner, c.nonce);
      return;
    case 'replace':
      for (const p of command.pairs) {
        note(sink, p.cancel.owner, p.cancel.nonce);
        note(sink, p.place.owner, p.place.nonce);
      }
      return;
    case 'rfq_fill':
      note(sink, command.taker, command.nonce);
      return;
    default:
      return;
  }
}

function note(sink: NonceSink, owner: string, nonce: bigint): void {
  if (nonce >= 0n) sink.noteUsed(owner, nonce);
}
