//! Blocks another node made (a `chain.rlp`, as geth exports a chain),
//! executed by their forks' rules through alloy-evm's block executor and
//! checked against their headers: a block whose body or execution
//! disagrees with its header is refused, naming the block and the field.

use std::borrow::Cow;
use std::convert::Infallible;

use alloy_consensus::proofs::{
    calculate_ommers_root, calculate_receipt_root, calculate_transaction_root, calculate_withdrawals_root,
};
use alloy_consensus::transaction::{Recovered, SignerRecoverable};
use alloy_consensus::{Eip658Value, Header, ReceiptEnvelope, TxEnvelope, TxReceipt};
use alloy_evm::block::BlockExecutor;
use alloy_evm::eth::receipt_builder::AlloyReceiptBuilder;
use alloy_evm::eth::{EthBlockExecutionCtx, EthBlockExecutor};
use alloy_evm::{EthEvmFactory, Evm, EvmEnv, EvmFactory};
use alloy_genesis::ChainConfig;
use alloy_primitives::{Address, B256, Bloom, U256};
use alloy_rlp::Decodable;
use revm::primitives::hardfork::SpecId;
use revm::state::{AccountInfo, Bytecode, EvmState};
use revm::{Database, DatabaseCommit, DatabaseRef};

use crate::ChainState;
use crate::archive::Archive;
use crate::forks::Forks;
use crate::roots::StateTries;
use crate::transfers::{Inside, inside, record_frames};

/// A block as a node exports it: header, transactions, ommers, withdrawals.
pub type Block = alloy_consensus::Block<TxEnvelope>;

/// Why a chain is not imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file is not a sequence of RLP blocks.
    #[error("block {index} of the file (counting from 0) does not decode: {reason}")]
    Decode {
        /// Which block of the file, from 0.
        index: usize,
        /// What the decoder said.
        reason: String,
    },
    /// A header field the body or the execution does not give.
    #[error("block {number} ({hash}): its {field} is {header} in its header, but {found}")]
    Mismatch {
        /// The block's number.
        number: u64,
        /// Its hash, as its header gives it.
        hash: B256,
        /// The field, by its JSON-RPC name.
        field: &'static str,
        /// What the header says.
        header: String,
        /// What the body and execution give.
        found: String,
    },
    /// A block that cannot be executed at all.
    #[error("block {number} ({hash}): {reason}")]
    Invalid {
        /// The block's number.
        number: u64,
        /// Its hash, as its header gives it.
        hash: B256,
        /// Why.
        reason: String,
    },
}

/// The fork schedule of `config` over `blocks` (which follow `genesis`):
/// where the config names a terminal total difficulty and no block for the
/// merge, the merge is the first block after the total reached it.
pub fn forks_of(config: &ChainConfig, genesis: &Header, blocks: &[Block]) -> Forks {
    let by_difficulty = config.terminal_total_difficulty.filter(|_| config.merge_netsplit_block.is_none());
    let merged_at = by_difficulty.and_then(|terminal| {
        let mut total = genesis.difficulty;
        blocks.iter().find_map(|block| {
            if total >= terminal {
                return Some(block.header.number);
            }
            total += block.header.difficulty;
            None
        })
    });
    Forks::new(config, merged_at)
}

/// Reads the blocks of a `chain.rlp`: RLP blocks one after another.
pub fn decode_chain(mut bytes: &[u8]) -> Result<Vec<Block>, ImportError> {
    let mut blocks = Vec::new();
    while !bytes.is_empty() {
        let index = blocks.len();
        let block =
            Block::decode(&mut bytes).map_err(|error| ImportError::Decode { index, reason: error.to_string() })?;
        blocks.push(block);
    }
    Ok(blocks)
}

/// What executing one block answered, beside the state it left.
#[derive(Clone, Debug)]
pub struct Executed {
    /// The block's hash.
    pub hash: B256,
    /// Each transaction's sender.
    pub senders: Vec<Address>,
    /// Each transaction's receipt, as the header's receipts root hashes it.
    pub receipts: Vec<ReceiptEnvelope>,
    /// What each transaction did inside.
    pub inside: Vec<Inside>,
    /// The native balances each transaction changed (its value, its fees,
    /// what its calls moved).
    pub balances: Vec<Vec<BalanceChange>>,
    /// The balances the block changed outside its transactions: mining
    /// rewards, withdrawals, system calls.
    pub block_balances: Vec<BalanceChange>,
}

/// A native balance changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceChange {
    /// Whose.
    pub address: Address,
    /// What it was.
    pub before: U256,
    /// What it is.
    pub after: U256,
}

impl ChainState {
    /// Executes `block`, the child of `parent`, by the rules `forks` give
    /// it, and keeps its state, once every field of its header that its
    /// body and its execution determine agrees. A refused block leaves the
    /// state as it was.
    pub fn import_block(&mut self, forks: &Forks, parent: &Header, block: &Block) -> Result<Executed, ImportError> {
        let number = block.header.number;
        let hash = block.header.hash_slow();
        let checked = check_body(parent, block, hash)
            .and_then(|senders| self.execute(forks, block, hash, senders))
            .and_then(|executed| {
                self.archive.set_block_hash(number, hash);
                let root = self.seal(number);
                same(number, hash, "stateRoot", block.header.state_root, root)?;
                Ok(executed)
            });
        if checked.is_err() {
            self.truncate_after(number.saturating_sub(1));
        }
        checked
    }

    fn execute(
        &mut self,
        forks: &Forks,
        block: &Block,
        hash: B256,
        senders: Vec<Address>,
    ) -> Result<Executed, ImportError> {
        let header = &block.header;
        let number = header.number;
        let invalid = |reason: String| ImportError::Invalid { number, hash, reason };
        let blobs = forks.blob_params_at(header.timestamp);
        let env = EvmEnv::for_eth_block(header, forks, self.chain_id, blobs);
        let spec = forks.spec_at(number, header.timestamp);
        let clear_empty = spec >= SpecId::SPURIOUS_DRAGON;
        let making = Making {
            archive: &mut self.archive,
            tries: &mut self.tries,
            block: number,
            clear_empty,
            moved: Vec::new(),
        };
        // Before Byzantium a receipt holds the state root after its transaction, not a status.
        let roots_in_receipts = spec < SpecId::BYZANTIUM;
        let evm = EthEvmFactory::default().create_evm_with_inspector(making, env, record_frames());
        let context = EthBlockExecutionCtx {
            parent_hash: header.parent_hash,
            parent_beacon_block_root: header.parent_beacon_block_root,
            ommers: &block.body.ommers,
            withdrawals: block.body.withdrawals.as_ref().map(|withdrawals| Cow::Borrowed(withdrawals.as_slice())),
            extra_data: header.extra_data.clone(),
            tx_count_hint: Some(block.body.transactions.len()),
            slot_number: header.slot_number,
        };
        let mut executor = EthBlockExecutor::new(evm, context, forks, AlloyReceiptBuilder::default());
        executor.apply_pre_execution_changes().map_err(|error| invalid(error.to_string()))?;
        let mut block_balances = std::mem::take(&mut executor.evm_mut().db_mut().moved);
        let mut inner = Vec::with_capacity(senders.len());
        let mut balances = Vec::with_capacity(senders.len());
        for (tx, sender) in block.body.transactions.iter().zip(&senders) {
            executor.evm_mut().inspector_mut().fuse();
            executor
                .execute_transaction(Recovered::new_unchecked(tx, *sender))
                .map_err(|error| invalid(format!("transaction {}: {error}", tx.tx_hash())))?;
            inner.push(inside(executor.evm_mut().inspector_mut()));
            balances.push(std::mem::take(&mut executor.evm_mut().db_mut().moved));
            if roots_in_receipts {
                let root = executor.evm_mut().db_mut().root();
                if let Some(ReceiptEnvelope::Legacy(receipt)) = executor.receipts.last_mut() {
                    receipt.receipt.status = Eip658Value::PostState(root);
                }
            }
        }
        let (evm, result) = executor.finish().map_err(|error| invalid(error.to_string()))?;
        block_balances.extend(evm.into_db().moved);
        same(number, hash, "gasUsed", header.gas_used, result.gas_used)?;
        same(number, hash, "receiptsRoot", header.receipts_root, calculate_receipt_root(&result.receipts))?;
        let bloom = result.receipts.iter().fold(Bloom::ZERO, |bloom, receipt| bloom | receipt.bloom());
        same(number, hash, "logsBloom", header.logs_bloom, bloom)?;
        if let Some(used) = header.blob_gas_used {
            same(number, hash, "blobGasUsed", used, result.blob_gas_used)?;
        }
        if let Some(requests) = header.requests_hash {
            same(number, hash, "requestsHash", requests, result.requests.requests_hash())?;
        }
        Ok(Executed { hash, senders, receipts: result.receipts, inside: inner, balances, block_balances })
    }
}

/// Checks what the body alone gives (the link to the parent and the
/// roots of its lists) and recovers each transaction's sender.
fn check_body(parent: &Header, block: &Block, hash: B256) -> Result<Vec<Address>, ImportError> {
    let header = &block.header;
    let number = header.number;
    same(number, hash, "number", parent.number + 1, number)?;
    same(number, hash, "parentHash", header.parent_hash, parent.hash_slow())?;
    let transactions = &block.body.transactions;
    same(number, hash, "transactionsRoot", header.transactions_root, calculate_transaction_root(transactions))?;
    same(number, hash, "sha3Uncles", header.ommers_hash, calculate_ommers_root(&block.body.ommers))?;
    let withdrawals = block.body.withdrawals.as_ref().map(|withdrawals| calculate_withdrawals_root(withdrawals));
    same(number, hash, "withdrawalsRoot", header.withdrawals_root, withdrawals)?;
    transactions
        .iter()
        .map(|tx| {
            tx.recover_signer().map_err(|error| ImportError::Invalid {
                number,
                hash,
                reason: format!("transaction {}: its sender cannot be recovered: {error}", tx.tx_hash()),
            })
        })
        .collect()
}

/// Refuses a block whose header says `header` where the body or the
/// execution gives `found`.
fn same<T: PartialEq + std::fmt::Debug>(
    number: u64,
    hash: B256,
    field: &'static str,
    header: T,
    found: T,
) -> Result<(), ImportError> {
    if header == found {
        return Ok(());
    }
    let (header, found) = (format!("{header:?}"), format!("{found:?} by its body and execution"));
    Err(ImportError::Mismatch { number, hash, field, header, found })
}

/// The archive as the block executor reads and writes it: at the block
/// being made, whose earlier transactions' changes it sees.
#[derive(Debug)]
struct Making<'a> {
    archive: &'a mut Archive,
    tries: &'a mut StateTries,
    block: u64,
    /// Whether accounts left empty are removed (EIP-161).
    clear_empty: bool,
    /// The balances changed since this was last taken.
    moved: Vec<BalanceChange>,
}

impl Making<'_> {
    /// The state root after what is committed so far.
    fn root(&mut self) -> B256 {
        let touched = self.archive.take_touched();
        self.tries.seal(self.archive, self.block, touched)
    }
}

impl Database for Making<'_> {
    type Error = Infallible;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, Infallible> {
        self.archive.at(self.block).basic_ref(address)
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, Infallible> {
        self.archive.at(self.block).code_by_hash_ref(code_hash)
    }

    fn storage(&mut self, address: Address, index: U256) -> Result<U256, Infallible> {
        self.archive.at(self.block).storage_ref(address, index)
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, Infallible> {
        self.archive.at(self.block).block_hash_ref(number)
    }
}

impl DatabaseCommit for Making<'_> {
    fn commit(&mut self, changes: EvmState) {
        for (address, account) in &changes {
            let before = self.archive.account(*address, self.block).balance;
            if account.is_touched() && account.info.balance != before {
                self.moved.push(BalanceChange { address: *address, before, after: account.info.balance });
            }
        }
        self.archive.commit_by(self.block, changes, self.clear_empty);
    }
}
