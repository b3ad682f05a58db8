// @ts-check
/**
 * The venue's market page: pick a pair and an expiry, read the option chain (calls |
 * strike | puts), pick a series to follow its order book and trades. Read-only and
 * public: REST for the starting state (`/api/markets/...`), then the public WebSocket
 * (`/ws/public`, docs/streams.md) keeps it live: `<SYMBOL>@ticker` for every series of
 * the chain, `<pair>@index`, and `<SYMBOL>@depth` and `<SYMBOL>@trades` for the series
 * picked. The depth stream rebuilds the book from its snapshot and deltas with the
 * sequence check (depth.js). The choice is kept in the address (`#pair=...&expiry=...&series=...`).
 *
 * A ticker carries a whole series' figures, so a change between the chain's REST read
 * and its ticker subscription shows with the series' next ticker.
 */
import { DepthBook } from './depth.js';
import { Feed } from './feed.js';
import { expiryLabel, timeOfDay, wadFixed, wadPercent } from './format.js';

/** @typedef {{ pairId: string, symbol: string, underlying: string, quote: string, tickDecimals: number }} Pair */
/** @typedef {{ seriesId: string, symbol: string, markPrice: string, iv: string, delta: string, bestBid: string | null, bestAsk: string | null, openInterest: string }} Side */
/** @typedef {{ pairId: string, expiry: number, expiries: number[], indexPrice: string, strikes: { strike: string, call: Side, put: Side }[] }} Chain */
/** @typedef {{ id: string, price: string, size: string, side: string, timestamp: number | string }} Trade */

const fields = /** @type {const} */ (['bid', 'ask', 'mark', 'iv', 'delta', 'oi']);
const headings = { bid: 'Bid', ask: 'Ask', mark: 'Mark', iv: 'IV', delta: 'Delta', oi: 'OI' };
const bookLevels = 12;
const tradesKept = 30;

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`no #${id}`);
  return el;
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/**
 * @param {string} path
 * @returns {Promise<any>}
 */
async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) throw new Error(body?.message ?? body?.error ?? `${res.status}`);
  return body;
}

const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/public`;
const feed = new Feed(wsUrl, {
  onStatus: (status) => {
    const s = $('status');
    s.textContent = status;
    s.dataset['status'] = status;
  },
  onSubscribed: (channels) => {
    // Trades from now on arrive on the stream; the ones before are read from REST (kept once by id).
    if (picked !== null && channels.includes(`${seriesChannel(picked)}@trades`)) void loadTrades(picked);
  },
});

/** @type {Pair[]} */
let pairs = [];
/** @type {Pair | null} */
let pair = null;
/** @type {Chain | null} */
let chain = null;
/** The picked series' symbol, or null. */
/** @type {string | null} */
let picked = null;
let book = new DepthBook();
/** @type {Trade[]} */
let trades = [];
/** Table cells of the chain by series symbol. */
/** @type {Map<string, Record<typeof fields[number], HTMLTableCellElement>>} */
let cells = new Map();
/** Bumped by every new choice: answers to an earlier one are dropped. */
let generation = 0;

/** @param {string | null | undefined} wad */
const price = (wad) => (wad === null || wad === undefined ? '–' : wadFixed(wad, pair?.tickDecimals ?? 2));
/** @param {string} wad */
const size = (wad) => wadFixed(wad, 2);
/** @param {string} wad */
const strikeText = (wad) => wadFixed(wad, pair?.tickDecimals ?? 2).replace(/\.0+$/, '');
/** @param {string} symbol */
const seriesChannel = (symbol) => symbol.toUpperCase();

const flash = [{ backgroundColor: '#3a4a1f' }, { backgroundColor: 'transparent' }];

/**
 * Writes a cell, marking it for a moment when the value changed.
 * @param {HTMLElement} cell
 * @param {string} text
 */
function setCell(cell, text) {
  if (cell.textContent === text) return;
  const first = cell.textContent === '';
  cell.textContent = text;
  // Web Animations: no class to reset, no forced layout, whatever the number of cells.
  if (!first) cell.animate(flash, 1000);
}

/**
 * @param {string} symbol
 * @param {{ bestBid: string | null, bestAsk: string | null, markPrice: string, iv: string, delta: string, openInterest: string }} t
 */
function showSide(symbol, t) {
  const c = cells.get(symbol);
  if (c === undefined) return;
  setCell(c.bid, price(t.bestBid));
  setCell(c.ask, price(t.bestAsk));
  setCell(c.mark, price(t.markPrice));
  setCell(c.iv, wadPercent(t.iv));
  setCell(c.delta, wadFixed(t.delta, 3));
  setCell(c.oi, size(t.openInterest));
  if (symbol === picked) showPickedTicker(t);
}

/** @param {{ markPrice: string, iv: string, delta: string }} t */
function showPickedTicker(t) {
  $('picked-figures').textContent = `mark ${price(t.markPrice)} · IV ${wadPercent(t.iv)} · delta ${wadFixed(t.delta, 3)}`;
}

function renderChain() {
  const table = $('chain');
  cells = new Map();
  if (chain === null) {
    table.replaceChildren();
    return;
  }
  const head = el('thead', {},
    el('tr', {}, el('th', { colspan: String(fields.length), class: 'calls' }, 'Calls'), el('th', {}, ''), el('th', { colspan: String(fields.length), class: 'puts' }, 'Puts')),
    el('tr', {}, ...fields.map((f) => el('th', {}, headings[f])), el('th', { class: 'strike' }, 'Strike'), ...fields.map((f) => el('th', {}, headings[f]))),
  );
  // The strike nearest the index is marked.
  const index = BigInt(chain.indexPrice);
  /** @param {string} strike */
  const distance = (strike) => (BigInt(strike) > index ? BigInt(strike) - index : index - BigInt(strike));
  let atm = 0;
  chain.strikes.forEach((row, i) => {
    if (distance(row.strike) < distance(chain?.strikes[atm]?.strike ?? row.strike)) atm = i;
  });
  const body = el('tbody');
  chain.strikes.forEach((row, i) => {
    const tr = el('tr', i === atm ? { class: 'atm' } : {});
    /** @param {Side} side @param {boolean} call */
    const sideCells = (side, call) => {
      /** @type {Record<string, HTMLTableCellElement>} */
      const c = {};
      const tds = fields.map((f) => (c[f] = el('td', { 'data-symbol': side.symbol, 'data-field': f, class: `${call ? 'call' : 'put'} ${f}`, title: side.symbol })));
      cells.set(side.symbol, /** @type {Record<typeof fields[number], HTMLTableCellElement>} */ (c));
      for (const td of tds) td.addEventListener('click', () => pick(side.symbol));
      return tds;
    };
    tr.append(...sideCells(row.call, true), el('td', { class: 'strike' }, strikeText(row.strike)), ...sideCells(row.put, false));
    body.append(tr);
  });
  table.replaceChildren(head, body);
  for (const row of chain.strikes) {
    showSide(row.call.symbol, row.call);
    showSide(row.put.symbol, row.put);
  }
  markPicked();
}

function markPicked() {
  for (const td of document.querySelectorAll('#chain td.picked')) td.classList.remove('picked');
  if (picked !== null) for (const td of document.querySelectorAll(`#chain td[data-symbol="${picked}"]`)) td.classList.add('picked');
}

function renderBook() {
  const asks = book.levels('asks').slice(0, bookLevels).reverse();
  const bids = book.levels('bids').slice(0, bookLevels);
  /** @param {[string, string]} level @param {string} cls */
  const row = ([p, s], cls) => el('tr', { class: cls, 'data-price': p }, el('td', {}, price(p)), el('td', {}, size(s)));
  $('book-asks').replaceChildren(...asks.map((l) => row(l, 'ask')));
  $('book-bids').replaceChildren(...bids.map((l) => row(l, 'bid')));
  const bestAsk = asks[asks.length - 1];
  const bestBid = bids[0];
  $('book-spread').textContent = bestAsk !== undefined && bestBid !== undefined ? `spread ${price((BigInt(bestAsk[0]) - BigInt(bestBid[0])).toString())}` : '–';
  $('book-seq').textContent = book.seq === null ? 'waiting for a snapshot' : `seq ${book.seq}`;
  $('book-empty').hidden = asks.length + bids.length > 0;
}

function renderTrades() {
  $('trades').replaceChildren(
    ...trades.map((t) => el('tr', { class: t.side, 'data-trade': t.id }, el('td', {}, timeOfDay(t.timestamp)), el('td', {}, t.side), el('td', {}, price(t.price)), el('td', {}, size(t.size)))),
  );
  $('trades-empty').hidden = trades.length > 0;
}

/** @param {Trade[]} incoming newest first */
function addTrades(incoming) {
  const seen = new Set(trades.map((t) => t.id));
  const merged = [...trades, ...incoming.filter((t) => !seen.has(t.id))];
  merged.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : BigInt(a.id) > BigInt(b.id) ? -1 : 0));
  trades = merged.slice(0, tradesKept);
  renderTrades();
}

/** The channels for what is on screen, each with its handler. */
function subscribe() {
  /** @type {Map<string, (data: any) => void>} */
  const channels = new Map();
  if (pair !== null) {
    channels.set(`${pair.symbol.toLowerCase()}@index`, (d) => {
      $('index').textContent = `${pair?.underlying ?? ''} index ${price(d.price)}`;
    });
  }
  for (const row of chain?.strikes ?? []) {
    for (const side of [row.call, row.put]) channels.set(`${seriesChannel(side.symbol)}@ticker`, (d) => showSide(side.symbol, d));
  }
  if (picked !== null) {
    const depth = `${seriesChannel(picked)}@depth`;
    channels.set(depth, (d) => {
      if (book.apply(d) === 'gap') feed.resubscribe(depth);
      renderBook();
    });
    channels.set(`${seriesChannel(picked)}@trades`, (d) => addTrades([d]));
  }
  feed.want(channels);
}

function saveChoice() {
  const q = new URLSearchParams();
  if (pair !== null) q.set('pair', pair.symbol);
  if (chain !== null) q.set('expiry', String(chain.expiry));
  if (picked !== null) q.set('series', picked);
  history.replaceState(null, '', `#${q}`);
}

/** @param {string} symbol */
async function loadTrades(symbol) {
  try {
    const r = await getJson(`/api/markets/trades/${encodeURIComponent(symbol)}?limit=${tradesKept}`);
    if (symbol === picked) addTrades(r.trades);
  } catch (e) {
    showError(e);
  }
}

/** @param {string | null} symbol */
function pick(symbol) {
  if (symbol === picked && symbol !== null) {
    subscribe(); // held already: its book stays as it is; the chain's tickers may be new
    return;
  }
  ++generation;
  picked = symbol;
  book = new DepthBook();
  trades = [];
  markPicked();
  saveChoice();
  $('picked').hidden = symbol === null;
  if (symbol === null) {
    subscribe();
    return;
  }
  $('picked-symbol').textContent = symbol;
  const side = chain?.strikes.flatMap((r) => [r.call, r.put]).find((x) => x.symbol === symbol);
  if (side !== undefined) showPickedTicker(side);
  renderBook();
  renderTrades();
  // The depth snapshot comes with the subscription, the trades before it from REST once it is acknowledged.
  subscribe();
}

/** @param {number | undefined} expiry @param {string | null} series */
async function loadChain(expiry, series = null) {
  if (pair === null) return;
  const mine = ++generation;
  const q = new URLSearchParams({ pairId: pair.pairId });
  if (expiry !== undefined) q.set('expiry', String(expiry));
  try {
    const c = /** @type {Chain} */ (await getJson(`/api/markets/chain?${q}`));
    if (mine !== generation) return;
    chain = c;
  } catch (e) {
    if (mine !== generation) return;
    // An expiry from a saved address may have passed: fall back to the nearest one.
    if (expiry !== undefined) return loadChain(undefined, series);
    chain = null;
    showError(e);
  }
  const select = /** @type {HTMLSelectElement} */ ($('expiry'));
  select.replaceChildren(...(chain?.expiries ?? []).map((x) => el('option', { value: String(x) }, expiryLabel(x))));
  if (chain !== null) {
    select.value = String(chain.expiry);
    $('index').textContent = `${pair.underlying} index ${price(chain.indexPrice)}`;
  }
  renderChain();
  const inChain = chain?.strikes.some((r) => r.call.symbol === series || r.put.symbol === series) ?? false;
  pick(inChain ? series : null);
}

/** @param {unknown} e */
function showError(e) {
  $('error').textContent = e instanceof Error ? e.message : String(e);
}

async function main() {
  const saved = new URLSearchParams(location.hash.slice(1));
  try {
    pairs = await getJson('/api/markets/pairs');
  } catch (e) {
    showError(e);
    return;
  }
  const pairSelect = /** @type {HTMLSelectElement} */ ($('pair'));
  pairSelect.replaceChildren(...pairs.map((p) => el('option', { value: p.symbol }, p.symbol)));
  pair = pairs.find((p) => p.symbol === saved.get('pair')) ?? pairs[0] ?? null;
  if (pair !== null) pairSelect.value = pair.symbol;
  pairSelect.addEventListener('change', () => {
    pair = pairs.find((p) => p.symbol === pairSelect.value) ?? null;
    void loadChain(undefined);
  });
  const expirySelect = /** @type {HTMLSelectElement} */ ($('expiry'));
  expirySelect.addEventListener('change', () => void loadChain(Number(expirySelect.value)));
  const expiry = Number(saved.get('expiry'));
  await loadChain(Number.isInteger(expiry) && expiry > 0 ? expiry : undefined, saved.get('series'));
}

void main();
