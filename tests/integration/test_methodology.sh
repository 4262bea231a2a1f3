#!/usr/bin/env bash
# serial: corrected percentiles within 10% of the analytic ones
# The coordinated-omission check (docs/methodology.md): constant rate R for
# D seconds against a server that stalls once for S seconds. Requests meant
# for the stall wait until it ends, so the corrected latency above the base
# latency is spread evenly over (0, S]: x_p = S - (1 - p) * D. Pacer's
# corrected p99 and p99.9 must be within 10 % of that; the uncorrected p50
# must stay near the unstalled latency.
. "$(dirname "$0")/lib.sh"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
R="$T_DIR/report"
D=6 S=1

"$PACER" -t2 -c40 -d${D}s -R500 --latency -U "http://127.0.0.1:$NGX_PORT/" >"$R" 2>&1 &
pid=$!
sleep 2
w=$(nginx_worker)
t0=$(date +%s.%N)
kill -STOP "$w"
sleep $S
kill -CONT "$w"
t1=$(date +%s.%N)
wait $pid
stall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
p99=$(pct "$R" 1 99.000)
p999=$(pct "$R" 1 99.900)
u50=$(pct "$R" 2 50.000)
want99=$(awk -v s="$stall" -v d=$D 'BEGIN { printf "%.1f", (s - 0.01 * d) * 1000 }')
want999=$(awk -v s="$stall" -v d=$D 'BEGIN { printf "%.1f", (s - 0.001 * d) * 1000 }')
within() { awk -v x="$1" -v t="$2" 'BEGIN { exit !(x >= 0.9 * t && x <= 1.1 * t) }'; }
ok co_p99_analytic "corrected p99 ${p99:-?} ms, analytic $want99 ms (stall ${stall}s)" "within '${p99:-0}' '$want99'"
ok co_p999_analytic "corrected p99.9 ${p999:-?} ms, analytic $want999 ms" "within '${p999:-0}' '$want999'"
ok co_uncorrected_p50 "uncorrected p50 ${u50:-?} ms" fcmp "${u50:-999}" "<" 5
ok co_outcomes "$(grep Outcomes "$R")" "grep -qE '^  Outcomes: 3000 scheduled = 3000 completed' '$R'"

finish
