import t from 'tap';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { decodeFrame, encodeFrame } from '../../persistence/frame.ts';
import { crc32 } from '../../persistence/crc32.ts';
import { rng } from './fixtures/rng.ts';
import { toyCommand } from './fixtures/toyEngine.ts';

t.test('the JS CRC-32 equals zlib on every length up to past the native switch', async (t) => {
  const r = rng(99);
  let mismatches = 0;
  for (const len of [0, 1, 7, 8, 9, 15, 16, 17, 200, 4095, 4096, 10_000]) {
    const b = Buffer.from(Array.from({ length: len + 3 }, () => r.int(256)));
    if (crc32(b, 3, b.length) !== zlibCrc32(b.subarray(3))) mismatches++;
  }
  t.equal(mismatches, 0);
});

t.test('a frame detects any single flipped byte', async (t) => {
  const frame = encodeFrame(toyCommand(5, 123));
  t.ok(decodeFrame(frame).ok);
  let undetected = 0;
  for (let i = 0; i < frame.length; i++) {
    for (let bit = 1; bit < 0x100; bit <<= 1) {
      const bad = Buffer.from(frame);
      bad[i]! ^= bit;
      if (decodeFrame(bad).ok) undetected++;
    }
  }
  t.equal(undetected, 0, `all ${frame.length * 8} single-bit flips detected`);
});

t.test('truncated and empty frames are reported, not thrown', async (t) => {
  const frame = encodeFrame({ seq: 1, ts: 1, type: 'x' });
  t.match(decodeFrame(frame.subarray(0, frame.length - 1)), { ok: false });
  t.match(decodeFrame(Buffer.alloc(0)), { ok: false, reason: /too short/ });
  t.same(decodeFrame(frame), { ok: true, value: { seq: 1, ts: 1, type: 'x' } });
});
