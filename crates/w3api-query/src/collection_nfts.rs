//! NFTs read by collection rather than by wallet: a collection's tokens
//! (`getContractNFTs`), their owners (`getNFTOwners`, `getNFTTokenIdOwners`)
//! and tokens named one by one (`getNFTMetadata`, `getMultipleNFTs`).
//!
//! As for a wallet's NFTs ([`crate::nfts`]), the ledger's facts are read
//! here and the backend describes each token afterwards.

use crate::LedgerReads;
use alloy_primitives::{Address, U256};
use w3api_ledger::Holder;
use w3api_source::{NftHolding, PageRequest, SourceError};
use w3api_types::ContractType;

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::{ledger_block, resolve};
use crate::nfts::{Holding, NftListing, held, record};
use crate::view::TokenId;

/// One page of a collection's tokens at the newest block, by token id; each
/// ERC721 with its owner, each ERC1155 with the amount all its holders
/// have. Burnt tokens are left out. A contract that is not a collection of
/// the view has no tokens.
#[derive(Clone, Debug)]
pub struct ContractNfts {
    /// The collection's contract.
    pub address: Address,
    /// The block to read at; the newest when `None`.
    pub at_block: Option<u64>,
    /// Which page.
    pub page: PageRequest,
    /// Whether to add marketplace prices.
    pub include_prices: bool,
    /// Only run `.0` (from 1) of the tokens split into `.1` runs of
    /// consecutive ids, of equal size but the last.
    pub range: Option<(u64, u64)>,
}

impl Question for ContractNfts {
    type Answer = NftListing<NftHolding>;

    fn answer(self, view: &impl ChainView) -> Result<NftListing<NftHolding>, SourceError> {
        let block = resolve(view, self.at_block)?;
        let mut tokens: Vec<(Holding<_>, Option<Address>)> = match view.collection_at(self.address) {
            Some(collection) => {
                let ids = view.ledger().tokens_of(collection);
                ids.iter().filter_map(|id| token(view, collection, *id, block, Erc1155As::AllHolders)).collect()
            }
            None => Vec::new(),
        };
        tokens.sort_by_key(|(h, _)| h.id);
        if let Some((run, runs)) = self.range {
            tokens = only_run(tokens, run, runs);
        }
        let total = tokens.len() as u64;
        let cut = self.page.cut(tokens, |(h, _)| h.id, ToString::to_string, |text| text.parse().ok())?;
        let prices = self.include_prices.then_some(block);
        let page = cut.map(|(holding, owner)| record(view, &holding, owner, prices));
        Ok(NftListing { block, page, total, concerns: vec![self.address] })
    }
}

/// One page of who holds a collection's tokens (or one token's, with
/// `token_id`) at the newest block: one item per token and holder, by
/// token id then holder address.
#[derive(Clone, Debug)]
pub struct NftOwners {
    /// The collection's contract.
    pub address: Address,
    /// Only this token's holders.
    pub token_id: Option<U256>,
    /// The block to read at; the newest when `None`.
    pub at_block: Option<u64>,
    /// Which page.
    pub page: PageRequest,
}

impl Question for NftOwners {
    type Answer = NftListing<NftHolding>;

    fn answer(self, view: &impl ChainView) -> Result<NftListing<NftHolding>, SourceError> {
        let block = resolve(view, self.at_block)?;
        let held = match view.collection_at(self.address) {
            Some(collection) => owners(view, collection, self.token_id, block),
            None => Vec::new(),
        };
        let total = held.len() as u64;
        let cut = self.page.cut(held, |(h, owner)| (h.id, *owner), |(id, a)| format!("{id}:{a:#x}"), decode_owner)?;
        let page = cut.map(|(holding, owner)| record(view, &holding, Some(owner), None));
        Ok(NftListing { block, page, total, concerns: vec![self.address] })
    }
}

/// Tokens named by contract and id, at the newest block, in the order
/// asked, `None` for one that does not exist there (an unknown contract or
/// id, or a burnt token); an ERC1155 token as `erc1155` says.
#[derive(Clone, Debug)]
pub struct NftsById {
    /// The tokens.
    pub tokens: Vec<(Address, U256)>,
    /// Whether to add marketplace prices.
    pub include_prices: bool,
    /// How an ERC1155 token, which has many holders, is written.
    pub erc1155: Erc1155As,
}

/// How an ERC1155 token read by itself is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Erc1155As {
    /// With what all its holders have and no holder, as [`ContractNfts`]
    /// lists it (production's `nft`, whose `owner_of` is optional).
    AllHolders,
    /// As the holding of whoever has most of it (the first to get it among
    /// equals): production's `nftOwner`, whose `owner_of` clients insist on.
    LargestHolder,
}

impl Question for NftsById {
    type Answer = (u64, Vec<Option<NftHolding>>);

    fn answer(self, view: &impl ChainView) -> Result<Self::Answer, SourceError> {
        let block = resolve(view, None)?;
        let prices = self.include_prices.then_some(block);
        let found = self.tokens.iter().map(|(address, id)| {
            let collection = view.collection_at(*address)?;
            let id = TokenId::from_u256(*id)?;
            let (holding, owner) = token(view, collection, id, block, self.erc1155)?;
            Some(record(view, &holding, owner, prices))
        });
        Ok((block, found.collect()))
    }
}

/// Run `run` (from 1) of `items` split into `runs` runs of equal size but
/// the last; empty past the last.
fn only_run<T>(items: Vec<T>, run: u64, runs: u64) -> Vec<T> {
    let size = items.len().div_ceil(usize::try_from(runs.max(1)).unwrap_or(usize::MAX));
    let start = usize::try_from(run.saturating_sub(1)).unwrap_or(usize::MAX).saturating_mul(size);
    items.into_iter().skip(start).take(size).collect()
}

/// A token of `collection` at `block` with its owner (ERC721), or as
/// `erc1155` says; `None` when none exists then.
fn token<V: ChainView>(
    view: &V,
    collection: u16,
    id: V::Id,
    block: u64,
    erc1155: Erc1155As,
) -> Option<(Holding<V::Id>, Option<Address>)> {
    let facts = view.collection(collection)?;
    let ledger = view.ledger();
    let at = ledger_block(block);
    if facts.kind != ContractType::Erc1155 {
        let (since, owner) = ledger.owner_at(collection, id, at)?;
        let holding = Holding { collection, address: facts.address, id, amount: 1, since };
        return (owner != Holder::NOBODY).then(|| (holding, Some(ledger.address(owner))));
    }
    let holders = ledger.holders_of(collection, id);
    let held: Vec<(Holder, u32, u64)> = holders
        .iter()
        .filter_map(|holder| {
            held(view, *holder, collection, id, true, at).map(|(since, amount)| (*holder, since, amount))
        })
        .collect();
    match erc1155 {
        Erc1155As::AllHolders => {
            let since = held.iter().map(|(_, since, _)| *since).max()?;
            let amount = held.iter().fold(0u64, |total, (_, _, amount)| total.saturating_add(*amount));
            let holding = Holding { collection, address: facts.address, id, amount, since };
            (amount > 0).then_some((holding, None))
        }
        Erc1155As::LargestHolder => {
            // The first of equals: `max_by_key` keeps the last, so positions count down.
            let (_, &(holder, since, amount)) =
                held.iter().enumerate().filter(|(_, h)| h.2 > 0).max_by_key(|(i, h)| (h.2, std::cmp::Reverse(*i)))?;
            let holding = Holding { collection, address: facts.address, id, amount, since };
            Some((holding, Some(ledger.address(holder))))
        }
    }
}

/// Each holder of each token of `collection` (or of `only` that one) at
/// `block`, by token id then holder address.
fn owners<V: ChainView>(view: &V, collection: u16, only: Option<U256>, block: u64) -> Vec<(Holding<V::Id>, Address)> {
    let Some(facts) = view.collection(collection) else { return Vec::new() };
    let ledger = view.ledger();
    let ids: Vec<V::Id> = match only {
        Some(id) => V::Id::from_u256(id).into_iter().collect(),
        None => ledger.tokens_of(collection).to_vec(),
    };
    let erc1155 = facts.kind == ContractType::Erc1155;
    let at = ledger_block(block);
    let mut owners: Vec<(Holding<V::Id>, Address)> = ids
        .into_iter()
        .flat_map(|id| ledger.holders_of(collection, id).iter().map(move |holder| (id, *holder)).collect::<Vec<_>>())
        .filter_map(|(id, holder)| {
            let (since, amount) = held(view, holder, collection, id, erc1155, at)?;
            let holding = Holding { collection, address: facts.address, id, amount, since };
            (amount > 0).then(|| (holding, ledger.address(holder)))
        })
        .collect();
    owners.sort_by_key(|(h, owner)| (h.id, *owner));
    owners
}

/// An owners page's position: `id:holder`.
fn decode_owner<Id: std::str::FromStr>(text: &str) -> Option<(Id, Address)> {
    let (id, address) = text.split_once(':')?;
    Some((id.parse().ok()?, address.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;
    use w3api_ledger::{Erc1155Move, Holder, Place};
    use w3api_source::PageRequest;
    use w3api_types::ContractType;

    use super::*;
    use crate::testing::Times;

    const CATS: Address = Address::repeat_byte(0xca);
    const GEMS: Address = Address::repeat_byte(0x6e);

    /// Blocks 0 to 3. Cats (ERC721): 7 minted to a at 1, passed to b at 2;
    /// 3 minted to a at 1, burnt at 3. Gems (ERC1155): id 1, 5 to a and 2
    /// to b at 1, a's 5 to b at 3.
    fn shelf() -> (Times, Address, Address) {
        let mut view = Times::new(0, &[0, 10, 20, 30]);
        view.collections = vec![(CATS, ContractType::Erc721), (GEMS, ContractType::Erc1155)];
        let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let ledger = &mut view.ledger;
        let (ha, hb) = (ledger.holder(a), ledger.holder(b));
        ledger.move_erc721(Place::block(1), 0, 7, Holder::NOBODY, ha).unwrap();
        ledger.move_erc721(Place::block(1), 0, 3, Holder::NOBODY, ha).unwrap();
        ledger.move_erc1155(Place::block(1), 1, 1, Holder::NOBODY, ha, Erc1155Move::single(5, Holder::NOBODY)).unwrap();
        ledger.move_erc1155(Place::block(1), 1, 1, Holder::NOBODY, hb, Erc1155Move::single(2, Holder::NOBODY)).unwrap();
        ledger.move_erc721(Place::block(2), 0, 7, ha, hb).unwrap();
        ledger.move_erc721(Place::block(3), 0, 3, ha, Holder::NOBODY).unwrap();
        ledger.move_erc1155(Place::block(3), 1, 1, ha, hb, Erc1155Move::single(5, ha)).unwrap();
        (view, a, b)
    }

    fn owners_at(view: &Times, address: Address, token_id: Option<u32>, at: u64) -> Vec<(u64, Address, u64)> {
        let token_id = token_id.map(U256::from);
        let page = PageRequest::first(100);
        let listing = NftOwners { address, token_id, at_block: Some(at), page }.answer(view).unwrap();
        listing.page.items.iter().map(|n| (n.token_id.to::<u64>(), n.owner.unwrap(), n.amount.to::<u64>())).collect()
    }

    #[test]
    fn owners_follow_transfers_and_burns_at_each_block() {
        let (view, a, b) = shelf();
        assert_eq!(owners_at(&view, CATS, None, 1), vec![(3, a, 1), (7, a, 1)]);
        assert_eq!(owners_at(&view, CATS, None, 2), vec![(3, a, 1), (7, b, 1)]);
        assert_eq!(owners_at(&view, CATS, None, 3), vec![(7, b, 1)], "a burnt token has no owner");
        assert_eq!(owners_at(&view, CATS, Some(7), 1), vec![(7, a, 1)]);
        assert_eq!(owners_at(&view, GEMS, Some(1), 1), vec![(1, a, 5), (1, b, 2)]);
        assert_eq!(owners_at(&view, GEMS, Some(1), 3), vec![(1, b, 7)], "a holder who sent all is gone");
        assert_eq!(owners_at(&view, GEMS, Some(2), 3), vec![], "an id never minted");
        assert_eq!(owners_at(&view, Address::ZERO, None, 3), vec![], "not a collection");
    }

    #[test]
    fn a_collections_tokens_are_listed_once_each_by_id() {
        let (view, _, b) = shelf();
        let listed = |address, at| {
            let page = PageRequest::first(1);
            let question = ContractNfts { address, at_block: Some(at), page, include_prices: false, range: None };
            question.answer(&view).unwrap()
        };
        let cats = listed(CATS, 2);
        assert_eq!((cats.total, cats.page.items[0].token_id), (2, U256::from(3)));
        assert!(cats.page.next.is_some(), "a second page follows");
        let cats = listed(CATS, 3);
        assert_eq!((cats.total, cats.page.items[0].owner), (1, Some(b)));
        let gems = listed(GEMS, 3);
        let gem = &gems.page.items[0];
        assert_eq!((gem.owner, gem.amount, gem.block_number), (None, U256::from(7), 3), "all holders' amount");
    }

    #[test]
    fn runs_split_the_ids_in_equal_parts_but_the_last() {
        let runs = |run, of| only_run((1..=10).collect(), run, of);
        assert_eq!(runs(1, 3), vec![1, 2, 3, 4]);
        assert_eq!(runs(3, 3), vec![9, 10]);
        assert_eq!(runs(4, 3), Vec::<u32>::new(), "past the last run");
        assert_eq!(runs(1, 1), (1..=10).collect::<Vec<_>>());
        assert_eq!(runs(12, 12), Vec::<u32>::new(), "more runs than ids: each of one, the last ones empty");
        assert_eq!(runs(10, 12), vec![10]);
    }

    #[test]
    fn tokens_named_one_by_one_are_answered_in_order_with_gaps() {
        let (view, _, b) = shelf();
        let ask = |tokens: Vec<(Address, u32)>| {
            let tokens = tokens.into_iter().map(|(a, id)| (a, U256::from(id))).collect();
            let all = NftsById { tokens, include_prices: false, erc1155: Erc1155As::AllHolders };
            all.answer(&view).unwrap().1
        };
        let found = ask(vec![(CATS, 7), (CATS, 3), (GEMS, 1), (Address::ZERO, 1)]);
        assert_eq!(found[0].as_ref().map(|n| n.owner), Some(Some(b)));
        assert!(found[1].is_none(), "burnt");
        assert_eq!(found[2].as_ref().map(|n| (n.amount, n.owner)), Some((U256::from(7), None)));
        assert!(found[3].is_none(), "not a collection");
        let huge = NftsById { tokens: vec![(CATS, U256::MAX)], include_prices: false, erc1155: Erc1155As::AllHolders };
        assert_eq!(huge.answer(&view).unwrap().1, vec![None], "an id the ledger cannot hold is no token of it");
    }

    #[test]
    fn an_erc1155_token_read_as_an_owners_item_is_its_largest_holding() {
        let (mut view, a, b) = shelf();
        let largest = |view: &Times| {
            let tokens = vec![(GEMS, U256::from(1))];
            let question = NftsById { tokens, include_prices: false, erc1155: Erc1155As::LargestHolder };
            let found = question.answer(view).unwrap().1.remove(0).unwrap();
            (found.owner, found.amount.to::<u64>(), found.block_number)
        };
        assert_eq!(largest(&view), (Some(b), 7, 3));
        view.ledger.rollback_to(1);
        assert_eq!(largest(&view), (Some(a), 5, 1), "5 of 7 at block 1");
        let c = view.ledger.holder(Address::repeat_byte(3));
        let hb = view.ledger.find(b).unwrap();
        view.ledger.move_erc1155(Place::block(2), 1, 1, hb, c, Erc1155Move::single(2, hb)).unwrap();
        view.ledger
            .move_erc1155(Place::block(2), 1, 1, Holder::NOBODY, c, Erc1155Move::single(3, Holder::NOBODY))
            .unwrap();
        assert_eq!(largest(&view), (Some(a), 5, 1), "a has 5 and c 5: the first to get it");
    }

    #[test]
    fn the_ledger_forgets_tokens_and_holders_a_rollback_undoes() {
        let (mut view, _, _) = shelf();
        view.ledger.rollback_to(1);
        assert_eq!(view.ledger.tokens_of(0), &[7, 3]);
        view.ledger.rollback_to(0);
        assert!(view.ledger.tokens_of(0).is_empty() && view.ledger.holders_of(1, 1).is_empty());
    }
}
