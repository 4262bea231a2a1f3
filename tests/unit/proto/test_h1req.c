/*
 * test_h1req.c - a script's HTTP/1.1 request text taken apart, and turned
 * into the header fields HTTP/2 and HTTP/3 send (h1req_fields).
 */
#include "proto/h1req.h"

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

int main(void)
{
    RUN(test_fields_pseudo_and_lowercase);
    RUN(test_fields_default_authority);
    RUN(test_fields_names_bounded);
    return unit_done();
}
