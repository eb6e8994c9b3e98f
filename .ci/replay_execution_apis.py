"""Replay the execution clients' suite against a running RPC gateway.

usage: replay_execution_apis.py SUITE_DIR OPEN_LIST OPENRPC_DOCUMENT GATEWAY_URL

SUITE_DIR holds `ethereum/execution-apis`' tests (`<method>/<case>.io`),
and GATEWAY_URL (`{server}/{chain}/{apiKey}`) serves the suite's chain
(`w3api serve --init genesis.json --import chain.rlp`), with automine turned
off first, as in hive. For every test whose
method spec/openrpc.json declares and whose exchanges the suite answers with
a result, each request is sent in order and its answer checked:
- a JSON-RPC 2.0 response with the request's id and no error;
- its result validates against the method's result schema in the OpenRPC
  document (Python jsonschema: an implementation independent of the Rust
  types and tests);
- where the suite's result is an object, ours has every field it has.
The exact comparison is the cargo test's (tests/tests/it/contract/
execution_apis.rs); the tests it lists open in OPEN_LIST are left out here.
"""

import json
import pathlib
import sys
import urllib.request

from jsonschema import Draft7Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


def tests(directory):
    """Each test: its name (`<method>/<case>`) and its exchanges in order."""
    for path in sorted(pathlib.Path(directory).glob("*/*.io")):
        exchanges = []
        request = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(">> "):
                request = json.loads(line[3:])
            elif line.startswith("<< "):
                exchanges.append((request, json.loads(line[3:])))
        yield f"{path.parent.name}/{path.stem}", exchanges


def open_tests(path):
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    return {line.split(" ", 1)[0] for line in lines if line.strip() and not line.startswith("#")}


def result_validators(document):
    """A validator per method for its result schema; `$ref`s resolve in the document."""
    registry = Registry().with_resource("urn:openrpc", Resource.from_contents(document, default_specification=DRAFT7))
    return {
        method["name"]: Draft7Validator({"$ref": f"urn:openrpc#/methods/{index}/result/schema"}, registry=registry)
        for index, method in enumerate(document["methods"])
    }


def call(url, request):
    body = json.dumps(request).encode()
    http = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(http, timeout=10) as response:
        return json.load(response)


def check(name, request, fixture, answer, validators):
    problems = []
    if answer.get("jsonrpc") != "2.0" or answer.get("id") != request["id"]:
        problems.append(f"not a JSON-RPC 2.0 answer to id {request['id']}: {answer}")
    if "error" in answer:
        problems.append(f"error: {answer['error']}")
        return problems
    result = answer.get("result")
    error = best_match(validators[request["method"]].iter_errors(result))
    if error is not None:
        path = "/".join(str(p) for p in error.absolute_path) or "(result)"
        problems.append(f"result does not match the spec at {path}: {error.message[:300]}")
    expected = fixture.get("result")
    if isinstance(expected, dict) and isinstance(result, dict):
        missing = sorted(set(expected) - set(result))
        if missing:
            problems.append(f"fields of the fixture's result missing from ours: {', '.join(missing)}")
    return problems


def main(directory, open_list, document_path, url):
    # As in hive, where no consensus client drives the node, sent
    # transactions wait in the pool: tests that name blocks by number
    # expect the suite's head to stay the head.
    stopped = call(url, {"jsonrpc": "2.0", "id": 0, "method": "evm_setAutomine", "params": [False]})
    if "error" in stopped:
        print(f"evm_setAutomine(false) was refused: {stopped['error']}", file=sys.stderr)
        return 1
    document = json.loads(pathlib.Path(document_path).read_text(encoding="utf-8"))
    validators = result_validators(document)
    skipped = open_tests(open_list)
    failures = 0
    count = 0
    for name, exchanges in tests(directory):
        checked = all(request["method"] in validators and "result" in fixture for request, fixture in exchanges)
        if name in skipped or not exchanges or not checked:
            continue
        count += 1
        problems = []
        for request, fixture in exchanges:
            problems += check(name, request, fixture, call(url, request), validators)
        status = "ok" if not problems else "FAILED"
        print(f"{status:6} {name}")
        for problem in problems:
            print(f"       {problem}")
        failures += bool(problems)
    if count == 0:
        print(f"no tests of the spec's methods in {directory}", file=sys.stderr)
        return 1
    print(f"{count - failures} of {count} execution-API tests answered as spec/openrpc.json says")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
