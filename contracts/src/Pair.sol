// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Fungible} from "./Fungible.sol";

interface IERC20Balance {
    function balanceOf(address holder) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

/// A constant-product pair of two tokens, as Uniswap V2 defines one: its
/// liquidity shares are an ERC20, swaps keep reserve0 * reserve1 from
/// falling after a 0.3% fee, and every change of reserves is a `Sync`
/// event (from which the devnet and node mode read prices).
contract Pair is Fungible {
    uint256 public constant MINIMUM_LIQUIDITY = 1000;
    /// Where the first shares are locked, so that no pair is ever emptied.
    address private constant LOCKED = 0x000000000000000000000000000000000000dEaD;

    string public constant name = "w3api LP";
    string public constant symbol = "W3-LP";
    uint8 public constant decimals = 18;

    address public immutable factory;
    address public immutable token0;
    address public immutable token1;
    uint112 private reserve0;
    uint112 private reserve1;
    uint32 private blockTimestampLast;
    bool private entered;

    event Mint(address indexed sender, uint256 amount0, uint256 amount1);
    event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to);
    event Swap(
        address indexed sender,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out,
        address indexed to
    );
    event Sync(uint112 reserve0, uint112 reserve1);

    error Reentered();
    error InsufficientLiquidityMinted();
    error InsufficientLiquidityBurned();
    error InsufficientOutput();
    error InsufficientLiquidity();
    error InsufficientInput();
    error InvalidTo(address to);
    error ConstantProductBroken();
    error Overflow();
    error FlashSwapsUnsupported();
    error TransferFailed(address token, address to, uint256 amount);

    constructor(address token0_, address token1_) {
        factory = msg.sender;
        token0 = token0_;
        token1 = token1_;
    }

    modifier lock() {
        if (entered) revert Reentered();
        entered = true;
        _;
        entered = false;
    }

    function getReserves() public view returns (uint112, uint112, uint32) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    /// Shares for the tokens sent to the pair since its last update.
    function mint(address to) external lock returns (uint256 liquidity) {
        (uint112 r0, uint112 r1,) = getReserves();
        uint256 balance0 = IERC20Balance(token0).balanceOf(address(this));
        uint256 balance1 = IERC20Balance(token1).balanceOf(address(this));
        uint256 amount0 = balance0 - r0;
        uint256 amount1 = balance1 - r1;
        uint256 supply = totalSupply;
        if (supply == 0) {
            liquidity = _sqrt(amount0 * amount1) - MINIMUM_LIQUIDITY;
            _mint(LOCKED, MINIMUM_LIQUIDITY);
        } else {
            liquidity = _min(amount0 * supply / r0, amount1 * supply / r1);
        }
        if (liquidity == 0) revert InsufficientLiquidityMinted();
        _mint(to, liquidity);
        _update(balance0, balance1);
        emit Mint(msg.sender, amount0, amount1);
    }

    /// The tokens of the shares sent to the pair, to `to`.
    function burn(address to) external lock returns (uint256 amount0, uint256 amount1) {
        uint256 balance0 = IERC20Balance(token0).balanceOf(address(this));
        uint256 balance1 = IERC20Balance(token1).balanceOf(address(this));
        uint256 liquidity = balanceOf[address(this)];
        uint256 supply = totalSupply;
        amount0 = liquidity * balance0 / supply;
        amount1 = liquidity * balance1 / supply;
        if (amount0 == 0 || amount1 == 0) revert InsufficientLiquidityBurned();
        _burn(address(this), liquidity);
        _send(token0, to, amount0);
        _send(token1, to, amount1);
        _update(IERC20Balance(token0).balanceOf(address(this)), IERC20Balance(token1).balanceOf(address(this)));
        emit Burn(msg.sender, amount0, amount1, to);
    }

    /// Sends the amounts out for the tokens sent in since the last update.
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external lock {
        if (amount0Out == 0 && amount1Out == 0) revert InsufficientOutput();
        if (data.length != 0) revert FlashSwapsUnsupported();
        (uint112 r0, uint112 r1,) = getReserves();
        if (amount0Out >= r0 || amount1Out >= r1) revert InsufficientLiquidity();
        if (to == token0 || to == token1) revert InvalidTo(to);
        if (amount0Out > 0) _send(token0, to, amount0Out);
        if (amount1Out > 0) _send(token1, to, amount1Out);
        (uint256 amount0In, uint256 amount1In) = _settle(r0 - amount0Out, r1 - amount1Out, uint256(r0) * r1);
        emit Swap(msg.sender, amount0In, amount1In, amount0Out, amount1Out, to);
    }

    /// What came in beyond what stayed of each reserve (`kept0`, `kept1`),
    /// once the balances, less a 0.3% fee on what came in, keep the
    /// product of the reserves (`product`) from falling; updates the
    /// reserves.
    function _settle(uint256 kept0, uint256 kept1, uint256 product)
        private
        returns (uint256 amount0In, uint256 amount1In)
    {
        uint256 balance0 = IERC20Balance(token0).balanceOf(address(this));
        uint256 balance1 = IERC20Balance(token1).balanceOf(address(this));
        amount0In = balance0 > kept0 ? balance0 - kept0 : 0;
        amount1In = balance1 > kept1 ? balance1 - kept1 : 0;
        if (amount0In == 0 && amount1In == 0) revert InsufficientInput();
        uint256 adjusted0 = balance0 * 1000 - amount0In * 3;
        uint256 adjusted1 = balance1 * 1000 - amount1In * 3;
        if (adjusted0 * adjusted1 < product * 1_000_000) revert ConstantProductBroken();
        _update(balance0, balance1);
    }

    /// Sends what is above the reserves to `to`.
    function skim(address to) external lock {
        _send(token0, to, IERC20Balance(token0).balanceOf(address(this)) - reserve0);
        _send(token1, to, IERC20Balance(token1).balanceOf(address(this)) - reserve1);
    }

    /// Sets the reserves to the balances.
    function sync() external lock {
        _update(IERC20Balance(token0).balanceOf(address(this)), IERC20Balance(token1).balanceOf(address(this)));
    }

    function _update(uint256 balance0, uint256 balance1) private {
        if (balance0 > type(uint112).max || balance1 > type(uint112).max) revert Overflow();
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        blockTimestampLast = uint32(block.timestamp);
        emit Sync(reserve0, reserve1);
    }

    function _send(address token, address to, uint256 amount) private {
        (bool ok, bytes memory answer) =
            token.call(abi.encodeWithSelector(IERC20Balance.transfer.selector, to, amount));
        if (!ok || (answer.length != 0 && !abi.decode(answer, (bool)))) revert TransferFailed(token, to, amount);
    }

    function _min(uint256 a, uint256 b) private pure returns (uint256) {
        return a < b ? a : b;
    }

    /// Integer square root, by Newton's method.
    function _sqrt(uint256 y) private pure returns (uint256 z) {
        if (y > 3) {
            z = y;
            uint256 x = y / 2 + 1;
            while (x < z) {
                z = x;
                x = (y / x + x) / 2;
            }
        } else if (y != 0) {
            z = 1;
        }
    }
}
