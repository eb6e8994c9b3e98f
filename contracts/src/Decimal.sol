// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// Decimal text of an unsigned integer, for token URIs.
library Decimal {
    function text(uint256 value) internal pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 rest = value; rest != 0; rest /= 10) digits++;
        bytes memory buffer = new bytes(digits);
        for (uint256 at = digits; value != 0; value /= 10) {
            at--;
            buffer[at] = bytes1(uint8(48 + value % 10));
        }
        return string(buffer);
    }
}
