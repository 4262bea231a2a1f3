#!/usr/bin/env zsh
# zsh_complete.zsh FPATH_DIR 'COMMAND LINE': what zsh's completion system
# (compinit, with FPATH_DIR first in $fpath) offers at the end of the line,
# one match per line. It types the line and a TAB into an interactive zsh in
# a pseudo-terminal (zsh/zpty), with compadd wrapped to print the matches
# between two NUL lines; the line is typed without a newline, so it never
# runs (the completion ends the shell). Exit 1 when the shell
# gave no answer within 10 s.
emulate -L zsh
zmodload zsh/zpty || exit 2
local dir=$1 line=$2 out chunk i
zpty z zsh -f -i
zpty -w z "PS1=''; PS2=''; unsetopt zle_bracketed_paste 2>/dev/null"
zpty -w z "fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'bindkey "^I" complete-word'
zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
zpty -w z 'nul() { print -rn -- $'"'"'\0\n'"'"' }; compprefuncs=(nul); comppostfuncs=(nul exit)'
zpty -w z 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a __hits; builtin compadd -A __hits "$@"; local r=$?
  (( $#__hits )) && print -rl -- "MATCH:"${^__hits}
  builtin compadd "$@"; return r
}'
zpty -w -n z "$line"$'\t'
# At most 10 s (100 x 0.1 s): until the second NUL line (after the matches).
out=""
for i in {1..100}; do
  if zpty -r -t z chunk; then
    out+=$chunk
    [[ $out == *$'\0'*$'\0'* ]] && break
  else
    sleep 0.1
  fi
done
zpty -d z 2>/dev/null
[[ $out == *$'\0'*$'\0'* ]] || { print -r -- "${(q)out}" >&2; exit 1 }
print -r -- "${out}" | tr -d '\r' | sed -n 's/^MATCH://p' | sort -u
