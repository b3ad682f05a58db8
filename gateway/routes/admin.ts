/**
 * Admin actions (api.md "Auth"): wallets in ADMIN_ADDRESSES only, everyone else gets 403
 * `Admin access required` (the framework checks `auth: 'admin'`). A login session of an
 * admin wallet may act; an API key only with scope `admin` (a `read` key of an admin
 * wallet gets 403 `Missing required scope: admin`). Each action is an engine
 * command through the pipeline, so it is journaled and replayed like any other.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import { parseIntString, type Hex } from '../../engine/index.ts';
import type { Services } from '../services.ts';
import { submitOracle } from '../drivers.ts';
import { engineError } from './engineErrors.ts';
import { exampleAddress, examplePair } from './examples.ts';
import { AddressSchema, bytes32, Bytes32, OpenInterestSchema, WadString } from './schemas.ts';

const pairParam = Type.Object({ pairId: bytes32('pairId') });
const Wad = (what: string) => Type.String({ maxLength: 100, description: `${what}, WAD integer string` });
const MAX_ADVANCE_SECONDS = 366 * 24 * 3600;

type Parsed = { ok: true; value: bigint } | { ok: false; reply: ReturnType<typeof errorReply> };

function wad(raw: string | undefined, field: string, opts: { positive?: boolean; signed?: boolean }): Parsed {
  const r = parseIntString(raw, field, { bits: 256, ...opts });
  if (!r.ok) return { ok: false, reply: errorReply('invalid_argument', r.error.message, { field, location: 'body' }) };
  if (opts.positive === true && r.value <= 0n) return { ok: false, reply: errorReply('invalid_argument', `${field} must be a positive numeric string`, { field, location: 'body' }) };
  return { ok: true, value: r.value };
}

const admin = { group: 'admin', auth: 'admin', scope: 'admin' } as const;

export function adminRoutes(s: Services) {
  const catalog = s.reads.catalog;
  const pairOf = (raw: string): Hex | null => catalog.pairId(raw);
  const pairNotFound = (raw: string) => errorReply('not_found', `Pair not found: ${raw}`, { pairId: raw });
  const oracleJson = (pairId: Hex) => {
    const o = catalog.oracles.get(pairId)!;
    return { pairId, symbol: catalog.pairs.get(pairId)!.symbol, spotPrice: o.spot.toString(), volatility: o.volatility.toString(), riskFreeRate: o.riskFreeRate.toString(), lastUpdate: o.lastUpdate };
  };

  const routes = [
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/api/admin/mmm',
      summary: 'Grant or revoke Main Market Maker membership',
      examples: { body: { address: exampleAddress, isMmm: true } },
      description: 'MMMs may quote RFQs; their cash lives in portfolio 0 and their orders may name portfolio 0 (docs/accounts.md).',
      body: Type.Object({ address: AddressSchema, isMmm: Type.Boolean({ errorMessage: 'isMmm must be true or false' }) }),
      responses: { 200: Type.Object({ address: AddressSchema, isMmm: Type.Boolean() }) },
      handler: async ({ body }) => {
        const address = getAddress(body.address.toLowerCase());
        const r = await s.pipeline.submit({ type: 'set_mmm', address, isMmm: body.isMmm });
        if (!r.ok) return engineError(r.rejection);
        return { body: { address, isMmm: body.isMmm } };
      },
    }),
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/api/admin/oracle/:pairId',
      summary: 'Set the oracle of a pair',
      examples: () => {
        const pair = s.config.pairs[0]!;
        return { params: { pairId: examplePair(s).pairId }, body: { spotPrice: (BigInt(Math.round(pair.initialSpot)) * 10n ** 18n).toString(), volatility: '550000000000000000', riskFreeRate: '50000000000000000' } };
      },
      description: 'WAD integer strings; `volatility` and `riskFreeRate` default to the current values. Marks, Greeks and margin scenarios of every live series are recomputed (in a worker) with the new values. With ORACLE=simulated the random walk continues from the new spot.',
      params: pairParam,
      body: Type.Object({ spotPrice: Wad('spot price'), volatility: Type.Optional(Wad('annualised volatility, e.g. "550000000000000000" = 55%')), riskFreeRate: Type.Optional(Wad('annual risk-free rate, may be negative')) }),
      responses: { 200: Type.Object({ pairId: Bytes32, symbol: Type.String(), spotPrice: WadString, volatility: WadString, riskFreeRate: WadString, lastUpdate: Type.Integer() }) },
      handler: async ({ params, body }) => {
        const pairId = pairOf(params.pairId);
        if (pairId === null) return pairNotFound(params.pairId);
        const current = catalog.oracles.get(pairId);
        const spot = wad(body.spotPrice, 'spotPrice', { positive: true });
        if (!spot.ok) return spot.reply;
        if (body.volatility === undefined && current === undefined) return errorReply('invalid_argument', 'volatility is required: the pair has no oracle value yet', { field: 'volatility', location: 'body' });
        const vol = body.volatility === undefined ? { ok: true as const, value: current!.volatility } : wad(body.volatility, 'volatility', { positive: true });
        if (!vol.ok) return vol.reply;
        const rate = body.riskFreeRate === undefined ? { ok: true as const, value: current?.riskFreeRate ?? 0n } : wad(body.riskFreeRate, 'riskFreeRate', { signed: true });
        if (!rate.ok) return rate.reply;
        const r = await submitOracle(s.pipeline, s.reads, s.marks, pairId, spot.value, vol.value, rate.value);
        if (!r.ok) return engineError(r.rejection);
        return { body: oracleJson(pairId) };
      },
    }),
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/api/admin/open-interest/:pairId',
      summary: 'Set the open-interest caps of a pair',
      examples: () => ({ params: { pairId: examplePair(s).pairId }, body: { maxCallOI: '1000000000000000000000', maxPutOI: '1000000000000000000000' } }),
      description: 'WAD integer strings, per option type, summed over the pair\'s series; 0 = unlimited. Orders that could open contracts beyond a cap are refused (`oi_cap`); existing positions are not touched.',
      params: pairParam,
      body: Type.Object({ maxCallOI: Wad('cap on call open interest'), maxPutOI: Wad('cap on put open interest') }),
      responses: { 200: OpenInterestSchema },
      handler: async ({ params, body }) => {
        const pairId = pairOf(params.pairId);
        if (pairId === null) return pairNotFound(params.pairId);
        const calls = wad(body.maxCallOI, 'maxCallOI', {});
        if (!calls.ok) return calls.reply;
        const puts = wad(body.maxPutOI, 'maxPutOI', {});
        if (!puts.ok) return puts.reply;
        const r = await s.pipeline.submit({ type: 'set_oi_caps', pairId, maxCallOI: calls.value, maxPutOI: puts.value });
        if (!r.ok) return engineError(r.rejection);
        return { body: s.market.openInterest(pairId) };
      },
    }),
  ];

  // Time travel exists only on a local devnet; elsewhere the route is not served at all.
  if (s.config.network === 'local') {
    return [
      ...routes,
      defineRoute({
        ...admin,
        method: 'POST',
        path: '/api/admin/advance-time',
        summary: 'Move the venue clock forward (NETWORK=local only)',
        examples: { body: { seconds: 60 } },
        description:
          'Like a devnet\'s time travel: the venue clock jumps `seconds` ahead and stays ahead (wall time + offset). A clock command then runs what time does (order expiry, RFQ expiry, settlement at 08:00 UTC, new listings), and marks are recomputed at the new time. ' +
          'Sessions, nonces and API-key timestamps are checked against the same clock (docs/auth.md).',
        body: Type.Object({ seconds: Type.Integer({ minimum: 1, maximum: MAX_ADVANCE_SECONDS, errorMessage: `seconds must be an integer from 1 to ${MAX_ADVANCE_SECONDS}` }) }),
        responses: { 200: Type.Object({ success: Type.Boolean(), seconds: Type.Integer(), timestamp: Type.Integer({ description: 'venue time after the jump, Unix seconds' }), settledSeries: Type.Integer(), listedSeries: Type.Integer() }) },
        handler: async ({ body }) => {
          s.pipeline.advance(body.seconds * 1000);
          const r = await s.pipeline.submit({ type: 'clock' });
          if (!r.ok) return engineError(r.rejection);
          // Marks age with time (theta): reprice every live series at the new clock.
          for (const [pairId, o] of [...catalog.oracles]) await submitOracle(s.pipeline, s.reads, s.marks, pairId, o.spot, o.volatility, o.riskFreeRate);
          const count = (type: string) => r.events.filter((e) => e.type === type).length;
          return { body: { success: true, seconds: body.seconds, timestamp: Math.floor(s.pipeline.now() / 1000), settledSeries: count('series_settled'), listedSeries: count('series_listed') } };
        },
      }),
    ];
  }
  return routes;
}
