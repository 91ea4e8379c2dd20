/*
 * serial_work.c - a program without MPI for check_host_lock.py: several
 * of them write into one output with SCOPE_HOST_FILES=1 and must end up
 * as groups of one host file. Each calls work() N times, so that a test
 * can tell the processes apart by their exact counts.
 *
 *   serial_work N [ready FILE] [wait FILE] [hang]
 *
 * ready FILE  create FILE after the calls (recording has happened)
 * wait FILE   then wait until FILE exists (the processes overlap)
 * hang        then wait to be killed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) double work(double x)
{
    __asm__ volatile("" ::: "memory");
    return x * 0.5 + 1.0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1;
    double y = 0;
    for (int i = 0; i < n; i++)
        y = work(y);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "ready") == 0 && i + 1 < argc) {
            FILE *f = fopen(argv[++i], "w");
            if (f)
                fclose(f);
        } else if (strcmp(argv[i], "wait") == 0 && i + 1 < argc) {
            const char *w = argv[++i];
            while (access(w, F_OK) != 0)
                usleep(5000);
        } else if (strcmp(argv[i], "hang") == 0) {
            for (;;)
                pause();
        }
    }
    printf("work %d\n", n);
    return 0;
}
