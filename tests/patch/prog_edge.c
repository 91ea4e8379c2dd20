/*
 * prog_edge.c - the trampoline's hard cases, one per mode (argv[1]):
 *   longjmp  longjmp out of 4 nested instrumented calls, 10 times, and
 *            siglongjmp out of a signal handler, 3 times;
 *   signal   signal handlers (one on an alternate stack) that call an
 *            instrumented function while another is open;
 *   fork     fork, vfork + exec and posix_spawn around instrumented calls;
 *   threads  8 threads x 100,000 calls;
 *   exit     exit() from inside two nested instrumented calls;
 *   deep     recursion 140,000 deep, beyond the shadow stack's 131,072
 *            frames: the deepest calls run unrecorded.
 * The expected counts are in check_patch.py; the output must be the same
 * with and without the preload.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

extern char **environ;
static volatile long sink;

NOINLINE long leaf(long x)
{
    sink += x;
    return sink * 3 + x;
}

/* ------------------------------------------------------------- longjmp */
static jmp_buf jb;
static sigjmp_buf sjb;

NOINLINE void jumper(int depth)
{
    sink += depth;
    if (depth <= 0)
        longjmp(jb, 1);
    if (depth < 100)
        jumper(depth - 1);
    sink -= depth;
}

NOINLINE int guarded(int i)
{
    volatile int keep = i;
    if (setjmp(jb) == 0) {
        jumper(3);
        return -1;
    }
    return keep;
}

NOINLINE void in_handler(int sig)
{
    sink += sig;
}

static void jump_handler(int sig)
{
    in_handler(sig);
    siglongjmp(sjb, 1);
}

NOINLINE void sig_target(void)
{
    sink++;
    raise(SIGUSR1);
    sink--;
}

static int mode_longjmp(void)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += guarded(i);
    printf("guarded %d\n", s);
    signal(SIGUSR1, jump_handler);
    int jumps = 0;
    for (int i = 0; i < 3; i++)
        if (sigsetjmp(sjb, 1) == 0)
            sig_target();
        else
            jumps++;
    printf("siglongjmps %d\n", jumps);
    long t = 0;
    for (int i = 0; i < 5; i++)
        t += leaf(i) > 0;
    printf("after %ld\n", t);
    return 0;
}

/* -------------------------------------------------------------- signals */
static void leaf_handler(int sig)
{
    leaf(sig);
}

NOINLINE long outer_with_signal(int i)
{
    long r = leaf(i);
    raise(i % 2 ? SIGUSR1 : SIGUSR2);   /* handler calls leaf while we are open */
    return r + leaf(i + 1);
}

static int mode_signal(void)
{
    static char alt[1 << 16];
    stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = leaf_handler;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, NULL);
    long s = 0;
    for (int i = 0; i < 6; i++)
        s += outer_with_signal(i) != 0;
    printf("signals %ld\n", s);
    return 0;
}

/* ----------------------------------------------------------------- fork */
static int mode_fork(void)
{
    leaf(1);
    leaf(2);
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        for (int i = 0; i < 3; i++)
            leaf(i);
        _exit(7);
    }
    int st;
    waitpid(p, &st, 0);
    printf("child exit %d\n", WEXITSTATUS(st));
    fflush(stdout);
    pid_t v = vfork();
    if (v == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    waitpid(v, &st, 0);
    printf("vfork child exit %d\n", WEXITSTATUS(st));
    fflush(stdout);
    char *argv[] = { "echo", "spawned", NULL };
    pid_t sp;
    if (posix_spawn(&sp, "/bin/echo", NULL, NULL, argv, environ) == 0)
        waitpid(sp, &st, 0);
    printf("spawn exit %d\n", WEXITSTATUS(st));
    leaf(3);
    return 0;
}

/* -------------------------------------------------------------- threads */
NOINLINE long tcall(long x)
{
    return x * 2 + (x & 3);
}

static void *worker(void *arg)
{
    long s = 0, base = (long)(intptr_t)arg;
    for (long i = 0; i < 100000; i++)
        s += tcall(base + i);
    return (void *)(intptr_t)(s & 0xffff);
}

/* ends its thread from inside an instrumented call */
NOINLINE void exiter(long x)
{
    sink += x;
    pthread_exit((void *)(intptr_t)x);
}

static void *exiting(void *arg)
{
    exiter((long)(intptr_t)arg);
    return NULL;
}

static int mode_threads(void)
{
    pthread_t ex;
    void *exr;
    pthread_create(&ex, NULL, exiting, (void *)(intptr_t)5);
    pthread_join(ex, &exr);
    printf("exiter %ld\n", (long)(intptr_t)exr);
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    long s = 0;
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        s += (long)(intptr_t)r;
    }
    printf("threads %ld\n", s);
    return 0;
}

/* ----------------------------------------------------------------- deep */
NOINLINE long deep(long n)
{
    if (n == 0)
        return 0;
    long r = deep(n - 1) + (n & 1);
    __asm__ volatile("" ::: "memory");
    return r;
}

static int mode_deep(void)
{
    printf("deep %ld\n", deep(140000));
    return 0;
}

/* ----------------------------------------------------------------- exit */
NOINLINE void quitter(int code)
{
    sink += code;
    printf("quitting\n");
    fflush(stdout);
    exit(code);
}

NOINLINE void before_quit(int code)
{
    sink += code;
    quitter(code);
    sink -= code;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "longjmp"))
        return mode_longjmp();
    if (!strcmp(m, "signal"))
        return mode_signal();
    if (!strcmp(m, "fork"))
        return mode_fork();
    if (!strcmp(m, "threads"))
        return mode_threads();
    if (!strcmp(m, "exit"))
        before_quit(3);
    if (!strcmp(m, "deep"))
        return mode_deep();
    fprintf(stderr, "usage: prog_edge longjmp|signal|fork|threads|exit|deep\n");
    return 2;
}
