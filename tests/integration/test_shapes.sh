#!/usr/bin/env bash
# Load shapes (--stages, -R A..B, --arrival poisson, --seed) against nginx:
# the schedule asks for exactly the rate's integral and nginx's access log
# agrees; the stages' requests add up to the run's; the same seed repeats
# the same schedule whatever the thread count; pacer report merges the
# stages. (A stall inside one stage: test_shapes_stall.sh, which runs alone.)
. "$(dirname "$0")/lib.sh"

need_cmd nginx nginx-light || finish
start_nginx || { fail nginx_start "nginx did not start"; finish; }
URL="http://127.0.0.1:$NGX_PORT/"
LOG="$NGX_DIR/access.log"

# logged TAG: requests nginx logged with X-Pacer: TAG.
logged() { grep -c "^GET / HTTP/1.1 $1 " "$LOG"; }
# stage_counts FILE: the JSON's stages[].requests, comma-separated.
stage_counts() { json_get "$1" "','.join(str(s['requests']) for s in d['stages'])"; }
near() { awk -v a="$1" -v b="$2" -v e="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= e) }'; }

# -- a ramp 0 -> 1000 req/s over 4 s: its integral, 2000 requests ---------
out="$T_DIR/ramp"
"$PACER" -t2 -c20 -R 0..1000 -d 4s -H "X-Pacer: ramp" --json "$T_DIR/ramp.json" --quiet \
    "$URL" >"$out" 2>&1
s=$(scheduled "$out")
ok ramp_schedules_the_integral "scheduled ${s:-?}, want 2000 (+-1): $(grep Outcomes "$out")" \
    near "${s:-0}" 2000 1
n=$(logged ramp)
ok ramp_nginx_log_agrees "nginx logged $n, pacer scheduled ${s:-?}: $(grep Outcomes "$out")" \
    "[ '$n' = '${s:-x}' ] && grep -q '= $n completed' '$out'"
ok ramp_stages_add_up "stages: $(stage_counts "$T_DIR/ramp.json")" \
    "[ -n '$s' ] && [ \"\$(json_get '$T_DIR/ramp.json' \"sum(s['requests'] for s in d['stages'])\")\" = '$s' ]"
ok ramp_json_valid "schema: $("$PY" -c "import json,jsonschema; jsonschema.validate(json.load(open('$T_DIR/ramp.json')), json.load(open('$(dirname "$0")/../../docs/pacer-result.schema.json')))" 2>&1 | tail -1)" \
    "$PY" -c "import json,jsonschema; jsonschema.validate(json.load(open('$T_DIR/ramp.json')), json.load(open('$(dirname "$0")/../../docs/pacer-result.schema.json')))"

# -- stages: up, a step, down: 250 + 500 + 250, each stage its own --------
out="$T_DIR/stages"
"$PACER" -t3 -c20 --stages 1s:500,1s:500!,1s:0 -H "X-Pacer: stages" --json "$T_DIR/st.json" \
    --html "$T_DIR/st.html" --interval 250ms --quiet "$URL" >"$out" 2>&1
ok stages_counts "stages: $(stage_counts "$T_DIR/st.json"), want 250,500,250" \
    "[ \"\$(stage_counts '$T_DIR/st.json')\" = 250,500,250 ]"
ok stages_nginx_log_agrees "nginx logged $(logged stages), want 1000: $(grep Outcomes "$out")" \
    "[ \"\$(logged stages)\" = 1000 ] && [ \"\$(scheduled '$out')\" = 1000 ]"
ok stages_rows "no stage rows: $(tail -5 "$out")" \
    "grep -qE '^  +3 +1.00s +500\\.\\.0 +250.00 ' '$out'"

# The HTML page: the requested line follows the shape, each stage's start
# is marked on the charts over time, and the stage rows are a table.
if need_cmd chromium chromium; then
    charts=$(bash "$(dirname "$0")/../tools/html_check.sh" "$T_DIR/st.html" "$T_DIR/hc" 2>&1 &&
        cat "$T_DIR/hc/charts.tsv")
    ok html_stage_marks "$charts" \
        "grep -q 'Throughput.*requested (--stages) (ref)|stage starts (ref)' <<<\"\$charts\" && grep -q 'Latency over time.*stage starts (ref)' <<<\"\$charts\""
    ok html_stage_table "no Stages table" \
        "grep -q '<caption>Stages</caption>' '$T_DIR/st.html'"
    # The requested line is the shape itself, each stage's two ends: up
    # from 0 to 500, the step held at 500, down to 0 as asked, ending with
    # the run (not per-interval means joined at the intervals' starts).
    ok html_requested_follows_shape "$(grep -o '"requested (--stages)".\{0,200\}' "$T_DIR/st.html")" \
        "grep -qF '\"requested (--stages)\",\"ref\":true,\"x\":[0,1,1,2,2,3],\"y\":[0,500,500,500,500,0]}' '$T_DIR/st.html'"
fi

# -- Poisson: the same seed, the same schedule, over 1 or 3 threads --------
poisson() { # TAG THREADS SEED...
    local tag=$1 t=$2
    shift 2
    "$PACER" -t"$t" -c20 --stages 1s:400!,1s:800! --arrival poisson "$@" -H "X-Pacer: $tag" \
        --json "$T_DIR/$tag.json" --quiet "$URL" >"$T_DIR/$tag" 2>&1
}
poisson p1 1 --seed 7
poisson p3 3 --seed 7
poisson q 2 --seed 8
poisson r 2 --seed 9
a=$(stage_counts "$T_DIR/p1.json") b=$(stage_counts "$T_DIR/p3.json")
ok poisson_seed_repeats_over_threads "seed 7: -t1 $a, -t3 $b" "[ -n '$a' ] && [ '$a' = '$b' ]"
ok poisson_other_seeds_differ "seeds 7, 8, 9: $a, $(stage_counts "$T_DIR/q.json"), $(stage_counts "$T_DIR/r.json")" \
    "[ \"\$(stage_counts '$T_DIR/q.json')\" != '$a' ] || [ \"\$(stage_counts '$T_DIR/r.json')\" != '$a' ]"
s=$(scheduled "$T_DIR/p3")
# 400 + 800 expected, Poisson: sd 34.6; 5 sd.
ok poisson_count_within_expectation "scheduled ${s:-?}, expected 1200 +- 173" near "${s:-0}" 1200 173
ok poisson_nginx_log_agrees "nginx logged $(logged p3), scheduled ${s:-?}" "[ \"\$(logged p3)\" = '${s:-x}' ]"
ok poisson_seed_printed "$(grep -i seed "$T_DIR/p3")" \
    "grep -q 'Arrivals: Poisson, seed 7 (--seed 7 repeats the schedule)' '$T_DIR/p3' && [ \"\$(json_get '$T_DIR/p3.json' \"d['config']['seed']\")\" = 7 ]"
# Without --seed: a random seed, printed; giving it back repeats the run.
"$PACER" -t2 -c20 -R 500 -d 2s --arrival poisson --json "$T_DIR/rnd.json" --quiet "$URL" \
    >"$T_DIR/rnd" 2>&1
seed=$(json_get "$T_DIR/rnd.json" "d['config']['seed']")
"$PACER" -t1 -c20 -R 500 -d 2s --arrival poisson --seed "$seed" --quiet "$URL" >"$T_DIR/rnd2" 2>&1
ok poisson_printed_seed_repeats "seed $seed: $(scheduled "$T_DIR/rnd") then $(scheduled "$T_DIR/rnd2")" \
    "grep -q 'seed $seed ' '$T_DIR/rnd' && [ \"\$(scheduled '$T_DIR/rnd')\" = \"\$(scheduled '$T_DIR/rnd2')\" ]"

# -- pacer report merges the stages of several files ---------------------
"$PACER" report --json "$T_DIR/merged.json" "$T_DIR/st.json" "$T_DIR/st.json" >"$T_DIR/merged" 2>&1
ok report_merges_stages "merged: $(stage_counts "$T_DIR/merged.json" 2>&1)" \
    "[ \"\$(stage_counts '$T_DIR/merged.json')\" = 500,1000,500 ] && grep -qE '^  +2 +1.00s +500 +1000.00 ' '$T_DIR/merged'"
"$PACER" report "$T_DIR/st.json" "$T_DIR/ramp.json" >"$T_DIR/mixed" 2>&1
ok report_refuses_other_stages "$(tail -1 "$T_DIR/mixed")" \
    "grep -q 'load shape (--stages) differs' '$T_DIR/mixed'"
finish
