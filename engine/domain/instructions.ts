/**
 * Order instructions (docs/order-entry.md "Order instructions"): fields beside the signed
 * PlaceOrder, not part of its EIP-712 struct, so an order's id stays the PlaceOrder hash.
 * The engine holds them complete; the edge fills the defaults.
 */

export const TIME_IN_FORCE = ['GTC', 'IOC', 'FOK'] as const;
/** GTC rests until the signed expiry; IOC cancels the unfilled rest; FOK fills all at once or nothing. */
export type TimeInForce = (typeof TIME_IN_FORCE)[number];

export type OrderInstructions = {
  readonly timeInForce: TimeInForce;
  /** Refused `post_only_would_take` when it would take; never takes. */
  readonly postOnly: boolean;
  /** May only reduce the absolute position of its portfolio in its series (docs/engine.md). */
  readonly reduceOnly: boolean;
  /** Stored and reported only (market maker protection is a later issue). */
  readonly mmp: boolean;
  /** The client's own name for the order, unique among the wallet's open orders; null when none. */
  readonly clientOrderId: string | null;
};

/** The instructions of an order that names none: one shared frozen object, no allocation per order. */
export const DEFAULT_INSTRUCTIONS: OrderInstructions = Object.freeze({ timeInForce: 'GTC', postOnly: false, reduceOnly: false, mmp: false, clientOrderId: null });

/** 1-36 characters of `[A-Za-z0-9_-]`. */
export const CLIENT_ORDER_ID_PATTERN = '^[A-Za-z0-9_-]{1,36}$';
const CLIENT_ORDER_ID = new RegExp(CLIENT_ORDER_ID_PATTERN);

export function isClientOrderId(s: string): boolean {
  return CLIENT_ORDER_ID.test(s);
}

/** The instructions an optional partial set stands for (defaults filled; the shared default when all are default). */
export function instructionsOf(x: { readonly [K in keyof OrderInstructions]?: OrderInstructions[K] | undefined } | undefined | null): OrderInstructions {
  if (x === undefined || x === null) return DEFAULT_INSTRUCTIONS;
  const timeInForce = x.timeInForce ?? 'GTC';
  const postOnly = x.postOnly ?? false;
  const reduceOnly = x.reduceOnly ?? false;
  const mmp = x.mmp ?? false;
  const clientOrderId = x.clientOrderId ?? null;
  if (timeInForce === 'GTC' && !postOnly && !reduceOnly && !mmp && clientOrderId === null) return DEFAULT_INSTRUCTIONS;
  return { timeInForce, postOnly, reduceOnly, mmp, clientOrderId };
}

/**
 * Why an order ended without filling (docs/events.md): `user` (a cancel command), `replace`
 * (the cancel half of a replace), `ioc` and `fok` (the unfilled rest of such an order),
 * `self_trade` (self-trade prevention removed the resting order), `mmp` (market maker
 * protection tripped), `disconnect` (cancel on disconnect), `dead_man` (the dead-man switch),
 * `mass_cancel`, `settlement` (its series expired or settled; status `expired`), `admin`,
 * `expiry` (its own signed expiry passed; status `expired`), `liquidation` (the liquidation
 * pass cancelled the portfolio's open orders), `nonce_floor` (its owner raised its nonce
 * floor on chain).
 */
export const CANCEL_REASONS = ['user', 'replace', 'ioc', 'fok', 'self_trade', 'mmp', 'disconnect', 'dead_man', 'mass_cancel', 'settlement', 'admin', 'expiry', 'liquidation', 'nonce_floor'] as const;
/** One of CANCEL_REASONS: the wire's schemas are built from the list, so a reason added here is in every document. */
export type CancelReason = (typeof CANCEL_REASONS)[number];
