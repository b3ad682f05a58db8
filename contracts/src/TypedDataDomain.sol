// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title An EIP-712 domain fixed at construction.
/// @notice The separator is computed once, in the constructor, and kept in an immutable: the
/// venue installs runtime code at published addresses (docs/chain.md "Operations"), so a domain
/// may not depend on storage written by a constructor nor on the address the code was built at.
/// `domainAddress` is the verifying contract the domain names: the published address when the
/// runtime code is built for one, zero for an ordinary CREATE deployment (then `address(this)`).
abstract contract TypedDataDomain {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    bytes32 internal immutable _domainSeparator;

    constructor(string memory name, address domainAddress) {
        address verifying = domainAddress == address(0) ? address(this) : domainAddress;
        _domainSeparator = keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256("1"), block.chainid, verifying));
    }

    /// @notice The EIP-712 domain separator this contract verifies signatures against.
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparator;
    }

    /// @dev `keccak256("\x19\x01" || domainSeparator || structHash)`.
    function _typedDataHash(bytes32 structHash) internal view returns (bytes32 digest) {
        bytes32 separator = _domainSeparator;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, hex"1901")
            mstore(add(ptr, 0x02), separator)
            mstore(add(ptr, 0x22), structHash)
            digest := keccak256(ptr, 0x42)
        }
    }
}
