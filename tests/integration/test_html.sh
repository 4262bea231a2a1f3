#!/usr/bin/env bash
# --html: the self-contained HTML report, from a run (pacer serve over HTTP,
# nginx over HTTPS) and from result files (`pacer report --html`), rendered
# in headless chromium by tests/tools/html_check.sh, which also reads back
# what each chart drew (the step shape, the SLO limit lines, the p99 line
# are checked against the numbers), and the verdict box against the text.
. "$(dirname "$0")/lib.sh"
CHECK="$(cd "$(dirname "$0")/.." && pwd)/tools/html_check.sh"

need_cmd chromium chromium || finish

D="$T_DIR/html"; mkdir -p "$D"

# The charts of a run report, in page order: $1 = percentile spectrum
# series (2, and one per --slo latency limit), $2 = latency over time (3,
# and limits, and the stage starts), $3 = throughput series (2 with the -R
# line), $4 = errors series (0: no chart, the page says there were none),
# $5 = breakdown series.
expected() {
    printf 'chart\t%s\tseries=%s\n' "Latency by percentile" "$1" "Latency over time (corrected)" "$2" \
        "Throughput" "$3"
    [ "$4" -eq 0 ] || printf 'chart\t%s\tseries=%s\n' "Errors over time" "$4"
    printf 'chart\t%s\tseries=%s\n' "Connect, TLS and first-byte percentiles" "$5"
}

# check NAME FILE SPECTRUM OVERTIME THROUGHPUT ERRORS BREAKDOWN: chromium
# renders it cleanly, with these charts (see expected).
check() {
    local name=$1 file=$2 out
    out=$("$CHECK" "$file" "$D/$name.check" 2>&1)
    ok "${name}_renders" "$out" [ $? -eq 0 ]
    ok "${name}_charts" "got: $(echo "$out" | tr '\t\n' ' |')" [ "$out" = "$(expected "$3" "$4" "$5" "$6" "$7")" ]
    ok "${name}_screenshot" "$(ls -l "$D/$name.check/shot.png" 2>&1)" \
        "[ \$(stat -c %s '$D/$name.check/shot.png' 2>/dev/null || echo 0) -gt 50000 ]"
}

# chart_series NAME TITLE: the series html_check saw drawn in a chart.
chart_series() { awk -F'\t' -v t="$2" '$1 == t { print $2 }' "$D/$1.check/charts.tsv"; }
# before_h2 FILE: the page from <body> to its first <h2> (what it shows first).
before_h2() { sed -n '/^<body>/,/<h2>/p' "$1"; }

# The "Completed" cell of the summary table.
html_completed() { grep -oE '<td>Completed</td><td class="num">[0-9]+</td>' "$1" | grep -oE '[0-9]+' | head -n1; }

# chart_values FILE TITLE SERIES EXPR: a Python expression on the series'
# y values `y` (None for gaps), from the data embedded in the page.
chart_values() {
    "$PY" - "$1" "$2" "$3" "$4" <<'PY'
import json, re, statistics, sys
html = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="pacer-data">(.*?)</script>', html, re.S)
charts = {c['title']: c for c in json.loads(m.group(1))['charts']}
s = [s for s in charts[sys.argv[2]]['series'] if s['name'] == sys.argv[3]][0]
x, y = s['x'], s['y']
print(eval(sys.argv[4]))
PY
}

# drawn NAME TITLE SERIES EXPR: a Python expression on what chromium drew
# of that series, `p`: its points read back from the SVG path in data
# units ([x, y], None at a break; tests/tools/html_check.sh, drawn.json);
# near(p, want, dx, dy) says whether p is the points `want` within dx, dy.
drawn() {
    "$PY" - "$D/$1.check/drawn.json" "$2" "$3" "$4" <<'PY'
import json, sys
charts = {c['title']: c for c in json.load(open(sys.argv[1]))}
s = [s for s in charts[sys.argv[2]]['series'] if s['name'] == sys.argv[3]]
p = s[0]['points'] if s else []
def near(p, want, dx, dy):
    return len(p) == len(want) and all(
        (a is None and b is None) or (a is not None and b is not None and
                                      abs(a[0] - b[0]) <= dx and abs(a[1] - b[1]) <= dy)
        for a, b in zip(p, want))
print(eval(sys.argv[4]))
PY
}

# verdict_same HTML TEXT: who limited the run is in a box before the
# first section exactly when the text report says it, in its words: each
# line of the box (after its title) is a line of the text report, and the
# text report's "limited this run" line is in the box.
verdict_same() {
    "$PY" - "$1" "$2" <<'PY'
import html, re, sys
page, text = open(sys.argv[1]).read(), open(sys.argv[2]).read().splitlines()
m = re.search(r'<div class="pacer-diagnosis" id="pacer-diagnosis">(.*?)</div>', page, re.S)
box = [html.unescape(t) for t in re.findall(r'<p>(.*?)</p>', m.group(1))] if m else []
# The verdict is the line after Transfer/sec (or after the send lag's
# lines: Send lag, To the wire), unindented.
lag = ('Send lag', 'To the wire')
said = [n.strip() for l, n in zip(text, text[1:])
        if l.startswith(('Transfer/sec',) + lag) and n and not n.startswith((' ',) + lag)]
print('box: %s | text: %s' % (box, said))
ok = all(any(b == l.strip() for l in text) for b in box) and all(l in box for l in said)
ok = ok and bool(box) == bool(said) and (not m or page.index(m.group(0)) < page.index('<h2>'))
sys.exit(not ok)
PY
}

# ---- a bad path fails before any load is sent --------------------------
start_serve --threads 1 --size 1k || { fail serve_start "pacer serve did not start"; finish; }
out=$("$PACER" -t1 -c1 -d1s --html "$D/no/such/dir/r.html" "$SERVE_URL" 2>&1)
rc=$?
ok html_bad_path_exit1 "exit $rc: $out" [ "$rc" -eq 1 ]
ok html_bad_path_one_line "$out" "[ \$(printf '%s\n' \"\$out\" | wc -l) -eq 1 ] && printf '%s' \"\$out\" | grep -q \"cannot write '$D/no/such/dir/r.html'\""
ok html_bad_path_before_run "$out" "! printf '%s' \"\$out\" | grep -q Running"

# ---- plain HTTP against pacer serve -------------------------------------
"$PACER" -t2 -c8 -d3s -R1000 --html "$D/h.html" --json "$D/h.json" --hlog "$D/h.hlog" \
    --slo 'p99<=1s, errors<=0' "$SERVE_URL" >"$D/h.txt" 2>&1
rc=$?
ok html_http_exit0 "exit $rc: $(tail -3 "$D/h.txt")" [ "$rc" -eq 0 ]
ok html_http_no_tmp_left "$(ls "$D")" "! ls '$D' | grep -q tmp"
check html_http "$D/h.html" 3 4 2 0 2
# At the top: the command line as typed, then the SLO verdict.
ok html_http_cmdline_first "$(before_h2 "$D/h.html")" \
    "before_h2 '$D/h.html' | grep -qF \"<pre>pacer -t2 -c8 -d3s -R1000 --html $D/h.html --json $D/h.json --hlog $D/h.hlog --slo &#39;p99&lt;=1s, errors&lt;=0&#39; $SERVE_URL</pre>\""
ok html_http_slo_verdict "$(grep -A3 'pacer-verdict' "$D/h.html")" \
    "grep -qF '<p class=\"pacer-verdict pass\">SLO PASSED: all 2 objectives met</p>' '$D/h.html' &&
     grep -qE '<tr><td>p99&lt;=1s</td><td class=\"num\">[0-9.]+(us|ms)</td><td>PASS</td><td></td></tr>' '$D/h.html' &&
     grep -qF '<tr><td>errors&lt;=0</td><td class=\"num\">0</td><td>PASS</td><td>none failed</td></tr>' '$D/h.html'"
# No failure: one line says so instead of a chart of zeros.
ok html_http_no_errors_line "$(grep -i 'errors' "$D/h.html" | head -5)" \
    "grep -qF '<p>No errors: 0 of $(json_get "$D/h.json" "d['requests']['scheduled']") requests failed.</p>' '$D/h.html'"
# The requested rate is drawn as a reference line in the throughput chart.
ok html_http_requested_rate_line "$(chart_series html_http Throughput)" \
    "[ \"\$(chart_series html_http Throughput)\" = 'completed/s|requested (-R) (ref)' ] &&
     [ \"\$(chart_values '$D/h.html' Throughput 'requested (-R)' 'x == [0, 3] and y == [1000, 1000]')\" = True ]"
jc=$(json_get "$D/h.json" "d['requests']['completed']")
hc=$(html_completed "$D/h.html")
ok html_http_completed_matches_json "html ${hc:-none}, json $jc" \
    "[ -n '$hc' ] && [ '$hc' = '$jc' ] && [ '$hc' -ge 2500 ]"
ok html_http_text_report "no text report" "grep -q '^Requests/sec: ' '$D/h.html'"
ok html_http_throughput_values "$(chart_values "$D/h.html" Throughput completed/s y)" \
    "[ \"\$(chart_values '$D/h.html' Throughput completed/s 'abs(statistics.median([v for v in y if v is not None]) - 1000) < 100')\" = True ]"
ok html_http_p99_values "$(chart_values "$D/h.html" "Latency over time (corrected)" p99 y)" \
    "[ \"\$(chart_values '$D/h.html' 'Latency over time (corrected)' p99 'len(y) >= 3 and all(v is not None and 0 < v < 1000 for v in y)')\" = True ]"

# ---- the same report from the result files ------------------------------
"$PACER" report --html "$D/r.html" "$D/h.json" >"$D/r.txt" 2>&1
rc=$?
ok html_report_json_exit0 "exit $rc: $(tail -3 "$D/r.txt")" [ "$rc" -eq 0 ]
check html_report_json "$D/r.html" 2 3 2 0 2
# pacer report has no command line of its own: it lists the files merged.
ok html_report_json_sources "$(before_h2 "$D/r.html")" \
    "before_h2 '$D/r.html' | grep -qF '<tr><td>$D/h.json</td></tr>' && ! before_h2 '$D/r.html' | grep -q '<pre>pacer report'"
ok html_report_json_completed "html $(html_completed "$D/r.html"), json $jc" \
    "[ '$(html_completed "$D/r.html")' = '$jc' ]"
ok html_report_json_same_p99 "run vs report p99 over time" \
    "[ \"\$(chart_values '$D/h.html' 'Latency over time (corrected)' p99 y)\" = \"\$(chart_values '$D/r.html' 'Latency over time (corrected)' p99 y)\" ]"
# An interval log has latency only: no connect / first-byte histograms.
"$PACER" report --html "$D/l.html" "$D/h.hlog" >"$D/l.txt" 2>&1
rc=$?
ok html_report_hlog_exit0 "exit $rc: $(tail -3 "$D/l.txt")" [ "$rc" -eq 0 ]
check html_report_hlog "$D/l.html" 2 3 1 0 0
ok html_report_hlog_errors_unknown "no line on errors" \
    "grep -qF '<p>Errors over time: not known (interval logs hold latency histograms only).</p>' '$D/l.html'"

# ---- step stages and SLO limits, as chromium drew them ------------------
# The requested rate is the shape: flat in each step, a vertical jump at
# each boundary, nothing after the end (no ramp from point to point, no
# ramp down to 0); each interval's throughput is flat across it; each
# latency limit is a horizontal line at its value (a stage's over that
# stage); the p99 line goes through the intervals' p99.
"$PACER" -t1 -c8 --stages '1s:200!,1s:400!,1s:300!' --slo 'p99<=500ms,max<=2s,stage2:p50<=300ms' \
    --html "$D/s.html" --json "$D/s.json" "$SERVE_URL" >"$D/s.txt" 2>&1
rc=$?
ok html_stages_exit0 "exit $rc: $(tail -3 "$D/s.txt")" [ "$rc" -eq 0 ]
check html_stages "$D/s.html" 4 7 3 0 2
p=$(drawn html_stages Throughput 'requested (--stages)' p)
ok html_stages_target_steps "drawn: $p" \
    "[ \"\$(drawn html_stages Throughput 'requested (--stages)' 'near(p, [[0, 200], [1, 200], [1, 400], [2, 400], [2, 300], [3, 300]], 0.01, 4)')\" = True ]"
ok html_stages_target_ends_with_run "drawn: $p" \
    "[ \"\$(drawn html_stages Throughput 'requested (--stages)' 'max(q[0] for q in p if q) <= 3.01 and min(q[1] for q in p if q) > 150')\" = True ]"
want=$(json_get "$D/s.json" "[[i, p['requests'] / p['length_s']] for i, p in enumerate(d['intervals']['series'][:3])]")
ok html_stages_throughput_flat "intervals $want, drawn $(drawn html_stages Throughput completed/s p)" \
    "[ \"\$(drawn html_stages Throughput completed/s 'all(any(q and abs(q[0] - x) < 0.01 and abs(q[1] - r) < 4 for q in p) and any(q and abs(q[0] - x - 1) < 0.01 and abs(q[1] - r) < 4 for q in p) for x, r in $want)')\" = True ]"
ok html_stages_slo_lines "$(grep -o '<g class="series ref limit" data-name="[^"]*"' "$D/html_stages.check/dom.html" | tr '\n' ' ')" \
    "[ \"\$(drawn html_stages 'Latency over time (corrected)' 'SLO p99<=500ms' 'near(p, [[0, 500], [3, 500]], 0.01, 5)')\" = True ] &&
     [ \"\$(drawn html_stages 'Latency over time (corrected)' 'SLO max<=2s' 'near(p, [[0, 2000], [3, 2000]], 0.01, 20)')\" = True ] &&
     [ \"\$(drawn html_stages 'Latency over time (corrected)' 'SLO stage2:p50<=300ms' 'near(p, [[1, 300], [2, 300]], 0.01, 3)')\" = True ] &&
     [ \"\$(drawn html_stages 'Latency by percentile' 'SLO p99<=500ms' 'near(p, [[0, 500], [99, 500]], 0.05, 5)')\" = True ] &&
     [ \"\$(drawn html_stages 'Latency by percentile' 'SLO max<=2s' 'len(p) == 2 and p[1][0] > 99 and abs(p[0][1] - 2000) < 20')\" = True ] &&
     grep -qF '<g class=\"series ref limit\" data-name=\"SLO p99&lt;=500ms\">' '$D/html_stages.check/dom.html' &&
     [ \"\$(drawn html_stages 'Latency over time (corrected)' 'SLO p99<=500ms' 'bool(s and s[0][\"limit\"])')\" = True ] &&
     [ \"\$(drawn html_stages Throughput 'requested (--stages)' 'bool(s and not s[0][\"limit\"])')\" = True ]"
want=$(json_get "$D/s.json" "[[i, p['p99_us'] / 1000] for i, p in enumerate(d['intervals']['series'][:3])]")
ok html_stages_p99_drawn "intervals $want, drawn $(drawn html_stages 'Latency over time (corrected)' p99 p)" \
    "[ \"\$(drawn html_stages 'Latency over time (corrected)' p99 'all(any(q and abs(q[0] - x) < 0.01 and abs(q[1] / v - 1) < 0.03 for q in p) for x, v in $want)')\" = True ]"
ok html_stages_verdict_same "$(verdict_same "$D/s.html" "$D/s.txt")" "verdict_same '$D/s.html' '$D/s.txt' >/dev/null"

# ---- who limited the run: a box at the top, in the text report's words --
# The client stopped for 0.4 s mid-run (SIGSTOP): its requests went out
# late, its threads idle; the text report says the latency's tail is
# pacer's own, and so does the page, before its first section.
"$PACER" -t1 -c4 -d4s -R500 --html "$D/v.html" "$SERVE_URL" >"$D/v.txt" 2>&1 &
vpid=$!
T_PIDS+=("$vpid")
sleep 1.5
kill -STOP "$vpid" 2>/dev/null
sleep 0.4
kill -CONT "$vpid" 2>/dev/null
wait "$vpid"
ok html_verdict_box "$(verdict_same "$D/v.html" "$D/v.txt")" \
    "verdict_same '$D/v.html' '$D/v.txt' >/dev/null && grep -q '<div class=\"pacer-diagnosis\" id=\"pacer-diagnosis\"><p class=\"pacer-diagnosis-title\">Who limited this run</p><p>[^<]*pacer&#39;s own' '$D/v.html'"
out=$("$CHECK" "$D/v.html" "$D/v.check" 2>&1)
ok html_verdict_renders "$out" [ $? -eq 0 ]
ok html_http_verdict_same "$(verdict_same "$D/h.html" "$D/h.txt")" "verdict_same '$D/h.html' '$D/h.txt' >/dev/null"

# ---- overload: never-sent requests, a failed SLO -------------------------
# 300 responses/s at most, asked for 3000/s over 2 connections: most
# requests are never sent, in every second of the run.
start_serve --threads 1 --capacity 300 || { fail serve_start "pacer serve did not start"; finish; }
"$PACER" -t1 -c2 -d3s -R3000 --timeout 1s --html "$D/o.html" --json "$D/o.json" \
    --slo 'errors<=0' "$SERVE_URL" >"$D/o.txt" 2>&1
rc=$?
ok html_overload_exit5 "exit $rc: $(tail -3 "$D/o.txt")" [ "$rc" -eq 5 ]
check html_overload "$D/o.html" 2 3 2 4 2
ok html_overload_slo_verdict "$(grep 'pacer-verdict' "$D/o.html")" \
    "grep -qF '<p class=\"pacer-verdict fail\">SLO FAILED: 1 of 1 objectives not met</p>' '$D/o.html' &&
     grep -qF '<tr><td>errors&lt;=0</td><td class=\"num\">$(json_get "$D/o.json" "d['requests']['scheduled'] - d['requests']['completed']")</td><td>FAIL</td>' '$D/o.html'"
# They were never sent, not refused: the objective's row and the requests
# table say so, with the count, beside the zeros of the error kinds.
ns=$(json_get "$D/o.json" "d['requests']['never_sent']")
ok html_overload_never_sent_named "$(grep -oE '<td>errors&lt;=0</td>.*?</tr>|<tr><td>(Never sent|Failed)[^\n]*?</tr>' "$D/o.html" | head -3)" \
    "grep -qE '<td>FAIL</td><td>$ns never sent \\(still queued when the run ended: never written to the server\\)(; [^<]*)?</td></tr>' '$D/o.html' &&
     grep -qF '<tr><td>Never sent</td><td class=\"num\">$ns</td><td>still queued when the run ended: never written to the server, no error from it</td></tr>' '$D/o.html' &&
     grep -qE '<tr><td>Failed \\(all kinds\\)</td><td class=\"num\">$(json_get "$D/o.json" "d['requests']['scheduled'] - d['requests']['completed']")</td>' '$D/o.html'"
# Every failure was a never-sent request: that line lies on the errors
# line, and is dashed so that both show.
ok html_overload_coinciding_dashed "$(grep -o '<g class="series" data-name="never sent[^>]*><path [^>]*>' "$D/html_overload.check/dom.html")" \
    "grep -qE '<g class=\"series\" data-name=\"never sent \\(in the interval due\\)\"><path [^>]*stroke-dasharray=\"6 5\"' '$D/html_overload.check/dom.html'"
ok html_overload_verdict_same "$(verdict_same "$D/o.html" "$D/o.txt")" "verdict_same '$D/o.html' '$D/o.txt' >/dev/null"
ns=$(json_get "$D/o.json" "d['requests']['never_sent']")
ok html_overload_never_sent_spread "never sent $ns: $(chart_values "$D/o.html" 'Errors over time' 'never sent (in the interval due)' y)" \
    "[ \"\$(chart_values '$D/o.html' 'Errors over time' 'never sent (in the interval due)' 'sum(y) == $ns and len([v for v in y if v > $ns / 6]) >= 3 and max(y) < $ns / 2')\" = True ]"

# ---- HTTPS against nginx: TLS adds the handshake series -----------------
if start_nginx; then
    "$PACER" -t1 -c4 -d2s --html "$D/t.html" --json "$D/t.json" \
        "https://127.0.0.1:$NGX_TLS_PORT/" >"$D/t.txt" 2>&1
    rc=$?
    ok html_https_exit0 "exit $rc: $(tail -3 "$D/t.txt")" [ "$rc" -eq 0 ]
    check html_https "$D/t.html" 2 3 1 0 3
    ok html_https_verdict_same "$(verdict_same "$D/t.html" "$D/t.txt")" "verdict_same '$D/t.html' '$D/t.txt' >/dev/null"
    jc=$(json_get "$D/t.json" "d['requests']['completed']")
    hc=$(html_completed "$D/t.html")
    ok html_https_completed_matches_json "html ${hc:-none}, json $jc" \
        "[ -n '$hc' ] && [ '$hc' = '$jc' ] && [ '$hc' -gt 0 ]"
    ok html_https_tls_row "no TLS row with 4 samples" \
        "grep -qE '<td>TLS handshake \\(per connection\\)</td><td class=\"num\">[1-9][0-9]*</td><td class=\"num\">[0-9.]+</td>' '$D/t.html'"
else
    fail nginx_start "nginx did not start"
fi

finish
