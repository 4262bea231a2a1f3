/*
 * test_h2.c - HTTP/2 driven alone (http/h2.c with a fake engine), against
 * an nghttp2 server session in memory: what the client writes is fed to
 * the server, what the server answers is fed back, until both are quiet.
 * Outcomes (done, refused, failed, GOAWAY) are read from the fake engine's
 * log, what the server received from its callbacks.
 */
#include "http/h2.c"

#include "fake_engine.h"
#include "unit.h"

static fake_engine E;

/* The server side: what it saw, and what it does with each request. */
enum { ANSWER, REFUSE, GOAWAY0, GOAWAY1, SILENT };
static struct server {
    nghttp2_session *s;
    int mode;
    int32_t last_id;
    char path[64], scheme[16], method[16], extra[64];
    size_t data;          /* request body bytes received */
    uint32_t rst_code;    /* the last RST_STREAM received */
    int rst;
    const char *body;     /* the response body */
    size_t body_len;
} S;

static ssize_t srv_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *ud)
{
    size_t n = S.body_len < len ? S.body_len : len;

    (void)s, (void)id, (void)src, (void)ud;
    memcpy(buf, S.body, n);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int srv_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *n, size_t nl,
                      const uint8_t *v, size_t vl, uint8_t flags, void *ud)
{
    (void)s, (void)f, (void)flags, (void)ud;
#define KEEP(name, dst)                                                                      \
    if (nl == strlen(name) && memcmp(n, name, nl) == 0)                                      \
        snprintf(dst, sizeof dst, "%.*s", (int)vl, (const char *)v);
    KEEP(":path", S.path)
    KEEP(":scheme", S.scheme)
    KEEP(":method", S.method)
    KEEP("x-extra", S.extra)
    return 0;
}

static int srv_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *d, size_t len,
                    void *ud)
{
    (void)s, (void)flags, (void)id, (void)d, (void)ud;
    S.data += len;
    return 0;
}

static int srv_frame(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)ud;
    if (f->hd.type == NGHTTP2_RST_STREAM) {
        S.rst++;
        S.rst_code = f->rst_stream.error_code;
    }
    if (!(f->hd.flags & NGHTTP2_FLAG_END_STREAM) ||
        (f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA))
        return 0;
    S.last_id = f->hd.stream_id;
    if (S.mode == ANSWER) {
        nghttp2_nv nv[] = {{(uint8_t *)":status", (uint8_t *)"200", 7, 3, 0},
                           {(uint8_t *)"server", (uint8_t *)"mem", 6, 3, 0}};
        nghttp2_data_provider dp = {.read_callback = srv_read};

        nghttp2_submit_response(s, f->hd.stream_id, nv, 2, S.body ? &dp : NULL);
    } else if (S.mode == REFUSE) {
        nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, f->hd.stream_id, NGHTTP2_REFUSED_STREAM);
    } else if (S.mode == GOAWAY0) {
        nghttp2_submit_goaway(s, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, NULL, 0);
    } else if (S.mode == GOAWAY1 && f->hd.stream_id == 1) {
        /* As h2fault's goaway mode: the GOAWAY submitted before the response
         * it covers, so nghttp2 sends it first. */
        nghttp2_nv nv[] = {{(uint8_t *)":status", (uint8_t *)"200", 7, 3, 0}};

        nghttp2_submit_goaway(s, NGHTTP2_FLAG_NONE, 1, NGHTTP2_NO_ERROR, NULL, 0);
        nghttp2_submit_response(s, 1, nv, 1, NULL);
    }
    return 0;
}

static void server_new(int mode)
{
    nghttp2_session_callbacks *cb;

    nghttp2_session_del(S.s);
    memset(&S, 0, sizeof S);
    S.mode = mode;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, srv_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, srv_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, srv_frame);
    nghttp2_session_server_new(&S.s, cb, NULL);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(S.s, NGHTTP2_FLAG_NONE, NULL, 0);
}

/* Client writes to the server, server's answer to the client, until
 * neither has anything to say (bounded). */
static void pump(uint64_t now)
{
    for (int round = 0; round < 20; round++) {
        const uint8_t *d;
        ssize_t n;
        bool moved = false;

        proto_h2.flush(&E.c, now);
        if (E.out_len) {
            nghttp2_session_mem_recv(S.s, E.out, E.out_len);
            E.out_len = 0;
            moved = true;
        }
        while ((n = nghttp2_session_mem_send(S.s, &d)) > 0) {
            if (E.conn_fails)
                return;
            proto_h2.input(&E.c, (const char *)d, (size_t)n, now);
            moved = true;
        }
        if (!moved)
            return;
    }
}

static void start(int mode)
{
    server_new(mode);
    fe_init(&E, &proto_h2);
    CHECK_EQ_I64(proto_h2.start(&E.c, 1), 0);
}

static void test_get_answered(void)
{
    start(ANSWER);
    CHECK(E.spoke == &E.st.h2_conns && E.st.h2_conns == 1);
    S.body = "hi";
    S.body_len = 2;
    slot *s = fe_submit(&E, &proto_h2, "GET /a?b HTTP/1.1\r\nHost: example.test\r\n\r\n", false);
    CHECK(s != NULL);
    pump(5);
    CHECK_EQ_STR(S.path, "/a?b");
    CHECK_EQ_STR(S.method, "GET");
    CHECK_EQ_STR(S.scheme, "http"); /* an http origin */
    CHECK(fe_logged(&E, "done 0 200 2"));
    CHECK_EQ_U64(s->sent, 5);
    CHECK(s->first_byte == 5);
    CHECK_EQ_STR(E.st.server, "mem");
    CHECK(E.st.header_wire > 0 && E.st.header_decoded >= 7 + 3 + 6 + 3);
    CHECK_EQ_U64(E.st.body_bytes, 2);
    CHECK(E.st.bytes_written > 24); /* the preface at least */
    CHECK_EQ_U64(E.c.count, 0);
    fe_free(&E, &proto_h2);
}

/* A stream is marked with the transport's byte count where the write of
 * the buffer its HEADERS was framed into begins (the preface and SETTINGS
 * went out before it), and the engine hears of the write. */
static void test_sent_marks_the_write(void)
{
    start(ANSWER);
    E.c.nc.tx_ts = true;
    pump(2); /* the preface, SETTINGS and their ACKs */
    uint64_t before = E.c.nc.tx_bytes;
    slot *a = fe_submit(&E, &proto_h2, "GET /a HTTP/1.1\r\nHost: example.test\r\n\r\n", false);
    slot *b = fe_submit(&E, &proto_h2, "GET /b HTTP/1.1\r\nHost: example.test\r\n\r\n", false);
    proto_h2.flush(&E.c, 7);
    CHECK(before > 24);
    CHECK_EQ_U64(a->tx_key, before);
    CHECK_EQ_U64(b->tx_key, before);
    CHECK(a->tx_wait && b->tx_wait && a->sent == 7);
    CHECK(E.c.nc.tx_bytes > before);
    char line[32];
    snprintf(line, sizeof line, "wrote %llu", (unsigned long long)E.c.nc.tx_bytes);
    CHECK(fe_logged(&E, line));
    pump(8);
    CHECK(fe_logged(&E, "done 0 200 0") && fe_logged(&E, "done 1 200 0"));
    fe_free(&E, &proto_h2);
}

/* A template's prebuilt fields (not copied by nghttp2) and its body. */
static void test_template_fields_and_body(void)
{
    static const pc_field f[] = {{":method", "POST", 7, 4}, {":scheme", "https", 7, 5},
                                 {":authority", "x", 10, 1}, {":path", "/up", 5, 3},
                                 {"x-extra", "yes", 7, 3}};
    slot *s = &E.slots[0];

    start(ANSWER);
    s->used = true;
    E.c.count++;
    E.req[0] = (pc_request){.fields = f, .nfields = 5, .body = "0123456789", .body_len = 10,
                            .h1 = "unused", .h1_len = 6, .built = true};
    proto_h2.submit(&E.c, s);
    pump(2);
    CHECK_EQ_STR(S.method, "POST");
    CHECK_EQ_STR(S.path, "/up");
    CHECK_EQ_STR(S.extra, "yes");
    CHECK_EQ_U64(S.data, 10);
    CHECK(fe_logged(&E, "done 0 200 0"));
    fe_free(&E, &proto_h2);
}

static void test_refused_stream(void)
{
    start(REFUSE);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    pump(2);
    CHECK(fe_logged(&E, "refused 0: stream refused by the server (REFUSED_STREAM)"));
    CHECK_EQ_U64(E.st.h2_refused, 1);
    fe_free(&E, &proto_h2);
}

static void test_goaway_before_any_response(void)
{
    start(GOAWAY0);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    pump(2);
    CHECK(fe_logged(&E, "goaway"));
    CHECK(E.drained);
    CHECK_EQ_U64(E.st.h2_goaway, 1);
    CHECK(strstr(E.log, "refused 0: GOAWAY last-stream-id 0 before any response") != NULL);
    CHECK_EQ_U64(proto_h2.capacity(&E.c), 0);
    fe_free(&E, &proto_h2);
}

/* A GOAWAY whose last-stream-id names a stream says the server takes on
 * work, even when it comes before any response: what it refuses then is
 * not a server's that processes nothing (eng_refused's bound). Last-stream-id
 * 0 says nothing of the kind. */
static void test_goaway_names_a_stream(void)
{
    start(GOAWAY1);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    pump(2);
    CHECK(E.c.served);
    CHECK(strstr(E.log, "refused 1: stream not processed before the server's GOAWAY") != NULL);
    CHECK(fe_logged(&E, "done 0 200 0"));
    fe_free(&E, &proto_h2);
    start(GOAWAY0);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    pump(2);
    CHECK(!E.c.served);
    fe_free(&E, &proto_h2);
}

/* An HTTP/1.1 server spoken to with prior knowledge. */
static void test_http11_answer(void)
{
    static const char h11[] = "HTTP/1.1 400 Bad Request\r\n\r\n";

    start(SILENT);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    proto_h2.flush(&E.c, 1);
    proto_h2.input(&E.c, h11, sizeof h11 - 1, 2);
    CHECK(strstr(E.log, "conn_fail protocol: the server answered in HTTP/1.1: it does not speak "
                        "h2c") != NULL);
    fe_free(&E, &proto_h2);
}

/* Out of time: the stream is reset (the server sees CANCEL), the
 * connection stays. */
static void test_timeout_resets_stream(void)
{
    start(SILENT);
    slot *s = fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);

    pump(2);
    CHECK(s->sent == 2);
    proto_h2.timeout(&E.c, s, 3);
    CHECK(fe_logged(&E, "failed 0 timeout: no response within --timeout (stream reset)"));
    pump(3);
    CHECK_EQ_I64(S.rst, 1);
    CHECK_EQ_U64(S.rst_code, NGHTTP2_CANCEL);
    CHECK_EQ_I64(E.conn_fails, 0);
    CHECK(proto_h2.capacity(&E.c) > 0);
    fe_free(&E, &proto_h2);
}

/* The server closes with a stream open. */
static void test_eof_with_stream_open(void)
{
    start(SILENT);
    fe_submit(&E, &proto_h2, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
    pump(2);
    proto_h2.eof(&E.c, 3);
    CHECK(fe_logged(&E, "failed 0 read: connection closed by the server with streams open"));
    fe_free(&E, &proto_h2);
}

int main(void)
{
    RUN(test_get_answered);
    RUN(test_sent_marks_the_write);
    RUN(test_template_fields_and_body);
    RUN(test_refused_stream);
    RUN(test_goaway_before_any_response);
    RUN(test_goaway_names_a_stream);
    RUN(test_http11_answer);
    RUN(test_timeout_resets_stream);
    RUN(test_eof_with_stream_open);
    nghttp2_session_del(S.s);
    return unit_done();
}
