//! The events the ledger and the streams payloads read from logs, decoded
//! with alloy's `sol!` types:
//! - ERC20 `Transfer` and `Approval`; wrapped-native `Deposit` and `Withdrawal`;
//! - ERC721 `Transfer`, `Approval` and `ApprovalForAll`;
//! - ERC1155 `TransferSingle` and `TransferBatch`;
//! - Uniswap-v2-style `PairCreated` (factory) and `Sync` (pair).
//!
//! ERC20 and ERC721 share `Transfer` and `Approval`: the number of topics
//! (the token id is indexed in ERC721) tells them apart.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolEvent;

mod erc20 {
    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 value);
        event Approval(address indexed owner, address indexed spender, uint256 value);
        event Deposit(address indexed dst, uint256 wad);
        event Withdrawal(address indexed src, uint256 wad);
    }
}

mod erc721 {
    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
        event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
        event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    }
}

mod erc1155 {
    alloy_sol_types::sol! {
        event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
        event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    }
}

/// Uniswap v2's factory and pair events.
mod pair {
    alloy_sol_types::sol! {
        event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index);
        event Sync(uint112 reserve0, uint112 reserve1);
    }
}

/// An event of a log, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// An ERC20 transfer (from the zero address: a mint; to it: a burn).
    Erc20Transfer {
        /// Sender.
        from: Address,
        /// Recipient.
        to: Address,
        /// Raw amount.
        value: U256,
    },
    /// An ERC20 allowance.
    Erc20Approval {
        /// The holder.
        owner: Address,
        /// Who may spend.
        spender: Address,
        /// How much.
        value: U256,
    },
    /// Native currency wrapped: the wrapped token minted to `to`.
    Deposit {
        /// Recipient.
        to: Address,
        /// Raw amount.
        value: U256,
    },
    /// Wrapped native currency unwrapped: the wrapped token burned from `from`.
    Withdrawal {
        /// Who unwrapped.
        from: Address,
        /// Raw amount.
        value: U256,
    },
    /// NFT transfers (several for a batch): `operator` is ERC1155's.
    NftTransfers {
        /// ERC1155's operator; `None` for ERC721.
        operator: Option<Address>,
        /// Sender (the zero address for a mint).
        from: Address,
        /// Recipient (the zero address for a burn).
        to: Address,
        /// `(token id, amount)` pairs; the amount is 1 for ERC721.
        tokens: Vec<(U256, U256)>,
        /// Whether the event is ERC1155's.
        erc1155: bool,
        /// Whether it is ERC1155's `TransferBatch` (of any number of ids).
        batch: bool,
    },
    /// An ERC721 approval of one token.
    NftApproval {
        /// The owner.
        owner: Address,
        /// Who may move it.
        approved: Address,
        /// The token.
        token_id: U256,
    },
    /// An approval of every token of the owner.
    ApprovalForAll {
        /// The owner.
        owner: Address,
        /// Who may move them.
        operator: Address,
        /// Given or taken back.
        approved: bool,
    },
    /// A factory created a pair.
    PairCreated {
        /// The side with the lower address.
        token0: Address,
        /// The other side.
        token1: Address,
        /// The pair's address.
        pair: Address,
    },
    /// A pair's reserves after a change.
    Sync {
        /// Reserve of `token0`.
        reserve0: u128,
        /// Reserve of `token1`.
        reserve1: u128,
    },
}

/// The event a log is, if it is one of [`Event`]'s.
pub fn decode(topics: &[B256], data: &Bytes) -> Option<Event> {
    let topic0 = *topics.first()?;
    let topics = || topics.iter().copied();
    let indexed = topics().len();
    let event = match topic0 {
        erc20::Transfer::SIGNATURE_HASH if indexed == 3 => {
            let e = erc20::Transfer::decode_raw_log(topics(), data).ok()?;
            Event::Erc20Transfer { from: e.from, to: e.to, value: e.value }
        }
        erc721::Transfer::SIGNATURE_HASH if indexed == 4 => {
            let e = erc721::Transfer::decode_raw_log(topics(), data).ok()?;
            let tokens = vec![(e.tokenId, U256::from(1))];
            Event::NftTransfers { operator: None, from: e.from, to: e.to, tokens, erc1155: false, batch: false }
        }
        erc20::Approval::SIGNATURE_HASH if indexed == 3 => {
            let e = erc20::Approval::decode_raw_log(topics(), data).ok()?;
            Event::Erc20Approval { owner: e.owner, spender: e.spender, value: e.value }
        }
        erc721::Approval::SIGNATURE_HASH if indexed == 4 => {
            let e = erc721::Approval::decode_raw_log(topics(), data).ok()?;
            Event::NftApproval { owner: e.owner, approved: e.approved, token_id: e.tokenId }
        }
        erc721::ApprovalForAll::SIGNATURE_HASH => {
            let e = erc721::ApprovalForAll::decode_raw_log(topics(), data).ok()?;
            Event::ApprovalForAll { owner: e.owner, operator: e.operator, approved: e.approved }
        }
        erc20::Deposit::SIGNATURE_HASH => {
            let e = erc20::Deposit::decode_raw_log(topics(), data).ok()?;
            Event::Deposit { to: e.dst, value: e.wad }
        }
        erc20::Withdrawal::SIGNATURE_HASH => {
            let e = erc20::Withdrawal::decode_raw_log(topics(), data).ok()?;
            Event::Withdrawal { from: e.src, value: e.wad }
        }
        erc1155::TransferSingle::SIGNATURE_HASH => {
            let e = erc1155::TransferSingle::decode_raw_log(topics(), data).ok()?;
            erc1155_transfers(e.operator, e.from, e.to, vec![(e.id, e.value)], false)
        }
        erc1155::TransferBatch::SIGNATURE_HASH => {
            let e = erc1155::TransferBatch::decode_raw_log(topics(), data).ok()?;
            if e.ids.len() != e.values.len() {
                return None;
            }
            erc1155_transfers(e.operator, e.from, e.to, e.ids.into_iter().zip(e.values).collect(), true)
        }
        pair::PairCreated::SIGNATURE_HASH => {
            let e = pair::PairCreated::decode_raw_log(topics(), data).ok()?;
            Event::PairCreated { token0: e.token0, token1: e.token1, pair: e.pair }
        }
        pair::Sync::SIGNATURE_HASH => {
            let e = pair::Sync::decode_raw_log(topics(), data).ok()?;
            Event::Sync { reserve0: e.reserve0.to(), reserve1: e.reserve1.to() }
        }
        _ => return None,
    };
    Some(event)
}

/// ERC1155's transfers, of one id (`TransferSingle`) or of a batch.
fn erc1155_transfers(operator: Address, from: Address, to: Address, tokens: Vec<(U256, U256)>, batch: bool) -> Event {
    Event::NftTransfers { operator: Some(operator), from, to, tokens, erc1155: true, batch }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::LogData;

    use super::*;

    fn decoded(data: LogData) -> Option<Event> {
        decode(data.topics(), &data.data)
    }

    #[test]
    fn erc20_and_erc721_transfers_are_told_apart_by_their_topics() {
        let (from, to) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let fungible = erc20::Transfer { from, to, value: U256::from(5) };
        assert_eq!(decoded(fungible.encode_log_data()), Some(Event::Erc20Transfer { from, to, value: U256::from(5) }));
        let nft = erc721::Transfer { from, to, tokenId: U256::from(7) };
        let tokens = vec![(U256::from(7), U256::from(1))];
        assert_eq!(
            decoded(nft.encode_log_data()),
            Some(Event::NftTransfers { operator: None, from, to, tokens, erc1155: false, batch: false })
        );
    }

    #[test]
    fn a_batch_is_one_transfer_per_id_and_a_ragged_one_is_none() {
        let (from, to) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let ids = vec![U256::from(1), U256::from(2)];
        let batch =
            erc1155::TransferBatch { operator: from, from, to, ids, values: vec![U256::from(3), U256::from(4)] };
        let Some(Event::NftTransfers { tokens, erc1155: true, batch: true, .. }) = decoded(batch.encode_log_data())
        else {
            panic!("a batch is NFT transfers")
        };
        assert_eq!(tokens, vec![(U256::from(1), U256::from(3)), (U256::from(2), U256::from(4))]);
        let ragged = erc1155::TransferBatch { operator: from, from, to, ids: vec![U256::from(1)], values: vec![] };
        assert_eq!(decoded(ragged.encode_log_data()), None);
    }

    #[test]
    fn wrapping_and_pairs_are_decoded() {
        let who = Address::repeat_byte(3);
        let deposit = erc20::Deposit { dst: who, wad: U256::from(9) };
        assert_eq!(decoded(deposit.encode_log_data()), Some(Event::Deposit { to: who, value: U256::from(9) }));
        let withdrawal = erc20::Withdrawal { src: who, wad: U256::from(4) };
        assert_eq!(decoded(withdrawal.encode_log_data()), Some(Event::Withdrawal { from: who, value: U256::from(4) }));
        let (token0, token1, pair) = (Address::repeat_byte(4), Address::repeat_byte(5), Address::repeat_byte(6));
        let created = pair::PairCreated { token0, token1, pair, index: U256::from(1) };
        assert_eq!(decoded(created.encode_log_data()), Some(Event::PairCreated { token0, token1, pair }));
        let reserves =
            pair::Sync { reserve0: alloy_primitives::Uint::from(10u64), reserve1: alloy_primitives::Uint::MAX };
        assert_eq!(
            decoded(reserves.encode_log_data()),
            Some(Event::Sync { reserve0: 10, reserve1: (1u128 << 112) - 1 })
        );
    }

    #[test]
    fn other_and_malformed_logs_are_none() {
        assert_eq!(decode(&[B256::repeat_byte(9)], &Bytes::new()), None, "another event");
        assert_eq!(decode(&[], &Bytes::new()), None, "no topics");
        let short = erc20::Transfer { from: Address::ZERO, to: Address::ZERO, value: U256::ZERO }.encode_log_data();
        assert_eq!(decode(short.topics(), &Bytes::from_static(&[1, 2])), None, "data too short");
    }
}
