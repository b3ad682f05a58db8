import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import { decodeValue, encodeValue, tryDecodeValue } from '../../persistence/codec.ts';
import { rng, type Rng } from './fixtures/rng.ts';

const roundTrip = (v: unknown): unknown => decodeValue(encodeValue(v));

t.test('edge values round-trip exactly', async (t) => {
  const big = 2n ** 255n;
  const values: unknown[] = [
    0n,
    -1n,
    1n,
    big,
    -big,
    big - 1n,
    -(big + 1n),
    2n ** 63n - 1n,
    -(2n ** 63n),
    2n ** 63n,
    -(2n ** 63n) - 1n,
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    2n ** 53n - 1n,
    -(2n ** 53n) + 1n,
    2n ** 53n,
    -(2n ** 53n),
    2n ** 32n,
    -(2n ** 32n) - 1n,
    10n ** 300n + 7n,
    -(10n ** 1000n),
    0,
    -0,
    1,
    255,
    256,
    -1,
    2 ** 31 - 1,
    -(2 ** 31),
    2 ** 31,
    Number.MAX_SAFE_INTEGER,
    0.1,
    1e300,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    '',
    'ascii',
    'ünïcödé ✓ 🚀',
    'x'.repeat(100_000),
    true,
    false,
    null,
    undefined,
    [],
    {},
    [1, [2, [3, [4n]]]],
    { a: { b: { c: { d: -5n } } } },
    { undefinedKept: undefined },
    new Uint8Array([0, 1, 254, 255]),
  ];
  for (const v of values) {
    const back = roundTrip(v);
    const label = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
    t.ok(Object.is(back, v) || isDeepStrictEqual(back, v), `round-trips ${label.slice(0, 40)}`);
    if (typeof v === 'bigint') t.equal(typeof back, 'bigint', 'a bigint stays a bigint, never a number');
  }
  t.ok(Object.is(roundTrip(-0), -0), '-0 keeps its sign');
  t.ok('undefinedKept' in (roundTrip({ undefinedKept: undefined }) as object), 'a key holding undefined is kept');
});

t.test('a stored __proto__ key comes back as data, not as a prototype', async (t) => {
  const v = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
  const back = roundTrip(v) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(back), Object.prototype);
  t.same(Object.keys(back), ['__proto__', 'x']);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

function randomValue(r: Rng, depth: number): unknown {
  const kind = r.int(depth > 3 ? 7 : 9);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.int(5) === 0 ? (r.next() - 0.5) * 1e6 : r.int(2 ** 31) - 2 ** 30;
    case 3: {
      // Bigints from 0 to ~600 bits, either sign.
      let n = 0n;
      const words = r.int(20);
      for (let i = 0; i < words; i++) n = (n << 32n) | BigInt(r.int(2 ** 32));
      return r.next() < 0.5 ? -n : n;
    }
    case 4:
      return Array.from({ length: r.int(30) }, () => String.fromCharCode(32 + r.int(95), 0x400 + r.int(200))).join('');
    case 5:
      return r.next() < 0.5 ? 'buy' : 'sell';
    case 6:
      return Uint8Array.from({ length: r.int(10) }, () => r.int(256));
    case 7:
      return Array.from({ length: r.int(6) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = ['seq', 'ts', 'type', 'price', 'size', 'side', 'nested', 'list', `k${r.int(50)}`, `key-${r.int(5)}-é`];
      for (let i = r.int(8); i > 0; i--) o[keys[r.int(keys.length)]!] = randomValue(r, depth + 1);
      return o;
    }
  }
}

t.test('seeded random nested values round-trip, and encoding is canonical', async (t) => {
  const r = rng(20240601);
  let failures = 0;
  for (let i = 0; i < 3000; i++) {
    const v = randomValue(r, 0);
    const bytes = encodeValue(v);
    const back = decodeValue(bytes);
    if (!isDeepStrictEqual(back, v) || !encodeValue(back).equals(bytes)) failures++;
  }
  t.equal(failures, 0, '3,000 random values');
});

t.test('many distinct object shapes (past the decoder shape cache) still decode right', async (t) => {
  const objects = Array.from({ length: 20_000 }, (_, i) => ({ [`a${i}`]: i, [`b${i % 7}`]: BigInt(i), z: 'x' }));
  const back = objects.map((o) => decodeValue(encodeValue(o)));
  t.ok(isDeepStrictEqual(back, objects));
  for (const n of [100, 127, 128, 300, 20_000]) {
    const wide = Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
    t.same(roundTrip(wide), wide, `a ${n}-key object`);
  }
});

t.test('non-plain data is refused', async (t) => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  class Thing {
    x = 1;
  }
  for (const [v, re] of [
    [new Map(), /Map/],
    [new Date(0), /Date/],
    [new Thing(), /Thing/],
    [() => 1, /function/],
    [Symbol('s'), /symbol/],
    [cyclic, /deeper than/],
  ] as const) {
    t.throws(() => encodeValue({ v }), re);
  }
});

t.test('malformed input is a value, never an exception', async (t) => {
  const good = encodeValue({ seq: 1, ts: 2, type: 'x', amount: 2n ** 200n, list: [1, 2, 3] });
  for (let cut = 0; cut < good.length; cut++) {
    const r = tryDecodeValue(good.subarray(0, cut));
    if (r.ok) t.fail(`a value cut at ${cut} of ${good.length} bytes decoded`);
  }
  t.notOk(tryDecodeValue(Buffer.concat([good, Buffer.from([0])])).ok, 'trailing bytes');
  t.notOk(tryDecodeValue(Buffer.from([0xff])).ok, 'unknown tag');
  t.notOk(tryDecodeValue(Buffer.from([0x0b, 0xff, 0xff, 0xff, 0x7f])).ok, 'absurd array length');
  const r = rng(7);
  for (let i = 0; i < 2000; i++) tryDecodeValue(Uint8Array.from({ length: r.int(40) }, () => r.int(256)));
  t.pass('2,000 random byte strings decoded or refused without throwing');
});
