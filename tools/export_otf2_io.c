/*
 * export_otf2_io.c - the I/O part of `scope export --to otf2`: each I/O
 * call (docs/io.md) as OTF2's I/O records, so Vampir, Scalasca and
 * otf2-print see files and bytes beside the MPI calls. Four I/O
 * paradigms (POSIX, ISOC for stdio, MPI-IO, HDF5), one IoRegularFile per
 * file of the run (the name `scope io` shows), one IoHandle per (file,
 * paradigm); within an I/O call's Enter and Leave, a read or write gets
 * IoOperationBegin (bytes requested: the bytes it moved) and
 * IoOperationComplete (bytes moved), an open IoCreateHandle, a close
 * IoDestroyHandle, a sync an IoOperationBegin/Complete of mode flush. A
 * call that failed keeps its Enter and Leave only. docs/export.md.
 * Only with SCOPE_HAVE_OTF2.
 */
#ifdef SCOPE_HAVE_OTF2

#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "io_cells.h"
#include "otf2_archive.h"
#include "scope_calls.h"
#include "scope_reader_io.h"

/* The OTF2 I/O paradigm of each layer: its ref is layer - SCOPE_IO_POSIX. */
static const struct {
    const char *id, *name;
    OTF2_IoParadigmClass cls;
} paradigms[] = {
    { "POSIX", "POSIX I/O", OTF2_IO_PARADIGM_CLASS_SERIAL },
    { "ISOC", "ISO C I/O", OTF2_IO_PARADIGM_CLASS_SERIAL },
    { "MPI-IO", "MPI I/O", OTF2_IO_PARADIGM_CLASS_PARALLEL },
    { "HDF5", "HDF5", OTF2_IO_PARADIGM_CLASS_PARALLEL },
};
#define NPARADIGMS 4

struct otf2_io {
    /* the run's files by name: an open-addressing table of indexes */
    char **names;
    int32_t nnames, capnames;
    int32_t *slots;             /* -1 empty */
    uint32_t nslots;
    /* handles: (file, paradigm) -> handle id + 1, 0 none */
    uint32_t *handle_of;        /* [capnames * NPARADIGMS] */
    int32_t *handle_file;       /* by handle */
    int8_t *handle_par;
    uint32_t nhandles, caphandles;
    /* the rank being written: its file rows -> run files, and per region
     * its I/O columns */
    int32_t *row_file;
    int nrows;
    scope_io_columns *cols;
    char *cols_state;
    int any;                    /* some call got I/O records */
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int grow_slots(struct otf2_io *io)
{
    uint32_t n = io->nslots ? io->nslots * 2 : 256;
    int32_t *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        s[i] = -1;
    for (int32_t f = 0; f < io->nnames; f++) {
        uint32_t k = (uint32_t)hash(io->names[f]) & (n - 1);
        while (s[k] >= 0)
            k = (k + 1) & (n - 1);
        s[k] = f;
    }
    free(io->slots);
    io->slots = s;
    io->nslots = n;
    return 0;
}

/* The run file named `name`, added when new: its index, or -1 (memory). */
static int32_t file_of(struct otf2_io *io, const char *name)
{
    if ((uint32_t)io->nnames * 2 >= io->nslots && grow_slots(io) < 0)
        return -1;
    uint32_t k = (uint32_t)hash(name) & (io->nslots - 1);
    for (; io->slots[k] >= 0; k = (k + 1) & (io->nslots - 1))
        if (!strcmp(io->names[io->slots[k]], name))
            return io->slots[k];
    if (io->nnames == io->capnames) {
        int32_t nc = io->capnames ? io->capnames * 2 : 64;
        char **q = realloc(io->names, (size_t)nc * sizeof *q);
        if (!q)
            return -1;
        io->names = q;
        uint32_t *h = realloc(io->handle_of, (size_t)nc * NPARADIGMS * sizeof *h);
        if (!h)
            return -1;
        memset(h + (size_t)io->capnames * NPARADIGMS, 0,
               (size_t)(nc - io->capnames) * NPARADIGMS * sizeof *h);
        io->handle_of = h;
        io->capnames = nc;
    }
    if (!(io->names[io->nnames] = strdup(name)))
        return -1;
    io->slots[k] = io->nnames;
    return io->nnames++;
}

/* The handle of (run file, paradigm), made when new; UINT32_MAX (memory). */
static uint32_t handle_of(struct otf2_io *io, int32_t file, int par)
{
    uint32_t *h = &io->handle_of[(size_t)file * NPARADIGMS + (size_t)par];
    if (*h)
        return *h - 1;
    if (io->nhandles == io->caphandles) {
        uint32_t nc = io->caphandles ? io->caphandles * 2 : 64;
        int32_t *f = realloc(io->handle_file, nc * sizeof *f);
        if (!f)
            return UINT32_MAX;
        io->handle_file = f;
        int8_t *p = realloc(io->handle_par, nc);
        if (!p)
            return UINT32_MAX;
        io->handle_par = p;
        io->caphandles = nc;
    }
    io->handle_file[io->nhandles] = file;
    io->handle_par[io->nhandles] = (int8_t)par;
    *h = ++io->nhandles;
    return *h - 1;
}

int scope__otf2_io_classify(scope_profile *p, int r, region_info *ri)
{
    const struct scope_call_row *c =
        scope_call_at(scope_call_id_of(scope_profile_region_operation(p, r)));
    int layer = scope_region_io_layer(scope_profile_region_name(p, r));
    if (layer < SCOPE_IO_POSIX || layer > SCOPE_IO_HDF5 || !scope_call_class_is_io(c->cls))
        return 0;
    ri->io_layer = layer;
    ri->io_cls = c->cls;
    ri->io_flags = OTF2_IO_OPERATION_FLAG_NONE;
    if (c->form == SCOPE_CF_NONBLOCKING)
        ri->io_flags |= OTF2_IO_OPERATION_FLAG_NON_BLOCKING;
    if (c->io & SCOPE_IOF_COLL)
        ri->io_flags |= OTF2_IO_OPERATION_FLAG_COLLECTIVE;
    ri->role = c->cls == SCOPE_CC_IO_READ || c->cls == SCOPE_CC_IO_WRITE
                   ? OTF2_REGION_ROLE_FILE_IO : OTF2_REGION_ROLE_FILE_IO_METADATA;
    return 1;
}

int scope__otf2_io_begin(otf2x *x)
{
    if (!(x->io = calloc(1, sizeof *x->io)))
        return scope__otf2_oom();
    size_t nr = (size_t)(x->nregions ? x->nregions : 1);
    x->io->cols = calloc(nr, sizeof *x->io->cols);
    x->io->cols_state = calloc(nr, 1);
    if (!x->io->cols || !x->io->cols_state)
        return scope__otf2_oom();
    return 0;
}

int scope__otf2_io_rank(otf2x *x)
{
    struct otf2_io *io = x->io;
    memset(io->cols_state, 0, (size_t)x->nregions);
    io->nrows = 0;
    free(io->row_file);
    io->row_file = NULL;
    scope_io_files f;
    if (!scope_profile_has_io(x->p))
        return 0;
    if (scope_profile_io_files(x->p, x->rank, &f) < 0)
        return scope__fail_msg(scope_reader_errmsg()), -1;
    if (f.n > 0 && !(io->row_file = malloc((size_t)f.n * sizeof *io->row_file)))
        return scope__otf2_oom();
    for (int i = 0; i < f.n; i++) {
        /* the name `scope io` shows */
        char *name = scope__io_row_name(&f, i);
        io->row_file[i] = name ? file_of(io, name) : -1;
        free(name);
        if (io->row_file[i] < 0)
            return scope__otf2_oom();
    }
    io->nrows = f.n;
    return 0;
}

/* The handle of call `call` of I/O region `region` on the current rank,
 * and its bytes; 0, or 1 when it gets no I/O records (failed, no file, no
 * columns), -1 on error (said). */
static int call_handle(otf2x *x, int region, int64_t call, uint32_t *h, uint64_t *bytes)
{
    struct otf2_io *io = x->io;
    scope_io_columns *c = &io->cols[region];
    if (!io->cols_state[region]) {
        io->cols_state[region] = 1;
        if (scope_profile_io_columns(x->p, region, x->rank, c) < 0)
            return scope__fail_msg(scope_reader_errmsg()), -1;
    }
    if (!c->file || !c->bytes || call < 0 || call >= c->n ||
        (c->failed && c->failed[call]))
        return 1;
    int32_t row = c->file[call];
    if (row < 0 || row >= io->nrows)
        return 1;
    *h = handle_of(io, io->row_file[row], x->ri[region].io_layer - SCOPE_IO_POSIX);
    if (*h == UINT32_MAX)
        return scope__otf2_oom();
    *bytes = c->bytes[call] > 0 ? (uint64_t)c->bytes[call] : 0;
    return 0;
}

/* The operation mode of a data or sync class; -1 for the others. */
static int op_mode(int cls)
{
    return cls == SCOPE_CC_IO_READ ? OTF2_IO_OPERATION_MODE_READ
           : cls == SCOPE_CC_IO_WRITE ? OTF2_IO_OPERATION_MODE_WRITE
           : cls == SCOPE_CC_IO_SYNC ? OTF2_IO_OPERATION_MODE_FLUSH : -1;
}

/* What call c's I/O records need. */
struct io_op {
    int mode;                   /* its operation mode, -1 for none */
    uint32_t h;                 /* its handle */
    uint64_t bytes;
    uint64_t id;                /* of the call on its location: its index in the
                                   region's calls, which Complete at its Leave
                                   finds again */
};

/* Fills *o for call c. Returns 1 to write its records; 0 when it gets
 * none (not an operation, nor with open_close an open or a close; or no
 * handle, as call_handle says); -1 on error (said). */
static int io_call(otf2x *x, const scope_call *c, int open_close, struct io_op *o)
{
    int cls = x->ri[c->region].io_cls;
    o->mode = op_mode(cls);
    o->h = 0;
    o->bytes = 0;
    o->id = ((uint64_t)c->region << 40) | (uint64_t)c->call_index;
    if (o->mode < 0 && !(open_close && (cls == SCOPE_CC_IO_OPEN || cls == SCOPE_CC_IO_CLOSE)))
        return 0;
    int rc = call_handle(x, c->region, c->call_index, &o->h, &o->bytes);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    x->io->any = 1;
    return 1;
}

int scope__otf2_io_enter(otf2x *x, const scope_call *c, uint64_t t)
{
    struct io_op o;
    int rc = io_call(x, c, 0, &o);
    if (rc <= 0)
        return rc;
    return scope__otf2_event(x, "IoOperationBegin", OTF2_EvtWriter_IoOperationBegin(x->w, NULL,
                                t, o.h, (OTF2_IoOperationMode)o.mode,
                                (OTF2_IoOperationFlag)x->ri[c->region].io_flags, o.bytes,
                                o.id));
}

int scope__otf2_io_leave(otf2x *x, const scope_call *c, uint64_t t)
{
    struct io_op o;
    int rc = io_call(x, c, 1, &o);
    if (rc <= 0)
        return rc;
    if (o.mode >= 0)
        return scope__otf2_event(x, "IoOperationComplete",
                                 OTF2_EvtWriter_IoOperationComplete(x->w, NULL, t, o.h, o.bytes,
                                                                    o.id));
    if (x->ri[c->region].io_cls == SCOPE_CC_IO_OPEN)
        return scope__otf2_event(x, "IoCreateHandle", OTF2_EvtWriter_IoCreateHandle(x->w, NULL,
                                    t, o.h, OTF2_IO_ACCESS_MODE_READ_WRITE,
                                    OTF2_IO_CREATION_FLAG_NONE, OTF2_IO_STATUS_FLAG_NONE));
    return scope__otf2_event(x, "IoDestroyHandle",
                             OTF2_EvtWriter_IoDestroyHandle(x->w, NULL, t, o.h));
}

int scope__otf2_io_defs(otf2x *x, OTF2_GlobalDefWriter *g)
{
    struct otf2_io *io = x->io;
    if (!io || !io->nhandles)
        return 0;
    uint32_t s1, s2;
    for (int k = 0; k < NPARADIGMS; k++) {
        if (scope__otf2_string(x, g, paradigms[k].id, &s1) < 0 ||
            scope__otf2_string(x, g, paradigms[k].name, &s2) < 0)
            return -1;
        if (scope__otf2_ok(x, "WriteIoParadigm", OTF2_GlobalDefWriter_WriteIoParadigm(g,
               (OTF2_IoParadigmRef)k, s1, s2, paradigms[k].cls, OTF2_IO_PARADIGM_FLAG_NONE,
               0, NULL, NULL, NULL)) < 0)
            return -1;
    }
    /* the files handles name, in the order first met */
    uint32_t *fstr = malloc((size_t)(io->nnames ? io->nnames : 1) * sizeof *fstr);
    char *used = calloc((size_t)(io->nnames ? io->nnames : 1), 1);
    int rc = -1;
    if (!fstr || !used) {
        scope__otf2_oom();
        goto fail;
    }
    for (uint32_t h = 0; h < io->nhandles; h++)
        used[io->handle_file[h]] = 1;
    for (int32_t f = 0; f < io->nnames; f++) {
        if (!used[f])
            continue;
        if (scope__otf2_string(x, g, io->names[f], &fstr[f]) < 0)
            goto fail;
        if (scope__otf2_ok(x, "WriteIoRegularFile", OTF2_GlobalDefWriter_WriteIoRegularFile(g,
               (OTF2_IoFileRef)f, fstr[f], 0)) < 0)
            goto fail;
    }
    for (uint32_t h = 0; h < io->nhandles; h++) {
        int32_t f = io->handle_file[h];
        if (scope__otf2_ok(x, "WriteIoHandle", OTF2_GlobalDefWriter_WriteIoHandle(g, h, fstr[f],
               (OTF2_IoFileRef)f, (OTF2_IoParadigmRef)io->handle_par[h],
               OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE)) < 0)
            goto fail;
    }
    rc = 0;
fail:
    free(fstr);
    free(used);
    return rc;
}

void scope__otf2_io_free(otf2x *x)
{
    struct otf2_io *io = x->io;
    if (!io)
        return;
    for (int32_t f = 0; f < io->nnames; f++)
        free(io->names[f]);
    free(io->names);
    free(io->slots);
    free(io->handle_of);
    free(io->handle_file);
    free(io->handle_par);
    free(io->row_file);
    free(io->cols);
    free(io->cols_state);
    free(io);
    x->io = NULL;
}

#endif /* SCOPE_HAVE_OTF2 */
