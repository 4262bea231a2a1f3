/*
 * fuzz_cli.c - libFuzzer harness for the command line (cli_parse).
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_cli
 *   build-fuzz/fuzz_cli -max_total_time=60 tests/fuzz/corpus/cli
 *
 * The input is split on NUL bytes into at most 32 arguments (each its own
 * exactly-sized heap string, so ASan sees reads past one), "pacer" is put
 * in front, and cli_parse runs with out and err going to /dev/null. The
 * harness always calls cli_free (leaks are LeakSanitizer's to find) and
 * aborts when:
 *   - cli_parse returns anything but CLI_RUN, CLI_EXIT or -EINVAL;
 *   - CLI_RUN comes with a config outside the documented limits: threads
 *     and connections 1-10000000 with connections >= threads, durations of
 *     at least 1 ms (interval 10 ms), pipeline 1-1024, streams 1-65536,
 *     window bits 0-30 (connection 16-30), a finite rate >= 0, a known
 *     format, headers with a token name and a value without CR/LF or
 *     leading blanks, a --unix path under 108 bytes, url_text one of the
 *     arguments and a parsed URL, script args inside argv and ending it;
 *   - parsing the same arguments a second time (getopt state left over
 *     from the first call, which may have stopped half-way through an
 *     option group) gives a different result.
 */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

static FILE *devnull(void)
{
    static FILE *f;

    if (!f) {
        f = fopen("/dev/null", "w");
        if (!f)
            abort();
    }
    return f;
}

static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    if (!s)
        return mix(h, 0x6e756c6c);
    for (; *s; s++)
        h = mix(h, (unsigned char)*s);
    return mix(h, 0xff);
}

/* Everything CLI_RUN fills in, as one number. */
static uint64_t digest(const pc_config *c)
{
    uint64_t h = 0;

    h = mix_str(h, c->url_text);
    h = mix(h, c->url.tls);
    h = mix_str(h, c->url.host);
    h = mix_str(h, c->url.port);
    h = mix_str(h, c->url.hostport);
    h = mix_str(h, c->url.path);
    h = mix(h, c->threads);
    h = mix(h, c->connections);
    h = mix(h, c->duration_ns);
    h = mix(h, c->timeout_ns);
    h = mix(h, c->warmup_ns);
    h = mix(h, (uint64_t)(c->rate * 1024));
    h = mix(h, (uint64_t)c->latency | (uint64_t)c->u_latency << 1 |
                   (uint64_t)c->batch_latency << 2 | (uint64_t)c->h2 << 3 |
                   (uint64_t)c->verify << 4 | (uint64_t)c->version << 5);
    h = mix(h, c->pipeline);
    h = mix_str(h, c->alpn);
    h = mix(h, c->streams);
    h = mix(h, c->window_bits);
    h = mix(h, c->conn_window_bits);
    h = mix(h, (uint64_t)c->format);
    for (size_t i = 0; i < c->nheaders; i++)
        h = mix_str(mix_str(h, c->headers[i].name), c->headers[i].value);
    h = mix(h, c->nheaders);
    h = mix_str(h, c->unix_path);
    h = mix_str(h, c->cacert);
    h = mix_str(h, c->hlog_path);
    h = mix_str(h, c->hgrm_path);
    h = mix_str(h, c->json_path);
    h = mix_str(h, c->csv_path);
    h = mix(h, c->interval_ns);
    for (int i = 0; i < c->nscript_args; i++)
        h = mix_str(h, c->script_args[i]);
    return mix(h, (uint64_t)c->nscript_args);
}

static void check_run(const pc_config *c, char **argv, int argc, char **orig)
{
    int found = 0;

    for (int i = 1; i < argc; i++)
        found |= c->url_text == orig[i];
    if (!found || !c->url.path || c->url.path[0] != '/' || c->url.host[0] == '\0')
        abort();
    if (c->threads < 1 || c->connections < c->threads || c->connections > 10000000)
        abort();
    if (c->duration_ns < 1000000 || c->timeout_ns < 1000000 || c->interval_ns < 10000000)
        abort();
    if (c->pipeline < 1 || c->pipeline > 1024 || c->streams < 1 || c->streams > 65536)
        abort();
    if (c->window_bits > 30 || c->conn_window_bits < 16 || c->conn_window_bits > 30)
        abort();
    if (!isfinite(c->rate) || c->rate < 0 || c->rate > 1e12)
        abort();
    if (c->format != PC_FORMAT_WRK && c->format != PC_FORMAT_H2LOAD)
        abort();
    if (c->cacert && !c->verify)
        abort();
    if (c->unix_path && strlen(c->unix_path) >= 108)
        abort();
    if (c->nheaders && !c->headers)
        abort();
    for (size_t i = 0; i < c->nheaders; i++) {
        const char *n = c->headers[i].name, *v = c->headers[i].value;
        if (!n || !v || !*n)
            abort();
        for (; *n; n++)
            if (!is_tchar((unsigned char)*n))
                abort();
        if (*v == ' ' || *v == '\t' || strpbrk(v, "\r\n"))
            abort();
    }
    if (c->nscript_args < 0 || c->nscript_args > argc - 2 ||
        c->script_args != argv + (argc - c->nscript_args) || c->script_args[c->nscript_args])
        abort();
}

/* Parse argv (copied, since getopt permutes it); returns the outcome. */
static uint64_t parse_once(char **args, int argc, int *rc_out)
{
    char *argv[MAX_ARGS + 2];
    pc_config cfg;
    uint64_t d = 0;
    int rc;

    memcpy(argv, args, (size_t)(argc + 1) * sizeof *argv);
    memset(&cfg, 0x5a, sizeof cfg);
    rc = cli_parse(argc, argv, &cfg, devnull(), devnull());
    if (rc != CLI_RUN && rc != CLI_EXIT && rc != -EINVAL)
        abort();
    if (rc == CLI_RUN) {
        check_run(&cfg, argv, argc, args);
        d = digest(&cfg);
    }
    cli_free(&cfg);
    if (cfg.headers != NULL || cfg.nheaders != 0 || cfg.url.path != NULL)
        abort();
    *rc_out = rc;
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *args[MAX_ARGS + 2];
    int argc = 1, rc1, rc2;
    size_t off = 0;

    args[0] = strdup("pacer");
    if (!args[0])
        return 0;
    while (off < size && argc <= MAX_ARGS) {
        const uint8_t *nul = memchr(data + off, '\0', size - off);
        size_t n = nul ? (size_t)(nul - (data + off)) : size - off;
        char *a = malloc(n + 1);
        if (!a)
            break;
        memcpy(a, data + off, n);
        a[n] = '\0';
        args[argc++] = a;
        off += n + 1;
    }
    args[argc] = NULL;

    uint64_t d1 = parse_once(args, argc, &rc1);
    uint64_t d2 = parse_once(args, argc, &rc2);
    if (rc1 != rc2 || d1 != d2)
        abort();

    for (int i = 0; i < argc; i++)
        free(args[i]);
    return 0;
}
