"""Validate an OpenRPC document against the OpenRPC meta-schema.

usage: validate_openrpc.py DOCUMENT OPENRPC_META_SCHEMA JSON_SCHEMA_META_SCHEMA

The OpenRPC meta-schema refers to https://meta.json-schema.tools for the
schema of every JSON Schema inside the document; that one is given as the
third argument so that nothing is fetched.
"""

import json
import sys

from jsonschema import Draft7Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(document_path, openrpc_meta_path, json_schema_meta_path):
    document = load(document_path)
    openrpc_meta = load(openrpc_meta_path)
    json_schema_meta = Resource.from_contents(load(json_schema_meta_path), default_specification=DRAFT7)
    registry = Registry().with_resources(
        [("https://meta.json-schema.tools", json_schema_meta), ("https://meta.json-schema.tools/", json_schema_meta)]
    )
    validator = Draft7Validator(openrpc_meta, registry=registry)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    for error in errors:
        # A failed oneOf reports the whole object; its deepest sub-error says why.
        cause = best_match([error]) if not error.context else best_match(error.context)
        location = "/".join(str(p) for p in cause.absolute_path) or "(document)"
        print(f"{document_path}: {location}: {cause.message[:300]}", file=sys.stderr)
    if errors:
        return 1
    print(f"{document_path}: valid OpenRPC {document.get('openrpc')}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
