/**
 * The client (client/) against the real server for the route groups added after the first
 * table: platform, leaderboard, points, user, referral, strategies (executed with
 * `executeStrategy`, both phases), liquidations and webhooks,
 * each called through `VenueClient.call` with typed inputs (a missing module in
 * client/routes.ts fails `npm run typecheck` here before it fails at run time).
 */
import t from 'tap';
import { keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp } from '../gateway/support/testApp.ts';
import { VenueClient, VenueError } from '../../client/index.ts';
import { signedInFunded } from './support.ts';

const wallet = (name: string) => privateKeyToAccount(keccak256(toBytes(`client-groups-${name}`)));
const admin = wallet('admin');
// No WEBHOOK_SECRET: the chain webhook is refused 503.
const app = await startTestApp({ memory: true, env: { ADMIN_ADDRESSES: admin.address, WEBHOOK_SECRET: '' } });
t.teardown(() => app.close());
const client = (name: string) => new VenueClient({ baseUrl: app.url, account: wallet(name), now: () => app.clock.now });
const anon = new VenueClient({ baseUrl: app.url });

/** A signed-in user with one funded trading portfolio. */
const funded = (name: string): Promise<VenueClient> => signedInFunded(client(name), '1000000000');
const alice = await funded('alice');
const bob = await funded('bob');

/** The error a refused call throws. */
const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => (e instanceof VenueError ? e : undefined));

t.test('platform: stats and volume', async (t) => {
  const stats = await anon.call('GET /api/platform/stats');
  t.equal(stats.trades24h, 0);
  t.equal(stats.volume24h, '0');
  t.match(stats.totalCollateral, /^[0-9]+$/);
  t.ok(stats.pairs.length >= 1);
  t.ok(Array.isArray((await anon.call('GET /api/platform/volume')).points));
});

t.test('leaderboard: the board and my rank', async (t) => {
  const board = await anon.call('GET /api/leaderboard', { query: { metric: 'volume', period: '24h' } });
  t.equal(board.metric, 'volume');
  t.equal(board.period, '24h');
  t.same(board.entries, []);
  t.equal(board.nextCursor, null);
  const me = await alice.call('GET /api/leaderboard/me');
  t.equal(me.rank, null, 'no trade, no rank');
});

t.test('points: me and history', async (t) => {
  const me = await alice.call('GET /api/points/me');
  t.equal(me.rank, null);
  t.equal(me.epoch.end - me.epoch.start, 7 * 86_400_000, 'an epoch is a week');
  t.ok(me.epoch.start <= app.clock.now && app.clock.now < me.epoch.end, 'the current epoch holds the venue clock');
  t.ok(Array.isArray((await alice.call('GET /api/points/history', { query: { limit: 5 } })).epochs));
});

t.test('user: stats of a seen and an unseen wallet, my analytics', async (t) => {
  const stats = await anon.call('GET /api/user/:address/stats', { params: { address: wallet('alice').address } });
  t.equal(stats.address.toLowerCase(), wallet('alice').address.toLowerCase());
  t.equal(stats.trades30d, 0);
  t.equal(stats.volume30d, '0');
  t.equal(stats.firstTradeAt, null);
  const unseen = await refusal(anon.call('GET /api/user/:address/stats', { params: { address: wallet('nobody').address } }));
  t.equal(unseen?.status, 404);
  t.equal(unseen?.code, 'not_found');
  t.ok(Array.isArray((await alice.call('GET /api/user/me/analytics')).points));
});

t.test('referral: a code created, read back and applied', async (t) => {
  const { code } = await alice.call('POST /api/referral/code', { body: { code: 'ALICE42' } });
  t.equal(code, 'ALICE42');
  t.same(await anon.call('GET /api/referral/code/:code', { params: { code } }), { code, valid: true });
  const missing = await refusal(anon.call('GET /api/referral/code/:code', { params: { code: 'NOPE99' } }));
  t.equal(missing?.status, 404);
  const applied = await bob.call('POST /api/referral/apply', { body: { code } });
  t.equal(applied.referredBy.toLowerCase(), wallet('alice').address.toLowerCase());
  const mine = await alice.call('GET /api/referral/me');
  t.equal(mine.code, code);
  t.equal(mine.referees, 1);
  t.equal(mine.referredBy, null);
  t.equal((await bob.call('GET /api/referral/me')).referredBy?.toLowerCase(), wallet('alice').address.toLowerCase());
});

t.test('strategies: templates, a quote, a package executed', async (t) => {
  const { templates } = await alice.call('GET /api/strategies/templates');
  t.ok(templates.some((x) => x.name === 'straddle' && x.legs.length === 2));
  const pairId = (await anon.call('GET /api/helpers/pair-id', { query: { name: 'BTC-USDC' } })).pairId;
  const { markets } = await anon.call('GET /api/markets', { query: { pairId, isCall: true, settled: false, limit: 2 } });
  t.equal(markets.length, 2);
  const quote = await alice.call('POST /api/strategies/quote', { body: { legs: [{ seriesId: markets[0]!.seriesId, ratio: 1 }, { seriesId: markets[1]!.seriesId, ratio: -1 }], size: '1' } });
  t.equal(quote.legs.length, 2);
  t.same(quote.legs.map((l) => l.side), ['buy', 'sell']);
  t.equal(quote.executable, false, 'empty books');
  t.equal(quote.netPremium, null);
  const unknown = await refusal(alice.call('POST /api/strategies/quote', { body: { legs: [{ seriesId: `0x${'ab'.repeat(32)}`, ratio: 1 }], size: '1' } }));
  t.equal(unknown?.status, 404);

  // Two calls bought as one package against a maker's asks, both phases through executeStrategy: every leg fills in full.
  const maker = await signedInFunded(client('maker'), '1000000000000');
  await maker.place({ seriesId: markets[0]!.seriesId, isBuy: false, size: '0.1', price: '1000', portfolioId: 1 });
  await maker.place({ seriesId: markets[1]!.seriesId, isBuy: false, size: '0.1', price: '400', portfolioId: 1 });
  const spread = await alice.executeStrategy(1, [
    { seriesId: markets[0]!.seriesId, isBuy: true, size: '0.1', price: '1000' },
    { seriesId: markets[1]!.seriesId, isBuy: true, size: '0.1', price: '400' },
  ]);
  t.equal(spread.mode, 'relay');
  t.match(spread.strategyId, /^0x[0-9a-f]{64}$/);
  t.same(spread.orders.map((o) => [o.status, o.filled]), [['filled', '100000000000000000'], ['filled', '100000000000000000']], 'both legs filled in full');
  const nothing = await refusal(alice.executeStrategy(1, [{ seriesId: markets[0]!.seriesId, isBuy: true, size: '0.1', price: '1000' }]));
  t.equal(nothing?.code, 'failed_precondition', 'an empty book: not fillable, refused');
});

t.test('liquidations: my liquidations and the insurance fund', async (t) => {
  t.same(await alice.call('GET /api/account/liquidations', { query: { limit: 10 } }), { liquidations: [], nextCursor: null });
  const fund = await anon.call('GET /api/platform/insurance-fund');
  t.equal(fund.liquidations24h, 0);
  t.match(fund.balance, /^[0-9]+$/);
  t.equal(fund.badDebt, '0');
});

t.test('webhooks: refused without WEBHOOK_SECRET', async (t) => {
  const e = await refusal(anon.call('POST /api/webhooks/chain', { body: { id: 'evt-1', type: 'deposit', data: { owner: wallet('alice').address, portfolioId: 1, amount: '1', txHash: `0x${'11'.repeat(32)}` } } }));
  t.equal(e?.status, 503);
  t.equal(e?.code, 'unavailable');
});
