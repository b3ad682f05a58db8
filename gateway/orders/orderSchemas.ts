/**
 * Wire schemas of order entry and RFQ, for the OpenAPI document.
 *
 * Request bodies of the two-phase routes are declared with `docsOnly`: the document shows
 * both phases' shapes, but the framework does not validate them, because every refusal of
 * an order body must carry `details.error: 'OrderValidationError'` (api.md), which the
 * framework's generic 400 does not. orderEntries.ts validates them completely instead.
 */
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { SIDES, CLIENT_ORDER_ID_PATTERN, ORDER_STATUSES } from '../../engine/index.ts';
import { literalUnion } from '../wire/literals.ts';
import { CancelReasonField, InstructionReplyFields, InstructionRequestFields } from './instructionFields.ts';
import { Bytes32, bytes32, Nullable, WadString, AddressSchema } from '../routes/schemas.ts';

/**
 * A body schema shown in the documents but accepting any JSON value at runtime (see
 * above). `type: 'object'` is kept on unions too, so that an empty body reads as `{}` and
 * its missing fields are reported by name.
 */
export function docsOnly(schema: TSchema): TSchema {
  return Type.Unknown({ type: 'object', ...(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>) });
}

const UintString = (description: string) => Type.String({ pattern: '^[0-9]+$', description });
const IdNumberOrString = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), UintString('')], { description });
const Signature = Type.String({ pattern: '^0x[0-9a-fA-F]{128}([0-9a-fA-F]{2})?$', description: 'EIP-712 signature by the authenticated wallet: 65 bytes r||s||v (v 27/28 or 0/1) or 64 bytes EIP-2098; low s' });

export const UnsignedPlaceSchema = Type.Object(
  {
    seriesId: Bytes32,
    isBuy: Type.Boolean(),
    size: Type.String({ description: 'contracts in human units, e.g. "1.5"; a multiple of the pair size step' }),
    price: Type.String({ description: 'premium per contract in human units, e.g. "0.05"; a whole number of ticks' }),
    portfolioId: Type.Optional(IdNumberOrString('required except for MMM wallets, which trade from portfolio 0')),
    expiry: Type.Optional(Type.Integer({ description: 'good-till, Unix seconds; default the series expiry' })),
    deadline: Type.Optional(UintString('signature deadline, Unix seconds; default now + 300')),
    ...InstructionRequestFields,
  },
  { title: 'Unsigned place (phase one)' },
);

export const SignedPlaceSchema = Type.Object(
  {
    seriesId: Bytes32,
    portfolioId: IdNumberOrString('uint256'),
    isBuy: Type.Boolean(),
    tick: Type.Integer({ minimum: 1, maximum: 4294967295, description: 'price x 10^tickDecimals (uint32)' }),
    size: WadString,
    expiry: Type.Integer({ minimum: 0, maximum: 4294967295, description: 'good-till, Unix seconds (uint32)' }),
    nonce: UintString('uint256, unused by this wallet'),
    deadline: UintString('uint256, Unix seconds'),
    signature: Signature,
    ...InstructionRequestFields,
  },
  { title: 'Signed place (phase two): the PlaceOrder message plus its signature, and the order instructions (not signed)' },
);

export const UnsignedCancelSchema = Type.Object(
  { orderId: Bytes32, nonce: Type.Optional(UintString('default: filled in by the server')), deadline: Type.Optional(UintString('default: now + 300')) },
  { title: 'Unsigned cancel (phase one)' },
);
export const SignedCancelSchema = Type.Object({ orderId: Bytes32, nonce: UintString('uint256'), deadline: UintString('uint256'), signature: Signature }, { title: 'Signed cancel (phase two)' });

const ClientOrderIdRef = Type.String({ pattern: CLIENT_ORDER_ID_PATTERN, description: "the clientOrderId of one of the caller's open orders" });
/** `POST /api/mm/orders/cancel`: one cancel-batch entry, naming its order by orderId or by clientOrderId. */
export const OneCancelBody = Type.Union([
  UnsignedCancelSchema,
  Type.Object({ clientOrderId: ClientOrderIdRef, nonce: Type.Optional(UintString('default: filled in by the server')), deadline: Type.Optional(UintString('default: now + 300')) }, { title: 'Unsigned cancel by clientOrderId (phase one)' }),
  SignedCancelSchema,
  Type.Object({ clientOrderId: ClientOrderIdRef, nonce: UintString('uint256'), deadline: UintString('uint256'), signature: Signature }, { title: 'Signed cancel by clientOrderId (phase two; the signed CancelOrder names the orderId phase one returned)' }),
]);

export const PlaceBody = Type.Union([UnsignedPlaceSchema, SignedPlaceSchema]);
export const CancelEntrySchema = Type.Union([UnsignedCancelSchema, SignedCancelSchema]);
export const ReplaceBody = Type.Union([
  Type.Object({ cancel: UnsignedCancelSchema, place: UnsignedPlaceSchema }, { title: 'Unsigned replace' }),
  Type.Object({ cancel: SignedCancelSchema, place: SignedPlaceSchema }, { title: 'Signed replace (both signatures)' }),
]);

const TypeField = Type.Object({ name: Type.String(), type: Type.String() });
export const TypedDataSchema = Type.Object({
  domain: Type.Object({ name: Type.String(), version: Type.String(), chainId: Type.Integer(), verifyingContract: AddressSchema }),
  types: Type.Record(Type.String(), Type.Array(TypeField), { description: 'without EIP712Domain (add it for a raw eth_signTypedData_v4)' }),
  primaryType: Type.String(),
  message: Type.Record(Type.String(), Type.Unknown(), { description: 'uint32 fields as numbers, wider integers as decimal strings' }),
});

export const RelaySchema = Type.Object({
  to: AddressSchema,
  calldata: Type.String({ pattern: '^0x[0-9a-f]*$' }),
  value: Type.Literal('0'),
  chainId: Type.Integer(),
  functionName: Type.String(),
});

const TradeResult = Type.Object({ tradeId: Type.String(), price: WadString, size: WadString });
export const OrderResultSchema = Type.Object({
  orderId: Bytes32,
  status: literalUnion(ORDER_STATUSES),
  filled: WadString,
  remaining: WadString,
  trades: Type.Array(TradeResult),
  ...InstructionReplyFields,
  cancelReason: CancelReasonField,
});

export const relayReply = <const O extends string, E extends TProperties = {}>(operation: O, extra: E = {} as E) =>
  Type.Object(
    {
      mode: Type.Literal('relay'),
      operation: Type.Literal(operation),
      contractAddress: AddressSchema,
      relay: RelaySchema,
      orders: Type.Array(OrderResultSchema, { description: 'what the engine did, after the journal commit' }),
      ...extra,
    },
    { title: 'Relay reply (phase two)' },
  );

export const typedDataReply = <const O extends string, F extends TProperties>(operation: O, fields: F) =>
  Type.Object({ mode: Type.Literal('typed_data'), operation: Type.Literal(operation), contractAddress: AddressSchema, ...fields }, { title: 'Typed-data reply (phase one)' });

export const OrderViewSchema = Type.Object({
  orderId: Bytes32,
  seriesId: Bytes32,
  symbol: Type.String(),
  portfolioId: Type.Integer(),
  side: literalUnion(SIDES),
  price: WadString,
  size: WadString,
  filled: WadString,
  remaining: WadString,
  status: Type.String({ description: 'open, partial, filled, cancelled or expired' }),
  createdAt: Type.Integer({ description: 'Unix seconds' }),
  expiry: Type.Integer({ description: 'good-till, Unix seconds' }),
  reason: Nullable(Type.String({ description: 'why a finished order left the book' })),
  ...InstructionReplyFields,
  cancelReason: CancelReasonField,
  relayTx: Nullable(Type.String({ description: 'the transaction that settled its latest fill on chain (docs/chain.md), or that a chain-indexing provider reported (docs/webhooks.md); null until known' })),
  relayStatus: Nullable(
    Type.Union([Type.Literal('pending'), Type.Literal('included'), Type.Literal('final'), Type.Literal('failed'), Type.Literal('confirmed')], {
      description: "its latest fill's settlement on chain: pending (committed, not yet in a block), included (in a block), final (CONFIRMATIONS deep), failed (the chain refused its batch); confirmed: a provider's report (without a chain); null: nothing to settle",
    }),
  ),
});

export const PlacementFields = { typedData: TypedDataSchema, orderId: Bytes32, ...InstructionReplyFields };
const ReplacementFields = { oldOrderId: Bytes32, cancelTypedData: TypedDataSchema, placeTypedData: TypedDataSchema, orderId: Bytes32, ...InstructionReplyFields };
const CancellationFields = { orderId: Bytes32, typedData: TypedDataSchema };

/**
 * Request body and reply (both phases) of each order operation: the REST routes
 * (routes/orders.ts) and the /ws/private order methods (streams/schemas.ts) declare these.
 */
export const orderOperationSchemas = {
  place: {
    body: PlaceBody,
    reply: Type.Union([typedDataReply('place_order', PlacementFields), relayReply('place_order')]),
  },
  replace: {
    body: ReplaceBody,
    reply: Type.Union([typedDataReply('replace_order', { replacement: Type.Object(ReplacementFields) }), relayReply('replace_order', { cancelled: Type.Array(OrderResultSchema) })]),
  },
  placeBatch: {
    body: Type.Object({ orders: Type.Array(PlaceBody, { minItems: 1, maxItems: 50 }) }),
    reply: Type.Union([
      typedDataReply('place_orders_batch', { placements: Type.Array(Type.Object(PlacementFields)), count: Type.Integer() }),
      relayReply('place_orders_batch', { count: Type.Integer() }),
    ]),
  },
  cancelBatch: {
    body: Type.Object({ cancellations: Type.Array(CancelEntrySchema, { minItems: 1, maxItems: 50 }) }),
    reply: Type.Union([
      typedDataReply('cancel_orders_batch', { cancellations: Type.Array(Type.Object(CancellationFields)), count: Type.Integer() }),
      relayReply('cancel_orders_batch', { count: Type.Integer() }),
    ]),
  },
  cancel: {
    body: OneCancelBody,
    reply: Type.Union([
      typedDataReply('cancel_orders_batch', { cancellations: Type.Array(Type.Object(CancellationFields), { minItems: 1, maxItems: 1 }), count: Type.Literal(1) }),
      relayReply('cancel_orders_batch', { count: Type.Literal(1) }),
    ]),
  },
  replaceBatch: {
    body: Type.Object({ replacements: Type.Array(ReplaceBody, { minItems: 1, maxItems: 50 }) }),
    reply: Type.Union([
      typedDataReply('replace_orders_batch', { replacements: Type.Array(Type.Object(ReplacementFields)), count: Type.Integer() }),
      relayReply('replace_orders_batch', { count: Type.Integer(), cancelled: Type.Array(OrderResultSchema) }),
    ]),
  },
  cancelAll: {
    body: Type.Object({
      pairId: Type.Optional(bytes32('pairId')),
      seriesId: Type.Optional(bytes32('seriesId')),
      side: Type.Optional(literalUnion(SIDES, { errorMessage: 'side must be buy or sell' })),
      portfolioId: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: "the portfolio the orders name (0: a market maker's)" })),
      mmpOnly: Type.Optional(Type.Boolean({ description: 'only orders placed with the `mmp` instruction' })),
    }),
    reply: Type.Object({
      cancelled: Type.Integer(),
      orderIds: Type.Array(Bytes32),
      cancellations: Type.Array(Type.Object(CancellationFields), {
        description:
          'CancelOrder typed data for each cancelled order (a fresh nonce, a deadline 300 s out), to sign and post to cancel-batch later for the on-chain cancel: cancel-batch answers a signed cancel of an order the venue already cancelled with its relay and changes nothing else.',
      }),
    }),
  },
  cancelAfter: {
    body: Type.Object({ timeoutMs: Type.Integer({ minimum: 0, maximum: 600_000, description: '0 (disarm) or 1000..600000', errorMessage: 'timeoutMs must be 0 (disarm) or from 1000 to 600000' }) }),
    reply: Type.Object({ cancelAt: Type.Union([Type.Integer({ description: 'Unix ms' }), Type.Null()]) }),
  },
} as const satisfies Record<string, { body: TSchema; reply: TSchema }>;
