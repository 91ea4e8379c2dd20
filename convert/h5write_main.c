/*
 * h5write_main.c - scope-h5write, the recorder's HDF5 writer process.
 *
 *   scope-h5write [DETACH] [--remove-journal] --complete|--incomplete
 *                 JOURNAL RANK_FILE|- [INDEX_FILE]
 *   scope-h5write [DETACH] --host HOST_FILE INDEX_FILE|- [--links] JOURNAL...
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
 * With DETACH (`--detach MARKER|- [--pointer FILE]`, format/writer_args.c)
 * the writer outlives the rank that started it: it forks, the first
 * process exits 0 at once (the rank's MPI_Finalize waits only for that),
 * and the second, in a session of its own, converts, says its failure
 * itself once per job and removes the journal (and the pointer FILE when
 * no journal of its host is left beside it). It keeps every descriptor it
 * was given: the rank's standard output and error, which the launcher
 * reads until every process holding them has ended (so mpirun returns
 * once the file is written), and the journal with the rank's lock on it
 * (so `scope recover` and `scope run` see it is being written).
 * Started by the recorder at finalize and by its death handler
 * (runtime/writer_spawn.c explains why it is a process of its own); not
 * meant to be run by hand. Exits 0 on success, 1 with a one-line "scope: ..."
 * message on stderr on failure, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
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
#include "scope_paths.h"
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

/* --detach: the rest runs in a process of its own, in a session of its
 * own (the launcher's signals to the rank's group are not for it: the
 * recorder starts this one in a session of its own already), that a
 * closed standard output cannot kill. Returns 0 in that process; the
 * first one exits here, 0 once the second is started, 1 when it cannot
 * be (the rank then converts while it waits, as before). */
static int detach(void)
{
    pid_t pid = fork();
    if (pid < 0)
        _exit(1);
    if (pid > 0)
        _exit(0);
    setsid();
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    return 0;
}

/* A detached writer's failure, said as the rank would have said it and
 * once per job: the first process to create the marker file says it (the
 * recorder's rule, runtime/journal_storage.c); without a marker (a job
 * the recorder could not name), rank 0 or a serial process says it. */
static void say_detached(const struct scope_writer_command *cmd, const char *err)
{
    int rank = cmd->detach.rank;
    const char *output = cmd->detach.output ? cmd->detach.output : "";
    int say;
    if (!cmd->detach.say_marker) {
        say = rank <= 0;
    } else {
        int fd = open(cmd->detach.say_marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      0666);
        if (fd >= 0)
            close(fd);
        say = fd >= 0 || (errno != EEXIST && rank <= 0);
    }
    if (!say)
        return;
    if (cmd->req.mode == SCOPE_CONVERT_HOST)
        fprintf(stderr, "scope: rank %d: could not write the host file %s: %s; the journals not in "
                "it are kept (`scope recover %s` converts them once the fault is repaired)\n",
                rank, cmd->req.host.host_path, err, output);
    else
        fprintf(stderr, "scope: rank %d: could not write the profile: %s; the journal %s is kept "
                "(`scope recover %s` converts it once the fault is repaired)\n", rank, err,
                cmd->req.rank.journal_path, output);
    fflush(stderr);
}

/* Removes the pointer file journals.<host> once the folder of `journal`
 * holds no journal of its host (the recorder's rule when it removes its
 * journal itself, runtime/journal_dir.c). */
static void drop_pointer(const char *pointer, const char *journal)
{
    char dir[PATH_MAX], host[300];
    snprintf(dir, sizeof dir, "%s", journal);
    const char *p = strrchr(pointer, '/') ? strrchr(pointer, '/') + 1 : pointer;
    const char *ptr_host = scope_journal_pointer_host(p);
    if (!ptr_host)
        return;
    snprintf(host, sizeof host, "%s", ptr_host);
    if (!scope_host_journals_left(dirname(dir), host))
        unlink(pointer);
}

int main(int argc, char **argv)
{
    struct scope_writer_command cmd;
    char err[8192] = { 0 };
    if (scope_writer_decode(argc, argv, &cmd, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (cmd.detach.on)
        detach();
    heap_prefault();
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
    if (rc < 0 && cmd.detach.on) {
        say_detached(&cmd, err[0] ? err : "writing the profile failed");
        if (scope_convert_hdf5_broken())
            _exit(1);
        return 1;
    }
    if (finish(rc, err) != 0)
        return 1;
    /* the recorder's death path, and a rank that did not wait, cannot
     * remove the journal after the file is in place */
    if (cmd.remove_journal)
        unlink(cmd.req.rank.journal_path);
    if (cmd.detach.pointer) {
        const char *journal = cmd.req.mode == SCOPE_CONVERT_HOST
                                  ? (cmd.req.host.n_journals ? cmd.req.host.journals[0] : NULL)
                                  : cmd.req.rank.journal_path;
        if (journal)
            drop_pointer(cmd.detach.pointer, journal);
    }
    return 0;
}
