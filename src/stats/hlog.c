/*
 * hlog.c - HdrHistogram interval log reader and writer (see hlog.h).
 */
#include "stats/hlog.h"
#include "stats/hdr_codec.h"
#include "util/file.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Java's criterion: a timestamp more than a year before StartTime cannot be
 * absolute. */
#define YEAR_S (365.0 * 24 * 3600)
#define NUMBER_MAX 400 /* longest numeric field accepted (DBL_MAX "%.3f" is 313) */
#define VERSION_MAX 16

static const char LEGEND[] =
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";
static const char START_TIME_PREFIX[] = "#[StartTime: ";
static const char BASE_TIME_PREFIX[] = "#[BaseTime: ";
static const char VERSION_PREFIX[] = "#[Histogram log format version ";

struct hlog_reader {
    FILE *f;
    bool owns_f;
    char *buf;              /* current line, NUL-terminated */
    size_t cap;
    unsigned long line;
    bool has_start, has_base, base_decided, seen_entry;
    double start, base;
    char version[VERSION_MAX];
};

/* ---- small parsers -------------------------------------------------------- */

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix);
    return n >= pl && memcmp(s, prefix, pl) == 0;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses s[0..n) as a non-negative decimal number: digits with an optional
 * fraction ("12", "12.", "12.5", ".5") and an optional exponent ("e-3").
 * Nothing else: no sign, space, hex, "inf" or "nan". Returns 0 or -EINVAL. */
static int parse_number(const char *s, size_t n, double *out)
{
    char tmp[NUMBER_MAX + 1];
    if (n == 0 || n > NUMBER_MAX)
        return -EINVAL;
    size_t i = 0, digits = 0;
    while (i < n && is_digit(s[i]))
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++, digits++;
    }
    if (digits == 0)
        return -EINVAL;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t exp_digits = 0;
        while (i < n && is_digit(s[i]))
            i++, exp_digits++;
        if (exp_digits == 0)
            return -EINVAL;
    }
    if (i != n)
        return -EINVAL;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end = NULL;
    double v = strtod(tmp, &end);
    if (end != tmp + n || !isfinite(v))
        return -EINVAL;
    *out = v;
    return 0;
}

/* Parses the number that follows a "#[StartTime: " / "#[BaseTime: " prefix,
 * up to the next space or ']' (Java writes "x (seconds since epoch)..."). */
static int parse_comment_time(const char *s, size_t n, double *out)
{
    size_t i = 0;
    while (i < n && s[i] != ' ' && s[i] != ']')
        i++;
    return parse_number(s, i, out);
}

/* Takes in a '#' line. */
static int parse_comment(hlog_reader *r, const char *s, size_t n)
{
    double v;
    if (has_prefix(s, n, START_TIME_PREFIX)) {
        size_t pl = sizeof START_TIME_PREFIX - 1;
        if (parse_comment_time(s + pl, n - pl, &v) < 0)
            return -EINVAL;
        r->start = v;
        r->has_start = true;
    } else if (has_prefix(s, n, BASE_TIME_PREFIX)) {
        size_t pl = sizeof BASE_TIME_PREFIX - 1;
        if (parse_comment_time(s + pl, n - pl, &v) < 0)
            return -EINVAL;
        r->base = v;
        r->has_base = true;
        r->base_decided = true;
    } else if (has_prefix(s, n, VERSION_PREFIX)) {
        size_t pl = sizeof VERSION_PREFIX - 1, i = 0;
        while (pl + i < n && s[pl + i] != ']' && i < VERSION_MAX - 1) {
            char c = s[pl + i];
            if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
                break;
            r->version[i++] = c;
        }
        r->version[i] = '\0';
    }
    return 0;
}

/* Parses an interval line s[0..n) into *e (its histogram freshly decoded). */
static int parse_entry(hlog_reader *r, const char *s, size_t n, hlog_entry *e)
{
    const char *end = s + n;
    const char *p = s;

    if (memchr(s, '\0', n))
        return -EINVAL;
    if (has_prefix(s, n, "Tag=")) {
        const char *t = s + 4;
        const char *comma = memchr(t, ',', (size_t)(end - t));
        if (!comma || (size_t)(comma - t) >= HLOG_TAG_MAX)
            return -EINVAL;
        for (const char *c = t; c < comma; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                return -EINVAL;
        memcpy(e->tag, t, (size_t)(comma - t));
        e->tag[comma - t] = '\0';
        p = comma + 1;
    }

    /* Three numbers, each ended by a comma, then the histogram. */
    double num[3];
    for (int k = 0; k < 3; k++) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        if (!comma)
            return -EINVAL;
        if (parse_number(p, (size_t)(comma - p), &num[k]) < 0)
            return -EINVAL;
        p = comma + 1;
    }
    /* Trailing blanks are tolerated (line ends were already removed). */
    const char *hend = end;
    while (hend > p && (hend[-1] == ' ' || hend[-1] == '\t'))
        hend--;
    if (hend == p)
        return -EINVAL;

    /* The base time this line gets (decided now if this is the first
     * entry; committed only once the line has proven valid). */
    double base = r->base;
    if (!r->base_decided)
        base = (r->has_start && num[0] < r->start - YEAR_S) ? r->start : 0.0;
    if (!isfinite(num[0] + base))
        return -EINVAL;

    int rc = hdrc_decode_base64(p, (size_t)(hend - p), &e->h);
    if (rc < 0)
        return rc;

    if (!r->seen_entry) {
        r->seen_entry = true;
        if (!r->has_start)
            r->start = num[0];
    }
    r->base = base;
    r->base_decided = true;
    e->start_raw_s = num[0];
    e->start_s = num[0] + base;
    e->length_s = num[1];
    e->max = num[2];
    return 1;
}

/* ---- reader ------------------------------------------------------------- */

/* Reads the next line into r->buf without its "\n" (or "\r\n"), *n bytes.
 * Returns 1, 0 at end of file, -EINVAL for a line over HLOG_LINE_MAX (the
 * rest of which is skipped), -EIO, -ENOMEM. */
static int read_line(hlog_reader *r, size_t *n)
{
    size_t len = 0;
    bool too_long = false;
    int c;

    while ((c = getc(r->f)) != EOF && c != '\n') {
        if (too_long)
            continue;
        if (len >= HLOG_LINE_MAX + 1) { /* room for a final '\r' */
            too_long = true;
            continue;
        }
        if (len + 1 >= r->cap) {
            size_t ncap = r->cap ? r->cap * 2 : 256;
            if (ncap > HLOG_LINE_MAX + 2)
                ncap = HLOG_LINE_MAX + 2;
            char *nb = realloc(r->buf, ncap);
            if (!nb)
                return -ENOMEM;
            r->buf = nb;
            r->cap = ncap;
        }
        r->buf[len++] = (char)c;
    }
    if (ferror(r->f))
        return -EIO;
    if (c == EOF && len == 0 && !too_long)
        return 0;
    r->line++;
    if (too_long)
        return -EINVAL;
    if (len > 0 && r->buf[len - 1] == '\r')
        len--;
    if (len > HLOG_LINE_MAX)
        return -EINVAL;
    if (r->buf)
        r->buf[len] = '\0';
    *n = len;
    return 1;
}

int hlog_reader_open(hlog_reader **r, FILE *f)
{
    int rc = 0;
    if (!r)
        return -EINVAL;
    *r = NULL;
    if (!f) {
        rc = -EINVAL;
        goto out;
    }
    hlog_reader *nr = calloc(1, sizeof *nr);
    if (!nr) {
        rc = -ENOMEM;
        goto out;
    }
    nr->f = f;
    *r = nr;
out:
    return rc;
}

int hlog_reader_open_path(hlog_reader **r, const char *path)
{
    int rc = 0;
    FILE *f = NULL;
    if (!r)
        return -EINVAL;
    *r = NULL;
    if (!path) {
        rc = -EINVAL;
        goto out;
    }
    f = pc_fopen_read(path, "r");
    if (!f) {
        rc = errno ? -errno : -EIO;
        goto out;
    }
    rc = hlog_reader_open(r, f);
    if (rc < 0)
        goto out;
    (*r)->owns_f = true;
    f = NULL;
out:
    if (f)
        fclose(f);
    return rc;
}

int hlog_reader_next(hlog_reader *r, hlog_entry *e)
{
    int rc;
    memset(e, 0, sizeof *e);
    if (!r)
        return -EINVAL;
    for (;;) {
        size_t n = 0;
        rc = read_line(r, &n);
        if (rc <= 0)
            goto out;
        const char *s = r->buf;
        if (n == 0)
            continue;
        if (s[0] == '#') {
            rc = parse_comment(r, s, n);
            if (rc < 0)
                goto out;
            continue;
        }
        if (has_prefix(s, n, "\"StartTimestamp\""))
            continue;
        rc = parse_entry(r, s, n, e);
        goto out;
    }
out:
    if (rc <= 0) {
        hdr_free(&e->h);
        memset(e, 0, sizeof *e);
    }
    return rc;
}

unsigned long hlog_reader_line(const hlog_reader *r)
{
    return r ? r->line : 0;
}

bool hlog_reader_has_start_time(const hlog_reader *r)
{
    return r && r->has_start;
}

double hlog_reader_start_time(const hlog_reader *r)
{
    return r && (r->has_start || r->seen_entry) ? r->start : 0.0;
}

bool hlog_reader_has_base_time(const hlog_reader *r)
{
    return r && r->has_base;
}

double hlog_reader_base_time(const hlog_reader *r)
{
    return r && r->base_decided ? r->base : 0.0;
}

const char *hlog_reader_version(const hlog_reader *r)
{
    return r ? r->version : "";
}

void hlog_reader_close(hlog_reader *r)
{
    if (!r)
        return;
    if (r->owns_f && r->f)
        fclose(r->f);
    free(r->buf);
    free(r);
}

/* ---- writer ------------------------------------------------------------- */

static bool valid_time(double t)
{
    return isfinite(t) && t >= 0;
}

int hlog_write_header(FILE *f, double start_time_s, double base_time_s, const char *comment)
{
    int rc = 0;
    if (!f || !valid_time(start_time_s) || isinf(base_time_s) ||
        (comment && strpbrk(comment, "\r\n"))) {
        rc = -EINVAL;
        goto out;
    }
    /* The human-readable date, as Java's Date.toString but in UTC. */
    char date[64] = "";
    if (start_time_s < 253402300800.0) { /* year 10000 */
        time_t secs = (time_t)start_time_s;
        struct tm tm;
        if (gmtime_r(&secs, &tm))
            strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
    }
    if (comment && fprintf(f, "#[%s]\n", comment) < 0)
        goto io;
    if (fprintf(f, "#[Histogram log format version " HLOG_FORMAT_VERSION "]\n") < 0)
        goto io;
    if (fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_time_s, date) < 0)
        goto io;
    if (!isnan(base_time_s) && base_time_s >= 0 &&
        fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", base_time_s) < 0)
        goto io;
    if (fprintf(f, "%s\n", LEGEND) < 0)
        goto io;
    if (ferror(f))
        goto io;
    goto out;
io:
    rc = -EIO;
out:
    return rc;
}

/* Printable ASCII without ',' and ' ', 1..HLOG_TAG_MAX-1 bytes. */
static bool valid_tag(const char *tag)
{
    size_t n = strlen(tag);
    if (n >= HLOG_TAG_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tag[i];
        if (c <= 0x20 || c >= 0x7f || c == ',')
            return false;
    }
    return true;
}

int hlog_write_entry(FILE *f, const char *tag, double start_s, double length_s, const hdr_hist *h,
                     double max_unit_ratio)
{
    int rc = 0;
    char *text = NULL;
    if (tag && !tag[0])
        tag = NULL;
    if (!f || !h || !valid_time(start_s) || !valid_time(length_s) || !isfinite(max_unit_ratio) ||
        !(max_unit_ratio > 0) || (tag && !valid_tag(tag))) {
        rc = -EINVAL;
        goto out;
    }
    rc = hdrc_encode_base64(h, &text);
    if (rc < 0)
        goto out;
    double max = (double)hdr_max(h) / max_unit_ratio;
    if (!isfinite(max)) {
        rc = -EINVAL;
        goto out;
    }
    if (tag && fprintf(f, "Tag=%s,", tag) < 0) {
        rc = -EIO;
        goto out;
    }
    if (fprintf(f, "%.3f,%.3f,%.3f,%s\n", start_s, length_s, max, text) < 0 || ferror(f)) {
        rc = -EIO;
        goto out;
    }
out:
    free(text);
    return rc;
}
