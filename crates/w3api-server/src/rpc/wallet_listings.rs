//! The extended RPC's wallet listings: the REST twins' answers
//! (`w3api-answers`), cursors included. `eth_getNFTBalances` and `eth_getNFTCollections`
//! (`getWalletNfts`, `getWalletNftCollections`) are written in the briefer
//! shapes production's extended RPC documents; `eth_getTransactions`
//! (`getWalletTransactions`) as its twin, and `eth_getDecodedTransactions`
//! as the items of `getWalletHistory`'s first page.

use jsonrpsee::types::ErrorObjectOwned;
use w3api_query::listing::Order;
use w3api_source::{WalletCollectionsQuery, WalletNftsQuery};
use w3api_types::Chain;
use w3api_types::params::operations::{
    get_wallet_history as history_op, get_wallet_nft_collections as collections_op, get_wallet_nfts as nfts_op,
    get_wallet_transactions as transactions_op,
};
use w3api_types::rpc::{
    DecodedTransactionsParams, HistoryOrder, HistoryTransaction, WalletNftParams, WalletTransactionPage,
    WalletTransactionsParams,
};
use w3api_types::rpc::{HeldCollection, NftBalance, NftBalanceMetadata, NftBalancesPage, NftCollectionsPage};
use w3api_types::{Nft, SyncStatus, TokenIdFormat};

use w3api_answers::wallet_collections::wallet_collections_page;
use w3api_answers::wallet_history::{WalletHistoryRequest, wallet_history_page};
use w3api_answers::wallet_nfts::{NftView, wallet_nfts_page};
use w3api_answers::wallet_transactions::{WalletTransactionsRequest, wallet_transactions_page};
use w3api_answers::{Cursors, Paging, Window};

use super::answer_error;
use crate::Backend;

/// A wallet's transactions, a page at a time, newest first.
pub(super) async fn transactions<S: Backend>(
    (source, cursors): (&S, &Cursors),
    chain: Chain,
    request: WalletTransactionsParams,
) -> Result<WalletTransactionPage, ErrorObjectOwned> {
    let paging = Paging::given(request.limit, request.cursor, &transactions_op::LIMIT).map_err(answer_error)?;
    let window = Window::by_blocks(request.from_block, request.to_block);
    let include = request.include;
    let request = WalletTransactionsRequest { chain, address: request.address, window, paging, include };
    wallet_transactions_page((source, cursors), request).await.map_err(answer_error)
}

/// A wallet's history, decoded: the items of the REST twin's first page,
/// each with the function it called, as the method takes no cursor.
pub(super) async fn decoded_transactions<S: Backend>(
    (source, cursors): (&S, &Cursors),
    chain: Chain,
    request: DecodedTransactionsParams,
) -> Result<Vec<HistoryTransaction>, ErrorObjectOwned> {
    let paging = Paging::given(None, None, &history_op::LIMIT).map_err(answer_error)?;
    let order = match request.order.unwrap_or(HistoryOrder::Descending) {
        HistoryOrder::Ascending => Order::Ascending,
        HistoryOrder::Descending => Order::Descending,
    };
    let request = WalletHistoryRequest {
        chain,
        address: request.address,
        window: Window::every_block(order),
        nft_metadata: request.nft_metadata.unwrap_or(false),
        method_labels: true,
        internal_transactions: false,
        paging,
    };
    Ok(wallet_history_page((source, cursors), request).await.map_err(answer_error)?.result)
}

/// A wallet's NFTs, a page at a time, with the name and image of each.
pub(super) async fn nft_balances<S: Backend>(
    (source, cursors): (&S, &Cursors),
    chain: Chain,
    request: WalletNftParams,
) -> Result<NftBalancesPage, ErrorObjectOwned> {
    let paging = Paging::given(request.limit, request.cursor, &nfts_op::LIMIT).map_err(answer_error)?;
    let query = WalletNftsQuery {
        chain,
        address: request.address,
        at_block: None,
        token_addresses: Vec::new(),
        exclude_spam: nfts_op::EXCLUDE_SPAM.default_flag().unwrap_or(false),
        include_prices: false,
    };
    let view = NftView { format: TokenIdFormat::Decimal, normalize_metadata: true, media_items: false };
    let page = wallet_nfts_page((source, cursors), query, view, &paging).await.map_err(answer_error)?;
    Ok(NftBalancesPage {
        nfts: page.result.into_iter().map(balance).collect(),
        cursor: page.cursor,
        page_size: page.page_size,
        page: page.page,
    })
}

/// The collections a wallet holds tokens of, a page at a time, with how many.
pub(super) async fn nft_collections<S: Backend>(
    (source, cursors): (&S, &Cursors),
    chain: Chain,
    request: WalletNftParams,
) -> Result<NftCollectionsPage, ErrorObjectOwned> {
    let paging = Paging::given(request.limit, request.cursor, &collections_op::LIMIT).map_err(answer_error)?;
    let query = WalletCollectionsQuery {
        chain,
        address: request.address,
        at_block: None,
        exclude_spam: collections_op::EXCLUDE_SPAM.default_flag().unwrap_or(false),
        include_prices: false,
    };
    let page = wallet_collections_page((source, cursors), query, true, &paging).await.map_err(answer_error)?;
    Ok(NftCollectionsPage {
        status: page.status.unwrap_or(SyncStatus::Synced),
        page: page.page,
        page_size: page.page_size,
        cursor: page.cursor,
        // The REST page writes every flag and, asked to, every count.
        result: page
            .result
            .into_iter()
            .map(|c| HeldCollection {
                token_address: c.token_address,
                contract_type: c.contract_type,
                name: c.name,
                symbol: c.symbol,
                possible_spam: c.possible_spam.unwrap_or(false),
                verified_collection: c.verified_collection.unwrap_or(false),
                count: c.count.unwrap_or(0),
                collection_logo: c.collection_logo,
                collection_banner_image: c.collection_banner_image,
            })
            .collect(),
    })
}

/// An NFT as `eth_getNFTBalances` lists it.
fn balance(nft: Nft) -> NftBalance {
    let metadata = nft.normalized_metadata.map(|m| NftBalanceMetadata { name: m.name, image: m.image });
    NftBalance {
        token_id: nft.token_id,
        contract_address: nft.token_address,
        amount: nft.amount.unwrap_or(w3api_types::U256::from(1)),
        metadata,
    }
}
