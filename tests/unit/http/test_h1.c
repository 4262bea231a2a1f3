/*
 * test_h1.c - HTTP/1.1 driven alone (http/h1.c with a fake engine): the
 * bytes it writes for what it is handed, and the outcomes it reports for
 * the bytes it is fed, pipelined, split anywhere, closed early.
 */
#include "http/h1.c"

#include "fake_engine.h"
#include "unit.h"

static const char get_a[] = "GET /a HTTP/1.1\r\nHost: example.test\r\n\r\n";
static const char get_b[] = "GET /b HTTP/1.1\r\nHost: example.test\r\n\r\n";
static const char ok5[] = "HTTP/1.1 200 OK\r\nServer: t\r\nContent-Length: 5\r\n\r\nhello";

static fake_engine E;

static void start(void)
{
    fe_init(&E, &proto_h1);
    proto_h1.start(&E.c, 1);
}

/* Feed in as a transport's reads would come, n bytes at a time, handing
 * back what the protocol left unconsumed in front of the next read (as the
 * engine's carry does). */
static void feed(const char *in, size_t n, uint64_t now)
{
    char buf[4096];
    size_t have = 0, off = 0, len = strlen(in);

    while (off < len && E.conn_fails == 0) {
        size_t take = len - off < n ? len - off : n, used;

        memcpy(buf + have, in + off, take);
        have += take;
        off += take;
        used = proto_h1.input(&E.c, buf, have, now);
        memmove(buf, buf + used, have - used);
        have -= used;
    }
}

static void test_request_bytes_and_response(void)
{
    start();
    slot *s = fe_submit(&E, &proto_h1, get_a, false);

    CHECK(s != NULL);
    CHECK_EQ_U64(E.out_len, 0); /* submit writes nothing */
    proto_h1.flush(&E.c, 10);
    CHECK_EQ_U64(E.out_len, strlen(get_a));
    CHECK(memcmp(E.out, get_a, E.out_len) == 0);
    CHECK_EQ_U64(s->sent, 10);
    CHECK_EQ_U64(s->written, 10);
    CHECK(!E.want_write);
    CHECK(E.spoke == &E.st.h1_conns && E.st.h1_conns == 1);
    feed(ok5, sizeof ok5, 20);
    CHECK(fe_logged(&E, "done 0 200 5"));
    CHECK_EQ_U64(s->first_byte, 20);
    CHECK_EQ_U64(E.st.body_bytes, 5);
    CHECK_EQ_U64(E.st.bytes_written, strlen(get_a));
    CHECK_EQ_STR(E.st.server, "t");
    CHECK_EQ_U64(E.c.count, 0);
    fe_free(&E, &proto_h1);
}

/* Two requests out in one write, answered in order, the responses split
 * at every size from 1 byte up. */
static void test_pipelined_any_split(void)
{
    char both[256];

    snprintf(both, sizeof both, "%s%s", ok5, "HTTP/1.1 204 No Content\r\n\r\n");
    for (size_t n = 1; n <= strlen(both); n++) {
        start();
        fe_submit(&E, &proto_h1, get_a, false);
        fe_submit(&E, &proto_h1, get_b, false);
        proto_h1.flush(&E.c, 1);
        CHECK_EQ_U64(E.writes, 1);
        CHECK_EQ_U64(E.out_len, strlen(get_a) + strlen(get_b));
        feed(both, n, 2);
        CHECK(strcmp(E.log, "done 0 200 5\ndone 1 204 0\n") == 0);
        fe_free(&E, &proto_h1);
    }
}

/* Each request is marked with the transport's byte count where the write
 * that carries its first byte begins (the kernel's send stamps are keyed
 * by it), and the engine hears of every write. */
static void test_sent_marks_the_write(void)
{
    start();
    E.c.nc.tx_ts = true;
    E.c.nc.tx_bytes = 1000;
    slot *a = fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 5);
    slot *b = fe_submit(&E, &proto_h1, get_b, false);
    slot *c = fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 6);
    CHECK_EQ_U64(a->tx_key, 1000);
    CHECK(a->tx_wait && a->sent == 5 && a->wire == 0);
    CHECK_EQ_U64(b->tx_key, 1000 + strlen(get_a)); /* b and c: one write */
    CHECK_EQ_U64(c->tx_key, 1000 + strlen(get_a));
    CHECK(b->tx_wait && c->tx_wait && c->sent == 6);
    CHECK(fe_logged(&E, "wrote 1039"));
    CHECK(fe_logged(&E, "wrote 1117"));
    fe_free(&E, &proto_h1);
    /* Without the kernel's stamps nothing waits for one. */
    start();
    a = fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 5);
    CHECK(!a->tx_wait && a->sent == 5);
    fe_free(&E, &proto_h1);
}

/* Connection: close on the first of two: the second goes back (refused),
 * the close is reported with its reason. */
static void test_close_refuses_the_rest(void)
{
    start();
    fe_submit(&E, &proto_h1, get_a, false);
    fe_submit(&E, &proto_h1, get_b, false);
    proto_h1.flush(&E.c, 1);
    feed("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 4096, 2);
    CHECK(fe_logged(&E, "close_after 0 1 0"));
    CHECK(fe_logged(&E, "done 0 200 0"));
    CHECK(fe_logged(&E, "refused 1: server closed the connection with requests unanswered"));
    CHECK(E.drained);
    fe_free(&E, &proto_h1);
}

static void test_eof_and_garbage(void)
{
    start();
    fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 1);
    proto_h1.eof(&E.c, 2);
    CHECK(fe_logged(&E, "conn_fail read: connection closed by the server before the response"));
    fe_free(&E, &proto_h1);

    start();
    fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 1);
    feed("SSH-2.0-OpenSSH\r\n", 4096, 2);
    CHECK(E.conn_fails == 1 && strncmp(E.log, "conn_fail protocol: ", 20) == 0);
    fe_free(&E, &proto_h1);

    /* Bytes nobody asked for. */
    start();
    feed(ok5, 4096, 2);
    CHECK(fe_logged(&E, "conn_fail protocol: server sent data with no request outstanding"));
    fe_free(&E, &proto_h1);

    /* A close with nothing in flight is an idle close, not a failure. */
    start();
    proto_h1.eof(&E.c, 2);
    CHECK(E.closed_idle && E.conn_fails == 0);
    fe_free(&E, &proto_h1);
}

/* HEAD: the Content-Length announces a body that does not come. */
static void test_head_has_no_body(void)
{
    start();
    fe_submit(&E, &proto_h1, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", true);
    proto_h1.flush(&E.c, 1);
    feed("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 4096, 2);
    CHECK(fe_logged(&E, "done 0 200 0"));
    fe_free(&E, &proto_h1);
}

/* A socket that takes nothing: the protocol asks for writability, and a
 * timeout says the request was not fully written. */
static void test_blocked_write_then_timeout(void)
{
    start();
    slot *s = fe_submit(&E, &proto_h1, get_a, false);

    E.write_rc = -EAGAIN;
    proto_h1.flush(&E.c, 1);
    CHECK(E.want_write);
    CHECK_EQ_U64(s->sent, 0);
    proto_h1.timeout(&E.c, s, 5);
    CHECK(fe_logged(&E, "conn_fail timeout: request not fully written within --timeout (the "
                        "server stopped reading)"));
    fe_free(&E, &proto_h1);

    start();
    E.write_rc = -EPIPE;
    fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 1);
    CHECK(fe_logged(&E, "conn_fail write: Broken pipe"));
    fe_free(&E, &proto_h1);
}

/* A script's response(): status, headers and body handed over. */
static void test_script_response(void)
{
    fe_init(&E, &proto_h1);
    E.env.want_response = true;
    proto_h1.start(&E.c, 1);
    fe_submit(&E, &proto_h1, get_a, false);
    proto_h1.flush(&E.c, 1);
    feed(ok5, 7, 2);
    /* "Server\0t\0Content-Length\0005\0": 26 bytes. */
    CHECK(fe_logged(&E, "response 200 26 5"));
    CHECK(fe_logged(&E, "done 0 200 5"));
    fe_free(&E, &proto_h1);
}

int main(void)
{
    RUN(test_request_bytes_and_response);
    RUN(test_pipelined_any_split);
    RUN(test_sent_marks_the_write);
    RUN(test_close_refuses_the_rest);
    RUN(test_eof_and_garbage);
    RUN(test_head_has_no_body);
    RUN(test_blocked_write_then_timeout);
    RUN(test_script_response);
    return unit_done();
}
