/*
 * h5writer.h - the interface of libscope_h5writer.so, the only part of the
 * recorder that touches HDF5.
 *
 * The recorder lives inside applications that may use their own, different
 * HDF5, so it never links libhdf5: at finalize it loads this library into a
 * new link-map namespace (dlmopen LM_ID_NEWLM) and hands it nothing but
 * paths; the library reads the journal from disk and writes the rank file
 * (and the index file). `scope recover` links the same library directly, so
 * a clean finalize and a recovery produce the same files.
 */
#ifndef SCOPE_H5WRITER_H
#define SCOPE_H5WRITER_H

#include <stddef.h>

struct scope_writer_request {
    const char *journal_path;   /* the journal to convert */
    const char *rank_path;      /* final rank file path; NULL = derive from
                                   the journal's output and rank */
    const char *index_path;     /* write the index here too; NULL = don't */
    int complete;               /* 1 after a clean finalize, 0 recovered */
    char *err;                  /* message buffer, "<path>: <problem>" */
    size_t errlen;
};

/* Converts a journal into a rank file (written under a temporary name and
 * renamed). Returns 0 or a negative SCOPE_E* code with a message in err.
 * Memory: bounded (windows of each region's arrays), whatever the journal's
 * size. Cost: two sequential passes over the journal. */
typedef int (*scope_writer_convert_fn)(const struct scope_writer_request *req);

#define SCOPE_WRITER_CONVERT_SYMBOL "scope_writer_convert"

int scope_writer_convert(const struct scope_writer_request *req);

/* Loads the writer privately and runs the conversion (recorder side).
 * Search order: $SCOPE_H5WRITER, then next to the object that contains the
 * recorder, then ../runtime/ and scope/ relative to it. */
int scope__writer_run(const struct scope_writer_request *req);

#endif /* SCOPE_H5WRITER_H */
