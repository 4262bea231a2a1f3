/*
 * test_rundesc.c - a live run's description (rundesc_of) carries every
 * field the reporters read from its pc_config, each from its own field.
 */
#include <string.h>

#include "report/rundesc.h"
#include "unit.h"

static void test_rundesc_of(void)
{
    pc_reqspec reqs[2] = {{.method = "GET"}, {.method = "POST"}};
    pc_header hs[1] = {{.name = "X-A", .value = "b"}};
    struct pc_slo *slo = (struct pc_slo *)&hs[0]; /* only its address is compared */
    pc_config cfg;
    pc_rundesc d;

    memset(&cfg, 0, sizeof cfg);
    cfg.cmdline = "pacer -t 3 http://h:8/p";
    cfg.url_text = "http://h:8/p";
    snprintf(cfg.url.host, sizeof cfg.url.host, "h");
    snprintf(cfg.url.port, sizeof cfg.url.port, "8");
    cfg.url.tls = true;
    cfg.host = "example.org";
    cfg.reqs = reqs;
    cfg.nreqs = 2;
    cfg.headers = hs;
    cfg.nheaders = 1;
    cfg.script_path = "s.lua";
    cfg.threads = 3;
    cfg.connections = 7;
    cfg.duration_ns = 11;
    cfg.duration_set = true;
    cfg.requests = 13;
    cfg.rate = 17.5;
    cfg.warmup_ns = 19;
    cfg.timeout_ns = 23;
    cfg.connect_timeout_ns = 29;
    cfg.interval_ns = 31;
    cfg.h2 = true;
    cfg.alpn = "h2";
    cfg.streams = 37;
    cfg.pipeline = 41;
    cfg.batch_latency = true;
    cfg.strict_length = true;
    cfg.format = PC_FORMAT_AB;
    cfg.latency = true;
    cfg.u_latency = true;
    cfg.ab_no_confidence = true;
    cfg.peer_follows_redirects = true;
    cfg.ab_no_percentiles = true;
    cfg.slo = slo;
    /* what the reporters never read */
    cfg.out.json_path = "r.json";
    cfg.wf.rounds = 5;

    memset(&d, 0xff, sizeof d);
    rundesc_of(&d, &cfg);
    CHECK(d.cmdline == cfg.cmdline);
    CHECK(d.url_text == cfg.url_text);
    CHECK_EQ_STR(d.url.host, "h");
    CHECK_EQ_STR(d.url.port, "8");
    CHECK(d.url.tls);
    CHECK(d.host == cfg.host);
    CHECK(d.reqs == reqs && d.nreqs == 2);
    CHECK(d.headers == hs && d.nheaders == 1);
    CHECK(d.script_path == cfg.script_path);
    CHECK_EQ_I64(d.threads, 3);
    CHECK_EQ_I64(d.connections, 7);
    CHECK_EQ_I64(d.duration_ns, 11);
    CHECK(d.duration_set);
    CHECK_EQ_I64(d.requests, 13);
    CHECK(d.rate == 17.5);
    CHECK_EQ_I64(d.warmup_ns, 19);
    CHECK_EQ_I64(d.timeout_ns, 23);
    CHECK_EQ_I64(d.connect_timeout_ns, 29);
    CHECK_EQ_I64(d.interval_ns, 31);
    CHECK(d.h2);
    CHECK(d.alpn == cfg.alpn);
    CHECK_EQ_I64(d.streams, 37);
    CHECK_EQ_I64(d.pipeline, 41);
    CHECK(d.batch_latency);
    CHECK(d.strict_length);
    CHECK_EQ_I64(d.format, PC_FORMAT_AB);
    CHECK(d.latency);
    CHECK(d.u_latency);
    CHECK(d.ab_no_confidence);
    CHECK(d.peer_follows_redirects);
    CHECK(d.ab_no_percentiles);
    CHECK(d.slo == slo);
    /* A live run has a command line, not sources, and wrk's layout only with -R. */
    CHECK(!d.hdr_layout);
    CHECK(d.sources == NULL && d.nsources == 0);
    CHECK(d.source_cmdlines == NULL && d.nsource_cmdlines == 0);
}

int main(void)
{
    RUN(test_rundesc_of);
    return unit_done();
}
