/**
 * Market maker protection (extensions.md "Market maker protection (MMP)", docs/order-entry.md):
 * read the caller's configs with their frozen state and window (a fold of `mmp` events,
 * readModels/mmp.ts), set a config, reset a freeze. Writes are the engine commands `set_mmp` and
 * `reset_mmp`, answered after the journal commit from the command's own `mmp` event.
 */
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { defineRoute, type Route } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { MMP_FROZEN_MS, MMP_REASONS, MMP_WINDOW_MS, parseIntString, type Hex, type MmpConfig, type MmpEvent } from '../../engine/index.ts';
import { frozenAt, type MmpView } from '../readModels/mmp.ts';
import { engineError } from './engineErrors.ts';
import { bytes32, Nullable, WadString } from './schemas.ts';
import { literalUnion } from '../wire/literals.ts';

const both = ['current', 'earlier'] as const;
const mm = { forms: both, group: 'orders', auth: 'required', tags: ['orders'] } as const;

const Limit = (name: string, what: string) =>
  Type.Union([Type.String({ maxLength: 100 }), Type.Integer({ minimum: 0 })], { description: `WAD integer string: ${what}; "0" = off`, errorMessage: `${name} must be a non-negative integer string (WAD)` });

const ConfigFields = {
  pairId: bytes32('pairId'),
  windowMs: Type.Integer({ minimum: MMP_WINDOW_MS.min, maximum: MMP_WINDOW_MS.max, description: 'sliding window (ms)', errorMessage: `windowMs must be an integer from ${MMP_WINDOW_MS.min} to ${MMP_WINDOW_MS.max}` }),
  frozenMs: Type.Integer({ minimum: MMP_FROZEN_MS.min, maximum: MMP_FROZEN_MS.max, description: 'how long a trip freezes (ms); 0 = until reset', errorMessage: `frozenMs must be an integer from ${MMP_FROZEN_MS.min} to ${MMP_FROZEN_MS.max}` }),
};
const ConfigBody = Type.Object({
  ...ConfigFields,
  qtyLimit: Limit('qtyLimit', 'sum of |size| of fills in the window'),
  deltaLimit: Limit('deltaLimit', 'sum of |delta x size|'),
  vegaLimit: Limit('vegaLimit', 'sum of |vega x size|'),
  tradeCountLimit: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'fills in the window; 0 = off', errorMessage: 'tradeCountLimit must be a non-negative integer' }),
});
const ConfigSchema = Type.Object({ ...ConfigFields, qtyLimit: WadString, deltaLimit: WadString, vegaLimit: WadString, tradeCountLimit: Type.Integer() });
const WindowSchema = Type.Object(
  { qty: WadString, delta: WadString, vega: WadString, trades: Type.Integer() },
  { description: 'the window at its last change: sums of |size|, |delta x size|, |vega x size| (WAD) and the number of fills' },
);
const StateFields = {
  frozen: Type.Boolean(),
  frozenUntil: Nullable(Type.Integer({ description: 'Unix ms; null when not frozen or frozen until a reset' })),
  reason: Nullable(literalUnion(MMP_REASONS, { description: 'the limit that tripped it, while frozen' })),
  window: WindowSchema,
};
const StateSchema = Type.Object({ ...ConfigSchema.properties, ...StateFields });

export function configJson(c: MmpConfig) {
  return { pairId: c.pairId, windowMs: c.windowMs, frozenMs: c.frozenMs, qtyLimit: c.qtyLimit.toString(), deltaLimit: c.deltaLimit.toString(), vegaLimit: c.vegaLimit.toString(), tradeCountLimit: c.tradeCountLimit };
}

export function windowJson(w: MmpEvent['window']) {
  return { qty: w.qty.toString(), delta: w.delta.toString(), vega: w.vega.toString(), trades: w.trades };
}

function stateJson(v: Pick<MmpView, 'config' | 'frozen' | 'frozenUntil' | 'reason' | 'window'>, nowMs: number) {
  const frozen = frozenAt({ ...v, owner: '', pairId: v.config.pairId, transitionSeq: 0 }, nowMs);
  return { ...configJson(v.config), frozen, frozenUntil: frozen ? v.frozenUntil : null, reason: frozen ? v.reason : null, window: windowJson(v.window) };
}

export function mmpRoutes(s: Services) {
  const owner = (address: string) => getAddress(address);
  const limit = (raw: unknown, field: string) => parseIntString(raw, field, { bits: 256 });
  return [
    defineRoute({
      ...mm,
      method: 'GET',
      path: '/api/mm/mmp',
      scope: 'read',
      summary: 'Your market maker protection configs, frozen states and windows',
      description: 'One entry per pair configured: the config, `frozen`, `frozenUntil` (Unix ms, null when not frozen or frozen until a reset), `reason` and the `window` at its last change (fills older than `windowMs` leave it as new fills arrive).',
      responses: { 200: Type.Object({ configs: Type.Array(StateSchema) }) },
      handler: ({ auth }) => ({ body: { configs: s.reads.mmp.configs(owner(auth.address)).map((v) => stateJson(v, s.reads.ts)) } }),
    }),
    defineRoute({
      ...mm,
      method: 'POST',
      path: '/api/mm/mmp',
      scope: 'trade',
      errors: [404],
      summary: 'Set market maker protection for a pair',
      description:
        'Fills of your orders placed with `mmp: true` on the pair (maker or taker) add |size|, |delta x size|, |vega x size| (the series\' Greeks at the fill) and one trade to a sliding window of `windowMs`. The fill that brings any sum to its limit trips protection in the same command, even in the middle of one taker\'s sweep: every open `mmp` order of yours on the pair is cancelled (`cancelReason: mmp`) and new `mmp` orders there are refused `mmp_frozen` (400 failed_precondition) for `frozenMs` (0 = until `POST /api/mm/mmp/reset`). Replaces an earlier config of the pair (the window and a freeze are kept). Replies with the stored config. Unknown pair: 404.',
      body: ConfigBody,
      responses: { 200: ConfigSchema },
      examples: () => ({ body: { pairId: [...s.reads.catalog.pairs.keys()][0] ?? `0x${'00'.repeat(32)}`, windowMs: 1000, frozenMs: 5000, qtyLimit: '10000000000000000000', deltaLimit: '0', vegaLimit: '0', tradeCountLimit: 20 } }),
      handler: async ({ auth, body }) => {
        const limits: bigint[] = [];
        for (const field of ['qtyLimit', 'deltaLimit', 'vegaLimit'] as const) {
          const r = limit(body[field], field);
          if (!r.ok) return errorReply('invalid_argument', `${field} must be a non-negative integer string (WAD)`, { field, location: 'body' });
          limits.push(r.value);
        }
        const r = await s.pipeline.submit({
          type: 'set_mmp',
          owner: owner(auth.address),
          pairId: body.pairId.toLowerCase() as Hex,
          windowMs: body.windowMs,
          frozenMs: body.frozenMs,
          qtyLimit: limits[0]!,
          deltaLimit: limits[1]!,
          vegaLimit: limits[2]!,
          tradeCountLimit: body.tradeCountLimit,
        });
        if (!r.ok) return engineError(r.rejection);
        return { body: configJson((r.value as { config: MmpConfig }).config) };
      },
    }),
    defineRoute({
      ...mm,
      method: 'POST',
      path: '/api/mm/mmp/reset',
      scope: 'trade',
      errors: [404],
      summary: 'Unfreeze market maker protection for a pair',
      description: 'Lifts a freeze at once and empties the window; replies with the unfrozen state. A pair you have not configured: 404 (`details.reason: mmp_not_configured`).',
      body: Type.Object({ pairId: bytes32('pairId') }),
      responses: { 200: StateSchema },
      examples: () => ({ body: { pairId: [...s.reads.catalog.pairs.keys()][0] ?? `0x${'00'.repeat(32)}` } }),
      handler: async ({ auth, body }) => {
        const r = await s.pipeline.submit({ type: 'reset_mmp', owner: owner(auth.address), pairId: body.pairId.toLowerCase() as Hex });
        if (!r.ok) return engineError(r.rejection);
        const e = r.events.find((x): x is MmpEvent => x.type === 'mmp')!;
        return { body: stateJson(e, e.ts) };
      },
    }),
  ];
}
