/*
 * persona_h2load.c - `pacer h2load ...`: h2load's command line, with its
 * meanings and defaults: HTTP/2 (ALPN over https, prior knowledge over
 * http) unless --h1, one thread, -c 1, -n 1, -m 1 (with --h1: requests
 * pipelined per connection), -D a duration (then -n is ignored), several
 * URIs (on the command line or -i FILE) used in turn on the first one's
 * origin, --rps per client (pacer's -R = N x -c, corrected for coordinated
 * omission, the uncorrected row shown too), --warm-up-time only with -D (as
 * h2load), and h2load's report layout.
 * What pacer cannot honour (-r, -T, -N, ...) is one line naming the flag,
 * exit 2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_int.h"
#include "cli/persona.h"
#include "cli/url.h"
#include "cli/urls.h"
#include "util/units.h"

/* -D: a timing-based run; h2load then ignores -n. */
static int h2_duration(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    cfg->duration_set = true;
    return take_dur(cfg, o, arg, err);
}

static int h2_h1(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->alpn = "http/1.1";
    cfg->h1_clear = true;
    return 0;
}

/* -p/--no-tls-proto: the protocol over http:// (h2c or http/1.1). */
static int h2_no_tls_proto(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "h2c") != 0 && strcmp(arg, "http/1.1") != 0)
        return cli_bad(err, "-p/--no-tls-proto must be h2c or http/1.1, got '%s'", arg);
    cfg->h1_clear = strcmp(arg, "http/1.1") == 0;
    return 0;
}

/* --rps N: per client, as h2load; ph_finish multiplies by -c. */
static int h2_rps(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (units_parse_rate(arg, &cfg->rate) < 0 || !(cfg->rate > 0) || cfg->rate > MAX_RATE)
        return cli_bad(err, "invalid rate for --rps: '%s' (requests/s per client > 0)", arg);
    return 0;
}

static int h2_input_file(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)err;
    cfg->uri_file = arg;
    return 0;
}

#define MS_MIN .min = MS

static const cli_opt h2load_opts[] = {
    {"requests", 'n', "N", FN(take_requests),
     .help = "Number of requests across all clients (default 1;\nignored with -D)"},
    {"clients", 'c', "N", U32(connections, 1, MAX_COUNT),
     .help = "Number of concurrent clients (default 1)"},
    {"threads", 't', "N", U32(threads, 1, MAX_COUNT),
     .help = "Number of native threads (default 1)"},
    {"input-file", 'i', "PATH", FN(h2_input_file),
     .help = "URIs, one per line ('-': stdin); the command line's\n"
             "are then not used"},
    {"max-concurrent-streams", 'm', "N", U32(streams, 1, 65536),
     .help = "Max concurrent streams per session (default 1);\n"
             "with http/1.1, requests pipelined in flight"},
    {"window-bits", 'w', "N", FN(take_window), AT(window_bits),
     .help = "Stream window (2**N)-1 (default 30)"},
    {"connection-window-bits", 'W', "N", FN(take_window), AT(conn_window_bits), .min = 16,
     .help = "Connection window (2**N)-1 (default 30; at least 16)"},
    {"header", 'H', "HEADER", FN(take_header),
     .help = "Add a header to the requests"},
    {"no-tls-proto", 'p', "PROTOID", FN(h2_no_tls_proto),
     .help = "Protocol over http://: h2c (default) or http/1.1"},
    {"data", 'd', "PATH", FN(take_body_file),
     .help = "Post FILE to server (the method is POST; with\n"
             "http/1.1, no pipelining)"},
    {"rate", 'r', "N", REFUSE("h2load's connections-per-period ramp is not supported: pacer opens "
                              "all -c connections at the start (a request rate is --rps)")},
    {"rate-period", 0, "DURATION", REFUSE("h2load's connection ramp (-r) is not supported")},
    {"duration", 'D', "DURATION", FN(h2_duration), AT(duration_ns), MS_MIN,
     .help = "Timing-based run of this long (-n is then ignored)"},
    {"warm-up-time", 0, "DURATION", DUR(warmup_ns, 0),
     .help = "Run this long first, not measured (with -D only)"},
    {"connection-active-timeout", 'T', "DURATION",
     REFUSE("h2load's connection lifetime limit is not supported (the request\n"
            "timeout is `pacer --timeout T URL`)")},
    {"connection-inactivity-timeout", 'N', "DURATION",
     REFUSE("h2load's connection idle limit is not supported (the request\n"
            "timeout is `pacer --timeout T URL`)")},
    {"npn-list", 0, "LIST", FN(take_alpn), .alias = "alpn-list",
     .help = "ALPN protocols by preference (default h2,http/1.1)"},
    {"h1", 0, NULL, FN(h2_h1),
     .help = "HTTP/1.1 for both http and https URIs"},
    {"connect-to", 0, "HOST:PORT", FN(take_connect_to),
     .help = "Connect here instead of the URI's authority"},
    {"rps", 0, "N", FN(h2_rps),
     .help = "Requests per second for each client (pacer: -R N x -c,\n"
             "corrected for coordinated omission; uncorrected row too)"},
    {"max-frame-size", 'f', "SIZE", REFUSE("h2load's max frame size is not supported")},
    {"base-uri", 'B', "URI", REFUSE("h2load's base URI is not supported (use full URIs)")},
    {"timing-script-file", 0, "PATH", REFUSE("h2load's timing script is not supported")},
    {"log-file", 0, "PATH", REFUSE("h2load's per-request log is not supported (pacer has "
                                   "--json/--hlog)")},
    {"ciphers", 0, "SUITE", REFUSE("h2load's cipher list is not supported")},
    {"tls13-ciphers", 0, "SUITE", REFUSE("h2load's cipher list is not supported")},
    {"header-table-size", 0, "SIZE", REFUSE("h2load's header table size is not supported")},
    {"encoder-header-table-size", 0, "SIZE",
     REFUSE("h2load's header table size is not supported")},
    {"verbose", 'v', NULL, REFUSE("h2load's debug output is not supported")},
    {"version", 0, NULL, FN(take_version_exit),
     .help = "Display version information and exit"},
    {"help", 'h', NULL, FN(take_help),
     .help = "Display this help and exit"},
};

static void h2load_usage(FILE *f);
static const cli_table h2load_table = {h2load_opts, NOPTS(h2load_opts), h2load_usage,
                                       "pacer h2load", false};

static void h2load_usage(FILE *f)
{
    fputs("Usage: pacer h2load [OPTIONS]... [URI]...\n"
          "  h2load's options, meanings and defaults, run by pacer (man pacer,\n"
          "  PERSONAS). A DURATION is seconds, or with a unit (500ms, 2m).\n"
          "Options:\n",
          f);
    print_options(&h2load_table, f);
}

static void h2load_defaults(pc_config *cfg)
{
    cfg->format = PC_FORMAT_H2LOAD;
    cfg->goaway_ends_conn = true; /* a client whose server sent GOAWAY is done, as h2load's */
    cfg->threads = 1;
    cfg->connections = 1;
    cfg->requests = 1;
    cfg->h2 = true;
    cfg->alpn = "h2,http/1.1";
    /* h2load has no request timeout; pacer's is generous instead (a -D
     * run waits at most this for requests in flight at its end). */
    cfg->timeout_ns = 60ull * 1000000000ull;
}

/* uri as a request on the first URI's origin (h2load ignores the scheme,
 * host and port of the others). */
static int add_on_origin(pc_config *cfg, const char *uri, FILE *err)
{
    char uerr[512], full[2048];
    const char *path = uri;
    pc_url u = {0};
    int rc;

    if (uri[0] != '/') {
        if (url_parse(uri, &u, uerr, sizeof uerr) < 0)
            return cli_bad(err, "%s", uerr);
        path = u.path;
    }
    snprintf(full, sizeof full, "%s://%s%s", cfg->url.tls ? "https" : "http", cfg->url.hostport,
             path);
    rc = urls_add(cfg, cfg->method, full, cfg->body, cfg->body_len, 1, uerr, sizeof uerr);
    url_free(&u);
    return rc < 0 ? cli_bad(err, "%s", uerr) : 0;
}

/* -i FILE: the first line is the origin, every line a request. */
static int load_uri_file(pc_config *cfg, FILE *err)
{
    char uerr[512], *text, *line, *save = NULL;
    size_t len;
    int rc = urls_read_file(strcmp(cfg->uri_file, "-") ? cfg->uri_file : "/dev/stdin", &text,
                            &len);

    if (rc < 0)
        return cli_bad(err, "cannot read -i/--input-file '%s': %s", cfg->uri_file, strerror(-rc));
    urls_free(cfg); /* the command line's URIs are not used */
    url_free(&cfg->url);
    cfg->url_text = NULL;
    for (line = strtok_r(text, "\r\n", &save); line && rc == 0;
         line = strtok_r(NULL, "\r\n", &save)) {
        if (!*line)
            continue;
        if (!cfg->url_text) {
            if (url_parse(line, &cfg->url, uerr, sizeof uerr) < 0) {
                rc = cli_bad(err, "%s: %s", cfg->uri_file, uerr);
                break;
            }
            cfg->url_text = "";
        }
        rc = add_on_origin(cfg, line, err);
    }
    free(text);
    if (rc == 0 && !cfg->nreqs)
        return cli_bad(err, "-i/--input-file '%s' has no URI", cfg->uri_file);
    if (rc == 0)
        cfg->url_text = cfg->reqs[0].url_text;
    return rc;
}

static int h2load_finish(pc_config *cfg, FILE *err)
{
    int rc = 0;

    if (cfg->uri_file)
        rc = load_uri_file(cfg, err);
    else /* the other URIs of the command line, in turn */
        for (int i = 0; rc == 0 && i < cfg->nscript_args; i++)
            rc = add_on_origin(cfg, cfg->script_args[i], err);
    if (rc < 0)
        return rc;
    cfg->script_args += cfg->nscript_args; /* URIs, not a script's arguments */
    cfg->nscript_args = 0;
    /* --alpn-list=h3 (h2load's HTTP/3 build): QUIC, -m streams each. */
    cfg->h2 = !cfg->h3 && (cfg->url.tls ? strstr(cfg->alpn, "h2") != NULL : !cfg->h1_clear);
    if (!cfg->h2 && !cfg->h3) {
        /* http/1.1: -m is requests pipelined in flight, 1 with -d. */
        cfg->pipeline = cfg->body ? 1 : cfg->streams;
        cfg->streams = 1;
    }
    if (!cfg->duration_set && cfg->warmup_ns) {
        /* h2load warms up only a timing-based run: with -n it sends the
         * -n requests at once, measured, and no more. */
        fprintf(err, "pacer: note: --warm-up-time is ignored without -D, as h2load ignores it "
                     "(its warm-up is for timing-based runs)\n");
        cfg->warmup_ns = 0;
    }
    if (cfg->duration_set)
        cfg->requests = 0; /* timing-based: -n ignored */
    else if (cfg->requests < cfg->connections)
        return cli_bad(err, "-n, -c: the number of requests must be greater than or equal to "
                            "the clients (%llu < %u)",
                       (unsigned long long)cfg->requests, cfg->connections);
    if (cfg->rate > 0) {
        cfg->rate *= cfg->connections; /* --rps is per client */
        cfg->u_latency = true;
    }
    return 0;
}

const cli_persona persona_h2load = {
    .name = "h2load",
    .table = &h2load_table,
    .defaults = h2load_defaults,
    .finish = h2load_finish,
    .summary = "h2load's command line (HTTP/2 by default) and report",
};
