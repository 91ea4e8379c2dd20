/*
 * serial_regions.c - a program that never calls MPI_Init and marks its own
 * regions with libscope (3 calls of "serial_work"). Under the preload it is
 * rank 0 of 1, and exactly one rank file + the index must come out: the
 * preload's recorder, which saw no event in this process, adds nothing.
 * Prints "serial pid <p>".
 */
#include <stdio.h>
#include <unistd.h>

#include "scope.h"

int main(void)
{
    int32_t id = scope_region("serial_work");
    volatile double x = 0;
    for (int call = 0; call < 3; call++) {
        scope_begin(id);
        for (int i = 0; i < 1000; i++)
            x += i;
        scope_end(id);
    }
    printf("serial pid %ld\n", (long)getpid());
    fflush(stdout);
    return scope_finalize() == 0 ? 0 : 1;
}
