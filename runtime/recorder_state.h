/*
 * recorder_state.h - the recorder's state (defined in
 * recorder_state.c), shared by the files that make up the recorder, and
 * what they call of each other. From the top: recorder.c (the API,
 * registries, finalize) calls calibrate.c (what a recorded call costs),
 * which times recorder_hot.c (begin/end and the slow path), which calls
 * recorder_journal.c (the journal file, its per-thread chunks), which
 * writes the first records through recorder_meta.c (metadata records,
 * key/values), which maps chunks through recorder_chunk.c (the storage:
 * reserve, map, stop on refusal); recorder_settings.c gives the output
 * and the memory budget. Calls run that one way. Not used outside
 * runtime/; every name is hidden in the libraries.
 *
 * One struct for the whole recorder, not one per file, because every part
 * works on the same journal under the same lock; the hot flag lives apart
 * so that the stores to the rest never share its cache line.
 */
#ifndef SCOPE_RECORDER_STATE_H
#define SCOPE_RECORDER_STATE_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "journal.h"
#include "regions.h"
#include "scope.h"
#include "scope_internal.h"
#include "self_depth.h"

#define CHUNK_HDR ((uint32_t)sizeof(struct scope_chunk_header))

enum rec_state { ST_OFF = 0, ST_READY, ST_FINALIZED, ST_DISABLED };

/* Per-thread recording state, in initial-exec TLS (recorder_hot.c) so the
 * hot path reaches it with one %fs-relative access. */
struct scope__rec_thread {
    struct scope_rec *cur, *end;
    struct scope_chunk_header *chunk;
    uint32_t index;         /* thread index in the journal, valid if has_index */
    uint32_t seq;           /* next chunk sequence number */
    uint8_t has_index;
    uint8_t key_set;
};

/* Read on every event: kept apart from the written fields of scope__rec. */
struct scope__rec_hot {
    _Alignas(64) volatile int on;
};
/* Hidden here, not only by -fvisibility at its definition: a declaration
 * the compiler knows is hidden is reached with one PC-relative load, not
 * through the GOT (the hot path reads it on every event, from
 * recorder_hot.c, which does not define it). */
extern struct scope__rec_hot scope__hot __attribute__((visibility("hidden")));

struct scope__rec_row { char *f[6]; };  /* one interposition table row (f[0]
                                           owns the block of all six) */

struct scope__rec_site {                /* one call path; id = index + 1 */
    int depth;
    struct scope__rec_site_frame {
        char *build_id, *object;
        uint64_t offset;
    } f[SCOPE_CALLSITE_MAX_DEPTH];
};

struct scope__recorder {
    pthread_mutex_t lock;
    _Atomic int state;
    pid_t pid;
    char output[PATH_MAX];      /* absolute index path */
    char ranks_dir[PATH_MAX];   /* absolute "<output stem>.ranks" */
    char journal_path[PATH_MAX + 512];
    char journal_dir[PATH_MAX]; /* ranks_dir, or SCOPE_JOURNAL_DIR */
    int journal_apart;          /* journal_dir is not ranks_dir */
    char host[256];             /* gethostname, as in the journal's name */
    uint64_t budget;
    uint32_t chunk_size;
    uint32_t max_live;
    int fd;                                 /* journal, -1 until first event; read it
                                               through scope__rec_journal_fd() */
    uint64_t jdev, jino;                    /* the journal's st_dev and st_ino */
    struct scope_journal_header *hdr;       /* mapped header page */
    struct scope_chunk_header *meta;        /* current meta chunk */
    uint32_t meta_seq;
    _Atomic uint32_t live;                  /* event chunks mapped now */
    _Atomic uint64_t dropped;
    _Atomic int storage_err;                /* errno that stopped recording */
    int rank, size;
    uint64_t start_ticks;
    int64_t start_ns, start_real_ns;
    char *config_text;
    struct kv { char *key, *value; } *kv;
    size_t n_kv;
    struct scope__rec_row *rows;            /* interposition table */
    size_t n_rows, cap_rows;
    struct scope__rec_site *sites;          /* call paths */
    size_t n_sites;
    int32_t n_comms;                        /* communicators defined */
    int32_t n_files;                        /* file table rows defined */
    pthread_key_t key;
};
extern struct scope__recorder scope__rec __attribute__((visibility("hidden")));

/* --- recorder_hot.c ----------------------------------------------------- */

/* The calling thread's recording state (its staging chunk and cursor),
 * for the cold paths: fork, disable, finalize. */
struct scope__rec_thread *scope__rec_this_thread(void);

/* --- recorder_settings.c ------------------------------------------------ */

/* Sets scope__rec's output, ranks_dir, journal_dir, budget, chunk_size and
 * max_live from SCOPE_OUTPUT, SCOPE_JOURNAL_DIR and SCOPE_MEMORY_BUDGET
 * (which win), else `opts` (or scope__set_journal_dir), else the
 * defaults. A SCOPE_MEMORY_BUDGET that does not parse (size_parse.h) is
 * ignored, and said once on stderr. Returns 0 or SCOPE_ELIMIT / SCOPE_EIO
 * (the output path). Cost: a getcwd. */
int scope__rec_settings(const scope_options *opts);

/* --- recorder_chunk.c: the journal's storage -------------------------- */

/* Reserves and maps chunk `idx`. Returns it, or NULL after stopping
 * recording (the storage refused). Lock-free. */
void *scope__rec_map_chunk(uint64_t idx);

/* Stops recording in this process for good after the storage refused
 * the journal (`err`: ENOSPC, EDQUOT, EIO, ...): what is recorded stays,
 * later events are counted as dropped, the application goes on. Said
 * once per job, `what` and `why` in the line (`kept`: what was recorded
 * is still written). Lock-free; safe from any thread. */
void scope__rec_storage_stop_why(int err, const char *what, const char *why, int kept);

/* The same, `why` being strerror(err). */
void scope__rec_storage_stop(int err, const char *what);

/* --- recorder_journal.c: the journal file (callers hold the lock unless
 * said otherwise) ----------------------------------------------------- */

/* Creates the journal on the first event (takes the lock). Returns 1 when
 * the journal exists, 0 when recording is off for good. */
int scope__rec_ensure_journal(void);

/* Makes room for the thread's next record: flushes its staging chunk, or
 * maps one within the budget. Lock-free. Returns 1 to record, 0 to drop. */
int scope__rec_next_chunk(struct scope__rec_thread *t, uint64_t ticks);

/* Leaves the thread's staging chunk in the file and unmaps it. */
void scope__rec_retire_chunk(struct scope__rec_thread *t);

/* Prepares the death handlers for the current rank (the journal exists). */
void scope__rec_arm_death(void);

/* Says once that journal pages were lost (SIGBUS), stopping recording. */
void scope__rec_report_lost_pages(void);

/* Closes the journal; removes the file when `remove_file`. */
void scope__rec_close_journal(int remove_file);

/* --- recorder_meta.c: metadata records in the journal's meta chunks.
 * Callers hold the lock and the journal exists. Return 0 or SCOPE_E*. -- */

int scope__rec_meta_region(int32_t id, const struct scope__region *r);
int scope__rec_meta_row(const struct scope__rec_row *r);
int scope__rec_meta_site(int32_t id, const struct scope__rec_site *st);
int scope__rec_meta_kv(const char *key, const char *value);
int scope__rec_meta_comm(int32_t id, int32_t size, int32_t remote_size, const int32_t *world,
                         const char *creator, const char *name);
struct scope_file_meta;
struct scope_file_names;
int scope__rec_meta_file(const struct scope_file_meta *m, const struct scope_file_names *n);

/* The journal's descriptor, checked before every use of it (the slow
 * path: a chunk mapped, reserved or written): the program may have closed
 * it (close_range, closefrom, a loop of closes) or put another file at its
 * number (dup2, an open after such a close), and the recorder must never
 * write into the program's file. When the descriptor is no longer the
 * journal (fstat's device and inode), the journal is opened again by its
 * path, at a high number, and locked again. Returns the descriptor, or -1
 * (the journal is gone: recording then stops as for any storage fault).
 * Cost: one fstat; no lock (two threads that both reopen keep one). */
int scope__rec_journal_fd(void);
/* The journal's descriptor moved above the numbers a program usually
 * gets (recorder_chunk.c); fd itself when none is free up there. */
int scope__rec_lift_fd(int fd);

/* Writes what is known so far (the run's identity, config, key/values,
 * interposition rows, regions, call sites) into a new journal. */
void scope__rec_write_run_metadata(void);

/* The recorder's lock, taken as scope's own work (self_depth.h): what
 * libc calls on the recorder's behalf while it holds the lock is never
 * recorded, so the recorder is never re-entered under it. */
static inline void scope__rec_lock(void)
{
    scope__self_enter();
    pthread_mutex_lock(&scope__rec.lock);
}

static inline void scope__rec_unlock(void)
{
    pthread_mutex_unlock(&scope__rec.lock);
    scope__self_leave();
}

#endif /* SCOPE_RECORDER_STATE_H */
