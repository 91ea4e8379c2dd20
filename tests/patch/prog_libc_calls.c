/*
 * prog_libc_calls.c - a program whose libc calls are known exactly
 * (check_libc_config.py): malloc 7 times, strdup 3 times (each strdup
 * calls malloc once more), work() 5 times, free 10 times; its only output
 * is one write(2), so stdio allocates nothing; exit status 5.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int work(int x)
{
    volatile int s = 0;
    for (int i = 0; i < 100; i++)
        s += i * x;
    return s;
}

int main(void)
{
    void *p[7];
    char *d[3];
    for (int i = 0; i < 7; i++)
        p[i] = malloc(16 + (size_t)i);
    for (int i = 0; i < 3; i++)
        d[i] = strdup("scope");
    for (int i = 0; i < 5; i++)
        work(i);
    for (int i = 0; i < 7; i++)
        free(p[i]);
    for (int i = 0; i < 3; i++)
        free(d[i]);
    if (write(1, "libc_calls done\n", 16) != 16)
        return 1;
    return 5;
}
