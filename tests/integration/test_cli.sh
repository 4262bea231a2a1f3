#!/usr/bin/env bash
# Command-line behaviour of the binary: exit codes and one-line errors.
. "$(dirname "$0")/lib.sh"

# usage_error NAME ARGS...: exit 2 and exactly one line "pacer: ..." on stderr.
usage_error() {
    local name=$1; shift
    local err="$T_DIR/err" rc
    "$PACER" "$@" >"$T_DIR/out" 2>"$err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(grep -c '^pacer: ' "$err")" -eq 1 ] && [ ! -s "$T_DIR/out" ]; then
        pass "$name"
    else
        fail "$name" "exit $rc, stderr: $(head -c 300 "$err")"
    fi
}

usage_error bad_flag --bogus http://127.0.0.1:1/
usage_error bad_short_flag -Z http://127.0.0.1:1/
usage_error missing_value -c
usage_error bad_connections -c abc http://127.0.0.1:1/
usage_error zero_threads -t 0 http://127.0.0.1:1/

usage_error bad_duration -d 10x http://127.0.0.1:1/
usage_error bad_rate -R fast http://127.0.0.1:1/
usage_error zero_rate -R 0 http://127.0.0.1:1/
usage_error bad_timeout --timeout -1s http://127.0.0.1:1/

# err_says NAME TEXT ARGS...: a usage error (exit 2, one line) whose line has TEXT.
err_says() {
    local name=$1 text=$2; shift 2
    local err="$T_DIR/err" rc
    "$PACER" "$@" >"$T_DIR/out" 2>"$err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -qF -- "$text" "$err" &&
       [ ! -s "$T_DIR/out" ]; then
        pass "$name"
    else
        fail "$name" "exit $rc, want '$text', stderr: $(head -c 300 "$err")"
    fi
}
# A ramp's grammar: exactly A..B (not 100 to .200 req/s from three dots).
err_says rate_three_dots "did you mean '100..200'?" -R 100...200 -d 1 http://127.0.0.1:1/
err_says rate_ramp_no_end "no end rate" -R 100.. http://127.0.0.1:1/
err_says rate_ramp_no_start "no start rate" -R ..200 http://127.0.0.1:1/
err_says rate_two_ramps "--stages" -R 100..200..300 http://127.0.0.1:1/
err_says rate_ramp_garbage "end rate '2kx'" -R 1..2kx http://127.0.0.1:1/
err_says stages_empty_stage "stage 2 is empty" --stages 1s:5, http://127.0.0.1:1/
# A shard index past N: the range, and a spelling only where one fits.
err_says shard_past_last "shards of 2 are 0/2 and 1/2" --shard 3/2 http://127.0.0.1:1/
grep -q 'is 1/2' "$T_DIR/err" && fail shard_past_last_no_guess "$(cat "$T_DIR/err")" || pass shard_past_last_no_guess
err_says shard_counted_from_1 "counted from 1, 2/2 is 1/2" --shard 2/2 http://127.0.0.1:1/
err_says shard_no_count "count after '/'" --shard 1/ http://127.0.0.1:1/
err_says shard_zero_count "from 1 to" --shard 0/0 http://127.0.0.1:1/
usage_error bad_pipeline --pipeline 0 http://127.0.0.1:1/
usage_error bad_header -H "NoColon" http://127.0.0.1:1/
usage_error bad_url ftp://example.test/
usage_error bad_port http://127.0.0.1:99999/
usage_error bad_ipv6 "http://[::1/"

# hint NAME PATTERN ARGS...: a usage error whose one line carries the hint.
hint() {
    local name=$1 pattern=$2; shift 2
    "$PACER" "$@" >"$T_DIR/out" 2>"$T_DIR/err"
    local rc=$?
    ok "$name" "exit $rc: $(head -c 300 "$T_DIR/err")" \
        "[ $rc -eq 2 ] && [ \$(wc -l <'$T_DIR/err') -eq 1 ] && grep -qF -- \"$pattern\" '$T_DIR/err' && [ ! -s '$T_DIR/out' ]"
}
# Other tools' spellings: refused with pacer's (hey's -h2 printed the help and exited 0).
hint hint_hey_h2 "HTTP/2 is --h2 here (hey's -h2; or run it as" -h2 http://127.0.0.1:1/
hint hint_hey_host "--host NAME here (hey's -host; or run it as" -host example.com http://127.0.0.1:1/
hint hint_hey_disable_keepalive "--no-keepalive here" -disable-keepalive http://127.0.0.1:1/
hint hint_single_dash_long "did you mean '--latency'?" -latency http://127.0.0.1:1/
hint hint_hey_method "the method is -X POST here: hey's -m" -m POST http://127.0.0.1:1/
hint hint_hey_body "a request body is --body TEXT here: hey's -d" -d '{"a":1}' http://127.0.0.1:1/
hint hint_ab_timeout "the timeout is --timeout: ab's -s" -s 30 http://127.0.0.1:1/
echo http://127.0.0.1:1/ >"$T_DIR/uris.txt"
hint hint_h2load_uri_file "a file of URLs is --urls FILE" -i "$T_DIR/uris.txt"

# Typographic dashes, as blog posts print them, are read as ASCII (one note).
"$PACER" -t1 -c1 -d1ms $'\xe2\x80\x93'latency http://127.0.0.1:1/ >"$T_DIR/out" 2>"$T_DIR/err"
ok en_dash_read_as_ascii "$(head -2 "$T_DIR/err")" \
    "grep -qx \"pacer: note: '\$(printf '\\342\\200\\223')latency' read as '--latency' (a typographic dash)\" '$T_DIR/err' && grep -q 'Latency Distribution' '$T_DIR/out'"

"$PACER" >"$T_DIR/out" 2>"$T_DIR/err"
rc=$?
ok missing_url "exit $rc: $(tail -1 "$T_DIR/err")" "[ $rc -eq 2 ] && grep -q '^pacer: missing URL' '$T_DIR/err'"

"$PACER" -h >"$T_DIR/out" 2>&1
rc=$?
ok help_exit0 "exit $rc" "[ $rc -eq 0 ] && grep -q '^Usage: pacer' '$T_DIR/out' && grep -q -- '--rate' '$T_DIR/out'"

"$PACER" -v >"$T_DIR/out" 2>&1
rc=$?
ok version_alone "exit $rc: $(head -1 "$T_DIR/out")" "[ $rc -eq 0 ] && head -1 '$T_DIR/out' | grep -qE '^pacer [0-9]+\.[0-9]+\.[0-9]+ ' && grep -q '^Usage:' '$T_DIR/out'"

# Each subcommand's --help is its own: its usage line first, short, and
# (compare, capacity) its own options, not the run options' 100 lines.
for sub in compare capacity suite report serve; do
    "$PACER" "$sub" --help >"$T_DIR/out" 2>&1
    rc=$?
    lines=$(wc -l <"$T_DIR/out")
    ok "help_$sub" "exit $rc, $lines lines: $(head -1 "$T_DIR/out")" \
        "[ $rc -eq 0 ] && head -1 '$T_DIR/out' | grep -qiE '^usage: pacer $sub ' && [ $lines -le 40 ] &&
         ! grep -qE '^ +-c, --connections' '$T_DIR/out'"
done
"$PACER" compare --help >"$T_DIR/out" 2>&1
ok help_compare_options "$(head -8 "$T_DIR/out")" "grep -qE '^ +--rounds +<N>' '$T_DIR/out' && grep -q 'pacer --help' '$T_DIR/out'"
"$PACER" capacity --help >"$T_DIR/out" 2>&1
ok help_capacity_options "$(head -8 "$T_DIR/out")" \
    "grep -qE '^ +--max-rate +<R>' '$T_DIR/out' && grep -qE '^ +--start-rate +<R>' '$T_DIR/out' && ! grep -q -- '--rounds' '$T_DIR/out'"

# The docs --help points at are files that exist (an absolute path, the
# installed or the source tree's copy), never a path relative to the
# directory pacer happens to be run from.
for h in "" compare capacity ab h2load hey; do
    (cd / && "$PACER" $h --help) >"$T_DIR/out" 2>&1
    rel=$(grep -oE '(^|[ (])docs/[A-Za-z._-]+' "$T_DIR/out" | head -3 | tr '\n' ' ')
    missing=""
    for f in $(grep -oE '/[^ ()]+\.md' "$T_DIR/out"); do [ -f "$f" ] || missing="$missing $f"; done
    ok "help_doc_paths${h:+_$h}" "relative: $rel; missing:$missing" "[ -z '$rel' ] && [ -z '$missing' ]"
done

# The man page's EXAMPLES: each pacer command there parses (its URL swapped
# for one pacer refuses after the options: the options are all accepted).
ex=$(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$(dirname "$0")/../../docs/pacer.1" | grep '^\.B pacer ' |
    grep -vE '^\.B pacer (serve|report) ' | sed -e 's/^\.B //' -e 's/\\-/-/g' -e 's#https*://[^ ]*#ftp://x/#g')
n=0 bad=""
while IFS= read -r cmd; do
    [ -n "$cmd" ] || continue
    n=$((n + 1))
    eval "set -- ${cmd#pacer }"
    "$PACER" "$@" >/dev/null 2>"$T_DIR/err"
    grep -q "invalid URL 'ftp://x/'\|must start with http" "$T_DIR/err" || bad="$bad [$cmd: $(head -1 "$T_DIR/err")]"
done <<<"$ex"
ok man_examples_parse "$n examples;$bad" "[ $n -ge 8 ] && [ -z \"\$bad\" ]"

# -v with a URL prints the version and runs (wrk does; seed 003 relies on it).
start_serve || fail serve_start "no serve"
"$PACER" -v -t1 -c1 -d200ms "$SERVE_URL" >"$T_DIR/out" 2>&1
rc=$?
ok version_and_run "exit $rc" "[ $rc -eq 0 ] && head -1 '$T_DIR/out' | grep -q '^pacer ' && grep -q '^Requests/sec:' '$T_DIR/out'"

# Options after the URL, as wrk allows.
"$PACER" "$SERVE_URL" -t1 -c1 -d200ms >"$T_DIR/out" 2>&1
ok options_after_url "$(head -3 "$T_DIR/out")" "grep -q '^  1 threads and 1 connections' '$T_DIR/out'"

# A typographic dash before one-letter flags ("–t2 –c10", as seed posts
# print them) is read as the short option when no long option has that
# name, in pacer and in every persona: the run goes on, one note per flag.
ED=$'\xe2\x80\x93' EM=$'\xe2\x80\x94'
dash_run() {
    local name=$1 n=$2; shift 2
    "$PACER" "$@" "$SERVE_URL" >"$T_DIR/out" 2>"$T_DIR/err"
    local rc=$?
    ok "$name" "exit $rc: $(head -c 300 "$T_DIR/err")" \
        "[ $rc -eq 0 ] && [ \$(grep -c \"^pacer: note: '.*' read as '-[a-zA-Z][^-]*' (a typographic dash: no long option of that name)\$\" '$T_DIR/err') -eq $n ] && [ -s '$T_DIR/out' ]"
}
dash_run en_dash_short_pacer 3 "${ED}t1" "${ED}c2" "${EM}d300ms"
dash_run en_dash_short_wrk 3 wrk "${ED}t1" "${ED}c2" "${ED}d300ms"
dash_run en_dash_short_wrk2 4 wrk2 "${ED}t1" "${ED}c2" "${ED}d300ms" "${ED}R100"
dash_run en_dash_short_ab 2 ab "${ED}n10" "${ED}c2"
dash_run en_dash_short_h2load 2 h2load "${ED}n10" "${ED}c2" --h1
dash_run en_dash_short_hey 2 hey "${ED}n" 10 "${ED}c" 2

# wrk2's latency blocks for each of -L / -U, as the real wrk2 prints them
# (tests/data/wrk2/: -U sets -L there, so the corrected block comes first):
# the lines from the first "Latency Distribution" to "N requests in", with
# the spectrum's rows and every number left out, must be wrk2's.
wrk2_blocks() {
    awk '/Latency Distribution/ {on = 1} / requests in / {on = 0} on' "$1" |
        grep -vE '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +([0-9.]+|inf)$|^#\[' | sed -E 's/^( *[0-9.]+%) .*/\1/'
}
DATA="$(dirname "$0")/../data/wrk2"
for lu in "" -L -U "-L -U"; do
    name=wrk2_latency_blocks$(echo "$lu" | tr -d ' -')
    want="$DATA/wrk2-R100$(for f in $lu; do printf %s "$f"; done).txt"
    # shellcheck disable=SC2086 # $lu: none, one or two flags
    "$PACER" wrk2 -t1 -c2 -d300ms -R100 $lu "$SERVE_URL" >"$T_DIR/out" 2>&1
    ok "$name" "$(diff <(wrk2_blocks "$want") <(wrk2_blocks "$T_DIR/out") | head -5)" \
        "[ -s '$want' ] && diff -q <(wrk2_blocks '$want') <(wrk2_blocks '$T_DIR/out') >/dev/null"
done

# A name that does not resolve: exit 1, one line, before any load.
"$PACER" -d1s http://no-such-host.invalid/ >"$T_DIR/out" 2>"$T_DIR/err"
rc=$?
ok unresolvable_exit1 "exit $rc: $(cat "$T_DIR/err")" "[ $rc -eq 1 ] && grep -q '^pacer: cannot resolve' '$T_DIR/err' && [ ! -s '$T_DIR/out' ]"

# Too few file descriptors for -c is found before the run.
( ulimit -n 64; "$PACER" -t1 -c500 -d1s "$SERVE_URL" >"$T_DIR/out" 2>"$T_DIR/err"; echo $? >"$T_DIR/rc" )
rc=$(cat "$T_DIR/rc")
ok fd_limit_checked "exit $rc: $(cat "$T_DIR/err")" "[ $rc -eq 1 ] && grep -q 'file descriptors' '$T_DIR/err' && grep -q 'ulimit -n' '$T_DIR/err'"

finish
