#!/usr/bin/python3
"""Checks that libdsh-sandbox-1 exports exactly its public API.

Every function declared in the installed headers must carry DSH_API and be exported, and the
library must export nothing else: a symbol missing from the headers is private code leaking
into the ABI, where it could never change again.

Usage: check-library-exports.py LIBRARY HEADER_DIR
"""
import pathlib
import re
import subprocess
import sys

DECLARE_MACRO = re.compile(r"(DSH_API\s+)?G_DECLARE_\w+\s*\(\s*\w+\s*,\s*(\w+)[^)]*\)")
AUTOPTR_MACRO = re.compile(r"G_DEFINE_AUTO\w*\s*\([^)]*\)")


def strip_noise(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    text = AUTOPTR_MACRO.sub(" ", text)
    return re.sub(r"\bG_(BEGIN|END)_DECLS\b", " ", text)


def top_level_statements(text):
    depth = 0
    current = []
    for char in text:
        current.append(char)
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == ";" and depth == 0:
            yield "".join(current).strip()
            current = []


def declarations(header):
    """Yields (name, marked) for each function the header declares."""
    text = strip_noise(header.read_text())
    for match in DECLARE_MACRO.finditer(text):
        yield match.group(2) + "_get_type", match.group(1) is not None
    text = DECLARE_MACRO.sub(" ", text)
    for statement in top_level_statements(text):
        if re.match(r"(typedef|struct|enum|union)\b", statement):
            continue
        name = re.search(r"(\w+)\s*\(", statement)
        if name is None:
            continue
        yield name.group(1), statement.startswith("DSH_API")


def main():
    library, header_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    declared = {}
    problems = []
    for header in sorted(header_dir.glob("*.h")):
        for name, marked in declarations(header):
            declared[name] = header.name
            if not marked:
                problems.append(f"{header.name}: {name} is declared without DSH_API")
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    exported = {line.split()[-1].split("@")[0] for line in out.splitlines()
                if len(line.split()) >= 3}
    if len(declared) < 100:
        problems.append(f"only {len(declared)} declarations found in {header_dir}: is the "
                        "header parser broken?")
    for name in sorted(exported - set(declared)):
        problems.append(f"{library}: exports {name}, which no public header declares")
    for name in sorted(set(declared) - exported):
        problems.append(f"{declared[name]}: {name} is public but {library} does not export it")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"{library}: exports exactly the {len(declared)} functions of its public headers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
