/*
 * fault_serial.c - a program that goes wrong on purpose after a known
 * number of instrumented calls, for the fault matrix (check_faults.py).
 *
 *   fault_serial MODE N
 *     kill    N calls of work(), then SIGKILL to itself
 *     segv    N calls of work(), then a NULL store inside crash_here()
 *     abort   N calls of work(), then abort() inside crash_here()
 *     exit3   N calls of work(), then exit(3) from inside nested(2)
 *
 * work(), crash_here() and nested() are what the fault config times.
 * Prints "recorded N" before the fault so the harness can check output.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void work(int i)
{
    for (int k = 0; k < 50; k++)
        sink += i * k;
}

__attribute__((noinline)) void crash_here(const char *mode)
{
    sink++;
    if (strcmp(mode, "segv") == 0)
        *(volatile int *)(uintptr_t)sink *= 0; /* sink is small: unmapped page */
    if (strcmp(mode, "abort") == 0)
        abort();
    sink++;
}

__attribute__((noinline)) void nested(int depth)
{
    sink++;
    if (depth < 0)
        return; /* never: keeps GCC from calling this an endless recursion */
    if (depth > 0)
        nested(depth - 1);
    else
        exit(3);
    sink++;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *mode = argv[1];
    int n = atoi(argv[2]);
    for (int i = 0; i < n; i++)
        work(i);
    printf("recorded %d\n", n);
    fflush(stdout);
    if (strcmp(mode, "kill") == 0)
        kill(getpid(), SIGKILL);
    if (strcmp(mode, "exit3") == 0)
        nested(2);
    crash_here(mode);
    return 0;
}
