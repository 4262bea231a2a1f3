/*
 * fuzz_hlog.c - libFuzzer harness for the interval log reader and writer.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *         tests/fuzz/fuzz_hlog.c src/stats/hdr.c src/stats/hdr_codec.c \
 *         src/stats/hlog.c -lz -lm -o fuzz_hlog
 *   ./fuzz_hlog -max_total_time=60 -malloc_limit_mb=64 tests/fuzz/corpus/hlog
 *
 * The input is a log file. The harness reads it to the end, going on after
 * bad lines, and aborts when:
 *   - the reader returns anything but 1, 0, -EINVAL (or -ENOMEM), or its
 *     line number goes backwards or stands still across an entry or error;
 *   - an error leaves a histogram in the entry, or an entry has a
 *     non-finite or negative number, or an unterminated tag;
 *   - an entry cannot be written back with hlog_write_entry (when its tag
 *     is one the writer accepts), or reading that line back does not give
 *     the same tag, the same numbers to the printed precision, and an equal
 *     histogram;
 *   - the reader's timestamps break the documented rule
 *     (start_s == start_raw_s + base time);
 *   - a header written with the StartTime/BaseTime the reader saw does not
 *     read back with the same values (to the printed precision).
 */
#include "stats/hdr.h"
#include "stats/hdr_codec.h"
#include "stats/hlog.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int same3(double a, double b)
{
    char x[512], y[512];
    snprintf(x, sizeof x, "%.3f", a);
    snprintf(y, sizeof y, "%.3f", b);
    return strcmp(x, y) == 0;
}

static int writer_tag_ok(const char *t)
{
    for (const char *c = t; *c; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f || *c == ',')
            return 0;
    return 1;
}

static void write_back(const hlog_entry *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    if (!w)
        return;
    int rc = hlog_write_entry(w, e->tag, e->start_raw_s, e->length_s, &e->h, 1e6);
    if (fclose(w) != 0)
        abort();
    if (!writer_tag_ok(e->tag)) {
        if (rc != -EINVAL)
            abort();
        free(buf);
        return;
    }
    if (rc != 0)
        abort();

    FILE *f = fmemopen(buf, len, "r");
    if (!f)
        abort();
    hlog_reader *r = NULL;
    if (hlog_reader_open(&r, f) != 0)
        abort();
    hlog_entry e2;
    if (hlog_reader_next(r, &e2) != 1)
        abort();
    if (strcmp(e2.tag, e->tag) != 0 || !same3(e2.start_raw_s, e->start_raw_s) ||
        !same3(e2.length_s, e->length_s) || !same3(e2.max, (double)hdr_max(&e->h) / 1e6) ||
        !hdr_equal(&e2.h, &e->h) || e2.h.lowest != e->h.lowest || e2.h.highest != e->h.highest ||
        e2.h.sigfigs != e->h.sigfigs)
        abort();
    hdr_free(&e2.h);
    if (hlog_reader_next(r, &e2) != 0)
        abort();
    hlog_reader_close(r);
    fclose(f);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)(uintptr_t)data, size, "r");
    if (!f)
        return 0;
    hlog_reader *r = NULL;
    if (hlog_reader_open(&r, f) != 0)
        abort();
    unsigned long last_line = 0;
    for (int iter = 0; iter < 100000; iter++) {
        hlog_entry e;
        memset(&e, 0x5a, sizeof e);
        int rc = hlog_reader_next(r, &e);
        if (rc == 0) {
            if (e.h.counts != NULL)
                abort();
            break;
        }
        unsigned long line = hlog_reader_line(r);
        if (line <= last_line)
            abort();
        last_line = line;
        if (rc < 0) {
            if (rc != -EINVAL && rc != -ENOMEM)
                abort();
            if (e.h.counts != NULL || e.tag[0] != '\0')
                abort();
            continue;
        }
        if (rc != 1)
            abort();
        if (memchr(e.tag, '\0', sizeof e.tag) == NULL)
            abort();
        if (!isfinite(e.start_raw_s) || !isfinite(e.length_s) || !isfinite(e.max) ||
            e.start_raw_s < 0 || e.length_s < 0 || e.max < 0)
            abort();
        double want = e.start_raw_s + hlog_reader_base_time(r);
        if (!(e.start_s == want) && !(isinf(want) && isinf(e.start_s)))
            abort();
        if (!e.h.counts || e.h.counts_len > HDRC_MAX_COUNTS_LEN)
            abort();
        write_back(&e);
        hdr_free(&e.h);
    }
    /* The header the reader saw, written back and read again. */
    if (hlog_reader_has_start_time(r)) {
        double st = hlog_reader_start_time(r);
        double bt = hlog_reader_has_base_time(r) ? hlog_reader_base_time(r) : -1;
        char *buf = NULL;
        size_t len = 0;
        FILE *w = open_memstream(&buf, &len);
        if (!w)
            abort();
        if (hlog_write_header(w, st, bt, "fuzz") != 0 || fclose(w) != 0)
            abort();
        FILE *g = fmemopen(buf, len, "r");
        hlog_reader *r2 = NULL;
        hlog_entry e;
        if (!g || hlog_reader_open(&r2, g) != 0 || hlog_reader_next(r2, &e) != 0)
            abort();
        if (!hlog_reader_has_start_time(r2) || !same3(hlog_reader_start_time(r2), st) ||
            hlog_reader_has_base_time(r2) != hlog_reader_has_base_time(r) ||
            (bt >= 0 && !same3(hlog_reader_base_time(r2), bt)) ||
            strcmp(hlog_reader_version(r2), HLOG_FORMAT_VERSION) != 0)
            abort();
        hlog_reader_close(r2);
        fclose(g);
        free(buf);
    }
    hlog_reader_close(r);
    fclose(f);
    return 0;
}
