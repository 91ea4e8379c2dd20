/*
 * recorder_journal.c - the recorder's journal file: creating it at the
 * first event, handing out, flushing and retiring the per-thread chunks
 * (the slow path of recording; recorder_chunk.c maps them and stops
 * recording cleanly when the storage fails), and closing it at the end.
 *
 * Apart from recorder.c because this is the part that talks to the file
 * system; the hot path in recorder_hot.c only stores into memory and calls
 * scope__rec_next_chunk when a chunk is full. The slow path takes no lock
 * (recorder_hot.c explains why); journal creation takes the recorder lock
 * and happens once per process. journal.h is the layout written here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "death.h"
#include "full_io.h"
#include "writer_spawn.h"
#include "journal.h"
#include "journal_dir.h"
#include "journal_storage.h"
#include "proc_self.h"
#include "recorder_state.h"
#include "scope_format.h"

/* Why pages of the journal were lost: the file removed, or shorter than
 * the `want` bytes handed out; else `otherwise`. */
static const char *lost_why(uint64_t want, const char *otherwise)
{
    struct stat st;
    if (fstat(scope__rec_journal_fd(), &st) != 0)
        return otherwise;
    if (st.st_nlink == 0)
        return "the file was removed and truncated";
    if ((uint64_t)st.st_size < want)
        return "the file was truncated under the profiler";
    return otherwise;
}

/* The journal of process `pid` on this host: "<journal_dir>/journal.<host>.<pid>".
 * Returns 0, or -1 when it does not fit in `len`. */
static int journal_name(char *out, size_t len, long pid)
{
    return (size_t)scope_journal_path(out, len, scope__rec.journal_dir, scope__rec.host, pid) <
                   len ? 0 : -1;
}

/* Creates the journal at the first event; caller holds the lock.
 * Returns 0 or SCOPE_E* (recording then stays off for good). */
static int journal_create(void)
{
    char *host = scope__rec.host;
    memset(host, 0, sizeof scope__rec.host);
    gethostname(host, sizeof scope__rec.host - 1);
    if (scope__mkdir_p(scope__rec.ranks_dir) < 0)
        goto fail_dir;
    if (journal_name(scope__rec.journal_path, sizeof scope__rec.journal_path,
                     (long)scope__rec.pid) < 0) {
        errno = ENAMETOOLONG;
        goto fail_dir;
    }
    scope__rec.fd = scope__rec_lift_fd(open(scope__rec.journal_path,
                                 O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (scope__rec.fd < 0)
        goto fail_dir;
    struct stat jst;
    if (fstat(scope__rec.fd, &jst) != 0)
        goto fail_map;
    scope__rec.jdev = jst.st_dev;
    scope__rec.jino = jst.st_ino;
    /* Held until the process ends, however it ends: `scope recover` takes
     * a journal whose lock it can get as one whose owner died. */
    flock(scope__rec.fd, LOCK_EX | LOCK_NB);
    if ((errno = scope__journal_reserve(scope__rec.fd, 0, SCOPE_JOURNAL_HEADER_SIZE)) != 0)
        goto fail_map;
    void *p = mmap(NULL, SCOPE_JOURNAL_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, scope__rec.fd, 0);
    if (p == MAP_FAILED)
        goto fail_map;
    struct scope_journal_header *h = p;
    h->version = SCOPE_JOURNAL_VERSION;
    h->header_size = SCOPE_JOURNAL_HEADER_SIZE;
    h->chunk_size = scope__rec.chunk_size;
    h->record_size = sizeof(struct scope_rec);
    h->state = SCOPE_JOURNAL_RECORDING;
    h->clock_kind = scope__clock_tsc ? SCOPE_CLOCK_TSC : SCOPE_CLOCK_NS;
    h->clock_resolution = scope__clock_resolution;
    h->counter_hz = scope__clock_tsc ? scope__arch_counter_hz() : 0;
    h->pid = scope__rec.pid;
    h->rank = scope__rec.rank;
    h->size = scope__rec.size;
    h->start_ticks = scope__rec.start_ticks;
    h->start_ns = scope__rec.start_ns;
    h->start_realtime_ns = scope__rec.start_real_ns;
    memcpy(h->hostname, host, sizeof h->hostname);
    if (scope__rec.journal_apart) {
        /* `scope recover` finds the host's journals through it */
        int e = scope__journal_pointer_note(scope__rec.ranks_dir, host, scope__rec.journal_dir);
        if (e)
            scope__storage_say(scope__rec.ranks_dir, scope__rec.rank > 0 ? scope__rec.rank : -1,
                               "cannot leave the pointer " SCOPE_JOURNAL_POINTER_PREFIX "%s to "
                               "the journal folder %s in %s: %s; after a crash, run `scope "
                               "recover --journals %s` on host %s", host, scope__rec.journal_dir,
                               scope__rec.ranks_dir, strerror(e), scope__rec.journal_dir, host);
    }
    size_t olen = strnlen(scope__rec.output, sizeof h->output - 1);
    memcpy(h->output, scope__rec.output, olen); /* informational; may be cut */
    memcpy(h->magic, SCOPE_JOURNAL_MAGIC, 8);
    __atomic_store_n(&scope__rec.hdr, h, __ATOMIC_RELEASE); /* published to lock-free readers */
    scope__rec_write_run_metadata();
    scope__rec_arm_death();
    /* after death.c's handlers, which it then passes other faults to */
    scope__journal_sigbus_arm(scope__rec.fd, &scope__hot.on);
    return 0;

fail_map:;
    int e = errno;
    close(scope__rec.fd);
    scope__rec.fd = -1;
    unlink(scope__rec.journal_path);
    errno = e;
fail_dir:
    /* once per job, not once per rank: the first event usually comes
     * before MPI_Init has told us the rank */
    scope__storage_say(scope__rec.ranks_dir, scope__rec.rank > 0 ? scope__rec.rank : -1,
                       "cannot create the journal in %s: %s; recording is off", scope__rec.journal_dir,
                       strerror(errno));
    return SCOPE_EIO;
}

/* Prepares the death handlers for the current rank; caller holds the
 * lock and the journal exists. */
void scope__rec_arm_death(void)
{
    char writer[PATH_MAX + 64], err[64], rank_path[PATH_MAX + 32];
    if (scope__writer_find(writer, sizeof writer, err, sizeof err) < 0)
        writer[0] = 0;
    scope_rank_file_path(rank_path, sizeof rank_path, scope__rec.ranks_dir, scope__rec.rank);
    scope__death_arm(scope__rec.hdr, &scope__hot.on, writer[0] ? writer : NULL, scope__rec.journal_path, rank_path,
                     scope__rec.rank == 0 ? scope__rec.output : NULL);
}

/* ---------------------------------------------------------- chunks (slow) */

/* Leaves the thread's staging chunk in the file as it is (a reader takes
 * its valid records from there) and gives its memory back. */
void scope__rec_retire_chunk(struct scope__rec_thread *t)
{
    if (!t->chunk)
        return;
    struct scope_chunk_header *c = t->chunk;
    t->cur = t->end = NULL;
    t->chunk = NULL;
    munmap(c, scope__rec.chunk_size);
    atomic_fetch_sub(&scope__rec.live, 1);
}

/* Copies the full staging chunk to a fresh EVENTS chunk and starts the
 * next sequence in place (journal.h explains the order of the writes).
 * `first` is the tick of the record that found the chunk full.
 * Returns 0, or -1 after stopping recording (scope__rec_storage_stop: the staging
 * chunk is kept as it is, and a reader takes its records from there). */
static int flush_staging(struct scope__rec_thread *t, uint64_t first)
{
    struct scope_chunk_header *c = t->chunk;
    uint64_t idx = atomic_fetch_add((_Atomic uint64_t *)&scope__rec.hdr->chunk_count, 1);
    uint64_t off = SCOPE_JOURNAL_HEADER_SIZE + idx * (uint64_t)scope__rec.chunk_size;
    struct scope_chunk_header h = *c;
    h.type = SCOPE_CHUNK_EVENTS;
    int fd = scope__rec_journal_fd();
    if (fd < 0 && atomic_load(&scope__rec.state) == ST_FINALIZED) {
        /* a thread that fills its chunk after finalize closed the journal
         * (an exit handler's I/O, a thread still running): its records
         * are dropped, as those of a thread that gets no chunk then are;
         * nothing went wrong, so nothing is said */
        scope__rec_retire_chunk(t);
        return -1;
    }
    int e = fd < 0 ? EBADF : scope__journal_reserve(fd, off, scope__rec.chunk_size);
    if (e) {
        scope__rec_storage_stop(e, "cannot reserve space for the journal");
        return -1;
    }
    if ((e = scope__pwrite_full(fd, (char *)c + CHUNK_HDR, scope__rec.chunk_size - CHUNK_HDR, off + CHUNK_HDR)) ||
        (e = scope__pwrite_full(fd, &h, sizeof h, off))) {
        if (e == EFAULT) {  /* a page of the staging chunk was lost under us */
            /* the reserve above may have grown the file again: the size
             * no longer tells a truncation from a failed read-back */
            scope__rec_storage_stop_why(EIO, "lost pages of the journal",
                             lost_why(off, "the file was truncated under the profiler, or a "
                                      "page could not be read back from the storage"), 0);
        } else {
            scope__rec_storage_stop(e, "cannot write the journal");
        }
        return -1;
    }
    /* journal.h, SCOPE_CHUNK_CLEARED: the next sequence's records are told
     * from the old ones by position, never by time (ties with `first`) */
    memset((char *)c + CHUNK_HDR, 0, scope__rec.chunk_size - CHUNK_HDR);
    atomic_signal_fence(memory_order_seq_cst);
    c->first_ticks = first;
    scope__clock_pair(&c->calib_ticks, &c->calib_ns);
    atomic_signal_fence(memory_order_seq_cst);
    c->seq = t->seq++;
    t->cur = (struct scope_rec *)((char *)c + CHUNK_HDR);
    return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23      /* Linux 5.14; older kernels say EINVAL */
#endif
#define READY_WINDOW (64u << 10)    /* a staging chunk made present this much at a time */

/* Makes the next window of the thread's staging chunk present, from
 * `from` (a record slot) to the next multiple of READY_WINDOW from the
 * chunk's start, and returns where the hot path must stop next. Why: a
 * thread's first pass through its staging chunk otherwise takes a page
 * fault every 256 records, inside whichever event crosses the page (for
 * an OpenMP team, on the path of the next fork or join); one madvise for
 * 16 pages in the slow path maps them at once. On the AMD EPYC VM a fresh
 * page cost 10-15 us at its first write, and 1-2 us in the madvise plus
 * about 7 us at the first write once populated (the host backs a guest's
 * page only when it is written: bench/README.md "OpenMP"). Later passes
 * reuse the same pages (flush_staging clears them in place), so this runs
 * only on the first. A refusal (an old kernel, or a page the storage
 * cannot provide) changes nothing: the pages fault in as before, and a
 * lost page is the SIGBUS handler's (journal_storage.c). One madvise; no
 * lock. */
static struct scope_rec *ready_window(struct scope__rec_thread *t, struct scope_rec *from)
{
    char *c = (char *)t->chunk, *end = c + scope__rec.chunk_size;
    char *to = c + ((size_t)((char *)from - c) / READY_WINDOW + 1) * READY_WINDOW;
    if (to > end)
        to = end;
    uintptr_t page = (uintptr_t)from & ~(uintptr_t)4095;
    if ((char *)page < to)
        madvise((void *)page, (size_t)(to - (char *)page), MADV_POPULATE_WRITE);
    return (struct scope_rec *)to;
}

/* Makes room for the calling thread's next record: the next window of its
 * staging chunk on the first pass through it, else flushes the chunk, or
 * maps one on the thread's first event (within the budget). Lock-free
 * (see the file comment). Returns 1 when the thread may record, 0 when
 * the event must be dropped. */
int scope__rec_next_chunk(struct scope__rec_thread *t, uint64_t ticks)
{
    if (t->chunk) {
        if ((char *)t->end < (char *)t->chunk + scope__rec.chunk_size) {
            t->end = ready_window(t, t->end);
            return 1;
        }
        return flush_staging(t, ticks) == 0;
    }
    uint32_t live = atomic_load(&scope__rec.live);
    do {
        if (live >= scope__rec.max_live)
            return 0;
    } while (!atomic_compare_exchange_weak(&scope__rec.live, &live, live + 1));

    uint64_t idx = atomic_fetch_add((_Atomic uint64_t *)&scope__rec.hdr->chunk_count, 1);
    struct scope_chunk_header *c = scope__rec_map_chunk(idx);
    if (!c) {
        atomic_fetch_sub(&scope__rec.live, 1);
        return 0;
    }
    if (!t->has_index) {
        t->index = atomic_fetch_add((_Atomic uint32_t *)&scope__rec.hdr->thread_count, 1);
        t->has_index = 1;
    }
    c->type = SCOPE_CHUNK_STAGING;
    c->thread = t->index;
    c->seq = t->seq++;
    c->tid = (int64_t)syscall(SYS_gettid);
    c->first_ticks = ticks;
    c->guard = SCOPE_CHUNK_GUARD;
    c->flags = SCOPE_CHUNK_CLEARED;
    scope__clock_pair(&c->calib_ticks, &c->calib_ns);
    pthread_getname_np(pthread_self(), c->thread_name, sizeof c->thread_name);
    __atomic_store_n(&c->magic, SCOPE_CHUNK_MAGIC, __ATOMIC_RELEASE);
    t->chunk = c;
    t->cur = (struct scope_rec *)((char *)c + CHUNK_HDR);
    t->end = ready_window(t, t->cur);
    if (!t->key_set) {
        pthread_setspecific(scope__rec.key, t);
        t->key_set = 1;
    }
    return 1;
}

int scope__rec_ensure_journal(void)
{
    if (__atomic_load_n(&scope__rec.hdr, __ATOMIC_ACQUIRE))
        return 1;
    scope__rec_lock();
    int ok = scope__rec.hdr != NULL;
    if (!ok && atomic_load(&scope__rec.state) == ST_READY) {
        ok = journal_create() == 0;
        if (!ok) {
            scope__hot.on = 0;
            atomic_store(&scope__rec.state, ST_DISABLED);
        }
    }
    scope__rec_unlock();
    return ok;
}

/* Says once that the SIGBUS handler (journal_storage.c) replaced a lost
 * journal page, which also switched recording off; from then on events
 * count as dropped. */
void scope__rec_report_lost_pages(void)
{
    int fresh;
    uint64_t lost = scope__journal_pages_lost(&fresh);
    if (!fresh || !lost)
        return;
    uint64_t want = SCOPE_JOURNAL_HEADER_SIZE +
                    __atomic_load_n(&scope__rec.hdr->chunk_count, __ATOMIC_RELAXED) * scope__rec.chunk_size;
    scope__rec_storage_stop_why(EIO, "lost pages of the journal",
                     lost_why(want, "a page could not be read back from the storage "
                              "(Input/output error)"), 0);
}

void scope__rec_close_journal(int remove_file)
{
    if (scope__rec.meta)
        munmap(scope__rec.meta, scope__rec.chunk_size);
    scope__rec.meta = NULL;
    /* The header page stays mapped: a thread racing with finalize may still
     * be in scope__rec_next_chunk(); it then fails to map a chunk and drops. */
    /* closed only while it is the journal: a number the program took
     * over is the program's */
    struct stat st;
    if (scope__rec.fd >= 0 && fstat(scope__rec.fd, &st) == 0 &&
        st.st_dev == (dev_t)scope__rec.jdev && st.st_ino == (ino_t)scope__rec.jino)
        close(scope__rec.fd);
    scope__rec.fd = -1;
    if (remove_file && scope__rec.journal_path[0]) {
        unlink(scope__rec.journal_path);
        if (scope__rec.journal_apart)
            scope__journal_pointer_drop(scope__rec.ranks_dir, scope__rec.host,
                                        scope__rec.journal_dir);
    }
}

/* The parent of `pid`, from /proc/<pid>/stat (the field after the command
 * name, which may itself hold spaces and parentheses); -1 when unknown. */
static long parent_of(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    char *stat = scope__read_proc(path);
    const char *p = stat ? strrchr(stat, ')') : NULL;
    char state;
    long ppid = -1;
    if (!p || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
        ppid = -1;
    free(stat);
    return ppid;
}

long scope__rec_recording_ancestor(int64_t *start_realtime_ns)
{
    if (!scope__rec.journal_dir[0] || !scope__rec.host[0])
        return 0;
    long pid = (long)getppid();
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        char path[PATH_MAX];
        int fd = journal_name(path, sizeof path, pid) == 0 ?
                 open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
        if (fd >= 0) {
            struct scope_journal_header h;
            int ok = scope_journal_header_read(fd, &h) == 0 && h.pid == pid;
            close(fd);
            if (ok) {
                *start_realtime_ns = h.start_realtime_ns;
                return pid;
            }
        }
        pid = parent_of(pid);
    }
    return 0;
}
