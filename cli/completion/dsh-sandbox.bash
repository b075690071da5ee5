# bash completion for dsh-sandbox: commands, their options, and the values of the closed
# vocabularies (modes, approval policies, target systems). Needs nothing but bash itself.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

_dsh_sandbox_values ()
{
  # What the option $1 takes that begins with $2; returns 1 when $1 takes no value.
  local modes='read-only workspace-write danger-full-access'
  case $1 in
    --mode) compgen -W "$modes" -- "$2" ;;
    --sandbox-permissions) compgen -W 'workspace-write danger-full-access' -- "$2" ;;
    --approval-policy) compgen -W 'ask never' -- "$2" ;;
    --target-os) compgen -W 'linux macos windows' -- "$2" ;;
    --workspace | --cwd | --writable-root) compgen -d -- "$2" ;;
    --session) compgen -f -- "$2" ;;
    --report) compgen -W '- /dev/fd/' -- "$2"; compgen -f -- "$2" ;;
    --approver) compgen -c -- "$2" | sort -u ;;
    --justification | --preset) ;;
    *) return 1 ;;
  esac
  # No match is still a value-taking option.
  return 0
}

_dsh_sandbox ()
{
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local command=${COMP_WORDS[1]} i option words=() positional=0
  local commands='probe confine exec session policy describe serve help --help'

  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
    return
  fi

  # --opt=VALUE: bash splits it at "=" (COMP_WORDBREAKS), so the option is one or two words back.
  if [ "$prev" = = ] && [ "$COMP_CWORD" -ge 3 ]; then
    option=${COMP_WORDS[COMP_CWORD - 2]}
  elif [ "$cur" = = ]; then
    option=$prev
    cur=
  elif [[ $cur == --*=* ]]; then
    option=${cur%%=*}
    cur=${cur#*=}
  else
    option=$prev
  fi
  if [ "$option" != "$prev" ] || [[ $prev == --* ]]; then
    if words=$(_dsh_sandbox_values "$option" "$cur"); then
      mapfile -t COMPREPLY <<<"$words"
      [ -n "${COMPREPLY[0]}" ] || COMPREPLY=()
      return
    fi
  fi

  # After "--" comes the confined command: a program, then its own arguments.
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [ "${COMP_WORDS[i]}" = -- ]; then
      if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
      else
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      fi
      return
    fi
  done

  # Count the positional words so far (option values are not positional).
  for ((i = 2; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*)
        # An option that takes a value as the next word: skip that word too.
        if [[ ${COMP_WORDS[i]} != *=* ]] && _dsh_sandbox_values "${COMP_WORDS[i]}" '' >/dev/null
        then
          i=$((i + 1))
        fi ;;
      =) ;;
      *) positional=$((positional + 1)) ;;
    esac
  done

  case $command in
    probe) words='--json --mode --workspace --help' ;;
    confine) words='--mode --workspace --session --writable-root --target-os --help --' ;;
    exec)
      words='--mode --workspace --session --approval-policy --approver --sandbox-permissions
             --justification --writable-root --report --help --' ;;
    serve) words='--help' ;;
    help)
      if [ "$positional" -eq 0 ]; then
        words='probe confine exec session policy describe serve'
      elif [ "$positional" -eq 1 ] && [ "${COMP_WORDS[2]}" = session ]; then
        words='new set-mode set-approval set-preset show'
      elif [ "$positional" -eq 1 ] && [ "${COMP_WORDS[2]}" = policy ]; then
        words='resolve context'
      fi ;;
    describe)
      words='--session --help'
      [ "$positional" -eq 0 ] && words="$words bash" ;;
    policy)
      if [ "$positional" -eq 0 ]; then
        words='resolve context'
      elif [ "${COMP_WORDS[2]}" = resolve ]; then
        words='--session --mode --json'
      else
        words='--session'
      fi ;;
    session)
      local sub=${COMP_WORDS[2]}
      if [ "$positional" -eq 0 ]; then
        words='new set-mode set-approval set-preset show'
      elif [ "$positional" -eq 1 ]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
      else
        case $sub in
          new) words='--cwd --preset' ;;
          show) words='--json' ;;
          set-mode) [ "$positional" -eq 2 ] && words='read-only workspace-write danger-full-access'
            ;;
          set-approval) [ "$positional" -eq 2 ] && words='ask never' ;;
        esac
      fi ;;
  esac
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _dsh_sandbox dsh-sandbox
