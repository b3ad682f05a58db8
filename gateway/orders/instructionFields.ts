/**
 * Order instructions on the wire (docs/order-entry.md "Order instructions"): the optional fields
 * `timeInForce`, `postOnly`, `reduceOnly`, `mmp`, `clientOrderId` beside a place body, signed
 * or not (they are not in the EIP-712 struct). Read here, echoed in every reply and read.
 */
import { Type } from '@sinclair/typebox';
import { CANCEL_REASONS, CLIENT_ORDER_ID_PATTERN, TIME_IN_FORCE, instructionsOf, isClientOrderId, type OrderInstructions, type TimeInForce, fail, ok, type Parsed } from '../../engine/index.ts';
import { literalUnion, literals } from '../wire/literals.ts';
import { fieldPath, isPresent, type Fields } from './fields.ts';

/** The instructions of a place body (absent fields: the defaults). */
export function readInstructions(o: Fields, path: string): Parsed<OrderInstructions> {
  let timeInForce: TimeInForce | undefined;
  if (isPresent(o['timeInForce'])) {
    const v = o['timeInForce'];
    const field = fieldPath(path, 'timeInForce');
    if (typeof v !== 'string' || !(TIME_IN_FORCE as readonly string[]).includes(v)) return fail(field, `${field} must be one of ${TIME_IN_FORCE.join(', ')}`);
    timeInForce = v as TimeInForce;
  }
  const flags: Partial<Record<'postOnly' | 'reduceOnly' | 'mmp', boolean>> = {};
  for (const name of ['postOnly', 'reduceOnly', 'mmp'] as const) {
    const v = o[name];
    if (!isPresent(v)) continue;
    const field = fieldPath(path, name);
    if (typeof v !== 'boolean') return fail(field, `${field} must be a boolean`);
    flags[name] = v;
  }
  let clientOrderId: string | undefined;
  if (isPresent(o['clientOrderId'])) {
    const v = o['clientOrderId'];
    const field = fieldPath(path, 'clientOrderId');
    if (typeof v !== 'string' || !isClientOrderId(v)) return fail(field, `${field} must be 1 to 36 characters of A-Z, a-z, 0-9, _ and -`);
    clientOrderId = v;
  }
  return ok(instructionsOf({ timeInForce, ...flags, clientOrderId }));
}

export type InstructionsJson = { timeInForce: TimeInForce; postOnly: boolean; reduceOnly: boolean; mmp: boolean; clientOrderId: string | null };

/** The instruction fields as replies and reads carry them (every field, defaults included). */
export function instructionsJson(i: OrderInstructions): InstructionsJson {
  return { timeInForce: i.timeInForce, postOnly: i.postOnly, reduceOnly: i.reduceOnly, mmp: i.mmp, clientOrderId: i.clientOrderId };
}

const TimeInForceSchema = literalUnion(TIME_IN_FORCE, { description: 'GTC (default): rests until the signed expiry; IOC: the unfilled rest is cancelled; FOK: fills all at once or is cancelled whole' });

/** The optional request fields (docs/order-entry.md "Order instructions"). */
export const InstructionRequestFields = {
  timeInForce: Type.Optional(TimeInForceSchema),
  postOnly: Type.Optional(Type.Boolean({ description: 'refused post_only_would_take (400 failed_precondition) when it would take; nothing rests' })),
  reduceOnly: Type.Optional(Type.Boolean({ description: 'may only reduce the position of its portfolio in its series, counting the wallet\'s other open reduce-only orders on that side; else refused reduce_only_would_increase' })),
  mmp: Type.Optional(Type.Boolean({ description: 'market maker protection flag: stored and reported (the protection itself is not enforced yet)' })),
  clientOrderId: Type.Optional(Type.String({ pattern: CLIENT_ORDER_ID_PATTERN, description: 'unique among the wallet\'s open orders (else duplicate_client_order_id); echoed in every read and event of the order' })),
};

/** The fields as replies and reads carry them. */
export const InstructionReplyFields = {
  timeInForce: TimeInForceSchema,
  postOnly: Type.Boolean(),
  reduceOnly: Type.Boolean(),
  mmp: Type.Boolean(),
  clientOrderId: Type.Union([Type.String({ pattern: CLIENT_ORDER_ID_PATTERN }), Type.Null()]),
};

export const CancelReasonField = Type.Union([...literals(CANCEL_REASONS), Type.Null()], { description: 'why it ended without filling: user, replace, ioc, fok, self_trade, mmp, disconnect, dead_man, mass_cancel, settlement, admin, expiry (its signed expiry passed), liquidation, nonce_floor (its owner raised its nonce floor on chain); null while open or once filled' });
