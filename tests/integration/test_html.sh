#!/usr/bin/env bash
# --html: the self-contained HTML report, from a run (pacer serve over HTTP,
# nginx over HTTPS) and from result files (`pacer report --html`), rendered
# in headless chromium by tests/tools/html_check.sh.
. "$(dirname "$0")/lib.sh"
CHECK="$(cd "$(dirname "$0")/.." && pwd)/tools/html_check.sh"

need_cmd chromium chromium || finish

D="$T_DIR/html"; mkdir -p "$D"

# The charts of a run report, in page order; $1 = breakdown series.
expected() {
    printf 'chart\t%s\tseries=%s\n' "Latency by percentile" 2 "Latency over time (corrected)" 3 \
        "Throughput" 1 "Errors over time" 3 "Connect, TLS and first-byte percentiles" "$1"
}

# check NAME FILE BREAKDOWN: chromium renders it cleanly, with these charts.
check() {
    local name=$1 file=$2 out
    out=$("$CHECK" "$file" "$D/$name.check" 2>&1)
    ok "${name}_renders" "$out" [ $? -eq 0 ]
    ok "${name}_charts" "got: $(echo "$out" | tr '\t\n' ' |')" [ "$out" = "$(expected "$3")" ]
    ok "${name}_screenshot" "$(ls -l "$D/$name.check/shot.png" 2>&1)" \
        "[ \$(stat -c %s '$D/$name.check/shot.png' 2>/dev/null || echo 0) -gt 50000 ]"
}

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
    "$SERVE_URL" >"$D/h.txt" 2>&1
rc=$?
ok html_http_exit0 "exit $rc: $(tail -3 "$D/h.txt")" [ "$rc" -eq 0 ]
ok html_http_no_tmp_left "$(ls "$D")" "! ls '$D' | grep -q tmp"
check html_http "$D/h.html" 2
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
check html_report_json "$D/r.html" 2
ok html_report_json_completed "html $(html_completed "$D/r.html"), json $jc" \
    "[ '$(html_completed "$D/r.html")' = '$jc' ]"
ok html_report_json_same_p99 "run vs report p99 over time" \
    "[ \"\$(chart_values '$D/h.html' 'Latency over time (corrected)' p99 y)\" = \"\$(chart_values '$D/r.html' 'Latency over time (corrected)' p99 y)\" ]"
# An interval log has latency only: no connect / first-byte histograms.
"$PACER" report --html "$D/l.html" "$D/h.hlog" >"$D/l.txt" 2>&1
rc=$?
ok html_report_hlog_exit0 "exit $rc: $(tail -3 "$D/l.txt")" [ "$rc" -eq 0 ]
check html_report_hlog "$D/l.html" 0

# ---- HTTPS against nginx: TLS adds the handshake series -----------------
if start_nginx; then
    "$PACER" -t1 -c4 -d2s --html "$D/t.html" --json "$D/t.json" \
        "https://127.0.0.1:$NGX_TLS_PORT/" >"$D/t.txt" 2>&1
    rc=$?
    ok html_https_exit0 "exit $rc: $(tail -3 "$D/t.txt")" [ "$rc" -eq 0 ]
    check html_https "$D/t.html" 3
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
