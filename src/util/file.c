/*
 * file.c - see file.h.
 */
#include "util/file.h"

#include <stdbool.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *pc_fopen_read(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    struct stat st;

    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}

/* Slots a signal handler may read at any moment: a path is published
 * after it is complete (the caller's string) and taken away before the
 * caller frees it. */
static _Atomic(const char *) held[PC_TMP_MAX];

int pc_tmp_track(const char *path)
{
    for (int i = 0; i < PC_TMP_MAX; i++) {
        const char *none = NULL;

        if (atomic_compare_exchange_strong(&held[i], &none, path))
            return 0;
    }
    return -1;
}

void pc_tmp_untrack(const char *path)
{
    for (int i = 0; i < PC_TMP_MAX; i++) {
        const char *p = path;

        if (atomic_compare_exchange_strong(&held[i], &p, NULL))
            return;
    }
}

void pc_tmp_remove_all(void)
{
    for (int i = 0; i < PC_TMP_MAX; i++) {
        const char *p = atomic_exchange(&held[i], NULL);

        if (p)
            unlink(p);
    }
}

static void on_fatal(int sig)
{
    /* SA_RESETHAND made the action the default again: raised now, the
     * signal ends the process once the handler returns. */
    pc_tmp_remove_all();
    raise(sig);
}

void pc_tmp_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;

        if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* The directory part of path ("." for none) into buf. */
static void dir_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;

    if (!slash)
        snprintf(buf, cap, ".");
    else if (n == 0)
        snprintf(buf, cap, "/");
    else
        snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), path);
}

/* A device, a FIFO or a socket (/dev/null, /dev/stdout, a named pipe) is
 * written where it is: renaming a file onto it would put a regular file in
 * its place (for root, in /dev/null's). */
static bool special(const struct stat *st)
{
    return !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode);
}

static bool special_file(FILE *f)
{
    struct stat st;

    return fstat(fileno(f), &st) == 0 && special(&st);
}

FILE *pc_tmp_create(const char *path, const char *tmp_path)
{
    char dir[PATH_MAX];
    struct stat st;
    FILE *f;
    int fd;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR; /* now, not at the rename after the run */
        return NULL;
    }
    if (stat(path, &st) == 0 && special(&st))
        return fopen(path, "w");
    dir_of(path, dir, sizeof dir);
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
        if ((f = fdopen(fd, "w")))
            return f;
        close(fd);
        return NULL;
    }
    /* No O_TMPFILE here (an old kernel says EISDIR, a file system
     * EOPNOTSUPP): a named temporary. Any other error is the directory's. */
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return NULL;
    f = fopen(tmp_path, "w");
    if (f)
        pc_tmp_track(tmp_path);
    return f;
}

static bool unnamed(FILE *f)
{
    struct stat st;

    return fstat(fileno(f), &st) == 0 && st.st_nlink == 0;
}

/* The unnamed file's bytes into a new file at tmp_path (where linkat
 * cannot give it a name: no /proc). 0 or -errno. */
static int copy_out(int fd, const char *tmp_path)
{
    char buf[65536];
    off_t at = 0;
    ssize_t n;
    int out = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), rc = 0;

    if (out < 0)
        return -errno;
    pc_tmp_track(tmp_path);
    while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
        if (write(out, buf, (size_t)n) != n) {
            rc = -(errno ? errno : EIO);
            break;
        }
        at += n;
    }
    if (n < 0)
        rc = -errno;
    if (close(out) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

int pc_tmp_place(FILE *f, const char *tmp_path, const char *path)
{
    bool anon = unnamed(f);
    int rc = 0;

    if (fflush(f) != 0 || ferror(f))
        rc = -(errno ? errno : EIO);
    if (special_file(f)) {
        if (fclose(f) != 0 && rc == 0)
            rc = -(errno ? errno : EIO);
        return rc;
    }
    if (rc == 0 && anon) {
        char proc[64];

        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(f));
        unlink(tmp_path); /* one a process of this pid left long ago */
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp_path, AT_SYMLINK_FOLLOW) == 0)
            pc_tmp_track(tmp_path);
        else
            rc = copy_out(fileno(f), tmp_path);
    }
    if (fclose(f) != 0 && rc == 0)
        rc = -(errno ? errno : EIO);
    if (rc == 0 && rename(tmp_path, path) != 0)
        rc = -errno;
    if (rc < 0)
        unlink(tmp_path);
    pc_tmp_untrack(tmp_path);
    return rc;
}

void pc_tmp_drop(FILE *f, const char *tmp_path)
{
    bool anon = unnamed(f), keep = special_file(f);

    fclose(f);
    if (!anon && !keep)
        unlink(tmp_path);
    pc_tmp_untrack(tmp_path);
}
