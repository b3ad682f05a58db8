/**
 * Referral routes against the real server (extensions.md "Points, leaderboard, referrals ..."):
 * create, check, apply and read, in both forms; every refusal in each form's error shape; the
 * rebate at the referee's taker fill shown by GET /api/referral/me (a fold of events) and paid
 * into the referrer's portfolio 0; all of it kept across a restart (LMDB data directory).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { startTestApp, request, type TestApp } from '../support/testApp.ts';
import { newWallet } from '../auth/siweClient.ts';
import { atTheMoney, placeDirect, priceNearMark, USDC, WAD } from '../auth/venueOrders.ts';
import { codeCandidates } from '../../../gateway/routes/referral.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'venue-referral-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
let app: TestApp = await startTestApp({ dataDir, env: { REFERRAL_REBATE_BPS: '2000' } });
t.teardown(() => app.close());

const alice = newWallet(); // referrer
const bob = newWallet(); // referee
const carol = newWallet(); // maker
const dave = newWallet(); // applies in the earlier form
const token: Record<string, string> = {};
const cookie: Record<string, string> = {};
for (const [name, w] of Object.entries({ alice, bob, carol, dave })) {
  token[name] = await app.session(w.address);
  cookie[name] = await app.session(w.address, 'earlier');
}
const current = (path: string, who: string, body?: unknown) => request(app.url + path, { token: token[who]!, ...(body !== undefined ? { method: 'POST', body } : {}) });
const earlier = (path: string, who: string, body?: unknown) => request(app.url + path, { headers: { cookie: `session=${cookie[who]!}` }, ...(body !== undefined ? { method: 'POST', body } : {}) });

t.test('create, check, apply, read: both forms', async (t) => {
  t.same(await current('/api/referral/me', 'alice').then((r) => [r.status, r.body]), [200, { code: null, referredBy: null, referees: 0, rebatesEarned: '0', volumeReferred: '0' }], 'nothing yet');
  const created = await current('/api/referral/code', 'alice', { code: 'ALICE2026' });
  t.same([created.status, created.body], [200, { code: 'ALICE2026' }]);
  const picked = await earlier('/referral/code', 'carol', {});
  t.same([picked.status, picked.body], [200, { code: codeCandidates(getAddress(carol.address))[0] }], 'the earlier form; the venue picks a code from the address');
  for (const path of ['/api/referral/code/ALICE2026', '/referral/code/ALICE2026']) t.same(await request(app.url + path).then((r) => [r.status, r.body]), [200, { code: 'ALICE2026', valid: true }], `${path}: public`);
  const missing = await request(`${app.url}/api/referral/code/NOPE1234`);
  t.match([missing.status, missing.body], [404, { code: 'not_found' }]);
  t.match(await request(`${app.url}/referral/code/nope`).then((r) => [r.status, r.body]), [404, { error: 'not_found' }], 'earlier form 404');
  const applied = await current('/api/referral/apply', 'bob', { code: 'ALICE2026' });
  t.same([applied.status, applied.body], [200, { referredBy: getAddress(alice.address) }]);
  const appliedEarlier = await earlier('/referral/apply', 'dave', { code: 'ALICE2026' });
  t.same([appliedEarlier.status, appliedEarlier.body], [200, { referredBy: getAddress(alice.address) }], 'earlier form');
  t.match((await current('/api/referral/me', 'alice')).body, { code: 'ALICE2026', referredBy: null, referees: 2 });
  t.match((await earlier('/referral/me', 'bob')).body, { code: null, referredBy: getAddress(alice.address), referees: 0 });
});

t.test('refusals, in both error shapes', async (t) => {
  const cases: [string, string, unknown, number, string, string][] = [
    ['alice', '/referral/code', { code: 'OTHER1' }, 400, 'failed_precondition', 'referral_code_exists'],
    ['bob', '/referral/code', { code: 'ALICE2026' }, 400, 'failed_precondition', 'referral_code_taken'],
    ['bob', '/referral/code', { code: 'lower1' }, 400, 'invalid_argument', ''],
    ['bob', '/referral/code', { code: 'ABC' }, 400, 'invalid_argument', ''],
    ['alice', '/referral/apply', { code: 'ALICE2026' }, 400, 'failed_precondition', 'referral_own_code'],
    ['bob', '/referral/apply', { code: 'ALICE2026' }, 400, 'failed_precondition', 'referral_already_applied'],
    ['carol', '/referral/apply', { code: 'NOSUCH1' }, 404, 'not_found', 'referral_unknown_code'],
    ['carol', '/referral/apply', {}, 400, 'invalid_argument', ''],
    ['carol', '/referral/apply', { code: 'A'.repeat(65) }, 400, 'invalid_argument', ''],
    ['carol', '/referral/apply', { code: 7 }, 400, 'invalid_argument', ''],
  ];
  for (const [who, path, body, status, code, reason] of cases) {
    const c = await current(`/api${path}`, who, body);
    t.equal(c.status, status, `${who} ${path} ${JSON.stringify(body)}: ${status}`);
    t.match(c.body, { code, message: String, ...(reason === '' ? {} : { details: { reason } }) });
    const e = await earlier(path, who, body);
    t.equal(e.status, status, 'earlier form: same status');
    t.match(e.body, { error: String, message: c.body.message });
  }
  const messages = await Promise.all([{}, { code: 'A'.repeat(65) }, { code: 7 }].map(async (body) => (await current('/api/referral/apply', 'carol', body)).body.message));
  t.same(messages, ['code is required', 'code must be at most 64 characters long', 'code must be a string'], 'each malformed apply says what is wrong');
  t.equal((await request(`${app.url}/api/referral/me`)).status, 401, 'me needs credentials');
  t.equal((await request(`${app.url}/api/referral/apply`, { body: { code: 'ALICE2026' } })).status, 401);
  t.match((await current('/api/referral/me', 'alice')).body, { referees: 2 }, 'refusals changed nothing');
});

t.test("the referee's taker fill pays the referrer; apply after a trade is refused; all kept across a restart", async (t) => {
  for (const who of ['bob', 'carol']) {
    await current('/api/portfolio/create', who, {});
    await current('/api/portfolio/deposit', who, { portfolioId: 1, amount: String(100_000n * USDC) });
  }
  const series = atTheMoney(app.app);
  const price = priceNearMark(app.app, series);
  await placeDirect(app.app, { owner: carol.address, portfolioId: 1, series, isBuy: false, price, size: WAD });
  const taken = await placeDirect(app.app, { owner: bob.address, portfolioId: 1, series, isBuy: true, price, size: WAD });
  const trade = taken.result.events.find((e) => e.type === 'trade')!;
  if (trade.type !== 'trade') throw new Error('no trade');
  const rebate = (trade.takerFee * 2000n) / 10_000n;
  t.ok(rebate > 0n, 'REFERRAL_REBATE_BPS=2000 of a positive fee');
  const me = (await current('/api/referral/me', 'alice')).body;
  t.same(me, { code: 'ALICE2026', referredBy: null, referees: 2, rebatesEarned: rebate.toString(), volumeReferred: trade.notional.toString() });
  t.same((await earlier('/referral/me', 'alice')).body, me, 'the earlier form reads the same');
  t.equal(app.app.engine.state.accounts.depositOf(app.app.engine.state.accounts.portfolio(getAddress(alice.address), 0)!), rebate, "in the referrer's portfolio 0");
  const late = await current('/api/referral/apply', 'carol', { code: 'ALICE2026' });
  t.match([late.status, late.body], [400, { code: 'failed_precondition', message: 'a referral code can only be applied before the first trade', details: { reason: 'referral_after_trade' } }], 'after the first trade');
  const lateEarlier = await earlier('/referral/apply', 'carol', { code: 'ALICE2026' });
  t.match([lateEarlier.status, lateEarlier.body], [400, { error: 'failed_precondition', message: late.body.message, details: { reason: 'referral_after_trade' } }], 'the earlier form too');
  t.match((await current('/api/referral/me', 'carol')).body, { referredBy: null }, 'carol has no referrer');

  await app.close();
  app = await startTestApp({ dataDir, env: { REFERRAL_REBATE_BPS: '2000' } });
  for (const [name, w] of Object.entries({ alice, bob, carol, dave })) token[name] = await app.session(w.address);
  t.same((await current('/api/referral/me', 'alice')).body, me, 'the same figures after a restart');
  t.same(await request(`${app.url}/api/referral/code/ALICE2026`).then((r) => r.status), 200);
  t.match((await current('/api/referral/apply', 'bob', { code: 'ALICE2026' })).body, { details: { reason: 'referral_already_applied' } }, 'the link survived');
});
