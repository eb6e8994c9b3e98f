// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Fungible} from "./Fungible.sol";
import {Owned} from "./Owned.sol";

/// An ERC20 token whose owner mints and whose holders burn: every fungible
/// token of the devnet, spam and stablecoins included. The initial supply
/// goes to the owner.
contract Token is Fungible, Owned {
    string public name;
    string public symbol;
    uint8 public immutable decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_, uint256 initialSupply)
        Owned(owner_)
    {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        if (initialSupply > 0) _mint(owner_, initialSupply);
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function burn(uint256 amount) external {
        _burn(msg.sender, amount);
    }
}
