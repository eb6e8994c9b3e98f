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
  holds the payloads delivered, and a replay sends one again;
- production's filters, with every stream paused (a third one on 0x89 added
  for them): GET /streams/evm `status`; GET /history `streamId`,
  `transactionHash`, `chainId`, `blockNumber`, `fromTimestamp`,
  `toTimestamp`; GET /history/logs those and `deliveryStatus`. Each answer
  (every page, the filters repeated with the cursor; arrays as repeated keys,
  `name[]=` and `name[0]=` alike) is what the filter selects from the
  unfiltered answer, which it must narrow, and agrees with what the receivers
  got (the deliveries carrying a transaction, the 500s answered); an unknown
  value is a 400 naming the parameter;
- the official Python SDK (PyPI `moralis` 0.1.49, streams.history.get_history,
  streams.logs.get_logs, streams.evm_streams.get_streams) cannot send those
  filters: each function keeps only the keys of its bundled
  RequestQueryParams (limit, cursor, and excludePayload for the history) and
  drops the rest without a word, so its answer is the unfiltered one
  (checked: a newer SDK that sends them is noticed); what it can send,
  excludePayload, is compared with the raw answer.

usage: W3API_BIN=target/debug/w3api streams_checks.py
"""

from __future__ import annotations

import calendar
import itertools
import re
import secrets
import sys
import threading
import time
import urllib.parse
import uuid

import openapi_streams
from moralis import streams as sdk_streams

from pylib import Runner, Server, expect_same, http_json
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


def point_sdk_at(base_url: str) -> None:
    """The Moralis SDK's streams calls go to base_url: each builds a fresh
    openapi_streams Configuration, whose host is the first of its host
    settings (production's, hard-coded), as in moralis_py_checks.py."""
    openapi_streams.Configuration.get_host_settings = (
        lambda self: [{"url": base_url, "description": "w3api serve"}])


def with_query(path: str, params: dict, arrays: str = "repeated") -> str:
    """path?query; an array as repeated keys (production's form), `name[]=`
    (`brackets`) or `name[0]=` (`indexed`)."""
    pairs = []
    for k, v in params.items():
        if v is None:
            continue
        if isinstance(v, list):
            names = {"repeated": lambda i: k, "brackets": lambda i: f"{k}[]", "indexed": lambda i: f"{k}[{i}]"}[arrays]
            pairs += [(names(i), str(item)) for i, item in enumerate(v)]
        else:
            pairs.append((k, str(v).lower() if isinstance(v, bool) else str(v)))
    return f"{path}?{urllib.parse.urlencode(pairs)}"


def listing(api: Api, path: str, params: dict, arrays: str = "repeated", limit: int = 100) -> list[dict]:
    """Every item of a listing with these parameters, following the cursors
    (each next page asked with the same parameters); the pages must add up
    to the total."""
    items, cursor = [], None
    for _ in range(200):
        page = api.call("GET", with_query(path, {"limit": limit, **params, "cursor": cursor}, arrays))
        items += page["result"]
        cursor = page.get("cursor")
        if not cursor:
            assert page["total"] == len(items), f"{path} {params}: total {page['total']}, {len(items)} items on the pages"
            return items
    raise AssertionError(f"{path} {params}: more than 200 pages")


RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z")


def millis(text: str) -> int:
    """An RFC 3339 UTC time (`…Z`) in Unix milliseconds."""
    m = RFC3339.fullmatch(text)
    assert m, f"{text!r} is not an RFC 3339 UTC time"
    seconds = calendar.timegm(tuple(int(x) for x in m.groups()[:6]))
    return seconds * 1000 + int(((m.group(7) or "") + "000")[:3])


def history_key(h: dict) -> str:
    return h["id"]


def log_key(x: dict) -> tuple:
    return (x["id"], x["retries"], x["createdAt"])


def carries(tx: str):
    """Whether a history item's payload carries the transaction (txs, logs, txsInternal)."""
    return lambda h: any((x.get("hash") or x.get("transactionHash")) == tx
                         for k in ("txs", "logs", "txsInternal") for x in h["payload"][k])


def same_items(got: list[dict], expected: list[dict], key, what: str) -> int:
    g, e = [key(x) for x in got], [key(x) for x in expected]
    assert g == e, f"{what}: {len(g)} items ({g[:3]}…), expected the {len(e)} selected ({e[:3]}…)"
    return len(g)


def main() -> int:
    receivers: list[WebhookReceiver] = []
    server = None
    sampler = None
    try:
        # A: answers 200; B: 500 to the first two attempts of each block; C: always 500.
        a = WebhookReceiver(secret=KEY)
        b = WebhookReceiver(secret=KEY, fail_first=2)
        c = WebhookReceiver(secret=KEY, fail_first=10**9, fail_tests=True)
        # D: answers 200, for a stream on 0x89 (the filters' checks).
        d = WebhookReceiver()
        receivers += [a, b, c, d]
        server = Server(["--api-key", KEY, "--block-time", "1s", "--confirmations", str(CONFIRMATIONS),
                         "--stream-retries", f"{RETRY_WAIT:.0f}s,{RETRY_WAIT:.0f}s"])
        api = Api(server.url, KEY)
        point_sdk_at(server.url)
        sampler = HeadSampler(api)
        run_checks(api, sampler, a, b, c, d)
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


def run_checks(api: Api, sampler: HeadSampler, a: WebhookReceiver, b: WebhookReceiver, c: WebhookReceiver,
               d: WebhookReceiver) -> None:
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

    filter_checks(api, ctx, need, b, d)

    def delete():
        names = ("s1", "s2", "s3") if "s3" in ctx else ("s1", "s2")
        for name in names:
            sid = need(name)
            gone = api.call("DELETE", f"/streams/evm/{sid}")
            assert gone["id"] == sid, f"DELETE answered {gone}"
            status, answer = api.call("GET", f"/streams/evm/{sid}", expect=None)
            assert status == 404, f"GET a deleted stream: HTTP {status} {answer}"
        left = api.call("GET", "/streams/evm?limit=100")
        assert left["result"] == [] and left.get("total") == 0, f"streams left: {left}"
        return f"{len(names)} streams deleted"

    r.check("DELETE /streams/evm/{id}: gone (404), none listed", delete)


def filter_checks(api: Api, ctx: dict, need, b: WebhookReceiver, d: WebhookReceiver) -> None:
    """Production's filters of GET /streams/evm, /history and /history/logs,
    with every stream paused (their answers hold still), and what the SDK
    does with them."""

    def setup():
        s1, s2 = need("s1", "s2")
        body = {**stream_body(d.url, "transfers-polygon"), "chainIds": ["0x89"]}
        s3 = api.call("PUT", "/streams/evm", body)["id"]
        ctx["s3"] = s3
        d.wait_for(lambda x: x.stream_id == s3 and x.block_hash, timeout=30, count=3)
        for sid in (s1, s2, s3):
            assert api.call("POST", f"/streams/evm/{sid}/status", {"status": "paused"})["status"] == "paused"

        def totals():
            return (api.call("GET", "/history?limit=1&excludePayload=true")["total"],
                    api.call("GET", "/history/logs?limit=1")["total"], api.call("GET", "/stats"))

        previous = None
        deadline = time.monotonic() + 30
        while True:
            now = totals()
            if now == previous:
                break
            assert time.monotonic() < deadline, "the history still changes 30 s after every stream was paused"
            previous = now
            time.sleep(2.5)
        everything = listing(api, "/history", {})
        logs = listing(api, "/history/logs", {})
        assert totals() == now, "the history changed while it was read"
        chains = sorted({h["payload"]["chainId"] for h in everything})
        assert chains == ["0x1", "0x89"], f"deliveries of chains {chains}"
        failed = sum(1 for x in logs if x["deliveryStatus"] == "failed")
        assert failed, "no failed attempt (receiver B fails the first two of each block)"
        ctx["all"], ctx["all_logs"] = everything, logs
        return (f"stream 3 on 0x89; all paused: {len(everything)} deliveries ({', '.join(chains)}), "
                f"{len(logs)} attempts ({failed} failed)")

    r.check("filters: a stream on 0x89 too; every stream paused, the history and attempts hold still", setup,
            timeout=120)

    def sdk_exclude_payload():
        need("all")
        sdk = sdk_streams.history.get_history(api_key=KEY, params={"limit": 10, "excludePayload": True})
        raw = api.call("GET", "/history?limit=10&excludePayload=true")
        cmp = expect_same(sdk, raw, "history")
        full = api.call("GET", "/history?limit=10")["result"]
        assert len(full) == 10 and all("payload" in h for h in full), "the page without excludePayload has no payloads"
        assert len(raw["result"]) == 10 and not any("payload" in h for h in raw["result"]), "payloads left"
        same_items(raw["result"], full, history_key, "the same deliveries")
        return cmp

    r.check("streams.history.get_history excludePayload (a parameter the SDK sends) = raw: no payloads",
            sdk_exclude_payload)

    def sdk_drops_filters():
        everything, logs = need("all", "all_logs")
        s3 = need("s3")
        tx = next(h for h in everything if h["streamId"] == s3 and h["payload"]["logs"])["payload"]["logs"][0]["transactionHash"]
        block = int(everything[0]["tinyPayload"]["block"])
        calls = [
            (sdk_streams.history.get_history, "/history", {"streamId": s3}),
            (sdk_streams.history.get_history, "/history", {"transactionHash": tx}),
            (sdk_streams.history.get_history, "/history", {"chainId": ["0x89"]}),
            (sdk_streams.history.get_history, "/history", {"blockNumber": [block]}),
            (sdk_streams.history.get_history, "/history", {"fromTimestamp": int(time.time()) + 3600}),
            (sdk_streams.history.get_history, "/history", {"toTimestamp": 1}),
            (sdk_streams.logs.get_logs, "/history/logs", {"deliveryStatus": ["failed"]}),
            (sdk_streams.logs.get_logs, "/history/logs", {"streamId": s3}),
            (sdk_streams.logs.get_logs, "/history/logs", {"chainId": ["0x89"]}),
            (sdk_streams.evm_streams.get_streams, "/streams/evm", {"status": "active"}),
        ]
        compared = 0
        for fn, path, filt in calls:
            what = f"{fn.__name__}({filt})"
            sdk = fn(api_key=KEY, params={"limit": 20, **filt})
            unfiltered = api.call("GET", f"{path}?limit=20")
            filtered = api.call("GET", with_query(path, {"limit": 20, **filt}))
            assert filtered["total"] < unfiltered["total"], f"{what}: the filter does not narrow the raw answer"
            compared += expect_same(sdk, unfiltered, what).compared
        return f"{len(calls)} calls answered as if unfiltered ({compared} values)"

    r.check("moralis 0.1.49 drops production's filters: get_history, get_logs, get_streams answer unfiltered",
            sdk_drops_filters)

    def history_transaction():
        everything, s3 = need("all", "s3")
        item = next((h for h in everything if h["streamId"] == s3 and h["payload"]["logs"]), None)
        assert item, "no delivery of stream 3 with a log"
        tx = item["payload"]["logs"][0]["transactionHash"]
        expected = [h for h in everything if carries(tx)(h)]
        assert 0 < len(expected) < len(everything), f"{len(expected)} of {len(everything)} deliveries carry {tx}"
        same_items(listing(api, "/history", {"transactionHash": tx}, limit=1), expected, history_key, tx)
        same_items(listing(api, "/history", {"transactionHash": "0x" + tx[2:].upper()}), expected, history_key,
                   "the hash in capitals")
        same_items(listing(api, "/history", {"transactionHash": "0x" + "00" * 31 + "01"}), [], history_key,
                   "a hash nobody sent")
        # What the receiver got: the same deliveries.
        received = {x.key() for x in d.deliveries(lambda x: x.block_hash and carries(tx)({"payload": x.json}))}
        listed = {(h["streamId"], h["payload"]["block"]["hash"], h["payload"]["confirmed"]) for h in expected}
        assert listed == received, f"listed {sorted(listed)}, receiver D got {sorted(received)}"
        ctx["tx"] = (tx, {h["id"] for h in expected})
        return f"{len(expected)} of {len(everything)} deliveries carry {tx[:10]}…, as receiver D got them"

    r.check("GET /history?transactionHash: only the deliveries carrying it (every page, limit 1)", history_transaction)

    def history_chain_block_stream():
        everything, s1, s2 = need("all", "s1", "s2")
        polygon = [h for h in everything if h["payload"]["chainId"] == "0x89"]
        assert 0 < len(polygon) < len(everything), f"{len(polygon)} of {len(everything)} deliveries on 0x89"
        for arrays in ("repeated", "brackets", "indexed"):
            same_items(listing(api, "/history", {"chainId": ["0x89"]}, arrays), polygon, history_key, f"0x89 ({arrays})")
        same_items(listing(api, "/history", {"chainId": ["0x1", "0x89"]}), everything, history_key, "0x1, 0x89")
        same_items(listing(api, "/history", {"chainId": ["0x38"]}), [], history_key, "0x38")
        eth_blocks = sorted({int(h["tinyPayload"]["block"]) for h in everything if h["payload"]["chainId"] == "0x1"})
        blocks = [eth_blocks[0], eth_blocks[-1]]
        of_blocks = [h for h in everything if int(h["tinyPayload"]["block"]) in blocks]
        assert 0 < len(of_blocks) < len(everything), f"{len(of_blocks)} of {len(everything)} deliveries of blocks {blocks}"
        for arrays in ("repeated", "brackets", "indexed"):
            same_items(listing(api, "/history", {"blockNumber": blocks}, arrays, limit=2), of_blocks, history_key,
                       f"blocks {blocks} ({arrays})")
        same_items(listing(api, "/history", {"blockNumber": blocks, "chainId": ["0x1"], "streamId": s2}),
                   [h for h in of_blocks if h["payload"]["chainId"] == "0x1" and h["streamId"] == s2], history_key,
                   "the blocks, 0x1, stream 2")
        of_s1 = [h for h in everything if h["streamId"] == s1]
        same_items(listing(api, "/history", {"streamId": s1}), of_s1, history_key, "stream 1")
        same_items(listing(api, "/history", {"streamId": s1, "chainId": ["0x89"]}), [], history_key, "stream 1 on 0x89")
        return (f"0x89: {len(polygon)}, blocks {blocks}: {len(of_blocks)}, stream 1: {len(of_s1)} "
                f"of {len(everything)} deliveries")

    r.check("GET /history?chainId, blockNumber (arrays, each form), streamId, and together", history_chain_block_stream)

    def history_times():
        everything = need("all")
        at = [millis(h["date"]) for h in everything]
        t = at[len(at) // 2]
        seconds = t // 1000
        cases = [
            ({"fromTimestamp": t}, lambda x: x >= t),
            ({"toTimestamp": t}, lambda x: x <= t),
            ({"fromTimestamp": t, "toTimestamp": t}, lambda x: x == t),
            ({"fromTimestamp": seconds}, lambda x: x >= seconds * 1000),
            ({"toTimestamp": seconds}, lambda x: x <= seconds * 1000),
            ({"fromTimestamp": int(time.time()) + 3600}, lambda x: False),
            ({"toTimestamp": min(at) // 1000 - 1}, lambda x: False),
        ]
        sizes = []
        for bounds, select in cases:
            expected = [h for h, x in zip(everything, at) if select(x)]
            sizes.append(same_items(listing(api, "/history", bounds), expected, history_key, str(bounds)))
        assert all(0 < n < len(everything) for n in sizes[:5]), f"selected {sizes} of {len(everything)}: no bound narrows"
        return f"{sizes} of {len(everything)} deliveries"

    r.check("GET /history?fromTimestamp, toTimestamp (when queued; seconds or milliseconds; inclusive)", history_times)

    def logs_status():
        logs, s1, s2 = need("all_logs", "s1", "s2")
        failed = [x for x in logs if x["deliveryStatus"] == "failed"]
        succeeded = [x for x in logs if x["deliveryStatus"] == "success"]
        assert 0 < len(failed) < len(logs), f"{len(failed)} of {len(logs)} attempts failed"
        same_items(listing(api, "/history/logs", {"deliveryStatus": ["failed"]}), failed, log_key, "failed")
        same_items(listing(api, "/history/logs", {"deliveryStatus": ["success"]}, "brackets"), succeeded, log_key, "success")
        same_items(listing(api, "/history/logs", {"deliveryStatus": ["failed", "success"]}), logs, log_key, "both")
        wrong = [x for x in failed if x["streamId"] != s2 or x["statusCode"] != 500]
        assert not wrong, f"failed attempts not of stream 2 (receiver B) answered 500: {wrong[:2]}"
        answered = b.deliveries(lambda x: x.stream_id == s2 and x.block_hash and x.status == 500)
        assert len(failed) == len(answered), f"{len(failed)} failed attempts listed, receiver B answered 500 {len(answered)} times"
        same_items(listing(api, "/history/logs", {"deliveryStatus": ["failed"], "streamId": s1}), [], log_key,
                   "failed attempts of stream 1 (receiver A answers 200)")
        return f"failed: {len(failed)} (receiver B's 500s), success: {len(succeeded)}, of {len(logs)} attempts"

    r.check("GET /history/logs?deliveryStatus: failed: the attempts receiver B answered 500; success: the rest",
            logs_status)

    def logs_filters():
        logs, s3 = need("all_logs", "s3")
        tx, deliveries = need("tx")
        block = next(x["blockNumber"] for x in logs if x["chain"] == "0x1")
        at = [millis(x["createdAt"]) for x in logs]
        t = at[len(at) // 2]
        cases = [
            ({"streamId": s3}, lambda x, _: x["streamId"] == s3),
            ({"transactionHash": tx}, lambda x, _: x["id"] in deliveries),
            ({"chainId": ["0x89"]}, lambda x, _: x["chain"] == "0x89"),
            ({"blockNumber": [block]}, lambda x, _: x["blockNumber"] == block),
            ({"blockNumber": [block], "chainId": ["0x1"]}, lambda x, _: x["blockNumber"] == block and x["chain"] == "0x1"),
            ({"fromTimestamp": t}, lambda x, ms: ms >= t),
            ({"toTimestamp": t}, lambda x, ms: ms <= t),
            ({"fromTimestamp": t, "toTimestamp": t}, lambda x, ms: ms == t),
        ]
        sizes = []
        for filt, select in cases:
            expected = [x for x, ms in zip(logs, at) if select(x, ms)]
            assert 0 < len(expected) < len(logs), f"{filt}: {len(expected)} of {len(logs)} attempts"
            sizes.append(same_items(listing(api, "/history/logs", filt), expected, log_key, str(filt)))
        same_items(listing(api, "/history/logs", {"fromTimestamp": int(time.time()) + 3600}), [], log_key, "the future")
        return f"{sizes} of {len(logs)} attempts"

    r.check("GET /history/logs?streamId, transactionHash, chainId, blockNumber, fromTimestamp, toTimestamp",
            logs_filters)

    def unknown_values():
        cases = [
            ("/streams/evm", {"status": "stopped"}, "status"),
            ("/history", {"transactionHash": "0x1234"}, "transactionHash"),
            ("/history", {"chainId": ["0x1", "nochain"]}, "chainId"),
            ("/history", {"blockNumber": ["12", "twelve"]}, "blockNumber"),
            ("/history", {"fromTimestamp": "yesterday"}, "fromTimestamp"),
            ("/history", {"toTimestamp": -5}, "toTimestamp"),
            ("/history/logs", {"deliveryStatus": ["failed", "pending"]}, "deliveryStatus"),
            ("/history/logs", {"streamId": "stream-1"}, "streamId"),
        ]
        said = []
        for path, params, name in cases:
            status, answer = api.call("GET", with_query(path, {"limit": 10, **params}), expect=None)
            messages = answer.get("message") if isinstance(answer, dict) else None
            messages = messages if isinstance(messages, list) else [messages]
            named = [m for m in messages if isinstance(m, str) and m.startswith(f"{name}:")]
            assert status == 400 and named, f"{path} {params}: HTTP {status} {answer}, not a 400 naming {name}"
            said.append(named[0])
        return f"{len(cases)} refused, e.g. {said[-2]}"

    r.check("unknown filter values: 400 naming the parameter", unknown_values)

    def streams_status():
        s1, s2, s3 = need("s1", "s2", "s3")
        api.call("POST", f"/streams/evm/{s1}/status", {"status": "active"})
        everything = listing(api, "/streams/evm", {})
        assert [x["id"] for x in everything] == [s1, s2, s3], f"streams {[x['id'] for x in everything]}"
        expected = {"active": [s1], "paused": [s2, s3], "error": [], "terminated": []}
        for status, ids in expected.items():
            same_items(listing(api, "/streams/evm", {"status": status}, limit=1),
                       [x for x in everything if x["id"] in ids], lambda x: x["id"], f"status {status}")
        return "active [1], paused [2, 3], error [], terminated [] of 3 streams (every page, limit 1)"

    r.check("GET /streams/evm?status: each status its streams only", streams_status)


if __name__ == "__main__":
    sys.exit(main())
