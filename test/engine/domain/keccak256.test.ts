import t from 'tap';
import { bytesToHex, keccak256 as viemKeccak } from 'viem';
import { keccak256, keccak256Into } from '../../../engine/domain/keccak256.ts';
import { rng } from '../../workers/helpers/fixtures.ts';

t.test('equals viem keccak256 on every length 0..600 (all block boundaries) with random content', async (t) => {
  const next = rng(1);
  let mismatches = 0;
  for (let len = 0; len <= 600; len++) {
    const input = new Uint8Array(len);
    for (let i = 0; i < len; i++) input[i] = next() & 0xff;
    if (bytesToHex(keccak256(input)) !== viemKeccak(input)) mismatches++;
  }
  t.equal(mismatches, 0);
});

t.test('known vectors', async (t) => {
  t.equal(bytesToHex(keccak256(new Uint8Array(0))), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  t.equal(bytesToHex(keccak256(new TextEncoder().encode('abc'))), '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
});

t.test('hashes a slice into an offset without touching the rest of either buffer', async (t) => {
  const next = rng(2);
  const input = new Uint8Array(300);
  for (let i = 0; i < input.length; i++) input[i] = next() & 0xff;
  const out = new Uint8Array(80).fill(0xaa);
  keccak256Into(input, 17, 200, out, 40);
  t.equal(bytesToHex(out.subarray(40, 72)), viemKeccak(input.subarray(17, 217)));
  t.ok(out.subarray(0, 40).every((b) => b === 0xaa) && out.subarray(72).every((b) => b === 0xaa), 'outside bytes untouched');
  // Consecutive calls start from a fresh state.
  keccak256Into(input, 0, 5, out, 0);
  t.equal(bytesToHex(out.subarray(0, 32)), viemKeccak(input.subarray(0, 5)));
});
