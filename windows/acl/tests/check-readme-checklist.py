#!/usr/bin/python3
"""Checks that windows/README.md still lists what this machine cannot verify about the Windows
backend, as a checklist for a real Windows machine: Wine enforces neither restricted tokens nor
file ACLs, so these items are open until someone ticks them there."""
import re
import sys

REQUIRED = [
    "write-restricted token",
    "Access is denied",
    "standing ACE",
    "NUL device",
    "temp directory",
    "hard link",
    "Everyone",
    "profile directory",
    "junction",
    "NUL device SID",
    "removed",
]


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    m = re.search(r"^## Not verified on this machine\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        print("windows/README.md has no '## Not verified on this machine' section")
        return 1
    items = re.findall(r"^- \[[ x]\] (.+)$", m.group(1), re.M)
    missing = [r for r in REQUIRED if not any(r.lower() in i.lower() for i in items)]
    if len(items) < len(REQUIRED) or missing:
        print(f"{len(items)} checklist items; missing topics: {missing}")
        return 1
    print(f"{len(items)} checklist items cover {len(REQUIRED)} topics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
