//! How much a devnet chain holds.

/// Sizes of a generated chain. Everything else (which wallet does what,
/// prices, metadata) follows from the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scale {
    /// Ordinary wallets, which transfer, mint and trade NFTs.
    pub wallets: u32,
    /// Accounts that only swap on the DEXes, so that ordinary wallets move
    /// ERC20 tokens by `transfer` calls alone.
    pub traders: u32,
    /// Blocks after genesis, 12 seconds apart.
    pub blocks: u64,
    /// Transactions in all, setup (deployments, liquidity, token
    /// distribution) included.
    pub transactions: u64,
    /// Ordinary ERC20 tokens (besides the wrapped native token and the USD stablecoin).
    pub tokens: u16,
    /// Spam ERC20 tokens, airdropped to many wallets.
    pub spam_tokens: u16,
    /// ERC721 collections.
    pub erc721_collections: u16,
    /// ERC1155 collections.
    pub erc1155_collections: u16,
    /// Token ids of each ERC721 collection.
    pub erc721_supply: u32,
    /// Token ids of each ERC1155 collection.
    pub erc1155_ids: u32,
    /// Most transactions in one block (blocks are also held to the gas target).
    pub max_block_transactions: u32,
}

impl Scale {
    /// What `w3api serve` uses by default: a little over a day of blocks, so
    /// that 24-hour price changes exist, generated in well under a second.
    pub const DEFAULT: Scale = Scale {
        wallets: 300,
        traders: 8,
        blocks: 8_000,
        transactions: 8_000,
        tokens: 20,
        spam_tokens: 3,
        erc721_collections: 3,
        erc1155_collections: 2,
        erc721_supply: 120,
        erc1155_ids: 12,
        max_block_transactions: 150,
    };

    /// Over a million transactions among a hundred thousand wallets. The
    /// target has a margin because random draws that are not possible at
    /// that moment (a wallet with nothing to send) are skipped.
    pub const LARGE: Scale = Scale {
        wallets: 100_000,
        traders: 400,
        blocks: 12_000,
        transactions: 1_020_000,
        tokens: 60,
        spam_tokens: 10,
        erc721_collections: 30,
        erc1155_collections: 10,
        erc721_supply: 5_000,
        erc1155_ids: 50,
        max_block_transactions: 150,
    };

    /// A few hundred blocks, for tests that replay history naively.
    pub const TINY: Scale = Scale {
        wallets: 24,
        traders: 3,
        blocks: 400,
        transactions: 500,
        tokens: 4,
        spam_tokens: 1,
        erc721_collections: 2,
        erc1155_collections: 1,
        erc721_supply: 20,
        erc1155_ids: 4,
        max_block_transactions: 40,
    };
}
