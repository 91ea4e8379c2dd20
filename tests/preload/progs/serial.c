/*
 * serial.c - a program that never calls MPI_Init. Under the preload it is
 * rank 0 of 1 and writes only if it is a target that recorded something.
 * Prints "serial pid <p>" and exits with the status given as argv[1]
 * (default 0), so config-error tests can check the exit code passes through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    printf("serial pid %ld\n", (long)getpid());
    return argc > 1 ? atoi(argv[1]) : 0;
}
