/*
 * fuzz_omreq.c - libFuzzer harness for what --metrics-listen's listener
 * makes of a client's bytes (oml_request, report/om_listen.c): the only
 * network input pacer reads as a server during a run.
 *
 *   make -f tests/fuzz/fuzz.mk fuzz FUZZ_ONLY=omreq
 *   build-fuzz/fuzz_omreq -max_total_time=60 tests/fuzz/corpus/omreq
 *
 * The input (at most OML_REQ_MAX bytes of it, as the listener holds) is
 * copied into a heap buffer of exactly its size (ASan sees any read past
 * it). The harness aborts when:
 *   - the answer is not one of oml_ask's;
 *   - a prefix of the input is answered (not OML_MORE) while the input
 *     itself is OML_MORE: the listener reads in pieces, and an answer must
 *     not depend on where they were cut;
 *   - OML_MORE or OML_TOO_LARGE disagree with the length (OML_TOO_LARGE
 *     only at OML_REQ_MAX bytes, OML_MORE only below);
 *   - OML_PAGE is given to a request line that does not start "GET /metrics".
 */
#include "report/om_listen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size < OML_REQ_MAX ? size : OML_REQ_MAX;
    char *in = malloc(n ? n : 1);
    oml_ask a, half;

    if (!in)
        return 0;
    memcpy(in, data, n);
    a = oml_request(in, n);
    if (a > OML_PAGE)
        abort();
    if ((a == OML_TOO_LARGE && n != OML_REQ_MAX) || (a == OML_MORE && n >= OML_REQ_MAX))
        abort();
    half = oml_request(in, n / 2);
    if (a == OML_MORE && half != OML_MORE)
        abort();
    if (half != OML_MORE && half != OML_TOO_LARGE && a != half)
        abort();
    if (a == OML_PAGE && (n < 13 || memcmp(in, "GET /metrics", 12) != 0))
        abort();
    free(in);
    return 0;
}
