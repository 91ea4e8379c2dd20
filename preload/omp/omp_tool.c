/*
 * omp_tool.c - the OpenMP capture: an OMPT tool that records what the
 * OpenMP runtime reports as regions of kind "omp" (format/scope_omp.h
 * names them): parallel regions on the thread that encountered them, each
 * thread's implicit task, work-sharing constructs with their iteration
 * counts, synchronisation regions and the waits inside them, the waits to
 * acquire locks, critical, ordered and atomic, and explicit tasks' runs.
 *
 * Each thread's begin (with its type: initial, worker, other) and end are
 * marks of no length.
 *
 * The runtime finds the tool through ompt_start_tool, which the preload
 * exports (OpenMP 5.0 section 4.2.1): LLVM's libomp and the runtimes
 * built on it (icx, AOCC, nvc) call it when they start. GCC's libgomp has
 * no tool interface; scope__omp_check_runtime() says so.
 *
 * The callbacks run on the program's threads inside its parallel
 * regions, so they obey the hot path's rules (runtime/README.md): the
 * thread's state in initial-exec TLS, no lock, no allocation, no system
 * call, one journal record per event. What an event needs beyond its
 * region and time rides in the record's aux (format/journal.h): a
 * construct is its code address (codeptr_ra) as a call site, stored as
 * (object, offset) through the engine's call-site cache (one probe once
 * the construct was seen: the first time takes the slow path, once per
 * construct); a parallel region gets an instance number, which its
 * implicit tasks carry, so that the converter and the reader tie each
 * thread's part to its region.
 *
 * LLVM's runtime reports the end of a worker's implicit task, and of the
 * implicit barrier wait at its end, only when the worker is released for
 * the next parallel region (or at exit): its wait would contain all the
 * serial time between the two regions. They are recorded when reported,
 * and the converter puts them at their region's end (convert/omp_calls.c),
 * which it knows from the region's own end record: no thread here reads
 * what another wrote (a table of the regions' ends that the workers read
 * cost each of them a cache miss per region, on the path of the next
 * fork). Those of the last region before recording stopped never come;
 * the converter closes them there too.
 *
 * The state a construct needs from its begin to its end lives in the
 * ompt_data_t the runtime keeps for it (parallel_data, task_data), else
 * in this thread's TLS (a stack of whether each open synchronisation scope
 * was recorded, so that an end whose begin came before recording started
 * writes nothing; the work-sharing constructs open, with their implicit
 * task, so that one whose end never comes is ended at the next construct,
 * barrier or task end: close_work).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "callsites.h"
#include "capture.h"
#include "journal.h"
#include "lifecycle.h"
#include "omp_tool.h"
#include "ompt_abi.h"
#include "scope_internal.h"
#include "scope_omp.h"

#define TOOL_API __attribute__((visibility("default")))

/* the marks of what this tool put in a runtime's ompt_data_t */
#define PAR_MARK (1ull << 63)           /* parallel_data: recorded */
#define TASK_MARK (1ull << 63)          /* an explicit task's data */
#define TASK_STARTED (1ull << 61)       /*   its run's begin is recorded */
#define IT_MARK (1ull << 62)            /* an implicit task's data: recorded */
#define INSTANCE_MAX 0x7fffffffu        /* instances 1 .. 2^31 - 1 */
#define WORK_DEPTH 16u                  /* work-sharing constructs open at once
                                           (one per level of nested parallelism) */

static volatile int recording;          /* on_lifecycle */
static _Atomic int tool_started;        /* a runtime called initialize */
static _Atomic int ids_ready;
static int32_t ids[SCOPE_OMP_EVENTS];   /* recorder region of each event */
/* Written by the thread that starts a parallel region (or a task's first
 * run), read by nobody else on the hot path: each on a line of its own,
 * since the flags and ids above are read by every thread at every event
 * (sharing their line, each parallel region's fetch_add cost the workers a
 * cache miss per event). */
static struct { _Alignas(64) _Atomic uint32_t v; } next_instance_line, next_tag_line;
static const char *runtime_version;

/* A work-sharing construct open on this thread (recorded). */
struct work_open {
    int32_t id;             /* its region */
    uint32_t count;         /* its iterations, for its end */
    const void *task;       /* the task_data of the implicit task it is in */
};

struct omp_tls {
    uint64_t recorded;      /* bit d: the scope open at depth d was recorded */
    uint32_t depth;         /* sync regions and waits open */
    uint32_t nwork;         /* work-sharing constructs open (nested parallelism) */
    struct work_open work[WORK_DEPTH];
    int32_t mutex;          /* region of the open mutex wait + 1; 0 none */
    uint32_t tag;           /* this thread, for explicit tasks; 0 until needed */
};
static __thread struct omp_tls tls __attribute__((tls_model("initial-exec")));

/* The lifecycle's word (../lifecycle.h): the recorder started, with the
 * program's libraries loaded, or recording stopped for good. An OpenMP
 * program records its constructs from the start: they are its reason. */
static void on_lifecycle(enum scope__lifecycle_event ev)
{
    if (ev == SCOPE_LIFECYCLE_STARTED) {
        recording = 1;
        scope__omp_check_runtime(scope__omp_tool_started());
    } else if (ev == SCOPE_LIFECYCLE_STOPPING) {
        recording = 0;
    }
}

__attribute__((constructor(SCOPE_CAPTURE_CTOR_PRIORITY))) static void watch_lifecycle(void)
{
    scope__lifecycle_watch(on_lifecycle);
}

/* The regions and the runtime in /metadata, once per process, by the
 * first event recorded (the recorder's lock; a thread that comes at the
 * same moment waits for it). */
static void define_regions_once(void)
{
    for (int e = 1; e < SCOPE_OMP_EVENTS; e++)
        ids[e] = scope__region_ex(scope_omp_event_at(e)->name, SCOPE_KIND_OMP, NULL, NULL);
    if (runtime_version)
        scope__set_metadata("openmp_runtime", runtime_version);
    atomic_store_explicit(&ids_ready, 1, memory_order_release);
}

static __attribute__((noinline)) void define_regions(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, define_regions_once);
}

/* 1 when events are to be recorded now. */
static inline int on(void)
{
    if (__builtin_expect(!recording, 0))
        return 0;
    if (__builtin_expect(!atomic_load_explicit(&ids_ready, memory_order_acquire), 0))
        define_regions();
    return 1;
}

static inline uint32_t site_of(const void *codeptr)
{
    if (!codeptr)
        return 0;
    int32_t s = scope__callsite_get((uintptr_t)codeptr, NULL, 1);
    return s > 0 ? (uint32_t)s : 0;
}

/* --- the scopes open on this thread (sync regions, waits) ----------------- */

static inline void push(int rec)
{
    uint32_t d = tls.depth++;
    if (d < 64)
        tls.recorded = (tls.recorded & ~(1ull << d)) | ((uint64_t)(rec != 0) << d);
}

static inline int pop(void)
{
    if (tls.depth == 0)
        return 0;   /* its begin came before this tool started */
    uint32_t d = --tls.depth;
    return d < 64 && (tls.recorded >> d & 1);
}

/* The thread number in its team of the implicit task whose task_data
 * this tool marked (0: the region's primary thread, or not marked). */
static inline uint32_t task_thread(const scope_ompt_data *td)
{
    return td && (td->value & IT_MARK) ? (uint32_t)(td->value >> 32) & 0x3fffffffu : 0;
}

/* Ends the work-sharing construct open in implicit task `task`, if one
 * is. Work-sharing constructs do not nest inside one implicit task, and
 * no barrier is inside one: a construct still open at the next one's
 * begin, at a barrier or at the task's end is one whose end the runtime
 * never reports (a GCC-built `single` run by LLVM's GOMP_single_start:
 * no end event), and it ends there. */
static inline void close_work(const void *task)
{
    if (tls.nwork && tls.work[tls.nwork - 1].task == task) {
        const struct work_open *w = &tls.work[--tls.nwork];
        scope__end_aux(w->id, scope_omp_end_aux(w->count));
    }
}

/* --- callbacks ------------------------------------------------------------- */

/* A thread's begin and end: a mark of no length (a begin with no aux
 * whose end finds it the thread's latest record completes it in place:
 * one record). The type rides in the row (format/omp_events.def), since
 * a complete record's aux is its length. */
static inline void mark(int ev)
{
    if (!on())
        return;
    scope__begin_aux(ids[ev], 0);
    scope_end(ids[ev]);
}

static void on_thread_begin(int type, scope_ompt_data *thread)
{
    (void)thread;
    mark(type == SCOPE_OMPT_THREAD_INITIAL  ? SCOPE_OMP_THREAD_BEGIN_INITIAL
         : type == SCOPE_OMPT_THREAD_WORKER ? SCOPE_OMP_THREAD_BEGIN_WORKER
                                            : SCOPE_OMP_THREAD_BEGIN_OTHER);
}

static void on_thread_end(scope_ompt_data *thread)
{
    (void)thread;
    mark(SCOPE_OMP_THREAD_END);
}

static void on_parallel_begin(scope_ompt_data *task, const scope_ompt_frame *frame,
                              scope_ompt_data *parallel, unsigned requested, int flags,
                              const void *codeptr)
{
    (void)task, (void)frame, (void)requested;
    parallel->value = 0;
    if ((flags & SCOPE_OMPT_PARALLEL_LEAGUE) || !on())
        return;
    uint32_t inst = atomic_fetch_add_explicit(&next_instance_line.v, 1, memory_order_relaxed) %
                    INSTANCE_MAX + 1;
    uint32_t site = site_of(codeptr);
    parallel->value = PAR_MARK | (uint64_t)(site & 0x7fffffffu) << 32 | inst;
    scope__begin_aux(ids[SCOPE_OMP_PARALLEL], inst);
}

static void on_parallel_end(scope_ompt_data *parallel, scope_ompt_data *task, int flags,
                            const void *codeptr)
{
    (void)task, (void)flags, (void)codeptr;
    uint64_t v = parallel->value;
    if (!(v & PAR_MARK))
        return;
    parallel->value = 0;
    scope__end_aux(ids[SCOPE_OMP_PARALLEL], scope_omp_end_aux((v >> 32) & 0x7fffffffu));
}

static void on_implicit_task(int endpoint, scope_ompt_data *parallel, scope_ompt_data *task,
                             unsigned actual, unsigned index, int flags)
{
    (void)actual;
    if (!(flags & SCOPE_OMPT_TASK_IMPLICIT))
        return;     /* the initial task of a thread, or of a league's team */
    if (endpoint == SCOPE_OMPT_SCOPE_BEGIN) {
        task->value = 0;
        if (!on())
            return;
        uint32_t inst = parallel && (parallel->value & PAR_MARK) ? (uint32_t)parallel->value : 0;
        uint32_t thread = index > SCOPE_OMP_THREAD_MAX ? SCOPE_OMP_THREAD_MAX : index;
        task->value = IT_MARK | (uint64_t)thread << 32 | inst;
        scope__begin_aux(ids[SCOPE_OMP_IMPLICIT_TASK], scope_omp_task_aux(inst, thread));
        return;
    }
    if (!task || !(task->value & IT_MARK))
        return;
    close_work(task);
    task->value = 0;
    scope_end(ids[SCOPE_OMP_IMPLICIT_TASK]);
}

static int work_event(int wstype)
{
    switch (wstype) {
    case SCOPE_OMPT_WORK_LOOP: return SCOPE_OMP_LOOP;
    case SCOPE_OMPT_WORK_SECTIONS: return SCOPE_OMP_SECTIONS;
    case SCOPE_OMPT_WORK_SINGLE_EXECUTOR: return SCOPE_OMP_SINGLE;
    case SCOPE_OMPT_WORK_WORKSHARE: return SCOPE_OMP_WORKSHARE;
    case SCOPE_OMPT_WORK_DISTRIBUTE: return SCOPE_OMP_DISTRIBUTE;
    case SCOPE_OMPT_WORK_TASKLOOP: return SCOPE_OMP_TASKLOOP;
    default: return 0;  /* the threads that skip a single, an unknown kind */
    }
}

static void on_work(int wstype, int endpoint, scope_ompt_data *parallel, scope_ompt_data *task,
                    uint64_t count, const void *codeptr)
{
    (void)parallel;
    int ev = work_event(wstype);
    if (!ev)
        return;
    if (endpoint == SCOPE_OMPT_SCOPE_BEGIN) {
        close_work(task);
        if (!on() || tls.nwork == WORK_DEPTH)
            return;
        uint32_t n = count > SCOPE_OMP_END_VALUE_MAX ? SCOPE_OMP_END_VALUE_MAX : (uint32_t)count;
        tls.work[tls.nwork++] = (struct work_open){ ids[ev], n, task };
        scope__begin_aux(ids[ev], site_of(codeptr));
        return;
    }
    /* its own end: the construct on top, of this task and this kind */
    if (tls.nwork && tls.work[tls.nwork - 1].task == task && tls.work[tls.nwork - 1].id == ids[ev])
        close_work(task);
}

/* The synchronisation region of an OMPT kind, or its wait. */
static int sync_event(int kind, int wait)
{
    int w;
    switch (kind) {
    case SCOPE_OMPT_SYNC_BARRIER:
    case SCOPE_OMPT_SYNC_BARRIER_EXPLICIT: w = SCOPE_OMP_WAIT_BARRIER; break;
    case SCOPE_OMPT_SYNC_BARRIER_IMPLICIT:
    case SCOPE_OMPT_SYNC_BARRIER_IMPLEMENTATION:
    case SCOPE_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE:
    case SCOPE_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL:
    case SCOPE_OMPT_SYNC_BARRIER_TEAMS: w = SCOPE_OMP_WAIT_IMPLICIT_BARRIER; break;
    case SCOPE_OMPT_SYNC_TASKWAIT: w = SCOPE_OMP_WAIT_TASKWAIT; break;
    case SCOPE_OMPT_SYNC_TASKGROUP: w = SCOPE_OMP_WAIT_TASKGROUP; break;
    case SCOPE_OMPT_SYNC_REDUCTION: w = SCOPE_OMP_WAIT_REDUCTION; break;
    default: return 0;
    }
    switch (w) {    /* constant rows: no search of the table per event */
    case SCOPE_OMP_WAIT_BARRIER: return wait ? SCOPE_OMP_BARRIER_WAIT : SCOPE_OMP_BARRIER;
    case SCOPE_OMP_WAIT_IMPLICIT_BARRIER:
        return wait ? SCOPE_OMP_IMPLICIT_BARRIER_WAIT : SCOPE_OMP_IMPLICIT_BARRIER;
    case SCOPE_OMP_WAIT_TASKWAIT: return wait ? SCOPE_OMP_TASKWAIT_WAIT : SCOPE_OMP_TASKWAIT;
    case SCOPE_OMP_WAIT_TASKGROUP: return wait ? SCOPE_OMP_TASKGROUP_WAIT : SCOPE_OMP_TASKGROUP;
    default: return wait ? SCOPE_OMP_REDUCTION_WAIT : SCOPE_OMP_REDUCTION;
    }
}

static inline void sync_scope(int ev, int endpoint, scope_ompt_data *task, const void *codeptr)
{
    if (!ev)
        return;
    if (endpoint == SCOPE_OMPT_SCOPE_BEGIN) {
        int w = scope_omp_event_at(ev)->wait;
        if (w == SCOPE_OMP_WAIT_BARRIER || w == SCOPE_OMP_WAIT_IMPLICIT_BARRIER)
            close_work(task);
        int rec = on();
        push(rec);
        if (rec)
            scope__begin_aux(ids[ev], site_of(codeptr));
        return;
    }
    if (!pop())
        return;
    /* A worker's implicit barrier wait may end late (the head comment): as
     * a record of its own, never completing its begin in place, since the
     * converter merges a completed record at its begin, before the
     * region's end it is to be put at. */
    if (ev == SCOPE_OMP_IMPLICIT_BARRIER_WAIT && task_thread(task))
        scope__end_aux(ids[ev], 0);
    else
        scope_end(ids[ev]);
}

static void on_sync_region(int kind, int endpoint, scope_ompt_data *parallel,
                           scope_ompt_data *task, const void *codeptr)
{
    (void)parallel;
    sync_scope(sync_event(kind, 0), endpoint, task, codeptr);
}

static void on_sync_wait(int kind, int endpoint, scope_ompt_data *parallel, scope_ompt_data *task,
                         const void *codeptr)
{
    (void)parallel;
    sync_scope(sync_event(kind, 1), endpoint, task, codeptr);
}

static int mutex_event(int kind)
{
    switch (kind) {
    case SCOPE_OMPT_MUTEX_LOCK:
    case SCOPE_OMPT_MUTEX_NEST_LOCK: return SCOPE_OMP_LOCK_WAIT;
    case SCOPE_OMPT_MUTEX_CRITICAL: return SCOPE_OMP_CRITICAL_WAIT;
    case SCOPE_OMPT_MUTEX_ATOMIC: return SCOPE_OMP_ATOMIC_WAIT;
    case SCOPE_OMPT_MUTEX_ORDERED: return SCOPE_OMP_ORDERED_WAIT;
    default: return 0;  /* omp_test_lock: it never waits */
    }
}

static void on_mutex_acquire(int kind, unsigned hint, unsigned impl, uint64_t wait_id,
                             const void *codeptr)
{
    (void)hint, (void)impl, (void)wait_id;
    int ev = mutex_event(kind);
    if (!ev || tls.mutex || !on())
        return;
    scope__begin_aux(ids[ev], site_of(codeptr));
    tls.mutex = ids[ev] + 1;
}

static inline void mutex_got(void)
{
    if (tls.mutex) {
        scope_end(tls.mutex - 1);
        tls.mutex = 0;
    }
}

static void on_mutex_acquired(int kind, uint64_t wait_id, const void *codeptr)
{
    (void)kind, (void)wait_id, (void)codeptr;
    mutex_got();
}

static void on_nest_lock(int endpoint, uint64_t wait_id, const void *codeptr)
{
    (void)wait_id, (void)codeptr;
    if (endpoint == SCOPE_OMPT_SCOPE_BEGIN)
        mutex_got();    /* a nested lock taken again: its wait is over */
}

static void on_task_create(scope_ompt_data *task, const scope_ompt_frame *frame,
                           scope_ompt_data *new_task, int flags, int has_dependences,
                           const void *codeptr)
{
    (void)task, (void)frame, (void)has_dependences;
    new_task->value = 0;
    if (!(flags & SCOPE_OMPT_TASK_EXPLICIT) || !on())
        return;
    new_task->value = TASK_MARK | site_of(codeptr);
}

static inline uint32_t thread_tag(void)
{
    if (__builtin_expect(!tls.tag, 0))
        tls.tag = (atomic_fetch_add_explicit(&next_tag_line.v, 1, memory_order_relaxed) & 0x0fffffffu) + 1;
    return tls.tag;
}

static void on_task_schedule(scope_ompt_data *prior, int status, scope_ompt_data *next)
{
    uint64_t p = prior ? prior->value : 0;
    if ((p & (TASK_MARK | TASK_STARTED)) == (TASK_MARK | TASK_STARTED) &&
        (status == SCOPE_OMPT_TASK_COMPLETE || status == SCOPE_OMPT_TASK_CANCEL ||
         status == SCOPE_OMPT_TASK_DETACH || status == SCOPE_OMPT_TASK_EARLY_FULFILL) &&
        (uint32_t)(p >> 32 & 0x1fffffffu) == thread_tag()) {
        prior->value = p & ~TASK_STARTED;
        scope_end(ids[SCOPE_OMP_TASK]);
    }
    uint64_t n = next ? next->value : 0;
    if ((n & (TASK_MARK | TASK_STARTED)) == TASK_MARK && on()) {
        next->value = n | TASK_STARTED | (uint64_t)thread_tag() << 32;
        scope__begin_aux(ids[SCOPE_OMP_TASK], (uint32_t)n);
    }
}

/* --- the tool's life ------------------------------------------------------- */

static int initialize(scope_ompt_lookup lookup, int device, scope_ompt_data *data)
{
    (void)device, (void)data;
    scope_ompt_set_callback set = (scope_ompt_set_callback)lookup("ompt_set_callback");
    if (!set)
        return 0;   /* not a runtime we can speak to: the tool stays off */
#define SET(event, fn) set(event, (scope_ompt_callback)(void (*)(void))(fn))
    SET(SCOPE_OMPT_CB_THREAD_BEGIN, on_thread_begin);
    SET(SCOPE_OMPT_CB_THREAD_END, on_thread_end);
    SET(SCOPE_OMPT_CB_PARALLEL_BEGIN, on_parallel_begin);
    SET(SCOPE_OMPT_CB_PARALLEL_END, on_parallel_end);
    SET(SCOPE_OMPT_CB_IMPLICIT_TASK, on_implicit_task);
    SET(SCOPE_OMPT_CB_WORK, on_work);
    SET(SCOPE_OMPT_CB_SYNC_REGION, on_sync_region);
    SET(SCOPE_OMPT_CB_SYNC_REGION_WAIT, on_sync_wait);
    SET(SCOPE_OMPT_CB_REDUCTION, on_sync_region);
    SET(SCOPE_OMPT_CB_MUTEX_ACQUIRE, on_mutex_acquire);
    SET(SCOPE_OMPT_CB_MUTEX_ACQUIRED, on_mutex_acquired);
    SET(SCOPE_OMPT_CB_NEST_LOCK, on_nest_lock);
    SET(SCOPE_OMPT_CB_TASK_CREATE, on_task_create);
    SET(SCOPE_OMPT_CB_TASK_SCHEDULE, on_task_schedule);
#undef SET
    atomic_store(&tool_started, 1);
    return 1;       /* nonzero: the tool is active */
}

static void finalize(scope_ompt_data *data)
{
    (void)data;
}

TOOL_API scope_ompt_start_tool_result *ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime)
{
    (void)omp_version;
    static scope_ompt_start_tool_result result = { initialize, finalize, { 0 } };
    runtime_version = runtime;
    return &result;
}

int scope__omp_tool_started(void)
{
    return atomic_load(&tool_started);
}
