/*
 * serial_app.c - a program without MPI for the rank-collision test
 * (check_collision.py): calls work() 7 times, optionally waits until a
 * file exists, prints one line. Under srun (--mpi=none) such processes
 * take their rank from SLURM_PROCID alone.
 *
 * usage: serial_app [ready FILE] [wait FILE]
 *   ready FILE  create FILE first (the preload has started recording)
 *   wait FILE   before printing, wait until FILE exists
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) double work(double x)
{
    __asm__ volatile("" ::: "memory");
    return x * 0.5 + 1.0;
}

int main(int argc, char **argv)
{
    const char *wait = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "ready") == 0) {
            FILE *f = fopen(argv[i + 1], "w");
            if (f)
                fclose(f);
        } else if (strcmp(argv[i], "wait") == 0) {
            wait = argv[i + 1];
        }
    }
    double y = 0;
    for (int i = 0; i < 7; i++)
        y = work(y);
    while (wait && access(wait, F_OK) != 0)
        usleep(10000);
    printf("work %.6f\n", y);
    return 0;
}
