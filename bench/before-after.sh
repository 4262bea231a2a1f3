#!/usr/bin/env bash
# bench/before-after.sh - one pacer binary against another (a refactor's
# "before" and "after"), with wrk and h2load in the same loop, against one
# local nginx. CPU per request = (user + system) / completed requests.
#
#   bench/before-after.sh OLD_PACER NEW_PACER [ROUNDS] [SECONDS]
#
# nginx (1 worker, 1 KiB file, access_log off) is pinned to core 0, every
# client to core 1; the tools alternate within each round (old, new, peer)
# and the median of the rounds is printed as a Markdown table on stdout.
# Runs: closed loop HTTP/1.1 -t1 -c50; constant rate -R20000 -t1 -c50;
# h2c -t1 -c50 -m10 (h2load -c50 -m10 -D the same). Exit 1: setup failed,
# 3: a run failed or could not be parsed.
set -u
set -o pipefail
export LC_ALL=C

[ $# -ge 2 ] || {
    sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
    exit 2
}
OLD=$(readlink -f "$1") NEW=$(readlink -f "$2") ROUNDS=${3:-3} DUR=${4:-5}
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "before-after: $b is not executable" >&2; exit 1; }; done
for t in nginx wrk h2load taskset /usr/bin/time; do
    command -v "$t" >/dev/null 2>&1 || [ -x /usr/sbin/$t ] || { echo "before-after: $t not found (scripts/deps.sh bench)" >&2; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

WORK=$(mktemp -d -p /tmp pacer-ba.XXXXXX) || exit 1
NGPID=""
cleanup() {
    [ -n "$NGPID" ] && kill "$NGPID" 2>/dev/null && wait "$NGPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
chmod 755 "$WORK"
mkdir -p "$WORK/www"
head -c 1024 /dev/zero | tr '\0' x >"$WORK/www/1k.html"
chmod -R a+rX "$WORK/www"

port() { echo $((20000 + RANDOM % 20000)); }
P1=$(port) P2=$(port)
while [ "$P2" = "$P1" ]; do P2=$(port); done
cat >"$WORK/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log $WORK/error.log;
pid $WORK/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK; proxy_temp_path $WORK; fastcgi_temp_path $WORK;
    uwsgi_temp_path $WORK; scgi_temp_path $WORK;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$P1;
        listen 127.0.0.1:$P2 http2;
        root $WORK/www;
    }
}
EOF
taskset -c 0 "$NGINX" -c "$WORK/nginx.conf" -p "$WORK" 2>"$WORK/nginx.err" &
NGPID=$!
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$P1") 2>/dev/null && break
    sleep 0.1
done
(exec 3<>"/dev/tcp/127.0.0.1/$P1") 2>/dev/null || { echo "before-after: nginx did not start" >&2; cat "$WORK/nginx.err" >&2; exit 1; }
U1=http://127.0.0.1:$P1/1k.html U2=http://127.0.0.1:$P2/1k.html

FAILED=0
# run NAME CMD...: prints "us_per_req req_per_s" (or "fail").
run() {
    local name=$1 out=$WORK/$1.out cpu n s
    shift
    if ! /usr/bin/time -o "$WORK/$name.time" -f '%U %S' taskset -c 1 timeout $((DUR + 30)) "$@" >"$out" 2>&1; then
        echo fail
        return
    fi
    read -r u sy <"$WORK/$name.time"
    if grep -q '^requests: ' "$out"; then # h2load
        n=$(awk '/^requests: /{print $8}' "$out")
        s=$(awk '/^finished in/{print $4}' "$out")
    else # wrk layout
        n=$(awk '/requests in/{print $1}' "$out")
        s=$(awk '/^Requests\/sec:/{print $2}' "$out")
    fi
    [ -n "$n" ] && [ "$n" -gt 0 ] 2>/dev/null || { echo fail; return; }
    awk -v u="$u" -v s="$sy" -v n="$n" -v r="$s" 'BEGIN{printf "%.2f %.0f\n", (u + s) * 1e6 / n, r}'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END{if(NR==0)print "-"; else print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

declare -A US RPS
add() { # key result
    if [ "$2" = fail ]; then
        FAILED=1
        echo "before-after: $1 failed" >&2
        return
    fi
    US[$1]="${US[$1]:-} ${2% *}"
    RPS[$1]="${RPS[$1]:-} ${2#* }"
}
for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS" >&2
    add h1-old "$(run h1-old-$r "$OLD" -t1 -c50 -d${DUR}s "$U1")"
    add h1-new "$(run h1-new-$r "$NEW" -t1 -c50 -d${DUR}s "$U1")"
    add h1-wrk "$(run h1-wrk-$r wrk -t1 -c50 -d${DUR}s "$U1")"
    add r-old "$(run r-old-$r "$OLD" -t1 -c50 -R20000 -d${DUR}s "$U1")"
    add r-new "$(run r-new-$r "$NEW" -t1 -c50 -R20000 -d${DUR}s "$U1")"
    add h2-old "$(run h2-old-$r "$OLD" -t1 -c50 -m10 --h2 -d${DUR}s "$U2")"
    add h2-new "$(run h2-new-$r "$NEW" -t1 -c50 -m10 --h2 -d${DUR}s "$U2")"
    add h2-h2load "$(run h2-h2load-$r h2load -c50 -m10 -D "$DUR" "$U2")"
done

row() { # label key-old key-new key-peer
    local o n p
    o=$(echo "${US[$2]:-}" | median) n=$(echo "${US[$3]:-}" | median)
    p=$([ -n "$4" ] && echo "${US[$4]:-}" | median || echo "")
    printf '| %s | %s | %s | %s | %s / %s / %s |\n' "$1" "$o" "$n" "${p:-—}" \
        "$(echo "${RPS[$2]:-}" | median)" "$(echo "${RPS[$3]:-}" | median)" \
        "$([ -n "$4" ] && echo "${RPS[$4]:-}" | median || echo —)"
}
echo "Median of $ROUNDS rounds of ${DUR} s; CPU per request in µs (user + system ÷ completed)."
echo
echo "| run | before µs/req | after µs/req | peer µs/req | req/s before / after / peer |"
echo "| --- | ---: | ---: | ---: | --- |"
row "HTTP/1.1 closed loop \`-t1 -c50\` (peer: wrk)" h1-old h1-new h1-wrk
row "HTTP/1.1 \`-R20000 -t1 -c50\`" r-old r-new ""
row "h2c \`-t1 -c50 -m10\` (peer: h2load -c50 -m10)" h2-old h2-new h2-h2load
[ "$FAILED" = 0 ] || exit 3
