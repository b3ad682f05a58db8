/**
 * Validation without a server: exact coercion, defaults, field names and messages.
 */
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { compileInput, fieldName, parseQuery } from '../../../gateway/http/validation.ts';

t.test('query coercion converts only exact values', async (t) => {
  const v = compileInput(
    Type.Object({
      n: Type.Optional(Type.Number()),
      i: Type.Optional(Type.Integer()),
      b: Type.Optional(Type.Boolean()),
      s: Type.Optional(Type.String()),
      list: Type.Optional(Type.Array(Type.Integer())),
      either: Type.Optional(Type.Union([Type.Literal('all'), Type.Integer()])),
    }),
    'query',
    true,
  );
  const ok = (q: string): unknown => {
    const r = v.parse(parseQuery(q));
    return r.ok ? { ...(r.value as object) } : r.error;
  };
  t.same(ok('n=1.5&i=-3&b=false&s=007&list=1&list=2&either=all'), { n: 1.5, i: -3, b: false, s: '007', list: [1, 2], either: 'all' });
  t.same(ok('either=5&list=7&b=1'), { either: 5, list: [7], b: true });
  t.same(ok('n=1e3'), { n: 1000 });
  for (const [q, message] of [
    ['n=0x10', 'n must be a number'],
    ['n=1e400', 'n must be a number'],
    ['n=', 'n must be a number'],
    ['n=%201', 'n must be a number'],
    ['i=1.5', 'i must be an integer'],
    ['i=9007199254740993', 'i must be an integer'],
    ['b=yes', 'b must be a boolean'],
    ['list=1&list=x', 'list[1] must be an integer'],
    ['either=none', 'either is invalid'],
  ] as const) {
    t.same(ok(q), { field: message.split(' ')[0], message }, q);
  }
});

t.test('defaults, required, custom messages', async (t) => {
  const v = compileInput(
    Type.Object({
      limit: Type.Optional(Type.Integer({ exclusiveMinimum: 0, maximum: 100, default: 20 })),
      pairId: Type.String({ pattern: '^0x[0-9a-f]{64}$', errorMessage: 'pairId must be a hex string' }),
      side: Type.Optional(Type.Union([Type.Literal('buy'), Type.Literal('sell')])),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 3 })),
    }),
    'query',
    true,
  );
  const pairId = '0x' + 'a'.repeat(64);
  const r = v.parse(parseQuery(`pairId=${pairId}`));
  t.same(r.ok && { ...(r.value as object) }, { pairId, limit: 20 });
  const cases: Array<[string, string]> = [
    ['', 'pairId is required'],
    ['pairId=0x12', 'pairId must be a hex string'],
    [`pairId=${pairId}&limit=0`, 'limit must be greater than 0'],
    [`pairId=${pairId}&limit=101`, 'limit must be less than or equal to 100'],
    [`pairId=${pairId}&side=up`, 'side must be one of: buy, sell'],
    [`pairId=${pairId}&name=`, 'name must not be empty'],
    [`pairId=${pairId}&name=abcd`, 'name must be at most 3 characters long'],
  ];
  for (const [q, message] of cases) {
    const x = v.parse(parseQuery(q));
    t.same(x.ok ? null : x.error.message, message, q || '(empty)');
  }
});

t.test('bodies are not coerced; nested field names', async (t) => {
  const v = compileInput(
    Type.Object({
      orders: Type.Array(Type.Object({ size: Type.String(), tick: Type.Integer({ minimum: 0 }) }), { maxItems: 2 }),
      flag: Type.Optional(Type.Boolean()),
    }),
    'body',
    false,
  );
  const e = (body: unknown): string | null => {
    const r = v.parse(body);
    return r.ok ? null : `${r.error.field}: ${r.error.message}`;
  };
  t.equal(e({ orders: [{ size: '1', tick: 5 }] }), null);
  t.equal(e({ orders: [{ size: '1', tick: '5' }] }), 'orders[0].tick: orders[0].tick must be an integer', 'a string is not an integer in a body');
  t.equal(e({ orders: [{ size: '1', tick: 5 }, { tick: 1 }] }), 'orders[1].size: orders[1].size is required');
  t.equal(e({ orders: [], flag: 'true' }), 'flag: flag must be a boolean');
  t.equal(e({ orders: [1, 2, 3] }), 'orders: orders must have at most 2 items');
  t.equal(e('str'), 'body: body must be an object');
  t.equal(e(null), 'body: body must be an object');
  t.equal(e({ orders: [], unknown: { deep: [[[1]]] } }), null, 'unknown fields are ignored');
});

t.test('field names and query parsing', async (t) => {
  t.equal(fieldName('/a/0/b~1c/d~0e', 'body'), 'a[0].b/c.d~e');
  t.equal(fieldName('', 'query'), 'query');
  t.equal(fieldName('/' + 'x'.repeat(300), 'body').length, 103);
  const q = parseQuery('a=1&a=2&b=%20x&__proto__=p&c');
  t.same({ ...q }, { a: ['1', '2'], b: ' x', ['__proto__']: 'p', c: '' });
  t.equal(Object.getPrototypeOf(q), null, 'no prototype to pollute');
  t.same({ ...parseQuery('') }, {});
  t.same({ ...parseQuery('x=%ZZ') }, { x: '%ZZ' }, 'bad escapes are kept, not thrown');
});

t.test('query parsing gives the entries URLSearchParams gives, on its fast path and off it', async (t) => {
  const reference = (raw: string) => {
    const out = Object.create(null) as Record<string, string | string[]>;
    for (const [k, v] of new URLSearchParams(raw)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    return out;
  };
  const fixed = ['a', 'a=', '=a', '=', '&', '&&a=1&&', 'a=1&a=2&a=3', 'a==b', 'a=b=c&d', '?a=1', 'a=1?b', 'a=%41', 'a=b+c', 'é=ü', 'a=\ud800', 'a=\udc00x', '__proto__=1&constructor=2', 'metric=volume&period=24h&limit=20'];
  const alphabet = ['a', 'b', '=', '&', '?', '%', '2', '0', '+', 'é', '\ud83d', '\ude00', '\ud800', '_'];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const generated = Array.from({ length: 3000 }, () => Array.from({ length: Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(''));
  let differ = 0;
  for (const raw of [...fixed, ...generated]) {
    const got = { ...parseQuery(raw) };
    if (JSON.stringify(got) !== JSON.stringify(reference(raw))) {
      differ++;
      t.same(got, reference(raw), JSON.stringify(raw));
    }
  }
  t.equal(differ, 0, `${fixed.length + generated.length} query strings, the same entries in the same order`);
});
