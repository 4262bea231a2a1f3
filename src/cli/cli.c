/*
 * cli.c - a command line into a pc_config: pacer's own (options.c) or a
 * persona's (persona.h), by one parser (parse.c), then one shared tail:
 * the URL, the checks and the defaults that follow from the options.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "cli/persona.h"
#include "cli/url.h"
#include "cli/urls.h"
#include "dist/shard.h"
#include "report/slo.h"

/* The result files, with the flag that names each. */
#define NOUTS 7
static void outputs_of(const pc_config *cfg, const char *paths[NOUTS], const char *flags[NOUTS])
{
    const char *p[NOUTS] = {cfg->out.hlog_path, cfg->out.hgrm_path, cfg->out.json_path, cfg->out.csv_path,
                            cfg->out.html_path, cfg->out.gnuplot_path, cfg->out.csv_pct_path};
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
                return cli_bad(err, "%s and %s both write '%s': give each its own file", flags[i],
                           flags[j], outs[i]);
    return 0;
}

/* compare: every positional argument is a target URL (at least two). */
static int take_targets(pc_config *cfg, int argc, char **argv, FILE *err)
{
    char uerr[512];
    pc_url u;

    if (argc - optind < 2)
        return cli_bad(err, "pacer compare needs at least two URLs, got %d", argc - optind);
    cfg->wf.targets = calloc((size_t)(argc - optind), sizeof *cfg->wf.targets);
    if (!cfg->wf.targets)
        return cli_bad(err, "out of memory");
    for (; optind < argc; optind++) {
        /* The first is the run's URL (cfg->url); the others are checked here
         * and parsed again per target (wf_target_config). */
        pc_url *dst = cfg->wf.ntargets ? &u : &cfg->url;

        if (strcmp(argv[optind], "--") == 0)
            return cli_bad(err, "pacer compare takes no script arguments");
        if (url_parse(argv[optind], dst, uerr, sizeof uerr) < 0)
            return cli_bad(err, "%s", uerr);
        if (dst == &u)
            url_free(&u);
        cfg->wf.targets[cfg->wf.ntargets++] = argv[optind];
    }
    cfg->url_text = cfg->wf.targets[0];
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
 * must say what was run: "pacer", then first (a persona's name) if any,
 * then argv[from...] (subcommands' argv[0] is their name, "compare"). */
static char *join_cmdline(const char *first, int from, int argc, char **argv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    fputs("pacer", f);
    if (first)
        fprintf(f, " %s", first);
    for (int i = from; i < argc; i++) {
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

/* An objective that cannot be judged for this run is a usage error before
 * any load is sent: a share of the rate needs -R. */
static int check_slo(const pc_config *cfg, FILE *err)
{
    if (!cfg->slo || cfg->rate > 0 || cfg->mode == PC_MODE_CAPACITY)
        return 0;
    for (size_t i = 0; i < cfg->slo->n; i++)
        if (cfg->slo->v[i].metric == SLO_RATE && cfg->slo->v[i].percent)
            return cli_bad(err,
                       "--slo '%s' is a share of the requested rate: it needs -R (or use "
                       "rate>=N for req/s)",
                       cfg->slo->v[i].text);
    return 0;
}

/* --shard and --start-at, once every option is known: the share is taken
 * (shard_apply), and a start instant already past is refused. */
static int check_shard(pc_config *cfg, FILE *err)
{
    char why[256];
    struct timespec now;

    if ((cfg->shard.count || cfg->shard.start_at_ns) && cfg->mode != PC_MODE_RUN)
        return cli_bad(err, "--shard and --start-at are for a single run, not pacer compare or "
                            "capacity (yet)");
    if (cfg->shard.count &&
        shard_apply(cfg, cfg->shard.index, cfg->shard.count, why, sizeof why) < 0)
        return cli_bad(err, "%s", why);
    clock_gettime(CLOCK_REALTIME, &now);
    if (cfg->shard.start_at_ns &&
        shard_check_start(cfg->shard.start_at_ns,
                          (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec,
                          cfg->connect_timeout_ns, why, sizeof why) < 0)
        return cli_bad(err, "%s", why);
    return 0;
}

/* pacer's own command line, as a persona without defaults or finish. */
static const cli_persona native = {"pacer", &cli_pacer_table, NULL, NULL, NULL};

int cli_parse(int argc, char **argv, pc_config *cfg, FILE *out, FILE *err)
{
    return cli_parse_mode(PC_MODE_RUN, argc, argv, cfg, out, err);
}

int cli_parse_mode(int mode, int argc, char **argv, pc_config *cfg, FILE *out, FILE *err)
{
    return cli_parse_as(&native, mode, argc, argv, cfg, out, err);
}

/* pacer's defaults, under every persona's. */
static void pacer_defaults(pc_config *cfg)
{
    cfg->wf.rounds = 3;
    cfg->wf.start_rate = 100;
    cfg->wf.max_rate = 1e6;
    cfg->wf.max_time_ns = 600ull * 1000000000ull;
    cfg->wf.precision = 0.05;
    cfg->wf.pause_ns = 1000000000ull;
    cfg->threads = 2;
    cfg->connections = 10;
    cfg->duration_ns = 10ull * 1000000000ull;
    cfg->timeout_ns = 2ull * 1000000000ull;
    cfg->connect_timeout_ns = 10ull * 1000000000ull;
    cfg->pipeline = 1;
    cfg->interval_ns = 1000000000ull;
    cfg->streams = 1;
    cfg->window_bits = 30;
    cfg->h3_window = 256u << 10;
    cfg->h3_conn_window = 1u << 20;
    cfg->conn_window_bits = 30;
}

/* The positional arguments: the URL (compare: the URLs), then the
 * script's arguments. */
static int take_positionals(const cli_persona *p, int argc, char **argv, pc_config *cfg,
                            FILE *out, FILE *err, bool version_only)
{
    char uerr[512];

    if (cfg->version) {
        cli_print_version(out);
        if (version_only && optind >= argc)
            return CLI_EXIT;
        if (optind >= argc) {
            /* wrk: -v alone prints the version and the usage; with a URL it runs. */
            p->table->usage(out);
            return CLI_EXIT;
        }
    }
    if (optind >= argc && !cfg->urls_path && !cfg->uri_file) {
        p->table->usage(err);
        return cli_bad(err, "missing URL");
    }
    if (cfg->mode == PC_MODE_COMPARE)
        return take_targets(cfg, argc, argv, err);
    if (optind < argc) {
        cfg->url_text = argv[optind];
        if (url_parse(argv[optind], &cfg->url, uerr, sizeof uerr) < 0)
            return cli_bad(err, "%s%s", uerr,
                           access(argv[optind], R_OK) == 0 && p == &native
                               ? " (a file of URLs is --urls FILE; -i is HEAD here: h2load's -i; "
                                 "or run it as `pacer h2load -i FILE ...`)"
                               : "");
        optind++;
    }
    return 0;
}

int cli_parse_as(const cli_persona *p, int mode, int argc, char **argv, pc_config *cfg,
                 FILE *out, FILE *err)
{
    char uerr[512];
    bool version_only = false;
    int rc;

    memset(cfg, 0, sizeof *cfg);
    cfg->mode = mode;
    cfg->cmdline = p == &native ? join_cmdline(NULL, mode == PC_MODE_RUN, argc, argv)
                                : join_cmdline(p->name, 1, argc, argv);
    if (!cfg->cmdline)
        return cli_bad(err, "out of memory");
    pacer_defaults(cfg);
    if (p->defaults)
        p->defaults(cfg);

    ascii_dashes(p->table, argc, argv, err);
    if ((rc = peer_spellings(p->table, argc, argv, err)) < 0)
        return rc;
    if ((rc = parse_options(p->table, argc, argv, cfg, out, err, &version_only)) != 0)
        return rc;
    if ((rc = take_positionals(p, argc, argv, cfg, out, err, version_only)) != 0)
        return rc;
    if (optind < argc && strcmp(argv[optind], "--") == 0)
        optind++;
    cfg->script_args = argv + optind;
    cfg->nscript_args = argc - optind;
    if (mode == PC_MODE_CAPACITY) {
        if (!cfg->slo)
            return cli_bad(err, "pacer capacity needs --slo EXPR (e.g. --slo 'p99<=100ms')");
        if (cfg->rate > 0)
            return cli_bad(err, "pacer capacity chooses the rate itself: use --start-rate and "
                            "--max-rate, not -R");
        if (cfg->requests)
            return cli_bad(err, "pacer capacity runs each step for -d: -n cannot be used");
        if (cfg->wf.start_rate > cfg->wf.max_rate)
            return cli_bad(err, "--start-rate (%.2f) is above --max-rate (%.2f)", cfg->wf.start_rate,
                       cfg->wf.max_rate);
    }

    if (!cfg->method)
        cfg->method = cfg->body ? "POST" : "GET";
    if (cfg->urls_path) {
        rc = urls_load(cfg, cfg->urls_path, cfg->method, uerr, sizeof uerr);
        if (rc < 0)
            return cli_bad(err, "%s", uerr);
        if (!cfg->url_text) {
            cfg->url_text = cfg->reqs[0].url_text;
            if (url_parse(cfg->url_text, &cfg->url, uerr, sizeof uerr) < 0)
                return cli_bad(err, "%s", uerr);
        }
    } else if (cfg->url_text && urls_add(cfg, cfg->method, cfg->url_text, cfg->body,
                                         cfg->body_len, 1, uerr, sizeof uerr) < 0) {
        return cli_bad(err, "%s", uerr);
    }
    if (p->finish && (rc = p->finish(cfg, err)) < 0)
        return rc;
    if (!cfg->nreqs) /* a persona's URL list (h2load -i) must have added them */
        return cli_bad(err, "missing URL");
    if ((rc = cli_shape_finish(cfg, err)) < 0)
        return rc;
    if (cfg->requests && !cfg->duration_set)
        cfg->duration_ns = 24ull * 3600 * 1000000000ull; /* -n alone: no time limit but a day */
    if (cfg->out.gnuplot_path && !cfg->requests)
        return cli_bad(err, "-g/--gnuplot needs -n (one row per request)");

    /* One file at most may go to stdout; the text report then goes to stderr. */
    if (stdout_outputs(cfg) > 1)
        return cli_bad(err, "only one output file can be '-' (stdout)");
    if ((rc = check_outputs(cfg, err)) < 0)
        return rc;
    if (cfg->requests && cfg->requests < cfg->threads) {
        /* -n is split over the threads: one with no share would have no
         * count to stop at. */
        fprintf(err, "pacer: note: %llu request%s: using %llu thread%s, not %u\n",
                (unsigned long long)cfg->requests, cfg->requests == 1 ? "" : "s",
                (unsigned long long)cfg->requests, cfg->requests == 1 ? "" : "s", cfg->threads);
        cfg->threads = (uint32_t)cfg->requests;
    }
    if (cfg->connections < cfg->threads) {
        /* wrk refuses; a thread without a connection would only idle. */
        fprintf(err, "pacer: note: %u connection%s: using %u thread%s, not %u\n",
                cfg->connections, cfg->connections == 1 ? "" : "s", cfg->connections,
                cfg->connections == 1 ? "" : "s", cfg->threads);
        cfg->threads = cfg->connections;
    }
    if (cfg->h3 && !cfg->url.tls)
        return cli_bad(err, "--h3 needs an https:// URL (QUIC is always TLS)");
    for (size_t i = 0; cfg->h3 && i < cfg->nreqs; i++)
        if (!cfg->reqs[i].origin->tls)
            return cli_bad(err, "--h3 needs https:// URLs (QUIC is always TLS): %s is not",
                           cfg->reqs[i].url_text);
    if (cfg->h3 && cfg->pipeline > 1)
        return cli_bad(err, "--pipeline is HTTP/1.1 pipelining; HTTP/3 multiplexes instead: use "
                            "-m N (streams per connection)");
    if (cfg->streams > 1 && !cfg->h2 && !cfg->h3) {
        /* h2load's -m: streams per HTTP/2 connection. Running HTTP/1.1
         * instead would be another test under the same flags. */
        cfg->h2 = true;
        fprintf(err, "pacer: note: -m %u means %u concurrent HTTP/2 streams per connection (as in "
                     "h2load): running HTTP/2 (%s)\n",
                cfg->streams, cfg->streams, cfg->url.tls ? "ALPN h2" : "h2c, prior knowledge");
    }
    if (cfg->h2 && cfg->pipeline > 1)
        return cli_bad(err, "--pipeline is HTTP/1.1 pipelining; HTTP/2 multiplexes instead: use "
                        "-m N (streams per connection)");
    if ((rc = check_slo(cfg, err)) < 0)
        return rc;
    if (cfg->source_lo && (cfg->unix_path || cfg->h3))
        return cli_bad(err, "--source binds TCP connections: it cannot be used with %s",
                       cfg->unix_path ? "--unix" : "--h3 (QUIC is UDP)");
    if ((rc = check_shard(cfg, err)) < 0)
        return rc;
    if (cfg->batch_latency && cfg->pipeline < 2 && !(cfg->h2 && cfg->streams > 1))
        fprintf(err, "pacer: note: -B/--batch_latency has no effect without --pipeline N > 1 "
                     "(or --h2 with -m N > 1)\n");
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
    free(cfg->wf.targets);
    cfg->wf.targets = NULL;
    cfg->wf.ntargets = 0;
    url_free(&cfg->url);
}

