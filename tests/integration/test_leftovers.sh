#!/usr/bin/env bash
# Nothing is left behind, whatever ends pacer, and a run that cannot write
# its result sends nothing: its result files' temporaries ("FILE.tmp-PID",
# or an unnamed O_TMPFILE) and a rank's scratch are gone after a script
# stopped in init() or its main chunk, SIGKILL mid-run, a rank 0 that aborts
# the MPI job; a run stopped by SIGINT still writes its (partial) JSON.
. "$(dirname "$0")/lib.sh"
start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
LOG="$NGX_DIR/access.log"
O="$T_DIR/out"
mkdir -p "$O" "$T_DIR/tmp"
export TMPDIR=$T_DIR/tmp
R="$T_DIR/report"
# What a run left in the output directory and TMPDIR (Open MPI's own
# session directory there is not pacer's).
left() { find "$O" "$TMPDIR" -name '*tmp-*' -o -name 'pacer-*' 2>/dev/null | tr '\n' ' '; }
clean() { rm -rf "${O:?}"/* "${TMPDIR:?}"/*; }
parses() { "$PY" -m json.tool "$1" >/dev/null 2>&1; }
# stop_after SECS SIG CMD...: run CMD in the background, send SIG after SECS,
# wait at most 10 s more; sets RC.
stop_after() {
    local t=$1 sig=$2 pid
    shift 2
    "$@" >"$R" 2>&1 &
    pid=$!
    sleep "$t"
    kill -"$sig" "$pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    wait "$pid"
    RC=$?
}

mkdir -p "$T_DIR/lua"
printf 'function init(args) local i = 0 while true do i = i + 1 end end\n' >"$T_DIR/lua/init.lua"
printf 'local i = 0\nwhile true do i = i + 1 end\n' >"$T_DIR/lua/chunk.lua"
printf 'function setup(t) local i = 0 while true do i = i + 1 end end\n' >"$T_DIR/lua/setup.lua"

# --- a script looping in init() (compiled: no hook reaches it), SIGINT -------
clean
stop_after 1 INT "$PACER" -t1 -c1 -d20s -s "$T_DIR/lua/init.lua" --json "$O/r.json" --html "$O/r.html" "$U"
ok init_loop_sigint_nothing_left "rc $RC, left: $(left)" "[ $RC -eq 130 ] && [ -z \"\$(left)\" ]"
# --- the script's main chunk and setup(), before any guard: SIGTERM ---------
for s in chunk setup; do
    clean
    stop_after 1 TERM "$PACER" -t1 -c1 -d20s -s "$T_DIR/lua/$s.lua" --json "$O/r.json" --csv "$O/r.csv" "$U"
    ok "${s}_loop_sigterm_nothing_left" "rc $RC, left: $(left)" "[ $RC -eq 143 ] && [ -z \"\$(left)\" ]"
done
# --- SIGKILL mid-run: no ending at all, and still no temporary --------------
clean
stop_after 1.5 KILL "$PACER" -t1 -c1 -R200 -d20s --json "$O/r.json" --hlog "$O/r.hlog" "$U"
ok sigkill_nothing_left "rc $RC, left: $(left)" "[ $RC -eq 137 ] && [ -z \"\$(left)\" ] && [ ! -e '$O/r.json' ]"
# --- SIGINT mid-run: the partial report and its JSON, which says so -----------
clean
stop_after 1.5 INT "$PACER" -t1 -c1 -R200 -d20s --json "$O/r.json" "$U"
ok sigint_partial_json "rc $RC, left: $(left), stopped_by $(json_get "$O/r.json" "d['stopped_by']" 2>&1)" \
    "[ $RC -eq 130 ] && [ -z \"\$(left)\" ] && parses '$O/r.json' && grep -q 'Stopped early by SIGINT' '$R' &&
     [ \"\$(json_get '$O/r.json' \"d['stopped_by']\")\" = SIGINT ]"

need_cmd mpirun openmpi-bin || finish
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export OMPI_MCA_btl_base_warn_component_unused=0
ROOT=()
[ "$(id -u)" = 0 ] && ROOT=(--allow-run-as-root)
MPI=(timeout -k 5 60 mpirun --oversubscribe "${ROOT[@]}")

# --- under mpirun every output is checked before any load is sent ------------
# As for a single process: the same one line, the same exit status, and
# nginx sees no request.
for out in "--json $T_DIR/nonexistent/r.json" "--html $T_DIR/nonexistent/r.html" "--hlog $O"; do
    name=$(echo "$out" | cut -c3-6)
    # shellcheck disable=SC2086
    "$PACER" -t1 -c2 -d2s $out "$U" >"$T_DIR/one.out" 2>"$T_DIR/one.err"
    one=$?
    : >"$LOG"
    # shellcheck disable=SC2086
    "${MPI[@]}" -np 2 "$PACER" -t1 -c2 -d2s $out "${U}?mpi-$name" >"$R" 2>"$T_DIR/mpi.err"
    rc=$?
    sleep 0.2
    ok "mpi_${name}_checked_first" "rc $rc (single $one), $(grep -c . "$LOG") requests, $(grep pacer: "$T_DIR/mpi.err" | head -3)" \
        "[ $rc -eq $one ] && [ $one -eq 1 ] && [ \$(grep -c . '$LOG') -eq 0 ] &&
         [ \"\$(grep pacer: '$T_DIR/mpi.err')\" = \"\$(cat '$T_DIR/one.err')\" ] && [ -z \"\$(left)\" ]"
done

# --- a rank stuck in init(): rank 0 aborts the job; nothing is left ---------
clean
printf 'function init(args)\n  os.execute("sleep 20")\nend\n' >"$T_DIR/lua/stuck.lua"
"${MPI[@]}" -np 1 "$PACER" -t1 -c2 -n 300 --connect-timeout 1s --json "$O/r.json" --csv "$O/r.csv" "$U" : \
    -np 1 "$PACER" -t1 -c2 -n 300 --connect-timeout 1s -s "$T_DIR/lua/stuck.lua" --json "$O/r.json" "$U" >"$R" 2>&1
rc=$?
ok mpi_abort_nothing_left "rc $rc, left: $(left), $(grep pacer: "$R" | head -2)" \
    "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'aborting the job' '$R' && [ -z \"\$(left)\" ]"
# --per-rank: every rank has files of its own open; the abort leaves none.
clean
"${MPI[@]}" -np 1 "$PACER" -t1 -c2 -n 300 --connect-timeout 1s --per-rank --json "$O/p.json" "$U" : \
    -np 1 "$PACER" -t1 -c2 -n 300 --connect-timeout 1s --per-rank -s "$T_DIR/lua/stuck.lua" --json "$O/p.json" "$U" >"$R" 2>&1
rc=$?
ok mpi_abort_per_rank_nothing_left "rc $rc, left: $(left)" "[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z \"\$(left)\" ]"

# --- SIGTERM to mpirun at any moment: nothing left (mpirun kills a rank 1 s
# after its SIGTERM: a report is written only when the ranks end by then) ----
for t in 0.3 1 2; do
    clean
    stop_after "$t" TERM "${MPI[@]}" -np 2 "$PACER" -t1 -c2 -R400 -d10s --json "$O/r.json" "$U"
    ok "mpi_sigterm_${t}s_nothing_left" "rc $RC, left: $(left)" \
        "[ -z \"\$(left)\" ] && { [ ! -e '$O/r.json' ] || parses '$O/r.json'; }"
done
finish
