/*
 * test_omp_events.c - OpenMP's event kinds (format/scope_omp.h,
 * omp_events.def) and the aux codecs of their journal records
 * (format/journal.h): every row's name is unique and starts "omp ", is
 * read back by the one parser and nothing else is; each class and wait
 * kind is what the OMPT event it stands for is, by hand; a
 * synchronisation region and its wait name the same kind of wait; the
 * values an implicit task's begin and an end carry survive their codecs
 * at and past each limit.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "journal.h"
#include "scope_omp.h"

static void rows(void)
{
    CHECK_I64(SCOPE_OMP_EVENTS, 28);   /* 27 rows and none */
    /* the thread marks: the begins by type, and the end */
    CHECK_I64(scope_omp_thread_type_of(scope_omp_event_of("omp initial thread begin")),
              SCOPE_OMP_THREAD_INITIAL);
    CHECK_I64(scope_omp_thread_type_of(scope_omp_event_of("omp worker thread begin")),
              SCOPE_OMP_THREAD_WORKER);
    CHECK_I64(scope_omp_thread_type_of(scope_omp_event_of("omp other thread begin")),
              SCOPE_OMP_THREAD_OTHER);
    CHECK_I64(scope_omp_thread_type_of(SCOPE_OMP_THREAD_END), SCOPE_OMP_THREAD_NONE);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_THREAD_END)->cls, SCOPE_OMPC_THREAD);
    CHECK(strcmp(scope_omp_thread_type_name(SCOPE_OMP_THREAD_WORKER), "worker") == 0);
    CHECK(scope_omp_thread_type_name(4) == NULL);
    CHECK(scope_omp_events[SCOPE_OMP_NONE].name == NULL);
    for (int a = 1; a < SCOPE_OMP_EVENTS; a++) {
        const char *n = scope_omp_event_at(a)->name;
        CHECK(n && strncmp(n, "omp ", 4) == 0);
        CHECK_I64(scope_omp_event_of(n), a);
        CHECK(scope_omp_event_at(a)->cls > SCOPE_OMPC_NONE &&
              scope_omp_event_at(a)->cls < SCOPE_OMPC_CLASSES);
        for (int b = a + 1; b < SCOPE_OMP_EVENTS; b++)
            CHECK(strcmp(n, scope_omp_event_at(b)->name) != 0);
        /* waits and syncs name their kind of wait, the others none */
        int cls = scope_omp_event_at(a)->cls, w = scope_omp_event_at(a)->wait;
        int needs = cls == SCOPE_OMPC_WAIT || cls == SCOPE_OMPC_SYNC || cls == SCOPE_OMPC_MUTEX;
        CHECK(needs ? w != SCOPE_OMP_WAIT_NONE : w == SCOPE_OMP_WAIT_NONE);
    }
    CHECK(scope_omp_event_at(-1)->name == NULL);
    CHECK(scope_omp_event_at(SCOPE_OMP_EVENTS)->name == NULL);
}

static void by_hand(void)
{
    CHECK_STR(scope_omp_event_at(SCOPE_OMP_PARALLEL)->name, "omp parallel");
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_PARALLEL)->cls, SCOPE_OMPC_PARALLEL);
    CHECK_STR(scope_omp_event_at(SCOPE_OMP_IMPLICIT_TASK)->name, "omp implicit task");
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_IMPLICIT_TASK)->cls, SCOPE_OMPC_IMPLICIT_TASK);
    CHECK_STR(scope_omp_event_at(SCOPE_OMP_LOOP)->name, "omp loop");
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_LOOP)->cls, SCOPE_OMPC_WORK);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_SINGLE)->cls, SCOPE_OMPC_WORK);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_TASK)->cls, SCOPE_OMPC_TASK);
    CHECK_I64(scope_omp_event_of("omp implicit barrier wait"), SCOPE_OMP_IMPLICIT_BARRIER_WAIT);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_IMPLICIT_BARRIER_WAIT)->cls, SCOPE_OMPC_WAIT);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_IMPLICIT_BARRIER_WAIT)->wait,
              SCOPE_OMP_WAIT_IMPLICIT_BARRIER);
    CHECK_I64(scope_omp_event_of("omp critical wait"), SCOPE_OMP_CRITICAL_WAIT);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_CRITICAL_WAIT)->cls, SCOPE_OMPC_MUTEX);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_CRITICAL_WAIT)->wait, SCOPE_OMP_WAIT_CRITICAL);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_LOCK_WAIT)->wait, SCOPE_OMP_WAIT_LOCK);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_ORDERED_WAIT)->wait, SCOPE_OMP_WAIT_ORDERED);
    CHECK_I64(scope_omp_event_at(SCOPE_OMP_ATOMIC_WAIT)->wait, SCOPE_OMP_WAIT_ATOMIC);
    /* a sync region and its wait: the same kind, both ways */
    for (int w = 1; w < SCOPE_OMP_WAITS; w++) {
        int wait = scope_omp_event_for_wait(w, 1), sync = scope_omp_event_for_wait(w, 0);
        int mutex = w >= SCOPE_OMP_WAIT_LOCK;
        CHECK(mutex ? wait == 0 && sync == 0 : wait > 0 && sync > 0);
        if (!mutex) {
            CHECK_I64(scope_omp_event_at(wait)->wait, w);
            CHECK_I64(scope_omp_event_at(sync)->wait, w);
        }
    }
    CHECK_I64(scope_omp_event_for_wait(SCOPE_OMP_WAIT_TASKWAIT, 0), SCOPE_OMP_TASKWAIT);
    CHECK_I64(scope_omp_event_for_wait(SCOPE_OMP_WAIT_TASKWAIT, 1), SCOPE_OMP_TASKWAIT_WAIT);
    CHECK_I64(scope_omp_event_for_wait(SCOPE_OMP_WAIT_NONE, 1), 0);
}

static void parser(void)
{
    const char *no[] = { NULL, "", "omp", "omp ", "omp Parallel", "omp parallel ", "OMP parallel",
                         "ompparallel", "MPI_Barrier", "omp parallel wait", "omp barrier (implicit)" };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        CHECK_I64(scope_omp_event_of(no[i]), 0);
}

static void names(void)
{
    CHECK_STR(scope_omp_class_name(SCOPE_OMPC_PARALLEL), "parallel");
    CHECK_STR(scope_omp_class_name(SCOPE_OMPC_MUTEX), "mutex");
    CHECK(scope_omp_class_name(SCOPE_OMPC_CLASSES) == NULL);
    CHECK(scope_omp_class_name(-1) == NULL);
    CHECK_STR(scope_omp_wait_name(SCOPE_OMP_WAIT_IMPLICIT_BARRIER), "implicit_barrier");
    CHECK_STR(scope_omp_wait_name(SCOPE_OMP_WAIT_ATOMIC), "atomic");
    CHECK(scope_omp_wait_name(SCOPE_OMP_WAITS) == NULL);
    CHECK_STR(scope_kind_name(SCOPE_KIND_OMP), "omp");
}

static void codecs(void)
{
    uint32_t low, thread;
    scope_omp_task_unaux(scope_omp_task_aux(1, 0), &low, &thread);
    CHECK_I64(low, 1);
    CHECK_I64(thread, 0);
    /* the instance keeps its low 20 bits; 2^20 + 5 reads 5 */
    scope_omp_task_unaux(scope_omp_task_aux((1u << 20) + 5, 7), &low, &thread);
    CHECK_I64(low, 5);
    CHECK_I64(thread, 7);
    scope_omp_task_unaux(scope_omp_task_aux(0x7fffffffu, 4095), &low, &thread);
    CHECK_I64(low, 0xfffff);
    CHECK_I64(thread, 4095);
    scope_omp_task_unaux(scope_omp_task_aux(3, 100000), &low, &thread);  /* saturates */
    CHECK_I64(low, 3);
    CHECK_I64(thread, 4095);
    /* an end's value: bit 0 stays the unwound flag's */
    CHECK_I64(scope_omp_end_aux(0), 0);
    CHECK_I64(scope_omp_end_aux(1000) & SCOPE_REC_UNWOUND, 0);
    CHECK_I64(scope_omp_end_value(scope_omp_end_aux(1000)), 1000);
    CHECK_I64(scope_omp_end_value(scope_omp_end_aux(0x7fffffffu)), 0x7fffffffu);
    CHECK_I64(scope_omp_end_value(scope_omp_end_aux(0x80000000ull)), 0x7fffffffu);
    CHECK_I64(scope_omp_end_value(scope_omp_end_aux(1ull << 40)), 0x7fffffffu);
    CHECK_I64(scope_omp_end_value(scope_omp_end_aux(1000) | SCOPE_REC_UNWOUND), 1000);
}

int main(void)
{
    rows();
    by_hand();
    parser();
    names();
    codecs();
    return check_result("format_omp_events");
}
