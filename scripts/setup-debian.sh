#!/bin/sh
# Installs everything dsh-sandbox needs to build, test and benchmark on Debian 12.
# Run as root (or with sudo); safe to run again. With --bench, also what bench/ measures with.
set -eu

packages="
  build-essential pkg-config meson ninja-build musl-dev
  libglib2.0-dev libglib2.0-bin libjson-glib-dev
  bubblewrap git
  python3 python3-jsonschema
  clang libclang-rt-14-dev llvm-14
  util-linux e2fsprogs
  guile-3.0
  gcc-mingw-w64-x86-64 wine64
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-glib-2.0 gir1.2-json-1.0
  gi-docgen scdoc zsh
"

# The dialect tests run a real npm. A nodejs from NodeSource carries its own npm and conflicts
# with Debian's package, so only a machine without one gets it.
command -v npm >/dev/null 2>&1 || packages="$packages npm"

if [ "${1:-}" = --bench ]; then
  packages="$packages time firejail"
fi

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
