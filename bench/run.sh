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

confine=$("$top/build/bench/bench-confine" "$top/build/linux/bwrap" "$top/build/linux/bwrap")
peak_kib=$(/usr/bin/time -f %M "$cli" exec --mode workspace-write -- "$true_bin" 2>&1 >/dev/null | tail -n 1)

python3 - "$top/bench" "$runs" "$confine" "$peak_kib" <<'PY' | tee "$top/bench/results.json"
import json, sys

groups = {g: json.load(open(f"{sys.argv[1]}/interleaved-{g}.json")) for g in ("bwrap", "landlock")}
timed = {}
for group, results in groups.items():
    for name, t in results.items():
        timed[name if name != "bare" else f"bare-{group}-group"] = t
ms = {name: t["median_ms"] for name, t in timed.items()}
ms["bare"] = ms["bare-landlock-group"]
print(json.dumps({
    "runs_per_command": int(sys.argv[2]),
    "median_ms": {k: round(v, 3) for k, v in ms.items() if k != "bare"},
    "p10_p90_ms": {k: [round(t["p10_ms"], 3), round(t["p90_ms"], 3)] for k, t in timed.items()},
    "ratio_dsh_bwrap_over_raw_bwrap": round(ms["dsh-exec-bwrap"] / ms["raw-bwrap"], 3),
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
}, indent=2))
PY
rm -f "$top"/bench/interleaved-*.json
