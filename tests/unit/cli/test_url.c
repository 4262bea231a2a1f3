/*
 * test_url.c - unit tests for src/cli/url.c.
 */
#include "cli/url.h"
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One parsed URL, released by the next parse or by url_done() at exit, so
 * a CHECK that returns early does not leak. */
static pc_url cur;
static char cur_err[256];

static int parse(const char *s)
{
    url_free(&cur);
    memset(cur_err, 0, sizeof cur_err);
    return url_parse(s, &cur, cur_err, sizeof cur_err);
}

static void url_done(void)
{
    url_free(&cur);
}

/* Check one accepted URL field by field. */
#define CHECK_URL(s, tls_, host_, port_, hostport_, path_, v6_)                \
    do {                                                                       \
        CHECK_EQ_I64(parse(s), 0);                                             \
        CHECK_EQ_I64(cur.tls, (tls_));                                         \
        CHECK_EQ_STR(cur.host, (host_));                                       \
        CHECK_EQ_STR(cur.port, (port_));                                       \
        CHECK_EQ_STR(cur.hostport, (hostport_));                               \
        CHECK(cur.path != NULL);                                               \
        CHECK_EQ_STR(cur.path, (path_));                                       \
        CHECK_EQ_I64(cur.ipv6_literal, (v6_));                                 \
    } while (0)

/* Check one refused URL: -EINVAL, a message, and nothing left allocated. */
#define CHECK_BAD(s)                                                           \
    do {                                                                       \
        int rc_ = parse(s);                                                    \
        if (rc_ != -EINVAL) {                                                  \
            snprintf(unit_msg, sizeof unit_msg,                                \
                     "%s:%d: url_parse(\"%.200s\") == %d, want -EINVAL", __FILE__, \
                     __LINE__, (s), rc_);                                      \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
        if (cur_err[0] == '\0') {                                              \
            snprintf(unit_msg, sizeof unit_msg,                                \
                     "%s:%d: url_parse(\"%.200s\") left no message", __FILE__,     \
                     __LINE__, (s));                                           \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
        CHECK(cur.path == NULL);                                               \
    } while (0)

/* ---- accepted ---------------------------------------------------------- */

static void test_http_default_port(void)
{
    CHECK_URL("http://example.com/", false, "example.com", "80", "example.com", "/", false);
    CHECK_URL("http://example.com", false, "example.com", "80", "example.com", "/", false);
}

static void test_https_default_port(void)
{
    CHECK_URL("https://example.com/", true, "example.com", "443", "example.com", "/", false);
    CHECK_URL("https://example.com", true, "example.com", "443", "example.com", "/", false);
}

static void test_explicit_ports(void)
{
    CHECK_URL("http://127.0.0.1:8080/", false, "127.0.0.1", "8080", "127.0.0.1:8080", "/", false);
    CHECK_URL("https://h:8443/x", true, "h", "8443", "h:8443", "/x", false);
    CHECK_URL("http://h:1/", false, "h", "1", "h:1", "/", false);
    CHECK_URL("http://h:65535/", false, "h", "65535", "h:65535", "/", false);
    /* The other scheme's default port is not a default here. */
    CHECK_URL("http://h:443/", false, "h", "443", "h:443", "/", false);
    CHECK_URL("https://h:80/", true, "h", "80", "h:80", "/", false);
}

static void test_explicit_default_port_omitted_from_hostport(void)
{
    CHECK_URL("http://h:80/", false, "h", "80", "h", "/", false);
    CHECK_URL("https://h:443/", true, "h", "443", "h", "/", false);
    /* Leading zeros are the same port. */
    CHECK_URL("http://h:08080/", false, "h", "8080", "h:8080", "/", false);
}

static void test_ipv6_literal(void)
{
    CHECK_URL("http://[::1]:8080/x", false, "::1", "8080", "[::1]:8080", "/x", true);
    CHECK_URL("http://[::1]/", false, "::1", "80", "[::1]", "/", true);
    CHECK_URL("https://[2001:db8::1]", true, "2001:db8::1", "443", "[2001:db8::1]", "/", true);
    CHECK_URL("http://[fe80::1%25eth0]:81/", false, "fe80::1%25eth0", "81", "[fe80::1%25eth0]:81",
              "/", true);
}

static void test_path_and_query_verbatim(void)
{
    CHECK_URL("http://h/a/b?x=1&y=%20", false, "h", "80", "h", "/a/b?x=1&y=%20", false);
    CHECK_URL("http://h:81/a//b/../c/?", false, "h", "81", "h:81", "/a//b/../c/?", false);
    CHECK_URL("http://h/%7Euser/%zz", false, "h", "80", "h", "/%7Euser/%zz", false);
    CHECK_URL("http://h/caf\xc3\xa9", false, "h", "80", "h", "/caf\xc3\xa9", false);
}

static void test_query_only_gets_slash(void)
{
    CHECK_URL("http://h?x=1", false, "h", "80", "h", "/?x=1", false);
    CHECK_URL("http://h:8080?x=1&y=2", false, "h", "8080", "h:8080", "/?x=1&y=2", false);
    CHECK_URL("http://[::1]?q", false, "::1", "80", "[::1]", "/?q", true);
}

static void test_fragment_dropped(void)
{
    CHECK_URL("http://h/a#frag", false, "h", "80", "h", "/a", false);
    CHECK_URL("http://h/a?x=1#frag?y", false, "h", "80", "h", "/a?x=1", false);
    CHECK_URL("http://h#frag", false, "h", "80", "h", "/", false);
    CHECK_URL("http://h:81#frag/x", false, "h", "81", "h:81", "/", false);
    CHECK_URL("http://h?x#", false, "h", "80", "h", "/?x", false);
}

static void test_uppercase_scheme(void)
{
    CHECK_URL("HTTP://H/", false, "H", "80", "H", "/", false);
    CHECK_URL("HTTPS://h/", true, "h", "443", "h", "/", false);
    CHECK_URL("Http://h:81/", false, "h", "81", "h:81", "/", false);
}

static void test_host_characters(void)
{
    CHECK_URL("http://my-host_1.example.COM/", false, "my-host_1.example.COM", "80",
              "my-host_1.example.COM", "/", false);
}

static void test_long_host(void)
{
    char s[600], host[300];

    memset(host, 'a', 255);
    host[255] = '\0';
    snprintf(s, sizeof s, "http://%s:65535/", host);
    CHECK_EQ_I64(parse(s), 0);
    CHECK_EQ_STR(cur.host, host);
    CHECK_EQ_I64(strlen(cur.hostport), 255 + 6);

    memset(host, 'a', 256);
    host[256] = '\0';
    snprintf(s, sizeof s, "http://%s/", host);
    CHECK_BAD(s);
}

static void test_reparse_resets_fields(void)
{
    CHECK_URL("https://[::1]:9/x", true, "::1", "9", "[::1]:9", "/x", true);
    CHECK_URL("http://h/", false, "h", "80", "h", "/", false);
}

/* ---- refused ----------------------------------------------------------- */

static void test_reject_scheme(void)
{
    CHECK_BAD("ftp://x");
    CHECK_BAD("ftp://x/");
    CHECK_BAD("x");
    CHECK_BAD("");
    CHECK_BAD("http:/h/");
    CHECK_BAD("http:h/");
    CHECK_BAD("httpx://h/");
    CHECK_BAD("//h/");
    CHECK_BAD(" http://h/");
}

static void test_reject_no_host(void)
{
    CHECK_BAD("http://");
    CHECK_BAD("https://");
    CHECK_BAD("http:///x");
    CHECK_BAD("http://:80/");
    CHECK_BAD("http://?x");
    CHECK_BAD("http://#f");
}

static void test_reject_port(void)
{
    CHECK_BAD("http://h:0/");
    CHECK_BAD("http://h:00000/");
    CHECK_BAD("http://h:65536/");
    CHECK_BAD("http://h:99999/");
    CHECK_BAD("http://h:100000/");
    CHECK_BAD("http://h:8x/");
    CHECK_BAD("http://h:/");
    CHECK_BAD("http://h:");
    CHECK_BAD("http://h:-1/");
    CHECK_BAD("http://h:+80/");
    CHECK_BAD("http://h:80:80/");
    CHECK_BAD("http://h: 80/");
}

static void test_reject_ipv6(void)
{
    CHECK_BAD("http://[::1/");
    CHECK_BAD("http://[::1");
    CHECK_BAD("http://[]/");
    CHECK_BAD("http://[::1]x/");
    CHECK_BAD("http://[::1]:/");
    CHECK_BAD("http://[::1]:0/");
    CHECK_BAD("http://[::1]:65536/");
    CHECK_BAD("http://[::1]8080/");
    CHECK_BAD("http://[::g/1]/");
    CHECK_BAD("http://[::1 ]/");
    CHECK_BAD("http://::1/");
}

static void test_reject_credentials(void)
{
    CHECK_BAD("http://u:p@h/");
    CHECK_BAD("http://u@h/");
    CHECK_BAD("https://@h/");
}

static void test_reject_bad_path(void)
{
    CHECK_BAD("http://h/a b");
    CHECK_BAD("http://h/a\tb");
    CHECK_BAD("http://h/a\r\nX-Injected: 1");
    CHECK_BAD("http://h/a\x7f");
    CHECK_BAD("http://h?a b");
}

static void test_reject_host_chars(void)
{
    CHECK_BAD("http://h!x/");
    CHECK_BAD("http://h x/");
    CHECK_BAD("http://h%41/");
    CHECK_BAD("http://h\\x/");
    CHECK_BAD("http://h*/");
    CHECK_BAD("http://h\r\n/");
    CHECK_BAD("http://h\x7f/");
    CHECK_BAD("http://caf\xc3\xa9.com/");
}

static void test_error_message_names_url(void)
{
    CHECK_EQ_I64(parse("ftp://x"), -EINVAL);
    CHECK(strstr(cur_err, "ftp://x") != NULL);
    CHECK_EQ_I64(parse("http://h:65536/"), -EINVAL);
    CHECK(strstr(cur_err, "http://h:65536/") != NULL);
}

/* url.h promises a one-line reason; a URL with CR/LF in it must not break
 * the message across lines (the CLI prints it as one "pacer: ..." line). */
static void test_error_message_is_one_line(void)
{
    static const char *const bad[] = {
        "ftp://x", "http://h:0/", "http://h/a b", "http://[::1/",
        "http://h/a\r\nX-Injected: 1", "http://h\n/", "ftp://a\nb",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_I64(parse(bad[i]), -EINVAL);
        if (strchr(cur_err, '\n') || strchr(cur_err, '\r')) {
            char shown[128];
            size_t n = 0;
            for (const char *p = cur_err; *p && n + 3 < sizeof shown; p++) {
                if (*p == '\n' || *p == '\r') {
                    shown[n++] = '\\';
                    shown[n++] = *p == '\n' ? 'n' : 'r';
                } else {
                    shown[n++] = *p;
                }
            }
            shown[n] = '\0';
            snprintf(unit_msg, sizeof unit_msg,
                     "%s:%d: message for bad[%zu] has a line break: \"%s\"", __FILE__, __LINE__,
                     i, shown);
            unit_failed_now = 1;
            return;
        }
    }
}

static void test_error_message_truncated_to_errlen(void)
{
    pc_url u;
    char small[8];

    memset(small, 'X', sizeof small);
    CHECK_EQ_I64(url_parse("ftp://x", &u, small, sizeof small), -EINVAL);
    CHECK_EQ_I64(strlen(small), sizeof small - 1);
    url_free(&u);
}

static void test_url_free_twice_is_safe(void)
{
    pc_url u;
    char err[128];

    CHECK_EQ_I64(url_parse("http://h/x", &u, err, sizeof err), 0);
    url_free(&u);
    CHECK(u.path == NULL);
    url_free(&u);
    CHECK(u.path == NULL);
}

int main(void)
{
    RUN(test_http_default_port);
    RUN(test_https_default_port);
    RUN(test_explicit_ports);
    RUN(test_explicit_default_port_omitted_from_hostport);
    RUN(test_ipv6_literal);
    RUN(test_path_and_query_verbatim);
    RUN(test_query_only_gets_slash);
    RUN(test_fragment_dropped);
    RUN(test_uppercase_scheme);
    RUN(test_host_characters);
    RUN(test_long_host);
    RUN(test_reparse_resets_fields);
    RUN(test_reject_scheme);
    RUN(test_reject_no_host);
    RUN(test_reject_port);
    RUN(test_reject_ipv6);
    RUN(test_reject_credentials);
    RUN(test_reject_bad_path);
    RUN(test_reject_host_chars);
    RUN(test_error_message_names_url);
    RUN(test_error_message_is_one_line);
    RUN(test_error_message_truncated_to_errlen);
    RUN(test_url_free_twice_is_safe);
    url_done();
    return unit_done();
}
