/*
 * parse.c - the parser that runs an option table (cli_table): getopt_long
 * built from the table, the checks before it (typographic dashes, other
 * tools' single-dash flags) and the --help lines.
 */
#include "cli/cli_int.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "cli/cli.h"

void cli_print_version(FILE *out)
{
    fprintf(out, "pacer %s [epoll] HTTP load generator\n", PACER_VERSION);
}

/* One line on stderr, whatever the user's text contained. */
int cli_bad(FILE *err, const char *fmt, ...)
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
const char *cli_flag_of(const cli_opt *o, char buf[static 64])
{
    if (o->letter && !o->name)
        snprintf(buf, 64, "-%c", o->letter);
    else if (o->letter)
        snprintf(buf, 64, "-%c/--%s", o->letter, o->name);
    else
        snprintf(buf, 64, "--%s", o->name);
    return buf;
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
    return cli_bad(err, "%s is an option of %s", FLAG(o), names[m]);
}

/* Whether WORD (up to its '=') names, or abbreviates, a long option of t:
 * what getopt_long would take "--WORD" for. */
static bool names_long_option(const cli_table *t, const char *word)
{
    size_t len = strcspn(word, "=");

    for (size_t k = 0; k < 2 * t->n; k++) {
        const char *n = k % 2 ? t->opts[k / 2].alias : t->opts[k / 2].name;

        if (n && strlen(n) >= len && strncmp(n, word, len) == 0)
            return true;
    }
    return false;
}

/* Whether letter c is a short option of t. */
static bool short_option(const cli_table *t, char c)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->opts[i].letter == c)
            return true;
    return false;
}

/* Blogs print "--latency" as "–latency" (an en dash), "-t2" as "–t2", and
 * "-" as a minus sign: such an argument is read with ASCII dashes, in place
 * (the UTF-8 dash is longer than what replaces it), and one line says so.
 * A dash that stands for "--" is read as one '-' when no long option of t
 * has that name and the letter after it is a short option ("–t2 –c10":
 * -t2 -c10; one letter alone is always the short option). */
void ascii_dashes(const cli_table *t, int argc, char **argv, FILE *err)
{
    static const struct {
        const char *utf8, *ascii;
    } dashes[] = {{"\xe2\x80\x93", "--"}, {"\xe2\x80\x94", "--"}, {"\xe2\x88\x92", "-"}};

    for (int i = 1; i < argc; i++)
        for (size_t d = 0; d < sizeof dashes / sizeof dashes[0]; d++) {
            size_t ul = strlen(dashes[d].utf8), al = strlen(dashes[d].ascii);
            const char *word = argv[i] + ul;
            char was[64];

            if (strncmp(argv[i], dashes[d].utf8, ul) != 0 || !*word ||
                !((*word >= 'a' && *word <= 'z') || (*word >= 'A' && *word <= 'Z')))
                continue;
            if (al == 2 && short_option(t, *word) &&
                (word[1] == '\0' || word[1] == '=' || !names_long_option(t, word)))
                al = 1; /* "–t2": -t2, not --t2 */
            snprintf(was, sizeof was, "%s", argv[i]);
            memcpy(argv[i], dashes[d].ascii, al);
            memmove(argv[i] + al, argv[i] + ul, strlen(argv[i] + ul) + 1);
            fprintf(err, "pacer: note: '%s' read as '%s' (a typographic dash%s)\n", was, argv[i],
                    al == 1 && dashes[d].ascii[1] ? ": no long option of that name" : "");
            break;
        }
}

/* Other tools' single-dash long flags: getopt would read "-h2" as -h (help,
 * exit 0) and "-host" as -h -o -s -t. Refused with pacer's spelling (the
 * peer table's hint), or the long option of t the flag spells. */
int peer_spellings(const cli_table *t, int argc, char **argv, FILE *err)
{
    char hint[512];

    if (t->long_only)
        return 0; /* the tool's own single-dash flags, read by getopt_long_only */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (argv[i][0] != '-' || argv[i][1] == '-' || strlen(argv[i]) < 3)
            continue;
        if (peer_hint(argv[i], strlen(argv[i]), hint, sizeof hint))
            return cli_bad(err, "unknown option '%s': %s", argv[i], hint);
        for (size_t k = 0; k < 2 * t->n; k++) {
            const char *name = k % 2 ? t->opts[k / 2].alias : t->opts[k / 2].name;

            if (name && strlen(name) > 1 && strcmp(argv[i] + 1, name) == 0)
                return cli_bad(err, "unknown option '%s': did you mean '--%s'?", argv[i], name);
        }
    }
    return 0;
}

/* An option t does not know: one line, with the peer table's hint when
 * another tool has that flag (pacer's own table only: a persona's --help
 * lists that tool's flags). */
static int unknown_option(const cli_table *t, const char *flag, size_t len, FILE *err)
{
    char hint[512];

    if (t == &cli_pacer_table && peer_hint(flag, len, hint, sizeof hint))
        return cli_bad(err, "unknown option '%.*s': %s", (int)len, flag, hint);
    return cli_bad(err, "unknown option '%.*s' (see %s --help)", (int)len, flag,
                   t->prog);
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

/* The option lines of --help, from the table:
 *     -c, --connections <N>  Connections to keep open (default 10)
 *         --timeout     <T>  Request timeout (default 2s)
 *   compare:  --rounds   <N>  Rounds of A B A B ... (default 3)
 * A value's placeholder ends in column 25 and the text starts in column 27
 * (each one further in a section), or two blanks after a longer name. */
void print_options(const cli_table *t, FILE *f)
{
    const char *section = NULL;

    for (size_t i = 0; i < t->n; i++) {
        const cli_opt *o = &t->opts[i];
        int value_end = o->section ? 26 : 25, col = value_end + 2, n;

        if (!o->section) {
            n = fprintf(f, "    %-4s",
                        o->letter ? (char[]){'-', o->letter, o->name ? ',' : 0, 0} : "");
        } else if (!section || strcmp(section, o->section) != 0) {
            n = fprintf(f, "  %s:", o->section);
            n += fprintf(f, "%*s", n < 12 ? 12 - n : 1, "");
        } else {
            n = fprintf(f, "%12s", "");
        }
        section = o->section;
        if (o->section && o->letter)
            n += fprintf(f, "-%c, ", o->letter);
        if (o->name) /* a tool with one-dash long flags (hey's -host) shows them so */
            n += fprintf(f, "%s%s", t->long_only ? "-" : "--", o->name);
        if (o->value) {
            int pad = o->name ? value_end - n - (int)strlen(o->value) - 2 : 1;

            n += fprintf(f, "%*s<%s>", pad > 1 ? pad : 1, "", o->value);
        }
        fprintf(f, "%*s", n < col ? col - n : 2, "");
        for (const char *h = o->help; *h; h++)
            if (*h == '\n')
                fprintf(f, "\n%*s", col, "");
            else
                fputc(*h, f);
        if (o->alias)
            fprintf(f, "\n%*s(also %s%s)", col, "", t->long_only ? "-" : "--", o->alias);
        fputc('\n', f);
    }
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
int parse_options(const cli_table *t, int argc, char **argv, pc_config *cfg, FILE *out,
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

        if (o->name) /* NULL: a letter only (ab's options) */
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
    while ((c = t->long_only ? getopt_long_only(argc, argv, shorts, longs, NULL)
                         : getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const cli_opt *o = option_of(t, c);
        const char *arg = argv[optind - 1];

        if (o) {
            if ((rc = mode_check(cfg, o, err)) < 0)
                return rc;
            rc = o->take(cfg, o, optarg, err);
            if (rc == TAKE_HELP) {
                if (t == &cli_pacer_table)
                    cli_usage_mode(cfg->mode, out); /* compare's, capacity's own */
                else
                    t->usage(out);
                return CLI_EXIT;
            }
            if (rc == TAKE_VERSION_EXIT) {
                cli_print_version(out);
                return CLI_EXIT;
            }
            if (rc == TAKE_VERSION)
                *version_only = strncmp(arg, "--", 2) == 0 && strcmp(arg + 2, o->name) == 0;
            else if (rc < 0)
                return rc;
            continue;
        }
        if (c == ':')
            return cli_bad(err, "option '%s' needs a value", arg);
        if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=')) {
            int n = (int)(strchr(arg, '=') - arg);

            if (long_opt_takes_no_value(t, arg + 2, (size_t)n - 2))
                return cli_bad(err, "option '%.*s' takes no value", n, arg);
            return unknown_option(t, arg, (size_t)n, err);
        }
        if (optopt > 0 && optopt < 128 && strncmp(arg, "--", 2) != 0)
            return unknown_option(t, (char[]){'-', (char)optopt, 0}, 2, err);
        return unknown_option(t, arg, strlen(arg), err);
    }
    return 0;
}
