/*
 * omp_null_tool.c - an OMPT tool that registers the callbacks scope's tool
 * registers (preload/omp/omp_tool.c) and does nothing in them: what the
 * OpenMP runtime's tool interface costs by itself, the floor under any
 * OMPT tool (scope's, Score-P's, Caliper's). bench_omp.py runs the EPCC
 * constructs under it (LD_PRELOAD=libomp_null_tool.so) beside bare and
 * scope, so that the profiler's own part of an overhead is told from the
 * runtime's (libomp takes other paths when a tool is active: it builds
 * task and frame information and calls through its dispatch at every
 * event).
 */
#include "ompt_abi.h"

#define TOOL_API __attribute__((visibility("default")))

static void nothing(void)
{
}

static int initialize(scope_ompt_lookup lookup, int device, scope_ompt_data *data)
{
    (void)device, (void)data;
    scope_ompt_set_callback set = (scope_ompt_set_callback)lookup("ompt_set_callback");
    if (!set)
        return 0;
    static const int events[] = {
        SCOPE_OMPT_CB_THREAD_BEGIN, SCOPE_OMPT_CB_THREAD_END, SCOPE_OMPT_CB_PARALLEL_BEGIN,
        SCOPE_OMPT_CB_PARALLEL_END, SCOPE_OMPT_CB_IMPLICIT_TASK, SCOPE_OMPT_CB_WORK,
        SCOPE_OMPT_CB_SYNC_REGION, SCOPE_OMPT_CB_SYNC_REGION_WAIT, SCOPE_OMPT_CB_REDUCTION,
        SCOPE_OMPT_CB_MUTEX_ACQUIRE, SCOPE_OMPT_CB_MUTEX_ACQUIRED, SCOPE_OMPT_CB_NEST_LOCK,
        SCOPE_OMPT_CB_TASK_CREATE, SCOPE_OMPT_CB_TASK_SCHEDULE,
    };
    for (unsigned i = 0; i < sizeof events / sizeof *events; i++)
        set(events[i], nothing);
    return 1;
}

static void finalize(scope_ompt_data *data)
{
    (void)data;
}

TOOL_API scope_ompt_start_tool_result *ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime)
{
    (void)omp_version, (void)runtime;
    static scope_ompt_start_tool_result result = { initialize, finalize, { 0 } };
    return &result;
}
