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
            assert_eq!(nft.owner_of, wallet);
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
