# Sourced by the scripts that build: prints where their build directories go. Beside the
# checkout, unless the checkout lies in /tmp or $TMPDIR: the tests confine commands to
# directories of the build tree and keep the record of granted roots there, and the shared
# temporary area, writable to every confined command, is refused for both. Then a directory of
# its own under /var/tmp, named after the checkout.
dsh_build_root () {
  here=$(pwd -P)
  for shared in /tmp "${TMPDIR:-/tmp}"; do
    shared=$(cd "$shared" 2>/dev/null && pwd -P) || continue
    case "$here/" in
      "$shared"/*)
        echo "/var/tmp/dsh-sandbox-build-$(printf %s "$here" | sha256sum | cut -c1-16)"
        return ;;
    esac
  done
  echo .
}
