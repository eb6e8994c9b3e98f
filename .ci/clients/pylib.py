"""Shared by the Python client checks: the shared server's address and devnet
values (from the environment .ci/clients.sh sets, read on first use), raw
HTTP calls that bypass every client, a `w3api serve` of a check's own
(Server), a field-by-field comparison of a client's decoded value with the
raw JSON answer, and a small check runner that ends with `N passed, N failed`."""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        sys.exit(f"{name} is not set (run through .ci/clients.sh)")
    return value


_SETTINGS: dict = {}


def _setting(name: str):
    """URL, KEY, RPC_URL and FIXTURE (the shared server's), read from the
    environment on first use: a check that starts a server of its own
    (streams_checks.py) imports the runner without them."""
    if not _SETTINGS:
        url = env("W3API_URL").rstrip("/")
        key = env("W3API_API_KEY")
        with open(env("W3API_CLIENTS_FIXTURE"), encoding="utf-8") as f:
            fixture = json.load(f)
        # W3API_CHAIN: the chain whose JSON-RPC URL the checks call (eth by default).
        chain = os.environ.get("W3API_CHAIN", "eth")
        _SETTINGS.update(URL=url, KEY=key, RPC_URL=f"{url}/{chain}/{key}", FIXTURE=fixture)
    return _SETTINGS[name]


def __getattr__(name: str):
    # `from pylib import URL, KEY, FIXTURE` reads them here (PEP 562).
    if name in ("URL", "KEY", "RPC_URL", "FIXTURE"):
        return _setting(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_ids = itertools.count(1000)


def _open(req: urllib.request.Request):
    try:
        with urllib.request.urlopen(req, timeout=20) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def raw_rpc(method: str, params: list | None = None) -> dict:
    """The raw JSON-RPC envelope answering one call, by plain HTTP POST."""
    body = json.dumps({"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params or []})
    req = urllib.request.Request(_setting("RPC_URL"), data=body.encode(), headers={"content-type": "application/json"})
    status, data = _open(req)
    try:
        return json.loads(data)
    except ValueError:
        raise AssertionError(f"{method}: HTTP {status}, not JSON: {data[:200]!r}") from None


def raw_result(method: str, params: list | None = None):
    body = raw_rpc(method, params)
    if "error" in body:
        err = body["error"]
        raise AssertionError(f"raw {method}: JSON-RPC error {err.get('code')} {err.get('message')}")
    if "result" not in body:
        raise AssertionError(f"raw {method}: neither result nor error: {body}")
    return body["result"]


def expect_raw_error(method: str, params: list) -> dict:
    body = raw_rpc(method, params)
    if "error" not in body or "result" in body:
        raise AssertionError(f"raw {method}: expected a JSON-RPC error, got {body}")
    return body["error"]


def raw_get(path: str, query: dict | None = None):
    """The raw JSON body of a REST GET with header X-API-Key; fails on a non-2xx status."""
    pairs = []
    for k, v in (query or {}).items():
        if v is None:
            continue
        for item in v if isinstance(v, list) else [v]:
            pairs.append((k, str(item).lower() if isinstance(item, bool) else str(item)))
    url = _setting("URL") + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")
    status, data = _open(urllib.request.Request(url, headers={"x-api-key": _setting("KEY")}))
    if not 200 <= status < 300:
        raise AssertionError(f"GET {path}: HTTP {status} {data[:300]!r}")
    return json.loads(data)


def raw_post(path: str, body: dict):
    req = urllib.request.Request(
        _setting("URL") + path, data=json.dumps(body).encode(),
        headers={"x-api-key": _setting("KEY"), "content-type": "application/json"}, method="POST",
    )
    status, data = _open(req)
    try:
        return status, json.loads(data)
    except ValueError:
        return status, data


def http_json(method: str, url: str, key: str | None = None, body=None, timeout: float = 20):
    """One plain HTTP call with an optional X-API-Key and JSON body; returns
    (status, the decoded JSON body, or the text when it is not JSON)."""
    headers = {"content-type": "application/json"} if body is not None else {}
    if key:
        headers["x-api-key"] = key
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            status, raw = res.status, res.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


class Server:
    """`w3api serve` of a check's own ($W3API_BIN), on 127.0.0.1 with a free
    port: started by the constructor (at most 60 s for its `listening on`
    line), stopped by stop() (SIGTERM, then SIGKILL after 10 s). Its stdout is
    read to the end on a thread; its stderr goes to a temporary file, shown
    by stderr_tail()."""

    def __init__(self, args: list[str]):
        import subprocess
        import tempfile

        binary = env("W3API_BIN")
        self._err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._err)
        self.lines: list[str] = []
        ready = threading.Event()
        self.url = ""

        def read():
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                self.lines.append(line)
                if line.startswith("listening on ") and not ready.is_set():
                    self.url = line[len("listening on "):].strip().rstrip("/")
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True, name="w3api-stdout").start()
        if not ready.wait(60) or not self.url:
            self.stop()
            raise RuntimeError(f"w3api serve did not start within 60 s:\n{self.stderr_tail()}")
        if not re.fullmatch(r"http://127\.0\.0\.1:\d+", self.url):
            self.stop()
            raise RuntimeError(f"w3api serve listens on {self.url}, not loopback")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self, lines: int = 20) -> str:
        self._err.seek(0)
        return "\n".join(self._err.read().decode("utf-8", "replace").splitlines()[-lines:])

    def stop(self) -> None:
        import subprocess

        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


# ---------------------------------------------------------------------------
# Comparison. A spec: {"alias": {raw_key: client_key | callable(client, raw_value)},
# "nested": {raw_key: spec}, "enums": {raw_key: {raw_value: client_value}}}.
# Every field of the raw object the client exposes is compared; fields it
# does not expose are counted, not failed.

HEX = re.compile(r"^0x[0-9a-fA-F]*$")
QUANTITY_KEYS = re.compile(r"\.(r|s)$")
SKIP = object()
MISSING = object()


def show(v) -> str:
    if isinstance(v, (bytes, bytearray)):
        return f"bytes(0x{bytes(v).hex()})"
    s = repr(v)
    return s if len(s) <= 160 else s[:160] + "…"


class Comparison:
    def __init__(self):
        self.mismatches: list[str] = []
        self.compared = 0
        self.hidden: set[str] = set()

    def fail(self, path, client, raw, why=""):
        self.mismatches.append(f"{path}: client {show(client)} != raw {show(raw)}" + (f" ({why})" if why else ""))

    def value(self, client, raw, path, spec=None):
        if isinstance(raw, dict):
            return self.obj(client, raw, path, spec or {})
        if isinstance(raw, list):
            if not isinstance(client, (list, tuple)):
                return self.fail(path, client, raw, "not a list")
            if len(client) != len(raw):
                return self.fail(path, f"length {len(client)}", f"length {len(raw)}")
            for i, (c, r) in enumerate(zip(client, raw)):
                self.value(c, r, f"{path}[{i}]", spec)
            return
        self.compared += 1
        if raw is None or isinstance(raw, bool):
            if client is not raw:
                self.fail(path, client, raw)
            return
        if isinstance(raw, (int, float)):
            if isinstance(client, bool) or client != raw:
                self.fail(path, client, raw)
            return
        # raw is a string
        if QUANTITY_KEYS.search(path) and HEX.match(raw) and raw != "0x":
            # Signature values are quantities in the execution API ("0xf05..."),
            # 32-byte strings in some clients ("0x0f05..."): compare the numbers.
            if isinstance(client, (bytes, bytearray)):
                client = int.from_bytes(client, "big")
            elif isinstance(client, str) and HEX.match(client) and client != "0x":
                client = int(client, 16)
            if isinstance(client, bool) or not isinstance(client, int) or client != int(raw, 16):
                self.fail(path, client, raw)
            return
        if HEX.match(raw):
            if isinstance(client, int) and not isinstance(client, bool):
                if raw == "0x" or int(raw, 16) != client:
                    self.fail(path, client, raw)
                return
            if isinstance(client, (bytes, bytearray)):
                client_hex = "0x" + bytes(client).hex()
                if client_hex != raw.lower():
                    self.fail(path, client, raw)
                return
            if not isinstance(client, str) or client.lower() != raw.lower():
                self.fail(path, client, raw)
            return
        if isinstance(client, int) and not isinstance(client, bool):
            if not re.fullmatch(r"-?\d+", raw) or int(raw) != client:
                self.fail(path, client, raw)
            return
        if client != raw:
            self.fail(path, client, raw)

    def obj(self, client, raw, path, spec):
        if not isinstance(client, Mapping):
            return self.fail(path, client, raw, "not a mapping")
        for key, raw_value in raw.items():
            p = f"{path}.{key}"
            alias = (spec.get("alias") or {}).get(key)
            if callable(alias):
                c = alias(client, raw_value)
            else:
                c = client.get(alias or key, MISSING)
            if c is SKIP:
                continue
            if c is MISSING:
                self.hidden.add(key)
                continue
            enums = (spec.get("enums") or {}).get(key)
            if enums and isinstance(raw_value, str) and raw_value in enums:
                self.compared += 1
                if c != enums[raw_value]:
                    self.fail(p, c, raw_value, f"expected {show(enums[raw_value])}")
                continue
            self.value(c, raw_value, p, (spec.get("nested") or {}).get(key))


def expect_same(client, raw, what, spec=None) -> Comparison:
    cmp = Comparison()
    cmp.value(client, raw, what, spec)
    if cmp.mismatches:
        shown = "\n      ".join(cmp.mismatches[:12])
        more = f"\n      … {len(cmp.mismatches) - 12} more" if len(cmp.mismatches) > 12 else ""
        raise AssertionError(f"{len(cmp.mismatches)} mismatch(es):\n      {shown}{more}")
    if cmp.compared == 0:
        raise AssertionError(f"{what}: nothing compared (the client exposes none of the raw fields)")
    return cmp


def must_raise(fn, what):
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - any error the client surfaces counts
        return e
    raise AssertionError(f"{what}: the client returned {show(value)} instead of an error")


class Runner:
    def __init__(self, suite: str):
        self.suite = suite
        self.passed = 0
        self.failed = 0

    def check(self, name: str, fn, timeout: float = 60.0):
        started = time.monotonic()
        outcome: dict = {}

        def run():
            try:
                outcome["note"] = fn()
            except BaseException as e:  # noqa: BLE001
                outcome["error"] = e

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(timeout)
        ms = int((time.monotonic() - started) * 1000)
        if worker.is_alive():
            outcome["error"] = TimeoutError(f"timed out after {timeout:.0f} s")
        if "error" in outcome:
            self.failed += 1
            e = outcome["error"]
            message = str(e) if isinstance(e, AssertionError) else f"{type(e).__name__}: {e}"
            if not isinstance(e, (AssertionError, TimeoutError)) and os.environ.get("W3API_CLIENTS_TRACE"):
                message += "\n" + "".join(traceback.format_exception(e))
            message = message.replace("\n", "\n      ")
            print(f"FAIL {self.suite}: {name}\n      {message}", flush=True)
            return None
        self.passed += 1
        note = outcome.get("note")
        extra = ""
        if isinstance(note, Comparison):
            extra = f" ({note.compared} values" + (
                f"; not exposed: {','.join(sorted(note.hidden))}" if note.hidden else "") + ")"
        elif isinstance(note, str):
            extra = f" ({note})"
        print(f"ok   {self.suite}: {name}{extra} [{ms} ms]", flush=True)
        return note

    def done(self) -> int:
        print(f"{self.suite}: {self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


def point_sdk_at(base_url: str) -> None:
    """Every Moralis SDK call goes to base_url (data API under /api/v2.2).

    The SDK's functions build a fresh generated `Configuration()` per call,
    whose host is the first entry of `Configuration.get_host_settings()`
    (hard-coded to production): that list is replaced in each of the three
    generated packages the SDK uses."""
    import openapi_auth
    import openapi_evm_api
    import openapi_streams

    for package, base in (
        (openapi_evm_api, f"{base_url}/api/v2.2"),
        (openapi_auth, base_url),
        (openapi_streams, base_url),
    ):
        package.Configuration.get_host_settings = (
            lambda self, base=base: [{"url": base, "description": "w3api serve"}]
        )
