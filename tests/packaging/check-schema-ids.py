#!/usr/bin/python3
"""Every schema in schemas/ names itself with an $id of its own.

A harness that loads several of them into one registry resolves them by $id, so each must have
one, no two may share it, and it must follow the file name (urn:dsh-sandbox:schema:NAME:1).

Usage: check-schema-ids.py SCHEMAS_DIR
"""
import json
import os
import sys


def main():
    schemas_dir = sys.argv[1]
    names = sorted(n for n in os.listdir(schemas_dir) if n.endswith(".schema.json"))
    failures = []
    seen = {}
    if not names:
        failures.append(f"no *.schema.json in {schemas_dir}")
    for name in names:
        with open(os.path.join(schemas_dir, name), encoding="utf-8") as f:
            schema = json.load(f)
        schema_id = schema.get("$id")
        expected = "urn:dsh-sandbox:schema:" + name[: -len(".schema.json")] + ":1"
        if schema_id is None:
            failures.append(f"{name}: no $id")
            continue
        if schema_id != expected:
            failures.append(f"{name}: $id is {schema_id!r}, expected {expected!r}")
        if schema_id in seen:
            failures.append(f"{name}: $id {schema_id!r} is already {seen[schema_id]}'s")
        seen[schema_id] = name
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{len(names)} schemas, {len(seen)} distinct $id")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
