/*
 * ompt_abi.h - the part of the OpenMP tool interface (OMPT, OpenMP 5.0
 * chapter 4) the tool uses: the types and numbers of the runtime's binary
 * interface, written from the specification under names of our own.
 *
 * Why not the runtime's omp-tools.h: it ships with LLVM's compiler (in
 * clang's resource folder), not with the runtime, and scope builds with
 * any C compiler; these declarations are the standard's ABI, which every
 * OMPT runtime (LLVM's libomp, Intel's, AMD's, NVIDIA's) implements.
 * tests/omp/test_ompt_abi.c checks every value against omp-tools.h where
 * clang has one.
 */
#ifndef SCOPE_OMPT_ABI_H
#define SCOPE_OMPT_ABI_H

#include <stdint.h>

typedef union scope_ompt_data {
    uint64_t value;
    void *ptr;
} scope_ompt_data;

typedef struct scope_ompt_frame {
    scope_ompt_data exit_frame, enter_frame;
    int exit_frame_flags, enter_frame_flags;
} scope_ompt_frame;

typedef void (*scope_ompt_interface_fn)(void);
typedef scope_ompt_interface_fn (*scope_ompt_lookup)(const char *name);
typedef void (*scope_ompt_callback)(void);
typedef int (*scope_ompt_set_callback)(int event, scope_ompt_callback callback);

typedef int (*scope_ompt_initialize)(scope_ompt_lookup lookup, int initial_device_num,
                                     scope_ompt_data *tool_data);
typedef void (*scope_ompt_finalize)(scope_ompt_data *tool_data);

typedef struct scope_ompt_start_tool_result {
    scope_ompt_initialize initialize;
    scope_ompt_finalize finalize;
    scope_ompt_data tool_data;
} scope_ompt_start_tool_result;

/* ompt_callbacks_t: the events the tool registers */
enum {
    SCOPE_OMPT_CB_THREAD_BEGIN = 1,
    SCOPE_OMPT_CB_THREAD_END = 2,
    SCOPE_OMPT_CB_PARALLEL_BEGIN = 3,
    SCOPE_OMPT_CB_PARALLEL_END = 4,
    SCOPE_OMPT_CB_TASK_CREATE = 5,
    SCOPE_OMPT_CB_TASK_SCHEDULE = 6,
    SCOPE_OMPT_CB_IMPLICIT_TASK = 7,
    SCOPE_OMPT_CB_SYNC_REGION_WAIT = 16,
    SCOPE_OMPT_CB_WORK = 20,
    SCOPE_OMPT_CB_SYNC_REGION = 23,
    SCOPE_OMPT_CB_MUTEX_ACQUIRE = 26,
    SCOPE_OMPT_CB_MUTEX_ACQUIRED = 27,
    SCOPE_OMPT_CB_NEST_LOCK = 28,
    SCOPE_OMPT_CB_REDUCTION = 31,
};

/* ompt_set_result_t: what ompt_set_callback answers */
enum {
    SCOPE_OMPT_SET_ERROR = 0,
    SCOPE_OMPT_SET_NEVER = 1,
    SCOPE_OMPT_SET_IMPOSSIBLE = 2,
    SCOPE_OMPT_SET_SOMETIMES = 3,
    SCOPE_OMPT_SET_SOMETIMES_PAIRED = 4,
    SCOPE_OMPT_SET_ALWAYS = 5,
};

/* ompt_thread_t: a thread's type at its begin */
enum {
    SCOPE_OMPT_THREAD_INITIAL = 1,
    SCOPE_OMPT_THREAD_WORKER = 2,
    SCOPE_OMPT_THREAD_OTHER = 3,
    SCOPE_OMPT_THREAD_UNKNOWN = 4,
};

/* ompt_scope_endpoint_t */
enum { SCOPE_OMPT_SCOPE_BEGIN = 1, SCOPE_OMPT_SCOPE_END = 2, SCOPE_OMPT_SCOPE_BEGINEND = 3 };

/* ompt_work_t */
enum {
    SCOPE_OMPT_WORK_LOOP = 1,
    SCOPE_OMPT_WORK_SECTIONS = 2,
    SCOPE_OMPT_WORK_SINGLE_EXECUTOR = 3,
    SCOPE_OMPT_WORK_SINGLE_OTHER = 4,
    SCOPE_OMPT_WORK_WORKSHARE = 5,
    SCOPE_OMPT_WORK_DISTRIBUTE = 6,
    SCOPE_OMPT_WORK_TASKLOOP = 7,
};

/* ompt_sync_region_t */
enum {
    SCOPE_OMPT_SYNC_BARRIER = 1,    /* deprecated in 5.1: a barrier of either kind */
    SCOPE_OMPT_SYNC_BARRIER_IMPLICIT = 2,
    SCOPE_OMPT_SYNC_BARRIER_EXPLICIT = 3,
    SCOPE_OMPT_SYNC_BARRIER_IMPLEMENTATION = 4,
    SCOPE_OMPT_SYNC_TASKWAIT = 5,
    SCOPE_OMPT_SYNC_TASKGROUP = 6,
    SCOPE_OMPT_SYNC_REDUCTION = 7,
    SCOPE_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
    SCOPE_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
    SCOPE_OMPT_SYNC_BARRIER_TEAMS = 10,
};

/* ompt_mutex_t */
enum {
    SCOPE_OMPT_MUTEX_LOCK = 1,
    SCOPE_OMPT_MUTEX_TEST_LOCK = 2,
    SCOPE_OMPT_MUTEX_NEST_LOCK = 3,
    SCOPE_OMPT_MUTEX_TEST_NEST_LOCK = 4,
    SCOPE_OMPT_MUTEX_CRITICAL = 5,
    SCOPE_OMPT_MUTEX_ATOMIC = 6,
    SCOPE_OMPT_MUTEX_ORDERED = 7,
};

/* ompt_task_flag_t */
enum {
    SCOPE_OMPT_TASK_INITIAL = 0x1,
    SCOPE_OMPT_TASK_IMPLICIT = 0x2,
    SCOPE_OMPT_TASK_EXPLICIT = 0x4,
    SCOPE_OMPT_TASK_TARGET = 0x8,
    SCOPE_OMPT_TASK_TASKWAIT = 0x10,
};

/* ompt_task_status_t */
enum {
    SCOPE_OMPT_TASK_COMPLETE = 1,
    SCOPE_OMPT_TASK_YIELD = 2,
    SCOPE_OMPT_TASK_CANCEL = 3,
    SCOPE_OMPT_TASK_DETACH = 4,
    SCOPE_OMPT_TASK_EARLY_FULFILL = 5,
    SCOPE_OMPT_TASK_LATE_FULFILL = 6,
    SCOPE_OMPT_TASK_SWITCH = 7,
};

/* ompt_parallel_flag_t */
enum { SCOPE_OMPT_PARALLEL_LEAGUE = 0x40000000 };

#endif
