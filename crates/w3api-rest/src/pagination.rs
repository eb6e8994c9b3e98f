//! Following cursors across pages.
//!
//! The paged operations (wallet tokens, NFTs, NFT collections and owners,
//! token and NFT transfers, wallet transactions and history; streams, a
//! stream's addresses, deliveries and their attempts) answer with a `cursor`; passing it back returns
//! the next page, and a `null`, absent or empty cursor marks the last one.
//! [`Paginated`] turns a request builder of one of them into a stream of
//! pages or of items. For one page at a time, set `.cursor(..)` on the
//! builder and `send()` it.

use std::future::Future;

use futures::{Stream, StreamExt, TryStreamExt, stream};
use w3api_types::{
    Erc20Transfer, Erc20TransferPage, EvmStream, EvmStreamsPage, HistoryTransaction, Nft, NftCollection,
    NftCollectionPage, NftPage, NftTransfer, NftTransferPage, StreamAddress, StreamAddressesPage, StreamDeliveryLog,
    StreamDeliveryLogsPage, StreamHistoryItem, StreamHistoryPage, TokenBalance, TokenBalancePage, WalletHistoryPage,
    WalletTransaction, WalletTransactionPage,
};

use crate::Error;
use crate::generated::data::builder::{
    GetContractNfts, GetNftContractTransfers, GetNftOwners, GetNftTokenIdOwners, GetTokenTransfers, GetWalletHistory,
    GetWalletNftCollections, GetWalletNftTransfers, GetWalletNfts, GetWalletTokenBalancesPrice,
    GetWalletTokenTransfers, GetWalletTransactions,
};
use crate::generated::streams::builder::{GetDeliveryLogs, GetHistory, GetStreamAddresses, GetStreams};

/// A page of a cursor-paged operation.
pub trait Page {
    /// What the page lists.
    type Item;
    /// The cursor of the next page; `None` on the last page.
    fn next_cursor(&self) -> Option<&str>;
    /// The items of the page, in order.
    fn items(&self) -> &[Self::Item];
    /// The items of the page, in order, taken out of it.
    fn into_items(self) -> Vec<Self::Item>;
}

macro_rules! pages {
    ($($page:ty => $item:ty),*) => {$(
        impl Page for $page {
            type Item = $item;
            fn next_cursor(&self) -> Option<&str> {
                self.cursor.as_deref().filter(|c| !c.is_empty())
            }
            fn items(&self) -> &[$item] {
                &self.result
            }
            fn into_items(self) -> Vec<$item> {
                self.result
            }
        }
    )*};
}

pages!(
    TokenBalancePage => TokenBalance,
    NftPage => Nft,
    NftCollectionPage => NftCollection,
    Erc20TransferPage => Erc20Transfer,
    NftTransferPage => NftTransfer,
    WalletTransactionPage => WalletTransaction,
    WalletHistoryPage => HistoryTransaction,
    EvmStreamsPage => EvmStream,
    StreamAddressesPage => StreamAddress,
    StreamHistoryPage => StreamHistoryItem,
    StreamDeliveryLogsPage => StreamDeliveryLog
);

/// A request whose answer comes in cursor-linked pages.
pub trait Paginated: Clone + Send + Sized {
    /// The page the operation answers with.
    type Page: Page + Send;

    /// The same request, asking for the page at `cursor`.
    fn at_cursor(self, cursor: String) -> Self;

    /// Sends the request for one page.
    fn fetch(self) -> impl Future<Output = Result<Self::Page, Error>> + Send;

    /// Every page, from the one this request asks for to the last, following
    /// cursors. Stops after the first error.
    fn pages(self) -> impl Stream<Item = Result<Self::Page, Error>> + Send {
        enum Next<R> {
            Fetch(R, Option<String>),
            Done,
        }
        stream::try_unfold(Next::Fetch(self, None), |next| async move {
            let Next::Fetch(request, used_cursor) = next else { return Ok(None) };
            let page = request.clone().fetch().await?;
            let next = match page.next_cursor() {
                None => Next::Done,
                Some(cursor) if Some(cursor) == used_cursor.as_deref() => return Err(Error::CursorLoop),
                Some(cursor) => Next::Fetch(request.at_cursor(cursor.to_string()), Some(cursor.to_string())),
            };
            Ok(Some((page, next)))
        })
    }

    /// Every item across pages, in order.
    fn items(self) -> impl Stream<Item = Result<<Self::Page as Page>::Item, Error>> + Send
    where
        <Self::Page as Page>::Item: Send,
    {
        self.pages().map_ok(|page| stream::iter(page.into_items()).map(Ok)).try_flatten()
    }
}

macro_rules! paginated {
    ($($builder:ident => $page:ty),*) => {$(
        impl Paginated for $builder<'_> {
            type Page = $page;
            fn at_cursor(self, cursor: String) -> Self {
                self.cursor(cursor)
            }
            async fn fetch(self) -> Result<$page, Error> {
                Ok(self.send().await?.into_inner())
            }
        }
    )*};
}

paginated!(
    GetWalletTokenBalancesPrice => TokenBalancePage,
    GetWalletNfts => NftPage,
    GetWalletNftCollections => NftCollectionPage,
    GetContractNfts => NftPage,
    GetNftOwners => NftPage,
    GetNftTokenIdOwners => NftPage,
    GetWalletTokenTransfers => Erc20TransferPage,
    GetTokenTransfers => Erc20TransferPage,
    GetWalletNftTransfers => NftTransferPage,
    GetNftContractTransfers => NftTransferPage,
    GetWalletTransactions => WalletTransactionPage,
    GetWalletHistory => WalletHistoryPage,
    GetStreams => EvmStreamsPage,
    GetStreamAddresses => StreamAddressesPage,
    GetHistory => StreamHistoryPage,
    GetDeliveryLogs => StreamDeliveryLogsPage
);
