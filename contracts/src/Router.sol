// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Factory} from "./Factory.sol";
import {Pair} from "./Pair.sol";

interface IERC20From {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// Swaps along a path of pairs of one factory, as Uniswap V2's router
/// does: the caller approves the router for the first token.
contract Router {
    Factory public immutable factory;

    error Expired(uint256 deadline);
    error ShortPath();
    error NoPair(address tokenA, address tokenB);
    error InsufficientOutput(uint256 out, uint256 minimum);
    error InsufficientLiquidity();
    error TransferFailed(address token);

    constructor(Factory factory_) {
        factory = factory_;
    }

    /// What each hop of `path` gives for `amountIn` of its first token.
    function getAmountsOut(uint256 amountIn, address[] calldata path) public view returns (uint256[] memory amounts) {
        if (path.length < 2) revert ShortPath();
        amounts = new uint256[](path.length);
        amounts[0] = amountIn;
        for (uint256 i = 0; i + 1 < path.length; i++) {
            (uint256 reserveIn, uint256 reserveOut) = _reserves(path[i], path[i + 1]);
            amounts[i + 1] = getAmountOut(amounts[i], reserveIn, reserveOut);
        }
    }

    /// The output of one hop, after the 0.3% fee.
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut) public pure returns (uint256) {
        if (reserveIn == 0 || reserveOut == 0) revert InsufficientLiquidity();
        uint256 withFee = amountIn * 997;
        return withFee * reserveOut / (reserveIn * 1000 + withFee);
    }

    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory amounts) {
        if (block.timestamp > deadline) revert Expired(deadline);
        amounts = getAmountsOut(amountIn, path);
        uint256 out = amounts[amounts.length - 1];
        if (out < amountOutMin) revert InsufficientOutput(out, amountOutMin);
        if (!IERC20From(path[0]).transferFrom(msg.sender, _pair(path[0], path[1]), amountIn)) {
            revert TransferFailed(path[0]);
        }
        for (uint256 i = 0; i + 1 < path.length; i++) {
            (address input, address output) = (path[i], path[i + 1]);
            address recipient = i + 2 < path.length ? _pair(output, path[i + 2]) : to;
            (uint256 out0, uint256 out1) = input < output ? (uint256(0), amounts[i + 1]) : (amounts[i + 1], uint256(0));
            Pair(_pair(input, output)).swap(out0, out1, recipient, "");
        }
    }

    function _pair(address tokenA, address tokenB) private view returns (address pair) {
        pair = factory.getPair(tokenA, tokenB);
        if (pair == address(0)) revert NoPair(tokenA, tokenB);
    }

    function _reserves(address tokenIn, address tokenOut) private view returns (uint256, uint256) {
        (uint112 r0, uint112 r1,) = Pair(_pair(tokenIn, tokenOut)).getReserves();
        return tokenIn < tokenOut ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }
}
