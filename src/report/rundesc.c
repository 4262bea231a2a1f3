/*
 * rundesc.c - see rundesc.h.
 */
#include "report/rundesc.h"

#include <string.h>

void rundesc_of(pc_rundesc *d, const pc_config *cfg)
{
    memset(d, 0, sizeof *d);
    d->cmdline = cfg->cmdline;
    d->url_text = cfg->url_text;
    d->url = cfg->url;
    d->host = cfg->host;
    d->reqs = cfg->reqs;
    d->nreqs = cfg->nreqs;
    d->nreqs_total = cfg->nreqs;
    d->headers = cfg->headers;
    d->nheaders = cfg->nheaders;
    d->script_path = cfg->script_path;
    d->threads = cfg->threads;
    d->connections = cfg->connections;
    d->duration_ns = cfg->duration_ns;
    d->duration_set = cfg->duration_set;
    d->requests = cfg->requests;
    d->rate = cfg->rate;
    d->shard_index = cfg->shard.index;
    d->shard_count = cfg->shard.count;
    d->warmup_ns = cfg->warmup_ns;
    d->shape = cfg->shape;
    d->slack_ns = cfg->slack_ns;
    d->slack_set = cfg->slack_set;
    d->spin_ns = cfg->spin_ns;
    d->timeout_ns = cfg->timeout_ns;
    d->connect_timeout_ns = cfg->connect_timeout_ns;
    d->interval_ns = cfg->interval_ns;
    d->h2 = cfg->h2;
    d->h3 = cfg->h3;
    d->alpn = cfg->alpn;
    d->streams = cfg->streams;
    d->pipeline = cfg->pipeline;
    d->batch_latency = cfg->batch_latency;
    d->strict_length = cfg->strict_length;
    d->no_tls_resume = cfg->no_tls_resume;
    d->format = cfg->format;
    d->latency = cfg->latency;
    d->u_latency = cfg->u_latency;
    d->ab_no_confidence = cfg->ab_no_confidence;
    d->peer_follows_redirects = cfg->peer_follows_redirects;
    d->ab_no_percentiles = cfg->ab_no_percentiles;
    d->slo = cfg->slo;
}
