/*
 * test_om_listen.c - what --metrics-listen's listener makes of a client's
 * bytes (oml_request, src/report/om_listen.c): each answer from exact
 * inputs, a head split anywhere, and the size cap; and ADDR:PORT's syntax.
 */
#include <errno.h>
#include <string.h>

#include "report/om_listen.h"
#include "unit.h"

static oml_ask ask(const char *s)
{
    return oml_request(s, strlen(s));
}

static void test_answers(void)
{
    CHECK_EQ_I64(ask("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), OML_PAGE);
    CHECK_EQ_I64(ask("GET /metrics HTTP/1.0\n\n"), OML_PAGE);
    CHECK_EQ_I64(ask("GET /metrics?x=1 HTTP/1.1\r\n\r\n"), OML_PAGE);
    CHECK_EQ_I64(ask("GET /metricsx HTTP/1.1\r\n\r\n"), OML_PATH);
    CHECK_EQ_I64(ask("GET /metric HTTP/1.1\r\n\r\n"), OML_PATH);
    CHECK_EQ_I64(ask("GET / HTTP/1.1\r\n\r\n"), OML_PATH);
    CHECK_EQ_I64(ask("POST /metrics HTTP/1.1\r\n\r\n"), OML_METHOD);
    CHECK_EQ_I64(ask("HEAD /metrics HTTP/1.1\r\n\r\n"), OML_METHOD);
    CHECK_EQ_I64(ask("get /metrics HTTP/1.1\r\n\r\n"), OML_METHOD);
    CHECK_EQ_I64(ask("GET /metrics HTTP/2.0\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(ask("GET /metrics HTTP/1.x\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(ask("GET /metrics HTTP/1.1 x\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(ask("GET  HTTP/1.1\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(ask(" /metrics HTTP/1.1\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(ask("GET\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(ask("\r\n\r\n"), OML_BAD);
    CHECK_EQ_I64(oml_request("\0\xff\r\n\r\n", 6), OML_BAD);
}

/* Every prefix of a head without its blank line wants more; the whole
 * one is answered. */
static void test_split(void)
{
    const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n";
    size_t n = strlen(req);

    for (size_t i = 0; i < n; i++)
        CHECK_EQ_I64(oml_request(req, i), OML_MORE);
    CHECK_EQ_I64(oml_request(req, n), OML_PAGE);
}

static void test_cap(void)
{
    static char big[OML_REQ_MAX];

    memset(big, 'a', sizeof big);
    CHECK_EQ_I64(oml_request(big, sizeof big - 1), OML_MORE);
    CHECK_EQ_I64(oml_request(big, sizeof big), OML_TOO_LARGE);
    memcpy(big, "GET /metrics HTTP/1.1\r\n", 23);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = '\n';
    CHECK_EQ_I64(oml_request(big, sizeof big), OML_PAGE);
}

static void test_addr_syntax(void)
{
    static const char *const good[] = {"127.0.0.1:9464", "[::1]:9464", "localhost:1",
                                       "0.0.0.0:65535"};
    static const char *const bad[] = {"127.0.0.1", "127.0.0.1:", ":9464", "127.0.0.1:0",
                                      "127.0.0.1:65536", "127.0.0.1:9x", "::1:9464",
                                      "[::1]9464", "[::1]:", "x:-1", ""};
    struct sockaddr_storage ss;
    socklen_t len;
    char err[256];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(oml_parse_addr(good[i], false, &ss, &len, err, sizeof err) == 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(oml_parse_addr(bad[i], false, &ss, &len, err, sizeof err) == -EINVAL);
        CHECK(strstr(err, "--metrics-listen wants ADDR:PORT") != NULL);
    }
}

int main(void)
{
    RUN(test_answers);
    RUN(test_split);
    RUN(test_cap);
    RUN(test_addr_syntax);
    return unit_done();
}
