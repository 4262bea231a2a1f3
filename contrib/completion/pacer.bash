# bash completion for pacer(1)                              -*- shell-script -*-
#
# Installed by `make install` as $(PREFIX)/share/bash-completion/completions/pacer
# (bash-completion loads it on the first `pacer <TAB>`); or source it by hand:
#   . contrib/completion/pacer.bash
#
# Completes the subcommands, the personas (`pacer ab ...` gets ab's flags),
# pacer's flags, the values some flags take (--format, --mix, --alpn, -X) and
# file arguments. Self-contained: it does not need the bash-completion
# package's helpers. tests/integration/test_completion.sh checks that every
# long option `pacer --help` lists is here, and that each persona is offered
# exactly the flags it accepts (and not those it refuses).

# pacer's run options (pacer URL, compare, capacity, and the wrk / wrk2
# personas, which are pacer's own command line).
_pacer_run_long="--connections --duration --threads --rate --stages --start-rate --arrival --seed --latency --u_latency
--batch_latency --header --timeout --connect-timeout --slack --spin --no-tx-times --warmup --pipeline --h2 --alpn --h3
--h3-window --h3-conn-window --streams --max-concurrent-streams --window-bits --connection-window-bits --format
--script --requests --no-keepalive --keepalive --method --body --body-file
--content-type --cookie --basic-auth --head --host --connect-to --source --urls --mix
--strict-length --gnuplot --percentiles-csv --unix --tls-resume --verify --cacert --hlog --hgrm
--json --csv --html --interval --progress --quiet --no-progress --slo --server-pid --server-metrics
--shard --start-at --metrics-listen --metrics-linger
--per-rank --version --help"
_pacer_run_short="-c -d -t -R -L -U -B -H -m -s -n -k -X -p -T -C -A -i -g -e -v -h"
_pacer_compare_long="--rounds"
_pacer_capacity_long="--max-rate --max-time --precision --pause"
_pacer_report_long="--latency --u_latency --json --hgrm --html --slo --from --to --force --help"
_pacer_serve_long="--port --bind --unix --threads --size --delay --capacity --help"
_pacer_suite_long="--json --html --progress --quiet --help"
_pacer_commands="serve report compare capacity suite help"
_pacer_personas="wrk wrk2 ab h2load hey"

# The personas' own flags, as their --help spells them: those each persona
# accepts, without those it refuses (exit 2: ab's -X proxy, h2load's -r
# ramp, hey's -x proxy, ...). test_completion.sh holds these lists to the
# personas' option tables (tests/tools/persona_flags.c). wrk and wrk2 take
# pacer's run options (wrk's -T is --timeout).
_pacer_ab_flags="-n -c -t -s -p -u -T -v -i -C -H -A -V -k -d -S -q -l -g -e -r -m -f -h
--help"
_pacer_h2load_flags="-n -c -t -i -m -w -W -H -p -d -D -h --requests --clients --threads
--input-file --max-concurrent-streams --window-bits --connection-window-bits --header
--no-tls-proto --data --duration --warm-up-time --npn-list --alpn-list --h1 --connect-to
--rps --version --help"
_pacer_hey_flags="-n -c -q -z -o -m -H -t -A -d -D -T -U -a -h2 -host -disable-compression
-disable-keepalive -disable-redirects -cpus -h"
_pacer_methods="GET POST PUT PATCH DELETE HEAD OPTIONS"
_pacer_protocols="h2 http/1.1 h2,http/1.1 http/1.1,h2 h3"

# _pacer_files [GLOB...]: complete file names (those matching one of the
# GLOBs, e.g. '*.lua', when given) and directories, to walk into.
_pacer_files() {
    local IFS=$'\n' x g
    compopt -o filenames 2>/dev/null
    if [ $# -eq 0 ]; then
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -d -- "$cur"))
    for g in "$@"; do
        for x in $(compgen -f -X "!$g" -- "$cur"); do
            [ -d "$x" ] || COMPREPLY+=("$x")
        done
    done
}

_pacer_words() { COMPREPLY=($(compgen -W "$1" -- "$cur")); }

# _pacer_value MODE OPT: complete the value of OPT, the word before the
# cursor. Returns 1 when OPT takes no value (the word is not a value).
_pacer_value() {
    local mode=$1 opt=$2
    case $mode:$opt in
    ab:-p | ab:-u | ab:-g | ab:-e) _pacer_files ;;
    ab:-f) _pacer_words "ALL" ;;
    ab:-v) _pacer_words "0 1" ;;
    ab:-m) _pacer_words "$_pacer_methods" ;;
    ab:-n | ab:-c | ab:-t | ab:-s | ab:-T | ab:-C | ab:-H | ab:-A) COMPREPLY=() ;;
    ab:*) return 1 ;;
    h2load:-d | h2load:--data | h2load:-i | h2load:--input-file) _pacer_files ;;
    h2load:--npn-list | h2load:--alpn-list) _pacer_words "$_pacer_protocols" ;;
    h2load:-p | h2load:--no-tls-proto) _pacer_words "h2c http/1.1" ;;
    h2load:-n | h2load:-c | h2load:-t | h2load:-m | h2load:-w | h2load:-W | h2load:-H | \
        h2load:-D | h2load:--requests | h2load:--clients | h2load:--threads | \
        h2load:--max-concurrent-streams | h2load:--window-bits | \
        h2load:--connection-window-bits | h2load:--header | h2load:--duration | \
        h2load:--warm-up-time | h2load:--connect-to | h2load:--rps) COMPREPLY=() ;;
    h2load:*) return 1 ;;
    hey:-D) _pacer_files ;;
    hey:-m) _pacer_words "$_pacer_methods" ;;
    hey:-o) _pacer_words "csv" ;;
    hey:-n | hey:-c | hey:-q | hey:-z | hey:-H | hey:-t | hey:-A | hey:-d | hey:-T | hey:-U | \
        hey:-a | hey:-host | hey:-cpus) COMPREPLY=() ;;
    hey:*) return 1 ;;
    serve:--unix) _pacer_files ;;
    serve:--port | serve:--bind | serve:--threads | serve:--size | serve:--delay | \
        serve:--capacity) COMPREPLY=() ;;
    serve:*) return 1 ;;
    *:-s | *:--script) _pacer_files '*.lua' ;;
    *:--json) _pacer_files '*.json' ;;
    *:--csv) _pacer_files '*.csv' ;;
    *:--html) _pacer_files '*.html' ;;
    *:--hlog) _pacer_files '*.hlog' ;;
    *:--hgrm) _pacer_files '*.hgrm' ;;
    *:-p | *:--body-file | *:--urls | *:-g | *:--gnuplot | *:-e | *:--percentiles-csv | \
        *:--cacert | *:--unix) _pacer_files ;;
    *:--format) _pacer_words "wrk h2load ab hey" ;;
    *:--mix) _pacer_words "roundrobin random" ;;
    *:--tls-resume) _pacer_words "on off" ;;
    *:--arrival) _pacer_words "constant poisson" ;;
    *:--alpn) _pacer_words "$_pacer_protocols" ;;
    *:-X | *:--method) _pacer_words "$_pacer_methods" ;;
    *:-c | *:--connections | *:-d | *:--duration | *:-t | *:--threads | *:-R | *:--rate | \
        *:-H | *:--header | *:--timeout | *:--connect-timeout | *:--slack | *:--spin | *:--warmup | *:--pipeline | \
        *:-m | *:--streams | *:--max-concurrent-streams | *:--window-bits | *:--h3-window | \
        *:--connection-window-bits | *:--h3-conn-window | *:-n | *:--requests | *:--body | *:-T | \
        *:--content-type | *:-C | *:--cookie | *:-A | *:--basic-auth | *:--host | \
        *:--connect-to | *:--source | *:--interval | *:--slo | *:--rounds | *:--start-rate | \
        *:--shard | *:--start-at | *:--stages | *:--seed | *:--server-pid | *:--server-metrics | \
        *:--metrics-listen | *:--metrics-linger | \
        *:--max-rate | *:--max-time | *:--precision | *:--pause | *:--from | *:--to)
        COMPREPLY=() ;;
    *) return 1 ;;
    esac
    return 0
}

_pacer() {
    local cur prev mode=run i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]:-}
    # "--json=FILE": bash splits at '=' (COMP_WORDBREAKS).
    if [ "$cur" = "=" ]; then
        cur=""
    fi
    if [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 2 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    if [ "$COMP_CWORD" -eq 1 ]; then
        case $cur in
        -*) _pacer_words "$_pacer_run_long $_pacer_run_short" ;;
        *) _pacer_words "$_pacer_commands $_pacer_personas" ;;
        esac
        return 0
    fi
    case ${COMP_WORDS[1]} in
    serve | report | compare | capacity | suite | ab | h2load | hey) mode=${COMP_WORDS[1]} ;;
    help) return 0 ;;
    esac
    # After "--" come a script's arguments: nothing to offer.
    for ((i = 1; i < COMP_CWORD; i++)); do
        [ "${COMP_WORDS[i]}" = "--" ] && [ "$mode" != hey ] && return 0
    done
    if [ "$COMP_CWORD" -ge 2 ] && _pacer_value "$mode" "$prev"; then
        return 0
    fi
    case $mode:$cur in
    ab:*) [[ $cur == -* ]] && _pacer_words "$_pacer_ab_flags" ;;
    h2load:*) [[ $cur == -* ]] && _pacer_words "$_pacer_h2load_flags" ;;
    hey:*) [[ $cur == -* ]] && _pacer_words "$_pacer_hey_flags" ;;
    serve:*) _pacer_words "$_pacer_serve_long" ;;
    report:-*) _pacer_words "$_pacer_report_long -L -U -h" ;;
    report:*) _pacer_files '*.json' '*.hlog' ;;
    suite:-*) _pacer_words "$_pacer_suite_long" ;;
    suite:*) _pacer_files ;;
    compare:-*) _pacer_words "$_pacer_run_long $_pacer_compare_long $_pacer_run_short" ;;
    capacity:-*) _pacer_words "$_pacer_run_long $_pacer_capacity_long $_pacer_run_short" ;;
    run:-*) _pacer_words "$_pacer_run_long $_pacer_run_short" ;;
    esac
    return 0
}

complete -F _pacer pacer
