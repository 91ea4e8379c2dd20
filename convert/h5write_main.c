/*
 * h5write_main.c - scope-h5write, the recorder's HDF5 writer process.
 *
 *   scope-h5write [--remove-journal] --complete|--incomplete JOURNAL
 *                 RANK_FILE|- [INDEX_FILE]
 *   scope-h5write --host HOST_FILE INDEX_FILE|- [--links] JOURNAL...
 *   scope-h5write --append HOST_FILE INDEX_FILE|- JOURNAL
 *   scope-h5write --host-summary HOST_FILE...
 *
 * Converts one journal into its rank file (and the index file when given)
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

static int host_main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: scope-h5write --host HOST_FILE INDEX_FILE|- [--links] JOURNAL...\n");
        return 2;
    }
    int a = 4;
    char **links = NULL;
    long n_links = 0;
    if (a < argc && strcmp(argv[a], "--links") == 0) {
        a++;
        if ((n_links = read_links(&links)) < 0) {
            fprintf(stderr, "scope: out of memory reading the index's links\n");
            return 1;
        }
    }
    char err[8192] = { 0 };
    struct scope_convert_request req = {
        .host_path = argv[2],
        .index_path = strcmp(argv[3], "-") == 0 ? NULL : argv[3],
        .journals = (const char *const *)(argv + a),
        .n_journals = (size_t)(argc - a),
        .link_files = (const char *const *)links,
        .n_link_files = (size_t)n_links,
        .complete = 1,
        .err = err,
        .errlen = sizeof err,
    };
    int rc = scope_convert(&req);
    for (long i = 0; i < n_links; i++)
        free(links[i]);
    free(links);
    return finish(rc, err);
}

/* scope-h5write --append HOST_FILE INDEX_FILE|- JOURNAL */
static int append_main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: scope-h5write --append HOST_FILE INDEX_FILE|- JOURNAL\n");
        return 2;
    }
    char err[8192] = { 0 };
    struct scope_convert_request req = {
        .host_path = argv[2],
        .index_path = strcmp(argv[3], "-") == 0 ? NULL : argv[3],
        .journal_path = argv[4],
        .append = 1,
        .complete = 1,
        .err = err,
        .errlen = sizeof err,
    };
    return finish(scope_convert(&req), err);
}

/* scope-h5write --host-summary HOST_FILE... */
static int summary_main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: scope-h5write --host-summary HOST_FILE...\n");
        return 2;
    }
    int status = 0;
    for (int i = 2; i < argc; i++) {
        char err[8192] = { 0 };
        if (finish(scope_convert_host_summary(argv[i], err, sizeof err), err))
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
    if (argc > 1 && strcmp(argv[1], "--host-summary") == 0)
        return summary_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "--host") == 0)
        return host_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "--append") == 0)
        return append_main(argc, argv);
    /* --remove-journal: the recorder's death path, which cannot wait for
     * the journal to be removed after the file is in place */
    int remove_journal = argc > 1 && strcmp(argv[1], "--remove-journal") == 0;
    if (remove_journal) {
        argv++;
        argc--;
    }
    if (argc < 4 || argc > 5 ||
        (strcmp(argv[1], "--complete") != 0 && strcmp(argv[1], "--incomplete") != 0)) {
        fprintf(stderr, "usage: scope-h5write [--remove-journal] --complete|--incomplete "
                        "JOURNAL RANK_FILE|- [INDEX_FILE]\n");
        return 2;
    }
    char err[8192] = { 0 };
    struct scope_convert_request req = {
        .journal_path = argv[2],
        .rank_path = strcmp(argv[3], "-") == 0 ? NULL : argv[3],
        .index_path = argc == 5 ? argv[4] : NULL,
        .complete = strcmp(argv[1], "--complete") == 0,
        .err = err,
        .errlen = sizeof err,
    };
    if (finish(scope_convert(&req), err) != 0)
        return 1;
    if (remove_journal)
        unlink(argv[2]);
    return 0;
}
