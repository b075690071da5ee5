#!/usr/bin/env python3
"""What users expect of any command line: `help COMMAND` is `COMMAND --help`; every --help lists
the environment variables that change that command (checked against the variables the sources
really read); `exec --report -` and `--report /dev/fd/N` (a real inherited descriptor) work;
a refused call still gets its report; and all of it the same through the front (dsh-sandbox)
and the full command (dsh-sandbox-full).

Usage: test-cli-habits.py CLI FULL_CLI SOURCE_ROOT VALIDATOR SCHEMAS_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CLI, FULL, ROOT, VALIDATOR, SCHEMAS = (os.path.abspath(p) for p in sys.argv[1:6])
COMMANDS = ['probe', 'confine', 'exec', 'session', 'policy', 'describe', 'serve']
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('FAIL: ' + message, file=sys.stderr)
    return condition


def run(argv, **kwargs):
    env = dict(os.environ)
    env.pop('DSH_SANDBOX_CONFIG', None)
    env['DSH_SANDBOX_PROBE_CACHE'] = 'off'
    return subprocess.run(argv, capture_output=True, env=env, **kwargs)


def valid_report(text, what):
    proc = subprocess.run([sys.executable, VALIDATOR,
                           os.path.join(SCHEMAS, 'exec-report.schema.json'), '-'],
                          input=text, capture_output=True)
    check(proc.returncode == 0, '%s: the report does not validate: %s %s'
          % (what, proc.stdout.decode(errors='replace'), text[:500]))
    try:
        return json.loads(text)
    except ValueError:
        check(False, '%s: the report is not JSON: %r' % (what, text[:500]))
        return {}


# ---- help ------------------------------------------------------------------------------------

def helps():
    texts = {}
    for command in COMMANDS:
        for binary in (CLI, FULL):
            by_help = run([binary, 'help', command])
            by_option = run([binary, command, '--help'])
            check(by_help.returncode == 0 and by_option.returncode == 0,
                  '%s help %s exited %d, %s --help %d' % (binary, command, by_help.returncode,
                                                          command, by_option.returncode))
            check(by_help.stdout == by_option.stdout,
                  '%s: "help %s" differs from "%s --help"' % (binary, command, command))
        texts[command] = by_help.stdout.decode()
        check('Environment:' in texts[command], '%s --help lists no environment' % command)
    sub = run([CLI, 'help', 'session', 'new'])
    check(sub.returncode == 0 and b'--cwd' in sub.stdout,
          '"help session new" is not the help of session new: %r' % sub.stdout[:300])
    unknown = run([CLI, 'help', 'bogus'])
    check(unknown.returncode == 125 and b'unknown command "bogus"' in unknown.stderr,
          '"help bogus" did not name the unknown command: %r' % unknown.stderr)
    return texts


# Which commands run the code of each file that reads the environment. A file missing here
# fails the test: whoever makes the code read a new variable says what it changes.
SELECTION = ['probe', 'confine', 'exec', 'serve']
ROOTS = ['probe', 'confine', 'exec', 'session', 'policy', 'serve']
SESSIONS = ['confine', 'exec', 'session', 'policy', 'describe', 'serve']
READERS = {
    'core/sandbox/dsh-backend-selector.c': SELECTION,
    'core/sandbox/dsh-probe-cache.c': SELECTION,
    'core/sandbox/dsh-backend-host.c': SELECTION,
    'core/sandbox/dsh-run.c': SELECTION,
    'cli/dsh-cli-options.c': SELECTION,
    'cli/dsh-cli-policy.c': ['probe', 'confine', 'exec', 'serve'],
    'core/sandbox/dsh-roots.c': ROOTS,
    'core/sandbox/dsh-root-grants-place.c': ROOTS,
    'core/sandbox/dsh-roots-windows.c': ROOTS,
    'core/sandbox/dsh-spawn-windows.c': SELECTION,
    'core/session/dsh-session-fold-cache.c': SESSIONS,
    'core/session/dsh-permission-presets.c': SESSIONS,
    'core/session/dsh-permission-presets-cache.c': SESSIONS,
    'cli/dsh-cli-session.c': SESSIONS,
    'cli/dsh-sandbox-front.c': ['exec'],
    'core/session/dsh-command-answerer.c': ['exec'],
    'cli/dsh-cmd-serve.c': ['serve'],
    'cli/dsh-cmd-confine.c': ['confine'],
}
# GLib's getters and the variables they read.
GETTERS = {
    'g_get_tmp_dir': 'TMPDIR',
    'g_get_home_dir': 'HOME',
    'g_get_user_state_dir': 'XDG_STATE_HOME',
    'g_get_user_cache_dir': 'XDG_CACHE_HOME',
    'g_find_program_in_path': 'PATH',
}


def sources():
    for top in ('core', 'cli'):
        for directory, _, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith(('.c', '.h')):
                    path = os.path.join(directory, name)
                    with open(path, encoding='utf-8') as f:
                        yield os.path.relpath(path, ROOT), f.read()


def variables_read():
    """{variable: set of files reading it} over core/ and cli/."""
    macros = {}
    for _, text in sources():
        macros.update(re.findall(r'#define\s+(\w+)\s+"([A-Z_]+)"', text))
    found = {}
    for relative, text in sources():
        names_read = set(re.findall(r'getenv \("([A-Z_]+)"\)', text))
        for macro in re.findall(r'getenv \(([A-Z_]+)\)', text):
            if check(macro in macros, '%s reads %s, defined nowhere' % (relative, macro)):
                names_read.add(macros[macro])
        names_read |= {var for getter, var in GETTERS.items()
                       if re.search(r'\b%s \(' % getter, text)}
        for var in names_read:
            found.setdefault(var, set()).add(relative)
    return found


def test_environment_help(texts):
    listed = {c: set(re.findall(r'^  ([A-Z_]+) ', t.split('Environment:', 1)[-1], re.M))
              for c, t in texts.items()}
    read = variables_read()
    check('DSH_SANDBOX_BACKEND' in read and 'TMPDIR' in read,
          'the source scan found too little: %s' % sorted(read))
    for var, files in sorted(read.items()):
        for path in sorted(files):
            if not check(path in READERS, '%s reads %s: say which commands it changes' %
                         (path, var)):
                continue
            for command in READERS[path]:
                check(var in listed[command], '%s --help does not list %s (read in %s)' %
                      (command, var, path))
    for command, names in listed.items():
        for var in names - set(read):
            check(False, '%s --help lists %s, which nothing reads' % (command, var))


# ---- reports ---------------------------------------------------------------------------------

# Through the front, the plain options stay on its lean path; --approval-policy never sends
# the same call to the full command. And the full command directly.
def exec_variants(options):
    return [('front', [CLI, 'exec'] + options),
            ('front-to-full', [CLI, 'exec', '--approval-policy', 'never'] + options),
            ('full', [FULL, 'exec'] + options)]


def test_report_to_stdout(workspace):
    for label, argv in exec_variants(['--report', '-', '--', 'echo', 'hello']):
        proc = run(argv, cwd=workspace)
        check(proc.returncode == 0, '%s: --report - exited %d: %r' % (label, proc.returncode,
                                                                       proc.stderr))
        check(proc.stdout.startswith(b'hello\n'),
              '%s: the command\'s output does not come first: %r' % (label, proc.stdout[:200]))
        report = valid_report(proc.stdout[len(b'hello\n'):], label + ' --report -')
        check(report.get('outcome') == 'completed' and report.get('exitCode') == 0,
              '%s: --report - says %r' % (label, report))


def test_report_to_inherited_descriptor(workspace):
    for label, argv in exec_variants(['--report', 'PLACEHOLDER', '--', 'sh', '-c', 'exit 3']):
        read_end, write_end = os.pipe()
        argv = [a if a != 'PLACEHOLDER' else '/dev/fd/%d' % write_end for a in argv]
        proc = subprocess.Popen(argv, cwd=workspace, pass_fds=(write_end,),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(write_end)
        with os.fdopen(read_end, 'rb') as pipe:
            text = pipe.read()
        out, err = proc.communicate(timeout=60)
        check(proc.returncode == 3, '%s: --report /dev/fd/N exited %d: %r' %
              (label, proc.returncode, err))
        report = valid_report(text, label + ' --report /dev/fd/N')
        check(report.get('exitCode') == 3, '%s: /dev/fd/N report says %r' % (label, report))
    # A descriptor that is not open, or open for reading only, is refused by its name.
    proc = run([CLI, 'exec', '--report', '/dev/fd/9', '--', 'true'], cwd=workspace)
    check(proc.returncode == 125 and b'/dev/fd/9' in proc.stderr and b'not open' in proc.stderr,
          'a closed /dev/fd/9 was not refused by name: %r' % proc.stderr)
    read_end, write_end = os.pipe()
    proc = subprocess.run([CLI, 'exec', '--report', '/dev/fd/%d' % read_end, '--', 'true'],
                          cwd=workspace, pass_fds=(read_end,), capture_output=True)
    os.close(read_end)
    os.close(write_end)
    check(proc.returncode == 125 and b'reading only' in proc.stderr,
          'a read-only report descriptor was not refused: %r' % proc.stderr)


def test_report_file_refusal_names_path(workspace):
    link = os.path.join(workspace, 'report-link')
    os.symlink(os.path.join(workspace, 'elsewhere'), link)
    proc = run([CLI, 'exec', '--report', link, '--', 'true'], cwd=workspace)
    check(proc.returncode == 125 and link.encode() in proc.stderr and
          b'symbolic link' in proc.stderr,
          'a symlinked report path was not refused by name: %r' % proc.stderr)
    check(not os.path.exists(os.path.join(workspace, 'elsewhere')),
          'the report followed a symlink')


def refusal_cases(workspace, session):
    return [
        ('unknown option', ['--bogus'], 'invalid-argument', 'bogus'),
        ('bad mode', ['--mode', 'read-mostly'], 'invalid-argument', 'read-mostly'),
        ('no command', [], 'invalid-argument', 'no command given'),
        ('bad approval policy', ['--approval-policy', 'sometimes'], 'invalid-argument',
         'sometimes'),
        ('refused root', ['--mode', 'workspace-write', '--workspace', '/'], 'root-refused',
         'workspace root /'),
        ('unknown answer', ['--session', session, '--sandbox-permissions', 'workspace-write',
                            '--justification', 'needs it', '--approver', '/bin/echo perhaps'],
         'escalation-refused', None),
    ]


def test_refusals_get_a_report(workspace, session):
    report_path = os.path.join(workspace, 'report.json')
    for name, options, outcome, needle in refusal_cases(workspace, session):
        for binary in (CLI, FULL):
            label = '%s (%s)' % (name, os.path.basename(binary))
            if os.path.exists(report_path):
                os.unlink(report_path)
            command = [] if name == 'no command' else ['--', 'true']
            proc = run([binary, 'exec', '--report', report_path] + options + command,
                       cwd=workspace)
            lines = proc.stderr.decode(errors='replace').splitlines()
            check(proc.returncode == 125, '%s: exited %d' % (label, proc.returncode))
            check(len(lines) == 1 and lines[0].startswith('dsh-sandbox: '),
                  '%s: not one refusal line: %r' % (label, lines))
            if needle is not None:
                check(needle in proc.stderr.decode(errors='replace'),
                      '%s: the message does not name %r: %r' % (label, needle, lines))
            if not check(os.path.exists(report_path), '%s: no report was written' % label):
                continue
            with open(report_path, 'rb') as f:
                report = valid_report(f.read(), label)
            check(report.get('outcome') == outcome and report.get('commandRan') is False,
                  '%s: the report says %r, not %s' % (label, report.get('outcome'), outcome))
            if lines:
                check(lines[0] == 'dsh-sandbox: ' + (report.get('detail') or ''),
                      '%s: the report\'s detail is not the refusal line' % label)


def main():
    base = os.environ.get('DSH_TEST_SCRATCH') or '/var/tmp'
    if base.startswith('/tmp'):
        base = '/var/tmp'
    scratch = tempfile.mkdtemp(prefix='cli-habits-', dir=base)
    workspace = os.path.join(scratch, 'workspace')
    os.mkdir(workspace)
    session = os.path.join(scratch, 'session.jsonl')
    made = run([CLI, 'session', 'new', session, '--cwd', workspace])
    check(made.returncode == 0, 'session new failed: %r' % made.stderr)
    try:
        test_environment_help(helps())
        test_report_to_stdout(workspace)
        test_report_to_inherited_descriptor(workspace)
        test_report_file_refusal_names_path(workspace)
        test_refusals_get_a_report(workspace, session)
    finally:
        shutil.rmtree(scratch)
    if failures:
        print('%d failure(s)' % len(failures), file=sys.stderr)
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
