#!/usr/bin/env bash
# serial: capacity searches whose steps pass or fail on p99 <= 50 ms
# test_workflows.sh's checks that need the machine to themselves (the rest
# of test_workflows.sh holds on a loaded one): the knee of `pacer serve
# --capacity` found within 10% by a search on p99 <= 50 ms, compare's rates
# at 400/s, and its verdict on identical servers (they differ in nothing).
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

# --- capacity: the knee of pacer serve --capacity N ------------------------
start=$SECONDS
"$PACER" capacity "$CAP" --slo 'p99<=50ms' -t1 -c20 -d2s --start-rate 250 --pause 200ms \
    --max-time 120s --json "$D/cap.json" --html "$D/cap.html" >"$D/cap.out" 2>"$D/cap.err"
rc=$?
ok capacity_exit0 "exit $rc: $(tail -3 "$D/cap.err")" "[ $rc -eq 0 ]"
ans=$(sed -nE 's/^Capacity: sustains ([0-9.]+) req\/s with p99<=50ms \(fails at [0-9.]+ req\/s: .*/\1/p' "$D/cap.out")
ok capacity_within_10pct "answer '$ans' for a server of $CAPN/s: $(tail -4 "$D/cap.out")" \
    "[ -n '$ans' ] && fcmp '$ans' '>=' $((CAPN * 9 / 10)) && fcmp '$ans' '<=' $((CAPN * 11 / 10))"
# The table: passing steps below every failing one, each reaching its rate.
awk '$1 ~ /^[0-9]+$/ && NF == 9' "$D/cap.out" >"$D/cap.rows"
ok capacity_steps_ordered "$(cat "$D/cap.rows")" "awk '
    \$9 == \"PASS\" && \$2 > maxpass { maxpass = \$2 }
    \$9 == \"FAIL\" && (minfail == \"\" || \$2 < minfail) { minfail = \$2 }
    \$9 == \"PASS\" && (\$3 < \$2 * 0.98 || \$3 > \$2 * 1.02) { bad = 1 }
    END { exit !(maxpass > 0 && minfail > maxpass && !bad && maxpass == $ans) }' '$D/cap.rows'"
ok capacity_grew_then_bisected "$(awk '{ print $2 }' "$D/cap.rows" | tr '\n' ' ')" \
    "awk 'NR <= 4 { r[NR] = \$2 } END { exit !(r[1] == 250 && r[2] == 500 && r[3] == 1000 && r[4] == 2000 && NR >= 6) }' '$D/cap.rows'"
ok capacity_json "$(head -c 300 "$D/cap.json")" \
    "[ \"\$(json_get '$D/cap.json' \"'%.2f %d' % (d['capacity_rate'], len(d['steps']))\")\" = \"$ans \$(wc -l <'$D/cap.rows')\" ]"
ok capacity_json_valid "$(valid_workflow "$D/cap.json")" "valid_workflow '$D/cap.json' >/dev/null"
# Latency columns in ms, each cell the step's own value.
ok capacity_latency_ms "$(head -3 "$D/cap.rows")" \
    "grep -qE '^Step +Rate +Achieved +p50\(ms\) +p99\(ms\) +p99.9\(ms\) +Max\(ms\) +Errors +SLO\$' '$D/cap.out' && [ \"\$(awk '{ printf \"%s%s\", s, \$5; s = \" \" }' '$D/cap.rows')\" = \"\$(json_get '$D/cap.json' \"' '.join('%.3f' % (s['result']['latency']['corrected']['percentiles']['99'] / 1000) for s in d['steps'])\")\" ]"
# A step's verdicts are its result's, latency in us as in the rest of the JSON.
ok capacity_json_objectives "$(json_get "$D/cap.json" "d['steps'][0]['objectives']")" \
    "[ \"\$(json_get '$D/cap.json' \"all(s['objectives'] == s['result']['slo']['objectives'] and s['objectives'][0]['unit'] == 'us' and s['objectives'][0]['measured'] == s['result']['latency']['corrected']['percentiles']['99'] and s['pass'] == s['result']['slo']['pass'] for s in d['steps'])\")\" = True ]"
ok capacity_time_bounded "took $((SECONDS - start)) s" "[ $((SECONDS - start)) -lt 60 ]"
if html_charts "$D/cap.html" capacity_html; then
    n=$(wc -l <"$D/cap.rows")
    ok capacity_html_series "$(cat "$D/hc.capacity_html.out")" \
        "[ \"\$(series_of capacity_html 'Latency against requested rate (corrected)')\" = 4 ] &&
         [ \"\$(series_of capacity_html 'Achieved against requested rate')\" = 2 ] &&
         [ \"\$(series_of capacity_html 'Latency by percentile, each step (corrected)')\" = $n ]"
fi

# --- compare: nginx vs pacer serve, at 400/s each -----------------------------
start_nginx || { fail nginx_start "nginx did not start"; finish; }
NGX="http://127.0.0.1:$NGX_PORT/"
"$PACER" compare -t1 -c4 -d1s -R400 --rounds 2 "$NGX" "$PLAIN" >"$D/cmp.out" 2>"$D/cmp.err"
reqA=$(awk '$1 == "Requests" { print $2 }' "$D/cmp.out")
reqB=$(awk '$1 == "Requests" { print $3 }' "$D/cmp.out")
ok compare_rounds_add_up "A $reqA B $reqB (2 rounds x 1 s x 400/s)" \
    "[ '$reqA' -ge 780 ] && [ '$reqA' -le 820 ] && [ '$reqB' -ge 780 ] && [ '$reqB' -le 820 ]"
ok compare_ratio_column "$(grep 'Requests/sec' "$D/cmp.out")" \
    "grep -qE '^Requests/sec +[0-9.]+ +[0-9.]+ \((0\.9[5-9]|1\.0[0-5])x\)' '$D/cmp.out'"

# --- compare's verdict (docs/methodology.md, "Compare's verdict") ---------
# Two identical servers: no metric may differ. 7 rounds: under the rule
# (every round's ratio beyond 5% on one side, and the two ranges apart)
# identical servers pass the range test alone with odds 2 in 3432 per metric.
start_serve --threads 1 || fail serve_twin_start "$(serve_err)"
TWIN=$SERVE_URL
"$PACER" compare -t1 -c4 -d250ms -R 200 --rounds 7 "$PLAIN" "$TWIN" --json "$D/cmpsame.json" \
    >"$D/cmpsame.out" 2>/dev/null
ok compare_identical_no_difference "$(grep -A6 '^Verdict' "$D/cmpsame.out")" \
    "[ \$(grep -cE '^  (Requests/sec|Latency p[0-9.]+) +no clear difference \(B/A by round [0-9.]+x-[0-9.]+x\)\$' '$D/cmpsame.out') -eq 5 ] &&
     [ \"\$(json_get '$D/cmpsame.json' \"' '.join(sorted(set(str(v['verdict']) + '/' + str(v['faster']) for k, v in d['targets'][1]['verdict'].items() if isinstance(v, dict))))\")\" = 'no clear difference/None' ]"
ok compare_verdict_json_valid "$(valid_workflow "$D/cmpsame.json")" "valid_workflow '$D/cmpsame.json' >/dev/null"

finish
