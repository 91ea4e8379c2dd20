/*
 * io_hook.c - the I/O capture as the interposition engine sees it
 * (engine/capture.h): the functions it times in every process that
 * records (`defaults`: every row of format/calls_io.def, MPI-IO's in each
 * binding's spelling), which functions it owns (`claim`: an I/O row,
 * whatever entry matched it, MPI_File_* under `MPI_*` included), and its
 * hot path, which dispatches each call to its layer's file (io_posix.c,
 * io_stdio.c, io_mpiio.c, io_hdf5.c) after the rules every layer shares:
 *
 *   - nothing is recorded before the process records for a reason of its
 *     own (MPI_Init, or the config naming something in it: the lifecycle
 *     says SCOPE_LIFECYCLE_RECORDS, ../lifecycle.h), so a shell or
 *     `hostname` under the preload still writes nothing;
 *   - a call of a layer made inside another call of the same layer is not
 *     recorded (stat calls fstatat, creat calls open, H5Dwrite calls
 *     itself), except the C call an MPI-IO Fortran binding makes, which is
 *     followed to read its arguments;
 *   - POSIX and stdio calls made while an MPI call (MPI_Init & co, or any
 *     timed MPI call but MPI-IO's) runs on the thread are the MPI
 *     library's own, not recorded, but for those on a descriptor MPI-IO
 *     opened (a nonblocking MPI-IO call completed inside MPI_Wait).
 *
 * The capture is linked before the MPI capture (preload/meson.build), so
 * that its claim of MPI_File_* comes first.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "io_data.h"
#include "io_files.h"
#include "io_state.h"
#include "lent.h"
#include "lifecycle.h"
#include "scope_format.h"

__thread struct scope__io_tls scope__io_tls __attribute__((tls_model("initial-exec")));
_Atomic int scope__io_live;
static int enabled;             /* the config turned it on and the tables exist */

/* The lifecycle's word (../lifecycle.h): the process records for a
 * reason of its own from now on. Recording stopping changes nothing here:
 * the recorder itself drops what comes after it finished. */
static void on_lifecycle(enum scope__lifecycle_event ev)
{
    if (ev == SCOPE_LIFECYCLE_RECORDS && enabled)
        atomic_store(&scope__io_live, 1);
}

/* --- which functions ------------------------------------------------------ */

/* The names MPI-IO row `name` (MPI_File_write) is spelt by: C, its _c
 * form, and the Fortran bindings (gfortran's mpi_file_write_, g77's
 * mpi_file_write__, MPICH's MPI_FILE_WRITE, the f08 module's
 * mpi_file_write_f08 and mpi_file_write_f08ts_). Adds them to v from *n;
 * returns 0 or -1 (out of memory). */
static int mpiio_spellings(const char *name, int has_count, const char **v, size_t *n)
{
    char low[96], up[96];
    size_t l = strlen(name);
    if (l >= sizeof low)
        return 0;
    for (size_t i = 0; i <= l; i++) {
        low[i] = (char)tolower((unsigned char)name[i]);
        up[i] = (char)toupper((unsigned char)name[i]);
    }
    static const char *const suffix[] = { "", "_c", "_", "__", "", "_f08", "_f08ts_", "_c_" };
    const char *base[] = { name, name, low, low, up, low, low, low };
    for (int k = 0; k < 8; k++) {
        if (!has_count && (k == 1 || k == 7))
            continue;
        size_t sl = strlen(suffix[k]);
        char *s = malloc(l + sl + 1);
        if (!(v[(*n)++] = s))
            return -1;
        memcpy(s, base[k], l);
        memcpy(s + l, suffix[k], sl + 1);
    }
    return 0;
}

static const char *const *defaults(const scope_config *cfg, int *kind)
{
    static const char **list;
    if (!cfg || !cfg->io)
        return NULL;
    if (!list) {
        if (scope__io_files_init(cfg) < 0)
            return NULL;
        const char **v = calloc((size_t)SCOPE_CALLS * 8 + 1, sizeof *v);
        size_t n = 0;
        for (int id = 1; v && id < SCOPE_CALLS; id++) {
            const struct scope_call_row *c = &scope_calls[id];
            if (!scope_paradigm_is_io(c->paradigm))
                continue;
            if (c->paradigm != SCOPE_PARADIGM_MPIIO) {
                v[n++] = c->name;
                continue;
            }
            if (mpiio_spellings(c->name, scope_call_arg(c, SCOPE_ARG_count) >= 0, v, &n) < 0)
                return NULL;
        }
        list = v;
        enabled = list != NULL;
    }
    *kind = SCOPE_KIND_IO;
    return list;
}

/* Every I/O row's function, whatever entry matched it: an `MPI_*` glob's
 * MPI_File_write is MPI-IO's. */
static int claim(const char *symbol, struct scope__claim *c)
{
    if (!enabled)
        return 0;
    struct scope_call_name nm;
    int id = scope_call_parse(symbol, &nm);
    const struct scope_call_row *row = scope_call_at(id);
    if (!id || !scope_paradigm_is_io(row->paradigm) || nm.profiling)
        return 0;
    c->kind = SCOPE_KIND_IO;
    c->op = (uint32_t)id | scope__io_data_path(row) | (nm.fortran ? SCOPE_IO_OP_FORTRAN : 0) |
            (nm.big ? SCOPE_IO_OP_BIG : 0);
    /* a Fortran binding under its C name, so that C and Fortran programs
     * give the same regions (the MPI capture does the same) */
    if (!c->named && nm.fortran)
        snprintf(c->region, sizeof c->region, "%s%s", row->name, nm.big ? "_c" : "");
    return 1;
}

/* --- the hot path --------------------------------------------------------- */

/* 1 when POSIX call `call` is the MPI library's own business
 * (scope__io_mpi_library_call). */
static int mpi_library_call(int call, uint64_t *saved, uintptr_t *slot)
{
    const struct scope_call_row *c = &scope_calls[call];
    int i = scope_call_arg(c, SCOPE_ARG_fd);
    return scope__io_mpi_library_call(
        c, i >= 0, i < 0 ? -1 : (int64_t)(int32_t)scope__io_arg(saved, slot, i));
}

static int enter_general(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    if (!atomic_load_explicit(&scope__io_live, memory_order_relaxed))
        return SCOPE_CAPTURE_SKIP;
    struct scope__io_tls *t = &scope__io_tls;
    int call = (int)(op & SCOPE_IO_OP_ROW);
    int layer = scope_calls[call].paradigm;
    if (t->depth >= SCOPE_IO_MAX_FRAMES)
        return SCOPE_CAPTURE_SKIP;
    if (layer == SCOPE_PARADIGM_MPIIO)
        return scope__io_mpiio_enter(op, saved, slot);
    if (t->open[layer])
        return SCOPE_CAPTURE_SKIP;      /* a call of one layer inside another of it */
    if (layer == SCOPE_PARADIGM_POSIX || layer == SCOPE_PARADIGM_STDIO) {
        /* the MPI library's own files and streams (not MPI-IO's) */
        if (scope__io_in_mpi(t) &&
            (layer == SCOPE_PARADIGM_STDIO || mpi_library_call(call, saved, slot)))
            return SCOPE_CAPTURE_SKIP;
        return layer == SCOPE_PARADIGM_POSIX ? scope__io_posix_enter(call, saved, slot)
                                             : scope__io_stdio_enter(call, saved, slot);
    }
    return scope__io_hdf5_enter(call, saved, slot);
}

/* The data calls take a path of their own (io_data.c), each a jump. */
static int io_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    if (op & SCOPE_IO_OP_DATA_STDIO)
        return scope__io_stdio_data_enter(op, saved, slot);
    if (op & SCOPE_IO_OP_DATA_POSIX)
        return scope__io_posix_data_enter(op, saved, slot);
    return enter_general(op, saved, slot);
}

static void io_exit(uint32_t op, uint64_t ret, int followed)
{
    (void)followed;
    /* the data paths' calls: their enter pushed the newest frame */
    if (op & SCOPE_IO_OP_DATA_STDIO) {
        scope__io_stdio_data_exit(ret);
        return;
    }
    if (op & SCOPE_IO_OP_DATA_POSIX) {
        scope__io_posix_data_exit(ret);
        return;
    }
    struct scope__io_tls *t = &scope__io_tls;
    if (!t->depth)
        return;
    switch (scope__io_top()->layer) {
    case SCOPE_PARADIGM_POSIX:
        scope__io_posix_exit(ret);
        return;
    case SCOPE_PARADIGM_STDIO:
        scope__io_stdio_exit(ret);
        return;
    case SCOPE_PARADIGM_MPIIO:
        scope__io_mpiio_exit(ret);
        return;
    default:
        scope__io_hdf5_exit(ret);
        return;
    }
}

/* Closed without returning (longjmp, an exception, exit with it open):
 * nothing of the call is recorded. */
static void drop(uint32_t op, int followed)
{
    (void)op;
    (void)followed;
    struct scope__io_tls *t = &scope__io_tls;
    if (!t->depth)
        return;
    if ((scope__io_top()->flags & SCOPE_IO_F_MPI) && scope__mpi_lent)
        scope__mpi_lent->foreign_leave();
    scope__io_pop();
}

static const struct scope__capture io_capture = {
    .name = "io",
    .defaults = defaults,
    .claim = claim,
    .enter = io_enter,
    .exit = io_exit,
    .drop = drop,
};

__attribute__((constructor(SCOPE_CAPTURE_CTOR_PRIORITY))) static void register_io(void)
{
    scope__capture_register(&io_capture);
    scope__lifecycle_watch(on_lifecycle);
}
