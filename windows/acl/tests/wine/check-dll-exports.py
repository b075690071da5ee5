#!/usr/bin/python3
"""Checks the export table of the cross-built ACL backend DLL: dsh_backend_acl_describe and
nothing else (the .def file is the whole list), and that neither the DLL nor the runner needs a
DLL a plain Windows install lacks (no GLib, no libgcc or winpthread)."""
import re
import subprocess
import sys

ALLOWED_IMPORTS = {"kernel32.dll", "advapi32.dll", "bcrypt.dll", "msvcrt.dll", "ucrtbase.dll"}


def dump(objdump, path):
    return subprocess.run([objdump, "-p", path], check=True, capture_output=True, text=True).stdout


def exports(text):
    m = re.search(r"\[Ordinal/Name Pointer\] Table\n(.*?)(?:\n\s*\n|\Z)", text, re.S)
    if not m:
        return set()
    return {line.split()[-1] for line in m.group(1).splitlines() if line.strip()}


def imports(text):
    return {name.lower() for name in re.findall(r"DLL Name: (\S+)", text)}


def main():
    objdump, dll, runner = sys.argv[1:4]
    failures = []
    dll_text = dump(objdump, dll)
    got = exports(dll_text)
    if got != {"dsh_backend_acl_describe"}:
        failures.append(f"{dll} exports {sorted(got)}, expected only dsh_backend_acl_describe")
    for path, text in ((dll, dll_text), (runner, dump(objdump, runner))):
        extra = {i for i in imports(text) if i not in ALLOWED_IMPORTS
                 and not i.startswith("api-ms-win-crt-")}
        if extra:
            failures.append(f"{path} imports {sorted(extra)}")
    for f in failures:
        print(f)
    if not failures:
        print(f"{dll} exports exactly dsh_backend_acl_describe; imports only system DLLs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
