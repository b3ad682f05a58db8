/** Server-assigned order nonces (gateway/orders/nonceAllocator.ts, docs/order-entry.md "Starting point"). */
import t from 'tap';
import { keccak256 } from 'viem';
import { NonceAllocator, START_MASK } from '../../../gateway/orders/nonceAllocator.ts';

/** An engine with no nonce used, or one whose next nonce is given per wallet. */
function venue(next: Record<string, bigint> = {}) {
  return { nextOrderNonce: (owner: string) => next[owner] ?? 0n, orderNonceUsed: () => false };
}

const wallets = Array.from({ length: 200 }, (_, i) => `0x${(i * 7919 + 1).toString(16).padStart(40, '0')}`);

t.test('each wallet starts at its address hash with the top bit and the low 24 bits cleared', async (t) => {
  const a = new NonceAllocator(venue());
  let topBitWouldBeSet = 0;
  for (const w of wallets) {
    const hash = BigInt(keccak256(w as `0x${string}`).slice(0, 18));
    if (hash >= 2n ** 63n) topBitWouldBeSet++;
    const s = a.start(w);
    t.equal(s, hash & 0x7fff_ffff_ff00_0000n);
    t.ok(s < 2n ** 63n, 'within a signed 64-bit integer');
    t.equal(s & 0xff_ffffn, 0n);
  }
  t.ok(topBitWouldBeSet > 50, 'the sample has addresses whose hash has the top bit set');
  t.equal(START_MASK, 2n ** 63n - 2n ** 24n);
  t.equal(a.start(wallets[0]!.toUpperCase().replace('0X', '0x')), a.start(wallets[0]!), 'the address case does not matter');
});

t.test('nonces handed out increase from the start, or from the engine when it is above', async (t) => {
  const w = wallets[3]!;
  const fresh = new NonceAllocator(venue());
  const s = fresh.start(w);
  t.same([fresh.take(w), fresh.take(w), fresh.peek(w)], [s, s + 1n, s + 2n]);
  // A wallet that used nonces above its start (those handed out before the top bit was cleared) goes on above them.
  const high = 2n ** 63n + 5n;
  const used = new NonceAllocator(venue({ [w]: high }));
  t.same([used.take(w), used.take(w)], [high, high + 1n]);
});
