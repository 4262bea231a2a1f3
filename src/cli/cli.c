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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/units.h"
#include "cli/url.h"
#include "cli/urls.h"
#include "report/slo.h"
#include "stats/hdr_codec.h"

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
    OPT_HTML,
    OPT_PROGRESS,
    OPT_QUIET,
    OPT_SLO,
    OPT_ROUNDS,
    OPT_START_RATE,
    OPT_MAX_RATE,
    OPT_MAX_TIME,
    OPT_PRECISION,
    OPT_PAUSE,
    OPT_INTERVAL,
    OPT_H2,
    OPT_ALPN,
    OPT_WINDOW,
    OPT_CONN_WINDOW,
    OPT_FORMAT,
    OPT_NO_KEEPALIVE,
    OPT_BODY,
    OPT_HOST,
    OPT_CONNECT_TO,
    OPT_URLS,
    OPT_MIX,
    OPT_STRICT_LENGTH,
    OPT_CONNECT_TIMEOUT,
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
    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"pipeline", required_argument, NULL, OPT_PIPELINE},
    {"unix", required_argument, NULL, OPT_UNIX},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"hlog", required_argument, NULL, OPT_HLOG},
    {"hgrm", required_argument, NULL, OPT_HGRM},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"html", required_argument, NULL, OPT_HTML},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"slo", required_argument, NULL, OPT_SLO},
    {"rounds", required_argument, NULL, OPT_ROUNDS},
    {"start-rate", required_argument, NULL, OPT_START_RATE},
    {"max-rate", required_argument, NULL, OPT_MAX_RATE},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"pause", required_argument, NULL, OPT_PAUSE},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"h2", no_argument, NULL, OPT_H2},
    {"alpn", required_argument, NULL, OPT_ALPN},
    {"streams", required_argument, NULL, 'm'},
    {"max-concurrent-streams", required_argument, NULL, 'm'},
    {"window-bits", required_argument, NULL, OPT_WINDOW},
    {"connection-window-bits", required_argument, NULL, OPT_CONN_WINDOW},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"requests", required_argument, NULL, 'n'},
    {"script", required_argument, NULL, 's'},
    {"no-keepalive", no_argument, NULL, OPT_NO_KEEPALIVE},
    {"keepalive", no_argument, NULL, 'k'},
    {"method", required_argument, NULL, 'X'},
    {"body", required_argument, NULL, OPT_BODY},
    {"body-file", required_argument, NULL, 'p'},
    {"content-type", required_argument, NULL, 'T'},
    {"cookie", required_argument, NULL, 'C'},
    {"basic-auth", required_argument, NULL, 'A'},
    {"head", no_argument, NULL, 'i'},
    {"host", required_argument, NULL, OPT_HOST},
    {"connect-to", required_argument, NULL, OPT_CONNECT_TO},
    {"urls", required_argument, NULL, OPT_URLS},
    {"mix", required_argument, NULL, OPT_MIX},
    {"strict-length", no_argument, NULL, OPT_STRICT_LENGTH},
    {"gnuplot", required_argument, NULL, 'g'},
    {"percentiles-csv", required_argument, NULL, 'e'},
    {"version", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cli_usage(FILE *f)
{
    fputs("Usage: pacer <options> <url> [--] [script args]\n"
          "       pacer report [-U] [--json FILE] [--hgrm FILE] [--html FILE] [--slo EXPR]\n"
          "                    [--from T] [--to T] [--force] FILE...\n"
          "       pacer compare [--rounds N] <options> URL_A URL_B [URL...]\n"
          "       pacer capacity --slo EXPR [--start-rate R] [--max-rate R] [--max-time T]\n"
          "                      <options> URL\n"
          "       pacer suite [--json FILE] [--html FILE] SUITE_FILE\n"
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
          "        --timeout     <T>  Request timeout (default 2s)\n"
          "        --connect-timeout <T>  TCP connect + TLS handshake timeout (default 10s:\n"
          "                           survives the SYN retransmits of a full accept backlog)\n"
          "        --warmup      <T>  Run this long first and discard it (default 0)\n"
          "        --pipeline    <N>  HTTP/1.1 requests in flight per connection (default 1)\n"
          "        --h2               HTTP/2: ALPN h2 over TLS, prior knowledge (h2c) in clear\n"
          "        --alpn     <LIST>  Protocols to offer over TLS, e.g. h2,http/1.1\n"
          "    -m, --streams     <N>  Concurrent HTTP/2 streams per connection (default 1;\n"
          "                           N > 1 implies --h2, as in h2load)\n"
          "        --window-bits <N>  HTTP/2 stream window 2^N-1 (default 30)\n"
          "        --connection-window-bits <N>  HTTP/2 connection window 2^N-1 (default 30)\n"
          "        --format <F>       Report layout: wrk (default), h2load or ab\n"
          "    -s, --script   <FILE>  Load a wrk Lua script (arguments after the URL or --)\n"
          "    -n, --requests    <N>  Send exactly N requests, then stop (-d: upper bound)\n"
          "        --no-keepalive     A new connection for every request\n"
          "    -k, --keepalive        Keep-alive (the default; accepted for ab)\n"
          "    -X, --method      <M>  Request method (default GET)\n"
          "        --body     <TEXT>  Request body\n"
          "    -p, --body-file <FILE> Request body from a file\n"
          "    -T, --content-type <T> Content-Type of the body\n"
          "    -C, --cookie  <NAME=V> Add a cookie (repeatable)\n"
          "    -A, --basic-auth <U:P> HTTP basic authentication\n"
          "    -i, --head             HEAD requests\n"
          "        --host     <NAME>  Host header and TLS SNI (the URL's address is used)\n"
          "        --connect-to <H:P> Connect to H:P instead (the URL's Host is kept)\n"
          "        --urls     <FILE>  Requests from a file: [METHOD] URL [@BODYFILE] [WEIGHT]\n"
          "        --mix      <M>     With --urls: roundrobin (default) or random (weighted)\n"
          "        --strict-length    Count a body length differing from the first as failed (ab)\n"
          "    -g, --gnuplot  <FILE>  ab's per-request TSV (with -n)\n"
          "    -e, --percentiles-csv <FILE> ab's percentage CSV\n"
          "        --unix     <PATH>  Connect to a Unix-domain socket\n"
          "        --verify           Verify the server's TLS certificate\n"
          "        --cacert   <FILE>  Trust these CA certificates (implies --verify)\n"
          "        --hlog     <FILE>  Write an HdrHistogram interval log (ns)\n"
          "        --hgrm     <FILE>  Write the percentile distribution (HdrHistogram plotter)\n"
          "        --json     <FILE>  Write all results as JSON ('-': stdout, report to stderr)\n"
          "        --csv      <FILE>  Write the per-interval time series as CSV\n"
          "        --html     <FILE>  Write a self-contained HTML report with plots\n"
          "        --interval    <T>  Interval of logs and time series (default 1s)\n"
          "        --progress         Live progress on stderr even when it is not a terminal\n"
          "        --quiet            No live progress\n"
          "        --slo      <EXPR>  Objectives, e.g. 'p99<=100ms,errors<=0.1%,rate>=99%':\n"
          "                           PASS/FAIL lines, exit 5 when one fails\n"
          "  compare:  --rounds   <N>  Rounds of A B A B ... (default 3)\n"
          "  capacity: --start-rate <R> First rate tried (default 100), grown x2 until the\n"
          "                           SLO fails, then bisected; each step lasts -d,\n"
          "                           longer when a percentile needs more samples\n"
          "            --max-rate <R>  Never go above this rate (default 1M)\n"
          "            --max-time <T>  Stop searching after this long in all (default 10m)\n"
          "            --precision <P> Stop when the bracket is within P (default 5%)\n"
          "            --pause    <T>  Idle time between steps (default 1s)\n"
          "    -v, --version          Print version details\n"
          "    -h, --help             Print this help\n"
          "\n"
          "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
          "  Time arguments may include a time unit (2ms, 2s, 2m, 2h)\n"
          "  Exit codes: 0 ok, 1 could not run, 2 usage, 3 no response received, 4 script error,\n"
          "              5 an --slo objective failed (capacity: even at the start rate),\n"
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

/* Durations are capped at 30 days: deadlines are start + duration in ns,
 * and a run that long is a typo, not a plan. */
#define MAX_DURATION_NS (30ull * 86400 * 1000000000ull)

/* One request per nanosecond: intended times are whole ns, and k stays
 * exact in a double for 30 days (2.6e15 < 2^53). */
#define MAX_RATE 1e9

static int parse_dur(const char *flag, const char *s, uint64_t *out, FILE *err)
{
    if (units_parse_duration(s, out) < 0)
        return bad(err, "invalid duration for %s: '%s' (use e.g. 500ms, 10s, 2m, 1h)", flag, s);
    if (*out > MAX_DURATION_NS)
        return bad(err, "%s must be at most 30 days, got '%s'", flag, s);
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

/* The result files, with the flag that names each. */
#define NOUTS 7
static void outputs_of(const pc_config *cfg, const char *paths[NOUTS], const char *flags[NOUTS])
{
    const char *p[NOUTS] = {cfg->hlog_path, cfg->hgrm_path, cfg->json_path, cfg->csv_path,
                            cfg->html_path, cfg->gnuplot_path, cfg->csv_pct_path};
    static const char *const f[NOUTS] = {"--hlog", "--hgrm", "--json", "--csv", "--html",
                                         "-g/--gnuplot", "-e/--percentiles-csv"};

    memcpy(paths, p, sizeof p);
    memcpy(flags, f, sizeof f);
}

/* How many result files were given as "-" (stdout). */
static int stdout_outputs(const pc_config *cfg)
{
    const char *outs[NOUTS], *flags[NOUTS];
    int n = 0;

    outputs_of(cfg, outs, flags);
    for (size_t i = 0; i < NOUTS; i++)
        n += outs[i] && strcmp(outs[i], "-") == 0;
    return n;
}

/* Whether two paths name one file: the same text, or (both existing) the
 * same inode. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    if (strcmp(a, b) == 0)
        return true;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Two outputs naming one file would overwrite each other: refused. */
static int check_outputs(const pc_config *cfg, FILE *err)
{
    const char *outs[NOUTS], *flags[NOUTS];

    outputs_of(cfg, outs, flags);
    for (size_t i = 0; i < NOUTS; i++)
        for (size_t j = i + 1; outs[i] && strcmp(outs[i], "-") != 0 && j < NOUTS; j++)
            if (outs[j] && strcmp(outs[j], "-") != 0 && same_file(outs[i], outs[j]))
                return bad(err, "%s and %s both write '%s': give each its own file", flags[i],
                           flags[j], outs[i]);
    return 0;
}

/* compare: every positional argument is a target URL (at least two). */
static int take_targets(pc_config *cfg, int argc, char **argv, FILE *err)
{
    char uerr[512];
    pc_url u;

    if (argc - optind < 2)
        return bad(err, "pacer compare needs at least two URLs, got %d", argc - optind);
    cfg->targets = calloc((size_t)(argc - optind), sizeof *cfg->targets);
    if (!cfg->targets)
        return bad(err, "out of memory");
    for (; optind < argc; optind++) {
        /* The first is the run's URL (cfg->url); the others are checked here
         * and parsed again per target (wf_target_config). */
        pc_url *dst = cfg->ntargets ? &u : &cfg->url;

        if (strcmp(argv[optind], "--") == 0)
            return bad(err, "pacer compare takes no script arguments");
        if (url_parse(argv[optind], dst, uerr, sizeof uerr) < 0)
            return bad(err, "%s", uerr);
        if (dst == &u)
            url_free(&u);
        cfg->targets[cfg->ntargets++] = argv[optind];
    }
    cfg->url_text = cfg->targets[0];
    return 0;
}

/* The values of -A/--basic-auth and -C/--cookie. */
static bool secret_follows(const char *flag)
{
    return strcmp(flag, "-A") == 0 || strcmp(flag, "--basic-auth") == 0 ||
           strcmp(flag, "-C") == 0 || strcmp(flag, "--cookie") == 0;
}

/* An argument that carries a secret itself (--basic-auth=U:P, -Auser:pw,
 * -H'Authorization: x', or a header value after -H): its redacted form. */
static bool secret_inline(const char *a, char *buf, size_t cap)
{
    const char *h = strncmp(a, "-H", 2) == 0 && a[2] ? a + 2 : a, *colon = strchr(h, ':');

    if (strncmp(a, "--basic-auth=", 13) == 0 || (strncmp(a, "-A", 2) == 0 && a[2])) {
        snprintf(buf, cap, "%.*sREDACTED", a[1] == 'A' ? 2 : 13, a);
        return true;
    }
    if (colon && pc_header_is_secret(h, (size_t)(colon - h)) && colon - a < 200) {
        snprintf(buf, cap, "%.*s REDACTED", (int)(colon - a + 1), a);
        return true;
    }
    return false;
}

/* The command line as one shell-quoted string, for the result files: a run
 * must say what was run. Subcommands' argv[0] is their name ("compare"). */
static char *join_cmdline(int mode, int argc, char **argv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    fputs("pacer", f);
    for (int i = mode == PC_MODE_RUN ? 1 : 0; i < argc; i++) {
        const char *a = argv[i];
        char redacted[300];

        /* Result files are shared: credentials stay out of them. */
        if (i > 0 && secret_follows(argv[i - 1]))
            a = "REDACTED";
        else if (secret_inline(a, redacted, sizeof redacted))
            a = redacted;

        fputc(' ', f);
        if (*a && !a[strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789-_./:=,@%+")]) {
            fputs(a, f);
            continue;
        }
        fputc('\'', f);
        for (; *a; a++)
            if (*a == '\'')
                fputs("'\\''", f);
            else
                fputc(*a, f);
        fputc('\'', f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void print_version(FILE *out)
{
    fprintf(out, "pacer %s [epoll] HTTP load generator\n", PACER_VERSION);
}

/* Options that belong to one subcommand only. */
static int mode_only(const pc_config *cfg, int mode, const char *flag, FILE *err)
{
    static const char *const names[] = {"pacer URL", "pacer compare", "pacer capacity"};

    if (cfg->mode == mode)
        return 0;
    return bad(err, "%s is an option of %s", flag, names[mode]);
}

/* Blogs print "--latency" as "–latency" (an en dash), and "-" as a minus
 * sign: such an argument is read with ASCII dashes, in place (the UTF-8
 * dash is longer than what replaces it), and one line says so. */
static void ascii_dashes(int argc, char **argv, FILE *err)
{
    static const struct {
        const char *utf8, *ascii;
    } dashes[] = {{"\xe2\x80\x93", "--"}, {"\xe2\x80\x94", "--"}, {"\xe2\x88\x92", "-"}};

    for (int i = 1; i < argc; i++)
        for (size_t d = 0; d < sizeof dashes / sizeof dashes[0]; d++) {
            size_t ul = strlen(dashes[d].utf8), al = strlen(dashes[d].ascii);
            char was[64];

            if (strncmp(argv[i], dashes[d].utf8, ul) != 0 || !argv[i][ul] ||
                !((argv[i][ul] >= 'a' && argv[i][ul] <= 'z') ||
                  (argv[i][ul] >= 'A' && argv[i][ul] <= 'Z')))
                continue;
            snprintf(was, sizeof was, "%s", argv[i]);
            memcpy(argv[i], dashes[d].ascii, al);
            memmove(argv[i] + al, argv[i] + ul, strlen(argv[i] + ul) + 1);
            fprintf(err, "pacer: note: '%s' read as '%s' (a typographic dash)\n", was, argv[i]);
            break;
        }
}

/* Other tools' single-dash long flags: getopt would read "-h2" as -h (help,
 * exit 0) and "-host" as -h -o -s -t. Refused with pacer's spelling. */
static int peer_spellings(int argc, char **argv, FILE *err)
{
    static const struct {
        const char *flag, *hint;
    } peers[] = {
        {"-h2", "HTTP/2 is --h2 here (hey's -h2)"},
        {"-host", "the Host header is --host NAME here (hey's -host)"},
        {"-disable-keepalive", "a connection per request is --no-keepalive here (hey's -disable-keepalive)"},
        {"-disable-compression", "pacer asks for no compression: drop it (hey's -disable-compression)"},
        {"-disable-redirects", "pacer never follows redirects: drop it (hey's -disable-redirects)"},
        {"-cpus", "threads are -t N here (hey's -cpus)"},
    };

    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (argv[i][0] != '-' || argv[i][1] == '-' || strlen(argv[i]) < 3)
            continue;
        for (size_t p = 0; p < sizeof peers / sizeof peers[0]; p++)
            if (strcmp(argv[i], peers[p].flag) == 0)
                return bad(err, "unknown option '%s': %s", argv[i], peers[p].hint);
        for (const struct option *o = long_opts; o->name; o++)
            if (strcmp(argv[i] + 1, o->name) == 0 && strlen(o->name) > 1)
                return bad(err, "unknown option '%s': did you mean '--%s'?", argv[i], o->name);
    }
    return 0;
}

/* Whether NAME (len bytes, as typed after "--", perhaps abbreviated as
 * getopt_long allows) names exactly one option, and that one takes no
 * value: then "--NAME=x" is a misplaced value, not an unknown option. */
static bool long_opt_takes_no_value(const char *name, size_t len)
{
    const struct option *hit = NULL;

    for (const struct option *o = long_opts; o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (strlen(o->name) == len)
            return o->has_arg == no_argument;
        if (hit && hit->val != o->val)
            return false; /* ambiguous */
        hit = o;
    }
    return hit && hit->has_arg == no_argument;
}

/* An objective that cannot be judged for this run is a usage error before
 * any load is sent: a share of the rate needs -R. */
static int check_slo(const pc_config *cfg, FILE *err)
{
    if (!cfg->slo || cfg->rate > 0 || cfg->mode == PC_MODE_CAPACITY)
        return 0;
    for (size_t i = 0; i < cfg->slo->n; i++)
        if (cfg->slo->v[i].metric == SLO_RATE && cfg->slo->v[i].percent)
            return bad(err,
                       "--slo '%s' is a share of the requested rate: it needs -R (or use "
                       "rate>=N for req/s)",
                       cfg->slo->v[i].text);
    return 0;
}

static int parse_rate_flag(const char *flag, const char *s, double *out, FILE *err)
{
    if (units_parse_rate(s, out) < 0 || !(*out > 0))
        return bad(err, "invalid rate for %s: '%s' (requests/s > 0, e.g. 500, 2.5k)", flag, s);
    if (*out > MAX_RATE)
        return bad(err, "%s must be at most 1G requests/s, got '%s'", flag, s);
    return 0;
}

int cli_parse(int argc, char **argv, pc_config *cfg, FILE *out, FILE *err)
{
    return cli_parse_mode(PC_MODE_RUN, argc, argv, cfg, out, err);
}

int cli_parse_mode(int mode, int argc, char **argv, pc_config *cfg, FILE *out, FILE *err)
{
    char uerr[512];
    bool version_only = false;
    int c, rc;

    memset(cfg, 0, sizeof *cfg);
    cfg->mode = mode;
    cfg->cmdline = join_cmdline(mode, argc, argv);
    if (!cfg->cmdline)
        return bad(err, "out of memory");
    cfg->rounds = 3;
    cfg->start_rate = 100;
    cfg->max_rate = 1e6;
    cfg->max_time_ns = 600ull * 1000000000ull;
    cfg->precision = 0.05;
    cfg->pause_ns = 1000000000ull;
    cfg->threads = 2;
    cfg->connections = 10;
    cfg->duration_ns = 10ull * 1000000000ull;
    cfg->timeout_ns = 2ull * 1000000000ull;
    cfg->connect_timeout_ns = 10ull * 1000000000ull;
    cfg->pipeline = 1;
    cfg->interval_ns = 1000000000ull;
    cfg->streams = 1;
    cfg->window_bits = 30;
    cfg->conn_window_bits = 30;

    ascii_dashes(argc, argv, err);
    if ((rc = peer_spellings(argc, argv, err)) < 0)
        return rc;
    optind = 0; /* 0, not 1: glibc then also forgets a half-parsed "-xyz" group */
    opterr = 0;
    /* GNU getopt permutes, so options may follow the URL (as in wrk);
     * the first non-option is the URL, the rest (and all after "--") are
     * the script's arguments. */
    while ((c = getopt_long(argc, argv, ":t:c:d:R:LUBH:m:n:kX:p:T:C:A:ig:e:s:vh", long_opts, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 't':
            rc = parse_u32("-t/--threads", optarg, 1, &cfg->threads, err);
            break;
        case 'c':
            rc = parse_u32("-c/--connections", optarg, 1, &cfg->connections, err);
            break;
        case 'd':
            if (strchr("{[\"'<", optarg[0])) {
                rc = bad(err, "invalid duration for -d/--duration: '%s' (a request body is "
                              "--body TEXT here: hey's -d)",
                         optarg);
                break;
            }
            rc = parse_dur("-d/--duration", optarg, &cfg->duration_ns, err);
            cfg->duration_set = true;
            if (rc == 0 && cfg->duration_ns < 1000000)
                rc = bad(err, "-d/--duration must be at least 1ms, got '%s'", optarg);
            break;
        case 'R':
            if (units_parse_rate(optarg, &cfg->rate) < 0 || !(cfg->rate > 0))
                rc = bad(err, "invalid rate for -R/--rate: '%s' (requests/s > 0, e.g. 500, 2.5k)",
                         optarg);
            else if (cfg->rate > MAX_RATE)
                rc = bad(err, "-R/--rate must be at most 1G requests/s (the schedule's "
                              "resolution is 1 ns), got '%s'", optarg);
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
        case OPT_CONNECT_TIMEOUT:
            rc = parse_dur("--connect-timeout", optarg, &cfg->connect_timeout_ns, err);
            if (rc == 0 && cfg->connect_timeout_ns < 1000000)
                rc = bad(err, "--connect-timeout must be at least 1ms, got '%s'", optarg);
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
        case OPT_HTML:
            cfg->html_path = optarg;
            break;
        case OPT_PROGRESS:
            cfg->progress = PC_PROGRESS_ON;
            break;
        case OPT_QUIET:
            cfg->progress = PC_PROGRESS_OFF;
            break;
        case OPT_SLO:
            free(cfg->slo);
            cfg->slo = malloc(sizeof *cfg->slo);
            if (!cfg->slo)
                rc = bad(err, "out of memory");
            else if (slo_parse(optarg, cfg->slo, uerr, sizeof uerr) < 0)
                rc = bad(err, "%s", uerr);
            break;
        case OPT_ROUNDS:
            rc = mode_only(cfg, PC_MODE_COMPARE, "--rounds", err);
            if (rc == 0)
                rc = parse_u32("--rounds", optarg, 1, &cfg->rounds, err);
            if (rc == 0 && cfg->rounds > 1000)
                rc = bad(err, "--rounds must be at most 1000, got '%s'", optarg);
            break;
        case OPT_START_RATE:
        case OPT_MAX_RATE: {
            const char *flag = c == OPT_START_RATE ? "--start-rate" : "--max-rate";

            rc = mode_only(cfg, PC_MODE_CAPACITY, flag, err);
            if (rc == 0)
                rc = parse_rate_flag(flag, optarg,
                                     c == OPT_START_RATE ? &cfg->start_rate : &cfg->max_rate, err);
            break;
        }
        case OPT_MAX_TIME:
        case OPT_PAUSE: {
            const char *flag = c == OPT_MAX_TIME ? "--max-time" : "--pause";

            rc = mode_only(cfg, PC_MODE_CAPACITY, flag, err);
            if (rc == 0)
                rc = parse_dur(flag, optarg, c == OPT_MAX_TIME ? &cfg->max_time_ns : &cfg->pause_ns,
                               err);
            break;
        }
        case OPT_PRECISION: {
            char *end;

            rc = mode_only(cfg, PC_MODE_CAPACITY, "--precision", err);
            if (rc < 0)
                break;
            errno = 0;
            cfg->precision = strtod(optarg, &end);
            if (*end == '%') {
                cfg->precision /= 100;
                end++;
            }
            if (end == optarg || *end || errno || !(cfg->precision >= 0.001 && cfg->precision <= 1))
                rc = bad(err, "invalid --precision '%s' (0.1%% to 100%%, e.g. 5%%)", optarg);
            break;
        }
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
            if (optarg[0] >= 'A' && optarg[0] <= 'Z') {
                rc = bad(err, "invalid number for -m/--streams: '%s' (the method is -X %s here: "
                              "hey's -m)",
                         optarg, optarg);
                break;
            }
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
            else if (strcmp(optarg, "ab") == 0)
                cfg->format = PC_FORMAT_AB;
            else
                rc = bad(err, "unknown --format '%s' (wrk or h2load)", optarg);
            break;
        case 's':
            cfg->script_path = optarg;
            if (access(optarg, R_OK) != 0)
                rc = bad(err, "cannot read script '%s': %s%s", optarg, strerror(errno),
                     optarg[strspn(optarg, "0123456789")] ? ""
                     : " (-s is a Lua script here; the timeout is --timeout: ab's -s)");
            break;
        case 'n':
            if (units_parse_count(optarg, &cfg->requests) < 0 || cfg->requests == 0 ||
                cfg->requests > 1000000000000ull)
                rc = bad(err, "invalid number for -n/--requests: '%s'", optarg);
            break;
        case OPT_NO_KEEPALIVE:
            cfg->no_keepalive = true;
            break;
        case 'k':
            break;
        case 'X':
            cfg->method = optarg;
            for (const char *q = optarg; rc == 0 && *q; q++)
                if (!is_tchar((unsigned char)*q))
                    rc = bad(err, "invalid method '%s'", optarg);
            if (rc == 0 && !*optarg)
                rc = bad(err, "empty method");
            break;
        case OPT_BODY:
            free(cfg->body);
            cfg->body_len = strlen(optarg);
            cfg->body = strdup(optarg);
            break;
        case 'p': {
            int r;

            free(cfg->body);
            r = urls_read_file(optarg, &cfg->body, &cfg->body_len);
            if (r < 0)
                rc = bad(err, "cannot read body file '%s': %s", optarg, strerror(-r));
            break;
        }
        case 'T':
            cfg->content_type = optarg;
            if (strpbrk(optarg, "\r\n"))
                rc = bad(err, "invalid content type");
            break;
        case 'C': {
            char **cs = realloc(cfg->cookies, (cfg->ncookies + 1) * sizeof *cs);

            if (!cs || !strchr(optarg, '=') || strpbrk(optarg, "\r\n;")) {
                rc = bad(err, "invalid cookie '%s': expected NAME=VALUE", optarg);
                if (cs)
                    cfg->cookies = cs;
                break;
            }
            cfg->cookies = cs;
            cs[cfg->ncookies++] = optarg;
            break;
        }
        case 'A': {
            size_t n = strlen(optarg), cap = hdrc_base64_encoded_len(n) + 1;

            if (!strchr(optarg, ':')) {
                rc = bad(err, "invalid --basic-auth '%s': expected user:password", optarg);
                break;
            }
            free(cfg->auth_b64);
            cfg->auth_b64 = malloc(cap);
            if (!cfg->auth_b64 ||
                hdrc_base64_encode((const uint8_t *)optarg, n, cfg->auth_b64, cap) < 0)
                rc = bad(err, "out of memory");
            break;
        }
        case 'i':
            cfg->method = "HEAD";
            break;
        case OPT_HOST:
            cfg->host = optarg;
            for (const char *q = optarg; rc == 0 && *q; q++)
                if ((unsigned char)*q <= ' ' || *q == 0x7f)
                    rc = bad(err, "invalid --host '%s'", optarg);
            break;
        case OPT_CONNECT_TO: {
            const char *colon = strrchr(optarg, ':');
            char *end;
            long port = colon ? strtol(colon + 1, &end, 10) : 0;

            if (!colon || colon == optarg || *end || port < 1 || port > 65535)
                rc = bad(err, "invalid --connect-to '%s': expected HOST:PORT", optarg);
            cfg->connect_to = optarg;
            break;
        }
        case OPT_URLS:
            cfg->urls_path = optarg;
            break;
        case OPT_MIX:
            if (strcmp(optarg, "random") == 0)
                cfg->mix_random = true;
            else if (strcmp(optarg, "roundrobin") == 0 || strcmp(optarg, "round-robin") == 0)
                cfg->mix_random = false;
            else
                rc = bad(err, "unknown --mix '%s' (roundrobin or random)", optarg);
            break;
        case OPT_STRICT_LENGTH:
            cfg->strict_length = true;
            break;
        case 'g':
            cfg->gnuplot_path = optarg;
            break;
        case 'e':
            cfg->csv_pct_path = optarg;
            break;
        case 'v':
            cfg->version = true;
            /* --version prints the version only; wrk's -v alone adds the usage. */
            version_only = strcmp(argv[optind - 1], "--version") == 0;
            break;
        case 'h':
            cli_usage(out);
            return CLI_EXIT;
        case ':':
            return bad(err, "option '%s' needs a value", argv[optind - 1]);
        default: {
            const char *arg = argv[optind - 1];

            if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=')) {
                int n = (int)(strchr(arg, '=') - arg);

                if (long_opt_takes_no_value(arg + 2, (size_t)n - 2))
                    return bad(err, "option '%.*s' takes no value", n, arg);
                return bad(err, "unknown option '%.*s' (see pacer --help)", n, arg);
            }
            if (optopt > 0 && optopt < 128 && strncmp(arg, "--", 2) != 0)
                return bad(err, "unknown option '-%c' (see pacer --help)", optopt);
            return bad(err, "unknown option '%s' (see pacer --help)", arg);
        }
        }
        if (rc < 0)
            return rc;
    }

    if (cfg->version) {
        print_version(out);
        if (version_only && optind >= argc)
            return CLI_EXIT;
        if (optind >= argc) {
            /* wrk: -v alone prints the version and the usage; with a URL it runs. */
            cli_usage(out);
            return CLI_EXIT;
        }
    }
    if (optind >= argc && !cfg->urls_path) {
        cli_usage(err);
        return bad(err, "missing URL");
    }
    if (mode == PC_MODE_COMPARE) {
        rc = take_targets(cfg, argc, argv, err);
        if (rc < 0)
            return rc;
    } else if (optind < argc) {
        cfg->url_text = argv[optind];
        if (url_parse(argv[optind], &cfg->url, uerr, sizeof uerr) < 0)
            return bad(err, "%s%s", uerr,
                       access(argv[optind], R_OK) == 0
                           ? " (a file of URLs is --urls FILE; -i is HEAD here: h2load's -i)"
                           : "");
        optind++;
    }
    if (optind < argc && strcmp(argv[optind], "--") == 0)
        optind++;
    cfg->script_args = argv + optind;
    cfg->nscript_args = argc - optind;
    if (mode == PC_MODE_CAPACITY) {
        if (!cfg->slo)
            return bad(err, "pacer capacity needs --slo EXPR (e.g. --slo 'p99<=100ms')");
        if (cfg->rate > 0)
            return bad(err, "pacer capacity chooses the rate itself: use --start-rate and "
                            "--max-rate, not -R");
        if (cfg->requests)
            return bad(err, "pacer capacity runs each step for -d: -n cannot be used");
        if (cfg->start_rate > cfg->max_rate)
            return bad(err, "--start-rate (%.2f) is above --max-rate (%.2f)", cfg->start_rate,
                       cfg->max_rate);
    }

    if (!cfg->method)
        cfg->method = cfg->body ? "POST" : "GET";
    if (cfg->urls_path) {
        rc = urls_load(cfg, cfg->urls_path, cfg->method, uerr, sizeof uerr);
        if (rc < 0)
            return bad(err, "%s", uerr);
        if (!cfg->url_text) {
            cfg->url_text = cfg->reqs[0].url_text;
            if (url_parse(cfg->url_text, &cfg->url, uerr, sizeof uerr) < 0)
                return bad(err, "%s", uerr);
        }
    } else if (urls_add(cfg, cfg->method, cfg->url_text, cfg->body, cfg->body_len, 1, uerr,
                        sizeof uerr) < 0) {
        return bad(err, "%s", uerr);
    }
    if (cfg->requests && !cfg->duration_set)
        cfg->duration_ns = 24ull * 3600 * 1000000000ull; /* -n alone: no time limit but a day */
    if (cfg->gnuplot_path && !cfg->requests)
        return bad(err, "-g/--gnuplot needs -n (one row per request)");

    /* One file at most may go to stdout; the text report then goes to stderr. */
    if (stdout_outputs(cfg) > 1)
        return bad(err, "only one output file can be '-' (stdout)");
    if ((rc = check_outputs(cfg, err)) < 0)
        return rc;
    if (cfg->connections < cfg->threads) {
        /* wrk refuses; a thread without a connection would only idle. */
        fprintf(err, "pacer: note: %u connection%s: using %u thread%s, not %u\n",
                cfg->connections, cfg->connections == 1 ? "" : "s", cfg->connections,
                cfg->connections == 1 ? "" : "s", cfg->threads);
        cfg->threads = cfg->connections;
    }
    if (cfg->streams > 1 && !cfg->h2) {
        /* h2load's -m: streams per HTTP/2 connection. Running HTTP/1.1
         * instead would be another test under the same flags. */
        cfg->h2 = true;
        fprintf(err, "pacer: note: -m %u means %u concurrent HTTP/2 streams per connection (as in "
                     "h2load): running HTTP/2 (%s)\n",
                cfg->streams, cfg->streams, cfg->url.tls ? "ALPN h2" : "h2c, prior knowledge");
    }
    if (cfg->h2 && cfg->pipeline > 1)
        return bad(err, "--pipeline is HTTP/1.1 pipelining; HTTP/2 multiplexes instead: use "
                        "-m N (streams per connection)");
    if ((rc = check_slo(cfg, err)) < 0)
        return rc;
    if (cfg->batch_latency && cfg->pipeline < 2)
        fprintf(err, "pacer: note: -B/--batch_latency has no effect without --pipeline N > 1\n");
    return CLI_RUN;
}

FILE *cli_text_stream(const pc_config *cfg)
{
    return stdout_outputs(cfg) ? stderr : stdout;
}

void cli_free(pc_config *cfg)
{
    free(cfg->cmdline);
    cfg->cmdline = NULL;
    urls_free(cfg);
    free(cfg->body);
    cfg->body = NULL;
    free(cfg->cookies);
    cfg->cookies = NULL;
    free(cfg->auth_b64);
    cfg->auth_b64 = NULL;
    for (size_t i = 0; i < cfg->nheaders; i++) {
        free(cfg->headers[i].name);
        free(cfg->headers[i].value);
    }
    free(cfg->headers);
    cfg->headers = NULL;
    cfg->nheaders = 0;
    free(cfg->slo);
    cfg->slo = NULL;
    free(cfg->targets);
    cfg->targets = NULL;
    cfg->ntargets = 0;
    url_free(&cfg->url);
}
