/*
 * test_ompt_abi.c - preload/omp/ompt_abi.h, our declarations of the OpenMP
 * tool interface, against the runtime's own omp-tools.h (clang's resource
 * folder): every value and layout the tool relies on. Compile-time checks;
 * the program only says so.
 */
#include <omp-tools.h>
#include <stddef.h>
#include <stdio.h>

#include "ompt_abi.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " == " #b)

SAME(SCOPE_OMPT_CB_THREAD_BEGIN, ompt_callback_thread_begin);
SAME(SCOPE_OMPT_CB_THREAD_BEGIN, ompt_callback_thread_begin);
SAME(SCOPE_OMPT_CB_THREAD_END, ompt_callback_thread_end);
SAME(SCOPE_OMPT_THREAD_INITIAL, ompt_thread_initial);
SAME(SCOPE_OMPT_THREAD_WORKER, ompt_thread_worker);
SAME(SCOPE_OMPT_THREAD_OTHER, ompt_thread_other);
SAME(SCOPE_OMPT_THREAD_UNKNOWN, ompt_thread_unknown);
SAME(SCOPE_OMPT_CB_PARALLEL_BEGIN, ompt_callback_parallel_begin);
SAME(SCOPE_OMPT_CB_PARALLEL_END, ompt_callback_parallel_end);
SAME(SCOPE_OMPT_CB_TASK_CREATE, ompt_callback_task_create);
SAME(SCOPE_OMPT_CB_TASK_SCHEDULE, ompt_callback_task_schedule);
SAME(SCOPE_OMPT_CB_IMPLICIT_TASK, ompt_callback_implicit_task);
SAME(SCOPE_OMPT_CB_SYNC_REGION_WAIT, ompt_callback_sync_region_wait);
SAME(SCOPE_OMPT_CB_WORK, ompt_callback_work);
SAME(SCOPE_OMPT_CB_SYNC_REGION, ompt_callback_sync_region);
SAME(SCOPE_OMPT_CB_MUTEX_ACQUIRE, ompt_callback_mutex_acquire);
SAME(SCOPE_OMPT_CB_MUTEX_ACQUIRED, ompt_callback_mutex_acquired);
SAME(SCOPE_OMPT_CB_NEST_LOCK, ompt_callback_nest_lock);
SAME(SCOPE_OMPT_CB_REDUCTION, ompt_callback_reduction);
SAME(SCOPE_OMPT_SET_ALWAYS, ompt_set_always);
SAME(SCOPE_OMPT_SET_NEVER, ompt_set_never);
SAME(SCOPE_OMPT_SCOPE_BEGIN, ompt_scope_begin);
SAME(SCOPE_OMPT_SCOPE_END, ompt_scope_end);
SAME(SCOPE_OMPT_WORK_LOOP, ompt_work_loop);
SAME(SCOPE_OMPT_WORK_SECTIONS, ompt_work_sections);
SAME(SCOPE_OMPT_WORK_SINGLE_EXECUTOR, ompt_work_single_executor);
SAME(SCOPE_OMPT_WORK_SINGLE_OTHER, ompt_work_single_other);
SAME(SCOPE_OMPT_WORK_WORKSHARE, ompt_work_workshare);
SAME(SCOPE_OMPT_WORK_DISTRIBUTE, ompt_work_distribute);
SAME(SCOPE_OMPT_WORK_TASKLOOP, ompt_work_taskloop);
SAME(SCOPE_OMPT_SYNC_BARRIER_IMPLICIT, ompt_sync_region_barrier_implicit);
SAME(SCOPE_OMPT_SYNC_BARRIER_EXPLICIT, ompt_sync_region_barrier_explicit);
SAME(SCOPE_OMPT_SYNC_BARRIER_IMPLEMENTATION, ompt_sync_region_barrier_implementation);
SAME(SCOPE_OMPT_SYNC_TASKWAIT, ompt_sync_region_taskwait);
SAME(SCOPE_OMPT_SYNC_TASKGROUP, ompt_sync_region_taskgroup);
SAME(SCOPE_OMPT_SYNC_REDUCTION, ompt_sync_region_reduction);
SAME(SCOPE_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE, ompt_sync_region_barrier_implicit_workshare);
SAME(SCOPE_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL, ompt_sync_region_barrier_implicit_parallel);
SAME(SCOPE_OMPT_SYNC_BARRIER_TEAMS, ompt_sync_region_barrier_teams);
SAME(SCOPE_OMPT_MUTEX_LOCK, ompt_mutex_lock);
SAME(SCOPE_OMPT_MUTEX_TEST_LOCK, ompt_mutex_test_lock);
SAME(SCOPE_OMPT_MUTEX_NEST_LOCK, ompt_mutex_nest_lock);
SAME(SCOPE_OMPT_MUTEX_TEST_NEST_LOCK, ompt_mutex_test_nest_lock);
SAME(SCOPE_OMPT_MUTEX_CRITICAL, ompt_mutex_critical);
SAME(SCOPE_OMPT_MUTEX_ATOMIC, ompt_mutex_atomic);
SAME(SCOPE_OMPT_MUTEX_ORDERED, ompt_mutex_ordered);
SAME(SCOPE_OMPT_TASK_INITIAL, ompt_task_initial);
SAME(SCOPE_OMPT_TASK_IMPLICIT, ompt_task_implicit);
SAME(SCOPE_OMPT_TASK_EXPLICIT, ompt_task_explicit);
SAME(SCOPE_OMPT_TASK_TASKWAIT, ompt_task_taskwait);
SAME(SCOPE_OMPT_TASK_COMPLETE, ompt_task_complete);
SAME(SCOPE_OMPT_TASK_YIELD, ompt_task_yield);
SAME(SCOPE_OMPT_TASK_CANCEL, ompt_task_cancel);
SAME(SCOPE_OMPT_TASK_DETACH, ompt_task_detach);
SAME(SCOPE_OMPT_TASK_EARLY_FULFILL, ompt_task_early_fulfill);
SAME(SCOPE_OMPT_TASK_LATE_FULFILL, ompt_task_late_fulfill);
SAME(SCOPE_OMPT_TASK_SWITCH, ompt_task_switch);
SAME(SCOPE_OMPT_PARALLEL_LEAGUE, ompt_parallel_league);
_Static_assert(sizeof(scope_ompt_data) == sizeof(ompt_data_t), "ompt_data_t");
_Static_assert(sizeof(scope_ompt_frame) == sizeof(ompt_frame_t), "ompt_frame_t");
_Static_assert(offsetof(scope_ompt_frame, enter_frame) == offsetof(ompt_frame_t, enter_frame),
               "ompt_frame_t.enter_frame");
_Static_assert(sizeof(scope_ompt_start_tool_result) == sizeof(ompt_start_tool_result_t),
               "ompt_start_tool_result_t");
_Static_assert(offsetof(scope_ompt_start_tool_result, tool_data) ==
                   offsetof(ompt_start_tool_result_t, tool_data),
               "ompt_start_tool_result_t.tool_data");

int main(void)
{
    puts("ompt_abi.h agrees with omp-tools.h");
    return 0;
}
