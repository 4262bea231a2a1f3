/*
 * fuzz_srvm.c - libFuzzer harness for what the server-cost sampler reads
 * from an exporter (src/srvm/): the HTTP response around the page
 * (srvm_http_body: status line, headers, Content-Length, chunked framing)
 * and the page read into figures (srvm_page_read, over pm_parse).
 *
 *   make -f tests/fuzz/fuzz.mk fuzz FUZZ_ONLY=srvm
 *   build-fuzz/fuzz_srvm -max_total_time=60 tests/fuzz/corpus/srvm
 *
 * The first input byte's bit 0 says whether the exchange was read to the
 * close, bit 1 whether only group "a" is read; the rest is what the
 * exporter sent. The harness aborts when:
 *   - an accepted body is longer than what was read, or a refused one has
 *     no reason;
 *   - a page refused has a figure kind set, or no reason; one accepted
 *     has neither kind, or a reason.
 */
#include "srvm/srvm_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf, why[PC_SRV_WHY] = "", groups[64];
    srvm_reading r;
    long n;

    if (size < 1)
        return 0;
    buf = malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    n = srvm_http_body(buf, size - 1, data[0] & 1, why, sizeof why);
    if (n < 0 && !why[0])
        abort();
    if (n > (long)(size - 1))
        abort();
    if (n >= 0) {
        int rc = srvm_page_read(buf, (size_t)n, data[0] & 2 ? "a" : NULL, &r, groups, sizeof groups);

        if (rc < 0 && (r.proc || r.host || !r.why[0]))
            abort();
        if (rc == 0 && ((!r.proc && !r.host) || r.why[0]))
            abort();
    }
    free(buf);
    return 0;
}
