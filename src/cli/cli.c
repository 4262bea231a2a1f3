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

#include "util/units.h"
#include "cli/url.h"
#include "cli/urls.h"
#include "report/slo.h"
#include "stats/hdr_codec.h"

/*
 * The options are one table (pacer_opts, below): an entry is one option,
 * with its long name (and another tool's spelling of it, if any), its short
 * letter, the placeholder of its value (NULL: it takes none), its --help
 * text, the subcommands that accept it, and what its value does (a take:
 * a generic one that stores into the pc_config field at off, or a function
 * of its own). getopt_long's arguments, the --help option lines, the
 * "did you mean '--x'?" and "takes no value" hints and the subcommand checks
 * all come from the table: adding a flag is adding one entry.
 *
 * Another tool's command line (a persona: `pacer ab -n 1000 -c 10 URL`,
 * `pacer h2load ...`) is a second cli_table run by the same machinery
 * (parse_options, print_options): its own entries with that tool's letters
 * and help, taking into the same pc_config with the same takes (ab's -c is
 * take_u32 into connections, its -t take_dur into duration_ns, its -H
 * take_header), and takes of its own only where the tool means something
 * else. What follows the options (the URL, the checks, the defaults) is
 * shared.
 */
struct cli_opt;

/* What an option does with its value (arg: NULL for an option without
 * one). Returns 0, -EINVAL after one line on err, or TAKE_HELP /
 * TAKE_VERSION for the parser to act on. */
typedef int cli_take(pc_config *cfg, const struct cli_opt *o, const char *arg, FILE *err);

enum { TAKE_HELP = 1, TAKE_VERSION = 2 };

/* The subcommands that accept an option (cli_opt.modes; 0: all of them). */
#define IN_COMPARE (1u << PC_MODE_COMPARE)
#define IN_CAPACITY (1u << PC_MODE_CAPACITY)

typedef struct cli_opt {
    const char *name;    /* the long name, as --help and the errors spell it */
    char letter;         /* the short option; 0: none */
    const char *value;   /* the value's placeholder in --help ("N"); NULL: takes no value */
    cli_take *take;
    size_t off;          /* the pc_config field a generic take writes */
    uint64_t min, max;   /* take_u32's bounds; take_dur's minimum (ns); take_set's value */
    unsigned modes;      /* IN_*: the subcommands that accept it; 0: all */
    const char *section; /* --help group ("compare"); NULL: the main list */
    const char *alias;   /* another long name for it (another tool's spelling) */
    const char *help;    /* --help text; each '\n' starts an indented line */
} cli_opt;

typedef struct cli_table {
    const cli_opt *opts;
    size_t n;
    void (*usage)(FILE *f); /* --help */
} cli_table;

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

/* How errors name an option: "-t/--threads", "--timeout". */
static const char *flag_of(const cli_opt *o, char buf[static 64])
{
    if (o->letter)
        snprintf(buf, 64, "-%c/--%s", o->letter, o->name);
    else
        snprintf(buf, 64, "--%s", o->name);
    return buf;
}
#define FLAG(o) flag_of(o, (char[64]){0})

/* The largest count a u32 option takes (threads, connections, ...). */
#define MAX_COUNT 10000000u

static int parse_u32(const char *flag, const char *s, uint32_t min, uint32_t *out, FILE *err)
{
    uint64_t v;
    int rc = units_parse_count(s, &v);

    if (rc < 0)
        return bad(err, "invalid number for %s: '%s'", flag, s);
    if (v < min || v > MAX_COUNT)
        return bad(err, "%s must be between %u and %u, got '%s'", flag, min, MAX_COUNT, s);
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

/* Options that belong to some subcommands only (cli_opt.modes): refused
 * elsewhere, naming the first subcommand that takes them. */
static int mode_check(const pc_config *cfg, const cli_opt *o, FILE *err)
{
    static const char *const names[] = {"pacer URL", "pacer compare", "pacer capacity"};
    int m = 0;

    if (!o->modes || (o->modes & (1u << cfg->mode)))
        return 0;
    while (!(o->modes & (1u << m)))
        m++;
    return bad(err, "%s is an option of %s", FLAG(o), names[m]);
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
static int peer_spellings(const cli_table *t, int argc, char **argv, FILE *err)
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
        for (size_t k = 0; k < 2 * t->n; k++) {
            const char *name = k % 2 ? t->opts[k / 2].alias : t->opts[k / 2].name;

            if (name && strlen(name) > 1 && strcmp(argv[i] + 1, name) == 0)
                return bad(err, "unknown option '%s': did you mean '--%s'?", argv[i], name);
        }
    }
    return 0;
}

/* Whether NAME (len bytes, as typed after "--", perhaps abbreviated as
 * getopt_long allows) names exactly one option, and that one takes no
 * value: then "--NAME=x" is a misplaced value, not an unknown option. */
static bool long_opt_takes_no_value(const cli_table *t, const char *name, size_t len)
{
    const cli_opt *hit = NULL;

    for (size_t k = 0; k < 2 * t->n; k++) {
        const cli_opt *o = &t->opts[k / 2];
        const char *n = k % 2 ? o->alias : o->name;

        if (n && strlen(n) == len && strncmp(n, name, len) == 0)
            return !o->value; /* an exact name wins, as in getopt_long */
    }
    for (size_t k = 0; k < 2 * t->n; k++) {
        const cli_opt *o = &t->opts[k / 2];
        const char *n = k % 2 ? o->alias : o->name;

        if (!n || strncmp(n, name, len) != 0)
            continue;
        if (hit && hit != o)
            return false; /* ambiguous */
        hit = o;
    }
    return hit && !hit->value;
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

/* The field of cfg that option o's generic take writes. */
#define FIELD(T, cfg, o) ((T *)(void *)((char *)(cfg) + (o)->off))

/* Generic takes: what most options do, as data in their table entry. */

static int take_u32(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint32_t *v = FIELD(uint32_t, cfg, o);
    const char *flag = FLAG(o);
    int rc = parse_u32(flag, arg, (uint32_t)o->min, v, err);

    if (rc == 0 && *v > o->max)
        return bad(err, "%s must be at most %llu, got '%s'", flag, (unsigned long long)o->max,
                   arg);
    return rc;
}

static int take_dur(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint64_t *v = FIELD(uint64_t, cfg, o);
    const char *flag = FLAG(o);
    int rc = parse_dur(flag, arg, v, err);

    if (rc == 0 && *v < o->min)
        return bad(err, "%s must be at least %llums, got '%s'", flag,
                   (unsigned long long)(o->min / 1000000), arg);
    return rc;
}

static int take_rate(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    return parse_rate_flag(FLAG(o), arg, FIELD(double, cfg, o), err);
}

static int take_str(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)err;
    *FIELD(const char *, cfg, o) = arg;
    return 0;
}

static int take_true(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)arg, (void)err;
    *FIELD(bool, cfg, o) = true;
    return 0;
}

static int take_set(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)arg, (void)err;
    *FIELD(int, cfg, o) = (int)o->min;
    return 0;
}

static int take_nothing(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)cfg, (void)o, (void)arg, (void)err;
    return 0;
}

static int take_help(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)cfg, (void)o, (void)arg, (void)err;
    return TAKE_HELP;
}

static int take_version(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->version = true;
    return TAKE_VERSION;
}

/* Takes of their own: a check, a hint, or more than one field. */

static int take_duration(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    if (strchr("{[\"'<", arg[0]))
        return bad(err, "invalid duration for -d/--duration: '%s' (a request body is --body TEXT "
                        "here: hey's -d)",
                   arg);
    cfg->duration_set = true;
    return take_dur(cfg, o, arg, err);
}

static int take_run_rate(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (units_parse_rate(arg, &cfg->rate) < 0 || !(cfg->rate > 0))
        return bad(err, "invalid rate for -R/--rate: '%s' (requests/s > 0, e.g. 500, 2.5k)", arg);
    if (cfg->rate > MAX_RATE)
        return bad(err, "-R/--rate must be at most 1G requests/s (the schedule's resolution is "
                        "1 ns), got '%s'",
                   arg);
    return 0;
}

static int take_header(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    return add_header(cfg, arg, err);
}

static int take_unix(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->unix_path = arg;
    if (strlen(arg) >= 108)
        return bad(err, "--unix path too long (max 107 bytes): '%s'", arg);
    return 0;
}

static int take_cacert(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)err;
    cfg->cacert = arg;
    cfg->verify = true;
    return 0;
}

static int take_slo(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char serr[512];

    (void)o;
    free(cfg->slo);
    cfg->slo = malloc(sizeof *cfg->slo);
    if (!cfg->slo)
        return bad(err, "out of memory");
    if (slo_parse(arg, cfg->slo, serr, sizeof serr) < 0)
        return bad(err, "%s", serr);
    return 0;
}

static int take_precision(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char *end;

    (void)o;
    errno = 0;
    cfg->precision = strtod(arg, &end);
    if (*end == '%') {
        cfg->precision /= 100;
        end++;
    }
    if (end == arg || *end || errno || !(cfg->precision >= 0.001 && cfg->precision <= 1))
        return bad(err, "invalid --precision '%s' (0.1%% to 100%%, e.g. 5%%)", arg);
    return 0;
}

static int take_alpn(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->alpn = arg;
    if (!strstr(arg, "h2") && !strstr(arg, "http/1.1"))
        return bad(err, "--alpn needs h2 and/or http/1.1, got '%s'", arg);
    return 0;
}

static int take_streams(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    if (arg[0] >= 'A' && arg[0] <= 'Z')
        return bad(err,
                   "invalid number for -m/--streams: '%s' (the method is -X %s here: hey's -m)",
                   arg, arg);
    return take_u32(cfg, o, arg, err);
}

/* HTTP/2 windows 2^N-1: N at most 30, and at least o->min (the connection
 * window cannot be below the protocol's initial 2^16-1). */
static int take_window(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint32_t *v = FIELD(uint32_t, cfg, o);
    const char *flag = FLAG(o);
    int rc = parse_u32(flag, arg, 0, v, err);

    if (rc == 0 && *v > 30)
        return bad(err, "window bits must be 0-30, got '%s'", arg);
    if (rc == 0 && *v < o->min)
        return bad(err, "%s must be %llu-30, got '%s'", flag, (unsigned long long)o->min, arg);
    return rc;
}

static int take_format(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "wrk") == 0)
        cfg->format = PC_FORMAT_WRK;
    else if (strcmp(arg, "h2load") == 0)
        cfg->format = PC_FORMAT_H2LOAD;
    else if (strcmp(arg, "ab") == 0)
        cfg->format = PC_FORMAT_AB;
    else
        return bad(err, "unknown --format '%s' (wrk, h2load or ab)", arg);
    return 0;
}

static int take_script(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->script_path = arg;
    if (access(arg, R_OK) != 0)
        return bad(err, "cannot read script '%s': %s%s", arg, strerror(errno),
                   arg[strspn(arg, "0123456789")]
                       ? ""
                       : " (-s is a Lua script here; the timeout is --timeout: ab's -s)");
    return 0;
}

static int take_requests(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (units_parse_count(arg, &cfg->requests) < 0 || cfg->requests == 0 ||
        cfg->requests > 1000000000000ull)
        return bad(err, "invalid number for -n/--requests: '%s'", arg);
    return 0;
}

static int take_method(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->method = arg;
    for (const char *q = arg; *q; q++)
        if (!is_tchar((unsigned char)*q))
            return bad(err, "invalid method '%s'", arg);
    if (!*arg)
        return bad(err, "empty method");
    return 0;
}

static int take_head(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->method = "HEAD";
    return 0;
}

static int take_body(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)err;
    free(cfg->body);
    cfg->body_len = strlen(arg);
    cfg->body = strdup(arg);
    return 0;
}

static int take_body_file(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    int r;

    (void)o;
    free(cfg->body);
    r = urls_read_file(arg, &cfg->body, &cfg->body_len);
    if (r < 0)
        return bad(err, "cannot read body file '%s': %s", arg, strerror(-r));
    return 0;
}

static int take_content_type(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->content_type = arg;
    if (strpbrk(arg, "\r\n"))
        return bad(err, "invalid content type");
    return 0;
}

static int take_cookie(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char **cs = realloc(cfg->cookies, (cfg->ncookies + 1) * sizeof *cs);

    (void)o;
    if (cs)
        cfg->cookies = cs;
    if (!cs || !strchr(arg, '=') || strpbrk(arg, "\r\n;"))
        return bad(err, "invalid cookie '%s': expected NAME=VALUE", arg);
    cs[cfg->ncookies++] = (char *)arg; /* an element of argv */
    return 0;
}

static int take_basic_auth(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    size_t n = strlen(arg), cap = hdrc_base64_encoded_len(n) + 1;

    (void)o;
    if (!strchr(arg, ':'))
        return bad(err, "invalid --basic-auth '%s': expected user:password", arg);
    free(cfg->auth_b64);
    cfg->auth_b64 = malloc(cap);
    if (!cfg->auth_b64 || hdrc_base64_encode((const uint8_t *)arg, n, cfg->auth_b64, cap) < 0)
        return bad(err, "out of memory");
    return 0;
}

static int take_host(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->host = arg;
    for (const char *q = arg; *q; q++)
        if ((unsigned char)*q <= ' ' || *q == 0x7f)
            return bad(err, "invalid --host '%s'", arg);
    return 0;
}

static int take_connect_to(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    const char *colon = strrchr(arg, ':');
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;

    (void)o;
    cfg->connect_to = arg;
    if (!colon || colon == arg || *end || port < 1 || port > 65535)
        return bad(err, "invalid --connect-to '%s': expected HOST:PORT", arg);
    return 0;
}

static int take_mix(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "random") == 0)
        cfg->mix_random = true;
    else if (strcmp(arg, "roundrobin") == 0 || strcmp(arg, "round-robin") == 0)
        cfg->mix_random = false;
    else
        return bad(err, "unknown --mix '%s' (roundrobin or random)", arg);
    return 0;
}

/* Entry shorthands: AT(field) names the pc_config field of a generic take. */
#define AT(field) .off = offsetof(pc_config, field)
#define U32(field, lo, hi) .take = take_u32, AT(field), .min = (lo), .max = (hi)
#define DUR(field, lo) .take = take_dur, AT(field), .min = (lo)
#define STR(field) .take = take_str, AT(field)
#define ON(field) .take = take_true, AT(field)
#define SET(field, v) .take = take_set, AT(field), .min = (v)
#define FN(fn) .take = (fn)
#define COMPARE_ONLY .modes = IN_COMPARE, .section = "compare"
#define CAPACITY_ONLY .modes = IN_CAPACITY, .section = "capacity"
#define MS 1000000ull

/* pacer's options, in --help's order. Add a flag here, in docs/pacer.md and
 * in docs/pacer.1 (a unit test checks that the three agree). */
static const cli_opt pacer_opts[] = {
    {"connections", 'c', "N", U32(connections, 1, MAX_COUNT),
     .help = "Connections to keep open (default 10)"},
    {"duration", 'd', "T", FN(take_duration), AT(duration_ns), .min = MS,
     .help = "Duration of test (default 10s)"},
    {"threads", 't', "N", U32(threads, 1, MAX_COUNT),
     .help = "Number of threads to use (default 2)"},
    {"rate", 'R', "R", FN(take_run_rate),
     .help = "Constant throughput in requests/s in total\n"
             "(absent: closed loop, as wrk)"},
    {"latency", 'L', NULL, ON(latency),
     .help = "Print latency statistics"},
    {"u_latency", 'U', NULL, ON(u_latency),
     .help = "Also print uncorrected latency statistics"},
    {"batch_latency", 'B', NULL, ON(batch_latency),
     .help = "Measure whole pipelined batches, not each request"},
    {"header", 'H', "H", FN(take_header),
     .help = "Add header to request (repeatable)"},
    {"timeout", 0, "T", DUR(timeout_ns, MS),
     .help = "Request timeout (default 2s)"},
    {"connect-timeout", 0, "T", DUR(connect_timeout_ns, MS),
     .help = "TCP connect + TLS handshake timeout (default 10s:\n"
             "survives the SYN retransmits of a full accept backlog)"},
    {"warmup", 0, "T", DUR(warmup_ns, 0),
     .help = "Run this long first and discard it (default 0)"},
    {"pipeline", 0, "N", U32(pipeline, 1, 1024),
     .help = "HTTP/1.1 requests in flight per connection (default 1)"},
    {"h2", 0, NULL, ON(h2),
     .help = "HTTP/2: ALPN h2 over TLS, prior knowledge (h2c) in clear"},
    {"alpn", 0, "LIST", FN(take_alpn),
     .help = "Protocols to offer over TLS, e.g. h2,http/1.1"},
    {"streams", 'm', "N", FN(take_streams), AT(streams), .min = 1, .max = 65536,
     .alias = "max-concurrent-streams",
     .help = "Concurrent HTTP/2 streams per connection (default 1;\n"
             "N > 1 implies --h2, as in h2load)"},
    {"window-bits", 0, "N", FN(take_window), AT(window_bits),
     .help = "HTTP/2 stream window 2^N-1 (default 30)"},
    {"connection-window-bits", 0, "N", FN(take_window), AT(conn_window_bits), .min = 16,
     .help = "HTTP/2 connection window 2^N-1 (default 30)"},
    {"format", 0, "F", FN(take_format),
     .help = "Report layout: wrk (default), h2load or ab"},
    {"script", 's', "FILE", FN(take_script),
     .help = "Load a wrk Lua script (arguments after the URL or --)"},
    {"requests", 'n', "N", FN(take_requests),
     .help = "Send exactly N requests, then stop (-d: upper bound)"},
    {"no-keepalive", 0, NULL, ON(no_keepalive),
     .help = "A new connection for every request"},
    {"keepalive", 'k', NULL, FN(take_nothing),
     .help = "Keep-alive (the default; accepted for ab)"},
    {"method", 'X', "M", FN(take_method),
     .help = "Request method (default GET)"},
    {"body", 0, "TEXT", FN(take_body),
     .help = "Request body"},
    {"body-file", 'p', "FILE", FN(take_body_file),
     .help = "Request body from a file"},
    {"content-type", 'T', "T", FN(take_content_type),
     .help = "Content-Type of the body"},
    {"cookie", 'C', "NAME=V", FN(take_cookie),
     .help = "Add a cookie (repeatable)"},
    {"basic-auth", 'A', "U:P", FN(take_basic_auth),
     .help = "HTTP basic authentication"},
    {"head", 'i', NULL, FN(take_head),
     .help = "HEAD requests"},
    {"host", 0, "NAME", FN(take_host),
     .help = "Host header and TLS SNI (the URL's address is used)"},
    {"connect-to", 0, "H:P", FN(take_connect_to),
     .help = "Connect to H:P instead (the URL's Host is kept)"},
    {"urls", 0, "FILE", STR(urls_path),
     .help = "Requests from a file: [METHOD] URL [@BODYFILE] [WEIGHT]"},
    {"mix", 0, "M", FN(take_mix),
     .help = "With --urls: roundrobin (default) or random (weighted)"},
    {"strict-length", 0, NULL, ON(strict_length),
     .help = "Count a body length differing from the first as failed (ab)"},
    {"gnuplot", 'g', "FILE", STR(gnuplot_path),
     .help = "ab's per-request TSV (with -n)"},
    {"percentiles-csv", 'e', "FILE", STR(csv_pct_path),
     .help = "ab's percentage CSV"},
    {"unix", 0, "PATH", FN(take_unix),
     .help = "Connect to a Unix-domain socket"},
    {"verify", 0, NULL, ON(verify),
     .help = "Verify the server's TLS certificate"},
    {"cacert", 0, "FILE", FN(take_cacert),
     .help = "Trust these CA certificates (implies --verify)"},
    {"hlog", 0, "FILE", STR(hlog_path),
     .help = "Write an HdrHistogram interval log (ns)"},
    {"hgrm", 0, "FILE", STR(hgrm_path),
     .help = "Write the percentile distribution (HdrHistogram plotter)"},
    {"json", 0, "FILE", STR(json_path),
     .help = "Write all results as JSON ('-': stdout, report to stderr)"},
    {"csv", 0, "FILE", STR(csv_path),
     .help = "Write the per-interval time series as CSV"},
    {"html", 0, "FILE", STR(html_path),
     .help = "Write a self-contained HTML report with plots"},
    {"interval", 0, "T", DUR(interval_ns, 10 * MS),
     .help = "Interval of logs and time series (default 1s)"},
    {"progress", 0, NULL, SET(progress, PC_PROGRESS_ON),
     .help = "Live progress on stderr even when it is not a terminal"},
    {"quiet", 0, NULL, SET(progress, PC_PROGRESS_OFF),
     .help = "No live progress"},
    {"no-progress", 0, NULL, SET(progress, PC_PROGRESS_OFF),
     .help = "No live progress (as --quiet)"},
    {"slo", 0, "EXPR", FN(take_slo),
     .help = "Objectives, e.g. 'p99<=100ms,errors<=0.1%,rate>=99%':\n"
             "PASS/FAIL lines, exit 5 when one fails"},
    {"rounds", 0, "N", U32(rounds, 1, 1000), COMPARE_ONLY,
     .help = "Rounds of A B A B ... (default 3)"},
    {"start-rate", 0, "R", FN(take_rate), AT(start_rate), CAPACITY_ONLY,
     .help = "First rate tried (default 100), grown x2 until the\n"
             "SLO fails, then bisected; each step lasts -d,\n"
             "longer when a percentile needs more samples"},
    {"max-rate", 0, "R", FN(take_rate), AT(max_rate), CAPACITY_ONLY,
     .help = "Never go above this rate (default 1M)"},
    {"max-time", 0, "T", DUR(max_time_ns, 0), CAPACITY_ONLY,
     .help = "Stop searching after this long in all (default 10m)"},
    {"precision", 0, "P", FN(take_precision), CAPACITY_ONLY,
     .help = "Stop when the bracket is within P (default 5%)"},
    {"pause", 0, "T", DUR(pause_ns, 0), CAPACITY_ONLY,
     .help = "Idle time between steps (default 1s)"},
    {"version", 'v', NULL, FN(take_version),
     .help = "Print version details"},
    {"help", 'h', NULL, FN(take_help),
     .help = "Print this help"},
};

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* parse_options builds getopt_long's arguments on the stack. */
#define MAX_OPTS 96
_Static_assert(NOPTS(pacer_opts) <= MAX_OPTS, "raise MAX_OPTS");

static void pacer_usage(FILE *f);

static const cli_table pacer_table = {pacer_opts, NOPTS(pacer_opts), pacer_usage};

/* The option lines of --help, from the table:
 *     -c, --connections <N>  Connections to keep open (default 10)
 *         --timeout     <T>  Request timeout (default 2s)
 *   compare:  --rounds   <N>  Rounds of A B A B ... (default 3)
 * A value's placeholder ends in column 25 and the text starts in column 27
 * (each one further in a section), or two blanks after a longer name. */
static void print_options(const cli_table *t, FILE *f)
{
    const char *section = NULL;

    for (size_t i = 0; i < t->n; i++) {
        const cli_opt *o = &t->opts[i];
        int value_end = o->section ? 26 : 25, col = value_end + 2, n;

        if (!o->section) {
            n = fprintf(f, "    %-4s", o->letter ? (char[]){'-', o->letter, ',', 0} : "");
        } else if (!section || strcmp(section, o->section) != 0) {
            n = fprintf(f, "  %s:", o->section);
            n += fprintf(f, "%*s", n < 12 ? 12 - n : 1, "");
        } else {
            n = fprintf(f, "%12s", "");
        }
        section = o->section;
        if (o->section && o->letter)
            n += fprintf(f, "-%c, ", o->letter);
        n += fprintf(f, "--%s", o->name);
        if (o->value) {
            int pad = value_end - n - (int)strlen(o->value) - 2;

            n += fprintf(f, "%*s<%s>", pad > 1 ? pad : 1, "", o->value);
        }
        fprintf(f, "%*s", n < col ? col - n : 2, "");
        for (const char *h = o->help; *h; h++)
            if (*h == '\n')
                fprintf(f, "\n%*s", col, "");
            else
                fputc(*h, f);
        if (o->alias)
            fprintf(f, "\n%*s(also --%s)", col, "", o->alias);
        fputc('\n', f);
    }
}

static void pacer_usage(FILE *f)
{
    fputs("Usage: pacer <options> <url> [--] [script args]\n"
          "       pacer report [-U] [--json FILE] [--hgrm FILE] [--html FILE] [--slo EXPR]\n"
          "                    [--from T] [--to T] [--force] FILE...\n"
          "       pacer compare [--rounds N] <options> URL_A URL_B [URL...]\n"
          "       pacer capacity --slo EXPR [--start-rate R] [--max-rate R] [--max-time T]\n"
          "                      <options> URL\n"
          "       pacer suite [--json FILE] [--html FILE] SUITE_FILE\n"
          "       pacer serve [--port N] [--size BYTES] [--delay D] ...\n"
          "  Options:\n",
          f);
    print_options(&pacer_table, f);
    fputs("\n"
          "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
          "  Time arguments may include a time unit (2ms, 2s, 2m, 2h)\n"
          "  Exit codes: 0 ok, 1 could not run, 2 usage, 3 no response received, 4 script error,\n"
          "              5 an --slo objective failed (capacity: even at the start rate),\n"
          "              130/143 stopped by SIGINT/SIGTERM (partial report printed)\n",
          f);
}

void cli_usage(FILE *f)
{
    pacer_usage(f);
}

const char *cli_long_option(size_t i)
{
    for (size_t k = 0; k < NOPTS(pacer_opts); k++) {
        if (i-- == 0)
            return pacer_opts[k].name;
        if (pacer_opts[k].alias && i-- == 0)
            return pacer_opts[k].alias;
    }
    return NULL;
}

/* getopt_long's value for table entry i (short options return their letter). */
#define OPT_CODE(i) (256 + (int)(i))

/* The entry getopt_long's return value c stands for; NULL: none (':', '?'). */
static const cli_opt *option_of(const cli_table *t, int c)
{
    if (c >= OPT_CODE(0) && c < OPT_CODE(t->n))
        return &t->opts[c - OPT_CODE(0)];
    for (size_t i = 0; c > 0 && c < 256 && i < t->n; i++)
        if (t->opts[i].letter == c)
            return &t->opts[i];
    return NULL;
}

/* The options of argv, by table t: getopt_long with the short string and
 * long options built from it. Returns 0 with optind at the first
 * non-option, CLI_EXIT after --help, or -EINVAL. *version_only: the last
 * -v was spelled --version (it prints the version alone). */
static int parse_options(const cli_table *t, int argc, char **argv, pc_config *cfg, FILE *out,
                         FILE *err, bool *version_only)
{
    struct option longs[2 * MAX_OPTS + 1];
    char shorts[2 * MAX_OPTS + 2];
    size_t nl = 0, ns = 0;
    int c, rc;

    shorts[ns++] = ':'; /* a missing value is ':', not '?' */
    for (size_t i = 0; i < t->n; i++) {
        const cli_opt *o = &t->opts[i];
        int has = o->value ? required_argument : no_argument;

        longs[nl++] = (struct option){o->name, has, NULL, OPT_CODE(i)};
        if (o->alias)
            longs[nl++] = (struct option){o->alias, has, NULL, OPT_CODE(i)};
        if (o->letter) {
            shorts[ns++] = o->letter;
            if (o->value)
                shorts[ns++] = ':';
        }
    }
    longs[nl] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';

    optind = 0; /* 0, not 1: glibc then also forgets a half-parsed "-xyz" group */
    opterr = 0;
    /* GNU getopt permutes, so options may follow the URL (as in wrk);
     * the first non-option is the URL, the rest (and all after "--") are
     * the script's arguments. */
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const cli_opt *o = option_of(t, c);
        const char *arg = argv[optind - 1];

        if (o) {
            if ((rc = mode_check(cfg, o, err)) < 0)
                return rc;
            rc = o->take(cfg, o, optarg, err);
            if (rc == TAKE_HELP) {
                t->usage(out);
                return CLI_EXIT;
            }
            if (rc == TAKE_VERSION)
                *version_only = strncmp(arg, "--", 2) == 0 && strcmp(arg + 2, o->name) == 0;
            else if (rc < 0)
                return rc;
            continue;
        }
        if (c == ':')
            return bad(err, "option '%s' needs a value", arg);
        if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=')) {
            int n = (int)(strchr(arg, '=') - arg);

            if (long_opt_takes_no_value(t, arg + 2, (size_t)n - 2))
                return bad(err, "option '%.*s' takes no value", n, arg);
            return bad(err, "unknown option '%.*s' (see pacer --help)", n, arg);
        }
        if (optopt > 0 && optopt < 128 && strncmp(arg, "--", 2) != 0)
            return bad(err, "unknown option '-%c' (see pacer --help)", optopt);
        return bad(err, "unknown option '%s' (see pacer --help)", arg);
    }
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
    int rc;

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
    if ((rc = peer_spellings(&pacer_table, argc, argv, err)) < 0)
        return rc;
    if ((rc = parse_options(&pacer_table, argc, argv, cfg, out, err, &version_only)) != 0)
        return rc;

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
