"""web3.py against the gateway: Web3(HTTPProvider(url)), every JSON-RPC method
through web3.py's own API (w3.provider.make_request for the custom method),
each decoded result compared field by field with the raw answer."""

from __future__ import annotations

import sys
import warnings

from eth_account import Account
from web3 import Web3
from web3.exceptions import TransactionNotFound

from pylib import FIXTURE as fx, RPC_URL, Runner, expect_same, must_raise, raw_result

TX = {}
BLOCK = {"nested": {"transactions": TX}}
LOG = {}
RECEIPT = {"nested": {"logs": LOG}}

w3 = Web3(Web3.HTTPProvider(RPC_URL, request_kwargs={"timeout": 20}))
r = Runner("web3.py")


def main() -> int:
    busy = fx["busy"]
    number, block_hash = busy["number"], busy["hash"]

    def connected():
        assert w3.is_connected(show_traceback=True) is True, "is_connected() is not True"
        return "is_connected() is True"

    r.check("web3_clientVersion: is_connected", connected)
    r.check("web3_clientVersion: client_version",
            lambda: expect_same(w3.client_version, raw_result("web3_clientVersion"), "clientVersion"))
    r.check("net_version: net.version", lambda: expect_same(w3.net.version, raw_result("net_version"), "net_version"))

    def chain_id():
        cid = w3.eth.chain_id
        assert cid == 1, f"chain id {cid}, expected 1 for eth"
        return expect_same(cid, raw_result("eth_chainId"), "chainId")

    r.check("eth_chainId: eth.chain_id", chain_id)
    r.check("eth_syncing: eth.syncing", lambda: expect_same(w3.eth.syncing, raw_result("eth_syncing"), "syncing"))
    r.check("eth_blockNumber: eth.block_number",
            lambda: expect_same(w3.eth.block_number, raw_result("eth_blockNumber"), "blockNumber"))

    for ident, param in [(number, hex(number)), *[(t, t) for t in ("latest", "earliest", "safe", "finalized")]]:
        for full in (False, True):
            r.check(f"eth_getBlockByNumber: get_block({ident}, {full})",
                    lambda ident=ident, param=param, full=full: expect_same(
                        w3.eth.get_block(ident, full), raw_result("eth_getBlockByNumber", [param, full]), "block", BLOCK))
    for full in (False, True):
        r.check(f"eth_getBlockByHash: get_block(hash, {full})",
                lambda full=full: expect_same(w3.eth.get_block(block_hash, full),
                                              raw_result("eth_getBlockByHash", [block_hash, full]), "block", BLOCK))

    for tx in fx["picks"]:
        h, i, bh, bn = tx["hash"], tx["index"], tx["blockHash"], tx["blockNumber"]
        r.check(f"eth_getTransactionByHash: get_transaction({tx['label']})",
                lambda h=h: expect_same(w3.eth.get_transaction(h), raw_result("eth_getTransactionByHash", [h]), "tx", TX))
        r.check(f"eth_getTransactionByBlockHashAndIndex: get_transaction_by_block(hash, {i}) ({tx['label']})",
                lambda i=i, bh=bh: expect_same(w3.eth.get_transaction_by_block(bh, i),
                                               raw_result("eth_getTransactionByBlockHashAndIndex", [bh, hex(i)]), "tx", TX))
        r.check(f"eth_getTransactionByBlockNumberAndIndex: get_transaction_by_block({bn}, {i})",
                lambda i=i, bn=bn: expect_same(w3.eth.get_transaction_by_block(bn, i),
                                               raw_result("eth_getTransactionByBlockNumberAndIndex", [hex(bn), hex(i)]), "tx", TX))
        r.check(f"eth_getTransactionReceipt: get_transaction_receipt({tx['label']})",
                lambda h=h: expect_same(w3.eth.get_transaction_receipt(h),
                                        raw_result("eth_getTransactionReceipt", [h]), "receipt", RECEIPT))
    def latest_first():
        raw = raw_result("eth_getTransactionByBlockNumberAndIndex", ["latest", "0x0"])
        if raw is None:
            # The latest block is empty: null, which web3.py reports as not found.
            e = must_raise(lambda: w3.eth.get_transaction_by_block("latest", 0), "latest #0")
            assert isinstance(e, TransactionNotFound), f"expected TransactionNotFound, got {type(e).__name__}: {e}"
            return "latest block empty: null, TransactionNotFound"
        return expect_same(w3.eth.get_transaction_by_block("latest", 0), raw, "tx", TX)

    r.check("eth_getTransactionByBlockNumberAndIndex: get_transaction_by_block('latest', 0)", latest_first)

    r.check(f"eth_getBlockReceipts: get_block_receipts({number})",
            lambda: expect_same(w3.eth.get_block_receipts(number),
                                raw_result("eth_getBlockReceipts", [hex(number)]), "receipts", RECEIPT))
    r.check("eth_getBlockReceipts: get_block_receipts(hash)",
            lambda: expect_same(w3.eth.get_block_receipts(block_hash),
                                raw_result("eth_getBlockReceipts", [block_hash]), "receipts", RECEIPT))

    def count(ident, method, param):
        n = w3.eth.get_block_transaction_count(ident)
        if ident in (number, block_hash):
            assert n == busy["txCount"], f"count {n}, the block holds {busy['txCount']}"
        return expect_same(n, raw_result(method, [param]), "count")

    r.check(f"eth_getBlockTransactionCountByNumber: get_block_transaction_count({number})",
            lambda: count(number, "eth_getBlockTransactionCountByNumber", hex(number)))
    r.check("eth_getBlockTransactionCountByNumber: get_block_transaction_count('latest')",
            lambda: count("latest", "eth_getBlockTransactionCountByNumber", "latest"))
    r.check("eth_getBlockTransactionCountByHash: get_block_transaction_count(hash)",
            lambda: count(block_hash, "eth_getBlockTransactionCountByHash", block_hash))

    t = fx["transfer"]
    token = Web3.to_checksum_address(t["token"])

    def logs(filter_params: dict, raw_filter: dict, what: str):
        got = w3.eth.get_logs(filter_params)
        assert len(got) > 0, f"{what}: no logs (the devnet has a transfer there)"
        return expect_same(got, raw_result("eth_getLogs", [raw_filter]), "logs", LOG)

    r.check("eth_getLogs: get_logs(address, block range)", lambda: logs(
        {"address": token, "fromBlock": t["fromBlock"], "toBlock": t["toBlock"]},
        {"address": t["token"], "fromBlock": hex(t["fromBlock"]), "toBlock": hex(t["toBlock"])}, "address"))
    r.check("eth_getLogs: get_logs(topics [Transfer, from], block range)", lambda: logs(
        {"topics": [Web3.keccak(text="Transfer(address,address,uint256)").to_0x_hex(), t["fromTopic"]],
         "fromBlock": t["fromBlock"], "toBlock": t["toBlock"]},
        {"topics": [t["topic0"], t["fromTopic"]], "fromBlock": hex(t["fromBlock"]), "toBlock": hex(t["toBlock"])}, "topics"))
    r.check("eth_getLogs: get_logs(address, topics, blockHash)", lambda: logs(
        {"address": token, "topics": [t["topic0"]], "blockHash": t["blockHash"]},
        {"address": t["token"], "topics": [t["topic0"]], "blockHash": t["blockHash"]}, "blockHash"))

    state = fx["stateBlock"]
    for wallet in fx["wallets"]:
        cs = Web3.to_checksum_address(wallet)
        short = wallet[:10]
        r.check(f"eth_getBalance: get_balance({short}, {state})",
                lambda cs=cs, wallet=wallet: expect_same(w3.eth.get_balance(cs, state),
                                                         raw_result("eth_getBalance", [wallet, hex(state)]), "balance"))
        r.check(f"eth_getBalance: get_balance({short}, latest)",
                lambda cs=cs, wallet=wallet: expect_same(w3.eth.get_balance(cs),
                                                         raw_result("eth_getBalance", [wallet, "latest"]), "balance"))
        r.check(f"eth_getTransactionCount: get_transaction_count({short}, {state})",
                lambda cs=cs, wallet=wallet: expect_same(w3.eth.get_transaction_count(cs, state),
                                                         raw_result("eth_getTransactionCount", [wallet, hex(state)]), "nonce"))
        r.check(f"eth_getTransactionCount: get_transaction_count({short}, latest)",
                lambda cs=cs, wallet=wallet: expect_same(w3.eth.get_transaction_count(cs),
                                                         raw_result("eth_getTransactionCount", [wallet, "latest"]), "nonce"))

    r.check("eth_gasPrice: eth.gas_price", lambda: expect_same(w3.eth.gas_price, raw_result("eth_gasPrice"), "gasPrice"))

    def priority_fee():
        # web3.py falls back to an eth_feeHistory estimate when the method
        # fails: the raw call must succeed on its own, and no fallback warning.
        raw = raw_result("eth_maxPriorityFeePerGas")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return expect_same(w3.eth.max_priority_fee, raw, "maxPriorityFeePerGas")

    r.check("eth_maxPriorityFeePerGas: eth.max_priority_fee", priority_fee)
    r.check(f"eth_feeHistory: fee_history(4, {number}, [25, 75])",
            lambda: expect_same(w3.eth.fee_history(4, number, [25, 75]),
                                raw_result("eth_feeHistory", ["0x4", hex(number), [25, 75]]), "feeHistory"))
    r.check("eth_feeHistory: fee_history(2, 'latest', [])",
            lambda: expect_same(w3.eth.fee_history(2, "latest", []),
                                raw_result("eth_feeHistory", ["0x2", "latest", []]), "feeHistory"))

    def token_price():
        params = [{"address": fx["token"], "include": "percent_change"}]
        answer = w3.provider.make_request("eth_getTokenPrice", params)
        assert "error" not in answer, f"JSON-RPC error {answer.get('error')}"
        return expect_same(answer["result"], raw_result("eth_getTokenPrice", params), "price")

    r.check("eth_getTokenPrice: provider.make_request", token_price)

    # The devnet executes: a call, an estimate and a sent transaction answer
    # as a node's do. The key is Hardhat's and Anvil's account #3, funded on
    # every devnet chain.
    account = Account.from_key("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6")
    to = Web3.to_checksum_address(fx["wallets"][0])

    def call():
        raw = raw_result("eth_call", [{"to": fx["token"], "data": "0x18160ddd"}, "latest"])
        target = Web3.to_checksum_address(fx["token"])
        return expect_same(w3.eth.call({"to": target, "data": "0x18160ddd"}), raw, "call")

    def estimate():
        raw = raw_result("eth_estimateGas", [{"from": account.address, "to": to, "value": "0x1"}])
        return expect_same(w3.eth.estimate_gas({"from": account.address, "to": to, "value": 1}), raw, "estimateGas")

    def send_raw():
        signed = account.sign_transaction({
            "type": 2, "chainId": 1, "nonce": w3.eth.get_transaction_count(account.address), "to": to,
            "value": 10**15, "gas": 21000, "maxFeePerGas": 30 * 10**9, "maxPriorityFeePerGas": 10**9,
        })
        sent = w3.eth.send_raw_transaction(signed.raw_transaction)
        receipt = w3.eth.get_transaction_receipt(sent)
        assert receipt["status"] == 1, f"receipt status {receipt['status']}"
        return f"0x{sent.hex()} mined in block {receipt['blockNumber']}"

    r.check("eth_call: eth.call", call)
    r.check("eth_estimateGas: eth.estimate_gas", estimate)
    r.check("eth_sendRawTransaction: eth.send_raw_transaction, then its receipt", send_raw)
    return r.done()


if __name__ == "__main__":
    sys.exit(main())
