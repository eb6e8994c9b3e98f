//! Node mode's index kept in PostgreSQL tables (`--index postgres`): the
//! rows a batch of indexed blocks adds, written in one transaction under the
//! chain's lease, and what the writer and the readers read back. The schema
//! and what each table means are in `migrations/postgres/0007_index_tables.sql`.
//!
//! The store knows rows, not their meaning: which balance a transfer leaves
//! is the indexer's, which computes it with the ledger's own rules.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgRow;
use sqlx::{PgPool, Postgres, Row};
use uuid::Uuid;
use w3api_types::{Address, B256, Chain, U256};

use crate::StoreError;
use crate::sql::index_journal::held_in;
use crate::sql::run::Tx;

/// A chain's index in the tables of a PostgreSQL database.
#[derive(Clone, Debug)]
pub struct IndexTables {
    pool: PgPool,
    /// Where answers read: the same database, or a read replica of it.
    reads: PgPool,
}

/// An indexed block's header, as far as the index links it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderRow {
    /// Its number.
    pub number: u64,
    /// Its hash.
    pub hash: B256,
    /// Its parent's hash.
    pub parent_hash: B256,
    /// Its timestamp, in Unix seconds.
    pub timestamp: u64,
}

/// A registered ERC20 token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRow {
    /// Its asset number.
    pub asset: u16,
    /// Its contract.
    pub address: Address,
    /// What it calls itself.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// Its decimals.
    pub decimals: u8,
}

/// A registered NFT collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionRow {
    /// Its collection number.
    pub collection: u16,
    /// Its contract.
    pub address: Address,
    /// What it calls itself.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// ERC1155 rather than ERC721.
    pub erc1155: bool,
}

/// A DEX pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairRow {
    /// Its number, in creation order.
    pub pair: u32,
    /// Its contract.
    pub address: Address,
    /// Its first side's asset.
    pub token0: u16,
    /// Its second side's asset.
    pub token1: u16,
    /// The exchange (factory) that made it, by number.
    pub exchange: u32,
    /// The block that created it.
    pub created: u64,
}

/// A pair's reserves from a block on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReserveRow {
    /// The pair.
    pub pair: u32,
    /// The block.
    pub block: u64,
    /// Its reserves of token0 and token1 at the end of the block.
    pub reserves: (u128, u128),
}

/// A transaction, its parties by holder number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransactionRow {
    /// Its block.
    pub block: u64,
    /// Its index in the block.
    pub position: u32,
    /// Its hash.
    pub hash: B256,
    /// Its sender.
    pub sender: u32,
    /// Its recipient; `None` for a contract creation.
    pub recipient: Option<u32>,
    /// The native value it sends.
    pub value: U256,
}

/// Native value a call inside a transaction moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerRow {
    /// Its number, in chain order.
    pub seq: u64,
    /// Its block.
    pub block: u64,
    /// Its transaction's index in the block.
    pub position: u32,
    /// Who paid.
    pub payer: u32,
    /// Who was paid.
    pub payee: u32,
    /// How much, in wei.
    pub value: U256,
}

/// What a movement moved: an amount of an asset, or of an NFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moved {
    /// An ERC20 token (or the native currency, asset 0).
    Fungible {
        /// The asset.
        asset: u16,
    },
    /// An NFT.
    Nft {
        /// Its collection.
        collection: u16,
        /// Its token id.
        token_id: U256,
        /// An ERC1155 token, rather than an ERC721 one.
        multi: bool,
        /// Who moved it (ERC1155).
        operator: Option<u32>,
        /// Moved in a batch transfer (ERC1155).
        batch: bool,
    },
}

/// One movement of a token or an NFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// Its number, in chain order.
    pub seq: u64,
    /// Its block.
    pub block: u64,
    /// Its transaction's index in the block, if in one.
    pub position: Option<u32>,
    /// Its log's index in the block, if from one.
    pub log: Option<u32>,
    /// What moved.
    pub moved: Moved,
    /// From whom (0: minted).
    pub sender: u32,
    /// To whom (0: burned).
    pub recipient: u32,
    /// How much.
    pub amount: u128,
}

/// A holder's balance of an asset from a block on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceRow {
    /// The holder.
    pub holder: u32,
    /// The asset.
    pub asset: u16,
    /// The block.
    pub block: u64,
    /// The balance at the end of the block.
    pub balance: u128,
}

/// An asset's supply from a block on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SupplyRow {
    /// The asset.
    pub asset: u16,
    /// The block.
    pub block: u64,
    /// The supply at the end of the block.
    pub supply: u128,
}

/// An ERC721 token's owner from a block on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerRow {
    /// Its collection.
    pub collection: u16,
    /// Its id.
    pub token_id: U256,
    /// The block.
    pub block: u64,
    /// Its owner at the end of the block (0: burned).
    pub owner: u32,
}

/// A holder's amount of an ERC1155 token from a block on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmountRow {
    /// The holder.
    pub holder: u32,
    /// The token's collection.
    pub collection: u16,
    /// The token's id.
    pub token_id: U256,
    /// The block.
    pub block: u64,
    /// The amount at the end of the block.
    pub amount: u64,
}

/// An NFT a holder got, with the movement that gave it (kept for the first
/// only), or a token's mint (kept for its first mint only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NftFirst {
    /// The holder; 0 for a mint.
    pub holder: u32,
    /// The collection.
    pub collection: u16,
    /// The token id.
    pub token_id: U256,
    /// The block of the movement.
    pub block: u64,
    /// The movement's number.
    pub seq: u64,
}

/// Where a chain's index stands after a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The first block it indexes from.
    pub first_block: u64,
    /// The number the next movement takes.
    pub next_move: u64,
    /// The number the next inner transfer takes.
    pub next_inner: u64,
    /// How many reorganisations the index rolled back.
    pub revision: u64,
}

/// What a batch of indexed blocks adds to a chain's index, after dropping
/// the blocks a reorganisation left (`rollback_after`), written at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableBatch {
    /// Every indexed block after this one is dropped first.
    pub rollback_after: Option<u64>,
    /// Where the index stands after the batch.
    pub progress: Option<Progress>,
    /// Holders numbered for the first time.
    pub holders: Vec<(u32, Address)>,
    /// Tokens registered for the first time.
    pub tokens: Vec<TokenRow>,
    /// Collections registered for the first time.
    pub collections: Vec<CollectionRow>,
    /// Exchanges numbered for the first time: (number, factory).
    pub exchanges: Vec<(u32, Address)>,
    /// The blocks.
    pub headers: Vec<HeaderRow>,
    /// Pairs created.
    pub pairs: Vec<PairRow>,
    /// Reserves that changed.
    pub reserves: Vec<ReserveRow>,
    /// The blocks' transactions.
    pub transactions: Vec<TransactionRow>,
    /// Their inner transfers.
    pub inner: Vec<InnerRow>,
    /// Token and NFT movements.
    pub moves: Vec<MoveRow>,
    /// Balances that changed.
    pub balances: Vec<BalanceRow>,
    /// Supplies that changed.
    pub supplies: Vec<SupplyRow>,
    /// ERC721 owners that changed.
    pub owners: Vec<OwnerRow>,
    /// ERC1155 amounts that changed.
    pub amounts: Vec<AmountRow>,
    /// NFTs holders got (the first time counts).
    pub held: Vec<NftFirst>,
    /// NFTs minted (the first time counts).
    pub minted: Vec<NftFirst>,
}

/// What a writer taking a chain's lease reads back: where the index stands,
/// its contracts, and its newest blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TablesState {
    /// Where the index stands; `None` for a chain the tables hold nothing of.
    pub progress: Option<Progress>,
    /// The number the next new holder takes.
    pub next_holder: u32,
    /// Every registered token, by asset.
    pub tokens: Vec<TokenRow>,
    /// Every registered collection, by number.
    pub collections: Vec<CollectionRow>,
    /// Every exchange's factory, by number.
    pub exchanges: Vec<Address>,
    /// Every pair, by number.
    pub pairs: Vec<PairRow>,
    /// The newest blocks, oldest first.
    pub headers: Vec<HeaderRow>,
}

/// The values a batch starts from: what its movements read before they
/// change them, at the end of the block before the batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Carried {
    /// Balances: (holder, asset, balance).
    pub balances: Vec<(u32, u16, u128)>,
    /// Supplies: (asset, supply).
    pub supplies: Vec<(u16, u128)>,
    /// ERC721 owners: (collection, id, owner).
    pub owners: Vec<(u16, U256, u32)>,
    /// ERC1155 amounts: (holder, collection, id, amount).
    pub amounts: Vec<(u32, u16, U256, u64)>,
}

/// The keys [`Carried`] is read for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CarriedKeys {
    /// (holder, asset) balances.
    pub balances: Vec<(u32, u16)>,
    /// Assets' supplies.
    pub supplies: Vec<u16>,
    /// (collection, id) ERC721 owners.
    pub owners: Vec<(u16, U256)>,
    /// (holder, collection, id) ERC1155 amounts.
    pub amounts: Vec<(u32, u16, U256)>,
}

/// Tables whose rows belong to blocks, and their block column: what a
/// reorganisation deletes past the common ancestor.
const BY_BLOCK: &[(&str, &str)] = &[
    ("index_headers", "number"),
    ("index_pairs", "created"),
    ("index_reserves", "block"),
    ("index_transactions", "block"),
    ("index_parties", "block"),
    ("index_inner", "block"),
    ("index_moves", "block"),
    ("index_balances", "block"),
    ("index_supplies", "block"),
    ("index_owners", "block"),
    ("index_amounts", "block"),
    ("index_minted", "block"),
];

/// Every table of a chain's index, for [`IndexTables::clear`].
const ALL: &[&str] = &[
    "index_headers",
    "index_progress",
    "index_holders",
    "index_tokens",
    "index_collections",
    "index_exchanges",
    "index_pairs",
    "index_reserves",
    "index_transactions",
    "index_parties",
    "index_inner",
    "index_moves",
    "index_balances",
    "index_supplies",
    "index_owners",
    "index_amounts",
    "index_held",
    "index_minted",
];

fn failed(error: sqlx::Error) -> StoreError {
    StoreError::from_driver(error)
}

fn damaged(what: &'static str, why: impl std::fmt::Display) -> StoreError {
    StoreError::Damaged { what, why: why.to_string() }
}

/// A number as the tables' signed columns hold it.
fn int(value: u32) -> i32 {
    // Holder, pair and exchange numbers count up from 0 and never reach
    // 2^31: the writer refuses to number more (see the indexer).
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn big(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn decimal(value: impl ToString) -> String {
    value.to_string()
}

fn unsigned<T: TryFrom<i64>>(value: i64, what: &'static str) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| damaged(what, format!("{value} is out of range")))
}

/// INTEGER column `i` of `row`, as the unsigned number it holds.
fn int_col<T: TryFrom<i64>>(row: &PgRow, i: usize, what: &'static str) -> Result<T, StoreError> {
    unsigned(i64::from(row.get::<i32, _>(i)), what)
}

/// BIGINT column `i` of `row`, as the unsigned number it holds.
fn big_col<T: TryFrom<i64>>(row: &PgRow, i: usize, what: &'static str) -> Result<T, StoreError> {
    unsigned(row.get::<i64, _>(i), what)
}

fn parsed<T: FromStr>(text: &str, what: &'static str) -> Result<T, StoreError> {
    text.parse().map_err(|_| damaged(what, format!("{text:?} is not an integer in range")))
}

fn address(bytes: &[u8], what: &'static str) -> Result<Address, StoreError> {
    Address::try_from(bytes).map_err(|_| damaged(what, format!("an address of {} bytes", bytes.len())))
}

fn hash(bytes: &[u8], what: &'static str) -> Result<B256, StoreError> {
    B256::try_from(bytes).map_err(|_| damaged(what, format!("a hash of {} bytes", bytes.len())))
}

impl IndexTables {
    /// The tables of the database `pool` reaches, migrated.
    pub(crate) fn new(pool: PgPool) -> IndexTables {
        IndexTables { reads: pool.clone(), pool }
    }

    /// The same tables, with answers read from the read replica at `url`
    /// (a hot standby of this database). A replica behind its primary
    /// answers at the newest block it has.
    pub async fn reading_from(&self, url: &str) -> Result<IndexTables, StoreError> {
        let (reads, _) = crate::location::postgres_pool(url).await?;
        Ok(IndexTables { pool: self.pool.clone(), reads })
    }

    /// The pool, for the readers' queries.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Writes `batch` to `chain`'s index while `holder` holds its lease at
    /// `now`, in one transaction: a reorganisation's dropped blocks go in
    /// the same transaction as the branch that replaces them, so a reader
    /// sees one branch or the other. `false`, and nothing written, when the
    /// lease is another's.
    pub async fn write(
        &self,
        chain: Chain,
        holder: Uuid,
        now: DateTime<Utc>,
        batch: &TableBatch,
    ) -> Result<bool, StoreError> {
        let mut tx = Tx::<Postgres>(self.pool.begin().await.map_err(failed)?);
        if !held_in(&mut tx, chain, holder, now).await? {
            return Ok(false);
        }
        let chain = chain.as_str();
        if let Some(after) = batch.rollback_after {
            drop_after(&mut tx, chain, after, batch.moves.first().map(|m| m.seq)).await?;
        }
        write_contracts(&mut tx, chain, batch).await?;
        write_blocks(&mut tx, chain, batch).await?;
        write_moves(&mut tx, chain, batch).await?;
        write_values(&mut tx, chain, batch).await?;
        if let Some(progress) = batch.progress {
            let upsert = "INSERT INTO index_progress (chain, first_block, next_move, next_inner, revision) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chain) DO UPDATE SET first_block = excluded.first_block, \
                 next_move = excluded.next_move, next_inner = excluded.next_inner, revision = excluded.revision";
            sqlx::query(upsert)
                .bind(chain)
                .bind(big(progress.first_block))
                .bind(big(progress.next_move))
                .bind(big(progress.next_inner))
                .bind(big(progress.revision))
                .execute(&mut *tx.0)
                .await
                .map_err(failed)?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Forgets everything of `chain`'s index while `holder` holds its
    /// lease, in one transaction (a reorganisation deeper than the index
    /// undoes: it is built again from its first block). `false` if the
    /// lease is another's.
    pub async fn clear(&self, chain: Chain, holder: Uuid, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = Tx::<Postgres>(self.pool.begin().await.map_err(failed)?);
        if !held_in(&mut tx, chain, holder, now).await? {
            return Ok(false);
        }
        for table in ALL {
            let delete = format!("DELETE FROM {table} WHERE chain = $1");
            sqlx::query(sqlx::AssertSqlSafe(delete)).bind(chain.as_str()).execute(&mut *tx.0).await.map_err(failed)?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Where `chain`'s index stands, its contracts, and its newest
    /// `recent` blocks.
    pub async fn state(&self, chain: Chain, recent: u64) -> Result<TablesState, StoreError> {
        let chain = chain.as_str();
        let pool = &self.pool;
        let progress =
            sqlx::query("SELECT first_block, next_move, next_inner, revision FROM index_progress WHERE chain = $1")
                .bind(chain)
                .fetch_optional(pool)
                .await
                .map_err(failed)?
                .map(|row| progress_from(&row))
                .transpose()?;
        let next_holder: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(holder) + 1, 0)::BIGINT FROM index_holders WHERE chain = $1")
                .bind(chain)
                .fetch_one(pool)
                .await
                .map_err(failed)?;
        let tokens = sqlx::query(
            "SELECT asset, address, name, symbol, decimals FROM index_tokens WHERE chain = $1 ORDER BY asset",
        )
        .bind(chain)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(token_from)
        .collect::<Result<_, _>>()?;
        let collections = sqlx::query(
            "SELECT collection, address, name, symbol, erc1155 FROM index_collections WHERE chain = $1 ORDER BY collection",
        )
        .bind(chain)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(collection_from)
        .collect::<Result<_, _>>()?;
        let exchanges = sqlx::query("SELECT factory FROM index_exchanges WHERE chain = $1 ORDER BY exchange")
            .bind(chain)
            .fetch_all(pool)
            .await
            .map_err(failed)?
            .iter()
            .map(|row| address(row.get::<&[u8], _>(0), "index exchange"))
            .collect::<Result<_, _>>()?;
        let pairs = sqlx::query(
            "SELECT pair, address, token0, token1, exchange, created FROM index_pairs WHERE chain = $1 ORDER BY pair",
        )
        .bind(chain)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(pair_from)
        .collect::<Result<_, _>>()?;
        let mut headers: Vec<HeaderRow> = sqlx::query(
            "SELECT number, hash, parent_hash, timestamp FROM index_headers WHERE chain = $1 \
             ORDER BY number DESC LIMIT $2",
        )
        .bind(chain)
        .bind(big(recent))
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(header_from)
        .collect::<Result<_, _>>()?;
        headers.reverse();
        Ok(TablesState {
            progress,
            next_holder: unsigned(next_holder, "index holder")?,
            tokens,
            collections,
            exchanges,
            pairs,
            headers,
        })
    }

    /// `chain`'s newest indexed block and its revision, as the tables stand.
    pub async fn head(&self, chain: Chain) -> Result<(Option<u64>, u64), StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT MAX(number) FROM index_headers WHERE chain = $1), \
             (SELECT revision FROM index_progress WHERE chain = $1)",
        )
        .bind(chain.as_str())
        .fetch_one(&self.pool)
        .await
        .map_err(failed)?;
        let head = row.get::<Option<i64>, _>(0).map(|n| unsigned(n, "index header")).transpose()?;
        let revision = row.get::<Option<i64>, _>(1).map(|n| unsigned(n, "index progress")).transpose()?;
        Ok((head, revision.unwrap_or(0)))
    }

    /// The hash and timestamp of `chain`'s indexed block `number`.
    pub async fn header_at(&self, chain: Chain, number: u64) -> Result<Option<(B256, u64)>, StoreError> {
        let row = sqlx::query("SELECT hash, timestamp FROM index_headers WHERE chain = $1 AND number = $2")
            .bind(chain.as_str())
            .bind(big(number))
            .fetch_optional(&self.pool)
            .await
            .map_err(failed)?;
        row.map(|row| Ok((hash(row.get::<&[u8], _>(0), "index header")?, big_col(&row, 1, "index header")?)))
            .transpose()
    }

    /// The numbers of those of `addresses` that `chain`'s index numbered.
    pub async fn holders(&self, chain: Chain, addresses: &[Address]) -> Result<Vec<(Address, u32)>, StoreError> {
        let wanted: Vec<&[u8]> = addresses.iter().map(|a| a.as_slice()).collect();
        let rows = sqlx::query(
            "SELECT k.address, h.holder FROM UNNEST($2::BYTEA[]) AS k(address) \
             CROSS JOIN LATERAL (SELECT holder FROM index_holders WHERE chain = $1 AND address = k.address) h",
        )
        .bind(chain.as_str())
        .bind(&wanted)
        .fetch_all(&self.pool)
        .await
        .map_err(failed)?;
        rows.iter()
            .map(|row| {
                let holder = int_col(row, 1, "index holder")?;
                Ok((address(row.get::<&[u8], _>(0), "index holder")?, holder))
            })
            .collect()
    }

    /// The addresses of holders by their numbers in `chain`'s index.
    pub async fn addresses(
        &self,
        chain: Chain,
        numbers: impl IntoIterator<Item = u32>,
    ) -> Result<std::collections::HashMap<u32, Address>, StoreError> {
        let wanted: Vec<i32> = numbers.into_iter().map(int).collect();
        let rows = sqlx::query(
            "SELECT k.holder, h.address FROM UNNEST($2::INTEGER[]) AS k(holder) \
             CROSS JOIN LATERAL (SELECT address FROM index_holders WHERE chain = $1 AND holder = k.holder) h",
        )
        .bind(chain.as_str())
        .bind(&wanted)
        .fetch_all(&self.pool)
        .await
        .map_err(failed)?;
        rows.iter()
            .map(|row| {
                let holder = int_col(row, 0, "index holder")?;
                Ok((holder, address(row.get::<&[u8], _>(1), "index holder")?))
            })
            .collect()
    }

    /// The numbers the next movement and inner transfer take once every
    /// block after `block` is dropped.
    pub async fn sequences_after(&self, chain: Chain, block: u64) -> Result<(u64, u64), StoreError> {
        let next = "SELECT (SELECT COALESCE(MAX(seq) + 1, 0) FROM index_moves WHERE chain = $1 AND block <= $2)::BIGINT, \
             (SELECT COALESCE(MAX(seq) + 1, 0) FROM index_inner WHERE chain = $1 AND block <= $2)::BIGINT";
        let (moves, inner): (i64, i64) =
            sqlx::query_as(next).bind(chain.as_str()).bind(big(block)).fetch_one(&self.pool).await.map_err(failed)?;
        Ok((unsigned(moves, "index movement")?, unsigned(inner, "index inner transfer")?))
    }

    /// The values of `keys` at the end of block `at`: each one's newest
    /// checkpoint at or before it. Keys with none are left out (they held
    /// nothing).
    pub async fn carried(&self, chain: Chain, at: u64, keys: &CarriedKeys) -> Result<Carried, StoreError> {
        let (chain, at, pool) = (chain.as_str(), big(at), &self.pool);
        let holders: Vec<i32> = keys.balances.iter().map(|(holder, _)| int(*holder)).collect();
        let assets: Vec<i32> = keys.balances.iter().map(|(_, asset)| i32::from(*asset)).collect();
        let balances = sqlx::query(
            "SELECT k.holder, k.asset, b.balance::TEXT FROM UNNEST($2::INTEGER[], $3::INTEGER[]) AS k(holder, asset) \
             CROSS JOIN LATERAL (SELECT balance FROM index_balances WHERE chain = $1 AND holder = k.holder \
             AND asset = k.asset AND block <= $4 ORDER BY block DESC LIMIT 1) b",
        )
        .bind(chain)
        .bind(&holders)
        .bind(&assets)
        .bind(at)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(|row| {
            Ok((
                int_col(row, 0, "index balance")?,
                int_col(row, 1, "index balance")?,
                parsed(row.get::<&str, _>(2), "index balance")?,
            ))
        })
        .collect::<Result<_, StoreError>>()?;
        let supply_assets: Vec<i32> = keys.supplies.iter().map(|asset| i32::from(*asset)).collect();
        let supplies = sqlx::query(
            "SELECT k.asset, s.supply::TEXT FROM UNNEST($2::INTEGER[]) AS k(asset) \
             CROSS JOIN LATERAL (SELECT supply FROM index_supplies WHERE chain = $1 AND asset = k.asset \
             AND block <= $3 ORDER BY block DESC LIMIT 1) s",
        )
        .bind(chain)
        .bind(&supply_assets)
        .bind(at)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(|row| Ok((int_col(row, 0, "index supply")?, parsed(row.get::<&str, _>(1), "index supply")?)))
        .collect::<Result<_, StoreError>>()?;
        let collections: Vec<i32> = keys.owners.iter().map(|(c, _)| i32::from(*c)).collect();
        let ids: Vec<String> = keys.owners.iter().map(|(_, id)| decimal(id)).collect();
        let owners = sqlx::query(
            "SELECT k.collection, k.token_id::TEXT, o.owner \
             FROM UNNEST($2::INTEGER[], $3::TEXT[]::NUMERIC[]) AS k(collection, token_id) \
             CROSS JOIN LATERAL (SELECT owner FROM index_owners WHERE chain = $1 AND collection = k.collection \
             AND token_id = k.token_id AND block <= $4 ORDER BY block DESC LIMIT 1) o",
        )
        .bind(chain)
        .bind(&collections)
        .bind(&ids)
        .bind(at)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(|row| {
            Ok((
                int_col(row, 0, "index owner")?,
                parsed(row.get::<&str, _>(1), "index owner")?,
                int_col(row, 2, "index owner")?,
            ))
        })
        .collect::<Result<_, StoreError>>()?;
        let holders: Vec<i32> = keys.amounts.iter().map(|(h, _, _)| int(*h)).collect();
        let collections: Vec<i32> = keys.amounts.iter().map(|(_, c, _)| i32::from(*c)).collect();
        let ids: Vec<String> = keys.amounts.iter().map(|(_, _, id)| decimal(id)).collect();
        let amounts = sqlx::query(
            "SELECT k.holder, k.collection, k.token_id::TEXT, a.amount::TEXT \
             FROM UNNEST($2::INTEGER[], $3::INTEGER[], $4::TEXT[]::NUMERIC[]) AS k(holder, collection, token_id) \
             CROSS JOIN LATERAL (SELECT amount FROM index_amounts WHERE chain = $1 AND holder = k.holder \
             AND collection = k.collection AND token_id = k.token_id AND block <= $5 ORDER BY block DESC LIMIT 1) a",
        )
        .bind(chain)
        .bind(&holders)
        .bind(&collections)
        .bind(&ids)
        .bind(at)
        .fetch_all(pool)
        .await
        .map_err(failed)?
        .iter()
        .map(|row| {
            Ok((
                int_col(row, 0, "index amount")?,
                int_col(row, 1, "index amount")?,
                parsed(row.get::<&str, _>(2), "index amount")?,
                parsed(row.get::<&str, _>(3), "index amount")?,
            ))
        })
        .collect::<Result<_, StoreError>>()?;
        Ok(Carried { balances, supplies, owners, amounts })
    }
}

async fn run(
    tx: &mut Tx<Postgres>,
    query: sqlx::query::Query<'_, Postgres, sqlx::postgres::PgArguments>,
) -> Result<(), StoreError> {
    query.execute(&mut *tx.0).await.map(|_| ()).map_err(failed)
}

/// [`run`] for an insert of `rows` rows: nothing to send when there are
/// none (most batches have no pair, NFT or inner transfer to write).
async fn insert(
    tx: &mut Tx<Postgres>,
    rows: usize,
    query: sqlx::query::Query<'_, Postgres, sqlx::postgres::PgArguments>,
) -> Result<(), StoreError> {
    if rows == 0 { Ok(()) } else { run(tx, query).await }
}

/// Deletes every row of blocks after `after`; NFTs first held by a
/// movement numbered `first_move` on go with them.
async fn drop_after(tx: &mut Tx<Postgres>, chain: &str, after: u64, first_move: Option<u64>) -> Result<(), StoreError> {
    for (table, column) in BY_BLOCK {
        let delete = format!("DELETE FROM {table} WHERE chain = $1 AND {column} > $2");
        run(tx, sqlx::query(sqlx::AssertSqlSafe(delete)).bind(chain).bind(big(after))).await?;
    }
    // A holder's first movement of an NFT may be a dropped one whose block
    // no row of index_held names: its number does.
    let first_dropped: i64 = match first_move {
        Some(seq) => big(seq),
        None => sqlx::query_scalar("SELECT COALESCE(MAX(seq) + 1, 0)::BIGINT FROM index_moves WHERE chain = $1")
            .bind(chain)
            .fetch_one(&mut *tx.0)
            .await
            .map_err(failed)?,
    };
    run(tx, sqlx::query("DELETE FROM index_held WHERE chain = $1 AND seq >= $2").bind(chain).bind(first_dropped)).await
}

async fn write_contracts(tx: &mut Tx<Postgres>, chain: &str, batch: &TableBatch) -> Result<(), StoreError> {
    let (numbers, addresses): (Vec<i32>, Vec<&[u8]>) =
        batch.holders.iter().map(|(holder, address)| (int(*holder), address.as_slice())).unzip();
    insert(
        tx,
        batch.holders.len(),
        sqlx::query(
            "INSERT INTO index_holders (chain, holder, address) SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BYTEA[]) \
             ON CONFLICT DO NOTHING",
        )
        .bind(chain)
        .bind(numbers)
        .bind(addresses),
    )
    .await?;
    let tokens = &batch.tokens;
    insert(
        tx,
        tokens.len(),
        sqlx::query(
            "INSERT INTO index_tokens (chain, asset, address, name, symbol, decimals) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BYTEA[], $4::TEXT[], $5::TEXT[], $6::SMALLINT[])",
        )
        .bind(chain)
        .bind(tokens.iter().map(|t| i32::from(t.asset)).collect::<Vec<_>>())
        .bind(tokens.iter().map(|t| t.address.as_slice()).collect::<Vec<_>>())
        .bind(tokens.iter().map(|t| t.name.as_str()).collect::<Vec<_>>())
        .bind(tokens.iter().map(|t| t.symbol.as_str()).collect::<Vec<_>>())
        .bind(tokens.iter().map(|t| i16::from(t.decimals)).collect::<Vec<_>>()),
    )
    .await?;
    let collections = &batch.collections;
    insert(
        tx,
        collections.len(),
        sqlx::query(
            "INSERT INTO index_collections (chain, collection, address, name, symbol, erc1155) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BYTEA[], $4::TEXT[], $5::TEXT[], $6::BOOLEAN[])",
        )
        .bind(chain)
        .bind(collections.iter().map(|c| i32::from(c.collection)).collect::<Vec<_>>())
        .bind(collections.iter().map(|c| c.address.as_slice()).collect::<Vec<_>>())
        .bind(collections.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())
        .bind(collections.iter().map(|c| c.symbol.as_str()).collect::<Vec<_>>())
        .bind(collections.iter().map(|c| c.erc1155).collect::<Vec<_>>()),
    )
    .await?;
    let (numbers, factories): (Vec<i32>, Vec<&[u8]>) =
        batch.exchanges.iter().map(|(number, factory)| (int(*number), factory.as_slice())).unzip();
    insert(
        tx,
        batch.exchanges.len(),
        sqlx::query(
            "INSERT INTO index_exchanges (chain, exchange, factory) SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BYTEA[])",
        )
        .bind(chain)
        .bind(numbers)
        .bind(factories),
    )
    .await
}

async fn write_blocks(tx: &mut Tx<Postgres>, chain: &str, batch: &TableBatch) -> Result<(), StoreError> {
    let headers = &batch.headers;
    insert(
        tx,
        headers.len(),
        sqlx::query(
            "INSERT INTO index_headers (chain, number, hash, parent_hash, timestamp) \
             SELECT $1, * FROM UNNEST($2::BIGINT[], $3::BYTEA[], $4::BYTEA[], $5::BIGINT[])",
        )
        .bind(chain)
        .bind(headers.iter().map(|h| big(h.number)).collect::<Vec<_>>())
        .bind(headers.iter().map(|h| h.hash.as_slice()).collect::<Vec<_>>())
        .bind(headers.iter().map(|h| h.parent_hash.as_slice()).collect::<Vec<_>>())
        .bind(headers.iter().map(|h| big(h.timestamp)).collect::<Vec<_>>()),
    )
    .await?;
    let pairs = &batch.pairs;
    insert(
        tx,
        pairs.len(),
        sqlx::query(
            "INSERT INTO index_pairs (chain, pair, address, token0, token1, exchange, created) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BYTEA[], $4::INTEGER[], $5::INTEGER[], $6::INTEGER[], $7::BIGINT[])",
        )
        .bind(chain)
        .bind(pairs.iter().map(|p| int(p.pair)).collect::<Vec<_>>())
        .bind(pairs.iter().map(|p| p.address.as_slice()).collect::<Vec<_>>())
        .bind(pairs.iter().map(|p| i32::from(p.token0)).collect::<Vec<_>>())
        .bind(pairs.iter().map(|p| i32::from(p.token1)).collect::<Vec<_>>())
        .bind(pairs.iter().map(|p| int(p.exchange)).collect::<Vec<_>>())
        .bind(pairs.iter().map(|p| big(p.created)).collect::<Vec<_>>()),
    )
    .await?;
    let reserves = &batch.reserves;
    insert(
        tx,
        reserves.len(),
        sqlx::query(
            "INSERT INTO index_reserves (chain, pair, block, reserve0, reserve1) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BIGINT[], $4::TEXT[]::NUMERIC[], $5::TEXT[]::NUMERIC[])",
        )
        .bind(chain)
        .bind(reserves.iter().map(|r| int(r.pair)).collect::<Vec<_>>())
        .bind(reserves.iter().map(|r| big(r.block)).collect::<Vec<_>>())
        .bind(reserves.iter().map(|r| decimal(r.reserves.0)).collect::<Vec<_>>())
        .bind(reserves.iter().map(|r| decimal(r.reserves.1)).collect::<Vec<_>>()),
    )
    .await?;
    let txs = &batch.transactions;
    insert(
        tx,
        txs.len(),
        sqlx::query(
            "INSERT INTO index_transactions (chain, block, position, hash, sender, recipient, value) \
             SELECT $1, * FROM UNNEST($2::BIGINT[], $3::INTEGER[], $4::BYTEA[], $5::INTEGER[], $6::INTEGER[], \
             $7::TEXT[]::NUMERIC[])",
        )
        .bind(chain)
        .bind(txs.iter().map(|t| big(t.block)).collect::<Vec<_>>())
        .bind(txs.iter().map(|t| int(t.position)).collect::<Vec<_>>())
        .bind(txs.iter().map(|t| t.hash.as_slice()).collect::<Vec<_>>())
        .bind(txs.iter().map(|t| int(t.sender)).collect::<Vec<_>>())
        .bind(txs.iter().map(|t| t.recipient.map(int)).collect::<Vec<_>>())
        .bind(txs.iter().map(|t| decimal(t.value)).collect::<Vec<_>>()),
    )
    .await?;
    // A transaction is listed once for each party: once when sent to oneself.
    let parties: Vec<(i32, i64, i32)> = txs
        .iter()
        .flat_map(|t| {
            let to = t.recipient.filter(|to| *to != t.sender);
            [Some(t.sender), to].into_iter().flatten().map(|holder| (int(holder), big(t.block), int(t.position)))
        })
        .collect();
    insert(
        tx,
        parties.len(),
        sqlx::query(
            "INSERT INTO index_parties (chain, holder, block, position) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BIGINT[], $4::INTEGER[])",
        )
        .bind(chain)
        .bind(parties.iter().map(|p| p.0).collect::<Vec<_>>())
        .bind(parties.iter().map(|p| p.1).collect::<Vec<_>>())
        .bind(parties.iter().map(|p| p.2).collect::<Vec<_>>()),
    )
    .await?;
    let inner = &batch.inner;
    insert(
        tx,
        inner.len(),
        sqlx::query(
            "INSERT INTO index_inner (chain, seq, block, position, payer, payee, value) \
             SELECT $1, * FROM UNNEST($2::BIGINT[], $3::BIGINT[], $4::INTEGER[], $5::INTEGER[], $6::INTEGER[], \
             $7::TEXT[]::NUMERIC[])",
        )
        .bind(chain)
        .bind(inner.iter().map(|i| big(i.seq)).collect::<Vec<_>>())
        .bind(inner.iter().map(|i| big(i.block)).collect::<Vec<_>>())
        .bind(inner.iter().map(|i| int(i.position)).collect::<Vec<_>>())
        .bind(inner.iter().map(|i| int(i.payer)).collect::<Vec<_>>())
        .bind(inner.iter().map(|i| int(i.payee)).collect::<Vec<_>>())
        .bind(inner.iter().map(|i| decimal(i.value)).collect::<Vec<_>>()),
    )
    .await
}

async fn write_moves(tx: &mut Tx<Postgres>, chain: &str, batch: &TableBatch) -> Result<(), StoreError> {
    let moves = &batch.moves;
    let fungible = |m: &MoveRow| match m.moved {
        Moved::Fungible { asset } => Some(i32::from(asset)),
        Moved::Nft { .. } => None,
    };
    let nft = |m: &MoveRow| match m.moved {
        Moved::Fungible { .. } => None,
        Moved::Nft { collection, token_id, multi, operator, batch } => {
            Some((i32::from(collection), decimal(token_id), multi, operator.map(int), batch))
        }
    };
    let nfts: Vec<_> = moves.iter().map(nft).collect();
    insert(
        tx,
        moves.len(),
        sqlx::query(
            "INSERT INTO index_moves (chain, seq, block, position, log, asset, collection, token_id, sender, recipient, \
             amount, multi, operator, batch) \
             SELECT $1, * FROM UNNEST($2::BIGINT[], $3::BIGINT[], $4::INTEGER[], $5::INTEGER[], $6::INTEGER[], \
             $7::INTEGER[], $8::TEXT[]::NUMERIC[], $9::INTEGER[], $10::INTEGER[], $11::TEXT[]::NUMERIC[], \
             $12::BOOLEAN[], $13::INTEGER[], $14::BOOLEAN[])",
        )
        .bind(chain)
        .bind(moves.iter().map(|m| big(m.seq)).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| big(m.block)).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| m.position.map(int)).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| m.log.map(int)).collect::<Vec<_>>())
        .bind(moves.iter().map(fungible).collect::<Vec<_>>())
        .bind(nfts.iter().map(|n| n.as_ref().map(|n| n.0)).collect::<Vec<_>>())
        .bind(nfts.iter().map(|n| n.as_ref().map(|n| n.1.clone())).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| int(m.sender)).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| int(m.recipient)).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| decimal(m.amount)).collect::<Vec<_>>())
        .bind(nfts.iter().map(|n| n.as_ref().is_some_and(|n| n.2)).collect::<Vec<_>>())
        .bind(nfts.iter().map(|n| n.as_ref().and_then(|n| n.3)).collect::<Vec<_>>())
        .bind(nfts.iter().map(|n| n.as_ref().is_some_and(|n| n.4)).collect::<Vec<_>>()),
    )
    .await?;
    // Only the first movement that gave a holder an NFT, and only a
    // token's first mint, are kept: a later one finds its row there.
    let firsts = [
        ("INSERT INTO index_held (chain, holder, collection, token_id, seq) SELECT $1, h, c, t, s", &batch.held),
        ("INSERT INTO index_minted (chain, collection, token_id, block, seq) SELECT $1, c, t, b, s", &batch.minted),
    ];
    for (into, rows) in firsts {
        let statement = format!(
            "{into} FROM UNNEST($2::INTEGER[], $3::INTEGER[], $4::TEXT[]::NUMERIC[], $5::BIGINT[], $6::BIGINT[]) \
             AS r(h, c, t, b, s) ON CONFLICT DO NOTHING"
        );
        insert(
            tx,
            rows.len(),
            sqlx::query(sqlx::AssertSqlSafe(statement))
                .bind(chain)
                .bind(rows.iter().map(|r| int(r.holder)).collect::<Vec<_>>())
                .bind(rows.iter().map(|r| i32::from(r.collection)).collect::<Vec<_>>())
                .bind(rows.iter().map(|r| decimal(r.token_id)).collect::<Vec<_>>())
                .bind(rows.iter().map(|r| big(r.block)).collect::<Vec<_>>())
                .bind(rows.iter().map(|r| big(r.seq)).collect::<Vec<_>>()),
        )
        .await?;
    }
    Ok(())
}

async fn write_values(tx: &mut Tx<Postgres>, chain: &str, batch: &TableBatch) -> Result<(), StoreError> {
    let balances = &batch.balances;
    insert(
        tx,
        balances.len(),
        sqlx::query(
            "INSERT INTO index_balances (chain, holder, asset, block, balance) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::INTEGER[], $4::BIGINT[], $5::TEXT[]::NUMERIC[])",
        )
        .bind(chain)
        .bind(balances.iter().map(|b| int(b.holder)).collect::<Vec<_>>())
        .bind(balances.iter().map(|b| i32::from(b.asset)).collect::<Vec<_>>())
        .bind(balances.iter().map(|b| big(b.block)).collect::<Vec<_>>())
        .bind(balances.iter().map(|b| decimal(b.balance)).collect::<Vec<_>>()),
    )
    .await?;
    let supplies = &batch.supplies;
    insert(
        tx,
        supplies.len(),
        sqlx::query(
            "INSERT INTO index_supplies (chain, asset, block, supply) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::BIGINT[], $4::TEXT[]::NUMERIC[])",
        )
        .bind(chain)
        .bind(supplies.iter().map(|s| i32::from(s.asset)).collect::<Vec<_>>())
        .bind(supplies.iter().map(|s| big(s.block)).collect::<Vec<_>>())
        .bind(supplies.iter().map(|s| decimal(s.supply)).collect::<Vec<_>>()),
    )
    .await?;
    let owners = &batch.owners;
    insert(
        tx,
        owners.len(),
        sqlx::query(
            "INSERT INTO index_owners (chain, collection, token_id, block, owner) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::TEXT[]::NUMERIC[], $4::BIGINT[], $5::INTEGER[])",
        )
        .bind(chain)
        .bind(owners.iter().map(|o| i32::from(o.collection)).collect::<Vec<_>>())
        .bind(owners.iter().map(|o| decimal(o.token_id)).collect::<Vec<_>>())
        .bind(owners.iter().map(|o| big(o.block)).collect::<Vec<_>>())
        .bind(owners.iter().map(|o| int(o.owner)).collect::<Vec<_>>()),
    )
    .await?;
    let amounts = &batch.amounts;
    insert(
        tx,
        amounts.len(),
        sqlx::query(
            "INSERT INTO index_amounts (chain, holder, collection, token_id, block, amount) \
             SELECT $1, * FROM UNNEST($2::INTEGER[], $3::INTEGER[], $4::TEXT[]::NUMERIC[], $5::BIGINT[], \
             $6::TEXT[]::NUMERIC[])",
        )
        .bind(chain)
        .bind(amounts.iter().map(|a| int(a.holder)).collect::<Vec<_>>())
        .bind(amounts.iter().map(|a| i32::from(a.collection)).collect::<Vec<_>>())
        .bind(amounts.iter().map(|a| decimal(a.token_id)).collect::<Vec<_>>())
        .bind(amounts.iter().map(|a| big(a.block)).collect::<Vec<_>>())
        .bind(amounts.iter().map(|a| decimal(a.amount)).collect::<Vec<_>>()),
    )
    .await
}

fn progress_from(row: &PgRow) -> Result<Progress, StoreError> {
    Ok(Progress {
        first_block: big_col(row, 0, "index progress")?,
        next_move: big_col(row, 1, "index progress")?,
        next_inner: big_col(row, 2, "index progress")?,
        revision: big_col(row, 3, "index progress")?,
    })
}

fn token_from(row: &PgRow) -> Result<TokenRow, StoreError> {
    Ok(TokenRow {
        asset: int_col(row, 0, "index token")?,
        address: address(row.get::<&[u8], _>(1), "index token")?,
        name: row.get(2),
        symbol: row.get(3),
        decimals: unsigned(i64::from(row.get::<i16, _>(4)), "index token")?,
    })
}

fn collection_from(row: &PgRow) -> Result<CollectionRow, StoreError> {
    Ok(CollectionRow {
        collection: int_col(row, 0, "index collection")?,
        address: address(row.get::<&[u8], _>(1), "index collection")?,
        name: row.get(2),
        symbol: row.get(3),
        erc1155: row.get(4),
    })
}

fn pair_from(row: &PgRow) -> Result<PairRow, StoreError> {
    Ok(PairRow {
        pair: int_col(row, 0, "index pair")?,
        address: address(row.get::<&[u8], _>(1), "index pair")?,
        token0: int_col(row, 2, "index pair")?,
        token1: int_col(row, 3, "index pair")?,
        exchange: int_col(row, 4, "index pair")?,
        created: big_col(row, 5, "index pair")?,
    })
}

fn header_from(row: &PgRow) -> Result<HeaderRow, StoreError> {
    Ok(HeaderRow {
        number: big_col(row, 0, "index header")?,
        hash: hash(row.get::<&[u8], _>(1), "index header")?,
        parent_hash: hash(row.get::<&[u8], _>(2), "index header")?,
        timestamp: big_col(row, 3, "index header")?,
    })
}

/// One consistent view of a chain's index for one answer: a read-only
/// transaction at repeatable read, so that every read sees the tables as
/// one writer's commit left them, never half a reorganisation.
pub struct Snapshot {
    tx: tokio::sync::Mutex<sqlx::Transaction<'static, Postgres>>,
    chain: String,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot").field("chain", &self.chain).finish()
    }
}

/// Where a [`Snapshot`] stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// The newest indexed block.
    pub head: Option<u64>,
    /// The first block the index holds.
    pub first: Option<u64>,
    /// How many tokens, collections and exchanges the index numbered.
    pub contracts: (usize, usize, usize),
}

/// A movement's columns, as [`move_from`] reads them.
const MOVE: &str = "seq, block, position, log, asset, collection, token_id::TEXT, sender, recipient, amount::TEXT, \
                    multi, operator, batch";

impl IndexTables {
    /// A snapshot of `chain`'s index, for one answer.
    pub async fn snapshot(&self, chain: Chain) -> Result<Snapshot, StoreError> {
        // One round trip: the isolation comes with the BEGIN.
        let begin = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";
        let tx = self.reads.begin_with(begin).await.map_err(failed)?;
        Ok(Snapshot { tx: tokio::sync::Mutex::new(tx), chain: chain.as_str().to_owned() })
    }
}

impl Snapshot {
    async fn rows(
        &self,
        query: sqlx::query::Query<'_, Postgres, sqlx::postgres::PgArguments>,
    ) -> Result<Vec<PgRow>, StoreError> {
        let mut tx = self.tx.lock().await;
        query.fetch_all(&mut **tx).await.map_err(failed)
    }

    async fn row(
        &self,
        query: sqlx::query::Query<'_, Postgres, sqlx::postgres::PgArguments>,
    ) -> Result<Option<PgRow>, StoreError> {
        let mut tx = self.tx.lock().await;
        query.fetch_optional(&mut **tx).await.map_err(failed)
    }

    /// Where the snapshot stands: its newest indexed block, the first block
    /// the index holds, and how many tokens, collections and exchanges it
    /// numbered (in one round trip: every answer asks it first).
    pub async fn bounds(&self) -> Result<Bounds, StoreError> {
        let query = sqlx::query(
            "SELECT (SELECT MAX(number) FROM index_headers WHERE chain = $1), \
             (SELECT first_block FROM index_progress WHERE chain = $1), \
             (SELECT COUNT(*) FROM index_tokens WHERE chain = $1), \
             (SELECT COUNT(*) FROM index_collections WHERE chain = $1), \
             (SELECT COUNT(*) FROM index_exchanges WHERE chain = $1)",
        )
        .bind(&self.chain);
        let Some(row) = self.row(query).await? else { return Ok(Bounds::default()) };
        let number = |i: usize, what| row.get::<Option<i64>, _>(i).map(|n| unsigned(n, what)).transpose();
        let count = |i: usize| unsigned::<usize>(row.get(i), "index contracts");
        Ok(Bounds {
            head: number(0, "index header")?,
            first: number(1, "index progress")?,
            contracts: (count(2)?, count(3)?, count(4)?),
        })
    }

    /// A block's hash and timestamp.
    pub async fn header(&self, number: u64) -> Result<Option<(B256, u64)>, StoreError> {
        let query = sqlx::query("SELECT hash, timestamp FROM index_headers WHERE chain = $1 AND number = $2")
            .bind(&self.chain)
            .bind(big(number));
        match self.row(query).await? {
            Some(row) => Ok(Some((hash(row.get::<&[u8], _>(0), "index header")?, big_col(&row, 1, "index header")?))),
            None => Ok(None),
        }
    }

    /// The newest block from `first` to `through` whose timestamp is at most
    /// `time` (timestamps never fall from one block to the next).
    pub async fn last_block_at(&self, time: u64, first: u64, through: u64) -> Result<Option<u64>, StoreError> {
        let query = sqlx::query(
            "SELECT number FROM index_headers WHERE chain = $1 AND timestamp <= $2 AND number <= $3 \
             ORDER BY timestamp DESC, number DESC LIMIT 1",
        )
        .bind(&self.chain)
        .bind(big(time))
        .bind(big(through));
        let found = self.row(query).await?.map(|row| big_col::<u64>(&row, 0, "index header")).transpose()?;
        Ok(found.filter(|number| *number >= first))
    }

    /// A transaction by its place: hash, sender, recipient and value.
    pub async fn transaction(
        &self,
        block: u64,
        position: u32,
    ) -> Result<Option<(B256, Address, Option<Address>, U256)>, StoreError> {
        let query = sqlx::query(
            "SELECT t.hash, s.address, r.address, t.value::TEXT FROM index_transactions t \
             JOIN index_holders s ON s.chain = t.chain AND s.holder = t.sender \
             LEFT JOIN index_holders r ON r.chain = t.chain AND r.holder = t.recipient \
             WHERE t.chain = $1 AND t.block = $2 AND t.position = $3",
        )
        .bind(&self.chain)
        .bind(big(block))
        .bind(int(position));
        let Some(row) = self.row(query).await? else { return Ok(None) };
        let recipient = row.get::<Option<&[u8]>, _>(2).map(|bytes| address(bytes, "index transaction")).transpose()?;
        Ok(Some((
            hash(row.get::<&[u8], _>(0), "index transaction")?,
            address(row.get::<&[u8], _>(1), "index transaction")?,
            recipient,
            parsed(row.get::<&str, _>(3), "index transaction")?,
        )))
    }

    /// The number of `address`, if the index numbered it.
    pub async fn find(&self, wanted: Address) -> Result<Option<u32>, StoreError> {
        let query = sqlx::query("SELECT holder FROM index_holders WHERE chain = $1 AND address = $2")
            .bind(&self.chain)
            .bind(wanted.as_slice());
        self.row(query).await?.map(|row| int_col(&row, 0, "index holder")).transpose()
    }

    /// The address of holder `number`.
    pub async fn address(&self, number: u32) -> Result<Option<Address>, StoreError> {
        let query = sqlx::query("SELECT address FROM index_holders WHERE chain = $1 AND holder = $2")
            .bind(&self.chain)
            .bind(int(number));
        self.row(query).await?.map(|row| address(row.get::<&[u8], _>(0), "index holder")).transpose()
    }

    /// Every asset `holder` held at or before `block`, with its balance then.
    pub async fn balances_at(&self, holder: u32, block: u64) -> Result<Vec<(u16, u128)>, StoreError> {
        let query = sqlx::query(
            "SELECT DISTINCT ON (asset) asset, balance::TEXT FROM index_balances \
             WHERE chain = $1 AND holder = $2 AND block <= $3 ORDER BY asset, block DESC",
        )
        .bind(&self.chain)
        .bind(int(holder))
        .bind(big(block));
        self.rows(query)
            .await?
            .iter()
            .map(|row| Ok((int_col(row, 0, "index balance")?, parsed(row.get::<&str, _>(1), "index balance")?)))
            .collect()
    }

    /// An asset's supply at the end of `block`.
    pub async fn supply_at(&self, asset: u16, block: u64) -> Result<u128, StoreError> {
        let query = sqlx::query(
            "SELECT supply::TEXT FROM index_supplies WHERE chain = $1 AND asset = $2 AND block <= $3 \
             ORDER BY block DESC LIMIT 1",
        )
        .bind(&self.chain)
        .bind(i32::from(asset))
        .bind(big(block));
        self.row(query).await?.map_or(Ok(0), |row| parsed(row.get::<&str, _>(0), "index supply"))
    }

    /// The last block up to `block` (the first, with `None`) in which
    /// `asset` moved.
    pub async fn activity(&self, asset: u16, last_up_to: Option<u64>) -> Result<Option<u64>, StoreError> {
        let query = match last_up_to {
            Some(block) => sqlx::query(
                "SELECT block FROM index_moves WHERE chain = $1 AND asset = $2 AND block <= $3 \
                 ORDER BY block DESC LIMIT 1",
            )
            .bind(&self.chain)
            .bind(i32::from(asset))
            .bind(big(block)),
            None => sqlx::query("SELECT block FROM index_moves WHERE chain = $1 AND asset = $2 ORDER BY block LIMIT 1")
                .bind(&self.chain)
                .bind(i32::from(asset)),
        };
        self.row(query).await?.map(|row| big_col(&row, 0, "index movement")).transpose()
    }

    /// The movements, in chain order, of a holder (sender or recipient), of
    /// an asset, or of a collection.
    pub async fn moves(&self, of: MovesOf) -> Result<Vec<MoveRow>, StoreError> {
        let (filter, key) = match of {
            // Mints and burns are not the zero address's.
            MovesOf::Holder(0) => return Ok(Vec::new()),
            MovesOf::Holder(holder) => ("(sender = $2 OR recipient = $2)", int(holder)),
            MovesOf::Asset(asset) => ("asset = $2", i32::from(asset)),
            MovesOf::Collection(collection) => ("collection = $2", i32::from(collection)),
        };
        // The native currency's movements are not listed by holder or asset.
        let select = format!(
            "SELECT {MOVE} FROM index_moves WHERE chain = $1 AND {filter} AND (asset IS NULL OR asset <> 0) ORDER BY seq"
        );
        self.rows(sqlx::query(sqlx::AssertSqlSafe(select)).bind(&self.chain).bind(key))
            .await?
            .iter()
            .map(move_from)
            .collect()
    }

    /// Movement `seq`.
    pub async fn movement(&self, seq: u64) -> Result<Option<MoveRow>, StoreError> {
        let select = format!("SELECT {MOVE} FROM index_moves WHERE chain = $1 AND seq = $2");
        let query = sqlx::query(sqlx::AssertSqlSafe(select)).bind(&self.chain).bind(big(seq));
        self.row(query).await?.as_ref().map(move_from).transpose()
    }

    /// The transactions `holder` sent or was sent, as (block, position), in chain order.
    pub async fn transactions_of(&self, holder: u32) -> Result<Vec<(u64, u32)>, StoreError> {
        let query = sqlx::query(
            "SELECT block, position FROM index_parties WHERE chain = $1 AND holder = $2 ORDER BY block, position",
        )
        .bind(&self.chain)
        .bind(int(holder));
        self.rows(query)
            .await?
            .iter()
            .map(|row| Ok((big_col(row, 0, "index party")?, int_col(row, 1, "index party")?)))
            .collect()
    }

    /// The inner transfers `holder` paid or was paid, in chain order.
    pub async fn inner_of(&self, holder: u32) -> Result<Vec<InnerRow>, StoreError> {
        let query = sqlx::query(
            "SELECT seq, block, position, payer, payee, value::TEXT FROM index_inner \
             WHERE chain = $1 AND (payer = $2 OR payee = $2) ORDER BY seq",
        )
        .bind(&self.chain)
        .bind(int(holder));
        self.rows(query).await?.iter().map(inner_from).collect()
    }

    /// Inner transfer `seq`.
    pub async fn inner(&self, seq: u64) -> Result<Option<InnerRow>, StoreError> {
        let query = sqlx::query(
            "SELECT seq, block, position, payer, payee, value::TEXT FROM index_inner WHERE chain = $1 AND seq = $2",
        )
        .bind(&self.chain)
        .bind(big(seq));
        self.row(query).await?.as_ref().map(inner_from).transpose()
    }

    /// An ERC721 token's owner at the end of `block`, and since when.
    pub async fn owner_at(&self, collection: u16, id: U256, block: u64) -> Result<Option<(u64, u32)>, StoreError> {
        let query = sqlx::query(
            "SELECT block, owner FROM index_owners WHERE chain = $1 AND collection = $2 AND token_id = $3::TEXT::NUMERIC \
             AND block <= $4 ORDER BY block DESC LIMIT 1",
        )
        .bind(&self.chain)
        .bind(i32::from(collection))
        .bind(decimal(id))
        .bind(big(block));
        self.row(query)
            .await?
            .map(|row| Ok((big_col(&row, 0, "index owner")?, int_col(&row, 1, "index owner")?)))
            .transpose()
    }

    /// A holder's amount of an ERC1155 token at the end of `block`, and since when.
    pub async fn amount_at(
        &self,
        holder: u32,
        collection: u16,
        id: U256,
        block: u64,
    ) -> Result<Option<(u64, u64)>, StoreError> {
        let query = sqlx::query(
            "SELECT block, amount::TEXT FROM index_amounts WHERE chain = $1 AND holder = $2 AND collection = $3 \
             AND token_id = $4::TEXT::NUMERIC AND block <= $5 ORDER BY block DESC LIMIT 1",
        )
        .bind(&self.chain)
        .bind(int(holder))
        .bind(i32::from(collection))
        .bind(decimal(id))
        .bind(big(block));
        self.row(query)
            .await?
            .map(|row| Ok((big_col(&row, 0, "index amount")?, parsed(row.get::<&str, _>(1), "index amount")?)))
            .transpose()
    }

    /// The block an NFT was first minted in.
    pub async fn minted_at(&self, collection: u16, id: U256) -> Result<Option<u64>, StoreError> {
        let query = sqlx::query(
            "SELECT block FROM index_minted WHERE chain = $1 AND collection = $2 AND token_id = $3::TEXT::NUMERIC",
        )
        .bind(&self.chain)
        .bind(i32::from(collection))
        .bind(decimal(id));
        self.row(query).await?.map(|row| big_col(&row, 0, "index mint")).transpose()
    }

    /// Every token id of a collection ever minted, in mint order.
    pub async fn tokens_of(&self, collection: u16) -> Result<Vec<U256>, StoreError> {
        let query =
            sqlx::query("SELECT token_id::TEXT FROM index_minted WHERE chain = $1 AND collection = $2 ORDER BY seq")
                .bind(&self.chain)
                .bind(i32::from(collection));
        self.rows(query).await?.iter().map(|row| parsed(row.get::<&str, _>(0), "index mint")).collect()
    }

    /// Everyone who ever held a token, in the order they first got it.
    pub async fn holders_of(&self, collection: u16, id: U256) -> Result<Vec<u32>, StoreError> {
        let query = sqlx::query(
            "SELECT holder FROM index_held WHERE chain = $1 AND collection = $2 AND token_id = $3::TEXT::NUMERIC \
             ORDER BY seq",
        )
        .bind(&self.chain)
        .bind(i32::from(collection))
        .bind(decimal(id));
        self.rows(query).await?.iter().map(|row| int_col(row, 0, "index held")).collect()
    }

    /// Every NFT a holder ever held, in the order it first got them.
    pub async fn nfts_of(&self, holder: u32) -> Result<Vec<(u16, U256)>, StoreError> {
        let query = sqlx::query(
            "SELECT collection, token_id::TEXT FROM index_held WHERE chain = $1 AND holder = $2 ORDER BY seq",
        )
        .bind(&self.chain)
        .bind(int(holder));
        self.rows(query)
            .await?
            .iter()
            .map(|row| Ok((int_col(row, 0, "index held")?, parsed(row.get::<&str, _>(1), "index held")?)))
            .collect()
    }

    /// The pairs `asset` is a side of, in creation order.
    pub async fn pairs_of(&self, asset: u16) -> Result<Vec<PairRow>, StoreError> {
        let query = sqlx::query(
            "SELECT pair, address, token0, token1, exchange, created FROM index_pairs \
             WHERE chain = $1 AND (token0 = $2 OR token1 = $2) ORDER BY pair",
        )
        .bind(&self.chain)
        .bind(i32::from(asset));
        self.rows(query).await?.iter().map(pair_from).collect()
    }

    /// Pair `number`.
    pub async fn pair(&self, number: u32) -> Result<Option<PairRow>, StoreError> {
        let query = sqlx::query(
            "SELECT pair, address, token0, token1, exchange, created FROM index_pairs WHERE chain = $1 AND pair = $2",
        )
        .bind(&self.chain)
        .bind(int(number));
        self.row(query).await?.as_ref().map(pair_from).transpose()
    }

    /// A pair's reserves at the end of `block`; `(0, 0)` before its first `Sync`.
    pub async fn reserves_at(&self, pair: u32, block: u64) -> Result<(u128, u128), StoreError> {
        let query = sqlx::query(
            "SELECT reserve0::TEXT, reserve1::TEXT FROM index_reserves WHERE chain = $1 AND pair = $2 AND block <= $3 \
             ORDER BY block DESC LIMIT 1",
        )
        .bind(&self.chain)
        .bind(int(pair))
        .bind(big(block));
        match self.row(query).await? {
            Some(row) => {
                Ok((parsed(row.get::<&str, _>(0), "index reserve")?, parsed(row.get::<&str, _>(1), "index reserve")?))
            }
            None => Ok((0, 0)),
        }
    }
}

/// Whose movements [`Snapshot::moves`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovesOf {
    /// A holder's, sent or received.
    Holder(u32),
    /// An ERC20 token's.
    Asset(u16),
    /// A collection's.
    Collection(u16),
}

fn move_from(row: &PgRow) -> Result<MoveRow, StoreError> {
    let what = "index movement";
    let small = |i: usize| unsigned::<u32>(i64::from(row.get::<i32, _>(i)), what);
    let maybe = |i: usize| row.get::<Option<i32>, _>(i).map(|n| unsigned::<u32>(i64::from(n), what)).transpose();
    let moved = match row.get::<Option<i32>, _>(4) {
        Some(asset) => Moved::Fungible { asset: unsigned(i64::from(asset), what)? },
        None => Moved::Nft {
            collection: int_col(row, 5, what)?,
            token_id: parsed(row.get::<Option<&str>, _>(6).unwrap_or_default(), what)?,
            multi: row.get(10),
            operator: maybe(11)?,
            batch: row.get(12),
        },
    };
    Ok(MoveRow {
        seq: big_col(row, 0, what)?,
        block: big_col(row, 1, what)?,
        position: maybe(2)?,
        log: maybe(3)?,
        moved,
        sender: small(7)?,
        recipient: small(8)?,
        amount: parsed(row.get::<&str, _>(9), what)?,
    })
}

fn inner_from(row: &PgRow) -> Result<InnerRow, StoreError> {
    let what = "index inner transfer";
    Ok(InnerRow {
        seq: big_col(row, 0, what)?,
        block: big_col(row, 1, what)?,
        position: int_col(row, 2, what)?,
        payer: int_col(row, 3, what)?,
        payee: int_col(row, 4, what)?,
        value: parsed(row.get::<&str, _>(5), what)?,
    })
}
