/*
 * test_exit_code.c - the exit status of a run and of every workflow, in
 * one order (config.h): an error met on the way, then a signal, then no
 * response, then a failed --slo; a run that could not finish: the signal,
 * then the script, then a runtime error.
 */
#include <signal.h>

#include "config.h"
#include "unit.h"

static void test_precedence(void)
{
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_OK, 0, false, false), PC_EXIT_OK);
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_OK, 0, false, true), PC_EXIT_SLO);
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_OK, 0, true, true), PC_EXIT_NO_RESPONSE);
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_OK, SIGINT, true, true), PC_EXIT_SIGINT);
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_OK, SIGTERM, true, true), PC_EXIT_SIGTERM);
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_RUNTIME, SIGINT, true, true), PC_EXIT_RUNTIME);
    CHECK_EQ_I64(pc_exit_code(PC_EXIT_SCRIPT, SIGTERM, false, false), PC_EXIT_SCRIPT);
}

static void test_failed_run(void)
{
    CHECK_EQ_I64(pc_exit_failed(SIGINT, true), PC_EXIT_SIGINT);
    CHECK_EQ_I64(pc_exit_failed(SIGTERM, false), PC_EXIT_SIGTERM);
    CHECK_EQ_I64(pc_exit_failed(0, true), PC_EXIT_SCRIPT);
    CHECK_EQ_I64(pc_exit_failed(0, false), PC_EXIT_RUNTIME);
}

static void test_signal_names(void)
{
    CHECK_EQ_STR(pc_signal_name(SIGINT), "SIGINT");
    CHECK_EQ_STR(pc_signal_name(SIGTERM), "SIGTERM");
    CHECK_EQ_I64(pc_exit_signal(0), PC_EXIT_OK);
    CHECK_EQ_I64(pc_exit_signal(SIGINT), 130);
    CHECK_EQ_I64(pc_exit_signal(SIGTERM), 143);
}

int main(void)
{
    RUN(test_precedence);
    RUN(test_failed_run);
    RUN(test_signal_names);
    return unit_done();
}
