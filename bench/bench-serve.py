#!/usr/bin/env python3
"""serve's confine throughput: pipelined (every request written at once, the rate at which the
answers come back) and one at a time (write one request, wait for its answer; median and p99 of
the round trip, which includes this client's own few microseconds). Prints JSON.

The client reads the server's stdout unbuffered into one buffer allocated beforehand and counts
the newlines, so that its own work per answer (2.1 us of CPU with readline, 1.0-1.2 us so) takes
less of the cores the server answers on; every answer is still checked to be a confine's result
once the clock has stopped.

Usage: bench-serve.py DSH-SANDBOX WORKSPACE [PIPELINED] [ONE_AT_A_TIME]
"""
import json
import os
import subprocess
import sys
import threading
import time

cli, workspace = sys.argv[1], sys.argv[2]
pipelined = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
one_at_a_time = int(sys.argv[4]) if len(sys.argv) > 4 else 2000


def request(i):
    return json.dumps({"id": i, "method": "confine",
                       "params": {"argv": ["true"], "mode": "workspace-write",
                                  "workspace": workspace}}) + "\n"


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_answer(fd):
    """One answer line (the server writes each in one piece; this waits for its end)."""
    answer = os.read(fd, 1 << 16)
    while answer and not answer.endswith(b"\n"):
        more = os.read(fd, 1 << 16)
        if not more:
            break
        answer += more
    return answer


def check(answer):
    if not answer.startswith(b'{"id":') or b',"result":{' not in answer:
        sys.exit("bench-serve: confine failed: %s" % answer[:400])


def start():
    server = subprocess.Popen([cli, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              bufsize=0)
    # The first call scans the modules and selects: not what is measured.
    write_all(server.stdin.fileno(), request(-1).encode())
    answer = read_answer(server.stdout.fileno())
    check(answer)
    return server, answer


server, first = start()
lines = "".join(request(i) for i in range(pipelined)).encode()
writer = threading.Thread(target=write_all, args=(server.stdin.fileno(), lines))
# Room for every answer, allocated (and so touched) before the clock starts.
received = bytearray(2 * len(first) * pipelined + (1 << 20))
view = memoryview(received)
size = seen = 0
t0 = time.perf_counter()
writer.start()
while seen < pipelined:
    n = server.stdout.readinto(view[size:size + (1 << 20)])
    if not n:
        sys.exit("bench-serve: the server ended early")
    seen += received.count(b"\n", size, size + n)
    size += n
elapsed = time.perf_counter() - t0
writer.join()
server.stdin.close()
server.wait()
answers = bytes(view[:size]).split(b"\n")
if len(answers) != pipelined + 1 or answers[-1] != b"":
    sys.exit("bench-serve: %d answers to %d requests" % (len(answers) - 1, pipelined))
for answer in answers[:-1]:
    check(answer)

server, _ = start()
samples = []
to_server, from_server = server.stdin.fileno(), server.stdout.fileno()
for i in range(one_at_a_time):
    line = request(i).encode()
    t = time.perf_counter()
    os.write(to_server, line)
    answer = read_answer(from_server)
    samples.append((time.perf_counter() - t) * 1e6)
    check(answer)
server.stdin.close()
server.wait()
samples.sort()
print(json.dumps({
    "pipelined_confines_per_s": round(pipelined / elapsed),
    "one_at_a_time_median_us": round(samples[len(samples) // 2], 1),
    "one_at_a_time_p99_us": round(samples[len(samples) * 99 // 100], 1),
}))
