/**
 * Portfolio writes against the real server: create, deposit (a faucet off mainnet),
 * withdraw limited by maxWithdraw, transfer; amount validation; engine refusals mapped to
 * HTTP; both forms; and that an acknowledged write survives a restart (journal + stores).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, request } from '../support/testApp.ts';
import { login, loginEarlier, newWallet, relaxedAuthLimits } from '../auth/siweClient.ts';
import { atTheMoney, placeDirect, priceNearMark, USDC, WAD } from '../auth/venueOrders.ts';

const app = await startTestApp({ memory: true, env: relaxedAuthLimits });
t.teardown(() => app.close());
const url = app.url;
const post = (path: string, token: string, body?: unknown) => request(url + path, { method: 'POST', token, ...(body !== undefined ? { body } : {}) });

t.test('create: ids 1, 2, ... per wallet; portfolio 0 comes with the first', async (t) => {
  const a = await login(url, newWallet());
  const b = await login(url, newWallet());
  t.same((await post('/api/portfolio/create', a)).body, { id: 1 });
  t.same((await post('/api/portfolio/create', a)).body, { id: 2 });
  t.same((await post('/api/portfolio/create', b)).body, { id: 1 }, 'ids are per wallet');
  const list = (await request(`${url}/api/portfolio/list`, { token: a })).body.portfolios;
  t.same(list.map((p: { id: number }) => p.id), [0, 1, 2]);
  t.match(list[0], { owner: /^0x[0-9a-fA-F]{40}$/, cashBalance: '0', marginUsed: '0', createdAt: /Z$/ });
  const { cookie } = await loginEarlier(url, newWallet());
  const old = await request(`${url}/portfolio/create`, { method: 'POST', headers: { cookie: `session=${cookie}` } });
  t.same([old.status, old.body], [200, { id: 1 }], 'earlier form with the cookie');
});

t.test('deposit: a faucet on local; portfolio 0 is created by a first deposit', async (t) => {
  const token = await login(url, newWallet());
  const r = await post('/api/portfolio/deposit', token, { portfolioId: 0, amount: '2500000000' });
  t.same([r.status, r.body], [200, { success: true, portfolioId: 0, amount: '2500000000', deposit: '2500000000', maxWithdraw: '2500000000' }]);
  const again = await post('/api/portfolio/deposit', token, { portfolioId: 0, amount: 1_000_000 });
  t.equal(again.body.deposit, '2501000000', 'a JSON integer amount is accepted too');
  const missing = await post('/api/portfolio/deposit', token, { portfolioId: 3, amount: '1' });
  t.same([missing.status, missing.body], [404, { code: 'not_found', message: 'Portfolio not found: 3', details: { reason: 'unknown_portfolio', portfolioId: 3 } }]);
});

t.test('amounts must be positive COLLATERAL6 integer strings', async (t) => {
  const token = await login(url, newWallet());
  await post('/api/portfolio/create', token);
  for (const amount of ['0', '-5', '1.5', 'abc', '', '1e6', ' 1', 1.5, -1, true, '9'.repeat(40), [1]]) {
    for (const path of ['/api/portfolio/deposit', '/api/portfolio/withdraw']) {
      const r = await post(path, token, { portfolioId: 1, amount });
      t.same([r.status, r.body.code, r.body.message, r.body.details?.field], [400, 'invalid_argument', 'amount must be a positive numeric string', 'amount'], `${path} ${JSON.stringify(amount)}`);
    }
  }
  const transfer = await post('/api/portfolio/transfer', token, { fromPortfolioId: 1, toPortfolioId: 0, amount: '0' });
  t.equal(transfer.body.message, 'amount must be a positive numeric string');
  t.equal((await post('/api/portfolio/deposit', token, { portfolioId: 1 })).body.message, 'amount is required');
  t.equal((await post('/api/portfolio/deposit', token, { portfolioId: -1, amount: '1' })).body.message, 'portfolioId must be a non-negative integer');
  const old = await request(`${url}/portfolio/deposit`, { token, body: { portfolioId: 1, amount: 'x' } });
  t.same(old.body, { error: 'validation_error', message: 'amount must be a positive numeric string', details: { field: 'amount', location: 'body', hint: 'amount must be a positive numeric string' } }, 'earlier form');
});

t.test('withdraw is limited by maxWithdraw; transfer too', async (t) => {
  const w = newWallet();
  const token = await login(url, w);
  await post('/api/portfolio/create', token);
  await post('/api/portfolio/create', token);
  await post('/api/portfolio/deposit', token, { portfolioId: 1, amount: String(50_000n * USDC) });
  // A resting short call locks margin, so maxWithdraw drops below the deposit.
  const series = atTheMoney(app.app);
  await placeDirect(app.app, { owner: w.address, portfolioId: 1, series, isBuy: false, price: priceNearMark(app.app, series) * 3n, size: WAD });
  const c = (await request(`${url}/api/account/portfolios/1/collateral`, { token })).body;
  const max = BigInt(c.maxWithdraw);
  t.ok(max > 0n && max < 50_000n * USDC, 'margin holds part of the deposit');

  const over = await post('/api/portfolio/withdraw', token, { portfolioId: 1, amount: String(max + 1n) });
  t.same([over.status, over.body], [400, { code: 'failed_precondition', message: 'amount exceeds maxWithdraw', details: { reason: 'insufficient_funds', maxWithdraw: max.toString() } }]);
  const overT = await post('/api/portfolio/transfer', token, { fromPortfolioId: 1, toPortfolioId: 2, amount: String(max + 1n) });
  t.same([overT.status, overT.body.details.reason], [400, 'insufficient_funds']);

  const moved = await post('/api/portfolio/transfer', token, { fromPortfolioId: 1, toPortfolioId: 2, amount: String(1_000n * USDC) });
  t.same([moved.status, moved.body], [200, { success: true, fromPortfolioId: 1, toPortfolioId: 2, amount: String(1_000n * USDC), fromDeposit: String(49_000n * USDC), toDeposit: String(1_000n * USDC) }]);
  const same = await post('/api/portfolio/transfer', token, { fromPortfolioId: 2, toPortfolioId: 2, amount: '1' });
  t.same([same.status, same.body], [400, { code: 'invalid_argument', message: 'fromPortfolioId and toPortfolioId must differ', details: { reason: 'same_portfolio' } }]);

  const left = BigInt((await request(`${url}/api/account/portfolios/1/collateral`, { token })).body.maxWithdraw);
  const out = await post('/api/portfolio/withdraw', token, { portfolioId: 1, amount: left.toString() });
  t.same([out.status, out.body.maxWithdraw, out.body.deposit], [200, '0', (49_000n * USDC - left).toString()], 'exactly maxWithdraw may leave');
  const earlier = await request(`${url}/portfolio/withdraw`, { token, body: { portfolioId: 1, amount: '1' } });
  t.same(earlier.body, { error: 'failed_precondition', message: 'amount exceeds maxWithdraw', details: { reason: 'insufficient_funds', maxWithdraw: '0' } }, 'earlier form');
});

t.test('mainnet has no faucet; an acknowledged write survives a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'venue-portfolio-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...relaxedAuthLimits, NETWORK: 'mainnet', SIWE_DOMAIN: 'venue.example.com' };
  const first = await startTestApp({ dataDir, env, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
  const w = newWallet();
  const token = await login(first.url, w, { domain: 'venue.example.com' });
  const created = await request(`${first.url}/api/portfolio/create`, { method: 'POST', token });
  t.same(created.body, { id: 1 });
  const refused = await request(`${first.url}/api/portfolio/deposit`, { token, body: { portfolioId: 1, amount: '1000000' } });
  t.same([refused.status, refused.body], [400, { code: 'failed_precondition', message: 'Deposits are minted only on local and testnet networks', details: { reason: 'faucet_disabled', network: 'mainnet' } }]);
  await first.close();
  const second = await startTestApp({ dataDir, env, startAt: first.clock.now });
  t.teardown(() => second.close());
  const list = await request(`${second.url}/api/account/portfolios`, { token });
  t.equal(list.status, 200, 'the session survived the restart');
  t.same(list.body.portfolios.map((p: { id: number }) => p.id), [0, 1], 'and so did the portfolio');
});
