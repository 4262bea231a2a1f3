/*
 * test_h1req.c - a script's HTTP/1.1 request text taken apart, and turned
 * into the header fields HTTP/2 and HTTP/3 send (h1req_fields).
 */
#include "proto/h1req.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

static bool field_is(const h1req_field *f, const char *name, const char *value)
{
    return f->nlen == strlen(name) && memcmp(f->name, name, f->nlen) == 0 &&
           f->vlen == strlen(value) && memcmp(f->value, value, f->vlen) == 0;
}

static void test_fields_pseudo_and_lowercase(void)
{
    const char *t = "POST /a?b=1 HTTP/1.1\r\nHost: example.test:8443\r\nX-Token: Abc\r\n"
                    "Connection: keep-alive\r\nContent-Length: 2\r\nUpgrade: h2c\r\n\r\nhi";
    h1req_parsed r;
    h1req_field f[H1REQ_MAX_FIELDS];
    char names[256];
    size_t n;

    CHECK(h1req_parse(t, strlen(t), &r) == (long)strlen(t));
    n = h1req_fields(&r, "https", "127.0.0.1:1", f, names, sizeof names);
    CHECK_EQ_U64(n, 6);
    CHECK(field_is(&f[0], ":method", "POST"));
    CHECK(field_is(&f[1], ":scheme", "https"));
    CHECK(field_is(&f[2], ":authority", "example.test:8443")); /* the Host header wins */
    CHECK(field_is(&f[3], ":path", "/a?b=1"));
    CHECK(field_is(&f[4], "x-token", "Abc"));                  /* name lower-cased, value kept */
    CHECK(field_is(&f[5], "content-length", "2"));             /* Host, Connection, Upgrade dropped */
    CHECK_EQ_U64(r.body_len, 2);
}

static void test_fields_default_authority(void)
{
    const char *t = "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n";
    h1req_parsed r;
    h1req_field f[H1REQ_MAX_FIELDS];
    char names[256];

    CHECK(h1req_parse(t, strlen(t), &r) > 0);
    CHECK_EQ_U64(h1req_fields(&r, "http", "h:80", f, names, sizeof names), 5);
    CHECK(field_is(&f[1], ":scheme", "http"));
    CHECK(field_is(&f[2], ":authority", "h:80"));
    CHECK(field_is(&f[4], "accept", "*/*"));
}

static void test_fields_names_bounded(void)
{
    const char *t = "GET / HTTP/1.1\r\nAaaa: 1\r\nBbbb: 2\r\nCccc: 3\r\n\r\n";
    h1req_parsed r;
    h1req_field f[H1REQ_MAX_FIELDS];
    char names[9]; /* room for two names of four */

    CHECK(h1req_parse(t, strlen(t), &r) > 0);
    CHECK_EQ_U64(h1req_fields(&r, "https", "h", f, names, sizeof names), 6);
    CHECK(field_is(&f[5], "bbbb", "2"));
}

/* check(TEXT, WANT): h1req_check's verdict on TEXT; WANT NULL is valid,
 * else a phrase its reason must hold. */
static void check(const char *t, size_t n, const char *want)
{
    char why[112] = "";
    int rc = h1req_check(t, n, why, sizeof why);

    if (!want) {
        CHECK(rc == 0);
        if (rc != 0)
            fprintf(stderr, "  valid text refused: %s\n", why);
    } else {
        CHECK(rc == -EINVAL && strstr(why, want));
        if (rc != -EINVAL || !strstr(why, want))
            fprintf(stderr, "  want \"%s\", got rc %d \"%s\"\n", want, rc, why);
    }
}
#define CHK(t, want) check(t, sizeof(t) - 1, want)

static void test_check_valid(void)
{
    CHK("GET / HTTP/1.1\r\nHost: h\r\n\r\n", NULL);
    CHK("GET /a?b=%20 HTTP/1.0\r\n\r\n", NULL);
    CHK("POST / HTTP/1.1\r\nContent-Length: 2\r\nX-T:\tv v\t\r\n\r\nhi", NULL);
    CHK("GET / HTTP/1.1\r\nX-Utf8: caf\xc3\xa9\r\nX-Empty:\r\n\r\n", NULL); /* obs-text */
    /* Two pipelined requests, the second with a body. */
    CHK("GET / HTTP/1.1\r\n\r\nPUT /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", NULL);
    CHK("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", NULL);
}

static void test_check_faults(void)
{
    CHK("GET / HTTP/1.1\r\nX-Bad: a\rb\r\n\r\n", "a bare CR in header X-Bad's value");
    CHK("GET / HTTP/1.1\r\nX Bad: ab\r\n\r\n", "header name \"X Bad\" has a blank in it");
    CHK("GET / HTTP/1.1\r\nX-Bad : ab\r\n\r\n", "has a blank in it");
    CHK("GET / HTTP/1.1\r\nX-Bad: a\nb\r\n\r\n", "a bare LF in header X-Bad's value");
    CHK("GET / HTTP/1.1\r\nX-Bad: a\x01" "b\r\n\r\n", "a control byte in header X-Bad's value");
    CHK("GET / HTTP/1.1\r\nX-Bad: a\0b\r\n\r\n", "a NUL in header X-Bad's value");
    CHK("GET / HTTP/1.1\r\nX@Y: 1\r\n\r\n", "byte not allowed in a name");
    CHK("GET / HTTP/1.1\r\n: 1\r\n\r\n", "without a name");
    CHK("GET / HTTP/1.1\r\nNoColon\r\n\r\n", "without a colon");
    CHK("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", "obs-fold");
    CHK("GET /a b HTTP/1.1\r\n\r\n", "does not end in one blank and HTTP/1.1");
    CHK("GET  / HTTP/1.1\r\n\r\n", "the request target is empty");
    CHK("G(T / HTTP/1.1\r\n\r\n", "the method is not a token");
    CHK("GET / HTTP/1.1\r\n", "no blank line ends the head");
    CHK("not a request", "no blank line ends the head");
    CHK("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", "Content-Length 5 is more than the 2 bytes");
    CHK("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\nab", "not one number");
    CHK("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "not one number");
    CHK("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\na",
        "both Content-Length and Transfer-Encoding");
    /* A body without Content-Length reads as a second request. */
    CHK("POST / HTTP/1.1\r\n\r\nbody", "request 2 of the text: no blank line");
    CHK("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nX Y: 1\r\n\r\n", "request 2 of the text: header name");
}

static void test_check_no_end_alone(void)
{
    char why[112];

    CHECK(h1req_check("not a request", 13, why, sizeof why) == -EINVAL);
    CHECK(strcmp(why, "no blank line ends the head") == 0);
    CHECK(h1req_check("GET / HTTP/1.1\r\nA: 1\r\n", 22, why, sizeof why) == -EINVAL);
    CHECK(strcmp(why, "no blank line ends the head") == 0);
}

static void test_parse_trims_trailing_ows(void)
{
    const char *t = "GET / HTTP/1.1\r\nX-A: v \t\r\n\r\n";
    h1req_parsed r;

    CHECK(h1req_parse(t, strlen(t), &r) > 0);
    CHECK_EQ_U64(r.h[0].vlen, 1);
}

int main(void)
{
    RUN(test_fields_pseudo_and_lowercase);
    RUN(test_fields_default_authority);
    RUN(test_fields_names_bounded);
    RUN(test_check_valid);
    RUN(test_check_faults);
    RUN(test_check_no_end_alone);
    RUN(test_parse_trims_trailing_ows);
    return unit_done();
}
