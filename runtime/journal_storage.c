/*
 * journal_storage.c - the journal on storage that can run out or fail.
 *
 * The journal is mapped MAP_SHARED, and a store into a page of a shared
 * file mapping that the file system cannot back (the disk or the quota is
 * full, the file was truncated, the device failed) is a SIGBUS that kills
 * the application. Scratch file systems fill up, so:
 *
 *   - every chunk's bytes are reserved with fallocate before the chunk is
 *     mapped or written (scope__journal_reserve); a refusal (ENOSPC,
 *     EDQUOT, anything) stops recording in the process, cleanly, before
 *     any page is touched;
 *   - a page lost anyway (the file truncated under us, an I/O error) is
 *     caught by a SIGBUS handler that recognises the journal's pages by
 *     the file's device and inode in /proc/self/maps, maps anonymous memory
 *     over the page (MAP_FIXED) so the faulting store completes, and
 *     switches recording off. Every other SIGBUS is passed on unchanged
 *     (to death.c's handler, the application's, or the default action).
 *     A SIGBUS handler the application installs later replaces this one;
 *     the reservation above still keeps a full disk from ever faulting;
 *   - a storage fault is said once per job, not once per rank
 *     (scope__storage_say): an O_EXCL marker file in the ranks folder
 *     tells the other processes it was said.
 *
 * Also here: the paths of the journal and its folder, derived from the
 * output name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "journal_storage.h"
#include "scope_error.h"
#include "scope_internal.h"

int scope__journal_reserve(int fd, uint64_t off, uint64_t len)
{
    int e;
    /* fallocate allocates blocks for the whole range (tmpfs, ext4, xfs,
     * btrfs, Lustre, GPFS); posix_fallocate falls back to writing a byte
     * into every block where the file system cannot allocate. */
    do
        e = fallocate(fd, 0, (off_t)off, (off_t)len) == 0 ? 0 : errno;
    while (e == EINTR);
    if (e == EOPNOTSUPP || e == ENOSYS)
        e = posix_fallocate(fd, (off_t)off, (off_t)len);
    return e;
}

/* ------------------------------------------------------------- SIGBUS */

static struct {
    dev_t dev;
    ino_t ino;
    volatile int *on;
    struct sigaction old;
    int installed;
    _Atomic uint64_t lost;
    _Atomic int fresh;
} sb;

static unsigned long hex_field(const char **p)
{
    unsigned long v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9')
            v = v * 16 + (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + (unsigned long)(c - 'a' + 10);
        else
            return v;
    }
}

/* Whether /proc/self/maps line `l` ("start-end perms offset maj:min inode
 * path") covers `addr` with a mapping of the journal file. */
static int line_is_journal(const char *l, unsigned long addr)
{
    unsigned long start = hex_field(&l);
    if (*l++ != '-')
        return 0;
    unsigned long end = hex_field(&l);
    if (addr < start || addr >= end)
        return 0;
    for (int field = 0; field < 2; field++) { /* perms, offset */
        while (*l == ' ')
            l++;
        while (*l && *l != ' ')
            l++;
    }
    while (*l == ' ')
        l++;
    unsigned long maj = hex_field(&l);
    if (*l++ != ':')
        return 0;
    unsigned long min = hex_field(&l);
    while (*l == ' ')
        l++;
    unsigned long ino = 0;
    for (; *l >= '0' && *l <= '9'; l++)
        ino = ino * 10 + (unsigned long)(*l - '0');
    return maj == major(sb.dev) && min == minor(sb.dev) && ino == (unsigned long)sb.ino;
}

/* Reads /proc/self/maps with open/read only (async-signal-safe). */
static int is_journal_page(unsigned long addr)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096], line[512];
    size_t n = 0;
    int found = 0;
    ssize_t r;
    while (!found && (r = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < r && !found; i++) {
            if (buf[i] != '\n') {
                if (n < sizeof line - 1)
                    line[n++] = buf[i];
                continue;
            }
            line[n] = 0;
            found = line_is_journal(line, addr);
            n = 0;
        }
    }
    close(fd);
    return found;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    if (si && si->si_code > 0 && is_journal_page((unsigned long)si->si_addr)) {
        long ps = sysconf(_SC_PAGESIZE);
        uintptr_t page = (uintptr_t)si->si_addr & ~((uintptr_t)ps - 1);
        if (mmap((void *)page, (size_t)ps, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            *sb.on = 0;
            atomic_fetch_add(&sb.lost, 1);
            atomic_store(&sb.fresh, 1);
            errno = saved;
            return; /* the store runs again, into the new page */
        }
    }
    errno = saved;
    if (sb.old.sa_flags & SA_SIGINFO) {
        sb.old.sa_sigaction(sig, si, uc);
    } else if (sb.old.sa_handler != SIG_DFL && sb.old.sa_handler != SIG_IGN) {
        sb.old.sa_handler(sig);
    } else {
        /* the default action: a fault happens again on return and kills
         * the process as it would have; a sent SIGBUS is sent again */
        signal(SIGBUS, SIG_DFL);
        if (!si || si->si_code <= 0)
            raise(SIGBUS);
    }
}

int scope__journal_sigbus_arm(int fd, volatile int *on)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return errno;
    sb.dev = st.st_dev;
    sb.ino = st.st_ino;
    sb.on = on;
    if (sb.installed)
        return 0;
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &sb.old) < 0)
        return errno;
    sb.installed = 1;
    return 0;
}

uint64_t scope__journal_pages_lost(int *fresh)
{
    if (fresh)
        *fresh = atomic_exchange(&sb.fresh, 0);
    return atomic_load(&sb.lost);
}

/* ---------------------------------------------------- once per job */

/* A name for the job shared by all its processes: the PMIx namespace
 * (Open MPI, Slurm with PMIx), Slurm's job and step, Hydra's KVS name
 * (MPICH); for another launcher, the parent process (the launcher's
 * daemon on this node: once per node then). Empty outside a launcher. */
static void job_key(char *out, size_t len, int rank)
{
    const char *v;
    out[0] = 0;
    if ((v = getenv("PMIX_NAMESPACE")) && *v)
        snprintf(out, len, "%s", v);
    else if ((v = getenv("SLURM_JOB_ID")) && *v)
        snprintf(out, len, "slurm%s.%s", v, getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "");
    else if ((v = getenv("PMI_KVSNAME")) && *v)
        snprintf(out, len, "%s", v);
    else if (rank >= 0)
        snprintf(out, len, "ppid%ld", (long)getppid());
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-'))
            *p = '_';
}

int scope__storage_marker(char *out, size_t len, const char *ranks_dir, int rank)
{
    char key[200];
    if (rank < 0)
        rank = scope__launcher_rank();
    job_key(key, sizeof key, rank);
    if (!key[0])
        return 0;
    int n = snprintf(out, len, "%s/" SCOPE_STORAGE_MARKER "%s", ranks_dir, key);
    return n >= 0 && (size_t)n < len ? 1 : -1;
}

int scope__storage_say(const char *ranks_dir, int rank, const char *fmt, ...)
{
    char marker[4400];
    if (rank < 0)
        rank = scope__launcher_rank();
    int named = scope__storage_marker(marker, sizeof marker, ranks_dir, rank);
    int say;
    if (named <= 0) {
        say = rank <= 0; /* a serial run, or a job we cannot name */
    } else {
        int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0)
            close(fd);
        say = fd >= 0 || (errno != EEXIST && rank <= 0);
    }
    if (!say)
        return 0;
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "scope: %s\n", msg);
    return 1;
}

/* ------------------------------------------------------------ paths */

int scope__absolute_path(const char *path, char *out, size_t outlen)
{
    if (path[0] == '/') {
        if (strlen(path) >= outlen)
            return SCOPE_ELIMIT;
        strcpy(out, path);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return SCOPE_EIO;
    if ((size_t)snprintf(out, outlen, "%s/%s", cwd, path) >= outlen)
        return SCOPE_ELIMIT;
    return 0;
}

int scope__mkdir_p(const char *dir)
{
    char tmp[4096];
    if (strlen(dir) >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(tmp, dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0777) < 0 && errno != EEXIST)
        return -1;
    return 0;
}
