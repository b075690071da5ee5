# Types LINE and a Tab into an interactive zsh whose fpath holds COMPLETION_DIR, through a
# pseudo-terminal (zsh/zpty), and prints what the completion listed, escapes stripped.
#
# Usage: zsh -f complete-zsh.zsh COMPLETION_DIR LINE
zmodload zsh/zpty
setopt extendedglob
zpty z 'zsh -f -i'
zpty -w z "PROMPT=''; RPROMPT=''; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "dsh-sandbox () { :; }; LISTMAX=0; print READY"
zpty -r z line '*READY*'
zpty -w -n z "$2"$'\t'
# Read until the shell has listed more than the echo of LINE and then been quiet for a second
# (at most 25 s): under load the echo can come a second or more before the listing.
strip() {
  local text=${1//$'\e'\[[0-9;?]#[A-Za-z]/ }
  print -r -- ${text//$'\r'/}
}
out='' quiet=0 typed=${#${=2}}
for i in {1..100}; do
  if zpty -r -t z chunk; then
    out+=$chunk
    quiet=0
  else
    (( ++quiet >= 4 && ${#${=$(strip "$out")}} > typed )) && break
    sleep 0.25
  fi
done
zpty -d z
# Terminal escapes and carriage returns dropped; one word per line.
print -rl -- ${=$(strip "$out")}
