/*
 * serve.h - `pacer serve`, pacer's built-in HTTP/1.1 target server.
 *
 * A test target for demos and integration tests, not a web server: every
 * path answers 200 with a fixed body of --size bytes, except /status/NNN,
 * which answers with status NNN. Responses can be held back by --delay and
 * rate-limited by --capacity, which gives a server with a known latency and
 * a known throughput knee. Keep-alive, pipelining, HEAD and request bodies
 * (Content-Length or chunked, read and discarded) are supported.
 *
 * Options (long only; argv[0] is "serve"):
 *   --port N        TCP port (default 0: the kernel picks one)
 *   --bind ADDR     numeric IPv4/IPv6 address (default 127.0.0.1)
 *   --unix PATH     listen on a Unix-domain socket instead (removed at exit)
 *   --threads N     worker threads, each with its own epoll loop (default 1)
 *   --size BYTES    response body size (default 1024)
 *   --delay D       send each response D after its request was read
 *   --capacity R    serve at most R responses/s in total, queueing the rest
 *   --help          usage on stdout
 *
 * Once listening it prints one line to stdout:
 *   pacer serve: listening on http://127.0.0.1:PORT/   (or [ADDR] for IPv6,
 *   or unix:PATH)
 * and runs until SIGINT or SIGTERM, then prints to stderr
 *   pacer serve: N requests, M connections
 */
#ifndef PACER_SERVE_SERVE_H
#define PACER_SERVE_SERVE_H

/* Run the server. argv[0] is the subcommand name ("serve"); options follow.
 * (If argv[0] is itself an option, as when a driver passes argv + 1 of a
 * plain `prog --port 0`, it is parsed as one.)
 * Returns the process exit status: 0 after a clean stop by SIGINT/SIGTERM
 * (or --help), 1 if the server could not start or failed, 2 for bad
 * options (after one line on stderr). SIGINT and SIGTERM are blocked in the
 * calling thread while it runs and SIGPIPE is ignored; both are restored
 * before it returns. */
int serve_main(int argc, char **argv);

#endif
