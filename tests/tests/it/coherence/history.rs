//! The whole `eth` chain read back through the RPC client, once per test
//! binary: every block with its full transactions (`eth_getBlockByNumber(n,
//! true)`, many blocks per batch), each transaction's input decoded into the
//! call it makes.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use alloy_sol_types::SolCall;
use futures::{StreamExt, TryStreamExt, stream};
use w3api_rpc::RpcClient;
use w3api_tests::local::Session;
use w3api_types::rpc::{Block, BlockNumberOrTag, BlockTransactions, Transaction};
use w3api_types::{Address, U256};

use crate::coherence::abi::{Erc20, Erc721, Erc1155, Marketplace, Router};

/// Blocks asked for in one batch.
const BATCH: u64 = 400;

/// What a transaction does, read from its target and input.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Call {
    /// No input: a plain transfer of the native currency.
    Native,
    /// A contract creation.
    Creation,
    /// ERC20 `transfer(to, amount)` on `token`, from the sender.
    Erc20Transfer { token: Address, to: Address, amount: U256 },
    /// ERC721 `safeMint(to, id)` (`from` is `None`) or `transferFrom(from, to, id)`.
    Erc721 { collection: Address, from: Option<Address>, to: Address, id: U256 },
    /// ERC1155 `mint(to, id, amount, _)` (`from` is `None`) or `safeTransferFrom(from, to, id, amount, _)`.
    Erc1155 { collection: Address, from: Option<Address>, to: Address, id: U256, amount: U256 },
    /// A DEX router swap paying out to `to`.
    Swap { to: Address },
    /// A marketplace `buy`: the sender pays `price` of `payment_token` (the
    /// native currency, sent as value, when it is zero) to `seller` for
    /// ERC721 token `id` of `collection`.
    Sale { marketplace: Address, collection: Address, id: U256, seller: Address, payment_token: Address, price: U256 },
    /// An ERC20 `approve` or an NFT `setApprovalForAll`, or a marketplace
    /// `list`: permissions and offers, which move nothing.
    Permission { target: Address },
    /// Anything else (deployments' follow-ups, wrapping, pair funding).
    Other { target: Address, selector: Vec<u8> },
}

/// A decoded transaction and where it is.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Located {
    /// Block number.
    pub block: u64,
    /// The sender.
    pub from: Address,
    /// What it does.
    pub call: Call,
}

/// Every block, and every transaction's call in chain order.
pub(super) struct History {
    /// Blocks by number, with full transactions.
    pub blocks: Vec<Block>,
    /// Calls of every transaction, in block and index order.
    pub calls: Vec<Located>,
}

/// The history, read on first use.
pub(super) fn history() -> &'static History {
    static HISTORY: OnceLock<History> = OnceLock::new();
    HISTORY.get_or_init(|| {
        let session = Session::new();
        let rpc = session.rpc();
        let blocks = session.run(read_chain(&rpc));
        // The reading itself went through the checking layer.
        session.finish();
        let calls = blocks.iter().flat_map(|b| full(b).iter().map(move |tx| locate(b.number, tx))).collect();
        History { blocks, calls }
    })
}

async fn read_chain(rpc: &RpcClient) -> Vec<Block> {
    let latest = rpc.get_block_by_number(BlockNumberOrTag::Latest, false).await.unwrap().expect("a latest block");
    let ranges: Vec<(u64, u64)> =
        (0..=latest.number).step_by(BATCH as usize).map(|s| (s, (s + BATCH - 1).min(latest.number))).collect();
    let chunks: Vec<Vec<Block>> = stream::iter(ranges)
        .map(|(first, last)| read_blocks(rpc, first, last))
        .buffered(2)
        .try_collect()
        .await
        .unwrap();
    let blocks: Vec<Block> = chunks.into_iter().flatten().collect();
    for (number, block) in blocks.iter().enumerate() {
        assert_eq!(block.number, number as u64, "blocks come back in order");
    }
    blocks
}

async fn read_blocks(rpc: &RpcClient, first: u64, last: u64) -> Result<Vec<Block>, w3api_rpc::RpcError> {
    let mut batch = rpc.batch();
    let items: Vec<_> = (first..=last).map(|n| batch.get_block_by_number(BlockNumberOrTag::Number(n), true)).collect();
    let answers = batch.send().await?;
    items
        .iter()
        .map(|item| Ok(answers.get(item)?.unwrap_or_else(|| panic!("block {first}..={last} missing"))))
        .collect()
}

/// The full transactions of a block.
pub(super) fn full(block: &Block) -> &[Transaction] {
    match &block.transactions {
        BlockTransactions::Full(transactions) => transactions,
        BlockTransactions::Hashes(hashes) if hashes.is_empty() => &[],
        BlockTransactions::Hashes(_) => panic!("block {} came with hashes only", block.number),
    }
}

fn locate(block: u64, tx: &Transaction) -> Located {
    Located { block, from: tx.from, call: decode(tx) }
}

/// Reads what a transaction does from its target and input.
pub(super) fn decode(tx: &Transaction) -> Call {
    let input = tx.input.parsed().expect("the gateway sends well-formed input");
    let Some(target) = tx.to else { return Call::Creation };
    if input.is_empty() {
        return Call::Native;
    }
    let selector: [u8; 4] = input.get(..4).and_then(|s| s.try_into().ok()).unwrap_or_default();
    let decoded = match selector {
        Erc20::transferCall::SELECTOR => Erc20::transferCall::abi_decode(input).map(|c| Call::Erc20Transfer {
            token: target,
            to: c.to,
            amount: c.amount,
        }),
        Erc721::safeMintCall::SELECTOR => Erc721::safeMintCall::abi_decode(input).map(|c| Call::Erc721 {
            collection: target,
            from: None,
            to: c.to,
            id: c.tokenId,
        }),
        Erc721::transferFromCall::SELECTOR => Erc721::transferFromCall::abi_decode(input).map(|c| Call::Erc721 {
            collection: target,
            from: Some(c.from),
            to: c.to,
            id: c.tokenId,
        }),
        Erc1155::mintCall::SELECTOR => Erc1155::mintCall::abi_decode(input).map(|c| Call::Erc1155 {
            collection: target,
            from: None,
            to: c.to,
            id: c.id,
            amount: c.amount,
        }),
        Erc1155::safeTransferFromCall::SELECTOR => Erc1155::safeTransferFromCall::abi_decode(input)
            .map(|c| Call::Erc1155 { collection: target, from: Some(c.from), to: c.to, id: c.id, amount: c.amount }),
        Router::swapExactTokensForTokensCall::SELECTOR => {
            Router::swapExactTokensForTokensCall::abi_decode(input).map(|c| Call::Swap { to: c.to })
        }
        Marketplace::buyCall::SELECTOR => Marketplace::buyCall::abi_decode(input).map(|c| Call::Sale {
            marketplace: target,
            collection: c.collection,
            id: c.tokenId,
            seller: c.seller,
            payment_token: c.paymentToken,
            price: c.price,
        }),
        Erc20::approveCall::SELECTOR | Erc721::setApprovalForAllCall::SELECTOR | Marketplace::listCall::SELECTOR => {
            return Call::Permission { target };
        }
        _ => return Call::Other { target, selector: input[..input.len().min(4)].to_vec() },
    };
    decoded.unwrap_or_else(|e| panic!("transaction {}: input with a known selector does not decode: {e}", tx.hash))
}

impl History {
    /// The newest block number.
    pub(super) fn latest(&self) -> u64 {
        self.blocks.len() as u64 - 1
    }

    /// Calls in blocks `0..=block`.
    pub(super) fn calls_until(&self, block: u64) -> impl Iterator<Item = &Located> {
        self.calls.iter().take_while(move |c| c.block <= block)
    }

    /// Why `wallet`'s ERC20 balances might not be the sum of `transfer`
    /// calls and marketplace payments: it sent something other than a native
    /// transfer, an ERC20 `transfer`, an NFT call, a purchase, an approval
    /// or a listing, or a swap paid out to it. `None` when its tokens only ever moved by those.
    pub(super) fn other_token_movements(&self, wallet: Address) -> Option<String> {
        self.calls.iter().find_map(|c| {
            let sent_other = c.from == wallet
                && !matches!(
                    c.call,
                    Call::Native
                        | Call::Erc20Transfer { .. }
                        | Call::Erc721 { .. }
                        | Call::Erc1155 { .. }
                        | Call::Sale { .. }
                        | Call::Permission { .. }
                );
            let swapped_to = matches!(c.call, Call::Swap { to } if to == wallet);
            (sent_other || swapped_to).then(|| format!("block {}: {:?} from {}", c.block, c.call, c.from))
        })
    }

    /// The non-zero ERC20 balances of `wallet` after block `block`: the sum
    /// of the `transfer` calls and marketplace payments to it minus those
    /// from it, by token.
    pub(super) fn erc20_balances(&self, wallet: Address, block: u64) -> Result<BTreeMap<Address, U256>, String> {
        let mut received: BTreeMap<Address, U256> = BTreeMap::new();
        let mut sent: BTreeMap<Address, U256> = BTreeMap::new();
        for located in self.calls_until(block) {
            let (token, to, amount) = match located.call {
                Call::Erc20Transfer { token, to, amount } => (token, to, amount),
                Call::Sale { seller, payment_token, price, .. } if !payment_token.is_zero() => {
                    (payment_token, seller, price)
                }
                _ => continue,
            };
            if to == wallet {
                *received.entry(token).or_default() += amount;
            }
            if located.from == wallet {
                *sent.entry(token).or_default() += amount;
            }
        }
        let mut balances = BTreeMap::new();
        for (token, received) in received {
            let sent = sent.remove(&token).unwrap_or_default();
            let balance = received
                .checked_sub(sent)
                .ok_or_else(|| format!("{wallet} sent more {token} ({sent}) than it received ({received})"))?;
            if !balance.is_zero() {
                balances.insert(token, balance);
            }
        }
        match sent.into_iter().find(|(_, amount)| !amount.is_zero()) {
            Some((token, amount)) => Err(format!("{wallet} sent {amount} of {token} it never received")),
            None => Ok(balances),
        }
    }
}
