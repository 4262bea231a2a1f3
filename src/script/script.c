/*
 * script.c - see script.h. The wrk table and its format() are written in
 * Lua (the prelude below); lookup, connect, time_us, thread objects and
 * the stats objects of done() are C. A worker's state, its calls and the
 * signal guard are script_thread.c's.
 */
#include "script/script_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stats/results.h"
#include "util/clock.h"

/* The wrk table as scripts expect it. wrk.format builds a request from
 * wrk.method / path / headers / body (or its arguments), adding Host and
 * Content-Length; wrk.request returns that request (replaced after init()
 * by a prebuilt one, as wrk does). */
static const char prelude[] =
    "wrk = { scheme = 'http', host = 'localhost', port = nil, method = 'GET',\n"
    "        path = '/', headers = {}, body = nil, thread = nil }\n"
    "function wrk.format(method, path, headers, body)\n"
    "  method = method or wrk.method\n"
    "  path = path or wrk.path\n"
    "  headers = headers or wrk.headers\n"
    "  body = body or wrk.body\n"
    "  local out, host = { method .. ' ' .. path .. ' HTTP/1.1' }, false\n"
    "  for name, value in pairs(headers) do\n"
    "    local low = string.lower(name)\n"
    "    if low == 'host' then host = true end\n"
    "    if low ~= 'content-length' then out[#out + 1] = name .. ': ' .. tostring(value) end\n"
    "  end\n"
    "  if not host then out[#out + 1] = 'Host: ' .. wrk.hostport end\n"
    "  if body then out[#out + 1] = 'Content-Length: ' .. #body end\n"
    "  out[#out + 1] = ''\n"
    "  out[#out + 1] = body or ''\n"
    "  return table.concat(out, '\\r\\n')\n"
    "end\n"
    "function wrk.request() return wrk.format() end\n"
    /* response() headers: exact names first, then any case (HTTP/2 sends
     * them lower-cased; wrk scripts ask for e.g. headers['X-Token']). */
    "pacer_headers_mt = { __index = function(t, k)\n"
    "  if type(k) ~= 'string' then return nil end\n"
    "  local lk = string.lower(k)\n"
    "  for name, v in pairs(t) do if string.lower(name) == lk then return v end end\n"
    "end }\n";


/* ---- helpers ------------------------------------------------------------ */

void scr_set_err(char *err, size_t errlen, lua_State *L, const char *what)
{
    const char *m = lua_tostring(L, -1);

    snprintf(err, errlen, "%s%s%s", what ? what : "", what ? ": " : "", m ? m : "error");
    lua_pop(L, 1);
}

/* Copy the value at index i of `from` onto the top of `to`: nil, booleans,
 * numbers, strings and tables of those (depth-limited), as wrk copies
 * thread:get / thread:set values between states. */
void scr_copy_value(lua_State *from, int i, lua_State *to, int depth)
{
    if (i < 0)
        i = lua_gettop(from) + i + 1;
    switch (lua_type(from, i)) {
    case LUA_TBOOLEAN:
        lua_pushboolean(to, lua_toboolean(from, i));
        break;
    case LUA_TNUMBER:
        lua_pushnumber(to, lua_tonumber(from, i));
        break;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(from, i, &n);

        lua_pushlstring(to, s, n);
        break;
    }
    case LUA_TTABLE:
        if (depth > 16) {
            lua_pushnil(to);
            break;
        }
        lua_newtable(to);
        lua_pushnil(from);
        while (lua_next(from, i)) {
            scr_copy_value(from, -2, to, depth + 1);
            scr_copy_value(from, -1, to, depth + 1);
            lua_settable(to, -3);
            lua_pop(from, 1);
        }
        break;
    default:
        lua_pushnil(to);
        break;
    }
}

/* ---- wrk.lookup, wrk.connect, wrk.time_us ------------------------------- */

static int l_lookup(lua_State *L)
{
    const char *host = luaL_checkstring(L, 1);
    const char *service = luaL_optstring(L, 2, "http");
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    int n = 0;

    if (getaddrinfo(host, service, &hints, &res) != 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_newtable(L);
    for (ai = res; ai; ai = ai->ai_next) {
        char ip[INET6_ADDRSTRLEN], buf[128];
        int port;

        if (ai->ai_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)ai->ai_addr;

            inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
            port = ntohs(a->sin6_port);
            snprintf(buf, sizeof buf, "[%s]:%d", ip, port);
        } else {
            struct sockaddr_in *a = (struct sockaddr_in *)ai->ai_addr;

            inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
            port = ntohs(a->sin_port);
            snprintf(buf, sizeof buf, "%s:%d", ip, port);
        }
        lua_pushstring(L, buf);
        lua_rawseti(L, -2, ++n);
    }
    freeaddrinfo(res);
    return 1;
}

/* "ip:port" or "[ip6]:port" into host and port strings. */
static bool split_addr(const char *a, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon = strrchr(a, ':');
    size_t hl;

    if (!colon)
        return false;
    hl = (size_t)(colon - a);
    if (a[0] == '[' && hl >= 2 && a[hl - 1] == ']') {
        a++;
        hl -= 2;
    }
    if (hl >= hcap || strlen(colon + 1) >= pcap)
        return false;
    memcpy(host, a, hl);
    host[hl] = '\0';
    strcpy(port, colon + 1);
    return true;
}

/* wrk.connect(addr): can a TCP connection be made (1 s at most)? */
static int l_connect(lua_State *L)
{
    const char *a = luaL_checkstring(L, 1);
    char host[80], port[16];
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *res;
    bool ok = false;

    if (split_addr(a, host, sizeof host, port, sizeof port) &&
        getaddrinfo(host, port, &hints, &res) == 0) {
        int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

        if (fd >= 0) {
            if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
                ok = true;
            } else {
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                int e = 0;
                socklen_t el = sizeof e;

                if (poll(&p, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0)
                    ok = e == 0;
            }
            close(fd);
        }
        freeaddrinfo(res);
    }
    lua_pushboolean(L, ok);
    return 1;
}

static int l_time_us(lua_State *L)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    lua_pushnumber(L, (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3);
    return 1;
}

/* ---- thread objects ------------------------------------------------------ */

typedef struct tref {
    pc_script *s;
    tobj *t;
} tref;

static int t_get(lua_State *L)
{
    tref *r = luaL_checkudata(L, 1, THREAD_MT);
    const char *name = luaL_checkstring(L, 2);

    if (r->t->ts && r->t->ts->L != L) {
        /* After the run: the worker's own global. */
        lua_getglobal(r->t->ts->L, name);
        scr_copy_value(r->t->ts->L, -1, L, 0);
        lua_pop(r->t->ts->L, 1);
    } else if (r->t->ts && r->t->ts->L == L) {
        lua_getglobal(L, name);
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, r->t->values);
        lua_getfield(L, -1, name);
        lua_remove(L, -2);
    }
    return 1;
}

static int t_set(lua_State *L)
{
    tref *r = luaL_checkudata(L, 1, THREAD_MT);
    const char *name = luaL_checkstring(L, 2);

    luaL_checkany(L, 3);
    if (r->t->ts && r->t->ts->L == L) {
        lua_pushvalue(L, 3);
        lua_setglobal(L, name);
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, r->t->values);
        lua_pushvalue(L, 3);
        lua_setfield(L, -2, name);
        lua_pop(L, 1);
    }
    return 0;
}

static int t_stop(lua_State *L)
{
    tref *r = luaL_checkudata(L, 1, THREAD_MT);

    r->t->stop = true;
    return 0;
}

static int t_index(lua_State *L)
{
    tref *r = luaL_checkudata(L, 1, THREAD_MT);
    const char *k = luaL_checkstring(L, 2);

    if (strcmp(k, "addr") == 0) {
        if (r->t->addr[0])
            lua_pushstring(L, r->t->addr);
        else
            lua_pushnil(L);
    } else if (strcmp(k, "get") == 0) {
        lua_pushcfunction(L, t_get);
    } else if (strcmp(k, "set") == 0) {
        lua_pushcfunction(L, t_set);
    } else if (strcmp(k, "stop") == 0) {
        lua_pushcfunction(L, t_stop);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int t_newindex(lua_State *L)
{
    tref *r = luaL_checkudata(L, 1, THREAD_MT);
    const char *k = luaL_checkstring(L, 2);

    if (strcmp(k, "addr") != 0)
        return luaL_error(L, "thread: cannot set '%s'", k);
    snprintf(r->t->addr, sizeof r->t->addr, "%s", luaL_checkstring(L, 3));
    return 0;
}

void scr_push_thread(lua_State *L, pc_script *s, tobj *t)
{
    tref *r = lua_newuserdata(L, sizeof *r);

    r->s = s;
    r->t = t;
    luaL_getmetatable(L, THREAD_MT);
    lua_setmetatable(L, -2);
}

/* ---- a state ---------------------------------------------------------- */

lua_State *scr_new_state(const pc_config *cfg, const char *path, char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();

    if (!L) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    luaL_openlibs(L);
    if (luaL_loadbuffer(L, prelude, sizeof prelude - 1, "=pacer") != 0 ||
        lua_pcall(L, 0, 0, 0) != 0) {
        scr_set_err(err, errlen, L, "internal");
        lua_close(L);
        return NULL;
    }
    luaL_newmetatable(L, THREAD_MT);
    lua_pushcfunction(L, t_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, t_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pop(L, 1);

    lua_getglobal(L, "wrk");
    lua_pushstring(L, cfg->url.tls ? "https" : "http");
    lua_setfield(L, -2, "scheme");
    lua_pushstring(L, cfg->url.host);
    lua_setfield(L, -2, "host");
    lua_pushstring(L, cfg->url.port);
    lua_setfield(L, -2, "port");
    lua_pushstring(L, cfg->url.hostport);
    lua_setfield(L, -2, "hostport");
    lua_pushstring(L, cfg->reqs ? cfg->reqs[0].method : "GET");
    lua_setfield(L, -2, "method");
    lua_pushstring(L, cfg->url.path);
    lua_setfield(L, -2, "path");
    if (cfg->body) {
        lua_pushlstring(L, cfg->body, cfg->body_len);
        lua_setfield(L, -2, "body");
    }
    lua_getfield(L, -1, "headers");
    for (size_t i = 0; i < cfg->nheaders; i++) {
        lua_pushstring(L, cfg->headers[i].value);
        lua_setfield(L, -2, cfg->headers[i].name);
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, l_lookup);
    lua_setfield(L, -2, "lookup");
    lua_pushcfunction(L, l_connect);
    lua_setfield(L, -2, "connect");
    lua_pushcfunction(L, l_time_us);
    lua_setfield(L, -2, "time_us");
    lua_pop(L, 1);

    if (luaL_loadfile(L, path) != 0 || scr_call(NULL, L, 0, 0) != 0) {
        scr_set_err(err, errlen, L, NULL);
        lua_close(L);
        return NULL;
    }
    return L;
}

bool scr_is_function(lua_State *L, const char *name)
{
    bool f;

    lua_getglobal(L, name);
    f = lua_isfunction(L, -1);
    lua_pop(L, 1);
    return f;
}

int script_load(pc_script **out, const pc_config *cfg, char *err, size_t errlen)
{
    pc_script *s = calloc(1, sizeof *s);

    scr_install_sig();
    *out = s;
    if (!s)
        return -ENOMEM;
    s->cfg = cfg;
    scr_source_init(s);
    snprintf(s->path, sizeof s->path, "%s", cfg->script_path);
    s->nthreads = cfg->threads;
    s->threads = calloc(cfg->threads, sizeof *s->threads);
    if (!s->threads)
        return -ENOMEM;
    s->L = scr_new_state(cfg, s->path, err, errlen);
    if (!s->L)
        return -EINVAL;
    for (uint32_t i = 0; i < s->nthreads; i++) {
        lua_newtable(s->L);
        s->threads[i].values = luaL_ref(s->L, LUA_REGISTRYINDEX);
        if (scr_is_function(s->L, "setup")) {
            lua_getglobal(s->L, "setup");
            scr_push_thread(s->L, s, &s->threads[i]);
            if (scr_call(NULL, s->L, 1, 0) != 0) {
                scr_set_err(err, errlen, s->L, NULL);
                return -EINVAL;
            }
        }
    }
    return 0;
}

void script_free(pc_script *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->threads && i < s->nthreads; i++)
        script_thread_free(s->threads[i].ts);
    if (s->L)
        lua_close(s->L);
    free(s->threads);
    free(s);
}


/* ---- done() -------------------------------------------------------------- */

typedef struct sref {
    const hdr_hist *h;
    double scale; /* histogram unit per reported unit (ns -> us: 1000) */
} sref;

static int s_percentile(lua_State *L)
{
    sref *r = luaL_checkudata(L, 1, STATS_MT);
    double p = luaL_checknumber(L, 2);

    lua_pushnumber(L, r->h->total_count
                          ? (double)(int64_t)((double)hdr_value_at_percentile(r->h, p) / r->scale)
                          : 0);
    return 1;
}

static int s_index(lua_State *L)
{
    sref *r = luaL_checkudata(L, 1, STATS_MT);
    const char *k;
    bool any = r->h->total_count > 0;

    if (lua_type(L, 2) == LUA_TNUMBER) {
        /* As wrk: stats[i] is how many samples had the value i - 1 (in the
         * reported unit: us for latency, requests/s for requests). */
        lua_Number i = lua_tonumber(L, 2);
        int64_t lo = (int64_t)((i - 1) * r->scale), hi = (int64_t)(i * r->scale) - 1;
        int64_t n = 0;

        if (i >= 1 && hi < r->h->highest) {
            int64_t v = lo;

            /* A bucket belongs to the unit its lowest value is in. */
            if (hdr_lowest_equivalent(r->h, v) < lo)
                v = hdr_highest_equivalent(r->h, v) + 1;
            for (; v <= hi; v = hdr_highest_equivalent(r->h, v) + 1)
                n += hdr_count_at_value(r->h, v);
        }
        lua_pushnumber(L, (double)n);
        return 1;
    }
    k = luaL_checkstring(L, 2);
    if (strcmp(k, "min") == 0)
        lua_pushnumber(L, any ? (double)hdr_min(r->h) / r->scale : 0);
    else if (strcmp(k, "max") == 0)
        lua_pushnumber(L, any ? (double)hdr_max(r->h) / r->scale : 0);
    else if (strcmp(k, "mean") == 0)
        lua_pushnumber(L, hdr_mean(r->h) / r->scale);
    else if (strcmp(k, "stdev") == 0)
        lua_pushnumber(L, hdr_stddev(r->h) / r->scale);
    else if (strcmp(k, "percentile") == 0)
        lua_pushcfunction(L, s_percentile);
    else
        lua_pushnil(L);
    return 1;
}

/* As wrk: #stats is the number of samples. */
static int s_len(lua_State *L)
{
    sref *r = luaL_checkudata(L, 1, STATS_MT);

    lua_pushnumber(L, (double)r->h->total_count);
    return 1;
}

static void push_stats(lua_State *L, const hdr_hist *h, double scale)
{
    sref *r = lua_newuserdata(L, sizeof *r);

    r->h = h;
    r->scale = scale;
    if (luaL_newmetatable(L, STATS_MT)) {
        lua_pushcfunction(L, s_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, s_len);
        lua_setfield(L, -2, "__len");
    }
    lua_setmetatable(L, -2);
}

int script_done(pc_script *s, const pc_results *res, char *err, size_t errlen)
{
    lua_State *L = s->L;
    const pc_stats *st = &res->st;

    if (!scr_is_function(L, "done"))
        return 0;
    lua_getglobal(L, "done");
    lua_newtable(L);
    lua_pushnumber(L, (double)res->duration_ns / 1e3);
    lua_setfield(L, -2, "duration");
    lua_pushnumber(L, (double)st->completed);
    lua_setfield(L, -2, "requests");
    lua_pushnumber(L, (double)st->bytes_read);
    lua_setfield(L, -2, "bytes");
    lua_newtable(L);
    lua_pushnumber(L, (double)st->connect_errors);
    lua_setfield(L, -2, "connect");
    lua_pushnumber(L, (double)(st->err[PC_ERR_READ] + st->err[PC_ERR_PROTOCOL]));
    lua_setfield(L, -2, "read");
    lua_pushnumber(L, (double)st->err[PC_ERR_WRITE]);
    lua_setfield(L, -2, "write");
    lua_pushnumber(L, (double)st->non2xx);
    lua_setfield(L, -2, "status");
    lua_pushnumber(L, (double)st->err[PC_ERR_TIMEOUT]);
    lua_setfield(L, -2, "timeout");
    lua_setfield(L, -2, "errors");
    push_stats(L, &st->latency, 1e3);
    push_stats(L, &st->rps, 1);
    if (lua_pcall(L, 3, 0, 0) != 0) {
        scr_set_err(err, errlen, L, NULL);
        return -EINVAL;
    }
    return 0;
}

