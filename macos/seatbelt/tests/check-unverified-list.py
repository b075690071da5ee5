#!/usr/bin/python3
"""Keeps macos/README.md honest: its list of what this repository cannot verify without a Mac,
and the checklist to run on one, must stay present and name each open question."""
import re
import sys

REQUIRED = [
    "libsandbox accepts the profile",
    "kernel enforcement",
    "stderr texts and exit codes",
    "/private",
    "$TMPDIR",
]


def section(text, title):
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return m.group(1) if m else None


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    failures = []
    unverified = section(text, "Not verified here")
    checklist = section(text, "Checklist for a real Mac")
    if unverified is None:
        failures.append('no "## Not verified here" section')
    else:
        for item in REQUIRED:
            if item.lower() not in unverified.lower():
                failures.append(f'"Not verified here" does not mention {item!r}')
    if checklist is None:
        failures.append('no "## Checklist for a real Mac" section')
    elif len(re.findall(r"^\d+\. ", checklist, re.M)) < 5:
        failures.append("the checklist has fewer than five numbered steps")
    for f in failures:
        print(f)
    print(f"{len(REQUIRED)} required items, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
