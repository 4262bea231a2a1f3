#!/usr/bin/env bash
# --html: the self-contained HTML report, from a run (pacer serve over HTTP,
# nginx over HTTPS) and from result files (`pacer report --html`), rendered
# in headless chromium by tests/tools/html_check.sh.
. "$(dirname "$0")/lib.sh"
CHECK="$(cd "$(dirname "$0")/.." && pwd)/tools/html_check.sh"

need_cmd chromium chromium || finish

D="$T_DIR/html"; mkdir -p "$D"

# The charts of a run report, in page order: $1 = throughput series (2
# with the -R line), $2 = errors series (0: no chart, the page says there
# were none), $3 = breakdown series.
expected() {
    printf 'chart\t%s\tseries=%s\n' "Latency by percentile" 2 "Latency over time (corrected)" 3 \
        "Throughput" "$1"
    [ "$2" -eq 0 ] || printf 'chart\t%s\tseries=%s\n' "Errors over time" "$2"
    printf 'chart\t%s\tseries=%s\n' "Connect, TLS and first-byte percentiles" "$3"
}

# check NAME FILE THROUGHPUT ERRORS BREAKDOWN: chromium renders it
# cleanly, with these charts (see expected).
check() {
    local name=$1 file=$2 out
    out=$("$CHECK" "$file" "$D/$name.check" 2>&1)
    ok "${name}_renders" "$out" [ $? -eq 0 ]
    ok "${name}_charts" "got: $(echo "$out" | tr '\t\n' ' |')" [ "$out" = "$(expected "$3" "$4" "$5")" ]
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
y = s['y']
print(eval(sys.argv[4]))
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
check html_http "$D/h.html" 2 0 2
# At the top: the command line as typed, then the SLO verdict.
ok html_http_cmdline_first "$(before_h2 "$D/h.html")" \
    "before_h2 '$D/h.html' | grep -qF \"<pre>pacer -t2 -c8 -d3s -R1000 --html $D/h.html --json $D/h.json --hlog $D/h.hlog --slo &#39;p99&lt;=1s, errors&lt;=0&#39; $SERVE_URL</pre>\""
ok html_http_slo_verdict "$(grep -A3 'pacer-verdict' "$D/h.html")" \
    "grep -qF '<p class=\"pacer-verdict pass\">SLO PASSED: all 2 objectives met</p>' '$D/h.html' &&
     grep -qE '<tr><td>p99&lt;=1s</td><td class=\"num\">[0-9.]+(us|ms)</td><td>PASS</td></tr>' '$D/h.html' &&
     grep -qF '<tr><td>errors&lt;=0</td><td class=\"num\">0</td><td>PASS</td></tr>' '$D/h.html'"
# No failure: one line says so instead of a chart of zeros.
ok html_http_no_errors_line "$(grep -i 'errors' "$D/h.html" | head -5)" \
    "grep -qF '<p>No errors: 0 of $(json_get "$D/h.json" "d['requests']['scheduled']") requests failed.</p>' '$D/h.html'"
# The requested rate is drawn as a reference line in the throughput chart.
ok html_http_requested_rate_line "$(chart_series html_http Throughput)" \
    "[ \"\$(chart_series html_http Throughput)\" = 'completed/s|requested (-R) (ref)' ] &&
     [ \"\$(chart_values '$D/h.html' Throughput 'requested (-R)' 'len(y) >= 3 and set(y) == {1000}')\" = True ]"
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
check html_report_json "$D/r.html" 2 0 2
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
check html_report_hlog "$D/l.html" 1 0 0
ok html_report_hlog_errors_unknown "no line on errors" \
    "grep -qF '<p>Errors over time: not known (interval logs hold latency histograms only).</p>' '$D/l.html'"

# ---- overload: never-sent requests, a failed SLO -------------------------
# 300 responses/s at most, asked for 3000/s over 2 connections: most
# requests are never sent, in every second of the run.
start_serve --threads 1 --capacity 300 || { fail serve_start "pacer serve did not start"; finish; }
"$PACER" -t1 -c2 -d3s -R3000 --timeout 1s --html "$D/o.html" --json "$D/o.json" \
    --slo 'errors<=0' "$SERVE_URL" >"$D/o.txt" 2>&1
rc=$?
ok html_overload_exit5 "exit $rc: $(tail -3 "$D/o.txt")" [ "$rc" -eq 5 ]
check html_overload "$D/o.html" 2 4 2
ok html_overload_slo_verdict "$(grep 'pacer-verdict' "$D/o.html")" \
    "grep -qF '<p class=\"pacer-verdict fail\">SLO FAILED: 1 of 1 objectives not met</p>' '$D/o.html' &&
     grep -qF '<tr><td>errors&lt;=0</td><td class=\"num\">$(json_get "$D/o.json" "d['requests']['scheduled'] - d['requests']['completed']")</td><td>FAIL</td></tr>' '$D/o.html'"
# Every failure was a never-sent request: that line lies on the errors
# line, and is dashed so that both show.
ok html_overload_coinciding_dashed "$(grep -o '<g class="series" data-name="never sent[^>]*><path [^>]*>' "$D/html_overload.check/dom.html")" \
    "grep -qE '<g class=\"series\" data-name=\"never sent \\(in the interval due\\)\"><path [^>]*stroke-dasharray=\"6 5\"' '$D/html_overload.check/dom.html'"
ns=$(json_get "$D/o.json" "d['requests']['never_sent']")
ok html_overload_never_sent_spread "never sent $ns: $(chart_values "$D/o.html" 'Errors over time' 'never sent (in the interval due)' y)" \
    "[ \"\$(chart_values '$D/o.html' 'Errors over time' 'never sent (in the interval due)' 'sum(y) == $ns and len([v for v in y if v > $ns / 6]) >= 3 and max(y) < $ns / 2')\" = True ]"

# ---- HTTPS against nginx: TLS adds the handshake series -----------------
if start_nginx; then
    "$PACER" -t1 -c4 -d2s --html "$D/t.html" --json "$D/t.json" \
        "https://127.0.0.1:$NGX_TLS_PORT/" >"$D/t.txt" 2>&1
    rc=$?
    ok html_https_exit0 "exit $rc: $(tail -3 "$D/t.txt")" [ "$rc" -eq 0 ]
    check html_https "$D/t.html" 1 0 3
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
