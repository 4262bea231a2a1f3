/*
 * persona_hey.c - `pacer hey ...` (and a link named hey): hey's command
 * line with hey's meanings and defaults (rakyll/hey hey.go and
 * requester/requester.go), and hey's report (report/hey.c).
 *
 * What hey does, and what pacer runs for it:
 *   -n 200, -c 50: 50 workers, each sending -n/-c requests one after the
 *     other (hey drops the remainder: -n 105 -c 10 sends 100): 50
 *     connections, closed loop, exactly (n/c)*c requests.
 *   -q Q: each worker at most Q requests/s: -R Q*c in all (pacer's
 *     constant rate, latency from each request's intended send time).
 *   -z D: run for D, -n ignored. -t S: timeout in whole seconds, 0 none
 *     (Go's Client.Timeout: the connect is inside it).
 *   -m (upper-cased, as hey), -H, -A (Accept), -d, -D, -T (Content-Type,
 *     sent on every request, default text/html), -a (basic auth; hey 0.1.4
 *     sets it and then drops it with the other headers: pacer sends it),
 *     -host (Host header and SNI), -U (User-Agent).
 *   Go's client asks for gzip (Accept-Encoding: gzip, but not for HEAD or
 *     when a -H sets Accept-Encoding or Range): so does pacer, unless
 *     -disable-compression. pacer reads the body as it comes.
 *   -h2: HTTP/2 by TLS ALPN, so on https only (on http:// hey speaks
 *     HTTP/1.1, and so does pacer, saying so); Go's client multiplexes the
 *     workers as streams of one connection (a new one per 100 streams here).
 *   -disable-keepalive: a connection per request.
 *   -disable-redirects: hey follows redirects unless given it; pacer never
 *     does, and the report counts the 3xx and says so when it was not given.
 *   -cpus N: threads (at most -c). -o csv: a row per request (needs -n).
 *   -x (a proxy): refused, one line, exit 2.
 * hey's single-dash long flags (-host, -disable-keepalive) are read as
 * hey reads them (getopt_long_only).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "cli/persona.h"
#include "util/units.h"

/* cfg->peer_flags: hey's switches, acted on in hey_finish. */
enum {
    HEY_NO_COMPRESSION = 1u << 0,
    HEY_NO_REDIRECTS = 1u << 1,
    HEY_DURATION = 1u << 2, /* -z given: -n is ignored */
    HEY_H2 = 1u << 3,
};

/* Streams one HTTP/2 connection carries before Go's client opens another
 * (it does at the server's limit: 128 for nginx, 100 for h2o; RFC 9113
 * asks servers for at least 100). */
#define HEY_STREAMS_PER_CONN 100

static int take_flag(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)arg, (void)err;
    cfg->peer_flags |= (unsigned)o->min;
    return 0;
}

/* -q: hey's rate per worker, kept in cfg->rate until hey_finish makes it
 * the total; 0 is hey's "no limit". */
static int take_qps(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "0") == 0) {
        cfg->rate = 0;
        return 0;
    }
    if (units_parse_rate(arg, &cfg->rate) < 0 || !(cfg->rate > 0) || cfg->rate > MAX_RATE)
        return cli_bad(err, "invalid rate for -q: '%s' (requests/s per worker, e.g. 20)", arg);
    return 0;
}

static int take_z(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    cfg->peer_flags |= HEY_DURATION;
    cfg->duration_set = true;
    return take_dur(cfg, o, arg, err);
}

/* -t: whole seconds, as hey's flag.Int; 0: no timeout. */
static int take_timeout_s(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char *end;
    long s = strtol(arg, &end, 10);

    (void)o;
    if (end == arg || *end || s < 0 || s > (long)(MAX_DURATION_NS / 1000000000ull))
        return cli_bad(err, "invalid timeout for -t: '%s' (whole seconds, 0: none)", arg);
    cfg->timeout_ns = s ? (uint64_t)s * 1000000000ull : MAX_DURATION_NS;
    cfg->connect_timeout_ns = cfg->timeout_ns;
    return 0;
}

/* -m: hey upper-cases the method. argv's own bytes are changed (the
 * command line in result files was copied before). */
static int take_hey_method(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    for (char *p = (char *)arg; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    return take_method(cfg, o, arg, err);
}

/* -A, -U: a header with a value of the user's. */
static int take_named_header(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char buf[4096];
    const char *name = o->letter == 'A' ? "Accept" : "User-Agent";

    if ((size_t)snprintf(buf, sizeof buf, "%s: %s", name, arg) >= sizeof buf)
        return cli_bad(err, "-%c value too long", o->letter);
    return take_header(cfg, o, buf, err);
}

static int take_output(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "csv") != 0)
        return cli_bad(err, "-o takes csv (hey's only other output; it would read '%s' as a Go "
                            "template)",
                       arg);
    cfg->format = PC_FORMAT_HEY_CSV;
    return 0;
}

static void hey_usage(FILE *f);

/* hey's flags, in hey's --help order. Each letter is also a long name
 * (alias), so that Go's -n=200 and --n=200 read as hey reads them. */
static const cli_opt hey_opts[] = {
    {"requests", 'n', "N", FN(take_requests), .alias = "n",
     .help = "Number of requests to run (default 200): -n/-c per worker"},
    {"concurrency", 'c', "N", U32(connections, 1, MAX_COUNT), .alias = "c",
     .help = "Number of workers: connections (default 50)"},
    {"qps", 'q', "Q", FN(take_qps), .alias = "q",
     .help = "Rate limit per worker: -R Q*c in all (default none)"},
    {"duration", 'z', "D", FN(take_z), AT(duration_ns), .min = MS, .alias = "z",
     .help = "Duration of the test (e.g. 10s, 3m); -n is ignored"},
    {"output", 'o', "csv", FN(take_output), .alias = "o",
     .help = "csv: a row per request instead of the summary (needs -n)"},
    {"method", 'm', "M", FN(take_hey_method), .alias = "m",
     .help = "HTTP method (default GET)"},
    {"header", 'H', "H", FN(take_header), .alias = "H",
     .help = "Custom HTTP header (repeatable)"},
    {"timeout", 't', "S", FN(take_timeout_s), .alias = "t",
     .help = "Timeout for each request in seconds (default 20, 0: none)"},
    {"accept", 'A', "A", FN(take_named_header), .alias = "A",
     .help = "HTTP Accept header"},
    {"body", 'd', "TEXT", FN(take_body), .alias = "d",
     .help = "HTTP request body"},
    {"body-file", 'D', "FILE", FN(take_body_file), .alias = "D",
     .help = "HTTP request body from a file"},
    {"content-type", 'T', "T", FN(take_content_type), .alias = "T",
     .help = "Content-Type (default text/html)"},
    {"user-agent", 'U', "UA", FN(take_named_header), .alias = "U",
     .help = "User-Agent"},
    {"basic-auth", 'a', "U:P", FN(take_basic_auth), .alias = "a",
     .help = "Basic authentication, username:password"},
    {"proxy", 'x', "H:P", .alias = "x",
     REFUSE("pacer connects to the URL's host itself and cannot send through a\n"
            "proxy (hey's -x)")},
    {"h2", 0, NULL, FN(take_flag), .min = HEY_H2,
     .help = "HTTP/2 (over https, by ALPN; http:// stays HTTP/1.1, as in hey)"},
    {"host", 0, "NAME", FN(take_host),
     .help = "HTTP Host header (and TLS SNI)"},
    {"disable-compression", 0, NULL, FN(take_flag), .min = HEY_NO_COMPRESSION,
     .help = "Do not send Accept-Encoding: gzip"},
    {"disable-keepalive", 0, NULL, ON(no_keepalive),
     .help = "A new connection for every request"},
    {"disable-redirects", 0, NULL, FN(take_flag), .min = HEY_NO_REDIRECTS,
     .help = "Do not follow redirects (pacer never does; without this\n"
             "flag the report says how many 3xx it counted)"},
    {"cpus", 0, "N", U32(threads, 1, MAX_COUNT),
     .help = "Threads (default: the CPUs online; at most -c)"},
    {"help", 'h', NULL, FN(take_help),
     .help = "Print this help"},
};

static const cli_table hey_table = {hey_opts, NOPTS(hey_opts), hey_usage, "pacer hey", true};

/* hey's usage layout: one flag a line as hey spells it (-c, -host). */
static void hey_usage(FILE *f)
{
    fputs("Usage: pacer hey [options...] <url>\n"
          "  hey's command line, with hey's meanings and defaults, and hey's report\n"
          "  (man pacer, PERSONAS). Options:\n",
          f);
    for (size_t i = 0; i < hey_table.n; i++) {
        const cli_opt *o = &hey_table.opts[i];
        char flag[64];

        if (o->letter)
            snprintf(flag, sizeof flag, "-%c%s%s", o->letter, o->value ? " " : "",
                     o->value ? o->value : "");
        else
            snprintf(flag, sizeof flag, "-%s%s%s", o->name, o->value ? " " : "",
                     o->value ? o->value : "");
        fprintf(f, "  %-22s ", flag);
        for (const char *h = o->help; *h; h++)
            if (*h == '\n')
                fprintf(f, "\n  %-22s ", "");
            else
                fputc(*h, f);
        fputc('\n', f);
    }
}

static void hey_defaults(pc_config *cfg)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    cfg->format = PC_FORMAT_HEY;
    cfg->no_tls_resume = true; /* a full handshake on every connection, as the tool */
    cfg->requests = 200;
    cfg->connections = 50;
    cfg->threads = cpus > 0 ? (uint32_t)cpus : 1;
    cfg->timeout_ns = 20ull * 1000000000ull;
    cfg->connect_timeout_ns = cfg->timeout_ns;
    cfg->method = "GET"; /* even with -d, as hey */
    cfg->content_type = "text/html";
}

static bool has_header(const pc_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nheaders; i++)
        if (strcasecmp(cfg->headers[i].name, name) == 0)
            return true;
    return false;
}

/* hey's -n and -c: -n/-c requests per worker, the remainder dropped. */
static int hey_count(pc_config *cfg, FILE *err)
{
    uint64_t c = cfg->connections, n = cfg->requests;

    if (cfg->peer_flags & HEY_DURATION) {
        cfg->requests = 0; /* -z: hey sets -n aside */
        return 0;
    }
    if (n < c)
        return cli_bad(err, "-n cannot be less than -c (hey's rule: -n %llu, -c %llu)",
                       (unsigned long long)n, (unsigned long long)c);
    if (n % c) {
        cfg->requests = n / c * c;
        fprintf(err, "pacer: note: hey sends -n/-c = %llu requests per worker: %llu in all, not "
                     "%llu\n",
                (unsigned long long)(n / c), (unsigned long long)cfg->requests,
                (unsigned long long)n);
    }
    return 0;
}

/* -h2 as hey: Go's client negotiates HTTP/2 by ALPN only, and multiplexes
 * the workers over one connection per HEY_STREAMS_PER_CONN of them. */
static void hey_h2(pc_config *cfg, FILE *err)
{
    uint32_t workers = cfg->connections;

    if (!(cfg->peer_flags & HEY_H2))
        return;
    if (!cfg->url.tls) {
        fprintf(err, "pacer: note: -h2 on http:// is HTTP/1.1 in hey (Go negotiates HTTP/2 by "
                     "TLS ALPN only): running HTTP/1.1 as hey does (h2c: pacer --h2)\n");
        return;
    }
    cfg->h2 = true;
    cfg->connections = (workers + HEY_STREAMS_PER_CONN - 1) / HEY_STREAMS_PER_CONN;
    cfg->streams = (workers + cfg->connections - 1) / cfg->connections;
}

static int hey_finish(pc_config *cfg, FILE *err)
{
    int rc;

    if (cfg->rate > 0)
        cfg->rate *= cfg->connections; /* -q is per worker */
    if ((rc = hey_count(cfg, err)) < 0)
        return rc;
    if (cfg->format == PC_FORMAT_HEY_CSV && !cfg->requests)
        return cli_bad(err, "-o csv needs -n here (pacer keeps a row per request for a fixed "
                            "count): drop -z");
    if (!(cfg->peer_flags & HEY_NO_COMPRESSION) && strcmp(cfg->method, "HEAD") != 0 &&
        !has_header(cfg, "Accept-Encoding") && !has_header(cfg, "Range") &&
        (rc = take_header(cfg, NULL, "Accept-Encoding: gzip", err)) < 0)
        return rc;
    cfg->peer_follows_redirects = !(cfg->peer_flags & HEY_NO_REDIRECTS);
    hey_h2(cfg, err);
    if (cfg->threads > cfg->connections)
        cfg->threads = cfg->connections; /* -cpus is GOMAXPROCS, not a worker count */
    return 0;
}

const cli_persona persona_hey = {
    .name = "hey",
    .table = &hey_table,
    .defaults = hey_defaults,
    .finish = hey_finish,
    .summary = "hey's command line (-n 200 -c 50 by default), hey's report",
};
