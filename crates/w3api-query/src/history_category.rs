//! What a transaction of a wallet's history was for the wallet (its
//! category) and what happened, in one line (its summary): told by what it
//! moved to or from the wallet, the native value it carried, and the
//! permissions its logs say the wallet gave or took back.
//!
//! Borrowing needs a lending protocol's events, which no backend here
//! knows, so [`HistoryCategory::Borrow`] is never given.

use alloy_primitives::{Address, B256, U256, b256};
use w3api_source::SourceError;
use w3api_types::HistoryCategory;
use w3api_types::format_units;
use w3api_types::rpc::Log;

use crate::ChainView;
use crate::ask::Question;
use crate::transfers::{NftTransfer, TokenTransfer};
use crate::wallet_history::{HistoryEntry, NativeCurrency};

/// `keccak256("Approval(address,address,uint256)")`.
pub const APPROVAL: B256 = b256!("8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925");
/// `keccak256("ApprovalForAll(address,address,bool)")`.
pub const APPROVAL_FOR_ALL: B256 = b256!("17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31");

/// A permission a wallet gave or took back, as its log tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Approval {
    /// The token or collection.
    pub contract: Address,
    /// Who may spend.
    pub spender: Address,
    /// The allowance; for all of a collection, 1 when approved, 0 when not.
    pub value: U256,
    /// Whether it is for all of a collection (`ApprovalForAll`).
    pub all: bool,
}

impl Approval {
    /// Whether it gives (rather than takes back).
    pub fn granted(&self) -> bool {
        !self.value.is_zero()
    }
}

/// The permissions `owner` gave or took back in `logs`: ERC20 `Approval`s
/// (three topics, the allowance in the data) and `ApprovalForAll`s. An
/// ERC721 `Approval` (four topics) names one token, not an allowance, and
/// is left out, as is a log too short to read.
pub fn approvals(owner: Address, logs: &[Log]) -> Vec<Approval> {
    logs.iter()
        .filter_map(|log| {
            let [topic, from, spender] = log.topics.as_slice() else { return None };
            let all = match *topic {
                APPROVAL => false,
                APPROVAL_FOR_ALL => true,
                _ => return None,
            };
            let word: [u8; 32] = log.data.get(..32)?.try_into().ok()?;
            let value = U256::from_be_bytes(word);
            let value = if all { U256::from(u8::from(!value.is_zero())) } else { value };
            let approval = Approval { contract: log.address, spender: Address::from_word(*spender), value, all };
            (Address::from_word(*from) == owner).then_some(approval)
        })
        .collect()
}

/// How a contract a permission concerns is named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContractName {
    /// Its name.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// Its logo, where the backend has one.
    pub logo: Option<String>,
    /// Its decimals; `None` for an NFT collection.
    pub decimals: Option<u8>,
}

/// The names of contracts, as tokens or NFT collections of the view:
/// asked once a history page's receipts are read, for the permissions they
/// logged. `None` for a contract the view does not name.
#[derive(Clone, Debug)]
pub struct ContractNames {
    /// The contracts.
    pub contracts: Vec<Address>,
}

impl Question for ContractNames {
    type Answer = Vec<Option<ContractName>>;

    fn answer(self, view: &impl ChainView) -> Result<Self::Answer, SourceError> {
        Ok(self.contracts.iter().map(|contract| named(view, *contract)).collect())
    }
}

fn named(view: &impl ChainView, contract: Address) -> Option<ContractName> {
    if let Some(token) = view.asset_at(contract).and_then(|asset| view.token(asset)) {
        let (name, symbol, logo) = (token.name.into(), token.symbol.into(), token.logo.map(str::to_string));
        return Some(ContractName { name, symbol, logo, decimals: Some(token.decimals) });
    }
    let collection = view.collection(view.collection_at(contract)?)?;
    let (name, symbol, logo) = (collection.name.into(), collection.symbol.into(), collection.logo.map(str::to_string));
    Some(ContractName { name, symbol, logo, decimals: None })
}

/// What a transaction's receipt adds to its entry: the permissions its
/// logs gave or took back (each with its contract's name, where known),
/// the function it called, and the contract it created.
#[derive(Clone, Debug, Default)]
pub struct ReceiptFacts {
    /// The wallet's permissions.
    pub approvals: Vec<(Approval, Option<ContractName>)>,
    /// The function called, where the server knows it.
    pub method: Option<String>,
    /// The contract created.
    pub created: Option<Address>,
}

/// The wallet's side of an entry: what came in and what went out.
struct Sides<'a> {
    sent: bool,
    native_out: bool,
    native_in: bool,
    /// The native value that reached the wallet, its own value or paid by
    /// calls inside, and who paid it first.
    received: (U256, Address),
    tokens_in: Vec<&'a TokenTransfer>,
    tokens_out: Vec<&'a TokenTransfer>,
    nfts_in: Vec<&'a NftTransfer>,
    nfts_out: Vec<&'a NftTransfer>,
}

impl<'a> Sides<'a> {
    fn of(wallet: Address, entry: &'a HistoryEntry) -> Sides<'a> {
        let facts = &entry.facts;
        let sent = facts.from == wallet;
        let valued = !facts.value.is_zero();
        let to_self = facts.to == Some(wallet);
        let paid_in = || entry.inner.iter().filter(|paid| paid.to == wallet && paid.from != wallet);
        let own = if !sent && valued && to_self { facts.value } else { U256::ZERO };
        let received = paid_in().fold(own, |sum, paid| sum.saturating_add(paid.value));
        let payer = if own.is_zero() { paid_in().next().map_or(facts.from, |paid| paid.from) } else { facts.from };
        let paid_out = entry.inner.iter().any(|paid| paid.from == wallet && paid.to != wallet);
        Sides {
            sent,
            native_out: (sent && valued && !to_self) || paid_out,
            native_in: !received.is_zero(),
            received: (received, payer),
            tokens_in: entry.tokens.iter().filter(|t| t.to == wallet && t.from != wallet).collect(),
            tokens_out: entry.tokens.iter().filter(|t| t.from == wallet && t.to != wallet).collect(),
            nfts_in: entry.nfts.iter().filter(|t| t.to == wallet && t.from != wallet).collect(),
            nfts_out: entry.nfts.iter().filter(|t| t.from == wallet && t.to != wallet).collect(),
        }
    }

    fn ins(&self) -> usize {
        self.tokens_in.len() + self.nfts_in.len()
    }

    fn outs(&self) -> usize {
        self.tokens_out.len() + self.nfts_out.len()
    }
}

/// What `entry` was for `wallet` (its category), and what happened in it,
/// in one line (its summary).
pub fn describe(
    wallet: Address,
    entry: &HistoryEntry,
    native: &NativeCurrency,
    receipt: &ReceiptFacts,
) -> (HistoryCategory, String) {
    let sides = Sides::of(wallet, entry);
    let category = categorize(&sides, entry, native, &receipt.approvals);
    (category, summarize(wallet, (entry, &sides), category, native, receipt))
}

/// The first rule that holds wins: permissions alone, wrapping, NFT
/// trades, swaps, what only came in (mint, airdrop, receipt), what only
/// went out (burn, sending), the native value alone, and anything else a
/// contract interaction.
fn categorize(
    sides: &Sides<'_>,
    entry: &HistoryEntry,
    native: &NativeCurrency,
    approvals: &[(Approval, Option<ContractName>)],
) -> HistoryCategory {
    use HistoryCategory as C;
    let (ins, outs) = (sides.ins(), sides.outs());
    if ins + outs == 0 && !sides.native_in && !sides.native_out {
        return match approvals {
            [] => C::ContractInteraction,
            _ if approvals.iter().any(|(approval, _)| approval.granted()) => C::Approve,
            _ => C::Revoke,
        };
    }
    let wrapped = |t: &TokenTransfer| native.wrapped == Some(t.token);
    if outs == 0 && sides.native_out && sides.tokens_in.iter().any(|t| wrapped(t) && t.from.is_zero()) {
        return C::Deposit;
    }
    if ins == 0 && !sides.native_out && sides.tokens_out.iter().any(|t| wrapped(t) && t.to.is_zero()) {
        return C::Withdraw;
    }
    let paid = sides.native_out || !sides.tokens_out.is_empty();
    if !sides.nfts_in.is_empty() && sides.nfts_out.is_empty() && paid {
        return C::NftPurchase;
    }
    let bought_from = !sides.sent && !entry.facts.value.is_zero();
    if !sides.nfts_out.is_empty() && sides.nfts_in.is_empty() && (!sides.tokens_in.is_empty() || bought_from) {
        return C::NftSale;
    }
    let traded = (!sides.tokens_in.is_empty() && paid) || (!sides.tokens_out.is_empty() && sides.native_in);
    if traded && sides.nfts_in.is_empty() && sides.nfts_out.is_empty() {
        return C::TokenSwap;
    }
    if ins > 0 && outs == 0 && !sides.native_out {
        let minted = sides.tokens_in.iter().all(|t| t.from.is_zero()) && sides.nfts_in.iter().all(|t| t.from.is_zero());
        return match () {
            _ if minted => C::Mint,
            _ if !sides.sent && entry.shared => C::Airdrop,
            _ if sides.nfts_in.is_empty() => C::TokenReceive,
            _ => C::NftReceive,
        };
    }
    if outs > 0 && ins == 0 && !sides.native_in {
        let burned = sides.tokens_out.iter().all(|t| t.to.is_zero()) && sides.nfts_out.iter().all(|t| t.to.is_zero());
        return match () {
            _ if burned => C::Burn,
            _ if sides.nfts_out.is_empty() => C::TokenSend,
            _ => C::NftSend,
        };
    }
    match (ins + outs, sides.native_out, sides.native_in) {
        (0, true, _) => C::Send,
        (0, _, true) => C::Receive,
        _ => C::ContractInteraction,
    }
}

/// What happened in `entry` for `wallet`, in one line, as its `category`
/// tells it.
fn summarize(
    wallet: Address,
    (entry, sides): (&HistoryEntry, &Sides<'_>),
    category: HistoryCategory,
    native: &NativeCurrency,
    receipt: &ReceiptFacts,
) -> String {
    use HistoryCategory as C;
    let native_amount = |value: U256| format!("{} {}", format_units(value, native.decimals), native.symbol);
    let value = native_amount(entry.facts.value);
    let tokens = |ts: &[&TokenTransfer]| ts.iter().map(|t| amount(t)).collect::<Vec<_>>().join(", ");
    let nfts = |ns: &[&NftTransfer]| ns.iter().map(|n| nft(n)).collect::<Vec<_>>().join(", ");
    let counterpart = entry.facts.to.filter(|to| *to != wallet).unwrap_or(entry.facts.from);
    let first_from = |from: Option<Address>| from.map_or_else(String::new, |f| format!(" from {f:#x}"));
    let first_to = |to: Option<Address>| to.map_or_else(String::new, |t| format!(" to {t:#x}"));
    let mut outs = sides.tokens_out.iter().map(|t| amount(t)).collect::<Vec<_>>();
    if sides.native_out {
        outs.insert(0, value.clone());
    }
    match category {
        C::Send => format!("Sent {value} to {counterpart:#x}"),
        C::Receive => format!("Received {} from {:#x}", native_amount(sides.received.0), sides.received.1),
        C::TokenSend => {
            format!("Sent {}{}", tokens(&sides.tokens_out), first_to(sides.tokens_out.first().map(|t| t.to)))
        }
        C::TokenReceive => {
            format!("Received {}{}", tokens(&sides.tokens_in), first_from(sides.tokens_in.first().map(|t| t.from)))
        }
        C::NftSend => format!("Sent {}{}", nfts(&sides.nfts_out), first_to(sides.nfts_out.first().map(|n| n.to))),
        C::NftReceive => {
            format!("Received {}{}", nfts(&sides.nfts_in), first_from(sides.nfts_in.first().map(|n| n.from)))
        }
        C::TokenSwap => {
            let mut ins = sides.tokens_in.iter().map(|t| amount(t)).collect::<Vec<_>>();
            if sides.native_in {
                ins.insert(0, native_amount(sides.received.0));
            }
            format!("Swapped {} for {}", outs.join(", "), ins.join(", "))
        }
        C::Deposit => format!("Deposited {value} for {}", tokens(&sides.tokens_in)),
        C::Withdraw => format!("Withdrew {}", tokens(&sides.tokens_out)),
        C::NftPurchase => format!("Bought {} for {}", nfts(&sides.nfts_in), outs.join(", ")),
        C::NftSale if sides.tokens_in.is_empty() => format!("Sold {} for {value}", nfts(&sides.nfts_out)),
        C::NftSale => format!("Sold {} for {}", nfts(&sides.nfts_out), tokens(&sides.tokens_in)),
        C::Airdrop => format!("Received an airdrop of {}", listed(&sides.tokens_in, &sides.nfts_in)),
        C::Mint => format!("Minted {}", listed(&sides.tokens_in, &sides.nfts_in)),
        C::Burn => format!("Burned {}", listed(&sides.tokens_out, &sides.nfts_out)),
        C::Approve | C::Revoke => permissions(&receipt.approvals),
        C::Borrow | C::ContractInteraction => match (receipt.created, &receipt.method, entry.facts.to) {
            (Some(created), _, _) => format!("Created contract {created:#x}"),
            (None, Some(method), Some(to)) => format!("Called {method} on {to:#x}"),
            (None, _, Some(to)) => format!("Interacted with {to:#x}"),
            (None, _, None) => "Created a contract".to_string(),
        },
    }
}

fn amount(transfer: &TokenTransfer) -> String {
    format!("{} {}", format_units(U256::from(transfer.value), transfer.decimals), transfer.symbol)
}

fn nft(transfer: &NftTransfer) -> String {
    match transfer.amount {
        1 => format!("{} #{}", transfer.collection.name, transfer.token_id),
        many => format!("{many} {} #{}", transfer.collection.name, transfer.token_id),
    }
}

/// Tokens and NFTs, tokens first.
fn listed(tokens: &[&TokenTransfer], nfts: &[&NftTransfer]) -> String {
    let tokens = tokens.iter().map(|t| amount(t));
    tokens.chain(nfts.iter().map(|n| nft(n))).collect::<Vec<_>>().join(", ")
}

/// "Approved 12 USDT, all of Things", or "Revoked USDT".
fn permissions(approvals: &[(Approval, Option<ContractName>)]) -> String {
    let granted = approvals.iter().any(|(approval, _)| approval.granted());
    let described = approvals.iter().filter(|(approval, _)| approval.granted() == granted).map(|(approval, name)| {
        let what = name.as_ref().map_or_else(|| format!("{:#x}", approval.contract), |n| n.symbol.clone());
        match (approval.all, name.as_ref().and_then(|n| n.decimals)) {
            (true, _) => format!("all of {what}"),
            (false, _) if granted && approval.value == U256::MAX => format!("unlimited {what}"),
            (false, Some(decimals)) if granted => format!("{} {what}", format_units(approval.value, decimals)),
            (false, _) if granted => format!("{} {what}", approval.value),
            (false, _) => what,
        }
    });
    format!("{} {}", if granted { "Approved" } else { "Revoked" }, described.collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests;
