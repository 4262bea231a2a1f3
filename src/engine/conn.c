/*
 * conn.c - a connection's lifecycle: connect, TLS handshake, ALPN choice
 * (the protocol table), the protocol's own state, back-off, reopen; epoll
 * interest; where a worker's connections go; reading one (conn_readable).
 */
#include "engine/worker_int.h"

/* ---- events ---------------------------------------------------------- */

static void conn_set_events(conn *c, uint32_t ev)
{
    struct epoll_event e = {.events = ev, .data.ptr = c};

    if (ev == c->events)
        return;
    epoll_ctl(c->w->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->h.nc.fd, &e);
    c->events = ev;
}

void eng_want_write(http_conn *hc, bool on)
{
    conn *c = conn_of(hc);

    if (c->state == CS_READY)
        conn_set_events(c, on ? (EPOLLIN | EPOLLOUT) : EPOLLIN);
}

/* ---- connection lifecycle -------------------------------------------- */

void conn_close(conn *c)
{
    if (c->proto)
        c->proto->reset(&c->h);
    if (c->h.nc.fd >= 0)
        c->h.net->close(&c->h.nc);
    c->h.gen++;
    conn_opening(c, false);
    c->state = CS_CLOSED;
    c->carry_len = 0;
    c->events = 0;
    wake_timer(c, 0);
    c->reused = false;
    c->h.served = false;
    c->draining = false;
    c->goaway = false;
    c->h.nc.want = 0;
}

static void conn_settle(conn *c)
{
    if (!c->settled) {
        c->settled = true;
        c->w->settled++;
    }
}

/* A TLS handshake is done (OpenSSL's over TCP, or QUIC's inside HTTP/3):
 * timed from the TCP connect (QUIC: the socket's), and described once. */
static void conn_tls_done(conn *c, uint64_t now, bool resumed, const char *version, const char *cipher)
{
    pc_stats *st = &c->w->st;

    hdr_record(&st->tls, (int64_t)(now - c->t_tcp));
    if (resumed)
        st->tls_resumed++;
    if (!st->tls_version[0]) {
        snprintf(st->tls_version, sizeof st->tls_version, "%s", version);
        snprintf(st->tls_cipher, sizeof st->tls_cipher, "%s", cipher);
    }
}

/* Which protocol c speaks now that its transport is up: the table's
 * choice (http_choose) from the run's wish, and over TLS the server's ALPN. */
static const proto_ops *conn_pick_proto(conn *c, char *why, size_t whylen)
{
    const pc_run *run = c->w->run;
    net_tls_info ti = {0};

    if (c->h.net->tls_info)
        c->h.net->tls_info(&c->h.nc, &ti);
    return http_choose(run->proto, c->h.net->tls_info != NULL, ti.alpn, ti.alpn_len,
                       run->alpn_h1_ok, why, whylen);
}

static void conn_on_ready(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    char why[STATS_WHY_LEN] = "";
    int rc;

    c->proto = conn_pick_proto(c, why, sizeof why);
    if (!c->proto) {
        c->last_try = true; /* another address would say the same */
        conn_connect_failed(c, why, now);
        return;
    }
    if (c->ps_of != c->proto) {
        /* The protocol's own state, kept across reconnections. */
        if (c->ps_of)
            c->ps_of->state_free(c->h.ps);
        c->ps_of = c->proto;
        c->h.ps = c->proto->state_new(&c->h);
    }
    if (!c->h.ps) {
        c->ps_of = NULL;
        c->proto = NULL;
        conn_connect_failed(c, "out of memory", now);
        return;
    }
    c->state = CS_READY;
    c->tries = 0;
    c->fresh = true;
    c->conn_time = now - c->t_start;
    w->pref_addr = c->addr_idx;
    c->spoke = NULL; /* until the protocol says it speaks (eng_speaks) */
    wake_timer(c, 0);
    /* A protocol with a handshake of its own is open, and settles, once
     * that is done (eng_tls_done). */
    if (!c->proto->connecting) {
        w->st.connects++;
        c->ended = CONN_END_CLIENT;
        conn_settle(c);
    }
    conn_set_events(c, EPOLLIN);
    rc = c->proto->start(&c->h, now);
    if (rc < 0) {
        conn_connect_failed(c, strerror(-rc), now);
        return;
    }
    conn_after_io(c, now);
}

/* The addresses c connects to: its origin's, or the worker's. */
static const pc_addr *conn_addrs(const conn *c, uint32_t *n)
{
    const pc_worker *w = c->w;

    if (w->run->norigins > 1) {
        *n = w->run->origins[c->origin].naddrs;
        return w->run->origins[c->origin].addrs;
    }
    *n = w->naddrs;
    return w->addrs;
}

/* With -n a request is an attempt, as in ab, h2load and hey: a connect
 * that failed costs the request it was opened for (its origin's oldest
 * waiting one, or a new one when the run is closed-loop), an error of kind
 * connect.
 * So a run against a server that refuses every connection ends after N
 * attempts instead of retrying for the day -n alone allows. Returns
 * whether a request was charged. */
static bool conn_charge_attempt(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    slot s = {0};
    resend r;

    if (!w->quota || w->phase != P_RUN)
        return false;
    if (queue_take_for(w, c->origin, &r, now)) {
        s.intended = r.intended;
        s.tmpl = r.tmpl;
    } else if (!w->open_loop && w->created < w->quota) {
        check_warmup(w, now);
        if (!warm(w, now)) { /* -n counts the measured requests */
            w->created++;
            w->st.scheduled++;
        }
        s.intended = now;
        s.tmpl = queue_pick_tmpl_for(w, c->origin);
    } else {
        return false;
    }
    rec_failed(w, &s, PC_ERR_CONNECT, now);
    return true;
}

void conn_connect_failed(conn *c, const char *why, uint64_t now)
{
    pc_worker *w = c->w;
    char buf[STATS_WHY_LEN];
    uint32_t naddrs;
    const pc_addr *addrs = conn_addrs(c, &naddrs);

    conn_close(c);
    snprintf(buf, sizeof buf, "%s: %s", addrs[c->addr_idx].text, why);
    c->tries++;
    if (!c->last_try && c->tries < naddrs) {
        /* Names resolve once; each address is tried in order. A failure
         * that another address of the name makes good is no failed connect
         * (localhost as ::1 against a server on 127.0.0.1 only): it is
         * counted apart, and the address that answers is tried first. */
        w->st.addr_fallbacks++;
        if (!w->st.fallback_why[0])
            snprintf(w->st.fallback_why, sizeof w->st.fallback_why, "%s", buf);
        c->addr_idx = (c->addr_idx + 1) % naddrs;
        conn_start(c, now);
        return;
    }
    w->st.connect_errors++;
    if (w->iv)
        w->iv->connect_errors++;
    stats_why(&w->st, PC_ERR_CONNECT, buf);
    conn_settle(c);
    c->tries = 0;
    c->last_try = false;
    c->state = CS_BACKOFF;
    if (conn_charge_attempt(c, now)) {
        /* The count bounds the attempts: the next goes at once (the request
         * it costs is the next of the N), and the backoff does not grow:
         * it is for the attempts that have no request to cost. A connect
         * that failed inside conn_start leaves it to the next tick rather
         * than recurse once per request. */
        c->t_start = now;
        if (!w->starting)
            conn_start(c, now);
        return;
    }
    /* 50 ms, doubling while the connects keep failing, up to 1 s. */
    c->t_start = now + (c->fails < 5 ? BACKOFF_NS << c->fails : 1000000000ull);
    if (c->fails++)
        w->st.reconnect_backoffs++;
}

void conn_handshake(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    char why[STATS_WHY_LEN] = "";
    int rc = c->h.net->handshake(&c->h.nc, why, sizeof why);

    if (rc == 0) {
        /* OpenSSL may run the whole handshake inside this one call when
         * the server's answers are already there (loopback), so the
         * event's time would read as 0: take the clock again. */
        now = pc_now_ns();
        if (c->h.net->tls_info) {
            net_tls_info ti;

            c->h.net->tls_info(&c->h.nc, &ti);
            conn_tls_done(c, now, ti.resumed, ti.version, ti.cipher);
        }
        conn_on_ready(c, now);
    } else if (rc == -EAGAIN) {
        conn_set_events(c, c->h.nc.want == NET_WANT_WRITE ? EPOLLOUT : EPOLLIN);
    } else {
        if (w->run->proto->multiplexed && rc == -ENOPROTOOPT) {
            /* A server that does not speak h2 may refuse the handshake
             * outright rather than choose http/1.1. */
            snprintf(why, sizeof why, "server refused %s (TLS alert: no application protocol)",
                     w->run->proto->name);
            c->last_try = true;
        }
        conn_connect_failed(c, why[0] ? why : strerror(-rc), now);
    }
}

/* Whether the kernel had to retransmit our SYN (or the handshake's ACK)
 * before this connection was established: on loopback, the sign of a full
 * accept backlog. Unix-domain sockets have no TCP_INFO: false. */
static bool conn_syn_retransmitted(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;

    memset(&ti, 0, sizeof ti);
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 && ti.tcpi_total_retrans > 0;
}

void conn_tcp_connected(conn *c, uint64_t now)
{
    pc_worker *w = c->w;

    c->t_tcp = now;
    hdr_record(&w->st.connect, (int64_t)(now - c->t_start));
    if (conn_syn_retransmitted(c->h.nc.fd))
        w->st.connect_retrans++;
    /* Where the responses carry the kernel's receive time, the requests
     * carry its send time: connected, nothing sent yet (net_tx_times). */
    if (c->h.nc.rx_ts && c->h.net->tx_times && !w->cfg->no_tx_times)
        c->h.net->tx_times(&c->h.nc);
    if (c->h.net->tls_attach) {
        bool resume = w->run->http.tls_resume;

        if (c->h.net->tls_attach(&c->h.nc, w->run->ssl_ctx, c->h.peer,
                                 resume ? c->session : NULL, resume ? &c->session : NULL) < 0) {
            conn_connect_failed(c, "TLS: out of memory", now);
            return;
        }
        c->state = CS_HANDSHAKE;
    }
    conn_handshake(c, now);
}

void conn_ended(conn *c, int why)
{
    if (c->ended == CONN_END_CLIENT)
        c->ended = (uint8_t)why;
}

/* A connection that had opened is opened again: counted by why the last
 * one ended, so a report can say why more connections were opened than -c
 * (the server's own count of them is higher still by the attempts that failed). */
static void conn_count_reopen(conn *c)
{
    pc_stats *st = &c->w->st;

    switch (c->ended) {
    case CONN_END_NONE:
        return;
    case CONN_END_SERVER:
        st->reopen_server++;
        break;
    case CONN_END_GOAWAY:
        st->reopen_goaway++;
        break;
    case CONN_END_TIMEOUT:
        st->reopen_timeout++;
        break;
    case CONN_END_ERROR:
        st->reopen_error++;
        break;
    default:
        break;
    }
    st->reopens++;
    c->ended = CONN_END_NONE;
}

/* The IPv4 source c binds to (network order; 0: the kernel's choice): the
 * run's range round robin over all its connections, c's place among them
 * the same on every reconnect. Chosen by pacer (loopback), only toward a
 * 127.x.y.z address; from --source, toward any (an IPv6 one then fails). */
static uint32_t conn_source(const conn *c, const pc_addr *a)
{
    const pc_worker *w = c->w;
    uint32_t g = (uint32_t)(c - w->conns) * w->cfg->threads + w->index;

    if (!w->run->src_n)
        return 0;
    if (w->run->src_auto &&
        (a->sa.ss_family != AF_INET ||
         ntohl(((const struct sockaddr_in *)&a->sa)->sin_addr.s_addr) >> 24 != 127))
        return 0;
    return htonl(w->run->src_lo + g % w->run->src_n);
}

void conn_start(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    const pc_addr *a;
    int rc;

    if (c->tries == 0)
        c->addr_idx = w->run->norigins > 1 ? 0 : w->pref_addr;
    conn_count_reopen(c);
    {
        uint32_t n;

        a = &conn_addrs(c, &n)[c->addr_idx];
    }
    c->t_start = now;
    c->events = 0;
    c->proto = NULL;
    conn_opening(c, true);
    w->starting++;
    c->h.nc.src4 = conn_source(c, a);
    rc = c->h.net->connect(&c->h.nc, (const struct sockaddr *)&a->sa, a->len);
    if (rc == 0 || rc == -EINPROGRESS)
        w->st.connect_attempts++; /* the server may accept it, whatever comes of it here */
    /* Under a rate a response may wait in the socket for the next pass
     * (the slack): its time is when it came, not when it was read. */
    if ((rc == 0 || rc == -EINPROGRESS) && w->open_loop) {
        if (c->h.net->rx_times && a->sa.ss_family != AF_UNIX)
            c->h.net->rx_times(&c->h.nc);
        if (!c->h.nc.rx_ts)
            w->rx_untimed = true; /* its responses are timed when read: read them at once */
    }
    if (rc == 0) {
        c->state = CS_CONNECTING;
        conn_set_events(c, EPOLLIN);
        conn_tcp_connected(c, now);
    } else if (rc == -EINPROGRESS) {
        c->state = CS_CONNECTING;
        conn_set_events(c, EPOLLOUT);
    } else {
        if (rc == -EMFILE || rc == -ENFILE)
            snprintf(w->err, sizeof w->err, "out of file descriptors");
        conn_connect_failed(c, rc == -EADDRNOTAVAIL ? "no free local port (port exhaustion)"
                               : rc == -EAFNOSUPPORT ? "--source is IPv4, this address is not"
                                                     : strerror(-rc),
                       now);
    }
    w->starting--;
}

/* Is there work for one more connection? With -n, the requests left must
 * outnumber the connections already opening, or the extra connection
 * would only be opened and closed (wrong with --no-keepalive, where each
 * request's connection is counted). */
static bool conn_more_work(const pc_worker *w)
{
    uint64_t left;

    if (!w->quota)
        return true;
    left = queue_backlog_len(w) + (w->open_loop ? w->k_end - w->k_due : w->quota - w->created);
    return left > w->opening;
}

/* A connection the server ended with GOAWAY: reopened, and counted so the
 * report can say so, or, as h2load does (goaway_ends_conn), its client is
 * done: retired for the rest of the run. */
void conn_recycle(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    bool goaway = c->goaway;

    if (goaway)
        conn_ended(c, CONN_END_GOAWAY);
    conn_close(c);
    if (goaway && w->cfg->goaway_ends_conn) {
        c->state = CS_RETIRED;
        w->retired++;
        return;
    }
    if (w->phase == P_RUN && conn_more_work(w)) {
        if (goaway)
            w->st.goaway_reopens++;
        conn_start(c, now);
    }
}

void conn_fail(conn *c, enum pc_err_kind kind, const char *why, uint64_t now)
{
    if (c->proto && c->proto->connecting && c->proto->connecting(&c->h) && c->h.count == 0) {
        conn_connect_failed(c, why ? why : "connect failed", now);
        return;
    }
    conn_ended(c, kind == PC_ERR_TIMEOUT ? CONN_END_TIMEOUT : CONN_END_ERROR);
    if (c->h.count == 0) {
        /* No request to charge it to: say it happened, to the connection. */
        pc_stats *st = &c->w->st;

        st->conn_drops++;
        if (!st->drop_why[0] && why)
            snprintf(st->drop_why, sizeof st->drop_why, "%s", why);
        conn_recycle(c, now);
        return;
    }
    stats_why(&c->w->st, kind, why);
    for (uint32_t i = 0; i < c->h.depth && c->h.count; i++)
        if (c->h.slots[i].used) {
            rec_failed(c->w, &c->h.slots[i], kind, now);
            queue_slot_release(c, &c->h.slots[i]);
        }
    /* A server that fails every connection before answering anything is
     * not hit thousands of times a second: the second failure in a row
     * waits 10 ms before reopening, doubling up to 1 s. */
    if (++c->fails >= 2 && c->w->phase == P_RUN && conn_more_work(c->w)) {
        uint32_t sh = c->fails - 2 < 7 ? c->fails - 2 : 7;
        uint64_t wait = RECONNECT_BACKOFF_NS << sh;

        conn_close(c);
        c->w->st.reconnect_backoffs++;
        c->state = CS_BACKOFF;
        c->t_start = now + (wait < 1000000000ull ? wait : 1000000000ull);
        return;
    }
    conn_recycle(c, now);
}

void eng_conn_recycle(http_conn *hc, uint64_t now)
{
    conn_recycle(conn_of(hc), now);
}

void eng_conn_fail(http_conn *hc, enum pc_err_kind kind, const char *why, uint64_t now)
{
    conn_fail(conn_of(hc), kind, why, now);
}

/* After a protocol has had its say: reopen a drained connection, or give
 * a connection with room its next requests. */
void conn_after_io(conn *c, uint64_t now)
{
    if (c->state != CS_READY)
        return;
    if (c->draining) {
        if (c->h.count == 0)
            conn_recycle(c, now);
        return;
    }
    if (c->w->phase != P_RUN)
        return;
    if (c->w->open_loop) {
        if (queue_has_room(c)) {
            /* Room since the events were returned, at the latest: the
             * ones handled before were the client's own delay. */
            if (!c->in_ready)
                c->room_at = c->w->woke && c->w->woke < now ? c->w->woke : now;
            queue_ready_push(c);
        }
    } else {
        queue_closed_fill(c, now);
    }
}

/* A worker's own address (a script's thread.addr): "ip:port" or "[ip6]:port". */
int conn_connect_to(pc_worker *w, const char *addr)
{
    char host[80], port[16];
    const char *colon = strrchr(addr, ':');
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *res;
    size_t hl;

    if (!colon)
        return -EINVAL;
    snprintf(w->own_addr.text, sizeof w->own_addr.text, "%s", addr);
    hl = (size_t)(colon - addr);
    if (addr[0] == '[' && hl >= 2) {
        addr++;
        hl -= 2;
    }
    if (hl >= sizeof host || strlen(colon + 1) >= sizeof port)
        return -EINVAL;
    memcpy(host, addr, hl);
    host[hl] = '\0';
    strcpy(port, colon + 1);
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -EINVAL;
    memcpy(&w->own_addr.sa, res->ai_addr, res->ai_addrlen);
    w->own_addr.len = res->ai_addrlen;
    freeaddrinfo(res);
    w->addrs = &w->own_addr;
    w->naddrs = 1;
    w->pref_addr = 0;
    return 0;
}

/* ---- what a protocol with a handshake of its own reports (QUIC) ------- */

void eng_timer(http_conn *hc, uint64_t when)
{
    wake_timer(conn_of(hc), when);
}

void eng_tls_done(http_conn *hc, uint64_t now, bool resumed, const char *version,
                  const char *cipher)
{
    conn *c = conn_of(hc);
    pc_worker *w = c->w;

    conn_tls_done(c, now, resumed, version, cipher);
    c->conn_time = now - c->t_start;
    w->st.connects++;
    c->ended = CONN_END_CLIENT;
    conn_settle(c);
}

void eng_connect_timeout(http_conn *hc, const char *why, uint64_t now)
{
    conn *c = conn_of(hc);

    c->w->st.connect_timeouts++;
    c->last_try = true; /* no quick retry: back off */
    conn_connect_failed(c, why ? why : "connect timed out (QUIC handshake)", now);
}

/* ---- reading --------------------------------------------------------- */

/* What the protocol left unconsumed (an unfinished header line, bounded by
 * the protocol) waits for the rest in a per-connection buffer, grown on
 * demand, and goes in front of the next read. */
static int conn_carry_rest(conn *c, const char *p, size_t rest, uint64_t now)
{
    if (rest > c->carry_cap) {
        char *q = realloc(c->carry, rest);

        if (!q) {
            conn_fail(c, PC_ERR_READ, "out of memory", now);
            return -ENOMEM;
        }
        c->carry = q;
        c->carry_cap = (uint32_t)rest;
    }
    memcpy(c->carry, p, rest);
    c->carry_len = (uint32_t)rest;
    return 0;
}

/* Bytes read off the wire: counted, outside the warm-up. */
static void conn_count_read(pc_worker *w, ssize_t n, uint64_t now)
{
    check_warmup(w, now);
    if (!warm(w, now)) {
        w->st.bytes_read += (uint64_t)n;
        if (w->iv)
            w->iv->bytes_read += (uint64_t)n;
    }
}

/* The least of a body nobody reads worth dropping unread (net_ops.discard)
 * rather than copying out: a read of it would cost the same system call. */
#define SKIP_MIN (16 * 1024)
#define SKIP_MAX (64u << 20)

void conn_readable(conn *c)
{
    pc_worker *w = c->w;
    uint32_t gen = c->h.gen;

    /* 16 rounds, then the other connections' turn; but what the transport
     * holds read ahead (net_ops.held) is taken first: nothing would wake
     * the connection for it. */
    for (int rounds = 0; rounds < 16 || (c->h.net->held && c->h.net->held(&c->h.nc)); rounds++) {
        uint32_t keep = c->carry_len;
        size_t room = RBUF_SIZE - keep;
        uint64_t skip = !keep && c->h.net->discard && c->proto->skippable ? c->proto->skippable(&c->h) : 0;
        ssize_t n = -EOPNOTSUPP;
        uint64_t now;

        if (skip >= SKIP_MIN)
            n = c->h.net->discard(&c->h.nc, skip < SKIP_MAX ? (size_t)skip : SKIP_MAX);
        if (n > 0) {
            now = pace_came_at(w, c, pc_now_ns());
            conn_count_read(w, n, now);
            c->proto->skip(&c->h, (size_t)n, now);
            if (c->h.gen != gen)
                return;
            if ((uint64_t)n < skip && (size_t)n < SKIP_MAX)
                break; /* the socket is empty */
            continue;
        }
        if (n == -EOPNOTSUPP)
            n = c->h.net->read(&c->h.nc, w->rbuf + keep, room);
        now = pc_now_ns();
        if (n > 0) {
            size_t have = keep + (size_t)n, used;

            now = pace_came_at(w, c, now);
            if (keep)
                memcpy(w->rbuf, c->carry, keep);
            c->carry_len = 0;
            conn_count_read(w, n, now);
            used = c->proto->input(&c->h, w->rbuf, have, now);
            if (c->h.gen != gen)
                return;
            if (used < have && conn_carry_rest(c, w->rbuf + used, have - used, now) < 0)
                return;
            if ((size_t)n < room && c->h.net->pending(&c->h.nc) == 0)
                break;
        } else if (n == 0) {
            c->proto->eof(&c->h, now);
            if (c->h.gen == gen)
                conn_recycle(c, now);
            return;
        } else if (n == -EAGAIN) {
            break;
        } else {
            if (c->proto->read_error)
                c->proto->read_error(&c->h, (int)-n, now);
            else
                conn_fail(c, PC_ERR_READ, strerror((int)-n), now);
            return;
        }
    }
    if (c->state == CS_READY) {
        uint64_t now = pc_now_ns();

        conn_after_io(c, now);
        if (c->h.gen == gen && c->state == CS_READY)
            c->proto->flush(&c->h, now);
    }
}
