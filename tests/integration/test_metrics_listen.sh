#!/usr/bin/env bash
# test_metrics_listen.sh - --metrics-listen: pacer's own figures, live,
# scraped by a real Prometheus (Debian's prometheus, started here on
# loopback with its own config and storage in a temporary directory,
# scraping every second) during a 10 s run against `pacer serve`:
#
#   - the page is OpenMetrics (its Content-Type, "# EOF"), pacer's own
#     parser (promtext, openmetrics) reads it, every sample has run_id;
#   - Prometheus's query API gives, for the run's run_id, request and
#     response totals equal to the JSON result's, from a page of the ended
#     run (pacer_running 0), and it ingested every metric name the Grafana
#     dashboard (contrib/grafana/pacer-dashboard.json) uses;
#   - hostile clients: non-GET 405, unknown path 404, junk 400, an oversized
#     head 431; a client that connects and sends nothing does not keep
#     another from the page; with every slot held the next connection is
#     refused at once (503) and the holders are closed by their deadline,
#     after which the page serves again;
#   - the listener thread blocks every signal; SIGINT still ends a run
#     with its report (exit 130);
#   - under mpirun (2 ranks), rank 0 serves the whole run: the totals
#     Prometheus has equal the merged JSON's;
#   - a port in use: one line, exit 1, no load; a malformed ADDR:PORT: exit 2.
. "$(dirname "$0")/lib.sh"

need_cmd prometheus prometheus || finish
need_cmd curl curl || finish
PROMCHECK=${TOOLS:-$(dirname "$PACER")/build/tools}/promcheck
need_cmd "$PROMCHECK" "(make tools builds it)" || finish
DASH=$(cd "$(dirname "$0")/../.." && pwd)/contrib/grafana/pacer-dashboard.json
need_cmd "$DASH" "(the repository's contrib/)" || finish

start_serve || { fail serve_start "pacer serve did not start: $(serve_err)"; finish; }
MPORT=$(pick_port) && PPORT=$(pick_port) || { fail ports "no free port"; finish; }
[ "$MPORT" != "$PPORT" ] || PPORT=$((MPORT + 1))
MADDR=127.0.0.1:$MPORT
R=$T_DIR/report
PROM=http://127.0.0.1:$PPORT

# ---- a Prometheus of the test's own ----------------------------------
cat >"$T_DIR/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pacer
    static_configs:
      - targets: ['$MADDR']
EOF
prometheus --config.file="$T_DIR/prom.yml" --web.listen-address="127.0.0.1:$PPORT" \
    --storage.tsdb.path="$T_DIR/tsdb" >"$T_DIR/prom.log" 2>&1 &
PROM_PID=$!
T_PIDS+=("$PROM_PID")
ready=0
for _ in $(seq 1 300); do
    curl -sf -o /dev/null "$PROM/-/ready" && { ready=1; break; }
    kill -0 "$PROM_PID" 2>/dev/null || break
    sleep 0.1
done
if [ $ready = 0 ]; then
    fail prometheus_start "prometheus did not become ready: $(tail -n3 "$T_DIR/prom.log")"
    finish
fi

# Prometheus applies its targets a few seconds after it starts: wait until
# it has tried ours once (nothing listens yet: "down"), so that it scrapes
# the whole run.
tried=0
for _ in $(seq 1 300); do
    curl -s -m 2 "$PROM/api/v1/targets" | grep -q '"health":"down"' && { tried=1; break; }
    sleep 0.1
done
[ $tried = 1 ] || { fail prometheus_target "prometheus never tried $MADDR"; finish; }

# ---- the run -----------------------------------------------------------
JSON=$T_DIR/run.json
# Two stages of 5 s (200 then 300 req/s): the stage and target gauges move.
timeout -k 2 60 "$PACER" --stages '5s:200!,5s:300!' -c 4 -t 1 --metrics-listen "$MADDR" \
    --metrics-linger 15s --json "$JSON" "$SERVE_URL" >"$T_DIR/run.out" 2>&1 &
RUN_PID=$!
T_PIDS+=("$RUN_PID")
if ! wait_port 127.0.0.1 "$MPORT" "$RUN_PID"; then
    fail metrics_up "nothing listens on $MADDR: $(tail -n3 "$T_DIR/run.out")"
    finish
fi

# The page, as curl gets it, once an interval has been merged into it
# (before, every count is 0: nothing to check the buckets by).
PAGE=$T_DIR/page.txt
for _ in $(seq 1 50); do
    got=$(curl -s -m 5 -o "$PAGE" -w '%{http_code} %{content_type}' "http://$MADDR/metrics")
    grep -q '^pacer_latency_seconds_count{[^}]*} [1-9]' "$PAGE" && break
    sleep 0.1
done
ok page_type "got '$got'" \
    '[ "$got" = "200 application/openmetrics-text; version=1.0.0; charset=utf-8" ]'
ok page_ends_eof "the page does not end with # EOF" '[ "$(tail -n1 "$PAGE")" = "# EOF" ]'
"$PROMCHECK" "$PAGE" >"$T_DIR/samples.txt" 2>"$T_DIR/promcheck.err"
prc=$?
ok page_parses "promtext refused it: $(cat "$T_DIR/promcheck.err")" '[ $prc -eq 0 ]'
ok page_run_id "a sample without run_id, or samples of several ids" \
    '[ -s "$T_DIR/samples.txt" ] && ! grep -v " run_id=[0-9a-f]\{32\}\( \|$\)" "$T_DIR/samples.txt" | grep -q . &&
     [ "$(grep -o "run_id=[0-9a-f]*" "$T_DIR/samples.txt" | sort -u | wc -l)" = 1 ]'
ok page_buckets "histogram buckets not cumulative or +Inf != _count" "$PY" - "$T_DIR/samples.txt" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
for h in ("pacer_latency_seconds", "pacer_send_lag_seconds"):
    b = [(l[2:], float(l[1])) for l in rows if l[0] == h + "_bucket"]
    le = [float(dict(x.split("=", 1) for x in lab)["le"]) for lab, _ in b]
    v = [c for _, c in b]
    cnt = [float(l[1]) for l in rows if l[0] == h + "_count"]
    assert len(b) == 17 and le == sorted(le) and le[-1] == float("inf"), h
    assert v == sorted(v) and cnt == [v[-1]], h
EOF

# The listener thread takes no signal (SIGINT and SIGTERM are the main
# thread's: one delivered to it would end pacer without a report).
blk=
PPID_PACER=$(pgrep -P "$RUN_PID" | head -n1) # RUN_PID is timeout's
for t in /proc/"${PPID_PACER:-none}"/task/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" = pacer-metrics ] && blk=$(awk '/^SigBlk:/ {print $2}' "$t/status")
done
ok listener_blocks_signals "the pacer-metrics thread's SigBlk is '$blk'" \
    '[ -n "$blk" ] && [ $(( 0x$blk & 0x4002 )) = $(( 0x4002 )) ]'

# ---- hostile clients, during the run ----------------------------------
cat >"$T_DIR/hostile.py" <<'EOF'
import select, socket, sys, time

host, port = sys.argv[1], int(sys.argv[2])
BOUND = 8

def conn():
    s = socket.create_connection((host, port), timeout=5)
    return s

def exchange(data, limit=5.0):
    """Send data, read until EOF (or limit s): the response bytes."""
    s = conn()
    s.sendall(data)
    s.settimeout(limit)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except OSError:
        pass
    s.close()
    return out

def status(resp):
    return resp.split(b"\r\n", 1)[0].decode("latin-1")

def closed_by_peer(s):
    """True when the server closed s (EOF or reset), without waiting."""
    r, _, _ = select.select([s], [], [], 0)
    return bool(r)  # a silent client is sent nothing but its close

def line(name, good, detail):
    print(name, "ok" if good else "bad", detail)
    sys.stdout.flush()

r = status(exchange(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
line("refuses_post", r.startswith("HTTP/1.1 405"), r)
r = status(exchange(b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
line("refuses_head", r.startswith("HTTP/1.1 405"), r)
r = status(exchange(b"GET /other HTTP/1.1\r\nHost: x\r\n\r\n"))
line("unknown_path_404", r.startswith("HTTP/1.1 404"), r)
r = status(exchange(b"\x00\xffjunk\r\n\r\n"))
line("junk_400", r.startswith("HTTP/1.1 400"), r)
r = status(exchange(b"GET /metrics HTTP/1.1\r\nX-Long: " + b"a" * 5000))
line("oversized_431", r.startswith("HTTP/1.1 431"), r)

# A client that connects and sends nothing: another still gets the page,
# while the silent one is still connected.
slow = conn()
time.sleep(0.2)
t0 = time.monotonic()
r = exchange(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
dt = time.monotonic() - t0
line("slow_client_does_not_block", status(r).startswith("HTTP/1.1 200") and
     r.rstrip().endswith(b"# EOF") and not closed_by_peer(slow),
     "%s in %.3fs, silent one %s" % (status(r), dt, "closed" if closed_by_peer(slow) else "open"))
slow.close()
time.sleep(0.2)

# Every slot held by a silent client: one more is refused at once.
held = [conn() for _ in range(BOUND)]
time.sleep(0.3)
t0 = time.monotonic()
r = exchange(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", limit=1.5)
dt = time.monotonic() - t0
line("refuses_past_bound", status(r).startswith("HTTP/1.1 503") and dt < 1.5,
     "client %d of %d: '%s' after %.3fs" % (BOUND + 1, BOUND, status(r), dt))
still = sum(not closed_by_peer(s) for s in held)
line("holders_kept", still == BOUND, "%d of %d holders still connected" % (still, BOUND))
# The holders' deadline (2 s from their connect) closes them; then the
# page serves again.
t0 = time.monotonic()
while time.monotonic() - t0 < 10 and not all(closed_by_peer(s) for s in held):
    time.sleep(0.05)
dt = time.monotonic() - t0
line("holders_closed_by_deadline", all(closed_by_peer(s) for s in held),
     "the silent holders were closed %.2fs after the refusal" % dt)
for s in held:
    s.close()
r = exchange(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
line("serves_after_holders", status(r).startswith("HTTP/1.1 200"), status(r))
EOF
"$PY" "$T_DIR/hostile.py" 127.0.0.1 "$MPORT" >"$T_DIR/hostile.out" 2>&1
while read -r name verdict detail; do
    if [ "$verdict" = ok ]; then pass "$name"; echo "  ($detail)"; else fail "$name" "$detail"; fi
done <"$T_DIR/hostile.out"
ok hostile_script "hostile.py: $(tail -n3 "$T_DIR/hostile.out")" \
    '[ "$(grep -c " ok \| bad " "$T_DIR/hostile.out")" = 10 ]'

# ---- the end: Prometheus's totals against the report's ----------------
for _ in $(seq 1 600); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
wait "$RUN_PID"
rc=$?
ok run_finished "pacer exited $rc: $(tail -n3 "$T_DIR/run.out")" '[ $rc -eq 0 ] && [ -s "$JSON" ]'
ID=$(json_get "$JSON" 'd["run_id"]')
SCHED=$(json_get "$JSON" 'd["requests"]["scheduled"]')
DONE=$(json_get "$JSON" 'd["requests"]["completed"]')
ok run_id_json "the JSON's run_id '$ID' is not the page's" 'grep -q "run_id=$ID" "$T_DIR/samples.txt"'
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json
ok json_schema "the result with run_id does not validate against $SCHEMA" "$PY" -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$JSON" "$SCHEMA"

# query EXPR: the value of an instant query's only result ("none": no result).
query() {
    curl -s -m 10 -G "$PROM/api/v1/query" --data-urlencode "query=$1" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
r = d["data"]["result"] if d.get("status") == "success" else []
print(r[0]["value"][1] if len(r) == 1 else "none")'
}
PT=$(query "max_over_time(pacer_requests_total{run_id=\"$ID\"}[10m])")
PD=$(query "sum(max_over_time(pacer_responses_total{run_id=\"$ID\"}[10m]))")
PR=$(query "min_over_time(pacer_running{run_id=\"$ID\"}[10m])")
NS=$(query "count_over_time(pacer_running{run_id=\"$ID\"}[10m])")
UP=$(query "count_over_time(up{job=\"pacer\"}[10m])")
ST=$(query "max_over_time(pacer_stage{run_id=\"$ID\"}[10m])")
TR=$(query "max_over_time(pacer_target_rate{run_id=\"$ID\"}[10m])")
echo "  (report: $SCHED scheduled, $DONE completed; Prometheus: requests $PT, responses $PD, $NS scrapes of $UP tried, running min $PR)"
ok prom_requests_total "Prometheus has $PT, the JSON $SCHED scheduled" '[ "$PT" = "$SCHED" ] && [ "$SCHED" -gt 0 ]'
ok prom_responses_total "Prometheus has $PD, the JSON $DONE completed" '[ "$PD" = "$DONE" ]'
ok prom_saw_the_end "no scrape of the ended run (pacer_running min $PR)" '[ "$PR" = 0 ]'
ok prom_stage_target "stage max $ST (want 2), target max $TR (want 300)" '[ "$ST" = 2 ] && [ "$TR" = 300 ]'
# Fewer than 10: while the hostile clients above hold every slot (2 s) a
# scrape is refused, and a loaded machine delays some.
ok prom_scraped_during "only $NS scrapes of a 10 s run at 1 s" '[ "$NS" != none ] && [ "$NS" -ge 5 ]'

# Every metric name the dashboard's expressions use, Prometheus ingested.
curl -s -m 10 "$PROM/api/v1/label/__name__/values" >"$T_DIR/names.json"
ok dashboard_names "names the dashboard uses that Prometheus never saw" "$PY" - "$DASH" "$T_DIR/names.json" <<'EOF'
import json, re, sys
dash = json.load(open(sys.argv[1]))
have = set(json.load(open(sys.argv[2]))["data"])
used = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("expr", "query") and isinstance(v, str):
                used.update(re.findall(r"\bpacer_[a-z_]+", v))
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(dash)
missing = sorted(used - have)
print("used:", len(used), "missing:", missing)
sys.exit(1 if missing or len(used) < 8 else 0)
EOF

# ---- under mpirun: rank 0 serves the whole run's figures ---------------
if need_cmd mpirun openmpi-bin; then
    ROOT=()
    [ "$(id -u)" = 0 ] && ROOT=(--allow-run-as-root)
    MJSON=$T_DIR/mpi.json
    (cd "$T_DIR" && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" &&
        timeout -k 5 60 mpirun --oversubscribe "${ROOT[@]}" -np 2 "$PACER" -t1 -c2 \
        --stages '2s:200!,3s:300!' --metrics-listen "$MADDR" --metrics-linger 15s \
        --json "$MJSON" "$SERVE_URL") >"$T_DIR/mpi.out" 2>&1
    rc=$?
    ok mpi_run "mpirun exited $rc: $(tail -n3 "$T_DIR/mpi.out")" '[ $rc -eq 0 ] && [ -s "$MJSON" ]'
    MID=$(json_get "$MJSON" 'd["run_id"]')
    MSCHED=$(json_get "$MJSON" 'd["requests"]["scheduled"]')
    MPT=$(query "max_over_time(pacer_requests_total{run_id=\"$MID\"}[10m])")
    MPR=$(query "min_over_time(pacer_running{run_id=\"$MID\"}[10m])")
    MN=$(query "count(count by (instance) (max_over_time(pacer_run_info{run_id=\"$MID\"}[10m])))")
    echo "  (mpirun -np 2, merged report: $MSCHED scheduled; Prometheus: requests $MPT, running min $MPR, $MN target)"
    ok mpi_prom_total "Prometheus has $MPT for run $MID, the merged JSON $MSCHED scheduled" \
        '[ "$MPT" = "$MSCHED" ] && [ "$MSCHED" -gt 0 ] && [ "$MPR" = 0 ] && [ "$MN" = 1 ]'
fi

# ---- SIGINT during a run: the partial report, exit 130 -----------------
SPORT=$(pick_port)
timeout -k 2 30 "$PACER" -d 20s -R 100 -c 2 -t 1 --metrics-listen "127.0.0.1:$SPORT" "$SERVE_URL" \
    >"$T_DIR/sigint.out" 2>&1 &
SIG_PID=$!
T_PIDS+=("$SIG_PID")
wait_port 127.0.0.1 "$SPORT" "$SIG_PID"
sleep 1
kill -INT "$SIG_PID"
wait "$SIG_PID"
rc=$?
ok sigint_report "rc $rc, want 130 and the report: $(tail -n2 "$T_DIR/sigint.out")" \
    '[ $rc -eq 130 ] && grep -q "Stopped early by SIGINT" "$T_DIR/sigint.out"'

# ---- bad addresses -----------------------------------------------------
run 20 -d 1s -R 10 --metrics-listen "127.0.0.1:$PPORT" "$SERVE_URL"
ok port_in_use "rc $rc, want 1 and one line: $(head -c 300 "$R")" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$R")" = 1 ] && grep -q "^pacer: --metrics-listen 127.0.0.1:$PPORT: Address already in use$" "$R"'
for bad in nonsense 127.0.0.1 127.0.0.1:0 127.0.0.1:99999 :9 "[::1]9"; do
    run 20 -d 1s --metrics-listen "$bad" "$SERVE_URL"
    ok "malformed_addr[$bad]" "rc $rc, want 2 and one line: $(head -c 300 "$R")" \
        '[ $rc -eq 2 ] && [ "$(wc -l <"$R")" = 1 ] && grep -q "^pacer: --metrics-listen wants ADDR:PORT" "$R"'
done
finish
