// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title Signature recovery as the stream needs it.
/// @notice Only `v` 27 or 28 and low `s` (docs/signatures.md): any other signature recovers to
/// the zero address, which never equals a signer, so the caller's error names what it got.
library Signatures {
    function recover(bytes32 digest, uint8 v, bytes32 r, bytes32 s) internal pure returns (address signer) {
        if (v != 27 && v != 28) return address(0);
        (signer, , ) = ECDSA.tryRecover(digest, v, r, s);
    }
}
