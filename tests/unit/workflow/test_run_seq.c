/*
 * test_run_seq.c - the one run sequence (wf_run_seq) that `pacer URL` and
 * every workflow run go through: the hooks run once each, in order
 * (prepared, starting, finished), the finished hook's code is the run's, and
 * a step that fails ends the sequence with its exit code before the load.
 *
 * The target is a loopback port bound but not listening: every connect is
 * refused at once, so a run is quick and needs no server.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "workflow/workflow.h"
#include "unit.h"

static char url[64];
static int holder = -1; /* keeps the port ours, and closed */

static int hold_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof a;

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    holder = socket(AF_INET, SOCK_STREAM, 0);
    if (holder < 0 || bind(holder, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(holder, (struct sockaddr *)&a, &len) < 0)
        return -1;
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", ntohs(a.sin_port));
    return 0;
}

/* A 100 ms run of one connection at url (plus extra, may be NULL). */
static int parse(pc_config *cfg, const char *extra)
{
    char *argv[] = {"pacer", "-t1", "-c1", "-d100ms", "--quiet", url, (char *)extra, NULL};
    FILE *out = fopen("/dev/null", "w");
    int rc;

    if (!out)
        return -1;
    rc = cli_parse(extra ? 7 : 6, argv, cfg, out, out);
    fclose(out);
    return rc;
}

typedef struct trace {
    char order[16];
    int prepared_rc;
    int finished_code;
    bool had_engine;
} trace;

static void mark(trace *t, char c)
{
    size_t n = strlen(t->order);

    if (n + 1 < sizeof t->order)
        t->order[n] = c;
}

static int on_prepared(void *ud, pc_engine *eng, pc_results *res, char *err, size_t errlen)
{
    trace *t = ud;

    (void)res;
    mark(t, 'p');
    t->had_engine = eng != NULL;
    if (t->prepared_rc < 0)
        snprintf(err, errlen, "cannot open the result files (test)");
    return t->prepared_rc;
}

static void on_starting(void *ud)
{
    mark(ud, 's');
}

static int on_finished(void *ud, const pc_results *res)
{
    trace *t = ud;

    mark(t, res->st.connect_errors > 0 ? 'f' : 'F');
    return t->finished_code;
}

/* Run the sequence with stderr (its "pacer: ..." lines) silenced. */
static int run_quietly(const pc_config *cfg, const wf_steps *st, pc_results *res)
{
    int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY), code;

    fflush(stderr);
    dup2(null, STDERR_FILENO);
    code = wf_run_seq(cfg, st, res);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(null);
    return code;
}

static void test_hooks_in_order(void)
{
    pc_config cfg;
    pc_results res;
    trace t = {.finished_code = PC_EXIT_RUNTIME};
    wf_steps st = {.ud = &t, .prepared = on_prepared, .starting = on_starting,
                   .finished = on_finished};
    int code;

    CHECK(parse(&cfg, NULL) == CLI_RUN);
    code = run_quietly(&cfg, &st, &res);
    /* the connects were refused, so finished saw the run's results */
    CHECK_EQ_STR(t.order, "psf");
    CHECK(t.had_engine);
    CHECK_EQ_I64(code, PC_EXIT_RUNTIME); /* finished's code is the run's */
    CHECK_EQ_U64(res.st.completed, 0);
    results_free(&res);
    cli_free(&cfg);
}

static void test_prepared_fails(void)
{
    pc_config cfg;
    pc_results res;
    trace t = {.prepared_rc = -1};
    wf_steps st = {.ud = &t, .prepared = on_prepared, .starting = on_starting,
                   .finished = on_finished};

    CHECK(parse(&cfg, NULL) == CLI_RUN);
    CHECK_EQ_I64(run_quietly(&cfg, &st, &res), PC_EXIT_RUNTIME);
    CHECK_EQ_STR(t.order, "p"); /* no header, no load, no report */
    CHECK_EQ_U64(res.st.scheduled, 0);
    results_free(&res);
    cli_free(&cfg);
}

static void test_script_fails_to_load(void)
{
    pc_config cfg;
    pc_results res;
    trace t = {0};
    wf_steps st = {.ud = &t, .prepared = on_prepared, .starting = on_starting,
                   .finished = on_finished};
    const char *tmp = getenv("TMPDIR");
    char path[512], flag[600];
    int fd, code;
    FILE *f;

    snprintf(path, sizeof path, "%s/pacer-run-seq.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK((fd = mkstemp(path)) >= 0);
    CHECK((f = fdopen(fd, "w")) != NULL);
    fputs("this is not lua\n", f);
    CHECK(fclose(f) == 0);
    snprintf(flag, sizeof flag, "--script=%s", path);
    CHECK(parse(&cfg, flag) == CLI_RUN);
    code = run_quietly(&cfg, &st, &res);
    unlink(path);
    CHECK_EQ_I64(code, PC_EXIT_SCRIPT);
    CHECK_EQ_STR(t.order, "p"); /* the files were opened first, as before */
    results_free(&res);
    cli_free(&cfg);
}

static void test_no_hooks(void)
{
    pc_config cfg;
    pc_results res;
    wf_steps st = {0};

    CHECK(parse(&cfg, NULL) == CLI_RUN);
    CHECK_EQ_I64(run_quietly(&cfg, &st, &res), PC_EXIT_OK);
    CHECK(res.st.connect_errors > 0);
    CHECK(res.stopped_by != NULL);
    results_free(&res);
    cli_free(&cfg);
}

int main(void)
{
    if (hold_port() < 0) {
        fprintf(stderr, "cannot bind a loopback port\n");
        return 1;
    }
    RUN(test_hooks_in_order);
    RUN(test_prepared_fails);
    RUN(test_script_fails_to_load);
    RUN(test_no_hooks);
    close(holder);
    return unit_done();
}
