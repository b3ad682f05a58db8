/**
 * The SIWE message checks on their own (no server): which field is missing or wrong gets
 * which of the interface's messages. The server-level tests (test/gateway/routes/auth.test.ts)
 * run the same cases through a real login.
 */
import t from 'tap';
import { checkSiweMessage, isHexSignature } from '../../../gateway/auth/siweMessage.ts';
import { siweMessage } from './siweClient.ts';

const address = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const expect = { domains: ['api.example.com'], chainId: 10143, statement: 'Sign in to Diffusal', nowMs: Date.parse('2025-01-01T00:00:00Z') };
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
  t.same(bad, { ok: false, message: 'Invalid SIWE message: address has a wrong EIP-55 checksum' });
});

t.test('missing fields have their own messages', async (t) => {
  const text = siweMessage(base);
  t.same(check(text.replace(address, 'not-an-address')), { ok: false, message: 'Invalid SIWE message: no address' });
  t.same(check(without(text, 'Chain ID:')), { ok: false, message: 'Invalid SIWE message: no chainId' });
  t.same(check(without(text, 'Nonce:')), { ok: false, message: 'Invalid SIWE message: no nonce' });
  t.same(check(''), { ok: false, message: 'Invalid SIWE message: must be 1 to 4096 characters' });
  t.same(check(siweMessage({ ...base, nonce: 'abc' })), { ok: false, message: 'Invalid SIWE message: invalid Nonce (at least 8 letters or digits)' }, 'the grammar wants 8+ alphanumeric nonce characters');
});

t.test('parse errors name what is wrong and never echo the parser\'s internal state', async (t) => {
  const text = siweMessage(base);
  const swap = (prefix: string, line: string) => text.split('\n').map((l) => (l.startsWith(prefix) ? line : l)).join('\n');
  const cases: Array<[string, string, string]> = [
    ['no URI line', without(text, 'URI:'), 'Invalid SIWE message: missing URI'],
    ['no Version line', without(text, 'Version:'), 'Invalid SIWE message: missing Version'],
    ['no Issued At line', without(text, 'Issued At:'), 'Invalid SIWE message: missing Issued At'],
    ['no header line', text.split('\n').slice(1).join('\n'), 'Invalid SIWE message: no address'],
    ['a header line without the fixed words', swap('api.example.com wants', 'api.example.com asks you to sign'), 'Invalid SIWE message: missing the first line "<domain> wants you to sign in with your Ethereum account:"'],
    ['a URI that is not one', swap('URI:', 'URI: not a uri'), 'Invalid SIWE message: invalid URI'],
    ['Version 2', swap('Version:', 'Version: 2'), 'Invalid SIWE message: Version must be 1'],
    ['a chain id that is not a number', swap('Chain ID:', 'Chain ID: x'), 'Invalid SIWE message: invalid Chain ID'],
    ['an Issued At that is not a date', swap('Issued At:', 'Issued At: yesterday'), 'Invalid SIWE message: invalid Issued At (an RFC 3339 date-time)'],
    ['an invalid domain', swap('api.example.com wants', 'bad domain wants you to sign in with your Ethereum account:'), 'Invalid SIWE message: not in the EIP-4361 format'],
    ['junk after the last field', `${text}\ngarbage`, 'Invalid SIWE message: not in the EIP-4361 format'],
    ['no blank line before the statement', without(text, 'Sign in').replace('\n\n\n', '\n\n'), 'Invalid SIWE message: not in the EIP-4361 format'],
  ];
  for (const [name, message, expected] of cases) {
    const r = check(message);
    t.same(r, { ok: false, message: expected }, name);
    if (!r.ok) t.notMatch(r.message, /success|state|maxMatched|nodeHits|line \d+|\{/, `${name}: no parser internals`);
  }
});

t.test('domain, chain id, statement and validity times', async (t) => {
  t.same(check(siweMessage({ ...base, domain: 'evil.example.com' })), { ok: false, message: 'Domain mismatch: expected api.example.com' });
  const several = { ...expect, domains: ['api.example.com', 'www.example.com:8443'] };
  t.ok(checkSiweMessage(siweMessage({ ...base, domain: 'www.example.com:8443' }), several).ok, 'any accepted domain');
  t.same(checkSiweMessage(siweMessage({ ...base, domain: 'www.example.com' }), several), { ok: false, message: 'Domain mismatch: expected api.example.com or www.example.com:8443' }, 'the port is part of the domain');
  t.ok(check(siweMessage({ ...base, domain: 'API.Example.com' })).ok, 'host names compare case-insensitively');
  t.same(check(siweMessage({ ...base, chainId: 1 })), { ok: false, message: 'ChainId mismatch: expected 10143' });
  t.same(check(siweMessage({ ...base, statement: 'Sign in to Elsewhere' })), { ok: false, message: 'Invalid SIWE message: statement must be "Sign in to Diffusal"' });
  t.same(check(siweMessage({ ...base, expirationTime: '2024-12-31T23:59:59.000Z' })), { ok: false, message: 'Invalid SIWE message: expired (Expiration Time has passed)' });
  t.ok(check(siweMessage({ ...base, expirationTime: '2025-01-01T00:05:00.000Z' })).ok, 'an unexpired Expiration Time is fine');
});

t.test('the URI has the domain\'s authority', async (t) => {
  const uri = (u: string) => check(siweMessage({ ...base, uri: u }));
  const wrong = { ok: false, message: 'Invalid SIWE message: URI must be an http(s) URI with the same host[:port] as the domain' };
  t.ok(uri('https://api.example.com/login?x=1').ok, 'path and query are free');
  t.ok(uri('https://API.example.com').ok, 'case-insensitive');
  t.same(uri('https://evil.example.com'), wrong, 'another host');
  t.same(uri('https://api.example.com:8443'), wrong, 'another port');
  t.same(uri('https://api.example.com.evil.com/'), wrong, 'a host that only starts like it');
  t.same(uri('https://user@api.example.com'), wrong, 'user info');
  t.same(uri('urn:example:api.example.com'), wrong, 'not an http(s) URL');
  const ported = { ...expect, domains: ['127.0.0.1:8080'] };
  t.ok(checkSiweMessage(siweMessage({ ...base, domain: '127.0.0.1:8080', uri: 'http://127.0.0.1:8080' }), ported).ok, 'host:port domains');
  t.same(checkSiweMessage(siweMessage({ ...base, domain: '127.0.0.1:8080', uri: 'http://127.0.0.1' }), ported), wrong, 'the port must match too');
});

t.test('Issued At may be at most 60 s in the future', async (t) => {
  const at = (ms: number) => check(siweMessage({ ...base, issuedAt: new Date(expect.nowMs + ms).toISOString() }));
  t.ok(at(-86_400_000).ok, 'a day ago is fine (the nonce bounds the life of a message)');
  t.ok(at(60_000).ok, '60 s ahead (clock skew) is fine');
  t.same(at(60_001), { ok: false, message: 'Invalid SIWE message: Issued At is in the future' });
  t.same(at(3_600_000), { ok: false, message: 'Invalid SIWE message: Issued At is in the future' });
});

t.test('signature format', async (t) => {
  t.ok(isHexSignature('0x' + 'ab'.repeat(65)));
  for (const bad of ['ab'.repeat(65), '0xzz', '', '0x', 42, null, '0x' + 'a'.repeat(2000)]) t.notOk(isHexSignature(bad), String(bad).slice(0, 20));
});
