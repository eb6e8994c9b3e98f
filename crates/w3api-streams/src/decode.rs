//! The token events a payload decodes for free, whatever the stream's ABI:
//! ERC20 `Transfer` and `Approval`, ERC721 `Transfer`, `Approval` and
//! `ApprovalForAll`, and ERC1155 `TransferSingle` and `TransferBatch`.
//! ERC20 and ERC721 share `Transfer` and `Approval`: the number of topics
//! (the token id is indexed in ERC721) tells them apart.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolEvent, sol};

mod erc20 {
    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 value);
        event Approval(address indexed owner, address indexed spender, uint256 value);
    }
}

mod erc721 {
    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
        event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
        event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    }
}

sol! {
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
}

/// A token event, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenEvent {
    /// An ERC20 transfer.
    Erc20Transfer { from: Address, to: Address, value: U256 },
    /// An ERC20 allowance.
    Erc20Approval { owner: Address, spender: Address, value: U256 },
    /// NFT transfers (several for a batch): `operator` is ERC1155's.
    NftTransfers { operator: Option<Address>, from: Address, to: Address, tokens: Vec<(U256, U256)>, erc1155: bool },
    /// An ERC721 approval of one token.
    NftApproval { owner: Address, approved: Address, token_id: U256 },
    /// An approval of every token of the owner.
    ApprovalForAll { owner: Address, operator: Address, approved: bool },
}

/// The token event a log is, if it is one.
pub(crate) fn token_event(topics: &[B256], data: &Bytes) -> Option<TokenEvent> {
    let topic0 = *topics.first()?;
    let indexed = topics.len();
    let event = if topic0 == erc20::Transfer::SIGNATURE_HASH && indexed == 3 {
        let e = erc20::Transfer::decode_raw_log(topics.iter().copied(), data).ok()?;
        TokenEvent::Erc20Transfer { from: e.from, to: e.to, value: e.value }
    } else if topic0 == erc721::Transfer::SIGNATURE_HASH && indexed == 4 {
        let e = erc721::Transfer::decode_raw_log(topics.iter().copied(), data).ok()?;
        TokenEvent::NftTransfers {
            operator: None,
            from: e.from,
            to: e.to,
            tokens: vec![(e.tokenId, U256::from(1))],
            erc1155: false,
        }
    } else if topic0 == erc20::Approval::SIGNATURE_HASH && indexed == 3 {
        let e = erc20::Approval::decode_raw_log(topics.iter().copied(), data).ok()?;
        TokenEvent::Erc20Approval { owner: e.owner, spender: e.spender, value: e.value }
    } else if topic0 == erc721::Approval::SIGNATURE_HASH && indexed == 4 {
        let e = erc721::Approval::decode_raw_log(topics.iter().copied(), data).ok()?;
        TokenEvent::NftApproval { owner: e.owner, approved: e.approved, token_id: e.tokenId }
    } else if topic0 == erc721::ApprovalForAll::SIGNATURE_HASH {
        let e = erc721::ApprovalForAll::decode_raw_log(topics.iter().copied(), data).ok()?;
        TokenEvent::ApprovalForAll { owner: e.owner, operator: e.operator, approved: e.approved }
    } else if topic0 == TransferSingle::SIGNATURE_HASH {
        let e = TransferSingle::decode_raw_log(topics.iter().copied(), data).ok()?;
        TokenEvent::NftTransfers {
            operator: Some(e.operator),
            from: e.from,
            to: e.to,
            tokens: vec![(e.id, e.value)],
            erc1155: true,
        }
    } else if topic0 == TransferBatch::SIGNATURE_HASH {
        let e = TransferBatch::decode_raw_log(topics.iter().copied(), data).ok()?;
        if e.ids.len() != e.values.len() {
            return None;
        }
        let tokens = e.ids.into_iter().zip(e.values).collect();
        TokenEvent::NftTransfers { operator: Some(e.operator), from: e.from, to: e.to, tokens, erc1155: true }
    } else {
        return None;
    };
    Some(event)
}

#[cfg(test)]
mod tests {
    use alloy_sol_types::SolEvent;

    use super::*;

    #[test]
    fn erc20_and_erc721_transfers_are_told_apart_by_their_topics() {
        let (from, to) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let fungible = erc20::Transfer { from, to, value: U256::from(5) };
        let data = fungible.encode_log_data();
        assert_eq!(
            token_event(data.topics(), &data.data),
            Some(TokenEvent::Erc20Transfer { from, to, value: U256::from(5) })
        );
        let nft = erc721::Transfer { from, to, tokenId: U256::from(7) };
        let data = nft.encode_log_data();
        assert_eq!(
            token_event(data.topics(), &data.data),
            Some(TokenEvent::NftTransfers {
                operator: None,
                from,
                to,
                tokens: vec![(U256::from(7), U256::from(1))],
                erc1155: false
            })
        );
        let batch = TransferBatch {
            operator: from,
            from,
            to,
            ids: vec![U256::from(1), U256::from(2)],
            values: vec![U256::from(3), U256::from(4)],
        };
        let data = batch.encode_log_data();
        let Some(TokenEvent::NftTransfers { tokens, erc1155: true, .. }) = token_event(data.topics(), &data.data)
        else {
            panic!("a batch is NFT transfers")
        };
        assert_eq!(tokens, vec![(U256::from(1), U256::from(3)), (U256::from(2), U256::from(4))]);
        assert_eq!(token_event(&[B256::repeat_byte(9)], &Bytes::new()), None, "another event is none");
    }
}
