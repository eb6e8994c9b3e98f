//! The contract interfaces behind devnet transactions: calls are ABI-encoded
//! with these, and receipts carry these events.

use alloy_sol_types::sol;

sol! {
    /// ERC20, and the wrapped native token.
    interface IERC20 {
        function transfer(address to, uint256 amount) external returns (bool);
        function deposit() external payable;
        function mint(address to, uint256 amount) external;
        event Transfer(address indexed from, address indexed to, uint256 value);
        event Deposit(address indexed dst, uint256 wad);
    }

    /// ERC721 with a public mint.
    interface IERC721 {
        function safeMint(address to, uint256 tokenId) external;
        function transferFrom(address from, address to, uint256 tokenId) external;
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    }

    /// ERC1155 with a public mint.
    interface IERC1155 {
        function mint(address to, uint256 id, uint256 amount, bytes data) external;
        function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data) external;
        event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    }

    /// A constant-product DEX: factory, pair and router.
    interface IDex {
        function createPair(address tokenA, address tokenB) external returns (address pair);
        function mint(address to) external returns (uint256 liquidity);
        function sync() external;
        function burn(address to) external returns (uint256 amount0, uint256 amount1);
        function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) external returns (uint256[] amounts);
        event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index);
        event Sync(uint112 reserve0, uint112 reserve1);
        event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to);
        event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    }

    /// An NFT marketplace: the buyer pays (in the native currency, sent as
    /// the call's value, or in an ERC20 the buyer holds, when
    /// `paymentToken` is not zero) and receives the seller's token.
    interface IMarketplace {
        function buy(address collection, uint256 tokenId, address seller, address paymentToken, uint256 price) external payable;
        event Sale(address indexed collection, uint256 indexed tokenId, address indexed buyer, address seller, address paymentToken, uint256 price);
    }
}
