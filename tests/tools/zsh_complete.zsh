#!/usr/bin/env zsh
# zsh_complete.zsh FPATH_DIR 'COMMAND LINE' ['COMMAND LINE'...]: what zsh's
# completion system (compinit, with FPATH_DIR first in $fpath) offers at the
# end of each line, one match per line. It types the line and a TAB into an
# interactive zsh in a pseudo-terminal (zsh/zpty), with compadd wrapped to
# print the matches between two NUL lines; the line is typed without a
# newline, so it never runs, and erased (^U) before the next one. With
# several lines, each line's matches follow a line "== N" (N from 1), so
# one shell answers them all. Exit 1 when the shell gave no answer within
# 10 s.
emulate -L zsh
zmodload zsh/zpty || exit 2
local dir=$1 out chunk i n=0 nuls=0
shift
zpty z zsh -f -i
zpty -w z "PS1=''; PS2=''; unsetopt zle_bracketed_paste 2>/dev/null"
zpty -w z "fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
zpty -w z 'nul() { print -rn -- $'"'"'\0\n'"'"' }'
# TAB: a completion between two NUL lines (compprefuncs and comppostfuncs
# are one-shot: the widget sets them each time).
zpty -w z 'tab() { compprefuncs=(nul); comppostfuncs=(nul); zle complete-word }; zle -N tab'
zpty -w z 'bindkey "^I" tab; bindkey "^U" kill-whole-line'
zpty -w z 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a __hits; builtin compadd -A __hits "$@"; local r=$?
  (( $#__hits )) && print -rl -- "MATCH:"${^__hits}
  builtin compadd "$@"; return r
}'
for line in "$@"; do
  (( n++ ))
  (( n > 1 )) && zpty -w -n z $'\C-u'
  zpty -w -n z "$line"$'\t'
  # At most 10 s (500 x 0.02 s): until the 2n-th NUL line (after the matches).
  for i in {1..500}; do
    if zpty -r -t z chunk; then
      out+=$chunk
      (( nuls += ${#${chunk//[^$'\0']/}} ))
      (( nuls >= 2 * n )) && break
    else
      sleep 0.02
    fi
  done
  (( nuls >= 2 * n )) || { zpty -d z 2>/dev/null; print -r -- "${(q)out}" >&2; exit 1 }
  out+=$'\n'"ENDLINE:$n"$'\n'
done
zpty -d z 2>/dev/null
# Each line's matches, sorted (after "== N" when there are several).
print -r -- "${out}" | tr -d '\r' | awk -v multi=$(( $# > 1 )) '
  /^MATCH:/ { seen[substr($0, 7)] = 1; next }
  /^ENDLINE:/ {
    if (multi) { printf "== %s\n", substr($0, 9); fflush() }
    for (m in seen) print m | "sort -u"
    close("sort -u"); delete seen
  }'
