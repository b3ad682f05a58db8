/**
 * Wire shapes of every WebSocket message, as TypeBox schemas: the AsyncAPI document at
 * `/asyncapi/json` is generated from them (streamsAsyncApi.ts) and the tests validate
 * the frames the server really sends against the same schemas.
 *
 * Amounts are integer strings in fixed point (WAD or COLLATERAL6, api.md "Wire
 * conventions"); WebSocket timestamps are ISO 8601 (interface.md "Conventions").
 */
import { CancelReasonField, InstructionReplyFields } from '../orders/instructionFields.ts';
import { Type, type TSchema } from '@sinclair/typebox';
import { TRADE_SOURCES, SIDES, ORDER_STATUSES } from '../../engine/index.ts';
import { literalUnion } from '../wire/literals.ts';
import { AddressSchema, Bytes32, C6String, LiquidationSchema, Nullable, TickerSchema, WadString } from '../routes/schemas.ts';

const Iso = Type.String({ format: 'date-time', description: 'ISO 8601' });
const Side = literalUnion(SIDES);
const RequestId = Type.Union([Type.Number(), Type.String(), Type.Null()], { description: 'the `id` the client sent, or null' });
const Level = Type.Tuple([WadString, WadString], { description: '[price WAD, size WAD]; size "0" removes the level' });

/** A data frame on a public or private channel. */
export function dataFrame(channel: TSchema, data: TSchema): TSchema {
  return Type.Object({ channel, data }, { description: 'data frame' });
}

export const channelString = (pattern: string, description: string) => Type.String({ pattern, description });

// ---- control (every stream) -------------------------------------------------------------

export const SubscribeMessage = Type.Object({
  method: Type.Union([Type.Literal('SUBSCRIBE'), Type.Literal('UNSUBSCRIBE')]),
  params: Type.Array(Type.String(), { minItems: 1, description: 'channel names (case-insensitive)' }),
  id: Type.Optional(RequestId),
});
export const ListMessage = Type.Object({ method: Type.Literal('LIST_SUBSCRIPTIONS'), id: Type.Optional(RequestId) });
export const PingMessage = Type.Object({ method: Type.Literal('PING'), id: Type.Optional(RequestId) });

export const AckReply = Type.Object({
  result: Type.Null(),
  id: RequestId,
  channels: Type.Optional(Type.Array(Type.String(), { description: 'canonical names of the channels the request named (extension)' })),
});
export const ListReply = Type.Object({ result: Type.Array(Type.String(), { description: 'canonical channel names' }), id: RequestId });
export const PongReply = Type.Object({ result: Type.Literal('PONG'), id: RequestId });
export const ErrorReply = Type.Object({
  error: Type.Object({ code: Type.Integer({ description: '4000 bad request, 4001 unauthenticated, 4003 forbidden, 4004 unknown channel, 4029 limit' }), msg: Type.String() }),
  id: RequestId,
});

// ---- order entry on /ws/private (orderMethods.ts) ---------------------------------------

/** An order method: its REST route's body as `params`. */
export const orderMethodMessage = (method: string, params: TSchema, route: string) =>
  Type.Object({ method: Type.Literal(method), params, id: Type.Optional(RequestId) }, { description: `the body of ${route}, unsigned (phase one) or signed (phase two)` });
/** The answer to an order method: its REST route's 200 body. */
export const orderMethodResult = (reply: TSchema, route: string) => Type.Object({ result: reply, id: RequestId }, { description: `the 200 body of ${route}, sent after the journal commit` });
const DisconnectScope = Type.Union([Type.Literal('connection'), Type.Literal('wallet')], { description: "connection: the open orders placed through this socket; wallet: all the wallet's open orders" });
/** SET_CANCEL_ON_DISCONNECT (cancelOnDisconnect.ts). */
export const SetCancelOnDisconnectMessage = Type.Object({
  method: Type.Literal('SET_CANCEL_ON_DISCONNECT'),
  params: Type.Object({ enabled: Type.Boolean(), scope: Type.Optional(DisconnectScope) }),
  id: Type.Optional(RequestId),
});
export const SetCancelOnDisconnectResult = Type.Object({ result: Type.Object({ enabled: Type.Boolean(), scope: DisconnectScope }), id: RequestId });
export const OrderMethodError = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'the REST error code: invalid_argument, failed_precondition, permission_denied (no scope trade), not_found, resource_exhausted (orders budget), internal, unavailable' }),
      status: Type.Integer({ description: 'the HTTP status REST answers with' }),
      message: Type.String(),
      details: Nullable(Type.Object({}, { additionalProperties: true, description: 'the REST details; resource_exhausted adds retryAfterMs' })),
    }),
    id: RequestId,
  },
  { description: 'an order method refused: the REST error and its status; the connection stays open' },
);

// ---- public channels --------------------------------------------------------------------

export const DepthSnapshot = Type.Object({
  type: Type.Literal('snapshot'),
  symbol: Type.String(),
  seriesId: Bytes32,
  seq: Type.Integer({ minimum: 0, description: 'book sequence; the next delta has prevSeq = seq' }),
  bids: Type.Array(Level, { description: 'best first, every level' }),
  asks: Type.Array(Level, { description: 'best first, every level' }),
  timestamp: Iso,
});
export const DepthDelta = Type.Object({
  type: Type.Literal('delta'),
  seq: Type.Integer({ minimum: 1 }),
  prevSeq: Type.Integer({ minimum: 0, description: 'seq of the previous delta (or of the snapshot); a mismatch means a gap: re-subscribe' }),
  bids: Type.Array(Level, { description: 'changed levels with their new size' }),
  asks: Type.Array(Level, { description: 'changed levels with their new size' }),
  timestamp: Iso,
});
export const TickerData = TickerSchema;
export const TradeData = Type.Object({
  id: Type.String(),
  seriesId: Bytes32,
  symbol: Type.String(),
  price: WadString,
  size: WadString,
  side: literalUnion(SIDES, { description: "the taker's side" }),
  timestamp: Iso,
});
export const IndexData = Type.Object({
  pairId: Bytes32,
  symbol: Type.String(),
  price: WadString,
  volatility: WadString,
  riskFreeRate: WadString,
  timestamp: Iso,
});
export const RfqCreatedData = Type.Object({
  type: Type.Literal('rfq_created'),
  requestId: Bytes32,
  pairId: Bytes32,
  seriesId: Bytes32,
  expiresAt: Iso,
  timestamp: Iso,
});
export const RfqResolvedData = Type.Object({
  type: Type.Literal('rfq_resolved'),
  requestId: Bytes32,
  status: Type.Union([Type.Literal('filled'), Type.Literal('expired'), Type.Literal('cancelled')]),
  quoteId: Nullable(Bytes32),
  timestamp: Iso,
});

// ---- authentication (/ws/private, /ws/rfq/mm) -----------------------------------------------

export const AuthTokenMessage = Type.Object({ type: Type.Literal('AUTH'), token: Type.String({ description: 'bearer token from the SIWE login' }) });
export const AuthApiKeyMessage = Type.Object({
  type: Type.Literal('AUTH'),
  apiKey: Type.String({ description: 'key id' }),
  timestamp: Type.Union([Type.Integer(), Type.String({ pattern: '^[0-9]+$' })], { description: 'Unix milliseconds, within 30 s of server time' }),
  signature: Type.String({ description: 'lowercase hex HMAC-SHA256 of the timestamp string, keyed with the secret' }),
});
export const AuthSuccess = Type.Object({ type: Type.Literal('AUTH_SUCCESS'), userId: Type.String(), address: AddressSchema });
export const AuthFailed = Type.Object({
  type: Type.Literal('AUTH_FAILED'),
  code: Type.Union([Type.Literal('unauthenticated'), Type.Literal('permission_denied')]),
  message: Type.String(),
});

// ---- private channels -----------------------------------------------------------------------

const Tx = Type.String({ pattern: '^0x[0-9a-f]{64}$' });
/** With a settlement chain (CHAIN other than none) a fill is `pending` when it happens; account@settlement follows it. */
const RelayFields = {
  relayStatus: Type.Optional(Type.Literal('pending', { description: 'with a settlement chain: the fill is not yet on chain (account@settlement follows it)' })),
  relayTx: Type.Optional(Type.Null()),
};
export const SettlementData = Type.Object({
  batch: Type.Integer({ minimum: 1, description: "the settlement stream's seq (docs/chain.md)" }),
  relayStatus: Type.Union([Type.Literal('included'), Type.Literal('final'), Type.Literal('failed')]),
  relayTx: Nullable(Tx),
  tradeIds: Type.Array(Type.String(), { description: "the caller's trades in the batch" }),
  orderIds: Type.Array(Bytes32, { description: 'the orders of the caller those trades filled' }),
  reason: Nullable(Type.String({ description: 'failed: the item the chain refused and why' })),
  timestamp: Iso,
});

export const TraderFill = Type.Object({
  tradeId: Type.String(),
  symbol: Type.String(),
  side: Side,
  size: WadString,
  price: WadString,
  fee: C6String,
  timestamp: Iso,
  seriesId: Bytes32,
  portfolioId: Type.Integer(),
  orderId: Nullable(Bytes32),
  liquidity: Type.Literal('taker'),
  source: literalUnion(TRADE_SOURCES, { description: 'liquidation: the insurance fund took over a liquidated position' }),
  ...RelayFields,
});
export const MakerFill = Type.Object({
  tradeId: Type.String(),
  seriesId: Bytes32,
  size: WadString,
  price: WadString,
  side: Type.Literal('maker'),
  timestamp: Iso,
  symbol: Type.String(),
  direction: literalUnion(SIDES, { description: "the maker's own side (extension)" }),
  fee: C6String,
  portfolioId: Type.Integer(),
  orderId: Nullable(Bytes32),
  liquidity: Type.Literal('maker'),
  source: literalUnion(TRADE_SOURCES, { description: 'liquidation: the insurance fund took over a liquidated position' }),
  ...RelayFields,
});
export const PositionData = Type.Object({
  portfolioId: Type.Integer(),
  seriesId: Bytes32,
  symbol: Type.String(),
  size: Type.String({ pattern: '^-?[0-9]+$', description: 'signed WAD balance after the change' }),
  unrealizedPnl: C6String,
  timestamp: Iso,
});
export const PortfolioData = Type.Object({
  portfolioId: Type.Integer(),
  deposit: C6String,
  equity: C6String,
  unrealizedPnl: C6String,
  initialMargin: WadString,
  maintenanceMargin: WadString,
  healthRatio: WadString,
  isHealthy: Type.Boolean(),
  isLiquidatable: Type.Boolean(),
  maxWithdraw: C6String,
  positionCount: Type.Integer(),
  timestamp: Iso,
});
export const OrderData = Type.Object({
  orderId: Bytes32,
  seriesId: Bytes32,
  symbol: Type.String(),
  status: literalUnion(ORDER_STATUSES),
  filled: WadString,
  remaining: WadString,
  reason: Nullable(Type.String({ description: 'why it was cancelled or expired' })),
  ...InstructionReplyFields,
  cancelReason: CancelReasonField,
  timestamp: Iso,
});

export const MmpData = Type.Object({
  pairId: Bytes32,
  frozen: Type.Boolean(),
  frozenUntil: Nullable(Type.Integer({ description: 'Unix ms; null when not frozen or frozen until a reset' })),
  reason: Nullable(Type.Union(['qty', 'delta', 'vega', 'trades'].map((s) => Type.Literal(s)), { description: 'the limit that tripped it, while frozen' })),
  window: Type.Object({ qty: WadString, delta: WadString, vega: WadString, trades: Type.Integer() }, { description: 'sums of |size|, |delta x size|, |vega x size| (WAD) and the number of fills in the window' }),
  timestamp: Iso,
});

export const LiquidationData = Type.Composite([LiquidationSchema, Type.Object({ timestamp: Iso })]);
export const GlobalLiquidationData = Type.Object({
  seriesId: Bytes32,
  side: literalUnion(SIDES, { description: 'what the venue did for the liquidated portfolio: sell closes a long, buy a short' }),
  size: WadString,
  price: WadString,
  timestamp: Iso,
});

/** A committed command on global@journal (PUBLIC_JOURNAL=1): the entry GET /api/journal pages. */
export const JournalEntryData = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  ts: Type.Integer({ description: 'Unix ms: the venue time the command carries' }),
  type: Type.String({ description: 'the command type' }),
  frame: Type.String({ description: "the command in the journal's codec, base64 (what the audit replays)" }),
  command: Type.Object({}, { additionalProperties: true, description: 'the command in JSON, bigints as decimal strings' }),
});

// ---- RFQ market-maker stream ------------------------------------------------------------------

export const RfqRequestMessage = Type.Object({
  type: Type.Literal('rfq_request'),
  requestId: Bytes32,
  pairId: Bytes32,
  seriesId: Bytes32,
  strike: WadString,
  optionExpiry: Type.Integer({ description: 'Unix seconds' }),
  isCall: Type.Boolean(),
  size: WadString,
  takerIsBuying: Type.Boolean(),
  expiresAt: Iso,
});
export const RfqResolvedMessage = Type.Object({
  type: Type.Literal('rfq_resolved'),
  requestId: Bytes32,
  status: Type.Union([Type.Literal('filled'), Type.Literal('expired'), Type.Literal('cancelled')]),
  quoteId: Nullable(Bytes32),
});
export const RfqResponseMessage = Type.Object({
  type: Type.Literal('rfq_response'),
  requestId: Bytes32,
  quote: Type.Object({
    mmm: AddressSchema,
    taker: AddressSchema,
    seriesId: Bytes32,
    takerIsBuying: Type.Boolean(),
    price: WadString,
    size: WadString,
    nonce: Type.String({ pattern: '^[0-9]+$' }),
    quoteExpiry: Type.Integer({ description: 'Unix seconds, at most 30 s ahead' }),
    pairId: Bytes32,
    strike: WadString,
    optionExpiry: Type.Integer(),
    isCall: Type.Boolean(),
  }),
  signature: Type.String({ pattern: '^0x[0-9a-fA-F]+$', description: 'EIP-712 signature of the RfqQuote by the MMM' }),
});
export const RfqResponseAck = Type.Object({
  type: Type.Literal('rfq_response_ack'),
  requestId: Bytes32,
  quoteId: Bytes32,
  status: Type.Literal('active'),
  expiresAt: Iso,
});
export const RfqErrorMessage = Type.Object({
  type: Type.Literal('error'),
  code: Type.String({ description: 'an error code of the REST API (invalid_argument, failed_precondition, permission_denied, not_found, unavailable, ...)' }),
  message: Type.String(),
  requestId: Nullable(Type.String()),
  details: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
});

// ---- /ws/monitor (monitorStream.ts) -----------------------------------------------------

const ConnectionsByStream = Type.Object(
  { public: Type.Integer(), private: Type.Integer(), rfq: Type.Integer(), monitor: Type.Integer() },
  { description: 'open WebSocket connections per stream' },
);
export const HealthData = Type.Object({
  timestamp: Type.Integer({ description: 'Unix ms of the tick' }),
  commandsPerSecond: Type.Number({ description: 'commands committed since the previous tick, per second between the two' }),
  commands: Type.Integer({ description: 'commands committed since the previous tick' }),
  journalCommitP99Ms: Nullable(Type.Number({ description: '99th percentile of journal commit times since the previous tick (ms); null when nothing was committed' })),
  eventLoopLagMs: Type.Object({ p99: Type.Number(), max: Type.Number() }, { description: 'event-loop delay since the previous tick (ms)' }),
  connections: ConnectionsByStream,
  openOrders: Type.Integer({ description: 'open orders of every wallet' }),
  heap: Type.Object({ usedBytes: Type.Integer(), totalBytes: Type.Integer() }),
});
export const AlertData = Type.Object({
  id: Type.Integer({ description: 'increasing per process: an alert sent twice (recent alerts on subscribe) has the same id' }),
  kind: Type.String({ description: 'mmp_trip, slow_consumer, rate_limit_storm, journal_error, recovery (others may be added, e.g. bad_debt)' }),
  severity: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]),
  message: Type.String(),
  details: Nullable(Type.Record(Type.String(), Type.Unknown())),
  timestamp: Type.Integer({ description: 'Unix ms' }),
});
