#!/usr/bin/env bash
# shellcheck disable=SC2317  # cleanup functions are called from traps
# bench/run.sh - measure pacer side by side with its peers (wrk, wrk2, ab,
# h2load) against one local nginx. See bench/README.md.
#
#   bench/run.sh [--quick] [--keep-raw]
#
#   --quick     2 s runs, 1 round: a smoke test of the harness, not a result
#   --keep-raw  keep the work dir (raw tool outputs, nginx config) and print
#               its path
#   BENCH_ROUNDS=N overrides the number of rounds.
#
# nginx is pinned to core 0, every client to core 1. pacer and each peer are
# run alternately (pacer, peer, pacer, peer, ...) and the median per tool is
# reported. The Markdown summary goes to stdout and to bench/results/latest.md.
# Exit status: 0 all measurements were taken (goals met or not), 1 the setup
# failed (build, nginx), 3 some measurement failed or could not be parsed
# (see "Problems" in the report).
set -u
set -o pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1

QUICK=0
KEEP_RAW=0
for arg in "$@"; do
    case $arg in
    --quick) QUICK=1 ;;
    --keep-raw) KEEP_RAW=1 ;;
    -h | --help)
        awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"
        exit 0
        ;;
    *)
        echo "bench: unknown argument: $arg (try --help)" >&2
        exit 2
        ;;
    esac
done

if [ "$QUICK" = 1 ]; then
    DUR=2 MEMDUR=2 ROUNDS=1 RATE_DURS="2"
else
    DUR=10 MEMDUR=5 ROUNDS=3 RATE_DURS="2 10"
fi
ROUNDS=${BENCH_ROUNDS:-$ROUNDS}
AB_N=100000 # ab / h2load request count (about 2 s on a typical machine)
PACER=./pacer
NGINX_CPU=0
CLIENT_CPU=1

# ----------------------------------------------------------------------------
# state, cleanup

WORK=""
NGINX_PID=""
CHILD=""      # the client run in flight (a `timeout` process, its own group)
PROBLEMS=()   # lines for the report's "Problems" section
NOTES=()      # lines for the report's "Notes" section
CMDS=()       # exact commands run, in order, without repeats
declare -A CMD_SEEN=()

say() { printf 'bench: %s\n' "$*" >&2; }
problem() {
    PROBLEMS+=("$*")
    say "PROBLEM: $*"
}
note() {
    NOTES+=("$*")
    say "note: $*"
}

# Stop a process group we started (a `timeout` leader), bounded.
kill_group() {
    local pid=$1 i
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 30; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

stop_nginx() {
    [ -n "$NGINX_PID" ] || return 0
    local pid=$NGINX_PID kids i
    NGINX_PID=""
    kids=$(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ')
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
    fi
    for k in $kids; do kill -KILL "$k" 2>/dev/null; done
    wait "$pid" 2>/dev/null
    return 0
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ -n "$CHILD" ]; then
        kill_group "$CHILD"
        CHILD=""
    fi
    stop_nginx
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then
        if [ "$KEEP_RAW" = 1 ]; then
            say "raw outputs kept in $WORK"
        else
            rm -rf "$WORK"
        fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

SUDO=()
[ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && SUDO=(sudo)

# ----------------------------------------------------------------------------
# numbers

is_num() { [[ ${1:-} =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# "110757" / "1.23k" / "2.5M" / "1G" -> plain number
count_num() {
    local v=${1:-}
    if [[ $v =~ ^([0-9]+(\.[0-9]+)?)([kKMG]?)$ ]]; then
        local n=${BASH_REMATCH[1]} s=${BASH_REMATCH[3]} f=1
        case $s in k | K) f=1000 ;; M) f=1000000 ;; G) f=1000000000 ;; esac
        awk -v n="$n" -v f="$f" 'BEGIN { printf "%.6f", n * f }'
    else
        echo n/a
    fi
}

# "178.69us" / "4.60ms" / "1.2s" / "2m" / "500ns" -> milliseconds
to_ms() {
    local v=${1:-}
    if [[ $v =~ ^([0-9]+(\.[0-9]+)?)(ns|us|µs|ms|s|m|h)$ ]]; then
        local n=${BASH_REMATCH[1]} f
        case ${BASH_REMATCH[3]} in
        ns) f=0.000001 ;; us | µs) f=0.001 ;; ms) f=1 ;; s) f=1000 ;;
        m) f=60000 ;; h) f=3600000 ;;
        esac
        awk -v n="$n" -v f="$f" 'BEGIN { printf "%.6f", n * f }'
    else
        echo n/a
    fi
}

# calc EXPR A B: EXPR uses a and b; prints n/a unless both are numbers
calc() {
    local expr=$1 a=${2:-} b=${3:-}
    if is_num "$a" && { [ $# -lt 3 ] || is_num "$b"; }; then
        awk -v a="$a" -v b="${b:-0}" "BEGIN { r = ($expr); printf \"%.6f\", r }" 2>/dev/null || echo n/a
    else
        echo n/a
    fi
}
ratio() {
    if is_num "${2:-}" && awk -v b="$2" 'BEGIN { exit !(b != 0) }'; then
        calc 'a / b' "$1" "$2"
    else
        echo n/a
    fi
}

median() {
    local v vals=()
    for v in "$@"; do is_num "$v" && vals+=("$v"); done
    if [ ${#vals[@]} = 0 ]; then
        echo n/a
        return
    fi
    printf '%s\n' "${vals[@]}" | sort -g | awk '{ a[NR] = $1 }
        END { if (NR % 2) printf "%.6f", a[(NR + 1) / 2]
              else printf "%.6f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# fmt DECIMALS VALUE
fmt() {
    if is_num "${2:-}"; then printf "%.${1}f" "$2"; else echo "n/a"; fi
}

# met EXPR A [B] -> yes / no / n/a
met() {
    local expr=$1 a=${2:-} b=${3:-}
    if is_num "$a" && { [ $# -lt 3 ] || is_num "$b"; }; then
        if awk -v a="$a" -v b="${b:-0}" "BEGIN { exit !($expr) }"; then echo yes; else echo no; fi
    else
        echo n/a
    fi
}

# ----------------------------------------------------------------------------
# setup: peers, time(1), build, limits

say "installing missing peers (scripts/deps.sh bench)"
if ! timeout 900 bash scripts/deps.sh bench; then
    note "scripts/deps.sh bench failed; continuing with the tools already installed"
fi
if [ ! -x /usr/bin/time ]; then
    say "installing time(1)"
    export DEBIAN_FRONTEND=noninteractive
    timeout 600 "${SUDO[@]}" apt-get update -qq >&2 &&
        timeout 600 "${SUDO[@]}" apt-get install -y -qq --no-install-recommends time >&2
fi
if [ ! -x /usr/bin/time ]; then
    say "/usr/bin/time is missing and could not be installed (apt-get install time)"
    exit 1
fi
for t in timeout awk sort; do
    command -v "$t" >/dev/null 2>&1 || {
        say "$t is missing"
        exit 1
    }
done

say "building pacer (make)"
built=0
for attempt in 1 2 3; do
    if timeout 600 make >&2; then
        built=1
        break
    fi
    [ "$attempt" -lt 3 ] && {
        say "make failed (attempt $attempt/3); retrying in 30 s"
        sleep 30
    }
done
if [ "$built" != 1 ] || [ ! -x "$PACER" ]; then
    say "could not build pacer"
    exit 1
fi

HAVE_WRK=0 HAVE_WRK2=0 HAVE_AB=0 HAVE_H2LOAD=0
command -v wrk >/dev/null 2>&1 && HAVE_WRK=1
command -v wrk2 >/dev/null 2>&1 && HAVE_WRK2=1
command -v ab >/dev/null 2>&1 && HAVE_AB=1
command -v h2load >/dev/null 2>&1 && HAVE_H2LOAD=1
[ "$HAVE_WRK" = 1 ] || problem "wrk not found: wrk comparisons skipped (apt-get install wrk)"
[ "$HAVE_AB" = 1 ] || problem "ab not found: ab context skipped (apt-get install apache2-utils)"
[ "$HAVE_H2LOAD" = 1 ] || problem "h2load not found: h2load context skipped (apt-get install nghttp2-client)"
WRK2_SKIP="wrk2 not found on PATH: wrk2 comparisons skipped (wrk2 is not packaged in Debian; put a wrk2 binary on PATH to include them)"
[ "$HAVE_WRK2" = 1 ] || note "$WRK2_SKIP"

NGINX=$(command -v nginx 2>/dev/null || true)
[ -z "$NGINX" ] && [ -x /usr/sbin/nginx ] && NGINX=/usr/sbin/nginx
if [ -z "$NGINX" ]; then
    say "nginx not found (apt-get install nginx-light)"
    exit 1
fi

# Core pinning: nginx on core 0, clients on core 1.
NCPU=$(nproc 2>/dev/null || echo 1)
PIN_NGINX=()
PIN_CLIENT=()
if command -v taskset >/dev/null 2>&1 && [ "$NCPU" -ge 2 ]; then
    PIN_NGINX=(taskset -c "$NGINX_CPU")
    PIN_CLIENT=(taskset -c "$CLIENT_CPU")
else
    problem "cannot pin (nproc=$NCPU or no taskset): nginx and clients share CPUs; numbers are not comparable to pinned runs"
fi

# Open files: -c 10000 needs > 10000 descriptors in the client and in nginx.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
NOFILE=$(ulimit -n)
if [ "$NOFILE" != unlimited ] && [ "$NOFILE" -lt 65536 ]; then
    note "ulimit -n 65536 refused (hard limit $(ulimit -Hn)); running with ulimit -n $NOFILE"
fi
NG_NOFILE=65536
[ "$NOFILE" != unlimited ] && [ "$NOFILE" -lt 65536 ] && NG_NOFILE=$NOFILE
if [ "$NOFILE" != unlimited ] && [ "$NOFILE" -lt 10100 ]; then
    problem "ulimit -n is $NOFILE: the -c 10000 runs will run out of file descriptors"
fi
if [ "$(cat /proc/sys/net/ipv4/tcp_tw_reuse 2>/dev/null || echo 2)" = 0 ]; then
    note "net.ipv4.tcp_tw_reuse=0: repeated -c 10000 runs may exhaust loopback ports (TIME_WAIT)"
fi

WORK=$(mktemp -d -p /tmp pacer-bench.XXXXXX) || exit 1
chmod 755 "$WORK" # nginx workers run as an unprivileged user
mkdir -p "$WORK/www" "$WORK/tmp" "$WORK/raw"
chmod 755 "$WORK/www"
head -c 1024 /dev/zero | tr '\0' 'x' >"$WORK/www/1k.html"
chmod 644 "$WORK/www/1k.html"

# ----------------------------------------------------------------------------
# nginx

pick_port() {
    local lo hi a b p
    read -r lo hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { lo=32768 hi=60999; }
    # Stay out of the ephemeral range the clients' own sockets come from.
    if [ "$lo" -gt 10100 ]; then
        a=10000 b=$((lo - 1))
    elif [ "$hi" -lt 65000 ]; then
        a=$((hi + 1)) b=65535
    else
        a=1024 b=65535
    fi
    for _ in $(seq 1 50); do
        p=$((a + (RANDOM * 32768 + RANDOM) % (b - a + 1)))
        if command -v ss >/dev/null 2>&1; then
            [ -z "$(ss -Htln "sport = :$p" 2>/dev/null)" ] && {
                echo "$p"
                return
            }
        elif ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    echo "$p"
}

write_nginx_conf() {
    local port=$1 conf=$WORK/nginx.conf v
    local ngv
    ngv=$("$NGINX" -V 2>&1)
    {
        echo "worker_processes 1;"
        echo "daemon off;"
        echo "pid $WORK/nginx.pid;"
        echo "error_log $WORK/error.log warn;"
        echo "worker_rlimit_nofile $NG_NOFILE;"
        echo "events { worker_connections 20000; }"
        echo "http {"
        echo "    access_log off;"
        echo "    keepalive_requests 1000000;"
        echo "    default_type text/html;"
        echo "    client_body_temp_path $WORK/tmp/body;"
        for v in proxy fastcgi uwsgi scgi; do
            case $ngv in *"--without-http_${v}_module"*) continue ;; esac
            echo "    ${v}_temp_path $WORK/tmp/$v;"
        done
        echo "    server {"
        echo "        listen 127.0.0.1:$port backlog=65535;"
        # HTTP/2: h2c with prior knowledge on port+1, h2 over TLS on port+2.
        echo "        listen 127.0.0.1:$((port + 1)) http2 backlog=65535;"
        echo "        listen 127.0.0.1:$((port + 2)) ssl http2 backlog=65535;"
        echo "        ssl_certificate $WORK/cert.pem;"
        echo "        ssl_certificate_key $WORK/key.pem;"
        echo "        root $WORK/www;"
        echo "        location / { }"
        echo "    }"
        echo "}"
    } >"$conf"
}

start_nginx() {
    local attempt i port code
    for attempt in 1 2 3 4 5; do
        port=$(pick_port)
        [ -f "$WORK/cert.pem" ] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
            -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 -subj /CN=localhost \
            >/dev/null 2>&1
        write_nginx_conf "$port"
        : >"$WORK/error.log"
        "${PIN_NGINX[@]}" "$NGINX" -p "$WORK/" -c "$WORK/nginx.conf" -e "$WORK/error.log" \
            </dev/null >"$WORK/nginx.out" 2>&1 &
        NGINX_PID=$!
        for ((i = 0; i < 50; i++)); do
            kill -0 "$NGINX_PID" 2>/dev/null || break
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                PORT=$port
                URL="http://127.0.0.1:$PORT/1k.html"
                URL_H2C="http://127.0.0.1:$((PORT + 1))/1k.html"
                URL_H2="https://127.0.0.1:$((PORT + 2))/1k.html"
                if command -v curl >/dev/null 2>&1; then
                    code=$(curl -s -m 5 -o /dev/null -w '%{http_code} %{size_download}' "$URL")
                    if [ "$code" != "200 1024" ]; then
                        say "nginx answers '$code' for $URL, expected '200 1024'"
                        cat "$WORK/error.log" >&2
                        return 1
                    fi
                fi
                return 0
            fi
            sleep 0.1
        done
        say "nginx did not start on port $port (attempt $attempt):"
        cat "$WORK/nginx.out" "$WORK/error.log" >&2 2>/dev/null
        stop_nginx
    done
    return 1
}

say "starting nginx"
if ! start_nginx; then
    say "could not start nginx"
    exit 1
fi
say "nginx pid $NGINX_PID serving $URL"

# ----------------------------------------------------------------------------
# running and parsing one client

# Show a command the way it was run, with the URL in place.
record_cmd() {
    local c="/usr/bin/time -f '%e %U %S %M' ${PIN_CLIENT[*]:+${PIN_CLIENT[*]} }$*"
    if [ -z "${CMD_SEEN[$c]:-}" ]; then
        CMD_SEEN[$c]=1
        CMDS+=("$c")
    fi
}

# run_tool ID KIND LIMIT_S CMD...   KIND: wrk (wrk/wrk2/pacer report), ab, h2load
# Sets R_OK (1/0), R_RC, R_REQ (completed requests), R_RPS, R_CPU (user+sys
# seconds), R_RSS (KB), R_USPR (client CPU µs per request), R_P50 (ms),
# R_OUTCOMES (pacer's Outcomes line).
run_tool() {
    local id=$1 kind=$2 limit=$3
    shift 3
    local base=$WORK/raw/$id line u s m
    R_OK=0 R_RC="" R_REQ=n/a R_RPS=n/a R_CPU=n/a R_RSS=n/a R_USPR=n/a R_P50=n/a R_OUTCOMES=""
    record_cmd "$@"
    timeout -k 5 "$limit" /usr/bin/time -f '%e %U %S %M' -o "$base.time" \
        "${PIN_CLIENT[@]}" "$@" </dev/null >"$base.out" 2>"$base.err" &
    CHILD=$!
    wait "$CHILD"
    R_RC=$?
    CHILD=""

    # /usr/bin/time may put "Command exited with non-zero status N" first.
    line=$(tail -n 1 "$base.time" 2>/dev/null)
    read -r _ u s m <<<"$line"
    if is_num "${u:-}" && is_num "${s:-}"; then
        R_CPU=$(calc 'a + b' "$u" "$s")
    fi
    is_num "${m:-}" && R_RSS=$m

    case $kind in
    wrk)
        R_REQ=$(count_num "$(awk '/ requests in /{ print $1; exit }' "$base.out")")
        R_RPS=$(count_num "$(awk -F: '/^Requests\/sec:/{ gsub(/[ \t]/, "", $2); print $2; exit }' "$base.out")")
        # wrk2 / pacer -R: the " 50.000%" line of the recorded-latency block;
        # wrk: the "     50%" line.
        line=$(awk '/Recorded Latency/{ r = 1 } r && $1 == "50.000%" { print $2; exit }' "$base.out")
        [ -z "$line" ] && line=$(awk '$1 == "50.000%" { print $2; exit }' "$base.out")
        [ -z "$line" ] && line=$(awk '$1 == "50%" { print $2; exit }' "$base.out")
        [ -n "$line" ] && R_P50=$(to_ms "$line")
        R_OUTCOMES=$(grep -m1 '^ *Outcomes:' "$base.out" | sed 's/^ *//')
        ;;
    ab)
        R_REQ=$(count_num "$(awk -F: '/^Complete requests:/{ gsub(/[ \t]/, "", $2); print $2; exit }' "$base.out")")
        R_RPS=$(count_num "$(awk '/^Requests per second:/{ print $4; exit }' "$base.out")")
        line=$(awk -F: '/^Failed requests:/{ gsub(/[ \t]/, "", $2); print $2; exit }' "$base.out")
        [ -n "$line" ] && [ "$line" != 0 ] && problem "$id: ab reports $line failed requests"
        ;;
    h2load)
        R_REQ=$(count_num "$(awk '/^requests:/{ for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^succeeded/) { print $i; exit } }' "$base.out")")
        R_RPS=$(count_num "$(awk '/^finished in/{ for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^req\/s/) { print $i; exit } }' "$base.out")")
        line=$(awk '/^requests:/{ for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^(failed|errored|timeout)/ && $i != 0) print $i, $(i + 1) }' "$base.out" | tr '\n' ' ')
        [ -n "$line" ] && problem "$id: h2load reports $line"
        ;;
    esac

    # Errors the tool itself reports (the run still counts).
    line=$(grep -E '^ *(Socket errors:|Non-2xx or 3xx responses:|Errors:)' "$base.out" | sed 's/^ *//' | tr '\n' ';')
    [ -n "$line" ] && note "$id: $line"

    if is_num "$R_REQ" && awk -v r="$R_REQ" 'BEGIN { exit !(r > 0) }'; then
        R_USPR=$(calc 'a * 1e6 / b' "$R_CPU" "$R_REQ")
    fi
    if [ "$R_RC" != 0 ]; then
        problem "$id: exit status $R_RC$( [ "$R_RC" = 124 ] && echo " (timed out after ${limit}s)"): $({ tail -n 3 "$base.err"; tail -n 3 "$base.out"; } 2>/dev/null | tr '\n' ' ' | cut -c1-300)"
    elif ! is_num "$R_REQ" || ! is_num "$R_CPU"; then
        problem "$id: could not parse requests/CPU (requests=$R_REQ cpu=$R_CPU); output: $(head -c 300 "$base.out" | tr '\n' ' ')"
    else
        R_OK=1
    fi
    if [ "$kind" = wrk ] && ! is_num "$R_RPS"; then
        problem "$id: no Requests/sec line"
    fi
    say "  $id: rc=$R_RC requests=$(fmt 0 "$R_REQ") req/s=$(fmt 0 "$R_RPS") cpu=$(fmt 2 "$R_CPU")s µs/req=$(fmt 2 "$R_USPR") rss_kb=$R_RSS p50_ms=$(fmt 3 "$R_P50")"
}

limit_for() { echo $(($1 + 60)); } # seconds: run length + connect/teardown slack

# Per-round values, per metric.
A_P_US=() A_W_US=() A_P_RPS=() A_W_RPS=()
B_P=() B_W=() B_W2=()
declare -A C_RPS=() C_OUT=()
D_P=() D_W=() D_P_REQ=() D_W_REQ=()
E_P=() E_W2=() E_P_RPS=() E_W2_RPS=()
F_P_US=() F_P_RPS=() F_AB_US=() F_AB_RPS=() F_H2_US=() F_H2_RPS=()
H_PLAIN=() H_PLAIN_US=() H_LUA=() H_LUA_US=()
G_P_US_h2c=() G_P_RPS_h2c=() G_H_US_h2c=() G_H_RPS_h2c=() G_P_US_h2=() G_P_RPS_h2=() G_H_US_h2=() G_H_RPS_h2=()

# Warm nginx and the page cache; not recorded.
say "warm-up (not recorded)"
timeout 30 "${PIN_CLIENT[@]}" "$PACER" -t1 -c50 -d1s "$URL" >/dev/null 2>&1 </dev/null &
CHILD=$!
wait "$CHILD"
CHILD=""

# ----------------------------------------------------------------------------
# a. client CPU per request, closed loop
say "a. closed loop, -t1 -c50 -d${DUR}s: pacer vs wrk, $ROUNDS round(s)"
for ((r = 1; r <= ROUNDS; r++)); do
    run_tool "a-pacer-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -d"${DUR}s" "$URL"
    A_P_US+=("$R_USPR") A_P_RPS+=("$R_RPS")
    if [ "$HAVE_WRK" = 1 ]; then
        run_tool "a-wrk-$r" wrk "$(limit_for "$DUR")" wrk -t1 -c50 -d"${DUR}s" "$URL"
        A_W_US+=("$R_USPR") A_W_RPS+=("$R_RPS")
    fi
done

# b. self-inflicted latency
say "b. latency: pacer -R1000 -c50 vs wrk -c1, -d${DUR}s, $ROUNDS round(s)"
for ((r = 1; r <= ROUNDS; r++)); do
    run_tool "b-pacer-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -d"${DUR}s" -R1000 --latency "$URL"
    B_P+=("$R_P50")
    [ "$R_OK" = 1 ] && ! is_num "$R_P50" && problem "b-pacer-$r: no ' 50.000%' line"
    if [ "$HAVE_WRK" = 1 ]; then
        run_tool "b-wrk-$r" wrk "$(limit_for "$DUR")" wrk -t1 -c1 -d"${DUR}s" --latency "$URL"
        B_W+=("$R_P50")
        [ "$R_OK" = 1 ] && ! is_num "$R_P50" && problem "b-wrk-$r: no '     50%' line"
    fi
    if [ "$HAVE_WRK2" = 1 ]; then
        run_tool "b-wrk2-$r" wrk "$(limit_for "$DUR")" wrk2 -t1 -c50 -d"${DUR}s" -R1000 --latency "$URL"
        B_W2+=("$R_P50")
        [ "$R_OK" = 1 ] && ! is_num "$R_P50" && problem "b-wrk2-$r: no ' 50.000%' line"
    fi
done

# c. rate accuracy
for d in $RATE_DURS; do
    say "c. rate accuracy: pacer -t2 -c50 -R5000 -d${d}s, $ROUNDS round(s)"
    for ((r = 1; r <= ROUNDS; r++)); do
        run_tool "c-pacer-d${d}-$r" wrk "$(limit_for "$d")" "$PACER" -t2 -c50 -R5000 -d"${d}s" "$URL"
        C_RPS[$d]="${C_RPS[$d]:-} $R_RPS"
        C_OUT[$d]="${C_OUT[$d]:-}round $r: ${R_OUTCOMES:-(no Outcomes line)}"$'\n'
        [ "$R_OK" = 1 ] && [ -z "$R_OUTCOMES" ] && problem "c-pacer-d${d}-$r: no Outcomes line"
    done
done

# d. memory at -c 10000
say "d. memory: -t2 -c10000 -d${MEMDUR}s: pacer vs wrk, $ROUNDS round(s)"
for ((r = 1; r <= ROUNDS; r++)); do
    run_tool "d-pacer-$r" wrk "$(limit_for "$MEMDUR")" "$PACER" -t2 -c10000 -d"${MEMDUR}s" "$URL"
    D_P+=("$R_RSS") D_P_REQ+=("$R_REQ")
    if [ "$HAVE_WRK" = 1 ]; then
        run_tool "d-wrk-$r" wrk "$(limit_for "$MEMDUR")" wrk -t2 -c10000 -d"${MEMDUR}s" "$URL"
        D_W+=("$R_RSS") D_W_REQ+=("$R_REQ")
    fi
done

# e. CPU per request at -R 20000
say "e. paced CPU: -t1 -c50 -R20000 -d${DUR}s, $ROUNDS round(s)"
[ "$HAVE_WRK2" = 1 ] || say "  $WRK2_SKIP"
for ((r = 1; r <= ROUNDS; r++)); do
    run_tool "e-pacer-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -R20000 -d"${DUR}s" "$URL"
    E_P+=("$R_USPR") E_P_RPS+=("$R_RPS")
    if [ "$HAVE_WRK2" = 1 ]; then
        run_tool "e-wrk2-$r" wrk "$(limit_for "$DUR")" wrk2 -t1 -c50 -R20000 -d"${DUR}s" "$URL"
        E_W2+=("$R_USPR") E_W2_RPS+=("$R_RPS")
    fi
done

# f. context: ab and h2load
say "f. context: pacer -t1 -c50 -d${DUR}s vs ab -k -c50 -n$AB_N vs h2load --h1 -c50 -n$AB_N, $ROUNDS round(s)"
for ((r = 1; r <= ROUNDS; r++)); do
    run_tool "f-pacer-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -d"${DUR}s" "$URL"
    F_P_US+=("$R_USPR") F_P_RPS+=("$R_RPS")
    if [ "$HAVE_AB" = 1 ]; then
        run_tool "f-ab-$r" ab 120 ab -k -c50 -n"$AB_N" "$URL"
        F_AB_US+=("$R_USPR") F_AB_RPS+=("$R_RPS")
    fi
    if [ "$HAVE_H2LOAD" = 1 ]; then
        run_tool "f-h2load-$r" h2load 120 h2load -c50 -n"$AB_N" --h1 "$URL"
        F_H2_US+=("$R_USPR") F_H2_RPS+=("$R_RPS")
    fi
done

# g. HTTP/2 against h2load: -c50 -m10, closed loop, h2c and h2 (TLS)
if [ "$HAVE_H2LOAD" = 1 ]; then
    for proto in h2c h2; do
        u=$URL_H2C
        [ $proto = h2 ] && u=$URL_H2
        say "g. HTTP/2 ($proto): pacer -t1 -c50 -m10 -d${DUR}s --h2 vs h2load -c50 -m10 -D $DUR, $ROUNDS round(s)"
        for ((r = 1; r <= ROUNDS; r++)); do
            run_tool "g-pacer-$proto-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -m10 -d"${DUR}s" --h2 "$u"
            eval "G_P_US_$proto+=(\"\$R_USPR\") G_P_RPS_$proto+=(\"\$R_RPS\")"
            run_tool "g-h2load-$proto-$r" h2load "$(limit_for "$DUR")" h2load -c50 -m10 -D "$DUR" "$u"
            eval "G_H_US_$proto+=(\"\$R_USPR\") G_H_RPS_$proto+=(\"\$R_RPS\")"
        done
    done
fi

# h. Lua: a trivial request() against no script, closed loop
printf 'function request()\n  return wrk.format(nil, "/1k.html")\nend\n' >"$WORK/trivial.lua"
say "h. Lua request(): pacer -t1 -c50 -d${DUR}s with and without a trivial request(), $ROUNDS round(s)"
for ((r = 1; r <= ROUNDS; r++)); do
    run_tool "h-plain-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -d"${DUR}s" "$URL"
    H_PLAIN+=("$R_RPS") H_PLAIN_US+=("$R_USPR")
    run_tool "h-lua-$r" wrk "$(limit_for "$DUR")" "$PACER" -t1 -c50 -d"${DUR}s" -s "$WORK/trivial.lua" "$URL"
    H_LUA+=("$R_RPS") H_LUA_US+=("$R_USPR")
done

say "stopping nginx"
stop_nginx

# e2. The rate sweep (issue 16): bench/rate_sweep.sh with its own nginx (a
# 4 KiB page), pacer adaptive, pacer --slack 0 and wrk2 alternating at each
# rate, then the highest rate each held and the 1,000 req/s floor.
SWEEP_RATES=${SWEEP_RATES:-2000 8000 20000 40000 60000 80000 100000 120000}
SWEEP_DUR=${SWEEP_DUR:-5}
[ "$QUICK" = 1 ] && SWEEP_RATES="2000 20000" SWEEP_DUR=2
say "e2. rate sweep: -t1 -c50 -d${SWEEP_DUR}s -R {${SWEEP_RATES// /, }}, $ROUNDS round(s)"
# shellcheck disable=SC2086
SWEEP=$(ROUNDS=$ROUNDS DUR=$SWEEP_DUR FLOOR=1 "$ROOT/bench/rate_sweep.sh" $SWEEP_RATES 2>"$WORK/sweep.err") ||
    problem "e2. rate sweep failed: $(head -c 300 "$WORK/sweep.err")"
[ -s "$WORK/sweep.err" ] && NOTES+=("e2. rate sweep said: $(tr '\n' ' ' <"$WORK/sweep.err" | head -c 300)")
CMDS+=("ROUNDS=$ROUNDS DUR=$SWEEP_DUR FLOOR=1 bench/rate_sweep.sh $SWEEP_RATES")

# ----------------------------------------------------------------------------
# report

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

# a
p=$(median "${A_P_US[@]}") w=$(median "${A_W_US[@]}") x=$(ratio "$p" "$w")
row "Client CPU per request, closed loop -t1 -c50 (µs/req)" "$(fmt 2 "$p")" "wrk $(fmt 2 "$w")" "$(fmt 3 "$x")" "pacer/wrk ≤ 1.0" "$(met 'a <= 1.0' "$x")"
p=$(median "${A_P_RPS[@]}") w=$(median "${A_W_RPS[@]}") x=$(ratio "$p" "$w")
row "Throughput, closed loop -t1 -c50 (Requests/sec)" "$(fmt 0 "$p")" "wrk $(fmt 0 "$w")" "$(fmt 3 "$x")" "info" "—"

# b
p=$(median "${B_P[@]}") w=$(median "${B_W[@]}") x=$(calc 'a - b' "$p" "$w")
row "Latency p50 (ms): pacer -R1000 -c50 vs wrk -c1" "$(fmt 3 "$p")" "wrk $(fmt 3 "$w")" "$(fmt 3 "$x") ms" "\\|diff\\| ≤ 0.15 ms" "$(met 'a <= 0.15 && a >= -0.15' "$x")"
if [ "$HAVE_WRK2" = 1 ]; then
    w2=$(median "${B_W2[@]}") x=$(calc 'a - b' "$p" "$w2")
    row "Latency p50 (ms): pacer vs wrk2, both -R1000 -c50" "$(fmt 3 "$p")" "wrk2 $(fmt 3 "$w2")" "$(fmt 3 "$x") ms" "info" "—"
else
    row "Latency p50 (ms): pacer vs wrk2, both -R1000 -c50" "$(fmt 3 "$p")" "wrk2 not found" "—" "info" "skipped"
fi

# c
for d in 2 10; do
    if [[ " $RATE_DURS " == *" $d "* ]]; then
        # shellcheck disable=SC2086
        a=$(median ${C_RPS[$d]})
        x=$(calc '(a - 5000) * 100 / 5000' "$a")
        row "Rate accuracy -t2 -c50 -R5000 -d${d}s (achieved Requests/sec)" "$(fmt 2 "$a")" "—" "$(fmt 3 "$x")%" "\\|error\\| ≤ 0.5%" "$(met 'a <= 0.5 && a >= -0.5' "$x")"
    else
        row "Rate accuracy -t2 -c50 -R5000 -d${d}s (achieved Requests/sec)" "—" "—" "—" "\\|error\\| ≤ 0.5%" "skipped (--quick)"
    fi
done

# d
p=$(median "${D_P[@]}") w=$(median "${D_W[@]}") x=$(ratio "$p" "$w")
row "Peak RSS, -t2 -c10000 -d${MEMDUR}s (KB)" "$(fmt 0 "$p")" "wrk $(fmt 0 "$w")" "$(fmt 3 "$x")" "pacer/wrk ≤ 1.0" "$(met 'a <= 1.0' "$x")"

# e
p=$(median "${E_P[@]}")
if [ "$HAVE_WRK2" = 1 ]; then
    w2=$(median "${E_W2[@]}") x=$(ratio "$p" "$w2")
    row "Client CPU per request, -t1 -c50 -R20000 -d${DUR}s (µs/req)" "$(fmt 2 "$p")" "wrk2 $(fmt 2 "$w2")" "$(fmt 3 "$x")" "pacer/wrk2 ≤ 1.0" "$(met 'a <= 1.0' "$x")"
else
    row "Client CPU per request, -t1 -c50 -R20000 -d${DUR}s (µs/req)" "$(fmt 2 "$p")" "wrk2 not found: comparison skipped" "—" "pacer/wrk2 ≤ 1.0" "skipped"
fi

# f
pu=$(median "${F_P_US[@]}") pr=$(median "${F_P_RPS[@]}")
au=$(median "${F_AB_US[@]}") ar=$(median "${F_AB_RPS[@]}")
hu=$(median "${F_H2_US[@]}") hr=$(median "${F_H2_RPS[@]}")
row "Context: requests/s, pacer -t1 -c50 -d${DUR}s vs ab -k -c50 -n$AB_N" "$(fmt 0 "$pr")" "ab $(fmt 0 "$ar")" "$(fmt 3 "$(ratio "$pr" "$ar")")" "context" "—"
row "Context: client CPU µs/req, pacer vs ab" "$(fmt 2 "$pu")" "ab $(fmt 2 "$au")" "$(fmt 3 "$(ratio "$pu" "$au")")" "context" "—"
row "Context: requests/s, pacer vs h2load --h1 -c50 -n$AB_N" "$(fmt 0 "$pr")" "h2load $(fmt 0 "$hr")" "$(fmt 3 "$(ratio "$pr" "$hr")")" "context" "—"
row "Context: client CPU µs/req, pacer vs h2load" "$(fmt 2 "$pu")" "h2load $(fmt 2 "$hu")" "$(fmt 3 "$(ratio "$pu" "$hu")")" "context" "—"

# h
p=$(median "${H_LUA[@]}") w=$(median "${H_PLAIN[@]}") x=$(ratio "$p" "$w")
row "Lua: closed-loop throughput with a trivial request() vs none (Requests/sec)" "$(fmt 0 "$p")" "no script $(fmt 0 "$w")" "$(fmt 3 "$x")" "≥ 0.5" "$(met 'a >= 0.5' "$x")"
p=$(median "${H_LUA_US[@]}") w=$(median "${H_PLAIN_US[@]}")
row "Lua: client CPU per request, trivial request() vs none (µs/req)" "$(fmt 2 "$p")" "no script $(fmt 2 "$w")" "$(fmt 3 "$(ratio "$p" "$w")")" "info" "—"

# g
if [ "$HAVE_H2LOAD" = 1 ]; then
    for proto in h2c h2; do
        eval "pu=\$(median \"\${G_P_US_$proto[@]}\") hu=\$(median \"\${G_H_US_$proto[@]}\")"
        eval "pr=\$(median \"\${G_P_RPS_$proto[@]}\") hr=\$(median \"\${G_H_RPS_$proto[@]}\")"
        x=$(ratio "$pu" "$hu")
        row "HTTP/2 $proto client CPU per request, -c50 -m10 closed loop (µs/req)" "$(fmt 2 "$pu")" "h2load $(fmt 2 "$hu")" "$(fmt 3 "$x")" "pacer/h2load ≤ 1.0" "$(met 'a <= 1.0' "$x")"
        x=$(ratio "$pr" "$hr")
        row "HTTP/2 $proto throughput, -c50 -m10 closed loop (Requests/sec)" "$(fmt 0 "$pr")" "h2load $(fmt 0 "$hr")" "$(fmt 3 "$x")" "pacer/h2load ≥ 1.0" "$(met 'a >= 1.0' "$x")"
    done
fi

list() { # NAME VALUES... -> "NAME: v1, v2, v3"
    local name=$1 out="" v
    shift
    for v in "$@"; do
        if is_num "$v"; then v=$(awk -v v="$v" 'BEGIN { printf "%.6g", v }'); else v=n/a; fi
        out="$out${out:+, }$v"
    done
    echo "- $name: ${out:-none}"
}

first_line() {
    "$@" 2>&1 </dev/null | head -n 1
    return 0
}
# Debian package version, when dpkg knows the package.
pkg_ver() {
    local v
    v=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null) && [ -n "$v" ] && echo " (Debian package $1 $v)"
    return 0
}
cpu_model=$(awk -F: '/^model name/{ sub(/^[ \t]+/, "", $2); print $2; exit }' /proc/cpuinfo 2>/dev/null)
git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain -- src Makefile 2>/dev/null)" ] && git_rev="$git_rev (with uncommitted changes in src/ or Makefile)"

REPORT=$WORK/report.md
{
    echo "# pacer benchmark"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    if [ "$QUICK" = 1 ]; then
        echo "- Mode: **--quick** (smoke test of the harness: ${DUR} s runs, $ROUNDS round(s); not a result)"
    else
        echo "- Mode: full (${DUR} s runs, -c10000 runs ${MEMDUR} s, $ROUNDS rounds; medians)"
    fi
    echo "- Machine: nproc $NCPU, kernel $(uname -r), CPU ${cpu_model:-unknown}"
    echo "- Target: nginx ($("$NGINX" -v 2>&1 | sed 's/^nginx version: //')$(pkg_ver nginx-light)), 1 worker pinned to core $NGINX_CPU, 1024-byte static file, $URL"
    echo "- Clients pinned to core $CLIENT_CPU; ulimit -n $NOFILE; CPU time = user+sys from GNU time (10 ms resolution)"
    echo "- pacer: $(first_line "$PACER" -v), git $git_rev"
    echo "- wrk: $([ "$HAVE_WRK" = 1 ] && echo "$(first_line wrk -v)$(pkg_ver wrk)" || echo 'not found')"
    echo "- wrk2: $([ "$HAVE_WRK2" = 1 ] && first_line wrk2 -v || echo 'not found on PATH (not packaged in Debian): wrk2 comparisons skipped')"
    echo "- ab: $([ "$HAVE_AB" = 1 ] && echo "$(first_line ab -V)$(pkg_ver apache2-utils)" || echo 'not found')"
    echo "- h2load: $([ "$HAVE_H2LOAD" = 1 ] && echo "$(first_line h2load --version)$(pkg_ver nghttp2-client)" || echo 'not found')"
    echo
    echo "## Summary"
    echo
    echo "pacer and each peer ran alternately against the same nginx; each cell is the median of the rounds."
    echo "Rows marked *context* compare tools of different designs (ab, h2load) and have no goal."
    echo
    echo "| metric | pacer | peer | ratio/diff | goal | met? |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "## Rate accuracy: Outcomes lines"
    echo
    for d in $RATE_DURS; do
        echo "-R5000 -d${d}s:"
        echo
        printf '%s' "${C_OUT[$d]:-}" | sed 's/^/    /'
        echo
    done
    echo "## e2. Rate sweep: CPU per request, rate, p50/p99, context switches (medians)"
    echo
    printf '%s\n' "${SWEEP:-(not run)}"
    echo
    echo "## Per-round values"
    echo
    list "a. pacer µs/req" "${A_P_US[@]}"
    list "a. wrk µs/req" "${A_W_US[@]}"
    list "a. pacer req/s" "${A_P_RPS[@]}"
    list "a. wrk req/s" "${A_W_RPS[@]}"
    list "b. pacer p50 ms" "${B_P[@]}"
    list "b. wrk p50 ms" "${B_W[@]}"
    [ "$HAVE_WRK2" = 1 ] && list "b. wrk2 p50 ms" "${B_W2[@]}"
    for d in $RATE_DURS; do
        # shellcheck disable=SC2086
        list "c. pacer -d${d}s achieved req/s" ${C_RPS[$d]}
    done
    list "d. pacer peak RSS KB" "${D_P[@]}"
    list "d. wrk peak RSS KB" "${D_W[@]}"
    list "d. pacer requests completed" "${D_P_REQ[@]}"
    list "d. wrk requests completed" "${D_W_REQ[@]}"
    list "e. pacer µs/req" "${E_P[@]}"
    list "e. pacer req/s" "${E_P_RPS[@]}"
    if [ "$HAVE_WRK2" = 1 ]; then
        list "e. wrk2 µs/req" "${E_W2[@]}"
        list "e. wrk2 req/s" "${E_W2_RPS[@]}"
    fi
    list "f. pacer µs/req" "${F_P_US[@]}"
    list "f. pacer req/s" "${F_P_RPS[@]}"
    list "f. ab µs/req" "${F_AB_US[@]}"
    list "f. ab req/s" "${F_AB_RPS[@]}"
    list "f. h2load µs/req" "${F_H2_US[@]}"
    list "f. h2load req/s" "${F_H2_RPS[@]}"
    echo
    echo "## Notes"
    echo
    if [ ${#NOTES[@]} = 0 ]; then echo "- none"; else printf -- '- %s\n' "${NOTES[@]}"; fi
    echo
    echo "## Problems"
    echo
    if [ ${#PROBLEMS[@]} = 0 ]; then echo "- none"; else printf -- '- %s\n' "${PROBLEMS[@]}"; fi
    echo
    echo "## Commands"
    echo
    echo "Each run $ROUNDS time(s), in this order within a round, from the repository root; nginx:"
    echo
    echo "    ${PIN_NGINX[*]:+${PIN_NGINX[*]} }$NGINX -p DIR/ -c DIR/nginx.conf -e DIR/error.log"
    echo
    echo "with DIR/nginx.conf:"
    echo
    sed "s|$WORK|DIR|g; s/^/    /" "$WORK/nginx.conf"
    echo
    echo "clients:"
    echo
    printf '    %s\n' "${CMDS[@]}"
} >"$REPORT"

mkdir -p "$ROOT/bench/results"
cp "$REPORT" "$ROOT/bench/results/latest.md"
cat "$REPORT"
say "report written to bench/results/latest.md"

[ ${#PROBLEMS[@]} = 0 ] || exit 3
exit 0
