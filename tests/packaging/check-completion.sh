#!/bin/bash
# Sources the bash completion in a plain bash (no bash-completion package needed) and checks
# what it offers for commands, subcommands, options and the closed vocabularies; then types the
# same into a real interactive zsh through a pseudo-terminal and checks what its Tab lists.
#
# Usage: check-completion.sh COMPLETION_DIR
set -eu

dir=$1
# shellcheck source=/dev/null
source "$dir/dsh-sandbox.bash"
failures=0

# expect "WORDS..." -- the command line, the word being completed last (may be empty).
expect() {
  local want=$1
  shift
  [ "$1" = -- ] && shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _dsh_sandbox
  local got="${COMPREPLY[*]}"
  if [ "$got" = "$want" ]; then
    echo "ok: [$*] -> $got"
  else
    echo "FAIL: [$*] -> '$got', expected '$want'"
    failures=$((failures + 1))
  fi
}

[ "$(complete -p dsh-sandbox)" = "complete -F _dsh_sandbox dsh-sandbox" ] ||
  { echo "FAIL: dsh-sandbox has no completion function"; exit 1; }

expect 'probe confine exec session policy describe serve help --help' -- dsh-sandbox ''
expect 'help' -- dsh-sandbox he
expect 'probe confine exec session policy describe serve' -- dsh-sandbox help ''
expect 'new' -- dsh-sandbox help session n
expect '-' -- dsh-sandbox exec --report -
expect 'exec' -- dsh-sandbox ex
expect 'read-only workspace-write danger-full-access' -- dsh-sandbox exec --mode ''
expect 'workspace-write' -- dsh-sandbox confine --mode w
expect 'danger-full-access' -- dsh-sandbox exec --mode = d
expect 'workspace-write danger-full-access' -- dsh-sandbox exec --sandbox-permissions ''
expect 'ask never' -- dsh-sandbox exec --approval-policy ''
expect 'linux macos windows' -- dsh-sandbox confine --target-os ''
expect '--report' -- dsh-sandbox exec --mode read-only --rep
expect 'new set-mode set-approval set-preset show' -- dsh-sandbox session ''
expect 'read-only workspace-write danger-full-access' -- dsh-sandbox session set-mode s.log ''
expect 'never' -- dsh-sandbox session set-approval s.log n
expect '--json' -- dsh-sandbox session show s.log --
expect 'resolve context' -- dsh-sandbox policy ''
expect '--session --mode --json' -- dsh-sandbox policy resolve -
expect '--session --help bash' -- dsh-sandbox describe ''
expect '--json --mode --workspace --help' -- dsh-sandbox probe -
expect '--writable-root' -- dsh-sandbox exec --wr
# After "--" the confined command's program is completed from PATH, not our options.
expect 'shopt' -- dsh-sandbox exec --mode read-only -- shop
expect '' -- dsh-sandbox exec --justification ''
# A value that matches no file is still the option's: the next word is not a subcommand.
expect '' -- dsh-sandbox exec --session /nonexistent/x
expect '--json' -- dsh-sandbox policy resolve --session /nonexistent/x --j

zsh -n "$dir/_dsh-sandbox" || { echo "FAIL: the zsh completion does not parse"; exit 1; }
head -n 1 "$dir/_dsh-sandbox" | grep -qx '#compdef dsh-sandbox' ||
  { echo "FAIL: the zsh completion is not a #compdef for dsh-sandbox"; exit 1; }
echo "ok: the zsh completion parses"

# zsh, for real: what a Tab lists in an interactive shell.
zsh_expect() {
  local want=$1 line=$2 got word
  got=$(timeout 60 zsh -f "$(dirname "$0")/complete-zsh.zsh" "$dir" "$line")
  for word in $want; do
    if ! grep -qx -- "$word" <<<"$got"; then
      echo "FAIL: zsh [$line<Tab>] does not list $word:"
      echo "$got"
      failures=$((failures + 1))
      return
    fi
  done
  echo "ok: zsh [$line<Tab>] lists $want"
}
zsh_expect 'probe confine exec session policy describe serve help' 'dsh-sandbox '
zsh_expect 'probe exec serve' 'dsh-sandbox help '
zsh_expect 'read-only workspace-write danger-full-access' 'dsh-sandbox exec --mode '
zsh_expect 'linux macos windows' 'dsh-sandbox confine --target-os '
zsh_expect 'new set-mode set-approval set-preset show' 'dsh-sandbox session '
zsh_expect 'ask never' 'dsh-sandbox session set-approval s.log '
zsh_expect 'resolve context' 'dsh-sandbox policy '

[ "$failures" -eq 0 ]
