//! What the unit tests of several answers read.

use w3api_source::CollectionInfo;
use w3api_types::{Address, ContractType};

/// An ERC721 collection flagged as spam, not verified.
pub(crate) fn collection_info() -> CollectionInfo {
    CollectionInfo {
        address: Address::repeat_byte(9),
        contract_type: ContractType::Erc721,
        name: "Things".into(),
        symbol: "THG".into(),
        possible_spam: true,
        verified: false,
        logo: None,
        banner: None,
    }
}
