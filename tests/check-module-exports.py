#!/usr/bin/python3
"""Checks that every backend module built in the tree exports its entry point and nothing else.

Modules link with modules/dsh-backend.map and hidden visibility; a module that leaks other
symbols could collide with the core or another module when loaded.
"""
import os
import re
import subprocess
import sys


def exported(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    root = os.environ["DSH_TEST_BUILD_ROOT"]
    checked = 0
    failures = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            m = re.fullmatch(r"libdsh-backend-(.+)\.so", name)
            if not m or m.group(1) == "noentry":
                continue
            path = os.path.join(dirpath, name)
            want = {"dsh_backend_%s_describe" % m.group(1).replace("-", "_")}
            if m.group(1) == "fake-misnamed":  # exports the generic entry point on purpose
                want = {"dsh_backend_describe"}
            got = {s for s in exported(path) if not s.startswith("DSH_")}
            # Version-script nodes show up as absolute symbols without a type we care about.
            if got != want:
                failures.append(f"{path}: exports {sorted(got)}, expected {sorted(want)}")
            checked += 1
    for f in failures:
        print(f)
    if checked == 0:
        print("no backend modules found under", root)
        return 1
    print(f"{checked} modules checked, {len(failures)} with unexpected exports")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
