"""A webhook receiver for stream deliveries, on loopback, written with the
standard library's http.server and its own keccak (pycryptodome's
Crypto.Hash.keccak, none of the server's code): it verifies every request's
`x-signature` against the exact raw body bytes followed by the secret,
records every request, and can be told to answer 500 to the first N attempts
of each block.

Production signs a delivery as `0x` + hex(keccak256(body bytes + secret)),
the secret being the project's streams secret (`GET /settings` →
`secretKey`), which defaults to the API key.

As a library (what streams_checks.py and moralis_py_checks.py do):

    with WebhookReceiver(secret="KEY", fail_first=2) as receiver:
        receiver.url                  # http://127.0.0.1:PORT/hook
        receiver.wait_for(lambda d: d.block_hash, timeout=30)
        receiver.deliveries()         # every request, in arrival order

As a program, it prints `listening on URL` and then one JSON line per
request (raw body, signature, whether it verified, the status answered):

    python webhook_receiver.py --secret KEY [--fail-first 2] [--port 0]
"""

from __future__ import annotations

import argparse
import hmac
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from Crypto.Hash import keccak

SIGNATURE_HEADER = "x-signature"


def keccak256_hex(data: bytes) -> str:
    """0x + the hex keccak256 (Ethereum's, not SHA3-256) of data."""
    h = keccak.new(digest_bits=256)
    h.update(data)
    return "0x" + h.hexdigest()


# Known answers, checked at import: an implementation that is not Ethereum's
# keccak256 (SHA3-256 pads differently) must not go unnoticed.
assert keccak256_hex(b"") == "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
assert keccak256_hex(b"Transfer(address,address,uint256)") == (
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")


def signature(body: bytes, secret: str) -> str:
    """The x-signature production sends with body under secret."""
    return keccak256_hex(body + secret.encode("utf-8"))


def verifies(body: bytes, sig: str | None, secret: str) -> bool:
    return sig is not None and hmac.compare_digest(sig.lower(), signature(body, secret))


@dataclass
class Delivery:
    """One request the receiver got."""

    seq: int
    at: float
    path: str
    headers: dict[str, str]
    body: bytes
    status: int  # what the receiver answered
    attempt: int  # 1 for the first request of its block (stream, hash, confirmed), 2 for the next…
    verified: bool | None  # against the receiver's secret when it got it; None without one
    json: dict | None = None
    error: str | None = None  # why the body is not a JSON object

    @property
    def signature(self) -> str | None:
        return self.headers.get(SIGNATURE_HEADER)

    @property
    def block(self) -> dict:
        return (self.json or {}).get("block") or {}

    @property
    def block_hash(self) -> str:
        """The block's hash; empty for the test webhook."""
        return self.block.get("hash") or ""

    @property
    def is_test(self) -> bool:
        """The test webhook of a create or an update: empty block fields."""
        return self.json is not None and not self.block_hash and not self.block.get("number")

    @property
    def stream_id(self) -> str:
        return (self.json or {}).get("streamId") or ""

    @property
    def confirmed(self) -> bool | None:
        return (self.json or {}).get("confirmed")

    def key(self) -> tuple:
        return (self.stream_id, self.block_hash, self.confirmed)

    def verifies_with(self, secret: str) -> bool:
        return verifies(self.body, self.signature, secret)

    def summary(self) -> str:
        if self.json is None:
            return f"#{self.seq} {self.path}: not JSON ({self.error})"
        what = "test webhook" if self.is_test else (
            f"block {self.block.get('number')} {'confirmed' if self.confirmed else 'unconfirmed'}")
        return (f"#{self.seq} stream {self.stream_id[:8]} {what}, retries {self.json.get('retries')}, "
                f"attempt {self.attempt}, answered {self.status}")


@dataclass
class _State:
    secret: str | None
    fail_first: int
    fail_tests: bool
    deliveries: list[Delivery] = field(default_factory=list)
    attempts: dict[tuple, int] = field(default_factory=dict)
    lock: threading.Condition = field(default_factory=threading.Condition)
    on_delivery: Callable[[Delivery], None] | None = None


class _Handler(BaseHTTPRequestHandler):
    server_version = "w3api-webhook-receiver"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the checks print what matters
        pass

    def do_POST(self):  # noqa: N802 - http.server's naming
        state: _State = self.server.state  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        parsed, error = None, None
        try:
            parsed = json.loads(body)
            if not isinstance(parsed, dict):
                parsed, error = None, f"a JSON {type(parsed).__name__}, not an object"
        except ValueError as e:
            error = str(e)
        with state.lock:
            secret = state.secret
            delivery = Delivery(
                seq=len(state.deliveries) + 1, at=time.monotonic(), path=self.path, headers=headers, body=body,
                status=200, attempt=1, verified=None, json=parsed, error=error,
            )
            key = delivery.key()
            delivery.attempt = state.attempts.get(key, 0) + 1
            state.attempts[key] = delivery.attempt
            failing = delivery.attempt <= state.fail_first and (state.fail_tests or not delivery.is_test)
            delivery.status = 500 if failing else 200
            if secret is not None:
                delivery.verified = verifies(body, delivery.signature, secret)
            state.deliveries.append(delivery)
            state.lock.notify_all()
        answer = b'{"ok":false}' if failing else b'{"ok":true}'
        self.send_response(delivery.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        if state.on_delivery:
            state.on_delivery(delivery)

    def do_GET(self):  # noqa: N802
        self.send_response(405)
        self.send_header("content-length", "0")
        self.end_headers()


class WebhookReceiver:
    """A receiver on 127.0.0.1 (a free port), serving on a thread of its own.

    secret: what signatures are verified against when a request arrives
    (Delivery.verified); change it with set_secret. fail_first: answer 500 to
    the first N attempts of each block (a block is its stream, hash and
    confirmed flag; the test webhooks of creates and updates are always
    answered 200 unless fail_tests)."""

    def __init__(self, secret: str | None = None, fail_first: int = 0, fail_tests: bool = False,
                 port: int = 0, on_delivery: Callable[[Delivery], None] | None = None):
        self._state = _State(secret=secret, fail_first=fail_first, fail_tests=fail_tests, on_delivery=on_delivery)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True
        self._server.state = self._state  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        daemon=True, name="webhook-receiver")
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}/hook"

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def set_secret(self, secret: str | None) -> None:
        with self._state.lock:
            self._state.secret = secret

    def set_fail_first(self, n: int) -> None:
        with self._state.lock:
            self._state.fail_first = n

    def deliveries(self, match: Callable[[Delivery], bool] | None = None) -> list[Delivery]:
        with self._state.lock:
            found = list(self._state.deliveries)
        return [d for d in found if match is None or match(d)]

    def wait_for(self, match: Callable[[Delivery], bool], timeout: float, count: int = 1) -> list[Delivery]:
        """The first `count` deliveries that match, waiting at most timeout seconds;
        raises AssertionError (naming what did arrive) when they do not come."""
        deadline = time.monotonic() + timeout
        with self._state.lock:
            while True:
                found = [d for d in self._state.deliveries if match(d)]
                if len(found) >= count:
                    return found[:count]
                left = deadline - time.monotonic()
                if left <= 0:
                    got = self._state.deliveries
                    seen = "; ".join(d.summary() for d in got[-8:]) or "nothing"
                    raise AssertionError(f"{len(found)} of {count} expected deliveries within {timeout:.0f} s "
                                         f"({len(got)} requests in all; last: {seen})")
                self._state.lock.wait(min(left, 0.5))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--secret", help="verify signatures with this secret (the API key by default on the server)")
    parser.add_argument("--fail-first", type=int, default=0, help="answer 500 to the first N attempts of each block")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    args = parser.parse_args()

    def show(d: Delivery) -> None:
        line = {"seq": d.seq, "attempt": d.attempt, "status": d.status, "verified": d.verified,
                "signature": d.signature, "body": d.body.decode("utf-8", "replace")}
        print(json.dumps(line), flush=True)

    receiver = WebhookReceiver(secret=args.secret, fail_first=args.fail_first, port=args.port, on_delivery=show)
    print(f"listening on {receiver.url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        receiver.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
