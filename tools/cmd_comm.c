/*
 * cmd_comm.c - `scope comm`: who sent how much to whom. The point-to-point
 * matrix of world ranks (a terminal heat map, aggregated into blocks of
 * ranks past the terminal's width), the busiest pairs and the message-size
 * histogram; --format csv|json give the full matrix (one row per pair that
 * exchanged messages) and the histogram.
 *
 * Everything comes from the reader's data columns (scope_reader_comm.h):
 * sends are counted at their sender, by the byte model of docs/format.md.
 * --one-sided shows the one-sided calls instead (MPI_Put, MPI_Get, ...:
 * recorded at the origin, each moving data from the rank it leaves),
 * --collectives the collective calls' pairwise shares by the byte model,
 * and which of the profile's collective calls have none (a reduction to
 * all, a barrier, a neighbourhood collective: the model names no pair).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

static const char comm_help[] =
    "usage: scope comm [--one-sided | --collectives] [--region NAME]\n"
    "                  [--format table|csv|json] [--top N]\n"
    "                  PROFILE...\n"
    "\n"
    "Who sent how much to whom: the point-to-point messages of every pair of\n"
    "world ranks (MPI_Send, MPI_Isend, MPI_Sendrecv, ... counted at the\n"
    "sender), the busiest pairs, and the sizes of the messages in power-of-two\n"
    "buckets. Needs a profile recorded with the MPI calls in the config (the\n"
    "default config has them).\n"
    "\n"
    "  --one-sided    the one-sided calls instead (MPI_Put, MPI_Get,\n"
    "                 MPI_Accumulate, ...): a put moves data from its origin to\n"
    "                 its target, a get from its target to its origin\n"
    "  --collectives  the collective calls instead, each rank's share by the\n"
    "                 byte model (docs/format.md): a root to every member\n"
    "                 (MPI_Bcast, MPI_Scatter), every member to the root\n"
    "                 (MPI_Gather, MPI_Reduce), each member's block to every\n"
    "                 other (MPI_Allgather, MPI_Alltoall; MPI_Alltoallv/w\n"
    "                 spread evenly: their per-pair counts are not recorded;\n"
    "                 MPI_Start of one rooted persistent collective as its\n"
    "                 blocking call). No pairs for: reductions to all\n"
    "                 (MPI_Allreduce, MPI_Reduce_scatter, scans), barriers,\n"
    "                 neighbourhood collectives (MPI_Neighbor_*: many\n"
    "                 partners, no partner column), calls on\n"
    "                 intercommunicators, starts of persistent collectives\n"
    "                 without a root or several at once (MPI_Startall); the\n"
    "                 table and json list the profile's regions of the first\n"
    "                 three with their calls\n"
    "  --region NAME  only this region (e.g. MPI_Isend); default: every\n"
    "                 point-to-point (or one-sided, or collective) region\n"
    "  --format F     table (default): a heat map of bytes (blocks of ranks\n"
    "                 when the run has more ranks than the terminal columns),\n"
    "                 the busiest pairs, the size histogram; csv: one row per\n"
    "                 pair that exchanged messages, header\n"
    "                   sender,receiver,messages,bytes\n"
    "                 json: {\"size\": N, \"pairs\": [...], \"sizes\": [...]}\n"
    "                 (--collectives: also \"unpaired\": [{\"region\": ...,\n"
    "                 \"calls\": ...}])\n"
    "  --top N        pairs listed in the table (default 10)\n"
    "  -h, --help     this text\n";

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

struct pair {
    int s, r;
    int64_t messages, bytes;
};

static int by_bytes(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->s != y->s)
        return x->s - y->s;
    return x->r - y->r;
}

/* The heat map: one character per block of ranks, darker for more bytes
 * (relative to the busiest block). */
static void heat_map(FILE *out, const int64_t *bytes, int n, int width, const char *title)
{
    static const char shades[] = " .:-=+*#%@";
    int cols = width - 8 > 8 ? width - 8 : 8;
    int block = (n + cols - 1) / cols;
    if (block < 1)
        block = 1;
    int nb = (n + block - 1) / block;
    int64_t *agg = calloc((size_t)nb * (size_t)nb, sizeof *agg);
    if (!agg)
        return;
    int64_t top = 0;
    for (int s = 0; s < n; s++)
        for (int r = 0; r < n; r++) {
            int64_t *a = &agg[(size_t)(s / block) * (size_t)nb + (size_t)(r / block)];
            *a += bytes[(size_t)s * (size_t)n + (size_t)r];
            if (*a > top)
                top = *a;
        }
    if (block > 1)
        fprintf(out, "%s, blocks of %d ranks\n", title, block);
    else
        fprintf(out, "%s\n", title);
    for (int s = 0; s < nb; s++) {
        fprintf(out, "%7d ", s * block);
        for (int r = 0; r < nb; r++) {
            int64_t v = agg[(size_t)s * (size_t)nb + (size_t)r];
            int k = v == 0 || top == 0 ? 0 : 1 + (int)((double)v / (double)top * 8.999);
            fputc(shades[k], out);
        }
        fputc('\n', out);
    }
    fprintf(out, "        scale: ' ' none, '.' least ... '@' %s\n", "most");
    free(agg);
}

static void histogram(FILE *out, const int64_t *h, int format)
{
    int first = 1;
    for (int k = 0; k < SCOPE_SIZE_BUCKETS; k++) {
        if (!h[k])
            continue;
        int64_t lo = k == 0 ? 0 : (int64_t)1 << (k - 1);
        int64_t hi = k == 0 ? 0 : ((int64_t)1 << k) - 1;
        if (format == FMT_JSON) {
            fprintf(out, "%s{\"min_bytes\": %lld, \"max_bytes\": %lld, \"messages\": %lld}",
                    first ? "" : ", ", (long long)lo, (long long)hi, (long long)h[k]);
        } else {
            char a[32], b[32];
            scope__fmt_bytes(a, sizeof a, lo);
            scope__fmt_bytes(b, sizeof b, hi);
            fprintf(out, "  %10s .. %-10s %12lld\n", a, b, (long long)h[k]);
        }
        first = 0;
    }
}

/* A collective region whose calls have no pairs, and how many calls
 * with data it has. */
struct unpaired {
    int region;
    int64_t calls;
};

/* The matrix as read: n ranks, bytes [sender * n + receiver], the np
 * pairs that exchanged messages, the totals and the size histogram; for
 * the collectives, the nu regions without pairs. */
struct comm_view {
    int n;
    const int64_t *bytes;
    struct pair *pairs;
    size_t np;
    int64_t all_msgs, all_bytes;
    const int64_t *hist;
    const struct unpaired *un;
    size_t nu;
    scope_profile *p;
};

/* The collective regions (`region`, or all) that recorded data but whose
 * calls the byte model gives no pair: reductions to all, scans,
 * barriers, neighbourhood collectives. Fills un (room for every region)
 * and returns how many, or -1 on a reader error. Cost: their data
 * columns. */
static int find_unpaired(scope_profile *p, int region, struct unpaired *un)
{
    int nu = 0;
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        const char *op = scope_profile_region_operation(p, r);
        if ((region != SCOPE_COMM_ALL_REGIONS && r != region) ||
            !scope_region_is_collective(op) || scope_region_is_collective_pairwise(op))
            continue;
        int64_t calls = 0;
        for (int k = 0; k < scope_profile_rank_count(p); k++) {
            scope_moved mv;
            if (scope_profile_moved(p, r, scope_profile_rank(p, k), &mv) < 0)
                return -1;
            for (int64_t i = 0; mv.comm && i < mv.n; i++)
                calls += mv.comm[i] >= 0;   /* a call with data */
        }
        if (calls > 0)
            un[nu++] = (struct unpaired){ r, calls };
    }
    return nu;
}

/* The regions without pairs, under the collective table. */
static void print_unpaired(const struct comm_view *v)
{
    if (!v->nu)
        return;
    printf("\nno pairs (the byte model names no partner of these calls)\n");
    for (size_t i = 0; i < v->nu; i++)
        printf("  %-28s %12lld call%s\n", scope_profile_region_name(v->p, v->un[i].region),
               (long long)v->un[i].calls, v->un[i].calls == 1 ? "" : "s");
}

/* csv: one line per pair; json: the totals, the pairs and the sizes. */
static void print_machine(const struct comm_view *v, int format)
{
    if (format == FMT_CSV) {
        fputs("sender,receiver,messages,bytes\n", stdout);
        for (size_t i = 0; i < v->np; i++)
            printf("%d,%d,%lld,%lld\n", v->pairs[i].s, v->pairs[i].r,
                   (long long)v->pairs[i].messages, (long long)v->pairs[i].bytes);
        return;
    }
    printf("{\"size\": %d, \"messages\": %lld, \"bytes\": %lld, \"pairs\": [", v->n,
           (long long)v->all_msgs, (long long)v->all_bytes);
    for (size_t i = 0; i < v->np; i++)
        printf("%s{\"sender\": %d, \"receiver\": %d, \"messages\": %lld, \"bytes\": %lld}",
               i ? ", " : "", v->pairs[i].s, v->pairs[i].r, (long long)v->pairs[i].messages,
               (long long)v->pairs[i].bytes);
    fputs("], \"sizes\": [", stdout);
    histogram(stdout, v->hist, FMT_JSON);
    fputs("]", stdout);
    if (v->un) {
        fputs(", \"unpaired\": [", stdout);
        for (size_t i = 0; i < v->nu; i++) {
            fputs(i ? ", {\"region\": " : "{\"region\": ", stdout);
            scope__put_json_string(stdout, scope_profile_region_name(v->p, v->un[i].region));
            printf(", \"calls\": %lld}", (long long)v->un[i].calls);
        }
        fputs("]", stdout);
    }
    fputs("}\n", stdout);
}

static const char *kind_name(int kind)
{
    return kind == SCOPE_COMM_P2P ? "point-to-point"
         : kind == SCOPE_COMM_ONE_SIDED ? "one-sided" : "collective (pairwise shares)";
}

/* The table for people: the totals, the heat map, the `top` busiest pairs
 * (sorts v->pairs by bytes) and the message sizes. */
static void print_table(struct comm_view *v, int64_t top, int kind)
{
    char b[32];
    scope__fmt_bytes(b, sizeof b, v->all_bytes);
    printf("%lld %s messages, %s, between %zu pairs of %d ranks\n\n", (long long)v->all_msgs,
           kind_name(kind), b, v->np, v->n);
    int w = scope__out_width(stdout, 0);
    heat_map(stdout, v->bytes, v->n, w > 0 ? w : 80,
             kind == SCOPE_COMM_P2P ? "bytes sent (rows: senders, columns: receivers)"
                                    : "bytes moved (rows: from, columns: to)");
    qsort(v->pairs, v->np, sizeof *v->pairs, by_bytes);
    printf("\nbusiest pairs\n  %8s %8s %12s %12s %12s\n", "sender", "receiver", "messages",
           "bytes", "mean size");
    for (size_t i = 0; i < v->np && (int64_t)i < top; i++) {
        char tb[32], mb[32];
        scope__fmt_bytes(tb, sizeof tb, v->pairs[i].bytes);
        scope__fmt_bytes(mb, sizeof mb, v->pairs[i].bytes / v->pairs[i].messages);
        printf("  %8d %8d %12lld %12s %12s\n", v->pairs[i].s, v->pairs[i].r,
               (long long)v->pairs[i].messages, tb, mb);
    }
    printf("\nmessage sizes\n");
    histogram(stdout, v->hist, FMT_TABLE);
    print_unpaired(v);
}

int scope_cmd_comm(int argc, char **argv)
{
    static const struct option opts[] = {
        { "region", required_argument, NULL, 'r' },
        { "format", required_argument, NULL, 'f' },
        { "top", required_argument, NULL, 't' },
        { "one-sided", no_argument, NULL, 'o' },
        { "collectives", no_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *region_name = NULL;
    int format = FMT_TABLE, c, kind = SCOPE_COMM_P2P;
    int64_t top = 10;
    scope_profile *p;
    scope__options parse = { .cmd = "comm", .help = comm_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'r':
            region_name = optarg;
            break;
        case 't':
            if (scope__parse_i64(optarg, &top) < 0 || top < 0)
                return scope__usage_error("comm", "--top takes a whole number, not '%s'", optarg);
            break;
        case 'o':
        case 'c':
            if (kind != SCOPE_COMM_P2P && kind != (c == 'o' ? SCOPE_COMM_ONE_SIDED
                                                            : SCOPE_COMM_COLLECTIVE))
                return scope__usage_error("comm", "--one-sided and --collectives exclude "
                                                  "each other");
            kind = c == 'o' ? SCOPE_COMM_ONE_SIDED : SCOPE_COMM_COLLECTIVE;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    int status = 1, region = SCOPE_COMM_ALL_REGIONS;
    int64_t *messages = NULL, *bytes = NULL;
    struct pair *pairs = NULL;
    struct unpaired *un = NULL;
    int nu = 0;
    int64_t hist[SCOPE_SIZE_BUCKETS] = { 0 };
    if (region_name && (region = scope_profile_region_index(p, region_name)) < 0) {
        fprintf(stderr, "scope: comm: no region '%s' in the profile\n", region_name);
        goto out;
    }
    int n = scope_profile_world_size(p);
    messages = calloc((size_t)n * (size_t)n + 1, sizeof *messages);
    bytes = calloc((size_t)n * (size_t)n + 1, sizeof *bytes);
    if (!messages || !bytes) {
        scope__fail_msg("out of memory");
        goto out;
    }
    if (scope_profile_comm_matrix_kind(p, kind, region, n, messages, bytes) < 0 ||
        scope_profile_size_histogram_kind(p, kind, region, SCOPE_ALL_RANKS, hist) < 0) {
        scope__fail_msg(scope_reader_errmsg());
        goto out;
    }
    if (kind == SCOPE_COMM_COLLECTIVE) {
        un = calloc((size_t)scope_profile_region_count(p) + 1, sizeof *un);
        if (!un || (nu = find_unpaired(p, region, un)) < 0) {
            scope__fail_msg(un ? scope_reader_errmsg() : "out of memory");
            goto out;
        }
    }
    const char *what = kind_name(kind);
    size_t np = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        np += messages[i] > 0;
    pairs = calloc(np + 1, sizeof *pairs);
    if (!pairs) {
        scope__fail_msg("out of memory");
        goto out;
    }
    np = 0;
    int64_t all_msgs = 0, all_bytes = 0;
    for (int s = 0; s < n; s++)
        for (int r = 0; r < n; r++) {
            size_t i = (size_t)s * (size_t)n + (size_t)r;
            if (messages[i] > 0)
                pairs[np++] = (struct pair){ s, r, messages[i], bytes[i] };
            all_msgs += messages[i];
            all_bytes += bytes[i];
        }
    struct comm_view v = { n, bytes, pairs, np, all_msgs, all_bytes, hist, un, (size_t)nu, p };
    if (format != FMT_TABLE)
        print_machine(&v, format);
    else if (np == 0 && !scope_profile_has_moved(p))
        printf("the profile records no data of MPI calls: record them with MPI_* in the "
               "config (the default), without SCOPE_MPI_DATA=0\n");
    else if (np == 0) {
        printf("no %s messages recorded%s%s\n", what, region_name ? " in " : "",
               region_name ? region_name : "");
        print_unpaired(&v);
    } else
        print_table(&v, top, kind);
    status = scope__stdout_check("cannot write to standard output");
out:
    free(messages);
    free(bytes);
    free(pairs);
    free(un);
    scope_profile_close(p);
    return status;
}
