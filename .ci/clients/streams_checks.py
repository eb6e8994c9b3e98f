"""Stream deliveries end to end, against a `w3api serve` of its own
($W3API_BIN, a block of ordinary activity every second, confirmed after 2
blocks, retries after 1 s and 1 s) and webhook receivers on loopback
(webhook_receiver.py: stdlib http.server, its own keccak):

- creating a stream posts a signed test webhook first, and a receiver that
  does not answer 2xx makes a create or an update fail with production's 400;
- deliveries of new blocks arrive signed; each payload's logs are what
  eth_getLogs answers for the block (address, topics, data, logIndex in
  decimal, transaction hash), its block what eth_getBlockByNumber answers,
  its erc20Transfers the logs' ERC20 transfers; every block with a matching
  log is delivered, and no other;
- each block comes unconfirmed, then confirmed once the chain is 2 blocks on;
- a receiver that fails twice gets the delivery on the third attempt with
  `retries: 2`, and GET /history/logs shows the two 500s;
- every signature verifies (keccak256 of the body bytes and the secret, which
  is the API key until POST /settings changes it, and the new one after);
- GET /stats totals grow and agree with what the receivers got; the history
  holds the payloads delivered, and a replay sends one again.

usage: W3API_BIN=target/debug/w3api streams_checks.py
"""

from __future__ import annotations

import itertools
import secrets
import sys
import threading
import time
import uuid

from pylib import Runner, Server, http_json
from webhook_receiver import WebhookReceiver

KEY = "streams-checks-key"
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_ABI = [{
    "anonymous": False,
    "inputs": [
        {"indexed": True, "name": "from", "type": "address"},
        {"indexed": True, "name": "to", "type": "address"},
        {"indexed": False, "name": "value", "type": "uint256"},
    ],
    "name": "Transfer",
    "type": "event",
}]
CONFIRMATIONS = 2
RETRY_WAIT = 1.0
PAYLOAD_KEYS = ["confirmed", "chainId", "abi", "streamId", "tag", "retries", "block", "logs", "txs", "txsInternal",
                "erc20Transfers", "erc20Approvals", "nftTransfers", "nftApprovals", "nftTokenApprovals",
                "nativeBalances"]

r = Runner("streams")


def stream_body(url: str, tag: str) -> dict:
    return {
        "webhookUrl": url, "description": f"streams checks ({tag})", "tag": tag, "chainIds": ["0x1"],
        "topic0": ["Transfer(address,address,uint256)"], "allAddresses": True, "includeContractLogs": True,
        "abi": TRANSFER_ABI,
    }


def rejected_message(url: str) -> str:
    return f"Could not POST to {url}. Please check your webhook URL."


class Api:
    def __init__(self, base: str, key: str):
        self.base, self.key = base, key
        self._ids = itertools.count(1)

    def call(self, method: str, path: str, body=None, expect: int | None = 200):
        status, answer = http_json(method, self.base + path, self.key, body)
        if expect is not None and status != expect:
            raise AssertionError(f"{method} {path}: HTTP {status} (expected {expect}) {str(answer)[:400]}")
        return answer if expect is not None else (status, answer)

    def rpc(self, method: str, params: list):
        status, answer = http_json("POST", f"{self.base}/eth/{self.key}", None,
                                   {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params})
        if not isinstance(answer, dict) or "result" not in answer:
            raise AssertionError(f"{method} {params}: HTTP {status} {str(answer)[:300]}")
        return answer["result"]


class HeadSampler:
    """eth_blockNumber every 100 ms, with when it was read: what the head was
    at least at a given moment."""

    def __init__(self, api: Api):
        self.api = api
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="head-sampler")
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                head = int(self.api.rpc("eth_blockNumber", []), 16)
                self.samples.append((time.monotonic(), head))
            except Exception:  # noqa: BLE001 - a missed sample only weakens the check
                pass
            self._stop.wait(0.1)

    def head_after(self, at: float, timeout: float = 3) -> tuple[float, int] | None:
        """The first sample read after `at` (waiting for it at most timeout
        seconds): the head then, at least the head at `at`."""
        deadline = time.monotonic() + timeout
        while True:
            found = next(((t, h) for t, h in list(self.samples) if t >= at), None)
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def stop(self):
        self._stop.set()
        self._thread.join(5)


def wait_until(what: str, fn, timeout: float, every: float = 0.25):
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = fn()
            if value:
                return value
        except AssertionError as e:
            last = e
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s" + (f" (last: {last})" if last else ""))
        time.sleep(every)


def expected_logs(api: Api, block_hash: str) -> list[dict]:
    return api.rpc("eth_getLogs", [{"blockHash": block_hash, "topics": [TRANSFER]}])


def compare_logs(payload: dict, logs: list[dict]) -> int:
    """The payload's logs are the JSON-RPC logs, in order; returns the values compared."""
    what = f"block {payload['block']['number']}"
    got = payload["logs"]
    assert len(got) == len(logs), (f"{what}: {len(got)} logs delivered, eth_getLogs answers {len(logs)} "
                                   f"(delivered {[g['logIndex'] for g in got]}, "
                                   f"rpc {[int(x['logIndex'], 16) for x in logs]})")
    compared = 0
    for i, (p, x) in enumerate(zip(got, logs)):
        at = f"{what} logs[{i}]"
        index = int(x["logIndex"], 16)
        assert p["logIndex"] == str(index), f"{at}.logIndex {p['logIndex']!r}, eth_getLogs {x['logIndex']} (= {index})"
        assert p["transactionHash"] == x["transactionHash"].lower(), (
            f"{at}.transactionHash {p['transactionHash']} != {x['transactionHash']}")
        assert p["address"] == x["address"].lower(), f"{at}.address {p['address']} != {x['address']}"
        assert p["data"] == x["data"].lower(), f"{at}.data {p['data']} != {x['data']}"
        topics = [t.lower() for t in x["topics"]] + [None] * (4 - len(x["topics"]))
        delivered = [p.get(f"topic{n}", "absent") for n in range(4)]
        assert delivered == topics, f"{at} topics {delivered} != eth_getLogs {x['topics']} (padded with null)"
        assert x["blockHash"] == payload["block"]["hash"], f"{at}: eth_getLogs names block {x['blockHash']}"
        compared += 8
    return compared


def compare_erc20(payload: dict) -> int:
    """erc20Transfers: one entry a 3-topic Transfer log, decoded from it."""
    what = f"block {payload['block']['number']}"
    expected = []
    for log in payload["logs"]:
        if log["topic0"] == TRANSFER and log["topic3"] is None and log["topic2"] is not None:
            expected.append({
                "transactionHash": log["transactionHash"], "logIndex": log["logIndex"], "contract": log["address"],
                "from": "0x" + log["topic1"][-40:], "to": "0x" + log["topic2"][-40:], "value": str(int(log["data"], 16)),
            })
    got = [{k: t.get(k) for k in ("transactionHash", "logIndex", "contract", "from", "to", "value")}
           for t in payload["erc20Transfers"]]
    assert got == expected, f"{what}: erc20Transfers {got} != the logs' ERC20 transfers {expected}"
    return 6 * len(expected)


def compare_block(api: Api, payload: dict) -> int:
    block = payload["block"]
    number = int(block["number"])
    assert block["number"] == str(number), f"block.number {block['number']!r} is not a decimal string"
    rpc_block = api.rpc("eth_getBlockByNumber", [hex(number), False])
    assert rpc_block is not None, f"eth_getBlockByNumber {number}: null"
    assert block["hash"] == rpc_block["hash"], f"block {number}: hash {block['hash']} != eth_getBlockByNumber {rpc_block['hash']}"
    timestamp = int(rpc_block["timestamp"], 16)
    assert block["timestamp"] == str(timestamp), (
        f"block {number}: timestamp {block['timestamp']!r} != eth_getBlockByNumber {rpc_block['timestamp']} (= {timestamp})")
    return 3


def without(d: dict, *keys) -> dict:
    return {k: v for k, v in d.items() if k not in keys}


def main() -> int:
    receivers: list[WebhookReceiver] = []
    server = None
    sampler = None
    try:
        # A: answers 200; B: 500 to the first two attempts of each block; C: always 500.
        a = WebhookReceiver(secret=KEY)
        b = WebhookReceiver(secret=KEY, fail_first=2)
        c = WebhookReceiver(secret=KEY, fail_first=10**9, fail_tests=True)
        receivers += [a, b, c]
        server = Server(["--api-key", KEY, "--block-time", "1s", "--confirmations", str(CONFIRMATIONS),
                         "--stream-retries", f"{RETRY_WAIT:.0f}s,{RETRY_WAIT:.0f}s"])
        api = Api(server.url, KEY)
        sampler = HeadSampler(api)
        run_checks(api, sampler, a, b, c)
    except Exception as e:  # noqa: BLE001
        r.failed += 1
        print(f"FAIL streams: setup\n      {type(e).__name__}: {e}", flush=True)
    finally:
        if sampler:
            sampler.stop()
        if server:
            if not server.alive():
                r.failed += 1
                print(f"FAIL streams: w3api serve exited during the checks\n      {server.stderr_tail()}", flush=True)
            server.stop()
        for receiver in receivers:
            receiver.close()
    return r.done()


def run_checks(api: Api, sampler: HeadSampler, a: WebhookReceiver, b: WebhookReceiver, c: WebhookReceiver) -> None:
    ctx: dict = {"secrets": [(0.0, KEY)]}  # (from when, secret) in force

    def need(*names):
        missing = [n for n in names if n not in ctx]
        assert not missing, f"no {', '.join(missing)} (an earlier check failed)"
        return [ctx[n] for n in names] if len(names) > 1 else ctx[names[0]]

    def s1_blocks(confirmed: bool):
        """Stream 1's deliveries at receiver A, the first of each block."""
        out, seen = [], set()
        for d in a.deliveries(lambda d: d.stream_id == ctx.get("s1") and d.block_hash and d.confirmed is confirmed):
            if d.block_hash not in seen:
                seen.add(d.block_hash)
                out.append(d)
        return out

    def settings_default():
        settings = api.call("GET", "/settings")
        assert settings.get("secretKey") == KEY, (
            f"GET /settings secretKey {settings.get('secretKey')!r}: production's default is the API key "
            "(the Moralis SDK's verifySignature falls back to it)")
        assert isinstance(settings.get("region"), str) and settings["region"], f"region {settings.get('region')!r}"
        return f"region {settings['region']}"

    r.check("GET /settings: the secret is the API key until set", settings_default)

    def create_rejected():
        status, answer = api.call("PUT", "/streams/evm", stream_body(c.url, "rejected"), expect=None)
        assert status == 400, f"PUT /streams/evm to a receiver answering 500: HTTP {status} {answer}"
        assert isinstance(answer, dict) and answer.get("message") == rejected_message(c.url), (
            f"message {answer!r}, production's is {rejected_message(c.url)!r}")
        tests = c.deliveries(lambda d: d.is_test)
        assert tests, "the receiver got no test webhook"
        listed = api.call("GET", "/streams/evm?limit=100")
        assert not any(s["webhookUrl"] == c.url for s in listed["result"]), "the rejected stream was created anyway"
        return f"{len(tests)} test webhook(s) answered 500"

    r.check("PUT /streams/evm: a webhook that answers 500 to the test webhook: 400 'Could not POST to …', no stream",
            create_rejected)

    def create(receiver: WebhookReceiver, tag: str, name: str):
        before = len(receiver.deliveries())
        body = stream_body(receiver.url, tag)
        stream = api.call("PUT", "/streams/evm", body)
        for k in ("webhookUrl", "description", "tag", "chainIds", "topic0", "allAddresses", "includeContractLogs", "abi"):
            assert stream.get(k) == body[k], f"{k}: created {stream.get(k)!r}, sent {body[k]!r}"
        assert stream.get("status") == "active", f"status {stream.get('status')!r}"
        uuid.UUID(stream["id"])
        assert api.call("GET", f"/streams/evm/{stream['id']}") == stream, "GET /streams/evm/{id} differs from the create's answer"
        # The test webhook came before the answer.
        tests = [d for d in receiver.deliveries()[before:] if d.json is not None]
        assert tests and tests[0].is_test, f"no test webhook before the create's answer ({[d.summary() for d in tests]})"
        test = tests[0]
        assert sorted(test.json) == sorted(PAYLOAD_KEYS), f"test webhook fields {list(test.json)} != {PAYLOAD_KEYS}"
        assert test.json["block"] == {"number": "", "hash": "", "timestamp": ""}, f"test block {test.json['block']}"
        for k in ("logs", "txs", "txsInternal", "erc20Transfers", "erc20Approvals", "nftTransfers", "nftTokenApprovals",
                  "nativeBalances", "abi"):
            assert test.json[k] == [], f"test webhook {k}: {test.json[k]!r}, not []"
        assert test.json["nftApprovals"] == {"ERC721": [], "ERC1155": []}, f"nftApprovals {test.json['nftApprovals']}"
        assert test.signature, "the test webhook carries no x-signature"
        assert test.verifies_with(KEY), f"the test webhook's x-signature {test.signature} does not verify with the API key"
        ctx[name] = stream["id"]
        ctx[name + "_created"] = stream
        return f"stream {stream['id']}; test webhook signed, {len(test.body)} bytes"

    r.check("PUT /streams/evm (allAddresses, topic0 Transfer, ABI, includeContractLogs, 0x1): a signed test webhook first",
            lambda: create(a, "transfers-a", "s1"))
    r.check("PUT /streams/evm: a second stream, to a receiver that fails the first two attempts of each block",
            lambda: create(b, "transfers-b", "s2"))

    def deliveries_arrive():
        need("s1")
        a.wait_for(lambda d: d.stream_id == ctx["s1"] and d.block_hash and d.confirmed is False, timeout=40, count=4)
        got = s1_blocks(False)
        bad = [d.summary() for d in a.deliveries(lambda d: d.stream_id == ctx["s1"]) if not d.verifies_with(KEY)]
        assert not bad, f"{len(bad)} deliveries do not verify with the secret: {bad[:5]}"
        for d in got:
            assert sorted(d.json) == sorted(PAYLOAD_KEYS), f"{d.summary()}: fields {list(d.json)} != {PAYLOAD_KEYS}"
            assert d.json["chainId"] == "0x1", f"{d.summary()}: chainId {d.json['chainId']!r}"
            assert d.json["tag"] == "transfers-a" and d.json["retries"] == 0, f"{d.summary()}: tag/retries"
            assert d.json["abi"] == TRANSFER_ABI, f"{d.summary()}: abi {d.json['abi']} != the stream's"
            assert d.headers.get("content-type", "").startswith("application/json"), f"content-type {d.headers.get('content-type')}"
        numbers = [int(d.block["number"]) for d in got]
        assert numbers == sorted(numbers), f"unconfirmed blocks out of order: {numbers}"
        return f"{len(got)} blocks ({numbers[0]}…{numbers[-1]}), every x-signature verified"

    r.check("deliveries of new blocks arrive within 40 s, signed, in order", deliveries_arrive)

    def logs_match():
        got = s1_blocks(False)
        assert got, "no delivery (an earlier check failed)"
        compared, logs, nft = 0, 0, 0
        for d in got:
            compared += compare_block(api, d.json)
            compared += compare_logs(d.json, expected_logs(api, d.block_hash))
            compared += compare_erc20(d.json)
            logs += len(d.json["logs"])
            nft += sum(1 for x in d.json["logs"] if x["topic3"] is not None)
            assert d.json["logs"], f"{d.summary()}: delivered with no log"
        ctx["checked_blocks"] = len(got)
        return f"{len(got)} blocks, {logs} logs ({nft} with 4 topics), {compared} values"

    r.check("each delivered block's logs = eth_getLogs({blockHash, topics: [Transfer]}); block = eth_getBlockByNumber; "
            "erc20Transfers = the ERC20 logs", logs_match)

    def every_matching_block():
        got = s1_blocks(False)
        assert len(got) >= 2, "fewer than 2 deliveries (an earlier check failed)"
        delivered = {int(d.block["number"]) for d in got}
        first, last = min(delivered), max(delivered)
        with_logs = set()
        for n in range(first, last + 1):
            if api.rpc("eth_getLogs", [{"fromBlock": hex(n), "toBlock": hex(n), "topics": [TRANSFER]}]):
                with_logs.add(n)
        assert delivered == with_logs, (f"blocks {first}…{last}: delivered {sorted(delivered)}, "
                                        f"with Transfer logs {sorted(with_logs)}")
        return f"blocks {first}…{last}: {len(with_logs)} with Transfer logs, all delivered, none else"

    r.check("every block with a Transfer log is delivered, and no other", every_matching_block)

    def confirmed_later():
        unconfirmed = s1_blocks(False)[:4]
        assert unconfirmed, "no delivery (an earlier check failed)"
        compared = 0
        for u in unconfirmed:
            number = int(u.block["number"])
            [conf] = a.wait_for(lambda d, h=u.block_hash: d.stream_id == ctx["s1"] and d.block_hash == h
                                and d.confirmed is True, timeout=20)
            assert conf.seq > u.seq, f"block {number}: the confirmed delivery came before the unconfirmed one"
            assert without(conf.json, "confirmed") == without(u.json, "confirmed"), (
                f"block {number}: the confirmed payload differs from the unconfirmed one beyond `confirmed`")
            assert conf.verifies_with(KEY), f"block {number}: the confirmed delivery does not verify"
            sample = sampler.head_after(conf.at)
            assert sample, "no eth_blockNumber sample after the confirmed delivery"
            assert sample[1] >= number + CONFIRMATIONS, (
                f"block {number} confirmed when the head was at most {sample[1]} (--confirmations {CONFIRMATIONS})")
            compared += 1
        unconfirmed_again = [d for d in a.deliveries(lambda d: d.stream_id == ctx["s1"] and d.block_hash)
                             if d.confirmed is False]
        twice = len(unconfirmed_again) - len({d.block_hash for d in unconfirmed_again})
        assert twice == 0, f"{twice} unconfirmed deliveries repeated"
        return f"{compared} blocks: unconfirmed, then the same payload confirmed with the head {CONFIRMATIONS}+ blocks on"

    r.check(f"each block comes unconfirmed, then confirmed once the chain is {CONFIRMATIONS} blocks on", confirmed_later)

    def block_data():
        got = s1_blocks(False)
        assert got, "no delivery (an earlier check failed)"
        d = got[0]
        number = d.block["number"]
        request = {k: v for k, v in stream_body(a.url, "transfers-a").items()
                   if k not in ("webhookUrl", "description", "chainIds")}
        preview = api.call("POST", f"/streams/evm/0x1/block/{number}", request)
        assert preview.get("confirmed") is False, f"confirmed {preview.get('confirmed')!r}"
        same = without(d.json, "streamId")
        assert without(preview, "streamId") == same, (
            f"the block's payload for the same settings differs from the delivery: "
            f"{ {k: (preview.get(k), same.get(k)) for k in same if preview.get(k) != same.get(k)} }")
        return f"block {number}: {len(preview['logs'])} logs, the same payload"

    r.check("POST /streams/evm/0x1/block/{n} with the stream's settings = the delivered payload", block_data)

    def retried():
        need("s2")
        [third] = b.wait_for(lambda d: d.stream_id == ctx["s2"] and d.block_hash and d.attempt == 3, timeout=45)
        attempts = b.deliveries(lambda d: d.key() == third.key())
        assert [d.attempt for d in attempts] == [1, 2, 3], f"attempts {[d.summary() for d in attempts]}"
        assert [d.status for d in attempts] == [500, 500, 200], f"answered {[d.status for d in attempts]}"
        assert [d.json["retries"] for d in attempts] == [0, 1, 2], f"retries {[d.json['retries'] for d in attempts]}"
        for d in attempts:
            assert d.verifies_with(KEY) or d.verifies_with(ctx.get("new_secret") or KEY), f"{d.summary()}: does not verify"
            assert without(d.json, "retries") == without(attempts[0].json, "retries"), "the attempts' payloads differ"
        waits = [round(y.at - x.at, 2) for x, y in zip(attempts, attempts[1:])]
        assert all(w >= RETRY_WAIT * 0.9 for w in waits), f"retried after {waits} s, --stream-retries {RETRY_WAIT}s,{RETRY_WAIT}s"
        more = b.deliveries(lambda d: d.key() == third.key() and d.attempt > 3)
        assert not more, f"delivered again after the success: {[d.summary() for d in more]}"
        number = int(third.block["number"])

        def logged():
            found, cursor = [], None
            for _ in range(20):
                page = api.call("GET", "/history/logs?limit=100" + (f"&cursor={cursor}" if cursor else ""))
                found += [x for x in page["result"] if x["streamId"] == ctx["s2"] and x["blockNumber"] == number]
                cursor = page.get("cursor")
                if not cursor:
                    break
            return found

        entries = logged()
        # One delivery id per payload (unconfirmed, confirmed): its attempts, oldest first.
        by_delivery: dict[str, list] = {}
        for x in entries:
            by_delivery.setdefault(x["id"], []).append(x)
        shown = []
        complete = 0
        for attempts_logged in by_delivery.values():
            attempts_logged.sort(key=lambda x: (x["retries"], x["createdAt"]))
            seen = [(x["retries"], x.get("statusCode"), x["deliveryStatus"]) for x in attempts_logged]
            shown.append(seen)
            if len(seen) == 3:
                assert seen[:2] == [(0, 500, "failed"), (1, 500, "failed")] and seen[2][:2] == (2, 200) \
                    and seen[2][2] == "success", f"GET /history/logs, stream 2, block {number}: {seen}"
                for x in attempts_logged[:2]:
                    assert x["webhookUrl"] == b.url and x["chain"] == "0x1", f"{x}"
                    assert x["errorMessage"], f"a failed attempt logged without an errorMessage: {x}"
                complete += 1
        assert complete, (f"GET /history/logs, stream 2, block {number}: no delivery logged as 500, 500, then 200 "
                          f"with retries 0, 1, 2 ({shown})")
        ctx["s2_block"] = third
        return (f"block {number}: 500, 500 (waits {waits} s), then 200 with retries 2; "
                f"logged: {shown}")

    r.check("a receiver that fails twice gets the third attempt with retries 2; GET /history/logs shows the 500s",
            retried, timeout=90)

    def update():
        s1 = need("s1")
        before = len(a.deliveries())
        changed = api.call("POST", f"/streams/evm/{s1}", {"description": "streams checks (changed)"})
        assert changed["description"] == "streams checks (changed)", f"description {changed['description']!r}"
        assert changed["id"] == s1 and changed["webhookUrl"] == a.url, "the update changed more than the description"
        tests = [d for d in a.deliveries()[before:] if d.is_test]
        assert tests, "the update posted no test webhook"
        assert tests[0].verifies_with(KEY), "the update's test webhook does not verify"
        status, answer = api.call("POST", f"/streams/evm/{s1}", {"webhookUrl": c.url}, expect=None)
        assert status == 400, f"an update to a webhook answering 500: HTTP {status} {answer}"
        assert isinstance(answer, dict) and answer.get("message") == rejected_message(c.url), f"message {answer!r}"
        kept = api.call("GET", f"/streams/evm/{s1}")
        assert kept["webhookUrl"] == a.url, f"the rejected update changed webhookUrl to {kept['webhookUrl']}"
        return "test webhook signed; a failing webhookUrl refused with 400, the stream unchanged"

    r.check("POST /streams/evm/{id}: a signed test webhook; a webhook answering 500 refuses the update", update)

    def addresses_and_duplicate():
        with WebhookReceiver(secret=KEY) as d:
            body = {"webhookUrl": d.url, "description": "streams checks (addresses)", "tag": "addresses",
                    "chainIds": ["0x1", "0x89"], "includeNativeTxs": True}
            sid = api.call("PUT", "/streams/evm", body)["id"]
            ids = [sid]
            try:
                w = [f"0x{n:040x}" for n in (0xA1, 0xB2, 0xC3)]

                def listed(stream=sid):
                    return sorted(x["address"] for x in api.call("GET", f"/streams/evm/{stream}/address?limit=10")["result"])

                added = api.call("POST", f"/streams/evm/{sid}/address", {"address": w[:2]})
                assert added == {"streamId": sid, "address": w[:2]}, f"POST address answered {added}"
                assert listed() == w[:2], f"after POST: {listed()}"
                single = api.call("POST", f"/streams/evm/{sid}/address", {"address": w[2]})
                assert single == {"streamId": sid, "address": w[2]}, f"POST one address (a string) answered {single}"
                replaced = api.call("PATCH", f"/streams/evm/{sid}/address", {"address": [w[1]]})
                assert replaced.get("streamId") == sid, f"PATCH address answered {replaced}"
                assert listed() == [w[1]], f"after PATCH [{w[1]}]: {listed()}"
                copy = api.call("POST", f"/streams/evm/{sid}/duplicate")
                ids.append(copy["id"])
                assert copy["id"] != sid, "the duplicate has the same id"
                original = api.call("GET", f"/streams/evm/{sid}")
                differ = {k: (copy.get(k), v) for k, v in original.items()
                          if k not in ("id", "updatedAt") and copy.get(k) != v}
                assert not differ, f"the duplicate differs from the stream: {differ}"
                copied = listed(copy["id"])
                assert copied == [w[1]], f"the duplicate watches {copied}"
                removed = api.call("DELETE", f"/streams/evm/{sid}/address", {"address": [w[1]]})
                assert removed.get("streamId") == sid, f"DELETE address answered {removed}"
                assert listed() == [], f"after DELETE: {listed()}"
                assert api.call("GET", f"/streams/evm/{sid}")["amountOfAddresses"] == 0, "amountOfAddresses is not 0"
                paged = api.call("GET", "/streams/evm?limit=1")
                assert len(paged["result"]) == 1 and paged.get("cursor"), f"GET /streams/evm?limit=1 of 4: {paged}"
            finally:
                for i in ids:
                    http_json("DELETE", f"{api.base}/streams/evm/{i}", KEY)
            return "POST [2] and one, PATCH [1], duplicate (same settings, same addresses), DELETE: as listed"

    r.check("/streams/evm/{id}/address POST, PATCH, DELETE, GET and POST /streams/evm/{id}/duplicate",
            addresses_and_duplicate)

    def new_secret():
        s1 = need("s1")
        secret = "w3api-streams-" + secrets.token_hex(12)
        answer = api.call("POST", "/settings", {"secretKey": secret})
        changed_at = time.monotonic()
        assert answer.get("secretKey") == secret, f"POST /settings answered {answer}"
        assert api.call("GET", "/settings").get("secretKey") == secret, "GET /settings does not show the new secret"
        ctx["secrets"].append((changed_at, secret))
        ctx["new_secret"] = secret
        # Deliveries made from now on are signed with the new secret.
        later = a.wait_for(lambda d: d.stream_id == s1 and d.block_hash and d.at > changed_at + 0.5, timeout=30, count=3)
        for d in later:
            assert d.verifies_with(secret), f"{d.summary()}: does not verify with the new secret"
            assert not d.verifies_with(KEY), f"{d.summary()}: still verifies with the old secret"
        return f"{len(later)} deliveries after the change verify with the new secret, not the old"

    r.check("POST /settings {secretKey}: later deliveries are signed with the new secret", new_secret)

    def stats():
        s1, s2 = need("s1", "s2")
        first = api.call("GET", "/stats")
        a.wait_for(lambda d: d.stream_id == s1 and d.block_hash, timeout=30,
                   count=len(a.deliveries(lambda d: d.stream_id == s1 and d.block_hash)) + 2)
        second = wait_until("GET /stats to count the new deliveries",
                            lambda: (lambda s: s if s["totalWebhooksDelivered"] > first["totalWebhooksDelivered"] else None)(
                                api.call("GET", "/stats")), timeout=10)
        assert second["totalLogsProcessed"] > first["totalLogsProcessed"], "totalLogsProcessed did not grow"
        # Paused, the totals settle: they agree with each other and with the receivers.
        for sid in (s1, s2):
            paused = api.call("POST", f"/streams/evm/{sid}/status", {"status": "paused"})
            assert paused["status"] == "paused", f"status {paused['status']!r}"
        previous = None
        settled = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = api.call("GET", "/stats")
            if now == previous:
                settled = now
                break
            previous = now
            time.sleep(2.5)
        assert settled, "GET /stats still changes 20 s after both streams were paused"
        entries = {e["streamId"]: e for e in settled.get("streams") or []}
        assert {s1, s2} <= set(entries), f"GET /stats lists streams {sorted(entries)}"
        for k in ("totalWebhooksDelivered", "totalWebhooksFailed", "totalLogsProcessed", "totalTxsProcessed",
                  "totalTxsInternalProcessed"):
            assert settled[k] == sum(e[k] for e in entries.values()), f"{k} {settled[k]} is not the sum over the streams"
        for sid, receiver in ((s1, a), (s2, b)):
            one = api.call("GET", f"/stats/{sid}")
            assert without(one, "streams") == without(entries[sid], "streamId"), f"GET /stats/{sid} {one} != {entries[sid]}"
            assert one.get("streams") in (None, [entries[sid]]), f"GET /stats/{sid} streams {one.get('streams')}"
            ok = receiver.deliveries(lambda d, sid=sid: d.stream_id == sid and d.block_hash and d.status == 200)
            assert entries[sid]["totalWebhooksDelivered"] == len(ok), (
                f"stream {sid[:8]}: totalWebhooksDelivered {entries[sid]['totalWebhooksDelivered']}, "
                f"the receiver answered 200 to {len(ok)} deliveries")
            logs = sum(len(d.json["logs"]) for d in ok)
            assert entries[sid]["totalLogsProcessed"] == logs, (
                f"stream {sid[:8]}: totalLogsProcessed {entries[sid]['totalLogsProcessed']}, the deliveries carried {logs}")
        failed = len(b.deliveries(lambda d: d.stream_id == s2 and d.block_hash and d.status == 500))
        for sid in (s1, s2):
            assert api.call("POST", f"/streams/evm/{sid}/status", {"status": "active"})["status"] == "active"
        return (f"delivered {first['totalWebhooksDelivered']} → {settled['totalWebhooksDelivered']}; stream 2: "
                f"totalWebhooksFailed {entries[s2]['totalWebhooksFailed']} (the receiver answered 500 {failed} times)")

    r.check("GET /stats totals grow; paused, they add up, match GET /stats/{id} and what the receivers got", stats,
            timeout=90)

    def history_payloads():
        s1 = need("s1")
        items = api.call("GET", f"/history?limit=20&streamId={s1}")["result"]
        assert items, "GET /history lists no delivery of stream 1"
        by_key = {}
        for d in a.deliveries(lambda d: d.stream_id == s1 and d.block_hash):
            by_key.setdefault(d.key(), d)
        compared = 0
        for item in items:
            assert item["streamId"] == s1, f"history item of stream {item['streamId']}"
            assert item["webhookUrl"] == a.url and item["errorMessage"] == "", f"history item {item}"
            payload = item.get("payload")
            assert payload, f"history item {item['id']} has no payload"
            key = (s1, payload["block"]["hash"], payload["confirmed"])
            if key in by_key:
                assert payload == by_key[key].json, f"history {item['id']}: the payload differs from the one delivered"
                compared += 1
        assert compared, "no history item is one of the deliveries received"
        ctx["history"] = (items, by_key)
        return f"{compared} of {len(items)} history payloads are deliveries received, byte for byte as JSON"

    r.check("GET /history?streamId: the payloads delivered", history_payloads)

    def tiny_payloads():
        items, _ = need("history")
        wrong = []
        for item in items:
            payload = item["payload"]
            records = len(payload["logs"]) + len(payload["txs"]) + len(payload["txsInternal"])
            expected = {"chainId": payload["chainId"], "confirmed": payload["confirmed"],
                        "block": payload["block"]["number"], "records": records, "retries": payload["retries"]}
            if item.get("tinyPayload") != expected:
                wrong.append(f"{item['id'][:8]}: tinyPayload {item.get('tinyPayload')} != {expected}")
        assert not wrong, (f"{len(wrong)} of {len(items)} history items do not summarise their payload (the spec's "
                           "example: retries 0 for a delivery made at the first attempt, whose payload says retries 0):"
                           "\n" + "\n".join(wrong[:3]))
        return f"{len(items)} items"

    r.check("GET /history: each tinyPayload summarises its payload (chainId, confirmed, block, records, retries)",
            tiny_payloads)

    def replay():
        s1 = need("s1")
        items, by_key = need("history")
        secret = ctx["secrets"][-1][1]
        item = next(i for i in items if (s1, i["payload"]["block"]["hash"], i["payload"]["confirmed"]) in by_key)
        key = (s1, item["payload"]["block"]["hash"], item["payload"]["confirmed"])
        count = len(a.deliveries(lambda d: d.key() == key))
        replayed = api.call("POST", f"/history/replay/{s1}/{item['id']}")
        assert replayed["id"] == item["id"] and replayed["streamId"] == s1, f"replay answered {replayed}"
        [again] = a.wait_for(lambda d: d.key() == key, timeout=15, count=count + 1)[count:]
        first = by_key[key].json
        # The replay is one more attempt of the delivery: its retries may count it.
        assert without(again.json, "retries") == without(first, "retries"), (
            f"the replayed payload differs from the one delivered: "
            f"{ {k: (again.json.get(k), v) for k, v in first.items() if again.json.get(k) != v} }")
        assert again.json["retries"] >= first["retries"], f"replayed with retries {again.json['retries']}"
        assert again.verifies_with(secret), "the replayed delivery does not verify with the current secret"
        status, answer = api.call("POST", f"/history/replay/{s1}/{uuid.uuid4()}", expect=None)
        assert status == 404, f"replay of an unknown delivery: HTTP {status} {answer}"
        return (f"block {item['payload']['block']['number']} sent again, the same payload (retries "
                f"{first['retries']} → {again.json['retries']}), signed; an unknown id: 404")

    r.check("POST /history/replay/{stream}/{id} sends the delivery again", replay)

    def every_signature():
        changes = ctx["secrets"]
        total, checked = 0, 0
        for receiver in (a, b, c):
            for d in receiver.deliveries():
                total += 1
                assert d.signature and d.signature.startswith("0x") and len(d.signature) == 66, (
                    f"{d.summary()}: x-signature {d.signature!r}")
                in_force = [s for at, s in changes if at <= d.at]
                # Right at a change, either secret.
                near = [s for at, s in changes if abs(d.at - at) < 0.5]
                if not any(d.verifies_with(s) for s in {in_force[-1], *near}):
                    raise AssertionError(f"{d.summary()}: x-signature {d.signature} verifies with no secret in force")
                checked += 1
        return f"{checked} of {total} requests verified (keccak256(body + secret), pycryptodome)"

    r.check("every request to every receiver carries an x-signature that verifies", every_signature)

    def delete():
        for name in ("s1", "s2"):
            sid = need(name)
            gone = api.call("DELETE", f"/streams/evm/{sid}")
            assert gone["id"] == sid, f"DELETE answered {gone}"
            status, answer = api.call("GET", f"/streams/evm/{sid}", expect=None)
            assert status == 404, f"GET a deleted stream: HTTP {status} {answer}"
        left = api.call("GET", "/streams/evm?limit=100")
        assert left["result"] == [] and left.get("total") == 0, f"streams left: {left}"
        return "both streams deleted"

    r.check("DELETE /streams/evm/{id}: gone (404), none listed", delete)


if __name__ == "__main__":
    sys.exit(main())
