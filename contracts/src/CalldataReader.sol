// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Big-endian fields of packed calldata (the stream's items and ledger entries), read in place.
/// @notice `p` is an absolute calldata offset; each reader returns the field starting there.
library CalldataReader {
    function word(uint256 p) internal pure returns (uint256 v) {
        assembly {
            v := calldataload(p)
        }
    }

    function word32(uint256 p) internal pure returns (bytes32 v) {
        assembly {
            v := calldataload(p)
        }
    }

    function addr(uint256 p) internal pure returns (address a) {
        assembly {
            a := shr(96, calldataload(p))
        }
    }

    function u8(uint256 p) internal pure returns (uint256 v) {
        assembly {
            v := byte(0, calldataload(p))
        }
    }

    function u16(uint256 p) internal pure returns (uint256 v) {
        assembly {
            v := shr(240, calldataload(p))
        }
    }

    function u32(uint256 p) internal pure returns (uint256 v) {
        assembly {
            v := shr(224, calldataload(p))
        }
    }

    function u64(uint256 p) internal pure returns (uint256 v) {
        assembly {
            v := shr(192, calldataload(p))
        }
    }

    function u128(uint256 p) internal pure returns (uint256 v) {
        assembly {
            v := shr(128, calldataload(p))
        }
    }

    /// A signed 16-byte field.
    function i128(uint256 p) internal pure returns (int256 v) {
        assembly {
            v := sar(128, calldataload(p))
        }
    }

    /// The calldata offset of a `bytes calldata`.
    function offsetOf(bytes calldata b) internal pure returns (uint256 o) {
        assembly {
            o := b.offset
        }
    }
}
