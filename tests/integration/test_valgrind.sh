#!/usr/bin/env bash
# Valgrind memcheck over short real runs: HTTP/1.1 at a rate with result
# files, HTTP/2 closed loop, HTTPS. Zero errors and nothing lost (rules
# that hold on a loaded machine: no bound on time or rate).
. "$(dirname "$0")/lib.sh"

case "$PACER" in *build-san*)
    skip valgrind "an ASan build cannot run under valgrind (make SAN=1 test runs the sanitizers instead)"
    finish ;;
esac
need_cmd valgrind valgrind || finish
start_serve --threads 1 || { fail serve_start "no pacer serve"; finish; }
start_h2fault --mode ok || { fail h2fault_start "no h2fault"; finish; }
start_nginx || { fail nginx_start "no nginx"; finish; }

vg() { # NAME ARGS...
    local name=$1; shift
    valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --log-file="$T_DIR/vg.$name" "$PACER" "$@" >"$T_DIR/out.$name" 2>&1
    local rc=$?
    ok "valgrind_$name" "exit $rc: $(grep -E 'ERROR SUMMARY|definitely|indirectly' "$T_DIR/vg.$name" | head -3)" \
        "[ $rc -eq 0 ] && grep -q 'ERROR SUMMARY: 0 errors' '$T_DIR/vg.$name' && grep -q '^Requests/sec:' '$T_DIR/out.$name'"
}

vg h1_rate_outputs -t2 -c4 -d1s -R200 --latency -U --json "$T_DIR/v.json" --hlog "$T_DIR/v.hlog" --csv "$T_DIR/v.csv" "$SERVE_URL"
vg h2c_closed -t1 -c2 -m4 -d1s --h2 "$H2F_URL"
vg https -t1 -c2 -d1s "https://127.0.0.1:$NGX_TLS_PORT/"
valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --log-file="$T_DIR/vg.report" "$PACER" report -U "$T_DIR/v.json" "$T_DIR/v.hlog" >/dev/null 2>&1
rc=$?
ok valgrind_report "exit $rc: $(grep -E 'ERROR SUMMARY' "$T_DIR/vg.report")" "[ $rc -eq 0 ]"

finish
