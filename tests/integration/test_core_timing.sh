#!/usr/bin/env bash
# serial: a rate within 1%, a stall's p99, a saturated server's knee within 10%
# test_core.sh's checks bounded tightly in time or rate, which need the
# machine to themselves (the rest of test_core.sh holds on a loaded one):
# nginx at a constant rate, a 1 s stall, the shortfall notes' latencies and
# knees against `pacer serve`.
. "$(dirname "$0")/lib.sh"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
R="$T_DIR/report"

# --- constant rate: achieved within 1% of -R in a 3 s run -----------------
: >"$NGX_DIR/access.log"
"$PACER" -t2 -c20 -d3s -R1000 --latency "$U" >"$R" 2>"$R.err"
rps=$(field "$R" '^Requests/sec:')
completed=$(awk '/^  Outcomes:/ {print $5}' "$R")
ok rate_1pct "Requests/sec $rps for -R1000" fcmp "$(awk -v r="$rps" 'BEGIN{print (r-1000)^2 <= 100}')" "==" 1
ok rate_count "completed $completed of 3000" fcmp "$completed" ">=" 2970
ok rate_outcomes "$(grep Outcomes "$R")" outcomes_add_up "$R"
ok rate_wrk2_layout "wrk2 latency block missing" "
    grep -q '^  Latency Distribution (HdrHistogram - Recorded Latency)\$' '$R' &&
    grep -qE '^ 50\.000% +[0-9.]+(us|ms|s)\$' '$R' &&
    grep -qE '^100\.000% +[0-9.]+(us|ms|s)\$' '$R' &&
    grep -q '^  Detailed Percentile spectrum:\$' '$R' &&
    grep -q '^       Value   Percentile   TotalCount 1/(1-Percentile)\$' '$R' &&
    grep -qE '^#\[Max     = +[0-9.]+, Total count    = +[0-9]+\]\$' '$R'"
total=$(grep -m1 -oE 'Total count    = +[0-9]+' "$R" | grep -oE '[0-9]+$')
ok rate_histogram_counts_all "histogram has $total of $completed (no hidden calibration)" [ "$total" = "$completed" ]

# --- a 1 s stall of the server at constant rate ---------------------------
# Corrected latency must show it (requests meant for the stall wait until
# it ends); uncorrected p50 must not.
stall_check stall -t2 -c20 -R400 "$U"

# --- a rate the connections cannot carry is explained ------------------------
start_serve --delay 20ms || fail serve_start "pacer serve did not start"
"$PACER" -t1 -c2 -d1s -R1000 "$SERVE_URL" >"$R" 2>&1
ok shortfall_explained "$(grep -E 'Requested|Outcomes' "$R")" "grep -qE '^  Requested rate 1000.00 req/s but achieved [0-9.]+ \([0-9.]+%\): at the observed mean latency of 2[0-9].[0-9]+ms, 1000 req/s needs about 2[0-9] requests in flight, but -c 2 allows 2 \(raise -c\)' '$R' && grep -qE 'never sent' '$R' && outcomes_add_up '$R'"

# A server at its capacity: more -c only adds latency, so the shortfall is the
# server's (about its knee whatever -c), while a server slow at any load
# still needs more connections.
start_serve --threads 1 --capacity 3000 || fail serve_start "pacer serve did not start"
for c in 50 150; do
    "$PACER" -t2 -c$c -d2s -R4000 "$SERVE_URL" >"$R.sat$c" 2>&1
    sat=$(sed -nE 's/^  Requested rate 4000.00 req\/s but achieved [0-9.]+ \([0-9.]+%\): the server is saturated at about ([0-9]+) req\/s: its latency grew from [0-9.]+ms \(the fastest, before its queue filled\) to a mean of [0-9.]+ms with [0-9.]+ of the '$c' requests -c allows in flight \(more -c adds latency, not rate\)$/\1/p' "$R.sat$c")
    ok shortfall_saturated_c$c "$(grep -E 'Requested|Outcomes' "$R.sat$c")" \
        "[ -n '$sat' ] && [ '$sat' -ge 2700 ] && [ '$sat' -le 3300 ] && outcomes_add_up '$R.sat$c'"
done
# A server with a floor of its own (48 ms of work) at its capacity: the
# fastest responses are the floor (48 ms, and up to 12 ms over it on a busy
# machine under ASan), not the ramp's, and it is still saturated.
start_serve --threads 1 --delay 48ms --capacity 750 || fail serve_start "pacer serve did not start"
"$PACER" -t1 -c50 -d2s -R1000 "$SERVE_URL" >"$R" 2>&1
sat=$(sed -nE 's/^  Requested rate 1000.00 req\/s but achieved [0-9.]+ \([0-9.]+%\): the server is saturated at about ([0-9]+) req\/s: its latency grew from (4[89]|5[0-9])\.[0-9]+ms .* with ([0-9.]+) of the 50 requests -c allows in flight .*/\1 \3/p' "$R")
ok shortfall_saturated_floor "$(grep -E 'Requested' "$R")" \
    "[ -n '$sat' ] && [ ${sat% *} -ge 650 ] && [ ${sat% *} -le 800 ] && fcmp '${sat#* }' '<=' 50"

finish
