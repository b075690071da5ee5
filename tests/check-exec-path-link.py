#!/usr/bin/python3
"""Checks that the dsh-sandbox command (the plain exec path) does not link GObject.

Starting GObject's type system costs every process about a tenth of a millisecond, a sixth of
what dsh-sandbox adds over its runner; the exec path works on the backend selector and plain
structs instead. A reference to a GType function, defined (GLib linked statically) or undefined
(linked dynamically), means that cost came back.
"""
import subprocess
import sys

GOBJECT_SYMBOLS = {"g_type_register_static", "g_type_register_fundamental", "g_object_new",
                   "g_boxed_type_register_static", "g_type_check_instance_is_a"}


def main():
    command = sys.argv[1]
    out = subprocess.run(["nm", "-a", command], check=True, capture_output=True, text=True).stdout
    symbols = {line.split()[-1] for line in out.splitlines() if line.strip()}
    dynamic = subprocess.run(["nm", "-D", command], check=True, capture_output=True,
                             text=True).stdout
    symbols |= {line.split()[-1].split("@")[0] for line in dynamic.splitlines() if line.strip()}
    if len(symbols) < 50:
        print(f"{command}: only {len(symbols)} symbols; is it stripped?")
        return 1
    found = sorted(symbols & GOBJECT_SYMBOLS)
    if found:
        print(f"{command} links GObject: {', '.join(found)}")
        return 1
    print(f"{command}: no GObject among {len(symbols)} symbols")
    return 0


if __name__ == "__main__":
    sys.exit(main())
