"""A user's own contracts on the devnet with web3.py: OpenZeppelin's ERC20
and ERC721 (the npm package's build artifacts, installed beside the JS
clients) deployed from account #7 of the standard test mnemonic, once by
the node's account (eth_sendTransaction, `transact`) and once signed here
(eth_account, send_raw_transaction); read with `call`; minted and
transferred; events decoded from the receipts; a used nonce refused as geth
refuses it. The Moralis Python SDK's wallet tokens and NFTs answers then
show them, named by the contracts."""

from __future__ import annotations

import json
import os
import sys

from eth_account import Account
from moralis import evm_api
from web3 import Web3
from web3.exceptions import Web3RPCError

from pylib import KEY, RPC_URL, URL, Runner, point_sdk_at

MNEMONIC = "test test test test test test test test test test test junk"
WHOLE = 10**18
OZ = os.path.join(os.environ["NODE_PATH"], "@openzeppelin", "contracts", "build", "contracts")

w3 = Web3(Web3.HTTPProvider(RPC_URL, request_kwargs={"timeout": 20}))
r = Runner("own-contracts-py")
point_sdk_at(URL)
Account.enable_unaudited_hdwallet_features()
local = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/7")
holder = Account.create().address


def artifact(name: str) -> dict:
    with open(os.path.join(OZ, f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)


ERC20 = artifact("ERC20PresetMinterPauser")
ERC721 = artifact("ERC721PresetMinterPauserAutoId")
state: dict = {}


def mined(tx_hash):
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=20, poll_latency=0.1)
    assert receipt["status"] == 1, f"{tx_hash.hex()}: status {receipt['status']}"
    return receipt


def signed_here(tx: dict):
    """Sends tx from the key held here: nonce, gas and fees asked of the node."""
    tx = {**tx, "from": local.address, "nonce": w3.eth.get_transaction_count(local.address), "chainId": 1}
    tx["gas"] = w3.eth.estimate_gas(tx)
    tx["maxPriorityFeePerGas"] = w3.eth.max_priority_fee
    tx["maxFeePerGas"] = 2 * w3.eth.get_block("latest")["baseFeePerGas"] + tx["maxPriorityFeePerGas"]
    raw = local.sign_transaction(tx).raw_transaction
    return mined(w3.eth.send_raw_transaction(raw))


def deploy_token():
    assert local.address in w3.eth.accounts, "the mnemonic's account #7 is a dev account"
    factory = w3.eth.contract(abi=ERC20["abi"], bytecode=ERC20["bytecode"])
    receipt = mined(factory.constructor("Python Meadow", "MEAD").transact({"from": local.address}))
    token = w3.eth.contract(address=receipt["contractAddress"], abi=ERC20["abi"])
    name, symbol, decimals = token.functions.name().call(), token.functions.symbol().call(), token.functions.decimals().call()
    assert (name, symbol, decimals) == ("Python Meadow", "MEAD", 18), f"{name} {symbol} {decimals}"
    state["token"] = token
    return f"{token.address}: {name} ({symbol})"


def mint_and_transfer():
    token = state["token"]
    signed_here(token.functions.mint(local.address, 90 * WHOLE).build_transaction({"from": local.address}))
    receipt = signed_here(token.functions.transfer(holder, 12 * WHOLE).build_transaction({"from": local.address}))
    events = token.events.Transfer().process_receipt(receipt)
    assert len(events) == 1 and events[0]["args"]["to"] == holder and events[0]["args"]["value"] == 12 * WHOLE, events
    held = token.functions.balanceOf(holder).call()
    assert held == 12 * WHOLE, f"balanceOf {held}"
    return f"holder has {held}"


def deploy_collection():
    factory = w3.eth.contract(abi=ERC721["abi"], bytecode=ERC721["bytecode"])
    receipt = signed_here(factory.constructor("Python Fields", "FLD", "ar://fields/").build_transaction({"from": local.address}))
    nft = w3.eth.contract(address=receipt["contractAddress"], abi=ERC721["abi"])
    receipt = mined(nft.functions.mint(holder).transact({"from": local.address}))
    (event,) = nft.events.Transfer().process_receipt(receipt)
    assert event["args"]["tokenId"] == 0 and event["args"]["to"] == holder, event
    owner, uri = nft.functions.ownerOf(0).call(), nft.functions.tokenURI(0).call()
    assert owner == holder and uri == "ar://fields/0", f"{owner} {uri}"
    state["nft"] = nft
    return f"{nft.address}: {uri}"


def sdk_tokens():
    token = state["token"]
    page = evm_api.wallets.get_wallet_token_balances_price(api_key=KEY, params={"address": holder, "chain": "eth"})
    rows = [t for t in page["result"] if (t.get("token_address") or "").lower() == token.address.lower()]
    assert len(rows) == 1, f"{len(rows)} rows of {token.address}"
    row = rows[0]
    assert (row["name"], row["symbol"], int(row["decimals"])) == ("Python Meadow", "MEAD", 18), row
    assert int(row["balance"]) == 12 * WHOLE and row["possible_spam"] is False, row
    return f"{row['symbol']}: {row['balance']}"


def sdk_nfts():
    nft = state["nft"]
    page = evm_api.nft.get_wallet_nfts(api_key=KEY, params={"address": holder, "chain": "eth"})
    rows = [n for n in page["result"] if n["token_address"].lower() == nft.address.lower()]
    assert len(rows) == 1, f"{len(rows)} rows of {nft.address}"
    row = rows[0]
    assert (row["name"], row["contract_type"], row["token_id"], row["token_uri"]) == (
        "Python Fields", "ERC721", "0", "ar://fields/0"), row
    return f"{row['name']} #{row['token_id']}"


def refused_nonce():
    """A used nonce: geth's error -32000 and words, as web3.py raises them."""
    used = w3.eth.get_transaction_count(local.address)
    base_fee = w3.eth.get_block("latest")["baseFeePerGas"]
    tx = {"to": holder, "value": 1, "gas": 21000, "nonce": 0, "chainId": 1,
          "maxFeePerGas": 2 * base_fee + 10**9, "maxPriorityFeePerGas": 10**9}
    assert used > 0, "account #7 has sent nothing yet"
    try:
        w3.eth.send_raw_transaction(local.sign_transaction(tx).raw_transaction)
    except Web3RPCError as error:
        answer = error.rpc_response["error"]
        assert answer["code"] == -32000, answer
        assert answer["message"] == f"nonce too low: next nonce {used}, tx nonce 0", answer
        assert w3.eth.get_transaction_count(local.address) == used, "a refused transaction made a block"
        return answer["message"]
    raise AssertionError("a transaction with a used nonce was taken")


def main() -> int:
    r.check("web3.py: deploy ERC20PresetMinterPauser by transact (eth_sendTransaction), read by call", deploy_token)
    r.check("web3.py: mint and transfer signed here (send_raw_transaction), Transfer decoded", mint_and_transfer)
    r.check("web3.py: ERC721PresetMinterPauserAutoId signed here, minted by transact, ownerOf and tokenURI", deploy_collection)
    r.check("web3.py: a used nonce is refused with error -32000, in geth's words", refused_nonce)
    r.check("moralis-py: get_wallet_token_balances_price shows the token with its own name, symbol, decimals", sdk_tokens)
    r.check("moralis-py: get_wallet_nfts shows the ERC721 token 0 with the contract's tokenURI", sdk_nfts)
    return r.done()


if __name__ == "__main__":
    sys.exit(main())
