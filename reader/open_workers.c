/*
 * open_workers.c - reads the rank groups of a large run in several worker
 * processes at once, so that opening 4,096 ranks uses every core.
 *
 * Why processes and not threads: nearly all of opening is libhdf5 work
 * (a file open, a rank group, its region groups, datasets and attributes:
 * ~0.5 ms per rank), and Debian's libhdf5 is built thread-safe, which
 * means one global lock around every HDF5 call: threads would take turns.
 * A forked worker has its own copy of libhdf5's state, so the workers
 * really run in parallel, with no lock between them.
 *
 * How: the links of an index, sorted by (file, rank), are cut into one
 * contiguous slice per job at file boundaries (so each file is opened by
 * one process). Worker k > 0 is forked, reads its slice with the same code
 * as the serial path (profile_open.c's follow_one) into its own copy of the
 * builder, then writes what it added - ranks with their cached attributes,
 * cells with their statistics, the least rank start - as one compact
 * binary record to a pipe and leaves with _exit (no atexit handlers, no
 * stdio flush, no HDF5 close: the files are only read). Meanwhile the
 * parent reads slice 0 itself. It then appends the workers' records in
 * slice order, which is the order the serial path adds them in, so the
 * profile is the same one, bit for bit (the statistics are computed by
 * the same code on the same values, and int64/double travel as bytes).
 * The first error in slice order wins, as serially; a worker that dies or
 * sends a short record has its slice read again by the parent, which then
 * fails (or crashes) exactly as the serial path would.
 *
 * When: SCOPE_READER_JOBS=N asks for N jobs (1: serial); by default one
 * per CPU this process may run on (at most 16), and only with at least
 * MIN_PER_JOB links per job (a fork costs ~1 ms). Never in a process with
 * more than one thread: another thread could hold libhdf5's lock (or
 * malloc's) at the fork, and the worker would wait for it forever.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "open_builder.h"
#include "settings.h"

#define MIN_PER_JOB 64
#define MAX_JOBS 16
#define END_MAGIC INT64_C(0x73636f7065726561) /* "scoperea": record complete */

/* Threads of this process (1 when it cannot tell: /proc missing). */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* How many jobs for n links: 1 means serial. */
static int job_count(size_t n)
{
    /* read at each open: a long-lived program (Python) may change it */
    scope_setting_value env;
    scope__setting_read_now(SCOPE_SET_READER_JOBS, &env);
    long jobs;
    if (env.state == SCOPE_SETTING_SET) {
        jobs = env.u > 64 ? 64 : (long)env.u;
    } else if (env.state == SCOPE_SETTING_BAD) {
        scope__setting_say_value(SCOPE_SET_READER_JOBS, &env, "reading serially");
        jobs = 1;   /* the safe choice */
    } else {
        cpu_set_t set;
        jobs = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
        if (jobs > MAX_JOBS)
            jobs = MAX_JOBS;
        if ((size_t)jobs > n / MIN_PER_JOB)
            jobs = (long)(n / MIN_PER_JOB);
    }
    if ((size_t)jobs > n)
        jobs = (long)n;
    if (jobs < 2 || thread_count() > 1)
        return 1;
    return (int)jobs;
}

/* ---- the record a worker writes (host byte order: same machine) ---- */

static int put(FILE *f, const void *v, size_t len)
{
    return fwrite(v, 1, len, f) == len ? 0 : -1;
}

static int put_i64(FILE *f, int64_t v) { return put(f, &v, sizeof v); }
static int put_f64(FILE *f, double v) { return put(f, &v, sizeof v); }

/* A string as its length (-1: NULL) and bytes. */
static int put_str(FILE *f, const char *s)
{
    int64_t n = s ? (int64_t)strlen(s) : -1;
    return put_i64(f, n) < 0 || (n > 0 && put(f, s, (size_t)n) < 0) ? -1 : 0;
}

/* Writes what items [lo, hi) added after ranks r0 and found cells c0,
 * with the slice's result `rc` (and message). 0 or -1 (a write failed). */
static int put_record(FILE *f, const builder *b, int rc, int r0, size_t c0)
{
    const scope_profile *p = b->p;
    int bad = put_i64(f, rc) || put_str(f, rc < 0 ? scope_reader_errmsg() : NULL) ||
              put_i64(f, b->have_rank_start) || put_i64(f, b->rank_start) ||
              put_i64(f, p->nranks - r0);
    for (int i = r0; i < p->nranks && !bad; i++) {
        const scope__rank *r = &p->ranks[i];
        bad = put_i64(f, r->rank) || put_i64(f, r->source) || put_str(f, r->group) ||
              put_i64(f, r->attrs_cached) || put_i64(f, r->nattrs);
        for (int k = 0; k < r->nattrs && !bad; k++) {
            const scope__attr *a = &r->attrs[k];
            bad = put_str(f, a->name) || put_i64(f, a->kind) || put_i64(f, a->i) ||
                  put_f64(f, a->d) || put_str(f, a->s);
        }
    }
    bad = bad || put_i64(f, (int64_t)(b->nfound - c0));
    for (size_t i = c0; i < b->nfound && !bad; i++) {
        const found_cell *fc = &b->found[i];
        const scope__cell *c = fc->cell;
        bad = put_str(f, fc->name) || put_i64(f, fc->rank) || put_i64(f, c->source) ||
              put_str(f, c->group) || put_i64(f, c->offset) || put_i64(f, c->n) ||
              put_i64(f, c->first_start) || put_i64(f, c->first_end) ||
              put_i64(f, c->summarized) || put_i64(f, c->total) || put_i64(f, c->min) ||
              put_i64(f, c->max) || put_i64(f, c->max_end) || put_f64(f, c->mean) ||
              put_f64(f, c->m2) || put_i64(f, c->op) || put_i64(f, c->op_big);
    }
    return bad || put_i64(f, END_MAGIC) || fflush(f) ? -1 : 0;
}

static void worker_fault(int sig)
{
    (void)sig;
    _exit(3);
}

/* A worker: reads items [lo, hi), sends the record, never returns.
 * It dies with its parent (a parent stopped by its own time limit must
 * not leave a worker looping in a damaged file), and a fault in it only
 * ends it, silently: the parent then reads the slice itself and meets
 * the same fault under its own handlers (the `scope` tool's message). */
static void work(builder *b, scope__follow_fn one, size_t lo, size_t hi, int fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);       /* the parent is already gone */
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL };
    struct sigaction sa = { .sa_handler = worker_fault };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        sigaction(faults[i], &sa, NULL);
    int r0 = b->p->nranks, rc = 0;
    size_t c0 = b->nfound;
    for (size_t i = lo; i < hi && rc >= 0; i++)
        rc = one(b, i);
    FILE *f = fdopen(fd, "w");
    int bad = !f || put_record(f, b, rc, r0, c0) < 0;
    _exit(bad ? 1 : 0);
}

/* ---- reading a record back, in the parent ---- */

typedef struct {
    const char *p, *end;
    int bad;            /* ran past the end: the record is short */
} cursor;

static void take(cursor *c, void *v, size_t len)
{
    if (c->bad || (size_t)(c->end - c->p) < len) {
        c->bad = 1;
        memset(v, 0, len);
        return;
    }
    memcpy(v, c->p, len);
    c->p += len;
}

static int64_t get_i64(cursor *c) { int64_t v; take(c, &v, sizeof v); return v; }
static double get_f64(cursor *c) { double v; take(c, &v, sizeof v); return v; }

/* A new malloc'd string (NULL for NULL or a short record; *nomem set when
 * out of memory). */
static char *get_str(cursor *c, int *nomem)
{
    int64_t n = get_i64(c);
    if (c->bad || n < 0)
        return NULL;
    if (n > c->end - c->p) {
        c->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        *nomem = 1;
        return NULL;
    }
    memcpy(s, c->p, (size_t)n);
    s[n] = 0;
    c->p += n;
    return s;
}

/* Reads all of fd into *buf (malloc'd, *len bytes). 0, or -1 (out of
 * memory or a read error: the record is then treated as short). */
static int slurp(int fd, char **buf, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    while (s) {
        if (n == cap) {
            char *q = realloc(s, cap * 2);
            if (!q)
                break;
            s = q;
            cap *= 2;
        }
        ssize_t got = read(fd, s + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        if (got == 0) {
            *buf = s;
            *len = n;
            return 0;
        }
        n += (size_t)got;
    }
    free(s);
    return -1;
}

/* Whether the record in buf[0 .. len) is whole: it ends with END_MAGIC. */
static int complete(const char *buf, size_t len)
{
    int64_t m;
    if (len < sizeof m)
        return 0;
    memcpy(&m, buf + len - sizeof m, sizeof m);
    return m == END_MAGIC;
}

/* Appends a whole record's ranks and cells to b; returns the worker's
 * result (its first error, with its message), or SCOPE_ENOMEM. */
static int append(builder *b, const char *buf, size_t len)
{
    cursor c = { buf, buf + len, 0 };
    int nomem = 0, rc = (int)get_i64(&c);
    char *msg = get_str(&c, &nomem);
    int have = (int)get_i64(&c);
    int64_t start = get_i64(&c), nr = get_i64(&c);
    if (have)
        scope__open_note_start(&b->have_rank_start, &b->rank_start, start);
    for (int64_t i = 0; i < nr && !c.bad && !nomem; i++) {
        int rank = (int)get_i64(&c), source = (int)get_i64(&c);
        char *group = get_str(&c, &nomem);
        int cached = (int)get_i64(&c);
        int64_t na = get_i64(&c);
        if (c.bad || nomem || scope__open_add_rank(b, rank, source, group) < 0) {
            free(group);
            nomem = !c.bad;
            break;
        }
        free(group);
        scope__rank *r = &b->p->ranks[b->p->nranks - 1];
        if (na < 0 || na > (int64_t)(len / 8))
            c.bad = 1;  /* not a count this record can hold */
        else if (na > 0 && !(r->attrs = calloc((size_t)na, sizeof *r->attrs)))
            nomem = 1;
        for (int64_t k = 0; k < na && r->attrs && !c.bad && !nomem; k++) {
            scope__attr *a = &r->attrs[k];
            a->name = get_str(&c, &nomem);
            a->kind = (int)get_i64(&c);
            a->i = get_i64(&c);
            a->d = get_f64(&c);
            a->s = get_str(&c, &nomem);
            r->nattrs++;
        }
        r->attrs_cached = cached;
    }
    int64_t nc = c.bad || nomem ? 0 : get_i64(&c);
    for (int64_t i = 0; i < nc && !c.bad && !nomem; i++) {
        char *name = get_str(&c, &nomem);
        int rank = (int)get_i64(&c), source = (int)get_i64(&c);
        char *group = get_str(&c, &nomem);
        int64_t off = get_i64(&c), n = get_i64(&c), first = get_i64(&c),
                first_end = get_i64(&c);
        if (c.bad || nomem || !name ||
            scope__open_add_cell(b, name, rank, source, group, off, n, first, first_end) < 0) {
            if (c.bad || nomem || !name)
                free(name);
            free(group);
            nomem = !c.bad;
            break;
        }
        free(group);
        scope__cell *cell = b->found[b->nfound - 1].cell;
        cell->summarized = (int)get_i64(&c);
        cell->total = get_i64(&c);
        cell->min = get_i64(&c);
        cell->max = get_i64(&c);
        cell->max_end = get_i64(&c);
        cell->mean = get_f64(&c);
        cell->m2 = get_f64(&c);
        cell->op = (int32_t)get_i64(&c);
        cell->op_big = (int32_t)get_i64(&c);
    }
    if (nomem || c.bad || get_i64(&c) != END_MAGIC) {
        free(msg);
        if (nomem)
            return scope__fail(SCOPE_ENOMEM, "out of memory opening a profile");
        return scope__fail(SCOPE_EIO, "a reader worker process sent a damaged record");
    }
    if (rc < 0)
        scope__fail(rc, "%s", msg ? msg : "a worker failed");
    free(msg);
    return rc < 0 ? rc : 0;
}

/* Runs items [lo, hi) in this process, stopping at the first error. */
static int run_here(builder *b, scope__follow_fn one, size_t lo, size_t hi)
{
    int rc = 0;
    for (size_t i = lo; i < hi && rc >= 0; i++)
        rc = one(b, i);
    return rc;
}

int scope__follow_parallel(builder *b, scope__follow_fn one, int *rc)
{
    size_t n = b->npending;
    int jobs = job_count(n);
    if (jobs < 2)
        return 0;
    size_t cut[65];     /* jobs <= 64 (job_count) */
    pid_t pid[64];
    int fd[64];
    /* Slices of about n / jobs links, each ending where a file ends. */
    int k = 0;
    cut[0] = 0;
    for (size_t i = 1; i < n && k + 1 < jobs; i++)
        if (i - cut[k] >= n / (size_t)jobs &&
            b->pending[i].source != b->pending[i - 1].source)
            cut[++k] = i;
    cut[++k] = n;
    int nslices = k;
    pid_t self = getpid();
    for (int s = 1; s < nslices; s++) {
        int pfd[2];
        pid[s] = -1;
        fd[s] = -1;
        if (pipe(pfd) < 0)
            continue;   /* the parent reads this slice itself */
        pid_t c = fork();
        if (c == 0) {
            close(pfd[0]);
            for (int t = 1; t < s; t++)
                if (fd[t] >= 0)
                    close(fd[t]);
            work(b, one, cut[s], cut[s + 1], pfd[1], self);
        }
        close(pfd[1]);
        if (c < 0) {
            close(pfd[0]);
            continue;
        }
        pid[s] = c;
        fd[s] = pfd[0];
    }
    int r = run_here(b, one, cut[0], cut[1]);
    for (int s = 1; s < nslices; s++) {
        char *buf = NULL;
        size_t len = 0;
        int status = 0, ok = 0;
        if (pid[s] > 0 && r < 0)
            kill(pid[s], SIGKILL); /* an earlier slice failed: not needed */
        if (fd[s] >= 0) {
            ok = r >= 0 && slurp(fd[s], &buf, &len) == 0 && complete(buf, len);
            close(fd[s]);
        }
        if (pid[s] > 0)
            while (waitpid(pid[s], &status, 0) < 0 && errno == EINTR)
                ;
        ok = ok && pid[s] > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (r >= 0)
            r = ok ? append(b, buf, len) : run_here(b, one, cut[s], cut[s + 1]);
        free(buf);
    }
    *rc = r;
    return 1;
}
