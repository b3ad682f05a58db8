/**
 * The market page (`GET /`) and its browser modules (`GET /web/:file`): plain static
 * files from `web/`, read once at start and served as they are (no build step). Each
 * reply carries an ETag of its bytes with `Cache-Control: no-cache`, so a browser asks
 * again on every load and a matching `If-None-Match` answers 304 with no body: a reload
 * costs one small round trip per file, and a new release is picked up at once.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';

type WebFile = { readonly body: Uint8Array; readonly contentType: string; readonly etag: string };

const contentTypes: Readonly<Record<string, string>> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/**
 * The page may load only from the venue itself: its scripts and the WebSocket
 * (`'self'` covers `ws:`/`wss:` to the same host); inline style only (the page's own).
 */
const pageSecurity = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `web/` next to `gateway/`. */
export const webDir = new URL('../../web/', import.meta.url);

function load(name: string): WebFile {
  const body = readFileSync(new URL(name, webDir));
  const ext = name.slice(name.lastIndexOf('.'));
  return { body, contentType: contentTypes[ext]!, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** The served files: `index.html` and every `.js` module of `web/`, by name. */
export function webFiles(dir: URL = webDir): ReadonlyMap<string, WebFile> {
  const files = new Map<string, WebFile>();
  files.set('index.html', load('index.html'));
  for (const name of readdirSync(dir).sort()) if (name.endsWith('.js')) files.set(name, load(name));
  return files;
}

/** True when an `If-None-Match` value names the current ETag (a list, weak validators, or `*`). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

function reply(file: WebFile, ifNoneMatch: string | undefined, extra: Record<string, string> = {}) {
  const headers = { 'Cache-Control': 'no-cache', ETag: file.etag, ...extra };
  if (notModified(ifNoneMatch, file.etag)) return { status: 304, raw: '', contentType: file.contentType, headers };
  return { raw: file.body, contentType: file.contentType, headers };
}

export function webRoutes(files: ReadonlyMap<string, WebFile> = webFiles()): Route[] {
  const page = files.get('index.html')!;
  const modules = [...files.keys()].filter((n) => n.endsWith('.js'));
  const text = Type.String();
  const notModifiedReply = Type.String({ maxLength: 0, description: 'Not Modified: the copy named by If-None-Match is current' });
  return [
    defineRoute({
      method: 'GET',
      path: '/',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'Market page',
      description:
        'A read-only web page: pick a pair and an expiry to see the option chain (calls | strike | puts: bid, ask, mark, IV, delta, open interest), pick a series to follow its order book and trades, live over `/ws/public`. `ETag` with `Cache-Control: no-cache`; a matching `If-None-Match` answers 304.',
      tags: ['web'],
      produces: 'text/html',
      headers: ['if-none-match'],
      responses: { 200: text, 304: notModifiedReply },
      handler: ({ headers }) => reply(page, headers['if-none-match'], { 'Content-Security-Policy': pageSecurity }),
    }),
    defineRoute({
      method: 'GET',
      path: '/web/:file',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'Script module of the market page',
      description: `The page's browser modules, as written (no build step): ${modules.map((m) => `\`${m}\``).join(', ')}. Caching as for \`/\`.`,
      tags: ['web'],
      produces: 'text/javascript',
      headers: ['if-none-match'],
      params: Type.Object({ file: Type.String({ maxLength: 100, examples: ['app.js'] }) }),
      examples: { params: { file: 'app.js' } },
      responses: { 200: text, 304: notModifiedReply },
      handler: ({ params, headers }) => {
        const file = params.file.endsWith('.js') ? files.get(params.file) : undefined;
        if (file === undefined) return errorReply('not_found', `No such file: ${params.file}`, { file: params.file });
        return reply(file, headers['if-none-match']);
      },
    }),
  ];
}
