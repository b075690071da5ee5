#!/bin/sh
# Measures two builds of dsh-sandbox in the same turns: `dsh-sandbox exec` (workspace-write and
# read-only) and the raw argv its confine returns, under bwrap and under Landlock. Figures taken
# on different days (or machines) differ by more than a change does; side by side, one build's
# cost reads against the other's.
#
#   ./bench/compare-builds.sh OLD-TOP [NEW-TOP]   # each a source tree built in TOP/build
#
# An older tree is made with, say: git worktree add --detach /var/tmp/old REV &&
# (cd /var/tmp/old && meson setup build && meson compile -C build)
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OLD-TOP [NEW-TOP]" >&2; exit 2; }
old=$(cd "$1" && pwd)
new=$(cd "${2:-$(dirname "$0")/..}" && pwd)
runs=${DSH_BENCH_RUNS:-400}
interleave="$new/build/bench/bench-interleave"
true_bin=$(which true)
# Below /tmp a call would not use the probe cache.
workspace=$(mktemp -d -p "$HOME" dsh-compare.XXXXXX)
# Each build's own record of granted roots, out of the commands' reach.
state=$(mktemp -d -p "$HOME" dsh-compare-state.XXXXXX)
trap 'rm -rf "$workspace" "$state"' EXIT
cd "$workspace"
top_of() { if [ "$1" = old ]; then echo "$old"; else echo "$new"; fi; }

raw_argv() { # old|new BACKEND
  DSH_SANDBOX_STATE_DIR="$state/$1" DSH_SANDBOX_BACKEND=$2 \
    "$(top_of "$1")/build/cli/dsh-sandbox" confine --mode workspace-write -- "$true_bin" |
    python3 -c 'import json,shlex,sys; print(" ".join(shlex.quote(a) for a in json.load(sys.stdin)["argv"]))'
}
exec_cmd() { # old|new BACKEND [MODE]
  echo "DSH_SANDBOX_STATE_DIR=$state/$1 DSH_SANDBOX_BACKEND=$2" \
       "$(top_of "$1")/build/cli/dsh-sandbox exec --mode ${3:-workspace-write} -- $true_bin"
}
for build in old new; do
  mkdir -m 700 "$state/$build"
  DSH_SANDBOX_STATE_DIR="$state/$build" "$(top_of $build)/build/cli/dsh-sandbox" probe \
    >/dev/null
done
for backend in bwrap landlock; do
  "$interleave" "$runs" "bare=$true_bin" \
    "old-raw=$(raw_argv old $backend)" "new-raw=$(raw_argv new $backend)" \
    "old-exec=$(exec_cmd old $backend)" "new-exec=$(exec_cmd new $backend)" \
    "old-exec-ro=$(exec_cmd old $backend read-only)" \
    "new-exec-ro=$(exec_cmd new $backend read-only)" \
    >"$workspace/$backend.json"
done
python3 - "$workspace" <<'PY'
import json, sys
for backend in ("bwrap", "landlock"):
    t = {k: v["median_ms"] for k, v in json.load(open(f"{sys.argv[1]}/{backend}.json")).items()}
    print(f"{backend}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in t.items()))
    print(f"  exec new/old {t['new-exec'] / t['old-exec']:.3f}; over bare old "
          f"{t['old-exec'] - t['bare']:.2f} ms, new {t['new-exec'] - t['bare']:.2f} ms; "
          f"exec over the old raw argv: old {t['old-exec'] / t['old-raw']:.3f}, "
          f"new {t['new-exec'] / t['old-raw']:.3f}")
    print(f"  read-only exec new/old {t['new-exec-ro'] / t['old-exec-ro']:.3f} "
          f"({t['old-exec-ro']:.2f} -> {t['new-exec-ro']:.2f} ms)")
PY
