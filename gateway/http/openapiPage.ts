/**
 * `/openapi`: a small, self-contained interactive page (no CDN, no external script or
 * style) that fetches `/openapi/json`, lists the operations by tag and lets a user try
 * each one with a form. API-key requests are signed in the browser with Web Crypto
 * (HMAC-SHA256 of the timestamp). All document text is inserted with textContent.
 */

const script = String.raw`
'use strict';
const $ = (tag, attrs, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') el.className = v; else if (k.startsWith('on')) el.addEventListener(k.slice(2), v); else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
};
let spec = null;
const resolve = (s) => {
  if (s && s.$ref) return resolve(s.$ref.split('/').slice(1).reduce((o, k) => (o ? o[k] : undefined), spec)) || {};
  return s || {};
};
const example = (schema, depth) => {
  const s = resolve(schema);
  if (depth > 4) return null;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.examples && s.examples.length) return s.examples[0];
  if (s.enum) return s.enum[0];
  if (s.anyOf) return example(s.anyOf[0], depth + 1);
  switch (s.type) {
    case 'object': {
      const out = {};
      for (const [k, v] of Object.entries(s.properties || {})) if ((s.required || []).includes(k)) out[k] = example(v, depth + 1);
      return out;
    }
    case 'array': return [];
    case 'integer': case 'number': return s.minimum !== undefined ? s.minimum : 0;
    case 'boolean': return false;
    case 'null': return null;
    default: return '';
  }
};
const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
async function authHeaders() {
  const h = {};
  const token = document.getElementById('token').value.trim();
  const keyId = document.getElementById('keyId').value.trim();
  const secret = document.getElementById('secret').value.trim();
  if (token) h['Authorization'] = 'Bearer ' + token;
  if (keyId && secret && window.crypto && crypto.subtle) {
    const ts = String(Date.now());
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    h['X-API-Key'] = keyId; h['X-API-Timestamp'] = ts;
    h['X-API-Signature'] = hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(ts)));
  }
  return h;
}
function operationView(path, method, op) {
  const inputs = [];
  const form = $('div', { class: 'form' });
  for (const p of op.parameters || []) {
    const input = $('input', { placeholder: (p.required ? '' : 'optional ') + (resolve(p.schema).type || ''), 'data-name': p.name, 'data-in': p.in });
    inputs.push(input);
    form.append($('label', {}, $('span', {}, p.name + (p.in === 'path' ? ' (path)' : '')), input));
  }
  let body = null;
  const bodySchema = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
  if (bodySchema) {
    body = $('textarea', { rows: '8' });
    body.value = JSON.stringify(example(bodySchema.schema, 0), null, 2);
    form.append($('label', {}, $('span', {}, 'JSON body'), body));
  }
  const out = $('pre', { class: 'out' });
  const send = async () => {
    let url = path;
    const query = new URLSearchParams();
    for (const i of inputs) {
      if (i.value === '') continue;
      if (i.dataset.in === 'path') url = url.replace('{' + i.dataset.name + '}', encodeURIComponent(i.value));
      else query.append(i.dataset.name, i.value);
    }
    const qs = query.toString();
    const init = { method: method.toUpperCase(), headers: await authHeaders(), credentials: 'same-origin' };
    if (body) { init.body = body.value; init.headers['Content-Type'] = 'application/json'; }
    out.textContent = init.method + ' ' + url + (qs ? '?' + qs : '') + ' ...';
    try {
      const res = await fetch(url + (qs ? '?' + qs : ''), init);
      const text = await res.text();
      const shown = [];
      for (const [k, v] of res.headers) if (/^(x-ratelimit|retry-after|content-type)/i.test(k)) shown.push(k + ': ' + v);
      let pretty = text;
      try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) {}
      out.textContent = res.status + ' ' + res.statusText + '\n' + shown.join('\n') + '\n\n' + pretty;
    } catch (e) { out.textContent = 'request failed: ' + e; }
  };
  form.append($('button', { onclick: send, type: 'button' }, 'Send'), out);
  const badges = [$('span', { class: 'method ' + method }, method.toUpperCase()), $('code', {}, path), $('span', { class: 'summary' }, op.summary || '')];
  if (op['x-form'] === 'earlier') badges.push($('span', { class: 'tag' }, 'earlier form'));
  if (op.security && op.security.length && !op.security.some((s) => Object.keys(s).length === 0)) badges.push($('span', { class: 'tag' }, 'auth'));
  return $('details', { class: 'op', 'data-text': (method + ' ' + path + ' ' + (op.summary || '')).toLowerCase() },
    $('summary', {}, ...badges), op.description ? $('p', { class: 'desc' }, op.description) : null, form);
}
async function main() {
  const status = document.getElementById('status');
  try { spec = await (await fetch(document.body.dataset.spec)).json(); } catch (e) { status.textContent = 'could not load the OpenAPI document: ' + e; return; }
  document.getElementById('title').textContent = spec.info.title + ' ' + spec.info.version;
  status.textContent = '';
  const byTag = new Map();
  for (const [path, item] of Object.entries(spec.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[op.tags.length - 1]) || 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(operationView(path, method, op));
    }
  }
  const order = (spec.tags || []).map((t) => t.name);
  const tags = [...byTag.keys()].sort((a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9));
  const list = document.getElementById('ops');
  for (const tag of tags) list.append($('section', { class: 'group' }, $('h2', {}, tag), ...byTag.get(tag)));
  document.getElementById('filter').addEventListener('input', (e) => {
    const q = e.target.value.toLowerCase();
    for (const op of document.querySelectorAll('.op')) op.style.display = op.dataset.text.includes(q) ? '' : 'none';
  });
}
main();
`;

const style = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#1b1f24;color:#fff;padding:12px 20px}header a{color:#9cdcfe;margin-right:12px}
main{max-width:1100px;margin:0 auto;padding:16px}
.auth{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:12px}.auth input,#filter{padding:6px;border:1px solid #ccd;border-radius:4px;min-width:220px}
.op{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:6px 10px}
.op summary{cursor:pointer;display:flex;gap:10px;align-items:center}
.method{font-weight:700;font-size:12px;padding:2px 6px;border-radius:4px;color:#fff;background:#57606a;min-width:52px;text-align:center}
.get{background:#0969da}.post{background:#1a7f37}.delete{background:#cf222e}.put,.patch{background:#9a6700}
.tag{font-size:11px;border:1px solid #999;border-radius:10px;padding:0 6px;color:#555}.summary{color:#555}
.form label{display:flex;gap:8px;margin:6px 0;align-items:flex-start}.form label span{min-width:140px;font-family:monospace}
.form input,.form textarea{flex:1;font-family:monospace;padding:4px;border:1px solid #ccd;border-radius:4px}
button{padding:6px 14px;border:0;border-radius:4px;background:#0969da;color:#fff;cursor:pointer}
.out{background:#0d1117;color:#e6edf3;padding:8px;border-radius:4px;overflow:auto;max-height:400px;white-space:pre-wrap}
.desc{white-space:pre-wrap;color:#444}
`;

/** The page; `specUrl` is where it fetches the OpenAPI JSON from. */
export function openApiPageHtml(title: string, specUrl = '/openapi/json'): string {
  const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${style}</style></head>
<body data-spec="${esc(specUrl)}">
<header><strong id="title">${esc(title)}</strong> &nbsp; <a href="${esc(specUrl)}">OpenAPI JSON</a><a href="/openapi/yaml">YAML</a><a href="/llms.txt">llms.txt</a><a href="/asyncapi/json">AsyncAPI</a></header>
<main>
<div class="auth">
<input id="token" placeholder="Bearer token" autocomplete="off">
<input id="keyId" placeholder="API key id (ok_...)" autocomplete="off">
<input id="secret" placeholder="API key secret (signed locally)" type="password" autocomplete="off">
<input id="filter" placeholder="filter operations">
</div>
<p id="status">loading…</p>
<div id="ops"></div>
</main>
<script>${script}</script>
</body></html>
`;
}
