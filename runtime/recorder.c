/*
 * recorder.c - the core region recorder's API: init, regions, the
 * interposition rows, call paths and communicators, finalize. The
 * recorder's other jobs have files of their own: the hot path
 * (scope_begin/scope_end, recorder_hot.c), the journal file and its chunks
 * (recorder_journal.c, recorder_chunk.c), metadata records and key/values
 * (recorder_meta.c), SCOPE_OUTPUT and the memory budget
 * (recorder_settings.c), what a recorded call costs (calibrate.c), /proc
 * reading (proc_self.c), the launcher's rank (launcher.c), the storage's
 * faults (journal_storage.c); their shared state is recorder_state.c's,
 * declared in recorder_state.h, which also says the order of calls.
 *
 * Interning, metadata and journal creation take the recorder's lock; they
 * happen once per region or per run. The hot path takes none.
 *
 * Finalize hands the journal to scope-h5write (writer_spawn.c), which
 * converts it into the rank file, then removes the journal. A process a
 * launcher started does not wait for it (writer_may_detach): the writer
 * outlives it, and the launcher, reading the standard output and error
 * the writer keeps, returns once the file is in place. So the time a
 * rank spends in MPI_Finalize does not grow with the calls it made.
 */
#include "scope.h"
#include "scope_internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "death.h"
#include "proc_self.h"
#include "writer_spawn.h"
#include "journal.h"
#include "journal_dir.h"
#include "journal_storage.h"
#include "recorder_state.h"
#include "regions.h"
#include "settings.h"
#include "scope_format.h"
#include "scope_paths.h"


/* -------------------------------------------------------------- init/exit */

static void at_exit(void)
{
    scope_finalize();
}

static void thread_exit(void *arg)
{
    struct scope__rec_thread *t = arg;
    scope__self_enter();
    if (t->chunk) {
        t->chunk->thread_end_ticks = scope__ticks();
        scope__rec_retire_chunk(t);
    }
    t->key_set = 0;
    scope__self_leave();
}

/* In a fork child the journal belongs to the parent: stop recording here
 * for good (the child's mappings of the parent's chunks are left alone). */
static void atfork_child(void)
{
    scope__hot.on = 0;
    scope__death_disarm();
    atomic_store(&scope__rec.state, ST_DISABLED);
    struct scope__rec_thread *t = scope__rec_this_thread();
    t->cur = t->end = NULL;
    t->chunk = NULL;
    pthread_mutex_init(&scope__rec.lock, NULL);
}

int scope_init(const scope_options *opts)
{
    int rc = 0, started = 0;
    scope__rec_lock();
    if (atomic_load(&scope__rec.state) != ST_OFF)
        goto out;

    if ((rc = scope__rec_settings(opts)) < 0)
        goto out;

    if (opts && opts->config_text) {
        scope__rec.config_text = strdup(opts->config_text);
        if (!scope__rec.config_text) {
            rc = SCOPE_ENOMEM;
            goto out;
        }
    }
    if (pthread_key_create(&scope__rec.key, thread_exit) != 0) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    scope__clock_setup();
    scope__clock_pair(&scope__rec.start_ticks, &scope__rec.start_ns);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    scope__rec.start_real_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
    scope__rec.pid = getpid();
    /* until MPI_Init says otherwise, the rank the launcher announced names
     * this process's rank file (a rank that dies early keeps its own) */
    scope__launcher l;
    if (scope__launcher_from(NULL, &l)) {
        scope__rec.rank = l.rank;
        scope__rec.size = l.size > l.rank ? l.size : l.rank + 1;
    }
    pthread_atfork(NULL, NULL, atfork_child);
    atexit(at_exit);
    atomic_store(&scope__rec.state, ST_READY);
    scope__hot.on = 1;
    started = 1;
out:
    scope__rec_unlock();
    if (started && !scope__calibrate_deferred())
        scope__calibrate(); /* calibrate.c: stores metadata, takes the lock */
    return rc;
}

void scope_set_rank(int rank, int size)
{
    scope__rec_lock();
    if (rank >= 0 && size > rank) {
        scope__rec.rank = rank;
        scope__rec.size = size;
        if (scope__rec.hdr) {
            scope__rec.hdr->rank = rank;
            scope__rec.hdr->size = size;
            scope__rec_arm_death(); /* the rank file's name changed */
        }
    }
    scope__rec_unlock();
}

/* ---------------------------------------------------------------- regions */

int32_t scope__region_ex(const char *name, int kind, const char *symbol, const char *object)
{
    if (atomic_load(&scope__rec.state) == ST_OFF) {
        int rc = scope_init(NULL);
        if (rc < 0)
            return rc;
    }
    scope__rec_lock();
    int created = 0;
    int32_t id = scope__regions_intern(name, kind, symbol, object, &created);
    if (id >= 0 && created && scope__rec.hdr) {
        int rc = scope__rec_meta_region(id, scope__regions_get(id));
        if (rc < 0)
            id = rc;
    }
    scope__rec_unlock();
    return id;
}

int32_t scope_region(const char *name)
{
    scope__calibrate_note_api();
    return scope__region_ex(name, SCOPE_KIND_MANUAL, NULL, NULL);
}

scope_scoped scope_scoped_begin(int32_t *cached_id, const char *name)
{
    int32_t id = __atomic_load_n(cached_id, __ATOMIC_RELAXED);
    if (id < 0) {
        id = scope_region(name);
        __atomic_store_n(cached_id, id, __ATOMIC_RELAXED);
    }
    if (id >= 0)
        scope_begin(id);
    return (scope_scoped){ id };
}

void scope_scoped_end(scope_scoped *s)
{
    if (s->id >= 0)
        scope_end(s->id);
}

int scope__note_interposition(const char *pattern, const char *symbol, const char *object,
                              const char *method, const char *status, const char *reason)
{
    /* the six strings in one allocation (f[0] owns it): a start-up notes
     * a row per function, thousands, and six small blocks each took twice
     * the heap pages */
    const char *in[6] = { pattern, symbol, object, method, status, reason };
    size_t len[6], total = 0;
    for (int i = 0; i < 6; i++) {
        len[i] = strlen(in[i] ? in[i] : "") + 1;
        total += len[i];
    }
    char *text = malloc(total);
    if (!text)
        return SCOPE_ENOMEM;
    struct scope__rec_row r;
    size_t off = 0;
    for (int i = 0; i < 6; i++) {
        r.f[i] = text + off;
        memcpy(r.f[i], in[i] ? in[i] : "", len[i]);
        off += len[i];
    }
    int rc = 0;
    scope__rec_lock();
    struct scope__rec_row *rows = scope__rec.rows;
    if (scope__rec.n_rows == scope__rec.cap_rows) {
        /* doubled, not grown by one row: a start-up adds a row per
         * function (thousands), and each move copied the whole table */
        size_t cap = scope__rec.cap_rows ? 2 * scope__rec.cap_rows : 256;
        rows = realloc(scope__rec.rows, cap * sizeof *rows);
        if (rows) {
            scope__rec.rows = rows;
            scope__rec.cap_rows = cap;
        }
    }
    if (rows) {
        rows[scope__rec.n_rows++] = r;
        if (scope__rec.hdr)
            rc = scope__rec_meta_row(&r);
    } else {
        rc = SCOPE_ENOMEM;
    }
    scope__rec_unlock();
    if (!rows)
        free(text);
    return rc;
}

static int site_equal(const struct scope__rec_site *st, const scope__frame *fr, int depth)
{
    if (st->depth != depth)
        return 0;
    for (int i = 0; i < depth; i++)
        if (st->f[i].offset != fr[i].offset || strcmp(st->f[i].object, fr[i].object) != 0 ||
            strcmp(st->f[i].build_id, fr[i].build_id) != 0)
            return 0;
    return 1;
}

/* Paths are few (one per distinct caller) and defined once each, so a
 * linear search under the lock is cheaper than keeping a hash table. */
int32_t scope__callsite_define(const scope__frame *frames, int depth)
{
    if (!frames || depth < 1 || depth > SCOPE_CALLSITE_MAX_DEPTH)
        return SCOPE_EINVAL;
    for (int i = 0; i < depth; i++)
        if (!frames[i].object)
            return SCOPE_EINVAL;
    if (atomic_load(&scope__rec.state) == ST_OFF) {
        int rc = scope_init(NULL);
        if (rc < 0)
            return rc;
    }
    int32_t id;
    scope__rec_lock();
    for (size_t i = 0; i < scope__rec.n_sites; i++) {
        if (site_equal(&scope__rec.sites[i], frames, depth)) {
            id = (int32_t)(i + 1);
            goto out;
        }
    }
    id = SCOPE_ENOMEM;
    if (scope__rec.n_sites >= INT32_MAX - 1)
        goto out;
    struct scope__rec_site *sites = realloc(scope__rec.sites, (scope__rec.n_sites + 1) * sizeof *sites);
    if (!sites)
        goto out;
    scope__rec.sites = sites;
    struct scope__rec_site *st = &sites[scope__rec.n_sites];
    int i;
    for (i = 0; i < depth; i++) {
        st->f[i].offset = frames[i].offset;
        st->f[i].object = strdup(frames[i].object);
        st->f[i].build_id = strdup(frames[i].build_id ? frames[i].build_id : "");
        if (!st->f[i].object || !st->f[i].build_id)
            goto fail_copy;
    }
    st->depth = depth;
    id = (int32_t)++scope__rec.n_sites;
    if (scope__rec.hdr) {
        int rc = scope__rec_meta_site(id, st);
        if (rc < 0)
            id = rc;
    }
    goto out;

fail_copy:
    for (; i >= 0; i--) {
        free(st->f[i].object);
        free(st->f[i].build_id);
    }
out:
    scope__rec_unlock();
    return id;
}

int32_t scope__comm_define(int32_t size, int32_t remote_size, const int32_t *world,
                           const char *creator, const char *name)
{
    if (size < 0 || remote_size < 0 || (size + (int64_t)remote_size) > (1 << 24) || !world)
        return SCOPE_EINVAL;
    if (!scope__rec_ensure_journal())
        return SCOPE_EIO;
    scope__rec_lock();
    int32_t id = scope__rec.n_comms;
    if (id > SCOPE_COMM_ID_MAX) {   /* the ids beyond are record words (journal.h) */
        scope__rec_unlock();
        return SCOPE_ELIMIT;
    }
    int rc = scope__rec_meta_comm(id, size, remote_size, world, creator ? creator : "",
                                  name ? name : "");
    if (rc == 0)
        scope__rec.n_comms++;
    scope__rec_unlock();
    return rc < 0 ? rc : id;
}

int32_t scope__file_define(const struct scope_file_meta *m, const struct scope_file_names *n)
{
    if (!m || !n || m->kind >= SCOPE_FILE_KINDS)
        return SCOPE_EINVAL;
    /* a file met once recording stopped (exit's flush after finalize):
     * its calls are not recorded either, and the journal is closed */
    if (atomic_load(&scope__rec.state) != ST_READY || !scope__hot.on)
        return SCOPE_EIO;
    if (!scope__rec_ensure_journal())
        return SCOPE_EIO;
    scope__rec_lock();
    int32_t id = scope__rec.n_files;
    struct scope_file_meta row = *m;
    row.id = (uint32_t)id;
    int rc = scope__rec_meta_file(&row, n);
    if (rc == 0)
        scope__rec.n_files++;
    scope__rec_unlock();
    return rc < 0 ? rc : id;
}

uint64_t scope_dropped_events(void)
{
    return atomic_load(&scope__rec.dropped);
}


void scope__disable(void)
{
    scope__rec_lock();
    scope__hot.on = 0;
    scope__death_disarm();
    int mine = scope__rec.pid == getpid();
    atomic_store(&scope__rec.state, ST_DISABLED);
    if (mine) {
        scope__rec_retire_chunk(scope__rec_this_thread());
        scope__rec_close_journal(1);
    }
    scope__rec_unlock();
}

/* Stops recording and completes the journal's header (finalize's first
 * half). Call with the lock held. Returns 1 when there is a journal to
 * convert, 0 when there is nothing to write (not ready, another process's
 * recorder, nothing recorded). */
static int finish_journal(void)
{
    if (atomic_load(&scope__rec.state) != ST_READY || scope__rec.pid != getpid())
        return 0;
    if (scope__rec.hdr)
        scope__rec_report_lost_pages();
    scope__hot.on = 0;
    scope__death_disarm();
    atomic_store(&scope__rec.state, ST_FINALIZED);
    if (!scope__rec.hdr)
        return 0; /* nothing was recorded: nothing to write */

    struct scope__rec_thread *t = scope__rec_this_thread();
    if (t->chunk)
        t->chunk->thread_end_ticks = scope__ticks();
    scope__rec_retire_chunk(t);
    struct scope_journal_header *h = scope__rec.hdr;
    scope__clock_pair(&h->end_ticks, &h->end_ns);
    h->dropped_events = atomic_load(&scope__rec.dropped);
    h->rank = scope__rec.rank;
    h->size = scope__rec.size;
    h->state = SCOPE_JOURNAL_FINALIZED;
    return 1;
}

/* A calibration deferred by the preload (scope__calibrate_later) runs
 * before the journal is finished if anything was recorded: the file's
 * overhead attributes then exist whenever it has calls. So do the C API
 * pair's numbers in a process the preload instruments, if the program
 * used the C API (calibrate.c). */
static void calibrate_if_recorded(void)
{
    scope__rec_lock();
    int recorded = scope__rec.hdr != NULL && atomic_load(&scope__rec.state) == ST_READY &&
                   scope__rec.pid == getpid();
    scope__rec_unlock();
    if (!recorded)
        return;
    scope__self_enter();    /* the program may have called scope_finalize() */
    scope__calibrate_pending();
    scope__calibrate_api_if_used();
    scope__self_leave();
}

int scope__finalize_journal(char *journal, size_t len)
{
    calibrate_if_recorded();
    scope__rec_lock();
    int rc = finish_journal();
    if (rc == 1) {
        if (snprintf(journal, len, "%s", scope__rec.journal_path) >= (int)len)
            rc = SCOPE_ELIMIT; /* kept: `scope recover` converts it */
        /* kept for the host's writer; our lock on it goes with the fd */
        scope__rec_close_journal(0);
    }
    scope__rec_unlock();
    return rc;
}

/* Whether fd is a pipe or a socket: what a launcher reads to its end
 * before it returns (a terminal, a file or /dev/null it may not be). */
static int launcher_reads(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* Whether this process's writer may outlive it (scope__writer_start):
 * after a clean finalize of a process that a launcher started, whose
 * standard output and error the launcher reads until every process
 * holding them has ended, unless SCOPE_FINALIZE_WAIT=1. Not under
 * Slurm's srun: its step daemon kills what the tasks leave behind as soon
 * as they end. A process outside a launcher (a serial program, a
 * singleton) waits: nothing would wait for its writer. So does one whose
 * standard output and error are neither a pipe nor a socket (closed, or
 * sent to a file or /dev/null by the application itself): the launcher
 * would not be reading what the writer holds. Open MPI gives a rank a
 * terminal for its output but a pipe for its error; MPICH pipes both. */
static int writer_may_detach(int complete)
{
    if (!complete)
        return 0;
    scope__setting_say(SCOPE_SET_FINALIZE_WAIT, "using 0");
    if (scope__setting_u(SCOPE_SET_FINALIZE_WAIT) || scope__launcher_rank() < 0)
        return 0;
    if (!launcher_reads(STDOUT_FILENO) && !launcher_reads(STDERR_FILENO))
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)getppid());
    char *comm = scope__read_proc(path);
    int slurm = comm && strncmp(comm, "slurmstepd", 10) == 0;
    free(comm);
    return !slurm;
}

/* Starts `req`'s writer so that it outlives this process, with the
 * journal (and our lock on it) when it is still open. Returns 0 when it
 * runs (it removes the journal; the caller only lets go of it), < 0 when
 * the caller should convert and wait as before. Call with the lock held. */
static int start_writer(struct scope_convert_request *req)
{
    char marker[4400], pointer[PATH_MAX + 300];
    int named = scope__storage_marker(marker, sizeof marker, scope__rec.ranks_dir,
                                      scope__rec.rank) > 0;
    int apart = scope__rec.journal_apart &&
                scope_journal_pointer_path(pointer, sizeof pointer, scope__rec.ranks_dir,
                                           scope__rec.host) < (int)sizeof pointer;
    struct scope_writer_detach d = scope_writer_detach_init(
        scope__rec.rank, scope__rec.output, named ? marker : NULL, apart ? pointer : NULL);
    return scope__writer_start(req, &d, scope__rec.fd);
}

int scope__finalize_host(const char *host_file, const char *const *journals, size_t n,
                         const char *const *links, size_t n_links)
{
    char host_path[PATH_MAX + 300], err[PATH_MAX + 256] = {0};
    scope__rec_lock();
    snprintf(host_path, sizeof host_path, "%s/%s", scope__rec.ranks_dir, host_file);
    struct scope_convert_request req = scope_request_host(
        host_path, scope__rec.rank == 0 ? scope__rec.output : NULL, journals, n, links, n_links,
        err, sizeof err);
    if (writer_may_detach(1) && start_writer(&req) == 0) {
        scope__rec_unlock();
        return 0; /* the writer removes the journals, and the pointer */
    }
    err[0] = 0;
    int rc = scope__writer_run(&req);
    if (scope__rec.journal_apart)
        scope__journal_pointer_drop(scope__rec.ranks_dir, scope__rec.host, scope__rec.journal_dir);
    if (rc < 0)
        scope__storage_say(scope__rec.ranks_dir, scope__rec.rank, "rank %d: could not write the "
                           "host file %s: %s; the journals not in it are kept (`scope recover %s` "
                           "converts them once the fault is repaired)", scope__rec.rank, host_path,
                           err[0] ? err : scope_strerror(rc), scope__rec.output);
    scope__rec_unlock();
    return rc;
}

/* scope_finalize's body; complete = 0 when the process is about to end
 * without finalize (scope__finalize_abandoned). */
static int finalize_here(int complete)
{
    int rc = 0;
    calibrate_if_recorded();
    scope__rec_lock();
    if (finish_journal() != 1)
        goto out;

    char rank_path[PATH_MAX + 32], err[PATH_MAX + 256] = {0}, host_path[PATH_MAX + 100];
    scope_rank_file_path(rank_path, sizeof rank_path, scope__rec.ranks_dir, scope__rec.rank);
    struct scope_convert_request req = scope_request_rank(
        scope__rec.journal_path, rank_path,
        /* abandoned: rank 0 may be killed before it writes the index */
        scope__rec.rank == 0 || !complete ? scope__rec.output : NULL, complete, err, sizeof err);
    /* SCOPE_HOST_FILES=1 and no MPI host leader to hand the journal to (a
     * serial process, an MPI the preload cannot use): our group goes into
     * the host's file under a lock (convert/host_append.c), and every
     * such process links itself in the index */
    if (scope__launcher_rank() <= 0) /* an MPI rank 0 has said it already */
        scope__setting_say(SCOPE_SET_HOST_FILES, "using auto");
    if (scope__setting(SCOPE_SET_HOST_FILES)->u == SCOPE_HOST_FILES_ON) {
        char name[100];
        scope_host_file_name(scope__rec.host, name, sizeof name);
        snprintf(host_path, sizeof host_path, "%s/%s", scope__rec.ranks_dir, name);
        req = scope_request_append(host_path, scope__rec.output, scope__rec.journal_path,
                                   complete, err, sizeof err);
    }
    if (req.mode == SCOPE_CONVERT_RANK && writer_may_detach(complete) && start_writer(&req) == 0) {
        /* the writer holds the journal now, our lock on it too, and
         * removes it once the file is in place */
        scope__rec_close_journal(0);
        goto out;
    }
    err[0] = 0;
    rc = scope__writer_run(&req);
    if (rc < 0) {
        /* once per job, like every storage fault: the other ranks usually
         * meet the same full or read-only disk */
        scope__storage_say(scope__rec.ranks_dir, scope__rec.rank, "rank %d: could not write the profile: %s; the "
                           "journal %s is kept (`scope recover %s` converts it once the fault "
                           "is repaired)", scope__rec.rank, err[0] ? err : scope_strerror(rc),
                           scope__rec.journal_path, scope__rec.output);
        scope__rec_close_journal(0);
        goto out;
    }
    scope__rec_close_journal(1);
out:
    scope__rec_unlock();
    return rc;
}

int scope_finalize(void)
{
    return finalize_here(1);
}

int scope__finalize_abandoned(void)
{
    return finalize_here(0);
}

