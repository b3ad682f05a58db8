/** Helper computations (interface.md "Helpers"), no auth, both forms. */
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import { pairIdOf, seriesIdOf, parseIntString, tickToPrice, priceToTick, translateSymbol, type Hex } from '../../engine/index.ts';
import type { Services } from '../services.ts';
import { bytes32, Bytes32, WadString } from './schemas.ts';
import { examplePair, exampleSeries } from './examples.ts';

const both = ['current', 'earlier'] as const;
const tickDecimals = Type.Integer({ minimum: 0, maximum: 18, errorMessage: 'tickDecimals must be an integer from 0 to 18' });
const Translation = Type.Object({
  input: Type.String(),
  inputFormat: Type.Union([Type.Literal('external'), Type.Literal('diffusal')]),
  output: Type.String(),
  outputFormat: Type.Union([Type.Literal('external'), Type.Literal('diffusal')]),
  isShort: Type.Optional(Type.Boolean()),
});

export function helperRoutes(s: Services) {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/helpers/series-id',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Compute a seriesId',
      examples: () => {
        const e = exampleSeries(s);
        return { query: { pairId: e.pairId, strike: e.strike, expiry: e.expiry, isCall: e.isCall } };
      },
      description: 'keccak256(abi.encode(bytes32 pairId, uint256 strike, uint256 expiry, bool isCall)); strike in WAD, expiry in Unix seconds.',
      query: Type.Object({ pairId: bytes32('pairId'), strike: Type.String({ description: 'WAD integer string' }), expiry: Type.Integer({ minimum: 0, errorMessage: 'expiry must be a Unix timestamp in seconds' }), isCall: Type.Boolean({ errorMessage: 'isCall must be true or false' }) }),
      responses: { 200: Type.Object({ seriesId: Bytes32 }) },
      handler: ({ query }) => {
        const strike = parseIntString(query.strike, 'strike', { bits: 256 });
        if (!strike.ok) return errorReply('invalid_argument', strike.error.message, { field: 'strike' });
        return { body: { seriesId: seriesIdOf(query.pairId.toLowerCase() as Hex, strike.value, query.expiry, query.isCall) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/helpers/pair-id',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Compute a pairId',
      examples: () => ({ query: { name: examplePair(s).symbol } }),
      description: 'keccak256 of the UTF-8 bytes of the pair symbol, e.g. "BTC-USDC".',
      query: Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) }),
      responses: { 200: Type.Object({ pairId: Bytes32 }) },
      handler: ({ query }) => ({ body: { pairId: pairIdOf(query.name) } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/helpers/tick-decimals/:pairId',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Tick decimals and spot of a pair',
      examples: () => ({ params: { pairId: examplePair(s).pairId } }),
      description: 'The tick grid of the pair (`tickDecimals`) and its spot price (WAD). An unknown pair is 404.',
      params: Type.Object({ pairId: bytes32('pairId') }),
      responses: { 200: Type.Object({ tickDecimals: Type.Integer(), spotPrice: WadString }) },
      handler: ({ params }) => {
        const pairId = params.pairId.toLowerCase() as Hex;
        const pair = s.reads.catalog.pairs.get(pairId);
        if (!pair) return errorReply('not_found', `Pair not found: ${params.pairId}`, { pairId: params.pairId });
        return { body: { tickDecimals: pair.tickDecimals, spotPrice: (s.reads.catalog.oracles.get(pairId)?.spot ?? 0n).toString() } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/helpers/tick-to-price',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Convert a tick to a price',
      examples: () => ({ query: { tick: '10000000', tickDecimals: examplePair(s).tickDecimals } }),
      description: 'price (WAD) = tick x 10^(18 - tickDecimals).',
      query: Type.Object({ tick: Type.String({ description: 'uint32 as a decimal string' }), tickDecimals }),
      responses: { 200: Type.Object({ price: WadString }) },
      handler: ({ query }) => {
        const tick = parseIntString(query.tick, 'tick', { bits: 32 });
        if (!tick.ok) return errorReply('invalid_argument', tick.error.message, { field: 'tick' });
        return { body: { price: tickToPrice(tick.value, query.tickDecimals).toString() } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/helpers/price-to-tick',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Convert a price to a tick',
      examples: () => ({ query: { price: '100050000000000000000000', tickDecimals: examplePair(s).tickDecimals, roundUp: false } }),
      description: 'tick = price / 10^(18 - tickDecimals), rounded down, or up with `roundUp=true`.',
      query: Type.Object({ price: Type.String({ description: 'WAD integer string' }), tickDecimals, roundUp: Type.Optional(Type.Boolean({ default: false })) }),
      responses: { 200: Type.Object({ tick: Type.String() }) },
      handler: ({ query }) => {
        const price = parseIntString(query.price, 'price', { bits: 256 });
        if (!price.ok) return errorReply('invalid_argument', price.error.message, { field: 'price' });
        return { body: { tick: priceToTick(price.value, query.tickDecimals, query.roundUp ?? false).toString() } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/helpers/symbol/translate',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Translate a symbol between the canonical and the user-facing form',
      examples: () => ({ body: { symbol: exampleSeries(s).symbol } }),
      description: 'The input format is detected: `diffusal` (canonical UNDERLYING-STRIKE-TYPE-EXPIRY[-SHORT]) or `external` (UNDERLYING-DDMMMYY-STRIKE-TYPE). `isShort` is present when the input had the -SHORT suffix.',
      body: Type.Object({ symbol: Type.String({ minLength: 1, maxLength: 100 }) }),
      responses: { 200: Translation },
      handler: ({ body }) => {
        const r = translateSymbol(body.symbol);
        if (!r.ok) return errorReply('invalid_argument', 'Invalid symbol format', { field: 'symbol', symbol: body.symbol, reason: r.error.message });
        return { body: r.value };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/helpers/symbol/translate/batch',
      forms: both,
      group: 'helpers',
      auth: 'none',
      summary: 'Translate many symbols',
      examples: () => ({ body: { symbols: [exampleSeries(s).symbol] } }),
      description: 'At most 100 symbols. Each bad symbol is reported in `errors` with its index; the others are translated.',
      body: Type.Object({ symbols: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100, errorMessage: 'symbols must be an array of at most 100 strings' }) }),
      responses: { 200: Type.Object({ results: Type.Array(Translation), errors: Type.Array(Type.Object({ index: Type.Integer(), symbol: Type.String(), message: Type.String() })) }) },
      handler: ({ body }) => {
        if (body.symbols.length === 0) return errorReply('invalid_argument', 'At least one symbol is required', { field: 'symbols' });
        const results: ReturnType<typeof translateSymbol> extends infer R ? (R extends { ok: true; value: infer V } ? V[] : never) : never = [];
        const errors: { index: number; symbol: string; message: string }[] = [];
        body.symbols.forEach((symbol, index) => {
          const r = translateSymbol(symbol);
          if (r.ok) results.push(r.value);
          else errors.push({ index, symbol, message: 'Invalid symbol format' });
        });
        return { body: { results, errors } };
      },
    }),
  ];
}
