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
import struct
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


def loaded_extent(path):
    """Where the last loadable segment of an ELF64 little-endian file ends in the file."""
    with open(path, 'rb') as f:
        data = f.read()
    phoff, = struct.unpack_from('<Q', data, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
    end = 0
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            '<IIQQQQ', data, phoff + i * phentsize)
        if p_type == 1:  # PT_LOAD
            end = max(end, p_offset + p_filesz)
    return end


def test_incomplete_module_refused():
    """A module caught half-written (its segments run past its end) is refused, not mapped."""
    directory = scratch()
    module = install(BWRAP, directory, 'libdsh-backend-bwrap.so')
    with open(module, 'r+b') as f:
        f.truncate(loaded_extent(module) - 1)
    proc = subprocess.run([CLI, 'probe', '--json'], env=env_for(directory), cwd='/',
                          capture_output=True)
    check(proc.returncode >= 0, 'probe died of signal %d' % -proc.returncode)
    check(b'the module file changed while it was read, or is incomplete' in proc.stdout,
          'a truncated module was not refused as incomplete: %r' % proc.stdout[:2000])
    shutil.rmtree(directory)


def memfd_modules(pid):
    """The distinct private module copies mapped into pid, as (name, inode) pairs."""
    found = set()
    with open('/proc/%d/maps' % pid) as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and fields[5].startswith('/memfd:dsh-backend-'):
                found.add((fields[5].split()[0], fields[4]))
    return found


def file_mappings(pid, directory):
    with open('/proc/%d/maps' % pid) as maps:
        return [line for line in maps if directory in line]


def replace_by_rename(src, directory, name):
    staging = os.path.join(directory, '.staging-' + name)
    shutil.copyfile(src, staging)
    os.chmod(staging, 0o644)
    os.rename(staging, os.path.join(directory, name))


def test_serve_under_module_churn():
    directory = scratch()
    workspace = scratch()
    bwrap = install(BWRAP, directory, 'libdsh-backend-bwrap.so')
    landlock = install(LANDLOCK, directory, 'libdsh-backend-landlock.so')
    server = subprocess.Popen([CLI, 'serve'], env=env_for(directory), cwd=workspace,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    responses = []
    stop = threading.Event()
    sent = [0]
    peak = [0]

    def read():
        for line in server.stdout:
            responses.append((time.monotonic(), json.loads(line)))

    def write():
        request = json.dumps({'method': 'confine', 'params': {'argv': ['true']}}) + '\n'
        burst = request.encode() * 50
        while not stop.is_set():
            try:
                server.stdin.write(burst)
                server.stdin.flush()
            except BrokenPipeError:
                return
            sent[0] += 50

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], len(memfd_modules(server.pid)))
            except OSError:
                return
            time.sleep(0.01)

    threads = [threading.Thread(target=f, daemon=True) for f in (read, write, sample)]
    for t in threads:
        t.start()
    pause = 0.3
    time.sleep(pause)
    # Loaded modules rewritten in place, each time with other code.
    rewrite_in_place(landlock, BWRAP)
    time.sleep(pause)
    rewrite_in_place(landlock, LANDLOCK)
    time.sleep(pause)
    replace_by_rename(BWRAP, directory, 'libdsh-backend-bwrap.so')
    time.sleep(pause)
    # bwrap's file now holds Landlock's code: refused by name, so Landlock serves.
    rewrite_in_place(bwrap, LANDLOCK)
    time.sleep(pause)
    replace_by_rename(BWRAP, directory, 'libdsh-backend-bwrap.so')
    time.sleep(pause)
    os.unlink(landlock)
    time.sleep(pause)
    removed = time.monotonic()
    os.unlink(bwrap)
    time.sleep(2 * pause)
    added = time.monotonic()
    replace_by_rename(BWRAP, directory, 'libdsh-backend-bwrap.so')
    time.sleep(2 * pause)
    stop.set()
    threads[1].join()
    threads[2].join()
    # Idle: every request answered, only the current generation's module still mapped.
    deadline = time.monotonic() + 60
    while len(responses) < sent[0] and time.monotonic() < deadline:
        time.sleep(0.05)
    check(len(responses) == sent[0], 'serve answered %d of %d requests'
          % (len(responses), sent[0]))
    if server.poll() is not None:
        check(False, 'serve died (status %d): %r' % (server.returncode, server.stderr.read()))
        return
    mapped = memfd_modules(server.pid)
    check(len(mapped) == 1 and next(iter(mapped))[0] == '/memfd:dsh-backend-bwrap',
          'after the churn, serve maps these module copies: %r' % sorted(mapped))
    check(file_mappings(server.pid, directory) == [],
          'serve maps a module file itself: %r' % file_mappings(server.pid, directory))
    check(peak[0] <= 4, 'up to %d module copies were mapped at once' % peak[0])
    server.stdin.close()
    err = server.stderr.read()
    check(server.wait(timeout=60) == 0, 'serve exited %d' % server.returncode)
    check(err == b'', 'serve wrote on stderr: %r' % err)

    failed_early = failed_late = gone = 0
    backends = set()
    dialects = {}
    for received, response in responses:
        if 'result' in response:
            result = response['result']
            backends.add(result['backend'])
            dialects.setdefault(result['backend'], set()).add(json.dumps(
                [result[k] for k in ('denialSignatures', 'denialExclusions',
                                     'runnerFailureRules')]))
            continue
        error = response.get('error', {})
        if not check(error.get('code') == 'SANDBOX_UNAVAILABLE' and
                     error.get('message', '').startswith(UNAVAILABLE),
                     'a call failed otherwise than unavailable: %r' % error):
            break
        if received < removed:
            failed_early += 1
        elif received > added + 1.0:
            failed_late += 1
        else:
            gone += 1
    check(failed_early == 0, '%d calls failed before the last module was removed' % failed_early)
    check(failed_late == 0, '%d calls failed after a module was back' % failed_late)
    check(gone > 0, 'no call noticed that every module was removed')
    check(backends == {'bwrap', 'landlock'}, 'calls were served by %r' % sorted(backends))
    # Each answer carries the dialect of the backend that confined it, across every reload.
    check(all(len(texts) == 1 for texts in dialects.values()),
          'one backend answered with several dialects: %r' % dialects)
    check(len(set().union(*dialects.values())) == len(dialects),
          'two backends answered with the same dialect: %r' % dialects)
    print('%d confines through %d kinds of module change, %d refused while no module was there'
          % (len(responses), 6, gone))
    shutil.rmtree(directory)
    shutil.rmtree(workspace)


def main():
    test_exec_survives_rewrite()
    test_incomplete_module_refused()
    test_serve_under_module_churn()
    if failures:
        print('%d failure(s)' % len(failures), file=sys.stderr)
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
