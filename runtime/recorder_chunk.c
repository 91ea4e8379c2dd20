/*
 * recorder_chunk.c - the journal's storage as the recorder meets it: its
 * descriptor, kept the journal's whatever the program does with numbers; a
 * chunk mapped only after its bytes are reserved, and recording stopped
 * for good, said once, when the storage refuses (full, over quota,
 * failing).
 *
 * Apart from recorder_journal.c because both the journal's slow path and
 * the metadata records (recorder_meta.c) map chunks, and the journal's
 * creation writes the first metadata records: with the mapping here,
 * calls run one way, journal -> metadata -> chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "journal.h"
#include "journal_storage.h"
#include "recorder_state.h"

/* A number for the journal's descriptor above those a program usually
 * gets (it counts up from 3): the upper half of the soft limit, so that a
 * program opening files one after the other rarely meets it. The number
 * is only a first defence: scope__rec_journal_fd() checks the descriptor
 * is still the journal before every use. Returns the new descriptor (the
 * old one closed), or fd unchanged when none is free up there. */
int scope__rec_lift_fd(int fd)
{
    struct rlimit rl;
    if (fd < 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 64)
        return fd;
    rlim_t lo = rl.rlim_cur / 2 > 65536 ? 65536 : rl.rlim_cur / 2;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, (int)lo);
    if (high < 0)
        return fd;
    close(fd);
    return high;
}

int scope__rec_journal_fd(void)
{
    int fd = __atomic_load_n(&scope__rec.fd, __ATOMIC_ACQUIRE);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == (dev_t)scope__rec.jdev &&
        st.st_ino == (ino_t)scope__rec.jino)
        return fd;
    /* not the journal any more: the number is the program's now, left
     * alone; the journal is opened again by its path (never created: a
     * journal removed under the run is a storage fault) */
    int nfd = open(scope__rec.journal_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (nfd < 0)
        return -1;
    if (fstat(nfd, &st) != 0 || st.st_dev != (dev_t)scope__rec.jdev ||
        st.st_ino != (ino_t)scope__rec.jino) {
        close(nfd);
        return -1;
    }
    nfd = scope__rec_lift_fd(nfd);
    flock(nfd, LOCK_EX | LOCK_NB);
    if (!__atomic_compare_exchange_n(&scope__rec.fd, &fd, nfd, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        close(nfd);     /* another thread reopened it first: use its */
        return fd;
    }
    return nfd;
}

/* Stops recording in this process for good after the storage refused
 * the journal (`err`: ENOSPC, EDQUOT, EIO, ...): what is recorded stays,
 * later events are counted as dropped, the application goes on. Said once
 * per job. Lock-free; safe from any thread. */
void scope__rec_storage_stop_why(int err, const char *what, const char *why, int kept)
{
    scope__hot.on = 0;
    int none = 0;
    if (!atomic_compare_exchange_strong(&scope__rec.storage_err, &none, err ? err : EIO))
        return;
    scope__storage_say(scope__rec.ranks_dir, scope__rec.rank > 0 ? scope__rec.rank : -1,
                       "%s %s: %s; recording stopped (later events are counted as dropped), the "
                       "application goes on%s%s%s%s%s", what, scope__rec.journal_path, why,
                       kept ? "; what was recorded is kept and written at the end, or, if "
                              "there is no room then, left for `scope recover " : "",
                       kept ? scope__rec.output : "", kept ? "`" : "",
                       kept && scope__rec.journal_apart ? " run on host " : "",
                       kept && scope__rec.journal_apart ? scope__rec.host : "");
}

void scope__rec_storage_stop(int err, const char *what)
{
    scope__rec_storage_stop_why(err, what, strerror(err ? err : EIO), 1);
}

/* Maps chunk `idx` after its bytes are reserved on the storage (a page
 * the file system has not promised is never touched). Returns the chunk,
 * or NULL after stopping recording (scope__rec_storage_stop). */
void *scope__rec_map_chunk(uint64_t idx)
{
    uint64_t off = SCOPE_JOURNAL_HEADER_SIZE + idx * (uint64_t)scope__rec.chunk_size;
    int fd = scope__rec_journal_fd();
    if (fd < 0 && atomic_load(&scope__rec.state) == ST_FINALIZED)
        return NULL; /* after finalize closed the journal: dropped, nothing wrong */
    int e = fd < 0 ? EBADF : scope__journal_reserve(fd, off, scope__rec.chunk_size);
    if (e) {
        scope__rec_storage_stop(e, "cannot reserve space for the journal");
        return NULL;
    }
    void *p = mmap(NULL, scope__rec.chunk_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
    /* Not prefaulted whole: the slow path makes a staging chunk present a
     * window at a time ahead of the records (recorder_journal.c,
     * ready_window), so a short-lived thread pays only for the windows it
     * reaches; a chunk is reused, so that happens once per thread. */
    if (p == MAP_FAILED) {
        scope__rec_storage_stop(errno, "cannot map the journal");
        return NULL;
    }
    return p;
}
