"""Schemathesis hooks for `w3api serve`: what a schema cannot say.

Three inputs are valid only given server state or a private key, so a
generator cannot produce valid ones from the schema alone. For *positive*
cases only (the ones schemathesis expects to be accepted) these hooks turn a
generated value into a genuinely valid one; negative cases are left alone.

- `range` and `totalRanges` (`getContractNfts`) go together, and a run is
  one of the runs: a positive case with one of them gets the other, and a
  `range` past `totalRanges` becomes the last run.
- `cursor` (wallet tokens, NFTs, collections, NFTs by collection): an opaque token the server
  signs and binds to its query. A generated cursor is replaced by the one the
  server issues for the same query (or dropped when the query has one page).
- `POST /challenge/verify/solana`: the message must be one the server issued
  and the signature must be the account's. The body is replaced by a freshly
  requested challenge signed with a devnet Solana key (`w3api devnet
  solana-sign`).
- streams: a stream needs a webhook that answers its test webhook, and
  chain ids, event signatures and ABIs that mean something. Positive bodies
  of `createStream` and `updateStream` become a valid stream posting to the
  receiver .ci/conformance.sh runs (W3API_WEBHOOK_URL), and
  `getStreamBlockData` reads an existing block of chain 0x1.
- `updateStreamStatus`: the spec's enum is production's, which names the
  statuses the service itself sets (`error`, `terminated`) beside those a
  client sets; a positive body asks for `paused` instead of those two.
- `POST /challenge/request/solana`: `address` must decode to exactly 32
  bytes (a length a regular expression over Base58 cannot express), and
  `expirationTime` must be in the future and after `notBefore` (as the spec's
  descriptions say). Generated values that break these are replaced by valid
  ones. `timeout` is required (as in production); every request these hooks
  make or complete carries one.

Environment: W3API_URL, W3API_API_KEY, W3API_BIN (the `w3api` binary).
"""

import datetime
import hashlib
import os
import subprocess
import tempfile

import requests
import schemathesis

URL = os.environ["W3API_URL"]
KEY = os.environ["W3API_API_KEY"]
W3API = os.environ["W3API_BIN"]

PAGINATED = {
    "getWalletTokenBalancesPrice",
    "getWalletNfts",
    "getWalletNftCollections",
    "getContractNfts",
    "getNftOwners",
    "getNftTokenIdOwners",
    "getWalletTokenTransfers",
    "getTokenTransfers",
    "getWalletNftTransfers",
    "getNftContractTransfers",
    "getWalletTransactions",
    "getWalletHistory",
    "getStreams",
    "getStreamAddresses",
    "getHistory",
    "getDeliveryLogs",
}
WEBHOOK_URL = os.environ["W3API_WEBHOOK_URL"]
TRANSFER_ABI = [
    {
        "anonymous": False,
        "name": "Transfer",
        "type": "event",
        "inputs": [
            {"indexed": True, "name": "from", "type": "address"},
            {"indexed": True, "name": "to", "type": "address"},
            {"indexed": False, "name": "value", "type": "uint256"},
        ],
    }
]
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
DEVNET_KEYS = 4


def devnet_address(index):
    out = subprocess.run([W3API, "devnet", "solana-key", "--index", str(index)], check=True, capture_output=True)
    return out.stdout.decode().strip()


DEVNET_ADDRESSES = [devnet_address(i) for i in range(DEVNET_KEYS)]


def base58_length(text):
    """Bytes a Base58 string decodes to, or None when it is not Base58."""
    value = 0
    for char in text:
        digit = BASE58.find(char)
        if digit < 0:
            return None
        value = value * 58 + digit
    leading_zeros = len(text) - len(text.lstrip("1"))
    return leading_zeros + (value.bit_length() + 7) // 8


def pick(text, choices):
    """A choice that depends only on `text`, so runs stay reproducible."""
    return choices[hashlib.sha256(text.encode()).digest()[0] % len(choices)]


def operation_id(case):
    return case.operation.definition.raw.get("operationId")


def is_positive(case):
    return case.meta is not None and case.meta.generation.mode.is_positive


@schemathesis.hook
def map_case(context, case):
    return make_valid(case)


@schemathesis.hook
def before_add_examples(context, examples):
    # The spec's examples are positive cases too (its verify example was
    # never issued by this server).
    for index, case in enumerate(examples):
        examples[index] = make_valid(case)


def make_valid(case):
    if not is_positive(case):
        return case
    operation = operation_id(case)
    if operation == "getContractNfts" and case.query:
        pair_the_runs(case.query)
    if operation in PAGINATED and case.query and "cursor" in case.query:
        issue_real_cursor(case)
    elif operation == "requestSolanaChallenge" and isinstance(case.body, dict):
        make_request_satisfiable(case.body)
    elif operation == "verifySolanaChallenge" and isinstance(case.body, dict):
        sign_a_real_challenge(case.body)
    elif operation in ("createStream", "updateStream") and isinstance(case.body, dict):
        make_stream_valid(case.body)
    elif operation == "getStreamBlockData":
        read_an_existing_block(case)
    elif operation == "updateStreamStatus" and isinstance(case.body, dict):
        if case.body.get("status") not in ("active", "paused"):
            case.body["status"] = "paused"
    return case


def make_stream_valid(body):
    """Keeps the generated texts and flags, and makes the rest a stream of transfers."""
    for name in ("description", "tag"):
        if not isinstance(body.get(name), str):
            body[name] = "schemathesis"
    body["webhookUrl"] = WEBHOOK_URL
    body["chainIds"] = ["0x1"]
    body["topic0"] = ["Transfer(address,address,uint256)"]
    body["abi"] = TRANSFER_ABI
    body["includeContractLogs"] = True
    for name in ("advancedOptions", "triggers", "getNativeBalances"):
        body.pop(name, None)


def read_an_existing_block(case):
    case.path_parameters["chainId"] = "0x1"
    block = case.path_parameters.get("blockNumber")
    case.path_parameters["blockNumber"] = block % 8000 + 1 if isinstance(block, int) else 1
    if isinstance(case.body, dict):
        for name in ("topic0", "abi", "advancedOptions", "triggers", "getNativeBalances", "addresses"):
            case.body.pop(name, None)


def pair_the_runs(query):
    run, runs = query.get("range"), query.get("totalRanges")
    if run is None and runs is None:
        return
    run = run if isinstance(run, int) and run >= 1 else 1
    runs = runs if isinstance(runs, int) and runs >= 1 else run
    query["range"], query["totalRanges"] = min(run, runs), runs


def issue_real_cursor(case):
    query = {k: v for k, v in case.query.items() if k not in ("cursor", "limit")}
    query["limit"] = 1
    response = requests.get(URL + case.formatted_path, params=query, headers={"X-API-Key": KEY}, timeout=10)
    cursor = response.json().get("cursor") if response.status_code == 200 else None
    if cursor:
        case.query["cursor"] = cursor
    else:
        del case.query["cursor"]


def make_request_satisfiable(body):
    body.setdefault("timeout", 60)
    address = body.get("address")
    if isinstance(address, str) and base58_length(address) != 32:
        body["address"] = pick(address, DEVNET_ADDRESSES)
    now = datetime.datetime.now(datetime.timezone.utc)
    expiration = parse_time(body.get("expirationTime"))
    if expiration is not None and expiration <= now + datetime.timedelta(seconds=5):
        expiration = now + datetime.timedelta(hours=1)
        body["expirationTime"] = expiration.isoformat()
    not_before = parse_time(body.get("notBefore"))
    if expiration is not None and not_before is not None and not_before >= expiration:
        del body["notBefore"]


def parse_time(value):
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)


def sign_a_real_challenge(body):
    index = DEVNET_ADDRESSES.index(pick(str(body.get("message")), DEVNET_ADDRESSES))
    request = {
        "domain": "schemathesis.example",
        "uri": "https://schemathesis.example/login",
        "address": DEVNET_ADDRESSES[index],
        "network": "devnet",
        "timeout": 120,
    }
    response = requests.post(URL + "/challenge/request/solana", json=request, headers={"X-API-Key": KEY}, timeout=10)
    response.raise_for_status()
    message = response.json()["message"]
    with tempfile.NamedTemporaryFile("wb") as file:
        file.write(message.encode())
        file.flush()
        signed = subprocess.run(
            [W3API, "devnet", "solana-sign", "--index", str(index), "--message-file", file.name],
            check=True,
            capture_output=True,
        )
    body["message"] = message
    body["signature"] = signed.stdout.decode().strip()
