/*
 * peer_hints.c - one table of the flags of wrk, wrk2, ab, h2load and hey
 * that pacer's own command line does not take, each with what to type here
 * instead (or why pacer has no such thing). pacer's parser prints the row's
 * hint in the place of a bare "unknown option" (parse.c); where the tool's
 * persona takes the flag as it is, the hint says so ("or run it as `pacer
 * hey ...`"), read from that persona's own table.
 *
 * The flags are those the tools' own --help lists (tests/data/peer-help/);
 * tests/integration/test_peer_hints.sh walks every row, and checks that
 * every flag there is either pacer's own or a row here. A flag pacer takes
 * with another meaning (hey's -m, ab's -s, h2load's -p) is no row: its take
 * hints when the value cannot be pacer's (takes.c).
 */
#include "cli/cli_int.h"

#include <string.h>

#include "cli/persona.h"

static const peer_flag rows[] = {
    /* ab */
    {"ab", "-b", true, "not supported: pacer leaves TCP buffer sizes to the kernel"},
    {"ab", "-u", true, "a PUT body is -X PUT -p FILE here"},
    {"ab", "-w", false, "not supported: no HTML tables; the HTML report is --html FILE"},
    {"ab", "-x", true, "not supported: no HTML tables; the HTML report is --html FILE"},
    {"ab", "-y", true, "not supported: no HTML tables; the HTML report is --html FILE"},
    {"ab", "-z", true, "not supported: no HTML tables; the HTML report is --html FILE"},
    {"ab", "-P", true, "not supported: pacer sends through no proxy"},
    {"ab", "-V", false, "the version is -v/--version here"},
    {"ab", "-S", false, "not supported: pacer's own report has no confidence estimators"},
    {"ab", "-q", false, "no live progress is --quiet here"},
    {"ab", "-l", false, "a varying response length is accepted here by default: drop it"},
    {"ab", "-r", false, "pacer never stops on receive errors: drop it"},
    {"ab", "-I", false,
     "not supported: pacer sends SNI for a name, none for an address; --host NAME sets it"},
    {"ab", "-Z", true, "not supported: pacer uses the TLS library's cipher suites"},
    {"ab", "-f", true, "not supported: pacer offers the TLS library's versions"},
    {"ab", "-E", true, "not supported: pacer sends no client certificate"},
    /* hey */
    {"hey", "-q", true, "the rate in all is -R Q*c here: hey's -q Q is per worker"},
    {"hey", "-z", true, "the duration is -d T here"},
    {"hey", "-o", true, "a CSV per interval is --csv FILE here"},
    {"hey", "-D", true, "a request body from a file is -p/--body-file FILE here"},
    {"hey", "-a", true, "basic authentication is -A/--basic-auth U:P here"},
    {"hey", "-x", true,
     "not supported: pacer sends through no proxy; --connect-to H:P connects elsewhere"},
    {"hey", "-h2", false, "HTTP/2 is --h2 here"},
    {"hey", "-host", true, "the Host header is --host NAME here"},
    {"hey", "-disable-compression", false, "pacer asks for no compression: drop it"},
    {"hey", "-disable-keepalive", false, "a connection per request is --no-keepalive here"},
    {"hey", "-disable-redirects", false, "pacer never follows redirects: drop it"},
    {"hey", "-cpus", true, "threads are -t N here"},
    /* h2load */
    {"h2load", "--clients", true, "connections are -c/--connections N here"},
    {"h2load", "--input-file", true, "a file of URLs is --urls FILE here"},
    {"h2load", "-f", true, "not supported: pacer keeps nghttp2's frame size"},
    {"h2load", "--max-frame-size", true, "not supported: pacer keeps nghttp2's frame size"},
    {"h2load", "-W", true, "the HTTP/2 connection window is --connection-window-bits N here"},
    {"h2load", "--ciphers", true, "not supported: pacer uses the TLS library's cipher suites"},
    {"h2load", "--tls13-ciphers", true,
     "not supported: pacer uses the TLS library's cipher suites"},
    {"h2load", "--no-tls-proto", true,
     "in clear text, HTTP/2 (h2c) is --h2 here, HTTP/1.1 the default"},
    {"h2load", "--data", true,
     "a request body from a file is -p/--body-file FILE here; with -X POST"},
    {"h2load", "-r", true,
     "not supported: pacer opens all -c connections at the start; a request rate is -R R"},
    {"h2load", "--rate-period", true,
     "not supported: pacer opens all -c connections at the start; a request rate is -R R"},
    {"h2load", "-D", true, "the duration is -d T here"},
    {"h2load", "--warm-up-time", true, "a warm-up is --warmup T here"},
    {"h2load", "--connection-active-timeout", true,
     "not supported: no connection lifetime limit; the request timeout is --timeout T"},
    {"h2load", "-N", true,
     "not supported: no connection idle limit; the request timeout is --timeout T"},
    {"h2load", "--connection-inactivity-timeout", true,
     "not supported: no connection idle limit; the request timeout is --timeout T"},
    {"h2load", "--timing-script-file", true,
     "not supported: the schedule is -R, --stages or --arrival poisson"},
    {"h2load", "--base-uri", true,
     "not supported: give full URLs; --connect-to H:P connects elsewhere"},
    {"h2load", "--npn-list", true, "the protocols offered over TLS are --alpn LIST here"},
    {"h2load", "--h1", false, "HTTP/1.1 is the default here: drop it"},
    {"h2load", "--header-table-size", true,
     "not supported: pacer keeps nghttp2's HPACK table size"},
    {"h2load", "--encoder-header-table-size", true,
     "not supported: pacer keeps nghttp2's HPACK table size"},
    {"h2load", "--log-file", true,
     "not supported: no per-request log; --hlog FILE, --csv FILE, --json FILE"},
    {"h2load", "--qlog-file-base", true, "not supported: pacer writes no qlog"},
    {"h2load", "--rps", true, "the rate in all is -R N*c here: h2load's --rps N is per client"},
    {"h2load", "--groups", true, "not supported: pacer uses the TLS library's key exchange groups"},
    {"h2load", "--no-udp-gso", false, "not supported: pacer sends no GSO batches: drop it"},
    {"h2load", "--max-udp-payload-size", true,
     "not supported: pacer keeps ngtcp2's UDP payload size"},
    {"h2load", "--ktls", false, "not supported: pacer does TLS in user space"},
    {"h2load", "--verbose", false,
     "not supported: no per-request trace; --json FILE has every count"},
};

const peer_flag *peer_flag_at(size_t i)
{
    return i < NOPTS(rows) ? &rows[i] : NULL;
}

/* Whether table t takes flag (as typed: "-z", "--rps", hey's "-host"),
 * and not to refuse it. */
static bool table_takes(const cli_table *t, const char *flag)
{
    bool dashes = flag[1] == '-';
    const char *name = flag + (dashes ? 2 : 1);

    for (size_t i = 0; t && i < t->n; i++) {
        const cli_opt *o = &t->opts[i];
        bool hit = (!dashes && !name[1] && o->letter == name[0]) ||
                   ((dashes || t->long_only) &&
                    ((o->name && strcmp(o->name, name) == 0) ||
                     (o->alias && strcmp(o->alias, name) == 0)));

        if (hit)
            return o->take != take_refuse;
    }
    return false;
}

const char *peer_hint(const char *flag, size_t len, char *buf, size_t cap)
{
    size_t at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < NOPTS(rows) && at < cap; i++) {
        const peer_flag *r = &rows[i];
        const cli_persona *p;
        int n;

        if (strlen(r->flag) != len || strncmp(r->flag, flag, len) != 0)
            continue;
        p = persona_find(r->tool);
        n = snprintf(buf + at, cap - at, "%s%s (%s's %s%s%s%s)", at ? "; " : "", r->hint, r->tool,
                     r->flag, p && table_takes(p->table, r->flag) ? "; or run it as `pacer " : "",
                     p && table_takes(p->table, r->flag) ? r->tool : "",
                     p && table_takes(p->table, r->flag) ? " ...`" : "");
        at += n > 0 ? (size_t)n : 0;
    }
    return buf[0] ? buf : NULL;
}
