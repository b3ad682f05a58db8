/**
 * Auth plumbing without a server: cookie parsing, what each route mode demands, and the
 * identity the rate limiter keys on.
 */
import t from 'tap';
import { authorize, hasCredentials, parseCookies, rateIdentity, type AuthResult } from '../../../gateway/http/auth.ts';

const user = (scopes: string[], via: 'bearer' | 'cookie' | 'apikey' = 'bearer', keyId?: string): AuthResult =>
  keyId === undefined ? { kind: 'user', userId: 'u', address: '0xAbC', scopes, via } : { kind: 'user', userId: 'u', address: '0xAbC', scopes, via, keyId };
const admins = (a: string): boolean => a === '0xAbC';
const nobody = (): boolean => false;

t.test('cookies', async (t) => {
  t.same({ ...parseCookies('session=abc; theme=dark') }, { session: 'abc', theme: 'dark' });
  t.same({ ...parseCookies(' session = "a%20b" ;x=1;x=2;bad;=novalue; y=%ZZ') }, { session: 'a b', x: '1', y: '%ZZ' });
  t.same({ ...parseCookies(undefined) }, {});
  t.equal(Object.keys(parseCookies(Array.from({ length: 500 }, (_, i) => `c${i}=1`).join(';'))).length, 64, 'bounded');
  t.equal(Object.getPrototypeOf(parseCookies('__proto__=x')), null);
});

t.test('credentials present', async (t) => {
  t.equal(hasCredentials({}, {}), false);
  t.equal(hasCredentials({ cookie: 'theme=dark' }, { theme: 'dark' }), false, 'other cookies are not credentials');
  t.equal(hasCredentials({}, { session: 's' }), true);
  t.equal(hasCredentials({ authorization: 'Bearer x' }, {}), true);
  t.equal(hasCredentials({ 'x-api-key': 'ok_1' }, {}), true);
});

t.test('route modes', async (t) => {
  const none = { kind: 'none' } as const;
  const invalid = { kind: 'invalid', message: 'Invalid SIWE signature' } as const;
  t.equal(authorize({ auth: 'none' }, invalid, nobody), null, 'public ignores bad credentials');
  t.equal(authorize({ auth: 'optional' }, invalid, nobody), null);
  t.same(authorize({ auth: 'required' }, none, nobody)?.error, { code: 'unauthenticated', message: 'No auth data available', details: null });
  t.same(authorize({ auth: 'required' }, invalid, nobody)?.error.message, 'Invalid SIWE signature');
  t.equal(authorize({ auth: 'required', scope: 'trade' }, user(['read', 'trade']), nobody), null);
  t.same(authorize({ auth: 'required', scope: 'withdraw' }, user(['read', 'trade']), nobody)?.error, { code: 'permission_denied', message: 'Missing required scope: withdraw', details: null });
  t.same(authorize({ auth: 'admin' }, user(['read']), nobody)?.error.message, 'Admin access required');
  t.same(authorize({ auth: 'admin', scope: 'admin' }, user(['read']), admins)?.error, { code: 'permission_denied', message: 'Missing required scope: admin', details: null }, 'an admin wallet without the admin scope');
  t.same(authorize({ auth: 'admin' }, user(['read', 'trade', 'withdraw'], 'apikey', 'ok_1'), admins)?.error.message, 'Missing required scope: admin', 'admin routes need scope admin even when the declaration omits it');
  t.equal(authorize({ auth: 'admin', scope: 'admin' }, user(['admin'], 'apikey', 'ok_1'), admins), null);
  t.equal(authorize({ auth: 'admin', scope: 'admin' }, user(['read', 'trade', 'withdraw', 'admin']), admins), null);
  t.same(authorize({ auth: 'admin' }, none, admins)?.error.code, 'unauthenticated', '401 before 403');
  t.same(authorize({ auth: 'required', accepts: ['bearer', 'cookie'] }, user(['read'], 'apikey', 'ok_1'), nobody)?.error.message, 'This endpoint does not accept API keys');
  t.equal(authorize({ auth: 'required', accepts: ['bearer', 'cookie'] }, user(['read'], 'cookie'), nobody), null);
});

t.test('rate identity: wallet (whatever the credential), else IP', async (t) => {
  t.same(rateIdentity(user([], 'apikey', 'ok_1'), { ip: () => '1.1.1.1' }), { kind: 'wallet', address: '0xAbC' }, 'an API key counts against its wallet');
  t.same(rateIdentity(user([], 'cookie'), { ip: () => '1.1.1.1' }), { kind: 'wallet', address: '0xAbC' });
  t.same(rateIdentity(user([], 'bearer'), { ip: () => '1.1.1.1' }), { kind: 'wallet', address: '0xAbC' });
  t.same(rateIdentity({ kind: 'invalid', message: 'x' }, { ip: () => '1.1.1.1' }), { kind: 'ip', ip: '1.1.1.1' });
  t.same(rateIdentity({ kind: 'none' }, { ip: () => '::1' }), { kind: 'ip', ip: '::1' });
});
