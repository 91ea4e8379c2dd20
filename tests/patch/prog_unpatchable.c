/*
 * prog_unpatchable.c - a C program that uses every libc function that
 * returns twice or reads its own return address (check_unpatchable.py):
 * setjmp/longjmp, sigsetjmp/siglongjmp, getcontext/setcontext,
 * swapcontext between two contexts, vfork, dlsym(RTLD_NEXT), and whose
 * entry point (_start) reads argc from the stack. Instrumented,
 * each of them crashed the program or broke it silently; the engine now
 * refuses them (preload/engine/unpatchable.c). work() is called 5 times, as a
 * function that is timed; the program prints what each step saw and
 * exits with status 3.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static jmp_buf jb;
static sigjmp_buf sjb;
static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];
static volatile int co_steps;

__attribute__((noinline)) int work(int i)
{
    volatile int s = 0;
    for (int k = 0; k < 1000; k++)
        s += k * i;
    return s & 1;
}

static void coroutine(void)
{
    for (int i = 0; i < 3; i++) {
        co_steps++;
        swapcontext(&co_ctx, &main_ctx);
    }
}

__attribute__((noinline)) static void jump(int v)
{
    longjmp(jb, v);
}

int main(int argc, char **argv)
{
    volatile int jumps = 0, sigjumps = 0, resumed = 0, switches = 0;
    if (setjmp(jb) < 3) {
        jumps++;
        jump(jumps);
    }
    if (sigsetjmp(sjb, 1) < 2) {
        sigjumps++;
        siglongjmp(sjb, sigjumps);
    }
    ucontext_t uc;
    getcontext(&uc);
    if (++resumed < 3)
        setcontext(&uc);
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, coroutine, 0);
    for (int i = 0; i < 3; i++) {
        swapcontext(&main_ctx, &co_ctx);
        switches++;
    }
    pid_t pid = vfork();
    if (pid == 0)
        _exit(7);
    int st = 0;
    waitpid(pid, &st, 0);
    int (*next_puts)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");
    int odd = 0;
    for (int i = 0; i < 5; i++)
        odd += work(i);
    printf("args %d %s jumps %d sigjumps %d resumed %d switches %d coroutine %d child %d "
           "dlsym %s work %d\n", argc, argc > 1 ? argv[argc - 1] : "-", jumps, sigjumps, resumed,
           switches, co_steps, WEXITSTATUS(st), next_puts ? "found" : "missing", odd);
    return 3;
}
