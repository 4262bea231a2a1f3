#!/usr/bin/env bash
# Result files (--hlog, --hgrm, --json, --csv) and `pacer report`.
. "$(dirname "$0")/lib.sh"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json"

start_serve --threads 1 || { fail serve_start "pacer serve did not start"; finish; }
D="$T_DIR/out"; mkdir -p "$D"
R="$D/run.txt"

"$PACER" -t2 -c4 -d3s -R400 --interval 500ms --latency -U \
    --hlog "$D/r.hlog" --hgrm "$D/r.hgrm" --json "$D/r.json" --csv "$D/r.csv" "$SERVE_URL" >"$R" 2>"$R.err"
rc=$?
ok outputs_exit0 "exit $rc: $(cat "$R.err")" [ "$rc" -eq 0 ]
ok outputs_all_written "missing: $(ls "$D")" "[ -s '$D/r.hlog' ] && [ -s '$D/r.hgrm' ] && [ -s '$D/r.json' ] && [ -s '$D/r.csv' ]"
ok outputs_no_tmp_left "$(ls "$D")" "! ls '$D' | grep -q tmp"

# JSON: valid against the checked-in schema, and it adds up.
ok json_schema_valid "$("$PY" -c "
import json,jsonschema,sys
jsonschema.validate(json.load(open('$D/r.json')), json.load(open('$SCHEMA')))" 2>&1 | tail -2)" \
    "'$PY' -c \"import json,jsonschema; jsonschema.validate(json.load(open('$D/r.json')), json.load(open('$SCHEMA')))\""
completed=$(json_get "$D/r.json" "d['requests']['completed']")
ok json_completed_matches_report "json $completed" "grep -qE '^  $completed requests in' '$R'"
ok json_outcomes_add_up "$(json_get "$D/r.json" "d['requests']")" \
    "[ \"\$(json_get '$D/r.json' \"d['requests']['scheduled'] == sum(d['requests'][k] for k in ('completed','timed_out','errors','never_sent','interrupted'))\")\" = True ]"
ok json_series_sum "series sum vs $completed" \
    "[ \"\$(json_get '$D/r.json' \"sum(p['requests'] for p in d['intervals']['series'])\")\" = '$completed' ]"
ok json_series_intervals "$(json_get "$D/r.json" "len(d['intervals']['series'])") intervals" \
    "[ \"\$(json_get '$D/r.json' \"len(d['intervals']['series'])\")\" = 6 ]"
ok json_rate "$(json_get "$D/r.json" "d['rate']")" \
    "[ \"\$(json_get '$D/r.json' \"abs(d['rate']['achieved'] - 400) < 4 and d['rate']['requested'] == 400\")\" = True ]"
ok json_p99_matches_text "text vs json p99" \
    "[ \"\$(json_get '$D/r.json' \"'%.2f' % (d['latency']['corrected']['percentiles']['99'] / 1000)\")\" = \"\$(awk '\$1 == \"99.000%\" {print \$2; exit}' '$R' | sed 's/ms\$//' | awk '{printf \"%.2f\", \$1}')\" ] || grep -qE '^ 99.000% +[0-9.]+us' '$R'"

# CSV: a header and one row per interval, adding up to the total.
ok csv_rows "$(wc -l <"$D/r.csv") lines" "[ \$(wc -l <'$D/r.csv') -eq 7 ] && head -1 '$D/r.csv' | grep -q '^start_epoch_s,start_s,length_s,requests,rate,'"
ok csv_sum "csv vs $completed" "[ \"\$(awk -F, 'NR > 1 {s += \$4} END {print s}' '$D/r.csv')\" = '$completed' ]"

# The interval log is read by HdrHistogram's own HistogramLogProcessor, and
# its percentile table equals pacer's --hgrm, row for row.
need_cmd java default-jre-headless
need_cmd /usr/share/java/hdrhistogram.jar libhdrhistogram-java
hlp -i "$D/r.hlog" -tag corrected -outputValueUnitRatio 1e6 -o "$D/hlp" >/dev/null 2>"$D/hlp.err"
ok hlog_read_by_reference "$(head -3 "$D/hlp.err")" "[ -s '$D/hlp.hgrm' ]"
rows() { awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ {printf "%s %.6f %s\n", $1, $2, $3}' "$1"; }
ok hlog_reference_percentiles_equal "$(diff <(rows "$D/hlp.hgrm") <(rows "$D/r.hgrm") | head -5)" \
    "diff -q <(rows '$D/hlp.hgrm') <(rows '$D/r.hgrm') >/dev/null && [ \$(rows '$D/r.hgrm' | wc -l) -gt 20 ]"
ok hlog_reference_total "$(grep 'Total count' "$D/hlp.hgrm")" \
    "grep -qE 'Total count += +$completed\\]' '$D/hlp.hgrm'"

# pacer report gives back the run's report: from the log (latency) and
# from the JSON (everything but the first line).
"$PACER" report "$D/r.hlog" >"$D/rep_hlog.txt" 2>&1
spectrum() { sed -n '/Recorded Latency/,/^-----/p' "$1"; }
ok report_hlog_same_spectrum "$(diff <(spectrum "$R") <(spectrum "$D/rep_hlog.txt") | head -5)" \
    "diff -q <(spectrum '$R') <(spectrum '$D/rep_hlog.txt') >/dev/null && [ -n \"\$(spectrum '$R')\" ]"
"$PACER" report -U "$D/r.json" >"$D/rep_json.txt" 2>&1
ok report_json_same_report "$(diff <(tail -n +2 "$R") <(tail -n +2 "$D/rep_json.txt") | head -5)" \
    "diff -q <(tail -n +2 '$R') <(tail -n +2 '$D/rep_json.txt') >/dev/null"

# A time window: intervals starting in [1 s, 2 s) are two of the six.
"$PACER" report --from 1s --to 2s --json "$D/w.json" "$D/r.json" >"$D/w.txt" 2>&1
want=$(json_get "$D/r.json" "sum(p['requests'] for p in d['intervals']['series'][2:4])")
ok report_window "$(json_get "$D/w.json" "d['requests']['completed']") vs $want" \
    "[ \"\$(json_get '$D/w.json' \"d['requests']['completed']\")\" = '$want' ] && [ \"\$(json_get '$D/w.json' \"len(d['intervals']['series'])\")\" = 2 ]"

# Two concurrent runs: merging their logs gives the histogram of the union,
# the same one that merging their JSON totals gives (two independent paths).
"$PACER" -t1 -c2 -d2s -R300 --hlog "$D/a.hlog" --json "$D/a.json" "$SERVE_URL" >/dev/null 2>&1 &
pa=$!
"$PACER" -t1 -c2 -d2s -R200 --hlog "$D/b.hlog" --json "$D/b.json" "$SERVE_URL" >/dev/null 2>&1 &
pb=$!
wait $pa $pb
"$PACER" report --json "$D/m_hlog.json" "$D/a.hlog" "$D/b.hlog" >/dev/null 2>&1
"$PACER" report --json "$D/m_json.json" "$D/a.json" "$D/b.json" >"$D/m.txt" 2>&1
ca=$(json_get "$D/a.json" "d['latency']['corrected']['count']")
cb=$(json_get "$D/b.json" "d['latency']['corrected']['count']")
ok merge_counts_add "a=$ca b=$cb merged=$(json_get "$D/m_hlog.json" "d['latency']['corrected']['count']")" \
    "[ \"\$(json_get '$D/m_hlog.json' \"d['latency']['corrected']['count']\")\" = \$(( $ca + $cb )) ]"
ok merge_union_histogram "hlog merge and json merge differ" \
    "[ \"\$(json_get '$D/m_hlog.json' \"d['latency']['corrected']['histogram']\")\" = \"\$(json_get '$D/m_json.json' \"d['latency']['corrected']['histogram']\")\" ]"
ok merge_counters_add "$(grep -E 'requests in|threads' "$D/m.txt")" \
    "grep -q '^  2 threads and 4 connections' '$D/m.txt' && [ \"\$(json_get '$D/m_json.json' \"d['requests']['completed'] == $ca + $cb and d['config']['rate'] == 500\")\" = True ]"

# --json -: stdout is the JSON, the report goes to stderr.
"$PACER" -t1 -c1 -d300ms --json - "$SERVE_URL" >"$D/stdout.json" 2>"$D/stderr.txt"
ok json_to_stdout "$(head -c 200 "$D/stdout.json")" \
    "'$PY' -c \"import json; json.load(open('$D/stdout.json'))\" && grep -q '^Requests/sec:' '$D/stderr.txt'"

# SIGINT mid-run: every file is complete.
"$PACER" -t1 -c2 -d20s -R100 --hlog "$D/i.hlog" --json "$D/i.json" --csv "$D/i.csv" "$SERVE_URL" >"$D/i.txt" 2>&1 &
pid=$!
sleep 1.3
kill -INT $pid
wait $pid
rc=$?
ok sigint_files_complete "exit $rc; $(ls "$D" | grep '^i\.')" \
    "[ $rc -eq 130 ] && '$PY' -c \"import json; d=json.load(open('$D/i.json')); assert d['stopped_by']=='SIGINT'\" && tail -c 1 '$D/i.hlog' | od -c | grep -q '\\\\n' && ! ls '$D' | grep -q tmp"
"$PACER" report "$D/i.hlog" >/dev/null 2>&1
ok sigint_hlog_readable "pacer report failed on the interrupted log" "[ \$? -eq 0 ]"

# Bad paths fail before any load is sent.
"$PACER" -t1 -c1 -d1s --json /nonexistent/dir/x.json "$SERVE_URL" >"$D/bad.txt" 2>"$D/bad.err"
rc=$?
ok bad_output_path "exit $rc: $(cat "$D/bad.err")" \
    "[ $rc -eq 1 ] && [ \$(wc -l <'$D/bad.err') -eq 1 ] && grep -q \"cannot write '/nonexistent/dir/x.json'\" '$D/bad.err' && ! grep -q Running '$D/bad.txt'"

# pacer report on bad input: one line, documented codes.
"$PACER" report "$D/nope.json" >/dev/null 2>"$D/e1"; rc1=$?
printf 'not a log\n' >"$D/garbage.hlog"
"$PACER" report "$D/garbage.hlog" >/dev/null 2>"$D/e2"; rc2=$?
printf '{"a": 1}' >"$D/other.json"
"$PACER" report "$D/other.json" >/dev/null 2>"$D/e3"; rc3=$?
"$PACER" report >/dev/null 2>"$D/e4"; rc4=$?
ok report_bad_inputs "codes $rc1 $rc2 $rc3 $rc4: $(cat "$D"/e1 "$D"/e2 "$D"/e3 "$D"/e4)" \
    "[ $rc1 -eq 1 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] && [ $rc4 -eq 2 ] && [ \$(cat '$D'/e1 '$D'/e2 '$D'/e3 '$D'/e4 | wc -l) -eq 4 ] && grep -q 'not a pacer result' '$D/e3'"

finish
