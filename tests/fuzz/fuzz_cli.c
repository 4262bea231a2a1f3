/*
 * fuzz_cli.c - libFuzzer harness for the command line (cli_parse, and
 * persona_parse when the first argument names a persona: "ab", "h2load").
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_cli
 *   build-fuzz/fuzz_cli -max_total_time=60 tests/fuzz/corpus/cli
 *
 * The input is ARGS, or ARGS "\0\0\0" FILE. ARGS is split on NUL bytes
 * into at most 32 arguments (each its own exactly-sized heap string, so
 * ASan sees reads past one) and "pacer" is put in front. FILE, when there,
 * is written to a scratch file, and "%F" in an argument or in FILE stands
 * for its path: "--urls\0%F\0\0\0GET http://h/a @%F 2\n" reaches the
 * --urls reader. cli_parse runs with out and err going to /dev/null. Inputs
 * naming "..", /dev, /proc, /sys, /run, /tmp or /var are skipped, so the
 * options that read files (-p, --urls, @BODYFILE) never block on a device
 * or FIFO. The harness always calls cli_free (leaks are LeakSanitizer's to
 * find) and aborts when:
 *   - cli_parse returns anything but CLI_RUN, CLI_EXIT or -EINVAL;
 *   - CLI_RUN comes with a config outside the documented limits (the
 *     url_text of --urls or h2load -i: the first request's): threads
 *     and connections 1-10000000 with connections >= threads, durations of
 *     at least 1 ms (interval 10 ms), pipeline 1-1024, streams 1-65536,
 *     window bits 0-30 (connection 16-30), a finite rate 0-1e12, a known
 *     format, headers with a token name and a value without CR/LF or
 *     leading blanks, a --unix path under 108 bytes, a URL (url_text one
 *     of the arguments or the first request's), at least one request, each
 *     with a parsed URL of the first one's origin, a token method, a body
 *     when it has a length, and a weight in (0, 1e9]; script args inside
 *     argv and ending it;
 *   - parsing the same arguments a second time (getopt state left over
 *     from the first call, which may have stopped half-way through an
 *     option group) gives a different result.
 */
#include "cli/cli.h"
#include "cli/persona.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    h = mix_str(h, c->out.hlog_path);
    h = mix_str(h, c->out.hgrm_path);
    h = mix_str(h, c->out.json_path);
    h = mix_str(h, c->out.csv_path);
    h = mix(h, c->interval_ns);
    h = mix(h, c->requests);
    h = mix(h, (uint64_t)c->no_keepalive | (uint64_t)c->strict_length << 1 |
                   (uint64_t)c->mix_random << 2);
    h = mix_str(h, c->method);
    h = mix(h, c->body_len);
    if (c->body)
        for (size_t i = 0; i < c->body_len; i++)
            h = mix(h, (unsigned char)c->body[i]);
    h = mix_str(h, c->content_type);
    for (size_t i = 0; i < c->ncookies; i++)
        h = mix_str(h, c->cookies[i]);
    h = mix_str(h, c->auth_b64);
    h = mix_str(h, c->host);
    h = mix_str(h, c->connect_to);
    h = mix_str(h, c->out.gnuplot_path);
    h = mix_str(h, c->out.csv_pct_path);
    for (size_t i = 0; i < c->nreqs; i++) {
        const pc_reqspec *r = &c->reqs[i];
        h = mix_str(mix_str(mix_str(h, r->method), r->url_text), r->path);
        if (r->origin)
            h = mix_str(mix_str(h, r->origin->host), r->origin->port);
        h = mix(mix(h, r->body_len), (uint64_t)(r->weight * 1024));
        for (size_t j = 0; j < r->body_len; j++)
            h = mix(h, (unsigned char)r->body[j]);
    }
    for (int i = 0; i < c->nscript_args; i++)
        h = mix_str(h, c->script_args[i]);
    return mix(h, (uint64_t)c->nscript_args);
}

static void check_run(const pc_config *c, char **argv, int argc, char **orig)
{
    int found = 0;

    for (int i = 1; i < argc; i++)
        found |= c->url_text == orig[i];
    if (c->nreqs < 1 || !c->reqs)
        abort();
    if (!found && !((c->urls_path || c->uri_file) && c->url_text == c->reqs[0].url_text))
        abort();
    if (!c->url_text || !c->url.path || c->url.path[0] != '/' || c->url.host[0] == '\0')
        abort();
    for (size_t i = 0; i < c->nreqs; i++) {
        const pc_reqspec *r = &c->reqs[i], *r0 = &c->reqs[0];
        if (!r->url_text || !r->path || r->path[0] != '/' || !r->method || !*r->method ||
            !r->origin || r->origin->host[0] == '\0')
            abort();
        for (const char *m = r->method; *m; m++)
            if (!is_tchar((unsigned char)*m))
                abort();
        if ((r->body_len && !r->body) || !(r->weight > 0 && r->weight <= 1e9))
            abort();
        /* Several origins are allowed (a connection pool each). */
        (void)r0;
    }
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
    if (c->format != PC_FORMAT_WRK && c->format != PC_FORMAT_H2LOAD &&
        c->format != PC_FORMAT_AB)
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

/* Parse argv (copied, since getopt permutes it), as pacer's own command
 * line or (args[1] a persona's name) that persona's; returns the outcome. */
static uint64_t parse_once(char **args, int argc, int *rc_out)
{
    const cli_persona *persona = argc > 1 ? persona_find(args[1]) : NULL;
    char *argv[MAX_ARGS + 2];
    pc_config cfg;
    uint64_t d = 0;
    int rc;

    memcpy(argv, args, (size_t)(argc + 1) * sizeof *argv);
    memset(&cfg, 0x5a, sizeof cfg);
    if (persona) /* "pacer ab ...": the persona's argv starts at its name */
        rc = persona_parse(persona, argc - 1, argv + 1, &cfg, devnull(), devnull());
    else
        rc = cli_parse(argc, argv, &cfg, devnull(), devnull());
    if (rc != CLI_RUN && rc != CLI_EXIT && rc != -EINVAL)
        abort();
    if (rc == CLI_RUN) {
        if (persona)
            check_run(&cfg, argv + 1, argc - 1, args + 1);
        else
            check_run(&cfg, argv, argc, args);
        d = digest(&cfg);
    }
    cli_free(&cfg);
    if (cfg.headers != NULL || cfg.nheaders != 0 || cfg.url.path != NULL || cfg.reqs != NULL ||
        cfg.nreqs != 0)
        abort();
    *rc_out = rc;
    return d;
}

/* The scratch file that "%F" names, in a directory of its own. */
static char scratch_dir[256], scratch_file[300];

static void remove_scratch(void)
{
    unlink(scratch_file);
    rmdir(scratch_dir);
}

static const char *scratch(void)
{
    if (!scratch_file[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(scratch_dir, sizeof scratch_dir, "%s/fuzz_cli.XXXXXX",
                 tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
        if (!mkdtemp(scratch_dir))
            abort();
        snprintf(scratch_file, sizeof scratch_file, "%s/f", scratch_dir);
        atexit(remove_scratch);
    }
    return scratch_file;
}

/* s[0..n) with every "%F" replaced by the scratch path; heap, NUL-ended. */
static char *expand(const uint8_t *s, size_t n, size_t *outlen)
{
    const char *path = scratch();
    size_t plen = strlen(path), k = 0, len = 0;
    char *out;

    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '%' && s[i + 1] == 'F')
            k++;
    out = malloc(n - 2 * k + k * plen + 1); /* exactly: ASan sees reads past it */
    if (!out)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && s[i] == '%' && s[i + 1] == 'F') {
            memcpy(out + len, path, plen);
            len += plen;
            i++;
        } else {
            out[len++] = (char)s[i];
        }
    }
    out[len] = '\0';
    if (outlen)
        *outlen = len;
    return out;
}

static int names_a_risky_path(const uint8_t *d, size_t n)
{
    static const char *const bad[] = {"..", "/dev", "/proc", "/sys", "/run", "/tmp", "/var"};

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (memmem(d, n, bad[i], strlen(bad[i])))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *args[MAX_ARGS + 2];
    int argc = 1, rc1, rc2;
    size_t off = 0, alen = size;
    const uint8_t *sep = memmem(data, size, "\0\0\0", 3);

    if (names_a_risky_path(data, size))
        return 0;
    if (sep) {
        size_t flen;
        char *file;
        FILE *f;

        alen = (size_t)(sep - data);
        file = expand(sep + 3, size - alen - 3, &flen);
        f = fopen(scratch(), "wb");
        if (!f || fwrite(file, 1, flen, f) != flen || fclose(f) != 0)
            abort();
        free(file);
    }

    args[0] = strdup("pacer");
    if (!args[0])
        return 0;
    while (off < alen && argc <= MAX_ARGS) {
        const uint8_t *nul = memchr(data + off, '\0', alen - off);
        size_t n = nul ? (size_t)(nul - (data + off)) : alen - off;
        args[argc++] = expand(data + off, n, NULL);
        off += n + 1;
    }
    args[argc] = NULL;
    /* h2load's "-i -" would read stdin. */
    for (int i = 1; argc > 1 && persona_find(args[1]) && i < argc; i++)
        if (strcmp(args[i], "-") == 0)
            goto out;

    uint64_t d1 = parse_once(args, argc, &rc1);
    uint64_t d2 = parse_once(args, argc, &rc2);
    if (rc1 != rc2 || d1 != d2)
        abort();
out:
    for (int i = 0; i < argc; i++)
        free(args[i]);
    if (sep)
        unlink(scratch());
    return 0;
}
