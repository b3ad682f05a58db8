/**
 * Keccak-256 (the pre-standard SHA-3 padding Ethereum uses), written for the signature
 * fast path. Node's OpenSSL 3.0 has SHA3-256 but not Keccak-256 (the padding byte
 * differs, so one cannot be turned into the other), and @noble/hashes' loop-based
 * permutation measured about 3x slower on this machine than this unrolled one: a
 * PlaceOrder recovery needs five permutations (three for the struct, one for the
 * EIP-712 envelope, one for the address), which made hashing cost as much as the
 * native ECDSA recovery itself.
 *
 * Lanes are kept as 32-bit (lo, hi) halves in local variables; the round body was
 * generated (theta, rho+pi, chi, unrolled) and is checked against viem's keccak256 on
 * every input length from 0 to 600 bytes in test/engine/domain/keccak256.test.ts.
 *
 * Not reentrant across threads by design: each worker thread has its own module
 * instance, hence its own scratch state.
 */

const RATE = 136;

/** The 24 iota round constants as (lo, hi) pairs, from the degree-8 LFSR of the spec. */
const RC = new Int32Array(48);
{
  let r = 1;
  for (let round = 0; round < 24; round++) {
    let lo = 0;
    let hi = 0;
    for (let j = 0; j < 7; j++) {
      if (r & 1) {
        const bit = (1 << j) - 1;
        if (bit < 32) lo ^= 1 << bit;
        else hi ^= 1 << (bit - 32);
      }
      r = r & 0x80 ? ((r << 1) ^ 0x71) & 0xff : (r << 1) & 0xff;
    }
    RC[2 * round] = lo;
    RC[2 * round + 1] = hi;
  }
}

/** Keccak-f[1600] on a 50-word state (lane i is words 2i = low half, 2i+1 = high half). */
function permute(s: Int32Array): void {
  let a0 = s[0]!, a1 = s[1]!, a2 = s[2]!, a3 = s[3]!, a4 = s[4]!, a5 = s[5]!, a6 = s[6]!, a7 = s[7]!, a8 = s[8]!, a9 = s[9]!;
  let a10 = s[10]!, a11 = s[11]!, a12 = s[12]!, a13 = s[13]!, a14 = s[14]!, a15 = s[15]!, a16 = s[16]!, a17 = s[17]!, a18 = s[18]!, a19 = s[19]!;
  let a20 = s[20]!, a21 = s[21]!, a22 = s[22]!, a23 = s[23]!, a24 = s[24]!, a25 = s[25]!, a26 = s[26]!, a27 = s[27]!, a28 = s[28]!, a29 = s[29]!;
  let a30 = s[30]!, a31 = s[31]!, a32 = s[32]!, a33 = s[33]!, a34 = s[34]!, a35 = s[35]!, a36 = s[36]!, a37 = s[37]!, a38 = s[38]!, a39 = s[39]!;
  let a40 = s[40]!, a41 = s[41]!, a42 = s[42]!, a43 = s[43]!, a44 = s[44]!, a45 = s[45]!, a46 = s[46]!, a47 = s[47]!, a48 = s[48]!, a49 = s[49]!;
  let b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24;
  let b25, b26, b27, b28, b29, b30, b31, b32, b33, b34, b35, b36, b37, b38, b39, b40, b41, b42, b43, b44, b45, b46, b47, b48, b49;
  let c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, d0, d1;
  for (let round = 0; round < 48; round += 2) {
    c0 = a0 ^ a10 ^ a20 ^ a30 ^ a40;
    c1 = a1 ^ a11 ^ a21 ^ a31 ^ a41;
    c2 = a2 ^ a12 ^ a22 ^ a32 ^ a42;
    c3 = a3 ^ a13 ^ a23 ^ a33 ^ a43;
    c4 = a4 ^ a14 ^ a24 ^ a34 ^ a44;
    c5 = a5 ^ a15 ^ a25 ^ a35 ^ a45;
    c6 = a6 ^ a16 ^ a26 ^ a36 ^ a46;
    c7 = a7 ^ a17 ^ a27 ^ a37 ^ a47;
    c8 = a8 ^ a18 ^ a28 ^ a38 ^ a48;
    c9 = a9 ^ a19 ^ a29 ^ a39 ^ a49;
    d0 = c8 ^ ((c2 << 1) | (c3 >>> 31)); d1 = c9 ^ ((c3 << 1) | (c2 >>> 31));
    a0 ^= d0; a1 ^= d1; a10 ^= d0; a11 ^= d1; a20 ^= d0; a21 ^= d1; a30 ^= d0; a31 ^= d1; a40 ^= d0; a41 ^= d1;
    d0 = c0 ^ ((c4 << 1) | (c5 >>> 31)); d1 = c1 ^ ((c5 << 1) | (c4 >>> 31));
    a2 ^= d0; a3 ^= d1; a12 ^= d0; a13 ^= d1; a22 ^= d0; a23 ^= d1; a32 ^= d0; a33 ^= d1; a42 ^= d0; a43 ^= d1;
    d0 = c2 ^ ((c6 << 1) | (c7 >>> 31)); d1 = c3 ^ ((c7 << 1) | (c6 >>> 31));
    a4 ^= d0; a5 ^= d1; a14 ^= d0; a15 ^= d1; a24 ^= d0; a25 ^= d1; a34 ^= d0; a35 ^= d1; a44 ^= d0; a45 ^= d1;
    d0 = c4 ^ ((c8 << 1) | (c9 >>> 31)); d1 = c5 ^ ((c9 << 1) | (c8 >>> 31));
    a6 ^= d0; a7 ^= d1; a16 ^= d0; a17 ^= d1; a26 ^= d0; a27 ^= d1; a36 ^= d0; a37 ^= d1; a46 ^= d0; a47 ^= d1;
    d0 = c6 ^ ((c0 << 1) | (c1 >>> 31)); d1 = c7 ^ ((c1 << 1) | (c0 >>> 31));
    a8 ^= d0; a9 ^= d1; a18 ^= d0; a19 ^= d1; a28 ^= d0; a29 ^= d1; a38 ^= d0; a39 ^= d1; a48 ^= d0; a49 ^= d1;
    b0 = a0; b1 = a1;
    b32 = (a11 << 4) | (a10 >>> 28); b33 = (a10 << 4) | (a11 >>> 28);
    b14 = (a20 << 3) | (a21 >>> 29); b15 = (a21 << 3) | (a20 >>> 29);
    b46 = (a31 << 9) | (a30 >>> 23); b47 = (a30 << 9) | (a31 >>> 23);
    b28 = (a40 << 18) | (a41 >>> 14); b29 = (a41 << 18) | (a40 >>> 14);
    b20 = (a2 << 1) | (a3 >>> 31); b21 = (a3 << 1) | (a2 >>> 31);
    b2 = (a13 << 12) | (a12 >>> 20); b3 = (a12 << 12) | (a13 >>> 20);
    b34 = (a22 << 10) | (a23 >>> 22); b35 = (a23 << 10) | (a22 >>> 22);
    b16 = (a33 << 13) | (a32 >>> 19); b17 = (a32 << 13) | (a33 >>> 19);
    b48 = (a42 << 2) | (a43 >>> 30); b49 = (a43 << 2) | (a42 >>> 30);
    b40 = (a5 << 30) | (a4 >>> 2); b41 = (a4 << 30) | (a5 >>> 2);
    b22 = (a14 << 6) | (a15 >>> 26); b23 = (a15 << 6) | (a14 >>> 26);
    b4 = (a25 << 11) | (a24 >>> 21); b5 = (a24 << 11) | (a25 >>> 21);
    b36 = (a34 << 15) | (a35 >>> 17); b37 = (a35 << 15) | (a34 >>> 17);
    b18 = (a45 << 29) | (a44 >>> 3); b19 = (a44 << 29) | (a45 >>> 3);
    b10 = (a6 << 28) | (a7 >>> 4); b11 = (a7 << 28) | (a6 >>> 4);
    b42 = (a17 << 23) | (a16 >>> 9); b43 = (a16 << 23) | (a17 >>> 9);
    b24 = (a26 << 25) | (a27 >>> 7); b25 = (a27 << 25) | (a26 >>> 7);
    b6 = (a36 << 21) | (a37 >>> 11); b7 = (a37 << 21) | (a36 >>> 11);
    b38 = (a47 << 24) | (a46 >>> 8); b39 = (a46 << 24) | (a47 >>> 8);
    b30 = (a8 << 27) | (a9 >>> 5); b31 = (a9 << 27) | (a8 >>> 5);
    b12 = (a18 << 20) | (a19 >>> 12); b13 = (a19 << 20) | (a18 >>> 12);
    b44 = (a29 << 7) | (a28 >>> 25); b45 = (a28 << 7) | (a29 >>> 25);
    b26 = (a38 << 8) | (a39 >>> 24); b27 = (a39 << 8) | (a38 >>> 24);
    b8 = (a48 << 14) | (a49 >>> 18); b9 = (a49 << 14) | (a48 >>> 18);
    a0 = b0 ^ (~b2 & b4); a1 = b1 ^ (~b3 & b5);
    a2 = b2 ^ (~b4 & b6); a3 = b3 ^ (~b5 & b7);
    a4 = b4 ^ (~b6 & b8); a5 = b5 ^ (~b7 & b9);
    a6 = b6 ^ (~b8 & b0); a7 = b7 ^ (~b9 & b1);
    a8 = b8 ^ (~b0 & b2); a9 = b9 ^ (~b1 & b3);
    a10 = b10 ^ (~b12 & b14); a11 = b11 ^ (~b13 & b15);
    a12 = b12 ^ (~b14 & b16); a13 = b13 ^ (~b15 & b17);
    a14 = b14 ^ (~b16 & b18); a15 = b15 ^ (~b17 & b19);
    a16 = b16 ^ (~b18 & b10); a17 = b17 ^ (~b19 & b11);
    a18 = b18 ^ (~b10 & b12); a19 = b19 ^ (~b11 & b13);
    a20 = b20 ^ (~b22 & b24); a21 = b21 ^ (~b23 & b25);
    a22 = b22 ^ (~b24 & b26); a23 = b23 ^ (~b25 & b27);
    a24 = b24 ^ (~b26 & b28); a25 = b25 ^ (~b27 & b29);
    a26 = b26 ^ (~b28 & b20); a27 = b27 ^ (~b29 & b21);
    a28 = b28 ^ (~b20 & b22); a29 = b29 ^ (~b21 & b23);
    a30 = b30 ^ (~b32 & b34); a31 = b31 ^ (~b33 & b35);
    a32 = b32 ^ (~b34 & b36); a33 = b33 ^ (~b35 & b37);
    a34 = b34 ^ (~b36 & b38); a35 = b35 ^ (~b37 & b39);
    a36 = b36 ^ (~b38 & b30); a37 = b37 ^ (~b39 & b31);
    a38 = b38 ^ (~b30 & b32); a39 = b39 ^ (~b31 & b33);
    a40 = b40 ^ (~b42 & b44); a41 = b41 ^ (~b43 & b45);
    a42 = b42 ^ (~b44 & b46); a43 = b43 ^ (~b45 & b47);
    a44 = b44 ^ (~b46 & b48); a45 = b45 ^ (~b47 & b49);
    a46 = b46 ^ (~b48 & b40); a47 = b47 ^ (~b49 & b41);
    a48 = b48 ^ (~b40 & b42); a49 = b49 ^ (~b41 & b43);
    a0 ^= RC[round]!;
    a1 ^= RC[round + 1]!;
  }
  s[0] = a0; s[1] = a1; s[2] = a2; s[3] = a3; s[4] = a4; s[5] = a5; s[6] = a6; s[7] = a7; s[8] = a8; s[9] = a9;
  s[10] = a10; s[11] = a11; s[12] = a12; s[13] = a13; s[14] = a14; s[15] = a15; s[16] = a16; s[17] = a17; s[18] = a18; s[19] = a19;
  s[20] = a20; s[21] = a21; s[22] = a22; s[23] = a23; s[24] = a24; s[25] = a25; s[26] = a26; s[27] = a27; s[28] = a28; s[29] = a29;
  s[30] = a30; s[31] = a31; s[32] = a32; s[33] = a33; s[34] = a34; s[35] = a35; s[36] = a36; s[37] = a37; s[38] = a38; s[39] = a39;
  s[40] = a40; s[41] = a41; s[42] = a42; s[43] = a43; s[44] = a44; s[45] = a45; s[46] = a46; s[47] = a47; s[48] = a48; s[49] = a49;
}

const state = new Int32Array(50);

/** XOR `len` (<= RATE) bytes of `input` at `offset` into the state, little-endian per word. */
function absorb(input: Uint8Array, offset: number, len: number): void {
  const words = len >>> 2;
  let p = offset;
  for (let w = 0; w < words; w++, p += 4) {
    state[w] = state[w]! ^ (input[p]! | (input[p + 1]! << 8) | (input[p + 2]! << 16) | (input[p + 3]! << 24));
  }
  for (let i = words << 2; i < len; i++, p++) {
    state[i >>> 2] = state[i >>> 2]! ^ (input[p]! << ((i & 3) << 3));
  }
}

/**
 * keccak256 of `input[offset, offset + length)` written as 32 bytes into `out` at
 * `outOffset`. Allocation-free: the hot path hashes into buffers it reuses.
 */
export function keccak256Into(input: Uint8Array, offset: number, length: number, out: Uint8Array, outOffset: number): void {
  state.fill(0);
  let pos = offset;
  let left = length;
  while (left >= RATE) {
    absorb(input, pos, RATE);
    permute(state);
    pos += RATE;
    left -= RATE;
  }
  absorb(input, pos, left);
  // Keccak pad10*1 with domain byte 0x01 (SHA-3 would use 0x06).
  state[left >>> 2] = state[left >>> 2]! ^ (0x01 << ((left & 3) << 3));
  state[(RATE - 1) >>> 2] = state[(RATE - 1) >>> 2]! ^ (0x80 << 24);
  permute(state);
  for (let w = 0; w < 8; w++) {
    const v = state[w]!;
    const o = outOffset + 4 * w;
    out[o] = v & 0xff;
    out[o + 1] = (v >>> 8) & 0xff;
    out[o + 2] = (v >>> 16) & 0xff;
    out[o + 3] = v >>> 24;
  }
}

/** keccak256 of the whole input, as a new 32-byte array. */
export function keccak256(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  keccak256Into(input, 0, input.length, out, 0);
  return out;
}
