/*
 * scope_writer.h - the writer contract: what the recorder asks of the
 * converter. The recorder (runtime/writer_spawn.c) fills this request and
 * hands it to the scope-h5write process; the converter (convert/,
 * scope_convert()) carries it out. It sits in format/ because both sides
 * speak it and neither may include the other: the recorder never links
 * anything of the converter (libhdf5 must stay out of the profiled
 * application), and the converter knows nothing of the recorder. The
 * request travels as scope-h5write's command line, whose one encoder and
 * decoder are below (writer_args.c, the one source file of format/).
 */
#ifndef SCOPE_WRITER_H
#define SCOPE_WRITER_H

#include <stddef.h>

/* The converter process's file name, found by runtime/writer_spawn.c. */
#define SCOPE_CONVERT_EXE "scope-h5write"

struct scope_convert_request {
    const char *journal_path;   /* the journal to convert */
    const char *rank_path;      /* final rank file path; NULL = derive from
                                   the journal's output and rank */
    const char *index_path;     /* write the index here too; NULL = don't */
    int complete;               /* 1 after a clean finalize, 0 recovered */
    int index_only;             /* the rank file is already in place at
                                   rank_path: write only the index */
    char *err;                  /* message buffer, "<path>: <problem>" */
    size_t errlen;
    /* A host file (docs/format.md): when host_path is set, the n_journals
     * journals (the host leader's first) are converted one after the
     * other into the one file host_path, complete; journal_path and
     * rank_path are unused. Each journal is removed once the file is in
     * place; a journal that cannot be read is skipped and kept (`scope
     * recover` converts it), and the call then fails with SCOPE_EJOURNAL
     * after writing the others. */
    const char *host_path;
    const char *const *journals;
    size_t n_journals;
    /* With index_path in host mode: where each rank's group is, a file
     * name in the ranks folder per rank (NULL or "" = rank<r>.h5). */
    const char *const *link_files;
    size_t n_link_files;
    /* With host_path: add journal_path's group to the host file under
     * the host's lock, and link it in index_path (convert/host_append.c;
     * a process without MPI, SCOPE_HOST_FILES=1). The journal is removed
     * once its group is in place and linked. */
    int append;
};

/* --- scope-h5write's command line (writer_args.c) ---
 * One encoder, used by the recorder's finalize and death handler, and one
 * decoder, used by scope-h5write: the option words live in writer_args.c
 * only. */

/* What one scope-h5write command line asks: a conversion request, plus
 * what the process does around it. */
struct scope_writer_command {
    struct scope_convert_request req;   /* err/errlen are the caller's */
    int remove_journal;                 /* remove the journal once the file
                                           is in place (the death path) */
    int links_on_stdin;                 /* host mode: the index's targets,
                                           one line per rank, on stdin */
    /* --host-summary: rewrite the summary tables of these host files
     * (no request then) */
    const char *const *summary_paths;
    size_t n_summary_paths;
};

/* The size of the vector scope_writer_encode() needs for `req`, argv[0]
 * and the closing NULL included. Pure. */
size_t scope_writer_argv_size(const struct scope_convert_request *req);

/* Writes the arguments asking scope-h5write for `req` into argv[1..],
 * NULL-terminated; argv[0] (the executable) is the caller's. The strings
 * are req's own (nothing is copied or allocated: the death handler
 * prepares its vector with it). Returns the number of words before the
 * NULL, argv[0] included, or SCOPE_EINVAL when cap is below
 * scope_writer_argv_size() or the request is not one scope-h5write
 * carries out (index only: in-process recovery's). Pure. */
int scope_writer_encode(const struct scope_convert_request *req, int remove_journal,
                        const char **argv, size_t cap);

/* Reads a scope-h5write command line back into *out (pointing into argv).
 * Returns 0, or SCOPE_EINVAL with the usage line of the mode asked for in
 * err. Pure. */
int scope_writer_decode(int argc, char *const *argv, struct scope_writer_command *out,
                        char *err, size_t errlen);

#endif /* SCOPE_WRITER_H */
