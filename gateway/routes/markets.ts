/** Public market data (interface.md "Public market data"), both forms. */
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { seriesJson } from '../readModels/marketData.ts';
import { optionChain } from '../readModels/optionChain.ts';
import { contractNames } from '../config.ts';
import { orderBookAbi, rfqAbi } from '../abi.ts';
import { orderBookDomain, rfqDomain } from '../../workers/eip712/types.ts';
import { domainJson } from '../orders/orderErrors.ts';
import { TimeRangeFields, timeRange } from './timeRange.ts';
import { examplePair, exampleSeries } from './examples.ts';
import { SeriesSchema, OrderBookSchema, TickerSchema, TradeSchema, OpenInterestSchema, ChainSchema, bytes32, Bytes32, WadString, Nullable } from './schemas.ts';

const both = ['current', 'earlier'] as const;
const DomainSchema = Type.Object({ name: Type.String(), version: Type.String(), chainId: Type.Integer(), verifyingContract: Type.String() }, { description: 'EIP-712 domain' });
const ChainInfoSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('embedded'), Type.Literal('rpc'), Type.Literal('none')], { description: 'embedded: a local chain (anvil) the venue runs; rpc: a real chain; none: no settlement on chain' }),
    chainId: Type.Integer(),
    rpcUrl: Nullable(Type.String({ description: "the chain's JSON-RPC endpoint, to check every claim on chain (null without a chain)" })),
    deploymentBlock: Nullable(Type.Integer({ description: 'the block the contracts were deployed in (where their logs start)' })),
    relayer: Nullable(Type.String({ description: "the relayer's address: the only sender of orderBook.settle" })),
  },
  { description: 'The settlement chain (docs/chain.md)' },
);
const symbolParam = Type.Object({ symbol: Type.String({ minLength: 1, maxLength: 100, description: 'canonical or user-facing symbol, or seriesId' }) });
const pairParam = Type.Object({ pairId: bytes32('pairId') });

const notFoundSeries = (symbol: string) => errorReply('not_found', `Series not found: ${symbol}`, { symbol });

export function marketRoutes(s: Services) {
  const catalog = s.reads.catalog;
  const market = s.reads.market;
  const domains = { orderBook: domainJson(orderBookDomain(s.config.serviceName, s.config.chainId, s.config.contracts.orderBook)), rfq: domainJson(rfqDomain(s.config.serviceName, s.config.chainId, s.config.contracts.rfq)) };
  const pairOr404 = (pairId: string) => catalog.pairId(pairId);
  return [
    defineRoute({
      method: 'GET',
      path: '/api/markets',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'List option series',
      examples: () => {
        const e = exampleSeries(s);
        return { query: { limit: 20, cursor: e.seriesId, pairId: e.pairId, expiry: e.expiry, isCall: e.isCall, settled: false } };
      },
      description: 'Series ordered by pair, expiry, strike, call before put. `cursor` is the `nextCursor` of the previous page. Filters: `pairId`, `expiry` (Unix seconds), `isCall`, `settled`. Unknown parameters are ignored.',
      query: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' })),
        cursor: Type.Optional(Type.String({ maxLength: 200 })),
        pairId: Type.Optional(bytes32('pairId')),
        expiry: Type.Optional(Type.Integer({ minimum: 0 })),
        isCall: Type.Optional(Type.Boolean()),
        settled: Type.Optional(Type.Boolean()),
      }),
      responses: { 200: Type.Object({ markets: Type.Array(SeriesSchema), total: Type.Integer(), hasMore: Type.Boolean(), nextCursor: Nullable(Type.String()) }) },
      handler: ({ query }) => {
        const pairOrder = [...catalog.pairs.keys()];
        const pairId = query.pairId?.toLowerCase();
        const all = [...catalog.series.values()]
          .filter((x) => (pairId === undefined || x.pairId === pairId) && (query.expiry === undefined || x.expiry === query.expiry) && (query.isCall === undefined || x.isCall === query.isCall) && (query.settled === undefined || x.settled === query.settled))
          .sort((a, b) => pairOrder.indexOf(a.pairId) - pairOrder.indexOf(b.pairId) || a.expiry - b.expiry || (a.strike < b.strike ? -1 : a.strike > b.strike ? 1 : 0) || (a.isCall === b.isCall ? 0 : a.isCall ? -1 : 1));
        const limit = query.limit ?? 20;
        let start = 0;
        if (query.cursor !== undefined) {
          const i = all.findIndex((x) => x.seriesId === query.cursor);
          if (i < 0) return errorReply('invalid_argument', 'cursor is not a cursor of this list', { field: 'cursor' });
          start = i + 1;
        }
        const page = all.slice(start, start + limit);
        const hasMore = start + limit < all.length;
        return { body: { markets: page.map(seriesJson), total: all.length, hasMore, nextCursor: hasMore ? page[page.length - 1]!.seriesId : null } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/pairs',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'List trading pairs',
      description: 'Current form: an array of pairs. Earlier form: `{ pairs }` with `baseCurrency` and `quoteCurrency`.',
      responses: {
        200: Type.Array(Type.Object({ pairId: Bytes32, symbol: Type.String(), underlying: Type.String(), quote: Type.String(), tickDecimals: Type.Integer(), minSize: WadString, sizeStep: WadString })),
      },
      earlier: {
        responses: { 200: Type.Object({ pairs: Type.Array(Type.Object({ pairId: Bytes32, symbol: Type.String(), baseCurrency: Type.String(), quoteCurrency: Type.String() }, { additionalProperties: true })) }) },
      },
      handler: ({ form }) => {
        const pairs = [...catalog.pairs.keys()].map((id) => market.pairJson(id, form));
        return form === 'current' ? { body: pairs as never } : { raw: JSON.stringify({ pairs }) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/orderbook/:symbol',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Order book of a series',
      examples: () => ({ params: { symbol: exampleSeries(s).symbol }, query: { depth: 10 } }),
      description: 'Aggregated levels, best first. `depth` levels per side: default 20, at most 500.',
      params: symbolParam,
      query: Type.Object({ depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 20, errorMessage: 'depth must be from 1 to 500' })) }),
      responses: { 200: OrderBookSchema },
      handler: ({ params, query, now }) => {
        const series = catalog.find(params.symbol);
        if (!series) return notFoundSeries(params.symbol);
        return { raw: market.orderbookJson(series, query.depth ?? 20, now) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/ticker/:symbol',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Ticker with Black-Scholes mark and Greeks',
      examples: () => ({ params: { symbol: exampleSeries(s).symbol } }),
      description: 'Greeks in WAD: delta and gamma per unit of the underlying, vega per 1.00 of volatility, theta per year, rho per 1.00 of rate (docs/pricing.md). `iv` is the implied volatility of the book mid when both sides are quoted, else the oracle volatility.',
      params: symbolParam,
      responses: { 200: TickerSchema },
      handler: ({ params }) => {
        const series = catalog.find(params.symbol);
        if (!series) return notFoundSeries(params.symbol);
        return { raw: market.tickerJson(series) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/trades/:symbol',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Recent public trades of a series',
      examples: () => ({ params: { symbol: exampleSeries(s).symbol }, query: { limit: 20, before: String(Math.floor(s.pipeline.now() / 1000)) } }),
      description: 'Newest first. `before` is a Unix-seconds timestamp (trades strictly older) or a `nextCursor` value (`<timestamp>:<tradeId>`, pages exactly). The venue keeps the last 1,000 trades per series. `startTime`/`endTime` (Unix seconds, inclusive) keep trades in that range; `startTime` after `endTime` is 400.',
      params: symbolParam,
      query: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'limit must be greater than 0 and at most 100' })),
        before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}(:[0-9]{1,20})?$', errorMessage: 'before must be a Unix timestamp or a nextCursor value' })),
        ...TimeRangeFields,
      }),
      responses: { 200: Type.Object({ trades: Type.Array(TradeSchema), nextCursor: Nullable(Type.String()) }) },
      handler: ({ params, query }) => {
        const within = timeRange(query);
        if (typeof within !== 'function') return within;
        const series = catalog.find(params.symbol);
        if (!series) return notFoundSeries(params.symbol);
        const limit = query.limit ?? 20;
        const [beforeTs, beforeId] = (query.before ?? '').split(':');
        const older = (t: { ts: number; id: string }) => {
          if (query.before === undefined) return true;
          const sec = Math.floor(t.ts / 1000);
          if (beforeId === undefined) return sec < Number(beforeTs);
          return BigInt(t.id) < BigInt(beforeId);
        };
        const out: { id: string; price: string; size: string; side: 'buy' | 'sell'; timestamp: number }[] = [];
        const trades = market.recentTrades(series.seriesId);
        let i = trades.length - 1;
        for (; i >= 0 && out.length < limit; i--) {
          const t = trades.at(i)!;
          if (older(t) && within(Math.floor(t.ts / 1000))) out.push({ id: t.id, price: t.price.toString(), size: t.size.toString(), side: t.side, timestamp: Math.floor(t.ts / 1000) });
        }
        const lastOut = out[out.length - 1];
        // Trade ids grow with time: an older one exists if the oldest kept is older than the page's last.
        const oldest = trades.first();
        const more = lastOut !== undefined && oldest !== undefined && BigInt(oldest.id) < BigInt(lastOut.id);
        return { body: { trades: out, nextCursor: more && lastOut ? `${lastOut.timestamp}:${lastOut.id}` : null } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/chain',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Option chain of one expiry',
      examples: () => {
        const e = exampleSeries(s);
        return { query: { pairId: e.pairId, expiry: e.expiry } };
      },
      description:
        'Every strike of one expiry of a pair, call and put side by side, in one read (extensions.md "Option chain"). `expiry` (Unix seconds) defaults to the nearest live expiry; `expiries` lists the live ones. Per side: mark, implied volatility (of the book mid when both sides are quoted, else the oracle volatility), Greeks (as the ticker: vega per 1.00 of volatility, theta per year), the best bid and ask with the size resting there (null where a side is empty), open interest and 24-hour volume, all WAD strings. An unknown pair, a pair with no live expiry, or an expiry that is not live is 404.',
      query: Type.Object({ pairId: bytes32('pairId'), expiry: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds; default: the nearest live expiry' })) }),
      responses: { 200: ChainSchema },
      handler: ({ query, now }) => {
        const pairId = pairOr404(query.pairId);
        if (!pairId) return errorReply('not_found', `Pair not found: ${query.pairId}`, { pairId: query.pairId });
        const r = optionChain(catalog, market, pairId, query.expiry, now);
        if (!r.ok) return r.reason === 'no_expiry' ? errorReply('not_found', `No live expiry for pair ${pairId}`, { pairId }) : errorReply('not_found', `Expiry not found: ${query.expiry}`, { pairId, expiry: query.expiry ?? null });
        return { body: r.chain };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/oracle/:pairId',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Oracle data of a pair',
      examples: () => ({ params: { pairId: examplePair(s).pairId } }),
      description: 'Spot price, volatility and risk-free rate (WAD) and the Unix second of the last update. An unknown pair is 404.',
      params: pairParam,
      responses: { 200: Type.Object({ pairId: Bytes32, symbol: Type.String(), spotPrice: WadString, volatility: WadString, riskFreeRate: WadString, lastUpdate: Type.Integer() }) },
      handler: ({ params }) => {
        const pairId = pairOr404(params.pairId);
        const o = pairId && catalog.oracles.get(pairId);
        if (!pairId || !o) return errorReply('not_found', `Pair not found: ${params.pairId}`, { pairId: params.pairId });
        return { body: { pairId, symbol: catalog.pairs.get(pairId)!.symbol, spotPrice: o.spot.toString(), volatility: o.volatility.toString(), riskFreeRate: o.riskFreeRate.toString(), lastUpdate: o.lastUpdate } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/contracts',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Contract addresses and EIP-712 signing domains of this deployment',
      description:
        'Addresses are derived from SERVICE_NAME and the chain id (docs/domain.md), or with CHAIN=rpc those of the deployment. `domains` holds every EIP-712 domain a client signs with: `orderBook` for PlaceOrder and CancelOrder, `rfq` for RfqQuote and FillQuote (docs/signatures.md). `chain` says where the contracts run: the mode, the chain id, its RPC, the block they were deployed in and the relayer (docs/chain.md).',
      responses: { 200: Type.Object({ chainId: Type.Integer(), contracts: Type.Object(Object.fromEntries(contractNames.map((n) => [n, Type.String()]))), domains: Type.Object({ orderBook: DomainSchema, rfq: DomainSchema }), chain: ChainInfoSchema }) },
      handler: () => ({ body: { chainId: s.config.chainId, contracts: { ...s.config.contracts }, domains, chain: s.chain.info } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/contracts/abi',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'ABIs of the order book and RFQ contracts',
      description: 'The functions a relayed order or fill calls (`calldata` of relay replies is encoded with them).',
      responses: { 200: Type.Object({ orderBook: Type.Array(Type.Unknown()), rfq: Type.Array(Type.Unknown()) }) },
      handler: () => ({ body: { orderBook: orderBookAbi as unknown as unknown[], rfq: rfqAbi as unknown as unknown[] } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/open-interest',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Open interest of every pair',
      description: 'Open interest is the sum of long balances. A cap of 0 is unlimited; its remaining capacity reads as 2^256-1.',
      responses: { 200: Type.Object({ pairs: Type.Array(OpenInterestSchema) }) },
      handler: () => ({ body: { pairs: [...catalog.pairs.keys()].map((id) => market.openInterest(id)) } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/markets/open-interest/:pairId',
      forms: both,
      group: 'markets',
      auth: 'none',
      summary: 'Open interest of one pair',
      examples: () => ({ params: { pairId: examplePair(s).pairId } }),
      description: 'As in `/api/markets/open-interest`, for one pair; an unknown pair is 404.',
      params: pairParam,
      responses: { 200: Type.Object({ data: OpenInterestSchema }) },
      handler: ({ params }) => {
        const pairId = pairOr404(params.pairId);
        if (!pairId) return errorReply('not_found', `Pair not found: ${params.pairId}`, { pairId: params.pairId });
        return { body: { data: market.openInterest(pairId) } };
      },
    }),
  ];
}
