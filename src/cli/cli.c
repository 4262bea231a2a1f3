/*
 * cli.c - option parsing. wrk2's flags and spellings, plus the gaps wrk2
 * leaves (--warmup, --pipeline, --unix, --verify). Every error is one line
 * naming the flag and the bad text.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/units.h"
#include "cli/url.h"

enum {
    OPT_TIMEOUT = 256,
    OPT_WARMUP,
    OPT_PIPELINE,
    OPT_UNIX,
    OPT_VERIFY,
    OPT_CACERT,
    OPT_HLOG,
    OPT_HGRM,
    OPT_JSON,
    OPT_CSV,
    OPT_INTERVAL,
    OPT_H2,
    OPT_ALPN,
    OPT_WINDOW,
    OPT_CONN_WINDOW,
    OPT_FORMAT,
};

static const struct option long_opts[] = {
    {"threads", required_argument, NULL, 't'},
    {"connections", required_argument, NULL, 'c'},
    {"duration", required_argument, NULL, 'd'},
    {"rate", required_argument, NULL, 'R'},
    {"latency", no_argument, NULL, 'L'},
    {"u_latency", no_argument, NULL, 'U'},
    {"batch_latency", no_argument, NULL, 'B'},
    {"header", required_argument, NULL, 'H'},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"pipeline", required_argument, NULL, OPT_PIPELINE},
    {"unix", required_argument, NULL, OPT_UNIX},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"hlog", required_argument, NULL, OPT_HLOG},
    {"hgrm", required_argument, NULL, OPT_HGRM},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"h2", no_argument, NULL, OPT_H2},
    {"alpn", required_argument, NULL, OPT_ALPN},
    {"streams", required_argument, NULL, 'm'},
    {"max-concurrent-streams", required_argument, NULL, 'm'},
    {"window-bits", required_argument, NULL, OPT_WINDOW},
    {"connection-window-bits", required_argument, NULL, OPT_CONN_WINDOW},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"version", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cli_usage(FILE *f)
{
    fputs("Usage: pacer <options> <url> [--] [script args]\n"
          "       pacer report [-U] [--json FILE] [--hgrm FILE] [--from T] [--to T] FILE...\n"
          "       pacer serve [--port N] [--size BYTES] [--delay D] ...\n"
          "  Options:\n"
          "    -c, --connections <N>  Connections to keep open (default 10)\n"
          "    -d, --duration    <T>  Duration of test (default 10s)\n"
          "    -t, --threads     <N>  Number of threads to use (default 2)\n"
          "    -R, --rate        <R>  Constant throughput in requests/s in total\n"
          "                           (absent: closed loop, as wrk)\n"
          "    -L  --latency          Print latency statistics\n"
          "    -U  --u_latency        Also print uncorrected latency statistics\n"
          "    -B  --batch_latency    Measure whole pipelined batches, not each request\n"
          "    -H, --header      <H>  Add header to request (repeatable)\n"
          "        --timeout     <T>  Request and connect timeout (default 2s)\n"
          "        --warmup      <T>  Run this long first and discard it (default 0)\n"
          "        --pipeline    <N>  HTTP/1.1 requests in flight per connection (default 1)\n"
          "        --h2               HTTP/2: ALPN h2 over TLS, prior knowledge (h2c) in clear\n"
          "        --alpn     <LIST>  Protocols to offer over TLS, e.g. h2,http/1.1\n"
          "    -m, --streams     <N>  Concurrent HTTP/2 streams per connection (default 1)\n"
          "        --window-bits <N>  HTTP/2 stream window 2^N-1 (default 30)\n"
          "        --connection-window-bits <N>  HTTP/2 connection window 2^N-1 (default 30)\n"
          "        --format <F>       Report layout: wrk (default) or h2load\n"
          "        --unix     <PATH>  Connect to a Unix-domain socket\n"
          "        --verify           Verify the server's TLS certificate\n"
          "        --cacert   <FILE>  Trust these CA certificates (implies --verify)\n"
          "        --hlog     <FILE>  Write an HdrHistogram interval log (ns)\n"
          "        --hgrm     <FILE>  Write the percentile distribution (HdrHistogram plotter)\n"
          "        --json     <FILE>  Write all results as JSON ('-': stdout, report to stderr)\n"
          "        --csv      <FILE>  Write the per-interval time series as CSV\n"
          "        --interval    <T>  Interval of logs and time series (default 1s)\n"
          "    -v, --version          Print version details\n"
          "    -h, --help             Print this help\n"
          "\n"
          "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
          "  Time arguments may include a time unit (2ms, 2s, 2m, 2h)\n"
          "  Exit codes: 0 ok, 1 could not run, 2 usage, 3 no response received,\n"
          "              130/143 stopped by SIGINT/SIGTERM (partial report printed)\n",
          f);
}

/* One line on stderr, whatever the user's text contained. */
static int bad(FILE *err, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            *p = '?';
    fprintf(err, "pacer: %s\n", msg);
    return -EINVAL;
}

static int parse_u32(const char *flag, const char *s, uint32_t min, uint32_t *out, FILE *err)
{
    uint64_t v;
    int rc = units_parse_count(s, &v);

    if (rc < 0)
        return bad(err, "invalid number for %s: '%s'", flag, s);
    if (v < min || v > 10000000)
        return bad(err, "%s must be between %u and 10000000, got '%s'", flag, min, s);
    *out = (uint32_t)v;
    return 0;
}

static int parse_dur(const char *flag, const char *s, uint64_t *out, FILE *err)
{
    if (units_parse_duration(s, out) < 0)
        return bad(err, "invalid duration for %s: '%s' (use e.g. 500ms, 10s, 2m, 1h)", flag, s);
    return 0;
}

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* "Name: value" or "Name:value", as wrk accepts both. */
static int add_header(pc_config *cfg, const char *s, FILE *err)
{
    const char *colon = strchr(s, ':');
    const char *v;
    pc_header *hs;

    if (!colon || colon == s)
        return bad(err, "invalid header '%s': expected 'Name: value'", s);
    for (const char *p = s; p < colon; p++)
        if (!is_tchar((unsigned char)*p))
            return bad(err, "invalid header '%s': bad character in name", s);
    v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    for (const char *p = v; *p; p++)
        if (*p == '\r' || *p == '\n')
            return bad(err, "invalid header '%s': line break in value", s);
    hs = realloc(cfg->headers, (cfg->nheaders + 1) * sizeof *hs);
    if (!hs)
        return bad(err, "out of memory");
    cfg->headers = hs;
    hs[cfg->nheaders].name = strndup(s, (size_t)(colon - s));
    hs[cfg->nheaders].value = strdup(v);
    if (!hs[cfg->nheaders].name || !hs[cfg->nheaders].value)
        return bad(err, "out of memory");
    cfg->nheaders++;
    return 0;
}

static void print_version(FILE *out)
{
    fprintf(out, "pacer %s [epoll] HTTP load generator\n", PACER_VERSION);
}

int cli_parse(int argc, char **argv, pc_config *cfg, FILE *out, FILE *err)
{
    char uerr[512];
    int c, rc;

    memset(cfg, 0, sizeof *cfg);
    cfg->threads = 2;
    cfg->connections = 10;
    cfg->duration_ns = 10ull * 1000000000ull;
    cfg->timeout_ns = 2ull * 1000000000ull;
    cfg->pipeline = 1;
    cfg->interval_ns = 1000000000ull;
    cfg->streams = 1;
    cfg->window_bits = 30;
    cfg->conn_window_bits = 30;

    optind = 0; /* 0, not 1: glibc then also forgets a half-parsed "-xyz" group */
    opterr = 0;
    /* GNU getopt permutes, so options may follow the URL (as in wrk);
     * the first non-option is the URL, the rest (and all after "--") are
     * the script's arguments. */
    while ((c = getopt_long(argc, argv, ":t:c:d:R:LUBH:m:vh", long_opts, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 't':
            rc = parse_u32("-t/--threads", optarg, 1, &cfg->threads, err);
            break;
        case 'c':
            rc = parse_u32("-c/--connections", optarg, 1, &cfg->connections, err);
            break;
        case 'd':
            rc = parse_dur("-d/--duration", optarg, &cfg->duration_ns, err);
            if (rc == 0 && cfg->duration_ns < 1000000)
                rc = bad(err, "-d/--duration must be at least 1ms, got '%s'", optarg);
            break;
        case 'R':
            if (units_parse_rate(optarg, &cfg->rate) < 0 || !(cfg->rate > 0))
                rc = bad(err, "invalid rate for -R/--rate: '%s' (requests/s > 0, e.g. 500, 2.5k)",
                         optarg);
            break;
        case 'L':
            cfg->latency = true;
            break;
        case 'U':
            cfg->u_latency = true;
            break;
        case 'B':
            cfg->batch_latency = true;
            break;
        case 'H':
            rc = add_header(cfg, optarg, err);
            break;
        case OPT_TIMEOUT:
            rc = parse_dur("--timeout", optarg, &cfg->timeout_ns, err);
            if (rc == 0 && cfg->timeout_ns < 1000000)
                rc = bad(err, "--timeout must be at least 1ms, got '%s'", optarg);
            break;
        case OPT_WARMUP:
            rc = parse_dur("--warmup", optarg, &cfg->warmup_ns, err);
            break;
        case OPT_PIPELINE:
            rc = parse_u32("--pipeline", optarg, 1, &cfg->pipeline, err);
            if (rc == 0 && cfg->pipeline > 1024)
                rc = bad(err, "--pipeline must be at most 1024, got '%s'", optarg);
            break;
        case OPT_UNIX:
            if (strlen(optarg) >= 108)
                rc = bad(err, "--unix path too long (max 107 bytes): '%s'", optarg);
            cfg->unix_path = optarg;
            break;
        case OPT_VERIFY:
            cfg->verify = true;
            break;
        case OPT_CACERT:
            cfg->cacert = optarg;
            cfg->verify = true;
            break;
        case OPT_HLOG:
            cfg->hlog_path = optarg;
            break;
        case OPT_HGRM:
            cfg->hgrm_path = optarg;
            break;
        case OPT_JSON:
            cfg->json_path = optarg;
            break;
        case OPT_CSV:
            cfg->csv_path = optarg;
            break;
        case OPT_INTERVAL:
            rc = parse_dur("--interval", optarg, &cfg->interval_ns, err);
            if (rc == 0 && cfg->interval_ns < 10000000)
                rc = bad(err, "--interval must be at least 10ms, got '%s'", optarg);
            break;
        case OPT_H2:
            cfg->h2 = true;
            break;
        case OPT_ALPN:
            cfg->alpn = optarg;
            if (!strstr(optarg, "h2") && !strstr(optarg, "http/1.1"))
                rc = bad(err, "--alpn needs h2 and/or http/1.1, got '%s'", optarg);
            break;
        case 'm':
            rc = parse_u32("-m/--streams", optarg, 1, &cfg->streams, err);
            if (rc == 0 && cfg->streams > 65536)
                rc = bad(err, "-m/--streams must be at most 65536, got '%s'", optarg);
            break;
        case OPT_WINDOW:
        case OPT_CONN_WINDOW:
            rc = parse_u32(c == OPT_WINDOW ? "--window-bits" : "--connection-window-bits",
                           optarg, 0, c == OPT_WINDOW ? &cfg->window_bits : &cfg->conn_window_bits,
                           err);
            if (rc == 0 && (c == OPT_WINDOW ? cfg->window_bits : cfg->conn_window_bits) > 30)
                rc = bad(err, "window bits must be 0-30, got '%s'", optarg);
            if (rc == 0 && c == OPT_CONN_WINDOW && cfg->conn_window_bits < 16)
                rc = bad(err, "--connection-window-bits must be 16-30, got '%s'", optarg);
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "wrk") == 0)
                cfg->format = PC_FORMAT_WRK;
            else if (strcmp(optarg, "h2load") == 0)
                cfg->format = PC_FORMAT_H2LOAD;
            else
                rc = bad(err, "unknown --format '%s' (wrk or h2load)", optarg);
            break;
        case 'v':
            cfg->version = true;
            break;
        case 'h':
            cli_usage(out);
            return CLI_EXIT;
        case ':':
            return bad(err, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                return bad(err, "unknown option '-%c' (see pacer --help)", optopt);
            return bad(err, "unknown option '%s' (see pacer --help)", argv[optind - 1]);
        }
        if (rc < 0)
            return rc;
    }

    if (cfg->version) {
        print_version(out);
        if (optind >= argc) {
            /* wrk: -v alone prints the version and the usage; with a URL it runs. */
            cli_usage(out);
            return CLI_EXIT;
        }
    }
    if (optind >= argc) {
        cli_usage(err);
        return bad(err, "missing URL");
    }
    cfg->url_text = argv[optind];
    if (url_parse(argv[optind], &cfg->url, uerr, sizeof uerr) < 0)
        return bad(err, "%s", uerr);
    optind++;
    if (optind < argc && strcmp(argv[optind], "--") == 0)
        optind++;
    cfg->script_args = argv + optind;
    cfg->nscript_args = argc - optind;

    if (cfg->connections < cfg->threads)
        return bad(err, "number of connections (%u) must be >= threads (%u)", cfg->connections,
                   cfg->threads);
    if (cfg->batch_latency && cfg->pipeline < 2)
        fprintf(err, "pacer: note: -B/--batch_latency has no effect without --pipeline N > 1\n");
    return CLI_RUN;
}

void cli_free(pc_config *cfg)
{
    for (size_t i = 0; i < cfg->nheaders; i++) {
        free(cfg->headers[i].name);
        free(cfg->headers[i].value);
    }
    free(cfg->headers);
    cfg->headers = NULL;
    cfg->nheaders = 0;
    url_free(&cfg->url);
}
