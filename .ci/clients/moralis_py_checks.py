"""The official Moralis Python SDK (PyPI `moralis`) against `w3api serve`:
wallet tokens, wallet NFTs and NFT collections (every page, passing `cursor`
back), the everyday operations (native balances, ERC20 balances, prices,
metadata, date to block, net worth), streams (create, update, addresses, get, list, delete: a stream of its
own, created through a webhook receiver on loopback, webhook_receiver.py),
and the Solana sign-in (request + verify), each answer compared with the raw
REST answer (plain GET with X-API-Key). It runs on the devnet
(.ci/clients.sh) and in node mode against Hardhat (.ci/node-mode.sh), where
the fixture serves only eth: a case on another chain then runs on eth with
its options.

The SDK's functions build a fresh generated `Configuration()` per call, whose
host is the first entry of `Configuration.get_host_settings()` (the
generator's server list, hard-coded to production). Redirecting the SDK to a
local server replaces that list in each of the three generated packages it
uses: see `point_sdk_at`. The SDK calls skip response deserialization (they
return the JSON body), so the strict, stale bundled response schemas are
never involved; request parameters and bodies are still validated by them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

from moralis import auth, evm_api, streams

from pylib import FIXTURE as fx, KEY, URL, Runner, expect_same, http_json, point_sdk_at, raw_get, raw_post
from webhook_receiver import WebhookReceiver

MAX_PAGES = 200


def on(chain: str) -> str:
    """The chain, when the server serves it; else the first it serves."""
    served = fx["chains"]
    return chain if chain in served else served[0]


point_sdk_at(URL)
r = Runner("moralis-py")


def pages(fetch, first_params: dict) -> list[dict]:
    out = []
    params = dict(first_params)
    while True:
        page = fetch(params)
        out.append(page)
        if not page.get("cursor"):
            return out
        assert len(out) <= MAX_PAGES, f"more than {MAX_PAGES} pages"
        params = {**first_params, "cursor": page["cursor"]}


def raw_pages(path: str, query: dict) -> list[dict]:
    return pages(lambda q: raw_get(path, q), query)


def compare_pages(sdk: list[dict], raw: list[dict], what: str, non_empty: bool):
    assert len(sdk) == len(raw), f"{what}: {len(sdk)} SDK pages, {len(raw)} raw pages"
    total = 0
    compared = 0
    for p, (s, w) in enumerate(zip(sdk, raw)):
        # Cursors are compared by presence: the SDK and the raw calls may
        # spell the same query differently (chain "eth" and "0x1").
        assert bool(s.get("cursor")) == bool(w.get("cursor")), f"{what} page {p}: cursor presence differs"
        s = {k: v for k, v in s.items() if k != "cursor"}
        w = {k: v for k, v in w.items() if k != "cursor"}
        compared += expect_same(s, w, f"{what}[page {p}]").compared
        total += len(w.get("result") or [])
    if non_empty:
        assert total > 0, f"{what}: no items at all (the wallet holds some)"
    else:
        assert total == 0, f"{what}: {total} items where the wallet holds none"
    return f"{len(raw)} pages, {total} items, {compared} values"


def everyday_checks(w0: str):
    """The everyday operations: each SDK answer is the raw answer to the same
    request (arrays sent as repeated keys, as this SDK sends them)."""
    priced = fx["tokens"][:3]
    same = lambda sdk, raw, what: f"{expect_same(sdk, raw, what).compared} values"  # noqa: E731
    r.check(f"evm_api.balance.get_native_balance ({w0[:8]}, eth)", lambda: same(
        evm_api.balance.get_native_balance(api_key=KEY, params={"address": w0, "chain": "eth"}),
        raw_get(f"/api/v2.2/{w0}/balance", {"chain": "eth"}), "native balance"))
    r.check(f"evm_api.balance.get_native_balances_for_addresses ({len(fx['wallets'])} wallets, eth)", lambda: same(
        evm_api.balance.get_native_balances_for_addresses(
            api_key=KEY, params={"wallet_addresses": fx["wallets"], "chain": "eth"}),
        raw_get("/api/v2.2/wallets/balances", {"chain": "eth", "wallet_addresses": fx["wallets"]}), "native balances"))
    r.check(f"evm_api.token.get_wallet_token_balances ({w0[:8]}, eth, token_addresses [2])", lambda: same(
        evm_api.token.get_wallet_token_balances(
            api_key=KEY, params={"address": w0, "chain": "eth", "token_addresses": priced[:2]}),
        raw_get(f"/api/v2.2/{w0}/erc20", {"chain": "eth", "token_addresses": priced[:2]}), "erc20 balances"))
    r.check(f"evm_api.token.get_token_price ({fx['token'][:8]}, eth)", lambda: same(
        evm_api.token.get_token_price(api_key=KEY, params={"address": fx["token"], "chain": "eth"}),
        raw_get(f"/api/v2.2/erc20/{fx['token']}/price", {"chain": "eth"}), "token price"))

    def multiple():
        body = {"tokens": [{"token_address": t} for t in priced]}
        sdk = evm_api.token.get_multiple_token_prices(api_key=KEY, params={"chain": "eth"}, body=body)
        status, raw = raw_post("/api/v2.2/erc20/prices?chain=eth", body)
        assert status == 200 and len(raw) == len(priced), f"raw: HTTP {status} {str(raw)[:200]}"
        return same(sdk, raw, "multiple prices")

    r.check(f"evm_api.token.get_multiple_token_prices ({len(priced)} tokens, eth)", multiple)
    r.check(f"evm_api.token.get_token_metadata ({len(priced)} tokens, eth)", lambda: same(
        evm_api.token.get_token_metadata(api_key=KEY, params={"addresses": priced, "chain": "eth"}),
        raw_get("/api/v2.2/erc20/metadata", {"chain": "eth", "addresses": priced}), "token metadata"))
    r.check("evm_api.block.get_date_to_block (eth, 2030-01-01)", lambda: same(
        evm_api.block.get_date_to_block(api_key=KEY, params={"date": "2030-01-01T00:00:00Z", "chain": "eth"}),
        raw_get("/api/v2.2/dateToBlock", {"chain": "eth", "date": "2030-01-01T00:00:00Z"}), "date to block"))

    chains = fx["chains"][:2]

    def net_worth():
        params = {"chains": chains, "exclude_spam": True}
        sdk = evm_api.wallets.get_wallet_net_worth(api_key=KEY, params={"address": w0, **params})
        raw = raw_get(f"/api/v2.2/wallets/{w0}/net-worth", params)
        assert len(raw["chains"]) == len(chains), f"raw: {len(raw['chains'])} chains for {len(chains)} asked"
        return same(sdk, raw, "net worth")

    r.check(f"evm_api.wallets.get_wallet_net_worth ({w0[:8]}, chains {' and '.join(chains)})", net_worth)


def block_checks():
    """Blocks and transactions: the block of an ERC20 transfer (discover.py)."""
    same = lambda sdk, raw, what: f"{expect_same(sdk, raw, what).compared} values"  # noqa: E731
    block, tx = str(fx["transfer"]["blockNumber"]), fx["transfer"]["txHash"]
    r.check(f"evm_api.block.get_block ({block}, eth)", lambda: same(
        evm_api.block.get_block(api_key=KEY, params={"block_number_or_hash": block, "chain": "eth"}),
        raw_get(f"/api/v2.2/block/{block}", {"chain": "eth"}), "block"))
    r.check(f"evm_api.transaction.get_transaction ({tx[:10]}, eth)", lambda: same(
        evm_api.transaction.get_transaction(api_key=KEY, params={"transaction_hash": tx, "chain": "eth"}),
        raw_get(f"/api/v2.2/transaction/{tx}", {"chain": "eth"}), "transaction"))
    r.check(f"evm_api.transaction.get_transaction_verbose ({tx[:10]}, eth)", lambda: same(
        evm_api.transaction.get_transaction_verbose(api_key=KEY, params={"transaction_hash": tx, "chain": "eth"}),
        raw_get(f"/api/v2.2/transaction/{tx}/verbose", {"chain": "eth"}), "verbose transaction"))
    if not fx.get("internal"):
        print("skip get_transaction with internal_transactions: the server cannot trace this chain (see discover)")
        return
    inner, count = fx["internal"]["txHash"], fx["internal"]["count"]
    query = {"chain": "eth", "include": "internal_transactions"}

    def internal():
        sdk = evm_api.transaction.get_transaction(api_key=KEY, params={"transaction_hash": inner, **query})
        listed = sdk.get("internal_transactions") or []
        assert len(listed) == count, f"{len(listed)} internal transactions, want {count}"
        assert all(call["transaction_hash"] == inner for call in listed), listed
        return same(sdk, raw_get(f"/api/v2.2/transaction/{inner}", query), "transaction with internal transactions")
    r.check(f"evm_api.transaction.get_transaction with internal_transactions ({inner[:10]}, eth)", internal)

def nft_collection_checks(holder: str):
    """NFTs by collection: each SDK answer is the raw answer to the same request."""
    same = lambda sdk, raw, what: f"{expect_same(sdk, raw, what).compared} values"  # noqa: E731
    some = raw_get(f"/api/v2.2/{holder}/nft", {"chain": "eth", "limit": 1})["result"][0]
    collection, token_id = some["token_address"], some["token_id"]
    items = lambda got: [item for page in got for item in page["result"]]  # noqa: E731
    r.check(f"evm_api.nft.get_nft_metadata ({collection[:8]} #{token_id}, eth)", lambda: same(
        evm_api.nft.get_nft_metadata(api_key=KEY, params={"address": collection, "token_id": token_id, "chain": "eth"}),
        raw_get(f"/api/v2.2/nft/{collection}/{token_id}", {"chain": "eth"}), "nft metadata"))

    def multiple():
        body = {"tokens": [{"token_address": collection, "token_id": token_id},
                           {"token_address": collection, "token_id": "999999999"}]}
        sdk = evm_api.nft.get_multiple_nfts(api_key=KEY, params={"chain": "eth"}, body=body)
        status, raw = raw_post("/api/v2.2/nft/getMultipleNFTs?chain=eth", body)
        assert status == 200 and len(raw) == 2 and raw[1] is None, f"raw: HTTP {status} {str(raw)[:200]}"
        return same(sdk, raw, "multiple nfts")

    r.check(f"evm_api.nft.get_multiple_nfts ({collection[:8]} #{token_id} and one that does not exist)", multiple)
    for name, fetch, path, extra in (
        ("get_contract_nfts", evm_api.nft.get_contract_nfts, f"/api/v2.2/nft/{collection}", {"address": collection}),
        ("get_nft_owners", evm_api.nft.get_nft_owners, f"/api/v2.2/nft/{collection}/owners", {"address": collection}),
        ("get_nft_token_id_owners", evm_api.nft.get_nft_token_id_owners,
         f"/api/v2.2/nft/{collection}/{token_id}/owners", {"address": collection, "token_id": token_id}),
    ):
        query = {"chain": "eth", "limit": 9}
        r.check(f"evm_api.nft.{name} ({collection[:8]}, eth, limit 9): every page", lambda fetch=fetch, path=path, extra=extra: same(
            items(pages(lambda p: fetch(api_key=KEY, params={**extra, **p}), query)),
            items(raw_pages(path, query)), name))


def wallet_summary_checks(w0: str):
    """A wallet's counts and active chains: each SDK answer is the raw answer."""
    same = lambda sdk, raw, what: f"{expect_same(sdk, raw, what).compared} values"  # noqa: E731
    r.check(f"evm_api.wallets.get_wallet_stats ({w0[:8]}, eth)", lambda: same(
        evm_api.wallets.get_wallet_stats(api_key=KEY, params={"address": w0, "chain": "eth"}),
        raw_get(f"/api/v2.2/wallets/{w0}/stats", {"chain": "eth"}), "wallet stats"))
    chains = fx["chains"][:2]
    r.check(f"evm_api.wallets.get_wallet_active_chains ({w0[:8]}, {' and '.join(chains)})", lambda: same(
        evm_api.wallets.get_wallet_active_chains(api_key=KEY, params={"address": w0, "chains": chains}),
        raw_get(f"/api/v2.2/wallets/{w0}/chains", {"chains": chains}), "active chains"))


def transfer_checks(w0: str, holder: str):
    """Transfers and transactions: every page through the SDK is every raw page."""
    same = lambda sdk, raw, what: f"{expect_same(sdk, raw, what).compared} values"  # noqa: E731
    items = lambda got: [item for page in got for item in page["result"]]  # noqa: E731
    token = raw_get(f"/api/v2.2/{w0}/erc20/transfers", {"chain": "eth", "limit": 1})["result"][0]["address"]
    collection = raw_get(f"/api/v2.2/{holder}/nft/transfers", {"chain": "eth", "limit": 1})["result"][0]["token_address"]
    for name, fetch, path, extra, query in (
        ("token.get_wallet_token_transfers", evm_api.token.get_wallet_token_transfers,
         f"/api/v2.2/{w0}/erc20/transfers", {"address": w0}, {"chain": "eth", "limit": 20}),
        ("token.get_wallet_token_transfers", evm_api.token.get_wallet_token_transfers,
         f"/api/v2.2/{w0}/erc20/transfers", {"address": w0},
         {"chain": "eth", "limit": 20, "order": "ASC", "contract_addresses": [token]}),
        ("transaction.get_wallet_transactions", evm_api.transaction.get_wallet_transactions,
         f"/api/v2.2/{w0}", {"address": w0}, {"chain": "eth", "limit": 10, "from_block": 1}),
        ("wallets.get_wallet_history", evm_api.wallets.get_wallet_history,
         f"/api/v2.2/wallets/{w0}/history", {"address": w0}, {"chain": "eth", "limit": 10, "order": "ASC"}),
        ("token.get_token_transfers", evm_api.token.get_token_transfers,
         f"/api/v2.2/erc20/{token}/transfers", {"address": token},
         {"chain": "eth", "limit": 50, "from_date": "2026-01-01", "to_block": 4000}),
        ("nft.get_wallet_nft_transfers", evm_api.nft.get_wallet_nft_transfers,
         f"/api/v2.2/{holder}/nft/transfers", {"address": holder}, {"chain": "eth", "limit": 5, "format": "hex"}),
        ("nft.get_nft_contract_transfers", evm_api.nft.get_nft_contract_transfers,
         f"/api/v2.2/nft/{collection}/transfers", {"address": collection}, {"chain": "eth", "limit": 25}),
    ):
        def compare(fetch=fetch, path=path, extra=extra, query=query, name=name):
            raw = items(raw_pages(path, query))
            assert raw, f"{name}: no transfers at all"
            return same(items(pages(lambda p: fetch(api_key=KEY, params={**extra, **p}), query)), raw, name)

        shown = ", ".join(f"{k} {v}" for k, v in query.items() if k != "chain")
        r.check(f"evm_api.{name} ({extra['address'][:8]}, eth, {shown}): every page", compare)


def main() -> int:
    w0 = fx["wallets"][0]
    # A wallet besides the showcase holding NFTs on eth and base (discover.py).
    holder = fx["nftWallet"]

    for wallet, chain, limit in ((w0, "eth", 5), (w0, on("polygon"), 7)):
        def tokens(wallet=wallet, chain=chain, limit=limit):
            sdk = pages(lambda p: evm_api.wallets.get_wallet_token_balances_price(api_key=KEY, params=p),
                        {"address": wallet, "chain": chain, "limit": limit})
            raw = raw_pages(f"/api/v2.2/wallets/{wallet}/tokens", {"chain": chain, "limit": limit})
            return compare_pages(sdk, raw, "tokens", True)

        r.check(f"evm_api.wallets.get_wallet_token_balances_price ({wallet[:8]}, {chain}, limit {limit}): every page",
                tokens)

    def tokens_filtered():
        addresses = fx["tokens"][:2]
        sdk = pages(lambda p: evm_api.wallets.get_wallet_token_balances_price(api_key=KEY, params=p),
                    {"address": w0, "chain": "eth", "token_addresses": addresses})
        raw = raw_pages(f"/api/v2.2/wallets/{w0}/tokens", {"chain": "eth", "token_addresses": addresses})
        assert len(raw[0]["result"]) == 2, f"raw: {len(raw[0]['result'])} tokens for 2 token_addresses"
        return compare_pages(sdk, raw, "tokens", True)

    r.check(f"evm_api.wallets.get_wallet_token_balances_price ({w0[:8]}, eth, token_addresses [2])", tokens_filtered)

    NOBODY = "0x0000000000000000000000000000000000000001"
    for wallet, chain, limit, extra, non_empty in (
        (holder, "eth", 2, {"format": "decimal"}, True),
        (w0, on("polygon"), 3, {"normalizeMetadata": True, "media_items": True}, True),
        (holder, on("base"), 2, {"format": "hex"}, True),
        # The showcase wallet collects NFTs on every chain; an address nobody sends to holds none.
        (w0, "eth", 2, {}, True),
        (NOBODY, "eth", 2, {}, False),
    ):
        def nfts(wallet=wallet, chain=chain, limit=limit, extra=extra, non_empty=non_empty):
            sdk = pages(lambda p: evm_api.nft.get_wallet_nfts(api_key=KEY, params=p),
                        {"address": wallet, "chain": chain, "limit": limit, **extra})
            raw = raw_pages(f"/api/v2.2/{wallet}/nft", {"chain": chain, "limit": limit, **extra})
            return compare_pages(sdk, raw, "nfts", non_empty)

        r.check(f"evm_api.nft.get_wallet_nfts ({wallet[:8]}, {chain}, limit {limit}"
                f"{''.join(f', {k} {v}' for k, v in extra.items())}): every page", nfts)

    for wallet, chain, limit, counts, non_empty in (
        (holder, "eth", 1, False, True), (w0, on("polygon"), 2, True, True), (w0, "eth", 2, False, True),
        (NOBODY, "eth", 2, False, False),
    ):
        def collections(wallet=wallet, chain=chain, limit=limit, counts=counts, non_empty=non_empty):
            sdk = pages(lambda p: evm_api.nft.get_wallet_nft_collections(api_key=KEY, params=p),
                        {"address": wallet, "chain": chain, "limit": limit, "token_counts": counts})
            raw = raw_pages(f"/api/v2.2/{wallet}/nft/collections",
                            {"chain": chain, "limit": limit, "token_counts": counts})
            return compare_pages(sdk, raw, "collections", non_empty)

        r.check(f"evm_api.nft.get_wallet_nft_collections ({wallet[:8]}, {chain}, limit {limit}, token_counts {counts})"
                ": every page", collections)

    everyday_checks(w0)
    nft_collection_checks(holder)
    block_checks()
    transfer_checks(w0, holder)
    wallet_summary_checks(w0)
    stream_checks()

    def sign_in():
        body = {"domain": "example.com", "uri": "https://example.com/login", "address": fx["solana"]["address"],
                "network": "mainnet", "timeout": 60, "statement": "Sign in to Example"}
        challenge = auth.challenge.request_challenge_solana(api_key=KEY, body=body)
        assert re.fullmatch(r"[a-zA-Z0-9]{8,64}", challenge["id"]), f"challenge id {challenge['id']!r}"
        status, raw = raw_post("/challenge/request/solana", body)
        assert status == 201, f"raw challenge request: HTTP {status} {raw}"
        assert sorted(challenge) == sorted(raw), f"keys {sorted(challenge)} != raw {sorted(raw)}"
        assert challenge["profileId"] == raw["profileId"], "profileId differs"

        def stable(m):
            return [ln for ln in m.split("\n") if not re.match(r"(Nonce|Issued At|Expiration Time|Not Before):", ln)]

        assert stable(challenge["message"]) == stable(raw["message"]), "messages differ beyond nonce and times"
        verified = auth.challenge.verify_challenge_solana(api_key=KEY, body=solana_sign(challenge))
        status, raw_verified = raw_post("/challenge/verify/solana", solana_sign(raw))
        assert status == 201, f"raw verify: HTTP {status} {raw_verified}"
        assert verified["id"] == challenge["id"], f"verified id {verified['id']}, challenge {challenge['id']}"
        nonce = re.search(r"^Nonce: (.*)$", challenge["message"], re.M).group(1)
        assert verified["nonce"] == nonce, f"verified nonce {verified['nonce']}, message nonce {nonce}"
        varying = {"id", "nonce", "expirationTime", "notBefore", "issuedAt"}
        assert sorted(verified) == sorted(raw_verified), f"keys {sorted(verified)} != raw {sorted(raw_verified)}"
        return expect_same({k: v for k, v in verified.items() if k not in varying},
                           {k: v for k, v in raw_verified.items() if k not in varying}, "verify")

    r.check("auth.challenge.request_challenge_solana + verify_challenge_solana", sign_in)
    return r.done()


def stream_checks() -> None:
    """Streams of its own (the devnet has none), through streams.evm_streams,
    with a webhook receiver on loopback that answers the test webhooks 200;
    each answer compared with a raw GET. The shared server makes no blocks
    of its own, so nothing is delivered; the streams are deleted at the end."""
    ctx: dict = {}
    receiver = WebhookReceiver(secret=KEY)
    evm = streams.evm_streams

    def need():
        assert "id" in ctx, "no stream (an earlier check failed)"
        return ctx["id"]

    try:
        def create():
            # No `abi`: the SDK's bundled request schema (openapi_streams 0.1.49) types it as an object, not
            # production's array of ABI items, and refuses a list before sending anything.
            body = {"webhookUrl": receiver.url, "description": "moralis-py", "tag": "moralis-py", "chainIds": ["0x1"],
                    "topic0": ["Transfer(address,address,uint256)"], "includeContractLogs": True, "allAddresses": False}
            created = evm.create_stream(api_key=KEY, body=body)
            ctx["id"] = created["id"]
            tests = receiver.deliveries(lambda d: d.is_test)
            assert tests and tests[-1].verified, "no signed test webhook before the answer"
            for k, v in body.items():
                assert created.get(k) == v, f"{k}: created {created.get(k)!r}, sent {v!r}"
            return expect_same(created, raw_get(f"/streams/evm/{created['id']}"), "stream")

        r.check("streams.evm_streams.create_stream (after a signed test webhook) = raw GET", create)

        def update():
            updated = evm.update_stream(api_key=KEY, params={"id": need()},
                                        body={"description": "moralis-py (changed)", "includeNativeTxs": True})
            assert updated["description"] == "moralis-py (changed)" and updated["includeNativeTxs"] is True, (
                f"update answered {updated}")
            return expect_same(updated, raw_get(f"/streams/evm/{ctx['id']}"), "stream")

        r.check("streams.evm_streams.update_stream = raw GET", update)

        def addresses():
            watched = [w.lower() for w in fx["wallets"][:2]]
            added = evm.add_address_to_stream(api_key=KEY, params={"id": need()}, body={"address": watched})
            assert added == {"streamId": ctx["id"], "address": watched}, f"add_address_to_stream answered {added}"
            listed = evm.get_addresses(api_key=KEY, params={"id": ctx["id"], "limit": 10})
            raw = raw_get(f"/streams/evm/{ctx['id']}/address", {"limit": 10})
            assert sorted(a["address"] for a in raw["result"]) == sorted(watched), f"raw addresses {raw['result']}"
            cmp = expect_same(listed, raw, "addresses")
            removed = evm.delete_address_from_stream(api_key=KEY, params={"id": ctx["id"]}, body={"address": watched[1]})
            assert removed.get("streamId") == ctx["id"], f"delete_address_from_stream answered {removed}"
            after = raw_get(f"/streams/evm/{ctx['id']}/address", {"limit": 10})
            assert [a["address"] for a in after["result"]] == [watched[0]], f"after the delete: {after['result']}"
            assert raw_get(f"/streams/evm/{ctx['id']}")["amountOfAddresses"] == 1, "amountOfAddresses is not 1"
            return cmp

        r.check("streams.evm_streams.add_address_to_stream, get_addresses, delete_address_from_stream = raw",
                addresses)

        def get():
            return expect_same(evm.get_stream(api_key=KEY, params={"id": need()}),
                               raw_get(f"/streams/evm/{ctx['id']}"), "stream")

        r.check("streams.evm_streams.get_stream = raw GET", get)

        def get_all():
            need()
            return expect_same(evm.get_streams(api_key=KEY, params={"limit": 10}),
                               raw_get("/streams/evm", {"limit": 10}), "streams")

        r.check("streams.evm_streams.get_streams = raw GET", get_all)

        def delete():
            before = raw_get(f"/streams/evm/{need()}")
            deleted = evm.delete_stream(api_key=KEY, params={"id": ctx["id"]})
            cmp = expect_same(deleted, before, "deleted")
            status, _ = raw_status(f"/streams/evm/{ctx['id']}")
            assert status == 404, f"GET a deleted stream: HTTP {status}"
            ctx.pop("id")
            return cmp

        r.check("streams.evm_streams.delete_stream = the stream as it was; then 404", delete)
    finally:
        if "id" in ctx:  # an earlier check failed: leave no stream on the shared server
            http_json("DELETE", f"{URL}/streams/evm/{ctx['id']}", KEY)
        receiver.close()


def raw_status(path: str):
    return http_json("GET", URL + path, KEY)


def solana_sign(challenge: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="w3api-moralis-py-") as d:
        path = os.path.join(d, "challenge.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(challenge, f)
        out = subprocess.run([os.environ["W3API_BIN"], "devnet", "solana-sign", "--challenge", path],
                             check=True, capture_output=True, text=True, timeout=20)
    return json.loads(out.stdout)


if __name__ == "__main__":
    sys.exit(main())
