/**
 * Shared by the platform, leaderboard, points and user-analytics route tests and their restart
 * test: two funded wallets trade against each other through the real order routes (alice rests
 * a sell, bob takes it), the venue's clock command runs, and every read of those groups is
 * collected in one object so that two venues can be compared; and a chain webhook deposit for
 * the restart test (idempotent by its event id across a kill -9).
 */
import { request, type TestApp } from '../support/testApp.ts';
import { liveSeries, place, trader, usdc, type Trader } from './ordersFixture.ts';
import { webhookSignature } from '../../../gateway/routes/webhooks.ts';

export type Pair = { alice: Trader; bob: Trader };

export async function traders(app: TestApp, prefix = 'activity'): Promise<Pair> {
  return { alice: await trader(app, `${prefix}-alice`, { deposit: 1_000_000 }), bob: await trader(app, `${prefix}-bob`, { deposit: 1_000_000 }) };
}

/** Alice (maker) sells `size` contracts at `price` USDC and bob (taker) buys them. */
export async function trade(app: TestApp, { alice, bob }: Pair, price: string, size = '1'): Promise<void> {
  const seriesId = liveSeries(app).spec.seriesId;
  const ask = await place(app, alice, { seriesId, isBuy: false, size, price });
  if (ask.relay.status !== 200) throw new Error(`ask: ${JSON.stringify(ask.relay.body)}`);
  const bid = await place(app, bob, { seriesId, isBuy: true, size, price });
  if (bid.relay.status !== 200 || bid.relay.body.orders[0].status !== 'filled') throw new Error(`bid: ${JSON.stringify(bid.relay.body)}`);
}

/** Move the venue's clock and run its clock command (rankings and platform statistics are recomputed there). */
export async function tick(app: TestApp, ms = 1000): Promise<void> {
  app.clock.advance(ms);
  const r = await app.app.services.pipeline.submit({ type: 'clock' });
  if (!r.ok) throw new Error('clock refused');
}

/** Every read of the four groups, as seen by alice and bob (sessions of `app`). */
export async function allReads(app: TestApp, { alice, bob }: Pair, from: number, to: number): Promise<Record<string, unknown>> {
  const tokens = { alice: await app.session(alice.address), bob: await app.session(bob.address) };
  const out: Record<string, unknown> = {};
  const get = async (path: string, token?: string) => {
    const r = await request(app.url + path, token === undefined ? {} : { token });
    out[path + (token === undefined ? '' : ` as ${token === tokens.alice ? 'alice' : 'bob'}`)] = { status: r.status, body: r.body };
  };
  await get('/api/platform/stats');
  await get(`/api/platform/volume?interval=1h&from=${from}&to=${to}`);
  for (const metric of ['volume', 'pnl', 'points']) for (const period of ['24h', '7d', '30d', 'all']) await get(`/api/leaderboard?metric=${metric}&period=${period}`);
  for (const token of [tokens.alice, tokens.bob]) {
    await get('/api/leaderboard/me?metric=points&period=all', token);
    await get('/api/points/me', token);
    await get('/api/points/history', token);
    await get(`/api/user/me/analytics?interval=1h&from=${from}&to=${to}`, token);
  }
  await get(`/api/user/${alice.address}/stats`);
  await get(`/api/user/${bob.address}/stats`);
  return out;
}

export const WEBHOOK_SECRET = 'whsec_activity_restart';
export const CHAIN_EVENT_ID = 'evt-restart-deposit';

/** The chain provider's signed deposit of 250 USDC, event `CHAIN_EVENT_ID`, at the venue's clock (needs WEBHOOK_SECRET). */
export function chainDeposit(app: TestApp, owner: string, portfolioId: number) {
  const raw = JSON.stringify({ id: CHAIN_EVENT_ID, type: 'deposit', data: { owner, portfolioId, amount: usdc(250).toString(), txHash: `0x${'c4'.repeat(32)}` } });
  const ts = String(app.clock.now);
  return request(`${app.url}/api/webhooks/chain`, { method: 'POST', body: raw, headers: { 'x-webhook-timestamp': ts, 'x-webhook-signature': webhookSignature(WEBHOOK_SECRET, ts, raw) } });
}
