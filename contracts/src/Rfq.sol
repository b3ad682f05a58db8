// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {TypedDataDomain} from "./TypedDataDomain.sol";
import {Signatures} from "./Signatures.sol";
import {SeriesInfo} from "./SeriesInfo.sol";
import {CalldataReader as C} from "./CalldataReader.sol";
import {IPositionManager, ISeriesRegistry, RfqTrade} from "./Interfaces.sol";
import {
    NotOrderBook, BadItem, BadSignature, NotMmm, SeriesMismatch, InvalidNonce, QuoteExpired, WrongTaker,
    DeadlinePassed, ZeroSize, QuoteOverfilled, FillQuoteUsed, NonceNotIncreasing
} from "./StreamErrors.sol";

/// @title RFQ quotes and their fills (docs/chain.md, RFQ_FILL and MMM_NONCE; docs/rfq.md).
/// @notice A market maker signs an `RfqQuote`, the taker a `FillQuote` of it, both in the RFQ
/// domain `${serviceName}OptionsRFQ` version 1. This contract checks both, the maker's nonce, the
/// times against the batch's match time and the quote's cumulative fill; the order book books
/// the trade. A `FillQuote` settles once.
contract Rfq is TypedDataDomain {
    struct RfqQuote {
        address mmm;
        address taker;
        bytes32 seriesId;
        bool takerIsBuying;
        uint256 price;
        uint256 size;
        uint256 nonce;
        uint256 quoteExpiry;
        bytes32 pairId;
        uint256 strike;
        uint256 optionExpiry;
        bool isCall;
    }

    bytes32 public constant RFQ_QUOTE_TYPEHASH = keccak256(
        "RfqQuote(address mmm,address taker,bytes32 seriesId,bool takerIsBuying,uint256 price,uint256 size,uint256 nonce,uint256 quoteExpiry,bytes32 pairId,uint256 strike,uint256 optionExpiry,bool isCall)"
    );
    bytes32 public constant FILL_QUOTE_TYPEHASH =
        keccak256("FillQuote(bytes32 quoteId,uint256 portfolioId,uint256 fillSize,uint256 nonce,uint256 deadline)");

    /// @notice The order book, the only caller of the functions that apply items.
    address public immutable orderBook;
    IPositionManager public immutable positionManager;
    ISeriesRegistry public immutable seriesRegistry;

    /// @notice The nonce a market maker's live quotes carry; raising it cancels the older ones.
    mapping(address => uint256) public mmmNonce;
    /// @notice Cumulative fill (WAD) of a quote, by quoteId.
    mapping(bytes32 => uint256) public quoteFilled;
    /// @notice Whether a taker's signed FillQuote (by its EIP-712 digest) has settled.
    mapping(bytes32 => bool) public fillQuoteUsed;

    event MmmNonceIncremented(address indexed mmm, uint256 nonce);
    /// A market maker asked for its nonce to be raised by one (`incrementMmmNonce`).
    event MmmNonceIncrementRequested(address indexed mmm, uint256 nonce);
    event QuoteFilled(bytes32 indexed quoteId, address indexed mmm, address indexed taker, uint256 fillSize, uint256 filled);
    /// A taker's signed fill sent to the chain itself (`fillQuote`), its signer recovered: the venue enters it as its REST route would.
    event QuoteFillDirect(bytes32 indexed quoteId, address indexed taker, uint256 portfolioId, uint256 fillSize, uint256 nonce, uint256 deadline, bytes takerSignature);

    /// A taker's FillQuote (the EIP-712 struct, field for field).
    struct FillQuote {
        bytes32 quoteId;
        uint256 portfolioId;
        uint256 fillSize;
        uint256 nonce;
        uint256 deadline;
    }

    /// `fillQuote` of a quote its market maker did not sign.
    error BadQuoteSignature(bytes32 quoteId);
    /// `fillQuote` with a FillQuote of another quote.
    error FillOfAnotherQuote(bytes32 quoteId, bytes32 named);

    modifier onlyOrderBook() {
        if (msg.sender != orderBook) revert NotOrderBook(msg.sender);
        _;
    }

    constructor(string memory serviceName, address domainAddress, address orderBook_, address positionManager_, address seriesRegistry_)
        TypedDataDomain(string.concat(serviceName, "OptionsRFQ"), domainAddress)
    {
        orderBook = orderBook_;
        positionManager = IPositionManager(positionManager_);
        seriesRegistry = ISeriesRegistry(seriesRegistry_);
    }

    /// @notice The quoteId: the EIP-712 digest of the signed RfqQuote.
    function quoteId(RfqQuote memory q) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(
            RFQ_QUOTE_TYPEHASH, q.mmm, q.taker, q.seriesId, q.takerIsBuying, q.price, q.size, q.nonce, q.quoteExpiry,
            q.pairId, q.strike, q.optionExpiry, q.isCall
        )));
    }

    /// @notice The EIP-712 digest of a taker's FillQuote.
    function fillQuoteId(bytes32 quoteId_, uint256 portfolioId, uint256 fillSize, uint256 nonce, uint256 deadline)
        public
        view
        returns (bytes32)
    {
        return _typedDataHash(keccak256(abi.encode(FILL_QUOTE_TYPEHASH, quoteId_, portfolioId, fillSize, nonce, deadline)));
    }

    /// @notice The relay reply of `POST /api/rfq/fill`, sent by the taker's wallet itself
    /// (docs/chain.md "Writing to the contracts"): checks the market maker's signature of the
    /// quote and that the fill names it, recovers the taker and logs the fill; the venue's
    /// indexer enters it as the route would (its engine refuses what the route refuses, a
    /// duplicate included). Nothing settles here: the fill settles in the stream.
    function fillQuote(RfqQuote calldata quote, bytes calldata mmSignature, FillQuote calldata fill, bytes calldata takerSignature) external {
        bytes32 id = quoteId(quote);
        if (!verifySignature(quote, mmSignature)) revert BadQuoteSignature(id);
        if (fill.quoteId != id) revert FillOfAnotherQuote(id, fill.quoteId);
        address taker = ECDSA.recoverCalldata(fillQuoteId(id, fill.portfolioId, fill.fillSize, fill.nonce, fill.deadline), takerSignature);
        emit QuoteFillDirect(id, taker, fill.portfolioId, fill.fillSize, fill.nonce, fill.deadline, takerSignature);
    }

    /// @notice Whether `signature` (65 bytes, or 64 bytes EIP-2098) is the quote's market maker's.
    function verifySignature(RfqQuote calldata quote, bytes calldata signature) public view returns (bool) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(quoteId(quote), signature);
        return err == ECDSA.RecoverError.NoError && recovered == quote.mmm;
    }

    /// @notice A quote's cumulative fill, what is left of it, and whether it could fill now: signed
    /// by its market maker, who is one, at its current nonce, not expired, not filled up.
    function getQuoteStatus(RfqQuote calldata quote, bytes calldata signature)
        external
        view
        returns (uint256 filled, uint256 remaining, bool valid)
    {
        filled = quoteFilled[quoteId(quote)];
        remaining = quote.size > filled ? quote.size - filled : 0;
        valid = remaining > 0 && block.timestamp < quote.quoteExpiry && quote.nonce == mmmNonce[quote.mmm]
            && positionManager.isMmm(quote.mmm) && verifySignature(quote, signature);
    }

    /// @notice Asks the venue to raise the caller's nonce by one, cancelling every quote signed
    /// at the current one (the interface's only way to cancel quotes, here from the market
    /// maker's own wallet). Queued as a log: the venue's indexer sees it, the engine refuses
    /// fills of the older quotes at once, and the stream's MMM_NONCE item sets `mmmNonce`. The
    /// log names the nonce in force when it was asked.
    function incrementMmmNonce() external {
        emit MmmNonceIncrementRequested(msg.sender, mmmNonce[msg.sender]);
    }

    /// @notice MMM_NONCE: raises a market maker's nonce, cancelling its quotes signed at a lower one.
    function setMmmNonce(uint256 item, address mmm, uint256 nonce) external onlyOrderBook {
        uint256 current = mmmNonce[mmm];
        if (nonce <= current) revert NonceNotIncreasing(item, current, nonce);
        mmmNonce[mmm] = nonce;
        emit MmmNonceIncremented(mmm, nonce);
    }

    /// @notice RFQ_FILL: checks a fill (the item's bytes, kind first) against its quote and the
    /// batch's match time, records it and returns the trade for the order book to book.
    function applyFill(uint256 item, uint256 matchTime, bytes calldata f) external onlyOrderBook returns (RfqTrade memory t) {
        uint256 o = C.offsetOf(f);
        RfqQuote memory q = _readQuote(item, o);
        bytes32 qid = quoteId(q);
        {
            (uint8 v, bytes32 r, bytes32 s) = _sig(o + 299);
            address recovered = Signatures.recover(qid, v, r, s);
            if (recovered != q.mmm) revert BadSignature(item, q.mmm, recovered);
        }
        if (!positionManager.isMmm(q.mmm)) revert NotMmm(item, q.mmm);
        {
            bytes32 computed = keccak256(abi.encode(q.pairId, q.strike, q.optionExpiry, q.isCall));
            if (computed != q.seriesId) revert SeriesMismatch(item, q.seriesId, computed);
        }
        SeriesInfo.requireLive(seriesRegistry.seriesInfo(q.seriesId), item, q.seriesId, matchTime);
        if (q.nonce != mmmNonce[q.mmm]) revert InvalidNonce(item, mmmNonce[q.mmm], q.nonce);
        if (matchTime >= q.quoteExpiry) revert QuoteExpired(item, qid, q.quoteExpiry);
        t.mmm = q.mmm;
        t.seriesId = q.seriesId;
        t.takerIsBuying = q.takerIsBuying;
        t.price = q.price;
        t.taker = C.addr(o + 364);
        if (q.taker != address(0) && q.taker != t.taker) revert WrongTaker(item, q.taker, t.taker);
        t.portfolioId = C.word(o + 384);
        t.fillSize = C.word(o + 416);
        bytes32 fid = fillQuoteId(qid, t.portfolioId, t.fillSize, C.word(o + 448), C.word(o + 480));
        {
            (uint8 v, bytes32 r, bytes32 s) = _sig(o + 512);
            address recovered = Signatures.recover(fid, v, r, s);
            if (recovered != t.taker) revert BadSignature(item, t.taker, recovered);
        }
        if (matchTime > C.word(o + 480)) revert DeadlinePassed(item, fid, C.word(o + 480));
        if (t.portfolioId == 0 && !positionManager.isMmm(t.taker)) revert NotMmm(item, t.taker);
        if (t.fillSize == 0) revert ZeroSize(item);
        uint256 filled = quoteFilled[qid] + t.fillSize;
        if (filled > q.size) revert QuoteOverfilled(item, qid, filled, q.size);
        if (fillQuoteUsed[fid]) revert FillQuoteUsed(item, fid);
        quoteFilled[qid] = filled;
        fillQuoteUsed[fid] = true;
        emit QuoteFilled(qid, q.mmm, t.taker, t.fillSize, filled);
    }

    function _readQuote(uint256 item, uint256 o) private pure returns (RfqQuote memory q) {
        q.mmm = C.addr(o + 1);
        q.taker = C.addr(o + 21);
        q.seriesId = bytes32(C.word(o + 41));
        q.takerIsBuying = _bool(item, o + 73);
        q.price = C.word(o + 74);
        q.size = C.word(o + 106);
        q.nonce = C.word(o + 138);
        q.quoteExpiry = C.word(o + 170);
        q.pairId = bytes32(C.word(o + 202));
        q.strike = C.word(o + 234);
        q.optionExpiry = C.word(o + 266);
        q.isCall = _bool(item, o + 298);
    }

    function _bool(uint256 item, uint256 p) private pure returns (bool) {
        uint256 b = C.u8(p);
        if (b > 1) revert BadItem(item, 0x05);
        return b == 1;
    }

    /// r 32, s 32, v 1 at `p`.
    function _sig(uint256 p) private pure returns (uint8 v, bytes32 r, bytes32 s) {
        return (uint8(C.u8(p + 64)), C.word32(p), C.word32(p + 32));
    }
}
