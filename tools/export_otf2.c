/*
 * export_otf2.c - `scope export --to otf2 -o DIR`: the profile as an OTF2
 * archive, the trace format Vampir, Scalasca, Pipit and Score-P read,
 * written through libotf2 (never a hand-made encoder, so the archive is
 * what those tools expect byte for byte).
 *
 * It streams: rank by rank (one call stack in memory), and within a rank
 * lane by lane (one libotf2 event writer open at a time, closed before
 * the next), so memory is bounded by the largest rank, not the run.
 * Definitions (regions, system tree, locations with their event counts,
 * communicators) are written last, once every event is out.
 *
 * docs/export.md says what the archive holds and how scope's concepts map
 * to OTF2's: locations, region roles, the unwound attribute, MPI records.
 */
#include "export_otf2.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "event_output.h"
#include "scope_calls.h"
#include "scope_format.h"
#include "scope_reader_comm.h"
#include "scope_reader_io.h"

#ifndef SCOPE_HAVE_OTF2

int scope__otf2_available(void)
{
    return 0;
}

int scope__export_otf2(scope_profile *p, const char *dir)
{
    (void)p;
    (void)dir;
    return scope__fail_msg("export: scope was built without OTF2 (install "
                           "libopen-trace-format2-dev and rebuild: "
                           "tools/install-deps.sh build)");
}

#else

#include <otf2/otf2.h>

#include "otf2_archive.h"

int scope__otf2_available(void)
{
    return 1;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
                                void *cd, bool final)
{
    (void)ud;
    (void)ft;
    (void)loc;
    (void)cd;
    (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_cbs = { pre_flush, NULL };

/* ------------------------------------------------------------------ */
/* Regions                                                             */

/* The OTF2 operation of each collective operation of the vocabulary
 * (scope_calls.h); the neighbourhood collectives have none in OTF2. */
static const struct {
    uint8_t known;
    OTF2_CollectiveOp op;
} otf2_op[SCOPE_COLL_OPS] = {
    [SCOPE_COLL_OP_BARRIER] = { 1, OTF2_COLLECTIVE_OP_BARRIER },
    [SCOPE_COLL_OP_BCAST] = { 1, OTF2_COLLECTIVE_OP_BCAST },
    [SCOPE_COLL_OP_GATHER] = { 1, OTF2_COLLECTIVE_OP_GATHER },
    [SCOPE_COLL_OP_GATHERV] = { 1, OTF2_COLLECTIVE_OP_GATHERV },
    [SCOPE_COLL_OP_SCATTER] = { 1, OTF2_COLLECTIVE_OP_SCATTER },
    [SCOPE_COLL_OP_SCATTERV] = { 1, OTF2_COLLECTIVE_OP_SCATTERV },
    [SCOPE_COLL_OP_ALLGATHER] = { 1, OTF2_COLLECTIVE_OP_ALLGATHER },
    [SCOPE_COLL_OP_ALLGATHERV] = { 1, OTF2_COLLECTIVE_OP_ALLGATHERV },
    [SCOPE_COLL_OP_ALLTOALL] = { 1, OTF2_COLLECTIVE_OP_ALLTOALL },
    [SCOPE_COLL_OP_ALLTOALLV] = { 1, OTF2_COLLECTIVE_OP_ALLTOALLV },
    [SCOPE_COLL_OP_ALLTOALLW] = { 1, OTF2_COLLECTIVE_OP_ALLTOALLW },
    [SCOPE_COLL_OP_REDUCE] = { 1, OTF2_COLLECTIVE_OP_REDUCE },
    [SCOPE_COLL_OP_ALLREDUCE] = { 1, OTF2_COLLECTIVE_OP_ALLREDUCE },
    [SCOPE_COLL_OP_REDUCE_SCATTER] = { 1, OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
    [SCOPE_COLL_OP_REDUCE_SCATTER_BLOCK] = { 1, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
    [SCOPE_COLL_OP_SCAN] = { 1, OTF2_COLLECTIVE_OP_SCAN },
    [SCOPE_COLL_OP_EXSCAN] = { 1, OTF2_COLLECTIVE_OP_EXSCAN },
};

/* The role Score-P gives a collective, by what a wait in it means. */
static const OTF2_RegionRole coll_role[SCOPE_SYNC_PATTERNS] = {
    [SCOPE_SYNC_NONE] = OTF2_REGION_ROLE_FUNCTION,
    [SCOPE_SYNC_BARRIER] = OTF2_REGION_ROLE_BARRIER,
    [SCOPE_SYNC_NXN] = OTF2_REGION_ROLE_COLL_ALL2ALL,
    [SCOPE_SYNC_ONE2N] = OTF2_REGION_ROLE_COLL_ONE2ALL,
    [SCOPE_SYNC_N2ONE] = OTF2_REGION_ROLE_COLL_ALL2ONE,
    [SCOPE_SYNC_OTHER] = OTF2_REGION_ROLE_COLL_OTHER,
};

/* Fills *ri for region r from what the profile says it is
 * (scope_profile_region_operation(), the vocabulary's row): MPI calls get
 * paradigm MPI and the role and records Score-P gives them; another
 * function with an MPI C name is an MPI function without records;
 * everything else is a function of the program (the reader does not say
 * which regions were manual). */
static void classify(scope_profile *p, int r, region_info *ri)
{
    const char *name = scope_profile_region_name(p, r);
    memset(ri, 0, sizeof *ri);
    ri->kind = MK_NONE;
    ri->role = OTF2_REGION_ROLE_FUNCTION;
    ri->paradigm = OTF2_PARADIGM_USER;
    if (scope__otf2_omp_classify(name, ri))
        return;
    if (scope__otf2_io_classify(p, r, ri)) {
        if (ri->io_layer == SCOPE_IO_MPIIO)
            ri->paradigm = OTF2_PARADIGM_MPI;
        return;
    }
    if (name && !strcmp(name, SCOPE_MPI_SPAN_REGION)) {
        /* the preload's span of the MPI part of the run, not an MPI call:
         * tools that sort time by paradigm must not count it as MPI */
        ri->role = OTF2_REGION_ROLE_ARTIFICIAL;
        ri->paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
        return;
    }
    const struct scope_call_row *c =
        scope_call_at(scope_call_id_of(scope_profile_region_operation(p, r)));
    if (c->paradigm != SCOPE_PARADIGM_MPI) {
        if (name && scope_call_is_mpi_c_name(name))
            ri->paradigm = OTF2_PARADIGM_MPI;
        return;
    }
    ri->paradigm = OTF2_PARADIGM_MPI;
    if (c->form == SCOPE_CF_PERSISTENT)
        return;     /* an init: each start moves */
    int nb = c->form == SCOPE_CF_NONBLOCKING;
    switch (c->cls) {
    case SCOPE_CC_SEND:
        ri->kind = nb ? MK_ISEND : MK_SEND;
        break;
    case SCOPE_CC_RECV:
        ri->kind = nb ? MK_IRECV : MK_RECV;
        break;
    case SCOPE_CC_SENDRECV:
        /* a nonblocking one's two ends share one request: no records yet */
        ri->kind = nb ? MK_NONE : MK_SENDRECV;
        break;
    case SCOPE_CC_START:
        ri->kind = scope_call_arg(c, SCOPE_ARG_requests) >= 0 ? MK_STARTALL : MK_START;
        break;
    case SCOPE_CC_COLLECTIVE:
        if (!otf2_op[c->coll].known)
            return;
        ri->kind = MK_COLL;
        ri->op = otf2_op[c->coll].op;
        ri->rooted = scope_call_coll(c)->rooted;
        ri->role = coll_role[scope_call_coll(c)->sync];
        return;
    default:
        return;
    }
    ri->role = OTF2_REGION_ROLE_POINT2POINT;
}

/* ------------------------------------------------------------------ */
/* The output folder                                                   */

/* Makes `dir` ready: an existing folder must be empty and writable, a
 * missing one is created (its parent must exist). Sets *created. 0, or
 * -1 after printing what is wrong. */
static int prepare_dir(const char *dir, int *created)
{
    char m[600];
    struct stat st;
    *created = 0;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(m, sizeof m, "export: %s: exists and is not a folder "
                     "(--to otf2 writes a folder: give a new or an empty one)",
                     dir);
            return scope__fail_msg(m), -1;
        }
        DIR *d = opendir(dir);
        if (!d) {
            snprintf(m, sizeof m, "export: %s: cannot read the folder: %s", dir,
                     strerror(errno));
            return scope__fail_msg(m), -1;
        }
        struct dirent *e;
        int empty = 1;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                empty = 0;
        closedir(d);
        if (!empty) {
            snprintf(m, sizeof m, "export: %s: the folder is not empty (an OTF2 "
                     "archive is a folder of its own: give a new or an empty "
                     "one)", dir);
            return scope__fail_msg(m), -1;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            snprintf(m, sizeof m, "export: %s: cannot write into the folder: %s",
                     dir, strerror(errno));
            return scope__fail_msg(m), -1;
        }
        return 0;
    }
    if (errno != ENOENT || mkdir(dir, 0777) != 0) {
        snprintf(m, sizeof m, "export: %s: cannot create the folder: %s", dir,
                 strerror(errno));
        return scope__fail_msg(m), -1;
    }
    *created = 1;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *f)
{
    (void)st;
    (void)flag;
    if (f->level > 0)
        remove(path);
    return 0;
}

/* After a failure: removes what the export wrote into `dir` (it was empty
 * or new), and `dir` itself when the export made it. */
static void unwrite_dir(const char *dir, int created)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (created)
        rmdir(dir);
}

/* ------------------------------------------------------------------ */
/* Communicators                                                       */

/* Loads the rank's communicator rows: their OTF2 comm, the run's
 * communicator (scope_profile_run_comm_ids: the numbering `scope waits`
 * uses too), and per row the rank in the communicator of every world
 * rank. Intercommunicators and rows with an unknown member (-1) are not
 * exported (their calls keep their enter/leave, without MPI records).
 * 0 or -1. */
static int load_comms(otf2x *x)
{
    scope_communicators cm;
    const int32_t *ids;
    int nids;
    int rc = scope_profile_communicators(x->p, x->rank, &cm);
    if (rc == 0)
        rc = scope_profile_run_comm_ids(x->p, x->rank, &ids, &nids);
    if (rc < 0)
        return scope__fail_msg(scope_reader_errmsg()), -1;
    if (nids != cm.n)
        return scope__fail_msg("export: the communicator tables changed while reading"), -1;
    x->nrows = cm.n;
    x->row_comm = malloc((size_t)(cm.n ? cm.n : 1) * sizeof *x->row_comm);
    x->row_inv = malloc((size_t)(cm.n ? cm.n : 1) * (size_t)(x->world ? x->world : 1) *
                        sizeof *x->row_inv);
    if (!x->row_comm || !x->row_inv)
        return scope__otf2_oom();
    for (int r = 0; r < cm.n; r++) {
        int32_t *inv = x->row_inv + (size_t)r * (size_t)x->world;
        for (int i = 0; i < x->world; i++)
            inv[i] = -1;
        x->row_comm[r] = OTF2_UNDEFINED_COMM;
        const int32_t *mem = cm.members + cm.members_start[r];
        int32_t n = cm.size[r];
        int ok = cm.remote_size[r] == 0 &&
                 cm.members_start[r + 1] - cm.members_start[r] == n;
        for (int32_t i = 0; ok && i < n; i++)
            if (mem[i] < 0 || mem[i] >= x->world || inv[mem[i]] >= 0)
                ok = 0;
            else
                inv[mem[i]] = i;
        if (!ok || ids[r] < 0 || ids[r] >= x->nruncomms)
            continue;
        x->row_comm[r] = (uint32_t)ids[r];
        x->comm_used[ids[r]] = 1;
    }
    return 0;
}

/* The OTF2 comm of row `row`, UNDEFINED when it is not exported. */
static uint32_t row_comm(const otf2x *x, int32_t row)
{
    return row >= 0 && row < x->nrows ? x->row_comm[row] : OTF2_UNDEFINED_COMM;
}

/* World rank -> rank in the communicator of row `row` (exported), or
 * UINT32_MAX when it is not a member (or no rank). */
static uint32_t comm_rank(const otf2x *x, int32_t row, int32_t world)
{
    if (world < 0 || world >= x->world)
        return UINT32_MAX;
    int32_t r = x->row_inv[(size_t)row * (size_t)x->world + (size_t)world];
    return r < 0 ? UINT32_MAX : (uint32_t)r;
}

/* ------------------------------------------------------------------ */
/* Per-rank data: what calls moved, their unwound flags, requests      */

/* The data columns of `region` on the current rank, NULL when it has
 * none. The reader keeps them until close. */
static const scope_moved *moved(otf2x *x, int region)
{
    if (!x->mv_state[region]) {
        x->mv_state[region] = 1;
        if (scope_profile_moved(x->p, region, x->rank, &x->mv[region]) < 0)
            memset(&x->mv[region], 0, sizeof x->mv[region]);
    }
    return x->mv[region].bytes_sent ? &x->mv[region] : NULL;
}

static int unwound(otf2x *x, int region, int64_t call)
{
    if (!x->unw_state[region]) {
        int64_t n;
        x->unw_state[region] = 1;
        if (scope_profile_unwound(x->p, region, x->rank, &x->unw[region], &n) < 0)
            x->unw[region] = NULL;
    }
    return x->unw[region] && x->unw[region][call];
}

static const scope_requests *cmp_rq;

/* Orders requests i and j by (region, call) of one end, then by index. */
static int cmp_end(const int32_t *region, const int64_t *call, int64_t i, int64_t j)
{
    if (region[i] != region[j])
        return region[i] < region[j] ? -1 : 1;
    if (call[i] != call[j])
        return call[i] < call[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static int cmp_post(const void *a, const void *b)
{
    return cmp_end(cmp_rq->post_region, cmp_rq->post_call, *(const int64_t *)a,
                   *(const int64_t *)b);
}

static int cmp_done(const void *a, const void *b)
{
    return cmp_end(cmp_rq->done_region, cmp_rq->done_call, *(const int64_t *)a,
                   *(const int64_t *)b);
}

static int load_requests(otf2x *x)
{
    if (scope_profile_requests(x->p, x->rank, &x->rq) < 0)
        return scope__fail_msg(scope_reader_errmsg()), -1;
    int64_t n = x->rq.n;
    x->by_post = malloc((size_t)(n ? n : 1) * sizeof *x->by_post);
    x->by_done = malloc((size_t)(n ? n : 1) * sizeof *x->by_done);
    if (!x->by_post || !x->by_done)
        return scope__otf2_oom();
    for (int64_t i = 0; i < n; i++) {
        x->by_post[i] = x->by_done[i] = i;
        if (x->rq.post_region[i] >= 0)
            x->is_post[x->rq.post_region[i]] = 1;
        if (x->rq.done_region[i] >= 0)
            x->is_done[x->rq.done_region[i]] = 1;
    }
    cmp_rq = &x->rq;
    qsort(x->by_post, (size_t)n, sizeof *x->by_post, cmp_post);
    qsort(x->by_done, (size_t)n, sizeof *x->by_done, cmp_done);
    return 0;
}

/* The rows [*lo, *hi) of `by` (by_post when post, else by_done) whose
 * call is (region, call). Binary search: log r. */
static void rows_of(const otf2x *x, int post, int region, int64_t call,
                    int64_t *lo, int64_t *hi)
{
    const int64_t *by = post ? x->by_post : x->by_done;
    const int32_t *rg = post ? x->rq.post_region : x->rq.done_region;
    const int64_t *cl = post ? x->rq.post_call : x->rq.done_call;
    int64_t a = 0, b = x->rq.n;
    while (a < b) {     /* first row >= (region, call) */
        int64_t m = a + (b - a) / 2, i = by[m];
        if (rg[i] < region || (rg[i] == region && cl[i] < call))
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    while (a < x->rq.n && rg[by[a]] == region && cl[by[a]] == call)
        a++;
    *hi = a;
}

/* Whether request row i gets request records, decided the same way at
 * its post and its completion so that every id written is opened and
 * closed: its post's communicator is exported and its partner is a
 * member. MPI_Startall's requests get none: the file keeps its sends'
 * bytes together, without destinations, so its sends cannot be written,
 * and its receives, whose partners are then most often another rank's
 * MPI_Startall, would be receives without a send. *send, *comm,
 * *partner (comm rank: the receiver of a send, the sender of a receive)
 * as found. */
static int req_usable(otf2x *x, int64_t i, int *send, uint32_t *comm,
                      uint32_t *partner)
{
    int pr = x->rq.post_region[i];
    if (pr < 0)
        return 0;
    int k = x->ri[pr].kind;
    const scope_moved *m = moved(x, pr);
    int64_t pc = x->rq.post_call[i];
    if (!m || pc < 0 || pc >= m->n)
        return 0;
    int32_t row = m->comm[pc];
    *comm = row_comm(x, row);
    if (*comm == OTF2_UNDEFINED_COMM)
        return 0;
    if (k == MK_START && (scope_moved_root(m->dest[pc], m->source[pc], m->tag[pc]) >= 0 ||
                          (x->rq.collective && x->rq.collective[i])))
        return 0;   /* a persistent collective's start (a call's dest is its root) */
    if (k == MK_ISEND)
        *send = 1;
    else if (k == MK_IRECV)
        *send = 0;
    else if (k == MK_START)     /* a send's row names its destination; older files: no tag */
        *send = (x->rq.dest && x->rq.dest[i] >= 0) ||
                (x->rq.tag[i] == SCOPE_NO_TAG_VALUE && x->rq.source[i] == SCOPE_NO_RANK);
    else
        return 0;
    if (x->rq.cancelled[i]) {
        *partner = UINT32_MAX;
        return 1;
    }
    *partner = comm_rank(x, row, *send ? m->dest[pc] : x->rq.source[i]);
    return *partner != UINT32_MAX;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* scope__otf2_event(): an event record, counted when written. */
static int otf2_ev(otf2x *x, const char *what, OTF2_ErrorCode e)
{
    return scope__otf2_event(x, what, e);
}

/* The records of the call's start, after its Enter: a send's MpiSend, a
 * nonblocking post's MpiIsend or MpiIrecvRequest, a collective's
 * MpiCollectiveBegin. */
static int at_start(otf2x *x, const scope_call *c, uint64_t t)
{
    const region_info *ri = &x->ri[c->region];
    int k = ri->kind;
    if (k == MK_NONE)
        return 0;
    const scope_moved *m = moved(x, c->region);
    int64_t ci = c->call_index;
    if (m && ci < m->n) {
        int32_t row = m->comm[ci];
        uint32_t comm = row_comm(x, row);
        if (comm != OTF2_UNDEFINED_COMM) {
            if (k == MK_SEND || k == MK_SENDRECV) {
                uint32_t to = comm_rank(x, row, m->dest[ci]);
                if (to != UINT32_MAX)
                    if (otf2_ev(x, "MpiSend", OTF2_EvtWriter_MpiSend(x->w, NULL, t, to, comm,
                           (uint32_t)m->tag[ci], (uint64_t)m->bytes_sent[ci])) < 0)
                        return -1;
            } else if (k == MK_COLL) {
                if (otf2_ev(x, "MpiCollectiveBegin",
                       OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, t)) < 0)
                    return -1;
            }
        }
    }
    if (k != MK_ISEND && k != MK_IRECV && k != MK_START)
        return 0;
    int64_t lo = 0, hi = 0;
    if (x->is_post[c->region])
        rows_of(x, 1, c->region, ci, &lo, &hi);
    for (int64_t j = lo; j < hi; j++) {
        int64_t i = x->by_post[j];
        int send;
        uint32_t comm, partner;
        if (!req_usable(x, i, &send, &comm, &partner))
            continue;
        OTF2_ErrorCode e = send ?
            OTF2_EvtWriter_MpiIsend(x->w, NULL, t, partner, comm, (uint32_t)m->tag[ci],
                                    (uint64_t)m->bytes_sent[ci], (uint64_t)i) :
            OTF2_EvtWriter_MpiIrecvRequest(x->w, NULL, t, (uint64_t)i);
        if (otf2_ev(x, send ? "MpiIsend" : "MpiIrecvRequest", e) < 0)
            return -1;
    }
    /* A send no request row follows (freed, or never completed): its
     * message still leaves, under an id of its own that nothing closes. */
    if (lo == hi && m && ci < m->n && (k == MK_ISEND || k == MK_START) &&
        scope_moved_sent_message(m->dest[ci], m->tag[ci])) {   /* not a root */
        int32_t row = m->comm[ci];
        uint32_t comm = row_comm(x, row), to;
        if (comm != OTF2_UNDEFINED_COMM &&
            (to = comm_rank(x, row, m->dest[ci])) != UINT32_MAX)
            if (otf2_ev(x, "MpiIsend", OTF2_EvtWriter_MpiIsend(x->w, NULL, t, to, comm,
                   (uint32_t)m->tag[ci], (uint64_t)m->bytes_sent[ci],
                   x->fresh_req++)) < 0)
                return -1;
    }
    return 0;
}

/* The records of the call's end, before its Leave: a receive's MpiRecv,
 * a collective's MpiCollectiveEnd, and each request the call completed:
 * MpiIsendComplete, MpiIrecv, or MpiRequestCancelled. */
static int at_end(otf2x *x, const scope_call *c, uint64_t t)
{
    const region_info *ri = &x->ri[c->region];
    int64_t ci = c->call_index;
    if (ri->kind == MK_RECV || ri->kind == MK_SENDRECV || ri->kind == MK_COLL) {
        const scope_moved *m = moved(x, c->region);
        int32_t row = m && ci < m->n ? m->comm[ci] : -1;
        uint32_t comm = row_comm(x, row);
        if (comm != OTF2_UNDEFINED_COMM && ri->kind == MK_COLL) {
            uint32_t root = OTF2_UNDEFINED_UINT32;
            int32_t wr = scope_moved_root(m->dest[ci], m->source[ci], m->tag[ci]);
            if (ri->rooted && wr >= 0)
                root = comm_rank(x, row, wr);
            if (otf2_ev(x, "MpiCollectiveEnd", OTF2_EvtWriter_MpiCollectiveEnd(x->w, NULL,
                   t, ri->op, comm, root, (uint64_t)m->bytes_sent[ci],
                   (uint64_t)m->bytes_received[ci])) < 0)
                return -1;
        } else if (comm != OTF2_UNDEFINED_COMM) {
            /* Sendrecv's file keeps the send's tag only: the receive is
             * written with it (docs/export.md) */
            uint32_t from = comm_rank(x, row, m->source[ci]);
            if (from != UINT32_MAX)
                if (otf2_ev(x, "MpiRecv", OTF2_EvtWriter_MpiRecv(x->w, NULL, t, from, comm,
                       (uint32_t)m->tag[ci], (uint64_t)m->bytes_received[ci])) < 0)
                    return -1;
        }
    }
    if (!x->is_done[c->region])
        return 0;
    int64_t lo, hi;
    rows_of(x, 0, c->region, ci, &lo, &hi);
    for (int64_t j = lo; j < hi; j++) {
        int64_t i = x->by_done[j];
        int send;
        uint32_t comm, partner;
        if (!req_usable(x, i, &send, &comm, &partner))
            continue;
        const char *what;
        OTF2_ErrorCode e;
        if (x->rq.cancelled[i]) {
            what = "MpiRequestCancelled";
            e = OTF2_EvtWriter_MpiRequestCancelled(x->w, NULL, t, (uint64_t)i);
        } else if (send) {
            what = "MpiIsendComplete";
            e = OTF2_EvtWriter_MpiIsendComplete(x->w, NULL, t, (uint64_t)i);
        } else {
            what = "MpiIrecv";
            e = OTF2_EvtWriter_MpiIrecv(x->w, NULL, t, partner, comm, (uint32_t)x->rq.tag[i],
                                        (uint64_t)x->rq.bytes_received[i], (uint64_t)i);
        }
        if (otf2_ev(x, what, e) < 0)
            return -1;
    }
    return 0;
}

static int enter(otf2x *x, const scope_call *c)
{
    uint64_t t = (uint64_t)c->start_ns;
    if (otf2_ev(x, "Enter", OTF2_EvtWriter_Enter(x->w, NULL, t, (OTF2_RegionRef)c->region)) < 0)
        return -1;
    if (x->ri[c->region].omp)
        return scope__otf2_omp_enter(x, c, t);
    if (x->ri[c->region].io_layer)
        return scope__otf2_io_enter(x, c, t);
    return at_start(x, c, t);
}

/* An unwound call's Leave carries the attribute `unwound` = 1 (attribute
 * 0): its time is when scope noticed the call had ended. */
static int leave(otf2x *x, const scope_call *c)
{
    uint64_t t = (uint64_t)c->end_ns;
    const region_info *ri = &x->ri[c->region];
    if (ri->omp ? scope__otf2_omp_leave(x, c, t) < 0
        : ri->io_layer ? scope__otf2_io_leave(x, c, t) < 0 : at_end(x, c, t) < 0)
        return -1;
    OTF2_AttributeList *al = NULL;
    if (unwound(x, c->region, c->call_index)) {
        al = x->attrs;
        OTF2_AttributeValue v;
        v.uint8 = 1;
        if (scope__otf2_ok(x, "AttributeList_AddAttribute",
               OTF2_AttributeList_AddAttribute(al, 0, OTF2_TYPE_UINT8, v)) < 0)
            return -1;
    }
    if (otf2_ev(x, "Leave", OTF2_EvtWriter_Leave(x->w, al, t, (OTF2_RegionRef)c->region)) < 0)
        return -1;
    return 0;
}

static int add_loc(otf2x *x, int32_t rank, int32_t lane, uint64_t events)
{
    if (x->nlocs == x->caplocs) {
        size_t nc = x->caplocs ? 2 * x->caplocs : 64;
        void *q = realloc(x->locs, nc * sizeof *x->locs);
        if (!q)
            return scope__otf2_oom();
        x->locs = q;
        x->caplocs = nc;
    }
    x->locs[x->nlocs++] = (loc_def){ rank, lane, events };
    return 0;
}

/* One lane: its calls (rows `idx` of c, in the call stack's order) opened
 * and closed along the parent links, never by comparing times, so calls
 * whose times tie nest as recorded. */
static int write_lane(otf2x *x, const scope_call *c, const int64_t *idx,
                      int64_t n, int32_t lane)
{
    x->w = OTF2_Archive_GetEvtWriter(x->ar, scope__otf2_loc_ref(x->rank, lane));
    if (!x->w)
        return scope__otf2_fail(x, "GetEvtWriter", OTF2_ERROR_MEM_ALLOC_FAILED);
    x->nev = 0;
    int64_t top = -1;
    for (int64_t j = 0; j <= n; j++) {
        int64_t i = j < n ? idx[j] : -2;
        while (top >= 0 && (j == n || top != c[i].parent)) {
            if (leave(x, &c[top]) < 0)
                return -1;
            top = c[top].parent;
        }
        if (j == n)
            break;
        if (enter(x, &c[i]) < 0)
            return -1;
        top = i;
    }
    if (scope__otf2_ok(x, "CloseEvtWriter", OTF2_Archive_CloseEvtWriter(x->ar, x->w)) < 0)
        return -1;
    x->w = NULL;
    return add_loc(x, x->rank, lane, x->nev);
}

static void rank_state_free(otf2x *x)
{
    free(x->by_post);
    free(x->by_done);
    free(x->row_comm);
    free(x->row_inv);
    x->by_post = x->by_done = NULL;
    x->row_comm = NULL;
    x->row_inv = NULL;
}

static int write_rank(otf2x *x, int rank)
{
    x->rank = rank;
    memset(x->mv_state, 0, (size_t)x->nregions);
    memset(x->unw_state, 0, (size_t)x->nregions);
    memset(x->is_post, 0, (size_t)x->nregions);
    memset(x->is_done, 0, (size_t)x->nregions);
    memset(&x->rq, 0, sizeof x->rq);
    x->nrows = 0;
    x->fresh_req = (uint64_t)1 << 63;
    if (x->has_moved && (load_comms(x) < 0 || load_requests(x) < 0))
        return -1;
    if (scope__otf2_io_rank(x) < 0)
        return -1;
    scope_call_stack *cs;
    if (scope_profile_call_stack(x->p, rank, SCOPE_ALL_THREADS, &cs) < 0)
        return scope__fail_msg(scope_reader_errmsg()), -1;
    const scope_call *c = scope_call_stack_calls(cs);
    int64_t n = scope_call_stack_count(cs);
    if (scope__otf2_omp_rank(x, c, n) < 0) {
        scope_call_stack_free(cs);
        rank_state_free(x);
        return -1;
    }
    int32_t maxlane = -1;
    for (int64_t i = 0; i < n; i++)
        if (c[i].thread > maxlane)
            maxlane = c[i].thread;
    /* The calls grouped by lane, each lane in the stack's order: one
     * counting sort, 8 bytes per call. */
    int64_t *start = calloc((size_t)maxlane + 2, sizeof *start);
    int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    int rc = -1;
    if (!start || !idx) {
        scope__otf2_oom();
        goto fail_alloc;
    }
    for (int64_t i = 0; i < n; i++)
        start[c[i].thread + 1]++;
    for (int32_t l = 0; l <= maxlane; l++)
        start[l + 1] += start[l];
    {
        int64_t *fill = malloc((size_t)(maxlane + 1) * sizeof *fill);
        if (!fill && maxlane >= 0) {
            scope__otf2_oom();
            goto fail_alloc;
        }
        for (int32_t l = 0; l <= maxlane; l++)
            fill[l] = start[l];
        for (int64_t i = 0; i < n; i++)
            idx[fill[c[i].thread]++] = i;
        free(fill);
    }
    for (int32_t l = 0; l <= maxlane; l++) {
        if (start[l + 1] == start[l])
            continue;
        if (write_lane(x, c, idx + start[l], start[l + 1] - start[l], l) < 0)
            goto fail_alloc;
    }
    x->done_calls += n;
    scope__progress("export", x->done_calls, x->total_calls);
    rc = 0;
fail_alloc:
    free(start);
    free(idx);
    scope_call_stack_free(cs);
    rank_state_free(x);
    return rc;
}

static int write_archive(otf2x *x)
{
    x->ar = OTF2_Archive_Open(x->dir, "traces", OTF2_FILEMODE_WRITE,
                              1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!x->ar)
        return scope__otf2_fail(x, "Archive_Open", OTF2_ERROR_FILE_INTERACTION);
    if (scope__otf2_ok(x, "SetFlushCallbacks", OTF2_Archive_SetFlushCallbacks(x->ar, &flush_cbs, NULL)) < 0)
        return -1;
    if (scope__otf2_ok(x, "SetSerialCollectiveCallbacks",
           OTF2_Archive_SetSerialCollectiveCallbacks(x->ar)) < 0)
        return -1;
    if (scope__otf2_ok(x, "SetCreator", OTF2_Archive_SetCreator(x->ar, "scope " SCOPE_TOOL_VERSION)) < 0)
        return -1;
    if (scope__otf2_ok(x, "SetDescription", OTF2_Archive_SetDescription(x->ar,
           "scope profile exported by `scope export --to otf2`")) < 0)
        return -1;
    if (scope__otf2_ok(x, "OpenEvtFiles", OTF2_Archive_OpenEvtFiles(x->ar)) < 0)
        return -1;
    for (int k = 0; k < scope_profile_rank_count(x->p); k++)
        if (write_rank(x, scope_profile_rank(x->p, k)) < 0)
            return -1;
    if (scope__otf2_ok(x, "CloseEvtFiles", OTF2_Archive_CloseEvtFiles(x->ar)) < 0)
        return -1;
    scope__progress("export", x->total_calls, x->total_calls);
    if (scope__otf2_write_local_defs(x) < 0 || scope__otf2_write_defs(x) < 0)
        return -1;
    OTF2_Archive *ar = x->ar;
    x->ar = NULL;
    if (scope__otf2_ok(x, "Archive_Close", OTF2_Archive_Close(ar)) < 0)
        return -1;
    return 0;
}

int scope__export_otf2(scope_profile *p, const char *dir)
{
    if (!strcmp(dir, "-"))
        return scope__fail_msg("export: --to otf2 writes a folder, not "
                               "stdout: give -o DIR");
    int created;
    if (prepare_dir(dir, &created) < 0)
        return 1;
    otf2x x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.dir = dir;
    x.nregions = scope_profile_region_count(p);
    x.has_moved = scope_profile_has_moved(p);
    /* World ranks the records may name: the run's mpi_size, else what
     * the data columns name (which loads every rank's columns at once) */
    int64_t mpi_size;
    if (x.has_moved && scope_profile_metadata_int(p, "mpi_size", &mpi_size) == 0 &&
        mpi_size > 0 && mpi_size < INT32_MAX)
        x.world = (int)mpi_size;
    else if (x.has_moved)
        x.world = scope_profile_world_size(p);
    for (int k = 0; x.has_moved && k < scope_profile_rank_count(p); k++)
        if (scope_profile_rank(p, k) >= x.world)
            x.world = scope_profile_rank(p, k) + 1;
    size_t nr = (size_t)(x.nregions ? x.nregions : 1);
    x.ri = calloc(nr, sizeof *x.ri);
    x.mv = calloc(nr, sizeof *x.mv);
    x.mv_state = calloc(nr, 1);
    x.unw = calloc(nr, sizeof *x.unw);
    x.unw_state = calloc(nr, 1);
    x.is_post = calloc(nr, 1);
    x.is_done = calloc(nr, 1);
    x.attrs = OTF2_AttributeList_New();
    int status = 1;
    scope__otf2_errors_begin();
    if (!x.ri || !x.mv || !x.mv_state || !x.unw || !x.unw_state || !x.is_post ||
        !x.is_done || !x.attrs) {
        scope__otf2_oom();
        goto fail;
    }
    for (int r = 0; r < x.nregions; r++)
        classify(p, r, &x.ri[r]);
    if (scope__otf2_io_begin(&x) < 0)
        goto fail;
    if (x.has_moved) {
        /* the run's communicators, numbered as `scope waits` numbers them */
        if ((x.nruncomms = scope_profile_run_comm_count(p)) < 0) {
            scope__fail_msg(scope_reader_errmsg());
            goto fail;
        }
        if (!(x.comm_used = calloc((size_t)x.nruncomms + 1, 1))) {
            scope__otf2_oom();
            goto fail;
        }
    }
    x.total_calls = scope__rank_events(p, SCOPE_ALL_RANKS);
    if (scope__otf2_load_hosts(&x) < 0 || write_archive(&x) < 0)
        goto fail;
    status = 0;
fail:
    if (x.ar)
        OTF2_Archive_Close(x.ar);
    if (status)
        unwrite_dir(dir, created);
    if (x.attrs)
        OTF2_AttributeList_Delete(x.attrs);
    for (int h = 0; h < x.nhosts; h++)
        free(x.hosts[h].name);
    free(x.comm_used);
    free(x.hosts);
    free(x.rank_host);
    free(x.locs);
    free(x.ri);
    free(x.mv);
    free(x.mv_state);
    free(x.unw);
    free(x.unw_state);
    free(x.is_post);
    free(x.is_done);
    scope__otf2_omp_free(&x);
    scope__otf2_io_free(&x);
    return status;
}

#endif /* SCOPE_HAVE_OTF2 */
