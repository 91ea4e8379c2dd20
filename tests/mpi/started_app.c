/*
 * started_app.c - a program that starts other programs, as HPC codes do
 * (system("mkdir -p ..."), popen("date"), posix_spawn), for
 * check_started_by.py. Built twice: with -DWITH_MPI by each MPI's wrapper
 * (an MPI rank), and without (a serial program).
 *
 *   started_app child            work() twice, then exit 0
 *   started_app parent SELF      work() 5 times, then starts SELF child
 *                                through system() (a shell in between),
 *                                popen() and posix_spawn(), one each; the
 *                                MPI build does it between MPI_Init and one
 *                                MPI_Barrier, and rank 0 only prints
 *
 * A config naming `work` records the children too. Each parent prints
 * "pid <its pid> rank <r> children ok <n>" (n = 3 when all three ran).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

extern char **environ;

__attribute__((noinline)) int work(int i)
{
    __asm__ volatile("" ::: "memory");
    return i & 1;
}

static int start_children(const char *self)
{
    char cmd[4200];
    int ok = 0;
    snprintf(cmd, sizeof cmd, "'%s' child > /dev/null", self);
    ok += system(cmd) == 0;
    snprintf(cmd, sizeof cmd, "'%s' child", self);
    FILE *p = popen(cmd, "r");
    if (p)
        ok += pclose(p) == 0;
    pid_t pid;
    char *argv[] = { (char *)self, "child", NULL };
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ) == 0) {
        int st = 0;
        waitpid(pid, &st, 0);
        ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    return ok;
}

int main(int argc, char **argv)
{
    int odd = 0;
    if (argc == 2 && strcmp(argv[1], "child") == 0) {
        for (int i = 0; i < 2; i++)
            odd += work(i);
        return odd == 1 ? 0 : 1;
    }
    if (argc != 3 || strcmp(argv[1], "parent") != 0) {
        fprintf(stderr, "usage: %s child | parent SELF\n", argv[0]);
        return 2;
    }
    int rank = 0;
#ifdef WITH_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    for (int i = 0; i < 5; i++)
        odd += work(i);
    int ok = start_children(argv[2]);
#ifdef WITH_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    printf("pid %ld rank %d children ok %d\n", (long)getpid(), rank, ok);
#ifdef WITH_MPI
    MPI_Finalize();
#endif
    return odd == 2 ? 0 : 1;
}
