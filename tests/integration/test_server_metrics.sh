#!/usr/bin/env bash
# The server's cost (--server-pid, --server-metrics; src/srvm/): what
# pacer reports of nginx's CPU agrees with /proc over the same window,
# read from /proc itself and through Debian's prometheus-process-exporter
# and prometheus-node-exporter (started here on loopback ports of their
# own); an exporter that is down, slow, serves garbage or an endless page
# leaves the figures missing with the reason and the run goes on; the
# bad arguments are usage errors; under mpirun rank 0 alone reads; the
# HTML page plots the server's CPU; compare and suite tabulate it. The
# checks bounded in time (the send lag with and without the sampler) and
# compare's 2x are in test_server_metrics_timing.sh, which runs alone.
. "$(dirname "$0")/lib.sh"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json"
TOOLS="$(cd "$(dirname "$0")/../tools" && pwd)"
D="$T_DIR/srv"; mkdir -p "$D"

need_cmd prometheus-node-exporter prometheus-node-exporter || finish
need_cmd prometheus-process-exporter prometheus-process-exporter || finish
start_nginx || { fail nginx_start "$(cat "$NGX_DIR/stdout" "$NGX_DIR/error.log" 2>/dev/null)"; finish; }

# --- bad arguments: the usage exit code, one line -----------------------------
for bad in "--server-pid 0" "--server-pid ./nginx" "--server-pid ''" \
    "--server-metrics ftp://127.0.0.1/metrics" "--server-metrics http://127.0.0.1:99999/" \
    "--server-metrics http:///metrics"; do
    eval "\"\$PACER\" -d 1s $bad http://127.0.0.1:$NGX_PORT/" >"$D/bad.out" 2>"$D/bad.err"
    rc=$?
    ok "bad_arg_usage ($bad)" "exit $rc: $(cat "$D/bad.err")" \
        "[ $rc -eq 2 ] && [ \$(wc -l <'$D/bad.err') -eq 1 ] && grep -q '^pacer: --server-' '$D/bad.err'"
done

start_nginx_exporters || finish
URL="http://127.0.0.1:$NGX_PORT/"

# agree NAME JSON BEFORE AFTER: the file's server.cpu_s within 10% of the
# /proc difference (over the whole pacer process; nginx is idle
# outside the run), and that difference large enough to tell.
agree() {
    local name=$1 f=$2 before=$3 after=$4 got want
    got=$(json_get "$f" "d['server']['cpu_s']" 2>/dev/null)
    want=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f\n", b - a }')
    echo "    $name: pacer ${got}s, /proc ${want}s"
    ok "$name" "pacer says ${got}s of CPU, /proc says ${want}s: $(grep -A3 '^  Server:' "$D/$name.out")" \
        "fcmp '$want' '>=' 0.2 && fcmp '$got' '>=' \$(awk 'BEGIN{print $want*0.9}') && fcmp '$got' '<=' \$(awk 'BEGIN{print $want*1.1}')"
}

# --- nginx's CPU from /proc (--server-pid: the master and its worker) -------
b=$(tree_cpu "$NGX_PID")
"$PACER" -t1 -c20 -d3s --server-pid "$NGX_PID" --json "$D/pid.json" "$URL" >"$D/cpu_pid.out" 2>"$D/pid.err"
rc=$?
a=$(tree_cpu "$NGX_PID")
ok pid_exit0 "exit $rc: $(cat "$D/pid.err")" "[ $rc -eq 0 ]"
agree cpu_pid "$D/pid.json" "$b" "$a"
ok pid_block "$(grep -A4 '^  Server:' "$D/cpu_pid.out")" \
    "grep -qE '^  Server: pid $NGX_PID and 1 descendant, sampled over [0-9.]+s\$' '$D/cpu_pid.out' &&
     grep -qE '^    CPU: [0-9.]+s, [0-9.]+% of one core, [0-9.]+s per 1,000 requests \\([0-9]+ requests per CPU-second\\)\$' '$D/cpu_pid.out' &&
     grep -qE '^    Peak RSS: [0-9.]+[KMG]B \\(VmHWM [0-9.]+[KMG]B: .*\\), threads 2, open fds [0-9]+\$' '$D/cpu_pid.out' &&
     grep -qE '^    Wire: [0-9]+ bytes per request \\(pacer.s count: [0-9]+ read, [0-9]+ written\\)\$' '$D/cpu_pid.out'"
ok pid_json_schema "$("$PY" -c "import json,jsonschema; jsonschema.validate(json.load(open('$D/pid.json')), json.load(open('$SCHEMA')))" 2>&1 | tail -1)" \
    "$PY -c \"import json,jsonschema; jsonschema.validate(json.load(open('$D/pid.json')), json.load(open('$SCHEMA')))\""
# Per interval: one entry per series interval, adding up to the total.
ok pid_intervals "$(json_get "$D/pid.json" "len(d['server']['intervals']), len(d['intervals']['series']), sum(i['cpu_s'] for i in d['server']['intervals']), d['server']['cpu_s']")" \
    "json_get '$D/pid.json' \"len(d['server']['intervals']) == len(d['intervals']['series']) >= 3 and abs(sum(i['cpu_s'] for i in d['server']['intervals']) - d['server']['cpu_s']) <= 0.05 + 0.1 * d['server']['cpu_s']\" | grep -qx True"
# pacer report reads it back, the same block.
"$PACER" report "$D/pid.json" >"$D/rep.out" 2>&1
ok report_reads_server "$(diff <(grep -A3 '^  Server:' "$D/cpu_pid.out") <(grep -A3 '^  Server:' "$D/rep.out"))" \
    "diff <(grep -A3 '^  Server:' '$D/cpu_pid.out') <(grep -A3 '^  Server:' '$D/rep.out') >/dev/null"

# The other layouts: the same block, each line prefixed "pacer: ".
"$PACER" --format h2load -t1 -c4 -d1s --server-pid "$NGX_PID" "$URL" >"$D/h2l.out" 2>&1
ok h2load_layout_block "$(tail -5 "$D/h2l.out")" \
    "grep -qE '^pacer: Server: pid $NGX_PID and 1 descendant, sampled over [0-9.]+s\$' '$D/h2l.out' &&
     grep -qE '^pacer:   CPU: [0-9.]+s, [0-9.]+% of one core' '$D/h2l.out'"

# --- the same through the exporters -----------------------------------------
b=$(tree_cpu "$NGX_PID")
"$PACER" -t1 -c20 -d3s --server-metrics "$PE_URL" --server-metrics "$NE_URL" --json "$D/pe.json" "$URL" \
    >"$D/cpu_exporter.out" 2>"$D/pe.err"
rc=$?
a=$(tree_cpu "$NGX_PID")
ok exporter_exit0 "exit $rc: $(cat "$D/pe.err")" "[ $rc -eq 0 ]"
agree cpu_exporter "$D/pe.json" "$b" "$a"
ok exporter_block "$(grep -A4 '^  Server:' "$D/cpu_exporter.out")" \
    "grep -qE '^  Server: $PE_URL \\(testnginx\\), sampled over [0-9.]+s\$' '$D/cpu_exporter.out' &&
     grep -qE '^    Host \\($NE_URL, [0-9]+ CPUs\\): [0-9.]+% busy, network [0-9]+ bytes per request .*context switches/s, memory used [0-9.]+[KMG]B at most\$' '$D/cpu_exporter.out'"
# The host's network bytes count loopback in and out: at least what pacer
# itself moved, twice.
ok exporter_host_net "$(json_get "$D/pe.json" "d['server']['host'], d['bytes']")" \
    "json_get '$D/pe.json' \"d['server']['host']['net_rx_bytes'] + d['server']['host']['net_tx_bytes'] >= 2 * (d['bytes']['read'] + d['bytes']['written'])\" | grep -qx True"

# --- exporters that fail: the run goes on, the figures say why ---------------
"$PACER" -t1 -c4 -d1s --server-metrics "http://127.0.0.1:$(pick_port)/metrics" --json "$D/down.json" "$URL" \
    >"$D/down.out" 2>&1
rc=$?
ok down_runs_on "exit $rc: $(tail -3 "$D/down.out")" "[ $rc -eq 0 ] && [ \"\$(completed '$D/down.out')\" -gt 0 ]"
ok down_says_why "$(grep -A2 '^  Server:' "$D/down.out")" \
    "grep -qE '^    CPU: not measured \\(http://127.0.0.1:[0-9]+/metrics: connection refused\\)\$' '$D/down.out' &&
     json_get '$D/down.json' \"d['server']['cpu_s'] is None and 'connection refused' in d['server']['cpu_missing']\" | grep -qx True"

bad_run() { # MODE: a run against bad_exporter.py MODE, into $D/MODE.out/.json
    local line port
    "$PY" "$TOOLS/bad_exporter.py" "$1" 30 >"$D/bad_$1.port" 2>&1 &
    T_PIDS+=("$!")
    for _ in $(seq 1 100); do
        line=$(head -n1 "$D/bad_$1.port")
        [ -n "$line" ] && break
        sleep 0.05
    done
    port=${line##*:}
    t0=$(date +%s%N)
    timeout 20 "$PACER" -t1 -c4 -d2s --interval 300ms --server-metrics "http://127.0.0.1:$port/metrics" \
        --json "$D/$1.json" "$URL" >"$D/$1.out" 2>&1
    rc=$?
    el=$((($(date +%s%N) - t0) / 1000000))
}
# slow: each reading gives up after a third of the interval (100 ms), so
# the 2 s run does not wait out the exporter's 30 s (the bound leaves room
# for a loaded machine).
bad_run slow
ok slow_runs_on "exit $rc after ${el}ms: $(tail -3 "$D/slow.out")" "[ $rc -eq 0 ] && [ $el -lt 6000 ]"
ok slow_says_why "$(grep -A2 '^  Server:' "$D/slow.out")" \
    "grep -qE '^    CPU: not measured \\(http://127.0.0.1:[0-9]+/metrics: no answer within 100 ms\\)\$' '$D/slow.out'"
bad_run garbage
ok garbage_says_why "exit $rc: $(grep -A2 '^  Server:' "$D/garbage.out")" \
    "[ $rc -eq 0 ] && grep -qE '^    CPU: not measured \\(http://127.0.0.1:[0-9]+/metrics: not a metrics page: line 2: .+\\)\$' '$D/garbage.out'"
bad_run huge
ok huge_says_why "exit $rc: $(grep -A2 '^  Server:' "$D/huge.out")" \
    "[ $rc -eq 0 ] && grep -qE '^    CPU: not measured \\(http://127.0.0.1:[0-9]+/metrics: (page over 8 MiB|no whole page within 100 ms)\\)\$' '$D/huge.out'"
bad_run 404
ok http404_says_why "exit $rc: $(grep -A2 '^  Server:' "$D/404.out")" \
    "[ $rc -eq 0 ] && grep -qE '^    CPU: not measured \\(http://127.0.0.1:[0-9]+/metrics: HTTP 404\\)\$' '$D/404.out'"

# --- a process gone: --server-pid of one that exited ------------------------
gone=$(sh -c 'echo $$') # a process that has exited
"$PACER" -t1 -c4 -d1s --server-pid "$gone" "$URL" >"$D/gone.out" 2>&1
rc=$?
ok pid_gone_says_why "exit $rc: $(grep -A2 '^  Server:' "$D/gone.out")" \
    "[ $rc -eq 0 ] && grep -qE '^    CPU: not measured \\(pid $gone: no such process\\)\$' '$D/gone.out'"

# --- under mpirun: rank 0 alone reads (start + one per interval + end; the
# run's last, short interval may share the reading before it) -------------
if need_cmd mpirun openmpi-bin; then
    "$PY" "$TOOLS/bad_exporter.py" count 60 >"$D/count.log" 2>&1 &
    T_PIDS+=("$!")
    for _ in $(seq 1 100); do grep -q listening "$D/count.log" && break; sleep 0.05; done
    cport=$(head -n1 "$D/count.log"); cport=${cport##*:}
    ROOT=()
    [ "$(id -u)" = 0 ] && ROOT=(--allow-run-as-root)
    export OMPI_MCA_btl_base_warn_component_unused=0 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    TMPDIR=$T_DIR timeout -k 5 90 mpirun --oversubscribe "${ROOT[@]}" -np 3 "$PACER" -t1 -c3 -d2s \
        --server-metrics "http://127.0.0.1:$cport/metrics" --json "$D/mpi.json" "$URL" >"$D/mpi.out" 2>&1
    rc=$?
    hits=$(grep -c '^hit' "$D/count.log")
    niv=$(json_get "$D/mpi.json" "len(d['intervals']['series'])" 2>/dev/null)
    ok mpi_rank0_reads_once "exit $rc, $hits readings for ${niv} intervals: $(grep -A2 '^  Server:' "$D/mpi.out")" \
        "[ $rc -eq 0 ] && [ \$(grep -c '^  Server:' '$D/mpi.out') -eq 1 ] && [ '$hits' -ge 3 ] && [ '$hits' -le \$(( ${niv:-0} + 2 )) ] &&
         json_get '$D/mpi.json' \"d['server']['cpu_s'] == 0.5 * (\$hits - 1) and d['server']['source'].endswith('(fake)')\" | grep -qx True"
fi

# --- the HTML page: the server's CPU beside the latency -----------------------
"$PACER" -t1 -c4 -d2s --server-pid "$NGX_PID" --server-metrics "$NE_URL" --html "$D/run.html" "$URL" \
    >"$D/html.out" 2>&1
if need_cmd chromium chromium; then
    bash "$TOOLS/html_check.sh" "$D/run.html" "$D/html" >"$D/html.check" 2>&1
    ok html_server_chart "$(cat "$D/html.check")" \
        "grep -qP '^chart\tServer CPU over time\tseries=2\$' '$D/html.check' &&
         grep -B1 -P '^chart\tServer CPU over time' '$D/html.check' | head -1 | grep -qP '^chart\tLatency over time'"
fi

# --- suite: the server's columns, with the ratio to the profile's first ------
cat >"$D/suite.txt" <<SUITE
profile closed -t1 -c4 -d1s --server-pid $NGX_PID
target a $URL
target b $URL
SUITE
"$PACER" suite --json "$D/suite.json" "$D/suite.txt" >"$D/suite.out" 2>"$D/suite.err"
rc=$?
ok suite_server_columns "exit $rc: $(tail -4 "$D/suite.out")" \
    "[ $rc -eq 0 ] && grep -qE '^target +profile +duration +req/s +MB/s +failures +p99\\(ms\\) +SLO +req/server-CPU-s +server RSS\\(MB\\)\$' '$D/suite.out' &&
     grep -qE '^a +closed .* [0-9]+ +[0-9.]+\$' '$D/suite.out' && grep -qE '^b +closed .* [0-9]+ \\([0-9.]+x\\) +[0-9.]+ \\(1\\.00x\\)\$' '$D/suite.out' &&
     json_get '$D/suite.json' \"all(r['result']['server']['requests_per_cpu_s'] > 0 for r in d['runs'])\" | grep -qx True"
finish
