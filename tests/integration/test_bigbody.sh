#!/usr/bin/env bash
# Large response bodies over plain TCP: the part of a body no script reads
# is dropped in the kernel unread (recv MSG_TRUNC; engine/conn.c
# conn_readable, proto/h1parse.c h1_skip). Whatever the path, every response
# is counted whole: requests, body and wire bytes as when the bytes are
# read; a script's response() still gets every body byte; under -R (reads
# that also take the kernel's receive time), pipelined, and over a
# Unix-domain socket (read whole: MSG_TRUNC is TCP's), the same.
. "$(dirname "$0")/lib.sh"

D="$T_DIR/bigbody"; mkdir -p "$D"
SIZE=1048576
start_serve --size $SIZE || { fail serve_start "pacer serve did not start"; finish; }
U=$SERVE_URL

# The bytes of n responses: what each JSON says, and the body bytes.
bytes() { json_get "$1" "d['requests']['completed'], d['bytes']['body'], d['bytes']['read'], d['errors'] if 'errors' in d else None"; }

"$PACER" -t1 -c4 -n 200 --json "$D/skip.json" "$U" >"$D/skip.out" 2>&1
rc=$?
ok bigbody_closed_counted "exit $rc: $(bytes "$D/skip.json")" \
    "[ $rc -eq 0 ] && [ \"\$(json_get '$D/skip.json' \"d['requests']['completed'] == 200 and d['bytes']['body'] == 200 * $SIZE\")\" = True ] && outcomes_add_up '$D/skip.out'"

# A script that reads bodies: each one whole, and the same byte counts.
printf 'function response(status, headers, body)\n  if #body ~= %d then error("a body of " .. #body .. " bytes") end\nend\n' $SIZE >"$D/body.lua"
"$PACER" -t1 -c4 -n 200 -s "$D/body.lua" --json "$D/read.json" "$U" >"$D/read.out" 2>&1
rc=$?
ok bigbody_script_sees_every_byte "exit $rc: $(tail -2 "$D/read.out")" \
    "[ $rc -eq 0 ] && ! grep -q 'run stopped' '$D/read.out' && [ \"\$(json_get '$D/read.json' \"d['requests']['completed'] == 200\")\" = True ]"
ok bigbody_same_bytes_as_read "dropped: $(bytes "$D/skip.json"); read: $(bytes "$D/read.json")" \
    "[ \"\$(json_get '$D/skip.json' \"(d['bytes']['body'], d['bytes']['read'])\")\" = \"\$(json_get '$D/read.json' \"(d['bytes']['body'], d['bytes']['read'])\")\" ]"

# Under a rate: the reads take the kernel's receive time too.
"$PACER" -t1 -c4 -d2s -R 100 --json "$D/rate.json" "$U" >"$D/rate.out" 2>&1
rc=$?
ok bigbody_rate_counted "exit $rc: $(bytes "$D/rate.json"); $(grep Outcomes "$D/rate.out")" \
    "[ $rc -eq 0 ] && [ \"\$(json_get '$D/rate.json' \"d['requests']['completed'] == d['requests']['scheduled'] == 200 and d['bytes']['body'] == 200 * $SIZE\")\" = True ]"

# Pipelined: a drop stops at the body's end, the next head is read.
"$PACER" -t1 -c2 -n 200 --pipeline 4 --json "$D/pipe.json" "$U" >"$D/pipe.out" 2>&1
rc=$?
ok bigbody_pipelined "exit $rc: $(bytes "$D/pipe.json"); $(grep -E 'Errors|Outcomes' "$D/pipe.out")" \
    "[ $rc -eq 0 ] && [ \"\$(json_get '$D/pipe.json' \"d['requests']['completed'] == 200 and d['bytes']['body'] == 200 * $SIZE\")\" = True ] && ! grep -q 'Errors:' '$D/pipe.out'"

# A Unix-domain socket reads every byte (no MSG_TRUNC there), counted the same.
SOCK="$D/serve.sock"
start_serve --size $SIZE --unix "$SOCK" || fail serve_unix_start "pacer serve --unix did not start"
"$PACER" -t1 -c4 -n 100 --unix "$SOCK" --json "$D/unix.json" "http://localhost/" >"$D/unix.out" 2>&1
rc=$?
ok bigbody_unix "exit $rc: $(bytes "$D/unix.json"); $(grep -E 'Errors|Outcomes' "$D/unix.out")" \
    "[ $rc -eq 0 ] && [ \"\$(json_get '$D/unix.json' \"d['requests']['completed'] == 100 and d['bytes']['body'] == 100 * $SIZE\")\" = True ]"

finish
