#!/usr/bin/python3
"""Keeps the Windows side's copies of portable code in step with the unix files they come from:
each function named here must read the same, token for token, in both files, so that a change
made to one and not the other fails here instead of on a Windows machine nobody tests on.

  check-windows-copies.py SRCROOT"""
import re
import sys

# (unix file, Windows file, functions the Windows file copies)
COPIES = [
    ('core/sandbox/dsh-module-loader.c', 'core/sandbox/dsh-module-loader-windows.c',
     ['backend_os_name', 'name_from_file', 'is_valid_name',
      'dsh_backend_descriptor_denial_exclusions', 'check_descriptor', 'optional_text',
      'dsh_backend_module_bind_instance', 'compare_strings', 'dsh_module_loader_scan']),
    ('core/sandbox/dsh-root-reach.c', 'core/sandbox/dsh-root-reach-windows.c',
     ['dsh_writable_roots_widest']),
    ('core/sandbox/dsh-root-grants.c', 'core/sandbox/dsh-root-grants-windows.c',
     ['dsh_root_grants_default_dir', 'dsh_root_grants_check_out_of_reach']),
]


def function(text, name):
    """The body of the function defined as `name (` at the start of a line, comments and
    layout left out; None when the file does not define it."""
    m = re.search(r'^' + re.escape(name) + r' \(.*?^\}', text, re.M | re.S)
    if m is None:
        return None
    body = re.sub(r'/\*.*?\*/', ' ', m.group(0), flags=re.S)
    return ' '.join(body.split())


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems, checked = [], 0
    for unix, windows, names in COPIES:
        unix_text = open(f'{argv[1]}/{unix}', encoding='utf-8').read()
        windows_text = open(f'{argv[1]}/{windows}', encoding='utf-8').read()
        for name in names:
            theirs, ours = function(unix_text, name), function(windows_text, name)
            if ours is None:
                problems.append(f'{windows} no longer defines {name}: drop it from this list')
            elif theirs is None:
                problems.append(f'{unix} no longer defines {name}: see whether {windows} '
                                f'still should')
            elif theirs != ours:
                problems.append(f'{name} differs between {unix} and {windows}: make the same '
                                f'change in both')
            checked += 1
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f'{checked} functions read the same on both sides')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
