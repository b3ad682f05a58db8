/**
 * The error registry: every code maps to a status and an earlier code of the same
 * status, both body shapes are right, and every code is documented in docs/errors.md
 * (style.md habit 3: codes must not drift from their docs).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, earlierCodeOf, earlierErrorCodes, errorBody, errorCodes, errorReply, isErrorCode, statusOf, type ErrorCode } from '../../../gateway/http/errors.ts';

const docs = readFileSync(fileURLToPath(new URL('../../../docs/errors.md', import.meta.url)), 'utf8');

/** Rows of the markdown table under a heading: first cell (unquoted) -> second cell. */
function table(heading: string): Map<string, string> {
  const section = docs.split(/^## /m).find((s) => s.startsWith(heading));
  const rows = new Map<string, string>();
  for (const line of (section ?? '').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const code = /^`([a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (code !== undefined) rows.set(code, cells[2] ?? '');
  }
  return rows;
}

t.test('the interface codes are all present with their statuses', async (t) => {
  const expected: Record<string, number> = {
    unauthenticated: 401,
    invalid_argument: 400,
    permission_denied: 403,
    not_found: 404,
    resource_exhausted: 429,
    unavailable: 503,
    internal: 500,
    failed_precondition: 400,
  };
  for (const [code, status] of Object.entries(expected)) {
    t.ok(isErrorCode(code), code);
    t.equal(statusOf(code as ErrorCode), status, code);
  }
  for (const code of ['not_found', 'unauthorized', 'auth_error', 'validation_error', 'rate_limited', 'indexer_error', 'chain_error', 'cache_update_error']) {
    t.ok(Object.hasOwn(earlierErrorCodes, code), `earlier ${code}`);
  }
  t.notOk(isErrorCode('toString'), 'prototype keys are not codes');
});

t.test('every code maps to an earlier code of the same status', async (t) => {
  for (const [code, spec] of Object.entries(errorCodes)) {
    t.equal(earlierErrorCodes[spec.earlier], spec.status, `${code} -> ${spec.earlier}`);
  }
  t.equal(earlierCodeOf('unauthenticated', 'auth_error'), 'auth_error', 'same-status override is used');
  t.equal(earlierCodeOf('unauthenticated', 'chain_error'), 'unauthorized', 'other-status override is ignored');
});

t.test('every code is documented with its status (both tables)', async (t) => {
  const current = table('Current codes');
  const earlier = table('Earlier codes');
  t.ok(current.size > 0 && earlier.size > 0, 'tables parsed');
  for (const [code, spec] of Object.entries(errorCodes)) {
    t.equal(current.get(code), String(spec.status), `docs/errors.md documents ${code} as ${spec.status}`);
  }
  for (const [code, status] of Object.entries(earlierErrorCodes)) {
    t.equal(earlier.get(code), String(status), `docs/errors.md documents earlier ${code} as ${status}`);
  }
  for (const code of current.keys()) t.ok(isErrorCode(code), `documented code ${code} exists`);
  for (const code of earlier.keys()) t.ok(Object.hasOwn(earlierErrorCodes, code), `documented earlier code ${code} exists`);
});

t.test('body shapes', async (t) => {
  const r = errorReply('invalid_argument', 'limit must be greater than 0', { field: 'limit' });
  t.same(errorBody('current', r.error), { code: 'invalid_argument', message: 'limit must be greater than 0', details: { field: 'limit' } });
  t.same(errorBody('earlier', r.error), { error: 'validation_error', message: 'limit must be greater than 0', details: { field: 'limit' } });
  const n = errorReply('not_found', 'gone');
  t.same(errorBody('current', n.error), { code: 'not_found', message: 'gone', details: null });
  t.same(errorBody('earlier', n.error), { error: 'not_found', message: 'gone' }, 'earlier form omits null details');
  t.same(errorReply('resource_exhausted').error.message, 'rate limit exceeded', 'default message');
  const e = new ApiError('unauthenticated', 'Invalid SIWE signature', null, 'auth_error');
  t.same(errorBody('earlier', e.toReply().error), { error: 'auth_error', message: 'Invalid SIWE signature' });
  t.ok(e instanceof Error);
});
