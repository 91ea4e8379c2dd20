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
#include <stdio.h>

/* The converter process's file name, found by runtime/writer_spawn.c. */
#define SCOPE_CONVERT_EXE "scope-h5write"

/* What to make of journals: one of four modes, each with its own fields
 * below and its own function in the converter (convert/h5writer.h). Build
 * a request with the function of its mode (scope_request_*()). */
enum scope_convert_mode {
    SCOPE_CONVERT_RANK = 1,     /* one journal into its rank file (and the
                                   index when index_path is set) */
    SCOPE_CONVERT_INDEX_ONLY,   /* the rank file is already in place at
                                   rank.rank_path: the index only (recovery) */
    SCOPE_CONVERT_HOST,         /* a host's journals into one host file */
    SCOPE_CONVERT_APPEND,       /* one journal's group added to its host's
                                   file under the host's lock */
};

struct scope_convert_request {
    enum scope_convert_mode mode;
    int complete;               /* 1 after a clean finalize, 0 recovered */
    const char *index_path;     /* write the index here too; NULL = don't
                                   (INDEX_ONLY: the index to write) */
    char *err;                  /* message buffer, "<path>: <problem>" */
    size_t errlen;
    /* What the conversion has to say that is not its failure (a collision
     * file it could not link into the index, a journal written as a rank
     * file because its host file's lock could not be had): one line,
     * "<path>: <what>", to the caller's callback; NULL: silence.
     * scope-h5write prints it on stderr, `scope recover` says it as its
     * own. Not part of the command line. */
    void (*warn)(void *arg, const char *line);
    void *warn_arg;
    union {
        /* RANK, INDEX_ONLY */
        struct {
            const char *journal_path;   /* the journal to convert */
            const char *rank_path;      /* final rank file path; NULL =
                                           beside the journal, rank<N>.h5 */
        } rank;
        /* HOST (docs/format.md): the n_journals journals (the host
         * leader's first) are converted one after the other into the one
         * file host_path, complete. Each journal is removed once the file
         * is in place; a journal that cannot be read is skipped and kept
         * (`scope recover` converts it), and the call then fails with
         * SCOPE_EJOURNAL after writing the others. */
        struct {
            const char *host_path;
            const char *const *journals;
            size_t n_journals;
            /* with index_path: where each rank's group is, a file name in
             * the ranks folder per rank (NULL or "" = rank<r>.h5) */
            const char *const *link_files;
            size_t n_link_files;
        } host;
        /* APPEND: journal_path's group added to the host file host_path
         * under the host's lock, and linked in index_path
         * (convert/host_append.c; a process without MPI,
         * SCOPE_HOST_FILES=1). The journal is removed once its group is
         * in place and linked. */
        struct {
            const char *host_path;
            const char *journal_path;
        } append;
    };
};

/* One function per mode: the request for it, every field of the mode
 * given. Pure. */
static inline struct scope_convert_request
scope_request_rank(const char *journal, const char *rank_path, const char *index_path,
                   int complete, char *err, size_t errlen)
{
    struct scope_convert_request r = { .mode = SCOPE_CONVERT_RANK, .complete = complete,
                                       .index_path = index_path, .err = err, .errlen = errlen };
    r.rank.journal_path = journal;
    r.rank.rank_path = rank_path;
    return r;
}

static inline struct scope_convert_request
scope_request_index(const char *journal, const char *rank_path, const char *index_path,
                    int complete, char *err, size_t errlen)
{
    struct scope_convert_request r = scope_request_rank(journal, rank_path, index_path,
                                                        complete, err, errlen);
    r.mode = SCOPE_CONVERT_INDEX_ONLY;
    return r;
}

/* Host files are written at a clean finalize only: complete. */
static inline struct scope_convert_request
scope_request_host(const char *host_path, const char *index_path, const char *const *journals,
                   size_t n_journals, const char *const *link_files, size_t n_link_files,
                   char *err, size_t errlen)
{
    struct scope_convert_request r = { .mode = SCOPE_CONVERT_HOST, .complete = 1,
                                       .index_path = index_path, .err = err, .errlen = errlen };
    r.host.host_path = host_path;
    r.host.journals = journals;
    r.host.n_journals = n_journals;
    r.host.link_files = link_files;
    r.host.n_link_files = n_link_files;
    return r;
}

static inline struct scope_convert_request
scope_request_append(const char *host_path, const char *index_path, const char *journal,
                     int complete, char *err, size_t errlen)
{
    struct scope_convert_request r = { .mode = SCOPE_CONVERT_APPEND, .complete = complete,
                                       .index_path = index_path, .err = err, .errlen = errlen };
    r.append.host_path = host_path;
    r.append.journal_path = journal;
    return r;
}

/* --- scope-h5write's command line (writer_args.c) ---
 * One encoder, used by the recorder's finalize and death handler, and one
 * decoder, used by scope-h5write: the option words live in writer_args.c
 * only. */

/* What one scope-h5write command line asks: a conversion request, plus
 * what the process does around it. */
struct scope_writer_command {
    struct scope_convert_request req;   /* err/errlen are the caller's;
                                           no mode with summary_paths */
    int remove_journal;                 /* remove the journal once the file
                                           is in place (the death path) */
    int links_on_stdin;                 /* host mode: the index's targets,
                                           one line per rank, on stdin */
    /* --detach: the writer outlives the process that started it (a rank
     * whose MPI_Finalize does not wait for it, runtime/recorder.c): it
     * starts a process of its own and returns at once, that process says
     * its own failure, once per job, and removes what the recorder would
     * have removed. */
    struct scope_writer_detach {
        int on;
        int rank;                       /* for its failure's message: the */
        const char *output;             /* rank, the index of the run */
        const char *say_marker;         /* the once-per-job marker file of a
                                           failure; NULL: say it (rank <= 0) */
        const char *pointer;            /* journals.<host> to remove once no
                                           journal of the host is left in the
                                           journal's folder; NULL none */
        char rank_text[16];             /* `rank` as the line carries it:
                                           scope_writer_detach_init() */
    } detach;
    /* --host-summary: rewrite the summary tables of these host files
     * (no request then) */
    const char *const *summary_paths;
    size_t n_summary_paths;
};

/* A writer that outlives its caller, rank `rank` of the run whose index
 * is `output` (NULL when unknown), saying a failure once per job through
 * `say_marker` (NULL: rank 0 says it) and removing `pointer` (NULL: none).
 * Pure. */
static inline struct scope_writer_detach scope_writer_detach_init(int rank, const char *output,
                                                                  const char *say_marker,
                                                                  const char *pointer)
{
    struct scope_writer_detach d = { .on = 1, .rank = rank < -1 ? -1 : rank, .output = output,
                                     .say_marker = say_marker, .pointer = pointer };
    snprintf(d.rank_text, sizeof d.rank_text, "%d", d.rank);
    return d;
}

/* The size of the vector scope_writer_encode() needs for `req`, argv[0]
 * and the closing NULL included. Pure. */
size_t scope_writer_argv_size(const struct scope_convert_request *req);

/* Writes the arguments asking scope-h5write for `req` into argv[1..],
 * NULL-terminated; argv[0] (the executable) is the caller's. The strings
 * are req's own (nothing is copied or allocated: the death handler
 * prepares its vector with it). Returns the number of words before the
 * NULL, argv[0] included, or SCOPE_EINVAL when cap is below
 * scope_writer_argv_size() or the request's mode is not one scope-h5write
 * carries out (INDEX_ONLY: in-process recovery's). Pure. */
int scope_writer_encode(const struct scope_convert_request *req, int remove_journal,
                        const char **argv, size_t cap);

/* The same, for a writer that outlives its caller (`detach`, see struct
 * scope_writer_command; detach->on set). Pure. */
int scope_writer_encode_detached(const struct scope_convert_request *req, int remove_journal,
                                 const struct scope_writer_detach *detach, const char **argv,
                                 size_t cap);

/* Reads a scope-h5write command line back into *out (pointing into argv).
 * Returns 0, or SCOPE_EINVAL with the usage line of the mode asked for in
 * err. Pure. */
int scope_writer_decode(int argc, char *const *argv, struct scope_writer_command *out,
                        char *err, size_t errlen);

#endif /* SCOPE_WRITER_H */
