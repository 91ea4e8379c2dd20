/*
 * io_files.c - the descriptors and the file table of the I/O capture
 * (io_files.h).
 *
 * A file is known by its device and inode (fstat of the descriptor an
 * open returned; the stat buffer of a stat call), so that two names of
 * one file (a relative and an absolute path, a symbolic link, a hard
 * link) are one row, and a name reused for another file is another. Its
 * names are the one the program gave and the one the kernel resolves the
 * descriptor to (/proc/self/fd/N), its file system the mount table's
 * entry of its device (/proc/self/mountinfo, read once). Files in the
 * excluded folders (io_exclude) get a row in the hash but none in the
 * journal: their descriptors are untracked, and the calls on them are
 * never recorded.
 *
 * Concurrency: lookups take no lock (entries are published with a
 * release store of their row); adding a file takes a spin lock. A thread
 * that finds another thread holding it waits (bounded: the holder does an
 * fstat, a readlink and a journal record), so that two threads opening
 * files at once both keep their calls; a signal handler opening a file
 * while its own thread holds the lock never waits: the descriptor then
 * stays unknown, and its next use looks again.
 */
#include "io_files.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "journal.h"
#include "scope_calls.h"
#include "scope_internal.h"
#include "self_depth.h"

#define MAX_FDS (1u << 20)
#define MAX_OFDS (1u << 16)
#define MAX_MOUNTS 512
#define MAX_EXCLUDE 64

struct scope__io_fd *scope__io_fds;
uint32_t scope__io_nfds;
struct scope__io_ofd *scope__io_ofds;   /* [0]: the sink of descriptors without one */

struct file_slot {
    _Atomic int32_t row;            /* row + 1; 0 empty; -1 excluded (no row);
                                       -2 a file gone (unlinked): probes go on */
    uint32_t kind;
    uint64_t dev, ino;              /* files; a dataset: parent and name hash */
    char *name;                     /* datasets: their path, to tell names apart;
                                       files: the name the kernel resolved */
};

static struct {
    struct file_slot *slots;
    size_t nslots;                  /* a power of two, twice the bound */
    uint32_t bound, rows;           /* rows defined (the journal's count) */
    _Atomic uintptr_t lock;     /* 0 free, else the holder's token (owner_token) */
    _Atomic uint64_t past_bound;
    _Atomic int32_t other_row;      /* row + 1 of the files past the bound; 0 none */
    _Atomic int32_t std_row[3];     /* row + 1 of <STDIN>, <STDOUT>, <STDERR> */
    uint32_t ofd_top, ofd_free;     /* open file descriptions handed out; the free list */
    char *exclude[MAX_EXCLUDE];
    size_t exclude_len[MAX_EXCLUDE];
    int nexclude;
    struct mount {
        uint64_t dev;
        char *point, *type;
    } mounts[MAX_MOUNTS];
    int nmounts, mounts_read;
} T;

/* A token of the calling thread: the address of one of its thread-locals. */
static __thread char owner_tls __attribute__((tls_model("initial-exec")));

/* Takes the lock: 1, or 0 when this thread holds it already (a signal
 * handler inside the thread's own addition) or another thread held it
 * through 65,536 yields (a holder stopped for good). */
static int try_lock(void)
{
    uintptr_t me = (uintptr_t)&owner_tls;
    for (int tries = 0; tries < 65536; tries++) {
        uintptr_t free_ = 0;
        if (atomic_compare_exchange_weak_explicit(&T.lock, &free_, me, memory_order_acquire,
                                                  memory_order_relaxed))
            return 1;
        if (free_ == me)
            return 0;
        sched_yield();
    }
    return 0;
}

static void unlock(void)
{
    atomic_store_explicit(&T.lock, 0, memory_order_release);
}

int scope__io_files_init(const scope_config *cfg)
{
    if (scope__io_fds)
        return 0;
    struct rlimit rl;
    uint64_t n = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY ? rl.rlim_max
                                                                                    : MAX_FDS;
    if (n > MAX_FDS)
        n = MAX_FDS;
    if (n < 1024)
        n = 1024;
    /* reserved, not committed: a page per 256 descriptors, touched when used */
    void *p = mmap(NULL, n * sizeof(struct scope__io_fd), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    void *o = mmap(NULL, MAX_OFDS * sizeof(struct scope__io_ofd), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (o == MAP_FAILED) {
        munmap(p, n * sizeof(struct scope__io_fd));
        return -1;
    }
    scope__io_ofds = o;
    atomic_store(&scope__io_ofds[0].pos, SCOPE_IO_POS_UNKNOWN);
    atomic_store(&scope__io_ofds[0].spos, SCOPE_IO_POS_UNKNOWN);
    T.ofd_top = 1;
    T.bound = cfg && cfg->io_files ? (uint32_t)cfg->io_files : 4096;
    T.nslots = 64;
    while (T.nslots < 2 * (size_t)T.bound + 8)
        T.nslots *= 2;
    T.slots = calloc(T.nslots, sizeof *T.slots);
    if (!T.slots) {
        munmap(p, n * sizeof(struct scope__io_fd));
        return -1;
    }
    const char *x = cfg && cfg->io_exclude ? cfg->io_exclude : "";
    if (strcmp(x, "none") != 0)
        for (const char *s = x; *s && T.nexclude < MAX_EXCLUDE;) {
            const char *e = strchr(s, ',');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            while (len > 1 && s[len - 1] == '/')
                len--;      /* "/usr/" is the folder /usr */
            if (len && s[0] == '/' && (T.exclude[T.nexclude] = strndup(s, len)))
                T.exclude_len[T.nexclude++] = len;
            s = e ? e + 1 : s + strlen(s);
        }
    /* the MPI library's own session folder (Open MPI's: shared-memory
     * backing files, MPI-IO's shared file pointers), whatever io_exclude
     * says: its files are the library's, not the program's */
    const char *loc = getenv("OMPI_FILE_LOCATION");
    const char *cut = loc ? strstr(loc, "/pid.") : NULL;
    if (cut && loc[0] == '/' && T.nexclude < MAX_EXCLUDE &&
        (T.exclude[T.nexclude] = strndup(loc, (size_t)(cut - loc))))
        T.exclude_len[T.nexclude] = strlen(T.exclude[T.nexclude]), T.nexclude++;
    scope__io_nfds = (uint32_t)n;
    scope__io_fds = p;
    return 0;
}

int scope__io_path_excluded(const char *path)
{
    if (!path || path[0] != '/')
        return 0;
    for (int i = 0; i < T.nexclude; i++) {
        size_t l = T.exclude_len[i];
        if (strncmp(path, T.exclude[i], l) == 0 && (path[l] == '/' || path[l] == 0 || l == 1))
            return 1;
    }
    return 0;
}

uint64_t scope__io_files_past_bound(void)
{
    return atomic_load(&T.past_bound);
}

/* --- the mount table -------------------------------------------------- */

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

/* Reads /proc/self/mountinfo once: each mount's device, point and type.
 * Caller holds the lock. */
static void read_mounts(void)
{
    T.mounts_read = 1;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char line[4096];
    while (T.nmounts < MAX_MOUNTS && fgets(line, sizeof line, f)) {
        unsigned maj, min;
        char point[2048], type[256];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*d %*d %u:%u %*s %2047s", &maj, &min, point) != 3 ||
            sscanf(dash + 3, "%255s", type) != 1)
            continue;
        unescape(point);
        struct mount *m = &T.mounts[T.nmounts];
        m->dev = makedev(maj, min);
        m->point = strdup(point);
        m->type = strdup(type);
        if (m->point && m->type)
            T.nmounts++;
    }
    fclose(f);
}

/* The mount of device `dev` whose point is the longest prefix of
 * `resolved` (bind mounts share a device), else the first of the device. */
static const struct mount *mount_of(uint64_t dev, const char *resolved)
{
    if (!T.mounts_read)
        read_mounts();
    const struct mount *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < T.nmounts; i++) {
        const struct mount *m = &T.mounts[i];
        if (m->dev != dev)
            continue;
        size_t l = strlen(m->point);
        int prefix = strncmp(resolved, m->point, l) == 0 &&
                     (resolved[l] == '/' || resolved[l] == 0 || l == 1);
        if (!best || (prefix && l > best_len)) {
            best = m;
            best_len = prefix ? l : 0;
        }
    }
    return best;
}

/* --- the table of files ---------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
    return h ^ (h >> 29);
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* The slot of (kind, dev, ino[, name]): its match, or the empty slot where
 * it goes. NULL when the table is full (it never is: twice the bound). */
static struct file_slot *slot_of(uint32_t kind, uint64_t dev, uint64_t ino, const char *name)
{
    size_t mask = T.nslots - 1, i = (size_t)mix(dev ^ ((uint64_t)kind << 60), ino) & mask;
    for (size_t probes = 0; probes < T.nslots; probes++, i = (i + 1) & mask) {
        struct file_slot *s = &T.slots[i];
        int32_t r = atomic_load_explicit(&s->row, memory_order_acquire);
        if (r == 0)
            return s;
        if (r != -2 && s->kind == kind && s->dev == dev && s->ino == ino &&
            (!name || (s->name && strcmp(s->name, name) == 0)))
            return s;
    }
    return NULL;
}

/* Defines a row in the journal; caller holds the lock. -1 on failure. */
static int32_t define(uint32_t kind, int32_t parent, int layer, const struct stat *st,
                      const char *name, const char *resolved, const struct mount *m)
{
    struct scope_file_meta meta = { 0, kind, parent, (uint32_t)layer, st ? (uint64_t)st->st_dev : 0,
                                    st ? (uint64_t)st->st_ino : 0, st ? (int64_t)st->st_blksize : 0 };
    char nm[PATH_MAX], rs[PATH_MAX];
    snprintf(nm, sizeof nm, "%s", name ? name : "");    /* names past PATH_MAX are cut */
    snprintf(rs, sizeof rs, "%s", resolved ? resolved : "");
    struct scope_file_names names = { nm, rs, m ? m->type : "", m ? m->point : "" };
    int32_t row = scope__file_define(&meta, &names);
    if (row >= 0)
        T.rows++;
    return row;
}

/* The row of the files past the bound, made once; caller holds the lock. */
static int32_t other_row(void)
{
    int32_t r = atomic_load(&T.other_row);
    if (r)
        return r - 1;
    r = define(SCOPE_FILE_OTHER, -1, 0, NULL, "<other files>", "", NULL);
    if (r >= 0)
        atomic_store(&T.other_row, r + 1);
    return r;
}

/* The row of a regular file (st: its stat), added when new; -1 when it is
 * excluded or cannot be added now. `name` as the program gave it, `fd` a
 * descriptor on it to resolve its name by (-1: resolve `name`). Caller
 * holds the lock. */
static int32_t file_row(const struct stat *st, const char *name, int fd, int layer)
{
    struct file_slot *s = slot_of(SCOPE_FILE_REGULAR, st->st_dev, st->st_ino, NULL);
    if (!s)
        return -1;
    int32_t r = atomic_load_explicit(&s->row, memory_order_acquire);
    char resolved[PATH_MAX] = "";
    if (fd >= 0) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, resolved, sizeof resolved - 1);
        resolved[n > 0 ? n : 0] = 0;
        /* an inode the file system gave again to another file (the first
         * removed, by this process or another): a new row */
        if (r && s->name && resolved[0] && strcmp(s->name, resolved) != 0) {
            atomic_store_explicit(&s->row, -2, memory_order_release);
            if (!(s = slot_of(SCOPE_FILE_REGULAR, st->st_dev, st->st_ino, NULL)))
                return -1;
            r = atomic_load_explicit(&s->row, memory_order_acquire);
        }
    }
    if (r)
        return r > 0 ? r - 1 : -1;
    if (fd < 0 && name && !realpath(name, resolved))
        resolved[0] = 0;
    if (scope__io_path_excluded(resolved[0] ? resolved : name)) {
        s->kind = SCOPE_FILE_REGULAR;
        s->dev = st->st_dev;
        s->ino = st->st_ino;
        s->name = resolved[0] ? strdup(resolved) : NULL;
        atomic_store_explicit(&s->row, -1, memory_order_release);
        return -1;
    }
    if (T.rows >= T.bound) {
        atomic_fetch_add(&T.past_bound, 1);
        return other_row();     /* not kept in the hash: counted at each open */
    }
    r = define(SCOPE_FILE_REGULAR, -1, layer, st, name ? name : resolved, resolved,
               mount_of(st->st_dev, resolved));
    if (r < 0)
        return -1;
    s->kind = SCOPE_FILE_REGULAR;
    s->dev = st->st_dev;
    s->ino = st->st_ino;
    s->name = resolved[0] ? strdup(resolved) : NULL;
    atomic_store_explicit(&s->row, r + 1, memory_order_release);
    return r;
}

void scope__io_file_gone(const struct stat *st)
{
    scope__self_enter();
    if (try_lock()) {
        struct file_slot *s = slot_of(SCOPE_FILE_REGULAR, st->st_dev, st->st_ino, NULL);
        if (s && atomic_load(&s->row) != 0)
            atomic_store_explicit(&s->row, -2, memory_order_release);
        unlock();
    }
    scope__self_leave();
}

/* A fresh open file description at `pos`, or 0 (none: positions of its
 * descriptors are not followed) when the pool is used up or busy. */
static uint32_t ofd_new(int64_t pos)
{
    uint32_t k = 0;
    if (!try_lock())
        return 0;
    if (T.ofd_free) {
        k = T.ofd_free;
        T.ofd_free = atomic_load(&scope__io_ofds[k].next_free);
    } else if (T.ofd_top < MAX_OFDS) {
        k = T.ofd_top++;
    }
    unlock();
    if (k) {
        atomic_store(&scope__io_ofds[k].pos, pos);
        atomic_store(&scope__io_ofds[k].spos, pos);
        atomic_store(&scope__io_ofds[k].refs, 1);
    }
    return k;
}

/* One descriptor less on open file description k. */
static void ofd_drop(uint32_t k)
{
    if (!k || atomic_fetch_sub(&scope__io_ofds[k].refs, 1) != 1)
        return;
    if (!try_lock())
        return;     /* kept out of use: a slot of the pool lost, nothing else */
    atomic_store(&scope__io_ofds[k].next_free, T.ofd_free);
    T.ofd_free = k;
    unlock();
}

/* Forgets what descriptor entry e was (closed, or about to be another). */
static void fd_forget(struct scope__io_fd *e)
{
    uint32_t k = atomic_exchange(&e->ofd, 0);
    atomic_store_explicit(&e->state, SCOPE_IO_FD_UNKNOWN, memory_order_release);
    ofd_drop(k);
}

/* Sets descriptor fd's entry. */
static void fd_note(int fd, int32_t row, int layer, int flags, int64_t pos)
{
    struct scope__io_fd *e = scope__io_fd(fd);
    if (!e)
        return;
    (void)flags;
    uint32_t old = atomic_exchange(&e->ofd, row >= 0 ? ofd_new(pos) : 0);
    ofd_drop(old);
    atomic_store_explicit(&e->opener, (uint8_t)layer, memory_order_relaxed);
    atomic_store_explicit(&e->state, row >= 0 ? (uint32_t)row + SCOPE_IO_FD_ROW0
                                              : SCOPE_IO_FD_UNTRACKED, memory_order_release);
}

int32_t scope__io_opened(int fd, const char *name, int layer, int flags)
{
    if (!scope__io_fd(fd))
        return -1;
    scope__self_enter();
    struct stat st;
    int32_t row = -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fd_note(fd, -1, layer, flags, SCOPE_IO_POS_UNKNOWN);
        scope__self_leave();
        return -1;
    }
    if (!try_lock()) {
        /* another thread adds a file: look again at the first use */
        atomic_store(&scope__io_fds[fd].state, SCOPE_IO_FD_UNKNOWN);
        scope__self_leave();
        return -1;
    }
    row = file_row(&st, name, fd, layer);
    unlock();
    /* O_APPEND: every write goes to the end, where the file ends now */
    fd_note(fd, row, layer, flags, (flags & O_APPEND) ? (int64_t)st.st_size : 0);
    scope__self_leave();
    return row;
}

int32_t scope__io_fd_probe(int fd)
{
    if (!scope__io_fd(fd))
        return -1;
    int32_t row = -1;
    if (fd <= 2) {
        /* a standard stream, whatever it is connected to */
        int32_t r = atomic_load(&T.std_row[fd]);
        if (!r) {
            static const char *const names[3] = { "<STDIN>", "<STDOUT>", "<STDERR>" };
            scope__self_enter();
            if (try_lock()) {
                if (!(r = atomic_load(&T.std_row[fd]))) {
                    int32_t d = define(SCOPE_FILE_STREAM, -1, SCOPE_PARADIGM_POSIX, NULL,
                                       names[fd], "", NULL);
                    if (d >= 0)
                        atomic_store(&T.std_row[fd], r = d + 1);
                }
                unlock();
            }
            scope__self_leave();
        }
        if (r)
            fd_note(fd, row = r - 1, 0, 0, SCOPE_IO_POS_UNKNOWN);
        return row;
    }
    /* inherited, or opened before recording started: where it is now */
    row = scope__io_opened(fd, NULL, 0, fcntl(fd, F_GETFL));
    if (row >= 0) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        struct scope__io_ofd *o = scope__io_ofd_of(&scope__io_fds[fd]);
        if (o != scope__io_ofds) {
            atomic_store(&o->pos, at >= 0 ? (int64_t)at : SCOPE_IO_POS_UNKNOWN);
            atomic_store(&o->spos, at >= 0 ? (int64_t)at : SCOPE_IO_POS_UNKNOWN);
        }
    }
    return row;
}

int32_t scope__io_path_row(const char *path, const struct stat *st, int nofollow, int layer)
{
    if (!path || scope__io_path_excluded(path))
        return -1;
    scope__self_enter();
    struct stat own;
    int32_t row = -1;
    if (!st && (nofollow ? lstat(path, &own) : stat(path, &own)) == 0)
        st = &own;
    if (st && S_ISREG(st->st_mode) && try_lock()) {
        row = file_row(st, path, -1, layer);
        unlock();
    }
    scope__self_leave();
    return row;
}

int32_t scope__io_dataset_row(int32_t parent, const char *name)
{
    if (parent < 0 || !name)
        return -1;
    scope__self_enter();
    int32_t row = -1;
    if (try_lock()) {
        struct file_slot *s = slot_of(SCOPE_FILE_DATASET, (uint64_t)parent, hash_text(name), name);
        int32_t r = s ? atomic_load(&s->row) : -1;
        if (r > 0) {
            row = r - 1;
        } else if (s && r == 0 && T.rows < T.bound) {
            char *copy = strdup(name);
            if (copy && (row = define(SCOPE_FILE_DATASET, parent, SCOPE_PARADIGM_HDF5, NULL, name,
                                      "", NULL)) >= 0) {
                s->kind = SCOPE_FILE_DATASET;
                s->dev = (uint64_t)parent;
                s->ino = hash_text(name);
                s->name = copy;
                atomic_store_explicit(&s->row, row + 1, memory_order_release);
            } else {
                free(copy);
            }
        }
        unlock();
    }
    scope__self_leave();
    return row;
}

void scope__io_fd_closed(int fd)
{
    struct scope__io_fd *e = scope__io_fd(fd);
    if (e)
        fd_forget(e);
}

void scope__io_fd_range_closed(uint64_t lo, uint64_t hi)
{
    if (hi >= scope__io_nfds)
        hi = scope__io_nfds ? scope__io_nfds - 1 : 0;
    for (uint64_t fd = lo; fd <= hi && fd < scope__io_nfds; fd++)
        if (atomic_load_explicit(&scope__io_fds[fd].state, memory_order_relaxed))
            fd_forget(&scope__io_fds[fd]);
}

void scope__io_fd_copied(int from, int to)
{
    struct scope__io_fd *a = scope__io_fd(from), *b = scope__io_fd(to);
    if (!b)
        return;
    if (!a || a == b) {
        if (!a)
            scope__io_fd_closed(to);
        return;
    }
    /* a copy shares the open file description: same file, one position */
    fd_forget(b);
    uint32_t k = atomic_load(&a->ofd);
    if (k)
        atomic_fetch_add(&scope__io_ofds[k].refs, 1);
    atomic_store(&b->ofd, k);
    atomic_store(&b->opener, atomic_load(&a->opener));
    atomic_store_explicit(&b->state, atomic_load(&a->state), memory_order_release);
}
