/*
 * cmd_io.c - `scope io`: what each rank read and wrote, file by file. The
 * files table (largest first; a file several ranks shared on one line
 * with its spread over them), the access-size histogram, the slowest
 * ranks, the totals per host and file system, and the findings the
 * numbers show (most accesses small, accesses off the block boundary,
 * many ranks writing one file with independent calls, one rank doing all
 * the I/O, metadata slower than data), each with the numbers behind it;
 * --format csv|json give every (file, layer, rank) record.
 *
 * Everything comes from the reader's analysis (scope_reader_io.h); this
 * file only chooses and prints.
 */
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_reader.h"
#include "scope_reader_io.h"

static const char io_help[] =
    "usage: scope io [--layer L[,L...]] [--ranks LIST] [--file REGEX]\n"
    "                [--format table|csv|json] [--top N] PROFILE...\n"
    "\n"
    "What each rank read and wrote, file by file, in four layers: posix\n"
    "(open, read, write, ... on descriptors), stdio (fopen, fwrite, fprintf,\n"
    "...), mpiio (MPI_File_*) and hdf5 (H5F and H5D). A call one layer made\n"
    "for another (the write inside an fwrite, the pwrite inside an\n"
    "MPI_File_write_at_all) counts in both layers, as Darshan counts it, and\n"
    "says which layer issued it; totals count it once. docs/io.md says what\n"
    "each number means and where scope counts differently from Darshan.\n"
    "\n"
    "  --layer L      only these layers (posix, stdio, mpiio, hdf5; comma-separated)\n"
    "  --ranks LIST   only these ranks (e.g. 0,2-3)\n"
    "  --file REGEX   only the files whose name matches (POSIX extended regex;\n"
    "                 the name is the resolved path, a stream's <STDOUT>, a\n"
    "                 dataset's file:path); rank and host totals stay whole\n"
    "  --format F     table (default): the files (largest first, a shared file\n"
    "                 on one line with its slowest and fastest rank), the\n"
    "                 access sizes, the slowest ranks, hosts and file systems,\n"
    "                 findings; csv: one row per file, layer and rank, header\n"
    "                   file,layer,rank,opens,reads,writes,bytes_read,\n"
    "                   bytes_written,read_time,write_time,meta_time,...\n"
    "                 (times in seconds); json: files, records, datasets,\n"
    "                 spreads, ranks, hosts, file_systems, findings\n"
    "  --top N        rows of the files and ranks tables (default 20)\n"
    "  -h, --help     this text\n";

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

struct view {
    scope_profile *p;
    scope_io_report *r;
    uint8_t *keep;                  /* [file]: chosen by --file */
    int64_t top;
};

/* The bins' names: "0-100", "100-1K", ..., "1G+". */
static const char *const bin_name[SCOPE_IO_SIZE_BINS] = {
    "0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M", "10M-100M",
    "100M-1G", "1G+",
};

static void put_seconds(FILE *out, double s)
{
    char b[64];
    scope__fmt_seconds_dbl(b, sizeof b, s * 1e9);
    fputs(b, out);
}

static double rec_time(const scope_io_record *x)
{
    return x->read_time + x->write_time + x->meta_time;
}

/* --- csv and json ----------------------------------------------------- */

static void csv_record(const scope_io_report *r, const scope_io_record *x, const char *name)
{
    scope__put_csv_field(stdout, name);
    printf(",%s,%d,%lld,%lld,%lld,%lld,%lld,", scope_io_layer_name(x->layer), x->rank,
           (long long)x->opens, (long long)x->reads, (long long)x->writes,
           (long long)x->bytes_read, (long long)x->bytes_written);
    put_seconds(stdout, x->read_time);
    putchar(',');
    put_seconds(stdout, x->write_time);
    putchar(',');
    put_seconds(stdout, x->meta_time);
    const int64_t v[] = { x->closes, x->seeks, x->stats, x->syncs, x->mmaps, x->dups, x->metas,
                          x->errors, x->max_byte_read, x->max_byte_written, x->consec_reads,
                          x->consec_writes, x->seq_reads, x->seq_writes, x->rw_switches,
                          x->unaligned, x->coll_reads, x->coll_writes, x->nb_reads, x->nb_writes,
                          x->split_reads, x->split_writes };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        printf(",%lld", (long long)v[i]);
    for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++)
        printf(",%lld", (long long)x->size_read[b]);
    for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++)
        printf(",%lld", (long long)x->size_written[b]);
    for (int k = 0; k < SCOPE_IO_COMMON; k++)
        printf(",%lld,%lld", (long long)x->access_size[k], (long long)x->access_count[k]);
    for (int k = 0; k < SCOPE_IO_COMMON; k++)
        printf(",%lld,%lld", (long long)x->stride[k], (long long)x->stride_count[k]);
    for (int k = 0; k < SCOPE_IO_LAYERS; k++)
        if (k == 0 || k >= SCOPE_IO_STDIO)
            printf(",%lld,%lld", (long long)x->issued_read[k], (long long)x->issued_written[k]);
    int64_t t0 = r->heat_start_ns;
    const int64_t ts[] = { x->first_ns, x->last_ns, x->open_ns, x->close_ns };
    for (int k = 0; k < 4; k++) {
        putchar(',');
        if (ts[k] >= 0)
            put_seconds(stdout, (double)(ts[k] - t0) * 1e-9);
    }
    putchar('\n');
}

static void csv_header(void)
{
    fputs("file,layer,rank,opens,reads,writes,bytes_read,bytes_written,read_time,write_time,"
          "meta_time,closes,seeks,stats,syncs,mmaps,dups,metas,errors,max_byte_read,"
          "max_byte_written,consec_reads,consec_writes,seq_reads,seq_writes,rw_switches,"
          "unaligned,coll_reads,coll_writes,nb_reads,nb_writes,split_reads,split_writes",
          stdout);
    for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++)
        printf(",size_read_%s", bin_name[b]);
    for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++)
        printf(",size_written_%s", bin_name[b]);
    for (int k = 1; k <= SCOPE_IO_COMMON; k++)
        printf(",access%d_size,access%d_count", k, k);
    for (int k = 1; k <= SCOPE_IO_COMMON; k++)
        printf(",stride%d,stride%d_count", k, k);
    for (int k = 0; k < SCOPE_IO_LAYERS; k++)
        if (k == 0 || k >= SCOPE_IO_STDIO)
            printf(",read_via_%s,written_via_%s", k ? scope_io_layer_name(k) : "program",
                   k ? scope_io_layer_name(k) : "program");
    fputs(",first_start,last_end,first_open,last_close\n", stdout);
}

static void json_record(const scope_io_record *x, int first)
{
    printf("%s{\"file\": %d, \"layer\": \"%s\", \"rank\": %d", first ? "" : ", ", x->file,
           scope_io_layer_name(x->layer), x->rank);
    const char *names[] = { "opens", "closes", "reads", "writes", "seeks", "stats", "syncs",
                            "mmaps", "dups", "metas", "errors", "bytes_read", "bytes_written",
                            "max_byte_read", "max_byte_written", "consec_reads",
                            "consec_writes", "seq_reads", "seq_writes", "rw_switches",
                            "unaligned", "coll_reads", "coll_writes", "nb_reads", "nb_writes",
                            "split_reads", "split_writes", "first_ns", "last_ns", "open_ns",
                            "close_ns" };
    const int64_t v[] = { x->opens, x->closes, x->reads, x->writes, x->seeks, x->stats, x->syncs,
                          x->mmaps, x->dups, x->metas, x->errors, x->bytes_read, x->bytes_written,
                          x->max_byte_read, x->max_byte_written, x->consec_reads,
                          x->consec_writes, x->seq_reads, x->seq_writes, x->rw_switches,
                          x->unaligned, x->coll_reads, x->coll_writes, x->nb_reads, x->nb_writes,
                          x->split_reads, x->split_writes, x->first_ns, x->last_ns, x->open_ns,
                          x->close_ns };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        printf(", \"%s\": %lld", names[i], (long long)v[i]);
    fputs(", \"read_time\": ", stdout);
    put_seconds(stdout, x->read_time);
    fputs(", \"write_time\": ", stdout);
    put_seconds(stdout, x->write_time);
    fputs(", \"meta_time\": ", stdout);
    put_seconds(stdout, x->meta_time);
    const int64_t *arrays[] = { x->size_read, x->size_written, x->access_size, x->access_count,
                                x->stride, x->stride_count, x->issued_read, x->issued_written };
    const char *an[] = { "size_read", "size_written", "access_size", "access_count", "stride",
                         "stride_count", "issued_read", "issued_written" };
    const int alen[] = { SCOPE_IO_SIZE_BINS, SCOPE_IO_SIZE_BINS, SCOPE_IO_COMMON, SCOPE_IO_COMMON,
                         SCOPE_IO_COMMON, SCOPE_IO_COMMON, SCOPE_IO_LAYERS, SCOPE_IO_LAYERS };
    for (int a = 0; a < 8; a++) {
        printf(", \"%s\": [", an[a]);
        for (int i = 0; i < alen[a]; i++)
            printf("%s%lld", i ? ", " : "", (long long)arrays[a][i]);
        putchar(']');
    }
    putchar('}');
}

static void json_total(const scope_io_total *t, int first)
{
    printf("%s{", first ? "" : ", ");
    if (t->name) {
        fputs("\"name\": ", stdout);
        scope__put_json_string(stdout, t->name);
        if (t->mount) {
            fputs(", \"mount\": ", stdout);
            scope__put_json_string(stdout, t->mount);
        }
    } else {
        printf("\"rank\": %d", t->rank);
    }
    printf(", \"files\": %d, \"calls\": %lld, \"bytes_read\": %lld, \"bytes_written\": %lld, "
           "\"time\": ", t->nfiles, (long long)t->calls, (long long)t->bytes_read,
           (long long)t->bytes_written);
    put_seconds(stdout, t->time);
    putchar('}');
}

/* --- findings ------------------------------------------------------------ */

struct finding {
    const char *kind;
    char text[512];
};

/* The findings the numbers show, into f[] (room for 16); how many. */
static int findings(const struct view *v, struct finding *f)
{
    const scope_io_report *r = v->r;
    int n = 0;
    /* small accesses and unaligned ones, where the file system sees them:
     * the POSIX layer */
    int64_t w = 0, ws = 0, rd = 0, rs = 0, acc = 0, un = 0;
    double meta = 0, data = 0;
    for (int64_t i = 0; i < r->nrecords; i++) {
        const scope_io_record *x = &r->records[i];
        if (!v->keep[x->file] || x->layer != SCOPE_IO_POSIX)
            continue;
        w += x->writes;
        rd += x->reads;
        for (int b = 0; b < 4; b++) {
            ws += x->size_written[b];
            rs += x->size_read[b];
        }
        if (x->max_byte_read >= 0 || x->max_byte_written >= 0)
            acc += x->reads + x->writes;
        un += x->unaligned;
        meta += x->meta_time;
        data += x->read_time + x->write_time;
    }
    if (w >= 10 && ws * 2 > w) {
        f[n].kind = "small_writes";
        snprintf(f[n++].text, sizeof f->text, "most writes are small: %lld of %lld POSIX writes "
                 "(%.0f%%) moved under 100 KiB each", (long long)ws, (long long)w,
                 100.0 * (double)ws / (double)w);
    }
    if (rd >= 10 && rs * 2 > rd) {
        f[n].kind = "small_reads";
        snprintf(f[n++].text, sizeof f->text, "most reads are small: %lld of %lld POSIX reads "
                 "(%.0f%%) moved under 100 KiB each", (long long)rs, (long long)rd,
                 100.0 * (double)rs / (double)rd);
    }
    if (acc >= 10 && un * 2 > acc) {
        f[n].kind = "unaligned";
        snprintf(f[n++].text, sizeof f->text, "accesses unaligned to the block size: %lld of "
                 "%lld POSIX reads and writes (%.0f%%) start off a block boundary of their file "
                 "system", (long long)un, (long long)acc, 100.0 * (double)un / (double)acc);
    }
    /* many ranks writing one file with independent calls */
    for (int32_t fi = 0; fi < r->nfiles && n < 12; fi++) {
        if (!v->keep[fi] || r->files[fi].kind != 0)
            continue;
        int pw = 0, mw = 0;
        int64_t pbytes = 0, mwrites = 0, mcoll = 0;
        for (int64_t i = 0; i < r->nrecords; i++) {
            const scope_io_record *x = &r->records[i];
            if (x->file != fi || !x->writes)
                continue;
            if (x->layer == SCOPE_IO_POSIX && x->issued_written[0] > 0) {
                pw++;   /* the program's own POSIX writes, not a library's */
                pbytes += x->issued_written[0];
            } else if (x->layer == SCOPE_IO_MPIIO) {
                mw++;
                mwrites += x->writes;
                mcoll += x->coll_writes + x->split_writes;
            }
        }
        char b[32];
        scope__fmt_bytes(b, sizeof b, pbytes);
        if (mw >= 2 && mcoll == 0) {
            f[n].kind = "independent_shared";
            snprintf(f[n++].text, sizeof f->text, "%d ranks write %s with independent MPI-IO: "
                     "%lld writes, none collective", mw, r->files[fi].name, (long long)mwrites);
        } else if (pw >= 2) {
            f[n].kind = "independent_shared";
            snprintf(f[n++].text, sizeof f->text, "%d ranks write %s with POSIX calls of their "
                     "own: %s (collective MPI-IO could aggregate them)", pw, r->files[fi].name, b);
        }
    }
    /* one rank doing all the I/O */
    int64_t all = 0, most = 0;
    int who = -1, busy = 0;
    for (int32_t k = 0; k < r->nranks; k++) {
        int64_t b = r->ranks[k].bytes_read + r->ranks[k].bytes_written;
        all += b;
        busy += b > 0;
        if (b > most) {
            most = b;
            who = r->ranks[k].rank;
        }
    }
    if (r->nranks >= 2 && all > 0 && most * 10 >= all * 9) {
        char a[32], b[32];
        scope__fmt_bytes(a, sizeof a, most);
        scope__fmt_bytes(b, sizeof b, all);
        f[n].kind = "one_rank";
        snprintf(f[n++].text, sizeof f->text, "rank %d did %.0f%% of the I/O: %s of %s, "
                 "%d of %d ranks moved any bytes", who, 100.0 * (double)most / (double)all, a, b,
                 busy, r->nranks);
    }
    if (meta > data && meta > 0) {
        char a[32], b[32];
        scope__fmt_human(a, sizeof a, meta * 1e9);
        scope__fmt_human(b, sizeof b, data * 1e9);
        f[n].kind = "metadata";
        snprintf(f[n++].text, sizeof f->text, "metadata time above data time: POSIX opens, "
                 "closes, seeks, stats and syncs took %s, reads and writes %s", a, b);
    }
    if (r->files_past_bound > 0) {
        f[n].kind = "past_bound";
        snprintf(f[n++].text, sizeof f->text, "%lld opens were of files past the recorder's "
                 "table (SCOPE_IO_FILES): their calls count under <other files>",
                 (long long)r->files_past_bound);
    }
    return n;
}

/* --- the table ------------------------------------------------------------ */

struct frow {
    int32_t file;
    int layer;                      /* its largest layer */
    int64_t bytes;
};

static int by_bytes(const void *a, const void *b)
{
    const struct frow *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->file - y->file;
}

static int by_time(const void *a, const void *b)
{
    const scope_io_total *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? 1 : -1;
    return x->rank - y->rank;
}

static void print_files(const struct view *v)
{
    const scope_io_report *r = v->r;
    struct frow *rows = calloc((size_t)r->nfiles + 1, sizeof *rows);
    if (!rows)
        return;
    int nrow = 0;
    for (int32_t fi = 0; fi < r->nfiles; fi++) {
        if (!v->keep[fi] || r->files[fi].kind == 2 || !r->files[fi].nranks)
            continue;
        /* the layer of its largest bytes (the highest on a tie: what the
         * program called) */
        int64_t by[SCOPE_IO_LAYERS] = { 0 };
        int any[SCOPE_IO_LAYERS] = { 0 };
        for (int64_t i = 0; i < r->nrecords; i++)
            if (r->records[i].file == fi) {
                by[r->records[i].layer] += r->records[i].bytes_read + r->records[i].bytes_written;
                any[r->records[i].layer] = 1;
            }
        int best = 0;
        for (int l = SCOPE_IO_POSIX; l < SCOPE_IO_LAYERS; l++)
            if (any[l] && (!best || by[l] >= by[best]))
                best = l;
        rows[nrow++] = (struct frow){ fi, best, by[best] };
    }
    if (nrow > 0)
        qsort(rows, (size_t)nrow, sizeof *rows, by_bytes);
    static const char *const heads[] = { "file", "layers", "ranks", "read", "written", "time",
                                         "slowest rank", "fastest rank" };
    static const int right[] = { 0, 0, 1, 1, 1, 1, 0, 0 };
    static const int shrink[] = { 1, 0, 0, 0, 0, 0, 0, 0 };
    scope__table t;
    scope__table_init(&t, 8, heads, right);
    scope__table_fit(&t, scope__out_width(stdout, 0), shrink);
    for (int i = 0; i < nrow && i < v->top; i++) {
        int32_t fi = rows[i].file;
        char layers[64] = "", ranks[16], rb[32], wb[32], tb[32], slow[96] = "", fast[96] = "";
        int64_t br = 0, bw = 0;
        double tm = 0;
        for (int l = SCOPE_IO_LAYERS - 1; l >= SCOPE_IO_POSIX; l--) {
            int has = 0;
            for (int64_t k = 0; k < r->nrecords && !has; k++)
                has = r->records[k].file == fi && r->records[k].layer == l;
            if (has)
                snprintf(layers + strlen(layers), sizeof layers - strlen(layers), "%s%s",
                         layers[0] ? ">" : "", scope_io_layer_name(l));
        }
        for (int64_t k = 0; k < r->nrecords; k++)
            if (r->records[k].file == fi && r->records[k].layer == rows[i].layer) {
                br += r->records[k].bytes_read;
                bw += r->records[k].bytes_written;
                tm += rec_time(&r->records[k]);
            }
        for (int32_t s = 0; s < r->nspreads; s++) {
            const scope_io_spread *sp = &r->spreads[s];
            if (sp->file != fi || sp->layer != rows[i].layer)
                continue;
            char a[32], b[32];
            scope__fmt_human(a, sizeof a, sp->slowest_time * 1e9);
            scope__fmt_bytes(b, sizeof b, sp->slowest_bytes);
            snprintf(slow, sizeof slow, "%d: %s, %s", sp->slowest_rank, a, b);
            scope__fmt_human(a, sizeof a, sp->fastest_time * 1e9);
            scope__fmt_bytes(b, sizeof b, sp->fastest_bytes);
            snprintf(fast, sizeof fast, "%d: %s, %s", sp->fastest_rank, a, b);
        }
        snprintf(ranks, sizeof ranks, "%d", r->files[fi].nranks);
        scope__fmt_bytes(rb, sizeof rb, br);
        scope__fmt_bytes(wb, sizeof wb, bw);
        scope__fmt_human(tb, sizeof tb, tm * 1e9);
        const char *cells[] = { r->files[fi].name, layers, ranks, rb, wb, tb, slow, fast };
        scope__table_add(&t, cells);
    }
    printf("files (largest first; bytes and time of each file's largest layer, over its ranks)\n");
    scope__table_print(&t, stdout);
    if (nrow > v->top)
        printf("  ... and %d more (--top)\n", nrow - (int)v->top);
    scope__table_free(&t);
    free(rows);
}

static void print_sizes(const struct view *v)
{
    const scope_io_report *r = v->r;
    int64_t h[SCOPE_IO_LAYERS][2][SCOPE_IO_SIZE_BINS] = { { { 0 } } };
    int used[SCOPE_IO_LAYERS] = { 0 };
    for (int64_t i = 0; i < r->nrecords; i++) {
        const scope_io_record *x = &r->records[i];
        if (!v->keep[x->file])
            continue;
        for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++) {
            h[x->layer][0][b] += x->size_read[b];
            h[x->layer][1][b] += x->size_written[b];
            used[x->layer] |= x->size_read[b] || x->size_written[b];
        }
    }
    printf("\naccess sizes (reads/writes of each size, in bytes)\n  %-10s", "");
    for (int l = SCOPE_IO_POSIX; l < SCOPE_IO_LAYERS; l++)
        if (used[l])
            printf(" %21s", scope_io_layer_name(l));
    putchar('\n');
    for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++) {
        printf("  %-10s", bin_name[b]);
        for (int l = SCOPE_IO_POSIX; l < SCOPE_IO_LAYERS; l++)
            if (used[l]) {
                char cell[48];
                snprintf(cell, sizeof cell, "%lld/%lld", (long long)h[l][0][b],
                         (long long)h[l][1][b]);
                printf(" %21s", cell);
            }
        putchar('\n');
    }
}

static void print_totals(const char *title, const scope_io_total *t, int n, int64_t top)
{
    printf("\n%s\n", title);
    for (int i = 0; i < n && i < top; i++) {
        char tb[32], rb[32], wb[32], who[300];
        scope__fmt_human(tb, sizeof tb, t[i].time * 1e9);
        scope__fmt_bytes(rb, sizeof rb, t[i].bytes_read);
        scope__fmt_bytes(wb, sizeof wb, t[i].bytes_written);
        if (!t[i].name)
            snprintf(who, sizeof who, "rank %d", t[i].rank);
        else if (t[i].mount)
            snprintf(who, sizeof who, "%s on %s", t[i].name[0] ? t[i].name : "(streams)",
                     t[i].mount[0] ? t[i].mount : "-");
        else
            snprintf(who, sizeof who, "%s", t[i].name[0] ? t[i].name : "(unknown host)");
        printf("  %-28s %10s in %8lld calls, read %10s, written %10s, %d files\n", who, tb,
               (long long)t[i].calls, rb, wb, t[i].nfiles);
    }
}

static void print_table(struct view *v)
{
    scope_io_report *r = v->r;
    int64_t br = 0, bw = 0, calls = 0;
    double tm = 0;
    for (int32_t k = 0; k < r->nranks; k++) {
        br += r->ranks[k].bytes_read;
        bw += r->ranks[k].bytes_written;
        tm += r->ranks[k].time;
        calls += r->ranks[k].calls;
    }
    int nf = 0;
    for (int32_t i = 0; i < r->nfiles; i++)
        nf += v->keep[i] && r->files[i].kind != 2;
    char a[32], b[32], c[32];
    scope__fmt_bytes(a, sizeof a, br);
    scope__fmt_bytes(b, sizeof b, bw);
    scope__fmt_human(c, sizeof c, tm * 1e9);
    printf("I/O of %d ranks: %d files, %lld calls, read %s, written %s, %s in I/O calls\n\n",
           r->nranks, nf, (long long)calls, a, b, c);
    print_files(v);
    print_sizes(v);
    qsort(r->ranks, (size_t)r->nranks, sizeof *r->ranks, by_time);
    print_totals("slowest ranks (time in I/O calls, each call counted once)", r->ranks, r->nranks,
                 v->top < 5 ? v->top : 5);
    print_totals("hosts", r->hosts, r->nhosts, v->top);
    print_totals("file systems", r->fs, r->nfs, v->top);
    struct finding f[16];
    int nfind = findings(v, f);
    printf("\nfindings\n");
    if (!nfind)
        printf("  none\n");
    for (int i = 0; i < nfind; i++)
        printf("  - %s\n", f[i].text);
}

/* `], "key": [` and the records of x[0..n) on the files --file kept. */
static void json_records(const char *key, const scope_io_record *x, int64_t n,
                         const uint8_t *keep)
{
    printf("], \"%s\": [", key);
    int first = 1;
    for (int64_t i = 0; i < n; i++)
        if (keep[x[i].file]) {
            json_record(&x[i], first);
            first = 0;
        }
}

static void print_json(const struct view *v)
{
    const scope_io_report *r = v->r;
    fputs("{\"files\": [", stdout);
    int first = 1;
    for (int32_t i = 0; i < r->nfiles; i++) {
        const scope_io_file *f = &r->files[i];
        printf("%s{\"index\": %d, \"name\": ", first ? "" : ", ", i);
        scope__put_json_string(stdout, f->name);
        fputs(", \"given\": ", stdout);
        scope__put_json_string(stdout, f->given);
        fputs(", \"fs_type\": ", stdout);
        scope__put_json_string(stdout, f->fs_type);
        fputs(", \"mount\": ", stdout);
        scope__put_json_string(stdout, f->mount);
        printf(", \"kind\": %d, \"parent\": %d, \"block_size\": %lld, \"ranks\": %d, "
               "\"bytes_read\": %lld, \"bytes_written\": %lld, \"chosen\": %s}", f->kind,
               f->parent, (long long)f->block_size, f->nranks, (long long)f->bytes_read,
               (long long)f->bytes_written, v->keep[i] ? "true" : "false");
        first = 0;
    }
    json_records("records", r->records, r->nrecords, v->keep);
    json_records("datasets", r->datasets, r->ndatasets, v->keep);
    fputs("], \"spreads\": [", stdout);
    first = 1;
    for (int32_t i = 0; i < r->nspreads; i++) {
        const scope_io_spread *s = &r->spreads[i];
        if (!v->keep[s->file])
            continue;
        printf("%s{\"file\": %d, \"layer\": \"%s\", \"ranks\": %d, \"fastest_rank\": %d, "
               "\"fastest_bytes\": %lld, \"slowest_rank\": %d, \"slowest_bytes\": %lld, "
               "\"bytes\": %lld, \"fastest_time\": ", first ? "" : ", ", s->file,
               scope_io_layer_name(s->layer), s->nranks, s->fastest_rank,
               (long long)s->fastest_bytes, s->slowest_rank, (long long)s->slowest_bytes,
               (long long)s->bytes);
        put_seconds(stdout, s->fastest_time);
        fputs(", \"slowest_time\": ", stdout);
        put_seconds(stdout, s->slowest_time);
        fputs(", \"time\": ", stdout);
        put_seconds(stdout, s->time);
        printf(", \"time_variance\": %.17g, \"bytes_variance\": %.17g}", s->time_variance,
               s->bytes_variance);
        first = 0;
    }
    const scope_io_total *lists[] = { r->ranks, r->hosts, r->fs };
    const int ns[] = { r->nranks, r->nhosts, r->nfs };
    const char *names[] = { "ranks", "hosts", "file_systems" };
    for (int l = 0; l < 3; l++) {
        printf("], \"%s\": [", names[l]);
        for (int i = 0; i < ns[l]; i++)
            json_total(&lists[l][i], i == 0);
    }
    fputs("], \"findings\": [", stdout);
    struct finding f[16];
    int nfind = findings(v, f);
    for (int i = 0; i < nfind; i++) {
        printf("%s{\"kind\": \"%s\", \"text\": ", i ? ", " : "", f[i].kind);
        scope__put_json_string(stdout, f[i].text);
        putchar('}');
    }
    printf("], \"files_past_bound\": %lld}\n", (long long)r->files_past_bound);
}

/* --layer posix,mpiio: the mask, or 0 for a bad name. */
static unsigned parse_layers(const char *s)
{
    unsigned mask = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        int l = SCOPE_IO_POSIX;
        while (l < SCOPE_IO_LAYERS && strcmp(scope_io_layer_name(l), t) != 0)
            l++;
        if (l == SCOPE_IO_LAYERS) {
            free(copy);
            return 0;
        }
        mask |= 1u << l;
    }
    free(copy);
    return mask;
}

int scope_cmd_io(int argc, char **argv)
{
    static const struct option opts[] = {
        { "layer", required_argument, NULL, 'l' },
        { "ranks", required_argument, NULL, 'r' },
        { "file", required_argument, NULL, 'F' },
        { "format", required_argument, NULL, 'f' },
        { "top", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int format = FMT_TABLE, c, nranks = 0;
    int32_t *ranks = NULL;
    const char *file_re = NULL;
    scope_io_options o = { 0 };
    int64_t top = 20;
    scope__options parse = { .cmd = "io", .help = io_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'l':
            if (!(o.layers = parse_layers(optarg))) {
                free(ranks);
                return scope__usage_error("io", "unknown layer in '%s' (posix, stdio, mpiio, "
                                                "hdf5)", optarg);
            }
            break;
        case 'r':
            free(ranks);
            if ((nranks = scope__parse_ranks(optarg, &ranks)) < 0)
                return scope__usage_error("io", "--ranks takes a list like 0,2-3, not '%s'",
                                          optarg);
            break;
        case 'F':
            file_re = optarg;
            break;
        case 't':
            if (scope__parse_i64(optarg, &top) < 0 || top < 0) {
                free(ranks);
                return scope__usage_error("io", "--top takes a whole number, not '%s'", optarg);
            }
            break;
        }
    }
    if (c < 0) {
        free(ranks);
        return parse.status;
    }
    regex_t re;
    int have_re = 0;
    if (file_re) {
        int e = regcomp(&re, file_re, REG_EXTENDED | REG_NOSUB);
        if (e) {
            char why[128];
            regerror(e, &re, why, sizeof why);
            free(ranks);
            return scope__usage_error("io", "--file '%s' is not a regular expression: %s",
                                      file_re, why);
        }
        have_re = 1;
    }
    scope_io_report *r = NULL;
    struct view v = { 0 };
    scope_profile *p;
    int status = scope__operands("io", argc, argv, 0, NULL, &p);
    if (status != 0)
        goto out;
    status = 1;
    int *rk = NULL;
    if (ranks && !(rk = malloc((size_t)(nranks ? nranks : 1) * sizeof *rk))) {
        scope__fail_msg("out of memory");
        goto out;
    }
    for (int i = 0; i < nranks; i++)
        rk[i] = ranks[i];
    o.ranks = rk;
    o.nranks = nranks;
    int rc = scope_profile_io_report(p, &o, &r);
    free(rk);
    if (rc < 0) {
        fprintf(stderr, "scope: io: %s\n", scope_reader_errmsg());
        goto out;
    }
    v = (struct view){ p, r, calloc((size_t)r->nfiles + 1, 1), top };
    if (!v.keep) {
        scope__fail_msg("out of memory");
        goto out;
    }
    for (int32_t i = 0; i < r->nfiles; i++)
        v.keep[i] = !have_re || regexec(&re, r->files[i].name, 0, NULL, 0) == 0;
    if (format == FMT_CSV) {
        csv_header();
        for (int64_t i = 0; i < r->nrecords; i++)
            if (v.keep[r->records[i].file])
                csv_record(r, &r->records[i], r->files[r->records[i].file].name);
    } else if (format == FMT_JSON) {
        print_json(&v);
    } else if (!scope_profile_has_io(p)) {
        printf("the profile records no I/O calls: they are recorded by default (io = off or "
               "SCOPE_IO=0 turns it off); files written before scope recorded I/O have none\n");
    } else {
        print_table(&v);
    }
    status = scope__stdout_check("cannot write to standard output");
out:
    free(v.keep);
    scope_io_report_free(r);
    scope_profile_close(p);
    free(ranks);
    if (have_re)
        regfree(&re);
    return status;
}
