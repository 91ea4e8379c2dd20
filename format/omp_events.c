/*
 * omp_events.c - OpenMP's event kinds (scope_omp.h) made into a table: the
 * rows of omp_events.def and the stored names of their enums. libc only,
 * no allocation: linked into the preload as into the reader.
 */
#include <string.h>

#include "scope_omp.h"

const struct scope_omp_event_info scope_omp_events[SCOPE_OMP_EVENTS] = {
    [SCOPE_OMP_NONE] = { NULL, SCOPE_OMPC_NONE, SCOPE_OMP_WAIT_NONE },
#define SCOPE_OMP_EVENT(id, nm, cls_, wait_) \
    [SCOPE_OMP_##id] = { nm, SCOPE_OMPC_##cls_, SCOPE_OMP_WAIT_##wait_ },
#include "omp_events.def"
#undef SCOPE_OMP_EVENT
};

int scope_omp_event_of(const char *region_name)
{
    /* every row's name starts so: one compare turns most names away */
    if (!region_name || strncmp(region_name, "omp ", 4) != 0)
        return SCOPE_OMP_NONE;
    for (int id = 1; id < SCOPE_OMP_EVENTS; id++)
        if (strcmp(region_name, scope_omp_events[id].name) == 0)
            return id;
    return SCOPE_OMP_NONE;
}

int scope_omp_event_for_wait(int wait, int want_wait)
{
    int cls = want_wait ? SCOPE_OMPC_WAIT : SCOPE_OMPC_SYNC;
    for (int id = 1; id < SCOPE_OMP_EVENTS && wait != SCOPE_OMP_WAIT_NONE; id++)
        if (scope_omp_events[id].cls == cls && scope_omp_events[id].wait == wait)
            return id;
    return SCOPE_OMP_NONE;
}

static const char *const class_names[SCOPE_OMPC_CLASSES] = {
    [SCOPE_OMPC_NONE] = "none", [SCOPE_OMPC_PARALLEL] = "parallel",
    [SCOPE_OMPC_IMPLICIT_TASK] = "implicit_task", [SCOPE_OMPC_TASK] = "task",
    [SCOPE_OMPC_WORK] = "work", [SCOPE_OMPC_SYNC] = "sync", [SCOPE_OMPC_WAIT] = "wait",
    [SCOPE_OMPC_MUTEX] = "mutex", [SCOPE_OMPC_THREAD] = "thread",
};

static const char *const wait_names[SCOPE_OMP_WAITS] = {
    [SCOPE_OMP_WAIT_NONE] = "none", [SCOPE_OMP_WAIT_IMPLICIT_BARRIER] = "implicit_barrier",
    [SCOPE_OMP_WAIT_BARRIER] = "barrier", [SCOPE_OMP_WAIT_TASKWAIT] = "taskwait",
    [SCOPE_OMP_WAIT_TASKGROUP] = "taskgroup", [SCOPE_OMP_WAIT_REDUCTION] = "reduction",
    [SCOPE_OMP_WAIT_LOCK] = "lock", [SCOPE_OMP_WAIT_CRITICAL] = "critical",
    [SCOPE_OMP_WAIT_ORDERED] = "ordered", [SCOPE_OMP_WAIT_ATOMIC] = "atomic",
};

const char *scope_omp_class_name(int cls)
{
    return cls >= 0 && cls < SCOPE_OMPC_CLASSES ? class_names[cls] : NULL;
}

const char *scope_omp_wait_name(int wait)
{
    return wait >= 0 && wait < SCOPE_OMP_WAITS ? wait_names[wait] : NULL;
}

const char *scope_omp_thread_type_name(int type)
{
    static const char *const names[] = { "", "initial", "worker", "other" };
    return type >= 0 && type < 4 ? names[type] : NULL;
}
