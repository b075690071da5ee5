#!/usr/bin/env python3
"""serve's confine throughput: pipelined (every request written at once, the rate at which the
answers come back) and one at a time (write one request, wait for its answer; median and p99 of
the round trip, which includes this client's own few microseconds). Prints JSON.

Usage: bench-serve.py DSH-SANDBOX WORKSPACE [PIPELINED] [ONE_AT_A_TIME]
"""
import json
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


def start():
    server = subprocess.Popen([cli, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    # The first call scans the modules and selects: not what is measured.
    server.stdin.write(request(-1).encode())
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    if "result" not in answer:
        sys.exit("bench-serve: confine failed: %s" % answer)
    return server


server = start()
lines = "".join(request(i) for i in range(pipelined)).encode()
def write_all():
    server.stdin.write(lines)
    server.stdin.flush()


writer = threading.Thread(target=write_all)
t0 = time.perf_counter()
writer.start()
reader = server.stdout
for _ in range(pipelined):
    if not reader.readline():
        sys.exit("bench-serve: the server ended early")
elapsed = time.perf_counter() - t0
writer.join()
server.stdin.close()
server.wait()

server = start()
samples = []
for i in range(one_at_a_time):
    line = request(i).encode()
    t = time.perf_counter()
    server.stdin.write(line)
    server.stdin.flush()
    server.stdout.readline()
    samples.append((time.perf_counter() - t) * 1e6)
server.stdin.close()
server.wait()
samples.sort()
print(json.dumps({
    "pipelined_confines_per_s": round(pipelined / elapsed),
    "one_at_a_time_median_us": round(samples[len(samples) // 2], 1),
    "one_at_a_time_p99_us": round(samples[len(samples) * 99 // 100], 1),
}))
