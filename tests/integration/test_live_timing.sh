#!/usr/bin/env bash
# serial: redraws counted 250 ms apart, connecting shown within 600 ms
# test_live.sh's checks bounded tightly in time, which need the machine to
# themselves (the rest of test_live.sh holds on a loaded one): the live
# view in a real terminal (tmux) redrawn several times a second at a
# constant rate, req/s against -R, the last second's percentiles; -n's
# done/total within 0.8 s of the start, a narrow, short terminal, a resize;
# the knee's last second against the run so far.
. "$(dirname "$0")/lib.sh"

D="$T_DIR/live"; mkdir -p "$D"
need_cmd tmux tmux || finish
SOCK="pacer-live-$$"
TM() { tmux -L "$SOCK" "$@"; }
stop_tmux() { TM kill-server 2>/dev/null; }
trap 'stop_tmux; cleanup' EXIT

start_serve --threads 1 || { fail serve_start "pacer serve did not start"; finish; }

# live NAME W H ARGS...: run pacer in a new W x H tmux session (stdout and
# stderr on the terminal, as a person runs it), then `__done__ RC`.
live() {
    local name=$1 w=$2 h=$3; shift 3
    TM kill-session -t "$name" 2>/dev/null
    # bash, whatever the default shell: a Ctrl-C sent while pacer runs must
    # reach pacer and leave the shell waiting for it (dash, /bin/sh on a
    # fresh Debian with no SHELL, dies of it and ends the session).
    TM new-session -d -s "$name" -x "$w" -y "$h" \
        bash -c "$(printf '%q ' "$PACER" "$@"); echo __done__ \$?; sleep 120"
}
cap() { TM capture-pane -p -J -t "$1"; }
# wait_done NAME: until pacer has ended (max ~20 s).
wait_done() {
    for _ in $(seq 1 200); do cap "$1" | grep -q '^__done__' && return 0; sleep 0.1; done
    return 1
}
# snap NAME N GAP: N captures GAP seconds apart into $D/NAME.K.
snap() {
    for k in $(seq 1 "$2"); do cap "$1" >"$D/$1.$k"; sleep "$3"; done
}

# --- a constant-rate run: everything the view shows ------------------------
live rate 100 30 -t2 -c10 -d3s -R1000 --json "$D/rate.json" --csv "$D/rate.csv" --hlog "$D/rate.hlog" \
    "$SERVE_URL"
sleep 0.3
snap rate 10 0.25
wait_done rate
cap rate >"$D/rate.final"
el=$(cat "$D"/rate.[0-9]* | grep -oE '^\[[#.]{20}\] [0-9.]+s/3\.00s  [0-9.]+s left' | sort -u)
n=$(printf '%s\n' "$el" | grep -c .)
# 10 captures over 2.5 s: a view redrawn once a second shows at most 4 values.
ok live_redraws_often "$n different elapsed values in 10 captures 250 ms apart: $el" "[ $n -ge 7 ]"
mid="$D/rate.5"
ok live_rate_vs_target "$(grep 'req/s' "$mid")" \
    "grep -qE '^req/s  [0-9]+ now  target 1000 \((9[0-9]|10[0-9])%\)  [0-9]+ average  [0-9]+ done' '$mid'"
ok live_percentiles "$(grep latency "$mid")" \
    "grep -qE '^latency now  p50 [0-9.]+(us|ms)  p99 [0-9.]+(us|ms)  max [0-9.]+(us|ms)  \(last (0\.9|1\.0)s\) *$' '$mid' &&
     grep -qE '^latency so far  p50 [0-9.]+(us|ms)  p99 [0-9.]+(us|ms)  max [0-9.]+(us|ms) *$' '$mid'"
ok live_status_codes "$(grep status "$mid")" "grep -qE '^status  200: [0-9]+$' '$mid'"
ok live_errors "$(grep errors "$mid")" "grep -qE '^errors 0$' '$mid'"
n=$(grep -cE '^  <= +[0-9.]+(us|ms|s) \|[# ]+\| [0-9]+$' "$mid")
ok live_histogram "$n histogram rows: $(cat "$mid")" "[ $n -ge 2 ]"
w=$(grep -E '^\[|^req/s|^latency|^status|^errors|^  <=' "$mid" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
ok live_fits_width "widest line $w" "[ $w -lt 100 ]"
ok live_gone_after "$(cat "$D/rate.final")" \
    "! grep -qE 'req/s  [0-9]+ now|^latency  p50|^  <= ' '$D/rate.final' && grep -q '^Requests/sec:' '$D/rate.final' && grep -q '^__done__ 0' '$D/rate.final'"
ok live_header_kept "$(head -3 "$D/rate.final")" \
    "head -2 '$D/rate.final' | grep -q '^Running 3s test @' && sed -n 2p '$D/rate.final' | grep -q '2 threads and 10 connections'"
# The view changes nothing recorded: 3 intervals of 1 s that add up.
ok live_intervals_same "$(json_get "$D/rate.json" "[(p['length_s'], p['requests']) for p in d['intervals']['series']], d['requests']['completed']")" \
    "\"\$PY\" -c \"import json,sys; d=json.load(open(sys.argv[1])); s=d['intervals']['series']; sys.exit(not (len(s) == 3 and all(abs(p['length_s'] - 1) < 0.01 for p in s) and sum(p['requests'] for p in s) == d['requests']['completed'] > 2500))\" '$D/rate.json'"
rows=$(($(wc -l <"$D/rate.csv") - 1))
ok live_csv_rows "$rows CSV rows" "[ $rows -eq 3 ]"
n=$(grep -cE '^Tag=corrected,[0-9.]+,1\.000,' "$D/rate.hlog")
ok live_hlog_intervals "$n corrected intervals of 1 s: $(grep -c '^Tag=' "$D/rate.hlog") records" "[ $n -eq 3 ]"

# --- -n: done/total; a narrow, short terminal; a resize ---------------------
# 5 s, so that the resize comes while the view is up, however slow the
# machine is to start pacer and tmux.
live count 44 12 -t1 -c4 -n 5000 -R1000 "$SERVE_URL"
sleep 0.8
cap count >"$D/count.1"
ok live_done_total "$(cat "$D/count.1")" "grep -qE '^\[[#.]{20}\] [0-9]+/5000 req' '$D/count.1'"
w=$(grep -E '^\[|^req/s|^latency|^status|^errors|^  <=' "$D/count.1" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
ok live_narrow_width "widest line $w of 44: $(cat "$D/count.1")" "[ $w -lt 44 ]"
n=$(grep -cE '^\[[#.]{20}\] |^req/s|^latency|^status|^errors|^  <=' "$D/count.1")
ok live_short_height "$n view lines on 12 rows" "[ $n -ge 5 ] && [ $n -le 11 ]"
TM resize-window -t count -x 30 -y 12 2>/dev/null
# Until pacer's redraw at the new width: tmux first rewraps the old view to
# 30 columns (lines 30 wide); pacer's next frame, which must erase all of
# the rewrapped rows, has one copy of its first lines, each under 30. Within
# 0.5 s on a quiet machine, later under load (bounded: 20 looks 250 ms apart).
for _ in $(seq 1 20); do
    sleep 0.25
    TM capture-pane -p -t count >"$D/count.2"
    # (30 columns leave no room for the bar: the count stands first)
    n=$(grep -cE '^\[[#.]{20}|^[0-9]+/5000 req|^req/s ' "$D/count.2")
    w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$D/count.2")
    [ "$n" -eq 2 ] && [ "$w" -lt 30 ] && break
    grep -q '^__done__' "$D/count.2" && break
done
ok live_resized "$n copies of the first lines, widest $w of 30: $(cat "$D/count.2")" \
    "[ $n -eq 2 ] && [ $w -lt 30 ]"
wait_done count
cap count >"$D/count.final"
# The report's first lines may have scrolled off 12 rows: look for them in
# the scrollback too (that also holds the view copies the resize left).
TM capture-pane -p -J -S - -t count >"$D/count.all"
ok live_count_gone "$(cat "$D/count.final")" \
    "! grep -qE '^req/s |^latency  p50|^  <= ' '$D/count.final' && grep -q '5000 requests in' '$D/count.all'"

start_serve --threads 1 --capacity 300 || { fail serve_start2 "pacer serve did not start"; finish; }
# --- the knee while it happens: the last second against the run so far ----
# 250/s for 2 s, then 900/s against a server that serves 300/s: in the
# second stage the queue grows, and the responses of the last second wait
# far longer than the run's median, which the fast first stage holds down.
live knee 120 30 -t1 -c50 --timeout 5s --stages '2s:250!,1.5s:900!' "$SERVE_URL"
sleep 0.3
snap knee 14 0.25
wait_done knee
out=$("$PY" - "$D"/knee.[0-9]* <<'PY'
import re, sys
def ms(v):
    n, u = re.match(r'([0-9.]+)(us|ms|s)', v).groups()
    return float(n) * {'us': 1e-3, 'ms': 1, 's': 1e3}[u]
best = None
for path in sys.argv[1:]:
    t = open(path).read()
    e = re.search(r'^\[[#.]{20}\] ([0-9.]+)s/', t, re.M)
    now = re.search(r'^latency now  p50 ([0-9.]+(?:us|ms|s))', t, re.M)
    far = re.search(r'^latency so far  p50 ([0-9.]+(?:us|ms|s))', t, re.M)
    if e and now and far and float(e.group(1)) >= 2.6:
        r = ms(now.group(1)) / ms(far.group(1))
        print('%ss: p50 now %s, so far %s' % (e.group(1), now.group(1), far.group(1)))
        best = r if best is None or r > best else best
sys.exit(not (best and best > 10))
PY
)
ok live_knee_recent_latency "$out" [ $? -eq 0 ]

# One capture for whoever reads the log.
echo "--- a capture of the view (100x30, -R1000, mid-run) ---"
sed -e '/^$/d' "$D/rate.5"
finish
