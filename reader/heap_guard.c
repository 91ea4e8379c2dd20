/*
 * heap_guard.c - an HDF5 file driver that sits between libhdf5 and the
 * driver the reader chose (core for a small file, sec2 for a large one)
 * and checks every global heap collection before libhdf5 uses it.
 *
 * Why: HDF5 keeps variable-length strings (scope's names, hosts, command
 * lines; every string h5py writes) in global heap collections. libhdf5
 * 1.10 trusts a collection's object sizes: an object whose size was
 * damaged runs past its collection, and H5HG_read copies that many bytes,
 * past the collection's buffer and into the caller's (found by
 * tests/fuzz's fuzz_reader: AddressSanitizer memcpy-param-overlap in
 * H5HG_read under scope_h5_string_attr_read; tests/reader/damaged/
 * vlen-global-heap.h5). The reader cannot see the collection through the
 * API before libhdf5 reads it, but every collection passes through the
 * file driver in a read that starts at its header ("GCOL", version 1):
 * here its objects are walked as libhdf5 will walk them, and a collection
 * whose objects do not fit inside it, or that claims to run past the end
 * of the file, fails that read, so libhdf5 reports an error instead of
 * copying. What was refused is kept per thread (scope__heap_guard_refused)
 * for the message.
 *
 * libhdf5 1.10 reads a collection as raw data (H5FD_MEM_DRAW), so any raw
 * read that starts with those 5 bytes is checked as a collection: a
 * dataset whose stored bytes start so and do not walk as a collection
 * would be refused too (a 2^-40 chance for arbitrary data). Raw reads
 * never go through libhdf5's metadata accumulator, so no collection
 * arrives inside a larger read; the inner driver's features all pass
 * through, and reading costs what it cost: one comparison of 5 bytes per
 * raw read, and a walk of each collection's object headers.
 *
 * What stays libhdf5's: a variable-length value's length is in the
 * attribute or dataset that refers to the object, which libhdf5 converts
 * without a hook; a length damaged to less than a whole object's size
 * larger than 4 KiB (libhdf5's smallest conversion buffer) is not seen
 * here.
 *
 * The layout of H5FD_class_t is libhdf5 1.10's and 1.12's; with a newer
 * libhdf5 (which checks collections itself) the guard is not built and
 * scope__heap_guard_fapl hands the driver back unchanged.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

#if H5_VERS_MAJOR == 1 && H5_VERS_MINOR <= 12
#define GUARD 1
#endif

static _Thread_local scope__heap_refusal last_refusal;

unsigned long scope__heap_guard_refused(scope__heap_refusal *out)
{
    if (out)
        *out = last_refusal;
    return last_refusal.count;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Whether the global heap collection whose first headlen bytes are
 * `head` is whole: its header sane, no larger than `room` (the bytes to
 * the end of the file), and each object's header and data inside it, as
 * libhdf5 1.10's H5HG deserializer walks it. `at` reads n bytes at offset
 * `off` of the collection, for object headers past `head`. Returns 0 with
 * *size = the collection's size, or -1 with *why saying what is wrong.
 * Cost: one step per object. */
static int collection_check(const uint8_t *head, size_t headlen, uint64_t room,
                            unsigned sizeof_len,
                            int (*at)(void *ctx, uint64_t off, uint8_t *buf, size_t n),
                            void *ctx, uint64_t *size, const char **why)
{
    /* header: "GCOL", version 1, 3 reserved bytes, the collection's size;
     * an object: index (2), references (2), reserved (4), size; each object
     * but the free space (index 0) is padded to 8 bytes */
    const uint64_t hdr = 8 + sizeof_len, objhdr = 8 + sizeof_len;
    *size = 0;
    if (headlen < hdr || memcmp(head, "GCOL", 4) != 0) {
        *why = "no collection header";
        return -1;
    }
    if (head[4] != 1) {
        *why = "unknown collection version";
        return -1;
    }
    uint64_t coll = le(head + 8, sizeof_len);
    *size = coll;
    if (coll < hdr || coll > room) {
        *why = coll < hdr ? "collection smaller than its header"
                          : "collection runs past the end of the file";
        return -1;
    }
    uint8_t buf[8 + 16];
    for (uint64_t p = hdr; p < coll;) {
        if (coll - p < objhdr)
            break;      /* too small for an object: libhdf5 calls it free space */
        const uint8_t *o;
        if (p + objhdr <= headlen) {
            o = head + p;
        } else {
            if (at(ctx, p, buf, (size_t)objhdr) < 0) {
                *why = "cannot read an object header";
                return -1;
            }
            o = buf;
        }
        unsigned idx = (unsigned)le(o, 2);
        uint64_t osize = le(o + 8, sizeof_len);
        uint64_t need;
        if (idx == 0) {         /* free space: its size includes its header */
            if (osize < objhdr) {
                *why = "free space smaller than its header";
                return -1;
            }
            need = osize;
        } else {
            if (osize > coll) {
                *why = "an object larger than its collection";
                return -1;
            }
            need = objhdr + ((osize + 7) & ~(uint64_t)7);
        }
        if (need > coll - p) {
            *why = "an object runs past the end of its collection";
            return -1;
        }
        p += need;
    }
    *why = NULL;
    return 0;
}

#ifdef GUARD

/* The driver's property: the driver it reads through, as plain values,
 * so that libhdf5's copies of a file access list (several per open) cost
 * a malloc, not a copy of a property list. */
typedef struct {
    int core;               /* 1: the core driver, else sec2 */
    size_t increment;       /* core: its arguments */
    hbool_t backing;
} guard_info;

#define CHECKED 8

typedef struct {
    H5FD_t pub;             /* first: libhdf5 sees an H5FD_t */
    H5FD_t *inner;
    guard_info info;        /* what opened it (external links open alike) */
    char path[256];         /* for messages, cut */
    unsigned sizeof_len;    /* the superblock's "size of lengths", 8 until read */
    haddr_t checked[CHECKED][2];    /* collections passed: [start, end) */
    unsigned nchecked;
} guard_file;

static hid_t guard_id = H5I_INVALID_HID;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

/* The inner drivers' access lists, made once per kind (sec2, and core
 * with each (increment, backing) asked for: the reader asks one) and
 * kept for the process. */
#define INNER_LISTS 4
static struct {
    guard_info info;
    hid_t fapl;
} inner_lists[INNER_LISTS];
static int ninner;
static pthread_mutex_t inner_lock = PTHREAD_MUTEX_INITIALIZER;

static hid_t inner_fapl(const guard_info *i)
{
    hid_t f = H5I_INVALID_HID;
    pthread_mutex_lock(&inner_lock);
    for (int k = 0; k < ninner && f < 0; k++)
        if (inner_lists[k].info.core == i->core && (!i->core ||
            (inner_lists[k].info.increment == i->increment &&
             inner_lists[k].info.backing == i->backing)))
            f = inner_lists[k].fapl;
    if (f < 0 && ninner < INNER_LISTS && (f = H5Pcreate(H5P_FILE_ACCESS)) >= 0) {
        if (i->core ? H5Pset_fapl_core(f, i->increment, i->backing) < 0
                    : H5Pset_fapl_sec2(f) < 0) {
            H5Pclose(f);
            f = H5I_INVALID_HID;
        } else {
            inner_lists[ninner].info = *i;
            inner_lists[ninner++].fapl = f;
        }
    }
    pthread_mutex_unlock(&inner_lock);
    return f;
}

static void *guard_fapl_copy(const void *old)
{
    guard_info *n = malloc(sizeof *n);
    if (n)
        *n = *(const guard_info *)old;
    return n;
}

static herr_t guard_fapl_free(void *info)
{
    free(info);
    return 0;
}

static void *guard_fapl_get(H5FD_t *f)
{
    return guard_fapl_copy(&((guard_file *)f)->info);
}

static H5FD_t *guard_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    const guard_info *info = H5Pget_driver_info(fapl);
    hid_t in = info ? inner_fapl(info) : H5I_INVALID_HID;
    if (in < 0)
        return NULL;
    guard_file *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    /* the inner open's own errors (no such file, ...) are the ones the
     * caller reads */
    if (!(g->inner = H5FDopen(name, flags, in, maxaddr))) {
        free(g);
        return NULL;
    }
    g->info = *info;
    snprintf(g->path, sizeof g->path, "%s", name);
    g->sizeof_len = 8;
    return &g->pub;
}

/* H5FDclose of the inner file keeps libhdf5's error stack: as an API
 * call it clears the stack, and libhdf5 closes a file that failed to open
 * (truncated, not HDF5) before the caller reads why. */
static herr_t guard_close(H5FD_t *f)
{
    guard_file *g = (guard_file *)f;
    hid_t keep = H5Eget_current_stack();
    herr_t rc = H5FDclose(g->inner);
    if (keep >= 0)
        H5Eset_current_stack(keep);     /* also closes it */
    free(g);
    return rc;
}

/* The rest goes straight to the inner driver's callbacks, not through the
 * H5FD* API calls, which would clear libhdf5's error stack on the way
 * (and check again what libhdf5 checked before calling this driver). The
 * inner file's base address is 0: libhdf5 keeps this driver's. */
#define INNER(f) (((const guard_file *)(f))->inner)

static int guard_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const H5FD_t *x = INNER(a), *y = INNER(b);
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->cls->cmp)
        return x->cls->cmp(x, y);
    return x < y ? -1 : x > y;
}

/* The inner driver's features; before a file is open (f NULL, libhdf5
 * asking the class), sec2's. */
static herr_t guard_query(const H5FD_t *f, unsigned long *flags)
{
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
             H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA;
    if (!f)
        return 0;
    *flags = 0;
    const H5FD_t *in = INNER(f);
    return in->cls->query ? in->cls->query(in, flags) : 0;
}

static haddr_t guard_get_eoa(const H5FD_t *f, H5FD_mem_t type)
{
    return INNER(f)->cls->get_eoa(INNER(f), type);
}

static herr_t guard_set_eoa(H5FD_t *f, H5FD_mem_t type, haddr_t addr)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->set_eoa(in, type, addr);
}

static haddr_t guard_get_eof(const H5FD_t *f, H5FD_mem_t type)
{
    return INNER(f)->cls->get_eof(INNER(f), type);
}

/* sec2's and core's get_handle read nothing of the list */
static herr_t guard_get_handle(H5FD_t *f, hid_t fapl, void **handle)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->get_handle ? in->cls->get_handle(in, fapl, handle) : -1;
}

typedef struct {
    guard_file *g;
    hid_t dxpl;
    haddr_t addr;
} reach;

static int read_at(void *ctx, uint64_t off, uint8_t *buf, size_t n)
{
    reach *r = ctx;
    H5FD_t *in = r->g->inner;
    return in->cls->read(in, H5FD_MEM_DRAW, r->dxpl, r->addr + off, n, buf) < 0 ? -1 : 0;
}

/* The superblock says how wide a length is; a collection's sizes are
 * that wide (8 in every file scope or h5py writes). */
static void note_superblock(guard_file *g, const uint8_t *b, size_t n)
{
    static const uint8_t sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    if (n < 16 || memcmp(b, sig, 8) != 0)
        return;
    unsigned len = b[8] <= 1 ? b[14] : b[8] <= 3 ? b[10] : 0;
    if (len == 2 || len == 4 || len == 8)
        g->sizeof_len = len;
}

static herr_t guard_read(H5FD_t *f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                         void *buf)
{
    guard_file *g = (guard_file *)f;
    if (g->inner->cls->read(g->inner, type, dxpl, addr, size, buf) < 0)
        return -1;
    if (type == H5FD_MEM_SUPER)
        note_superblock(g, buf, size);
    /* libhdf5 1.10 reads a collection as raw data (H5F_block_read maps
     * H5FD_MEM_GHEAP to H5FD_MEM_DRAW), in one read that starts at its
     * header: a raw read that starts with a collection's signature and
     * version is taken for one */
    if ((type != H5FD_MEM_DRAW && type != H5FD_MEM_GHEAP) || size < 5 ||
        memcmp(buf, "GCOL\1", 5) != 0)
        return 0;
    /* the rest of a collection whose start was checked (libhdf5 reads a
     * large one in two pieces) */
    for (unsigned i = 0; i < g->nchecked && i < CHECKED; i++)
        if (addr > g->checked[i][0] && addr < g->checked[i][1])
            return 0;
    haddr_t eoa = g->inner->cls->get_eoa(g->inner, type);
    reach r = { g, dxpl, addr };
    uint64_t coll;
    const char *why;
    if (collection_check(buf, size, eoa > addr ? eoa - addr : 0, g->sizeof_len,
                                     read_at, &r, &coll, &why) < 0) {
        last_refusal.count++;
        last_refusal.addr = (uint64_t)addr;
        snprintf(last_refusal.path, sizeof last_refusal.path, "%s", g->path);
        snprintf(last_refusal.why, sizeof last_refusal.why, "%s", why);
        memset(buf, 0, size);   /* nothing of it reaches libhdf5 */
        return -1;
    }
    g->checked[g->nchecked % CHECKED][0] = addr;
    g->checked[g->nchecked % CHECKED][1] = addr + coll;
    g->nchecked++;
    return 0;
}

static herr_t guard_write(H5FD_t *f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                          const void *buf)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->write ? in->cls->write(in, type, dxpl, addr, size, buf) : -1;
}

static herr_t guard_flush(H5FD_t *f, hid_t dxpl, hbool_t closing)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->flush ? in->cls->flush(in, dxpl, closing) : 0;
}

static herr_t guard_truncate(H5FD_t *f, hid_t dxpl, hbool_t closing)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->truncate ? in->cls->truncate(in, dxpl, closing) : 0;
}

static herr_t guard_lock(H5FD_t *f, hbool_t rw)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->lock ? in->cls->lock(in, rw) : 0;
}

static herr_t guard_unlock(H5FD_t *f)
{
    H5FD_t *in = ((guard_file *)f)->inner;
    return in->cls->unlock ? in->cls->unlock(in) : 0;
}

static const H5FD_class_t guard_class = {
    .name = "scope_heap_guard",
    .maxaddr = (haddr_t)INT64_MAX,
    .fc_degree = H5F_CLOSE_WEAK,
    .fapl_size = sizeof(guard_info),
    .fapl_get = guard_fapl_get,
    .fapl_copy = guard_fapl_copy,
    .fapl_free = guard_fapl_free,
    .open = guard_open,
    .close = guard_close,
    .cmp = guard_cmp,
    .query = guard_query,
    .get_eoa = guard_get_eoa,
    .set_eoa = guard_set_eoa,
    .get_eof = guard_get_eof,
    .get_handle = guard_get_handle,
    .read = guard_read,
    .write = guard_write,
    .flush = guard_flush,
    .truncate = guard_truncate,
    .lock = guard_lock,
    .unlock = guard_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

static void guard_register(void)
{
    guard_id = H5FDregister(&guard_class);
}

int scope__heap_guard_fapl(hid_t fapl)
{
    pthread_once(&guard_once, guard_register);
    if (guard_id < 0)
        return -1;
    guard_info info = { 0, 0, 0 };
    hid_t driver = H5Pget_driver(fapl);
    if (driver == H5FD_CORE) {
        info.core = 1;
        if (H5Pget_fapl_core(fapl, &info.increment, &info.backing) < 0)
            return -1;
    } else if (driver != H5FD_SEC2) {
        return 0;   /* a driver the guard does not wrap: left as it is */
    }
    return H5Pset_driver(fapl, guard_id, &info) < 0 ? -1 : 0;
}

#else

int scope__heap_guard_fapl(hid_t fapl)
{
    (void)fapl;
    return 0;
}

#endif
