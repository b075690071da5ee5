#!/usr/bin/python3
"""Checks the session-log schemas against themselves and against the fuzz seed corpus.

1. Every $defs entry shared by the session/policy/config schemas is identical in each copy
   (the schemas repeat their shared definitions so each file validates on its own).
2. Every line of the corpus's valid-* logs validates (line 1: header, then events), so the
   schemas accept what the C loader accepts.
3. Every forged-* log has a line the event schema refuses, so the schemas are as strict as the
   loader's vocabulary invariant.

Usage: check-session-schemas.py SCHEMAS_DIR CORPUS_DIR
"""
import json
import os
import sys

import jsonschema

SCHEMAS = [
    "session-header.schema.json",
    "session-event.schema.json",
    "session-show.schema.json",
    "policy-resolve.schema.json",
    "config.schema.json",
]


def main():
    schemas_dir, corpus_dir = sys.argv[1], sys.argv[2]
    failures = []
    loaded = {}
    for name in SCHEMAS:
        with open(os.path.join(schemas_dir, name), encoding="utf-8") as f:
            loaded[name] = json.load(f)
        jsonschema.Draft202012Validator.check_schema(loaded[name])

    first_seen = {}
    for name, schema in loaded.items():
        for key, value in schema.get("$defs", {}).items():
            if key in first_seen and first_seen[key][1] != value:
                failures.append(f"$defs/{key} differs between {first_seen[key][0]} and {name}")
            first_seen.setdefault(key, (name, value))

    header = jsonschema.Draft202012Validator(loaded["session-header.schema.json"])
    event = jsonschema.Draft202012Validator(loaded["session-event.schema.json"])
    checked = 0
    for entry in sorted(os.listdir(corpus_dir)):
        path = os.path.join(corpus_dir, entry)
        if entry.startswith("valid-"):
            with open(path, encoding="utf-8", newline="") as f:
                lines = f.read().split("\n")
            for number, line in enumerate(lines[:-1], start=1):
                validator = header if number == 1 else event
                for error in validator.iter_errors(json.loads(line)):
                    failures.append(f"{entry}:{number}: {error.message}")
            checked += 1
        elif entry.startswith("forged-"):
            with open(path, encoding="utf-8", newline="") as f:
                lines = f.read().split("\n")[1:]
            if all(event.is_valid(json.loads(line)) for line in lines if line):
                failures.append(f"{entry}: every line validates, but the loader refuses it")
            checked += 1

    for failure in failures:
        print(failure)
    print(f"{len(loaded)} schemas, {checked} corpus logs, {len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
