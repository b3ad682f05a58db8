/**
 * RFQ auctions (interface.md "RFQ and quotes"; api.md "RFQ"; docs/rfq.md): a taker asks,
 * authorised market makers (MMM) quote with EIP-712 signed quotes at their current nonce,
 * the taker fills the best quote two-phase like orders. The MMM nonce routes live here too.
 */
import { Type } from '@sinclair/typebox';
import type { Hex, MmmNonceEvent } from '../../engine/index.ts';
import type { RfqRequestView } from '../readModels/rfqBook.ts';
import { defineRoute, type Route, type TypedRoute } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { AddressSchema, Bytes32, bytes32, WadString } from './schemas.ts';
import { exampleAddress, exampleBytes32, exampleSeries } from './examples.ts';
import { orderContext } from '../orders/orderContext.ts';
import { checkPortfolio, checkSeries } from '../orders/orderChecks.ts';
import { mmmRequired, orderEngineError } from '../orders/orderErrors.ts';
import { quoteJson, submitQuote } from '../orders/quotes.ts';
import { fillQuote } from '../orders/rfqFill.ts';
import { fillCalldata, fillTypedData, relayData } from '../orders/relay.ts';
import { docsOnly, RelaySchema, TypedDataSchema } from '../orders/orderSchemas.ts';
import { rfqQuoteTypes } from '../../workers/eip712/types.ts';
import { SIDES } from '../../engine/index.ts';
import { literalUnion } from '../wire/literals.ts';

const iso = (sec: number) => new Date(sec * 1000).toISOString();

const UintString = Type.String({ pattern: '^[0-9]+$' });
const QuoteFields = Type.Object(
  Object.fromEntries(rfqQuoteTypes.RfqQuote.map((f) => [f.name, f.type === 'address' ? AddressSchema : f.type === 'bytes32' ? Bytes32 : f.type === 'bool' ? Type.Boolean() : Type.Union([UintString, Type.Integer({ minimum: 0 })])])),
  { description: 'RfqQuote, fields in this order (integers as decimal strings; quoteExpiry and optionExpiry may be numbers)' },
);
const FillFields = Type.Object({
  quote: QuoteFields,
  mmSignature: Type.String({ description: "the MMM's EIP-712 signature of the quote" }),
  fillSize: WadString,
  portfolioId: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), UintString], { description: 'required except for MMM wallets (portfolio 0)' })),
  signature: Type.Optional(Type.String({ description: 'phase two: the taker\'s signature of FillQuote { quoteId, portfolioId, fillSize, nonce, deadline }' })),
  nonce: Type.Optional(UintString),
  deadline: Type.Optional(UintString),
});
const SubmitBody = Type.Intersect([QuoteFields, Type.Object({ signature: Type.String(), requestId: Type.Optional(Bytes32) })]);
const SubmitReply = Type.Object({ quoteId: Bytes32, status: Type.Literal('active'), expiresAt: Type.String({ description: 'ISO 8601' }), requestId: Bytes32 });
const FillReply = Type.Union([
  Type.Object({ mode: Type.Literal('typed_data'), operation: Type.Literal('fill_quote'), contractAddress: AddressSchema, typedData: TypedDataSchema, quoteId: Bytes32, requestId: Bytes32 }),
  Type.Object({
    mode: Type.Literal('relay'),
    operation: Type.Literal('fill_quote'),
    contractAddress: AddressSchema,
    relay: RelaySchema,
    fill: Type.Object({ tradeId: Type.String(), requestId: Bytes32, quoteId: Bytes32, price: WadString, size: WadString, side: literalUnion(SIDES) }),
  }),
]);
const AuctionSchema = Type.Object({
  requestId: Bytes32,
  pairId: Bytes32,
  seriesId: Bytes32,
  symbol: Type.String(),
  strike: WadString,
  optionExpiry: Type.Integer(),
  isCall: Type.Boolean(),
  size: WadString,
  takerIsBuying: Type.Boolean(),
  status: Type.String(),
  expiresAt: Type.String({ description: 'ISO 8601' }),
  quoteCount: Type.Integer(),
});
const QuoteView = Type.Object({
  quoteId: Bytes32,
  mmm: AddressSchema,
  price: WadString,
  size: WadString,
  filled: WadString,
  quoteExpiry: Type.Integer({ description: 'Unix seconds' }),
  status: Type.Union(['active', 'filled', 'expired', 'cancelled'].map((s) => Type.Literal(s))),
  quote: Type.Optional(QuoteFields),
  signature: Type.Optional(Type.String()),
});

export function rfqRoutes(s: Services) {
  const ctx = orderContext(s);
  const { catalog, rfq } = s.reads;
  const nowSec = () => Math.floor(s.pipeline.now() / 1000);
  /** An RfqQuote of the example series, for the examples: a real one is signed by its MMM at the current MMM nonce. */
  const quoteExample = (sv: Services) => {
    const e = exampleSeries(sv);
    return { mmm: exampleAddress, taker: '0x0000000000000000000000000000000000000000', seriesId: e.seriesId, takerIsBuying: true, price: '2100000000000000000000', size: '1000000000000000000', nonce: '0', quoteExpiry: String(nowSec() + 20), pairId: e.pairId, strike: e.strike, optionExpiry: String(e.expiry), isCall: e.isCall };
  };
  /** The request's status as a reader sees it: open requests past their time read as expired before the clock command closes them. */
  const statusOf = (r: RfqRequestView) => (r.status === 'open' && r.expiresAt <= nowSec() ? 'expired' : r.status);

  return [
    defineRoute({
      method: 'POST',
      path: '/api/rfq/request',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      tags: ['rfq'],
      summary: 'Request quotes (start an RFQ auction)',
      errors: [404],
      examples: () => ({ body: { seriesId: exampleSeries(s).seriesId, size: '1000000000000000000', takerIsBuying: true, portfolioId: 1, ttlSeconds: 30 } }),
      description: 'The caller is the taker. `size` is WAD. `ttlSeconds` defaults to 10, at most 30. Emits `rfq_created` on `global@rfq` and `rfq_request` to connected MMMs.',
      body: Type.Object({
        seriesId: bytes32('seriesId'),
        size: Type.String({ pattern: '^[0-9]+$', errorMessage: 'size must be a positive numeric string (WAD)' }),
        takerIsBuying: Type.Boolean(),
        portfolioId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
        ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, errorMessage: 'ttlSeconds must be from 1 to 30' })),
      }),
      responses: { 200: Type.Object({ requestId: Bytes32, seriesId: Bytes32, size: WadString, takerIsBuying: Type.Boolean(), status: Type.Literal('open'), expiresAt: Type.String() }) },
      handler: async ({ body, auth }) => {
        const taker = ctx.wallet(auth.address);
        const seriesId = body.seriesId.toLowerCase() as Hex;
        const now = nowSec();
        const live = checkSeries(ctx, seriesId, now);
        if (!live.ok) return live.error;
        const size = BigInt(body.size);
        if (size <= 0n) return errorReply('invalid_argument', 'size must be a positive numeric string (WAD)', { field: 'size', location: 'body' });
        let portfolioId = 0;
        if (body.portfolioId !== undefined && body.portfolioId > 0) {
          const p = checkPortfolio(ctx, taker, BigInt(body.portfolioId), '');
          if (!p.ok) return p.error;
          portfolioId = p.value;
        }
        const expiresAt = now + (body.ttlSeconds ?? s.venue.config.rfqDefaultTtlSec);
        const result = await s.pipeline.submit({ type: 'rfq_request', taker, portfolioId, seriesId, size, takerIsBuying: body.takerIsBuying, expiresAt });
        if (!result.ok) return orderEngineError(result.rejection);
        const requestId = (result.value as { requestId: Hex }).requestId;
        return { body: { requestId, seriesId, size: size.toString(), takerIsBuying: body.takerIsBuying, status: 'open' as const, expiresAt: iso(expiresAt) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/rfq/active-auctions',
      group: 'orders',
      auth: 'none',
      tags: ['rfq'],
      summary: 'Open RFQ auctions',
      description: 'Public. The taker is not shown.',
      responses: { 200: Type.Object({ auctions: Type.Array(AuctionSchema) }) },
      handler: () => {
        const now = nowSec();
        const auctions = rfq
          .open()
          .filter((r) => r.expiresAt > now)
          .map((r) => {
            const spec = catalog.series.get(r.seriesId)!;
            return { requestId: r.requestId, pairId: r.pairId, seriesId: r.seriesId, symbol: spec.symbol, strike: spec.strike.toString(), optionExpiry: spec.expiry, isCall: spec.isCall, size: r.size.toString(), takerIsBuying: r.takerIsBuying, status: 'open', expiresAt: iso(r.expiresAt), quoteCount: r.quotes.size };
          });
        return { body: { auctions } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/rfq/quotes/:requestId',
      group: 'orders',
      auth: 'required',
      scope: 'read',
      tags: ['rfq'],
      summary: 'Quotes of an RFQ request, best first',
      examples: { params: { requestId: exampleBytes32 } },
      description:
        'Best first: lowest price when the taker buys, highest when it sells (ties: earliest). The taker sees every quote with the signed quote fields and the MMM signature it needs to fill; an MMM sees its own quotes only; anyone else gets 404.',
      params: Type.Object({ requestId: bytes32('requestId') }),
      responses: { 200: Type.Object({ requestId: Bytes32, status: Type.String(), expiresAt: Type.String(), quotes: Type.Array(QuoteView) }) },
      handler: ({ params, auth }) => {
        const caller = ctx.wallet(auth.address);
        const requestId = params.requestId.toLowerCase() as Hex;
        const r = rfq.requests.get(requestId);
        const isTaker = r?.taker === caller;
        const own = r ? [...r.quotes.values()].filter((q) => isTaker || q.mmm === caller) : [];
        if (!r || (!isTaker && own.length === 0)) return errorReply('not_found', `RFQ request not found: ${requestId}`, { reason: 'unknown_rfq', requestId });
        const now = nowSec();
        own.sort((a, b) => (a.price === b.price ? a.submittedAt - b.submittedAt : (a.price < b.price) === r.takerIsBuying ? -1 : 1));
        const quotes = own.map((q) => {
          const stored = ctx.quotes.get(q.quoteId);
          const status = rfq.quoteStatus(q, now);
          const base = { quoteId: q.quoteId, mmm: q.mmm, price: q.price.toString(), size: q.size.toString(), filled: q.filled.toString(), quoteExpiry: q.quoteExpiry, status };
          return stored ? { ...base, quote: quoteJson(stored.message), signature: stored.signature } : base;
        });
        return { body: { requestId, status: statusOf(r), expiresAt: iso(r.expiresAt), quotes } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/mm/quotes/submit',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      tags: ['rfq'],
      summary: 'Submit a signed RFQ quote (MMM only)',
      errors: [403, 404],
      examples: () => ({ body: { ...quoteExample(s), signature: `0x${'11'.repeat(64)}1b`, requestId: exampleBytes32 } }),
      description:
        'RfqQuote fields plus `signature` (EIP-712, domain `${SERVICE_NAME}OptionsRFQ` v1, verifyingContract = the `rfq` contract). `requestId` (additive) names the auction; without it the quote goes to the one open request it matches. Checks: MMM membership (403 `MMM membership required`), `mmm` = the caller, nonce = the current MMM nonce (InvalidNonce), now < quoteExpiry <= now + 30, the quote matches the request and its series, the signature recovers to `mmm`. quoteId = the EIP-712 hash of the quote.',
      body: docsOnly(SubmitBody),
      responses: { 200: SubmitReply },
      handler: async ({ body, auth }) => {
        const b = (body ?? {}) as Record<string, unknown>;
        const r = await submitQuote(s, auth.address, body, b['signature'], { requestId: b['requestId'] });
        return r.ok ? { body: r.value } : r.error;
      },
      // The body is checked by quotes.ts rather than the framework (docsOnly): typed clients see it.
    }) as TypedRoute<'POST', '/api/mm/quotes/submit', undefined, undefined, typeof SubmitBody, { 200: typeof SubmitReply }, 'required'>,
    defineRoute({
      method: 'GET',
      path: '/api/mm/nonce',
      group: 'orders',
      auth: 'required',
      scope: 'read',
      tags: ['rfq'],
      summary: "The caller's MMM quote nonce",
      description: '`nonce`: what an RfqQuote must carry (the on-chain `mmmNonce`). Additive: `nextOrderNonce`, an unused order nonce for clients that sign orders without phase one (any unused value works).',
      responses: { 200: Type.Object({ nonce: UintString, nextOrderNonce: UintString }) },
      handler: ({ auth }) => {
        const w = ctx.wallet(auth.address);
        return { body: { nonce: catalog.mmmNonce(w).toString(), nextOrderNonce: ctx.nonces.peek(w).toString() } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/mm/nonce/increment',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      tags: ['rfq'],
      summary: 'Cancel every outstanding quote of the caller (MMM only)',
      description: 'Increments the MMM nonce (the on-chain `incrementMmmNonce()`): every quote signed at the old nonce then fails to fill with InvalidNonce.',
      responses: { 200: Type.Object({ nonce: UintString, previousNonce: UintString }) },
      handler: async ({ auth }) => {
        const mmm = ctx.wallet(auth.address);
        if (!catalog.isMmm(mmm)) return mmmRequired();
        const result = await s.pipeline.submit({ type: 'mmm_nonce_increment', mmm });
        if (!result.ok) return orderEngineError(result.rejection);
        // The command's own event: exact even when another increment of the same MMM is in flight.
        const moved = result.events.find((e): e is MmmNonceEvent => e.type === 'mmm_nonce')!;
        return { body: { nonce: moved.nonce.toString(), previousNonce: (moved.nonce - 1n).toString() } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/rfq/fill',
      group: 'orders',
      auth: 'required',
      scope: 'trade',
      tags: ['rfq'],
      summary: 'Fill an RFQ quote (two-phase)',
      errors: [404],
      examples: () => ({ body: { quote: quoteExample(s), mmSignature: `0x${'11'.repeat(64)}1b`, fillSize: '1000000000000000000', portfolioId: 1 } }),
      description:
        'Unsigned `{ quote, mmSignature, fillSize, portfolioId }` -> `mode: typed_data` with the FillQuote `{ quoteId, portfolioId, fillSize, nonce, deadline }` to sign. The same body plus `signature`, `nonce` and `deadline` -> `mode: relay` with `fillQuote` calldata and the trade, after the journal commit. Only the requester may fill; a quote signed at an old MMM nonce fails with InvalidNonce (400 failed_precondition).',
      body: docsOnly(FillFields),
      responses: { 200: FillReply },
      handler: async ({ body, auth }) => {
        const r = await fillQuote(ctx, ctx.wallet(auth.address), body);
        if (!r.ok) return r.error;
        const v = r.value;
        const contractAddress = ctx.rfq.address;
        if (v.mode === 'typed_data') {
          return { body: { mode: 'typed_data', operation: 'fill_quote', contractAddress, typedData: fillTypedData(ctx.rfq.domain, v.message), quoteId: v.quoteId, requestId: v.requestId } as never };
        }
        const calldata = fillCalldata({ message: v.quote, signature: v.mmSignature.canonical }, { message: v.message, signature: v.signature.canonical });
        const fill = { tradeId: v.tradeId, requestId: v.requestId, quoteId: v.quoteId, price: v.quote.price.toString(), size: v.message.fillSize.toString(), side: v.quote.takerIsBuying ? 'buy' : 'sell' };
        return { body: { mode: 'relay', operation: 'fill_quote', contractAddress, relay: relayData(contractAddress, s.config.chainId, 'fill', calldata), fill } as never };
      },
      // The body is checked by rfqFill.ts rather than the framework (docsOnly): typed clients see it.
    }) as TypedRoute<'POST', '/api/rfq/fill', undefined, undefined, typeof FillFields, { 200: typeof FillReply }, 'required'>,
  ];
}
