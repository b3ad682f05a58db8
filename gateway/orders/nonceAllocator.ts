/**
 * Order nonces handed out in typed-data replies (api.md "Orders": single-use per wallet,
 * increasing). The engine knows which nonces are used (`Venue.nextOrderNonce` is one above
 * the highest used, `Venue.orderNonceUsed` asks about one: read-only queries of its front
 * door); typed data handed out but not yet signed is known only here, so a per-wallet counter keeps two unsigned requests from getting the same nonce. The next
 * value is the largest of the two and the wallet's starting point. The counter lives in
 * memory: after a restart it starts again from the engine, which only re-offers nonces
 * nobody has used.
 *
 * Starting point: a PlaceOrder does not name its signer, so two wallets signing the same
 * order with the same nonce would sign the same orderId, and the second would be refused
 * as a duplicate. Market makers quoting the same grid do sign identical orders; so each
 * wallet's server-assigned nonces start at a 63-bit value derived from its address
 * (keccak256 of the address, its first 8 bytes with the top bit and the low 24 bits cleared):
 * runs of nonces of different wallets do not meet in practice. Below 2^63 they fit a signed
 * 64-bit integer, in which the engine's nonce window works them out without making a bigint
 * (engine/actors/nonceWindow.ts). Until 2026-11-27 the top bit was kept; a wallet that has used
 * such nonces goes on from the engine's next one, above its start.
 *
 * Order, cancel and RFQ-fill nonces share one space per wallet, as in the engine.
 */
import { keccak256 } from 'viem';
import type { EngineFront } from '../services.ts';

/** The start's bits kept: 63 bits, the low 24 cleared (see above). */
export const START_MASK = 0x7fff_ffff_ff00_0000n;

/** Wallets remembered; past this the map starts over (the engine's floor still holds). */
const MAX_WALLETS = 100_000;

export class NonceAllocator {
  private readonly handedOut = new Map<string, bigint>();
  private readonly starts = new Map<string, bigint>();

  /**
   * `floors`: per wallet, nonces at or below the floor count as used (set when part of the
   * journal was dropped: persistence/stores/orderNonceStore.ts); absent in tests of the allocator alone.
   */
  constructor(
    private readonly venue: Pick<EngineFront, 'nextOrderNonce' | 'orderNonceUsed'>,
    private readonly floors: { floor(owner: string): bigint | null } | null = null,
  ) {}

  /** The first nonce the server offers a wallet (see above). */
  start(owner: string): bigint {
    let s = this.starts.get(owner);
    if (s === undefined) {
      if (this.starts.size >= MAX_WALLETS) this.starts.clear();
      s = BigInt(keccak256(owner.toLowerCase() as `0x${string}`).slice(0, 18)) & START_MASK;
      this.starts.set(owner, s);
    }
    return s;
  }

  /** The engine's next unused nonce for a wallet; never creates the account. */
  private engineNext(owner: string): bigint {
    const next = this.venue.nextOrderNonce(owner);
    const floor = this.floors?.floor(owner) ?? null;
    return floor !== null && floor >= next ? floor + 1n : next;
  }

  /** What `take` would return, without taking it. */
  peek(owner: string): bigint {
    const engine = this.engineNext(owner);
    const mine = this.handedOut.get(owner) ?? this.start(owner);
    return mine > engine ? mine : engine;
  }

  /** A fresh nonce: above every used one and every one handed out before. */
  take(owner: string): bigint {
    const n = this.peek(owner);
    if (this.handedOut.size >= MAX_WALLETS && !this.handedOut.has(owner)) this.handedOut.clear();
    this.handedOut.set(owner, n + 1n);
    return n;
  }

  isUsed(owner: string, nonce: bigint): boolean {
    if (this.venue.orderNonceUsed(owner, nonce)) return true;
    const floor = this.floors?.floor(owner) ?? null;
    return floor !== null && nonce <= floor;
  }
}
