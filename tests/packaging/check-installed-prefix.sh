#!/bin/sh
# Builds the project for a prefix of its own outside the build tree, /tmp and $TMPDIR (where
# confined commands may write, so helpers there are untrusted), installs it there, and runs the
# installed tree without LD_LIBRARY_PATH: probe, confine, exec with a real denial, session
# new/show, then a call through the DshSandbox-1 typelib with PyGObject.
#
# Usage: check-installed-prefix.sh SOURCE_DIR BUILD_DIR
set -eu

src=$1
build=$2
python=/usr/bin/python3
base=${DSH_TEST_PREFIX_BASE:-/opt}
unset LD_LIBRARY_PATH

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[ -w "$base" ] || fail "$base is not writable: run as root or set DSH_TEST_PREFIX_BASE"
prefix=$(mktemp -d "$base/dsh-test-XXXXXX")
chmod 0755 "$prefix"
work=$(mktemp -d "$(cd "$build" && pwd -P)/installed-prefix-XXXXXX")
trap 'rm -rf "$prefix" "$work"' EXIT
case "$work/" in
  /tmp/*|"${TMPDIR:-/tmp}"/*) work=$(mktemp -d /var/tmp/installed-prefix-XXXXXX) ;;
esac

echo "building for $prefix"
meson setup "$work/build" "$src" --prefix="$prefix" -Dtests=false -Ddocs=enabled \
  -Dintrospection=enabled -Dman=enabled -Dwerror=true >"$work/setup.log" 2>&1 ||
  { cat "$work/setup.log"; fail "meson setup"; }
meson compile -C "$work/build" >"$work/compile.log" 2>&1 ||
  { tail -n 40 "$work/compile.log"; fail "meson compile"; }
meson install -C "$work/build" --no-rebuild --quiet >/dev/null

cli=$prefix/bin/dsh-sandbox
libdir=$(meson introspect "$work/build" --buildoptions |
  "$python" -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"))')

# Everything a packager expects is installed.
for f in "$prefix/share/man/man1/dsh-sandbox.1" \
         "$prefix/share/bash-completion/completions/dsh-sandbox" \
         "$prefix/share/zsh/site-functions/_dsh-sandbox" \
         "$prefix/share/doc/dsh-sandbox/NEWS" \
         "$prefix/share/doc/dsh-sandbox-1/index.html" \
         "$prefix/share/doc/dsh-sandbox-1/func.classify_result_len.html" \
         "$prefix/share/gir-1.0/DshSandbox-1.gir" \
         "$prefix/$libdir/girepository-1.0/DshSandbox-1.typelib"; do
  [ -f "$f" ] || fail "$f was not installed"
done
for schema in "$src"/schemas/*.schema.json; do
  [ -f "$prefix/share/dsh-sandbox-1/schemas/$(basename "$schema")" ] ||
    fail "$(basename "$schema") was not installed"
done
echo "ok: man page, completions, NEWS, API reference, GIR, typelib and every schema are installed"

status=0
"$cli" probe >"$work/probe.txt" 2>&1 || status=$?
[ "$status" -eq 0 ] || { cat "$work/probe.txt"; fail "probe exited $status"; }
"$cli" probe --json >"$work/probe.json" || fail "probe --json"
grep -q '"selected" : "bwrap"' "$work/probe.json" || { cat "$work/probe.json"; fail "bwrap not selected"; }
echo "ok: the installed probe runs and selects bwrap"

mkdir "$work/ws"
echo before >"$work/ws/file"
"$cli" confine --mode read-only --workspace "$work/ws" -- true >"$work/confine.json" ||
  fail "confine"
grep -q '"backend" : "bwrap"' "$work/confine.json" || { cat "$work/confine.json"; fail "confine"; }
echo "ok: the installed confine prints a bwrap argv"

set +e
(cd "$work/ws" && "$cli" exec --mode read-only -- sh -c 'echo after > file') 2>"$work/err"
status=$?
set -e
[ "$status" -ne 0 ] && [ "$status" -ne 125 ] || { cat "$work/err"; fail "exec exited $status"; }
[ "$(cat "$work/ws/file")" = before ] || fail "the file changed"
grep -q 'Read-only file system' "$work/err" || { cat "$work/err"; fail "no EROFS"; }
grep -qx '\[sandbox: file access denied under read-only mode\]' "$work/err" ||
  { cat "$work/err"; fail "no denial marker"; }
echo "ok: the installed exec ran the write confined: EROFS, the file unchanged, the marker"

"$cli" session new "$work/session.log" --cwd "$work/ws" || fail "session new"
"$cli" session set-mode "$work/session.log" workspace-write || fail "session set-mode"
"$cli" session show "$work/session.log" --json >"$work/show.json" || fail "session show"
grep -q '"mode" : "workspace-write"' "$work/show.json" || { cat "$work/show.json"; fail "show"; }
echo "ok: the installed session new, set-mode and show"

# The installed code is out of every call's reach, the typelib too: it names the library a GI
# program loads, so one a confined command rewrote would run its code in the next harness.
for root in "$prefix/$libdir/girepository-1.0" "$prefix/bin"; do
  set +e
  (cd "$work/ws" && "$cli" exec --mode workspace-write --writable-root "$root" -- true) \
    2>"$work/err"
  status=$?
  set -e
  [ "$status" -eq 125 ] && grep -q 'holds the dsh-sandbox' "$work/err" ||
    { cat "$work/err"; fail "the writable root $root holding installed code was granted"; }
done
grep -q 'executable' "$work/err" || { cat "$work/err"; fail "not refused for the executable"; }
echo "ok: writable roots holding the installed typelib or executable are refused"

GI_TYPELIB_PATH="$prefix/$libdir/girepository-1.0" \
  "$python" "$src/tests/packaging/test-gi.py" --prefix "$prefix" "$work"
echo "the installed tree under $prefix works without LD_LIBRARY_PATH"
