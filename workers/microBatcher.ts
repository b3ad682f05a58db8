/**
 * Collects single signature checks into batches. Orders arrive one HTTP request at a
 * time, but a worker task costs a message round trip and a structured clone: verified
 * one by one, the pool would spend much of its time messaging. The batcher groups every
 * request made in the same event-loop turn (same kind and domain) and sends the group
 * at the end of the turn (`setImmediate`, i.e. after the poll phase has delivered every
 * request that arrived together), or as soon as a group reaches `maxBatch`.
 *
 * Under light load a request waits at most one turn (no timer, no added latency); under
 * heavy load many requests arrive per turn and batches grow toward `maxBatch` by
 * themselves.
 */
import type { CancelOrderMessage, Eip712Domain, FillQuoteMessage, PlaceOrderMessage, RfqQuoteMessage } from './eip712/types.ts';
import type { SignatureVerifier } from './signatureVerifier.ts';
import type { SignedItem, VerifyBatch, VerifyKind, VerifyResult } from './verifyBatch.ts';

export type SingleVerifyRequest =
  | { readonly kind: 'place'; readonly domain: Eip712Domain; readonly message: PlaceOrderMessage; readonly signature: string }
  | { readonly kind: 'cancel'; readonly domain: Eip712Domain; readonly message: CancelOrderMessage; readonly signature: string }
  | { readonly kind: 'quote'; readonly domain: Eip712Domain; readonly message: RfqQuoteMessage; readonly signature: string }
  | { readonly kind: 'fill'; readonly domain: Eip712Domain; readonly message: FillQuoteMessage; readonly signature: string }
  | { readonly kind: 'personal'; readonly message: string; readonly signature: string };

export type MicroBatcherOptions = {
  /** Largest batch handed to the verifier at once (default 256). */
  readonly maxBatch?: number;
};

export type MicroBatcherStats = {
  /** Batches handed to the verifier. */
  readonly batches: number;
  /** Requests handed to the verifier (batchedItems / batches = mean batch size). */
  readonly batchedItems: number;
  /** Requests waiting for the end of the current turn. */
  readonly pendingItems: number;
  readonly largestBatch: number;
};

export type MicroBatcher = {
  /** Verify one signed message; resolves with its own result. */
  verify(request: SingleVerifyRequest): Promise<VerifyResult>;
  /** Send everything pending now instead of at the end of the turn. */
  flush(): void;
  stats(): MicroBatcherStats;
};

type Group = {
  readonly kind: VerifyKind;
  readonly domain: Eip712Domain | undefined;
  readonly items: SignedItem<unknown>[];
  readonly resolves: Array<(result: VerifyResult) => void>;
  readonly rejects: Array<(error: unknown) => void>;
};

function groupKey(request: SingleVerifyRequest): string {
  if (request.kind === 'personal') return 'personal';
  const d = request.domain;
  return `${request.kind}\u0000${d.name}\u0000${d.version}\u0000${d.chainId}\u0000${String(d.verifyingContract).toLowerCase()}`;
}

export function createMicroBatcher(verifier: SignatureVerifier, options: MicroBatcherOptions = {}): MicroBatcher {
  const maxBatch = Math.max(1, options.maxBatch ?? 256);
  const groups = new Map<string, Group>();
  let scheduled = false;
  let pendingItems = 0;
  let batches = 0;
  let batchedItems = 0;
  let largestBatch = 0;

  function dispatch(group: Group): void {
    const n = group.items.length;
    pendingItems -= n;
    batches++;
    batchedItems += n;
    if (n > largestBatch) largestBatch = n;
    const batch = { kind: group.kind, domain: group.domain, items: group.items } as VerifyBatch;
    let pending: Promise<VerifyResult[]>;
    try {
      pending = verifier.verify(batch);
    } catch (error) {
      // A verifier that throws instead of rejecting must not throw inside setImmediate.
      pending = Promise.reject(error);
    }
    pending.then(
      (results) => {
        for (let i = 0; i < n; i++) group.resolves[i]!(results[i]!);
      },
      (error: unknown) => {
        for (const reject of group.rejects) reject(error);
      },
    );
  }

  function flush(): void {
    scheduled = false;
    const pending = [...groups.values()];
    groups.clear();
    for (const group of pending) dispatch(group);
  }

  return {
    verify(request) {
      return new Promise<VerifyResult>((resolve, reject) => {
        const key = groupKey(request);
        let group = groups.get(key);
        if (group === undefined) {
          group = { kind: request.kind, domain: request.kind === 'personal' ? undefined : request.domain, items: [], resolves: [], rejects: [] };
          groups.set(key, group);
        }
        group.items.push({ message: request.message, signature: request.signature });
        group.resolves.push(resolve);
        group.rejects.push(reject);
        pendingItems++;
        if (group.items.length >= maxBatch) {
          groups.delete(key);
          dispatch(group);
        } else if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    flush,
    stats: () => ({ batches, batchedItems, pendingItems, largestBatch }),
  };
}
