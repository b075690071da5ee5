#!/bin/sh
# The libFuzzer targets (tests/fuzz/README.md): builds them in build-fuzz/ with clang, ASan and
# UBSan, the code under test instrumented for coverage, then
#   scripts/fuzz.sh                        checks each target's coverage reaches the code it
#                                          tests, then runs each for DSH_FUZZ_SECONDS (default
#                                          15) over its corpus; any finding fails
#   scripts/fuzz.sh campaign NAME SECONDS  grows tests/fuzz/corpus/NAME for SECONDS and merges
#                                          the inputs that add coverage into it
set -eu
cd "$(dirname "$0")/.."
. ./scripts/build-root.sh
dir=$(dsh_build_root)/build-fuzz

if [ -f "$dir/build.ninja" ]; then
  meson setup --reconfigure "$dir" -Dfuzzing=true >/dev/null
else
  CC=clang meson setup "$dir" -Dfuzzing=true -Dwerror=true >/dev/null
fi
meson compile -C "$dir" fuzzers

case "${1:-ci}" in
  ci)
    exec meson test -C "$dir" --no-rebuild --print-errorlogs --verbose --num-processes 1 \
      --suite fuzz-coverage --suite fuzz-ci
    ;;
  campaign)
    [ $# -ge 2 ] || { echo "usage: $0 campaign NAME [SECONDS]" >&2; exit 2; }
    # A target registered from another folder keeps its corpus there: ask the build where.
    corpus=$(meson introspect --tests "$dir" | python3 -c '
import json, sys
cmds = [t["cmd"] for t in json.load(sys.stdin) if t["name"] == "fuzz-ci-" + sys.argv[1]]
if not cmds:
    sys.exit("no fuzz target " + sys.argv[1])
print(cmds[0][cmds[0].index("run") + 2])' "$2")
    exec python3 tests/fuzz/run-fuzzer.py campaign "$dir/tests/fuzz/fuzz-$2" "$corpus" \
      "${3:-180}"
    ;;
  *)
    echo "usage: $0 [ci | campaign NAME [SECONDS]]" >&2
    exit 2
    ;;
esac
