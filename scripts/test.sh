#!/bin/sh
# Installs what the tests need, builds warning-free with -Werror, and runs every suite: unit,
# integration against the real bwrap and Landlock, conformance, fuzzing drivers, then the
# libFuzzer targets for a bounded time (scripts/fuzz.sh). With CI=true a skipped test is a
# failure: nothing that must run may quietly not run.
set -eu
cd "$(dirname "$0")/.."
# CI may start us with no standard input at all. A closed descriptor 0 would be reused by the
# next pipe a test opens, and GLib's spawn then hands a child a stdin that closes on exec.
exec </dev/null
. ./scripts/build-root.sh
build=$(dsh_build_root)/build-test

./scripts/setup-debian.sh
# In CI the bindings, the API reference and the manual page must be built, never quietly not.
options=-Dwerror=true
if [ "${CI:-}" = true ]; then
  options="$options -Dintrospection=enabled -Ddocs=enabled -Dman=enabled"
fi
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" $options >/dev/null
else
  meson setup "$build" $options >/dev/null
fi
meson compile -C "$build"

status=0
meson test -C "$build" --print-errorlogs --num-processes 2 || status=$?

# The fuzz targets, under ASan and UBSan, each for a bounded time; any finding fails.
./scripts/fuzz.sh || status=$?

log=$build/meson-logs/testlog.json
passed=$(grep -c '"result": "OK"' "$log" || true)
failed=$(grep -cE '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
skipped=$(grep -c '"result": "SKIP"' "$log" || true)
if [ "${CI:-}" = true ] && [ "$skipped" -ne 0 ]; then
  echo "CI: $skipped test(s) skipped; everything must run in CI" >&2
  status=1
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
