/** TypeBox schemas shared by several routes (wire shapes of interface.md). */
import { Type, type TSchema } from '@sinclair/typebox';
import { SIDES } from '../../engine/index.ts';
import { literalUnion } from '../wire/literals.ts';

/** A bytes32 field; the message names the field (`seriesId must be a hex string`). */
export const bytes32 = (field: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'bytes32 hex (0x + 64 hex characters)', errorMessage: `${field} must be a hex string (0x + 64 hex characters)` });
export const Bytes32 = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'bytes32 hex (0x + 64 hex characters)' });
export const AddressSchema = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'address (0x + 40 hex characters)', errorMessage: 'Invalid wallet address' });
export const WadString = Type.String({ pattern: '^-?[0-9]+$', description: 'WAD: 18-decimal fixed point as an integer string' });
export const C6String = Type.String({ pattern: '^-?[0-9]+$', description: 'COLLATERAL6: 6-decimal fixed point as an integer string' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const SeriesSchema = Type.Object({
  seriesId: Bytes32,
  symbol: Type.String({ description: 'canonical symbol UNDERLYING-STRIKE-TYPE-EXPIRY' }),
  pairId: Bytes32,
  pairSymbol: Type.String(),
  strike: WadString,
  expiry: Type.Integer({ description: 'Unix seconds (08:00 UTC)' }),
  isCall: Type.Boolean(),
  isSettled: Type.Boolean(),
  settlementPrice: Nullable(WadString),
});

export const LevelSchema = Type.Object({ price: WadString, size: WadString, orderCount: Type.Integer() });
export const OrderBookSchema = Type.Object({
  symbol: Type.String(),
  seriesId: Bytes32,
  bids: Type.Array(LevelSchema, { description: 'best first' }),
  asks: Type.Array(LevelSchema, { description: 'best first' }),
  timestamp: Type.Integer({ description: 'Unix milliseconds' }),
  seq: Type.Integer({ description: 'book sequence; equals the depth stream seq' }),
});

export const TickerSchema = Type.Object({
  symbol: Type.String(),
  seriesId: Bytes32,
  markPrice: WadString,
  indexPrice: WadString,
  bestBid: Nullable(WadString),
  bestAsk: Nullable(WadString),
  delta: WadString,
  gamma: WadString,
  vega: Type.String({ description: 'WAD, per 1.00 of volatility' }),
  theta: Type.String({ description: 'WAD, per year' }),
  rho: Type.String({ description: 'WAD, per 1.00 of rate' }),
  iv: WadString,
  volume24h: WadString,
  trades24h: Type.Integer(),
  priceChange24h: WadString,
  high24h: Nullable(WadString),
  low24h: Nullable(WadString),
  openInterest: WadString,
  lastTradeAt: Nullable(Type.Integer()),
  isSettled: Type.Boolean(),
  settlementPrice: Nullable(WadString),
});

const ChainSideSchema = Type.Object({
  seriesId: Bytes32,
  symbol: Type.String(),
  markPrice: WadString,
  iv: WadString,
  delta: WadString,
  gamma: WadString,
  vega: Type.String({ description: 'WAD, per 1.00 of volatility' }),
  theta: Type.String({ description: 'WAD, per year' }),
  bestBid: Nullable(WadString),
  bestBidSize: Nullable(WadString),
  bestAsk: Nullable(WadString),
  bestAskSize: Nullable(WadString),
  openInterest: WadString,
  volume24h: WadString,
});

export const ChainSchema = Type.Object({
  pairId: Bytes32,
  underlying: Type.String(),
  expiry: Type.Integer({ description: 'Unix seconds' }),
  expiries: Type.Array(Type.Integer(), { description: 'the live expiries of the pair, ascending' }),
  indexPrice: WadString,
  timestamp: Type.Integer({ description: 'Unix ms' }),
  strikes: Type.Array(Type.Object({ strike: WadString, call: ChainSideSchema, put: ChainSideSchema })),
});

export const TradeSchema = Type.Object({ id: Type.String(), price: WadString, size: WadString, side: literalUnion(SIDES), timestamp: Type.Integer() });

export const OpenInterestSchema = Type.Object({
  pairId: Bytes32,
  symbol: Type.String(),
  callOI: WadString,
  putOI: WadString,
  maxCallOI: WadString,
  maxPutOI: WadString,
  callsRemaining: WadString,
  putsRemaining: WadString,
});

const LiquidationClose = Type.Object({ seriesId: Bytes32, size: WadString, price: WadString, counterparty: Type.Union([Type.Literal('book'), Type.Literal('fund')]) });
/** A liquidation (GET /api/account/liquidations, account@liquidations). */
export const LiquidationSchema = Type.Object({
  id: Type.String({ description: 'liquidation id (1, 2, ... venue-wide)' }),
  portfolioId: Type.Integer(),
  startedAt: Type.Integer({ description: 'Unix seconds' }),
  endedAt: Type.Integer({ description: 'Unix seconds' }),
  trigger: Type.Object({ equity: C6String, maintenanceMargin: Type.String({ description: 'WAD, as in the portfolio detail: maintenance margin counting open orders' }) }),
  cancelledOrders: Type.Array(Bytes32),
  closes: Type.Array(LiquidationClose),
  fee: C6String,
  deficit: C6String,
});
export const InsuranceFundSchema = Type.Object({
  balance: Type.String({ description: "COLLATERAL6: the fund's cash" }),
  badDebt: Type.String({ description: 'COLLATERAL6: deficits the fund could not pay, in total' }),
  liquidations24h: Type.Integer(),
  feesCollected24h: Type.String({ description: 'COLLATERAL6: liquidation fees of the last 24 hours' }),
});

/** Portfolio detail and margin what-if: where the portfolio would be liquidated. */
export const LiquidationSpotSchema = Nullable(Type.String({ pattern: '^[0-9]+$', description: "WAD: the pair's spot at which equity would meet maintenance margin, other inputs fixed; null without positions, with positions on several pairs, or when no spot within a factor of 34 does" }));
