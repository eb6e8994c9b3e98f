"""Replay the Ethereum execution-API fixtures against a running RPC gateway.

usage: replay_execution_apis.py FIXTURES_DIR OPENRPC_DOCUMENT GATEWAY_URL

Sends the request (`>>` line) of every `*.io` file in FIXTURES_DIR to
GATEWAY_URL (`{server}/{chain}/{apiKey}`) and checks the answer:
- a JSON-RPC 2.0 response with the request's id and no error;
- its result validates against the method's result schema in the OpenRPC
  document (Python jsonschema: an implementation independent of the Rust
  types and tests);
- where both the fixture and the gateway return an object, every field the
  fixture's result has is in the gateway's too (same request, same shape);
  the values differ, the devnet being another chain.
"""

import json
import pathlib
import sys
import urllib.request

from jsonschema import Draft7Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


def cases(directory):
    for path in sorted(pathlib.Path(directory).glob("*.io")):
        request = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(">> "):
                request = json.loads(line[3:])
            elif line.startswith("<< "):
                yield path.name, request, json.loads(line[3:])


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


def main(directory, document_path, url):
    document = json.loads(pathlib.Path(document_path).read_text(encoding="utf-8"))
    validators = result_validators(document)
    failures = 0
    count = 0
    for name, request, fixture in cases(directory):
        count += 1
        problems = check(name, request, fixture, call(url, request), validators)
        status = "ok" if not problems else "FAILED"
        print(f"{status:6} {name}: {request['method']}{json.dumps(request['params'])}")
        for problem in problems:
            print(f"       {problem}")
        failures += bool(problems)
    if count == 0:
        print(f"no *.io fixtures in {directory}", file=sys.stderr)
        return 1
    print(f"{count - failures} of {count} execution-API requests answered as spec/openrpc.json says")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
