//! NFT ownership follows from the mints and transfers: a wallet's NFTs at
//! the newest block are exactly the ERC721 tokens whose last mint or
//! transfer went to it, and the ERC1155 tokens of which mints and transfers
//! left it a positive amount, that amount; the blocks each NFT reports are
//! those of its first mint and of the owner's last movement of it.

use std::collections::BTreeMap;

use futures::TryStreamExt;
use w3api_rest::Paginated;
use w3api_tests::local::Session;
use w3api_types::{Address, ContractType, Nft, U256};

use crate::coherence::history::{Call, History, history};

const WALLETS: usize = 12;

/// An NFT as the transactions leave it for one wallet.
#[derive(Debug, PartialEq)]
struct Holding {
    kind: ContractType,
    amount: U256,
    /// Block of the wallet's last movement of the token.
    last_moved: u64,
    /// Block of the token id's first mint.
    minted: u64,
}

/// Replays the NFT calls for `wallet`: what it holds after the newest block, by (collection, id).
fn holdings(history: &History, wallet: Address) -> BTreeMap<(Address, U256), Holding> {
    let mut minted: BTreeMap<(Address, U256), u64> = BTreeMap::new();
    let mut owner_721: BTreeMap<(Address, U256), (Address, u64)> = BTreeMap::new();
    let mut held_1155: BTreeMap<(Address, U256), (U256, u64)> = BTreeMap::new();
    for located in &history.calls {
        let block = located.block;
        match located.call {
            Call::Erc721 { collection, from, to, id } => {
                if from.is_none() {
                    minted.entry((collection, id)).or_insert(block);
                }
                owner_721.insert((collection, id), (to, block));
            }
            Call::Sale { collection, id, .. } => {
                owner_721.insert((collection, id), (located.from, block));
            }
            Call::Erc1155 { collection, from, to, id, amount } => {
                if from.is_none() {
                    minted.entry((collection, id)).or_insert(block);
                }
                if from == Some(wallet) {
                    let (held, _) = held_1155.get(&(collection, id)).copied().unwrap_or_default();
                    let left = held
                        .checked_sub(amount)
                        .unwrap_or_else(|| panic!("{wallet} sent {collection} #{id} it lacked"));
                    held_1155.insert((collection, id), (left, block));
                }
                if to == wallet {
                    let entry = held_1155.entry((collection, id)).or_default();
                    *entry = (entry.0 + amount, block);
                }
            }
            _ => {}
        }
    }
    let erc721 = owner_721.into_iter().filter(|(_, (owner, _))| *owner == wallet).map(|(key, (_, block))| {
        (key, Holding { kind: ContractType::Erc721, amount: U256::from(1), last_moved: block, minted: minted[&key] })
    });
    let erc1155 = held_1155.into_iter().filter(|(_, (amount, _))| !amount.is_zero()).map(|(key, (amount, block))| {
        (key, Holding { kind: ContractType::Erc1155, amount, last_moved: block, minted: minted[&key] })
    });
    erc721.chain(erc1155).collect()
}

/// What the data API says the wallet holds, in the same terms.
fn answered(wallet: Address, nfts: &[Nft]) -> BTreeMap<(Address, U256), Holding> {
    nfts.iter()
        .map(|nft| {
            assert_eq!(nft.owner_of, Some(wallet));
            let id: U256 = nft.token_id.parse().unwrap_or_else(|e| panic!("token id {:?}: {e}", nft.token_id));
            let holding = Holding {
                kind: nft.contract_type.clone(),
                amount: nft.amount.expect("the amount owned"),
                last_moved: nft.block_number,
                minted: nft.block_number_minted,
            };
            ((nft.token_address, id), holding)
        })
        .collect()
}

#[test]
fn wallet_nfts_are_what_mints_and_transfers_left_them() {
    let history = history();
    let session = Session::new();
    let rest = session.rest();
    let mut compared = 0;
    for wallet in session.devnet().sample_wallets(WALLETS) {
        let request = rest.data().get_wallet_nfts().address(wallet);
        let nfts: Vec<Nft> = session.run(request.items().try_collect()).unwrap();
        let expected = holdings(history, wallet);
        assert_eq!(answered(wallet, &nfts), expected, "wallet {wallet}: API NFTs vs mints and transfers");
        compared += expected.len();
    }
    assert!(compared >= WALLETS, "the sampled wallets hold few NFTs ({compared})");
    session.finish();
}

/// (collection, token id, holder, amount) of some NFTs.
type Held = BTreeMap<(Address, U256, Address), U256>;

fn held(nfts: &[Nft]) -> Held {
    nfts.iter()
        .map(|nft| {
            let id = nft.token_id.parse().unwrap_or_else(|e| panic!("token id {:?}: {e}", nft.token_id));
            let owner = nft.owner_of.unwrap_or_else(|| panic!("{}:{id} lists no holder", nft.token_address));
            ((nft.token_address, id, owner), nft.amount.expect("the amount held"))
        })
        .collect()
}

#[test]
fn a_collections_owners_are_the_inverse_of_the_wallets_nfts() {
    let session = Session::new();
    let rest = session.rest();
    let wallets: Vec<Address> = session.devnet().sample_wallets(WALLETS);
    let mut by_wallets = Held::new();
    for wallet in &wallets {
        let request = rest.data().get_wallet_nfts().address(*wallet);
        by_wallets.extend(held(&session.run(request.items().try_collect::<Vec<Nft>>()).unwrap()));
    }
    let collections: std::collections::BTreeSet<Address> = by_wallets.keys().map(|(c, _, _)| *c).collect();
    assert!(collections.len() >= 2, "the sampled wallets hold few collections ({collections:?})");
    for collection in collections {
        let request = rest.data().get_nft_owners().address(collection).limit(7u64);
        let owners = held(&session.run(request.items().try_collect::<Vec<Nft>>()).unwrap());
        let seen: Held = owners.into_iter().filter(|((_, _, owner), _)| wallets.contains(owner)).collect();
        let wanted: Held = by_wallets.iter().filter(|((c, _, _), _)| *c == collection).map(|(k, v)| (*k, *v)).collect();
        assert_eq!(seen, wanted, "collection {collection}: its owners among the sampled wallets vs their NFTs");
    }
    session.finish();
}

#[test]
fn a_collections_tokens_read_one_by_one_as_they_are_listed() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = session.devnet().sample_wallets(1)[0];
    let request = rest.data().get_wallet_nfts().address(wallet);
    let nfts: Vec<Nft> = session.run(request.items().try_collect()).unwrap();
    let collection = nfts.first().expect("the sampled wallet holds an NFT").token_address;
    let listed: Vec<Nft> =
        session.run(rest.data().get_contract_nfts().address(collection).items().try_collect()).unwrap();
    let total = listed.len();
    let ids: Vec<U256> = listed.iter().map(|n| n.token_id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "listed once each, by id");
    // Every ERC721 token listed has the owner its owners listing gives.
    let owners = session.run(rest.data().get_nft_owners().address(collection).items().try_collect::<Vec<Nft>>());
    let owner_of: BTreeMap<String, Option<Address>> =
        owners.unwrap().into_iter().map(|n| (n.token_id, n.owner_of)).collect();
    for nft in listed.iter().filter(|n| n.contract_type == ContractType::Erc721) {
        assert_eq!(owner_of.get(&nft.token_id), Some(&nft.owner_of), "token {}", nft.token_id);
    }
    let first = &listed[0];
    let one = session.run(rest.data().get_nft_metadata().address(collection).token_id(first.token_id.as_str()).send());
    assert_eq!(&one.unwrap().into_inner(), first, "one token reads as it is listed");
    let runs: Vec<Nft> = (1..=3u64)
        .flat_map(|run| {
            let request = rest.data().get_contract_nfts().address(collection).range(run).total_ranges(3u64);
            session.run(request.items().try_collect::<Vec<Nft>>()).unwrap()
        })
        .collect();
    assert_eq!(runs.len(), total, "three runs hold every token once");
    assert_eq!(runs, listed, "the runs, in order, are the listing");
    session.finish();
}

#[test]
fn the_extended_nft_methods_page_through_what_rest_lists() {
    let session = Session::new();
    let rest = session.rest();
    for wallet in session.devnet().sample_wallets(3) {
        let nfts: Vec<Nft> = session.run(rest.data().get_wallet_nfts().address(wallet).items().try_collect()).unwrap();
        let listed: Vec<String> =
            nfts.iter().map(|n| format!("{:#x}:{}={}", n.token_address, n.token_id, n.amount.unwrap())).collect();
        let mut paged = Vec::new();
        let mut cursor = serde_json::Value::Null;
        loop {
            let mut request = serde_json::json!({ "address": wallet, "limit": 3 });
            if !cursor.is_null() {
                request["cursor"] = cursor.clone();
            }
            let page = session.call("eth_getNFTBalances", serde_json::json!([request]));
            for nft in page["nfts"].as_array().unwrap() {
                paged.push(format!(
                    "{}:{}={}",
                    nft["contract_address"].as_str().unwrap(),
                    nft["token_id"].as_str().unwrap(),
                    nft["amount"].as_str().unwrap()
                ));
            }
            cursor = page["cursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        assert_eq!(paged, listed, "wallet {wallet}: eth_getNFTBalances pages vs getWalletNfts");
        let counts = session.call("eth_getNFTCollections", serde_json::json!([{ "address": wallet }]));
        let mut expected: BTreeMap<String, u64> = BTreeMap::new();
        for nft in &nfts {
            *expected.entry(format!("{:#x}", nft.token_address)).or_default() += 1;
        }
        let got: BTreeMap<String, u64> = counts["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["token_address"].as_str().unwrap().to_string(), c["count"].as_u64().unwrap()))
            .collect();
        assert_eq!(got, expected, "wallet {wallet}: eth_getNFTCollections counts vs getWalletNfts");
    }
    session.finish();
}
