#!/bin/sh
# The backend SDK's pkg-config file tells third-party module builds the ABI the installed
# header speaks: its abi_major and abi_minor must be the header's, not a number written down
# once and left behind by the next minor bump.
#
# Usage: check-pkgconfig-abi.sh PKG_CONFIG UNINSTALLED_PC_DIR HEADER
set -eu

pkg_config=$1
pc_dir=$2
header=$3

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

for part in MAJOR MINOR; do
  want=$(sed -n "s/^#define DSH_BACKEND_ABI_$part \\([0-9][0-9]*\\)\$/\\1/p" "$header")
  [ -n "$want" ] || fail "$header defines no DSH_BACKEND_ABI_$part"
  var=abi_$(echo "$part" | tr 'A-Z' 'a-z')
  got=$(PKG_CONFIG_PATH=$pc_dir "$pkg_config" --variable="$var" dsh-backend-1) ||
    fail "pkg-config knows no dsh-backend-1 in $pc_dir"
  [ "$got" = "$want" ] || fail "dsh-backend-1.pc says $var=$got, the header $want"
  echo "ok: $var=$got"
done
