/*
 * calls.c - the vocabulary of intercepted calls (scope_calls.h) made into
 * tables: the rows of calls_mpi.def, calls_io.def and calls_coll.def, the one parser of
 * a symbol's name every folder uses, and the stored names of the enums.
 *
 * The positions of a row's roles are computed by the preprocessor from
 * the order its .def line lists them in, so a row reads like the
 * standard's binding and costs nothing at run time. libc only, no
 * allocation (the parser's name tables are static): linked into the
 * recorder's preload as into the reader.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "scope_calls.h"

/* --- the rows ----------------------------------------------------------- */

/* Position p (1-based) of role r: a real role's slot, or for `x` a slot
 * of its own per position, so that two x never collide while the
 * compiler (-Woverride-init) still refuses a real role named twice. */
#define SCOPE__POS(p, r) [SCOPE_ARG_##r + (SCOPE_ARG_##r == SCOPE_ARG_x ? (p) : 0)] = (p),
#define SCOPE__A0()
#define SCOPE__A1(a) SCOPE__POS(1, a)
#define SCOPE__A2(a, b) SCOPE__A1(a) SCOPE__POS(2, b)
#define SCOPE__A3(a, b, c) SCOPE__A2(a, b) SCOPE__POS(3, c)
#define SCOPE__A4(a, b, c, d) SCOPE__A3(a, b, c) SCOPE__POS(4, d)
#define SCOPE__A5(a, b, c, d, e) SCOPE__A4(a, b, c, d) SCOPE__POS(5, e)
#define SCOPE__A6(a, b, c, d, e, f) SCOPE__A5(a, b, c, d, e) SCOPE__POS(6, f)
#define SCOPE__A7(a, b, c, d, e, f, g) SCOPE__A6(a, b, c, d, e, f) SCOPE__POS(7, g)
#define SCOPE__A8(a, b, c, d, e, f, g, h) SCOPE__A7(a, b, c, d, e, f, g) SCOPE__POS(8, h)
#define SCOPE__A9(a, b, c, d, e, f, g, h, i) SCOPE__A8(a, b, c, d, e, f, g, h) SCOPE__POS(9, i)
#define SCOPE__A10(a, b, c, d, e, f, g, h, i, j) \
    SCOPE__A9(a, b, c, d, e, f, g, h, i) SCOPE__POS(10, j)
#define SCOPE__A11(a, b, c, d, e, f, g, h, i, j, k) \
    SCOPE__A10(a, b, c, d, e, f, g, h, i, j) SCOPE__POS(11, k)
#define SCOPE__A12(a, b, c, d, e, f, g, h, i, j, k, l) \
    SCOPE__A11(a, b, c, d, e, f, g, h, i, j, k) SCOPE__POS(12, l)
#define SCOPE__A13(a, b, c, d, e, f, g, h, i, j, k, l, m) \
    SCOPE__A12(a, b, c, d, e, f, g, h, i, j, k, l) SCOPE__POS(13, m)
#define SCOPE__A14(a, b, c, d, e, f, g, h, i, j, k, l, m, n) \
    SCOPE__A13(a, b, c, d, e, f, g, h, i, j, k, l, m) SCOPE__POS(14, n)
#define SCOPE__A15(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) \
    SCOPE__A14(a, b, c, d, e, f, g, h, i, j, k, l, m, n) SCOPE__POS(15, o)
#define SCOPE__A16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
    SCOPE__A15(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) SCOPE__POS(16, p)
/* the number of arguments, 0 for none (GNU's `, ##__VA_ARGS__`) */
#define SCOPE__NARGS(...) SCOPE__NARGS_(_, ##__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, \
                                        6, 5, 4, 3, 2, 1, 0)
#define SCOPE__NARGS_(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, \
                      a16, n, ...) n
#define SCOPE__CAT(a, b) SCOPE__CAT_(a, b)
#define SCOPE__CAT_(a, b) a##b
#define SCOPE__ARGS(...) SCOPE__CAT(SCOPE__A, SCOPE__NARGS(__VA_ARGS__))(__VA_ARGS__)

const struct scope_call_row scope_calls[SCOPE_CALLS] = {
    [SCOPE_CALL_NONE] = { .name = NULL },
#define SCOPE_MPI_CALL(nm, cls_, form_, mode_, coll_, ...)                                  \
    [SCOPE_CALL_MPI_##nm] = { .name = "MPI_" #nm, .paradigm = SCOPE_PARADIGM_MPI,           \
                              .cls = SCOPE_CC_##cls_, .form = SCOPE_CF_##form_,              \
                              .mode = SCOPE_SM_##mode_, .coll = SCOPE_COLL_OP_##coll_,       \
                              .nargs = SCOPE__NARGS(__VA_ARGS__),                           \
                              .argp1 = { SCOPE__ARGS(__VA_ARGS__) } },
#include "calls_mpi.def"
#undef SCOPE_MPI_CALL
#define SCOPE_IO_CALL(par, nm, cls_, form_, io_, bytes_, ...)                               \
    [SCOPE_CALL_##nm] = { .name = #nm, .paradigm = SCOPE_PARADIGM_##par,                    \
                          .cls = SCOPE_CC_##cls_, .form = SCOPE_CF_##form_, .io = (io_),     \
                          .bytes = SCOPE_IOB_##bytes_, .nargs = SCOPE__NARGS(__VA_ARGS__),  \
                          .argp1 = { SCOPE__ARGS(__VA_ARGS__) } },
#include "calls_io.def"
#undef SCOPE_IO_CALL
};

const struct scope_coll_info scope_coll_ops[SCOPE_COLL_OPS] = {
    [SCOPE_COLL_OP_NONE] = { NULL, SCOPE_COLL_NONE, SCOPE_SYNC_NONE, 0 },
#define SCOPE_COLL(op, nm, shape_, sync_, rooted_) \
    [SCOPE_COLL_OP_##op] = { nm, SCOPE_COLL_##shape_, SCOPE_SYNC_##sync_, rooted_ },
#include "calls_coll.def"
#undef SCOPE_COLL
};

/* --- names ---------------------------------------------------------------- */

static int is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static int is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

int scope_call_is_mpi_c_name(const char *symbol)
{
    if (symbol[0] == 'P')
        symbol++;
    if (strncmp(symbol, "MPI", 3) != 0)
        return 0;
    symbol += 3;
    if (symbol[0] == 'X')
        symbol++;
    return symbol[0] == '_' && is_upper(symbol[1]);
}

int scope_call_is_mpi_fortran(const char *symbol)
{
    if (symbol[0] == 'p' || symbol[0] == 'P')
        symbol++;
    if (strncmp(symbol, "mpi_", 4) == 0 || strncmp(symbol, "mpix_", 5) == 0)
        return 1;
    if (strncmp(symbol, "MPI_", 4) != 0 && strncmp(symbol, "MPIX_", 5) != 0)
        return 0;
    for (const char *c = symbol + 4; *c; c++)
        if (is_lower(*c))
            return 0;
    return 1;
}

/* The rows by name, for the parser: every object's symbols are parsed at
 * start-up (each capture asks of each candidate), and a pass over the
 * ~400 rows per name was most of the preload's start-up. Two open-
 * addressing tables of row ids, built once: MPI and MPI-IO rows keyed by
 * the name after "MPI_" in lower case (the Fortran bindings are matched
 * in any case), the other I/O rows by their exact name. Static storage,
 * no allocation. */
#define NAME_SLOTS 1024u        /* a power of two, over twice the rows */
_Static_assert(SCOPE_CALLS < NAME_SLOTS / 2, "the name tables need room");
static uint16_t mpi_slots[NAME_SLOTS], io_slots[NAME_SLOTS];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static uint32_t name_hash(const char *s, size_t n, int fold)
{
    uint32_t h = 2166136261u;                   /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (fold && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        h = (h ^ c) * 16777619u;
    }
    return h;
}

static void slot_put(uint16_t *slots, uint32_t h, int id)
{
    uint32_t s = h & (NAME_SLOTS - 1);
    while (slots[s])
        s = (s + 1) & (NAME_SLOTS - 1);
    slots[s] = (uint16_t)id;
}

/* in id order, so that of rows equal in a lookup's terms the first found
 * is the lowest id, as a pass over the rows would find */
static void slots_build(void)
{
    for (int id = 1; id < SCOPE_CALLS; id++) {
        const char *name = scope_calls[id].name;
        int par = scope_calls[id].paradigm;
        if (par == SCOPE_PARADIGM_MPI || par == SCOPE_PARADIGM_MPIIO)
            slot_put(mpi_slots, name_hash(name + 4, strlen(name + 4), 1), id);
        else if (scope_paradigm_is_io(par))
            slot_put(io_slots, name_hash(name, strlen(name), 0), id);
    }
}

/* The row of an MPI name (MPI and MPI-IO rows) whose name after "MPI_" is
 * body[0..n), case-sensitively or not; 0 when none. */
static int find(const char *body, size_t n, int any_case)
{
    pthread_once(&slots_once, slots_build);
    for (uint32_t s = name_hash(body, n, 1) & (NAME_SLOTS - 1); mpi_slots[s];
         s = (s + 1) & (NAME_SLOTS - 1)) {
        int id = mpi_slots[s];
        const char *name = scope_calls[id].name + 4;
        if (strlen(name) == n && (any_case ? strncasecmp(body, name, n) : strncmp(body, name, n)) == 0)
            return id;
    }
    return 0;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && strncmp(s + n - k, suffix, k) == 0;
}

/* An I/O row of a paradigm other than MPI-IO, by its exact name; 0 when
 * none. */
static int find_io(const char *symbol)
{
    pthread_once(&slots_once, slots_build);
    for (uint32_t s = name_hash(symbol, strlen(symbol), 0) & (NAME_SLOTS - 1); io_slots[s];
         s = (s + 1) & (NAME_SLOTS - 1))
        if (strcmp(scope_calls[io_slots[s]].name, symbol) == 0)
            return io_slots[s];
    return 0;
}

int scope_call_parse(const char *symbol, struct scope_call_name *out)
{
    memset(out, 0, sizeof *out);
    if (!symbol)
        return 0;
    if (strncasecmp(symbol, "mpi", 3) != 0 && strncasecmp(symbol, "pmpi", 4) != 0)
        return out->id = find_io(symbol);
    const char *p = symbol;
    if (*p == 'P' || *p == 'p') {
        out->profiling = 1;
        p++;
    }
    int upper = strncmp(p, "MPI", 3) == 0, lower = strncmp(p, "mpi", 3) == 0;
    if (!upper && !lower)
        return 0;
    if (out->profiling && (symbol[0] == 'P') != upper)
        return 0;   /* Pmpi_, pMPI_: no binding's spelling */
    p += 3;
    if (*p == (upper ? 'X' : 'x')) {
        out->mpix = 1;
        p++;
    }
    if (*p != '_')
        return 0;
    p++;
    size_t n = strlen(p);
    if (n == 0)
        return 0;
    if (upper && is_upper(p[0]) && n > 1 && !scope_call_is_mpi_fortran(symbol)) {
        /* a C name: the standard's case exactly (MPI_Send, MPI_Send_c) */
        int id = find(p, n, 0);
        if (!id && ends_with(p, n, "_c")) {
            id = find(p, n - 2, 0);
            out->big = id != 0;
        }
        out->id = id;
        return id;
    }
    /* a Fortran binding: mpi_send_, mpi_send__, MPI_SEND, mpi_send_f08,
     * mpi_send_f08ts_; all in one case */
    out->fortran = 1;
    for (size_t i = 0; i < n; i++)
        if (upper ? is_lower(p[i]) : is_upper(p[i]))
            return 0;
    for (int k = 0; k < 2 && n > 1 && p[n - 1] == '_'; k++)
        n--;
    if (ends_with(p, n, "_f08ts"))
        n -= 6;
    else if (ends_with(p, n, "_f08"))
        n -= 4;
    int id = find(p, n, 1);
    if (!id && ends_with(p, n, upper ? "_C" : "_c")) {
        id = find(p, n - 2, 1);
        out->big = id != 0;
    }
    out->id = id;
    return id;
}

int scope_call_id_of(const char *symbol)
{
    struct scope_call_name n;
    return scope_call_parse(symbol, &n);
}

size_t scope_call_operation(int id, int big, char *out, size_t len)
{
    if (len == 0)
        return 0;
    out[0] = 0;
    if (id <= 0 || id >= SCOPE_CALLS)
        return 0;
    size_t n = strlen(scope_calls[id].name), k = big ? 2 : 0;
    if (n + k + 1 > len)
        return 0;
    memcpy(out, scope_calls[id].name, n);
    memcpy(out + n, "_c", k);
    out[n + k] = 0;
    return n + k;
}

/* --- the enums' stored names ---------------------------------------------- */

static const char *const class_names[SCOPE_CC_CLASSES] = {
    [SCOPE_CC_NONE] = "none", [SCOPE_CC_SEND] = "send", [SCOPE_CC_RECV] = "recv",
    [SCOPE_CC_SENDRECV] = "sendrecv", [SCOPE_CC_PROBE] = "probe", [SCOPE_CC_START] = "start",
    [SCOPE_CC_WAIT] = "wait", [SCOPE_CC_TEST] = "test", [SCOPE_CC_REQUEST_FREE] = "request_free",
    [SCOPE_CC_COLLECTIVE] = "collective", [SCOPE_CC_NEIGHBOR] = "neighbor",
    [SCOPE_CC_ONE_SIDED] = "one_sided", [SCOPE_CC_WINDOW] = "window",
    [SCOPE_CC_WINDOW_SYNC] = "window_sync", [SCOPE_CC_COMM_NEW] = "comm_new",
    [SCOPE_CC_COMM_FREE] = "comm_free", [SCOPE_CC_FILE_IO] = "file_io",
    [SCOPE_CC_LIFECYCLE] = "lifecycle", [SCOPE_CC_OTHER] = "other",
    [SCOPE_CC_IO_OPEN] = "io_open", [SCOPE_CC_IO_CLOSE] = "io_close",
    [SCOPE_CC_IO_READ] = "io_read", [SCOPE_CC_IO_WRITE] = "io_write",
    [SCOPE_CC_IO_SEEK] = "io_seek", [SCOPE_CC_IO_TELL] = "io_tell",
    [SCOPE_CC_IO_STAT] = "io_stat", [SCOPE_CC_IO_SYNC] = "io_sync",
    [SCOPE_CC_IO_META] = "io_meta", [SCOPE_CC_IO_DUP] = "io_dup",
    [SCOPE_CC_IO_MMAP] = "io_mmap", [SCOPE_CC_IO_FDS] = "io_fds",
};
static const char *const form_names[SCOPE_CF_FORMS] = { "blocking", "nonblocking", "persistent",
                                                        "split_begin", "split_end" };
static const char *const paradigm_names[SCOPE_PARADIGMS] = { "none", "mpi", "posix", "stdio",
                                                             "mpiio", "hdf5" };
static const char *const mode_names[SCOPE_SM_MODES] = { "none", "standard", "sync", "buffered",
                                                        "ready" };
static const char *const sync_names[SCOPE_SYNC_PATTERNS] = { "none", "barrier", "nxn", "one2n",
                                                             "n2one", "other" };

const char *scope_call_class_name(int cls)
{
    return cls >= 0 && cls < SCOPE_CC_CLASSES ? class_names[cls] : NULL;
}

const char *scope_call_form_name(int form)
{
    return form >= 0 && form < SCOPE_CF_FORMS ? form_names[form] : NULL;
}

const char *scope_send_mode_name(int mode)
{
    return mode >= 0 && mode < SCOPE_SM_MODES ? mode_names[mode] : NULL;
}

const char *scope_coll_sync_name(int sync)
{
    return sync >= 0 && sync < SCOPE_SYNC_PATTERNS ? sync_names[sync] : NULL;
}

const char *scope_paradigm_name(int paradigm)
{
    return paradigm >= 0 && paradigm < SCOPE_PARADIGMS ? paradigm_names[paradigm] : NULL;
}

int scope_paradigm_of(const char *name)
{
    for (int p = 0; name && p < SCOPE_PARADIGMS; p++)
        if (strcmp(name, paradigm_names[p]) == 0)
            return p;
    return SCOPE_PARADIGM_NONE;
}

int scope_call_class_of(const char *name)
{
    for (int c = 0; name && c < SCOPE_CC_CLASSES; c++)
        if (strcmp(name, class_names[c]) == 0)
            return c;
    return SCOPE_CC_NONE;
}
