/*
 * prep.c - see prep.h.
 */
#include "engine/prep.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* -c 10000 needs 10000 sockets: find out now, not as connect errors. */
int engine_check_fds(const pc_config *cfg, char *err, size_t errlen)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)cfg->connections + 4 * cfg->threads + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return 0;
    }
    snprintf(err, errlen,
             "-c %u needs about %llu file descriptors but the limit is %llu "
             "(raise it with 'ulimit -n %llu')",
             cfg->connections, (unsigned long long)need, (unsigned long long)rl.rlim_max,
             (unsigned long long)need);
    return -EMFILE;
}

/* ALPN wire format from "h2,http/1.1". Returns the length, or -EINVAL. */
int engine_alpn_wire(const char *list, unsigned char *out, size_t cap, bool *has_h2, bool *has_h1)
{
    size_t n = 0;
    const char *p = list;

    *has_h2 = *has_h1 = false;
    while (*p) {
        size_t len = strcspn(p, ",");

        if (len == 0 || len > 255 || n + 1 + len > cap)
            return -EINVAL;
        out[n++] = (unsigned char)len;
        memcpy(out + n, p, len);
        n += len;
        if (len == 2 && memcmp(p, "h2", 2) == 0)
            *has_h2 = true;
        if (len == 8 && memcmp(p, "http/1.1", 8) == 0)
            *has_h1 = true;
        p += len;
        if (*p == ',')
            p++;
    }
    return n ? (int)n : -EINVAL;
}
