#!/bin/sh
# Cross-builds the Windows pieces with mingw-w64 — the backend SDK, the ACL backend DLL and its
# runner; the core and the command are not ported — and runs their smoke tests under Wine in a
# throwaway prefix. Usage: scripts/cross-windows.sh [BUILD-DIR] (default build-windows/).
# Exits 77 (skipped) when mingw-w64 or Wine is missing, and 1 instead under CI=true.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd -P)
build=${1:-$src/build-windows}
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver64

missing=""
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing="$missing gcc-mingw-w64-x86-64"
[ -x "$wine" ] || missing="$missing wine64"
if [ -n "$missing" ]; then
  echo "not installed:$missing (scripts/setup-debian.sh installs them)" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  exit 77
fi

prefix=$(mktemp -d "${TMPDIR:-/tmp}/dsh-wine-XXXXXX")
cleanup() {
  # Only this prefix's server: it would otherwise linger a few seconds after the last program.
  WINEPREFIX="$prefix/wine" "$wineserver" -k >/dev/null 2>&1 || true
  rm -rf "$prefix"
}
trap cleanup EXIT
export WINEPREFIX="$prefix/wine" WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" "$src" >/dev/null
else
  meson setup --cross-file "$src/windows/mingw-w64-cross.txt" -Dwerror=true "$build" "$src" \
    >/dev/null
fi
meson compile -C "$build" >/dev/null

# Wine's first start creates the prefix and is slow: do it before any test's clock runs.
if ! timeout 300 "$wine" wineboot --init >/dev/null 2>&1; then
  echo "Wine could not create its prefix in $WINEPREFIX" >&2
  exit 1
fi
# A root reached through a link on the way, which Wine follows as Windows follows a junction a
# confined command planted: the smoke test checks the runner refuses to grant it.
fixture="$prefix/link-fixture"
mkdir -p "$fixture/ws" "$fixture/outside/proj"
ln -s ../outside "$fixture/ws/a"
export DSH_ACL_WINE_LINK_FIXTURE="$fixture"
timeout 900 meson test -C "$build" --print-errorlogs --num-processes 1
