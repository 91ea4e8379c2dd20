/*
 * prefault.h - a second thread that makes fresh memory present ahead of a
 * fill (prefault.c). Why: the first touch of a fresh big buffer is the
 * kernel zeroing its pages, a third or more of the time of the fills that
 * write hundreds of megabytes (event columns, call stacks, their columns);
 * with a second CPU that zeroing runs beside the fill instead of in it.
 */
#ifndef SCOPE_READER_PREFAULT_H
#define SCOPE_READER_PREFAULT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* rows from which a second thread is worth starting: below, a thread
 * costs more than it saves */
#define SCOPE__PREFAULT_ROWS ((int64_t)1 << 20)
#define SCOPE__PREFAULT_SPANS 16

/* Arrays of `rows` rows each (elements of size[i] bytes at base[i], NULL
 * skipped), made present row block by row block, every array's block in
 * turn: the order a fill that writes a row of each at once touches them. */
typedef struct {
    void *base[SCOPE__PREFAULT_SPANS];
    size_t size[SCOPE__PREFAULT_SPANS];
    int nspans;
    int64_t rows;
    pthread_t thread;
    int started;
} scope__prefault;

/* Whether a second thread may zero pages: SCOPE_READER_JOBS (read at each
 * call, as opening does) of 2 or more, or unset with 2 usable CPUs; 1 (or a
 * malformed value, which opening reports) keeps one thread. */
int scope__prefault_wanted(void);
/* Makes bytes [from, to) past base present (MADV_POPULATE_WRITE: pages
 * faulted in, what they hold unchanged, so racing a fill is harmless;
 * nothing where the kernel lacks it: the fill faults as before). */
void scope__populate(const void *base, size_t from, size_t to);
/* Adds an array to f (ignored past SCOPE__PREFAULT_SPANS or when NULL). */
void scope__prefault_add(scope__prefault *f, void *base, size_t size);
/* Starts f's thread when f->rows >= SCOPE__PREFAULT_ROWS and it is wanted;
 * f->started says whether it runs. */
void scope__prefault_start(scope__prefault *f);
/* Waits for f's thread, if started. */
void scope__prefault_join(scope__prefault *f);

#endif
