#!/usr/bin/env bash
# bench/rate_sweep.sh - constant rate from one thread, side by side: pacer
# (adaptive slack), pacer --slack 0 and wrk2, against one local nginx.
#
#   bench/rate_sweep.sh [RATES...]     (default: 2000 8000 20000 40000 60000
#                                       80000 100000 120000)
#
#   WRK2=PATH     the wrk2 binary (default: wrk2 on PATH; build one with
#                 ../shared/peers/build-wrk2.sh DEST)
#   BASE=PATH     also an older pacer binary (adaptive), e.g. before a change
#   ROUNDS=N      rounds (default 3); DUR=S seconds per run (default 5)
#   FLOOR=1       also, each round: pacer -R1000 against wrk -t1 -c1 (the
#                 closed-loop single-connection floor), p50 side by side, and
#                 bench/floor_probe (built here with cc) at 1,000 req/s and in
#                 a closed loop: the ideal client (it polls the clock and the
#                 socket, never sleeps), which splits the gap into the
#                 server's share (woken for each request) and pacer's
#   AWAKE=1       with FLOOR=1, also pacer -R1000 and the probe with both
#                 cores kept out of their idle state (a SCHED_IDLE busy loop
#                 on each, which runs only when nothing else would): what the
#                 gap owes to idle CPUs waking (a VM's vCPU halts when idle)
#   PAGE=NAME     4k.html (default, 4096 bytes) or empty (0 bytes)
#   SLACKS="D..." also pacer --slack D for each D (e.g. "100us 200us 500us"):
#                 the trade-off between wake-ups (CPU) and lateness (p50)
#   SPINS="D..."  also pacer --spin D (adaptive slack) for each D, at every rate
#                 and, with FLOOR=1, at 1,000 req/s: what polling the end of
#                 each wait buys (p50) and costs (CPU)
#
# nginx: 1 worker pinned to CPU 0, a 4096-byte page; every client on CPU 1,
# -t1 -c50 -d${DUR}s -R R. Within a round the tools run alternately (pacer,
# pacer --slack 0, wrk2) at each rate; each cell is the median over the
# rounds. Per run: CPU time (user + system, /usr/bin/time) / responses,
# achieved rate, p50 and p99 (corrected), context switches (voluntary +
# involuntary) / response. Markdown on stdout, then the highest R each tool
# held (achieved >= 99.5% of R and p99 <= 1 ms, medians) and, with FLOOR=1,
# the 1,000 req/s p50 against wrk -c1's.
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PACER=$ROOT/pacer
WRK2=${WRK2:-$(command -v wrk2 || true)}
ROUNDS=${ROUNDS:-3}
DUR=${DUR:-5}
RATES=("$@")
[ ${#RATES[@]} -gt 0 ] || RATES=(2000 8000 20000 40000 60000 80000 100000 120000)
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$PACER" ] || { echo "rate_sweep: build pacer first (make)" >&2; exit 1; }
[ -x "$NGINX" ] || { echo "rate_sweep: nginx not found (apt-get install nginx-light)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "rate_sweep: /usr/bin/time not found (apt-get install time)" >&2; exit 1; }
[ -n "$WRK2" ] && [ -x "$WRK2" ] || { echo "rate_sweep: no wrk2 (WRK2=PATH)" >&2; WRK2=""; }

W=$(mktemp -d /tmp/rate-sweep.XXXXXX)
chmod 755 "$W"
NPID=""
cleanup() { [ -n "$NPID" ] && kill "$NPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
mkdir -p "$W/www" "$W/tmp"
head -c 4096 /dev/zero | tr '\0' 'x' >"$W/www/4k.html"
: >"$W/www/empty"
PORT=$((20000 + RANDOM % 9000))
cat >"$W/nginx.conf" <<NG
worker_processes 1;
daemon off;
pid $W/nginx.pid;
error_log $W/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $W/tmp;
    server { listen 127.0.0.1:$PORT backlog=4096; root $W/www; location / { } }
}
NG
taskset -c 0 "$NGINX" -p "$W/" -c "$W/nginx.conf" -e "$W/error.log" </dev/null >"$W/nginx.out" 2>&1 &
NPID=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
URL=http://127.0.0.1:$PORT/${PAGE:-4k.html}
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "rate_sweep: BASE=$BASE is not executable" >&2; BASE=""; }

PROBE=""
if [ "${FLOOR:-0}" = 1 ]; then
    PROBE=$W/floor_probe
    cc -O2 -o "$PROBE" "$ROOT/bench/floor_probe.c" || { echo "rate_sweep: cannot build floor_probe" >&2; PROBE=""; }
fi
IDLERS=()
# idlers_start / idlers_stop: a SCHED_IDLE busy loop on cores 0 and 1 (AWAKE=1)
idlers_start() { for c in 0 1; do taskset -c $c chrt -i 0 sh -c 'while :; do :; done' & IDLERS+=($!); done; sleep 0.2; }
idlers_stop() {
    [ ${#IDLERS[@]} -gt 0 ] || return 0
    kill "${IDLERS[@]}" 2>/dev/null
    wait "${IDLERS[@]}" 2>/dev/null
    IDLERS=()
}
trap 'idlers_stop; cleanup' EXIT

# run TOOL R ROUND: one run (TOOL awake-X: X with idlers_start around it); appends "tool R cpu_s responses rate p50_ms p99_ms csw" to $W/rows
run() {
    local tool=$1 r=$2 n=$3 out=$W/$1.$2.$3 t=$W/$1.$2.$3.time what=${1#awake-}
    [ "$what" = "$tool" ] || idlers_start
    case $what in
    pacer) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PACER" -t1 -c50 -d"${DUR}s" -R"$r" \
        --json "$out.json" "$URL" >"$out" 2>&1 ;;
    base) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$BASE" -t1 -c50 -d"${DUR}s" -R"$r" \
        --json "$out.json" "$URL" >"$out" 2>&1 ;;
    pacer1k) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PACER" -t1 -c50 -d"${DUR}s" -R1000 \
        --json "$out.json" "$URL" >"$out" 2>&1 ;;
    ideal1k) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PROBE" 127.0.0.1 "$PORT" \
        "/${PAGE:-4k.html}" 1000 "$DUR" >"$out" 2>&1 ;;
    idealc1) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PROBE" 127.0.0.1 "$PORT" \
        "/${PAGE:-4k.html}" 0 "$DUR" >"$out" 2>&1 ;;
    wrkc1) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" wrk -t1 -c1 -d"${DUR}s" \
        --latency "$URL" >"$out" 2>&1 ;;
    pacer0) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PACER" -t1 -c50 -d"${DUR}s" -R"$r" \
        --slack 0 --json "$out.json" "$URL" >"$out" 2>&1 ;;
    spin=*) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PACER" -t1 -c50 -d"${DUR}s" -R"$r" \
        --spin "${tool#spin=}" --json "$out.json" "$URL" >"$out" 2>&1 ;;
    spin1k=*) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PACER" -t1 -c50 -d"${DUR}s" -R1000 \
        --spin "${tool#spin1k=}" --json "$out.json" "$URL" >"$out" 2>&1 ;;
    slack=*) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$PACER" -t1 -c50 -d"${DUR}s" -R"$r" \
        --slack "${tool#slack=}" --json "$out.json" "$URL" >"$out" 2>&1 ;;
    wrk2) taskset -c 1 /usr/bin/time -o "$t" -f "%U %S %w %c" "$WRK2" -t1 -c50 -d"${DUR}s" -R"$r" \
        --latency "$URL" >"$out" 2>&1 ;;
    esac
    [ "$what" = "$tool" ] || idlers_stop
    python3 - "$tool" "$r" "$out" "$t" "$DUR" >>"$W/rows" <<'PY'
import json, re, sys
tool, r, out, t, dur = sys.argv[1:6]
what = tool[len("awake-"):] if tool.startswith("awake-") else tool
u, s, w, c = open(t).read().split()[-4:]
cpu = float(u) + float(s); csw = int(w) + int(c)
def ms(v, unit): return float(v) * {"us": 1e-3, "ms": 1, "s": 1e3, "m": 6e4}[unit]
if what.startswith("ideal"):
    p50, p99, n = open(out).read().split()[-3:]
    p50, p99, n = float(p50), float(p99), int(n); rate = n / float(dur)
elif what.startswith("pacer") or what == "base" or what.startswith(("slack=", "spin")):
    d = json.load(open(out + ".json"))
    n = d["requests"]["completed"]; rate = d["rate"]["achieved"]
    p50 = d["latency"]["corrected"]["percentiles"]["50"] / 1e3
    p99 = d["latency"]["corrected"]["percentiles"]["99"] / 1e3
else:
    txt = open(out).read()
    n = int(re.search(r"(\d+) requests in", txt).group(1))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", txt).group(1))
    pct = r"^\s*%s(?:\.000)?%%\s+([\d.]+)(us|ms|s|m)\b"  # wrk2: 50.000%, wrk: 50%
    p50 = ms(*re.search(pct % "50", txt, re.M).groups())
    p99 = ms(*re.search(pct % "99", txt, re.M).groups())
print(tool, r, cpu, n, rate, p50, p99, csw)
PY
}

for round in $(seq 1 "$ROUNDS"); do
    for r in "${RATES[@]}"; do
        for tool in pacer ${BASE:+base} pacer0 ${SLACKS:+$(printf 'slack=%s ' $SLACKS)} \
            ${SPINS:+$(printf 'spin=%s ' $SPINS)} ${WRK2:+wrk2}; do
            run "$tool" "$r" "$round" || echo "rate_sweep: $tool at $r failed (round $round)" >&2
        done
    done
    if [ "${FLOOR:-0}" = 1 ]; then
        for tool in pacer1k ${SPINS:+$(printf 'spin1k=%s ' $SPINS)} wrkc1 ${PROBE:+ideal1k idealc1} \
            ${PROBE:+${AWAKE:+awake-pacer1k awake-ideal1k awake-wrkc1}}; do
            run "$tool" 1000 "$round" || echo "rate_sweep: $tool failed (round $round)" >&2
        done
    fi
done

SLACKS=${SLACKS:-} SPINS=${SPINS:-} python3 - "$W/rows" "${RATES[@]}" <<'PY'
import os, sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
rates = sys.argv[2:]
tools = [("pacer", "pacer (adaptive)"), ("base", "pacer before (BASE)"),
         ("pacer0", "pacer --slack 0")] + \
        [("slack=" + d, "pacer --slack " + d) for d in os.environ["SLACKS"].split()] + \
        [("spin=" + d, "pacer --spin " + d) for d in os.environ["SPINS"].split()] + [("wrk2", "wrk2")]
print("| R (req/s) | tool | CPU/request | achieved (req/s) | p50 (ms) | p99 (ms) | ctx switches/request | runs |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rates:
    for key, name in tools:
        rs = [x for x in rows if x[0] == key and x[1] == r]
        if not rs: continue
        med = lambda f: st.median(f(x) for x in rs)
        cpu = med(lambda x: float(x[2]) / max(1, int(x[3])) * 1e6)
        print(f"| {int(r):,} | {name} | {cpu:.1f} µs | {med(lambda x: float(x[4])):,.0f} | "
              f"{med(lambda x: float(x[5])):.3f} | {med(lambda x: float(x[6])):.3f} | "
              f"{med(lambda x: int(x[7]) / max(1, int(x[3]))):.2f} | {len(rs)} |")
print()
held = {}
for key, name in tools:
    for r in rates:
        rs = [x for x in rows if x[0] == key and x[1] == r]
        if not rs: continue
        ach = st.median(float(x[4]) for x in rs); p99 = st.median(float(x[6]) for x in rs)
        if ach >= 0.995 * int(r) and p99 <= 1.0:
            held[key] = max(held.get(key, 0), int(r))
    if any(x[0] == key for x in rows):
        print(f"- highest R held by {name} (achieved >= 99.5% of R, p99 <= 1 ms): "
              f"{held[key]:,}" if key in held else f"- {name}: no rate held (p99 <= 1 ms and >= 99.5% of R)")
for d in os.environ["SPINS"].split():
    rs = [x for x in rows if x[0] == "spin1k=" + d]
    if rs:
        print(f"- p50 at 1,000 req/s with --spin {d}: {st.median(float(x[5]) for x in rs):.3f} ms, "
              f"CPU/request {st.median(float(x[2]) / max(1, int(x[3])) * 1e6 for x in rs):.1f} µs; without: "
              f"CPU/request {st.median(float(x[2]) / max(1, int(x[3])) * 1e6 for x in rows if x[0] == 'pacer1k') if any(x[0] == 'pacer1k' for x in rows) else float('nan'):.1f} µs")
fl = {k: [float(x[5]) for x in rows if x[0] == k]
      for k in ("pacer1k", "wrkc1", "ideal1k", "idealc1", "awake-pacer1k", "awake-ideal1k", "awake-wrkc1")}
runs = lambda k: " ".join(f"{v:.3f}" for v in fl[k])
if fl["pacer1k"] and fl["wrkc1"]:
    a, b = st.median(fl["pacer1k"]), st.median(fl["wrkc1"])
    print(f"- p50 at 1,000 req/s (pacer -t1 -c50 -R1000): {a:.3f} ms; wrk -t1 -c1 (closed-loop floor): "
          f"{b:.3f} ms; difference {a - b:+.3f} ms ({len(fl['pacer1k'])} runs each: "
          f"pacer {runs('pacer1k')}; wrk {runs('wrkc1')})")
    if fl["ideal1k"] and fl["idealc1"]:
        i, c = st.median(fl["ideal1k"]), st.median(fl["idealc1"])
        print(f"- the ideal client (bench/floor_probe: polls, never sleeps) at 1,000 req/s: {i:.3f} ms "
              f"({runs('ideal1k')}); in a closed loop: {c:.3f} ms ({runs('idealc1')})")
        print(f"- of pacer's {a - b:+.3f} ms over wrk -c1: the server's share (the ideal client at 1,000 req/s "
              f"over wrk -c1) {i - b:+.3f} ms, pacer's (pacer over the ideal client) {a - i:+.3f} ms")
    if fl["awake-pacer1k"] and fl["awake-ideal1k"] and fl["awake-wrkc1"]:
        pa, ia, wa = (st.median(fl[k]) for k in ("awake-pacer1k", "awake-ideal1k", "awake-wrkc1"))
        print(f"- with both cores kept awake (AWAKE=1): pacer {pa:.3f} ms ({runs('awake-pacer1k')}), the ideal "
              f"client {ia:.3f} ms ({runs('awake-ideal1k')}), wrk -c1 {wa:.3f} ms ({runs('awake-wrkc1')}): "
              f"pacer over wrk -c1 {pa - wa:+.3f} ms, over the ideal client {pa - ia:+.3f} ms")
PY
