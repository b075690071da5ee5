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
# Read until the shell has been quiet for a second (at most ten), however loaded the host is.
out='' quiet=0
for i in {1..40}; do
  if zpty -r -t z chunk; then
    out+=$chunk
    quiet=0
  else
    (( ++quiet >= 4 && ${#out} > 0 )) && break
    sleep 0.25
  fi
done
zpty -d z
# Drop terminal escapes and carriage returns; one word per line.
out=${out//$'\e'\[[0-9;?]#[A-Za-z]/ }
out=${out//$'\r'/}
print -rl -- ${=out}
