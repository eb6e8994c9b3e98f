//! Balances from transfers: what a decoded log moves, applied to the
//! ledger. The devnet applies its own blocks' logs this way, and an indexer
//! those of a node's blocks, so both answer from one reading of the token
//! standards.

use alloy_primitives::{Address, U256};

use crate::events::Event;
use crate::ledger::{Asset, Erc1155Move, Holder, Ledger, LedgerError, NftId, Place};

/// What the ledger knows contracts as.
pub trait Contracts {
    /// The asset of an ERC20 token contract (the wrapped native token's included).
    fn asset(&self, contract: Address) -> Option<Asset>;
    /// The collection index of an NFT contract.
    fn collection(&self, contract: Address) -> Option<u16>;
}

impl<Id: NftId + TryFrom<U256>> Ledger<Id> {
    /// Applies what `event`, logged by `contract` at `at`, moves:
    /// - ERC20 transfers, mints and burns of a known token;
    /// - `Deposit` (a mint) and `Withdrawal` (a burn) of a known token;
    /// - ERC721 and ERC1155 transfers of a known collection, each token of
    ///   a batch in turn (those before a refused one stay moved).
    ///
    /// Every other event, and events of contracts `contracts` does not
    /// know, move nothing.
    pub fn apply_event(
        &mut self,
        at: Place,
        contract: Address,
        event: &Event,
        contracts: &impl Contracts,
    ) -> Result<(), LedgerError> {
        match event {
            Event::Erc20Transfer { from, to, value } => {
                let Some(asset) = contracts.asset(contract) else { return Ok(()) };
                let amount = fungible_amount(contract, *value)?;
                let (from, to) = (self.holder(*from), self.holder(*to));
                self.move_fungible(at, asset, from, to, amount)
            }
            Event::Deposit { to, value } => {
                let Some(asset) = contracts.asset(contract) else { return Ok(()) };
                let amount = fungible_amount(contract, *value)?;
                let to = self.holder(*to);
                self.move_fungible(at, asset, Holder::NOBODY, to, amount)
            }
            Event::Withdrawal { from, value } => {
                let Some(asset) = contracts.asset(contract) else { return Ok(()) };
                let amount = fungible_amount(contract, *value)?;
                let from = self.holder(*from);
                self.move_fungible(at, asset, from, Holder::NOBODY, amount)
            }
            Event::NftTransfers { operator, from, to, tokens, erc1155, batch } => {
                let Some(collection) = contracts.collection(contract) else { return Ok(()) };
                let (from, to) = (self.holder(*from), self.holder(*to));
                let operator = operator.map(|operator| self.holder(operator));
                for (id, amount) in tokens {
                    let id = Id::try_from(*id).map_err(|_| LedgerError::IdTooLarge { contract, id: *id })?;
                    if *erc1155 {
                        let amount = u64::try_from(*amount).map_err(|_| LedgerError::AmountTooLarge {
                            contract,
                            value: *amount,
                            limit: u128::from(u64::MAX),
                        })?;
                        let operator = operator.unwrap_or(from);
                        self.move_erc1155(
                            at,
                            collection,
                            id,
                            from,
                            to,
                            Erc1155Move { amount, operator, batch: *batch },
                        )?;
                    } else {
                        self.move_erc721(at, collection, id, from, to)?;
                    }
                }
                Ok(())
            }
            Event::Erc20Approval { .. }
            | Event::NftApproval { .. }
            | Event::ApprovalForAll { .. }
            | Event::PairCreated { .. }
            | Event::Sync { .. } => Ok(()),
        }
    }
}

/// A value of the ledger that applying an event reads before it changes
/// it: what a ledger holding one window of blocks must be given first (see
/// [`Ledger::carry_balance`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Read {
    /// A holder's balance of an asset.
    Balance(Address, Asset),
    /// An asset's supply.
    Supply(Asset),
    /// An ERC721 token's owner: (collection, id).
    Owner(u16, U256),
    /// A holder's amount of an ERC1155 token: (holder, collection, id).
    Amount(Address, u16, U256),
}

/// What [`Ledger::apply_event`] reads of the ledger to apply `event`, as
/// `contracts` name them. It may name more than is read (both sides of a
/// transfer), never less.
pub fn reads(contract: Address, event: &Event, contracts: &impl Contracts) -> Vec<Read> {
    let fungible = |asset: Option<Asset>, sides: &[Address]| {
        let Some(asset) = asset else { return Vec::new() };
        let balances = sides.iter().map(|side| Read::Balance(*side, asset));
        balances.chain([Read::Supply(asset)]).collect()
    };
    match event {
        Event::Erc20Transfer { from, to, .. } => fungible(contracts.asset(contract), &[*from, *to]),
        Event::Deposit { to, .. } => fungible(contracts.asset(contract), &[*to]),
        Event::Withdrawal { from, .. } => fungible(contracts.asset(contract), &[*from]),
        Event::NftTransfers { from, to, tokens, erc1155, .. } => {
            let Some(collection) = contracts.collection(contract) else { return Vec::new() };
            let read = |(id, _): &(U256, U256)| {
                if *erc1155 {
                    vec![Read::Amount(*from, collection, *id), Read::Amount(*to, collection, *id)]
                } else {
                    vec![Read::Owner(collection, *id)]
                }
            };
            tokens.iter().flat_map(read).collect()
        }
        Event::Erc20Approval { .. }
        | Event::NftApproval { .. }
        | Event::ApprovalForAll { .. }
        | Event::PairCreated { .. }
        | Event::Sync { .. } => Vec::new(),
    }
}

fn fungible_amount(contract: Address, value: U256) -> Result<u128, LedgerError> {
    u128::try_from(value).map_err(|_| LedgerError::AmountTooLarge { contract, value, limit: u128::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: Address = Address::repeat_byte(0xa0);
    const WRAPPED: Address = Address::repeat_byte(0xa1);
    const NFTS: Address = Address::repeat_byte(0xa2);

    struct Known;

    impl Contracts for Known {
        fn asset(&self, contract: Address) -> Option<Asset> {
            [(WRAPPED, Asset::WRAPPED), (TOKEN, Asset(3))].into_iter().find(|(a, _)| *a == contract).map(|(_, s)| s)
        }
        fn collection(&self, contract: Address) -> Option<u16> {
            (contract == NFTS).then_some(0)
        }
    }

    fn transfer(from: Address, to: Address, value: u64) -> Event {
        Event::Erc20Transfer { from, to, value: U256::from(value) }
    }

    #[test]
    fn transfers_deposits_and_withdrawals_move_known_tokens_only() {
        let (alice, bob) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let mut ledger: Ledger = Ledger::new();
        ledger.apply_event(Place::block(1), TOKEN, &transfer(Address::ZERO, alice, 100), &Known).unwrap();
        ledger.apply_event(Place::block(2), TOKEN, &transfer(alice, bob, 30), &Known).unwrap();
        ledger.apply_event(Place::block(2), Address::repeat_byte(0xff), &transfer(alice, bob, 1_000), &Known).unwrap();
        ledger
            .apply_event(Place::block(3), WRAPPED, &Event::Deposit { to: bob, value: U256::from(8) }, &Known)
            .unwrap();
        ledger
            .apply_event(Place::block(4), WRAPPED, &Event::Withdrawal { from: bob, value: U256::from(3) }, &Known)
            .unwrap();
        let (a, b) = (ledger.find(alice).unwrap(), ledger.find(bob).unwrap());
        assert_eq!((ledger.balance(a, Asset(3)), ledger.balance(b, Asset(3))), (70, 30));
        assert_eq!((ledger.balance(b, Asset::WRAPPED), ledger.supply(Asset::WRAPPED)), (5, 5));
        assert_eq!(ledger.balance_at(b, Asset::WRAPPED, 3), 8);
        assert_eq!(ledger.movements().len(), 4, "the unknown contract's transfer moved nothing");
    }

    #[test]
    fn amounts_and_ids_past_the_ledger_are_refused_by_name() {
        let alice = Address::repeat_byte(1);
        let mut ledger: Ledger = Ledger::new();
        let huge = Event::Erc20Transfer { from: Address::ZERO, to: alice, value: U256::MAX };
        let refused = ledger.apply_event(Place::block(1), TOKEN, &huge, &Known).unwrap_err();
        assert!(matches!(refused, LedgerError::AmountTooLarge { contract: TOKEN, .. }), "{refused}");
        let big_id = U256::from(u64::MAX);
        let nft = Event::NftTransfers {
            operator: None,
            from: Address::ZERO,
            to: alice,
            tokens: vec![(big_id, U256::from(1))],
            erc1155: false,
            batch: false,
        };
        assert_eq!(
            ledger.apply_event(Place::block(1), NFTS, &nft, &Known),
            Err(LedgerError::IdTooLarge { contract: NFTS, id: big_id })
        );
        let mut wide: Ledger<U256> = Ledger::new();
        wide.apply_event(Place::block(1), NFTS, &nft, &Known).unwrap();
        assert_eq!(wide.erc721_owner(0, big_id), wide.find(alice), "a U256 ledger takes any id");
    }

    #[test]
    fn a_batch_moves_each_token() {
        let (alice, bob) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let mut ledger: Ledger = Ledger::new();
        let tokens = vec![(U256::from(1), U256::from(5)), (U256::from(2), U256::from(7))];
        let mint = Event::NftTransfers {
            operator: Some(alice),
            from: Address::ZERO,
            to: alice,
            tokens,
            erc1155: true,
            batch: true,
        };
        ledger.apply_event(Place::block(1), NFTS, &mint, &Known).unwrap();
        let tokens = vec![(U256::from(2), U256::from(3))];
        let send =
            Event::NftTransfers { operator: Some(alice), from: alice, to: bob, tokens, erc1155: true, batch: true };
        ledger.apply_event(Place::block(2), NFTS, &send, &Known).unwrap();
        let (a, b) = (ledger.find(alice).unwrap(), ledger.find(bob).unwrap());
        assert_eq!(
            [ledger.erc1155_amount(a, 0, 1), ledger.erc1155_amount(a, 0, 2), ledger.erc1155_amount(b, 0, 2)],
            [5, 4, 3]
        );
    }
}
