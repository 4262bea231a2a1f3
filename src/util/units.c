/*
 * units.c - see units.h. Printing follows wrk's units.c behaviour (a value
 * moves to the next unit once it reaches 85% of the scale), so pacer's
 * report lines read exactly like wrk's.
 */
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parse a non-negative decimal number at the start of s; *end gets the
 * first unparsed character. strtod also accepts hex, inf and nan, which
 * are not numbers a user means here, so the leading text is checked. */
static int parse_number(const char *s, double *v, const char **end)
{
    const char *p = s;
    char *e;

    if (*p == '+')
        p++;
    if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
        return -EINVAL;
    for (const char *q = p; *q; q++)
        if (*q == 'x' || *q == 'X')
            return -EINVAL;
    errno = 0;
    *v = strtod(p, &e);
    if (errno == ERANGE || !isfinite(*v))
        return -ERANGE;
    *end = e;
    return 0;
}

struct suffix {
    const char *name;
    double mult;
};

static int parse_with(const char *s, const struct suffix *tab, double dflt, double *out)
{
    const char *end;
    double v;
    int rc = parse_number(s, &v, &end);

    if (rc < 0)
        return rc;
    if (*end == '\0') {
        *out = v * dflt;
        return 0;
    }
    for (; tab->name; tab++) {
        if (strcmp(end, tab->name) == 0) {
            *out = v * tab->mult;
            return 0;
        }
    }
    return -EINVAL;
}

/* A non-negative double to uint64, rounding to nearest; the full uint64
 * range is accepted (llround alone stops at INT64_MAX). */
static int to_u64(double v, uint64_t *out)
{
    if (!(v >= 0) || v >= 18446744073709551616.0)
        return -ERANGE;
    if (v < 9223372036854775808.0)
        *out = (uint64_t)llround(v);
    else
        *out = (uint64_t)v;
    return 0;
}

int units_parse_duration(const char *s, uint64_t *ns)
{
    static const struct suffix tab[] = {
        {"ns", 1},     {"us", 1e3},   {"ms", 1e6},     {"s", 1e9}, {"m", 60e9},
        {"h", 3600e9}, {"d", 86400e9}, {NULL, 0},
    };
    double v;
    int rc = parse_with(s, tab, 1e9, &v);

    return rc < 0 ? rc : to_u64(v, ns);
}

static const struct suffix metric_tab[] = {
    {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {NULL, 0},
};

/* Counts are whole numbers: plain digits are parsed exactly (a double
 * would lose precision above 2^53); a decimal with a suffix ("1.5k") must
 * come out whole, allowing for the binary rounding of the decimal. */
int units_parse_count(const char *s, uint64_t *n)
{
    const char *p = s;
    double v, r;
    int rc;

    if (*p == '+')
        p++;
    if (*p >= '0' && *p <= '9') {
        const char *q = p;
        uint64_t mult = 0, x = 0;

        while (*q >= '0' && *q <= '9') {
            unsigned d = (unsigned)(*q - '0');

            if (x > (UINT64_MAX - d) / 10)
                return -ERANGE;
            x = x * 10 + d;
            q++;
        }
        if (*q == '\0')
            mult = 1;
        else if (q[1] == '\0' && (*q == 'k' || *q == 'K'))
            mult = 1000;
        else if (q[1] == '\0' && *q == 'M')
            mult = 1000000;
        else if (q[1] == '\0' && *q == 'G')
            mult = 1000000000;
        if (mult) {
            if (x > UINT64_MAX / mult)
                return -ERANGE;
            *n = x * mult;
            return 0;
        }
    }
    rc = parse_with(s, metric_tab, 1, &v);
    if (rc < 0)
        return rc;
    r = nearbyint(v);
    if (fabs(v - r) > 1e-9 * (r > 1 ? r : 1))
        return -EINVAL;
    return to_u64(r, n);
}

int units_parse_rate(const char *s, double *r)
{
    double v;
    int rc = parse_with(s, metric_tab, 1, &v);

    if (rc < 0)
        return rc;
    if (v > 1e12)
        return -ERANGE;
    *r = v;
    return 0;
}

int units_parse_size(const char *s, uint64_t *bytes)
{
    static const struct suffix tab[] = {
        {"b", 1},           {"B", 1},          {"k", 1024.0},     {"K", 1024.0},
        {"kb", 1024.0},     {"KB", 1024.0},    {"KiB", 1024.0},   {"m", 1048576.0},
        {"M", 1048576.0},   {"MB", 1048576.0}, {"MiB", 1048576.0}, {"g", 1073741824.0},
        {"G", 1073741824.0}, {"GB", 1073741824.0}, {"GiB", 1073741824.0}, {NULL, 0},
    };
    double v;
    int rc = parse_with(s, tab, 1, &v);

    if (rc < 0)
        return rc;
    if (v != floor(v))
        return -EINVAL;
    return to_u64(v, bytes);
}

struct scale {
    double step;
    const char *base;
    const char *units[6];
};

/* wrk's rule: step up while the value is at least 85% of the next unit and
 * a further unit exists after the one being stepped to. */
static char *fmt_scaled(double v, const struct scale *sc, char *buf, size_t cap)
{
    const char *unit = sc->base;

    for (int i = 0; sc->units[i] && sc->units[i + 1] && v >= sc->step * 0.85; i++) {
        v /= sc->step;
        unit = sc->units[i];
    }
    snprintf(buf, cap, "%.2f%s", v, unit);
    return buf;
}

char *units_fmt_time_us(double us, char *buf, size_t cap)
{
    static const struct scale small = {1000, "us", {"ms", "s", NULL}};
    static const struct scale large = {60, "s", {"m", "h", NULL}};

    if (us >= 1e6)
        return fmt_scaled(us / 1e6, &large, buf, cap);
    return fmt_scaled(us, &small, buf, cap);
}

char *units_fmt_metric(double n, char *buf, size_t cap)
{
    static const struct scale sc = {1000, "", {"k", "M", "G", "T", "P", NULL}};

    return fmt_scaled(n, &sc, buf, cap);
}

char *units_fmt_binary(double n, char *buf, size_t cap)
{
    static const struct scale sc = {1024, "", {"K", "M", "G", "T", "P", NULL}};

    return fmt_scaled(n, &sc, buf, cap);
}
