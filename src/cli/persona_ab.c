/*
 * persona_ab.c - `pacer ab ...`: ApacheBench's command line, with ab's
 * meanings and defaults: one request (-n 1) on one connection (-c 1), a
 * new connection per request unless -k, one thread, -t a time limit that
 * implies -n 50000, -s the timeout (30 s), strict length checks unless -l,
 * "Completed N requests" on stderr unless -q, and ab's report layout.
 * What pacer cannot do (a proxy, HTML tables, a TLS version) is refused
 * in one line naming the flag, exit 2.
 */
#include <string.h>

#include "cli/cli_int.h"
#include "cli/persona.h"

#define AB_MAX_REQUESTS 50000 /* ab's -t implies -n 50000 */
#define AB_MAX_CONCURRENCY 20000

/* -t: a time limit, and (as in ab, where a later -n overrides it) 50000
 * requests at most. */
static int ab_time(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    cfg->duration_set = true;
    cfg->requests = AB_MAX_REQUESTS;
    return take_dur(cfg, o, arg, err);
}

static int ab_keepalive(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->no_keepalive = false;
    return 0;
}

static int ab_put(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    cfg->method = "PUT";
    return take_body_file(cfg, o, arg, err);
}

static int ab_variable_length(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->strict_length = false;
    return 0;
}

static int ab_quiet(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->ab_heartbeat = 0;
    return 0;
}

/* -v: levels 0 and 1 print what ab prints by default; ab's 2 and up
 * (warnings, headers, whole requests) pacer does not print. */
static int ab_verbosity(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)cfg, (void)o;
    if (strcmp(arg, "0") == 0 || strcmp(arg, "1") == 0)
        return 0;
    return cli_bad(err, "-v %s: ab's verbosity 2 and up (warnings, headers, requests) is not "
                        "supported; -v 0 and 1 print the report as usual",
                   arg);
}

/* -f: ALL is what pacer offers anyway; pinning one version it cannot. */
static int ab_protocol(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)cfg, (void)o;
    if (strcasecmp(arg, "ALL") == 0)
        return 0;
    return cli_bad(err, "-f %s: pacer cannot pin one SSL/TLS version (it negotiates the "
                        "highest both sides have, as ab's -f ALL)",
                   arg);
}

static const cli_opt ab_opts[] = {
    {NULL, 'n', "requests", FN(take_requests),
     .help = "Number of requests to perform (default 1)"},
    {NULL, 'c', "concurrency", U32(connections, 1, AB_MAX_CONCURRENCY),
     .help = "Number of multiple requests to make at a time (default 1)"},
    {NULL, 't', "timelimit", FN(ab_time), AT(duration_ns), .min = MS,
     .help = "Seconds to max. to spend on benchmarking\n(implies -n 50000)"},
    {NULL, 's', "timeout", DUR(timeout_ns, MS),
     .help = "Seconds to max. wait for each response (default 30)"},
    {NULL, 'p', "postfile", FN(take_body_file),
     .help = "File containing data to POST (Content-Type: -T)"},
    {NULL, 'u', "putfile", FN(ab_put),
     .help = "File containing data to PUT (Content-Type: -T)"},
    {NULL, 'T', "content-type", FN(take_content_type),
     .help = "Content-Type of the POST/PUT data (default text/plain)"},
    {NULL, 'v', "verbosity", FN(ab_verbosity),
     .help = "0 or 1 (the report as usual); 2 and up are refused"},
    {NULL, 'w', NULL, REFUSE("ab's HTML tables are not supported (pacer has --html FILE)")},
    {NULL, 'i', NULL, FN(take_head),
     .help = "Use HEAD instead of GET"},
    {NULL, 'x', "attributes", REFUSE("ab's HTML table attributes are not supported")},
    {NULL, 'y', "attributes", REFUSE("ab's HTML tr attributes are not supported")},
    {NULL, 'z', "attributes", REFUSE("ab's HTML td/th attributes are not supported")},
    {NULL, 'C', "attribute", FN(take_cookie),
     .help = "Add cookie, eg. 'Apache=1234' (repeatable)"},
    {NULL, 'H', "attribute", FN(take_header),
     .help = "Add arbitrary header line (repeatable)"},
    {NULL, 'A', "attribute", FN(take_basic_auth),
     .help = "Basic WWW Authentication, user:password"},
    {NULL, 'P', "attribute", REFUSE("ab's proxy authentication is not supported (no proxy)")},
    {NULL, 'X', "proxy:port", REFUSE("ab's proxy is not supported: pacer connects to\n"
                                     "the URL's host (`pacer --connect-to H:P URL`)")},
    {NULL, 'V', NULL, FN(take_version_exit),
     .help = "Print version number and exit"},
    {NULL, 'k', NULL, FN(ab_keepalive),
     .help = "Use HTTP KeepAlive (default: a new connection per request)"},
    {NULL, 'd', NULL, ON(ab_no_percentiles),
     .help = "Do not show percentiles served table"},
    {NULL, 'S', NULL, ON(ab_no_confidence),
     .help = "Do not show confidence estimators (mean[+/-sd], median)"},
    {NULL, 'q', NULL, FN(ab_quiet),
     .help = "Do not show progress when doing more than 150 requests"},
    {NULL, 'l', NULL, FN(ab_variable_length),
     .help = "Accept variable document length (default: a length\n"
             "differing from the first response is a failure)"},
    {NULL, 'g', "filename", STR(out.gnuplot_path),
     .help = "Output collected data to gnuplot format file"},
    {NULL, 'e', "filename", STR(out.csv_pct_path),
     .help = "Output CSV file with percentages served"},
    {NULL, 'r', NULL, FN(take_nothing),
     .help = "Don't exit on socket receive errors (pacer never does)"},
    {NULL, 'm', "method", FN(take_method),
     .help = "Method name"},
    {NULL, 'h', NULL, FN(take_help), .alias = "help",
     .help = "Display usage information (this message)"},
    {NULL, 'b', "windowsize", REFUSE("ab's TCP buffer size is not supported")},
    {NULL, 'B', "address", REFUSE("ab's local bind address is not supported")},
    {NULL, 'I', NULL, REFUSE("ab's disabling of TLS SNI is not supported")},
    {NULL, 'Z', "ciphersuite", REFUSE("ab's TLS cipher suite choice is not supported")},
    {NULL, 'f', "protocol", FN(ab_protocol),
     .help = "SSL/TLS protocol: ALL only (pinning one version is refused)"},
    {NULL, 'E', "certfile", REFUSE("ab's client certificate is not supported")},
};

static void ab_usage(FILE *f);
static const cli_table ab_table = {ab_opts, NOPTS(ab_opts), ab_usage, "pacer ab", false};

static void ab_usage(FILE *f)
{
    fputs("Usage: pacer ab [options] [http[s]://]hostname[:port]/path\n"
          "  ApacheBench's options, meanings and defaults, run by pacer (man pacer,\n"
          "  PERSONAS). Times are seconds, or with a unit (500ms, 2m).\n"
          "Options are:\n",
          f);
    print_options(&ab_table, f);
}

static void ab_defaults(pc_config *cfg)
{
    cfg->format = PC_FORMAT_AB;
    cfg->no_tls_resume = true; /* a full handshake on every connection, as the tool */
    cfg->threads = 1;
    cfg->connections = 1;
    cfg->requests = 1;
    cfg->no_keepalive = true;
    cfg->strict_length = true;
    cfg->timeout_ns = 30ull * 1000000000ull;
    cfg->progress = PC_PROGRESS_OFF; /* ab's own progress lines instead */
    cfg->ab_heartbeat = 1;           /* on: its period is set by ab_finish */
    cfg->interval_ns = 100 * MS;     /* ...printed within 0.1 s, as ab's are at once */
}

static int ab_finish(pc_config *cfg, FILE *err)
{
    if (cfg->connections > cfg->requests)
        return cli_bad(err, "cannot use concurrency level greater than total number of requests "
                            "(ab's -c %u > -n %llu)",
                       cfg->connections, (unsigned long long)cfg->requests);
    if (cfg->body && !cfg->content_type)
        cfg->content_type = "text/plain";
    /* ab: a line every tenth of -n (at least 100), above 150 requests. */
    if (cfg->ab_heartbeat)
        cfg->ab_heartbeat = cfg->requests > 150 ? cfg->requests / 10 : 0;
    if (cfg->ab_heartbeat && cfg->ab_heartbeat < 100)
        cfg->ab_heartbeat = 100;
    return 0;
}

const cli_persona persona_ab = {
    .name = "ab",
    .table = &ab_table,
    .defaults = ab_defaults,
    .finish = ab_finish,
    .summary = "ApacheBench's command line and report",
};
