/*
 * host_files.c - at most one rank file per host: at MPI_Finalize the ranks
 * of one host (the MPI_COMM_TYPE_SHARED split that clock_align.c already
 * made) hand their journals to the host's leader (its lowest world rank),
 * which starts one scope-h5write for the whole host
 * (runtime/writer_spawn.c, convert/host_file.c). Rank 0 writes the index
 * and links each /rank<N> to the group in its host's file.
 *
 * Why this way:
 * - At 10,000+ ranks a file per rank is a metadata storm on Lustre or
 *   GPFS (creating files in one folder serialises). One file per host is
 *   what the file system sees; the journals, written while the run goes,
 *   are one per rank wherever SCOPE_OUTPUT points (node-local storage is
 *   best, docs/format.md "Journal files").
 * - Rank 0 needs to know which file each rank's group goes to when it
 *   writes the index. Its name depends only on the rank's host name, so
 *   the names are gathered at MPI_Init (where every rank is anyway in a
 *   collective step), not at finalize: at finalize a rank waits only for
 *   the ranks of its own host, never for the whole job, and a rank that
 *   dies on one host does not stop the other hosts' files.
 * - Waiting is by polling with short sleeps (clock_align.c's wait): with
 *   more ranks than cores, spinning ranks would slow the very writer they
 *   wait for. For the same reason the host's ranks wait for the writer
 *   here, asleep, before they enter MPI_Finalize, where an oversubscribed
 *   MPI waits spinning.
 * - What cannot be handed over (a journal path that does not fit, a
 *   writer that fails) stays a journal: `scope recover` turns it into a
 *   rank file and repairs the index's link.
 *
 * MPI is reached only through PMPI_* pointers with handles from the ABI
 * table of mpi_abi.h: no mpi.h here.
 */
#include "host_files.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock_align.h"
#include "mpi_abi.h"
#include "pmpi.h"
#include "log.h"
#include "log.h"
#include "scope_error.h"
#include "scope_format.h"
#include "scope_internal.h"
#include "settings.h"

#define NAME_LEN 72     /* a host name (HOST_NAME_MAX 64) and its NUL */
#define JOURNAL_LEN 4096 /* a journal's path as handed to the leader */
#define FILE_LEN (NAME_LEN + 16)

typedef scope__mpi_handle handle;

static struct {
    int active;
    const scope__mpi_abi *abi;
    const struct scope__pmpi *pm;
    handle host, leaders;
    int host_rank, world_rank, world_size;
    char *names;        /* rank 0: world_size host names, NAME_LEN each */
    char *all;          /* a leader: host_size journal paths, JOURNAL_LEN each */
    int host_size;
} H;

/* Polls between sleeps when waiting for the host's writer: it takes tens
 * of ms, and a host's ranks polling every ms (each poll a wake-up and a
 * pass of MPI's progress engine) took the cores that writer needed. */
#define WRITER_POLL_NS 4000000
#define POLL_NS 1000000

/* SCOPE_HOST_FILES: 1 on, 0 off, -1 auto (unset, empty, "auto"). A bad
 * value is said once (rank 0) and taken as auto. */
static int mode(void)
{
    const scope_setting_value *v = scope__setting(SCOPE_SET_HOST_FILES);
    if (H.world_rank == 0)
        scope__setting_say(SCOPE_SET_HOST_FILES, "using auto");
    return v->u == SCOPE_HOST_FILES_AUTO ? -1 : (int)v->u;
}

/* This host's ranks as world ranks (ordered as in the host communicator),
 * from the two groups: a local computation, no message. Returns a
 * malloc'ed array of H.host_size, or NULL. */
static int *host_world_ranks(void)
{
    int *idx = malloc((size_t)H.host_size * sizeof *idx);
    int *out = malloc((size_t)H.host_size * sizeof *out);
    handle hg = 0, wg = 0;
    int ok = idx && out && H.pm->comm_group(H.host, &hg) == 0;
    hg = scope__mpi_handle_out(H.abi, hg);
    if (ok && H.pm->comm_group(H.abi->comm_world, &wg) != 0) {
        H.pm->group_free(&hg);
        ok = 0;
    }
    wg = scope__mpi_handle_out(H.abi, wg);
    if (ok) {
        for (int i = 0; i < H.host_size; i++)
            idx[i] = i;
        ok = H.pm->group_translate_ranks(hg, H.host_size, idx, wg, out) == 0;
        H.pm->group_free(&hg);
        H.pm->group_free(&wg);
    }
    free(idx);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* A leader's part of telling rank 0 which host each rank is on: its host
 * name and its ranks' world ranks, gathered over the leaders'
 * communicator (world rank 0 is its rank 0). One message per host,
 * between ranks the clock step already connected: gathering a name from
 * every rank took 0.5-4 s at 64 ranks on 2 cores (63 connections to rank
 * 0 set up while it sleeps between polls). Returns 0 or -1. */
static int gather_names(void)
{
    struct head {
        char name[NAME_LEN];
        int count;
    } me = { { 0 }, H.host_size };
    if (gethostname(me.name, sizeof me.name - 1) < 0)
        me.name[0] = 0;
    int n_leaders = 0, lrank = 0;
    if (H.pm->comm_size(H.leaders, &n_leaders) != 0 || H.pm->comm_rank(H.leaders, &lrank) != 0 ||
        n_leaders < 1)
        return -1;
    int *mine = host_world_ranks();
    struct head *heads = lrank == 0 ? calloc((size_t)n_leaders, sizeof *heads) : NULL;
    int *counts = lrank == 0 ? calloc((size_t)n_leaders, sizeof *counts) : NULL;
    int *displs = lrank == 0 ? calloc((size_t)n_leaders, sizeof *displs) : NULL;
    int *ranks = NULL;
    int rc = -1;
    if (!mine || (lrank == 0 && (!heads || !counts || !displs)))
        goto out;
    handle req = 0;
    if (H.pm->igather(&me, (int)sizeof me, H.abi->dt_byte, heads, (int)sizeof me, H.abi->dt_byte, 0,
                  H.leaders, &req) != 0 ||
        scope__clock_align_wait(req, POLL_NS) != 0)
        goto out;
    size_t total = 0;
    for (int i = 0; lrank == 0 && i < n_leaders; i++) {
        heads[i].name[NAME_LEN - 1] = 0;
        if (heads[i].count < 0 || (size_t)heads[i].count > (size_t)H.world_size)
            heads[i].count = 0;
        counts[i] = heads[i].count * (int)sizeof(int);
        displs[i] = (int)(total * sizeof(int));
        total += (size_t)heads[i].count;
    }
    if (lrank == 0 && !(ranks = malloc((total ? total : 1) * sizeof *ranks)))
        goto out;
    req = 0;
    if (H.pm->igatherv(mine, H.host_size * (int)sizeof(int), H.abi->dt_byte, ranks, counts, displs,
                   H.abi->dt_byte, 0, H.leaders, &req) != 0 ||
        scope__clock_align_wait(req, POLL_NS) != 0)
        goto out;
    for (int i = 0; lrank == 0 && H.names && i < n_leaders; i++)
        for (int k = 0; k < heads[i].count; k++) {
            int r = ranks[displs[i] / (int)sizeof(int) + k];
            if (r >= 0 && r < H.world_size)
                memcpy(H.names + (size_t)r * NAME_LEN, heads[i].name, NAME_LEN);
        }
    rc = 0;
out:
    free(mine);
    free(heads);
    free(counts);
    free(displs);
    free(ranks);
    return rc;
}

void scope__host_files_init(void)
{
    int64_t n_hosts = 0;
    if (H.active || scope__clock_align_comms(&H.host, &H.leaders, &H.host_rank, &n_hosts) < 0)
        return;
    H.abi = scope__mpi_abi_get();
    H.pm = scope__pmpi();
    /* the same library on every rank: all or none go on */
    if (!H.abi || !H.pm->comm_rank || !H.pm->comm_size || !H.pm->igather || !H.pm->ibcast ||
        !H.pm->igatherv || !H.pm->comm_group || !H.pm->group_translate_ranks || !H.pm->group_free ||
        H.pm->comm_rank(H.abi->comm_world, &H.world_rank) != 0 ||
        H.pm->comm_size(H.abi->comm_world, &H.world_size) != 0)
        return;
    int m = mode();
    if (m == 0 || (m < 0 && n_hosts < 2))
        return;
    /* world_size x 72 bytes on rank 0, host_size x 4 KiB on a leader;
     * without them a rank cannot take part and the run would wait at
     * finalize: an allocation failure in MPI_Init is not worth a protocol */
    if (H.pm->comm_size(H.host, &H.host_size) != 0 || H.host_size < 1)
        return;
    if (H.host_rank == 0 && !(H.all = calloc((size_t)H.host_size, JOURNAL_LEN)))
        return;
    if (H.world_rank == 0 && !(H.names = calloc((size_t)H.world_size, NAME_LEN)))
        return;
    if (H.host_rank == 0 && gather_names() != 0) {
        free(H.names);
        free(H.all);
        H.names = H.all = NULL;
        return;
    }
    H.active = 1;
    scope__preload_log("host files: on (%lld hosts); this rank is %s of its host",
                       (long long)n_hosts, H.host_rank == 0 ? "the leader" : "not the leader");
}

int scope__host_files_active(void)
{
    return H.active;
}

/* The leader's part: the host file from the gathered journal paths `all`
 * (host_size of them, JOURNAL_LEN each; "" = none). */
static int write_host(const char *all, int host_size)
{
    const char **journals = calloc((size_t)host_size, sizeof *journals);
    const char **links = NULL;
    char *files = NULL;
    int rc = SCOPE_ENOMEM;
    if (!journals)
        goto out;
    size_t n = 0;
    for (int i = 0; i < host_size; i++)
        if (all[(size_t)i * JOURNAL_LEN])
            journals[n++] = all + (size_t)i * JOURNAL_LEN;
    if (n == 0) {
        rc = 0;
        goto out;
    }
    size_t n_links = 0;
    if (H.world_rank == 0 && H.names) {
        links = calloc((size_t)H.world_size, sizeof *links);
        files = calloc((size_t)H.world_size, FILE_LEN);
        if (!links || !files)
            goto out;
        for (int r = 0; r < H.world_size; r++) {
            char *f = files + (size_t)r * FILE_LEN;
            char *name = H.names + (size_t)r * NAME_LEN;
            name[NAME_LEN - 1] = 0;
            scope_host_file_name(name, f, FILE_LEN);
            links[r] = f;
        }
        n_links = (size_t)H.world_size;
    }
    char me[NAME_LEN] = { 0 }, mine[FILE_LEN];
    if (gethostname(me, sizeof me - 1) < 0)
        me[0] = 0;
    scope_host_file_name(me, mine, sizeof mine);
    rc = scope__finalize_host(mine, journals, n, links, n_links);
    scope__preload_log("host files: %s with %zu rank%s: %s", mine, n, n == 1 ? "" : "s",
                       rc < 0 ? scope_strerror(rc) : "written");
out:
    free(journals);
    free(links);
    free(files);
    return rc;
}

int scope__host_files_finalize(void)
{
    static char path[JOURNAL_LEN];
    memset(path, 0, sizeof path);
    int rc = scope__finalize_journal(path, sizeof path);
    if (rc != 1)
        path[0] = 0; /* nothing to hand over (or kept for recover) */
    handle req = 0;
    int mrc = H.pm->igather(path, JOURNAL_LEN, H.abi->dt_byte, H.all, JOURNAL_LEN, H.abi->dt_byte, 0,
                        H.host, &req);
    if (mrc == 0)
        mrc = scope__clock_align_wait(req, POLL_NS);
    H.active = 0;
    if (H.host_rank == 0 && mrc == 0)
        rc = write_host(H.all, H.host_size);
    else if (rc == 1)
        rc = 0;
    /* The host's ranks wait here, asleep, until its writer is done:
     * waiting in MPI_Finalize instead, an oversubscribed MPI spins
     * (sched_yield), and a host's spinning ranks take the cores the
     * writer needs. */
    int64_t done = 0;
    handle breq = 0;
    if (mrc == 0 && H.pm->ibcast(&done, 1, H.abi->dt_int64, 0, H.host, &breq) == 0)
        scope__clock_align_wait(breq, H.host_rank == 0 ? POLL_NS : WRITER_POLL_NS);
    free(H.all);
    H.all = NULL;
    free(H.names);
    H.names = NULL;
    return rc < 0 ? rc : 0;
}
