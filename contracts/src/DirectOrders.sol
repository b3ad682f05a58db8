// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {BatchItems} from "./BatchItems.sol";

/// @title Orders and cancels a wallet sends to the chain itself (docs/chain.md "Writing to the contracts").
/// @notice The relay replies of the venue's order routes name these functions with the calldata
/// of the signed orders and cancels; a wallet (or anyone holding its signatures) may send that
/// calldata here instead of to the venue. Each signature is recovered in this contract's
/// EIP-712 domain and the call is logged with the signers; nothing else changes here. The
/// venue's indexer takes each log into the engine as the command its REST route makes, once:
/// an order the venue already has, or any the engine refuses, is refused there (the refusal is
/// in the engine's event) and changes nothing. A signature that does not recover reverts.
abstract contract DirectOrders is BatchItems {
    struct PlaceOrder {
        bytes32 seriesId;
        uint256 portfolioId;
        bool isBuy;
        uint32 tick;
        uint128 size;
        uint32 expiry;
        uint256 nonce;
        uint256 deadline;
    }

    struct CancelOrder {
        bytes32 orderId;
        uint256 nonce;
        uint256 deadline;
    }

    /// keccak256("CancelOrder(bytes32 orderId,uint256 nonce,uint256 deadline)")
    bytes32 public constant CANCEL_ORDER_TYPEHASH = keccak256("CancelOrder(bytes32 orderId,uint256 nonce,uint256 deadline)");

    /// Orders placed by a call (`placeOrderSigned`, `batchPlaceOrders`): each one's id, signer and signature.
    event OrdersPlacedDirect(PlaceOrder[] orders, bytes32[] orderIds, address[] owners, bytes[] signatures);
    /// Cancels sent by a call (`batchCancelOrders`): each one's signer and signature.
    event OrdersCancelledDirect(CancelOrder[] cancels, address[] owners, bytes[] signatures);
    /// Replaces sent by a call (`replaceOrderSigned`, `batchReplaceOrders`): pairs, index by index.
    event OrdersReplacedDirect(CancelOrder[] cancels, address[] cancelOwners, bytes[] cancelSignatures, PlaceOrder[] places, bytes32[] placeIds, address[] placeOwners, bytes[] placeSignatures);

    error SignatureCountMismatch(uint256 items, uint256 signatures);

    function placeOrderSigned(PlaceOrder calldata order, bytes calldata signature) external {
        PlaceOrder[] memory orders = new PlaceOrder[](1);
        bytes[] memory signatures = new bytes[](1);
        orders[0] = order;
        signatures[0] = signature;
        (bytes32[] memory ids, address[] memory owners) = _places(orders, signatures);
        emit OrdersPlacedDirect(orders, ids, owners, signatures);
    }

    function batchPlaceOrders(PlaceOrder[] calldata orders, bytes[] calldata signatures) external {
        (bytes32[] memory ids, address[] memory owners) = _places(orders, signatures);
        emit OrdersPlacedDirect(orders, ids, owners, signatures);
    }

    function batchCancelOrders(CancelOrder[] calldata cancels, bytes[] calldata signatures) external {
        emit OrdersCancelledDirect(cancels, _cancels(cancels, signatures), signatures);
    }

    function replaceOrderSigned(CancelOrder calldata cancel, bytes calldata cancelSignature, PlaceOrder calldata place, bytes calldata placeSignature) external {
        CancelOrder[] memory cancels = new CancelOrder[](1);
        bytes[] memory cancelSignatures = new bytes[](1);
        PlaceOrder[] memory places = new PlaceOrder[](1);
        bytes[] memory placeSignatures = new bytes[](1);
        (cancels[0], cancelSignatures[0], places[0], placeSignatures[0]) = (cancel, cancelSignature, place, placeSignature);
        _replaces(cancels, cancelSignatures, places, placeSignatures);
    }

    function batchReplaceOrders(CancelOrder[] calldata cancels, bytes[] calldata cancelSignatures, PlaceOrder[] calldata places, bytes[] calldata placeSignatures) external {
        _replaces(cancels, cancelSignatures, places, placeSignatures);
    }

    function _replaces(CancelOrder[] memory cancels, bytes[] memory cancelSignatures, PlaceOrder[] memory places, bytes[] memory placeSignatures) private {
        if (places.length != cancels.length) revert SignatureCountMismatch(cancels.length, places.length);
        address[] memory cancelOwners = _cancels(cancels, cancelSignatures);
        (bytes32[] memory ids, address[] memory placeOwners) = _places(places, placeSignatures);
        emit OrdersReplacedDirect(cancels, cancelOwners, cancelSignatures, places, ids, placeOwners, placeSignatures);
    }

    function _places(PlaceOrder[] memory orders, bytes[] memory signatures) private view returns (bytes32[] memory ids, address[] memory owners) {
        uint256 n = orders.length;
        if (signatures.length != n) revert SignatureCountMismatch(n, signatures.length);
        ids = new bytes32[](n);
        owners = new address[](n);
        for (uint256 i; i < n; ++i) {
            PlaceOrder memory o = orders[i];
            ids[i] = _typedDataHash(keccak256(abi.encode(PLACE_ORDER_TYPEHASH, o.seriesId, o.portfolioId, o.isBuy, o.tick, o.size, o.expiry, o.nonce, o.deadline)));
            owners[i] = ECDSA.recover(ids[i], signatures[i]);
        }
    }

    function _cancels(CancelOrder[] memory cancels, bytes[] memory signatures) private view returns (address[] memory owners) {
        uint256 n = cancels.length;
        if (signatures.length != n) revert SignatureCountMismatch(n, signatures.length);
        owners = new address[](n);
        for (uint256 i; i < n; ++i) {
            CancelOrder memory c = cancels[i];
            owners[i] = ECDSA.recover(_typedDataHash(keccak256(abi.encode(CANCEL_ORDER_TYPEHASH, c.orderId, c.nonce, c.deadline))), signatures[i]);
        }
    }
}
