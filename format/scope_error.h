/*
 * scope_error.h - the one table of error codes shared by every scope library.
 *
 * Every public scope function that can fail returns 0 (or a non-negative
 * value) on success and one of the negative SCOPE_E* codes below on failure,
 * in the style of libuv. The recorder and the reader share this table so a
 * code means the same thing everywhere; scope_strerror() is inline so that
 * neither library has to link the other to print it.
 */
#ifndef SCOPE_ERROR_H
#define SCOPE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* XX(name, value, message) */
#define SCOPE_ERRNO_MAP(XX)                                                    \
    XX(EINVAL,    -1,  "invalid argument")                                     \
    XX(ENOMEM,    -2,  "out of memory")                                        \
    XX(EIO,       -3,  "input/output error")                                   \
    XX(ENOENT,    -4,  "no such file or directory")                            \
    XX(EACCES,    -5,  "permission denied")                                    \
    XX(ESTATE,    -6,  "operation not valid in the recorder's current state")  \
    XX(ELIMIT,    -7,  "a limit was reached")                                  \
    XX(ENOWRITER, -8,  "the HDF5 writer program (scope-h5write) could not be " \
                       "found or started")                                     \
    XX(ENOTHDF5,  -9,  "not an HDF5 file")                                     \
    XX(EFORMAT,   -10, "not a scope profile (unexpected layout)")              \
    XX(ETRUNC,    -11, "file is truncated or damaged")                         \
    XX(EVERSION,  -12, "unsupported format version")                           \
    XX(ENOTFOUND, -13, "no such region, rank or item")                         \
    XX(EHDF5,     -14, "the HDF5 library reported an error")                   \
    XX(EOVERLAP,  -15, "calls overlap partially; nesting cannot be rebuilt")   \
    XX(EDUP,      -16, "the same rank appears twice")                          \
    XX(EJOURNAL,  -17, "journal is damaged or of an unknown version")          \
    XX(EBUSY,     -18, "the journal is still owned by a running process")      \
    XX(ECONFIG,   -19, "configuration error")

enum scope_errno {
#define SCOPE__XX(name, value, msg) SCOPE_##name = (value),
    SCOPE_ERRNO_MAP(SCOPE__XX)
#undef SCOPE__XX
};

/* Returns a static, human-readable message for a SCOPE_E* code; never NULL. */
static inline const char *scope_strerror(int err)
{
    switch (err) {
    case 0: return "success";
#define SCOPE__XX(name, value, msg) case (value): return (msg);
    SCOPE_ERRNO_MAP(SCOPE__XX)
#undef SCOPE__XX
    default: return "unknown scope error";
    }
}

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_ERROR_H */
