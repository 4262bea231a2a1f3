#!/usr/bin/env bash
# A warm-up is extra: -n counts the measured requests, sent after it, in a
# closed loop and at a constant rate; what nginx logged is the warm-up's
# requests (as the report counts them) plus -n. h2load warms up only a
# timing-based run (-D): with -n its --warm-up-time is ignored, by the real
# h2load and by pacer h2load alike (nginx logs exactly -n).
. "$(dirname "$0")/lib.sh"
need_cmd h2load nghttp2-client || finish
start_nginx || { fail nginx_start "nginx did not start"; finish; }
U="http://127.0.0.1:$NGX_PORT/"
H2C="http://127.0.0.1:$NGX_H2C_PORT/"
LOG="$NGX_DIR/access.log"

# logged CMD...: run CMD (30 s at most) into $T_DIR/out, err; sets RC and
# REQS (the requests nginx logged for it).
logged() {
    local l0
    l0=$(wc -l <"$LOG")
    timeout 30 "$@" >"$T_DIR/out" 2>"$T_DIR/err"
    RC=$?
    sleep 0.1
    REQS=$(($(wc -l <"$LOG") - l0))
}
# The warm-up's requests as the report counts them ("Warm-up: 0.30s first, N ...").
warm_n() { sed -n 's/^  Warm-up: [0-9.]*s first, \([0-9]*\) requests.*/\1/p' "$T_DIR/out"; }
# The bytes the report says were read ("100 requests in 87ms, 123.34KB read").
read_kb() { sed -n 's/^  [0-9]* requests in [^,]*, \([0-9.]*\)KB read$/\1/p' "$T_DIR/out"; }

# --- closed loop: a warm-up, then exactly -n measured ---------------------------
logged "$PACER" -t1 -c2 -n 100 --warmup 300ms "$U"
w=$(warm_n)
ok warmup_closed_counts_n "rc $RC: $(cat "$T_DIR/out" "$T_DIR/err")" \
    "[ $RC -eq 0 ] && grep -q '^  100 requests in ' '$T_DIR/out' && [ ! -s '$T_DIR/err' ]"
ok warmup_closed_is_extra "nginx logged $REQS, warm-up '$w'" \
    "[ -n '$w' ] && [ '$w' -gt 0 ] && [ $REQS -eq \$((100 + $w)) ]"
# Each response is 1024 bytes of body and some 250 of headers: 100 of them,
# plus at most the 2 warm-up responses read after its end.
kb=$(read_kb)
ok warmup_closed_bytes "read '$kb' KB" "[ -n '$kb' ] && fcmp '$kb' '>=' 100 && fcmp '$kb' '<' 135"

# --- constant rate: the schedule's first -n after the warm-up ---------------------
logged "$PACER" -t1 -c2 -R 100 -n 40 --warmup 300ms "$U"
w=$(warm_n)
ok warmup_rate_counts_n "rc $RC: $(cat "$T_DIR/out" "$T_DIR/err")" \
    "[ $RC -eq 0 ] && grep -q '^Running 40 requests @' '$T_DIR/out' &&
     grep -q '^  40 requests in ' '$T_DIR/out' && [ ! -s '$T_DIR/err' ]"
ok warmup_rate_is_extra "nginx logged $REQS, warm-up '$w'" \
    "[ -n '$w' ] && [ '$w' -eq 30 ] && [ $REQS -eq 70 ]"
kb=$(read_kb)
ok warmup_rate_bytes "read '$kb' KB" "[ -n '$kb' ] && fcmp '$kb' '>=' 40 && fcmp '$kb' '<' 54"

# --- h2load: --warm-up-time without -D is ignored, as h2load does -----------------
logged h2load -n100 -c2 --warm-up-time 1 "$H2C"
ok h2load_real_ignores_warmup "rc $RC, nginx logged $REQS" "[ $RC -eq 0 ] && [ $REQS -eq 100 ]"
logged "$PACER" h2load -n100 -c2 --warm-up-time 1 "$H2C"
ok h2load_n_ignores_warmup "rc $RC, nginx logged $REQS: $(cat "$T_DIR/out" "$T_DIR/err")" \
    "[ $RC -eq 0 ] && [ $REQS -eq 100 ] &&
     grep -q '^requests: 100 total, 100 started, 100 done, 100 succeeded' '$T_DIR/out' &&
     grep -q '^pacer: note: --warm-up-time is ignored without -D' '$T_DIR/err'"

# With -D (and --rps: 25 per client, 2 clients): the warm-up, then -D measured.
logged "$PACER" h2load -D 1 -c2 --rps 25 --warm-up-time 0.4 "$H2C"
ok h2load_d_warms_up "rc $RC, nginx logged $REQS: $(cat "$T_DIR/out" "$T_DIR/err")" \
    "[ $RC -eq 0 ] && grep -q '^requests: 50 total, 50 started, 50 done, 50 succeeded' '$T_DIR/out' &&
     grep -q '^Application protocol: h2c\$' '$T_DIR/out' && [ $REQS -eq 70 ]"
# Closed loop: h2load's own line, and the protocol of the connections the
# warm-up opened (still the measured period's).
logged "$PACER" h2load -D 1 -c2 --warm-up-time 0.4 "$H2C"
ok h2load_d_warms_up_closed "rc $RC: $(cat "$T_DIR/out" "$T_DIR/err")" \
    "[ $RC -eq 0 ] && grep -q 'Timing-based test with 0.4s of warm-up time and 1s' '$T_DIR/out' &&
     grep -q '^Application protocol: h2c\$' '$T_DIR/out'"

finish
