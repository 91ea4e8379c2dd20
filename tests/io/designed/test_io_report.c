/*
 * test_io_report.c - the I/O analysis (reader/scope_reader_io.h) on the
 * profile make_io_profiles.py designs: every counter of every (file,
 * layer, rank) record, the datasets, the shared files' spread, the totals
 * per rank, host and file system, the heat map, the per-call listing, and
 * the options (layers, ranks), each derived by hand from the table in
 * make_io_profiles.py (B = 1,000,000 ns; r the rank).
 *
 * usage: test_io_report PROFILE_DIR
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"
#include "scope_reader_io.h"

#define B 1000000
#define MiB 1048576
#define NS 1e-9

enum { F_R, F_D, F_O0, F_O1, F_O2, F_O3, F_S, F_E, F_T, NFILES };

static void near(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-15 + 1e-9 * fabs(want)) {
        fprintf(stderr, "%s: got %.17g, want %.17g\n", what, got, want);
        CHECK(0);
    }
}

static const scope_io_record *find(const scope_io_record *v, int64_t n, int file, int layer,
                                   int rank)
{
    for (int64_t i = 0; i < n; i++)
        if (v[i].file == file && v[i].layer == layer && v[i].rank == rank)
            return &v[i];
    fprintf(stderr, "no record (file %d, layer %d, rank %d)\n", file, layer, rank);
    CHECK(0);
    static scope_io_record none;
    return &none;
}

static void files(const scope_io_report *r)
{
    static const char *const names[NFILES] = {
        "/home/u/res.h5", "/home/u/res.h5:/grid/t", "/scratch/out.0", "/scratch/out.1",
        "/scratch/out.2", "/scratch/out.3", "/scratch/shared.dat", "<STDERR>", "<STDOUT>",
    };
    static const int kinds[NFILES] = { 0, 2, 0, 0, 0, 0, 0, 1, 1 };
    static const int nranks[NFILES] = { 2, 0, 1, 1, 1, 1, 4, 1, 1 };
    CHECK_I64(r->nfiles, NFILES);
    for (int i = 0; i < r->nfiles && i < NFILES; i++) {
        if (strcmp(r->files[i].name, names[i]) != 0)
            fprintf(stderr, "file %d: %s, want %s\n", i, r->files[i].name, names[i]);
        CHECK(strcmp(r->files[i].name, names[i]) == 0);
        CHECK_I64(r->files[i].kind, kinds[i]);
        CHECK_I64(r->files[i].nranks, nranks[i]);
    }
    CHECK_I64(r->files[F_D].parent, F_R);
    CHECK_I64(r->files[F_S].parent, -1);
    CHECK(strcmp(r->files[F_S].given, "shared.dat") == 0);
    CHECK(strcmp(r->files[F_S].fs_type, "lustre") == 0);
    CHECK(strcmp(r->files[F_S].mount, "/scratch") == 0);
    CHECK_I64(r->files[F_S].block_size, MiB);
    CHECK_I64(r->files[F_R].block_size, 4096);
    CHECK(strcmp(r->files[F_T].fs_type, "") == 0);
    /* bytes of the largest layer: S's posix (its writes include MPI-IO's) */
    CHECK_I64(r->files[F_S].bytes_written, 4 * (2000 + MiB));
    CHECK_I64(r->files[F_S].bytes_read, 4000);
    CHECK_I64(r->files[F_R].bytes_written, 16000);
}

static void shared_posix(const scope_io_report *r)
{
    for (int k = 0; k < 4; k++) {
        const scope_io_record *x = find(r->records, r->nrecords, F_S, SCOPE_IO_POSIX, k);
        CHECK_I64(x->opens, 1);
        CHECK_I64(x->closes, 1);
        CHECK_I64(x->reads, 2);
        CHECK_I64(x->writes, 3);
        CHECK_I64(x->seeks, 1);
        CHECK_I64(x->stats, 1);
        CHECK_I64(x->syncs + x->mmaps + x->dups + x->metas + x->errors, 0);
        CHECK_I64(x->coll_writes + x->nb_writes + x->split_writes, 0);
        CHECK_I64(x->bytes_read, 1000);
        CHECK_I64(x->bytes_written, 2000 + MiB);
        near(x->read_time, 60 * NS, "S posix read_time");
        near(x->write_time, (300 + 100 * k) * NS, "S posix write_time");
        near(x->meta_time, 215 * NS, "S posix meta_time");
        CHECK_I64(x->max_byte_read, 999);
        CHECK_I64(x->max_byte_written, (int64_t)(k + 1) * MiB - 1);
        CHECK_I64(x->consec_reads, 1);
        CHECK_I64(x->seq_reads, 1);
        CHECK_I64(x->consec_writes, 0);
        CHECK_I64(x->seq_writes, k == 0 ? 1 : 2);
        CHECK_I64(x->rw_switches, 2);
        CHECK_I64(x->unaligned, k == 0 ? 2 : 3);
        CHECK_I64(x->size_read[1], 2);
        CHECK_I64(x->size_written[1], 2);
        CHECK_I64(x->size_written[5], 1);
        int64_t sr = 0, sw = 0;
        for (int b = 0; b < SCOPE_IO_SIZE_BINS; b++) {
            sr += x->size_read[b];
            sw += x->size_written[b];
        }
        CHECK_I64(sr, 2);
        CHECK_I64(sw, 3);
        CHECK_I64(x->access_size[0], 500);
        CHECK_I64(x->access_count[0], 2);
        CHECK_I64(x->access_size[1], 1000);
        CHECK_I64(x->access_count[1], 2);
        CHECK_I64(x->access_size[2], MiB);
        CHECK_I64(x->access_count[2], 1);
        CHECK_I64(x->access_count[3], 0);
        CHECK_I64(x->stride[0], 0);
        CHECK_I64(x->stride_count[0], 1);
        CHECK_I64(x->stride[1], 3000);
        CHECK_I64(x->stride_count[1], 1);
        if (k == 0) {
            CHECK_I64(x->stride_count[2], 0);
        } else {
            CHECK_I64(x->stride[2], (int64_t)k * MiB - 5000 - 1000 * k);
            CHECK_I64(x->stride_count[2], 1);
        }
        CHECK_I64(x->issued_written[0], 2000);
        CHECK_I64(x->issued_written[SCOPE_IO_MPIIO], MiB);
        CHECK_I64(x->issued_read[0], 1000);
        CHECK_I64(x->first_ns, B + 1000);
        CHECK_I64(x->last_ns, B + 18200);
        CHECK_I64(x->open_ns, B + 1000);
        CHECK_I64(x->close_ns, B + 7100);

        const scope_io_record *m = find(r->records, r->nrecords, F_S, SCOPE_IO_MPIIO, k);
        CHECK_I64(m->writes, 1);
        CHECK_I64(m->coll_writes, 1);
        CHECK_I64(m->nb_writes + m->split_writes + m->coll_reads, 0);
        CHECK_I64(m->bytes_written, MiB);
        near(m->write_time, 1000.0 * (k + 1) * NS, "S mpiio write_time");
        CHECK_I64(m->size_written[5], 1);
        CHECK_I64(m->max_byte_written, -1);     /* offsets in etypes: no byte pattern */
        CHECK_I64(m->seq_writes, 0);
        CHECK_I64(m->issued_written[0], MiB);
        CHECK_I64(m->open_ns, -1);
        CHECK_I64(m->last_ns, B + 19000 + 1000 * k);
    }
}

static void per_rank_files(const scope_io_report *r)
{
    for (int k = 0; k < 4; k++) {
        const scope_io_record *p = find(r->records, r->nrecords, F_O0 + k, SCOPE_IO_POSIX, k);
        CHECK_I64(p->opens, 1);
        CHECK_I64(p->closes, 0);       /* fclose's close is libc's own, not a call of close */
        CHECK_I64(p->writes, 2);
        CHECK_I64(p->bytes_written, 4106);
        near(p->write_time, 200 * NS, "O posix write_time");
        near(p->meta_time, 100 * NS, "O posix meta_time");
        CHECK_I64(p->consec_writes, 1);
        CHECK_I64(p->seq_writes, 1);
        CHECK_I64(p->unaligned, 1);
        CHECK_I64(p->max_byte_written, 4105);
        CHECK_I64(p->size_written[0], 1);
        CHECK_I64(p->size_written[2], 1);
        CHECK_I64(p->access_size[0], 10);
        CHECK_I64(p->access_size[1], 4096);
        CHECK_I64(p->issued_written[SCOPE_IO_STDIO], 4106);
        CHECK_I64(p->issued_written[0], 0);
        const scope_io_record *s = find(r->records, r->nrecords, F_O0 + k, SCOPE_IO_STDIO, k);
        CHECK_I64(s->opens, 1);
        CHECK_I64(s->closes, 1);
        CHECK_I64(s->writes, 2);
        CHECK_I64(s->bytes_written, 4106);
        near(s->write_time, 350 * NS, "O stdio write_time");
        near(s->meta_time, 700 * NS, "O stdio meta_time");
        CHECK_I64(s->consec_writes, 1);
        CHECK_I64(s->unaligned, 1);
        CHECK_I64(s->issued_written[0], 4106);
    }
    const scope_io_record *t = find(r->records, r->nrecords, F_T, SCOPE_IO_POSIX, 0);
    CHECK_I64(t->writes, 1);
    CHECK_I64(t->bytes_written, 12);
    CHECK_I64(t->max_byte_written, -1);
    CHECK_I64(t->issued_written[SCOPE_IO_STDIO], 12);
    t = find(r->records, r->nrecords, F_T, SCOPE_IO_STDIO, 0);
    near(t->write_time, 100 * NS, "printf");
    const scope_io_record *e = find(r->records, r->nrecords, F_E, SCOPE_IO_POSIX, 3);
    CHECK_I64(e->errors, 1);
    CHECK_I64(e->writes, 0);
    near(e->meta_time, 20 * NS, "failed write");
}

static void hdf5(const scope_io_report *r)
{
    for (int k = 0; k < 2; k++) {
        const scope_io_record *h = find(r->records, r->nrecords, F_R, SCOPE_IO_HDF5, k);
        CHECK_I64(h->opens, 2);
        CHECK_I64(h->closes, 2);
        CHECK_I64(h->writes, 1);
        CHECK_I64(h->bytes_written, 8000);
        near(h->write_time, (1000 + 500 * k) * NS, "hdf5 write_time");
        near(h->meta_time, 1650 * NS, "hdf5 meta_time");
        CHECK_I64(h->size_written[2], 1);
        CHECK_I64(h->open_ns, B + 12000);
        CHECK_I64(h->close_ns, B + 16500);
        const scope_io_record *p = find(r->records, r->nrecords, F_R, SCOPE_IO_POSIX, k);
        CHECK_I64(p->opens, 1);
        CHECK_I64(p->closes, 1);
        CHECK_I64(p->writes, 1);
        CHECK_I64(p->unaligned, 1);
        CHECK_I64(p->max_byte_written, 10047);
        CHECK_I64(p->issued_written[SCOPE_IO_HDF5], 8000);
        near(p->meta_time, 400 * NS, "R posix meta");
        const scope_io_record *d = find(r->datasets, r->ndatasets, F_D, SCOPE_IO_HDF5, k);
        CHECK_I64(d->opens, 1);
        CHECK_I64(d->closes, 1);
        CHECK_I64(d->writes, 1);
        CHECK_I64(d->bytes_written, 8000);
        near(d->write_time, (1000 + 500 * k) * NS, "dataset write_time");
        near(d->meta_time, 150 * NS, "dataset meta_time");
        CHECK_I64(d->first_ns, B + 13100);
        CHECK_I64(d->last_ns, B + 15650);
    }
    CHECK_I64(r->ndatasets, 2);
}

static void spreads(const scope_io_report *r)
{
    CHECK_I64(r->nspreads, 4);
    if (r->nspreads != 4)
        return;
    const scope_io_spread *s = r->spreads;
    CHECK_I64(s[0].file, F_R);
    CHECK_I64(s[0].layer, SCOPE_IO_POSIX);
    CHECK_I64(s[0].fastest_rank, 0);
    CHECK_I64(s[0].slowest_rank, 0);    /* equal times: the lower rank both ways */
    near(s[0].time_variance, 0, "R posix variance");
    CHECK_I64(s[1].file, F_R);
    CHECK_I64(s[1].layer, SCOPE_IO_HDF5);
    CHECK_I64(s[1].fastest_rank, 0);
    CHECK_I64(s[1].slowest_rank, 1);
    near(s[1].fastest_time, 2650 * NS, "R hdf5 fastest");
    near(s[1].slowest_time, 3150 * NS, "R hdf5 slowest");
    near(s[1].time_variance, 62500 * NS * NS, "R hdf5 variance");
    CHECK_I64(s[1].slowest_bytes, 8000);
    CHECK_I64(s[2].file, F_S);
    CHECK_I64(s[2].layer, SCOPE_IO_POSIX);
    CHECK_I64(s[2].nranks, 4);
    CHECK_I64(s[2].fastest_rank, 0);
    CHECK_I64(s[2].slowest_rank, 3);
    near(s[2].fastest_time, 575 * NS, "S posix fastest");
    near(s[2].slowest_time, 875 * NS, "S posix slowest");
    near(s[2].time_variance, 12500 * NS * NS, "S posix variance");
    near(s[2].bytes_variance, 0, "S posix bytes variance");
    CHECK_I64(s[2].fastest_bytes, 1000 + 2000 + MiB);
    CHECK_I64(s[2].bytes, 4 * (3000 + MiB));
    CHECK_I64(s[3].layer, SCOPE_IO_MPIIO);
    CHECK_I64(s[3].slowest_rank, 3);
    near(s[3].slowest_time, 4000 * NS, "S mpiio slowest");
    near(s[3].time_variance, 1.25e6 * NS * NS, "S mpiio variance");
}

static void totals(const scope_io_report *r)
{
    static const int64_t calls[4] = { 19, 18, 14, 14 };
    static const double time[4] = { 5275, 6775, 4735, 5845 };
    static const int64_t written[4] = { 1062694, 1062682, 1054682, 1054682 };
    static const int nfiles[4] = { 4, 3, 2, 3 };
    CHECK_I64(r->nranks, 4);
    for (int k = 0; k < r->nranks && k < 4; k++) {
        CHECK_I64(r->ranks[k].rank, k);
        CHECK_I64(r->ranks[k].calls, calls[k]);
        near(r->ranks[k].time, time[k] * NS, "rank time");
        CHECK_I64(r->ranks[k].bytes_read, 1000);
        CHECK_I64(r->ranks[k].bytes_written, written[k]);
        CHECK_I64(r->ranks[k].nfiles, nfiles[k]);
    }
    CHECK_I64(r->nhosts, 2);
    CHECK(strcmp(r->hosts[0].name, "nodeA") == 0);
    CHECK_I64(r->hosts[0].calls, 37);
    near(r->hosts[0].time, 12050 * NS, "nodeA time");
    CHECK_I64(r->hosts[0].bytes_written, 2125376);
    CHECK_I64(r->hosts[0].nfiles, 5);
    CHECK(strcmp(r->hosts[1].name, "nodeB") == 0);
    CHECK_I64(r->hosts[1].calls, 28);
    near(r->hosts[1].time, 10580 * NS, "nodeB time");
    CHECK_I64(r->hosts[1].bytes_read, 2000);
    CHECK_I64(r->hosts[1].nfiles, 4);
    CHECK_I64(r->nfs, 3);
    CHECK(strcmp(r->fs[0].name, "lustre") == 0 && strcmp(r->fs[0].mount, "/scratch") == 0);
    CHECK_I64(r->fs[0].calls, 52);
    near(r->fs[0].time, 16700 * NS, "lustre time");
    CHECK_I64(r->fs[0].bytes_read, 4000);
    CHECK_I64(r->fs[0].bytes_written, 4218728);
    CHECK_I64(r->fs[0].nfiles, 5);
    CHECK(strcmp(r->fs[1].name, "") == 0);
    CHECK_I64(r->fs[1].calls, 2);
    CHECK_I64(r->fs[1].bytes_written, 12);
    CHECK_I64(r->fs[1].nfiles, 2);
    CHECK(strcmp(r->fs[2].name, "ext4") == 0);
    CHECK_I64(r->fs[2].calls, 10);
    near(r->fs[2].time, 5800 * NS, "ext4 time");
    CHECK_I64(r->fs[2].bytes_written, 16000);
    CHECK_I64(r->fs[2].nfiles, 1);
    CHECK_I64(r->files_past_bound, 7);
}

static void heat(scope_profile *p)
{
    scope_io_options o = { .heat_bins = 22 };
    scope_io_report *r;
    CHECK_I64(scope_profile_io_report(p, &o, &r), 0);
    if (!r)
        return;
    CHECK_I64(r->heat_bins, 22);
    CHECK_I64(r->heat_start_ns, B);
    CHECK_I64(r->heat_span_ns, 22000);
    const double *w0 = r->heat_written, *r0 = r->heat_read;
    near(w0[2], 1000, "rank 0 bin 2");
    near(w0[3], 1000, "rank 0 bin 3");
    near(w0[9], 4106, "rank 0 bin 9");
    near(w0[11], 12, "rank 0 bin 11");
    near(w0[14], 8000, "rank 0 bin 14");
    near(w0[15], 0, "rank 0 bin 15");
    near(w0[18], MiB, "rank 0 bin 18");
    near(r0[4], 500, "rank 0 read bin 4");
    near(r0[5], 500, "rank 0 read bin 5");
    const double *w1 = r->heat_written + 22;
    near(w1[14], 8000.0 * 1000 / 1500, "rank 1 bin 14");
    near(w1[15], 8000.0 * 500 / 1500, "rank 1 bin 15");
    near(w1[18], MiB / 2, "rank 1 bin 18");
    near(w1[19], MiB / 2, "rank 1 bin 19");
    double sum = 0;
    for (int i = 0; i < 4 * 22; i++)
        sum += r->heat_written[i];
    near(sum, 1062694.0 + 1062682 + 2 * 1054682, "heat total = ranks' bytes");
    scope_io_report_free(r);
}

static void options(scope_profile *p)
{
    /* POSIX alone: the calls stdio, MPI-IO and HDF5 issued count in the totals */
    scope_io_options o = { .layers = 1u << SCOPE_IO_POSIX };
    scope_io_report *r;
    CHECK_I64(scope_profile_io_report(p, &o, &r), 0);
    if (!r)
        return;
    for (int64_t i = 0; i < r->nrecords; i++)
        CHECK_I64(r->records[i].layer, SCOPE_IO_POSIX);
    CHECK_I64(r->nrecords, 4 + 4 + 2 + 1 + 1);  /* S x4, O x4, R x2, E, T */
    CHECK_I64(r->ranks[0].calls, 16);
    near(r->ranks[0].time, 2135 * NS, "posix-only rank 0 time");
    CHECK_I64(r->ranks[0].bytes_written, 1062694);
    CHECK_I64(r->ndatasets, 0);
    scope_io_report_free(r);

    int want[] = { 3, 1, 3 };
    o = (scope_io_options){ .ranks = want, .nranks = 3 };
    CHECK_I64(scope_profile_io_report(p, &o, &r), 0);
    if (!r)
        return;
    CHECK_I64(r->nranks, 2);
    CHECK_I64(r->ranks[0].rank, 1);
    CHECK_I64(r->ranks[1].rank, 3);
    /* files named by ranks 1 and 3 only: R, D, O1, O3, S, E */
    CHECK_I64(r->nfiles, 6);
    CHECK_I64(r->nspreads, 2);      /* S posix and mpiio */
    scope_io_report_free(r);
    int bad[] = { 9 };
    o = (scope_io_options){ .ranks = bad, .nranks = 1 };
    r = (scope_io_report *)&o;
    CHECK_I64(scope_profile_io_report(p, &o, &r), SCOPE_ENOTFOUND);
    CHECK(r == NULL);
}

static void calls(scope_profile *p, const scope_io_report *rep)
{
    scope_io_calls c;
    CHECK_I64(scope_profile_io_calls(p, NULL, &c), 0);
    /* 17 per rank, + printf's 2 and hdf5's 8 on rank 0, hdf5's 8 on 1, 1 on 2, 1 on 3 */
    CHECK_I64(c.n, 4 * 17 + 2 + 8 + 8 + 1 + 1);
    int64_t n0 = 0;
    for (int64_t i = 0; i < c.n; i++)
        n0 += c.rank[i] == 0;
    CHECK_I64(n0, 27);
    /* rank 0 in time order: open64 S, pwrite64 S, ... */
    CHECK_I64(c.rank[0], 0);
    CHECK(strcmp(scope_profile_region_name(p, c.region[0]), "open64") == 0);
    CHECK_I64(c.file[0], F_S);
    CHECK_I64(c.start_ns[0], B + 1000);
    CHECK_I64(c.layer[0], SCOPE_IO_POSIX);
    CHECK(strcmp(rep->files[c.file[0]].name, "/scratch/shared.dat") == 0);
    CHECK_I64(c.nfiles, rep->nfiles);
    for (int i = 0; i < c.nfiles && i < rep->nfiles; i++)
        CHECK(strcmp(c.file_names[i], rep->files[i].name) == 0);
    CHECK(strcmp(scope_io_class_name(c.cls[0]), "io_open") == 0);
    int seen_ds = 0, seen_fail = 0;
    for (int64_t i = 0; i < c.n; i++) {
        if (c.rank[i] == 0 && c.start_ns[i] == B + 14100) {
            CHECK(strcmp(scope_profile_region_name(p, c.region[i]), "pwrite64") == 0);
            CHECK_I64(c.issuer[i], SCOPE_IO_HDF5);
            CHECK_I64(c.file[i], F_R);
            CHECK_I64(c.offset[i], 2048);
            CHECK_I64(c.bytes[i], 8000);
        }
        if (c.rank[i] == 1 && c.start_ns[i] == B + 14000) {
            CHECK_I64(c.file[i], F_D);
            CHECK_I64(c.layer[i], SCOPE_IO_HDF5);
            CHECK_I64(c.end_ns[i], B + 15500);
            seen_ds++;
        }
        if (c.failed[i]) {
            seen_fail++;
            CHECK_I64(c.file[i], c.rank[i] == 2 ? -1 : F_E);
        }
        if (i > 0 && c.rank[i] == c.rank[i - 1])
            CHECK(c.start_ns[i] >= c.start_ns[i - 1]);
    }
    CHECK_I64(seen_ds, 1);
    CHECK_I64(seen_fail, 2);
    scope_io_calls_free(&c);
    CHECK_I64(c.n, 0);
}

static void columns(scope_profile *p)
{
    int reg = scope_profile_region_index(p, "pwrite64");
    scope_io_columns col;
    CHECK_I64(scope_profile_io_columns(p, reg, 1, &col), 0);
    CHECK_I64(col.n, 4);
    CHECK_I64(col.offset[0], 1000);
    CHECK_I64(col.issuer[3], SCOPE_IO_MPIIO);
    scope_io_files t;
    CHECK_I64(scope_profile_io_files(p, 1, &t), 0);
    CHECK_I64(t.n, 4);
    CHECK(strcmp(t.name[0], "out.1") == 0);
    CHECK(strcmp(t.resolved[1], "/scratch/shared.dat") == 0);
    CHECK_I64(t.kind[3], 2);
    CHECK_I64(t.parent[3], 2);
    CHECK_I64(scope_profile_has_io(p), 1);
    CHECK_I64(scope_region_io_layer("pwrite64"), SCOPE_IO_POSIX);
    CHECK_I64(scope_region_io_layer("MPI_File_write_at_all_c"), SCOPE_IO_MPIIO);
    CHECK_I64(scope_region_io_layer("MPI_Send"), 0);
    CHECK_I64(scope_region_io_layer("solve"), 0);
    CHECK(strcmp(scope_io_layer_name(SCOPE_IO_MPIIO), "mpiio") == 0);
    CHECK(scope_io_layer_name(1) == NULL);
    CHECK_I64(scope_io_size_bin(99), 0);
    CHECK_I64(scope_io_size_bin(100), 1);
    CHECK_I64(scope_io_size_bin(1023), 1);
    CHECK_I64(scope_io_size_bin(1024), 2);
    CHECK_I64(scope_io_size_bin(4 * MiB - 1), 5);
    CHECK_I64(scope_io_size_bin(4 * MiB), 6);
    CHECK_I64(scope_io_size_bin((int64_t)5 << 30), 9);
    CHECK_I64(scope_io_size_bin_low(9), 1 << 30);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/designed.h5", argv[1]);
    scope_profile *p;
    CHECK_I64(scope_profile_open(path, &p), 0);
    if (!p) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return check_result("test_io_report");
    }
    scope_io_report *r;
    CHECK_I64(scope_profile_io_report(p, NULL, &r), 0);
    if (r) {
        CHECK_I64(r->nrecords, 23);
        files(r);
        shared_posix(r);
        per_rank_files(r);
        hdf5(r);
        spreads(r);
        totals(r);
        calls(p, r);
        scope_io_report_free(r);
    }
    heat(p);
    options(p);
    columns(p);
    scope_profile_close(p);
    return check_result("test_io_report");
}
