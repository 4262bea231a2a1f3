#!/usr/bin/env bash
# serial: a rate within 1% over HTTP/2, a stall's p99
# test_h2.sh's checks bounded tightly in time or rate, which need the
# machine to themselves (the rest of test_h2.sh holds on a loaded one): a
# constant rate over HTTP/2 within 1%, a stall in corrected latency.
. "$(dirname "$0")/lib.sh"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
H2="https://127.0.0.1:$NGX_TLS_PORT/"
H2C="http://127.0.0.1:$NGX_H2C_PORT/"
R="$T_DIR/report"

# --- constant rate over HTTP/2: within 1 % -------------------------------
"$PACER" -t2 -c4 -m8 -d3s -R1000 --h2 --latency "$H2" >"$R" 2>&1
rps=$(field "$R" '^Requests/sec:')
ok h2_rate_1pct "Requests/sec $rps" "awk -v r='$rps' 'BEGIN { exit !((r - 1000)^2 <= 100) }' && outcomes_add_up '$R'"

# --- a stall shows in corrected latency, not uncorrected ------------------------
stall_check h2_stall -t2 -c4 -m16 -R400 --h2 "$H2C"

finish
