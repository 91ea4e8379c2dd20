/*
 * prog_juggle.c - a program that juggles its descriptors mid-run (issue 46,
 * "Reliability"): it closes every descriptor from 3 up (close_range) while
 * a file is open, puts another file at descriptor 0 (dup2) and writes
 * there, closes from 3 up again (closefrom), then writes 30,000 times to a
 * file at the number the journal had, so that the recorder writes many
 * chunks after its descriptor went away. check_juggle.py: every call in
 * the profile under the right file, nothing of scope's own files.
 *
 * usage: prog_juggle OUTDIR
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[4096];

static int open_in(const char *name)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0)
        exit(3);
    return fd;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char buf[256];
    memset(buf, 'j', sizeof buf);
    int a = open_in("a.dat");
    for (int i = 0; i < 3; i++)
        if (write(a, buf, 100) != 100)
            return 4;
    if (close_range(3, ~0U, 0))         /* a.dat, and whatever scope had */
        return 5;
    int b = open_in("b.dat");           /* takes 3 */
    if (b != 3 || write(b, buf, 200) != 200)
        return 6;
    if (dup2(b, 0) != 0 || write(0, buf, 50) != 50)   /* b.dat at descriptor 0 */
        return 7;
    closefrom(3);
    int c = open_in("c.dat");           /* 3 again */
    for (int i = 0; i < 30000; i++)
        if (write(c, buf, 10) != 10)
            return 8;
    close(c);
    close(0);
    return 0;
}
