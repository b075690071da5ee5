#!/usr/bin/env python3
"""An agent harness in Python, standard library only, driving one whole tool call through
`dsh-sandbox serve`: a session, its policy, the confined argv, spawning it, classifying what
happened, asking for an escalation after a denial, and the one sanctioned retry.

    python3 harness.py [--cli PATH] [--workspace DIR --session FILE | --scratch DIR]

runs `sh -c 'echo hello > note.txt'` in the workspace (without one, a new directory under
--scratch, default /var/tmp: neither the session log nor the workspace may lie in /tmp) under the session's read-only default, so the
sandbox denies the write; the harness answers the server's approval question with
allowed-once, retries under the granted mode and checks that note.txt now says hello.
"""
import argparse
import base64
import itertools
import json
import os
import subprocess
import sys
import tempfile

# What steers one dsh-sandbox call is no part of the confined command's environment (README:
# "These steer one call and are not the command's").
CALL_ONLY = ('DSH_SANDBOX_BACKEND', 'DSH_SANDBOX_BACKEND_DIR', 'DSH_SANDBOX_PROBE_CACHE',
             'DSH_SANDBOX_APPROVER_TIMEOUT')


class ServeError(Exception):
    def __init__(self, code, message):
        super().__init__('%s: %s' % (code, message))
        self.code = code
        self.message = message


class Sandbox:
    """One `dsh-sandbox serve` process; call() sends a request and returns its result."""

    def __init__(self, cli='dsh-sandbox', cwd=None, approve=None):
        self.process = subprocess.Popen([cli, 'serve'], cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, encoding='utf-8')
        self.ids = itertools.count(1)
        # Asked for each approval request the server sends during escalate; returns an
        # outcome word (allowed-once, rejected, cancelled, unavailable).
        self.approve = approve or (lambda request: 'unavailable')

    def _send(self, message):
        self.process.stdin.write(json.dumps(message) + '\n')
        self.process.stdin.flush()

    def call(self, method, **params):
        request_id = next(self.ids)
        self._send({'id': request_id, 'method': method, 'params': params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise ServeError('FAILED', 'dsh-sandbox serve ended')
            message = json.loads(line)
            if message.get('method') == 'approval.request':
                # The server asks us; our very next line is the answer.
                self._send({'result': self.approve(message['params'])})
                continue
            if message.get('id') != request_id:
                raise ServeError('FAILED', 'a response out of order: %r' % message)
            if 'error' in message:
                raise ServeError(message['error']['code'], message['error']['message'])
            return message['result']

    def close(self):
        self.process.stdin.close()
        return self.process.wait()


def confined_environment():
    env = {k: v for k, v in os.environ.items() if k not in CALL_ONLY}
    env['DSH_SANDBOX_PROBE_CACHE'] = 'off'
    return env


def spawn(argv, cwd, confined):
    """Runs argv with descriptors 0-2 only; a confined argv gets the environment without the
    call-only variables, a raw one (danger-full-access) ours unchanged."""
    result = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                            close_fds=True, env=confined_environment() if confined else None)
    sys.stdout.buffer.write(result.stdout)
    sys.stderr.buffer.write(result.stderr)
    # 128+N for signal N, as exec reports it.
    status = result.returncode if result.returncode >= 0 else 128 - result.returncode
    return status, result.stderr


def classify(sandbox, confined, mode, status, stderr, session, escalated=False):
    params = {'backend': confined['backend'], 'mode': mode, 'exitStatus': status,
              'session': session, 'escalated': escalated}
    try:
        params['stderr'] = stderr.decode('utf-8')
    except UnicodeDecodeError:
        params['stderrBase64'] = base64.b64encode(stderr).decode('ascii')
    return sandbox.call('classify', **params)


def run_tool_call(sandbox, session, workspace, argv, call_id):
    """One bash tool call as an agent harness makes it; returns (outcome, lines for the model)."""
    policy = sandbox.call('policy.resolve', session=session)
    mode = policy['mode']
    if mode == 'danger-full-access':
        status, _ = spawn(argv, workspace, confined=False)
        return 'completed', []
    confined = sandbox.call('confine', argv=argv, session=session)
    status, stderr = spawn(confined['argv'], workspace, confined=True)
    verdict = classify(sandbox, confined, mode, status, stderr, session)
    lines = [verdict[k] for k in ('marker', 'hint') if k in verdict]
    if verdict['outcome'] != 'denied' or 'hint' not in verdict:
        return verdict['outcome'], lines

    # The model saw the hint and asks to run the same command once under a wider mode.
    grant = sandbox.call('escalate', session=session, argv=argv,
                         sandboxPermissions='workspace-write',
                         justification='the command writes note.txt in the workspace',
                         callId=call_id)
    if grant['mode'] == 'danger-full-access':
        status, _ = spawn(argv, workspace, confined=False)
        return 'completed', lines
    confined = sandbox.call('confine', argv=argv, session=session, mode=grant['mode'])
    status, stderr = spawn(confined['argv'], workspace, confined=True)
    verdict = classify(sandbox, confined, grant['mode'], status, stderr, session, escalated=True)
    return verdict['outcome'], lines + [verdict[k] for k in ('marker', 'hint') if k in verdict]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cli', default='dsh-sandbox')
    parser.add_argument('--workspace')
    parser.add_argument('--session')
    parser.add_argument('--scratch', default='/var/tmp')
    args = parser.parse_args()
    if args.workspace is None or args.session is None:
        base = tempfile.mkdtemp(prefix='dsh-harness-', dir=args.scratch)
        args.workspace = os.path.join(base, 'workspace')
        args.session = os.path.join(base, 'session.jsonl')
        os.mkdir(args.workspace)
    workspace = os.path.realpath(args.workspace)
    if os.sep in args.cli:
        args.cli = os.path.abspath(args.cli)
    note = os.path.join(workspace, 'note.txt')
    questions = []

    def approve(request):
        questions.append(request)
        print('approval asked: %s' % request['reason'], file=sys.stderr)
        return 'allowed-once'

    sandbox = Sandbox(args.cli, cwd=workspace, approve=approve)
    session_id = sandbox.call('session.new', session=args.session, cwd=workspace)['id']
    print(sandbox.call('describe')['text'].splitlines()[0])
    print(sandbox.call('policy.context', session=args.session)['text'].splitlines()[0])
    outcome, lines = run_tool_call(sandbox, args.session, workspace,
                                   ['sh', '-c', 'echo hello > note.txt'], 'call-1')
    for line in lines:
        print('to the model: ' + line)
    show = sandbox.call('session.show', session=args.session)
    status = sandbox.close()

    failures = []
    if not lines or not lines[0].startswith('[sandbox: file access denied under read-only mode]'):
        failures.append('the first run was not denied with the marker: %r' % lines)
    if len(lines) < 2 or not lines[1].startswith('[sandbox: escalation available'):
        failures.append('no escalation hint after the denial: %r' % lines)
    if len(questions) != 1 or questions[0].get('sessionId') != session_id:
        failures.append('the approval question was not asked once for this session')
    if outcome != 'completed' or not os.path.exists(note) or open(note).read() != 'hello\n':
        failures.append('the retry did not write note.txt (outcome %s)' % outcome)
    decided = [e for e in show['events'] if e['type'] == 'approval/decided']
    if [e['data'].get('outcome') for e in decided] != ['allowed-once']:
        failures.append('the session does not record the decision: %r' % decided)
    if status != 0:
        failures.append('serve exited %d' % status)
    for failure in failures:
        print('FAIL: ' + failure, file=sys.stderr)
    print('outcome: %s' % outcome)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
