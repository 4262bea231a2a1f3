/*
 * fuzz_units.c - libFuzzer harness for the unit parsers and printers.
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_units
 *   build-fuzz/fuzz_units -max_total_time=60 tests/fuzz/corpus/units
 *
 * The input, up to its first NUL, goes through all four parsers; the
 * values they accept, and the input's first 8 bytes taken as a double,
 * go through all three printers. The harness aborts when:
 *   - a parser returns anything but 0, -EINVAL or -ERANGE, or accepts a
 *     rate that is negative, non-finite or above 1e12;
 *   - a parser disagrees with itself: a bare number must be the same
 *     duration with "s" appended, the same size with "B" appended, 1024
 *     (2^20, 2^30) times the size with "k"/"KiB" ("M", "G") appended, and
 *     1000 times the rate with "k" appended (or -ERANGE past the limit);
 *   - units_parse_count differs from an exact reference on "[+]digits"
 *     with an optional k/K/M/G suffix;
 *   - a printer does not return buf, writes past cap (a canary follows,
 *     and the buffer is heap memory of exactly cap + canary bytes), leaves
 *     it unterminated, or gives under a small cap anything but a prefix of
 *     what it gives under a large one;
 *   - for a finite value a printer writes "nan"/"inf", or something that
 *     is not "[-]digits.dd" and a unit of its scale, or a number that,
 *     times its unit, is not the value (to the printed precision), or that
 *     should have moved to the next unit (wrk's 85% rule) or not.
 */
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CANARY 16
#define BIG 512 /* %.2f of DBL_MAX is 312 characters */

struct unit {
    const char *name;
    double mult;  /* the unit in the printer's input unit */
    double limit; /* a printed number with this unit stays below this (0: none) */
};

/* Which units each printer may use. A unit other than the last one it can
 * step to prints below 85% of the step (plus the rounding of %.2f). */
static const struct unit time_units[] = {
    {"us", 1, 850.005}, {"ms", 1e3, 1000.005}, {"s", 1e6, 51.005}, {"m", 60e6, 0}, {NULL, 0, 0},
};
static const struct unit metric_units[] = {
    {"", 1, 850.005}, {"k", 1e3, 850.005}, {"M", 1e6, 850.005},
    {"G", 1e9, 850.005}, {"T", 1e12, 0}, {NULL, 0, 0},
};
static const struct unit binary_units[] = {
    {"", 1, 870.405},
    {"K", 1024.0, 870.405},
    {"M", 1048576.0, 870.405},
    {"G", 1073741824.0, 870.405},
    {"T", 1099511627776.0, 0},
    {NULL, 0, 0},
};

typedef char *(*printer)(double, char *, size_t);

static void check_shape(double v, const char *out, const struct unit *units, int is_time)
{
    const char *p = out;
    const struct unit *u;
    char *end;
    double x;

    if (strcasestr(out, "nan") || strcasestr(out, "inf"))
        abort();
    if (*p == '-')
        p++;
    if (*p < '0' || *p > '9')
        abort();
    while (*p >= '0' && *p <= '9')
        p++;
    if (p[0] != '.' || p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9')
        abort();
    p += 3;
    for (u = units; u->name; u++)
        if (strcmp(p, u->name) == 0)
            break;
    if (!u->name)
        abort();
    x = strtod(out, &end);
    if (end != p)
        abort();

    /* The number times the unit is the value, to the printed precision. */
    double want = v / u->mult;
    if (!(fabs(x - want) <= 0.005 + fabs(want) * 1e-12))
        abort();
    /* Not moved on although it should have, or moved on too early. */
    if (u->limit > 0 && x >= u->limit)
        abort();
    /* Moved on only from 85% of the step: the number is at least 0.85
     * (seconds, where microseconds end, at least 1). */
    if (u != units && x < 0.845)
        abort();
    if (is_time && strcmp(u->name, "s") == 0 && x < 0.995)
        abort();
    if (v < 0 && u != units)
        abort(); /* negative values are never scaled */
    if (is_time && v < 1e6 && v >= 0 && u->mult >= 1e6)
        abort();
    if (is_time && v >= 1e6 && u->mult < 1e6)
        abort();
}

static void check_printer(printer fn, double v, size_t small, const struct unit *units, int is_time)
{
    char *big = malloc(BIG + CANARY), *sm = malloc(small + CANARY);

    if (!big || !sm)
        abort();
    memset(big, 0x5a, BIG + CANARY);
    memset(sm, 0x5a, small + CANARY);
    if (fn(v, big, BIG) != big || fn(v, sm, small) != sm)
        abort();
    for (size_t i = 0; i < CANARY; i++)
        if (big[BIG + i] != 0x5a || sm[small + i] != 0x5a)
            abort();
    if (!memchr(big, '\0', BIG) || !memchr(sm, '\0', small))
        abort();
    size_t bl = strlen(big), sl = strlen(sm);
    if (bl >= BIG - 1)
        abort(); /* BIG is meant to hold any double */
    if (sl != (bl < small - 1 ? bl : small - 1) || memcmp(sm, big, sl) != 0)
        abort();
    if (isfinite(v))
        check_shape(v, big, units, is_time);
    free(big);
    free(sm);
}

static void print_all(double v, size_t small)
{
    check_printer(units_fmt_time_us, v, small, time_units, 1);
    check_printer(units_fmt_metric, v, small, metric_units, 0);
    check_printer(units_fmt_binary, v, small, binary_units, 0);
}

static void check_rc(int rc)
{
    if (rc != 0 && rc != -EINVAL && rc != -ERANGE)
        abort();
}

/* s with suffix appended, in an exactly-sized heap buffer. */
static char *with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    char *t = malloc(a + b + 1);

    if (!t)
        abort();
    memcpy(t, s, a);
    memcpy(t + a, suffix, b + 1);
    return t;
}

static int ends_bare(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && ((s[n - 1] >= '0' && s[n - 1] <= '9') || s[n - 1] == '.');
}

/* Exact reference for "[+]digits[kKMG]": 1 if s has that form. */
static int ref_count(const char *s, int *rc, uint64_t *n)
{
    const char *p = s + (*s == '+');
    uint64_t x = 0, mult = 1;

    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *p - '0', &x)) {
            x = UINT64_MAX;
            *rc = -ERANGE;
            /* still must have the form */
            while (*p >= '0' && *p <= '9')
                p++;
            if (*p == '\0' || (p[1] == '\0' && strchr("kKMG", *p)))
                return 1;
            return 0; /* the parser may fall back to strtod: no reference */
        }
    }
    if (*p) {
        if (p[1] != '\0' || !strchr("kKMG", *p))
            return 0;
        mult = *p == 'M' ? 1000000 : *p == 'G' ? 1000000000 : 1000;
    }
    if (__builtin_mul_overflow(x, mult, &x)) {
        *rc = -ERANGE;
        return 1;
    }
    *rc = 0;
    *n = x;
    return 1;
}

static void parse_all(const char *s, size_t small)
{
    uint64_t ns = 0, n = 0, bytes = 0, a, b;
    double r = 0, r2;
    int rc, rc2;

    rc = units_parse_duration(s, &ns);
    check_rc(rc);
    if (rc == 0) {
        print_all((double)ns / 1e3, small);
        if (ends_bare(s)) {
            char *t = with(s, "s");
            if (units_parse_duration(t, &a) != 0 || a != ns)
                abort();
            free(t);
        }
    }

    rc = units_parse_count(s, &n);
    check_rc(rc);
    {
        int want_rc = 0;
        uint64_t want = 0;
        if (ref_count(s, &want_rc, &want) && (rc != want_rc || (rc == 0 && n != want)))
            abort();
    }
    if (rc == 0)
        print_all((double)n, small);

    rc = units_parse_rate(s, &r);
    check_rc(rc);
    if (rc == 0) {
        if (!isfinite(r) || r < 0 || r > 1e12)
            abort();
        print_all(r, small);
        if (ends_bare(s)) {
            char *t = with(s, "k");
            rc2 = units_parse_rate(t, &r2);
            if (r * 1e3 > 1e12 ? rc2 != -ERANGE : (rc2 != 0 || r2 != r * 1e3))
                abort();
            free(t);
        }
    }

    rc = units_parse_size(s, &bytes);
    check_rc(rc);
    if (rc == 0) {
        print_all((double)bytes, small);
        if (ends_bare(s)) {
            static const struct {
                const char *suffix;
                unsigned shift;
            } tab[] = {{"B", 0}, {"k", 10}, {"KiB", 10}, {"M", 20}, {"G", 30}, {"GiB", 30}};
            for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
                char *t = with(s, tab[i].suffix);
                rc2 = units_parse_size(t, &b);
                if (tab[i].shift && bytes > (UINT64_MAX >> tab[i].shift)) {
                    if (rc2 != -ERANGE)
                        abort();
                } else if (rc2 != 0 || b != bytes << tab[i].shift) {
                    abort();
                }
                free(t);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t len = nul ? (size_t)(nul - data) : size;
    char *s = malloc(len + 1);
    size_t small = 1 + (size % 12);
    double raw = 0;

    if (!s)
        return 0;
    memcpy(s, data, len);
    s[len] = '\0';
    parse_all(s, small);
    free(s);

    memcpy(&raw, data, size < sizeof raw ? size : sizeof raw);
    print_all(raw, small);
    return 0;
}
