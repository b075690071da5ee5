#!/usr/bin/env python3
"""Hot reload as an operator does it: module files rewritten in place, replaced by rename and
removed while calls are in flight. exec must survive an in-place rewrite of the module it runs
on; serve must keep answering every confine (no crash, no failure that should have been a
success), notice each change by itself, and unmap a generation's modules once its last call
has ended.

Usage: test-hot-reload.py CLI BWRAP_MODULE LANDLOCK_MODULE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

CLI, BWRAP, LANDLOCK = (os.path.abspath(p) for p in sys.argv[1:4])
UNAVAILABLE = ('sandbox mode "read-only" is requested but no sandbox backend is usable on this '
               'host; refusing to run the command unconfined.')
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('FAIL: ' + message, file=sys.stderr)
    return condition


def scratch():
    # Outside /tmp and TMPDIR: those are writable roots, and modules there are refused.
    base = os.environ.get('DSH_TEST_SCRATCH') or '/var/tmp'
    if base.startswith('/tmp'):
        base = '/var/tmp'
    return tempfile.mkdtemp(prefix='hot-reload-', dir=base)


def install(src, directory, name):
    path = os.path.join(directory, name)
    shutil.copyfile(src, path)
    os.chmod(path, 0o644)
    return path


def rewrite_in_place(path, src):
    """What `cat new.so > module.so` does: the same inode, new bytes."""
    with open(src, 'rb') as f:
        data = f.read()
    with open(path, 'r+b') as f:
        f.truncate(0)
        f.write(data)


def env_for(module_dir, backend=None):
    env = dict(os.environ)
    env['DSH_SANDBOX_BACKEND_DIR'] = module_dir
    env['DSH_SANDBOX_PROBE_CACHE'] = 'off'
    env.pop('DSH_SANDBOX_BACKEND', None)
    if backend is not None:
        env['DSH_SANDBOX_BACKEND'] = backend
    return env


def test_exec_survives_rewrite():
    directory = scratch()
    workspace = scratch()
    flag = os.path.join(workspace, 'go')
    module = install(BWRAP, directory, 'libdsh-backend-bwrap.so')
    script = 'echo started; while [ ! -e "$1" ]; do sleep 0.02; done; echo finished'
    proc = subprocess.Popen([CLI, 'exec', '--mode', 'read-only', '--', 'sh', '-c', script, 'sh',
                             flag], env=env_for(directory, 'bwrap'), cwd=workspace,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    check(first == b'started\n', 'exec: the command did not start: %r' % first)
    # The module is loaded and the call is live: overwrite it with other code, then let the
    # command end so that exec unloads it.
    rewrite_in_place(module, LANDLOCK)
    open(flag, 'w').close()
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == 0, 'exec after an in-place rewrite of its module exited %d: %s'
          % (proc.returncode, err.decode(errors='replace')))
    check(out == b'finished\n', 'exec: unexpected output %r' % out)
    shutil.rmtree(directory)
    shutil.rmtree(workspace)


def main():
    test_exec_survives_rewrite()
    if failures:
        print('%d failure(s)' % len(failures), file=sys.stderr)
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
