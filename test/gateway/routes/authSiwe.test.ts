/**
 * The hardening of SIWE sign-in and wallet linking against the real server (docs/auth.md):
 * the domain is never taken from the Host header (SIWE_DOMAIN, else on NETWORK=local the
 * venue's own listen address), the URI shares the domain's authority, `Issued At` is not
 * in the future of the venue's clock, a login and a link have their own statements, a
 * failed attempt does not burn another wallet's nonce, and parse errors name the problem
 * without the parser's internals. Both forms throughout.
 */
import t, { type Test } from 'tap';
import { request as httpRequest } from 'node:http';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { currentNonce, earlierNonce, hostOf, login, newWallet, relaxedAuthLimits, siweMessage, LINK_STATEMENT, LOGIN_STATEMENT } from '../auth/siweClient.ts';

const startAt = Date.UTC(2026, 0, 5, 12, 0, 0);
const app = await startTestApp({ memory: true, env: relaxedAuthLimits, startAt });
t.teardown(() => app.close());
const url = app.url;
const host = hostOf(url);
const port = app.app.port;

type Form = 'current' | 'earlier';
const forms: readonly Form[] = ['current', 'earlier'];
const verifyPath = { current: '/api/auth/siwe/verify', earlier: '/auth/siwe/verify' } as const;
const nonceFor = (form: Form, address: string, base = url) => (form === 'current' ? currentNonce(base, address) : earlierNonce(base, address));
type Wallet = ReturnType<typeof newWallet>;

function refused(t: Test, r: { status: number; body: any }, form: Form, message: string) {
  t.equal(r.status, 401, `${form}: 401`);
  if (form === 'current') t.same(r.body, { code: 'unauthenticated', message, details: null }, `${form}: ${message}`);
  else t.same(r.body, { error: 'auth_error', message }, `${form}: ${message}`);
}

/** POST JSON with a Host header of our choosing (fetch does not let a caller set Host). */
function postWithHost(base: string, path: string, hostHeader: string, body: unknown): Promise<JsonResponse> {
  const data = JSON.stringify(body);
  const target = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { host: hostHeader, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: new Headers() }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function signed(w: Wallet, fields: Partial<Parameters<typeof siweMessage>[0]> & { nonce: string }) {
  const message = siweMessage({ domain: host, address: w.address, ...fields });
  return { message, signature: await w.signMessage({ message }) };
}

t.test('the domain never comes from the Host header', async (t) => {
  for (const form of forms) {
    // A phishing page's message, relayed with a Host header that matches it.
    const w = newWallet();
    const phished = await signed(w, { nonce: await nonceFor(form, w.address), domain: 'evil.example.com', uri: 'https://evil.example.com' });
    refused(t, await postWithHost(url, verifyPath[form], 'evil.example.com', phished), form, `Domain mismatch: expected ${host} or localhost:${port}`);
    // The venue's own listen address, in both spellings, whatever the Host header.
    for (const domain of [host, `localhost:${port}`]) {
      const v = newWallet();
      const ok = await postWithHost(url, verifyPath[form], 'evil.example.com', await signed(v, { nonce: await nonceFor(form, v.address), domain, uri: `http://${domain}/` }));
      t.equal(ok.status, 200, `${form}: ${domain} signs in on NETWORK=local`);
    }
    const otherPort = newWallet();
    const wrongPort = await signed(otherPort, { nonce: await nonceFor(form, otherPort.address), domain: `127.0.0.1:${port + 1}`, uri: `http://127.0.0.1:${port + 1}` });
    refused(t, await request(url + verifyPath[form], { body: wrongPort }), form, `Domain mismatch: expected ${host} or localhost:${port}`);
  }
});

t.test('testnet and mainnet accept SIWE_DOMAIN entries only', async (t) => {
  const env = { ...relaxedAuthLimits, NETWORK: 'testnet', SIWE_DOMAIN: 'app.example.com, WWW.example.com:8443' };
  const testnet = await startTestApp({ memory: true, env, startAt });
  t.teardown(() => testnet.close());
  const expected = 'Domain mismatch: expected app.example.com or www.example.com:8443';
  for (const form of forms) {
    const w = newWallet();
    const own = await signed(w, { nonce: await nonceFor(form, w.address, testnet.url), domain: hostOf(testnet.url) });
    refused(t, await request(testnet.url + verifyPath[form], { body: own }), form, expected);
    refused(t, await postWithHost(testnet.url, verifyPath[form], hostOf(testnet.url), own), form, expected);
    for (const domain of ['app.example.com', 'www.example.com:8443']) {
      const v = newWallet();
      const ok = await request(testnet.url + verifyPath[form], { body: await signed(v, { nonce: await nonceFor(form, v.address, testnet.url), domain, uri: `https://${domain}` }) });
      t.equal(ok.status, 200, `${form}: ${domain}`);
    }
  }
  await t.rejects(startTestApp({ memory: true, env: { NETWORK: 'mainnet' }, startAt }), /SIWE_DOMAIN must be set on NETWORK=mainnet/, 'mainnet without SIWE_DOMAIN does not start');
});

t.test('the URI must have the domain\'s host[:port]', async (t) => {
  for (const form of forms) {
    for (const uri of ['https://evil.example.com', `http://127.0.0.1:${port + 1}`, `http://user@${host}`, 'urn:example:x']) {
      const w = newWallet();
      const r = await request(url + verifyPath[form], { body: await signed(w, { nonce: await nonceFor(form, w.address), uri }) });
      refused(t, r, form, 'Invalid SIWE message: URI must be an http(s) URI with the same host[:port] as the domain');
    }
  }
});

t.test('Issued At is at most 60 s ahead of the venue clock (the injected one)', async (t) => {
  for (const form of forms) {
    const w = newWallet();
    // The venue clock is at startAt plus what earlier tests advanced, far behind the real date: a
    // check against Date.now() would accept both of these.
    const late = await signed(w, { nonce: await nonceFor(form, w.address), issuedAt: new Date(app.clock.now + 60_001).toISOString() });
    refused(t, await request(url + verifyPath[form], { body: late }), form, 'Invalid SIWE message: Issued At is in the future');
    const skewed = await signed(w, { nonce: await nonceFor(form, w.address), issuedAt: new Date(app.clock.now + 60_000).toISOString() });
    t.equal((await request(url + verifyPath[form], { body: skewed })).status, 200, `${form}: 60 s of skew is accepted`);
    app.clock.advance(1);
    const now = await signed(w, { nonce: await nonceFor(form, w.address), issuedAt: new Date(app.clock.now).toISOString() });
    t.equal((await request(url + verifyPath[form], { body: now })).status, 200, `${form}: issued now`);
  }
});

t.test('a failed attempt with another wallet\'s nonce leaves it usable for its owner', async (t) => {
  for (const form of forms) {
    const owner = newWallet();
    const attacker = newWallet();
    const nonce = await nonceFor(form, owner.address);
    const stolen = await signed(attacker, { nonce });
    refused(t, await request(url + verifyPath[form], { body: stolen }), form, 'Invalid or expired nonce');
    refused(t, await request(url + verifyPath[form], { body: stolen }), form, 'Invalid or expired nonce');
    const mine = await request(url + verifyPath[form], { body: await signed(owner, { nonce }) });
    t.equal(mine.status, 200, `${form}: the owner still signs in with it`);
    refused(t, await request(url + verifyPath[form], { body: await signed(owner, { nonce }) }), form, 'Invalid or expired nonce');
  }
});

t.test('nonce routes say which statement to sign', async (t) => {
  const w = newWallet();
  const current = await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: w.address, chainId: 10143 } });
  t.same(current.body.statement, LOGIN_STATEMENT, 'login by default');
  const currentLink = await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: w.address, purpose: 'link' } });
  t.same([currentLink.status, currentLink.body.statement], [200, LINK_STATEMENT]);
  t.same((await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: w.address, purpose: 'login' } })).body.statement, LOGIN_STATEMENT);
  for (const path of ['/auth/siwe/nonce', '/api/auth/siwe/nonce']) {
    t.same((await request(`${url}${path}?walletAddress=${w.address}`)).body.statement, LOGIN_STATEMENT, `${path}: login by default`);
    const link = await request(`${url}${path}?walletAddress=${w.address}&purpose=link`);
    t.match(link.body, { nonce: /^[A-Za-z0-9]{32}$/, statement: LINK_STATEMENT }, `${path}?purpose=link`);
    const bad = await request(`${url}${path}?purpose=steal`);
    const code = path.startsWith('/api') ? bad.body.code : bad.body.error;
    t.same([bad.status, code, bad.body.message], [400, path.startsWith('/api') ? 'invalid_argument' : 'validation_error', 'purpose must be login or link'], `${path}: unknown purpose, in the path's form`);
  }
  const bad = await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: w.address, purpose: 'steal' } });
  t.same([bad.status, bad.body.code, bad.body.message], [400, 'invalid_argument', 'purpose must be login or link']);
});

t.test('a login signature cannot link a wallet, and a link signature cannot sign in', async (t) => {
  const victim = newWallet();
  const token = await login(url, victim);
  const linkWith = async (w: Wallet, statement: string) => {
    const nonce = await earlierNonce(url, w.address);
    return request(`${url}/auth/api/wallets/verify`, { token, body: { ...(await signed(w, { nonce, statement })), address: w.address } });
  };
  const wallets = async () => (await request(`${url}/auth/api/wallets`, { token })).body.wallets.map((x: { address: string }) => x.address);

  // A sign-in message of wallet b (say, captured by a phishing site) does not link b.
  const b = newWallet();
  refused(t, await linkWith(b, LOGIN_STATEMENT), 'earlier', `Invalid SIWE message: statement must be "${LINK_STATEMENT}"`);
  t.same(await wallets(), [victim.address], 'nothing linked');
  const linked = await linkWith(b, LINK_STATEMENT);
  t.same([linked.status, linked.body], [200, { success: true, message: 'Wallet linked', address: b.address }], 'the link statement links');
  t.same(await wallets(), [victim.address, b.address]);

  for (const form of forms) {
    const c = newWallet();
    const r = await request(url + verifyPath[form], { body: await signed(c, { nonce: await nonceFor(form, c.address), statement: LINK_STATEMENT }) });
    refused(t, r, form, `Invalid SIWE message: statement must be "${LOGIN_STATEMENT}"`);
  }
});

t.test('parse errors name what is wrong, without the parser\'s internals', async (t) => {
  const drop = (text: string, prefix: string) => text.split('\n').filter((l) => !l.startsWith(prefix)).join('\n');
  const cases: Array<[string, (text: string) => string, string]> = [
    ['no URI', (m) => drop(m, 'URI:'), 'Invalid SIWE message: missing URI'],
    ['no Issued At', (m) => drop(m, 'Issued At:'), 'Invalid SIWE message: missing Issued At'],
    ['a bad Version', (m) => m.replace('Version: 1', 'Version: 7'), 'Invalid SIWE message: Version must be 1'],
    ['junk at the end', (m) => `${m}\nextra`, 'Invalid SIWE message: not in the EIP-4361 format'],
  ];
  for (const form of forms) {
    for (const [name, edit, expected] of cases) {
      const w = newWallet();
      const s = await signed(w, { nonce: await nonceFor(form, w.address) });
      const r = await request(url + verifyPath[form], { body: { message: edit(s.message), signature: s.signature } });
      t.test(`${form}: ${name}`, async (t) => {
        refused(t, r, form, expected);
        t.notMatch(r.body.message, /state|maxMatched|nodeHits|max line number|\{/, 'no parser internals');
      });
    }
  }
});
