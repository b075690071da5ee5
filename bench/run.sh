#!/bin/sh
# Measures, side by side in one run, what dsh-sandbox costs over the raw runners it wraps:
#   bare `true`, raw bwrap with the exact profile dsh-sandbox builds, dsh-sandbox exec under bwrap,
#   the raw Landlock launcher, dsh-sandbox exec under Landlock, and firejail as a peer;
# plus the floor (the raw runners under a do-nothing wrapper linked like dsh-sandbox), in-process
# confine() and peak memory. Writes bench/results.json and prints a summary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./scripts/setup-debian.sh --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
meson compile -C build >/dev/null

cli="$top/build/cli/dsh-sandbox"
launcher="$top/build/linux/landlock/dsh-landlock-exec"
workspace=$(mktemp -d)
trap 'rm -rf "$workspace"' EXIT
cd "$workspace"
true_bin=$(which true) # a path: `command -v` may name the shell builtin
runs=${DSH_BENCH_RUNS:-500}

# The raw runners get exactly the argv dsh-sandbox would spawn, shell-quoted.
confined_argv() {
  DSH_SANDBOX_BACKEND=$1 "$cli" confine --mode workspace-write -- "$true_bin" |
    python3 -c 'import json,shlex,sys; print(" ".join(shlex.quote(a) for a in json.load(sys.stdin)["argv"]))'
}
bwrap_argv=$(confined_argv bwrap)
# bwrap alone with the same namespaces and mounts, the writable roots bound by path: what the
# runner costs without dsh-bwrap-exec, which binds them from descriptors and checks them.
tmpdir_root=$(realpath "${TMPDIR:-/tmp}")
plain_bwrap_argv="$(command -v bwrap) --new-session --die-with-parent --unshare-user --unshare-pid \
--unshare-ipc --cap-drop ALL --ro-bind / / --dev /dev --proc /proc --ro-bind /proc/sys /proc/sys \
--ro-bind-try /proc/sysrq-trigger /proc/sysrq-trigger --tmpfs /tmp --bind $workspace $workspace \
--bind-try $tmpdir_root $tmpdir_root -- $true_bin"
landlock_argv=$(confined_argv landlock)

# Warm the user's probe cache, as any earlier call would, and make sure the measured calls use
# it: a cache they ignored (one below /tmp, say) would add a functional probe to every exec.
"$cli" probe >/dev/null
"$cli" probe --json | python3 -c 'import json,sys
c = json.load(sys.stdin)["candidates"][0]
sys.exit(0 if c["probe"] == "cached" else "bench: the probe cache is not used: " + c["probe"])'

floor="$top/build/bench/bench-floor"
interleave="$top/build/bench/bench-interleave"
# Each group's commands in turns (see bench-interleave.c for why not one after the other). The
# groups run apart: tearing down bwrap's and firejail's namespaces goes on in the kernel after
# they exit, and would otherwise land on the Landlock commands measured next to them. The
# backend override goes through the driver, so it costs no extra `env` process.
"$interleave" "$runs" \
  "bare=$true_bin" \
  "plain-bwrap=$plain_bwrap_argv" \
  "raw-bwrap=$bwrap_argv" \
  "floor-bwrap=$floor $bwrap_argv" \
  "dsh-exec-bwrap=$cli exec --mode workspace-write -- $true_bin" \
  "firejail=$(which firejail) --quiet --noprofile --read-only=/ --read-write=$workspace -- $true_bin" \
  >"$top/bench/interleaved-bwrap.json"
"$interleave" "$runs" \
  "bare=$true_bin" \
  "raw-landlock=$landlock_argv" \
  "floor-landlock=$floor $landlock_argv" \
  "dsh-exec-landlock=DSH_SANDBOX_BACKEND=landlock $cli exec --mode workspace-write -- $true_bin" \
  >"$top/bench/interleaved-landlock.json"

# Scaling: session length, stderr volume, serve's distinct workspaces.
scale_runs=${DSH_BENCH_SCALE_RUNS:-30}
# Session logs must lie out of the commands' reach (not below /tmp): a private directory here.
logs=$(mktemp -d -p "$HOME" dsh-bench-logs.XXXXXX)
trap 'rm -rf "$workspace" "$logs"' EXIT
for n in 10 10000 100000; do
  "$cli" session new "$logs/s$n.jsonl" --cwd "$workspace" >/dev/null
  python3 - "$logs/s$n.jsonl" "$n" <<'PY'
import sys, uuid
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "a") as f:
    for _ in range(n // 2):
        u = uuid.uuid4()
        f.write('{"type":"turn/start","data":{"id":"%s"},"time":"2026-12-01T10:00:00.000Z"}\n' % u)
        f.write('{"type":"turn/end","data":{"id":"%s"},"time":"2026-12-01T10:00:00.001Z"}\n' % u)
PY
  # The first call after the events were written reads the whole log and caches its fold.
  DSH_SANDBOX_BACKEND=bwrap "$cli" exec --session "$logs/s$n.jsonl" -- "$true_bin"
done
"$interleave" "$scale_runs" \
  "session-10=DSH_SANDBOX_BACKEND=bwrap $cli exec --session $logs/s10.jsonl -- $true_bin" \
  "session-10k=DSH_SANDBOX_BACKEND=bwrap $cli exec --session $logs/s10000.jsonl -- $true_bin" \
  "session-100k=DSH_SANDBOX_BACKEND=bwrap $cli exec --session $logs/s100000.jsonl -- $true_bin" \
  >"$top/bench/interleaved-session.json"

# Repository size: exec under bwrap in a repository whose index records 1 000 and 300 000 files
# (entries only, no work tree): each call scans the index for the submodules it must protect.
make_repo() { # DIR ENTRIES
  git init -q "$1"
  python3 -c 'import sys
for i in range(int(sys.argv[2])): print("100644 %s\td%03d/f%06d" % (sys.argv[1], i // 1000, i))' \
    "$(echo x | git -C "$1" hash-object -w --stdin)" "$2" | git -C "$1" update-index --index-info
}
make_repo "$workspace/repo-1k" 1000
make_repo "$workspace/repo-300k" 300000
repo_exec() { echo "DSH_SANDBOX_BACKEND=bwrap $cli exec --mode workspace-write --workspace $1 -- $true_bin"; }
"$interleave" "$scale_runs" \
  "repo-1k=$(repo_exec "$workspace/repo-1k")" \
  "repo-300k=$(repo_exec "$workspace/repo-300k")" \
  >"$top/bench/interleaved-repo.json"
rm -rf "$workspace/repo-1k" "$workspace/repo-300k"

# 100 MB of text on stderr (to /dev/null), through each raw runner and through exec.
python3 -c 'import sys; open(sys.argv[1], "wb").write((b"x" * 79 + b"\n") * 1250000)' \
  "$workspace/text"
flood="sh -c 'cat $workspace/text >&2'"
raw_flood() {
  DSH_SANDBOX_BACKEND=$1 "$cli" confine --mode workspace-write -- sh -c "cat $workspace/text >&2" |
    python3 -c 'import json,shlex,sys; print(" ".join(shlex.quote(a) for a in json.load(sys.stdin)["argv"]))'
}
# The relay floor: the same raw runner with its stderr through a pipe that is only spliced on,
# what any relay pays before it does anything; with --read every byte is read (the floor of a
# relay that sees the text, as exec's must to find a denial anywhere in it).
relay_floor="$top/build/bench/bench-relay-floor"
"$interleave" "$scale_runs" \
  "stderr-raw-bwrap=$(raw_flood bwrap)" \
  "stderr-floor-bwrap=$relay_floor $(raw_flood bwrap)" \
  "stderr-read-floor-bwrap=$relay_floor --read $(raw_flood bwrap)" \
  "stderr-dsh-bwrap=DSH_SANDBOX_BACKEND=bwrap $cli exec --mode workspace-write -- $flood" \
  "stderr-raw-landlock=$(raw_flood landlock)" \
  "stderr-floor-landlock=$relay_floor $(raw_flood landlock)" \
  "stderr-read-floor-landlock=$relay_floor --read $(raw_flood landlock)" \
  "stderr-dsh-landlock=DSH_SANDBOX_BACKEND=landlock $cli exec --mode workspace-write -- $flood" \
  >"$top/bench/interleaved-stderr.json"
# The same flood into a pipe that is read to its end, as a harness capturing stderr does: the
# raw runners then pay for the pipe too.
"$interleave" --stderr-pipe "$scale_runs" \
  "stderr-raw-bwrap=$(raw_flood bwrap)" \
  "stderr-dsh-bwrap=DSH_SANDBOX_BACKEND=bwrap $cli exec --mode workspace-write -- $flood" \
  "stderr-raw-landlock=$(raw_flood landlock)" \
  "stderr-dsh-landlock=DSH_SANDBOX_BACKEND=landlock $cli exec --mode workspace-write -- $flood" \
  >"$top/bench/interleaved-stderr-pipe.json"
rm -f "$workspace/text"

# serve's peak RSS after confines in N distinct workspaces (the cap keeps 64 providers).
serve_rss() {
  python3 - "$workspace" "$1" <<'PY' >"$logs/requests"
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    ws = os.path.join(root, "ws", str(i))
    os.makedirs(ws, exist_ok=True)
    print(json.dumps({"id": i, "method": "confine",
                      "params": {"argv": ["true"], "mode": "workspace-write", "workspace": ws}}))
PY
  /usr/bin/time -f %M "$cli" serve <"$logs/requests" 2>&1 >/dev/null | tail -n 1
}
serve_rss_64=$(serve_rss 64)
serve_rss_2000=$(serve_rss 2000)
serve_rss_20000=$(serve_rss 20000)
rm -rf "$workspace/ws"

confine=$("$top/build/bench/bench-confine" "$top/build/linux/bwrap" "$top/build/linux/bwrap")

# Workspace depth: in-process confine with the workspace 100, 400 and 1 900 directories down.
confine_depth() {
  deep=$(python3 - "$workspace/deep$1" "$1" <<'PY'
import os, sys
os.makedirs(sys.argv[1])
os.chdir(sys.argv[1])
for _ in range(int(sys.argv[2])):
    os.mkdir("d")
    os.chdir("d")
print(os.getcwd())
PY
)
  (cd "$deep" && "$top/build/bench/bench-confine" "$top/build/linux/bwrap" "$top/build/linux/bwrap")
  rm -rf "$workspace/deep$1"
}
confine_depth_100=$(confine_depth 100)
confine_depth_400=$(confine_depth 400)
confine_depth_1900=$(confine_depth 1900)

# serve's confine throughput, pipelined and one request at a time, and the same client against
# a line server that answers at once (the round trip's floor on this machine).
serve_rate=$(python3 "$top/bench/bench-serve.py" "$cli" "$workspace")
serve_floor=$(python3 "$top/bench/bench-serve.py" "$top/build/bench/bench-serve-floor" "$workspace")
peak_kib=$(/usr/bin/time -f %M "$cli" exec --mode workspace-write -- "$true_bin" 2>&1 >/dev/null | tail -n 1)

python3 - "$top/bench" "$runs" "$confine" "$peak_kib" "$serve_rss_64" "$serve_rss_2000" \
  "$serve_rss_20000" "$confine_depth_100" "$confine_depth_400" "$confine_depth_1900" \
  "$serve_rate" "$serve_floor" <<'PY' | tee "$top/bench/results.json"
import json, sys

groups = {g: json.load(open(f"{sys.argv[1]}/interleaved-{g}.json")) for g in ("bwrap", "landlock")}
timed = {}
for group, results in groups.items():
    for name, t in results.items():
        timed[name if name != "bare" else f"bare-{group}-group"] = t
ms = {name: t["median_ms"] for name, t in timed.items()}
session = json.load(open(f"{sys.argv[1]}/interleaved-session.json"))
repo = json.load(open(f"{sys.argv[1]}/interleaved-repo.json"))
stderr = json.load(open(f"{sys.argv[1]}/interleaved-stderr.json"))
stderr_pipe = json.load(open(f"{sys.argv[1]}/interleaved-stderr-pipe.json"))
med = lambda d, k: d[k]["median_ms"]
scaling = {
    "session_exec_median_ms": {k: round(med(session, k), 3) for k in session},
    "ratio_session_100k_over_10": round(med(session, "session-100k") / med(session, "session-10"), 3),
    "repo_exec_median_ms": {k: round(med(repo, k), 3) for k in repo},
    "repo_300k_entries_added_ms": round(med(repo, "repo-300k") - med(repo, "repo-1k"), 3),
    "stderr_100mb_median_ms": {k: round(med(stderr, k), 3) for k in stderr},
    "ratio_stderr_dsh_over_raw_bwrap":
        round(med(stderr, "stderr-dsh-bwrap") / med(stderr, "stderr-raw-bwrap"), 3),
    "ratio_stderr_dsh_over_raw_landlock":
        round(med(stderr, "stderr-dsh-landlock") / med(stderr, "stderr-raw-landlock"), 3),
    "ratio_stderr_floor_over_raw_bwrap":
        round(med(stderr, "stderr-floor-bwrap") / med(stderr, "stderr-raw-bwrap"), 3),
    "ratio_stderr_floor_over_raw_landlock":
        round(med(stderr, "stderr-floor-landlock") / med(stderr, "stderr-raw-landlock"), 3),
    "ratio_stderr_read_floor_over_raw_bwrap":
        round(med(stderr, "stderr-read-floor-bwrap") / med(stderr, "stderr-raw-bwrap"), 3),
    "ratio_stderr_read_floor_over_raw_landlock":
        round(med(stderr, "stderr-read-floor-landlock") / med(stderr, "stderr-raw-landlock"), 3),
    "stderr_100mb_to_pipe_median_ms": {k: round(med(stderr_pipe, k), 3) for k in stderr_pipe},
    "ratio_stderr_to_pipe_dsh_over_raw_bwrap":
        round(med(stderr_pipe, "stderr-dsh-bwrap") / med(stderr_pipe, "stderr-raw-bwrap"), 3),
    "ratio_stderr_to_pipe_dsh_over_raw_landlock":
        round(med(stderr_pipe, "stderr-dsh-landlock") / med(stderr_pipe, "stderr-raw-landlock"),
              3),
    "serve_peak_rss_kib_by_workspaces": {"64": int(sys.argv[5]), "2000": int(sys.argv[6]),
                                         "20000": int(sys.argv[7])},
}
depth = {d: json.loads(sys.argv[8 + i]) for i, d in enumerate(("100", "400", "1900"))}
scaling["confine_by_depth_median_us"] = {d: r["cached_confine_median_us"] for d, r in depth.items()}
scaling["confine_by_depth_p99_us"] = {d: r["cached_confine_p99_us"] for d, r in depth.items()}
scaling["ratio_confine_depth_400_over_100"] = round(
    depth["400"]["cached_confine_median_us"] / depth["100"]["cached_confine_median_us"], 3)
scaling["serve_confine"] = json.loads(sys.argv[11])
scaling["serve_floor"] = json.loads(sys.argv[12])
ms["bare"] = ms["bare-landlock-group"]
print(json.dumps({
    "runs_per_command": int(sys.argv[2]),
    "median_ms": {k: round(v, 3) for k, v in ms.items() if k != "bare"},
    "p10_p90_ms": {k: [round(t["p10_ms"], 3), round(t["p90_ms"], 3)] for k, t in timed.items()},
    "ratio_dsh_bwrap_over_raw_bwrap": round(ms["dsh-exec-bwrap"] / ms["raw-bwrap"], 3),
    "ratio_dsh_bwrap_over_plain_bwrap": round(ms["dsh-exec-bwrap"] / ms["plain-bwrap"], 3),
    "ratio_raw_runner_over_plain_bwrap": round(ms["raw-bwrap"] / ms["plain-bwrap"], 3),
    "ratio_floor_bwrap_over_raw_bwrap": round(ms["floor-bwrap"] / ms["raw-bwrap"], 3),
    "ratio_dsh_bwrap_over_firejail": round(ms["dsh-exec-bwrap"] / ms["firejail"], 3),
    "landlock_added_over_bare_ms": round(ms["dsh-exec-landlock"] - ms["bare"], 3),
    "floor_landlock_added_over_bare_ms": round(ms["floor-landlock"] - ms["bare"], 3),
    "ratio_dsh_landlock_over_raw_launcher": round(ms["dsh-exec-landlock"] / ms["raw-landlock"], 3),
    "ratio_dsh_landlock_over_dsh_bwrap": round(ms["dsh-exec-landlock"] / ms["dsh-exec-bwrap"], 3),
    "dsh_own_work_over_floor_ms": {
        "bwrap": round(ms["dsh-exec-bwrap"] - ms["floor-bwrap"], 3),
        "landlock": round(ms["dsh-exec-landlock"] - ms["floor-landlock"], 3),
    },
    "confine_in_process": json.loads(sys.argv[3]),
    "peak_rss_kib_dsh_exec": int(sys.argv[4]),
    "scaling": scaling,
}, indent=2))
PY
rm -f "$top"/bench/interleaved-*.json
