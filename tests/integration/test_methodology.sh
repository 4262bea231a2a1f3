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
D=6

# lib.sh's stall_check: the stop measured with bash's own clock, within
# bounds (the shell may wait for a CPU between the clock and the signal).
STALL_D=$D STALL_AFTER=2 STALL_ANALYTIC=1 stall_check co -t2 -c40 -R500 "http://127.0.0.1:$NGX_PORT/"
R="$T_DIR/stall.co"
u50=$(pct "$R" 2 50.000)
ok co_uncorrected_p50_unstalled "uncorrected p50 ${u50:-?} ms" fcmp "${u50:-999}" "<" 5
ok co_all_completed "$(grep Outcomes "$R")" "grep -qE '^  Outcomes: 3000 scheduled = 3000 completed' '$R'"

finish
