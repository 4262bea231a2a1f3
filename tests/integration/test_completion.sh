#!/usr/bin/env bash
# Shell completion (contrib/completion): bash's _pacer really completes
# (sourced in a fresh bash, COMP_WORDS/COMP_CWORD set, COMPREPLY read);
# zsh's _pacer really completes through compinit, in an interactive zsh on
# a pseudo-terminal (tests/tools/zsh_complete.zsh); every long option that
# pacer's --help texts list is offered by both, so a flag added without its
# completion fails here; make install puts both files where bash-completion
# and zsh look, and make uninstall takes them out. Each persona (pacer ab,
# h2load, hey, wrk, wrk2) is offered exactly the flags its option table
# accepts (tests/tools/persona_flags), none it refuses or does not know.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASHC=$ROOT/contrib/completion/pacer.bash
ZSHC=$ROOT/contrib/completion/_pacer
ZCOMP=$ROOT/tests/tools/zsh_complete.zsh
need_cmd zsh zsh || finish

# A directory to complete file names in.
W=$T_DIR/files
mkdir -p "$W/sub"
: >"$W/post.lua"
: >"$W/notes.txt"
: >"$W/run.json"
: >"$W/run.hlog"

# bcomp FILE WORD...: what bash's completion (FILE sourced) offers for the
# command line WORD... (the last word is the one being completed), sorted,
# one per line. Run in $W.
bcomp() {
    local file=$1
    shift
    (cd "$W" && bash --norc --noprofile -c '
        . "$1" || exit 9
        shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
        _pacer pacer "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' bcomp "$file" "$@") | sed '/^$/d' | sort -u
}

# bcomp_lines FILE LINE...: bcomp for each LINE (its words split at
# blanks; a trailing blank: the last word is empty) in one bash, each
# line's matches (not sorted: no fork a line) after a line "== N" (N from
# 1), as zsh_complete.zsh does.
bcomp_lines() {
    local file=$1
    shift
    (cd "$W" && bash --norc --noprofile -c '
        . "$1" || exit 9
        shift
        n=0
        for line in "$@"; do
            n=$((n + 1))
            read -ra COMP_WORDS <<<"$line"
            [ "${line% }" != "$line" ] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
            _pacer pacer "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            echo "== $n"
            for x in "${COMPREPLY[@]}"; do [ -n "$x" ] && printf "%s\n" "$x"; done
        done' bcomp "$file" "$@")
}

# zcomp DIR LINE: what zsh's completion (DIR first in fpath) offers at the
# end of LINE. Run in $W. Answered from zprefetch's when it asked that.
declare -A ZC=()
zcomp() {
    local k="$1"$'\t'"$2"
    if [ -n "${ZC[$k]+set}" ]; then printf '%s' "${ZC[$k]}"; return 0; fi
    (cd "$W" && zsh -f "$ZCOMP" "$1" "$2")
}
# zprefetch DIR LINE...: one zsh answers every LINE (zsh_complete.zsh's
# "== N" lines; a zsh's start and compinit are most of one zcomp's time);
# if it fails, each zcomp asks a zsh of its own.
zprefetch() {
    local dir=$1 out l k=""
    shift
    local -a lines=("$@")
    out=$(cd "$W" && zsh -f "$ZCOMP" "$dir" "$@" 2>/dev/null) || return 0
    grep -qx "== $#" <<<"$out" || return 0
    while IFS= read -r l; do
        if [[ $l =~ ^==\ ([0-9]+)$ ]]; then
            k="$dir"$'\t'"${lines[BASH_REMATCH[1] - 1]}"
            ZC[$k]=""
        elif [ -n "$k" ]; then
            ZC[$k]+="$l"$'\n'
        fi
    done <<<"$out"
}

# same GOT WANT: the two newline-separated lists are equal.
same() { [ "$1" = "$(printf '%s\n' $2 | sort -u)" ]; }
# has LIST WORD: WORD is a line of LIST (grep -qxF, without a fork).
has() { [[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]]; }
# holds GOT WORD...: every WORD is a line of GOT.
holds() {
    local got=$1 w
    shift
    for w in "$@"; do has "$got" "$w" || return 1; done
}

# --- bash -----------------------------------------------------------------------
ok bash_syntax "$(bash -n "$BASHC" 2>&1)" bash -n "$BASHC"
got=$(bcomp "$BASHC" pacer ca)
ok bash_subcommand "got: $(echo $got)" same "$got" "capacity"
got=$(bcomp "$BASHC" pacer "")
ok bash_subcommands_and_personas "got: $(echo $got)" \
    same "$got" "serve report compare capacity suite help wrk wrk2 ab h2load hey"
got=$(bcomp "$BASHC" pacer -t2 --for)
ok bash_long_flag_prefix "got: $(echo $got)" same "$got" "--format"
got=$(bcomp "$BASHC" pacer capacity --max)
ok bash_subcommand_flags "got: $(echo $got)" same "$got" "--max-concurrent-streams --max-rate --max-time"
# --format's values: at least those pacer names when refusing one.
formats=$("$PACER" --format no-such-layout http://127.0.0.1/ 2>&1 | sed -n 's/.*(\(.*\)).*/\1/p' | tr -d ',' | sed 's/ or / /')
got=$(bcomp "$BASHC" pacer --format "")
ok bash_format_values "got: $(echo $got); pacer's: $formats" "[ -n '$formats' ] && holds '$got' $formats"
got=$(bcomp "$BASHC" pacer --mix r)
ok bash_mix_values "got: $(echo $got)" same "$got" "random roundrobin"
got=$(bcomp "$BASHC" pacer --alpn "")
ok bash_alpn_values "got: $(echo $got)" holds "$got" h2 http/1.1 h2,http/1.1
got=$(bcomp "$BASHC" pacer -s "")
ok bash_script_files "got: $(echo $got)" same "$got" "post.lua sub"
got=$(bcomp "$BASHC" pacer --json "")
ok bash_json_files "got: $(echo $got)" same "$got" "run.json sub"
got=$(bcomp "$BASHC" pacer --json = "")
ok bash_json_equals "got: $(echo $got)" same "$got" "run.json sub"
got=$(bcomp "$BASHC" pacer --urls n)
ok bash_urls_file "got: $(echo $got)" same "$got" "notes.txt"
got=$(bcomp "$BASHC" pacer report "")
ok bash_report_files "got: $(echo $got)" same "$got" "run.hlog run.json sub"
got=$(bcomp "$BASHC" pacer -t2 -c10 "")
ok bash_url_no_files "got: $(echo $got)" "[ -z '$got' ]"
got=$(bcomp "$BASHC" pacer ab -)
ok bash_ab_flags "got: $(echo $got)" holds "$got" -n -c -t -k -p -T -s -l -g -e
got=$(bcomp "$BASHC" pacer h2load --)
ok bash_h2load_long_flags "got: $(echo $got)" holds "$got" --h1 --rps --warm-up-time --duration --alpn-list
got=$(bcomp "$BASHC" pacer hey -dis)
ok bash_hey_single_dash "got: $(echo $got)" \
    same "$got" "-disable-compression -disable-keepalive -disable-redirects"
got=$(bcomp "$BASHC" pacer hey -m P)
ok bash_hey_method "got: $(echo $got)" same "$got" "PATCH POST PUT"

# --- zsh ------------------------------------------------------------------------
ok zsh_syntax "$(zsh -n "$ZSHC" 2>&1)" zsh -n "$ZSHC"
ZD=$ROOT/contrib/completion
# Every line this file asks of $ZD, one zsh for all (the persona lines need
# persona_flags, below).
PF=${TOOLS:-$ROOT/build/tools}/persona_flags
[ -x "$PF" ] || PF=$ROOT/build/tools/persona_flags
zl=("pacer ca" "pacer -t2 --for" "pacer --format " "pacer -s " "pacer hey -dis" "pacer h2load --al"
    "pacer compare --" "pacer capacity --" "pacer serve --" "pacer report --" "pacer suite --" "pacer ")
for p in $("$PF" -p 2>/dev/null); do zl+=("pacer $p -"); done
zprefetch "$ZD" "${zl[@]}"
got=$(zcomp "$ZD" "pacer ca")
ok zsh_subcommand "got: $(echo $got)" same "$got" "capacity"
got=$(zcomp "$ZD" "pacer -t2 --for")
ok zsh_long_flag_prefix "got: $(echo $got)" same "$got" "--format"
got=$(zcomp "$ZD" "pacer --format ")
ok zsh_format_values "got: $(echo $got); pacer's: $formats" "[ -n '$formats' ] && holds '$got' $formats"
got=$(zcomp "$ZD" "pacer -s ")
ok zsh_script_files "got: $(echo $got)" same "$got" "post.lua sub"
got=$(zcomp "$ZD" "pacer hey -dis")
ok zsh_hey_single_dash "got: $(echo $got)" \
    same "$got" "-disable-compression -disable-keepalive -disable-redirects"
got=$(zcomp "$ZD" "pacer h2load --al")
ok zsh_h2load_long_flag "got: $(echo $got)" same "$got" "--alpn-list"

# --- every long option of the --help texts is completed ------------------------
# The unit test test_help_lists_every_option holds pacer --help to the
# option table (cli_long_option); here the completions are held to --help.
# longs: the --options of a help text; Options section only with "opts".
longs() { grep -oE -- '--[a-z0-9_][a-z0-9_-]*' | sort -u; }
run_opts=$("$PACER" --help | sed -n '/^  Options:/,$p' | longs)
serve_opts=$("$PACER" serve --help 2>&1 | longs)
report_opts=$("$PACER" report --help 2>&1 | longs)
suite_opts=$("$PACER" suite --help 2>&1 | longs)
all_opts=$( ("$PACER" --help; printf '%s\n' "$serve_opts $report_opts $suite_opts") | longs)
ok help_lists_options "pacer --help gave $(echo "$run_opts" | wc -l) options" \
    "[ $(echo "$run_opts" | wc -l) -gt 40 ] && holds '$run_opts' --connections --slo --rounds --start-rate"

# Named in each file, as a whole word.
# (bash's =~ on the whole file: a newline is one of [^a-z0-9_-], so a word
# at the start or end of a line is found as grep -E finds it.)
missing=""
for f in "$BASHC" "$ZSHC"; do
    text=$(<"$f")
    for o in $all_opts; do
        re="(^|[^a-z0-9_-])$o([^a-z0-9_-]|\$)"
        [[ $text =~ $re ]] || missing="$missing ${f##*/}:$o"
    done
done
ok completion_files_name_every_option "missing:$missing" "[ -z '$missing' ]"

# Offered by the completion itself: pacer URL / compare / capacity together
# cover the Options section; serve, report and suite their own.
missing=""
check_offered() { # SHELL WHAT WANT GOT
    local o
    for o in $3; do has "$4" "$o" || missing="$missing $1:$2:$o"; done
}
got=$( (bcomp "$BASHC" pacer --; bcomp "$BASHC" pacer compare --; bcomp "$BASHC" pacer capacity --) | sort -u)
check_offered bash run "$run_opts" "$got"
check_offered bash serve "$serve_opts" "$(bcomp "$BASHC" pacer serve --)"
check_offered bash report "$report_opts" "$(bcomp "$BASHC" pacer report --)"
check_offered bash suite "$suite_opts" "$(bcomp "$BASHC" pacer suite --)"
got=$( (zcomp "$ZD" "pacer compare --"; zcomp "$ZD" "pacer capacity --") | sort -u)
check_offered zsh run "$run_opts" "$got"
check_offered zsh serve "$serve_opts" "$(zcomp "$ZD" "pacer serve --")"
check_offered zsh report "$report_opts" "$(zcomp "$ZD" "pacer report --")"
check_offered zsh suite "$suite_opts" "$(zcomp "$ZD" "pacer suite --")"
ok completion_offers_every_option "not offered:$missing" "[ -z '$missing' ]"

# --- each persona: exactly the flags its table accepts -------------------------
# persona_flags (tests/tools) lists each persona's option table, a spelling a
# line: "PERSONA FLAG value|switch shown|hidden|refused". Both completions
# must offer every shown flag, and nothing that is neither shown nor hidden
# (a refused flag, or one the persona does not know); bash must take the
# word after a value flag as its value, and not after a switch; zsh too, for
# the personas with tables of their own. The binary must refuse (exit 2)
# what the table says is refused, and its --help name every shown flag.
table=$("$PF")
pf_rc=$?
personas=$("$PF" -p)
ok persona_flags_tool "rc $pf_rc; $(echo "$table" | wc -l) lines; personas: $(echo $personas)" \
    "[ $pf_rc -eq 0 ] && [ $(echo "$table" | wc -l) -gt 100 ] && holds '$personas' ab h2load hey wrk wrk2 &&
     grep -qx 'ab -w switch refused' <<<'$table' && grep -qx 'hey -U value shown' <<<'$table'"
# pacer --help lists the personas; both completions offer them.
help_personas=$("$PACER" --help | awk '/pacer TOOL/ {on = 1; next} on && /^         [a-z]/ {print $1; next} {on = 0}')
ok help_lists_personas "--help: $(echo $help_personas)" same "$(sort -u <<<"$help_personas")" "$personas"
got=$(bcomp "$BASHC" pacer "")
ok bash_offers_personas "got: $(echo $got)" holds "$got" $personas
got=$(zcomp "$ZD" "pacer ")
ok zsh_offers_personas "got: $(echo $got)" holds "$got" $personas

# pf PERSONA STATE [KIND]: its flags in that state (and of that kind).
pf() { awk -v p="$1" -v s="$2" -v k="${3:-}" '$1 == p && $4 == s && (k == "" || $3 == k) {print $2}' <<<"$table" | sort -u; }
# drift PERSONA GOT: the flags GOT (offered) lacks or has too many, as words.
drift() {
    local f bad="" shown known refused
    shown=$(pf "$1" shown) known=$(pf "$1" shown; pf "$1" hidden) refused=$(pf "$1" refused)
    for f in $shown; do has "$2" "$f" || bad="$bad missing:$f"; done
    for f in $2; do
        has "$known" "$f" ||
            bad="$bad $(has "$refused" "$f" && echo refused || echo unknown):$f"
    done
    echo "$bad"
}
for p in $personas; do
    bad=$(drift "$p" "$(bcomp "$BASHC" pacer "$p" -)")
    ok "bash_${p}_flags_match_table" "pacer $p:$bad" "[ -z '$bad' ]"
    bad=$(drift "$p" "$(zcomp "$ZD" "pacer $p -")")
    ok "zsh_${p}_flags_match_table" "pacer $p:$bad" "[ -z '$bad' ]"
done

# vbad SHELL PERSONA FLAG KIND FLAGGED: adds to bad when the offers for
# "FLAG -" (FLAGGED: non-empty when they held a flag) are wrong for KIND: a
# value flag's next word is its value (no flags offered), a switch's is a flag.
vbad() {
    if [ "$4" = value ] && [ -n "$5" ]; then bad="$bad $1:$2:$3(a value flag)"; fi
    if [ "$4" = switch ] && [ -z "$5" ]; then bad="$bad $1:$2:$3(a switch)"; fi
}
# flagged OUT: the N of each "== N" line of OUT whose matches hold a flag
# (one awk for all the lines, not a fork a line).
flagged() { awk '/^== [0-9]+$/ { n = $2; next } /^-/ { f[n] = 1 } END { for (i in f) print i }' <<<"$1"; }
bad="" zlines=() zflags=() blines=() bflags=()
for p in $personas; do
    for k in value switch; do
        for f in $(pf "$p" shown $k); do
            blines+=("pacer $p $f -") bflags+=("$p $f $k")
            case $p in ab | h2load | hey) zlines+=("pacer $p $f -") zflags+=("$p $f $k") ;; esac
        done
    done
done
# bash: all those lines in one shell too (a bash a line was most of this file's time)
bout=$(bcomp_lines "$BASHC" "${blines[@]}" 2>&1)
grep -qx "== ${#blines[@]}" <<<"$bout" || bad="$bad bash: $(tail -c 200 <<<"$bout")"
declare -A has_flag=()
for i in $(flagged "$bout"); do has_flag[$i]=1; done
for i in "${!blines[@]}"; do
    read -r p f k <<<"${bflags[i]}"
    vbad bash "$p" "$f" "$k" "${has_flag[$((i + 1))]:-}"
done
# zsh: all those lines in one shell (zsh_complete.zsh, each line's matches
# after a line "== N").
zout=$(cd "$W" && zsh -f "$ZCOMP" "$ZD" "${zlines[@]}" 2>&1)
zrc=$?
[ $zrc -eq 0 ] && grep -qx "== ${#zlines[@]}" <<<"$zout" || bad="$bad zsh:rc $zrc, $(tail -c 200 <<<"$zout")"
has_flag=()
for i in $(flagged "$zout"); do has_flag[$i]=1; done
for i in "${!zlines[@]}"; do
    read -r p f k <<<"${zflags[i]}"
    vbad zsh "$p" "$f" "$k" "${has_flag[$((i + 1))]:-}"
done
ok persona_values_after_value_flags "${#blines[@]} bash and ${#zlines[@]} zsh lines; wrong:$bad" "[ -z '$bad' ] && [ ${#zlines[@]} -gt 50 ] && [ ${#blines[@]} -gt 50 ]"

# The binary agrees with the tool: what the table refuses is refused, exit 2,
# one line and no usage (no URL is given: a flag it accepted would end in
# the usage and "missing URL", never in a run); what it shows, its --help
# names.
bad=""
for p in $personas; do
    for f in $(pf "$p" refused); do
        v=""
        [ "$(awk -v p="$p" -v f="$f" '$1 == p && $2 == f {print $3}' <<<"$table")" = value ] && v=x
        timeout 10 "$PACER" "$p" "$f" $v >"$T_DIR/ref.out" 2>"$T_DIR/ref.err"
        rc=$?
        [ $rc -eq 2 ] && [ "$(wc -l <"$T_DIR/ref.err")" -eq 1 ] && [ ! -s "$T_DIR/ref.out" ] &&
            ! grep -q 'missing URL' "$T_DIR/ref.err" ||
            bad="$bad $p:$f(rc $rc: $(head -c 80 "$T_DIR/ref.err" | tr '\n' ' '))"
    done
    h=$("$PACER" "$p" --help 2>&1)
    for f in $(pf "$p" shown); do
        re="(^|[^a-zA-Z0-9_-])$f([^a-zA-Z0-9_-]|\$)" # (=~ as grep -E: see above)
        [[ $h =~ $re ]] || bad="$bad $p:$f(not in --help)"
    done
done
ok binary_refuses_and_shows_as_table "$bad" "[ -z '$bad' ]"

# --- make install / uninstall ----------------------------------------------------
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u SAN -u CFLAGS -u LDFLAGS -u LDLIBS \
        -u PREFIX -u DESTDIR -u BINDIR -u MANDIR -u DOCDIR -u BASHCOMPDIR -u ZSHCOMPDIR \
        make -C "$ROOT" --no-print-directory "$@"
}
KEEP=""
[ -x "$ROOT/pacer" ] && KEEP="-o pacer"
D=$T_DIR/destdir
mk install $KEEP DESTDIR="$D" PREFIX=/usr >"$T_DIR/install.log" 2>&1
rc=$?
IB=$D/usr/share/bash-completion/completions/pacer
IZ=$D/usr/share/zsh/vendor-completions/_pacer
ok install_completions "exit $rc; $(ls -l "$IB" "$IZ" 2>&1 | tr '\n' ' ') $(tail -2 "$T_DIR/install.log")" \
    "[ $rc -eq 0 ] && cmp -s '$BASHC' '$IB' && cmp -s '$ZSHC' '$IZ' && [ \"\$(stat -c %a '$IB' '$IZ' | tr '\n' ' ')\" = '644 644 ' ]"
got=$(bcomp "$IB" pacer --for)
ok installed_bash_completes "got: $(echo $got)" same "$got" "--format"
got=$(zcomp "${IZ%/*}" "pacer --for")
ok installed_zsh_completes "got: $(echo $got)" same "$got" "--format"
mk uninstall DESTDIR="$D" PREFIX=/usr >"$T_DIR/uninstall.log" 2>&1
rc=$?
ok uninstall_completions "exit $rc; left: $(cd "$D" && find . ! -type d | tr '\n' ' ')" \
    "[ $rc -eq 0 ] && [ ! -e '$IB' ] && [ ! -e '$IZ' ]"

finish
