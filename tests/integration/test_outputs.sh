#!/usr/bin/env bash
# Result files (--hlog, --hgrm, --json, --csv) and `pacer report`.
. "$(dirname "$0")/lib.sh"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json"

start_serve --threads 1 || { fail serve_start "pacer serve did not start"; finish; }
# valid FILE...: each file against the schema; prints the first error.
valid() {
    "$PY" - "$SCHEMA" "$@" <<'PYEOF'
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
for p in sys.argv[2:]:
    try:
        jsonschema.validate(json.load(open(p)), s)
    except jsonschema.ValidationError as e:
        print(p, str(e).splitlines()[0], "at", list(e.absolute_path)); sys.exit(1)
PYEOF
}
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
# Six of --interval's 500 ms over -d 3s, and one more only for responses
# that came in the drain after the stop (a busy machine's late ones),
# which begins where the sixth ends.
ok json_series_intervals "$(json_get "$D/r.json" "[(round(p['start_epoch_s'] - d['start_epoch_s'], 3), p['length_s'], p['requests']) for p in d['intervals']['series']]") intervals" \
    "[ \"\$(json_get '$D/r.json' \"(lambda s: len(s) == 6 or (len(s) == 7 and abs(s[6]['start_epoch_s'] - d['start_epoch_s'] - 3.0) < 0.01 and s[6]['requests'] > 0))(d['intervals']['series'])\")\" = True ]"
ok json_rate "$(json_get "$D/r.json" "d['rate']")" \
    "[ \"\$(json_get '$D/r.json' \"abs(d['rate']['achieved'] - 400) < 4 and d['rate']['requested'] == 400\")\" = True ]"
ok json_p99_matches_text "text vs json p99" \
    "[ \"\$(json_get '$D/r.json' \"'%.2f' % (d['latency']['corrected']['percentiles']['99'] / 1000)\")\" = \"\$(awk '\$1 == \"99.000%\" {print \$2; exit}' '$R' | sed 's/ms\$//' | awk '{printf \"%.2f\", \$1}')\" ] || grep -qE '^ 99.000% +[0-9.]+us' '$R'"

# CSV: a header and one row per interval, adding up to the total.
ok csv_rows "$(wc -l <"$D/r.csv") lines" "[ \$(wc -l <'$D/r.csv') -eq \$((1 + \$(json_get '$D/r.json' \"len(d['intervals']['series'])\"))) ] && head -1 '$D/r.csv' | grep -q '^start_epoch_s,start_s,length_s,requests,rate,'"
ok csv_sum "csv vs $completed" "[ \"\$(awk -F, 'NR > 1 {s += \$4} END {print s}' '$D/r.csv')\" = '$completed' ]"

# Interval latencies name their unit as the CSV columns do (p99_us), agree
# with the CSV, and survive pacer report (recomputed from the interval
# histograms; files with the older keys without _us still read).
keys="['p50_us', 'p90_us', 'p99_us', 'p99.9_us', 'max_us', 'uncorrected_p50_us', 'uncorrected_p99_us']"
ok json_interval_keys_unit "$(json_get "$D/r.json" "sorted(d['intervals']['series'][0])")" \
    "[ \"\$(json_get '$D/r.json' \"all(k in p for p in d['intervals']['series'] for k in $keys)\")\" = True ]"
ok json_intervals_match_csv "$(json_get "$D/r.json" "[p['p99_us'] for p in d['intervals']['series']]") vs $(awk -F, 'NR > 1 {printf "%s ", $12}' "$D/r.csv")" \
    "[ \"\$(json_get '$D/r.json' \"' '.join('%.1f' % p['p99_us'] for p in d['intervals']['series'])\")\" = \"\$(awk -F, 'NR > 1 {printf \"%s%s\", s, \$12; s = \" \"}' '$D/r.csv')\" ]"
"$PACER" report --json "$D/r_again.json" "$D/r.json" >/dev/null 2>&1
ok report_json_intervals_kept "$(json_get "$D/r_again.json" "[p['p99_us'] for p in d['intervals']['series']]")" \
    "valid '$D/r_again.json' >/dev/null && [ \"\$(json_get '$D/r_again.json' \"[[p[k] for k in $keys] for p in d['intervals']['series']] == [[p[k] for k in $keys] for p in json.load(open('$D/r.json'))['intervals']['series']] and all(p['p99_us'] > 0 for p in d['intervals']['series'])\")\" = True ]"
"$PY" - "$D/r.json" "$D/old_keys.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d['intervals']['series']:
    for k in [k for k in p if k.endswith('_us')]:
        p[k[:-3]] = p.pop(k)
    p['histogram'] = p['histogram_uncorrected'] = None
json.dump(d, open(sys.argv[2], 'w'))
PYEOF
"$PACER" report --json "$D/old_again.json" "$D/old_keys.json" >/dev/null 2>&1
ok report_reads_old_interval_keys "$(json_get "$D/old_again.json" "[p['p99_us'] for p in d['intervals']['series']]")" \
    "[ \"\$(json_get '$D/old_again.json' \"[[p[k] for k in $keys] for p in d['intervals']['series']] == [[p[k] for k in $keys] for p in json.load(open('$D/r.json'))['intervals']['series']] and all(p['p99_us'] > 0 for p in d['intervals']['series'])\")\" = True ]"

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
# Every counter and histogram the JSON holds comes back from it (body bytes,
# dropped connections and the per-request latencies were once left behind).
sums() { json_get "$1" "[d['bytes']['body'], d['connections']['dropped']] + [d['latency'][k]['count'] for k in ('processing', 'connect_per_request', 'total')]"; }
want=$("$PY" -c "import sys; a, b = eval(sys.argv[1]), eval(sys.argv[2]); print([x + y for x, y in zip(a, b)])" "$(sums "$D/a.json")" "$(sums "$D/b.json")")
ok merge_every_counter "$(sums "$D/m_json.json") vs $want" \
    "[ \"\$(sums '$D/m_json.json')\" = '$want' ] && [ \"\$(json_get '$D/m_json.json' \"d['latency']['total']['count'] > 0 and d['bytes']['body'] > 0\")\" = True ]"
# A note whose cause the file does not hold says so without an empty one.
"$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); d['connections']['dropped'] = 3; d['connections']['address_fallbacks'] = 2; json.dump(d, open(sys.argv[2], 'w'))" "$D/a.json" "$D/drops.json"
"$PACER" report "$D/drops.json" >"$D/drops.txt" 2>&1
ok report_notes_without_cause "$(grep -E 'dropped|fallback' "$D/drops.txt")" \
    "grep -q '^  Connections dropped with no request in flight: 3\$' '$D/drops.txt' && grep -q '^  Address fallback: 2 connects .*(not counted as errors)\$' '$D/drops.txt'"

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

# What was run: the command line, method, body (size and SHA-256), headers,
# protocol; runs that differ only in method or body do not read the same.
printf 'hello' >"$D/body.txt"
"$PACER" -t1 -c1 -d200ms -X PUT -p "$D/body.txt" -H 'X-A: b c' --json "$D/put.json" "$SERVE_URL" >/dev/null 2>&1
"$PACER" -t1 -c1 -d200ms -X POST -p "$D/body.txt" -H 'X-A: b c' --json "$D/post.json" "$SERVE_URL" >/dev/null 2>&1
"$PACER" -t1 -c1 -d200ms -X POST --body 'hellO' -H 'X-A: b c' --json "$D/post2.json" "$SERVE_URL" >/dev/null 2>&1
sha=$(sha256sum <"$D/body.txt" | cut -d' ' -f1)
ok json_what_ran_valid "$(valid "$D/put.json" "$D/post.json" "$D/post2.json")" \
    "valid '$D/put.json' '$D/post.json' '$D/post2.json' >/dev/null"
ok json_cmdline "$(json_get "$D/put.json" "d['config']['cmdline']")" \
    "[ \"\$(json_get '$D/put.json' \"d['config']['cmdline']\")\" = \"pacer -t1 -c1 -d200ms -X PUT -p $D/body.txt -H 'X-A: b c' --json $D/put.json $SERVE_URL\" ]"
ok json_method_body "$(json_get "$D/put.json" "d['config']")" \
    "[ \"\$(json_get '$D/put.json' \"[d['config'][k] for k in ('method', 'body_bytes', 'body_sha256', 'protocol', 'headers')] + [d['pacer_version'] > '', d['config']['requests'] == [{'method': 'PUT', 'url': '$SERVE_URL', 'body_bytes': 5, 'body_sha256': '$sha'}]]\")\" = \"['PUT', 5, '$sha', 'http/1.1', ['X-A: b c'], True, True]\" ]"
what() { json_get "$1" "[d['config'][k] for k in ('method', 'body_bytes', 'body_sha256')]"; }
ok json_methods_differ "$(what "$D/put.json") vs $(what "$D/post.json")" \
    "[ \"\$(what '$D/put.json')\" != \"\$(what '$D/post.json')\" ] && [ \"\$(json_get '$D/post.json' \"d['config']['method']\")\" = POST ]"
ok json_bodies_differ "$(what "$D/post.json") vs $(what "$D/post2.json")" \
    "[ \"\$(what '$D/post.json')\" != \"\$(what '$D/post2.json')\" ]"
# --urls: each request's method, URL and body.
printf 'GET %sa\nPOST %sb @%s\n' "$SERVE_URL" "$SERVE_URL" "$D/body.txt" >"$D/urls.txt"
"$PACER" -t1 -c2 -d200ms --urls "$D/urls.txt" --json "$D/urls.json" >/dev/null 2>&1
ok json_urls_requests "$(json_get "$D/urls.json" "d['config']['requests']")" \
    "valid '$D/urls.json' >/dev/null && [ \"\$(json_get '$D/urls.json' \"[(r['method'], r['url'], r['body_bytes'], r['body_sha256']) for r in d['config']['requests']] == [('GET', '${SERVE_URL}a', 0, None), ('POST', '${SERVE_URL}b', 5, '$sha')] and [(u['method'], u['body_sha256']) for u in d['urls']] == [('GET', None), ('POST', '$sha')] and d['config']['method'] is None\")\" = True ]"
# A merge says what its sources ran.
"$PACER" report --json "$D/mput.json" "$D/put.json" "$D/put.json" >/dev/null 2>&1
ok report_json_source_cmdlines "$(json_get "$D/mput.json" "d['config']")" \
    "valid '$D/mput.json' >/dev/null && [ \"\$(json_get '$D/mput.json' \"d['config']['cmdline'] is None and d['config']['source_cmdlines'] == 2 * [json.load(open('$D/put.json'))['config']['cmdline']] and d['config']['requests'] == json.load(open('$D/put.json'))['config']['requests'] and d['config']['headers'] == ['X-A: b c']\")\" = True ]"

# pacer report refuses to merge different tests (one line naming both files
# and the field, exit 2) unless --force; the header then lists every target.
"$PACER" -t1 -c1 -d200ms -X PUT -p "$D/body.txt" --json "$D/urlx.json" "${SERVE_URL}x" >/dev/null 2>&1
"$PY" -c "import json; d = json.load(open('$D/put.json')); d['config']['protocol'] = 'h2'; json.dump(d, open('$D/put_h2.json', 'w'))"
refuse() { # NAME FIELD FILE_A FILE_B
    "$PACER" report "$3" "$4" >"$D/refuse.out" 2>"$D/refuse.err"
    local rc=$?
    ok "$1" "exit $rc: $(cat "$D/refuse.err")" \
        "[ $rc -eq 2 ] && [ \$(wc -l <'$D/refuse.err') -eq 1 ] && grep -q '^pacer report: $3 and $4 differ in their $2 (.* vs .*): not the same test (--force merges them anyway)\$' '$D/refuse.err' && [ ! -s '$D/refuse.out' ]"
}
refuse report_refuses_methods method "$D/put.json" "$D/post.json"
refuse report_refuses_bodies body "$D/post.json" "$D/post2.json"
refuse report_refuses_urls URL "$D/put.json" "$D/urlx.json"
refuse report_refuses_protocols protocol "$D/put.json" "$D/put_h2.json"
"$PACER" report --force --json "$D/forced.json" "$D/put.json" "$D/post.json" "$D/urlx.json" >"$D/forced.txt" 2>&1
rc=$?
ok report_force_lists_targets "exit $rc: $(head -5 "$D/forced.txt")" \
    "[ $rc -eq 0 ] && head -1 '$D/forced.txt' | grep -q '^Report of 3 files, 3 targets:\$' && sed -n 2,4p '$D/forced.txt' | grep -q '^  PUT $SERVE_URL (http/1.1, body 5 bytes, sha256 ${sha:0:16})\$' && sed -n 2,4p '$D/forced.txt' | grep -q '^  POST $SERVE_URL (http/1.1, body 5 bytes' && sed -n 2,4p '$D/forced.txt' | grep -q '^  PUT ${SERVE_URL}x (' && sed -n 5p '$D/forced.txt' | grep -q '^  3 threads and 3 connections'"
ok report_force_json "$(json_get "$D/forced.json" "d['config']['requests']")" \
    "valid '$D/forced.json' >/dev/null && [ \"\$(json_get '$D/forced.json' \"(len(d['config']['requests']), d['config']['method'], len(d['config']['source_cmdlines']))\")\" = '(3, None, 3)' ]"
"$PACER" report "$D/urls.json" >"$D/rep_urls.txt" 2>&1
ok report_lists_urls_targets "$(head -3 "$D/rep_urls.txt")" \
    "head -1 '$D/rep_urls.txt' | grep -q '^Report of 1 file, 2 targets:\$' && sed -n 2p '$D/rep_urls.txt' | grep -q '^  GET ${SERVE_URL}a (http/1.1)\$' && sed -n 3p '$D/rep_urls.txt' | grep -q '^  POST ${SERVE_URL}b (http/1.1, body 5 bytes'"
# The same test from an interval log and a JSON file still merges.
"$PACER" report --json "$D/same.json" "$D/a.hlog" "$D/a.json" "$D/b.json" >/dev/null 2>"$D/same.err"
rc=$?
ok report_same_test_merges "exit $rc: $(cat "$D/same.err") $(valid "$D/same.json")" \
    "[ $rc -eq 0 ] && valid '$D/same.json' >/dev/null && [ \"\$(json_get '$D/same.json' \"d['config']['timeout_s'], d['config']['requests'] == json.load(open('$D/a.json'))['config']['requests']\")\" = '2 True' ]"

# The --slo verdict is in the JSON: each objective with its measured value
# in its unit, and the whole; the same from pacer report --slo --json.
"$PACER" -t1 -c2 -d1s -R200 --slo 'p99<=10s, errors<=0, rate>=90%, p50<1ns' --json "$D/slo.json" "$SERVE_URL" >"$D/slo.txt" 2>&1
rc=$?
ok json_slo "exit $rc: $(json_get "$D/slo.json" "d.get('slo')")" \
    "[ $rc -eq 5 ] && grep -q '^SLO FAILED: 1 of 4' '$D/slo.txt' && valid '$D/slo.json' >/dev/null && [ \"\$(json_get '$D/slo.json' \"[(o['objective'], o['metric'], o['op'], o['unit'], o['verdict']) for o in d['slo']['objectives']] + [d['slo'][k] for k in ('expression', 'failed', 'pass', 'verdict')]\")\" = \"[('p99<=10s', 'p99', '<=', 'us', 'PASS'), ('errors<=0', 'errors', '<=', 'requests', 'PASS'), ('rate>=90%', 'rate', '>=', 'fraction', 'PASS'), ('p50<1ns', 'p50', '<', 'us', 'FAIL'), 'p99<=10s,errors<=0,rate>=90%,p50<1ns', 1, False, 'FAIL']\" ]"
ok json_slo_measured "$(json_get "$D/slo.json" "[(o['limit'], o['measured']) for o in d['slo']['objectives']]")" \
    "[ \"\$(json_get '$D/slo.json' \"[o['measured'] for o in d['slo']['objectives']] == [d['latency']['corrected']['percentiles']['99'], 0, d['rate']['achieved'] / 200, d['latency']['corrected']['percentiles']['50']] and [o['limit'] for o in d['slo']['objectives']] == [1e7, 0, 0.9, 0.001]\")\" = True ]"
"$PACER" report --slo 'p99<=10s,rate>=90%' --json "$D/slo_rep.json" "$D/slo.json" >"$D/slo_rep.txt" 2>&1
rc1=$?
"$PACER" report --slo 'p99<=10s,rate>=50%' --json "$D/slo_cl.json" "$D/post.json" >/dev/null 2>&1
rc2=$?
ok report_json_slo "exit $rc1 $rc2: $(json_get "$D/slo_rep.json" "d.get('slo')")" \
    "[ $rc1 -eq 0 ] && [ $rc2 -eq 5 ] && valid '$D/slo_rep.json' '$D/slo_cl.json' >/dev/null && [ \"\$(json_get '$D/slo_rep.json' \"(d['slo']['verdict'], d['slo']['objectives'][0]['measured'] == json.load(open('$D/slo.json'))['slo']['objectives'][0]['measured'])\")\" = \"('PASS', True)\" ] && [ \"\$(json_get '$D/slo_cl.json' \"([(o['verdict'], o['measured']) for o in d['slo']['objectives']][1], d['slo']['verdict'])\")\" = \"(('FAIL', None), 'FAIL')\" ]"
"$PACER" report --json "$D/noslo.json" "$D/slo.json" >/dev/null 2>&1
ok report_json_no_slo "a merge without --slo has no verdict" "[ \"\$(json_get '$D/noslo.json' \"'slo' in d\")\" = False ]"

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

# Broken JSON: one line naming the file once, with the line and column.
printf '{\n  "schema": "pacer-result/1",\n  "x": [1, 2,]\n}\n' >"$D/broken.json"
"$PACER" report "$D/broken.json" >/dev/null 2>"$D/e5"; rc5=$?
ok report_broken_json "exit $rc5: $(cat "$D/e5")" \
    "[ $rc5 -eq 2 ] && [ \$(wc -l <'$D/e5') -eq 1 ] && [ \$(grep -o 'broken.json' '$D/e5' | wc -l) -eq 1 ] && grep -q 'broken.json: line 3, column 14: ' '$D/e5'"
# A counter above 2^63 (more than jansson's long long holds) comes back exactly.
"$PY" - "$D/r.json" "$D/u64.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d['bytes']['read'] = 18446744073709551615
json.dump(d, open(sys.argv[2], 'w'))
PYEOF
"$PACER" report --json "$D/u64_again.json" "$D/u64.json" >/dev/null 2>"$D/e6"; rc6=$?
ok report_uint64_counter "exit $rc6: $(cat "$D/e6") $(json_get "$D/u64_again.json" "d['bytes']['read']" 2>&1)" \
    "[ $rc6 -eq 0 ] && [ \"\$(json_get '$D/u64_again.json' \"d['bytes']['read']\")\" = 18446744073709551615 ]"
# --- a result path that is a device or a FIFO is written in place ----------------
# (a rename onto it would leave a regular file there: run as root with
# --json /dev/null, that was /dev/null's end). The test's own device (the
# same numbers as /dev/null) and a FIFO read by cat.
mkfifo "$D/fifo"
timeout 20 cat "$D/fifo" >"$D/fifo.out" &
catp=$!
dev=""
mknod "$D/null" c 1 3 2>/dev/null && mknod "$D/null2" c 1 3 2>/dev/null && dev="$D/null"
"$PACER" -t1 -c1 -d300ms --json "$D/fifo" ${dev:+--html "$dev" --hlog "$D/null2"} "$SERVE_URL" >"$D/dev.out" 2>&1
rc=$?
wait "$catp"
ok output_fifo_in_place "exit $rc: $(head -2 "$D/dev.out"), fifo $(stat -c %F "$D/fifo"): $(head -c 80 "$D/fifo.out")" \
    "[ $rc -eq 0 ] && [ -p '$D/fifo' ] && '$PY' -c \"import json; json.load(open('$D/fifo.out'))\""
if [ -n "$dev" ]; then
    ok output_device_kept "exit $rc: $(stat -c %F "$dev" "$D/null2" | tr '\n' ' ')" "[ $rc -eq 0 ] && [ -c '$dev' ] && [ -c '$D/null2' ]"
fi
finish
