/*
 * prog_plain.c - a program without OpenMP, built with the same compiler
 * as the others: under the preload it records no OpenMP region and prints
 * what it prints bare.
 */
#include <stdio.h>

int main(void)
{
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += i;
    printf("sum %ld\n", s);
    return 0;
}
