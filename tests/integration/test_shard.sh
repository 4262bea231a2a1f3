#!/usr/bin/env bash
# --shard I/N and --start-at without MPI: three processes, each one share of
# one run, started together, their --json files merged by `pacer report`;
# nginx's access log counts what the server saw (docs/distributed.md).
. "$(dirname "$0")/lib.sh"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
LOG="$NGX_DIR/access.log"
R="$T_DIR/report"

# all3 TAG EXPR: EXPR (python, d the document) holds in TAG.0/1/2.json.
all3() {
    local i
    for i in 0 1 2; do
        [ "$(json_get "$T_DIR/$1.$i.json" "bool($2)" 2>/dev/null)" = True ] || return 1
    done
}
# lines NEEDLE: access-log lines holding NEEDLE.
lines() { grep -c -- "$1" "$LOG"; }
# run3 TAG ARGS...: shards 0/3 1/3 2/3 of one run (all three started at
# once, the schedule's zero 2 s ahead), each --json $T_DIR/TAG.I.json;
# waits at most 60 s for them.
run3() {
    local tag=$1 at pids=() i; shift
    at=$(($(date +%s) + 2))
    for i in 0 1 2; do
        timeout 60 "$PACER" --shard "$i/3" --start-at "$at" --quiet --json "$T_DIR/$tag.$i.json" "$@" \
            >"$T_DIR/$tag.$i.txt" 2>&1 &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i"; done
    echo "$at"
}

# --- -n and -c split exactly; the merge says what nginx saw -------------------
: >"$LOG"
at=$(run3 n -t1 -c6 -n3000 "${U}?shard-n")
"$PACER" report --json "$T_DIR/n.json" "$T_DIR"/n.{0,1,2}.json >"$R" 2>&1
sleep 0.3
ok shard_n_access_log "$(lines shard-n) lines in nginx's log" "[ \$(lines shard-n) -eq 3000 ]"
ok shard_n_merged_report "$(grep -E 'Outcomes|connections' "$R")" \
    "grep -qE '^  Outcomes: 3000 scheduled = 3000 completed' '$R' && grep -q '3 threads and 6 connections' '$R'"
ok shard_n_shares "$(for i in 0 1 2; do json_get "$T_DIR/n.$i.json" "d['requests']['scheduled'], d['config']['connections'], d['config']['shard']"; done)" \
    "[ \"\$(for i in 0 1 2; do json_get '$T_DIR/n.'\$i'.json' \"d['requests']['scheduled'] + 10000 * d['config']['connections']\"; done | sort -u)\" = 21000 ]"
# Every shard's schedule starts at the --start-at instant, to the ns.
ok shard_start_at_zero "$(for i in 0 1 2; do json_get "$T_DIR/n.$i.json" "d['start_epoch_s'], d['start_late_us']" 2>&1; done)" \
    "all3 n 'd[\"start_epoch_s\"] == $at and 0 <= d[\"start_late_us\"] < 20000'"

# --- -R over three shards: one schedule at the total rate ----------------------
: >"$LOG"
run3 r -t2 -c12 -R900 -d3s "${U}?shard-r" >/dev/null
"$PACER" report --json "$T_DIR/r.json" "$T_DIR"/r.{0,1,2}.json >"$R" 2>&1
sleep 0.3
ok shard_rate_scheduled "$(grep Outcomes "$R")" "grep -qE '^  Outcomes: 2700 scheduled = 2700 completed' '$R'"
ok shard_rate_access_log "$(lines shard-r) lines" "[ \$(lines shard-r) -eq 2700 ]"
ok shard_rate_shares "$(for i in 0 1 2; do json_get "$T_DIR/r.$i.json" "d['requests']['scheduled'], d['config']['rate']"; done)" \
    "[ \"\$(for i in 0 1 2; do json_get '$T_DIR/r.'\$i'.json' \"d['requests']['scheduled'], int(d['config']['rate'])\"; done | sort -u)\" = '900 300' ]"

# --- --urls: one round robin over the whole run ---------------------------------
: >"$LOG"
printf '%s\n' "${U}?u0" "${U}?u1" "${U}?u2" >"$T_DIR/urls"
run3 u -t2 -c12 -n3000 --urls "$T_DIR/urls" >/dev/null
sleep 0.3
ok shard_urls_round_robin "u0 $(lines '?u0 ') u1 $(lines '?u1 ') u2 $(lines '?u2 ')" \
    "[ \$(lines '?u0 ') -eq 1000 ] && [ \$(lines '?u1 ') -eq 1000 ] && [ \$(lines '?u2 ') -eq 1000 ]"

# --- deploy/kubernetes/: its shard and merge commands, run here ------------------
# The manifest is what is tested: its own sed for the start instant, each
# completion index's command line as written (pacer from PATH: this one;
# the target: nginx; the shared volume: a directory; the load scaled down
# from 5 min at 40k req/s), all indexes at once, then the merge Job's line.
need_cmd /usr/bin/python3 python3 && "$PY" -c 'import yaml' 2>/dev/null ||
    fail need_python3_yaml "python3's yaml is missing: install the Debian package python3-yaml (scripts/deps.sh does)"
K8S="$(dirname "$0")/../../deploy/kubernetes/pacer-indexed-job.yaml"
KJ="$(dirname "$0")/../tools/kjob.py"
KD="$T_DIR/k8s" && mkdir -p "$KD/bin" "$KD/results"
ln -sf "$PACER" "$KD/bin/pacer"
cp "$K8S" "$KD/job.yaml"
# The manifest's step 1, its own sed line, on the copy (90 s ahead -> 3 s).
sedline=$(grep -oE 'sed -i "[^"]*"' "$K8S" | head -n1 | sed -e 's/^sed -i //' -e 's/+ 90/+ 3/')
eval "sed -i $sedline '$KD/job.yaml'"
read -r n par claim mnt < <("$PY" "$KJ" "$KD/job.yaml" pacer-shards info)
read -r _ _ mclaim mmnt < <("$PY" "$KJ" "$KD/job.yaml" pacer-merge info)
: >"$LOG"
kpids=()
for ((i = 0; i < ${n:-0}; i++)); do
    (
        export JOB_COMPLETION_INDEX=$i PATH="$KD/bin:$PATH"
        while IFS= read -r kv; do export "${kv?}"; done < <("$PY" "$KJ" "$KD/job.yaml" pacer-shards env)
        mapfile -d '' -t cmd < <("$PY" "$KJ" "$KD/job.yaml" pacer-shards argv \
            --sub "-t4 -c400 -R40k -d5m=-t1 -c8 -R800 -d2s" --sub "https://target.example/=${U}?k8s" \
            --sub "$mnt/=$KD/results/")
        exec timeout 60 "${cmd[@]}"
    ) >"$KD/shard.$i.out" 2>&1 &
    kpids+=($!)
done
krc=0
for p in "${kpids[@]}"; do wait "$p" || krc=$?; done
sleep 0.3
mapfile -d '' -t mcmd < <("$PY" "$KJ" "$KD/job.yaml" pacer-merge argv --sub "$mmnt/=$KD/results/")
PATH="$KD/bin:$PATH" timeout 60 "${mcmd[@]}" >"$R" 2>&1; mrc=$?
ok k8s_manifest_coherent "$n completions, $par parallel, claims $claim/$mclaim; sed: $sedline; $(grep -c 'start-at: "[0-9]*"' "$KD/job.yaml") start instants" \
    "[ '${n:-0}' -ge 2 ] && [ '$n' = '$par' ] && [ '$claim' = '$mclaim' ] && [ \$(grep -cE 'start-at: \"[0-9]+\"' '$KD/job.yaml') -eq 2 ] &&
     grep -q -- '--shard \"\$JOB_COMPLETION_INDEX/$n\"' '$KD/job.yaml'"
ok k8s_shards_ran "rc $krc: $(ls "$KD/results" | tr '\n' ' ') $(cat "$KD"/shard.*.out | head -3)" \
    "[ $krc -eq 0 ] && [ \$(ls '$KD/results' | grep -cE '^run\\.[0-9]+\\.json\$') -eq $n ]"
ok k8s_merge_totals "merge rc $mrc, $(lines '?k8s ') lines: $(grep -E 'Outcomes|pacer:' "$R" | head -3)" \
    "[ $mrc -eq 0 ] || [ $mrc -eq 5 ]; [ \$? -eq 0 ] && grep -qE '^  Outcomes: 1600 scheduled = 1600 completed' '$R' &&
     [ \$(lines '?k8s ') -eq 1600 ] && [ -s '$KD/results/run.json' ] && [ -s '$KD/results/run.html' ] &&
     [ \"\$(json_get '$KD/results/run.json' \"d['config']['rate'] == 800 and d['config']['threads'] == $n\")\" = True ]"

# --- refusals ----------------------------------------------------------------
"$PACER" --shard 3/3 "$U" >"$R" 2>&1; rc=$?
ok shard_one_based_refused "rc $rc: $(cat "$R")" "[ $rc -eq 2 ] && grep -q 'counts from 0' '$R' && grep -q '2/3' '$R'"
"$PACER" --shard 0/3 -t2 -c4 "$U" >"$R" 2>&1; rc=$?
ok shard_too_few_connections "rc $rc: $(cat "$R")" "[ $rc -eq 2 ] && grep -q 'at least 6' '$R'"
"$PACER" --start-at "$(($(date +%s) - 60))" --connect-timeout 5s "$U" >"$R" 2>&1; rc=$?
ok start_at_past_refused "rc $rc: $(cat "$R")" "[ $rc -eq 2 ] && grep -q 'in the past' '$R'"
"$PACER" --start-at 2026-13-01T00:00:00Z "$U" >"$R" 2>&1; rc=$?
ok start_at_invalid "rc $rc: $(cat "$R")" "[ $rc -eq 2 ] && grep -q 'invalid --start-at' '$R'"
# An ISO instant 1.5 s ahead: nothing is sent before it.
at=$(date -u -d '+2 sec' +%Y-%m-%dT%H:%M:%SZ)
t0=$(date +%s.%N)
"$PACER" --start-at "$at" -t1 -c1 -n10 --json "$T_DIR/iso.json" "$U" >"$R" 2>&1
ok start_at_iso_waits "$(json_get "$T_DIR/iso.json" "d['start_time']") for $at" \
    "[ \"\$(json_get '$T_DIR/iso.json' 'd[\"start_time\"]')\" = '$at' ] && fcmp \$(date +%s.%N) '>=' \$(date -d '$at' +%s)"
finish
