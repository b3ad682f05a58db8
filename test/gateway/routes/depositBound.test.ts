/**
 * The faucet's bound: a portfolio's deposit stays within uint128 (2^128-1 COLLATERAL6
 * units). A deposit to exactly the bound is accepted, one unit more is refused with 400
 * `deposit_limit` and nothing changes; a transfer into a full portfolio likewise.
 */
import t from 'tap';
import { getAddress } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { newWallet } from '../auth/siweClient.ts';

const MAX = 2n ** 128n - 1n;
const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0), env: { NETWORK: 'testnet', SIWE_DOMAIN: 'venue.example.com' } });
t.teardown(() => app.close());
const url = app.url;
const state = app.app.engine.state;

t.test('deposit: exactly at the bound accepted, one over refused, nothing changes', async (t) => {
  const wallet = newWallet();
  const owner = getAddress(wallet.address);
  const token = await app.session(wallet.address);
  const deposit = (portfolioId: number, amount: bigint, path = '/api/portfolio/deposit') => request(url + path, { token, body: { portfolioId, amount: amount.toString() } });
  const first = await deposit(0, MAX - 5n);
  t.same([first.status, first.body.deposit], [200, (MAX - 5n).toString()]);
  const toBound = await deposit(0, 5n);
  t.same([toBound.status, toBound.body.deposit], [200, MAX.toString()], 'exactly 2^128-1 is accepted');
  const over = await deposit(0, 1n);
  t.same([over.status, over.body], [400, { code: 'failed_precondition', message: 'deposit would exceed the uint128 bound of a portfolio (2^128-1 COLLATERAL6 units)', details: { reason: 'deposit_limit', portfolioId: 0, maxDeposit: '0' } }]);
  t.equal(state.accounts.depositOf(state.accounts.portfolio(owner, 0)!), MAX, 'the deposit is unchanged');
  const earlier = await deposit(0, 1n, '/portfolio/deposit');
  t.same([earlier.status, earlier.body.error, earlier.body.details.reason], [400, 'failed_precondition', 'deposit_limit'], 'earlier form, its shape');
  const list = await request(`${url}/api/portfolio/list`, { token });
  t.same(list.body.portfolios.map((p: { id: number; cashBalance: string }) => [p.id, p.cashBalance]), [[0, MAX.toString()]], 'the account read shows the bound, not more');

  // A trading portfolio: the bound is per portfolio, and what still fits is reported.
  const created = await request(`${url}/api/portfolio/create`, { token, body: {} });
  const id = created.body.id as number;
  t.equal((await deposit(id, MAX - 10n)).status, 200);
  const tooMuch = await deposit(id, 11n);
  t.same([tooMuch.status, tooMuch.body.details], [400, { reason: 'deposit_limit', portfolioId: id, maxDeposit: '10' }]);
  t.equal(state.accounts.depositOf(state.accounts.portfolio(owner, id)!), MAX - 10n, 'unchanged');
  t.same([(await deposit(id, 10n)).status, state.accounts.depositOf(state.accounts.portfolio(owner, id)!)], [200, MAX], 'what fits, fits');
  const beyondUint128 = await deposit(id, MAX + 1n);
  t.same([beyondUint128.status, beyondUint128.body.code], [400, 'invalid_argument'], 'an amount over uint128 by itself is malformed');
});

t.test('transfer into a full portfolio is refused the same way', async (t) => {
  const wallet = newWallet();
  const owner = getAddress(wallet.address);
  const token = await app.session(wallet.address);
  const a = (await request(`${url}/api/portfolio/create`, { token, body: {} })).body.id as number;
  const b = (await request(`${url}/api/portfolio/create`, { token, body: {} })).body.id as number;
  t.equal((await request(`${url}/api/portfolio/deposit`, { token, body: { portfolioId: a, amount: MAX.toString() } })).status, 200);
  t.equal((await request(`${url}/api/portfolio/deposit`, { token, body: { portfolioId: b, amount: '7' } })).status, 200);
  const r = await request(`${url}/api/portfolio/transfer`, { token, body: { fromPortfolioId: b, toPortfolioId: a, amount: '1' } });
  t.same([r.status, r.body.details], [400, { reason: 'deposit_limit', portfolioId: a, maxDeposit: '0' }]);
  t.same([state.accounts.depositOf(state.accounts.portfolio(owner, a)!), state.accounts.depositOf(state.accounts.portfolio(owner, b)!)], [MAX, 7n], 'neither side changed');
  const back = await request(`${url}/api/portfolio/transfer`, { token, body: { fromPortfolioId: a, toPortfolioId: b, amount: '1' } });
  t.same([back.status, back.body.toDeposit], [200, '8'], 'the other way is fine');
});
