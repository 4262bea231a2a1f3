#!/usr/bin/env bash
# bench/h3.sh - pacer over HTTP/3 (--h3) beside its HTTP/2 (--h2) and
# HTTP/1.1 over TLS, against the same local Caddy in one run: requests/s
# and CPU per request, the client's and Caddy's.
#
#   bench/h3.sh [PACER] [ROUNDS] [SECONDS]     (default ./pacer 3 5)
#
# Caddy (Debian's caddy: h1/h2 on TCP and h3 on UDP, one port, a generated
# certificate, a 1 KiB file, no access log) is pinned to core 0, pacer to
# core 1. Runs, alternating h1 h2 h3 within each round: closed loop
# (h1 -t1 -c100; h2 and h3 -t1 -c10 -m10: 100 requests in flight each) and a
# constant rate of 2000 req/s (same connections), where CPU per request is
# compared at the same load. Client CPU = (user + system) from GNU time /
# completed requests; Caddy's from /proc/PID/stat (utime + stime, clock
# ticks) over the same run. Prints the medians as a Markdown table on stdout.
# Exit 1: setup failed; 3: a run failed or could not be parsed.
set -u
set -o pipefail
export LC_ALL=C

PACER=$(readlink -f "${1:-./pacer}") ROUNDS=${2:-3} DUR=${3:-5} RATE=${BENCH_RATE:-2000}
[ -x "$PACER" ] || { echo "h3 bench: $PACER is not executable" >&2; exit 1; }
for t in caddy openssl taskset /usr/bin/time; do
    command -v "$t" >/dev/null 2>&1 || { echo "h3 bench: $t not found (scripts/deps.sh bench)" >&2; exit 1; }
done

. "$(dirname "$0")/lib_caddy.sh"
caddy_start "h3 bench" || exit 1
TCK=$(getconf CLK_TCK)

caddy_ticks() { awk '{ print $14 + $15 }' "/proc/$CPID/stat"; }
FAILED=0
# run NAME ARGS...: pacer ARGS pinned to core 1; prints
# "client_us_per_req caddy_us_per_req req_per_s" (or "fail").
run() {
    local name=$1 out=$WORK/$1.out n s c0 c1 u sy
    shift
    c0=$(caddy_ticks)
    if ! /usr/bin/time -o "$WORK/$name.time" -f '%U %S' taskset -c 1 timeout $((DUR + 30)) \
        "$PACER" -d"${DUR}s" "$@" "$U" >"$out" 2>&1; then
        echo fail
        return
    fi
    c1=$(caddy_ticks)
    read -r u sy <"$WORK/$name.time"
    n=$(awk '/requests in/ { print $1 }' "$out")
    s=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    [ -n "$n" ] && [ "$n" -gt 0 ] 2>/dev/null && ! grep -qE 'Socket errors|Non-2xx' "$out" || { echo fail; return; }
    awk -v u="$u" -v sy="$sy" -v n="$n" -v r="$s" -v c="$((c1 - c0))" -v t="$TCK" \
        'BEGIN { printf "%.2f %.2f %.0f\n", (u + sy) * 1e6 / n, c / t * 1e6 / n, r }'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
declare -A CL SV RPS
add() { # key result
    if [ "$2" = fail ]; then
        FAILED=1
        echo "h3 bench: $1 failed: $(tail -2 "$WORK/$1-$r.out" 2>/dev/null | tr "\n" " ")" >&2
        return
    fi
    local a b c
    read -r a b c <<<"$2"
    CL[$1]="${CL[$1]:-} $a" SV[$1]="${SV[$1]:-} $b" RPS[$1]="${RPS[$1]:-} $c"
    echo "  $1: $c req/s, client ${a} us/req, Caddy ${b} us/req" >&2
}
"$PACER" --h3 -t1 -c2 -d1s "$U" >/dev/null 2>&1 # warm Caddy up, not recorded
for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS" >&2
    add closed-h1 "$(run closed-h1-$r -t1 -c100)"
    add closed-h2 "$(run closed-h2-$r -t1 -c10 -m10 --h2)"
    add closed-h3 "$(run closed-h3-$r -t1 -c10 -m10 --h3)"
    add rate-h1 "$(run rate-h1-$r -t1 -c100 -R"$RATE")"
    add rate-h2 "$(run rate-h2-$r -t1 -c10 -m10 --h2 -R"$RATE")"
    add rate-h3 "$(run rate-h3-$r -t1 -c10 -m10 --h3 -R"$RATE")"
done

echo "pacer over HTTP/1.1 (TLS), HTTP/2 and HTTP/3 against Caddy $(caddy version 2>/dev/null | awk '{print $1}'), one 1 KiB file;"
echo "Caddy on core 0, pacer on core 1; median of $ROUNDS rounds of ${DUR} s; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| run | protocol | pacer options | req/s | pacer CPU us/req | Caddy CPU us/req |"
echo "|---|---|---|---:|---:|---:|"
for k in closed-h1 closed-h2 closed-h3 rate-h1 rate-h2 rate-h3; do
    case $k in
    *-h1) o="-t1 -c100" p="HTTP/1.1" ;;
    *-h2) o="-t1 -c10 -m10 --h2" p="h2" ;;
    *-h3) o="-t1 -c10 -m10 --h3" p="h3" ;;
    esac
    case $k in rate-*) o="$o -R$RATE" m="rate $RATE" ;; *) m="closed loop" ;; esac
    printf '| %s | %s | `%s` | %s | %s | %s |\n' "$m" "$p" "$o" "$(echo "${RPS[$k]:-}" | median)" \
        "$(echo "${CL[$k]:-}" | median)" "$(echo "${SV[$k]:-}" | median)"
done
[ "$FAILED" = 0 ] || exit 3
