#!/usr/bin/env bash
# pacer capacity / compare / suite against `pacer serve` (a known knee with
# --capacity) and nginx, with their JSON and HTML outputs. The capacity
# search for the knee (p99 <= 50 ms steps) and compare's verdicts are in
# test_workflows_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
D=$T_DIR
HC="$(dirname "$0")/../tools/html_check.sh"
SCHEMA="$(dirname "$0")/../../docs/pacer-result.schema.json"
WSCHEMA="$(dirname "$0")/../../docs/pacer-workflow.schema.json"

# valid_workflow FILE: the document against docs/pacer-workflow.schema.json,
# its embedded results against docs/pacer-result.schema.json. Prints the
# error (if any) and fails.
valid_workflow() {
    "$PY" - "$1" "$SCHEMA" "$WSCHEMA" <<'PYEOF'
import json, sys, jsonschema
doc, r, w = (json.load(open(p)) for p in sys.argv[1:4])
res = jsonschema.RefResolver.from_schema(w, store={r["$id"]: r, w["$id"]: w})
try:
    jsonschema.validate(doc, w, resolver=res)
except jsonschema.ValidationError as e:
    print(str(e).splitlines()[0], "at", list(e.absolute_path)); sys.exit(1)
PYEOF
}

start_nginx || { fail nginx_start "nginx did not start"; finish; }
NGX="http://127.0.0.1:$NGX_PORT/"
start_serve --threads 1 || { fail serve_start "$(serve_err)"; finish; }
PLAIN=$SERVE_URL
CAPN=2000
start_serve --threads 1 --capacity $CAPN || { fail serve_cap_start "$(serve_err)"; finish; }
CAP=$SERVE_URL

# html_charts FILE NAME: run the chromium check; prints "title<TAB>series" lines.
html_charts() {
    bash "$HC" "$1" "$D/hc.$2" >"$D/hc.$2.out" 2>"$D/hc.$2.err"
    local rc=$?
    if [ $rc -eq 3 ]; then need_cmd chromium chromium; return 1; fi
    ok "$2" "exit $rc: $(cat "$D/hc.$2.err")" "[ $rc -eq 0 ] && [ -s '$D/hc.$2/shot.png' ]"
    [ $rc -eq 0 ]
}
# series_of NAME TITLE: the series count html_check printed for a chart.
series_of() { awk -F'\t' -v t="$2" '$2 == t { sub("series=", "", $3); print $3 }' "$D/hc.$1.out"; }


# --- capacity: guard rails (p90: 100 samples a step, so that these steps last -d).
"$PACER" capacity "$CAP" --slo 'p90<=50ms' -t1 -c10 -d500ms --start-rate 250 --max-rate 400 \
    --pause 100ms >"$D/capmax.out" 2>&1
rc=$?
ok capacity_max_rate "exit $rc: $(tail -3 "$D/capmax.out")" \
    "[ $rc -eq 0 ] && grep -q '^Capacity: sustains at least 400.00 req/s with p90<=50ms (reached --max-rate)' '$D/capmax.out' && [ \$(awk '\$1 ~ /^[0-9]+\$/ && NF == 9' '$D/capmax.out' | wc -l) -eq 2 ]"
start=$SECONDS
"$PACER" capacity "$CAP" --slo 'p90<=50ms' -t1 -c10 -d1s --start-rate 100 --max-time 2500ms \
    --pause 100ms >"$D/captime.out" 2>&1
rc=$?
ok capacity_max_time "exit $rc after $((SECONDS - start)) s: $(tail -2 "$D/captime.out")" \
    "[ $rc -eq 0 ] && [ $((SECONDS - start)) -le 6 ] && grep -q 'search stopped by --max-time' '$D/captime.out'"
"$PACER" capacity "$CAP" --slo 'p99<=50ms' -t1 -c20 -d1s --start-rate 8000 >"$D/capfail.out" 2>&1
rc=$?
ok capacity_fails_at_start_exit5 "exit $rc: $(tail -2 "$D/capfail.out")" \
    "[ $rc -eq 5 ] && grep -q '^Capacity: the SLO fails already at 8000.00 req/s (p99<=50ms measured' '$D/capfail.out'"

# A percentile rests on the samples above it: a step lasts until p95 has 200
# (10 above it), 1 s at 200 req/s rather than -d 200ms, and says so.
"$PACER" capacity "$CAP" --slo 'p95<=50ms' -t1 -c10 -d200ms --start-rate 200 --max-rate 200 \
    --pause 0 --json "$D/capext.json" >"$D/capext.out" 2>&1
rc=$?
ok capacity_step_extended "exit $rc: $(cat "$D/capext.out")" \
    "[ $rc -eq 0 ] && grep -q 'steps of 200.00ms (longer below 1000.00 req/s: p95<=50ms needs 200 latency samples)' '$D/capext.out' &&
     grep -q '^      (step 1 ran 1.00s, not -d 200.00ms: p95<=50ms needs 200 latency samples)\$' '$D/capext.out' &&
     [ \"\$(json_get '$D/capext.json' \"'%d %s' % (d['steps'][0]['result']['requests']['completed'], d['steps'][0]['inconclusive'])\")\" = '200 False' ]"
# A step whose requests failed too often to leave the samples decides nothing.
if start_h1fault --mode reset-after-headers --every 2; then
    "$PACER" capacity "$H1F_URL" --slo 'p90<=50ms' -t1 -c4 -d1s --start-rate 100 --max-rate 100 \
        --pause 0 --json "$D/capinc.json" >"$D/capinc.out" 2>&1
    rc=$?
    ok capacity_inconclusive "exit $rc: $(tail -3 "$D/capinc.out")" \
        "[ $rc -eq 5 ] && grep -qE '^   1 +100.00 .* INCONCLUSIVE\$' '$D/capinc.out' &&
         grep -qE '^Capacity: unknown: stopped by an inconclusive step at 100.00 req/s \(p90<=50ms needs 100 latency samples, it had [0-9]+, [0-9]+ requests failed\); try -d [0-9.]+s or longer\$' '$D/capinc.out' &&
         [ \"\$(json_get '$D/capinc.json' \"'%s %s %s' % (d['capacity_rate'], d['steps'][0]['pass'], d['steps'][0]['inconclusive'])\")\" = 'None False True' ]"
    ok capacity_inconclusive_json_valid "$(valid_workflow "$D/capinc.json")" "valid_workflow '$D/capinc.json' >/dev/null"
else
    fail capacity_inconclusive "h1fault did not start"
fi
# Failing at the start rate although the server kept up: not a rate problem.
start_serve --threads 1 --delay 20ms || fail serve_delay_start "$(serve_err)"
"$PACER" capacity "$SERVE_URL" --slo 'p90<=10ms' -t1 -c4 -d1s --start-rate 100 >"$D/capslow.out" 2>&1
rc=$?
ok capacity_fails_at_start_kept_up "exit $rc: $(tail -1 "$D/capslow.out")" \
    "[ $rc -eq 5 ] && grep -q '^Capacity: the SLO fails already at 100.00 req/s (p90<=10ms measured [0-9.]*ms); the server kept up with that rate, so its latency there is not from overload: try --warmup (if the first requests were slow) rather than a lower --start-rate\$' '$D/capslow.out'"

# SIGTERM ends the search after the step in progress, with the answer so far.
"$PACER" capacity "$CAP" --slo 'p90<=50ms' -t1 -c10 -d1s --start-rate 250 --pause 500ms \
    --json "$D/capsig.json" >"$D/capsig.out" 2>&1 &
pid=$!
sleep 2.2
kill -TERM "$pid"
t=$SECONDS
wait "$pid"
rc=$?
ok capacity_sigterm "exit $rc after $((SECONDS - t)) s: $(cat "$D/capsig.out")" \
    "[ $rc -eq 143 ] && [ $((SECONDS - t)) -le 4 ] && grep -q '^Capacity: sustains at least 250.00 req/s with p90<=50ms (search interrupted)' '$D/capsig.out' && [ \"\$(json_get '$D/capsig.json' 'float(d[\"capacity_rate\"])')\" = 250.0 ]"

# An output that cannot be written outranks the signal, as for a run
# (config.h, pc_exit_code): exit 1, not 143.
"$PACER" capacity "$CAP" --slo 'p90<=50ms' -t1 -c10 -d1s --start-rate 250 --pause 500ms \
    --json "$D/no-such-dir/capsig.json" >"$D/capsig2.out" 2>&1 &
pid=$!
sleep 2.2
kill -TERM "$pid"
wait "$pid"
rc=$?
ok capacity_sigterm_unwritable_json "exit $rc: $(tail -2 "$D/capsig2.out")" \
    "[ $rc -eq 1 ] && grep -q '^pacer: cannot write .*no-such-dir/capsig.json' '$D/capsig2.out' && grep -q '(search interrupted)' '$D/capsig2.out'"

# --- compare: nginx vs pacer serve -----------------------------------------
before=$(wc -l <"$NGX_DIR/access.log")
"$PACER" compare -t1 -c4 -d1s -R400 --rounds 2 "$NGX" "$PLAIN" --json "$D/cmp.json" \
    --html "$D/cmp.html" >"$D/cmp.out" 2>"$D/cmp.err"
rc=$?
ok compare_exit0 "exit $rc: $(tail -3 "$D/cmp.err")" "[ $rc -eq 0 ]"
ok compare_interleaved "$(grep -o 'round [0-9]/2 [AB]' "$D/cmp.err" | tr '\n' ' ')" \
    "[ \"\$(grep -o 'round [0-9]/2 [AB]' '$D/cmp.err' | tr '\n' ' ')\" = 'round 1/2 A round 1/2 B round 2/2 A round 2/2 B ' ]"
reqA=$(awk '$1 == "Requests" { print $2 }' "$D/cmp.out")
reqB=$(awk '$1 == "Requests" { print $3 }' "$D/cmp.out")
ok compare_a_matches_nginx_log "table says $reqA, nginx logged $(( $(wc -l <"$NGX_DIR/access.log") - before ))" \
    "[ -n '$reqA' ] && [ '$reqA' -eq \$(( \$(wc -l <'$NGX_DIR/access.log') - $before )) ]"
# (Its rates, 400/s within 2.5%, and their ratio: test_workflows_timing.sh.)
ok compare_latency_rows "$(grep Latency "$D/cmp.out")" \
    "[ \$(grep -cE '^Latency (p50|p90|p99|p99.9|max) \(ms\) +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} \([0-9.]+x\)\$' '$D/cmp.out') -eq 5 ]"
# One unit per row: latency in ms, transfer in MB of 2^20 bytes (as wrk's Transfer/sec).
ok compare_units "$(grep -E '^(Transfer|Latency p99 )' "$D/cmp.out")" \
    "[ \"\$(awk '/^Transfer\/sec \(MB\) / { t = \$3 } /^Latency p99 \(ms\) / { l = \$4 } END { print t, l }' '$D/cmp.out')\" = \"\$(json_get '$D/cmp.json' \"'%.2f %.3f' % (d['targets'][0]['result']['bytes']['read_per_s'] / 2**20, d['targets'][0]['result']['latency']['corrected']['percentiles']['99'] / 1000)\")\" ]"
ok compare_json "$(head -c 200 "$D/cmp.json")" \
    "[ \"\$(json_get '$D/cmp.json' \"' '.join(str(len(t['requests_per_sec_by_round'])) + ':' + str(t['result']['requests']['completed']) for t in d['targets'])\")\" = '2:$reqA 2:$reqB' ]"
ok compare_json_valid "$(valid_workflow "$D/cmp.json")" "valid_workflow '$D/cmp.json' >/dev/null"
if html_charts "$D/cmp.html" compare_html; then
    ok compare_html_overlay "$(cat "$D/hc.compare_html.out")" \
        "[ \"\$(series_of compare_html 'Latency by percentile (corrected)')\" = 2 ] && [ \"\$(series_of compare_html 'Requests/sec by round')\" = 2 ]"
fi
# Two rounds: too few for a verdict, and it says so for every metric.
ok compare_two_rounds_not_judged "$(grep -A5 '^Verdict' "$D/cmp.out")" \
    "[ \$(grep -cE '^  (Requests/sec|Latency p[0-9.]+) +not judged \(fewer than 3 rounds\)\$' '$D/cmp.out') -eq 5 ]"
ok compare_html_verdict "$(grep -c 'Verdict, B against A' "$D/cmp.html") verdict blocks in the page" \
    "grep -q 'Verdict, B against A (2 rounds' '$D/cmp.html' && grep -q 'not judged (fewer than 3 rounds)' '$D/cmp.html'"


# --- compare's verdict (docs/methodology.md, "Compare's verdict") ---------
# (identical servers: test_workflows_timing.sh)
# 20 ms of delay against none, at a rate both sustain: the latency names
# the faster one (B, the second URL, whichever order), the rate does not.
start_serve --threads 1 --delay 20ms || fail serve_delay2_start "$(serve_err)"
SLOW=$SERVE_URL
"$PACER" compare -t1 -c8 -d300ms -R 100 --rounds 3 "$SLOW" "$PLAIN" --json "$D/cmpdiff.json" \
    >"$D/cmpdiff.out" 2>/dev/null
ok compare_delay_names_faster "$(grep -A6 '^Verdict' "$D/cmpdiff.out")" \
    "grep -qE '^  Latency p50 +B faster \(B/A by round 0\.[0-9]+x-0\.[0-9]+x\)\$' '$D/cmpdiff.out' &&
     grep -qE '^  Requests/sec +no clear difference ' '$D/cmpdiff.out' &&
     [ \"\$(json_get '$D/cmpdiff.json' \"d['targets'][1]['verdict']['latency_p50']['faster']\")\" = B ]"
"$PACER" compare -t1 -c4 -d300ms --rounds 3 "$PLAIN" "$SLOW" >"$D/cmpdiff2.out" 2>/dev/null
ok compare_delay_closed_loop "$(grep -A6 '^Verdict' "$D/cmpdiff2.out")" \
    "grep -qE '^  Requests/sec +A faster \(B/A by round 0\.[0-9]+x-0\.[0-9]+x\)\$' '$D/cmpdiff2.out' &&
     grep -qE '^  Latency p50 +A faster \(B/A by round [0-9.]+x-[0-9.]+x\)\$' '$D/cmpdiff2.out'"

"$PACER" compare -t1 -c2 -d300ms -R100 --rounds 1 --slo 'p99<=1us' "$NGX" "$PLAIN" >"$D/cmpslo.out" 2>&1
rc=$?
ok compare_slo_exit5 "exit $rc" "[ $rc -eq 5 ] && [ \$(grep -c '^SLO for [AB] (http' '$D/cmpslo.out') -eq 2 ]"

# A target that refuses connections: no ratios against nothing, exit 3.
"$PACER" compare -t1 -c2 -d300ms --rounds 1 "$PLAIN" "http://127.0.0.1:1/" >"$D/cmpdead.out" 2>&1
rc=$?
ok compare_dead_target_exit3 "exit $rc: $(grep -E 'Connect errors|Latency p99 ' "$D/cmpdead.out")" \
    "[ $rc -eq 3 ] && grep -qE '^Connect errors +0 +[1-9][0-9]*\$' '$D/cmpdead.out' && grep -qE '^Latency p99 \(ms\) +[0-9]+\.[0-9]{3} +-\$' '$D/cmpdead.out'"
"$PACER" capacity --slo 'p50<=10ms' -t1 -c2 -d300ms --pause 0 "http://127.0.0.1:1/" >"$D/capdead.out" 2>&1
rc=$?
ok capacity_dead_target_exit3 "exit $rc: $(tail -1 "$D/capdead.out")" \
    "[ $rc -eq 3 ] && grep -q '^Capacity: unknown: no response at 100.00 req/s (127.0.0.1:1: Connection refused)' '$D/capdead.out'"

usage() { # NAME WANT ARGS...
    local name=$1 want=$2; shift 2
    "$PACER" "$@" >"$D/u.out" 2>"$D/u.err"
    local rc=$?
    ok "$name" "exit $rc: $(cat "$D/u.err")" "[ $rc -eq 2 ] && [ \$(grep -c '^pacer: ' '$D/u.err') -eq 1 ] && grep -q -- '$want' '$D/u.err'"
}
usage compare_needs_two 'at least two URLs' compare "$NGX"
usage compare_no_hlog '--hlog cannot be used' compare --hlog "$D/x" "$NGX" "$PLAIN"
usage compare_bad_url 'http' compare "$NGX" "ftp://x/"
usage capacity_needs_slo 'needs --slo' capacity "$CAP"
usage capacity_no_R 'chooses the rate' capacity --slo 'p99<=1ms' -R 10 "$CAP"
usage capacity_start_above_max 'is above --max-rate' capacity --slo 'p99<=1ms' --start-rate 10k --max-rate 1k "$CAP"
usage capacity_samples_over_max_time 'p99.9<=1s needs 10000 latency samples a step: 1.67m at --start-rate 100.00, more than --max-time 10.00s' \
    capacity --slo 'p99.9<=1s' -d1s --max-time 10s "$CAP"
usage rounds_only_compare 'is an option of pacer compare' --rounds 2 "$CAP"
usage max_rate_only_capacity 'is an option of pacer capacity' compare --max-rate 2 "$NGX" "$PLAIN"

# --- suite: nginx and pacer serve x two profiles ---------------------------
cat >"$D/suite.txt" <<SUITE
# targets x profiles
target nginx  $NGX   -H "X-Pacer: suite nginx"
target serve  $PLAIN
profile closed  -t1 -c4 -d1s
profile rated   -t1 -c4 -d1s -R300 --slo 'p99<=250ms, errors<=0'
SUITE
before=$(grep -c 'suite nginx' "$NGX_DIR/access.log")
"$PACER" suite --json "$D/suite.json" --html "$D/suite.html" "$D/suite.txt" >"$D/suite.out" 2>"$D/suite.err"
rc=$?
ok suite_exit0 "exit $rc: $(tail -3 "$D/suite.err")" "[ $rc -eq 0 ]"
ok suite_lines "$(cat "$D/suite.out")" \
    "[ \$(grep -cE '^  (nginx|serve) finished in 1\.[0-9]+ seconds, [0-9.]+ req/s, [0-9.]+ MB/s, 0 failures, p99 [0-9.]+(us|ms)' '$D/suite.out') -eq 4 ]"
ok suite_table "$(tail -5 "$D/suite.out")" \
    "grep -qE '^target +profile +duration +req/s +MB/s +failures +p99\(ms\) +SLO' '$D/suite.out' && [ \$(grep -cE '^(nginx|serve) +(closed|rated) +1\.[0-9]+s ' '$D/suite.out') -eq 4 ] && [ \$(grep -cE ' rated .* PASS\$' '$D/suite.out') -eq 2 ]"
nginx_runs=$(json_get "$D/suite.json" "sum(r['result']['requests']['completed'] for r in d['runs'] if r['target'] == 'nginx')")
ok suite_nginx_log_matches "JSON $nginx_runs, nginx logged $(( $(grep -c 'suite nginx' "$NGX_DIR/access.log") - before ))" \
    "[ -n '$nginx_runs' ] && [ '$nginx_runs' -eq \$(( \$(grep -c 'suite nginx' '$NGX_DIR/access.log') - $before )) ]"
# One unit per column: MB/s of 2^20 bytes (as wrk's Transfer/sec), p99 in ms.
ok suite_units "$(grep -E '^(nginx|serve) ' "$D/suite.out")" \
    "[ \"\$(awk '/^(nginx|serve) +(closed|rated) / { printf \"%s%s %s\", s, \$5, \$7; s = \" \" }' '$D/suite.out')\" = \"\$(json_get '$D/suite.json' \"' '.join('%.2f %.3f' % (r['result']['bytes']['read_per_s'] / 2**20, r['result']['latency']['corrected']['percentiles']['99'] / 1000) for r in d['runs'])\")\" ]"
ok suite_json_valid "$(valid_workflow "$D/suite.json")" \
    "valid_workflow '$D/suite.json' >/dev/null && [ \"\$(json_get '$D/suite.json' \"len(d['runs']), [r['slo_pass'] for r in d['runs']]\")\" = '4 [None, None, True, True]' ]"
ok suite_rated_runs_at_rate "$(grep rated -A2 "$D/suite.out")" \
    "[ \"\$(json_get '$D/suite.json' \"' '.join('%.0f' % (r['result']['requests']['completed'] / r['result']['duration_s']) for r in d['runs'] if r['profile'] == 'rated')\")\" = '300 300' ]"
if html_charts "$D/suite.html" suite_html; then
    ok suite_html_series "$(cat "$D/hc.suite_html.out")" \
        "[ \"\$(series_of suite_html 'Requests/sec by profile')\" = 2 ] && [ \"\$(series_of suite_html 'Latency by percentile, each run (corrected)')\" = 4 ]"
    # The by-profile charts name their profiles on the x axis.
    ok suite_html_profile_axis "$(cat "$D/hc.suite_html/charts.tsv")" \
        "[ \"\$(awk -F'\t' '\$1 ~ / by profile/ { print \$3 }' '$D/hc.suite_html/charts.tsv' | sort -u)\" = 'closed|rated' ]"
fi

printf 'target a %s\nprofile strict -t1 -c2 -d300ms -R100 --slo p99<=1us\n' "$PLAIN" >"$D/s_fail.txt"
"$PACER" suite "$D/s_fail.txt" >"$D/sf.out" 2>&1
rc=$?
ok suite_slo_fail_exit5 "exit $rc: $(tail -2 "$D/sf.out")" "[ $rc -eq 5 ] && grep -q 'SLO FAIL' '$D/sf.out'"

bad_suite() { # NAME WANT CONTENT
    printf '%b' "$3" >"$D/bad.txt"
    usage "$1" "$2" suite "$D/bad.txt"
}
bad_suite suite_bad_keyword 'bad.txt:2: unknown keyword .host.' "target a $PLAIN\nhost b\nprofile p -d1s\n"
bad_suite suite_bad_quote 'bad.txt:2: unterminated' "target a $PLAIN\nprofile p -H 'X: y\n"
bad_suite suite_no_profile 'at least one target line and one profile line' "target a $PLAIN\n"
bad_suite suite_twice "target .a. is defined twice" "target a $PLAIN\ntarget a $PLAIN\nprofile p\n"
bad_suite suite_bad_flag "profile .p., target .a.: invalid number for -c" "target a $PLAIN\nprofile p -c lots\n"
bad_suite suite_no_json_in_profile '--json is not allowed in a suite' "target a $PLAIN\nprofile p --json x.json\n"
bad_suite suite_target_without_url 'expected: target NAME URL' "target a\nprofile p\n"
usage suite_missing_file 'cannot read suite' suite "$D/nope.txt"
usage suite_two_files 'one suite file' suite "$D/bad.txt" "$D/bad.txt"

finish
