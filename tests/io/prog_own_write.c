/*
 * prog_own_write.c - a serial program that defines its own write(), as a
 * program may (a logging shim, a replacement for the system's), built
 * stripped and exporting its symbols (-rdynamic, -s): only the in-memory
 * tables name its functions, and the I/O capture's exact names are found
 * there (check_own_write.py). It writes "hello\n" 10 times through its
 * own write() to own.dat, and 5 lines with fprintf to lines.dat.
 *
 * usage: prog_own_write DIR
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t n)
{
    return syscall(SYS_write, fd, buf, n);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/own.dat", argv[1]);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < 10; i++)
        if (write(fd, "hello\n", 6) != 6)
            return 1;
    close(fd);
    snprintf(path, sizeof path, "%s/lines.dat", argv[1]);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    for (int i = 0; i < 5; i++)
        fprintf(f, "%d\n", i);
    fclose(f);
    printf("done\n");
    return 0;
}
