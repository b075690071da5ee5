#!/bin/sh
# Builds dsh-sandbox and runs its main job: a command confined under the default policy
# (read-only, workspace = the current directory) tries to overwrite a file in the workspace.
# The kernel refuses, the file is unchanged, and dsh-sandbox prints the denial marker.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Beside the checkout, or under /var/tmp when it lies where every confined command may write:
# modules there could be replaced by one, so they are refused once a call has granted that area.
. ./scripts/build-root.sh
build=$(dsh_build_root)/build
case $build in /*) ;; *) build=$top/$build ;; esac

./scripts/setup-debian.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null

workspace=$(mktemp -d)
trap 'rm -rf "$workspace"' EXIT
echo "the original notes" > "$workspace/notes.txt"
cd "$workspace"

echo "\$ dsh-sandbox exec -- sh -c 'echo overwritten > notes.txt'"
set +e
"$build/cli/dsh-sandbox" exec -- sh -c 'echo overwritten > notes.txt'
status=$?
set -e

echo "exit status: $status"
echo "notes.txt still reads: $(cat notes.txt)"
[ "$status" -ne 0 ] && [ "$(cat notes.txt)" = "the original notes" ]
