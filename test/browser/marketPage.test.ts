/**
 * The market page end to end in Debian's Chromium (playwright-core drives it; no browser
 * is downloaded): the venue starts on a free port with a temporary data directory at the
 * fixed test instant; the page shows the chain of the nearest expiry, and its marks move
 * when the oracle does; picking another expiry and a series shows that series' book (from
 * the depth snapshot and deltas) and trades; orders placed through the REST API appear
 * in the book, a crossing one in the trades and the book's remaining size (the traders are
 * users of the venue's typed client: SIWE sign-in, the faucet, orders in both EIP-712
 * phases). A depth delta dropped on its way to a second page (Playwright routes its
 * WebSocket) is seen as a gap: that page re-subscribes and shows the venue's book from the
 * fresh snapshot. A screenshot is saved to test-output/browser/market-page.png (the path is
 * printed).
 *
 * Run with `npm run test:browser` (not part of `npm test`: it needs /usr/bin/chromium).
 */
import t from 'tap';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp, request } from '../gateway/support/testApp.ts';
import { liveSeries } from '../gateway/routes/ordersFixture.ts';
import { VenueClient } from '../../client/index.ts';
import { signedInFunded } from '../client/support.ts';
import { wadFixed } from '../../web/format.js';

const outDir = fileURLToPath(new URL('../../test-output/browser/', import.meta.url));
const screenshot = `${outDir}market-page.png`;

const adminWallet = privateKeyToAccount(keccak256(toBytes('market-page-admin')));
const app = await startTestApp({ env: { ADMIN_ADDRESSES: adminWallet.address } });
t.teardown(() => app.close());
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
t.teardown(() => browser.close());
const page: Page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
page.setDefaultTimeout(30_000);
const problems: string[] = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('response', (r) => {
  if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
});
page.on('console', (m) => {
  if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
});

/** The series picked, its levels and the page's address, from the third test for the later ones. */
let picks: { symbol: string; seriesId: string; askWad: string; bidWad: string; address: string } | null = null;
/** A user of the venue through the typed client: signed in with Ethereum, 2,000,000 USDC from the local faucet in portfolio 1. */
const user = (name: string): Promise<VenueClient> =>
  signedInFunded(new VenueClient({ baseUrl: app.url, account: privateKeyToAccount(keccak256(toBytes(`market-page-${name}`))), now: () => app.clock.now }), '2000000000000');
const btc = (await new VenueClient({ baseUrl: app.url }).call('GET /api/markets/pairs')).find((p) => p.symbol === 'BTC-USDC')!;
const price2 = (wad: string) => wadFixed(wad, 2);
const ticker = async (symbol: string) => (await request(`${app.url}/api/markets/ticker/${symbol}`)).body;
/** The text of a chain cell. */
const cell = (symbol: string, field: string) => page.locator(`#chain td[data-symbol="${symbol}"][data-field="${field}"]`);
/** Waits until `read()` equals `want` (Playwright's own polling has no per-value message). */
async function until(what: string, read: () => Promise<string | null>, want: string): Promise<void> {
  let last: string | null = null;
  for (let i = 0; i < 300; i++) {
    last = await read();
    if (last === want) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`${what}: ${JSON.stringify(last)}, wanted ${JSON.stringify(want)}`);
}

t.test('the page loads the chain of the nearest expiry, live', async (t) => {
  const chain = (await request(`${app.url}/api/markets/chain?pairId=${btc.pairId}`)).body;
  const res = await page.goto(`${app.url}/`);
  t.equal(res?.status(), 200);
  await page.locator('#status[data-status="live"]').waitFor();
  t.equal(await page.locator('#chain tbody tr').count(), chain.strikes.length, 'one row per strike');
  t.equal(await page.locator('#pair').inputValue(), 'BTC-USDC');
  t.equal(await page.locator('#expiry').inputValue(), String(chain.expiry), 'the nearest expiry');
  t.equal(await page.locator('#expiry option').count(), chain.expiries.length, 'every live expiry to pick');
  const row = chain.strikes[Math.floor(chain.strikes.length / 2)];
  t.equal(await cell(row.call.symbol, 'mark').textContent(), price2(row.call.markPrice), 'a call mark as REST has it');
  t.equal(await cell(row.put.symbol, 'mark').textContent(), price2(row.put.markPrice), 'a put mark as REST has it');
});

t.test('marks follow the oracle over the stream', async (t) => {
  const chain = (await request(`${app.url}/api/markets/chain?pairId=${btc.pairId}`)).body;
  const row = chain.strikes[Math.floor(chain.strikes.length / 2)];
  // An admin moves the oracle 2% up through the API (the client, signed in with Ethereum).
  const admin = new VenueClient({ baseUrl: app.url, account: adminWallet, now: () => app.clock.now });
  await admin.login();
  const spot = (BigInt((await admin.call('GET /api/markets/oracle/:pairId', { params: { pairId: btc.pairId } })).spotPrice) * 102n) / 100n;
  const moved = await admin.call('POST /api/admin/oracle/:pairId', { params: { pairId: btc.pairId }, body: { spotPrice: spot.toString() } });
  t.equal(moved.spotPrice, spot.toString(), 'oracle update accepted');
  const call = await ticker(row.call.symbol);
  const put = await ticker(row.put.symbol);
  t.not(call.markPrice, row.call.markPrice, 'the call mark moved');
  await until('call mark on the page', () => cell(row.call.symbol, 'mark').textContent(), price2(call.markPrice));
  await until('put mark on the page', () => cell(row.put.symbol, 'mark').textContent(), price2(put.markPrice));
  await until('index on the page', () => page.locator('#index').textContent(), `BTC index ${price2(spot.toString())}`);
  t.pass('the page shows the new marks and index');
});

t.test('pick an expiry and a series: its book and trades follow orders placed through the API', async (t) => {
  const series = liveSeries(app);
  const symbol = series.spec.symbol;
  await page.locator('#expiry').selectOption(String(series.spec.expiry));
  await cell(symbol, 'mark').waitFor();
  await page.locator('#status[data-status="live"]').waitFor();
  await cell(symbol, 'mark').click();
  await until('picked series', () => page.locator('#picked-symbol').textContent(), symbol);
  await until('book snapshot', () => page.locator('#book-seq').textContent(), `seq ${series.bookSeq}`);
  t.equal(await page.locator('#book-asks tr, #book-bids tr').count(), 0, 'an empty book');
  t.match(page.url(), new RegExp(`#pair=BTC-USDC&expiry=${series.spec.expiry}&series=${symbol}$`), 'the choice is kept in the address');

  const alice = await user('alice');
  const bob = await user('bob');
  const mark = BigInt((await ticker(symbol)).markPrice);
  const ask = ((mark / 10n ** 18n) + 5n).toString(); // whole units, above the mark
  const bid = ((mark / 10n ** 18n) - 5n).toString();
  const sell = await alice.place({ seriesId: series.spec.seriesId, isBuy: false, size: '1', price: ask, portfolioId: 1 });
  t.equal(sell.orders[0]!.status, 'open', 'ask placed');
  const buy = await bob.place({ seriesId: series.spec.seriesId, isBuy: true, size: '0.5', price: bid, portfolioId: 1 });
  t.equal(buy.orders[0]!.status, 'open', 'bid placed');
  const askWad = `${ask}${'0'.repeat(18)}`;
  const bidWad = `${bid}${'0'.repeat(18)}`;
  await until('ask level', () => page.locator(`#book-asks tr[data-price="${askWad}"] td:nth-child(2)`).textContent(), '1.00');
  await until('bid level', () => page.locator(`#book-bids tr[data-price="${bidWad}"] td:nth-child(2)`).textContent(), '0.50');
  await until('chain ask of the series', () => cell(symbol, 'ask').textContent(), price2(askWad));
  await until('chain bid of the series', () => cell(symbol, 'bid').textContent(), price2(bidWad));

  const take = await bob.place({ seriesId: series.spec.seriesId, isBuy: true, size: '0.4', price: ask, portfolioId: 1 });
  t.equal(take.orders[0]!.trades.length, 1, 'it traded');
  await until('trade row', async () => (await page.locator('#trades tr').count()).toString(), '1');
  const cellsOfTrade = await page.locator('#trades tr td').allTextContents();
  t.same(cellsOfTrade.slice(1), ['buy', price2(askWad), '0.40'], 'the trade: taker side, price, size');
  await until('ask level after the trade', () => page.locator(`#book-asks tr[data-price="${askWad}"] td:nth-child(2)`).textContent(), '0.60');
  const rest = (await request(`${app.url}/api/markets/orderbook/${symbol}`)).body;
  await until('book seq', () => page.locator('#book-seq').textContent(), `seq ${rest.seq}`);
  await until('open interest in the chain', () => cell(symbol, 'oi').textContent(), '0.40');
  picks = { symbol, seriesId: series.spec.seriesId, askWad, bidWad, address: page.url() };
});

t.test('a reload keeps the choice: the book from the snapshot, the trades from REST', async (t) => {
  const { symbol, askWad, bidWad } = picks!;
  await page.reload();
  await until('picked series after the reload', () => page.locator('#picked-symbol').textContent(), symbol);
  await until('ask level from the snapshot', () => page.locator(`#book-asks tr[data-price="${askWad}"] td:nth-child(2)`).textContent(), '0.60');
  await until('bid level from the snapshot', () => page.locator(`#book-bids tr[data-price="${bidWad}"] td:nth-child(2)`).textContent(), '0.50');
  await until('the trade from REST', async () => (await page.locator('#trades tr').count()).toString(), '1');
  await page.locator('#status[data-status="live"]').waitFor();
  t.equal(await cell(symbol, 'mark').evaluate((td) => td.classList.contains('picked')), true, 'the series is marked in the chain');

  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  t.comment(`screenshot: ${screenshot}`);
  t.same(problems, [], 'no page errors');
});

t.test('a depth delta lost on the way: the page sees the gap, re-subscribes and shows the book from a fresh snapshot', async (t) => {
  const { symbol, seriesId, askWad, bidWad, address } = picks!;
  const second = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  t.teardown(() => second.close());
  second.on('pageerror', (e) => problems.push(`second page error: ${e.message}`));
  // The page's public WebSocket goes through this relay: it counts the depth SUBSCRIBEs and drops one delta when asked.
  let dropNextDelta = false;
  const dropped: number[] = [];
  const depthSubscribes: string[] = [];
  await second.routeWebSocket(/\/ws\/public$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      if (typeof m === 'string' && /"SUBSCRIBE"/.test(m) && m.includes('@depth')) depthSubscribes.push(m);
      server.send(m);
    });
    server.onMessage((m) => {
      const f = typeof m === 'string' ? (JSON.parse(m) as { channel?: string; data?: { type?: string; seq?: number } }) : null;
      if (dropNextDelta && f?.channel?.endsWith('@depth') && f.data?.type === 'delta') {
        dropNextDelta = false;
        dropped.push(f.data.seq!);
        return;
      }
      ws.send(m);
    });
  });
  await second.goto(address);
  const level = (side: 'asks' | 'bids', wad: string) => () => second.locator(`#book-${side} tr[data-price="${wad}"] td:nth-child(2)`).textContent();
  await until('ask level from the snapshot', level('asks', askWad), '0.60');
  await second.locator('#status[data-status="live"]').waitFor();
  t.equal(depthSubscribes.length, 1, 'one depth subscription');

  const carol = await user('carol');
  const low = (BigInt(bidWad) / 10n ** 18n - 1n).toString();
  const lower = (BigInt(bidWad) / 10n ** 18n - 2n).toString();
  dropNextDelta = true;
  await carol.place({ seriesId, isBuy: true, size: '0.3', price: low, portfolioId: 1 });
  await until('the delta dropped', async () => String(dropped.length), '1');
  await carol.place({ seriesId, isBuy: true, size: '0.2', price: lower, portfolioId: 1 });
  // The next delta does not follow the page's seq: it asks for the channel again and rebuilds from the snapshot.
  await until('the re-subscription', async () => String(depthSubscribes.length), '2');
  await until('the level of the dropped delta, from the snapshot', level('bids', `${low}${'0'.repeat(18)}`), '0.30');
  await until('the level after it', level('bids', `${lower}${'0'.repeat(18)}`), '0.20');
  const rest = (await request(`${app.url}/api/markets/orderbook/${symbol}`)).body;
  await until('book seq of the venue', () => second.locator('#book-seq').textContent(), `seq ${rest.seq}`);
  t.equal(dropped[0], rest.seq - 1, 'the dropped delta was the first of the two');
  t.same(problems, [], 'no page errors');
});
