/*
 * scope_omp.h - OpenMP's event kinds, beside the vocabulary of intercepted
 * calls (scope_calls.h): what each region the OMPT tool records is
 * (omp_events.def: one row per kind), written once and asked by every
 * folder. The tool (preload/omp/) records each OMPT event as a region of
 * kind "omp" named by its row; the converter writes the per-call columns
 * its class carries (docs/format.md "OpenMP"); the reader's analysis
 * (work, waits, imbalance, efficiencies) and the exporters classify the
 * regions by it, never by a list of their own.
 *
 * A row says what the region is (its class) and, for waits, which kind of
 * wait; a synchronisation region names the kind of wait it contains. The
 * OMPT numbers (ompt_work_t, ompt_sync_region_t, ompt_mutex_t) are not
 * here: they are the runtime interface's, and only the tool reads them.
 *
 * libc only and no allocation; compiled once into format/omp_events.c.
 */
#ifndef SCOPE_OMP_H
#define SCOPE_OMP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an OpenMP region is. */
enum scope_omp_class {
    SCOPE_OMPC_NONE = 0,
    SCOPE_OMPC_PARALLEL,        /* a parallel region, on the thread that encountered it */
    SCOPE_OMPC_IMPLICIT_TASK,   /* one thread's part of a parallel region */
    SCOPE_OMPC_TASK,            /* an explicit task's execution */
    SCOPE_OMPC_WORK,            /* one thread's part of a work-sharing construct */
    SCOPE_OMPC_SYNC,            /* a synchronisation region (barrier, taskwait, ...) */
    SCOPE_OMPC_WAIT,            /* the wait inside a synchronisation region */
    SCOPE_OMPC_MUTEX,           /* the wait to acquire a lock, critical, ordered, atomic */
    SCOPE_OMPC_THREAD,          /* a thread's begin or end: a mark of no length */
    SCOPE_OMPC_CLASSES
};

/* Which kind of wait (the columns of `scope omp` and of the reader's
 * per-thread rows). A barrier the runtime adds on its own (OMPT's
 * implementation barrier) counts as implicit. */
enum scope_omp_wait {
    SCOPE_OMP_WAIT_NONE = 0,
    SCOPE_OMP_WAIT_IMPLICIT_BARRIER,
    SCOPE_OMP_WAIT_BARRIER,
    SCOPE_OMP_WAIT_TASKWAIT,
    SCOPE_OMP_WAIT_TASKGROUP,
    SCOPE_OMP_WAIT_REDUCTION,
    SCOPE_OMP_WAIT_LOCK,
    SCOPE_OMP_WAIT_CRITICAL,
    SCOPE_OMP_WAIT_ORDERED,
    SCOPE_OMP_WAIT_ATOMIC,
    SCOPE_OMP_WAITS
};

/* The event kinds: SCOPE_OMP_PARALLEL, ...; 0 is none. */
enum scope_omp_event {
    SCOPE_OMP_NONE = 0,
#define SCOPE_OMP_EVENT(id, name, cls, wait) SCOPE_OMP_##id,
#include "omp_events.def"
#undef SCOPE_OMP_EVENT
    SCOPE_OMP_EVENTS
};

/* The thread types of OMPT's thread begin (ompt_thread_t), by the row
 * their begin records as; 0 for any other event. Pure. */
enum scope_omp_thread_type {
    SCOPE_OMP_THREAD_NONE = 0,
    SCOPE_OMP_THREAD_INITIAL,
    SCOPE_OMP_THREAD_WORKER,
    SCOPE_OMP_THREAD_OTHER
};
static inline int scope_omp_thread_type_of(int event)
{
    return event == SCOPE_OMP_THREAD_BEGIN_INITIAL  ? SCOPE_OMP_THREAD_INITIAL
           : event == SCOPE_OMP_THREAD_BEGIN_WORKER ? SCOPE_OMP_THREAD_WORKER
           : event == SCOPE_OMP_THREAD_BEGIN_OTHER  ? SCOPE_OMP_THREAD_OTHER
                                                    : SCOPE_OMP_THREAD_NONE;
}

/* "initial", "worker", "other"; "" for none, NULL out of range. */
const char *scope_omp_thread_type_name(int type);

struct scope_omp_event_info {
    const char *name;       /* the region's name: "omp parallel" */
    uint8_t cls;            /* enum scope_omp_class */
    uint8_t wait;           /* enum scope_omp_wait */
};

/* The table, indexed by enum scope_omp_event (row 0: none, NULL name). */
extern const struct scope_omp_event_info scope_omp_events[SCOPE_OMP_EVENTS];

/* The row of `id`, or row 0 when out of range. Cost: none. */
static inline const struct scope_omp_event_info *scope_omp_event_at(int id)
{
    return &scope_omp_events[id > 0 && id < SCOPE_OMP_EVENTS ? id : 0];
}

/* The event kind a region's name is (exactly a row's name), 0 for any
 * other name. Cost: a pass over the ~25 rows; pure. */
int scope_omp_event_of(const char *region_name);

/* The event whose class is SCOPE_OMPC_WAIT (want_wait 1) or SYNC (0) and
 * whose wait kind is `wait`, 0 when none: the wait row a synchronisation
 * region contains, and back. Pure. */
int scope_omp_event_for_wait(int wait, int want_wait);

/* The stored names of the enums ("parallel", "implicit_barrier"); NULL
 * out of range. Cost: none. */
const char *scope_omp_class_name(int cls);
const char *scope_omp_wait_name(int wait);

#ifdef __cplusplus
}
#endif
#endif
