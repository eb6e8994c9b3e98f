//! Coherence across the API: what the data API answers about wallets must
//! follow from the transactions the JSON-RPC gateway returns, and the two
//! must agree on prices and on where each transaction is. Expectations are
//! derived from API answers only (the whole chain read back block by block
//! and its calls decoded with the ABIs below); the devnet is consulted only
//! to choose which wallets to sample.

mod balances;
mod blocks;
mod everyday;
mod history;
mod native;
mod nft_owners;
mod prices;
mod sales;
mod transactions;
mod transfers;
mod wallet_activity;
mod wallet_history;

use futures::TryStreamExt;
use w3api_rest::{Client, Paginated};
use w3api_types::{Address, TokenBalance};

/// The calls the chain's transactions make, as the token, NFT and DEX
/// standards define them.
mod abi {
    alloy_sol_types::sol! {
        interface Erc20 {
            function transfer(address to, uint256 amount) external returns (bool);
            function approve(address spender, uint256 amount) external returns (bool);
        }
        interface Erc721 {
            function safeMint(address to, uint256 tokenId) external;
            function transferFrom(address from, address to, uint256 tokenId) external;
            function setApprovalForAll(address operator, bool approved) external;
        }
        interface Erc1155 {
            function mint(address to, uint256 id, uint256 amount, bytes data) external;
            function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data) external;
        }
        interface Router {
            function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) external returns (uint256[] amounts);
        }
        interface Marketplace {
            function list(address collection, uint256 tokenId, address paymentToken, uint256 price) external;
            function buy(address collection, uint256 tokenId, address seller, address paymentToken, uint256 price) external payable;
        }
    }
}

/// Every token balance of `wallet` at `block`, across all pages; asserts
/// every page reads that block.
pub(crate) async fn wallet_tokens_at(
    rest: &Client,
    wallet: Address,
    block: u64,
    exclude_native: bool,
) -> Vec<TokenBalance> {
    let request =
        rest.data().get_wallet_token_balances_price().address(wallet).to_block(block).exclude_native(exclude_native);
    let pages: Vec<_> = request.pages().try_collect().await.unwrap();
    assert!(pages.iter().all(|p| p.block_number == Some(block)), "a page of block {block} reads another block");
    pages.into_iter().flat_map(|p| p.result).collect()
}
