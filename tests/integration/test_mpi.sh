#!/usr/bin/env bash
# pacer under mpirun (Open MPI, loopback): one run split over the ranks,
# started together, merged on rank 0 into one report; nginx's access log
# counts what the server saw (docs/distributed.md). The checks bounded
# tightly in time or rate (-R over the ranks, their start within 1 ms, a
# stall's p99) are in test_mpi_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
need_cmd mpirun openmpi-bin || finish
# Open MPI keeps allocations to the end of the process (its own and its
# plugins', none of pacer's: checked with full stacks), which LeakSanitizer
# reports under SAN=1; the ranks' address and UB checks stay on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
LOG="$NGX_DIR/access.log"
R="$T_DIR/report"
# Every mpirun is bounded: 90 s at most.
ROOT=()
[ "$(id -u)" = 0 ] && ROOT=(--allow-run-as-root)
MPI=(timeout -k 5 90 mpirun --oversubscribe "${ROOT[@]}" -np 3)
export OMPI_MCA_btl_base_warn_component_unused=0
# The ranks' own JSON goes to $TMPDIR; a killed job leaves it there: in T_DIR.
export TMPDIR=$T_DIR
lines() { grep -c -- "$1" "$LOG"; }

# --- -n and -c split exactly over the ranks; one report -------------------------
: >"$LOG"
"${MPI[@]}" "$PACER" -t1 -c6 -n 3000 "${U}?mpi-n" >"$R" 2>&1; rc=$?
sleep 0.3
ok mpi_n_exit "rc $rc: $(tail -5 "$R")" "[ $rc -eq 0 ]"
ok mpi_n_access_log "$(lines mpi-n) lines in nginx's log" "[ \$(lines mpi-n) -eq 3000 ]"
ok mpi_n_one_report "$(grep -E 'Outcomes|threads and' "$R")" \
    "[ \$(grep -c '^  Outcomes:' '$R') -eq 1 ] && grep -qE '^  Outcomes: 3000 scheduled = 3000 completed' '$R' &&
     grep -q '  3 threads and 6 connections' '$R' && grep -q '3 MPI ranks' '$R'"

# --slo is judged once, on the merged figures, and decides mpirun's exit status;
# ab's -g (a row per request: every rank's records) and -e (percentiles of the
# merged histogram) come from rank 0 alone, as one machine's.
"${MPI[@]}" "$PACER" -t1 -c6 -n 600 --format ab --slo 'p99<=1us' -g "$T_DIR/g.tsv" -e "$T_DIR/e.csv" \
    "${U}?mpi-slo" >"$R" 2>&1; rc=$?
ok mpi_slo_exit_5 "rc $rc: $(grep -E 'pacer:|FAIL|Complete requests' "$R")" \
    "[ $rc -eq 5 ] && [ \$(grep -c '^  FAIL  p99<=1us' '$R') -eq 1 ] && grep -qE '^Complete requests: +600\$' '$R'"
# 600 rows after the header, their epoch seconds within the run (one time base).
ok mpi_ab_gnuplot_merged "$(wc -l <"$T_DIR/g.tsv" 2>&1) lines, seconds $(awk -F'\t' 'NR > 1 { print $2 }' "$T_DIR/g.tsv" 2>/dev/null | sort -u | tr '\n' ' ')" \
    "[ \$(wc -l <'$T_DIR/g.tsv') -eq 601 ] && awk -F'\\t' -v now=\$(date +%s) 'NR > 1 && (\$2 < now - 60 || \$2 > now) { bad = 1 } END { exit bad }' '$T_DIR/g.tsv'"
ok mpi_ab_percentiles_merged "$(head -2 "$T_DIR/e.csv" 2>&1; tail -1 "$T_DIR/e.csv" 2>&1)" \
    "[ \$(wc -l <'$T_DIR/e.csv') -eq 102 ] && grep -q '^Percentage served,Time in ms\$' '$T_DIR/e.csv' && grep -qE '^100,[0-9.]+\$' '$T_DIR/e.csv'"

# hey's -o csv: a row per request, every rank's, offsets on one time base.
# The gather to rank 0 in rounds of 1000 bytes (PACER_MPI_ROUND), as one
# over MPI's 2 GiB of int counts goes: the records and the result texts
# must come out whole and in place.
"${MPI[@]}" -x PACER_MPI_ROUND=1000 "$PACER" hey -c 6 -n 300 -o csv "${U}?mpi-hey" >"$T_DIR/hey.csv" 2>"$R"; rc=$?
ok mpi_hey_csv_merged "rc $rc: $(wc -l <"$T_DIR/hey.csv") lines, offsets $(awk -F, 'NR > 1 { print $8 }' "$T_DIR/hey.csv" | sort -n | sed -n '1p;$p' | tr '\n' ' ')$(grep pacer: "$R" | head -2)" \
    "[ $rc -eq 0 ] && [ \$(grep -cE '^[0-9.]+,[0-9.]+,0\\.0000,[0-9.]+,[0-9.]+,[0-9.]+,200,[0-9.]+\$' '$T_DIR/hey.csv') -eq 300 ] &&
     [ \$(wc -l <'$T_DIR/hey.csv') -eq 301 ] &&
     awk -F, 'NR > 1 && (\$8 < 0 || \$8 > 10) { bad = 1 } END { exit bad }' '$T_DIR/hey.csv'"

# --- the same run by hand: --shard and --start-at, merged by pacer report ----------
: >"$LOG"
at=$(($(date +%s) + 2)) pids=()
for i in 0 1 2; do
    timeout 60 "$PACER" --shard "$i/3" --start-at "$at" -t1 -c6 -n 3000 --quiet --json "$T_DIR/s.$i.json" "${U}?mpi-s" >/dev/null 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$PACER" report "$T_DIR"/s.{0,1,2}.json >"$T_DIR/s.report" 2>&1
ok mpi_same_as_shards "$(grep Outcomes "$T_DIR/s.report")" \
    "grep -qE '^  Outcomes: 3000 scheduled = 3000 completed' '$T_DIR/s.report' && [ \$(lines mpi-s) -eq 3000 ]"

# --- one rank aimed at a dead port: every rank stops, rank 0 names it ---------------
dead=$(pick_port)
start=$SECONDS
timeout -k 5 60 mpirun --oversubscribe "${ROOT[@]}" -np 2 "$PACER" -t1 -c3 -n 300 --connect-timeout 2s "${U}?mpi-dead" : \
    -np 1 "$PACER" -t1 -c3 -n 300 --connect-timeout 2s "http://127.0.0.1:$dead/" >"$R" 2>&1; rc=$?
ok mpi_dead_rank_named "rc $rc after $((SECONDS - start))s: $(grep pacer: "$R" | head -3)" \
    "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'rank 2 of 3 .*opened none of its 1 connections.*refused' '$R' && ! grep -q Outcomes '$R'"
ok mpi_dead_rank_nothing_sent "$(lines mpi-dead) lines" "[ \$(lines mpi-dead) -eq 0 ]"

# --- a rank stuck before the start (a script's init() that does not return):
# the others give up on it after --connect-timeout + 10 s, and the job ends.
printf 'function init(args)\n  os.execute("sleep 20")\nend\n' >"$T_DIR/stuck.lua"
start=$SECONDS
timeout -k 5 60 mpirun --oversubscribe "${ROOT[@]}" -np 2 "$PACER" -t1 -c3 -n 300 --connect-timeout 1s "${U}?mpi-stuck" : \
    -np 1 "$PACER" -t1 -c3 -n 300 --connect-timeout 1s -s "$T_DIR/stuck.lua" "${U}?mpi-stuck" >"$R" 2>&1; rc=$?
took=$((SECONDS - start))
ok mpi_stuck_rank_aborts "rc $rc after ${took}s: $(grep pacer: "$R" | head -2)" \
    "[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -lt 30 ] && grep -q 'not every rank came to the exchange' '$R'"
ok mpi_stuck_rank_nothing_sent "$(lines mpi-stuck) lines" "[ \$(lines mpi-stuck) -eq 0 ]"

# --- a rank killed during the run: the job ends, not hangs ---------------------------
"${MPI[@]}" "$PACER" -t1 -c3 -R300 -d20s "${U}?mpi-kill" >"$R" 2>&1 &
mp=$!
victim=""
for _ in $(seq 1 50); do
    # timeout's child is mpirun, whose children are the ranks.
    mr=$(pgrep -P "$mp" | head -n1)
    victim=$([ -n "$mr" ] && pgrep -P "$mr" -x pacer | tail -n1)
    [ -n "$victim" ] && break
    sleep 0.1
done
sleep 1.5
start=$SECONDS
[ -n "$victim" ] && kill -9 "$victim"
wait "$mp"; rc=$?
ok mpi_killed_rank_ends_job "rc $rc after $((SECONDS - start))s (victim ${victim:-none}): $(tail -4 "$R")" \
    "[ -n '$victim' ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $((SECONDS - start)) -lt 15 ] && grep -qi 'signal 9\\|killed' '$R'"

# --- pacer compare, suite and capacity: each run is one distributed run ---------
# Rank 0 runs in A, ranks 1 and 2 in B (as if on other hosts): the workflow's
# files are rank 0's alone, in A; with --per-rank each rank's own beside them.
mkdir -p "$T_DIR/A" "$T_DIR/B"
# split ARGS...: pacer ARGS on 3 ranks, rank 0 in A and the others in B.
split() {
    timeout -k 5 90 mpirun --oversubscribe "${ROOT[@]}" -np 1 -wdir "$T_DIR/A" "$PACER" "$@" : \
        -np 2 -wdir "$T_DIR/B" "$PACER" "$@"
}
: >"$LOG"
split compare -t1 -c6 -n 600 --rounds 2 --per-rank --json cmp.json "${U}?cmp-a" "${U}?cmp-b" >"$R" 2>&1; rc=$?
sleep 0.3
ok mpi_compare "rc $rc, a $(lines 'cmp-a ') b $(lines 'cmp-b '): $(grep -E '^Requests ' "$R")" \
    "[ $rc -eq 0 ] && [ \$(lines 'cmp-a ') -eq 1200 ] && [ \$(lines 'cmp-b ') -eq 1200 ] &&
     [ \$(grep -cE '^Requests +1200 +1200 \\(1\\.00x\\)\$' '$R') -eq 1 ] && [ \$(grep -c 'round 2/2 B:' '$R') -eq 1 ] &&
     grep -q '3 threads, 6 connections' '$R'"
# requests of target A in a compare JSON: the sum over its rounds' result.
creq() { json_get "$1" "d['targets'][0]['result']['requests']['completed']" 2>/dev/null; }
ok mpi_compare_files_rank0 "A: $(ls "$T_DIR/A" | tr '\n' ' ') B: $(ls "$T_DIR/B" | tr '\n' ' ')" \
    "[ \"\$(creq '$T_DIR/A/cmp.json')\" = 1200 ] && [ ! -e '$T_DIR/B/cmp.json' ]"
ok mpi_compare_per_rank_files "$(for f in A/cmp.rank-0 B/cmp.rank-1 B/cmp.rank-2; do echo "$f: $(creq "$T_DIR/$f.json")"; done)" \
    "[ \$((\$(creq '$T_DIR/A/cmp.rank-0.json') + \$(creq '$T_DIR/B/cmp.rank-1.json') + \$(creq '$T_DIR/B/cmp.rank-2.json'))) -eq 1200 ] &&
     [ \"\$(json_get '$T_DIR/B/cmp.rank-1.json' \"[d['targets'][0]['result']['config'][k] for k in ('connections', 'threads', 'request_count')]\")\" = '[2, 1, 200]' ]"
printf 'target a %s\ntarget b %s\nprofile n -t1 -c6 -n 300\nprofile r -t1 -c6 -R600 -d1s\n' \
    "${U}?suite-a" "${U}?suite-b" >"$T_DIR/suite.txt"
: >"$LOG"
split suite --json suite.json "$T_DIR/suite.txt" >"$R" 2>&1; rc=$?
sleep 0.3
ok mpi_suite "rc $rc, a $(lines 'suite-a ') b $(lines 'suite-b '): $(grep -E '^(a|b) ' "$R" | tr '\n' ' ')" \
    "[ $rc -eq 0 ] && [ \$(lines 'suite-a ') -eq 900 ] && [ \$(lines 'suite-b ') -eq 900 ] &&
     [ \$(grep -cE '^(a|b) +r +1\\.00s +600\\.00 ' '$R') -eq 2 ] && [ \$(grep -c '^target  profile' '$R') -eq 1 ]"
ok mpi_suite_files_rank0 "A: $(ls "$T_DIR/A" | tr '\n' ' ') B: $(ls "$T_DIR/B" | tr '\n' ' ')" \
    "[ -s '$T_DIR/A/suite.json' ] && [ ! -e '$T_DIR/B/suite.json' ]"
# capacity: rank 0 decides each step (x2 from 1000 to --max-rate 2000) and
# the answer; the others run their share of each step it orders.
: >"$LOG"
split capacity --slo 'p99<=1s' -t1 -c6 -d1s --start-rate 1000 --max-rate 2000 --pause 0 --json cap.json \
    "${U}?mpi-cap" >"$R" 2>&1; rc=$?
sleep 0.3
capsum() { json_get "$T_DIR/A/cap.json" "sum(s['result']['requests']['${1:-completed}'] for s in d['steps'])" 2>/dev/null; }
ok mpi_capacity "rc $rc, $(lines mpi-cap) lines, steps $(capsum) completed of $(capsum scheduled): $(grep -E '^ +[0-9]+ +[0-9.]+ |^Capacity|pacer:' "$R" | head -4)" \
    "[ $rc -eq 0 ] && [ \$(grep -c '^Capacity:' '$R') -eq 1 ] && grep -q '^Capacity: sustains at least 2000.00 req/s' '$R' &&
     [ \$(grep -cE '^ +[12] +[12]000\\.00 ' '$R') -eq 2 ] && grep -q '3 threads, 6 connections' '$R' &&
     [ \"\$(capsum)\" = \$(lines mpi-cap) ] && [ \"\$(capsum scheduled)\" = 3000 ]"
ok mpi_capacity_files_rank0 "A: $(ls "$T_DIR/A" | tr '\n' ' ') B: $(ls "$T_DIR/B" | tr '\n' ' ')" \
    "[ -s '$T_DIR/A/cap.json' ] && [ ! -e '$T_DIR/B/cap.json' ] &&
     [ \"\$(json_get '$T_DIR/A/cap.json' \"[s['result']['config']['threads'] for s in d['steps']]\")\" = '[3, 3]' ]"

# --- what is refused -----------------------------------------------------------------
PACER_LIBMPI=/nonexistent/libmpi.so "${MPI[@]}" "$PACER" -n 10 "$U" >"$R" 2>&1; rc=$?
ok mpi_cannot_load "rc $rc: $(grep pacer: "$R" | head -2)" "[ $rc -eq 2 ] && grep -q 'Open MPI cannot be loaded' '$R'"
"${MPI[@]}" "$PACER" --shard 0/3 -n 30 "$U" >"$R" 2>&1; rc=$?
ok mpi_shard_refused "rc $rc: $(grep pacer: "$R" | head -2)" "[ $rc -ne 0 ] && grep -q \"mpirun's to give\" '$R'"
"$PACER" --per-rank -n 10 "$U" >"$R" 2>&1; rc=$?
ok per_rank_needs_mpirun "rc $rc: $(cat "$R")" "[ $rc -eq 2 ] && grep -q 'started by mpirun' '$R'"
"${MPI[@]}" "$PACER" capacity --per-rank --slo 'p99<=1s' -d1s "$U" >"$R" 2>&1; rc=$?
ok mpi_capacity_per_rank_refused "rc $rc: $(grep pacer: "$R" | head -2)" "[ $rc -ne 0 ] && grep -q 'per-rank is for a run, pacer compare or pacer suite' '$R'"

# --- a plain run never loads libmpi ------------------------------------------------
"$PACER" -t1 -c1 -d2s "$U" >/dev/null 2>&1 &
pp=$!
sleep 1
maps=$(grep -c libmpi "/proc/$pp/maps" 2>/dev/null)
wait "$pp"
ok plain_run_no_libmpi "$maps libmpi mappings" "[ '${maps:-x}' = 0 ]"
finish
