/**
 * The SIWE message checks on their own (no server): which field is missing or wrong gets
 * which of the interface's messages. The server-level tests (test/gateway/routes/auth.test.ts)
 * run the same cases through a real login.
 */
import t from 'tap';
import { checkSiweMessage, isHexSignature } from '../../../gateway/auth/siweMessage.ts';
import { siweMessage } from './siweClient.ts';

const address = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const expect = { domain: 'api.example.com', chainId: 10143, statement: 'Sign in to Diffusal', nowMs: Date.parse('2025-01-01T00:00:00Z') };
const base = { domain: 'api.example.com', address, nonce: 'abcdef0123456789', issuedAt: '2025-01-01T00:00:00.000Z' };
const check = (text: string) => checkSiweMessage(text, expect);
const without = (text: string, prefix: string) => text.split('\n').filter((l) => !l.startsWith(prefix)).join('\n');

t.test('a well-formed message passes and yields its fields', async (t) => {
  const r = check(siweMessage(base));
  t.ok(r.ok);
  if (r.ok) t.same(r.fields, { address, domain: 'api.example.com', chainId: 10143, nonce: 'abcdef0123456789', issuedAt: '2025-01-01T00:00:00.000Z' });
});

t.test('an all-lowercase address is accepted and returned checksummed; a wrong checksum is refused', async (t) => {
  const r = check(siweMessage({ ...base, address: address.toLowerCase() }));
  t.ok(r.ok && r.fields.address === address);
  const bad = check(siweMessage({ ...base, address: address.replace('b', 'B') }));
  t.same(bad, { ok: false, message: 'Invalid SIWE message: line 2: invalid EIP-55 address - 0x8Ba1f109551bD432803012645Ac136ddd64DBA72' });
});

t.test('missing fields have their own messages', async (t) => {
  const text = siweMessage(base);
  t.same(check(text.replace(address, 'not-an-address')), { ok: false, message: 'Invalid SIWE message: no address' });
  t.same(check(without(text, 'Chain ID:')), { ok: false, message: 'Invalid SIWE message: no chainId' });
  t.same(check(without(text, 'Nonce:')), { ok: false, message: 'Invalid SIWE message: no nonce' });
  t.same(check(''), { ok: false, message: 'Invalid SIWE message: must be 1 to 4096 characters' });
  const short = check(siweMessage({ ...base, nonce: 'abc' }));
  t.match(short, { ok: false, message: /^Invalid SIWE message: .*nonce/ }, 'the grammar wants 8+ alphanumeric nonce characters');
  t.match(check(without(text, 'Issued At:')), { ok: false, message: /^Invalid SIWE message: / }, 'other grammar errors name the parser reason');
});

t.test('domain, chain id, statement and validity times', async (t) => {
  t.same(check(siweMessage({ ...base, domain: 'evil.example.com' })), { ok: false, message: 'Domain mismatch: expected api.example.com' });
  t.ok(check(siweMessage({ ...base, domain: 'API.Example.com' })).ok, 'host names compare case-insensitively');
  t.same(check(siweMessage({ ...base, chainId: 1 })), { ok: false, message: 'ChainId mismatch: expected 10143' });
  t.same(check(siweMessage({ ...base, statement: 'Sign in to Elsewhere' })), { ok: false, message: 'Invalid SIWE message: statement must be "Sign in to Diffusal"' });
  t.same(check(siweMessage({ ...base, expirationTime: '2024-12-31T23:59:59.000Z' })), { ok: false, message: 'Invalid SIWE message: expired (Expiration Time has passed)' });
  t.ok(check(siweMessage({ ...base, expirationTime: '2025-01-01T00:05:00.000Z' })).ok, 'an unexpired Expiration Time is fine');
});

t.test('signature format', async (t) => {
  t.ok(isHexSignature('0x' + 'ab'.repeat(65)));
  for (const bad of ['ab'.repeat(65), '0xzz', '', '0x', 42, null, '0x' + 'a'.repeat(2000)]) t.notOk(isHexSignature(bad), String(bad).slice(0, 20));
});
