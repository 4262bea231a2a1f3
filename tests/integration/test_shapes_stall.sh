#!/usr/bin/env bash
# serial: a stall's p99 in its own stage only, the others' under 100 ms
# Load shapes (test_shapes.sh), the part that needs the machine to itself:
# a stall inside one stage is in that stage's corrected p99 only.
. "$(dirname "$0")/lib.sh"

need_cmd nginx nginx-light || finish
start_nginx || { fail nginx_start "nginx did not start"; finish; }
URL="http://127.0.0.1:$NGX_PORT/"

# -- a 1 s stall inside stage 2 of three constant ones -------------------
# Stage 2 is [2.5 s, 5 s); nginx's worker stops at ~3 s for 1 s. The
# requests it delays were intended in stage 2, so stage 2's corrected p99
# holds the stall and stages 1 and 3 do not.
out="$T_DIR/stall"
"$PACER" -t2 -c40 --stages 2.5s:200!,2.5s:200!,2.5s:200! --json "$T_DIR/stall.json" --quiet \
    "$URL" >"$out" 2>&1 &
pid=$!
sleep 3
w=$(nginx_worker)
kill -STOP "$w"
sleep 1
kill -CONT "$w"
wait "$pid"
p99() { json_get "$T_DIR/stall.json" "d['stages'][$1]['latency']['percentiles']['99'] / 1000"; }
p1=$(p99 0) p2=$(p99 1) p3=$(p99 2)
ok stall_in_its_stage "stage p99 (ms): ${p1:-?} ${p2:-?} ${p3:-?}; want stage 2 > 600" \
    fcmp "${p2:-0}" ">" 600
ok stall_not_in_the_others "stage p99 (ms): ${p1:-?} ${p2:-?} ${p3:-?}; want 1 and 3 < 100" \
    "fcmp '${p1:-999}' '<' 100 && fcmp '${p3:-999}' '<' 100"
ok stall_outcomes "$(grep Outcomes "$out")" outcomes_add_up "$out"
finish
