# Shared helpers for integration tests (sourced, bash).
#
# Everything started here listens on 127.0.0.1 / ::1 only, on ports picked
# at run time, and is killed by the EXIT trap. Every wait is bounded.
set -u

PACER=${PACER:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/pacer}
T_DIR=$(mktemp -d /tmp/pacer-it.XXXXXX)
chmod 755 "$T_DIR" # nginx workers run as an unprivileged user
T_FAILED=0
T_PIDS=()

cleanup() {
    local p
    for p in "${T_PIDS[@]}"; do
        kill -CONT "$p" 2>/dev/null
        kill "$p" 2>/dev/null
    done
    for p in "${T_PIDS[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$T_DIR"
}
trap cleanup EXIT

pass() { echo "PASS $1"; }
# fail NAME WHY: WHY on one line (its newlines folded), so that the runner's
# list of failed checks, which keeps a check's first line, keeps all of it.
fail() { echo "FAIL $1: ${2//$'\n'/ | }"; T_FAILED=1; }
# skip NAME WHY: only for what this platform cannot provide (say why); a
# missing program or file is need_cmd's FAIL instead.
skip() { echo "SKIP $1: $2"; }
. "$(dirname "${BASH_SOURCE[0]}")/need.sh"
# ok NAME WHY-IF-FALSE COMMAND [ARGS...]: run the command, PASS if it
# succeeds. With a single string instead, that string is eval'ed (so it may
# use && and the functions defined here).
ok() {
    local name=$1 why=$2; shift 2
    local r
    if [ $# -eq 1 ]; then eval "$1"; r=$?; else "$@"; r=$?; fi
    if [ $r -eq 0 ]; then pass "$name"; else fail "$name" "$why"; fi
}
finish() { exit "$T_FAILED"; }

# A port nothing listens on right now (a listener started on it later may
# still race another process; callers retry on bind failure). Below the
# kernel's ephemeral range (32768+), which load tests use up quickly.
pick_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((10000 + RANDOM % 22000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# Wait until a TCP port accepts connections (max ~5 s); give up early if
# the process PID (optional) has exited.
wait_port() {
    local host=$1 port=$2 pid=${3:-}
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && return 0
        [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && return 1
        sleep 0.05
    done
    return 1
}

# start_serve ARGS...: start `pacer serve --port 0 ARGS` and set SERVE_PID,
# SERVE_URL (from its first stdout line).
start_serve() {
    local log="$T_DIR/serve.$RANDOM.out" line="" port=(--port 0)
    case " $* " in *" --unix "*) port=() ;; esac
    "$PACER" serve "${port[@]}" "$@" >"$log" 2>"$log.err" &
    SERVE_PID=$!
    T_PIDS+=("$SERVE_PID")
    for _ in $(seq 1 100); do
        line=$(head -n1 "$log" 2>/dev/null)
        [ -n "$line" ] && break
        sleep 0.05
    done
    SERVE_URL=${line##* }
    [ -n "$line" ]
}

# The stderr of the last started serve (its totals line appears at exit).
serve_err() { cat "$T_DIR"/serve.*.out.err 2>/dev/null; }

# start_nginx [EXTRA_HTTP_CONF]: nginx with one worker on a plain port
# (with NGX_LISTEN_OPTS, e.g. " backlog=2", added to its listen line), a
# TLS port that also speaks h2 (ALPN), an h2c (prior knowledge) port and a
# TLS port without h2. Sets NGX_PORT, NGX_TLS_PORT, NGX_H2C_PORT,
# NGX_TLS1_PORT, NGX_PID (master), NGX_DIR. Serves
# $NGX_DIR/www (index.html is 1024 bytes), /stub (stub_status), and logs
# requests to $NGX_DIR/access.log as "$request $http_x_pacer $http_host",
# then NGX_LOG_EXTRA if set (e.g. ' $connection': more fields at the end).
# NGX_KEEPALIVE_REQUESTS sets keepalive_requests (default 1000000). With
# NGX_NETNS set, nginx runs in that network namespace (ip netns exec),
# listening on NGX_ADDR (default 127.0.0.1), which this shell must reach.
start_nginx() {
    local extra=${1:-} try a=${NGX_ADDR:-127.0.0.1} ns=()
    [ -n "${NGX_NETNS:-}" ] && ns=(ip netns exec "$NGX_NETNS")
    need_cmd nginx nginx-light && need_cmd openssl openssl && need_cmd pgrep procps || return 1
    NGX_DIR="$T_DIR/nginx"
    mkdir -p "$NGX_DIR/www" "$NGX_DIR/tmp"
    head -c 1024 /dev/zero | tr '\0' 'a' >"$NGX_DIR/www/index.html"
    if [ ! -f "$NGX_DIR/cert.pem" ]; then
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout "$NGX_DIR/key.pem" -out "$NGX_DIR/cert.pem" -days 2 \
            -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
            >/dev/null 2>&1 || return 1
    fi
    for try in 1 2 3 4 5; do
        NGX_PORT=$(pick_port) && NGX_TLS_PORT=$(pick_port) && NGX_H2C_PORT=$(pick_port) &&
            NGX_TLS1_PORT=$(pick_port) || return 1
        cat >"$NGX_DIR/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $NGX_DIR/nginx.pid;
error_log $NGX_DIR/error.log;
events { worker_connections 4096; }
http {
    log_format pacer '\$request \$http_x_pacer \$http_host${NGX_LOG_EXTRA:-}';
    access_log $NGX_DIR/access.log pacer;
    client_body_temp_path $NGX_DIR/tmp/body;
    proxy_temp_path $NGX_DIR/tmp/proxy;
    fastcgi_temp_path $NGX_DIR/tmp/fastcgi;
    uwsgi_temp_path $NGX_DIR/tmp/uwsgi;
    scgi_temp_path $NGX_DIR/tmp/scgi;
    keepalive_requests ${NGX_KEEPALIVE_REQUESTS:-1000000};
    ssl_certificate $NGX_DIR/cert.pem;
    ssl_certificate_key $NGX_DIR/key.pem;
    $extra
    server {
        listen $a:$NGX_PORT${NGX_LISTEN_OPTS:-};
        listen $a:$NGX_TLS_PORT ssl http2;
        listen $a:$NGX_H2C_PORT http2;
        root $NGX_DIR/www;
        location = /stub { stub_status; }
    }
    server {
        listen $a:$NGX_TLS1_PORT ssl;
        root $NGX_DIR/www;
    }
}
CONF
        "${ns[@]}" nginx -c "$NGX_DIR/nginx.conf" >"$NGX_DIR/stdout" 2>&1 &
        NGX_PID=$!
        T_PIDS+=("$NGX_PID")
        if wait_port "$a" "$NGX_PORT" "$NGX_PID" && wait_port "$a" "$NGX_TLS_PORT" "$NGX_PID" &&
            wait_port "$a" "$NGX_H2C_PORT" "$NGX_PID" && wait_port "$a" "$NGX_TLS1_PORT" "$NGX_PID"; then
            return 0
        fi
        kill "$NGX_PID" 2>/dev/null
        wait "$NGX_PID" 2>/dev/null
    done
    return 1
}

# nginx_logged LOG NAME CMD...: empty LOG (an access log whose first field
# is $connection), run CMD (30 s at most) into $T_DIR/NAME.out and .err;
# sets RC, REQS (the requests LOG got) and CONNS (its distinct connections).
nginx_logged() {
    local log=$1 name=$2
    shift 2
    : >"$log"
    timeout 30 "$@" >"$T_DIR/$name.out" 2>"$T_DIR/$name.err"
    RC=$?
    sleep 0.1
    REQS=$(wc -l <"$log")
    CONNS=$(awk '{print $1}' "$log" | sort -u | wc -l)
}

# The pid of nginx's single worker process.
nginx_worker() { pgrep -P "$NGX_PID" | head -n1; }

# start_exporter VAR CMD...: a Prometheus exporter (prometheus-node-exporter,
# prometheus-process-exporter) with --web.listen-address on a loopback port
# picked here, retried on a bind race; sets VAR_PORT, its log in
# $T_DIR/VAR.log, its pid kept for cleanup.
start_exporter() {
    local var=$1 port pid
    shift
    for _ in 1 2 3 4 5; do
        port=$(pick_port) || return 1
        "$@" "--web.listen-address=127.0.0.1:$port" >"$T_DIR/$var.log" 2>&1 &
        pid=$!
        T_PIDS+=("$pid")
        if wait_port 127.0.0.1 "$port" "$pid"; then
            printf -v "${var}_PORT" %s "$port"
            return 0
        fi
        kill "$pid" 2>/dev/null
    done
    return 1
}

# start_nginx_exporters: prometheus-process-exporter with one group,
# "testnginx": start_nginx's master (its command line names this test's
# config) and its worker as its child; prometheus-node-exporter with the
# collectors pacer reads, loopback counted. Sets PE_URL and NE_URL.
start_nginx_exporters() {
    cat >"$T_DIR/pe.yml" <<YML
process_names:
  - name: "testnginx"
    cmdline:
      - '.*$NGX_DIR/nginx\.conf.*'
YML
    start_exporter PE prometheus-process-exporter -config.path "$T_DIR/pe.yml" -children=true ||
        { fail process_exporter_start "$(cat "$T_DIR/PE.log")"; return 1; }
    start_exporter NE prometheus-node-exporter --collector.disable-defaults --collector.cpu \
        --collector.meminfo --collector.netdev --collector.stat \
        '--collector.netdev.device-exclude=^$' ||
        { fail node_exporter_start "$(cat "$T_DIR/NE.log")"; return 1; }
    PE_URL="http://127.0.0.1:$PE_PORT/metrics"
    NE_URL="http://127.0.0.1:$NE_PORT/metrics"
}

# tree_cpu PID: the CPU seconds (utime + stime, /proc) of PID and its
# children (an nginx master and its workers), 3 decimals.
tree_cpu() {
    local hz t=0 p
    hz=$(getconf CLK_TCK)
    for p in "$1" $(pgrep -P "$1"); do
        t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
    done
    awk -v t="$t" -v hz="$hz" 'BEGIN { printf "%.3f\n", t / hz }'
}

# to_ms VALUE: "626.39us" / "1.64ms" / "2.00s" / "1.50m" -> milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u);
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000;
        else if (u == "m") n *= 60000; else if (u == "h") n *= 3600000;
        printf "%.6f\n", n }'
}

# pct FILE BLOCK P: the P (e.g. "99.000") line of latency block BLOCK
# (1 = recorded, 2 = uncorrected) in a wrk2-layout report, in ms.
pct() {
    local v
    v=$(awk -v blk="$2" -v p="$3%" '
        /^  Latency Distribution \(HdrHistogram/ { b++ }
        b == blk && $1 == p { print $2; exit }' "$1")
    [ -n "$v" ] && to_ms "$v"
}

# field FILE REGEX: the first number after REGEX in FILE.
field() { grep -m1 -oE "$2 *[0-9.]+" "$1" | grep -oE '[0-9.]+$'; }

# run LIMIT ARGS...: pacer ARGS with stdout+stderr in $R, at most LIMIT
# seconds (then killed: rc 124); sets rc and el (wall time in ms). A file
# that has a run() of its own (test_personas) defines it after this.
run() {
    local lim=$1 t0
    shift
    t0=$(date +%s%N)
    timeout -k 2 "$lim" "$PACER" "$@" >"$R" 2>&1
    rc=$?
    el=$((($(date +%s%N) - t0) / 1000000))
}
# completed FILE / scheduled FILE: the Outcomes line's counts.
completed() { awk '/^  Outcomes:/ {print $5; exit}' "$1"; }
scheduled() { awk '/^  Outcomes:/ {print $2; exit}' "$1"; }

# outcomes_add_up FILE: "Outcomes: S scheduled = C completed + T timed out +
# E errors + N never sent [+ I interrupted]" must add up.
outcomes_add_up() {
    awk '/^  Outcomes:/ {
        s = $2; sum = $5 + $8 + $12 + $15; if ($19 != "") sum += $19;
        found = 1; exit (s == sum ? 0 : 1) }
        END { if (!found) exit 1 }' "$1"
}

# fcmp A OP B: floating-point comparison.
fcmp() { awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
    r = (op == "<") ? a < b : (op == "<=") ? a <= b : (op == ">") ? a > b : (op == ">=") ? a >= b : a == b;
    exit !r }'; }

# Debian's python3 (with python3-jsonschema), not whatever is first on PATH.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# json_get FILE EXPR: evaluate a Python expression on the parsed JSON `d`.
json_get() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# HdrHistogram's reference HistogramLogProcessor (Debian libhdrhistogram-java).
# Check for it first: need_cmd java default-jre-headless, and
# need_cmd /usr/share/java/hdrhistogram.jar libhdrhistogram-java.
hlp() { java -cp /usr/share/java/hdrhistogram.jar org.HdrHistogram.HistogramLogProcessor "$@"; }

# start_h2fault ARGS...: the HTTP/2 fault server (tests/tools/h2fault.c).
# Sets H2F_URL, H2F_PID, H2F_STATS (its stats file).
start_h2fault() {
    local bin=${TOOLS:-$(dirname "$PACER")/build/tools}/h2fault log="$T_DIR/h2f.$RANDOM" line=""
    [ -x "$bin" ] || bin=$(dirname "$PACER")/build/tools/h2fault
    H2F_STATS="$log.stats"
    "$bin" --port 0 --stats "$H2F_STATS" "$@" >"$log.out" 2>"$log.err" &
    H2F_PID=$!
    T_PIDS+=("$H2F_PID")
    for _ in $(seq 1 100); do
        line=$(head -n1 "$log.out" 2>/dev/null)
        [ -n "$line" ] && break
        sleep 0.05
    done
    H2F_URL=${line##* }
    [ -n "$line" ]
}

# h2f_stat NAME: a number from the fault server's stats file.
h2f_stat() { sleep 0.2; grep -oE "$1=[0-9]+" "$H2F_STATS" | cut -d= -f2; }

# start_h1fault ARGS...: the HTTP/1.1 fault server (tests/tools/h1fault.c).
# Sets H1F_URL.
start_h1fault() {
    local bin=${TOOLS:-$(dirname "$PACER")/build/tools}/h1fault log="$T_DIR/h1f.$RANDOM" line=""
    [ -x "$bin" ] || bin=$(dirname "$PACER")/build/tools/h1fault
    "$bin" --port 0 "$@" >"$log.out" 2>"$log.err" &
    T_PIDS+=($!)
    for _ in $(seq 1 100); do
        line=$(head -n1 "$log.out" 2>/dev/null)
        [ -n "$line" ] && break
        sleep 0.05
    done
    H1F_URL=${line##* }
    [ -n "$line" ]
}

# start_echo: the recording server (tests/tools/echo_server.py). Sets
# ECHO_URL and ECHO_OUT (every request's bytes, appended).
start_echo() {
    local d="$T_DIR/echo.$RANDOM"
    ECHO_OUT="$d.out"
    : >"$ECHO_OUT"
    "$PY" "$(dirname "${BASH_SOURCE[0]}")/../tools/echo_server.py" "$d.port" "$ECHO_OUT" &
    T_PIDS+=($!)
    for _ in $(seq 1 100); do [ -s "$d.port" ] && break; sleep 0.05; done
    ECHO_URL="http://127.0.0.1:$(cat "$d.port")/"
    [ -s "$d.port" ]
}

# wait_started FILE PID: wait (30 s at most) until the run whose output
# goes to FILE has begun, which its header's "Running" line says, or PID
# has ended. A test that acts on the server some time into a run counts
# from there, not from the launch: a launcher (mpirun) or a sanitizer
# build can take seconds to get to the start.
wait_started() {
    local i
    for i in $(seq 1 300); do
        grep -q '^Running' "$1" 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# gone NAME SIGNAL URL PACER-ARGS...: a 3 s run at -R 500 whose server gets
# SIGNAL (the pid in GONE_PID; none: nothing) 1 s after its start; the verdict and the
# rate note say when responses stopped and what became of the rest, and
# blame no one. LAST_MAX: the latest last response expected (us). Its
# files go in $D (the caller's directory).
gone() {
    local name=$1 sig=$2 url=$3 pid
    shift 3
    "$PACER" -t1 -c10 -d3s -R500 --timeout 1s --json "$D/$name.json" "$@" "$url" >"$D/$name.out" 2>&1 &
    pid=$!
    wait_started "$D/$name.out" "$pid"
    sleep 1
    [ "$sig" = none ] || kill "-$sig" $GONE_PID
    wait "$pid"
    ok "${name}_names_the_stop" "$(grep -E 'limited|Requested|No response|Outcomes' "$D/$name.out")" \
        "grep -qE '^No response came after [0-9.]+s of the 3.00s run \(the server, or the path to it, stopped answering\): [0-9]+ requests could not be sent \(' '$D/$name.out' &&
         grep -qE '^  Requested rate 500.00 req/s but achieved [0-9.]+ \([0-9.]+%\): responses stopped at [0-9.]+s: [0-9]+ requests could not be sent' '$D/$name.out' &&
         ! grep -qE 'The client, not the server|client could not keep up|raise -c' '$D/$name.out'"
    ok "${name}_json" "$(json_get "$D/$name.json" "d['diagnosis'], d['requests']['last_response_us']" 2>&1)" \
        "[ \"\$(json_get '$D/$name.json' \"d['diagnosis']['by'] == 'errors' and d['client']['limited'] is False and 500000 <= d['requests']['last_response_us'] <= ${LAST_MAX:-1600000}\")\" = True ]"
}

# stall_check NAME PACER-ARGS...: run pacer (4 s at a constant rate, with
# --latency -U) while the server is stopped (SIGSTOP) for 1 s; the stall
# must show in the corrected p99 and not in the uncorrected p50, and the
# outcomes add up. The server stopped is nginx's worker (start_nginx), or
# the process STALL_PID names (e.g. CADDY_PID). Optional, set by the caller:
# STALL_RUN, an array (a launcher that starts pacer, e.g. mpirun and its
# options); STALL_AFTER, when the stall begins (s after the header's
# "Running" line, 1.5); STALL_D=SECONDS runs that long instead of 4;
# STALL_ANALYTIC=1 wants the corrected p99 and p99.9, STALL_ANALYTIC=99 the
# p99 alone, within 10 % of the analytic x_p = S - (1 - p) * D
# (docs/methodology.md); STALL_TS, a command printing the server's response
# times (s since the epoch, one a line: its access log), if it has one, and
# STALL_RATE, the run's -R.
#
# S is the stop as measured here, with bash's own clock (EPOCHREALTIME: no
# fork between it and the signal): it began between a0 and a1 and ended
# between b0 and b1, so it lasted at least b0 - a1 and at most b1 - a0 (on a
# busy machine this shell can wait for a CPU between any two of them). A
# server that had no CPU when it was let go answers later still, and a
# request that came in the stop may be answered last of them: with
# STALL_TS, the server's own log says when it had answered as many
# responses after b0 as requests were due in the stop, and the longest S
# counts to then (each of those requests was answered by then). On a machine so busy that pacer itself was the
# limit, the analytic bounds are not judged where pacer says so (its JSON
# diagnosis is "client": send lag or busy threads); where pacer says nothing
# of the kind, they must hold.
stall_check() {
    local name=$1 out="$T_DIR/stall.$1" pid w p99 p999 u50 a0 a1 b0 b1 r lo hi d=${STALL_D:-4}
    local want=${STALL_ANALYTIC:-0} p pn q x tlo thi by n why
    shift
    "${STALL_RUN[@]}" "$PACER" -d${d}s --latency -U --json "$out.json" "$@" >"$out" 2>&1 &
    pid=$!
    wait_started "$out" "$pid"
    sleep "${STALL_AFTER:-1.5}"
    w=${STALL_PID:-$(nginx_worker)}
    a0=$EPOCHREALTIME; kill -STOP "$w"; a1=$EPOCHREALTIME
    sleep 1
    b0=$EPOCHREALTIME; kill -CONT "$w"; b1=$EPOCHREALTIME
    wait "$pid"
    a0=${a0/,/.} a1=${a1/,/.} b0=${b0/,/.} b1=${b1/,/.} # a locale's decimal comma
    r=$b1
    if [ -n "${STALL_TS:-}" ]; then
        # the N-th response after b0: N, the requests due in the stop (-R x S)
        n=$(awk -v a="$a0" -v b="$b1" -v r="${STALL_RATE:-0}" 'BEGIN { n = r * (b - a); print (n > 1) ? int(n + 0.999) : 1 }')
        r=$($STALL_TS | awk -v b0="$b0" '$1 >= b0' | sort -n | sed -n "${n}p")
        r=$(awk -v m="${r:-0}" -v b1="$b1" 'BEGIN { printf "%.6f", (m > b1 ? m : b1) }')
    fi
    lo=$(awk -v a="$a1" -v b="$b0" 'BEGIN { printf "%.3f", b - a }')
    hi=$(awk -v a="$a0" -v b="$r" 'BEGIN { printf "%.3f", b - a }')
    p99=$(pct "$out" 1 99.000)
    u50=$(pct "$out" 2 50.000)
    by=$(json_get "$out.json" "d['diagnosis']['by']" 2>/dev/null)
    ok "${name}_corrected_p99" "corrected p99 = ${p99:-?} ms" fcmp "${p99:-0}" ">" 600
    ok "${name}_uncorrected_p50" "uncorrected p50 = ${u50:-?} ms" fcmp "${u50:-999}" "<" 50
    if [ "$want" != 0 ]; then
        p999=$(pct "$out" 1 99.900)
        for p in 99:0.01:"${p99:-0}" 99.9:0.001:"${p999:-0}"; do
            IFS=: read -r pn q x <<<"$p"
            [ "$want" = 99 ] && [ "$pn" != 99 ] && continue
            tlo=$(awk -v s="$lo" -v d="$d" -v q="$q" 'BEGIN { printf "%.1f", (s - q * d) * 1000 }')
            thi=$(awk -v s="$hi" -v d="$d" -v q="$q" 'BEGIN { printf "%.1f", (s - q * d) * 1000 }')
            why="corrected p$pn $x ms, analytic $tlo-$thi ms (stop ${lo}-${hi}s, -d${d}s)"
            if awk -v x="$x" -v a="$tlo" -v b="$thi" 'BEGIN { exit !(x >= 0.9 * a && x <= 1.1 * b) }'; then
                pass "${name}_p${pn}_analytic ($why)"
            elif [ "$by" = client ]; then
                # pacer certified its own numbers as the limit: say so, do not judge them
                echo "PASS ${name}_p${pn}_analytic (not judged: $why, and pacer says the client limited the run: $(json_get "$out.json" "d['diagnosis']['text']"))"
            else
                fail "${name}_p${pn}_analytic" "$why; pacer's diagnosis: ${by:-?}"
            fi
        done
    fi
    ok "${name}_outcomes" "$(grep Outcomes "$out")" outcomes_add_up "$out"
}
STALL_RUN=()

# --- HTTP/3 (QUIC) servers and the UDP fault tools -------------------------

# udp_bound PORT: something has a UDP socket bound to PORT on 127.0.0.1 or
# on every address (from /proc/net/udp, as hex ADDR:PORT).
udp_bound() {
    local hex
    hex=$(printf '%04X' "$1")
    grep -qE "^ *[0-9]+: (0100007F|00000000):$hex " /proc/net/udp
}

# pick_udp_port: a port free for both TCP and UDP right now (see pick_port).
pick_udp_port() {
    local p
    for _ in $(seq 1 20); do
        p=$(pick_port) || return 1
        udp_bound "$p" || { echo "$p"; return 0; }
    done
    return 1
}

# wait_udp PORT [PID]: wait (5 s at most) until PORT is bound for UDP; give
# up early if PID has exited.
wait_udp() {
    local port=$1 pid=${2:-}
    for _ in $(seq 1 100); do
        udp_bound "$port" && return 0
        [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && return 1
        sleep 0.05
    done
    return 1
}

# h3_cert: a key and a self-signed certificate for localhost and 127.0.0.1,
# made once per test at run time: H3_KEY, H3_CERT (in $T_DIR/h3cert).
h3_cert() {
    local d="$T_DIR/h3cert"
    H3_KEY=$d/key.pem H3_CERT=$d/cert.pem
    [ -f "$H3_CERT" ] && return 0
    need_cmd openssl openssl || return 1
    mkdir -p "$d"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$H3_KEY" -out "$H3_CERT" -days 2 -subj /CN=localhost \
        -addext subjectAltName=DNS:localhost,IP:127.0.0.1 >/dev/null 2>&1
}

# start_caddy: Caddy (Debian's caddy) serving $CADDY_DIR/www (index.html is
# 1024 bytes) over HTTPS on 127.0.0.1:CADDY_PORT: HTTP/1.1 and h2 on TCP,
# HTTP/3 on UDP, the same port number, with h3_cert's certificate. No admin
# API, no redirect port; everything it writes (its storage, autosave.json,
# HOME) stays under $CADDY_DIR. Each request is a JSON line in $CADDY_LOG
# (caddy_count PROTO counts them: "HTTP/3.0", "HTTP/2.0", "HTTP/1.1").
# Sets CADDY_PORT, CADDY_URL (https://127.0.0.1:PORT/), CADDY_PID, CADDY_DIR.
start_caddy() {
    local try
    need_cmd caddy caddy && h3_cert || return 1
    CADDY_DIR="$T_DIR/caddy"
    CADDY_LOG="$CADDY_DIR/access.log"
    mkdir -p "$CADDY_DIR/www" "$CADDY_DIR/data" "$CADDY_DIR/config" "$CADDY_DIR/home"
    head -c 1024 /dev/zero | tr '\0' 'a' >"$CADDY_DIR/www/index.html"
    for try in 1 2 3 4 5; do
        CADDY_PORT=$(pick_udp_port) || return 1
        cat >"$CADDY_DIR/Caddyfile" <<CONF
{
	admin off
	skip_install_trust
	auto_https disable_redirects
	storage file_system $CADDY_DIR/data
	servers {
		protocols h1 h2 h3
	}
}
https://:$CADDY_PORT {
	bind 127.0.0.1
	tls $H3_CERT $H3_KEY
	root * $CADDY_DIR/www
	file_server
	log {
		output file $CADDY_LOG
		format json
	}
}
CONF
        HOME="$CADDY_DIR/home" XDG_DATA_HOME="$CADDY_DIR/data" XDG_CONFIG_HOME="$CADDY_DIR/config" \
            caddy run --config "$CADDY_DIR/Caddyfile" --adapter caddyfile >"$CADDY_DIR/out" 2>&1 &
        CADDY_PID=$!
        T_PIDS+=("$CADDY_PID")
        if wait_port 127.0.0.1 "$CADDY_PORT" "$CADDY_PID" && wait_udp "$CADDY_PORT" "$CADDY_PID"; then
            CADDY_URL="https://127.0.0.1:$CADDY_PORT/"
            return 0
        fi
        kill "$CADDY_PID" 2>/dev/null
        wait "$CADDY_PID" 2>/dev/null
    done
    return 1
}

# caddy_count PROTO: requests Caddy logged over PROTO (e.g. HTTP/3.0).
caddy_count() { grep -c "\"proto\":\"$1\"" "$CADDY_LOG" 2>/dev/null; }
# caddy_ts: when Caddy logged each response (s since the epoch), one a line.
caddy_ts() { sed -nE 's/.*"ts":([0-9.]+).*/\1/p' "$CADDY_LOG"; }

# start_gtlsserver [ARGS...]: ngtcp2's example HTTP/3 server (Debian's
# ngtcp2-server) on 127.0.0.1:GTLS_PORT (UDP) with h3_cert's certificate,
# serving $GTLS_DIR/www (index.html is 1024 bytes), with gtlsserver's
# options ARGS (e.g. --timeout=300ms: its idle timeout). Sets GTLS_PORT,
# GTLS_URL, GTLS_PID, GTLS_DIR.
start_gtlsserver() {
    local try
    need_cmd /usr/sbin/gtlsserver ngtcp2-server && h3_cert || return 1
    GTLS_DIR="$T_DIR/gtls"
    mkdir -p "$GTLS_DIR/www"
    head -c 1024 /dev/zero | tr '\0' 'a' >"$GTLS_DIR/www/index.html"
    for try in 1 2 3 4 5; do
        GTLS_PORT=$(pick_udp_port) || return 1
        /usr/sbin/gtlsserver -q "$@" -d "$GTLS_DIR/www" 127.0.0.1 "$GTLS_PORT" "$H3_KEY" "$H3_CERT" \
            >"$GTLS_DIR/out" 2>&1 &
        GTLS_PID=$!
        T_PIDS+=("$GTLS_PID")
        if wait_udp "$GTLS_PORT" "$GTLS_PID"; then
            GTLS_URL="https://127.0.0.1:$GTLS_PORT/"
            return 0
        fi
        kill "$GTLS_PID" 2>/dev/null
        wait "$GTLS_PID" 2>/dev/null
    done
    return 1
}

# _start_udptool NAME PREFIX ARGS...: start tests/tools/NAME --port 0
# --stats FILE ARGS and read its "NAME: listening on 127.0.0.1:PORT" line.
# Sets PREFIX_PORT, PREFIX_PID, PREFIX_STATS.
_start_udptool() {
    local name=$1 pre=$2 bin log="$T_DIR/$1.$RANDOM" line="" pid
    shift 2
    bin=${TOOLS:-$(dirname "$PACER")/build/tools}/$name
    [ -x "$bin" ] || bin=$(dirname "$PACER")/build/tools/$name
    "$bin" --port 0 --stats "$log.stats" "$@" >"$log.out" 2>"$log.err" &
    pid=$!
    T_PIDS+=("$pid")
    for _ in $(seq 1 100); do
        line=$(head -n1 "$log.out" 2>/dev/null)
        [ -n "$line" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    printf -v "${pre}_PORT" '%s' "${line##*:}"
    printf -v "${pre}_PID" '%s' "$pid"
    printf -v "${pre}_STATS" '%s' "$log.stats"
    [[ $line =~ ^$name:\ listening\ on\ 127\.0\.0\.1:[0-9]+$ ]]
}

# start_udprelay ARGS...: the UDP relay (tests/tools/udprelay.c), e.g.
# `start_udprelay --to "$CADDY_PORT" --drop 0.05`. Sets RELAY_PORT,
# RELAY_PID, RELAY_STATS; relay_stat KEY reads its stats file.
start_udprelay() { _start_udptool udprelay RELAY "$@"; }
relay_stat() {
    kill -USR1 "$RELAY_PID" 2>/dev/null && sleep 0.1
    grep -oE " $1=[0-9]+" "$RELAY_STATS" | cut -d= -f2
}

# start_quicfault MODE: the fault "QUIC server" (tests/tools/quicfault.c:
# silent, reset, vn, retry). Sets QF_PORT, QF_PID, QF_STATS; qf_stat KEY.
start_quicfault() { _start_udptool quicfault QF --mode "$@"; }
qf_stat() { sleep 0.2; grep -oE "$1=[0-9]+" "$QF_STATS" | cut -d= -f2; }
