/*
 * export_otf2_defs.c - the definitions of the OTF2 archive `scope export
 * --to otf2` writes (export_otf2.c writes the events first): the clock,
 * the regions, the system tree (run, hosts, ranks, lanes with their event
 * counts), the MPI groups and communicators, then OpenMP's teams
 * (export_otf2_omp.c), in an order that makes
 * the same string ids on every run of the same profile.
 */
#ifdef SCOPE_HAVE_OTF2

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "otf2_archive.h"


static int str(otf2x *x, OTF2_GlobalDefWriter *g, const char *s, uint32_t *id)
{
    return scope__otf2_string(x, g, s, id);
}

static int cmp_host(const void *a, const void *b)
{
    const host_def *h = a, *k = b;
    if (h->order != k->order)
        return h->order < k->order ? -1 : 1;
    return strcmp(h->name, k->name);
}

/* The hosts of the run (the ranks' `hostname`), ordered by
 * clock_host_index (0: rank 0's host, the timeline's reference), and
 * each rank's host. 0 or -1. */
int scope__otf2_load_hosts(otf2x *x)
{
    int nr = scope_profile_rank_count(x->p);
    x->hosts = calloc((size_t)(nr ? nr : 1), sizeof *x->hosts);
    x->rank_host = calloc((size_t)(nr ? nr : 1), sizeof *x->rank_host);
    if (!x->hosts || !x->rank_host)
        return scope__otf2_oom();
    char **names = calloc((size_t)(nr ? nr : 1), sizeof *names);
    if (!names)
        return scope__otf2_oom();
    for (int k = 0; k < nr; k++) {
        int rank = scope_profile_rank(x->p, k);
        char h[256];
        if (scope_profile_rank_attr_string(x->p, rank, "hostname", h, sizeof h) < 0)
            snprintf(h, sizeof h, "unknown host");
        int64_t order;
        if (scope_profile_rank_attr_int(x->p, rank, "clock_host_index", &order) < 0)
            order = INT64_MAX;
        int j;
        for (j = 0; j < x->nhosts && strcmp(x->hosts[j].name, h); j++)
            ;
        if (j == x->nhosts) {
            if (!(x->hosts[j].name = strdup(h))) {
                free(names);
                return scope__otf2_oom();
            }
            x->hosts[j].order = order;
            x->nhosts++;
        } else if (order < x->hosts[j].order) {
            x->hosts[j].order = order;
        }
        names[k] = x->hosts[j].name;
    }
    qsort(x->hosts, (size_t)x->nhosts, sizeof *x->hosts, cmp_host);
    for (int k = 0; k < nr; k++)
        for (int j = 0; j < x->nhosts; j++)
            if (x->hosts[j].name == names[k])
                x->rank_host[k] = j;
    free(names);
    return 0;
}

/* The run's start as UTC ns since the epoch from /metadata `timestamp`
 * ("2026-12-02T15:59:50Z", maybe with a fraction) and start_time_ns, for
 * the realtime of the trace's first tick; UNDEFINED when either is
 * missing. */
static uint64_t realtime_of(scope_profile *p, int64_t global_offset)
{
    char ts[64];
    int64_t start;
    if (scope_profile_metadata_string(p, "timestamp", ts, sizeof ts) <= 0 ||
        scope_profile_run_start_ns(p, &start) < 0)
        return OTF2_UNDEFINED_TIMESTAMP;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char *rest = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest)
        return OTF2_UNDEFINED_TIMESTAMP;
    int64_t frac = 0, scale = 1000000000;
    if (*rest == '.')
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            if (scale > 1) {
                scale /= 10;
                frac += (*rest - '0') * scale;
            }
    time_t secs = timegm(&tm);
    int64_t ns = (int64_t)secs * 1000000000 + frac + (global_offset - start);
    return ns < 0 ? OTF2_UNDEFINED_TIMESTAMP : (uint64_t)ns;
}

static int cmp_loc(const void *a, const void *b)
{
    const loc_def *l = a, *m = b;
    if (l->rank != m->rank)
        return (l->rank > m->rank) - (l->rank < m->rank);
    return (l->lane > m->lane) - (l->lane < m->lane);
}

/* The system tree: the run, then one node per host; a location group
 * (process) per rank under its host, a location per (rank, lane).
 * Returns 0 or -1 (said). */
static int write_system_tree(otf2x *x, OTF2_GlobalDefWriter *g)
{
    uint32_t s1, s2;
    if (str(x, g, "scope run", &s1) < 0 || str(x, g, "machine", &s2) < 0)
        return -1;
    if (scope__otf2_ok(x, "WriteSystemTreeNode", OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0,
           s1, s2, OTF2_UNDEFINED_SYSTEM_TREE_NODE)) < 0)
        return -1;
    if (str(x, g, "node", &s2) < 0)
        return -1;
    for (int h = 0; h < x->nhosts; h++) {
        if (str(x, g, x->hosts[h].name, &s1) < 0)
            return -1;
        if (scope__otf2_ok(x, "WriteSystemTreeNode", OTF2_GlobalDefWriter_WriteSystemTreeNode(g,
               (uint32_t)h + 1, s1, s2, 0)) < 0)
            return -1;
    }
    for (int k = 0; k < scope_profile_rank_count(x->p); k++) {
        char nm[64];
        int rank = scope_profile_rank(x->p, k);
        snprintf(nm, sizeof nm, "rank %d", rank);
        if (str(x, g, nm, &s1) < 0)
            return -1;
        if (scope__otf2_ok(x, "WriteLocationGroup", OTF2_GlobalDefWriter_WriteLocationGroup(g,
               (uint32_t)rank, s1, OTF2_LOCATION_GROUP_TYPE_PROCESS,
               (uint32_t)x->rank_host[k] + 1, OTF2_UNDEFINED_LOCATION_GROUP)) < 0)
            return -1;
    }
    qsort(x->locs, x->nlocs, sizeof *x->locs, cmp_loc);
    for (size_t i = 0; i < x->nlocs; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "rank %d thread %d", x->locs[i].rank,
                 x->locs[i].lane);
        if (str(x, g, nm, &s1) < 0)
            return -1;
        if (scope__otf2_ok(x, "WriteLocation", OTF2_GlobalDefWriter_WriteLocation(g,
               scope__otf2_loc_ref(x->locs[i].rank, x->locs[i].lane), s1,
               OTF2_LOCATION_TYPE_CPU_THREAD, x->locs[i].events,
               (uint32_t)x->locs[i].rank)) < 0)
            return -1;
    }

    return 0;
}

/* Run communicator c's group (c + 1: its members as world ranks; none
 * when it is not exported) and its comm (c: the reader's numbering),
 * under `parent`. 0 or -1 (said). */
static int write_comm(otf2x *x, OTF2_GlobalDefWriter *g, uint32_t s_empty, int c,
                      uint32_t parent)
{
    scope_run_comm d;
    if (scope_profile_run_comm(x->p, c, &d) < 0)
        return scope__fail_msg(scope_reader_errmsg()), -1;
    if (!x->comm_used[c])
        d.size = 0;
    uint64_t *m = malloc((size_t)(d.size ? d.size : 1) * sizeof *m);
    if (!m)
        return scope__otf2_oom();
    for (int32_t i = 0; i < d.size; i++)
        m[i] = (uint64_t)d.members[i];
    uint32_t s1;
    int rc = str(x, g, d.label, &s1);
    OTF2_ErrorCode e = rc < 0 ? OTF2_SUCCESS :
        OTF2_GlobalDefWriter_WriteGroup(g, (uint32_t)c + 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)d.size, m);
    free(m);
    if (rc < 0 || scope__otf2_ok(x, "WriteGroup", e) < 0)
        return -1;
    return scope__otf2_ok(x, "WriteComm", OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)c, s1,
                          (uint32_t)c + 1, parent, OTF2_COMM_FLAG_NONE));
}

/* The MPI definitions: group 0 lists each world rank's first location
 * (the ranks of every communicator group index into it); comm c is the
 * run's communicator c (the reader's numbering, which `scope waits`
 * shares), group c + 1 its members as world ranks, every one in
 * ascending order with no number left out (otf2-print warns of any other
 * order). One whose calls get no records (an intercommunicator, whose
 * InterComm definition python3-otf2 3.0.2 cannot read; one with a member
 * MPI could not name) has an empty group, so that the numbers stay the
 * run's. A definition may name only definitions before it (python3-otf2,
 * and Pipit through it, fail to open the archive otherwise):
 * MPI_COMM_WORLD is number 0, so it comes first, and is the parent of the
 * others (the file does not record which communicator each was made
 * from; every one descends from the world). Without it, none has a
 * parent. Returns 0 or -1 (said). */
static int write_mpi_defs(otf2x *x, OTF2_GlobalDefWriter *g, uint32_t s_empty)
{
    uint32_t s1;
    uint64_t *mem = malloc((size_t)x->world * sizeof *mem);
    if (!mem)
        return scope__otf2_oom();
    for (int r = 0; r < x->world; r++)
        mem[r] = scope__otf2_loc_ref(r, 0);
    int rc = str(x, g, "MPI_COMM_WORLD locations", &s1);
    OTF2_ErrorCode e = rc < 0 ? OTF2_SUCCESS :
        OTF2_GlobalDefWriter_WriteGroup(g, 0, s1, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)x->world, mem);
    free(mem);
    if (rc < 0)
        return -1;
    if (scope__otf2_ok(x, "WriteGroup", e) < 0)
        return -1;
    scope_run_comm w;
    uint32_t parent = x->nruncomms > 0 && x->comm_used[0] &&
                      scope_profile_run_comm(x->p, 0, &w) == 0 && w.world
                          ? 0 : OTF2_UNDEFINED_COMM;
    for (int c = 0; c < x->nruncomms; c++)
        if (write_comm(x, g, s_empty, c, c == 0 ? OTF2_UNDEFINED_COMM : parent) < 0)
            return -1;
    return 0;
}

int scope__otf2_write_defs(otf2x *x)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->ar);
    if (!g)
        return scope__otf2_fail(x, "GetGlobalDefWriter", OTF2_ERROR_MEM_ALLOC_FAILED);
    int64_t min_start = 0, max_end = 0;
    if (scope_profile_min_start_ns(x->p, &min_start) == 0)
        scope_profile_max_end_ns(x->p, &max_end);
    if (min_start < 0)
        min_start = 0;
    uint64_t off = (uint64_t)min_start;
    uint64_t len = max_end > min_start ? (uint64_t)(max_end - min_start) : 0;
    if (scope__otf2_ok(x, "WriteClockProperties", OTF2_GlobalDefWriter_WriteClockProperties(g,
           1000000000, off, len, realtime_of(x->p, min_start))) < 0)
        return -1;

    uint32_t s_empty, s1, s2;
    if (str(x, g, "", &s_empty) < 0)
        return -1;
    if (x->has_moved) {
        if (str(x, g, "MPI", &s1) < 0)
            return -1;
        if (scope__otf2_ok(x, "WriteParadigm", OTF2_GlobalDefWriter_WriteParadigm(g,
               OTF2_PARADIGM_MPI, s1, OTF2_PARADIGM_CLASS_PROCESS)) < 0)
            return -1;
    }
    if (str(x, g, "unwound", &s1) < 0 ||
        str(x, g, "1: scope inferred this end (longjmp, exception, thread "
            "exit, crash, or an enclosing call ending first); its time is "
            "when scope noticed", &s2) < 0)
        return -1;
    if (scope__otf2_ok(x, "WriteAttribute", OTF2_GlobalDefWriter_WriteAttribute(g, 0, s1, s2,
           OTF2_TYPE_UINT8)) < 0)
        return -1;

    for (int r = 0; r < x->nregions; r++) {
        const region_info *ri = &x->ri[r];
        if (str(x, g, scope_profile_region_name(x->p, r), &s1) < 0)
            return -1;
        if (scope__otf2_ok(x, "WriteRegion", OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)r,
               s1, s1, s_empty, ri->role, ri->paradigm, OTF2_REGION_FLAG_NONE,
               s_empty, 0, 0)) < 0)
            return -1;
    }

    if (write_system_tree(x, g) < 0 || scope__otf2_omp_paradigm(x, g) < 0)
        return -1;
    if (x->has_moved && write_mpi_defs(x, g, s_empty) < 0)
        return -1;
    if (scope__otf2_io_defs(x, g) < 0)
        return -1;
    return scope__otf2_omp_defs(x, g, s_empty);
}

/* Every location gets its (empty) local definition file, as readers
 * such as Scalasca open one per location. */
int scope__otf2_write_local_defs(otf2x *x)
{
    if (scope__otf2_ok(x, "OpenDefFiles", OTF2_Archive_OpenDefFiles(x->ar)) < 0)
        return -1;
    for (size_t i = 0; i < x->nlocs; i++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x->ar,
                                                      scope__otf2_loc_ref(x->locs[i].rank,
                                                              x->locs[i].lane));
        if (!d)
            return scope__otf2_fail(x, "GetDefWriter", OTF2_ERROR_MEM_ALLOC_FAILED);
        if (scope__otf2_ok(x, "CloseDefWriter", OTF2_Archive_CloseDefWriter(x->ar, d)) < 0)
            return -1;
    }
    if (scope__otf2_ok(x, "CloseDefFiles", OTF2_Archive_CloseDefFiles(x->ar)) < 0)
        return -1;
    return 0;
}


#endif /* SCOPE_HAVE_OTF2 */
