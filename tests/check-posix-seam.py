#!/usr/bin/python3
"""Keeps the core's platform seam: POSIX-only headers and calls appear only in the files that
core/*/meson.build lists as *_unix_sources (built only where host_machine.system() is not
windows) or that are named *-unix.c; every dsh_platform_ function has a Windows side. Files
named *-windows.c use the C runtime's <fcntl.h> and the like as Windows has them, so they are
not scanned but must be in a layer's *_windows_sources, which the core-windows-syntax test
compiles together with the layer's *_portable_sources (all a Windows build compiles).

  check-posix-seam.py scan SRCROOT
  check-posix-seam.py cross SRCROOT CC BUILD-INCLUDE FILE... -- CFLAG...

`cross` compiles the files with mingw-w64 (syntax only) against the host's GLib headers and a
glibconfig.h made from the host's for a 64-bit Windows target (G_OS_WIN32, LLP64 types, a HANDLE
for GPid, Windows separators), so that GLib's and GIO's headers declare what they declare on
Windows: the Windows side of the seam and the portable files that must not trip a Windows
build."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

POSIX_HEADERS = re.compile(
    r'^\s*#\s*include\s*<(unistd\.h|fcntl\.h|poll\.h|spawn\.h|link\.h|dlfcn\.h|pwd\.h|grp\.h|'
    r'termios\.h|glib-unix\.h|gio/gunix[a-z]*\.h|linux/[^>]+|sys/(?!types\.h)[^>]+)>', re.M)
POSIX_CALLS = re.compile(
    r'\b(getuid|geteuid|getgid|getegid|getauxval|fork|vfork|execv|execve|execvp|execvpe|'
    r'posix_spawn|posix_spawnp|waitpid|wait4|openat|openat2|fstatat|lstat|memfd_create|flock|'
    r'fcntl|pipe|pipe2|kill|killpg|sigaction|sigprocmask|dup|dup2|dup3|uname|syscall|fdatasync|'
    r'fsync|pread|pwrite|ftruncate|lseek|readlink|realpath|mkdirat|unlinkat|renameat|linkat|'
    r'symlinkat|fchmod|fchown|fchdir|mmap|munmap|prctl|setsid|close)\s*\(')
POSIX_NAMES = re.compile(r'\b(O_PATH|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY|AT_FDCWD|AT_SECURE|'
                         r'RESOLVE_[A-Z_]+|st_uid|st_mtim|st_ctim|S_ISLNK|g_unix_\w+|GUnix\w+)\b'
                         r'|"/proc/')


def strip_comments(text):
    """Comments go (they may name a call); strings stay, so a "/proc/..." read is caught."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text[i] in '"\'':
            quote, j = text[i], i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return ''.join(out)


def violations(text):
    code = strip_comments(text)
    found = []
    for pattern in (POSIX_HEADERS, POSIX_CALLS, POSIX_NAMES):
        for m in pattern.finditer(code):
            line = code.count('\n', 0, m.start()) + 1
            found.append((line, m.group(0).strip()))
    return sorted(found)


def unix_sources(srcroot):
    """The files each core meson.build lists as POSIX-only, checked to be built only off
    Windows."""
    allowed, problems = set(), []
    for layer in ('sandbox', 'session'):
        path = os.path.join(srcroot, 'core', layer, 'meson.build')
        text = open(path, encoding='utf-8').read()
        for name, body in re.findall(r"^(\w+_unix_sources) = files\((.*?)\)", text, re.M | re.S):
            for f in re.findall(r"'([^']+)'", body):
                allowed.add(os.path.join('core', layer, f))
            if not re.search(r"^if host_os != 'windows'\n\s+\w+ \+= " + name + r"\b", text, re.M):
                problems.append(f'{path}: {name} is not added under "if host_os != \'windows\'"')
    return allowed, problems


def platform_functions(srcroot):
    """Every function the seam's header declares is defined on both sides."""
    sandbox = os.path.join(srcroot, 'core', 'sandbox')
    header = open(os.path.join(sandbox, 'dsh-platform-private.h'), encoding='utf-8').read()
    declared = set(re.findall(r'\b(dsh_platform_\w+)\s*\(', header))
    problems = []
    for side in ('dsh-platform-unix.c', 'dsh-platform-windows.c'):
        text = open(os.path.join(sandbox, side), encoding='utf-8').read()
        defined = set(re.findall(r'^(dsh_platform_\w+)\s*\(', text, re.M))
        for missing in sorted(declared - defined):
            problems.append(f'core/sandbox/{side} does not define {missing}')
    return problems


def windows_sources(srcroot):
    """The files each core meson.build lists as its Windows side, checked to be what a Windows
    build adds to the layer's portable sources and what core-windows-syntax compiles with them."""
    listed, problems = set(), []
    tests = open(os.path.join(srcroot, 'tests', 'meson.build'), encoding='utf-8').read()
    m = re.search(r"^test\('core-windows-syntax'.*?^\)", tests, re.M | re.S)
    compiled = set(re.findall(r'\b(\w+_(?:portable|windows)_sources)\b', m.group(0)) if m
                   else [])
    for layer in ('sandbox', 'session'):
        path = os.path.join(srcroot, 'core', layer, 'meson.build')
        text = open(path, encoding='utf-8').read()
        windows = re.findall(r"^(\w+_windows_sources) = files\((.*?)\)", text, re.M | re.S)
        if not windows:
            problems.append(f'{path}: no *_windows_sources list')
        for name, body in windows:
            for f in re.findall(r"'([^']+)'", body):
                listed.add(os.path.join('core', layer, f))
            if not re.search(r"^\s+\w+ \+= " + name + r"\b", text, re.M):
                problems.append(f'{path}: {name} is never added to the layer')
            sources = name[:-len('_windows_sources')] + '_sources'
            portable = name[:-len('_windows_sources')] + '_portable_sources'
            # Taken once the layer has all its portable files: after it, only a platform's own
            # list may be added (else a Windows build compiles a file the test does not).
            taken = re.search(r"^" + portable + r" = " + sources + r"\n", text, re.M)
            if taken is None:
                problems.append(f'{path}: no "{portable} = {sources}" line')
                taken_at = len(text)
            else:
                taken_at = taken.start()
            platform = (name[:-len('_windows_sources')] + '_unix_sources', name)
            for added in re.finditer(r"^\s*" + sources + r" \+= (\w*)", text, re.M):
                if added.start() > taken_at and added.group(1) not in platform:
                    problems.append(f'{path}: {sources} grows after {portable} was taken from '
                                    f'it: add portable files before that line')
                if taken is not None and added.start() < taken_at and added.group(1) in platform:
                    problems.append(f'{path}: {portable} is taken after a platform\'s files '
                                    f'were added to {sources}')
            for needed in (portable, name):
                if needed not in compiled:
                    problems.append(f'tests/meson.build: core-windows-syntax does not compile '
                                    f'{needed}')
    return listed, problems


def scan(srcroot):
    # The scanner must see what it is there to see.
    sample = '#include <unistd.h>\n/* getuid () */\nstatic int f (void) { return getuid (); }\n'
    seen = violations(sample)
    if seen != [(1, '#include <unistd.h>'), (3, 'getuid (')]:
        print(f'the scanner is broken: it found {seen} in its sample')
        return 1

    allowed, problems = unix_sources(srcroot)
    problems += platform_functions(srcroot)
    crossed, crossed_problems = windows_sources(srcroot)
    problems += crossed_problems
    checked = windows = 0
    for dirpath, _, names in sorted(os.walk(os.path.join(srcroot, 'core'))):
        for name in sorted(names):
            if not name.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), srcroot)
            if rel in allowed or name.endswith('-unix.c'):
                continue
            if name.endswith('-windows.c'):
                windows += 1
                if rel not in crossed:
                    problems.append(f'{rel}: a Windows file that no *_windows_sources list of '
                                    f'core/*/meson.build holds: no Windows build (nor '
                                    f'core-windows-syntax) compiles it')
                continue
            checked += 1
            text = open(os.path.join(srcroot, rel), encoding='utf-8').read()
            for line, what in violations(text):
                problems.append(f'{rel}:{line}: POSIX-only {what} outside the unix files')
    for p in problems:
        print(p)
    if problems:
        print('Move POSIX-only code into a file listed in *_unix_sources (or named *-unix.c), '
              'behind a function of core/sandbox/dsh-platform-private.h with a Windows side.')
        return 1
    print(f'{checked} portable files of core/ are free of POSIX-only calls and headers; '
          f'{len(allowed)} unix files hold them; {windows} Windows files are cross-compiled')
    return 0


# What GLib's own glibconfig.h says for x86_64-w64-mingw32 where the host's (64-bit Linux) differs.
WINDOWS_GLIBCONFIG = [
    ('#define GLIB_HAVE_ALLOCA_H\n', ''),
    ('#define GLIB_USING_SYSTEM_PRINTF\n', ''),
    ('typedef signed long gint64;', 'typedef signed long long gint64;'),
    ('typedef unsigned long guint64;', 'typedef unsigned long long guint64;'),
    ('(val##L)', '(val##LL)'),
    ('(val##UL)', '(val##ULL)'),
    ('#define G_GINT64_MODIFIER "l"', '#define G_GINT64_MODIFIER "ll"'),
    ('#define G_GINT64_FORMAT "li"', '#define G_GINT64_FORMAT "lli"'),
    ('#define G_GUINT64_FORMAT "lu"', '#define G_GUINT64_FORMAT "llu"'),
    ('#define GLIB_SIZEOF_LONG   8', '#define GLIB_SIZEOF_LONG   4'),
    ('typedef signed long gssize;', 'typedef signed long long gssize;'),
    ('typedef unsigned long gsize;', 'typedef unsigned long long gsize;'),
    ('#define G_GSIZE_MODIFIER "l"', '#define G_GSIZE_MODIFIER "ll"'),
    ('#define G_GSSIZE_MODIFIER "l"', '#define G_GSSIZE_MODIFIER "ll"'),
    ('#define G_GSIZE_FORMAT "lu"', '#define G_GSIZE_FORMAT "llu"'),
    ('#define G_GSSIZE_FORMAT "li"', '#define G_GSSIZE_FORMAT "lli"'),
    ('G_MAXSIZE\tG_MAXULONG', 'G_MAXSIZE\tG_MAXUINT64'),
    ('G_MINSSIZE\tG_MINLONG', 'G_MINSSIZE\tG_MININT64'),
    ('G_MAXSSIZE\tG_MAXLONG', 'G_MAXSSIZE\tG_MAXINT64'),
    ('#define G_POLLFD_FORMAT "%d"', '#define G_POLLFD_FORMAT "%#llx"'),
    ('((gint)  (glong) (p))', '((gint)  (gint64) (p))'),
    ('((guint) (gulong) (p))', '((guint) (guint64) (p))'),
    ('((gpointer) (glong) (i))', '((gpointer) (gint64) (i))'),
    ('((gpointer) (gulong) (u))', '((gpointer) (guint64) (u))'),
    ('typedef signed long gintptr;', 'typedef signed long long gintptr;'),
    ('typedef unsigned long guintptr;', 'typedef unsigned long long guintptr;'),
    ('#define G_GINTPTR_MODIFIER      "l"', '#define G_GINTPTR_MODIFIER      "ll"'),
    ('#define G_GINTPTR_FORMAT        "li"', '#define G_GINTPTR_FORMAT        "lli"'),
    ('#define G_GUINTPTR_FORMAT       "lu"', '#define G_GUINTPTR_FORMAT       "llu"'),
    ('#define G_OS_UNIX\n', '#define G_OS_WIN32\n#define G_PLATFORM_WIN32\n'),
    ('#define G_THREADS_IMPL_POSIX', '#define G_THREADS_IMPL_WIN32'),
    ('((glong) GINT64_TO_LE (val))', '((glong) GINT32_TO_LE (val))'),
    ('((gulong) GUINT64_TO_LE (val))', '((gulong) GUINT32_TO_LE (val))'),
    ('((glong) GINT64_TO_BE (val))', '((glong) GINT32_TO_BE (val))'),
    ('((gulong) GUINT64_TO_BE (val))', '((gulong) GUINT32_TO_BE (val))'),
    ('#define G_MODULE_SUFFIX "so"', '#define G_MODULE_SUFFIX "dll"'),
    ('typedef int GPid;', 'typedef void * GPid;'),
    ('#define G_PID_FORMAT "i"', '#define G_PID_FORMAT "p"'),
    ('#define GLIB_SYSDEF_AF_INET6 10', '#define GLIB_SYSDEF_AF_INET6 23'),
    ("#define G_DIR_SEPARATOR '/'", "#define G_DIR_SEPARATOR '\\\\'"),
    ('#define G_DIR_SEPARATOR_S "/"', '#define G_DIR_SEPARATOR_S "\\\\"'),
    ("#define G_SEARCHPATH_SEPARATOR ':'", "#define G_SEARCHPATH_SEPARATOR ';'"),
    ('#define G_SEARCHPATH_SEPARATOR_S ":"', '#define G_SEARCHPATH_SEPARATOR_S ";"'),
]


def windows_glibconfig(cflags, outdir):
    """Writes outdir/glibconfig.h for Windows from the host's; None when the host's is not the
    64-bit Linux one this knows how to translate (every line must be found exactly once)."""
    for flag in cflags:
        host = os.path.join(flag[2:], 'glibconfig.h') if flag.startswith('-I') else ''
        if host and os.path.exists(host):
            text = open(host, encoding='utf-8').read()
            for old, new in WINDOWS_GLIBCONFIG:
                if text.count(old) != 1:
                    print(f'{host}: cannot translate for Windows: {old!r} found '
                          f'{text.count(old)} times')
                    return None
                text = text.replace(old, new)
            with open(os.path.join(outdir, 'glibconfig.h'), 'w', encoding='utf-8') as out:
                out.write(text)
            return outdir
    print('no glibconfig.h among the include directories')
    return None


def cross(srcroot, cc, build_include, files, cflags):
    if shutil.which(cc) is None:
        # scripts/setup-debian.sh installs it; CI counts a skip as a failure.
        print(f'{cc} is not installed (scripts/setup-debian.sh installs gcc-mingw-w64-x86-64)')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        config = windows_glibconfig(cflags, tmp)
        if config is None:
            return 1
        return cross_with(srcroot, cc, [config, build_include], files, cflags)


def cross_with(srcroot, cc, first_includes, files, cflags):
    failed = 0
    includes = first_includes + [os.path.join(srcroot, d) for d in
                                  ('core', 'core/include', 'core/include/dsh-sandbox',
                                   'core/sandbox', 'core/session', 'modules')]
    for f in files:
        cmd = [cc, '-std=gnu11', '-fsyntax-only', '-Wall', '-Wextra', '-Werror',
               '-Wno-unused-parameter', '-Wno-missing-field-initializers',
               '-DDSH_SANDBOX_COMPILATION'] + ['-I' + i for i in includes] + cflags + [f]
        result = subprocess.run(cmd, capture_output=True, text=True)
        print(f'{"ok" if result.returncode == 0 else "FAILED"}: {os.path.relpath(f, srcroot)}')
        if result.returncode != 0:
            print(result.stderr)
            failed += 1
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == 'scan':
        return scan(argv[2])
    if len(argv) >= 6 and argv[1] == 'cross' and '--' in argv:
        sep = argv.index('--')
        return cross(argv[2], argv[3], argv[4], argv[5:sep], argv[sep + 1:])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
