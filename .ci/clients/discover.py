"""Finds the devnet values the client checks use, with plain HTTP calls only
(eth_getBlockByNumber and the wallet-tokens REST answer), and writes them as
one JSON file: a busy block and a few of its transactions (the first, the
last, one of each type, an ERC20 transfer), the block range and topics of
that transfer's log, a priced token, the wallets and the Solana account
given by .ci/clients.sh, the chains the server serves, and a wallet besides
the first that holds NFTs on eth (and on base, when served). (The devnet
has no streams: the streams checks create their own.) The same discovery
serves node mode (.ci/node-mode.sh), where only eth is served and the
wallets come from the deployment.

usage: discover.py OUT.json   (environment: W3API_URL, W3API_API_KEY,
W3API_WALLETS, W3API_NFT_CANDIDATES, W3API_SOLANA_ADDRESS, and
W3API_CHAINS: the chain names served, default eth,polygon,base)
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request

URL = os.environ["W3API_URL"].rstrip("/")
KEY = os.environ["W3API_API_KEY"]
RPC = f"{URL}/eth/{KEY}"
CHAINS = [c for c in os.environ.get("W3API_CHAINS", "eth,polygon,base").split(",") if c]
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def post(body):
    req = urllib.request.Request(RPC, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.loads(res.read())


def rpc(method, params):
    answer = post({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if "error" in answer:
        raise SystemExit(f"discover: {method} {params}: {answer['error']}")
    return answer["result"]


def blocks(numbers, full=False):
    """Blocks by number, in JSON-RPC batches of 100."""
    out = []
    numbers = list(numbers)
    for i in range(0, len(numbers), 100):
        chunk = numbers[i:i + 100]
        answers = post([{"jsonrpc": "2.0", "id": n, "method": "eth_getBlockByNumber", "params": [hex(n), full]}
                        for n in chunk])
        by_id = {a["id"]: a for a in answers}
        for n in chunk:
            if "error" in by_id[n]:
                raise SystemExit(f"discover: block {n}: {by_id[n]['error']}")
            out.append(by_id[n]["result"])
    return out


def with_internal(first: int, latest: int):
    """The first transaction from block `first` on whose getTransaction
    lists internal transactions, with how many; None, with the reason
    printed, when the server cannot trace (a node without a call tracer),
    unless W3API_EXPECT_INTERNAL=1 (the devnet always traces)."""
    for number in range(first, min(first + 200, latest + 1)):
        req = urllib.request.Request(f"{URL}/api/v2.2/block/{number}?chain=eth&include=internal_transactions",
                                     headers={"x-api-key": KEY})
        try:
            with urllib.request.urlopen(req, timeout=60) as res:
                block = json.loads(res.read())
        except urllib.error.HTTPError as e:
            print(f"discover: no internal transactions: getBlock {number} with them answers {e.code} {e.read()[:300]!r}")
            return None
        for tx in block["transactions"]:
            if tx["internal_transactions"]:
                return {"txHash": tx["hash"], "count": len(tx["internal_transactions"]), "blockNumber": number}
    if os.environ.get("W3API_EXPECT_INTERNAL") == "1":
        raise SystemExit(f"discover: no transaction of blocks {first} to {first + 199} made an internal call")
    # A node that traces neither way has none to list (the server logs why).
    print(f"discover: no internal transactions in blocks {first} to {first + 199}")
    return None


def holds_nfts(wallet: str, chain: str) -> bool:
    req = urllib.request.Request(f"{URL}/api/v2.2/{wallet}/nft?chain={chain}&limit=1", headers={"x-api-key": KEY})
    with urllib.request.urlopen(req, timeout=60) as res:
        return bool(json.loads(res.read())["result"])


def nft_wallet(showcase: str) -> str:
    """The first candidate, the showcase wallet aside, holding NFTs on eth and
    on base (when served)."""
    chains = [c for c in ("eth", "base") if c in CHAINS]
    candidates = [w for w in os.environ["W3API_NFT_CANDIDATES"].split(",") if w and w != showcase]
    for wallet in candidates:
        if all(holds_nfts(wallet, chain) for chain in chains):
            return wallet
    raise SystemExit(f"discover: none of {len(candidates)} wallets holds NFTs on {' and '.join(chains)}")


def main(out_path: str) -> None:
    latest = int(rpc("eth_getBlockByNumber", ["latest", False])["number"], 16)
    # The busiest block of the chain (the first of the busiest).
    scanned = blocks(range(0, latest + 1))
    busy_hashes = max(scanned, key=lambda b: (len(b["transactions"]), -int(b["number"], 16)))
    number = int(busy_hashes["number"], 16)
    busy = rpc("eth_getBlockByNumber", [hex(number), True])
    txs = busy["transactions"]
    if not txs:
        raise SystemExit("discover: no block with transactions")

    def pick(block, tx, label):
        i = int(tx["transactionIndex"], 16)
        return {"blockNumber": int(block["number"], 16), "blockHash": block["hash"], "index": i,
                "hash": tx["hash"], "type": tx.get("type", "0x0"), "label": f"{label}, block {int(block['number'], 16)} #{i}"}

    picks = [pick(busy, txs[0], "first"), pick(busy, txs[-1], "last")]
    is_transfer = lambda tx: tx["input"].startswith("0xa9059cbb") and tx["to"]  # noqa: E731
    # An ERC20 transfer(address,uint256) for the logs: the busy block's, or
    # (on a node that mines one transaction a block) the chain's first.
    transfer_tx = next((tx for tx in txs if is_transfer(tx)), None)
    transfer_block = busy if transfer_tx else None
    # One transaction of each type the chain holds (full blocks from genesis,
    # until 1000 blocks bring no new type, and an ERC20 transfer is found).
    types = {tx.get("type", "0x0") for tx in txs}
    last_new, start = 0, 0
    while start <= latest and (start - last_new < 1000 or transfer_tx is None):
        for block in blocks(range(start, min(start + 100, latest + 1)), full=True):
            for tx in block["transactions"]:
                kind = tx.get("type", "0x0")
                if kind not in types:
                    types.add(kind)
                    last_new = int(block["number"], 16)
                    picks.append(pick(block, tx, f"type {kind}"))
                if transfer_tx is None and is_transfer(tx):
                    transfer_tx, transfer_block = tx, block
        start += 100
    if transfer_tx is None:
        raise SystemExit("discover: the chain holds no ERC20 transfer")
    picks.append(pick(transfer_block, transfer_tx, "erc20 transfer"))
    tb = int(transfer_block["number"], 16)
    sender = transfer_tx["from"].lower()

    wallets = [w for w in os.environ["W3API_WALLETS"].split(",") if w]
    # A priced ERC20 of the first wallet, from the wallet-tokens REST answer.
    req = urllib.request.Request(f"{URL}/api/v2.2/wallets/{wallets[0]}/tokens?chain=eth&limit=100",
                                 headers={"x-api-key": KEY})
    with urllib.request.urlopen(req, timeout=60) as res:
        tokens = json.loads(res.read())["result"]
    priced = [t for t in tokens if not t.get("native_token") and t.get("usd_price") is not None]
    if not priced:
        raise SystemExit("discover: the wallet holds no priced token")

    fixture = {
        "chains": CHAINS,
        "nftWallet": nft_wallet(wallets[0]),
        "latest": latest,
        "busy": {"number": number, "hash": busy["hash"], "txCount": len(txs)},
        "picks": picks,
        "transfer": {
            "token": transfer_tx["to"].lower(), "from": sender, "txHash": transfer_tx["hash"],
            "blockNumber": tb, "blockHash": transfer_block["hash"],
            "fromBlock": max(0, tb - 3), "toBlock": min(latest, tb + 3),
            "topic0": TRANSFER_TOPIC, "fromTopic": "0x" + "0" * 24 + sender[2:],
        },
        "stateBlock": number,
        "internal": with_internal(number, latest),
        "token": priced[0]["token_address"].lower(),
        "tokens": [t["token_address"].lower() for t in priced],
        "wallets": wallets,
        "solana": {"address": os.environ["W3API_SOLANA_ADDRESS"]},
    }
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(fixture, f, indent=2)
    print(f"discover: latest block {latest}; busy block {number} ({len(txs)} transactions, "
          f"picks: {'; '.join(p['label'] for p in picks)}); "
          f"token {fixture['token']}; {len(wallets)} wallets")


if __name__ == "__main__":
    main(sys.argv[1])
