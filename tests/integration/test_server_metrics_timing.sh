#!/usr/bin/env bash
# serial: the send lag with and without the sampler; CPU per request of two servers compared
# test_server_metrics.sh's checks bounded in time, which need the machine
# to themselves: scraping never delays the load threads (the send lag with
# and without --server-metrics), and a server that costs twice the CPU per
# request shows twice the figure in pacer compare.
. "$(dirname "$0")/lib.sh"
TOOLS="$(cd "$(dirname "$0")/../tools" && pwd)"
D="$T_DIR/srv"; mkdir -p "$D"
need_cmd prometheus-node-exporter prometheus-node-exporter || finish
need_cmd prometheus-process-exporter prometheus-process-exporter || finish

# nginx, and a second server of the same nginx with gzip on: the same
# ~1 KB text page (base64: compressible, not trivially) costs it about
# twice the CPU per request when the client accepts gzip.
GZ_PORT=$(pick_port)
start_nginx "server { listen 127.0.0.1:$GZ_PORT; root $T_DIR/nginx/www; default_type text/plain;
    gzip on; gzip_types text/plain; gzip_min_length 0; gzip_comp_level 1; }" ||
    { fail nginx_start "$(cat "$NGX_DIR/stdout" "$NGX_DIR/error.log" 2>/dev/null)"; finish; }
head -c 750 /dev/urandom | base64 -w 76 >"$NGX_DIR/www/page.txt"
chmod 644 "$NGX_DIR/www/page.txt"
URL="http://127.0.0.1:$NGX_PORT/"
PLAIN="http://127.0.0.1:$NGX_PORT/page.txt"
GZIP="http://127.0.0.1:$GZ_PORT/page.txt"

start_nginx_exporters || finish

# --- scraping never delays the load threads ----------------------------------
# The same schedule with and without the sampler reading both exporters and
# /proc every 200 ms: the send lag's p99 does not grow by more than a
# scheduling noise's worth (x2 + 1 ms), and its max stays under a reading's
# timeout (a load thread that waited on one would show it whole).
# On a loaded machine one pair of runs may still differ by a stall of its
# own: up to three pairs, the first that holds counts.
lag() { json_get "$1" "d['latency']['send_lag']['percentiles']['$2']"; }
lagmax() { json_get "$1" "d['latency']['send_lag']['max']"; }
for try in 1 2 3; do
    "$PACER" -t1 -c20 -d3s -R2000 --interval 200ms --json "$D/lag0.json" "$URL" >"$D/lag0.out" 2>&1
    "$PACER" -t1 -c20 -d3s -R2000 --interval 200ms --server-pid "$NGX_PID" --server-metrics "$PE_URL" \
        --server-metrics "$NE_URL" --json "$D/lag1.json" "$URL" >"$D/lag1.out" 2>&1
    l0=$(lag "$D/lag0.json" 99); l1=$(lag "$D/lag1.json" 99)
    m0=$(lagmax "$D/lag0.json"); m1=$(lagmax "$D/lag1.json")
    echo "    send lag p99: ${l0}us without, ${l1}us with the sampler (max ${m0}us, ${m1}us)"
    grep -q '^    CPU: [0-9]' "$D/lag1.out" && fcmp "$l1" '<=' "$(awk "BEGIN{print 2*$l0 + 1000}")" &&
        fcmp "$m1" '<=' "$(awk "BEGIN{print 2*$m0 + 5000}")" && break
done
ok lag_unchanged "p99 ${l0}us without, ${l1}us with (max ${m0}us, ${m1}us): $(grep -A1 '^  Server:' "$D/lag1.out")" \
    "grep -q '^    CPU: [0-9]' '$D/lag1.out' && fcmp '$l1' '<=' \$(awk 'BEGIN{print 2*$l0 + 1000}') && fcmp '$m1' '<=' \$(awk 'BEGIN{print 2*$m0 + 5000}')"

# A reading that waits its whole timeout (100 ms at --interval 300ms) at
# every interval: a load thread that waited on one would lag 100 ms.
"$PY" "$TOOLS/bad_exporter.py" slow 60 >"$D/slow.log" 2>&1 &
T_PIDS+=("$!")
for _ in $(seq 1 100); do grep -q listening "$D/slow.log" && break; sleep 0.05; done
sport=$(head -n1 "$D/slow.log"); sport=${sport##*:}
for try in 1 2 3; do
    "$PACER" -t1 -c20 -d3s -R2000 --interval 300ms --server-metrics "http://127.0.0.1:$sport/metrics" \
        --json "$D/slow.json" "$URL" >"$D/slow.out" 2>&1
    ms=$(lagmax "$D/slow.json")
    echo "    send lag max ${ms}us with an exporter that never answers"
    fcmp "$ms" '<' 50000 && break
done
ok slow_exporter_no_lag "send lag max ${ms}us: $(grep -A1 '^  Server:' "$D/slow.out")" \
    "grep -q 'no answer within 100 ms' '$D/slow.out' && fcmp '$ms' '<' 50000"

# --- twice the CPU per request shows twice in compare -------------------------
# compare's rounds, each measured over its own window: their CPU seconds
# (A's and B's from the JSON) add up to /proc's over the whole compare
# within 10% (nginx is idle between them); the table's ratio is what the
# JSON's CPU seconds and responses give; and gzip costs about twice the
# CPU per request (the setup: between 1.4x and 3.2x).
CMP_PY="
import json, sys
d = json.load(open(sys.argv[1])); proc = float(sys.argv[2]); shown = float(sys.argv[3])
s = [t['result']['server'] for t in d['targets']]
n = [t['result']['requests']['completed'] + t['result']['requests']['warmup_discarded'] for t in d['targets']]
rpc = [n[i] / s[i]['cpu_s'] for i in range(2)]
cost = rpc[0] / rpc[1]
print('A %.3fs B %.3fs (sum %.3fs, /proc %.3fs); requests per CPU-s %.0f, %.0f: B/A %.3f, shown %.2f; gzip costs %.2fx per request'
      % (s[0]['cpu_s'], s[1]['cpu_s'], s[0]['cpu_s'] + s[1]['cpu_s'], proc, rpc[0], rpc[1], rpc[1] / rpc[0], shown, cost))
ok = (abs(s[0]['cpu_s'] + s[1]['cpu_s'] - proc) <= 0.1 * proc and proc >= 0.5
      and abs(rpc[1] / rpc[0] - shown) <= 0.006 and 1.4 <= cost <= 3.2)
sys.exit(0 if ok else 1)"
for try in 1 2 3; do
    b=$(tree_cpu "$NGX_PID")
    "$PACER" compare --rounds 3 -t1 -c10 -d1s -H 'Accept-Encoding: gzip' --server-pid "$NGX_PID" \
        --json "$D/cmp.json" "$PLAIN" "$GZIP" >"$D/cmp.out" 2>"$D/cmp.err"
    rc=$?
    a=$(tree_cpu "$NGX_PID")
    proc=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", a - b }')
    shown=$(grep -E '^Requests per server CPU-s ' "$D/cmp.out" | grep -oE '\([0-9.]+x\)' | tr -d '(x)')
    why=$("$PY" -c "$CMP_PY" "$D/cmp.json" "$proc" "${shown:-0}" 2>&1)
    good=$?
    echo "    $why"
    [ $rc -eq 0 ] && [ $good -eq 0 ] && break
done
ok compare_twice_the_cpu "exit $rc; $why; $(grep -E '^Requests per server' "$D/cmp.out")" \
    "[ $rc -eq 0 ] && [ $good -eq 0 ]"
ok compare_rss_row "$(grep -E '^Server peak RSS' "$D/cmp.out")" \
    "grep -qE '^Server peak RSS \\(MB\\) +[0-9.]+ +[0-9.]+ \\([0-9.]+x\\)\$' '$D/cmp.out' &&
     json_get '$D/cmp.json' \"[t['result']['server']['requests_per_cpu_s'] > 0 for t in d['targets']]\" | grep -qx '\\[True, True\\]'"
finish
