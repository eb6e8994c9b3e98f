//! The REST data and stream operations through `w3api-rest`: what each
//! parameter does to the answer, and the typed errors the client returns for
//! what the server refuses.

use std::collections::BTreeSet;

use futures::TryStreamExt;
use w3api_rest::{Error, Paginated};
use w3api_tests::local::Session;
use w3api_types::{Address, Chain, ContractType, Nft, SyncStatus, TokenBalance, TokenIdFormat, U256};

use crate::contract::{expect_api_error, nft_rich_wallet};

fn token_addresses(items: &[TokenBalance]) -> Vec<Option<Address>> {
    items.iter().map(|t| t.token_address).collect()
}

/// Wallet tokens: the native currency first, and each filter keeps exactly
/// the items of the unfiltered answer it should.
mod wallet_tokens {
    use super::*;

    #[test]
    fn filters_select_from_the_unfiltered_answer() {
        let session = Session::new();
        let rest = session.rest();
        let showcase = session.devnet().sample_wallets(1)[0];
        let tokens = || rest.data().get_wallet_token_balances_price().address(showcase);
        session.run(async {
            let all = tokens().fetch().await.unwrap();
            assert!(all.result.len() >= 6, "the showcase wallet holds every ordinary token: {:?}", all.result);
            assert!(all.result[0].native_token, "the native currency comes first");
            assert_eq!(all.result.iter().filter(|t| t.native_token).count(), 1);
            assert_eq!(tokens().chain(Chain::Eth).fetch().await.unwrap(), all, "eth is the default chain");

            let without_native = tokens().exclude_native(true).fetch().await.unwrap();
            assert_eq!(token_addresses(&without_native.result), token_addresses(&all.result[1..]));

            let picked: Vec<Address> =
                all.result[1..].iter().step_by(2).take(3).map(|t| t.token_address.unwrap()).collect();
            let filtered = tokens().token_addresses(picked.clone()).fetch().await.unwrap();
            let kept: BTreeSet<Address> = filtered.result.iter().map(|t| t.token_address.unwrap()).collect();
            assert_eq!(kept, picked.iter().copied().collect());
            for item in &filtered.result {
                let same = all.result.iter().find(|t| t.token_address == item.token_address).unwrap();
                assert_eq!(item.balance, same.balance, "a filter does not change balances");
            }
        });
        session.finish();
    }

    #[test]
    fn to_block_reads_history_and_says_which_block() {
        let session = Session::new();
        let rest = session.rest();
        let showcase = session.devnet().sample_wallets(1)[0];
        let tokens = || rest.data().get_wallet_token_balances_price().address(showcase);
        session.run(async {
            let latest = tokens().fetch().await.unwrap();
            let newest = latest.block_number.expect("the answer names its block");
            let middle = tokens().to_block(newest / 2).fetch().await.unwrap();
            assert_eq!(middle.block_number, Some(newest / 2));
            assert_ne!(middle.result, latest.result, "balances move over {newest} blocks");
            let genesis = tokens().to_block(0u64).fetch().await.unwrap();
            assert_eq!(genesis.block_number, Some(0));
            assert!(genesis.result.iter().all(|t| t.native_token), "no token exists at genesis: {:?}", genesis.result);
            let future = tokens().to_block(newest + 1_000_000).fetch().await.unwrap();
            assert_eq!(future.block_number, Some(newest), "a block past the newest reads the newest");
            assert_eq!(future.result, latest.result);
        });
        session.finish();
    }

    #[test]
    fn invalid_parameters_are_named_in_a_400() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = session.devnet().sample_wallets(1)[0];
        let tokens = || rest.data().get_wallet_token_balances_price().address(wallet);
        session.run(async {
            expect_api_error(tokens().limit(101).fetch().await, 400, "limit");
            expect_api_error(tokens().limit(-1).fetch().await, 400, "limit");
            expect_api_error(tokens().cursor("not-a-cursor").fetch().await, 400, "cursor");
            // Blast is served by the RPC gateway only; the client writes its slug, the data API refuses it.
            expect_api_error(tokens().chain(Chain::Blast).fetch().await, 400, "chain");
            // Chains the table does not list reach the server as written, and it refuses them
            // (the server was not started from a genesis of theirs).
            for other in ["newchain", "0x1234"] {
                expect_api_error(tokens().chain(other.parse::<Chain>().unwrap()).fetch().await, 400, "chain");
            }
            // Chains production added since the interface was written are served.
            assert!(!tokens().chain(Chain::Flow).fetch().await.unwrap().result.is_empty());
            let eleven: Vec<Address> = (1..=11).map(Address::repeat_byte).collect();
            expect_api_error(tokens().token_addresses(eleven).fetch().await, 400, "token_addresses");
            expect_api_error(tokens().min_pair_side_liquidity_usd(f64::NAN).fetch().await, 400, "min_pair_side");
        });
        session.finish();
    }

    #[test]
    fn a_cursor_only_continues_its_own_query() {
        let session = Session::new();
        let rest = session.rest();
        let showcase = session.devnet().sample_wallets(1)[0];
        let tokens = || rest.data().get_wallet_token_balances_price().address(showcase).limit(1);
        session.run(async {
            let first = tokens().fetch().await.unwrap();
            let cursor = first.cursor.expect("the showcase wallet has more than one token");
            let second = tokens().cursor(cursor.as_str()).fetch().await.unwrap();
            assert_eq!((first.page, second.page), (0, 1), "token pages count from 0, as production's do");
            expect_api_error(tokens().exclude_spam(true).cursor(cursor.as_str()).fetch().await, 400, "cursor");
            let nfts = rest.data().get_wallet_nfts().address(showcase).cursor(cursor.as_str());
            expect_api_error(nfts.fetch().await, 400, "cursor");
            let tampered: String = cursor.chars().rev().collect();
            expect_api_error(tokens().cursor(tampered).fetch().await, 400, "cursor");
        });
        session.finish();
    }
}

/// Wallet NFTs and collections: formats, counts, and their agreement.
mod nfts {
    use super::*;

    fn token_id(nft: &Nft) -> U256 {
        nft.token_id.parse().unwrap_or_else(|e| panic!("token id {:?}: {e}", nft.token_id))
    }

    #[test]
    fn hex_and_decimal_ids_name_the_same_tokens() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = nft_rich_wallet();
        let nfts = |format| rest.data().get_wallet_nfts().address(wallet).format(format).items();
        session.run(async {
            let decimal: Vec<Nft> = nfts(TokenIdFormat::Decimal).try_collect().await.unwrap();
            let hex: Vec<Nft> = nfts(TokenIdFormat::Hex).try_collect().await.unwrap();
            assert!(!decimal.is_empty());
            assert_eq!(decimal.len(), hex.len());
            for (d, h) in decimal.iter().zip(&hex) {
                assert!(d.token_id.bytes().all(|b| b.is_ascii_digit()), "decimal id {:?}", d.token_id);
                assert!(h.token_id.starts_with("0x"), "hex id {:?}", h.token_id);
                assert_eq!((d.token_address, token_id(d)), (h.token_address, token_id(h)));
                assert_eq!(d.owner_of, Some(wallet));
                let amount = d.amount.expect("every NFT says how many the wallet has");
                match &d.contract_type {
                    ContractType::Erc721 => assert_eq!(amount, U256::from(1)),
                    ContractType::Erc1155 => assert!(amount >= U256::from(1)),
                    other => panic!("the devnet deploys ERC721 and ERC1155 only, not {other}"),
                }
            }
        });
        session.finish();
    }

    #[test]
    fn metadata_options_add_their_fields() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = nft_rich_wallet();
        let nfts = || rest.data().get_wallet_nfts().address(wallet);
        session.run(async {
            let plain = nfts().normalize_metadata(false).fetch().await.unwrap();
            let rich = nfts().normalize_metadata(true).media_items(true).fetch().await.unwrap();
            assert_eq!(plain.status, Some(SyncStatus::Synced));
            assert_eq!(plain.total, Some(plain.result.len() as u64));
            assert!(plain.result.iter().all(|n| n.normalized_metadata.is_none() && n.media.is_none()));
            assert!(rich.result.iter().all(|n| n.normalized_metadata.is_some() && n.media.is_some()));
            let ids =
                |page: &w3api_types::NftPage| page.result.iter().map(|n| n.token_hash.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&plain), ids(&rich), "options change fields, not which NFTs");
        });
        session.finish();
    }

    #[test]
    fn collections_with_counts_add_up_to_the_nfts() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = nft_rich_wallet();
        session.run(async {
            let nfts: Vec<Nft> = rest.data().get_wallet_nfts().address(wallet).items().try_collect().await.unwrap();
            let collections = |counts| rest.data().get_wallet_nft_collections().address(wallet).token_counts(counts);
            let counted = collections(true).fetch().await.unwrap();
            let uncounted = collections(false).fetch().await.unwrap();
            assert!(uncounted.result.iter().all(|c| c.count.is_none()), "count only comes when asked for");
            for collection in &counted.result {
                let held = nfts.iter().filter(|n| n.token_address == collection.token_address).count();
                assert_eq!(collection.count, Some(held as u64), "{}", collection.token_address);
                assert!(nfts.iter().any(
                    |n| n.token_address == collection.token_address && n.contract_type == collection.contract_type
                ));
            }
            let listed: BTreeSet<Address> = counted.result.iter().map(|c| c.token_address).collect();
            assert_eq!(listed, nfts.iter().map(|n| n.token_address).collect(), "every NFT's collection is listed");
            let spamless = collections(true).exclude_spam(true).fetch().await.unwrap();
            let kept: Vec<Address> =
                counted.result.iter().filter(|c| c.possible_spam != Some(true)).map(|c| c.token_address).collect();
            assert_eq!(spamless.result.iter().map(|c| c.token_address).collect::<Vec<_>>(), kept);
        });
        session.finish();
    }

    #[test]
    fn invalid_parameters_are_named_in_a_400() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = session.devnet().sample_wallets(1)[0];
        session.run(async {
            let nfts = rest.data().get_wallet_nfts().address(wallet).limit(101);
            expect_api_error(nfts.fetch().await, 400, "limit");
            let collections = rest.data().get_wallet_nft_collections().address(wallet).chain(Chain::ZkSync);
            expect_api_error(collections.fetch().await, 400, "chain");
        });
        session.finish();
    }

    #[test]
    fn include_prices_adds_prices_and_pages_count_from_one() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = nft_rich_wallet();
        session.run(async {
            let nfts = rest.data().get_wallet_nfts().address(wallet);
            let (plain, priced) =
                (nfts.clone().fetch().await.unwrap(), nfts.include_prices(true).fetch().await.unwrap());
            assert_eq!((plain.page, priced.page), (1, 1));
            assert!(!priced.result.is_empty());
            // Every item gets the price fields; the collector wallet bought
            // some of its tokens, so some have a last sale (the coherence
            // suite checks the values against the sales' transactions).
            assert!(priced.result.iter().all(|n| n.prices.is_some()));
            assert!(priced.result.iter().any(|n| n.prices.as_ref().is_some_and(|p| p.last_sale.is_some())));
            assert!(plain.result.iter().all(|n| n.prices.is_none()));
            let collections = rest.data().get_wallet_nft_collections().address(wallet).include_prices(true);
            let collections = collections.fetch().await.unwrap();
            assert_eq!(collections.page, 1);
            assert!(collections.result.iter().all(|c| c.prices.is_some()));
            let floors = collections.result.iter().filter_map(|c| c.prices.as_ref()?.floor_price.as_ref());
            assert!(floors.count() > 0, "a collection the wallet bought from has a floor");
        });
        session.finish();
    }
}

/// A stream that does not exist (streams made and read: `server::streams`).
mod streams {
    use super::*;

    #[test]
    fn an_unknown_stream_is_a_typed_404() {
        let session = Session::new();
        let rest = session.rest();
        session.run(async {
            let unknown = rest.streams().get_stream().id(uuid::Uuid::from_u128(0x5eed)).send().await;
            expect_api_error(unknown.map_err(Error::from), 404, "Stream not found");
        });
        session.finish();
    }
}

/// The API key: a wrong one is refused on every group with a typed 401.
mod keys {
    use super::*;

    #[test]
    fn a_wrong_key_is_a_401_on_every_group() {
        let session = Session::new();
        let rest = session.rest_with_key(&session.wrong_key());
        let wallet = session.devnet().sample_wallets(1)[0];
        let stream = uuid::Uuid::from_u128(0x5eed);
        session.run(async {
            let tokens = rest.data().get_wallet_token_balances_price().address(wallet).fetch().await;
            expect_api_error(tokens, 401, "Invalid API key");
            expect_api_error(rest.data().get_wallet_nfts().address(wallet).fetch().await, 401, "Invalid API key");
            let collections = rest.data().get_wallet_nft_collections().address(wallet).fetch().await;
            expect_api_error(collections, 401, "Invalid API key");
            let stream = rest.streams().get_stream().id(stream).send().await.map_err(Error::from);
            expect_api_error(stream, 401, "Invalid API key");
        });
        session.finish();
    }
}

/// Wallet history: its parameters, pages and refusals.
mod history {
    use w3api_types::{HistoryTransaction, ListingOrder};

    use super::*;

    #[test]
    fn blocks_order_and_pages_shape_the_history() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = session.devnet().sample_wallets(1)[0];
        let history = || rest.data().get_wallet_history().address(wallet);
        session.run(async {
            let newest: Vec<HistoryTransaction> = history().limit(17).items().try_collect().await.unwrap();
            let mut oldest: Vec<HistoryTransaction> =
                history().order(ListingOrder::Ascending).limit(23).items().try_collect().await.unwrap();
            oldest.reverse();
            assert!(newest.len() > 17, "the wallet's history takes more than a page");
            assert_eq!(newest, oldest, "ASC is DESC reversed, whatever the page size");
            let middle = newest[newest.len() / 2].transaction.block_number;
            let until: Vec<HistoryTransaction> = history().to_block(middle).items().try_collect().await.unwrap();
            let expected: Vec<&HistoryTransaction> =
                newest.iter().filter(|item| item.transaction.block_number <= middle).collect();
            assert_eq!(until.iter().collect::<Vec<_>>(), expected, "to_block {middle}");
            let first = history().limit(2).fetch().await.unwrap();
            let cursor = first.cursor.expect("more than two items");
            let second = history().limit(2).cursor(cursor.as_str()).fetch().await.unwrap();
            assert_eq!((first.page, second.page), (0, 1), "history pages count from 0, as production's do");
            assert_eq!(second.result[..], newest[2..4]);
            expect_api_error(
                history().limit(2).nft_metadata(true).cursor(cursor.as_str()).fetch().await,
                400,
                "cursor",
            );
        });
        session.finish();
    }

    #[test]
    fn invalid_parameters_are_named_in_a_400() {
        let session = Session::new();
        let rest = session.rest();
        let wallet = session.devnet().sample_wallets(1)[0];
        let history = || rest.data().get_wallet_history().address(wallet);
        session.run(async {
            expect_api_error(history().limit(101).fetch().await, 400, "limit");
            expect_api_error(history().cursor("not-a-cursor").fetch().await, 400, "cursor");
            expect_api_error(history().chain(Chain::Blast).fetch().await, 400, "chain");
        });
        let template = "/api/v2.2/wallets/{address}/history";
        for (query, named) in [
            ("include_internal_transactions=several", "include_internal_transactions"),
            ("from_date=yesterday", "from_date"),
            ("order=UP", "order"),
            ("nft_metadata=maybe", "nft_metadata"),
        ] {
            let answer = session.get(template, &format!("/api/v2.2/wallets/{wallet}/history?{query}"));
            assert_eq!(answer.status, 400, "{query}: {}", answer.text);
            assert!(answer.text.contains(named), "{query}: {}", answer.text);
        }
        session.finish();
    }
}
