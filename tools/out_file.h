/*
 * out_file.h - writing a command's output file so that its final name
 * never holds half a file (out_file.c explains how).
 */
#ifndef SCOPE_OUT_FILE_H
#define SCOPE_OUT_FILE_H

#include <stdio.h>

typedef struct scope__out_file {
    FILE *f;        /* write here */
    char *path;     /* the final name */
    char *tmp;      /* "<path>.tmp.<pid>", NULL for "-" (stdout) */
} scope__out_file;

/* Opens `path` for writing ("-": stdout) under a temporary name in the
 * same folder. Returns 0, or 1 after saying "scope: <path>: <reason>". */
int scope__out_open(scope__out_file *o, const char *path);

/* Finishes the file: flushes, checks every write, fsyncs, and renames it
 * into place. With `ok` 0 (the command failed) or on any error the
 * temporary file is removed and the final name left as it was. Says what
 * failed ("scope: <path>: cannot write the <what>: <reason>"). Returns 0
 * when the file is in place (or stdout is written), else 1. */
int scope__out_close(scope__out_file *o, int ok, const char *what);

/* The whole of writing one output file: scope__out_open(path), then
 * write(f, ctx), which returns 0 or 1 (after saying why), then
 * scope__out_close with `what` for its message. Returns 0 when the file
 * is in place (or stdout written), else 1. */
int scope__out_write(const char *path, const char *what, int (*write)(FILE *f, void *ctx),
                     void *ctx);

#endif /* SCOPE_OUT_FILE_H */
