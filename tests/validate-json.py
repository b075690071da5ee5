#!/usr/bin/python3
"""Validates a JSON document (a file, or - for stdin) against a JSON Schema (draft 2020-12).

Used by the test suites on every document the CLI prints. Exits 0 when valid, 1 with the
errors on stdout otherwise, 2 when the schema itself is unusable.
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) != 3:
        print("usage: validate-json.py SCHEMA FILE|-", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    if sys.argv[2] == "-":
        document = json.load(sys.stdin)
    else:
        with open(sys.argv[2], encoding="utf-8") as f:
            document = json.load(f)

    validator_class = jsonschema.Draft202012Validator
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"invalid schema {sys.argv[1]}: {e.message}")
        return 2
    errors = sorted(validator_class(schema).iter_errors(document), key=lambda e: list(e.path))
    for error in errors:
        path = "/".join(str(p) for p in error.path) or "(root)"
        print(f"{path}: {error.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
