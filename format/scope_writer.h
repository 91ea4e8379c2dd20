/*
 * scope_writer.h - the writer contract: what the recorder asks of the
 * converter. The recorder (runtime/writer_spawn.c) fills this request and
 * hands it to the scope-h5write process; the converter (convert/,
 * scope_convert()) carries it out. It sits in format/ because both sides
 * speak it and neither may include the other: the recorder never links
 * anything of the converter (libhdf5 must stay out of the profiled
 * application), and the converter knows nothing of the recorder.
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

#endif /* SCOPE_WRITER_H */
