"""Coherence of the Data API with the chain it is read from, with plain HTTP
only: what the REST answers and the custom eth_getTokenPrice say is
recomputed from the chain itself (eth_call of the contracts' own views at the
same block, pair reserves, EIP-1186 proofs) and must agree.

  - wallet tokens: for sampled wallets at an early, a middle and the latest
    block, each ERC20 row's `balance`, `total_supply` and `decimals` are the
    token's balanceOf(wallet), totalSupply() and decimals() by eth_call at
    `to_block`; the native row's balance is eth_getBalance;
  - wallet NFTs (the endpoint reads the latest block; it has no block
    parameter): each ERC721 item's ownerOf(id) is the wallet and tokenURI(id)
    its `token_uri`; each ERC1155 item's balanceOf(wallet, id) (ERC-1155's
    0x00fdd58e, and balanceOfBatch) is its `amount`, uri(id) (its `{id}`
    substituted) its `token_uri`; `block_number` is a block where the holding
    changed, `block_number_minted` (ERC721) the block the token appeared;
  - prices: every pair of the chain (PairCreated logs), its sides and
    reserves by eth_call at the block, priced the way
    crates/w3api-ledger/src/pricing.rs does (the deepest pair quoting the
    token in the wrapped native token or the USD stablecoin; the native USD
    price from the deepest wrapped/stable pair), in the same f64 arithmetic:
    eth_getTokenPrice's pair, usdPrice, nativePrice and pairTotalLiquidityUsd
    and the wallet-tokens rows' usd_price must be what the reserves give;
  - proofs: eth_getProof of a wallet, a token and a pair (slots its own
    eth_createAccessList names, non-zero by eth_getStorageAt), an absent
    account and an absent slot, at several blocks, verified by py-trie
    (`trie`, an implementation independent of the server's) against the
    block's stateRoot: leaves are RLP([nonce, balance, storageHash,
    codeHash]) and RLP(value), equal to the answer's fields and to
    eth_getBalance, eth_getTransactionCount, eth_getCode and
    eth_getStorageAt; absent ones prove absent; a tampered proof must fail.

With W3API_CHAIN set to an imported chain's id (w3api serve --init
genesis.json --import chain.rlp: execution-apis' chain, Homestead to Osaka)
and a fixture of {"imported": true}, the same checks run over it: its
accounts are the senders and recipients of its blocks, wallet tokens and
proofs are checked at blocks before, around and after the merge, and the
proven contract is the one whose transactions touch the most slots.
"""

from __future__ import annotations

import math
import os
import sys

import rlp
from Crypto.Hash import keccak as _keccak
from trie import HexaryTrie

from pylib import FIXTURE as fx, Runner, raw_get, raw_result, raw_rpc

r = Runner("coherence")

# The chain read (W3API_CHAIN, as pylib's RPC URL): eth, the seeded devnet's,
# or an imported chain's (its fixture then says {"imported": true}).
CHAIN = os.environ.get("W3API_CHAIN", "eth")

EMPTY_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
EMPTY_CODE_HASH = bytes.fromhex("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
PRICE_NOT_FOUND = -32001

BALANCE_OF = "0x70a08231"             # balanceOf(address)
TOTAL_SUPPLY = "0x18160ddd"           # totalSupply()
DECIMALS = "0x313ce567"               # decimals()
OWNER_OF = "0x6352211e"               # ownerOf(uint256)
TOKEN_URI = "0xc87b56dd"              # tokenURI(uint256)
BALANCE_OF_1155 = "0x00fdd58e"        # balanceOf(address,uint256), ERC-1155
BALANCE_OF_BATCH = "0x4e1273f4"       # balanceOfBatch(address[],uint256[])
URI = "0x0e89341c"                    # uri(uint256)
GET_RESERVES = "0x0902f1ac"           # getReserves()
TOKEN0 = "0x0dfe1681"                 # token0()
TOKEN1 = "0xd21220a7"                 # token1()


def keccak(data: bytes) -> bytes:
    return _keccak.new(digest_bits=256, data=data).digest()


def topic(signature: str) -> str:
    return "0x" + keccak(signature.encode()).hex()


PAIR_CREATED = topic("PairCreated(address,address,address,uint256)")
TRANSFER = topic("Transfer(address,address,uint256)")
TRANSFER_SINGLE = topic("TransferSingle(address,address,address,uint256,uint256)")
TRANSFER_BATCH = topic("TransferBatch(address,address,address,uint256[],uint256[])")


# ---------------------------------------------------------------------------
# ABI, by hand.

def word(n: int) -> str:
    return n.to_bytes(32, "big").hex()


def addr_word(a: str) -> str:
    return "0" * 24 + a.lower()[2:]


def as_address(w: bytes) -> str:
    return "0x" + w[-20:].hex()


def decode_string(data: bytes) -> str:
    offset = int.from_bytes(data[:32], "big")
    length = int.from_bytes(data[offset:offset + 32], "big")
    return data[offset + 32:offset + 32 + length].decode("utf-8")


def call(to: str, data: str, block: int) -> bytes:
    """eth_call at a block; a revert fails the check."""
    out = raw_result("eth_call", [{"to": to, "data": data}, hex(block)])
    return bytes.fromhex(out[2:])


def try_call(to: str, data: str, block: int) -> bytes | None:
    """eth_call at a block; None when it reverts (JSON-RPC error 3)."""
    body = raw_rpc("eth_call", [{"to": to, "data": data}, hex(block)])
    if "error" in body:
        if body["error"].get("code") == 3:
            return None
        raise AssertionError(f"eth_call {to} {data[:10]} at {block}: {body['error']}")
    return bytes.fromhex(body["result"][2:])


def uint_call(to: str, data: str, block: int) -> int:
    out = call(to, data, block)
    assert len(out) == 32, f"eth_call {to} {data[:10]} at {block}: {len(out)} bytes, not one word"
    return int.from_bytes(out, "big")


def balance_of_batch(collection: str, owner: str, ids: list[int], block: int) -> list[int] | None:
    n = len(ids)
    data = (BALANCE_OF_BATCH + word(64) + word(64 + 32 * (n + 1)) + word(n) + addr_word(owner) * n
            + word(n) + "".join(word(i) for i in ids))
    out = try_call(collection, data, block)
    if out is None:
        return None
    offset = int.from_bytes(out[:32], "big")
    count = int.from_bytes(out[offset:offset + 32], "big")
    assert count == n, f"balanceOfBatch: {count} balances for {n} ids"
    return [int.from_bytes(out[offset + 32 * (k + 1):offset + 32 * (k + 2)], "big") for k in range(n)]


def rest_pages(path: str, query: dict) -> tuple[list[dict], list[dict]]:
    """Every row of a paged REST answer (following `cursor`), and the pages
    (for their top-level fields)."""
    rows, pages, cursor = [], [], None
    while True:
        page = raw_get(path, {**query, "cursor": cursor})
        pages.append(page)
        rows.extend(page.get("result") or [])
        cursor = page.get("cursor")
        if not cursor:
            return rows, pages
        assert len(pages) < 50, f"{path}: more than 50 pages"


class Tally:
    """Values compared, and the mismatches found (all of them, then one failure)."""

    def __init__(self):
        self.compared = 0
        self.mismatches: list[str] = []

    def eq(self, what: str, chain, api):
        self.compared += 1
        if chain != api:
            self.mismatches.append(f"{what}: chain {chain!r} != api {api!r}")

    def close(self, what: str, chain: float, api: float, rel: float = 1e-9):
        self.compared += 1
        if not math.isclose(chain, api, rel_tol=rel, abs_tol=0.0):
            self.mismatches.append(f"{what}: recomputed {chain!r} != api {api!r} (relative {abs(chain - api) / abs(api or 1):.3g})")

    def done(self, note: str = "") -> str:
        if self.mismatches:
            shown = "\n".join(self.mismatches[:15])
            more = f"\n… {len(self.mismatches) - 15} more" if len(self.mismatches) > 15 else ""
            raise AssertionError(f"{len(self.mismatches)} of {self.compared} values differ:\n{shown}{more}")
        assert self.compared > 0, "nothing compared"
        return f"{self.compared} values" + (f"; {note}" if note else "")


# ---------------------------------------------------------------------------
# 1. Wallet tokens against balanceOf / totalSupply / decimals / eth_getBalance.

def wallet_tokens(wallets: list[str], block: int, decimals_seen: dict, erc20_expected: bool = True) -> str:
    t = Tally()
    erc20 = 0
    for wallet in wallets:
        rows, pages = rest_pages(f"/api/v2.2/wallets/{wallet}/tokens", {"chain": CHAIN, "to_block": block, "limit": 100})
        for p in pages:
            t.eq(f"{wallet} block_number", str(block), p.get("block_number"))
        for row in rows:
            token = row["token_address"].lower()
            what = f"{wallet[:10]} {row.get('symbol')} {token} at {block}"
            if row.get("native_token"):
                t.eq(f"{what}: eth_getBalance vs balance", int(raw_result("eth_getBalance", [wallet, hex(block)]), 16),
                     int(row["balance"]))
                continue
            erc20 += 1
            data = BALANCE_OF + addr_word(wallet)
            t.eq(f"{what}: balanceOf vs balance", uint_call(token, data, block), int(row["balance"]))
            if row.get("total_supply") is not None:
                t.eq(f"{what}: totalSupply vs total_supply", uint_call(token, TOTAL_SUPPLY, block), int(row["total_supply"]))
            if token not in decimals_seen:
                decimals_seen[token] = uint_call(token, DECIMALS, block)
            t.eq(f"{what}: decimals() vs decimals", decimals_seen[token], row["decimals"])
    assert erc20 > 0 or not erc20_expected, f"no ERC20 row at block {block} for {len(wallets)} wallets"
    return t.done(f"{erc20} ERC20 rows of {len(wallets)} wallets")


# ---------------------------------------------------------------------------
# 2. Wallet NFTs against ownerOf / tokenURI / balanceOf / uri.

def nft_rows(wallets: list[str]) -> dict[str, list[dict]]:
    out = {}
    for wallet in wallets:
        rows, _ = rest_pages(f"/api/v2.2/{wallet}/nft", {"chain": CHAIN, "limit": 100, "normalizeMetadata": "false"})
        out[wallet] = rows
    return out


def nft_erc721(nfts: dict, latest: int) -> str:
    t = Tally()
    items = 0
    for wallet, rows in nfts.items():
        for row in rows:
            if row["contract_type"] != "ERC721":
                continue
            items += 1
            c, i = row["token_address"].lower(), int(row["token_id"])
            what = f"{wallet[:10]} ERC721 {c} #{i} at {latest}"
            t.eq(f"{what}: owner_of", wallet, row["owner_of"].lower())
            t.eq(f"{what}: amount", "1", row["amount"])
            t.eq(f"{what}: ownerOf vs the wallet", as_address(call(c, OWNER_OF + word(i), latest)), wallet)
            t.eq(f"{what}: tokenURI vs token_uri", decode_string(call(c, TOKEN_URI + word(i), latest)), row["token_uri"])
    assert items > 0, "no ERC721 item in the sampled wallets"
    return t.done(f"{items} ERC721 items")


def uri_substituted(template: str, token_id: int) -> set[str]:
    """An ERC-1155 uri(id) with `{id}` replaced: EIP-1155's 64 lowercase hex
    digits, or the decimal id (what the devnet's metadata host serves)."""
    return {template.replace("{id}", f"{token_id:064x}"), template.replace("{id}", str(token_id))}


def erc1155_items(nfts: dict):
    for wallet, rows in nfts.items():
        for row in rows:
            if row["contract_type"] == "ERC1155":
                yield wallet, row["token_address"].lower(), int(row["token_id"]), row


def nft_erc1155_standard(nfts: dict, latest: int) -> str:
    """ERC-1155's own balanceOf(address account, uint256 id), selector 0x00fdd58e."""
    t = Tally()
    items = 0
    for wallet, c, i, row in erc1155_items(nfts):
        items += 1
        data = BALANCE_OF_1155 + addr_word(wallet) + word(i)
        body = raw_rpc("eth_call", [{"to": c, "data": data}, hex(latest)])
        what = f"{wallet[:10]} ERC1155 {c} #{i} at {latest}: balanceOf(address,uint256) vs amount"
        if "error" in body:
            t.compared += 1
            t.mismatches.append(f"{what}: eth_call {{to: {c}, data: {data}}} at {hex(latest)} answers "
                                f"{body['error']} (amount {row['amount']})")
            continue
        t.eq(what, int(body["result"], 16), int(row["amount"]))
    assert items > 0, "no ERC1155 item in the sampled wallets"
    return t.done(f"{items} ERC1155 items")


def nft_erc1155_batch(nfts: dict, latest: int) -> str:
    t = Tally()
    items = 0
    for wallet, c, i, row in erc1155_items(nfts):
        items += 1
        what = f"{wallet[:10]} ERC1155 {c} #{i} at {latest}"
        t.eq(f"{what}: owner_of", wallet, row["owner_of"].lower())
        got = balance_of_batch(c, wallet, [i], latest)
        assert got is not None, f"{what}: balanceOfBatch reverts"
        t.eq(f"{what}: balanceOfBatch vs amount", got[0], int(row["amount"]))
        t.compared += 1
        template = decode_string(call(c, URI + word(i), latest))
        if row["token_uri"] not in uri_substituted(template, i):
            t.mismatches.append(f"{what}: uri {template!r} (id substituted) != token_uri {row['token_uri']!r}")
    assert items > 0, "no ERC1155 item in the sampled wallets"
    return t.done(f"{items} ERC1155 items")


def logs_in_block(address: str, topics: list, block: int) -> list:
    return raw_result("eth_getLogs", [{"address": address, "topics": topics, "fromBlock": hex(block), "toBlock": hex(block)}])


def nft_blocks(nfts: dict, latest: int) -> str:
    """`block_number`: the holding is the answer's there and differs the block
    before (or the block holds a transfer of it to the wallet);
    `block_number_minted` (ERC721): the token exists there, not before."""
    t = Tally()
    items = 0
    for wallet, rows in nfts.items():
        for row in rows:
            c, i = row["token_address"].lower(), int(row["token_id"])
            since, minted = int(row["block_number"]), int(row["block_number_minted"])
            what = f"{wallet[:10]} {row['contract_type']} {c} #{i}"
            items += 1
            t.compared += 1
            if not 0 < minted <= since <= latest:
                t.mismatches.append(f"{what}: block_number_minted {minted}, block_number {since}, latest {latest}")
                continue
            if row["contract_type"] == "ERC721":
                def owner_at(b, c=c, i=i):
                    out = try_call(c, OWNER_OF + word(i), b)
                    return None if out is None else as_address(out)

                t.eq(f"{what}: ownerOf at block_number {since}", owner_at(since), wallet)
                if owner_at(since - 1) == wallet:
                    to_wallet = logs_in_block(c, [TRANSFER, None, "0x" + addr_word(wallet), "0x" + word(i)], since)
                    t.compared += 1
                    if not to_wallet:
                        t.mismatches.append(f"{what}: the wallet owned it at {since - 1} already and no transfer to it at {since}")
                t.eq(f"{what}: ownerOf at block_number_minted {minted} exists", owner_at(minted) is not None, True)
                t.eq(f"{what}: ownerOf at block_number_minted - 1 reverts", owner_at(minted - 1), None)
            else:
                at = balance_of_batch(c, wallet, [i], since)
                t.eq(f"{what}: balanceOfBatch at block_number {since}", None if at is None else at[0], int(row["amount"]))
                before = balance_of_batch(c, wallet, [i], since - 1)
                if before is not None and before[0] == int(row["amount"]):
                    moved = [log for sig in (TRANSFER_SINGLE, TRANSFER_BATCH)
                             for log in logs_in_block(c, [sig], since)
                             if "0x" + addr_word(wallet) in log["topics"][2:4]]
                    t.compared += 1
                    if not moved:
                        t.mismatches.append(f"{what}: amount {row['amount']} at {since - 1} already and no transfer of the wallet at {since}")
    assert items > 0, "no NFT in the sampled wallets"
    return t.done(f"{items} items")


# ---------------------------------------------------------------------------
# 3. Prices from pair reserves, as crates/w3api-ledger/src/pricing.rs makes them.

def to_f64(raw: int, decimals: int) -> float:
    # Rust: `raw as f64 / 10f64.powi(decimals)`; both round to nearest even,
    # and 10^d is exact in f64 for d <= 22.
    return float(raw) / float(10 ** decimals)


class Book:
    """Every pair of the chain (PairCreated logs: factory, token0, token1,
    pair), with sides checked by eth_call, and reserves per block."""

    def __init__(self, latest: int):
        logs = raw_result("eth_getLogs", [{"fromBlock": "0x0", "toBlock": hex(latest), "topics": [PAIR_CREATED]}])
        assert logs, "no PairCreated log on the chain"
        self.pairs = []
        for log in logs:
            pair = as_address(bytes.fromhex(log["data"][2:66]))
            token0, token1 = as_address(bytes.fromhex(log["topics"][1][2:])), as_address(bytes.fromhex(log["topics"][2][2:]))
            self.pairs.append({"pair": pair, "factory": log["address"].lower(), "token0": token0, "token1": token1})
        self.by_address = {p["pair"]: p for p in self.pairs}
        self.decimals: dict[str, int] = {}
        self.reserves: dict[tuple[str, int], tuple[int, int]] = {}
        self.sides_checked = 0

    def check_sides(self, latest: int):
        for p in self.pairs:
            got0 = as_address(call(p["pair"], TOKEN0, latest))
            got1 = as_address(call(p["pair"], TOKEN1, latest))
            assert (got0, got1) == (p["token0"], p["token1"]), \
                f"pair {p['pair']}: token0/token1 {got0}/{got1}, PairCreated says {p['token0']}/{p['token1']}"
            self.sides_checked += 2

    def decimals_of(self, token: str, latest: int) -> int:
        if token not in self.decimals:
            self.decimals[token] = uint_call(token, DECIMALS, latest)
        return self.decimals[token]

    def reserves_at(self, pair: str, block: int) -> tuple[int, int]:
        key = (pair, block)
        if key not in self.reserves:
            out = try_call(pair, GET_RESERVES, block)
            if out is None:
                # Not deployed yet at that block: no reserves.
                assert not raw_result("eth_getCode", [pair, hex(block)])[2:], f"getReserves reverts on {pair} at {block}"
                self.reserves[key] = (0, 0)
            else:
                assert len(out) == 96, f"getReserves of {pair}: {len(out)} bytes"
                self.reserves[key] = (int.from_bytes(out[:32], "big"), int.from_bytes(out[32:64], "big"))
        return self.reserves[key]

    def pairs_of(self, token: str):
        return [p for p in self.pairs if token in (p["token0"], p["token1"])]

    def quote(self, token: str, p: dict, block: int):
        r0, r1 = self.reserves_at(p["pair"], block)
        rt, rq, q = (r0, r1, p["token1"]) if token == p["token0"] else (r1, r0, p["token0"])
        return (rt, rq, q) if rt > 0 and rq > 0 else None


class Pricer:
    """pricing.rs, in Python floats (IEEE doubles, the same operations in the
    same order) and integers."""

    def __init__(self, book: Book, wrapped: str, stable: str, latest: int):
        self.book, self.wrapped, self.stable, self.latest = book, wrapped, stable, latest

    def native_reference(self, block: int):
        best = None
        for p in self.book.pairs_of(self.wrapped):
            q = self.book.quote(self.wrapped, p, block)
            if q is None or q[2] != self.stable:
                continue
            rw, rs, _ = q
            stable = to_f64(rs, self.book.decimals_of(self.stable, self.latest))
            usd = stable / to_f64(rw, self.book.decimals_of(self.wrapped, self.latest))
            # Rust's max_by keeps the last of equal maxima.
            if best is None or stable >= best["stable"]:
                best = {"usd": usd, "rw": rw, "rs": rs, "stable": stable, "pair": p["pair"]}
        return best

    def in_pair(self, token: str, p: dict, block: int, native: dict):
        """pricing.rs's price_in_pair: None when a side is empty or the other
        side is neither the wrapped token nor the stablecoin."""
        q = self.book.quote(token, p, block)
        if q is None or q[2] not in (self.wrapped, self.stable):
            return None
        rt, rq, quote = q
        td = self.book.decimals_of(token, self.latest)
        qd = self.book.decimals_of(quote, self.latest)
        quote_usd = 1.0 if quote == self.stable else native["usd"]
        quote_side_usd = to_f64(rq, qd) * quote_usd
        whole_tokens = to_f64(rt, td)
        usd = 1.0 if token == self.stable else quote_side_usd / whole_tokens
        scale = 10 ** td
        if quote == self.wrapped:
            native_wei = rq * scale // rt
        else:
            # The stablecoin quotes: through the native reference pair.
            native_wei = rq * scale * native["rw"] // (rt * native["rs"])
        return {"usd": usd, "native_wei": min(native_wei, 2**256 - 1), "pair": p["pair"],
                "liquidity_usd": 2.0 * quote_side_usd, "factory": p["factory"]}

    def price(self, token: str, block: int):
        """The deepest pair's price, with `candidates` (the pairs that may
        price the token), or None."""
        native = self.native_reference(block)
        if native is None:
            return None
        best, candidates = None, 0
        for p in self.book.pairs_of(token):
            price = self.in_pair(token, p, block, native)
            if price is None:
                continue
            candidates += 1
            # The first of equal maxima stays.
            if best is None or price["liquidity_usd"] > best["liquidity_usd"]:
                best = price
        if best is not None:
            best["candidates"] = candidates
        return best


def token_price(token: str, block: int):
    body = raw_rpc("eth_getTokenPrice", [{"address": token, "toBlock": block}])
    if "error" in body:
        assert body["error"].get("code") == PRICE_NOT_FOUND, f"eth_getTokenPrice {token} at {block}: {body['error']}"
        return None
    return body["result"]


def setup_pricing(latest: int):
    """The book, and the wrapped native token and the stablecoin: the wrapped
    token is what eth_getTokenPrice names as nativePrice.address; the
    stablecoin is the other side of the pair that prices it (pricing.rs:
    only wrapped/stable pairs do)."""
    book = Book(latest)
    book.check_sides(latest)
    some = token_price(fx["token"], latest)
    assert some is not None, f"eth_getTokenPrice {fx['token']}: no price"
    wrapped = some["nativePrice"]["address"].lower()
    wp = token_price(wrapped, latest)
    assert wp is not None, f"the wrapped native token {wrapped} has no price"
    pair = book.by_address.get(wp["pairAddress"].lower())
    assert pair is not None, f"the wrapped token's pair {wp['pairAddress']} is not among the PairCreated pairs"
    stable = pair["token1"] if pair["token0"] == wrapped else pair["token0"]
    return book, Pricer(book, wrapped, stable, latest)


def price_check(pricer: Pricer, tokens: list[str], block: int) -> str:
    t = Tally()
    priced = unpriced = exact = 0
    book = pricer.book
    for token in tokens:
        what = f"{token} at {block}"
        mine = pricer.price(token, block)
        api = token_price(token, block)
        t.eq(f"{what}: priced (reserves) vs priced (eth_getTokenPrice)", mine is not None, api is not None)
        if mine is None or api is None:
            unpriced += mine is None and api is None
            continue
        priced += 1
        pair = api["pairAddress"].lower()
        t.eq(f"{what}: deepest pair (of {mine['candidates']}) vs pairAddress", mine["pair"], pair)
        t.eq(f"{what}: toBlock", str(block), api["toBlock"])
        t.eq(f"{what}: tokenDecimals vs decimals()", str(book.decimals_of(token, pricer.latest)), api["tokenDecimals"])
        # The answer's pair, read by eth_call at the block: its sides, and
        # the price its reserves give (whichever pair the answer names).
        sides = (as_address(call(pair, TOKEN0, block)), as_address(call(pair, TOKEN1, block)))
        t.eq(f"{what}: the token is a side of pairAddress {pair}", token in sides, True)
        named = book.by_address.get(pair)
        t.eq(f"{what}: pairAddress {pair} is a PairCreated pair", named is not None, True)
        if named is None or token not in sides:
            continue
        t.eq(f"{what}: pairAddress {pair} token0, token1 by eth_call vs PairCreated", (named["token0"], named["token1"]), sides)
        t.eq(f"{what}: exchangeAddress vs the factory of pairAddress", named["factory"], (api["exchangeAddress"] or "").lower())
        at_pair = pricer.in_pair(token, named, block, pricer.native_reference(block))
        t.eq(f"{what}: pairAddress {pair} quotes in the wrapped token or the stablecoin", at_pair is not None, True)
        if at_pair is None:
            continue
        t.close(f"{what}: usdPrice", at_pair["usd"], api["usdPrice"])
        exact += at_pair["usd"] == api["usdPrice"]
        t.close(f"{what}: usdPriceFormatted", at_pair["usd"], float(api["usdPriceFormatted"]))
        t.eq(f"{what}: nativePrice.value (wei per token)", at_pair["native_wei"], int(api["nativePrice"]["value"]))
        t.eq(f"{what}: nativePrice.address", pricer.wrapped, api["nativePrice"]["address"].lower())
        t.close(f"{what}: pairTotalLiquidityUsd", at_pair["liquidity_usd"], float(api["pairTotalLiquidityUsd"]))
    assert priced > 0, f"no token priced at {block}"
    return t.done(f"{priced} priced tokens ({exact} usdPrice bit-exact), {unpriced} unpriced on both sides")


def wallet_prices(pricer: Pricer, wallets: list[str], block: int) -> str:
    """The wallet-tokens rows' usd_price (the native row: the wrapped token's)
    against the reserves at to_block."""
    t = Tally()
    rows_priced = 0
    for wallet in wallets:
        rows, _ = rest_pages(f"/api/v2.2/wallets/{wallet}/tokens", {"chain": CHAIN, "to_block": block, "limit": 100})
        for row in rows:
            token = pricer.wrapped if row.get("native_token") else row["token_address"].lower()
            mine = pricer.price(token, block)
            what = f"{wallet[:10]} {row.get('symbol')} {row['token_address']} at {block}: usd_price"
            if mine is None or row.get("usd_price") is None:
                t.eq(what, None if mine is None else mine["usd"], row.get("usd_price"))
                continue
            rows_priced += 1
            t.close(what, mine["usd"], row["usd_price"])
    assert rows_priced > 0, f"no priced row at {block}"
    return t.done(f"{rows_priced} priced rows")


# ---------------------------------------------------------------------------
# 4. EIP-1186 proofs, verified by py-trie against the block's stateRoot.

def nodes(proof: list[str]) -> list:
    return [rlp.decode(bytes.fromhex(n[2:])) for n in proof]


def proven(root: bytes, key: bytes, proof: list[str]) -> bytes:
    """The value the proof shows under keccak(key) in the trie of `root`
    (b'' when absent); raises when the proof does not hold."""
    return HexaryTrie.get_from_proof(root, keccak(key), nodes(proof))


def minimal(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def slot_key(slot: str) -> bytes:
    return bytes.fromhex(slot[2:].rjust(64, "0"))


def verify_account(answer: dict, address: str, block: dict, t: Tally, what: str):
    root = bytes.fromhex(block["stateRoot"][2:])
    leaf = proven(root, bytes.fromhex(address[2:]), answer["accountProof"])
    nonce, balance = int(answer["nonce"], 16), int(answer["balance"], 16)
    storage_hash, code_hash = bytes.fromhex(answer["storageHash"][2:]), bytes.fromhex(answer["codeHash"][2:])
    number = block["number"]
    chain_balance = int(raw_result("eth_getBalance", [address, number]), 16)
    chain_nonce = int(raw_result("eth_getTransactionCount", [address, number]), 16)
    code = bytes.fromhex(raw_result("eth_getCode", [address, number])[2:])
    t.eq(f"{what}: address", address, answer["address"].lower())
    t.eq(f"{what}: balance vs eth_getBalance", chain_balance, balance)
    t.eq(f"{what}: nonce vs eth_getTransactionCount", chain_nonce, nonce)
    t.eq(f"{what}: codeHash vs keccak(eth_getCode)", "0x" + keccak(code).hex(), answer["codeHash"])
    if leaf == b"":
        # Absent from the state: an empty account.
        t.eq(f"{what}: absent account (nonce, balance, code)", (0, 0, b""), (nonce, balance, code))
        t.eq(f"{what}: absent account storageHash", EMPTY_ROOT.hex(), storage_hash.hex())
        return "absent", storage_hash
    t.eq(f"{what}: account leaf vs RLP([nonce, balance, storageHash, codeHash])",
         rlp.encode([nonce, balance, storage_hash, code_hash]).hex(), leaf.hex())
    return "present", storage_hash


def verify_slots(answer: dict, address: str, storage_hash: bytes, block: dict, slots: list[str], t: Tally, what: str):
    got = answer["storageProof"]
    t.eq(f"{what}: storageProof entries", len(slots), len(got))
    present = 0
    for slot, entry in zip(slots, got):
        w = f"{what} slot {slot}"
        t.eq(f"{w}: key", int(slot, 16), int(entry["key"], 16))
        value = int(entry["value"], 16)
        chain = int(raw_result("eth_getStorageAt", [address, slot, block["number"]]), 16)
        t.eq(f"{w}: value vs eth_getStorageAt", chain, value)
        leaf = proven(storage_hash, slot_key(slot), entry["proof"])
        t.eq(f"{w}: leaf vs RLP(value)", rlp.encode(minimal(value)).hex() if value else "", leaf.hex())
        present += bool(leaf)
    return present


def proof_targets(latest: int):
    """(address, slots): a wallet; the priced token with the slots
    balanceOf(wallet) and totalSupply() read (eth_createAccessList), non-zero
    at the latest block; a pair with the slots getReserves reads; an account
    and a slot nobody has touched."""
    wallet = fx["wallets"][0]
    token = fx["token"]
    absent_slot = "0x" + keccak(b"w3api coherence: a slot nobody writes").hex()
    absent_account = "0x" + keccak(b"w3api coherence: an account nobody touches").hex()[-40:]

    def touched(to: str, data: str) -> list[str]:
        listed = raw_result("eth_createAccessList", [{"to": to, "data": data}, hex(latest)])["accessList"]
        slots = [s for entry in listed if entry["address"].lower() == to for s in entry["storageKeys"]]
        assert slots, f"eth_createAccessList of {data[:10]} on {to} lists no slot of it"
        for s in slots:
            value = int(raw_result("eth_getStorageAt", [to, s, hex(latest)]), 16)
            assert value != 0, f"slot {s} of {to} is zero at {latest}"
        return slots

    token_slots = touched(token, BALANCE_OF + addr_word(wallet)) + touched(token, TOTAL_SUPPLY)
    price = token_price(token, latest)
    assert price is not None, f"{token}: no price at {latest}"
    pair = price["pairAddress"].lower()
    pair_slots = touched(pair, GET_RESERVES)
    return [
        (wallet, [absent_slot]),
        (token, [*dict.fromkeys(token_slots), absent_slot]),
        (pair, [*dict.fromkeys(pair_slots), absent_slot]),
        (absent_account, [absent_slot]),
    ]


def proofs_at(targets, block_number: int) -> str:
    t = Tally()
    block = raw_result("eth_getBlockByNumber", [hex(block_number), False])
    kinds, slots_present = [], 0
    wallet, token = fx["wallets"][0], fx.get("token")
    for address, slots in targets:
        what = f"{address} at {block_number}"
        answer = raw_result("eth_getProof", [address, slots, hex(block_number)])
        kind, storage_hash = verify_account(answer, address, block, t, what)
        kinds.append(kind)
        slots_present += verify_slots(answer, address, storage_hash, block, slots, t, what)
        if address == token and kind == "present":
            # The balance slot proven is the token's balanceOf and the REST balance.
            balance_slot = answer["storageProof"][0]
            rows, _ = rest_pages(f"/api/v2.2/wallets/{wallet}/tokens",
                                 {"chain": CHAIN, "to_block": block_number, "token_addresses": token, "exclude_native": "true"})
            rest = next((int(x["balance"]) for x in rows if x["token_address"].lower() == token), 0)
            t.eq(f"{what}: proven balance slot vs balanceOf", uint_call(token, BALANCE_OF + addr_word(wallet), block_number),
                 int(balance_slot["value"], 16))
            t.eq(f"{what}: proven balance slot vs REST balance", rest, int(balance_slot["value"], 16))
    assert kinds[-1] == "absent", "the untouched account is not absent"
    return t.done(f"{len(targets)} accounts ({kinds.count('present')} present), {slots_present} slots present")


def tampered(proof: list[str]) -> list[list[str]]:
    """The proof with one byte changed, once in each node: inside the last
    32-byte item found in the node (a child hash, a storage root, a code
    hash: the RLP stays valid, only the hash links can catch it), else its
    last byte."""
    out = []
    for k, node in enumerate(proof):
        raw = bytearray(bytes.fromhex(node[2:]))
        at = len(raw) - 1
        # A 32-byte string (a child hash, a storage root, a code hash) near
        # the end: header 0xa0 followed by 32 bytes.
        for pos in range(len(raw) - 33, -1, -1):
            if raw[pos] == 0xA0:
                at = pos + 16
                break
        raw[at] ^= 0x01
        out.append([*proof[:k], "0x" + raw.hex(), *proof[k + 1:]])
    return out


def tamper_check(targets, latest: int) -> str:
    block = raw_result("eth_getBlockByNumber", [hex(latest), False])
    root = bytes.fromhex(block["stateRoot"][2:])
    rejected = 0
    token, slots = targets[1]
    answer = raw_result("eth_getProof", [token, slots, hex(latest)])
    good = proven(root, bytes.fromhex(token[2:]), answer["accountProof"])
    assert good, f"{token} not proven present"
    storage_hash = bytes.fromhex(answer["storageHash"][2:])
    cases = [(root, bytes.fromhex(token[2:]), p, f"account proof node {k}")
             for k, p in enumerate(tampered(answer["accountProof"]))]
    entry = answer["storageProof"][0]
    cases += [(storage_hash, slot_key(entry["key"]), p, f"storage proof node {k}")
              for k, p in enumerate(tampered(entry["proof"]))]
    # The untampered proofs against another root: the parent block's state root.
    parent = raw_result("eth_getBlockByNumber", [hex(latest - 1), False])
    if parent["stateRoot"] != block["stateRoot"]:
        cases.append((bytes.fromhex(parent["stateRoot"][2:]), bytes.fromhex(token[2:]), answer["accountProof"],
                      "the account proof against the parent block's stateRoot"))
    accepted = []
    for root_, key, proof, label in cases:
        try:
            value = proven(root_, key, proof)
        except Exception:  # noqa: BLE001 - any refusal (bad node, missing node, bad RLP) rejects
            rejected += 1
            continue
        accepted.append(f"{label}: verified, value {value.hex()[:40]}")
    assert not accepted, "tampered proofs verified:\n" + "\n".join(accepted)
    # A claim the leaf contradicts: the balance one more than proven.
    fields = rlp.decode(good)
    nonce, balance = int(answer["nonce"], 16), int(answer["balance"], 16)
    claimed = rlp.encode([nonce, balance + 1, bytes.fromhex(answer["storageHash"][2:]), bytes.fromhex(answer["codeHash"][2:])])
    assert claimed != good and fields[1] == minimal(balance), "a changed balance still matches the leaf"
    return f"{rejected} tampered proofs rejected, a changed balance contradicts the leaf"


# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# An imported chain (another node's blocks): the same answers, over accounts
# found in its blocks and across its forks.

def imported_accounts(latest: int) -> tuple[list[str], dict[str, list[dict]], int]:
    """Every sender and recipient of the chain's transactions; the
    transactions sent to each; the busiest block."""
    wallets: set[str] = set()
    sent_to: dict[str, list[dict]] = {}
    busy = (0, 1)
    for n in range(1, latest + 1):
        txs = raw_result("eth_getBlockByNumber", [hex(n), True])["transactions"]
        busy = max(busy, (len(txs), n))
        for tx in txs:
            wallets.add(tx["from"].lower())
            if tx.get("to"):
                wallets.add(tx["to"].lower())
                sent_to.setdefault(tx["to"].lower(), []).append(tx)
    assert wallets, f"no transaction in blocks 1 to {latest}"
    return sorted(wallets), sent_to, busy[1]


def imported_proof_targets(wallets: list[str], sent_to: dict, latest: int):
    """(address, slots): a wallet without code; the contract with the most
    non-zero slots its transactions touch (their eth_createAccessList at the
    latest block); an account and a slot nobody has touched."""
    absent_slot = "0x" + keccak(b"w3api coherence: a slot nobody writes").hex()
    absent_account = "0x" + keccak(b"w3api coherence: an account nobody touches").hex()[-40:]
    plain = next(w for w in wallets if raw_result("eth_getCode", [w, hex(latest)]) == "0x")
    best: tuple[int, str, list[str]] = (0, "", [])
    for contract, txs in sent_to.items():
        if raw_result("eth_getCode", [contract, hex(latest)]) == "0x":
            continue
        slots: list[str] = []
        for tx in txs[:5]:
            request = {"from": tx["from"], "to": contract, "data": tx["input"], "value": tx["value"]}
            answer = raw_rpc("eth_createAccessList", [request, hex(latest)])
            listed = answer.get("result", {}).get("accessList", [])
            slots += [s for entry in listed if entry["address"].lower() == contract for s in entry["storageKeys"]]
        slots = [s for s in dict.fromkeys(slots) if int(raw_result("eth_getStorageAt", [contract, s, hex(latest)]), 16)]
        best = max(best, (len(slots), contract, slots))
    assert best[0] > 0, "no contract of the chain holds a slot its transactions touch"
    _, contract, slots = best
    return [(plain, [absent_slot]), (contract, [*slots, absent_slot]), (absent_account, [absent_slot])]


def imported_main() -> int:
    latest = int(raw_result("eth_blockNumber"), 16)
    accounts = r.check(f"the imported chain's accounts: senders and recipients of blocks 1 to {latest}",
                       lambda: imported_accounts(latest))
    if not accounts:
        return r.done()
    wallets, sent_to, busy = accounts
    fx["wallets"] = wallets
    # Blocks of each era of the chain: before the merge, around it, after it.
    blocks = sorted({1, max(1, latest // 4), latest // 2, busy, latest})
    decimals_seen: dict[str, int] = {}
    for b in blocks:
        r.check(f"wallet tokens at to_block {b}: native balance = eth_getBalance; ERC20 rows = balanceOf…",
                lambda b=b: wallet_tokens(wallets, b, decimals_seen, erc20_expected=False))
    nfts = r.check("wallet NFTs (latest): the REST answers", lambda: nft_rows(wallets)) or {}
    if any(nfts.values()):
        r.check(f"wallet NFTs at {latest}: ERC721 ownerOf, tokenURI = owner_of, token_uri", lambda: nft_erc721(nfts, latest))
    targets = r.check("proofs: a wallet, the contract with the most slots its transactions touch, an absent account",
                      lambda: imported_proof_targets(wallets, sent_to, latest))
    if targets:
        for b in blocks:
            r.check(f"eth_getProof at {b}: verified by py-trie against stateRoot, = eth_getBalance, eth_getStorageAt…",
                    lambda b=b: proofs_at(targets, b))
        r.check("eth_getProof: tampered proofs fail to verify", lambda: tamper_check(targets, latest))
    return r.done()


def main() -> int:
    if fx.get("imported"):
        return imported_main()
    latest = int(raw_result("eth_blockNumber"), 16)
    blocks = [max(1, latest // 80), latest // 2, latest]
    wallets = list(dict.fromkeys([w.lower() for w in fx["wallets"]] + [fx["nftWallet"].lower()]))

    decimals_seen: dict[str, int] = {}
    for b in blocks:
        r.check(f"wallet tokens at to_block {b}: balance, total_supply, decimals = balanceOf, totalSupply, decimals() by eth_call",
                lambda b=b: wallet_tokens(wallets, b, decimals_seen))

    nfts = r.check("wallet NFTs (latest): the REST answers", lambda: nft_rows(wallets)) or {}
    if nfts:
        r.check(f"wallet NFTs at {latest}: ERC721 ownerOf, tokenURI = owner_of, token_uri", lambda: nft_erc721(nfts, latest))
        r.check(f"wallet NFTs at {latest}: ERC1155 balanceOf(address,uint256) (0x00fdd58e) = amount",
                lambda: nft_erc1155_standard(nfts, latest))
        r.check(f"wallet NFTs at {latest}: ERC1155 balanceOfBatch, uri = amount, token_uri",
                lambda: nft_erc1155_batch(nfts, latest))
        r.check("wallet NFTs: block_number, block_number_minted = where the holding changed, the token appeared",
                lambda: nft_blocks(nfts, latest))

    setup = r.check("prices: every pair (PairCreated logs, token0/token1 by eth_call), the wrapped and stable tokens",
                    lambda: setup_pricing(latest))
    if setup:
        book, pricer = setup
        tokens = sorted({p[side] for p in book.pairs for side in ("token0", "token1")})
        for b in blocks:
            r.check(f"eth_getTokenPrice at {b}: pair, usdPrice, nativePrice, liquidity = the reserves (getReserves)",
                    lambda b=b: price_check(pricer, tokens, b))
            r.check(f"wallet tokens at to_block {b}: usd_price = the reserves", lambda b=b: wallet_prices(pricer, wallets, b))

    targets = r.check("proofs: the accounts and slots (eth_createAccessList, non-zero by eth_getStorageAt)",
                      lambda: proof_targets(latest))
    if targets:
        for b in sorted({fx["busy"]["number"], *blocks}):
            r.check(f"eth_getProof at {b}: verified by py-trie against stateRoot, = eth_getBalance, eth_getStorageAt…",
                    lambda b=b: proofs_at(targets, b))
        r.check("eth_getProof: tampered proofs fail to verify", lambda: tamper_check(targets, latest))
    return r.done()


if __name__ == "__main__":
    sys.exit(main())
