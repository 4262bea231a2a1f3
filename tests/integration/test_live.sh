#!/usr/bin/env bash
# The live view in a real terminal (tmux, a private server, fixed sizes):
# `connecting N connections...` at once, several redraws a second, elapsed
# or done/total, req/s against -R, p50/p99/max of the last second and so
# far, status codes, errors, a histogram; no line wider than the terminal,
# none cut inside a field; under a load shape the stage and the target of
# the last second (not the run's mean); gone before the report; the
# recorded intervals the same as without it; nothing but plain lines when
# stderr is not a terminal or TERM=dumb. The checks bounded tightly in
# time (redraws 250 ms apart, req/s against -R, the view of -n and a
# resize) are in test_live_timing.sh, which runs alone.
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


# --- a load shape: the stage, the target of the last second ---------------
# view_check MODE FILES...: rules over captures of the view (Python below);
# prints what it saw, exits non-zero when a rule is broken.
#   stages R1,R2,...: 1 s step stages at those rates: the stage shown is the
#     one the elapsed time is in (captures within 0.1 s of a boundary are
#     skipped), with its own rate, and the target lies between the previous
#     stage's rate and this one's (the last second straddles at most one
#     boundary); the run's mean would not.
#   ramp B D: -R 0..B over D s: the rate "at" is B*E/D, the target the mean
#     of the ramp over the window shown, (last Ws) before E.
#   fields W: every view line is under W columns and made of whole fields
#     (a number is never cut), the stage is kept, and "latency now" keeps p99.
view_check() {
    "$PY" - "$@" <<'PY'
import re, sys
mode, args, files = sys.argv[1], sys.argv[2], sys.argv[3:]
N = r'[0-9]+(?:\.[0-9]+)?'
L = N + r'(?:us|ms|s)'
FIELDS = [r'\[[#.]{20}\]', N + r's/' + L, r'[0-9]+/[0-9]+ req', N + r's left', N + r's',
          r'stage [0-9]+/[0-9]+', r'\([0-9]+ req/s\)', r'\([0-9]+\.\.[0-9]+ req/s, at [0-9]+\)',
          r'ramp [0-9]+\.\.[0-9]+ req/s, at [0-9]+', r'req/s', r'[0-9]+ now',
          r'target [0-9]+ \([0-9]+%\)', r'target 0', r'[0-9]+ average', r'[0-9]+ done',
          r'latency now', r'latency so far', r'p(?:50|99) (?:' + L + '|-)', r'max (?:' + L + '|-)',
          r'\(last ' + N + r's\)', r'status', r'[0-9]{3}: [0-9]+', r'other: [0-9]+', r'-',
          r'errors [0-9]+', r'(?:connect|read|write|timeout|protocol) [0-9]+',
          r'\(failed connects [0-9]+\)']
F = '(?:' + '|'.join(FIELDS) + ')'
WHOLE = re.compile('^' + F + '(?: {1,2}' + F + ')*$')
VIEW = re.compile(r'^(\[[#.]{20}\]|[0-9.]+s/|[0-9]+/[0-9]+ req|req/s|latency|status|errors )')
WHERE = re.compile(r'^(?:\[[#.]{20}\] )?([0-9.]+)s/')
seen, bad = [], []
for path in files:
    # (capture-pane -J keeps the blanks a row ends with)
    lines = [l.rstrip() for l in open(path).read().splitlines()]
    where = [l for l in lines if WHERE.match(l)]
    if not where:
        continue
    w = where[0]
    E = float(WHERE.match(w).group(1))
    get = lambda rx, l: (re.search(rx, l) or [None, None])
    rate = [l for l in lines if l.startswith('req/s')]
    lat = [l for l in lines if l.startswith('latency now')]
    tgt = re.search(r'target ([0-9]+)', rate[0]) if rate else None
    win = re.search(r'\(last ([0-9.]+)s\)', lat[0]) if lat else None
    seen.append('%.1fs: %s | %s' % (E, w, rate[0] if rate else '-'))
    if mode == 'stages':
        rates = [float(r) for r in args.split(',')]
        m = re.search(r'stage ([0-9]+)/([0-9]+) \(([0-9]+) req/s\)', w)
        if E < 0.3 or abs(E - round(E)) < 0.1 or E > len(rates) - 0.1:
            continue
        k = int(E) + 1
        if not m or int(m.group(1)) != k or int(m.group(2)) != len(rates) or float(m.group(3)) != rates[k - 1]:
            bad.append('at %.1fs want stage %d/%d (%g req/s): %s' % (E, k, len(rates), rates[k - 1], w))
            continue
        lo, hi = sorted([rates[k - 2] if k > 1 else rates[0], rates[k - 1]])
        if not tgt or not (lo - 1 <= float(tgt.group(1)) <= hi + 1):
            bad.append('at %.1fs (stage %d) want a target in [%g, %g]: %s' % (E, k, lo, hi, rate))
    elif mode == 'ramp':
        B, D = (float(v) for v in args.split(','))
        m = re.search(r'ramp 0\.\.([0-9]+) req/s, at ([0-9]+)', w)
        if E < 0.3 or E > D - 0.1:
            continue
        if not m or float(m.group(1)) != B or abs(float(m.group(2)) - B * E / D) > B / D * 0.15:
            bad.append('at %.1fs want "ramp 0..%g req/s, at %.0f": %s' % (E, B, B * E / D, w))
        if E >= 1.2 and win:
            W = float(win.group(1))
            want = B / D * (E - W / 2)
            if not tgt or abs(float(tgt.group(1)) - want) > B / D * 0.2:
                bad.append('at %.1fs (last %gs) want a target near %.0f: %s' % (E, W, want, rate))
    elif mode == 'fields':
        width = int(args)
        for l in lines:
            if not VIEW.match(l):
                continue
            if len(l) >= width or not WHOLE.match(l):
                bad.append('%d columns: %r' % (len(l), l))
        if 'stage ' not in w:
            bad.append('no stage in %r' % w)
        if lat and not re.search('p99 ' + L, lat[0]):
            bad.append('no p99 in %r' % lat[0])
print('\n'.join(seen))
if bad or not seen:
    print('BROKEN: ' + ('; '.join(bad) if bad else 'no capture of the view'))
    sys.exit(1)
PY
}

live stages 120 30 -t1 -c8 --stages '1s:100!,1s:200!,1s:900!' "$SERVE_URL"
sleep 0.3
snap stages 14 0.2
wait_done stages
out=$(view_check stages 100,200,900 "$D"/stages.[0-9]*)
ok live_shape_stage_target "$out" [ $? -eq 0 ]
n=$(grep -cE 'stage [23]/3 \(' "$D"/stages.[0-9]* | awk -F: '$2 > 0' | wc -l)
ok live_shape_stages_seen "$n captures in stage 2 or 3" "[ $n -ge 2 ]"

live ramp 120 30 -t1 -c8 -d3s -R 0..600 "$SERVE_URL"
sleep 0.3
snap ramp 14 0.2
wait_done ramp
out=$(view_check ramp 600,3 "$D"/ramp.[0-9]*)
ok live_shape_ramp_target "$out" [ $? -eq 0 ]

live narrow 40 30 -t1 -c8 --stages '1s:100!,1s:200!,1s:900!' "$SERVE_URL"
sleep 0.3
snap narrow 10 0.25
wait_done narrow
out=$(view_check fields 40 "$D"/narrow.[0-9]*)
ok live_shape_40_columns_whole_fields "$out" [ $? -eq 0 ]

# --- TERM=dumb: a terminal that cannot move the cursor gets plain lines ---
TERM=dumb timeout 20 script -qec "$(printf '%q ' "$PACER" -t1 -c4 --stages '1s:100!,1s:200!' "$SERVE_URL") >'$D/dumb.out'" \
    "$D/dumb.log" </dev/null >/dev/null 2>&1
ok live_dumb_no_escapes "$(cat -v "$D/dumb.log" | head -5)" \
    "! grep -q \$'\\x1b' '$D/dumb.log' && grep -qE '^\\[[#.]{20}\\] 1\\.0s/2\\.00s  stage 1/2  [0-9]+ req/s  target 100  p50 ' '$D/dumb.log' && grep -q '^Requests/sec' '$D/dumb.out'"

# A terminal that says nothing of what it takes (TERM unset or empty) is
# treated as dumb too; with stdout on the terminal as well (the report), and
# for a run whose server's error quotes an escape sequence (h2fault badname:
# a header name with ESC [31m in it): not one ESC byte anywhere.
# on_pty NAME ENV... -- ARGS: pacer under `script` (a pty: stdout and stderr
# both on it) with that environment; the pty's bytes in $D/NAME.log.
on_pty() {
    local name=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    env "${envs[@]}" timeout 20 script -qec "$(printf '%q ' "$PACER" "$@")" "$D/$name.log" \
        </dev/null >/dev/null 2>&1
}
start_h2fault --mode badname || fail h2fault_start "no h2fault"
for t in dumb unset empty; do
    case $t in
    dumb) envs=(TERM=dumb) ;;
    unset) envs=(-u TERM) ;;
    empty) envs=(TERM=) ;;
    esac
    on_pty "tty_$t" "${envs[@]}" -- -t1 -c2 -d2s -R200 "$SERVE_URL"
    n=$(tr -cd '\033' <"$D/tty_$t.log" | wc -c)
    ok "live_term_${t}_no_escapes" "$n ESC bytes: $(cat -v "$D/tty_$t.log" | head -5)" \
        "[ $n -eq 0 ] && grep -qE '^\[[#.]{20}\] 1\.0s/2\.00s  [0-9]+ req/s  p50 ' '$D/tty_$t.log' && grep -q '^Requests/sec' '$D/tty_$t.log'"
    on_pty "h2_$t" "${envs[@]}" -- -t1 -c1 -d1s --h2 "$H2F_URL"
    n=$(tr -cd '\033' <"$D/h2_$t.log" | wc -c)
    ok "live_term_${t}_server_escape_quoted" "$n ESC bytes: $(grep Errors "$D/h2_$t.log" | cat -v)" \
        "[ $n -eq 0 ] && grep -qF 'invalid header field in the response: :x?[31m (protocol error' '$D/h2_$t.log'"
done
# Not a terminal at all (stdout and stderr a pipe, with and without
# --progress, and for the server's escape): no ESC either.
for pr in "" --progress; do
    "$PACER" -t1 -c1 -d1s $pr --h2 "$H2F_URL" 2>&1 | cat >"$D/pipe_h2$pr.out"
    n=$(tr -cd '\033' <"$D/pipe_h2$pr.out" | wc -c)
    ok "live_pipe_no_escapes${pr:+_progress}" "$n ESC bytes: $(cat -v "$D/pipe_h2$pr.out" | head -5)" \
        "[ $n -eq 0 ] && grep -qF ':x?[31m' '$D/pipe_h2$pr.out'"
done
# A terminal that takes them still gets the view.
on_pty tty_xterm TERM=xterm -- -t1 -c2 -d1s -R200 "$SERVE_URL"
ok live_term_xterm_redraws "$(tr -cd '\033' <"$D/tty_xterm.log" | wc -c) ESC bytes" \
    "grep -q \$'\x1b\\[J' '$D/tty_xterm.log' && grep -q '^Requests/sec' '$D/tty_xterm.log'"

# --- not a terminal, under stages: each line its stage and target --------
"$PACER" -t1 -c4 --progress --stages '1s:100!,1s:200!,1s:900!' "$SERVE_URL" >"$D/pst.out" 2>"$D/pst.err"
ok live_pipe_stages "$(cat "$D/pst.err")" \
    "grep -qE '^\\[[#.]{20}\\] 1\\.0s/3\\.00s  stage 1/3  [0-9]+ req/s  target 100  p50 ' '$D/pst.err' &&
     grep -qE '^\\[[#.]{20}\\] 2\\.0s/3\\.00s  stage 2/3  [0-9]+ req/s  target 200  p50 ' '$D/pst.err' &&
     grep -qE '^\\[[#.]{20}\\] 3\\.0s/3\\.00s  stage 3/3  [0-9]+ req/s  target 900  p50 ' '$D/pst.err' && ! grep -q \$'\\x1b' '$D/pst.err'"
"$PACER" -t1 -c4 --progress -d2s -R 0..1000 "$SERVE_URL" >"$D/pramp.out" 2>"$D/pramp.err"
ok live_pipe_ramp_target "$(cat "$D/pramp.err")" \
    "grep -qE '^\\[[#.]{20}\\] 1\\.0s/2\\.00s  [0-9]+ req/s  target 250  p50 ' '$D/pramp.err' &&
     grep -qE '^\\[[#.]{20}\\] 2\\.0s/2\\.00s  [0-9]+ req/s  target 750  p50 ' '$D/pramp.err'"

# --- Ctrl-C: the engine's "stopping" line below the view is taken into
# account; no stale view line is left above the report.
live intr 100 30 -t2 -c4 -d10s -R500 "$SERVE_URL"
# Ctrl-C once the view is up (before pacer runs it would end the shell, and
# the session with it: a slow first start on a fresh machine did that).
for _ in $(seq 1 100); do cap intr | grep -q '^req/s ' && break; sleep 0.1; done
sleep 0.5
TM send-keys -t intr C-c
wait_done intr
cap intr >"$D/intr.final"
ok live_interrupt_clean "$(cat "$D/intr.final")" \
    "! grep -qE '^\[[#.]{20}\]|^req/s |^latency  p50|^  <= ' '$D/intr.final' && grep -q 'Stopped early by SIGINT' '$D/intr.final' && grep -q '^__done__ 130' '$D/intr.final'"

# --- connecting: shown at once, while the connections are still opening ---
# A listener that never accepts (backlog 0): the connects hang until
# --connect-timeout.
"$PY" -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(30)' "$D/hang.port" &
T_PIDS+=($!)
for _ in $(seq 1 50); do [ -s "$D/hang.port" ] && break; sleep 0.05; done
t0=$(date +%s%N)
live conn 100 30 -t1 -c8 -d1s --connect-timeout 2s "http://127.0.0.1:$(cat "$D/hang.port")/"
# Polled every 50 ms (at most 5 s) until it shows, or pacer has ended: the
# line must be on the screen while the connects still hang (they do for
# the 2 s --connect-timeout), whatever the machine's load makes of the
# first screen's time (measured and said, not judged).
for _ in $(seq 1 100); do
    cap conn >"$D/conn.1"
    grep -qE '^connecting( 8 connections\.\.\.|: [0-9]+/8 open)|^__done__' "$D/conn.1" && break
    sleep 0.05
done
ms=$((($(date +%s%N) - t0) / 1000000))
ok live_connecting_at_once "after ${ms} ms: $(cat "$D/conn.1")" \
    "grep -qE '^connecting( 8 connections\.\.\.|: [0-9]+/8 open)' '$D/conn.1' && ! grep -q '^__done__' '$D/conn.1'"
wait_done conn
cap conn >"$D/conn.final"
ok live_connecting_gone "$(cat "$D/conn.final")" "! grep -qE '^connecting[ :]' '$D/conn.final'"

# --- --no-progress and --quiet: nothing but the report ---------------------
for flag in --no-progress --quiet; do
    live off 100 30 -t1 -c2 -d1s -R100 $flag "$SERVE_URL"
    sleep 0.5
    cap off >"$D/off.1"
    wait_done off
    cap off >"$D/off.final"
    ok "live_off_${flag#--}" "$(cat "$D/off.1" "$D/off.final")" \
        "! grep -qE '^connecting|req/s  [0-9]+ now|^\[[#.]{20}\]' '$D/off.1' && grep -q '^Requests/sec' '$D/off.final'"
done

# --- the never-sent requests of an overloaded run stay in their intervals --
start_serve --threads 1 --capacity 300 || { fail serve_start2 "pacer serve did not start"; finish; }
live ns 100 30 -t2 -c2 -d3s -R3000 --timeout 1s --json "$D/ns.json" "$SERVE_URL"
wait_done ns
# (as test_intervals.sh without the view: due at 3000/s, not sent at
# 300/s, every whole second holds its share).
ok live_never_sent_placed "$(json_get "$D/ns.json" "[(p['length_s'], p['errors']) for p in d['intervals']['series']], d['requests']['never_sent']")" \
    "\"\$PY\" -c \"import json,sys; d=json.load(open(sys.argv[1])); s=d['intervals']['series']; n=d['requests']['never_sent']; w=[p['errors'] for p in s if p['length_s'] > 0.9]; sys.exit(not (n > 3000 and sum(p['errors'] for p in s) == n and len(w) == 3 and min(w) > n / 6))\" '$D/ns.json'"

# (The knee while it happens, the last second against the run so far:
# test_live_timing.sh.)

# --- not a terminal: stderr as today, no escape sequences ------------------
"$PACER" -t1 -c2 -d1s -R100 --progress "$SERVE_URL" >"$D/pipe.out" 2>"$D/pipe.err"
ok live_pipe_plain "$(cat -v "$D/pipe.err" | head -3)" \
    "! grep -q \$'\x1b' '$D/pipe.err' && ! grep -q \$'\r' '$D/pipe.err' && grep -qE '^\[[#.]{20}\] 1\.0s/1\.00s  [0-9]+ req/s  p50 ' '$D/pipe.err'"
"$PACER" -t1 -c2 -d1s -R100 "$SERVE_URL" 2>&1 | cat >"$D/pipe2.out"
ok live_pipe_quiet "$(cat -v "$D/pipe2.out" | head -3)" \
    "! grep -q \$'\x1b' '$D/pipe2.out' && ! grep -q 'connecting' '$D/pipe2.out' && grep -q '^Requests/sec' '$D/pipe2.out'"

finish
