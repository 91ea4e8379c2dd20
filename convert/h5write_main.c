/*
 * h5write_main.c - scope-h5write, the recorder's HDF5 writer process.
 *
 *   scope-h5write [--remove-journal] --complete|--incomplete JOURNAL
 *                 RANK_FILE|- [INDEX_FILE]
 *   scope-h5write --host HOST_FILE INDEX_FILE|- [--links] JOURNAL...
 *   scope-h5write --append HOST_FILE INDEX_FILE|- JOURNAL
 *   scope-h5write --host-summary HOST_FILE...
 *
 * The command line is format/writer_args.c's (scope_writer.h), which the
 * recorder encodes. Converts one journal into its rank file (and the index file when given)
 * with scope_convert(), the converter's one entry point (scope_convert.h).
 * With --host, the journals of one host's ranks (its leader's first) into
 * one host file; with --links, stdin gives the index's targets: one line
 * per rank in rank order, the file in the ranks folder that holds its
 * group (an empty line: rank<N>.h5). With --append, one journal's group
 * added to its host's file under a lock (host_append.c: no MPI). With
 * --host-summary, the summary table of host files written without it
 * (host_summary.c; benchmarks and tests use it on generated files).
 * Started by the recorder at finalize and by its death handler
 * (runtime/writer_spawn.c explains why it is a process of its own); not
 * meant to be run by hand. Exits 0 on success, 1 with a one-line "scope: ..."
 * message on stderr on failure, 2 on a usage error.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14 */
#endif

#include "scope_convert.h"
#include "scope_writer.h"  /* the command line's decoder */

/* Reads stdin's lines into a NULL-free array of strings (the index's
 * targets per rank). Returns the count, or -1 when out of memory. */
static long read_links(char ***out)
{
    char **v = NULL, *line = NULL;
    size_t cap = 0, n = 0, len = 0;
    ssize_t r;
    while ((r = getline(&line, &len, stdin)) >= 0) {
        if (r > 0 && line[r - 1] == '\n')
            line[r - 1] = 0;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            char **q = realloc(v, cap * sizeof *q);
            if (!q)
                return -1;
            v = q;
        }
        if (!(v[n++] = strdup(line)))
            return -1;
    }
    free(line);
    *out = v;
    return (long)n;
}

/* What the conversion says without failing: a line on stderr. */
static void warn(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "scope: %s\n", line);
}

/* The command's status for scope_convert()'s rc: 0, or 1 after saying
 * err on standard error. After a file libhdf5 could not close it leaves
 * at once: libhdf5's exit handler would crash (h5writer.c). */
static int finish(int rc, const char *err)
{
    if (rc >= 0)
        return 0;
    fprintf(stderr, "scope: %s\n", err[0] ? err : "writing the profile failed");
    fflush(stderr);
    if (scope_convert_hdf5_broken())
        _exit(1);
    return 1;
}

/* --host-summary HOST_FILE...: each file's table, whatever the others do. */
static int summary_main(const struct scope_writer_command *cmd)
{
    int status = 0;
    for (size_t i = 0; i < cmd->n_summary_paths; i++) {
        char err[8192] = { 0 };
        if (finish(scope_convert_host_summary(cmd->summary_paths[i], err, sizeof err), err))
            status = 1;
    }
    return status;
}

/* Hands the heap its first pages in one call. A conversion allocates 2-4
 * MiB (libhdf5's metadata cache alone zeroes 1 MiB per open file), and
 * each fresh heap page otherwise costs a page fault when first touched:
 * ~600 of the writer's ~840 faults, at several microseconds each on a
 * virtual machine. The block is freed at once; glibc keeps it as the top
 * of the heap (the trim threshold is raised above it) for the
 * allocations that follow. */
static void heap_prefault(void)
{
    enum { HEAP = 4 << 20 };
    mallopt(M_MMAP_THRESHOLD, 2 * HEAP);  /* from the heap, not a mapping */
    mallopt(M_TRIM_THRESHOLD, 4 * HEAP);  /* and kept after free */
    char *p = malloc(HEAP);
    if (!p)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + HEAP) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);  /* Linux >= 5.14; else a no-op */
    free(p);
}

int main(int argc, char **argv)
{
    heap_prefault();
    struct scope_writer_command cmd;
    char err[8192] = { 0 };
    if (scope_writer_decode(argc, argv, &cmd, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (cmd.n_summary_paths)
        return summary_main(&cmd);
    char **links = NULL;
    long n_links = 0;
    if (cmd.links_on_stdin && (n_links = read_links(&links)) < 0) {
        fprintf(stderr, "scope: out of memory reading the index's links\n");
        return 1;
    }
    if (cmd.req.mode == SCOPE_CONVERT_HOST) {
        cmd.req.host.link_files = (const char *const *)links;
        cmd.req.host.n_link_files = (size_t)n_links;
    }
    cmd.req.err = err;
    cmd.req.errlen = sizeof err;
    cmd.req.warn = warn;
    int rc = scope_convert(&cmd.req);
    for (long i = 0; i < n_links; i++)
        free(links[i]);
    free(links);
    if (finish(rc, err) != 0)
        return 1;
    /* the recorder's death path cannot wait for the journal to be removed
     * after the file is in place */
    if (cmd.remove_journal)
        unlink(cmd.req.rank.journal_path);
    return 0;
}
