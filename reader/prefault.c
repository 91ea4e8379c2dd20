/*
 * prefault.c - a second thread making fresh buffers' pages present ahead
 * of the fill that writes them (prefault.h says why). The same CPU time,
 * over two cores: only wall time is saved, and only with a CPU to spare.
 */
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"
#include "settings.h"

/* rows made present per array before moving on to the next array: a few
 * megabytes, so the thread stays ahead of a fill writing all at once */
#define BLOCK_ROWS ((int64_t)1 << 16)

int scope__prefault_wanted(void)
{
    scope_setting_value env;
    scope__setting_read_now(SCOPE_SET_READER_JOBS, &env);
    if (env.state == SCOPE_SETTING_SET)
        return env.u >= 2;
    if (env.state == SCOPE_SETTING_BAD)
        return 0;
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

void scope__populate(const void *base, size_t from, size_t to)
{
    if (!base || to <= from)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)base + from;
    uintptr_t b = (uintptr_t)base + to;
    a &= ~(page - 1);
    b = (b + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)a;
    (void)b;
#endif
}

void scope__prefault_add(scope__prefault *f, void *base, size_t size)
{
    if (base && f->nspans < SCOPE__PREFAULT_SPANS) {
        f->base[f->nspans] = base;
        f->size[f->nspans++] = size;
    }
}

static void *run(void *arg)
{
    const scope__prefault *f = arg;
    for (int64_t row = 0; row < f->rows; row += BLOCK_ROWS) {
        int64_t end = row + BLOCK_ROWS < f->rows ? row + BLOCK_ROWS : f->rows;
        for (int i = 0; i < f->nspans; i++)
            scope__populate(f->base[i], (size_t)row * f->size[i], (size_t)end * f->size[i]);
    }
    return NULL;
}

void scope__prefault_start(scope__prefault *f)
{
    f->started = 0;
    if (f->rows >= SCOPE__PREFAULT_ROWS && f->nspans > 0 && scope__prefault_wanted())
        f->started = pthread_create(&f->thread, NULL, run, f) == 0;
}

void scope__prefault_join(scope__prefault *f)
{
    if (f->started)
        pthread_join(f->thread, NULL);
    f->started = 0;
}
