#!/usr/bin/python3
"""The bindings and the API reference cover the whole public API.

Every function declared in the public headers is in the GIR, introspectable, documented and
with a Since: version; so is every type; and, given the generated reference, each callable has
its page there.

Usage: check-reference.py GIR HEADERS_DIR [REFERENCE_DIR]
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C = "{http://www.gtk.org/introspection/c/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"
PAGE = {"function": "func", "method": "method", "constructor": "ctor"}


def header_functions(headers_dir):
    names = set()
    for name in os.listdir(headers_dir):
        if name.endswith(".h"):
            with open(os.path.join(headers_dir, name), encoding="utf-8") as f:
                text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
            names.update(re.findall(r"\b(dsh_[a-z0-9_]+)\s*\(", text))
    # The GType and quark functions are the types' own, not callables of their own.
    return {n for n in names if not n.endswith("_get_type") and not n.endswith("_quark")}


def main():
    gir, headers_dir = sys.argv[1], sys.argv[2]
    reference = sys.argv[3] if len(sys.argv) > 3 else None
    namespace = ET.parse(gir).getroot().find(CORE + "namespace")
    failures = []
    callables = {}

    for kind in ("class", "record", "enumeration", "interface", "bitfield"):
        for node in namespace.iter(CORE + kind):
            if node.get(GLIB + "is-gtype-struct-for") or node.get("disguised") == "1":
                continue
            if node.find(CORE + "doc") is None or node.get("version") is None:
                failures.append(f"type {node.get('name')}: undocumented or without Since:")
    for kind, page in PAGE.items():
        for node in namespace.iter(CORE + kind):
            ident = node.get(C + "identifier")
            owner = None
            for parent in namespace:
                if node in list(parent):
                    owner = parent.get("name")
            callables[ident] = (kind, owner, node.get("name"))
            if node.get("introspectable") == "0":
                failures.append(f"{ident}: not introspectable")
            # Since: comes only from the symbol's own comment block.
            if node.get("version") is None:
                failures.append(f"{ident}: no documentation block with Since:")
            params = node.find(CORE + "parameters")
            for param in [] if params is None else list(params):
                if param.find(CORE + "doc") is None:
                    failures.append(f"{ident}: parameter {param.get('name')} is undocumented")
            ret = node.find(CORE + "return-value")
            returns_none = ret.find(CORE + "type") is not None and \
                ret.find(CORE + "type").get("name") == "none"
            if not returns_none and ret.find(CORE + "doc") is None:
                failures.append(f"{ident}: the return value is undocumented")

    for name in sorted(header_functions(headers_dir) - set(callables)):
        failures.append(f"{name}: declared in a public header, missing from the GIR")

    if reference is not None:
        for ident, (kind, owner, name) in sorted(callables.items()):
            if kind == "function" and owner is None:
                page = f"func.{name}.html"
            elif kind == "function":
                page = f"type_func.{owner}.{name}.html"
            else:
                page = f"{PAGE[kind]}.{owner}.{name}.html"
            if not os.path.exists(os.path.join(reference, page)):
                failures.append(f"{ident}: no page {page} in the reference")

    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{len(callables)} callables in the GIR" + (", each with its page" if reference else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
