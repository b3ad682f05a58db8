/**
 * What order entry and RFQ share, built once per running venue: the two EIP-712 domains,
 * the nonce allocator, the order history (the read models' fold of order events), the
 * quote book, and signature checks
 * batched through the worker pool. The REST routes and the WebSocket quote path take the
 * same context (`orderContext(services)`), so both apply the same checks.
 */
import { getAddress, type Address } from 'viem';
import type { Hex } from '../../engine/index.ts';
import { domainSeparator } from '../../workers/eip712/digest.ts';
import { orderBookDomain, rfqDomain, type Eip712Domain } from '../../workers/eip712/types.ts';
import { createMicroBatcher, type MicroBatcher, type SingleVerifyRequest } from '../../workers/microBatcher.ts';
import type { SignatureVerifier } from '../../workers/signatureVerifier.ts';
import type { VerifyResult } from '../../workers/verifyBatch.ts';
import type { Services } from '../services.ts';
import type { SlotHistogram } from '../http/slotMetrics.ts';
import { NonceAllocator } from './nonceAllocator.ts';
import type { OrderHistory } from './orderHistory.ts';
import { QuoteBook } from './quoteBook.ts';

export type SigningDomain = { readonly domain: Eip712Domain; readonly separator: Uint8Array; readonly address: Address };

export type OrderContext = {
  readonly services: Services;
  readonly orderBook: SigningDomain;
  readonly rfq: SigningDomain;
  readonly nonces: NonceAllocator;
  readonly history: OrderHistory;
  readonly quotes: QuoteBook;
  /**
   * Where a signed request's time goes (`order_entry_stage_seconds{stage}`): `checks` (the
   * checks before signatures), `signatures` (waiting for the worker pool to recover them,
   * micro-batching included) and `journal` (the engine command, applied at once, until the
   * journal has committed it and its events are published).
   */
  readonly stages: { readonly checks: SlotHistogram; readonly signatures: SlotHistogram; readonly journal: SlotHistogram };
  /** Recover one signer; requests made in the same event-loop turn share a worker task. */
  verify(request: SingleVerifyRequest): Promise<VerifyResult>;
  /** The EIP-55 form of a wallet address (the engine keys accounts by it). */
  wallet(address: string): Address;
};

const contexts = new WeakMap<Services, OrderContext>();
const batchers = new WeakMap<SignatureVerifier, MicroBatcher>();

function signingDomain(domain: Eip712Domain): SigningDomain {
  return { domain, separator: domainSeparator(domain), address: domain.verifyingContract };
}

/**
 * Signatures per pool task for order entry. A burst of requests in one turn goes out in tasks
 * of this size as they are parsed, so the main thread applies and answers the first task's
 * orders while the worker recovers the next (one task of 256 made every order of the burst
 * wait for the last signature). 64 keeps the per-task messaging below 1 µs an order. On the
 * shared 2-core machine bench/orders could not tell 64 from 256 apart beyond its noise
 * (throughput and the half-load tail vary more between runs than between the two).
 */
const ORDER_VERIFY_BATCH = 64;

export function orderContext(services: Services): OrderContext {
  const existing = contexts.get(services);
  if (existing) return existing;
  const { config, venue, pipeline } = services;
  const quotes = new QuoteBook();
  pipeline.onEvents((events) => quotes.onEvents(events));
  const wallets = new Map<string, Address>();
  const stage = services.metrics.slotHistogram({
    name: 'order_entry_stage_seconds',
    help: 'Signed order requests: time spent per stage (checks, signatures: signature recovery in the pool, journal: engine command until committed).',
    labelNames: ['stage'] as const,
    buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
  });
  const ctx: OrderContext = {
    services,
    orderBook: signingDomain(orderBookDomain(config.serviceName, config.chainId, config.contracts.orderBook)),
    rfq: signingDomain(rfqDomain(config.serviceName, config.chainId, config.contracts.rfq)),
    nonces: new NonceAllocator(venue, services.stores.orderNonces),
    history: services.reads.orders,
    quotes,
    stages: { checks: stage.child({ stage: 'checks' }), signatures: stage.child({ stage: 'signatures' }), journal: stage.child({ stage: 'journal' }) },
    verify(request) {
      // Looked up per call: the verifier is the app's choice (pool, inline, or a benchmark's peer).
      const verifier = services.verifier;
      let batcher = batchers.get(verifier);
      if (!batcher) batchers.set(verifier, (batcher = createMicroBatcher(verifier, { maxBatch: ORDER_VERIFY_BATCH })));
      return batcher.verify(request);
    },
    wallet(address) {
      let w = wallets.get(address);
      if (w === undefined) {
        if (wallets.size >= 100_000) wallets.clear();
        w = getAddress(address.toLowerCase() as Hex);
        wallets.set(address, w);
      }
      return w;
    },
  };
  contexts.set(services, ctx);
  return ctx;
}
