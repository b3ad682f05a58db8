/**
 * The sender's diagnostics for a halt on a settleHash that is not the venue's
 * (chain/relayer/sender.ts).
 */
import { settleCalldata } from '../items.ts';
import { headerOf } from './batcher.ts';
import type { ChainClient } from './chainClient.ts';
import { shortMessage } from './chainClient.ts';
import type { StoredBatch } from './outbox.ts';

/**
 * Where the chain's batches and these differ (for the halt's details): per batch, whether the
 * settling transaction's calldata is the one this sender would send, and the first byte that
 * differs; and whether each Settled log's settleHash is this stream's.
 */
export async function differences(chain: ChainClient, batches: readonly StoredBatch[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown>[] = [];
  for (const b of batches) {
    try {
      const call = await chain.settledCall(b.seq);
      if (call === null) {
        out.push({ seq: b.seq, onChain: false });
        continue;
      }
      const ours = settleCalldata(headerOf(b), b.items);
      let first = -1;
      for (let i = 0; i < Math.max(ours.length, call.input.length); i++) {
        if (ours[i] !== call.input[i]) {
          first = i;
          break;
        }
      }
      out.push({ seq: b.seq, tx: call.txHash, sameCalldata: first < 0, firstDifferentHexChar: first, oursLength: ours.length, chainLength: call.input.length, sameSettleHash: call.settleHash === b.settleHash });
    } catch (e) {
      out.push({ seq: b.seq, error: shortMessage(e) });
    }
  }
  return { batches: out };
}
