#!/usr/bin/env bash
# Other tools' flags on pacer's own command line: every flag that wrk,
# wrk2, ab, h2load and hey list in their --help (tests/data/peer-help/, the
# tools' real help texts) is either one pacer takes or a row of the peer
# table (src/cli/peer_hints.c), and each row prints its hint: exit 2, one
# line, never a bare "unknown option".
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HELP="$ROOT/tests/data/peer-help"
PF=${TOOLS:-$ROOT/build/tools}/persona_flags
[ -x "$PF" ] || PF=$ROOT/build/tools/persona_flags
BAD=ftp://no.such.scheme/ # a URL pacer refuses after the options: no run, no network

# peer_flags: "TOOL FLAG value|switch" for each flag the help texts list.
peer_flags() {
    awk 'substr($0, 1, 5) == "    -" && substr($0, 7, 1) == " " {
        print "ab", substr($0, 5, 2), (substr($0, 8, 1) != " ") ? "value" : "switch" }' "$HELP/ab-2.3.txt"
    sed -nE 's/^  (-[A-Za-z0-9-]+).*/\1/p' "$HELP/hey-0.1.4.txt" | awk '{
        print "hey", $1, ($1 ~ /^-(disable-|h2$)/) ? "switch" : "value" }'
    sed -nE 's/^  ((-[A-Za-z0-9]), )?(--[a-z0-9-]+)(=?).*/\2 \3 \4/p' "$HELP/h2load-1.52.0.txt" | awk '{
        v = ($NF == "=") ? "value" : "switch"
        for (i = 1; i <= NF; i++) if ($i ~ /^-/) print "h2load", $i, v }'
    local t
    for t in wrk-4.1.0 wrk2; do
        sed -nE 's/^    (-([A-Za-z]),? )? *(--[a-z_]+) *(<[A-Z]>)?.*/\2 \3 \4/p' "$HELP/$t.txt" |
            awk -v t="${t%%-*}" '{
                v = ($NF ~ /^</) ? "value" : "switch"
                for (i = 1; i <= NF; i++) if ($i ~ /^--/) print t, $i, v; else if ($i ~ /^[A-Za-z]$/) print t, "-" $i, v }'
    done
}
peer_flags >"$T_DIR/help_flags"
n=$(wc -l <"$T_DIR/help_flags")
# The five help texts list 126 flags (a parse that lost some would pass the walk below).
ok help_texts_parsed "$n flags read from $HELP" "[ $n -ge 120 ]"

"$PF" -P >"$T_DIR/rows"
pf_rc=$?
ok peer_table_listed "rc $pf_rc, $(wc -l <"$T_DIR/rows") rows" "[ $pf_rc -eq 0 ] && [ -s '$T_DIR/rows' ]"

# One test per row: the flag (with a value if it takes one) is refused with
# its row's hint, naming the tool's flag.
while read -r tool flag kind hint; do
    args=("$flag")
    [ "$kind" = value ] && args+=(1)
    "$PACER" "${args[@]}" "$BAD" >"$T_DIR/out" 2>"$T_DIR/err"
    rc=$?
    name=peer_hint_${tool}_$(echo "$flag" | tr -c 'A-Za-z0-9\n' _)
    ok "$name" "exit $rc: $(head -c 300 "$T_DIR/err")" \
        "[ $rc -eq 2 ] && [ \$(wc -l <'$T_DIR/err') -eq 1 ] && [ ! -s '$T_DIR/out' ] &&
         grep -qF -- \"pacer: unknown option '$flag': \" '$T_DIR/err' &&
         grep -qF -- \"\$(sed -n 's/^$tool $flag $kind //p' '$T_DIR/rows' | head -1) ($tool's $flag\" '$T_DIR/err'"
    # A row is a flag the tool has: its help lists it.
    ok "${name}_in_help" "$tool's help does not list $flag" "grep -qx -- '$tool $flag $kind' '$T_DIR/help_flags'"
done <"$T_DIR/rows"

# Every flag of the help texts: pacer takes it, or hints (never a bare
# "unknown option ... (see pacer --help)").
bare=""
while read -r tool flag kind; do
    args=("$flag")
    [ "$kind" = value ] && args+=(1)
    timeout 10 "$PACER" "${args[@]}" "$BAD" >/dev/null 2>"$T_DIR/err"
    grep -q "unknown option .*(see pacer --help)" "$T_DIR/err" && bare="$bare $tool:$flag"
done <"$T_DIR/help_flags"
ok peer_flags_all_hinted "bare 'unknown option' for:$bare" "[ -z '$bare' ]"

# A flag pacer takes with another meaning hints from its value: h2load's
# -p PROTO is pacer's body file.
"$PACER" -p h2c "$BAD" >"$T_DIR/out" 2>"$T_DIR/err"
rc=$?
ok peer_value_p_h2c "exit $rc: $(head -c 300 "$T_DIR/err")" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T_DIR/err') -eq 1 ] && grep -qF \"h2load's -p h2c: in clear text, HTTP/2 (h2c) is --h2 here\" '$T_DIR/err'"
# ... but a file of that name is the body, as ab's -p.
(cd "$T_DIR" && printf x >h2c && "$PACER" -p h2c "$BAD" >out 2>err)
ok peer_value_p_file_named_h2c "$(head -c 300 "$T_DIR/err")" "! grep -q 'body file' '$T_DIR/err'"

finish
