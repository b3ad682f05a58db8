// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// The settlement stream's errors (docs/chain.md "The settlement stream"), declared once at file
// level so that every contract raises the same selectors and an off-chain decoder needs one list.
// Every error about an item names its position in the batch (`item`, from 0); errors of a whole
// batch or of a user call carry the values they compare.

// ---- the batch ----
error NotRelayer(address caller);
error NotOrderBook(address caller);
error BadSeq(uint256 expected, uint256 given);
error MatchTimeBackwards(uint256 last, uint256 given);
error MatchTimeInFuture(uint256 given, uint256 blockTime);
error JournalBackwards(uint256 last, uint256 given);
error BadItem(uint256 item, uint256 kind);
/// A value that fits its field but not the contract's arithmetic (a size of 2^127 or more, a
/// position or premium beyond int128, a price beyond 2^128, a portfolio id beyond 2^64).
error ValueOutOfRange(uint256 item);

// ---- orders and fills ----
error BadSignature(uint256 item, address expected, address recovered);
error NotMmm(uint256 item, address account);
error BelowNonceFloor(uint256 item, address owner, uint256 nonce, uint256 floor);
error NonceFloorNotIncreasing(uint256 item, address owner, uint256 current, uint256 given);
error UnknownOrder(uint256 item, uint256 index);
error SeriesMismatch(uint256 item, bytes32 makerSeries, bytes32 takerSeries);
error SameSide(uint256 item);
error UnknownSeries(uint256 item, bytes32 seriesId);
error SeriesSettled(uint256 item, bytes32 seriesId);
error SeriesExpired(uint256 item, bytes32 seriesId, uint256 expiry);
error ZeroSize(uint256 item);
error PriceOutsideLimit(uint256 item, uint256 price, uint256 limit);
error OrderExpired(uint256 item, bytes32 orderId, uint256 expiry);
error DeadlinePassed(uint256 item, bytes32 orderId, uint256 deadline);
error Overfilled(uint256 item, bytes32 orderId, uint256 filledAfter, uint256 signedSize);
error FeeAboveCap(uint256 item, int256 fee, uint256 cap);

// ---- RFQ ----
error InvalidNonce(uint256 item, uint256 expected, uint256 given);
error QuoteExpired(uint256 item, bytes32 quoteId, uint256 quoteExpiry);
error WrongTaker(uint256 item, address allowed, address taker);
error QuoteOverfilled(uint256 item, bytes32 quoteId, uint256 filledAfter, uint256 size);
error FillQuoteUsed(uint256 item, bytes32 fillId);
error NonceNotIncreasing(uint256 item, uint256 current, uint256 given);

// ---- cash ----
error UnknownDeposit(uint256 item, uint256 depositId);
error FaucetDisabled(uint256 item);
error InsufficientCash(uint256 item, int256 cash, uint256 amount);
error UnknownWithdrawalRequest(uint256 item, uint256 requestId);
error PaidAboveRequested(uint256 item, uint256 requestId, uint256 paid, uint256 requested);

// ---- listings, prices, expiry ----
error AlreadyListed(uint256 item, bytes32 id);
error UnknownPair(uint256 item, bytes32 pairId);
error BadTickDecimals(uint256 item, uint256 tickDecimals);
error BadOracleSignature(uint256 item, address recovered);
error NotExpired(uint256 item, uint256 expiry, uint256 matchTime);
error PriceAlreadyPosted(uint256 item, bytes32 pairId, uint256 expiry);
error NoSettlementPrice(uint256 item, bytes32 pairId, uint256 expiry);
error NotSettled(uint256 item, bytes32 seriesId);
