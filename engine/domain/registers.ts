/**
 * Registers for the doubles that cross a call on a command's hot path.
 *
 * V8 passes arguments and return values as tagged values: a double beyond the small integers
 * (32-bit signed on this build, 31-bit where V8 compresses pointers) that crosses a call the optimising compiler did not inline is boxed, a new heap
 * number (16 bytes) each time. Which calls are inlined depends on the caller's size and on the
 * run (docs/book.md "Allocation per op"), so the hot path does not rely on it: a helper that
 * computes a money figure or a price writes it into a register here and its caller reads it from
 * there, and the arguments are register numbers, small integers, bigints and objects. A register
 * holds one figure of one computation: read it at once, before the next helper of its kind runs.
 * The value-returning forms (`mulDivInDoubles`, `premiumInDoubles`, ...) wrap the register forms
 * for tests and the cold paths.
 *
 * Each register is named for the one figure it carries, so helpers that call each other never
 * write one another's: a helper's own intermediate figures have their own registers.
 */
export const REG = new Float64Array(24);

/** A premium, COLLATERAL6 (premiumAt). */
export const R_PREMIUM = 0;
/** A notional, COLLATERAL6 (notionalAt). */
export const R_NOTIONAL = 1;
/** A taker fee (takerFeeAt). */
export const R_TAKER_FEE = 2;
/** A maker fee (feeAt of the notional at the maker rate). */
export const R_MAKER_FEE = 3;
/** The larger of the two (worstFeeAt). */
export const R_WORST_FEE = 4;
/** takerFeeAt's two parts: by notional, and the cap by premium. */
export const R_FEE_BY_NOTIONAL = 5;
export const R_FEE_CAP = 6;
/** A price in contracts' units as a double (ticks.ts `tickPxAt`). */
export const R_PX = 7;
/** A mark value, COLLATERAL6 (MarginCounts' `markValueAt`). */
export const R_MARK = 8;
/** A maintenance margin, COLLATERAL6 (portfolioFigures.ts `ceilRateAt`). */
export const R_MAINTENANCE = 9;
/** A size in contracts, and a short one (domain/lots.ts `contractsAt`). */
export const R_CONTRACTS = 10;
export const R_SHORT_CONTRACTS = 11;
/** A fill side's premium flow (COLLATERAL6: negative when paying; NaN: only its bigint is exact): position.ts `applyFlow`. */
export const R_FLOW = 12;
/** A position change's realized PnL (NaN: only its bigint is exact). */
export const R_REALIZED = 13;
/** An amount a caller credits or debits (accounts.ts `creditAt`, `debitAt`), and the signed amount those add to a deposit (cashRows.ts `addCashAt`). */
export const R_AMOUNT = 16;
export const R_DEPOSIT_CHANGE = 17;
/** applyFlow's split of a reducing fill: the deferred premium released, and the flow's closing part. */
export const R_RELEASED = 18;
export const R_FLOW_CLOSING = 19;
/** A fee a fill debits (flows/fill.ts). */
export const R_FEE = 20;
/** An argument of a value-returning wrapper, and its result. */
export const R_ARG = 14;
export const R_RESULT = 15;
