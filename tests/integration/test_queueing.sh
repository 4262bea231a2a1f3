#!/usr/bin/env bash
# serial: M/D/1 waits of 2.5 ms and 10 ms within 10%
# Poisson arrivals queue where constant ones do not (docs/methodology.md,
# "Load shapes": why Poisson). `pacer serve --threads 1 --capacity 200` is
# one first-come-first-served server with a fixed service time S = 5 ms
# whose response leaves at the start of its slot, so pacer's latency is the
# M/D/1 wait W_q plus loopback time. At 50% and 80% load:
# - pacer schedules exactly the arrivals the seed defines (the oracle,
#   tests/tools/md1_oracle.py, rebuilds them from docs/methodology.md);
# - the mean corrected latency, less the loopback time (the mean at the
#   same rate with constant arrivals, which never wait: gaps >= S), is
#   within 10% of the exact M/D/1 wait of those very arrivals, and of the
#   analytic rho S / (2 (1 - rho));
# - over 20 other seeds (60 s each) the generator's mean M/D/1 wait is
#   within 5% of the analytic one (one 10 s run's own mean wait varies by about 10% from
#   seed to seed; seed 4's is 0.6% and 1.5% from it, checked offline with
#   the oracle, so the analytic check is of pacer's measurement, not luck);
# - constant arrivals show almost no queueing.
# S is 5 ms so that the machine's own scheduling hiccups (ms) stay small
# next to the waits (2.5 ms and 10 ms). A busy machine only adds latency
# (a descheduled client or server delays responses, never hastens them), so
# the Poisson run is tried up to 3 times and the first within 10% counts;
# a wrong schedule or a wrong measurement fails every try (the oracle is
# exact for the seed).
. "$(dirname "$0")/lib.sh"

ORACLE="$(dirname "$0")/../tools/md1_oracle.py"
start_serve --threads 1 --capacity 200 || { fail serve_start "$(serve_err)"; finish; }
SEED=4 D=10 CAP=200
mean_us() { json_get "$1" "d['latency']['corrected']['mean']"; }
within() { awk -v x="$1" -v t="$2" -v f="$3" 'BEGIN { exit !(x >= (1 - f) * t && x <= (1 + f) * t) }'; }

for load in 50 80; do
    rate=$((CAP * load / 100))
    "$PACER" -t1 -c50 -R "$rate" -d 5s --json "$T_DIR/c$load.json" --quiet "$SERVE_URL" \
        >"$T_DIR/c$load" 2>&1
    read -r count sample analytic <<<"$("$PY" "$ORACLE" $SEED "$rate" $D $CAP)"
    # 60 s each: a 10 s run starts with an empty queue, which at 80% load
    # still shows in its mean (about -10%)
    read -r _ _ _ seeds <<<"$("$PY" "$ORACLE" $SEED "$rate" 60 $CAP 20)"
    # the loopback's own time: the median, which a hiccup does not move
    base=$(json_get "$T_DIR/c$load.json" "d['latency']['corrected']['percentiles']['50']") tries=""
    shared=0
    for try in 1 2 3; do
        "$PACER" -t1 -c50 -R "$rate" -d ${D}s --arrival poisson --seed $SEED \
            --json "$T_DIR/p$load.json" --quiet "$SERVE_URL" >"$T_DIR/p$load" 2>&1
        pm=$(mean_us "$T_DIR/p$load.json")
        wait=$(awk -v a="${pm:-0}" -v b="${base:-0}" 'BEGIN { printf "%.3f", a - b }')
        # pacer's own word on the machine: its thread waited for a CPU (schedstat)
        cw=$(json_get "$T_DIR/p$load.json" "d['client'].get('threads_cpu_wait', {}).get('max', 0)")
        tries="$tries $wait (cpu wait ${cw:-?})"
        within "$wait" "${sample:-0}" 0.10 && within "$wait" "${analytic:-0}" 0.10 && { shared=0; break; }
        fcmp "${cw:-0}" ">=" 0.05 && shared=$((shared + 1))
    done
    # Every try on a machine so shared that pacer's own thread waited 5% of
    # the run or more for a CPU: the server (one thread) waited too, which
    # adds to its queue; the waits are then said, not judged.
    nj=""
    [ "$shared" -eq 3 ] && nj=" (not judged: in every try pacer's thread waited for a CPU 5% of the run or more, a machine shared with other work)"
    sched=$(json_get "$T_DIR/p$load.json" "d['requests']['scheduled']")
    ok "md1_${load}_schedule_is_the_seeds" "pacer scheduled ${sched:-?}, the oracle ${count:-?}" \
        "[ -n '${count:-}' ] && [ '${sched:-x}' = '$count' ]"
    for what in arrivals analytic; do
        want=$sample
        [ $what = analytic ] && want=$analytic
        why="mean wait (corrected mean - loopback ${base:-?} us) per try:$tries us; M/D/1 on these arrivals: $sample us, analytic $analytic us"
        if within "$wait" "${want:-0}" 0.10; then
            pass "md1_${load}_wait_matches_$what"
        elif [ -n "$nj" ]; then
            echo "PASS md1_${load}_wait_matches_$what (not judged: $why; ${nj# (not judged: }"
        else
            fail "md1_${load}_wait_matches_$what" "$why"
        fi
    done
    ok "md1_${load}_generator_mean_over_seeds" "20 seeds x 60 s: $seeds us, analytic $analytic us" \
        within "${seeds:-0}" "${analytic:-0}" 0.05
    cm=$(mean_us "$T_DIR/c$load.json")
    ok "md1_${load}_constant_barely_queues" "constant: mean ${cm:-?} us; Poisson ${pm:-?} us" \
        "fcmp '${cm:-999999}' '<' \"\$(awk -v p='${pm:-0}' 'BEGIN { print 0.3 * p }')\""
done
finish
