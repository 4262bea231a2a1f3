#!/usr/bin/env bash
# pacer under mpirun from four simulated hosts: four network namespaces
# (and UTS namespaces: a hostname each), one rank in each, launched by
# mpirun's remote-shell agent (a wrapper around ip netns exec), and nginx
# in a fifth; the links add a delay, netem's where the kernel has sch_netem,
# else tests/tools/tcpdelay's in the server's namespace. The totals at the
# server are exact, every rank's requests come from its own host's address,
# the start skew is reported, the delay shows in the latency
# (docs/distributed.md, "Simulating many hosts").
. "$(dirname "$0")/lib.sh"
need_cmd mpirun openmpi-bin && need_cmd ip iproute2 && need_cmd tc iproute2 &&
    need_cmd unshare util-linux && need_cmd hostname hostname || finish
# Open MPI keeps allocations to the end of the process (test_mpi.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
TB=${TOOLS:-$(cd "$(dirname "$0")/../.." && pwd)/build/tools}
DELAY_MS=10

# --- the hosts: a bridge in this namespace, a veth and a namespace per host ------
# Host i (0-3) is namespace $NS-h$i at $NET.1$i, the server $NS-srv at
# $NET.20; this namespace (mpirun's) is $NET.254 on the bridge. Names carry
# $$; the /24 is one nothing on this machine routes or holds.
NS=pacer-$$ BR=pbr$$
NET=""
for _ in $(seq 1 20); do
    n=10.$((100 + RANDOM % 150)).$((RANDOM % 250))
    if [ -z "$(ip -4 route show match "$n.0/24" | grep -v '^default')" ] &&
        ! ip -4 -o addr | grep -q " $n\."; then
        NET=$n
        break
    fi
done
HOSTS=(0 1 2 3)
any_alive() { local p; for p; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
# netns_down: every process in the namespaces stopped (TERM, then KILL after
# 2 s), the veths, namespaces and bridge deleted.
netns_down() {
    local i n pids
    for n in TERM TERM2 KILL; do
        pids=$(for i in "${HOSTS[@]}" srv; do [ "$i" = srv ] || i=h$i; ip netns pids "$NS-$i" 2>/dev/null; done)
        [ -z "$pids" ] && break
        case $n in
        TERM) kill $pids 2>/dev/null ;;
        TERM2) for _ in $(seq 1 20); do any_alive $pids || break; sleep 0.1; done ;;
        KILL) kill -9 $pids 2>/dev/null ;;
        esac
    done
    for i in "${HOSTS[@]}" srv; do
        [ "$i" = srv ] || i=h$i
        ip link del "pv$$${i#h}" 2>/dev/null
        ip netns del "$NS-$i" 2>/dev/null
    done
    ip link del "$BR" 2>/dev/null
}
trap 'netns_down; cleanup' EXIT
# up NAME IP: namespace $NS-NAME, its eth0 at IP on the bridge, lo up.
up() {
    ip netns add "$NS-$1" && ip link add "pv$$${1#h}" type veth peer name eth0 netns "$NS-$1" &&
        ip link set "pv$$${1#h}" master "$BR" up && ip -n "$NS-$1" addr add "$2/24" dev eth0 &&
        ip -n "$NS-$1" link set eth0 up && ip -n "$NS-$1" link set lo up
}
made=0
if [ "$(id -u)" = 0 ] && [ -n "$NET" ] && ip link add "$BR" type bridge 2>"$T_DIR/netns.err"; then
    ip addr add "$NET.254/24" dev "$BR" && ip link set "$BR" up && made=1
    for i in "${HOSTS[@]}"; do up "h$i" "$NET.1$i" || made=0; done 2>>"$T_DIR/netns.err"
    up srv "$NET.20" 2>>"$T_DIR/netns.err" || made=0
fi
if [ "$made" != 1 ]; then
    # root's CAP_NET_ADMIN, a kernel with network namespaces and a free
    # private /24 are the platform's to give
    skip netns "cannot make the namespaces and the bridge here (uid $(id -u), a free 10.x /24: ${NET:-none}): $([ "$(id -u)" = 0 ] || echo "this needs root")$(head -1 "$T_DIR/netns.err" 2>/dev/null)"
    finish
fi
SRV=$NET.20
ok netns_made "$(ip netns list | grep -c "^$NS-")" "[ \$(ip netns list | grep -c '^$NS-') -eq 5 ]"

# --- the delay: netem on each host's way out, else the relay -----------------------
if ip netns exec "$NS-h0" tc qdisc add dev eth0 root netem delay "${DELAY_MS}ms" 2>"$T_DIR/netem.err"; then
    DELAY=netem
    for i in 1 2 3; do ip netns exec "$NS-h$i" tc qdisc add dev eth0 root netem delay "${DELAY_MS}ms"; done
else
    DELAY=tcpdelay
fi
export NGX_NETNS=$NS-srv NGX_ADDR=$SRV NGX_LOG_EXTRA=' $remote_addr $proxy_protocol_addr'
# the relay's upstream: a server block that reads the relay's PROXY line
PP=8080
start_nginx "server { listen 127.0.0.1:$PP proxy_protocol; root $T_DIR/nginx/www; }" ||
    { fail nginx_start "nginx did not start in $NS-srv: $(cat "$T_DIR/nginx/error.log" 2>/dev/null)"; finish; }
LOG="$NGX_DIR/access.log"
PORT=$NGX_PORT
if [ "$DELAY" = tcpdelay ]; then
    if ! [ -x "$TB/tcpdelay" ] || [ "$(dirname "$0")/../tools/tcpdelay.c" -nt "$TB/tcpdelay" ]; then
        fail build_tcpdelay "$TB/tcpdelay is missing or older than its source: make tools"
        finish
    fi
    RS=$T_DIR/tcpdelay
    ip netns exec "$NS-srv" "$TB/tcpdelay" --listen "$SRV" --port 0 --to "127.0.0.1:$PP" --proxy \
        --delay "$DELAY_MS" --stats "$RS.stats" --max-time 300 >"$RS.out" 2>"$RS.err" &
    RELAY_PID=$!
    T_PIDS+=("$RELAY_PID")
    for _ in $(seq 1 100); do grep -q listening "$RS.out" 2>/dev/null && break; sleep 0.05; done
    PORT=$(sed -n "s/^tcpdelay: listening on $SRV:\([0-9]*\)\$/\1/p" "$RS.out")
fi
# which delay this run has, and that it is in place
if [ "$DELAY" = netem ]; then
    ok netns_delay "netem: $(ip netns exec "$NS-h3" tc qdisc show dev eth0)" \
        "ip netns exec '$NS-h3' tc qdisc show dev eth0 | grep -q 'netem .*delay ${DELAY_MS}'"
else
    ok netns_delay "tcpdelay: $(cat "$RS.out" "$RS.err")" "[ -n '$PORT' ] && wait_port '$SRV' '$PORT'"
fi
echo "# the links' ${DELAY_MS} ms: $DELAY$([ "$DELAY" = tcpdelay ] && echo " (this kernel has no sch_netem: $(head -1 "$T_DIR/netem.err"))")"
U="http://$SRV:$PORT/"

# --- mpirun's remote shell: host (an address) -> its namespace and hostname --------
cat >"$T_DIR/agent" <<EOF
#!/bin/sh
# Open MPI's plm_rsh_agent: [options] HOST COMMAND..., as ssh is called
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
h=\$1
shift
case \$h in $NET.1[0-3]) ;; *) echo "agent: no such host \$h" >&2; exit 255 ;; esac
i=\${h#$NET.1}
exec ip netns exec "$NS-h\$i" unshare --uts sh -c "hostname h\$i && \$*"
EOF
chmod +x "$T_DIR/agent"
for i in "${HOSTS[@]}"; do echo "$NET.1$i slots=1"; done >"$T_DIR/hosts"
ROOT=()
[ "$(id -u)" = 0 ] && ROOT=(--allow-run-as-root)
# Every mpirun is bounded: 90 s at most.
MPI=(timeout -k 5 90 mpirun "${ROOT[@]}" --hostfile "$T_DIR/hosts" -np 4
    --mca plm_rsh_agent "$T_DIR/agent" --mca plm_rsh_no_tree_spawn 1
    --mca oob_tcp_if_include "$NET.0/24" --mca btl_tcp_if_include "$NET.0/24" --mca btl self,tcp)
export OMPI_MCA_btl_base_warn_component_unused=0
# The ranks' own JSON goes to $TMPDIR (the agent passes the environment on).
export TMPDIR=$T_DIR
R="$T_DIR/report"
lines() { grep -c -- "$1" "$LOG"; }
# sources TAG: the distinct client addresses nginx saw for TAG (the PROXY
# line's, where the relay passed one), sorted, one a line.
sources() { grep -- "$1" "$LOG" | awk '{ print ($7 != "-" && $7 != "") ? $7 : $6 }' | sort -u; }

# --- -n over four hosts: exactly N at the server ----------------------------------
: >"$LOG"
t0=$SECONDS
"${MPI[@]}" "$PACER" -t1 -c8 -n 1600 --json "$T_DIR/n.json" "${U}?netns-n" >"$R" 2>&1; rc=$?
took=$((SECONDS - t0))
sleep 0.3
echo "# -n 1600 over four hosts: nginx logged $(lines netns-n), the report completed $(completed "$R"), in ${took}s"
ok netns_n_exit "rc $rc after ${took}s: $(tail -5 "$R")" \
    "[ $rc -eq 0 ] && grep -qE '^  Outcomes: 1600 scheduled = 1600 completed' '$R' && grep -q '4 threads and 8 connections' '$R'"
ok netns_n_server_total "nginx logged $(lines netns-n), the report $(completed "$R")" \
    "[ \$(lines netns-n) -eq 1600 ] && [ \"\$(completed '$R')\" = 1600 ]"
want=$(for i in "${HOSTS[@]}"; do echo "$NET.1$i"; done)
ok netns_one_source_per_host "sources: $(sources netns-n | tr '\n' ' ')" "[ \"\$(sources netns-n)\" = '$want' ]"
ok netns_four_hostnames "$(json_get "$T_DIR/n.json" "d['distributed']['hosts']" 2>&1)" \
    "[ \"\$(json_get '$T_DIR/n.json' \"sorted(d['distributed']['hosts'])\")\" = \"['h0', 'h1', 'h2', 'h3']\" ]"
ok netns_job_bounded "took ${took}s" "[ $took -lt 60 ]"

# --- the delay shows: every request waited for the link ------------------------
p50=$(json_get "$T_DIR/n.json" "'%.3f' % (d['latency']['uncorrected']['percentiles']['50'] / 1e3)" 2>/dev/null)
lmin=$(json_get "$T_DIR/n.json" "'%.3f' % (d['latency']['uncorrected']['min'] / 1e3)" 2>/dev/null)
echo "# latency over the ${DELAY_MS} ms links ($DELAY): p50 ${p50:-?} ms, min ${lmin:-?} ms"
ok netns_delay_in_latency "p50 ${p50:-?} ms, min ${lmin:-?} ms, the links' delay ${DELAY_MS} ms" \
    "fcmp '${p50:-0}' '>=' $DELAY_MS && fcmp '${lmin:-0}' '>=' $DELAY_MS"
if [ "$DELAY" = tcpdelay ]; then
    kill -USR1 "$RELAY_PID" 2>/dev/null
    sleep 0.2
    hold=$(grep -oE 'min_hold_us=-?[0-9]+' "$RS.stats" | cut -d= -f2)
    ok netns_relay_held "$(cat "$RS.stats")" "[ '${hold:--1}' -ge $((DELAY_MS * 1000)) ]"
fi

# --- the start skew: stated, and what the ranks' own lateness and offsets make it --
skew=$(sed -nE 's/^  4 MPI ranks on [^ ]+ \.\.\.; start skew ([0-9]+)us .*/\1/p' "$R")
echo "# start skew over the four hosts: ${skew:-?} us"
D="d['distributed']"
ok netns_skew_reported "$(grep 'MPI ranks' "$R"); $(json_get "$T_DIR/n.json" "$D" 2>&1)" \
    "[ -n '$skew' ] && [ \"\$(json_get '$T_DIR/n.json' \"abs($D['start_skew_us'] - (max(l + o for l, o in zip($D['start_late_us'], $D['clock_offset_us'])) - min(l + o for l, o in zip($D['start_late_us'], $D['clock_offset_us'])))) < 1 and abs($D['start_skew_us'] - $skew) <= 0.5\")\" = True ]"
# Four namespaces, one kernel, one clock: every offset is 0 within its bound.
ok netns_clock_offsets_within_error "$(json_get "$T_DIR/n.json" "($D['clock_offset_us'], $D['clock_error_us'])" 2>&1)" \
    "[ \"\$(json_get '$T_DIR/n.json' \"all(abs(o) <= e + 1 for o, e in zip($D['clock_offset_us'], $D['clock_error_us']))\")\" = True ]"
# A start 100 ms ahead (the ranks connect first): the skew is well under it
# unless a rank woke that late on its own clock, which its lateness says.
# (the lateness spread, plus twice the offsets' error bound, at 50 ms or more)
late=$(json_get "$T_DIR/n.json" "'%.0f' % (max($D['start_late_us']) - min($D['start_late_us']))" 2>/dev/null)
woke=$(json_get "$T_DIR/n.json" "max($D['start_late_us']) - min($D['start_late_us']) + 2 * max($D['clock_error_us']) >= 50000" 2>/dev/null)
if [ -n "$skew" ] && [ "$skew" -lt 50000 ]; then
    pass netns_skew_bounded
elif [ -n "$skew" ] && [ "$woke" = True ]; then
    echo "PASS netns_skew_bounded (not judged: skew ${skew}us, a rank woke ${late}us after another on its own clock)"
else
    fail netns_skew_bounded "skew ${skew:-?}us, lateness spread ${late:-?}us"
fi

# --- -R over four hosts: what the report completed is what the server saw ------------
: >"$LOG"
t0=$SECONDS
"${MPI[@]}" "$PACER" -t1 -c32 -R400 -d2s "${U}?netns-r" >"$R" 2>&1; rc=$?
took=$((SECONDS - t0))
sleep 0.3
echo "# -R400 -d2s over four hosts: nginx logged $(lines netns-r), the report completed $(completed "$R") of $(scheduled "$R"), in ${took}s"
ok netns_rate_totals "rc $rc after ${took}s: nginx $(lines netns-r), $(grep Outcomes "$R")" \
    "[ $rc -eq 0 ] && [ \"\$(completed '$R')\" = \$(lines netns-r) ] && [ \"\$(scheduled '$R')\" = 800 ] && outcomes_add_up '$R'"
ok netns_rate_sources "sources: $(sources netns-r | tr '\n' ' ')" "[ \"\$(sources netns-r)\" = '$want' ]"
ok netns_rate_job_bounded "took ${took}s" "[ $took -lt 60 ]"

# --- everything made here goes, and nothing is left in the namespaces --------------
netns_down
left=$( (ip netns list | grep "^$NS-"; ip -o link show | grep -E "pv$$|$BR") 2>/dev/null)
ok netns_cleaned "left: $left" "[ -z '$left' ]"
finish
