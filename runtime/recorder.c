/*
 * recorder.c - the core region recorder: begin/end, per-thread chunks of the
 * journal, init and finalize.
 *
 * The hot path (scope_begin/scope_end) reads the clock and stores one
 * 16-byte record at the calling thread's cursor into its staging chunk, a
 * piece of the journal file mapped MAP_SHARED: no lock, no malloc, no
 * system call. The end of a call that recorded nothing inside it completes
 * the begin record in place instead (journal.h, SCOPE_REC_COMPLETE). Only
 * when the staging chunk is full does the slow path run: it copies the
 * chunk to a fresh chunk of the file with pwrite and starts over in the same
 * mapping (journal.h explains why and how a reader tells the two apart).
 * One chunk is mapped per recording thread, and their number is bounded by
 * the memory budget, so memory stays bounded however long the run is;
 * events that find no room are counted, never silently lost. A chunk's
 * disk space is reserved before it is touched; a full or failing disk
 * stops recording cleanly (storage_stop, journal_storage.c).
 *
 * The slow path takes no lock either, so a signal handler that records on a
 * thread interrupted inside it cannot deadlock. Interning, metadata and
 * journal creation take `lock`; they happen once per region or per run.
 *
 * Finalize converts the journal into the rank file through the private
 * converter (convert/scope_convert.h), then removes the journal.
 */
#include "scope.h"
#include "scope_internal.h"

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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "death.h"
#include "writer_spawn.h"
#include "journal.h"
#include "journal_storage.h"
#include "regions.h"

#define DEFAULT_OUTPUT "scope_profile.h5"
#define DEFAULT_BUDGET (64ull << 20)
#define MIN_CHUNK (64u << 10)
#define MAX_CHUNK (1u << 20)
#define CHUNK_HDR ((uint32_t)sizeof(struct scope_chunk_header))

enum rec_state { ST_OFF = 0, ST_READY, ST_FINALIZED, ST_DISABLED };

/* Per-thread recording state, in initial-exec TLS so the hot path reaches
 * it with one %fs-relative access. */
struct thread_state {
    struct scope_rec *cur, *end;
    struct scope_chunk_header *chunk;
    uint32_t index;         /* thread index in the journal, valid if has_index */
    uint32_t seq;           /* next chunk sequence number */
    uint8_t has_index;
    uint8_t key_set;
};
static __thread struct thread_state tls __attribute__((tls_model("initial-exec")));

/* Read on every event: kept apart from the written fields below. */
static struct {
    _Alignas(64) volatile int on;
} hot;

static struct {
    pthread_mutex_t lock;
    _Atomic int state;
    pid_t pid;
    char output[PATH_MAX];      /* absolute index path */
    char ranks_dir[PATH_MAX];   /* absolute "<output stem>.ranks" */
    char journal_path[PATH_MAX + 512];
    uint64_t budget;
    uint32_t chunk_size;
    uint32_t max_live;
    int fd;                                 /* journal, -1 until first event */
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
    struct row { char *f[6]; } *rows;     /* interposition table */
    size_t n_rows;
    struct site {                         /* call paths; id = index + 1 */
        int depth;
        struct site_frame { char *build_id, *object; uint64_t offset; } f[SCOPE_CALLSITE_MAX_DEPTH];
    } *sites;
    size_t n_sites;
    pthread_key_t key;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .rank = 0, .size = 1 };

static void retire_chunk(struct thread_state *t);
static void arm_death(void);

/* ---------------------------------------------------------------- helpers */

/* -------------------------------------------------------------- init/exit */

static void at_exit(void)
{
    scope_finalize();
}

static void thread_exit(void *arg)
{
    struct thread_state *t = arg;
    if (t->chunk) {
        t->chunk->thread_end_ticks = scope__ticks();
        retire_chunk(t);
    }
    t->key_set = 0;
}

/* In a fork child the journal belongs to the parent: stop recording here
 * for good (the child's mappings of the parent's chunks are left alone). */
static void atfork_child(void)
{
    hot.on = 0;
    scope__death_disarm();
    atomic_store(&g.state, ST_DISABLED);
    tls.cur = tls.end = NULL;
    tls.chunk = NULL;
    pthread_mutex_init(&g.lock, NULL);
}

int scope_init(const scope_options *opts)
{
    int rc = 0;
    pthread_mutex_lock(&g.lock);
    if (atomic_load(&g.state) != ST_OFF)
        goto out;

    const char *out = getenv("SCOPE_OUTPUT");
    if (!out || !*out)
        out = opts && opts->output && *opts->output ? opts->output : DEFAULT_OUTPUT;
    if ((rc = scope__absolute_path(out, g.output, sizeof g.output)) < 0)
        goto out;
    scope__ranks_dir_of(g.output, g.ranks_dir, sizeof g.ranks_dir);

    uint64_t budget = opts && opts->memory_budget ? opts->memory_budget : DEFAULT_BUDGET;
    budget = scope__parse_size(getenv("SCOPE_MEMORY_BUDGET"), budget);
    if (budget < 4 * (uint64_t)MIN_CHUNK)
        budget = 4 * (uint64_t)MIN_CHUNK;
    uint64_t chunk = budget / 256;
    chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk > MAX_CHUNK ? MAX_CHUNK : chunk;
    chunk &= ~(uint64_t)4095;
    g.budget = budget;
    g.chunk_size = (uint32_t)chunk;
    /* One chunk's worth stays for the header page and the meta chunk. */
    g.max_live = (uint32_t)(budget / chunk) - 1;

    if (opts && opts->config_text) {
        g.config_text = strdup(opts->config_text);
        if (!g.config_text) {
            rc = SCOPE_ENOMEM;
            goto out;
        }
    }
    if (pthread_key_create(&g.key, thread_exit) != 0) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    scope__clock_setup();
    scope__clock_pair(&g.start_ticks, &g.start_ns);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    g.start_real_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
    g.pid = getpid();
    /* until MPI_Init says otherwise, the rank the launcher announced names
     * this process's rank file (a rank that dies early keeps its own) */
    scope__launcher l;
    if (scope__launcher_from(NULL, &l)) {
        g.rank = l.rank;
        g.size = l.size > l.rank ? l.size : l.rank + 1;
    }
    pthread_atfork(NULL, NULL, atfork_child);
    atexit(at_exit);
    atomic_store(&g.state, ST_READY);
    hot.on = 1;
out:
    pthread_mutex_unlock(&g.lock);
    return rc;
}

void scope_set_rank(int rank, int size)
{
    pthread_mutex_lock(&g.lock);
    if (rank >= 0 && size > rank) {
        g.rank = rank;
        g.size = size;
        if (g.hdr) {
            g.hdr->rank = rank;
            g.hdr->size = size;
            arm_death(); /* the rank file's name changed */
        }
    }
    pthread_mutex_unlock(&g.lock);
}

/* ------------------------------------------------------------ the journal */

/* Stops recording in this process for good after the storage refused
 * the journal (`err`: ENOSPC, EDQUOT, EIO, ...): what is recorded stays,
 * later events are counted as dropped, the application goes on. Said once
 * per job. Lock-free; safe from any thread. */
static void storage_stop_why(int err, const char *what, const char *why, int kept)
{
    hot.on = 0;
    int none = 0;
    if (!atomic_compare_exchange_strong(&g.storage_err, &none, err ? err : EIO))
        return;
    scope__storage_say(g.ranks_dir, g.rank > 0 ? g.rank : -1,
                       "%s %s: %s; recording stopped (later events are counted as dropped), the "
                       "application goes on%s%s%s", what, g.journal_path, why,
                       kept ? "; what was recorded is kept and written at the end, or, if "
                              "there is no room then, left for `scope recover " : "",
                       kept ? g.output : "", kept ? "`" : "");
}

static void storage_stop(int err, const char *what)
{
    storage_stop_why(err, what, strerror(err ? err : EIO), 1);
}

/* Maps chunk `idx` after its bytes are reserved on the storage (a page
 * the file system has not promised is never touched). Returns the chunk,
 * or NULL after stopping recording (storage_stop). */
static void *map_chunk(uint64_t idx)
{
    uint64_t off = SCOPE_JOURNAL_HEADER_SIZE + idx * (uint64_t)g.chunk_size;
    int e = scope__journal_reserve(g.fd, off, g.chunk_size);
    if (e) {
        storage_stop(e, "cannot reserve space for the journal");
        return NULL;
    }
    void *p = mmap(NULL, g.chunk_size, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd, (off_t)off);
    /* Not prefaulted: a staging chunk is reused, so each page faults in
     * once per thread (and again only after the kernel writes it back),
     * and a short-lived thread pays only for the pages it touches. */
    if (p == MAP_FAILED) {
        storage_stop(errno, "cannot map the journal");
        return NULL;
    }
    return p;
}

/* Appends one meta record; caller holds the lock. Returns 0 or SCOPE_E*. */
static int meta_append(uint32_t type, const void *const *parts, const size_t *lens, int nparts)
{
    size_t len = 0;
    for (int i = 0; i < nparts; i++)
        len += lens[i];
    size_t need = sizeof(struct scope_meta) + ((len + 7) & ~(size_t)7);
    size_t room = g.chunk_size - CHUNK_HDR;
    if (need > room)
        return SCOPE_ELIMIT;
    if (!g.meta || g.meta->used + need > room) {
        uint64_t idx = atomic_fetch_add((_Atomic uint64_t *)&g.hdr->chunk_count, 1);
        struct scope_chunk_header *c = map_chunk(idx);
        if (!c)
            return SCOPE_EIO;
        if (g.meta)
            munmap(g.meta, g.chunk_size);
        c->type = SCOPE_CHUNK_META;
        c->seq = g.meta_seq++;
        scope__clock_pair(&c->calib_ticks, &c->calib_ns);
        c->magic = SCOPE_CHUNK_MAGIC;
        g.meta = c;
    }
    char *p = (char *)g.meta + CHUNK_HDR + g.meta->used;
    struct scope_meta m = { type, (uint32_t)len };
    memcpy(p, &m, sizeof m);
    p += sizeof m;
    for (int i = 0; i < nparts; i++) {
        memcpy(p, parts[i], lens[i]);
        p += lens[i];
    }
    __atomic_store_n(&g.meta->used, g.meta->used + need, __ATOMIC_RELEASE);
    return 0;
}

static int meta_region(int32_t id, const struct scope__region *r)
{
    uint32_t head[2] = { (uint32_t)id, (uint32_t)r->kind };
    const char *sym = r->symbol ? r->symbol : "", *obj = r->object ? r->object : "";
    const void *parts[] = { head, r->name, sym, obj };
    size_t lens[] = { sizeof head, strlen(r->name) + 1, strlen(sym) + 1, strlen(obj) + 1 };
    return meta_append(SCOPE_META_REGION, parts, lens, 4);
}

static int meta_row(const struct row *r)
{
    const void *parts[6];
    size_t lens[6];
    for (int i = 0; i < 6; i++) {
        parts[i] = r->f[i];
        lens[i] = strlen(r->f[i]) + 1;
    }
    return meta_append(SCOPE_META_INTERPOSE, parts, lens, 6);
}

static int meta_site(int32_t id, const struct site *st)
{
    const void *parts[1 + 3 * SCOPE_CALLSITE_MAX_DEPTH];
    size_t lens[1 + 3 * SCOPE_CALLSITE_MAX_DEPTH];
    uint32_t head[2] = { (uint32_t)id, (uint32_t)st->depth };
    int n = 0;
    parts[n] = head;
    lens[n++] = sizeof head;
    for (int i = 0; i < st->depth; i++) {
        parts[n] = &st->f[i].offset;
        lens[n++] = sizeof st->f[i].offset;
        parts[n] = st->f[i].build_id;
        lens[n++] = strlen(st->f[i].build_id) + 1;
        parts[n] = st->f[i].object;
        lens[n++] = strlen(st->f[i].object) + 1;
    }
    return meta_append(SCOPE_META_CALLSITE, parts, lens, n);
}

static int meta_kv(const char *key, const char *value)
{
    const void *parts[] = { key, value };
    size_t lens[] = { strlen(key) + 1, strlen(value) + 1 };
    return meta_append(SCOPE_META_KV, parts, lens, 2);
}

/* Reads a whole small /proc file, NUL bytes turned into spaces. */
static char *read_proc(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n + 1 == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    close(fd);
    if (!buf)
        return NULL;
    while (n > 0 && buf[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    buf[n] = 0;
    return buf;
}

static void write_run_metadata(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        meta_kv("executable", buf);
    }
    char *cmd = read_proc("/proc/self/cmdline");
    if (cmd) {
        meta_kv("command_line", cmd);
        free(cmd);
    }
    if (getcwd(buf, sizeof buf))
        meta_kv("working_directory", buf);
    meta_kv("scope_version", SCOPE_VERSION_STRING);
    meta_kv("clock", "CLOCK_MONOTONIC");
    if (g.config_text)
        meta_kv("config", g.config_text);
    for (size_t i = 0; i < g.n_kv; i++)
        meta_kv(g.kv[i].key, g.kv[i].value);
    for (size_t i = 0; i < g.n_rows; i++)
        meta_row(&g.rows[i]);
    for (uint32_t id = 0; id < scope__regions_count(); id++)
        meta_region((int32_t)id, scope__regions_get((int32_t)id));
    for (size_t i = 0; i < g.n_sites; i++)
        meta_site((int32_t)(i + 1), &g.sites[i]);
}

/* Creates the journal at the first event; caller holds the lock.
 * Returns 0 or SCOPE_E* (recording then stays off for good). */
static int journal_create(void)
{
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    if (scope__mkdir_p(g.ranks_dir) < 0)
        goto fail_dir;
    if ((size_t)snprintf(g.journal_path, sizeof g.journal_path, "%s/journal.%s.%ld",
                         g.ranks_dir, host, (long)g.pid) >= sizeof g.journal_path) {
        errno = ENAMETOOLONG;
        goto fail_dir;
    }
    g.fd = open(g.journal_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (g.fd < 0)
        goto fail_dir;
    /* Held until the process ends, however it ends: `scope recover` takes
     * a journal whose lock it can get as one whose owner died. */
    flock(g.fd, LOCK_EX | LOCK_NB);
    if ((errno = scope__journal_reserve(g.fd, 0, SCOPE_JOURNAL_HEADER_SIZE)) != 0)
        goto fail_map;
    void *p = mmap(NULL, SCOPE_JOURNAL_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd, 0);
    if (p == MAP_FAILED)
        goto fail_map;
    struct scope_journal_header *h = p;
    h->version = SCOPE_JOURNAL_VERSION;
    h->header_size = SCOPE_JOURNAL_HEADER_SIZE;
    h->chunk_size = g.chunk_size;
    h->record_size = sizeof(struct scope_rec);
    h->state = SCOPE_JOURNAL_RECORDING;
    h->clock_kind = scope__clock_tsc ? SCOPE_CLOCK_TSC : SCOPE_CLOCK_NS;
    h->clock_resolution = scope__clock_resolution;
    h->pid = g.pid;
    h->rank = g.rank;
    h->size = g.size;
    h->start_ticks = g.start_ticks;
    h->start_ns = g.start_ns;
    h->start_realtime_ns = g.start_real_ns;
    memcpy(h->hostname, host, sizeof h->hostname);
    size_t olen = strnlen(g.output, sizeof h->output - 1);
    memcpy(h->output, g.output, olen); /* informational; may be cut */
    memcpy(h->magic, SCOPE_JOURNAL_MAGIC, 8);
    __atomic_store_n(&g.hdr, h, __ATOMIC_RELEASE); /* published to lock-free readers */
    write_run_metadata();
    arm_death();
    /* after death.c's handlers, which it then passes other faults to */
    scope__journal_sigbus_arm(g.fd, &hot.on);
    return 0;

fail_map:;
    int e = errno;
    close(g.fd);
    g.fd = -1;
    unlink(g.journal_path);
    errno = e;
fail_dir:
    /* once per job, not once per rank: the first event usually comes
     * before MPI_Init has told us the rank */
    scope__storage_say(g.ranks_dir, g.rank > 0 ? g.rank : -1,
                       "cannot create the journal in %s: %s; recording is off", g.ranks_dir,
                       strerror(errno));
    return SCOPE_EIO;
}

/* Prepares the death handlers for the current rank; caller holds the
 * lock and the journal exists. */
static void arm_death(void)
{
    char writer[PATH_MAX + 64], err[64], rank_path[PATH_MAX + 32];
    if (scope__writer_find(writer, sizeof writer, err, sizeof err) < 0)
        writer[0] = 0;
    snprintf(rank_path, sizeof rank_path, "%s/rank%d.h5", g.ranks_dir, g.rank);
    scope__death_arm(g.hdr, &hot.on, writer[0] ? writer : NULL, g.journal_path, rank_path,
                     g.rank == 0 ? g.output : NULL);
}

/* ---------------------------------------------------------- chunks (slow) */

/* Leaves the thread's staging chunk in the file as it is (a reader takes
 * its valid records from there) and gives its memory back. */
static void retire_chunk(struct thread_state *t)
{
    if (!t->chunk)
        return;
    struct scope_chunk_header *c = t->chunk;
    t->cur = t->end = NULL;
    t->chunk = NULL;
    munmap(c, g.chunk_size);
    atomic_fetch_sub(&g.live, 1);
}

/* Returns 0 or an errno value. */
static int pwrite_full(const void *buf, size_t len, uint64_t off)
{
    const char *p = buf;
    while (len) {
        ssize_t n = pwrite(g.fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* Copies the full staging chunk to a fresh EVENTS chunk and starts the
 * next sequence in place (journal.h explains the order of the writes).
 * `first` is the tick of the record that found the chunk full.
 * Returns 0, or -1 after stopping recording (storage_stop: the staging
 * chunk is kept as it is, and a reader takes its records from there). */
static int flush_staging(struct thread_state *t, uint64_t first)
{
    struct scope_chunk_header *c = t->chunk;
    uint64_t idx = atomic_fetch_add((_Atomic uint64_t *)&g.hdr->chunk_count, 1);
    uint64_t off = SCOPE_JOURNAL_HEADER_SIZE + idx * (uint64_t)g.chunk_size;
    struct scope_chunk_header h = *c;
    h.type = SCOPE_CHUNK_EVENTS;
    int e = scope__journal_reserve(g.fd, off, g.chunk_size);
    if (e) {
        storage_stop(e, "cannot reserve space for the journal");
        return -1;
    }
    /* EFAULT: a page of the staging chunk was lost under us */
    if ((e = pwrite_full((char *)c + CHUNK_HDR, g.chunk_size - CHUNK_HDR, off + CHUNK_HDR)) ||
        (e = pwrite_full(&h, sizeof h, off))) {
        storage_stop(e, "cannot write the journal");
        return -1;
    }
    /* journal.h, SCOPE_CHUNK_CLEARED: the next sequence's records are told
     * from the old ones by position, never by time (ties with `first`) */
    memset((char *)c + CHUNK_HDR, 0, g.chunk_size - CHUNK_HDR);
    atomic_signal_fence(memory_order_seq_cst);
    c->first_ticks = first;
    scope__clock_pair(&c->calib_ticks, &c->calib_ns);
    atomic_signal_fence(memory_order_seq_cst);
    c->seq = t->seq++;
    t->cur = (struct scope_rec *)((char *)c + CHUNK_HDR);
    return 0;
}

/* Makes room for the calling thread's next record: flushes its staging
 * chunk, or maps one on the thread's first event (within the budget).
 * Lock-free (see the file comment). Returns 1 when the thread may record,
 * 0 when the event must be dropped. */
static int next_chunk(struct thread_state *t, uint64_t ticks)
{
    if (t->chunk)
        return flush_staging(t, ticks) == 0;
    uint32_t live = atomic_load(&g.live);
    do {
        if (live >= g.max_live)
            return 0;
    } while (!atomic_compare_exchange_weak(&g.live, &live, live + 1));

    uint64_t idx = atomic_fetch_add((_Atomic uint64_t *)&g.hdr->chunk_count, 1);
    struct scope_chunk_header *c = map_chunk(idx);
    if (!c) {
        atomic_fetch_sub(&g.live, 1);
        return 0;
    }
    if (!t->has_index) {
        t->index = atomic_fetch_add((_Atomic uint32_t *)&g.hdr->thread_count, 1);
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
    t->end = (struct scope_rec *)((char *)c + g.chunk_size);
    if (!t->key_set) {
        pthread_setspecific(g.key, t);
        t->key_set = 1;
    }
    return 1;
}

static int ensure_journal(void)
{
    if (__atomic_load_n(&g.hdr, __ATOMIC_ACQUIRE))
        return 1;
    pthread_mutex_lock(&g.lock);
    int ok = g.hdr != NULL;
    if (!ok && atomic_load(&g.state) == ST_READY) {
        ok = journal_create() == 0;
        if (!ok) {
            hot.on = 0;
            atomic_store(&g.state, ST_DISABLED);
        }
    }
    pthread_mutex_unlock(&g.lock);
    return ok;
}

/* Says once that the SIGBUS handler (journal_storage.c) replaced a lost
 * journal page, which also switched recording off; from then on events
 * count as dropped. */
static void report_lost_pages(void)
{
    int fresh;
    uint64_t lost = scope__journal_pages_lost(&fresh);
    if (!fresh || !lost)
        return;
    struct stat st;
    uint64_t want = SCOPE_JOURNAL_HEADER_SIZE +
                    __atomic_load_n(&g.hdr->chunk_count, __ATOMIC_RELAXED) * g.chunk_size;
    const char *why = "a page could not be read back from the storage (Input/output error)";
    if (fstat(g.fd, &st) == 0 && st.st_nlink == 0)
        why = "the file was removed and truncated";
    else if (fstat(g.fd, &st) == 0 && (uint64_t)st.st_size < want)
        why = "the file was truncated under the profiler";
    storage_stop_why(EIO, "lost pages of the journal", why, 0);
}

static __attribute__((noinline)) void record_slow(uint64_t ticks, uint32_t word, uint32_t aux)
{
    struct thread_state *t = &tls;
    if (!hot.on) {
        /* stopped by the storage: every event from then on is counted */
        if (atomic_load(&g.state) == ST_READY && getpid() == g.pid && g.hdr) {
            report_lost_pages();
            if (atomic_load_explicit(&g.storage_err, memory_order_relaxed))
                atomic_fetch_add(&g.dropped, 1);
        }
        return;
    }
    if (getpid() != g.pid)
        return;
    if (!ensure_journal() || !next_chunk(t, ticks)) {
        atomic_fetch_add(&g.dropped, 1);
        return;
    }
    struct scope_rec *r = t->cur++;
    r->word = word;
    r->aux = aux;
    atomic_signal_fence(memory_order_release);
    r->ticks = ticks;
}

/* --------------------------------------------------------------- hot path */

/* The slot is claimed before it is filled and the timestamp is stored last,
 * so a signal handler that records on this thread in between takes the next
 * slot, and a reader never sees a half-written record as valid. */
static inline __attribute__((always_inline)) void record_aux(uint32_t word, uint64_t ticks,
                                                              uint32_t aux)
{
    struct thread_state *t = &tls;
    struct scope_rec *r = t->cur;
    if (__builtin_expect(r < t->end && hot.on, 1)) {
        t->cur = r + 1;
        atomic_signal_fence(memory_order_seq_cst);
        r->word = word;
        r->aux = aux;
        atomic_signal_fence(memory_order_release);
        r->ticks = ticks;
        return;
    }
    record_slow(ticks, word, aux);
}

static inline __attribute__((always_inline)) void record_at(uint32_t word, uint64_t ticks)
{
    record_aux(word, ticks, 0);
}

void scope_begin(int32_t id)
{
    record_at((uint32_t)id << SCOPE_REC_ID_SHIFT, scope__ticks());
}

/* The end of a call that recorded nothing inside it finds its own begin as
 * the latest record and completes it in place (journal.h). The record
 * before a chunk's first slot is the chunk header's guard, which never
 * matches a begin. A signal handler that records between the check and
 * the stores adds records after this one: they lie inside the call in
 * time, and the reader nests calls by containment. */
static inline __attribute__((always_inline)) void end_at(int32_t id, uint64_t ticks)
{
    uint32_t begin = (uint32_t)id << SCOPE_REC_ID_SHIFT;
    struct thread_state *t = &tls;
    struct scope_rec *r = t->cur;
    if (__builtin_expect(r != NULL && hot.on, 1)) {
        struct scope_rec *last = r - 1;
        uint64_t d = ticks - last->ticks;
        /* a begin with a call site keeps its aux: its end is a record */
        if (last->word == begin && last->aux == 0 && d <= UINT32_MAX) {
            last->aux = (uint32_t)d;
            atomic_signal_fence(memory_order_release);
            last->word = begin | SCOPE_REC_COMPLETE;
            return;
        }
    }
    record_at(begin | SCOPE_REC_END, ticks);
}

void scope_end(int32_t id)
{
    /* the clock is read before anything else: the end is as early as can be */
    end_at(id, scope__ticks());
}

void scope__begin_site(int32_t id, int32_t site)
{
    record_aux((uint32_t)id << SCOPE_REC_ID_SHIFT, scope__ticks(), (uint32_t)(site > 0 ? site : 0));
}

void scope__end_unwound(int32_t id)
{
    record_aux(((uint32_t)id << SCOPE_REC_ID_SHIFT) | SCOPE_REC_END, scope__ticks(),
               SCOPE_REC_UNWOUND);
}

void scope__end_unwound_at(int32_t id, uint64_t ticks)
{
    /* not before the end of the thread's latest record: what ran after the
     * given moment (a destructor during unwinding) stays inside the call */
    struct thread_state *t = &tls;
    struct scope_rec *r = t->cur;
    if (r && hot.on && r[-1].word != SCOPE_CHUNK_GUARD) {
        uint64_t last = r[-1].ticks + ((r[-1].word & SCOPE_REC_COMPLETE) ? r[-1].aux : 0);
        if (last > ticks)
            ticks = last;
    }
    record_aux(((uint32_t)id << SCOPE_REC_ID_SHIFT) | SCOPE_REC_END, ticks, SCOPE_REC_UNWOUND);
}

void scope__record_at(int32_t id, int is_end, uint64_t ticks)
{
    if (!ticks)
        return;
    if (is_end)
        end_at(id, ticks);
    else
        record_at((uint32_t)id << SCOPE_REC_ID_SHIFT, ticks);
}

/* ---------------------------------------------------------------- regions */

int32_t scope__region_ex(const char *name, int kind, const char *symbol, const char *object)
{
    if (atomic_load(&g.state) == ST_OFF) {
        int rc = scope_init(NULL);
        if (rc < 0)
            return rc;
    }
    pthread_mutex_lock(&g.lock);
    int created = 0;
    int32_t id = scope__regions_intern(name, kind, symbol, object, &created);
    if (id >= 0 && created && g.hdr) {
        int rc = meta_region(id, scope__regions_get(id));
        if (rc < 0)
            id = rc;
    }
    pthread_mutex_unlock(&g.lock);
    return id;
}

int32_t scope_region(const char *name)
{
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

int scope__set_metadata(const char *key, const char *value)
{
    if (!key || !*key || !value)
        return SCOPE_EINVAL;
    int rc = 0;
    pthread_mutex_lock(&g.lock);
    struct kv *kv = realloc(g.kv, (g.n_kv + 1) * sizeof *kv);
    if (!kv) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    g.kv = kv;
    kv[g.n_kv].key = strdup(key);
    kv[g.n_kv].value = strdup(value);
    if (!kv[g.n_kv].key || !kv[g.n_kv].value) {
        free(kv[g.n_kv].key);
        free(kv[g.n_kv].value);
        rc = SCOPE_ENOMEM;
        goto out;
    }
    g.n_kv++;
    if (g.hdr)
        rc = meta_kv(key, value);
out:
    pthread_mutex_unlock(&g.lock);
    return rc;
}

int scope__note_interposition(const char *pattern, const char *symbol, const char *object,
                              const char *method, const char *status, const char *reason)
{
    const char *in[6] = { pattern, symbol, object, method, status, reason };
    struct row r;
    int rc = 0, i;
    for (i = 0; i < 6; i++)
        if (!(r.f[i] = strdup(in[i] ? in[i] : "")))
            goto fail_copy;
    pthread_mutex_lock(&g.lock);
    struct row *rows = realloc(g.rows, (g.n_rows + 1) * sizeof *rows);
    if (rows) {
        g.rows = rows;
        rows[g.n_rows++] = r;
        if (g.hdr)
            rc = meta_row(&r);
    } else {
        rc = SCOPE_ENOMEM;
    }
    pthread_mutex_unlock(&g.lock);
    if (!rows)
        goto fail_copy;
    return rc;

fail_copy:
    while (i-- > 0)
        free(r.f[i]);
    return SCOPE_ENOMEM;
}

static int site_equal(const struct site *st, const scope__frame *fr, int depth)
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
    if (atomic_load(&g.state) == ST_OFF) {
        int rc = scope_init(NULL);
        if (rc < 0)
            return rc;
    }
    int32_t id;
    pthread_mutex_lock(&g.lock);
    for (size_t i = 0; i < g.n_sites; i++) {
        if (site_equal(&g.sites[i], frames, depth)) {
            id = (int32_t)(i + 1);
            goto out;
        }
    }
    id = SCOPE_ENOMEM;
    if (g.n_sites >= INT32_MAX - 1)
        goto out;
    struct site *sites = realloc(g.sites, (g.n_sites + 1) * sizeof *sites);
    if (!sites)
        goto out;
    g.sites = sites;
    struct site *st = &sites[g.n_sites];
    int i;
    for (i = 0; i < depth; i++) {
        st->f[i].offset = frames[i].offset;
        st->f[i].object = strdup(frames[i].object);
        st->f[i].build_id = strdup(frames[i].build_id ? frames[i].build_id : "");
        if (!st->f[i].object || !st->f[i].build_id)
            goto fail_copy;
    }
    st->depth = depth;
    id = (int32_t)++g.n_sites;
    if (g.hdr) {
        int rc = meta_site(id, st);
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
    pthread_mutex_unlock(&g.lock);
    return id;
}

uint64_t scope_dropped_events(void)
{
    return atomic_load(&g.dropped);
}

int scope__enabled(void)
{
    return hot.on;
}

/* ---------------------------------------------------------------- finish */

static void close_journal(int remove_file)
{
    if (g.meta)
        munmap(g.meta, g.chunk_size);
    g.meta = NULL;
    /* The header page stays mapped: a thread racing with finalize may still
     * be in next_chunk(); it then fails to map a chunk and drops. */
    if (g.fd >= 0)
        close(g.fd);
    g.fd = -1;
    if (remove_file && g.journal_path[0])
        unlink(g.journal_path);
}

void scope__disable(void)
{
    pthread_mutex_lock(&g.lock);
    hot.on = 0;
    scope__death_disarm();
    int mine = g.pid == getpid();
    atomic_store(&g.state, ST_DISABLED);
    if (mine) {
        retire_chunk(&tls);
        close_journal(1);
    }
    pthread_mutex_unlock(&g.lock);
}

int scope_finalize(void)
{
    int rc = 0;
    pthread_mutex_lock(&g.lock);
    if (atomic_load(&g.state) != ST_READY || g.pid != getpid())
        goto out;
    if (g.hdr)
        report_lost_pages();
    hot.on = 0;
    scope__death_disarm();
    atomic_store(&g.state, ST_FINALIZED);
    if (!g.hdr)
        goto out; /* nothing was recorded: nothing to write */

    if (tls.chunk)
        tls.chunk->thread_end_ticks = scope__ticks();
    retire_chunk(&tls);
    struct scope_journal_header *h = g.hdr;
    scope__clock_pair(&h->end_ticks, &h->end_ns);
    h->dropped_events = atomic_load(&g.dropped);
    h->rank = g.rank;
    h->size = g.size;
    h->state = SCOPE_JOURNAL_FINALIZED;

    char rank_path[PATH_MAX + 32], err[PATH_MAX + 256] = {0};
    snprintf(rank_path, sizeof rank_path, "%s/rank%d.h5", g.ranks_dir, g.rank);
    struct scope_convert_request req = {
        .journal_path = g.journal_path,
        .rank_path = rank_path,
        .index_path = g.rank == 0 ? g.output : NULL,
        .complete = 1,
        .err = err,
        .errlen = sizeof err,
    };
    rc = scope__writer_run(&req);
    if (rc < 0) {
        /* once per job, like every storage fault: the other ranks usually
         * meet the same full or read-only disk */
        scope__storage_say(g.ranks_dir, g.rank, "rank %d: could not write the profile: %s; the "
                           "journal %s is kept (`scope recover %s` converts it once the fault "
                           "is repaired)", g.rank, err[0] ? err : scope_strerror(rc),
                           g.journal_path, g.output);
        close_journal(0);
        goto out;
    }
    close_journal(1);
out:
    pthread_mutex_unlock(&g.lock);
    return rc;
}
