/**
 * Fuzz: thousands of random, mostly malformed requests (methods, paths, query strings,
 * headers, bodies with invalid UTF-8, huge numbers, deep nesting, wrong types) against
 * the demo routes. Every reply must be JSON in one of the two shapes (by the path's
 * form), and never a 500. Seeded, so a failure can be replayed from the printed seed.
 */
import t from 'tap';
import { connect } from 'node:net';
import { earlierErrorCodes, errorCodes } from '../../../gateway/http/errors.ts';
import { demoRoutes, fakeAuthenticate, isAdmin, seriesIdExample, start } from './support.ts';

const seed = Number(process.env['FUZZ_SEED'] ?? 20260101);
// 1,500 keeps the file well under 20 s on a busy 2-core machine; FUZZ_COUNT runs longer locally.
const total = Number(process.env['FUZZ_COUNT'] ?? 1500);
const maxBodyBytes = 64 * 1024;

function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(seed);
const int = (n: number): number => Math.floor(rnd() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const chance = (p: number): boolean => rnd() < p;

const routes = demoRoutes();
const s = await start({ routes, authenticate: fakeAuthenticate, isAdmin, validateResponses: true, maxBodyBytes });
t.teardown(s.close);

const templates = routes.flatMap((r) => {
  const earlier = r.forms.includes('earlier') ? [r.path.startsWith('/api/') ? r.path.slice(4) : r.path] : [];
  return [r.path, ...earlier].map((path) => ({ path, method: r.method as string }));
});

const weirdStrings = [
  '', ' ', '0', '-0', '1e400', '-1e400', 'NaN', 'Infinity', '9'.repeat(400), '0x10', '1.5', 'true', 'null', '[]', '{}',
  '__proto__', 'constructor', 'prototype', '%', '%ZZ', '%00', '%C0%AF', '%E2%82', '..', '.', '../..', '😀', 'é', '\u202e', seriesIdExample,
  'BTC-80000-C-1700000000', 'a'.repeat(3000), '<script>', '"quoted"', "'", '\\', ';', '&', '=', '#', '?',
];

function randomText(max: number): string {
  if (chance(0.5)) return pick(weirdStrings);
  let out = '';
  const n = int(max);
  for (let i = 0; i < n; i++) out += String.fromCharCode(chance(0.9) ? 32 + int(95) : int(0x3000));
  return out;
}

function randomPath(template: string): string {
  let path = template.replace(/:[A-Za-z]+/g, () => (chance(0.3) ? seriesIdExample : chance(0.5) ? encodeURIComponent(randomText(40)) : pick(['%ZZ', '%', 'a%2Fb', 'ZZZ-1-C-1', 'BTC-1_5-C-17'])));
  if (chance(0.1)) path += '/';
  if (chance(0.05)) path = '/' + path;
  if (chance(0.05)) path += '/' + encodeURIComponent(randomText(8));
  if (chance(0.6)) {
    const keys = ['limit', 'cursor', 'isCall', 'expiry', 'strikes', 'pairId', 'strike', '__proto__', 'constructor', randomText(6)];
    const parts = Array.from({ length: 1 + int(6) }, () => `${encodeURIComponent(pick(keys))}=${chance(0.8) ? encodeURIComponent(randomText(20)) : pick(['%ZZ', '%', '%%', '&&', '=='])}`);
    path += '?' + parts.join('&');
  }
  return path;
}

function deep(n: number, open: string, close: string): string {
  return open.repeat(n) + close.repeat(n);
}

function randomJsonValue(depth: number): unknown {
  const k = int(depth > 3 ? 5 : 8);
  if (k === 0) return pick([null, true, false, 0, -1, 1e308, -1e-308, 2 ** 53 + 1]);
  if (k === 1) return randomText(30);
  if (k === 2) return pick(weirdStrings);
  if (k === 3) return int(1000);
  if (k === 4) return rnd() * 1e20;
  if (k === 5) return Array.from({ length: int(5) }, () => randomJsonValue(depth + 1));
  const o: Record<string, unknown> = {};
  for (const key of ['seriesId', 'isBuy', 'size', 'price', 'symbols', 'walletAddress', 'chainId', 'address', 'isMmm', 'portfolioId', randomText(5)]) {
    if (chance(0.5)) o[key] = randomJsonValue(depth + 1);
  }
  return o;
}

function randomBody(): Uint8Array | string | undefined {
  switch (int(12)) {
    case 0:
      return undefined;
    case 1:
      return '';
    case 2:
      return new Uint8Array(Array.from({ length: 1 + int(64) }, () => int(256)));
    case 3:
      return new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);
    case 4:
      return deep(1 + int(5_000), '[', ']');
    case 5:
      return `{"symbols":${deep(1 + int(5_000), '[', ']')}}`;
    case 6:
      return `{"chainId":${'9'.repeat(1 + int(2000))},"walletAddress":"0x${'1'.repeat(40)}"}`;
    case 7:
      return JSON.stringify({ symbols: Array.from({ length: int(1000) }, (_, i) => String(i)) });
    case 8:
      return JSON.stringify(randomJsonValue(0)).slice(0, chance(0.2) ? int(50) : undefined);
    case 9:
      return chance(0.1) ? 'x'.repeat(maxBodyBytes + 1 + int(1000)) : randomText(200);
    case 10:
      return JSON.stringify({ seriesId: seriesIdExample, isBuy: pick([true, 'true', 1, null]), size: pick(['1', 1, '-1', '1e400', '']), price: pick(['0.5', 0.5, [], {}]) });
    default:
      return JSON.stringify(randomJsonValue(0));
  }
}

function randomHeaders(): Record<string, string> {
  const h: Record<string, string> = {};
  const printable = (n: number): string => Array.from({ length: n }, () => String.fromCharCode(32 + int(95))).join('').trim() || 'x';
  if (chance(0.3)) h['authorization'] = pick(['Bearer tok-trader', 'Bearer tok-reader', 'Bearer tok-admin', 'Bearer ', 'Basic abc', printable(40)]);
  if (chance(0.2)) h['x-api-key'] = pick(['ok_good', 'ok_bad', printable(30)]);
  if (chance(0.2)) h['x-api-signature'] = pick(['sig', printable(64)]);
  if (chance(0.1)) h['x-api-timestamp'] = pick(['1', '-1', '1e400', printable(10)]);
  if (chance(0.3)) h['cookie'] = pick(['session=s-trader', 'session=', '=;=;;', 'session="%ZZ"', printable(200), Array.from({ length: 200 }, (_, i) => `c${i}=${i}`).join('; ')]);
  if (chance(0.3)) h['content-type'] = pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', printable(30)]);
  if (chance(0.2)) h['x-' + printable(8).replace(/[^a-z]/gi, 'a').toLowerCase()] = printable(100);
  return h;
}

type Outcome = { method: string; path: string; status: number; text: string; contentType: string | null; bodySize: number } | { method: string; path: string; error: string; bodySize: number };

async function one(): Promise<Outcome> {
  // Mostly the route's own method, so that most requests get past routing into validation and auth.
  const route = pick(templates);
  const method = chance(0.7) ? route.method : pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
  const path = randomPath(chance(0.9) ? route.path : '/' + Array.from({ length: int(5) }, () => encodeURIComponent(randomText(12))).join('/'));
  const headers = randomHeaders();
  const init: RequestInit = { method, headers };
  let bodySize = 0;
  if (method !== 'GET' && method !== 'HEAD') {
    const body = randomBody();
    if (body !== undefined) {
      init.body = body;
      bodySize = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    }
  }
  try {
    const res = await fetch(s.base + path, init);
    return { method, path, status: res.status, text: await res.text(), contentType: res.headers.get('content-type'), bodySize };
  } catch (err) {
    return { method, path, error: String((err as Error).cause ?? err), bodySize };
  }
}

function formOf(path: string): 'current' | 'earlier' {
  // As fetch sends it: dot segments resolved, percent-encoding kept.
  const pathname = new URL(s.base + path).pathname;
  return pathname === '/api' || pathname.startsWith('/api/') ? 'current' : 'earlier';
}

t.test(`random requests (seed ${seed})`, async (t) => {
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      next++;
      outcomes.push(await one());
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.equal(outcomes.length, total);
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  let tolerated = 0;
  for (const o of outcomes) {
    const where = `${o.method} ${o.path.slice(0, 120)}`;
    if ('error' in o) {
      // The server closes the connection after a 413; a client still writing may see the close instead.
      if (o.bodySize > maxBodyBytes) tolerated++;
      else problems.push(`${where}: no reply (${o.error})`);
      continue;
    }
    statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
    if (o.status >= 500) problems.push(`${where}: ${o.status} ${o.text.slice(0, 200)}`);
    if (o.method === 'HEAD' || o.status === 204) {
      if (o.text !== '') problems.push(`${where}: ${o.method} ${o.status} with a body`);
      continue;
    }
    if (!/^application\/json/.test(o.contentType ?? '')) problems.push(`${where}: content-type ${o.contentType}`);
    let body: unknown;
    try {
      body = JSON.parse(o.text);
    } catch {
      problems.push(`${where}: not JSON: ${o.text.slice(0, 100)}`);
      continue;
    }
    if (o.status < 400) continue;
    const b = body as Record<string, unknown>;
    if (formOf(o.path) === 'current') {
      const ok = Object.keys(b).sort().join() === 'code,details,message' && Object.hasOwn(errorCodes, b['code'] as string) && typeof b['message'] === 'string' && (b['details'] === null || (typeof b['details'] === 'object' && !Array.isArray(b['details'])));
      if (!ok) problems.push(`${where}: not the current shape: ${o.text.slice(0, 200)}`);
      else if (errorCodes[b['code'] as keyof typeof errorCodes].status !== o.status) problems.push(`${where}: ${String(b['code'])} with status ${o.status}`);
    } else {
      const keys = Object.keys(b).sort().join();
      const ok = (keys === 'error,message' || keys === 'details,error,message') && Object.hasOwn(earlierErrorCodes, b['error'] as string) && typeof b['message'] === 'string';
      if (!ok) problems.push(`${where}: not the earlier shape: ${o.text.slice(0, 200)}`);
    }
  }
  t.same(problems.slice(0, 20), [], `${problems.length} problems`);
  t.ok(tolerated < total / 50, `few connections closed on oversized bodies (${tolerated})`);
  for (const status of [200, 400, 401, 404, 405]) t.ok((statuses.get(status) ?? 0) > 0, `the fuzz reached status ${status}`);
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
});

t.test('garbage on the socket does not hurt the server', async (t) => {
  const garbage = [
    'GARBAGE\r\n\r\n',
    'GET / HTTP/9.9\r\n\r\n',
    'GET /api/markets HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n',
    'POST /api/helpers/symbol/translate/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n{',
    'GET /api/markets HTTP/1.1\r\n' + 'X-Big: ' + 'a'.repeat(100_000) + '\r\n\r\n',
    'PROPFIND /api/markets HTTP/1.1\r\nHost: x\r\n\r\n',
    '\u0000\u0001\u0002\u00ff'.repeat(100),
  ];
  for (const payload of garbage) {
    await new Promise<void>((resolve) => {
      const sock = connect(s.port, '127.0.0.1', () => sock.end(payload));
      sock.on('data', () => {});
      sock.on('error', () => resolve());
      sock.on('close', () => resolve());
      sock.setTimeout(2000, () => {
        sock.destroy();
        resolve();
      });
    });
  }
  const after = await fetch(`${s.base}/api/markets/pairs`);
  t.equal(after.status, 200, 'still serving');
});
