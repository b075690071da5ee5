#!/bin/sh
# Installs the project into a scratch DESTDIR, builds the SDK's example backend out of tree with
# nothing but pkg-config and a C compiler, and checks that the installed dsh-sandbox loads it,
# selects it and really confines with it.
set -eu

src=$1
build=$2
# Modules below /tmp or $TMPDIR (where confined commands may write) are refused by exec, so the
# scratch tree lives in the build directory, or /var/tmp when that is itself below /tmp.
base=$(cd "$build" && pwd -P)
case "$base/" in
  /tmp/*|"${TMPDIR:-/tmp}"/*) base=/var/tmp ;;
esac
tmp=$(mktemp -d "$base/sdk-out-of-tree-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

DESTDIR="$tmp/dest" meson install -C "$build" --no-rebuild --quiet >/dev/null

pc=$(find "$tmp/dest" -name dsh-backend-1.pc | head -n 1)
[ -n "$pc" ] || { echo "dsh-backend-1.pc was not installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$tmp/dest"

cflags=$(pkg-config --cflags dsh-backend-1)
# pkg-config applies the sysroot to variables as well.
mapfile=$(pkg-config --variable=mapfile dsh-backend-1)
[ -f "$mapfile" ] || { echo "the export map $mapfile was not installed"; exit 1; }

mkdir -m 0755 "$tmp/modules"
# shellcheck disable=SC2086
cc -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror $cflags \
  -Wl,--version-script="$mapfile" \
  -o "$tmp/modules/libdsh-backend-example.so" "$src/modules/example/dsh-backend-example.c"

cli=$(find "$tmp/dest" -path '*/bin/dsh-sandbox' | head -n 1)
lib=$(dirname "$(find "$tmp/dest" -name 'libdsh-sandbox-1.so*' | head -n 1)")
export LD_LIBRARY_PATH="$lib"
export DSH_SANDBOX_BACKEND_DIR="$tmp/modules"
export DSH_EXAMPLE_BACKEND=1

probe=$("$cli" probe --json)
echo "$probe" | grep -q '"selected" : "example"' || { echo "example not selected:"; echo "$probe"; exit 1; }

mkdir "$tmp/ws"
echo before > "$tmp/ws/file"
set +e
"$cli" exec --mode read-only --workspace "$tmp/ws" -- sh -c "echo after > '$tmp/ws/file'" 2>"$tmp/err"
status=$?
set -e
[ "$status" -ne 0 ] || { echo "the write was not denied"; exit 1; }
[ "$(cat "$tmp/ws/file")" = before ] || { echo "the file changed"; exit 1; }
grep -q 'Read-only file system' "$tmp/err" || { echo "no EROFS text:"; cat "$tmp/err"; exit 1; }
grep -qx '\[sandbox: file access denied under read-only mode\]' "$tmp/err" || { echo "no marker"; exit 1; }
echo "out-of-tree example backend built, loaded, selected and enforcing"
