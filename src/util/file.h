/*
 * file.h - opening an input file so that its errors say what happened, and
 * the temporary files pacer writes its results through, removed on every
 * ending pacer controls.
 */
#ifndef PACER_UTIL_FILE_H
#define PACER_UTIL_FILE_H

#include <stdio.h>

/* fopen(path, mode) for reading a file: a directory fails here, with errno
 * EISDIR ("Is a directory"), instead of at the first read as an I/O error
 * (or as an empty file). NULL with errno set on failure. */
FILE *pc_fopen_read(const char *path, const char *mode);

/* A result file written where it will go, not yet visible: an unnamed file
 * in path's directory (O_TMPFILE), which no ending of the process can leave
 * behind, not even SIGKILL; where the file system has none, the named
 * tmp_path ("<path>.tmp-<pid>"), tracked (below). A path that is a device,
 * a FIFO or a socket (/dev/null, /dev/stdout) is opened as it is, and
 * written in place. NULL with errno set (the directory's error: ENOENT,
 * EACCES, ...). */
FILE *pc_tmp_create(const char *path, const char *tmp_path);
/* Close f and give it the name path (through tmp_path, then rename: a
 * reader sees the whole file or none). 0, or -errno with nothing left. */
int pc_tmp_place(FILE *f, const char *tmp_path, const char *path);
/* Close f and remove it. */
void pc_tmp_drop(FILE *f, const char *tmp_path);

/* The temporary files of the process (report/outputs.h's "<path>.tmp-<pid>"):
 * pc_tmp_track keeps path (not copied: it must stay until pc_tmp_untrack) so
 * that pc_tmp_remove_all can remove it; -1 when PC_TMP_MAX are kept already
 * (the file is then only removed by the code that made it). */
#define PC_TMP_MAX 64
int pc_tmp_track(const char *path);
void pc_tmp_untrack(const char *path);
/* Unlink every tracked file. Async-signal-safe: for the endings that do not
 * return through the code that made them (a signal's default action, the
 * script guard's _exit, MPI_Abort). */
void pc_tmp_remove_all(void);

/* For SIGINT, SIGTERM and SIGHUP whose action is the default one (not
 * ignored, not handled): a handler that removes the tracked files and
 * then dies of the signal as before (same exit status). The engine and
 * the script guard take the signals themselves while they run (blocked
 * and waited for, or their own handler); this covers the rest: setup(),
 * a script's main chunk, resolving names, writing the files. */
void pc_tmp_on_signals(void);

#endif
