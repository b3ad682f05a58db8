/**
 * The market page is served by the venue (no browser here; test/browser drives one):
 * `GET /` is the HTML, every module it loads (its script and their imports, followed
 * from the files) answers with the file's bytes as JavaScript, with an ETag, no-cache
 * and 304 on a matching If-None-Match; unknown files and routes keep their JSON 404s;
 * the OpenAPI document lists both routes.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startTestApp, request } from '../support/testApp.ts';
import { notModified, webDir } from '../../../gateway/routes/web.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());

t.test('GET / is the page, with its script module', async (t) => {
  const r = await fetch(`${app.url}/`);
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
  t.equal(r.headers.get('cache-control'), 'no-cache');
  t.match(r.headers.get('etag'), /^"[A-Za-z0-9_-]{22}"$/);
  t.match(r.headers.get('content-security-policy'), /default-src 'self'/);
  const html = await r.text();
  t.equal(html, readFileSync(new URL('index.html', webDir), 'utf8'), 'the file as written');
  t.match(html, '<script type="module" src="/web/app.js"></script>');
  const head = await fetch(`${app.url}/`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '', 'HEAD: no body');
});

t.test('every module the page loads is served as JavaScript', async (t) => {
  const html = readFileSync(new URL('index.html', webDir), 'utf8');
  const queue = [...html.matchAll(/<script type="module" src="\/web\/([a-z]+\.js)">/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const r = await fetch(`${app.url}/web/${name}`);
    t.equal(r.status, 200, name);
    t.equal(r.headers.get('content-type'), 'text/javascript; charset=utf-8', `${name}: content type`);
    const text = await r.text();
    t.equal(text, readFileSync(new URL(name, webDir), 'utf8'), `${name}: the file as written`);
    for (const m of text.matchAll(/^import [^;]* from '\.\/([a-z]+\.js)';$/gm)) queue.push(m[1]!);
  }
  t.same([...seen].sort(), ['app.js', 'depth.js', 'feed.js', 'format.js'], 'the page and its imports');
});

t.test('ETag and If-None-Match', async (t) => {
  for (const path of ['/', '/web/app.js']) {
    const first = await fetch(app.url + path);
    const etag = first.headers.get('etag')!;
    const again = await fetch(app.url + path, { headers: { 'if-none-match': etag } });
    t.equal(again.status, 304, `${path}: 304 for the current ETag`);
    t.equal(await again.text(), '', `${path}: no body`);
    t.equal(again.headers.get('etag'), etag);
    t.equal(again.headers.get('cache-control'), 'no-cache');
    const stale = await fetch(app.url + path, { headers: { 'if-none-match': '"something-else"' } });
    t.equal(stale.status, 200, `${path}: 200 for another ETag`);
  }
  t.ok(notModified('"a", W/"b"', '"b"'), 'a weak validator in a list');
  t.ok(notModified('*', '"b"'));
  t.notOk(notModified('"a"', '"b"'));
  t.notOk(notModified(undefined, '"b"'));
});

t.test('unknown files and routes keep their JSON 404s', async (t) => {
  for (const path of ['/web/nope.js', '/web/index.html', '/web/..%2Fpackage.json', '/web/tsconfig.json']) {
    const r = await request(app.url + path);
    t.equal(r.status, 404, path);
    t.equal(r.body.error, 'not_found', `${path}: the earlier error shape`);
  }
  const api = await request(`${app.url}/api/nope`);
  t.equal(api.status, 404);
  t.equal(api.body.code, 'not_found', 'under /api: the current error shape');
  const post = await request(`${app.url}/`, { method: 'POST', body: {} });
  t.equal(post.status, 405);
});

t.test('the OpenAPI document lists the page and its modules', async (t) => {
  const doc = (await request(`${app.url}/openapi/json`)).body;
  t.equal(doc.paths['/'].get.responses['200'].content['text/html'].schema.type, 'string');
  t.same(doc.paths['/'].get.responses['304'], { description: 'Not Modified: the copy named by If-None-Match is current' }, '304 without content');
  t.ok(doc.paths['/web/{file}'].get, '/web/{file}');
  t.ok(doc.tags.some((x: { name: string }) => x.name === 'web'), 'the web tag');
});
