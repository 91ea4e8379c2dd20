/*
 * prog_posix.c - every POSIX and stdio call the I/O capture records, a
 * known number of times, on files of each rank and on one file all ranks
 * share (issue 46, "Tests that must exist"); check_posix.py holds what
 * each rank must record, derived by hand from this file. Built with
 * -fno-builtin so that each call stays the call written here (gcc turns
 * printf("x\n") into puts, fprintf(f, "x") into fwrite).
 *
 * usage: prog_posix OUTDIR BIGDIR   (BIGDIR not "-": rank 0 also writes
 *                                    3 GiB into BIGDIR/big.0, in write
 *                                    calls of what Linux takes)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[65536];
static char dir[4096];
static int rank;

static const char *path(const char *name)
{
    static char p[4][8192];
    static int k;
    k = (k + 1) & 3;
    snprintf(p[k], sizeof p[k], "%s/%s.%d", dir, name, rank);
    return p[k];
}

static void die(const char *what)
{
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void say(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

/* descriptors: 15 opens-ish, data calls, positions, copies, a mapping */
static void posix_calls(void)
{
    int fd = open(path("a"), O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        die("open");
    for (int i = 0; i < 4; i++)
        if (write(fd, buf, 1000) != 1000)                     /* 4 x 1000 at 0..3000 */
            die("write");
    if (pwrite(fd, buf, 500, 10000) != 500)                   /* 500 at 10000 */
        die("pwrite");
    struct iovec iov[2] = { { buf, 100 }, { buf, 200 } };
    if (writev(fd, iov, 2) != 300)                            /* 300 at 4000 */
        die("writev");
    struct iovec iov2[2] = { { buf, 50 }, { buf, 50 } };
    if (pwritev(fd, iov2, 2, 20000) != 100)                   /* 100 at 20000 */
        die("pwritev");
    if (lseek(fd, 0, SEEK_SET) != 0)
        die("lseek");
    for (int i = 0; i < 2; i++)
        if (read(fd, buf, 1000) != 1000)                      /* 1000 at 0, 1000 */
            die("read");
    if (pread(fd, buf, 500, 10000) != 500)                    /* 500 at 10000 */
        die("pread");
    if (readv(fd, iov, 2) != 300)                             /* 300 at 2000 */
        die("readv");
    if (preadv(fd, iov2, 2, 20000) != 100)                    /* 100 at 20000 */
        die("preadv");
    if (fsync(fd) || fdatasync(fd))
        die("fsync");
    struct stat st;
    if (fstat(fd, &st))
        die("fstat");
    if (ftruncate(fd, 30000))
        die("ftruncate");
    int fd2 = dup(fd);                                        /* a dup'd descriptor */
    if (fd2 < 0 || write(fd2, buf, 10) != 10 || close(fd2))   /* 10 at 2300 */
        die("dup");
    if (dup2(fd, 100) != 100 || write(100, buf, 20) != 20 || close(100))   /* 20 at 2310 */
        die("dup2");
    int fd3 = fcntl(fd, F_DUPFD, 200);
    if (fd3 < 200 || write(fd3, buf, 30) != 30 || close(fd3))              /* 30 at 2330 */
        die("fcntl");
    void *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 4096);          /* 8192 at 4096 */
    if (m == MAP_FAILED)
        die("mmap");
    munmap(m, 8192);
    if (close(fd))
        die("close");
    /* the stat family as glibc 2.33+ exports it */
    struct statx sx;
    if (stat(path("a"), &st) || lstat(path("a"), &st) ||
        fstatat(AT_FDCWD, path("a"), &st, 0) || statx(AT_FDCWD, path("a"), 0, STATX_SIZE, &sx))
        die("stat");
    /* O_APPEND: every write at the end (30000 after the truncate) */
    fd = open(path("a"), O_WRONLY | O_APPEND);
    if (fd < 0 || write(fd, buf, 100) != 100 || write(fd, buf, 100) != 100 || close(fd))
        die("append");                                        /* 100 at 30000, 30100 */
    if (rename(path("a"), path("b")) || unlink(path("b")))
        die("rename");
    fd = creat(path("c"), 0644);
    if (fd < 0 || close(fd))
        die("creat");
    fd = openat(AT_FDCWD, path("c"), O_RDONLY);
    if (fd < 0 || close(fd))
        die("openat");
    char tmpl[8300];
    snprintf(tmpl, sizeof tmpl, "%s/tmp.%d.XXXXXX", dir, rank);
    fd = mkstemp(tmpl);
    if (fd < 0 || write(fd, buf, 7) != 7 || close(fd) || unlink(tmpl))
        die("mkstemp");
}

/* streams: every call of the stdio rows */
static void stdio_calls(void)
{
    FILE *f = fopen(path("log"), "w+");
    if (!f)
        die("fopen");
    for (int i = 0; i < 10; i++)
        fprintf(f, "value %d\n", i);                          /* 10 x 8 = 80 */
    fputs("hello\n", f);                                      /* 6 */
    fputc('x', f);                                            /* 1 */
    putc('y', f);                                             /* 1 */
    fwrite(buf, 10, 5, f);                                    /* 50 */
    say(f, "%s", "vf\n");                                     /* vfprintf: 3 */
    fflush(f);                                                /* 141 bytes in the file */
    if (ftell(f) != 141)
        die("ftell");
    rewind(f);
    char line[100];
    if (!fgets(line, sizeof line, f) || strcmp(line, "value 0\n"))   /* 8 */
        die("fgets");
    if (fgetc(f) != 'v' || getc(f) != 'a')                  /* 1, 1 */
        die("fgetc");
    if (fread(buf, 1, 20, f) != 20)                           /* 20 */
        die("fread");
    fseek(f, 0, SEEK_SET);
    int v = -1;
    if (fscanf(f, "value %d", &v) != 1 || v != 0)             /* 7: "value 0" */
        die("fscanf");
    fseeko(f, 0, SEEK_END);
    fpos_t pos;
    fgetpos(f, &pos);
    fsetpos(f, &pos);
    if (fclose(f))
        die("fclose");
    /* a stream on a descriptor */
    int fd = open(path("fd"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        die("fdopen");
    fprintf(f, "fd %d\n", 1);                                 /* 5 */
    if (fclose(f))
        die("fclose fd");
    /* a stream reopened */
    f = fopen(path("re"), "w");
    f = f ? freopen(path("re"), "a", f) : NULL;
    if (!f)
        die("freopen");
    fprintf(f, "re %d\n", 2);                                 /* 5 */
    fclose(f);
    /* stdout */
    printf("rank %d\n", rank);                                /* 7 */
    puts("done");                                             /* 5 */
    fflush(stdout);
}

/* the file every rank shares: 1000 bytes each, at its own place */
static void shared_calls(void)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/shared.dat", dir);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || pwrite(fd, buf, 1000, (off_t)rank * 1000) != 1000 || close(fd))
        die("shared");
}

struct worker {
    int k;
};

/* a thread's own file: 50 writes of 10 bytes */
static void *worker(void *arg)
{
    struct worker *w = arg;
    char p[8300];
    snprintf(p, sizeof p, "%s/t%d.%d", dir, w->k, rank);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    for (int i = 0; fd >= 0 && i < 50; i++)
        if (write(fd, buf, 10) != 10)
            return NULL;
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* 3 GiB in one call: Linux writes at most 2 GiB - 4 KiB of it */
static void big_write(const char *bigdir)
{
    size_t n = (size_t)3 << 30;
    char *big = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);   /* zero pages */
    char p[8300];
    snprintf(p, sizeof p, "%s/big.%d", bigdir, rank);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (big == MAP_FAILED || fd < 0)
        die("big");
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, big + done, n - done);
        if (w <= 0)
            die("big write");
        done += (size_t)w;
    }
    close(fd);
    unlink(p);
    munmap(big, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3)
        die("usage");
    snprintf(dir, sizeof dir, "%s", argv[1]);
    memset(buf, 'q', sizeof buf);
    posix_calls();
    stdio_calls();
    shared_calls();
    pthread_t t[2];
    struct worker w[2] = { { 0 }, { 1 } };
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, worker, &w[k]);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    if (rank == 0 && strcmp(argv[2], "-") != 0)
        big_write(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
