/*
 * test_data_records.c - the journal's data records (format/journal.h):
 * what an MPI call moved survives scope_data_pack() and
 * scope_data_unpack() exactly, in the compact form up to each field's
 * limit and in the long form just past it, and neither form can be taken
 * for a begin, an end, a complete record, an empty slot or a request
 * record. A post's data record (one record for a nonblocking
 * point-to-point post's data and post) reads back as the data and the
 * post record the two-record form writes, up to each field's limit, and
 * is refused past it. A collective post record (a started persistent
 * collective's shape, root and bytes) reads back exactly, in one record up
 * to its limits and in two past them, is a data record and no other kind,
 * and a long form's second record alone decodes to nothing. A self record
 * (an all-to-all's block to itself) keeps its bytes up to 2^63 - 1 and
 * is a data record of no other kind. The recorder
 * writes with the one function and the converter reads with the other,
 * so their agreement is the format. An I/O data record (file, bytes,
 * offset, issuer, failed) reads back exactly, compact up to its limits
 * and in two records past them, is told apart from every other record,
 * and a file table row's payload round-trips names of any bytes.
 */
#include <stdint.h>
#include <string.h>

#include "scope_calls.h"

#include "check.h"
#include "journal.h"

/* Packs d, checks the form and the marks, unpacks, compares. */
static void round_trip(struct scope_call_data d, int want_records)
{
    struct scope_rec r[2];
    int n = scope_data_pack(&d, r);
    CHECK_I64(n, want_records);
    for (int i = 0; i < n; i++) {
        CHECK(scope_rec_is_data(r[i].word));
        CHECK(!scope_rec_is_request(r[i].word));
        CHECK(r[i].ticks != 0);                 /* never an empty slot */
        CHECK((r[i].ticks & SCOPE_REC_DATA_MARK) != 0);
        CHECK_I64((r[i].word & SCOPE_REC_DATA_LONG) != 0, n == 2);
    }
    struct scope_call_data got;
    scope_data_unpack(&r[0], n == 2 ? &r[1] : NULL, &got);
    CHECK_I64(got.bytes_sent, d.bytes_sent < 0 ? 0 : d.bytes_sent);
    CHECK_I64(got.bytes_received, d.bytes_received < 0 ? 0 : d.bytes_received);
    CHECK_I64(got.dest, d.dest);
    CHECK_I64(got.source, d.source);
    CHECK_I64(got.tag, d.tag);
    CHECK_I64(got.comm, d.comm);
}

/* The post record the two-record form writes for a post (journal.h,
 * scope_post_pack), spelled out again here as the check's oracle. */
static struct scope_rec post_record(uint32_t id, int recv, const struct scope_call_data *d)
{
    uint64_t t = SCOPE_REC_DATA_MARK | id | (recv ? SCOPE_REQ_RECV : 0);
    uint32_t aux = 0;
    if (!recv) {
        if (d->dest >= 0 && d->dest < 0xfffe)
            t |= (uint64_t)(d->dest + 1) << SCOPE_REQ_POST_DEST_SHIFT;
        if (d->tag != SCOPE_DATA_NO_TAG && d->tag >= -1 && d->tag < (1 << 13) - 2)
            t |= (uint64_t)(d->tag + 2) << SCOPE_REQ_POST_TAG_SHIFT;
        aux = (uint32_t)d->bytes_sent;
    }
    return (struct scope_rec){ t, SCOPE_REC_REQUEST_WORD, aux };
}

/* A post's data record: packs (or is refused: fits = 0), and reads back
 * as the data and the post record. */
static void post_round_trip(struct scope_call_data d, uint32_t id, int recv, int fits)
{
    struct scope_rec r = { 0, 0, 0 };
    CHECK_I64(scope_postdata_pack(&d, id, recv, &r), fits);
    if (!fits)
        return;
    CHECK(scope_rec_is_data(r.word));
    CHECK(scope_rec_is_postdata(r.word));
    CHECK(!scope_rec_is_request(r.word));
    CHECK((r.ticks & SCOPE_REC_DATA_MARK) != 0);
    struct scope_call_data got;
    struct scope_rec post, want = post_record(id, recv, &d);
    scope_postdata_unpack(&r, &got, &post);
    CHECK_I64(got.bytes_sent, d.bytes_sent);
    CHECK_I64(got.bytes_received, 0);
    CHECK_I64(got.dest, d.dest);
    CHECK_I64(got.source, d.source);
    CHECK_I64(got.tag, d.tag);
    CHECK_I64(got.comm, d.comm);
    CHECK(post.ticks == want.ticks);
    CHECK_I64(post.word, want.word);
    CHECK_I64(post.aux, want.aux);
}

/* A collective post record: packs into `want_records`, reads back. */
static void coll_round_trip(struct scope_coll_post p, int want_records)
{
    struct scope_rec r[2];
    int n = scope_collpost_pack(&p, r);
    CHECK_I64(n, want_records);
    for (int i = 0; i < n; i++) {
        CHECK(scope_rec_is_data(r[i].word));
        CHECK(scope_rec_is_collpost(r[i].word));
        CHECK(!scope_rec_is_request(r[i].word));
        CHECK(!scope_rec_is_postdata(r[i].word));
        CHECK((r[i].ticks & SCOPE_REC_DATA_MARK) != 0);
    }
    struct scope_coll_post got = { 0, 0, 0, 0 };
    CHECK_I64(scope_collpost_unpack(&r[0], n == 2 ? &r[1] : NULL, &got), n);
    CHECK_I64(got.id, p.id);
    CHECK_I64(got.shape, p.shape);
    CHECK_I64(got.root, p.root);
    CHECK_I64(got.bytes, p.bytes < 0 ? 0 : p.bytes);
    if (n == 2) {
        CHECK_I64(scope_collpost_unpack(&r[1], NULL, &got), 0);    /* the second alone */
        CHECK_I64(scope_collpost_unpack(&r[0], NULL, &got), 1);    /* its second lost */
        CHECK_I64(got.bytes, 0);
        CHECK_I64(got.root, p.root);
    }
}

/* A self record: its bytes back, whatever the mark bit, and no other
 * kind of record. */
static void self_records(void)
{
    static const int64_t bytes[] = { 0, 1, 4096, (int64_t)UINT32_MAX + 1, INT64_MAX };
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++) {
        struct scope_rec r;
        scope_self_pack(bytes[i], &r);
        CHECK(scope_rec_is_self(r.word));
        CHECK(scope_rec_is_data(r.word));
        CHECK(!scope_rec_is_request(r.word));
        CHECK(!scope_rec_is_collpost(r.word));
        CHECK(!scope_rec_is_postdata(r.word));
        CHECK(r.ticks & SCOPE_REC_DATA_MARK);
        CHECK_I64(scope_self_unpack(&r), bytes[i]);
    }
    struct scope_rec r;
    scope_self_pack(-5, &r);
    CHECK_I64(scope_self_unpack(&r), 0);
    /* no other data record's word is a self record's */
    struct scope_rec d[2];
    scope_data_pack(&(struct scope_call_data){ 1, 2, 3, 4, 5, 6 }, d);
    CHECK(!scope_rec_is_self(d[0].word));
    CHECK(!scope_rec_is_self(SCOPE_REC_REQUEST_WORD));
    CHECK(!scope_rec_is_self(SCOPE_REC_COLLPOST_WORD));
    CHECK(!scope_rec_is_self(SCOPE_REC_POSTDATA_WORD));
    /* an I/O data record's word, in every form, is not a self record's,
     * nor the other way round (the two kinds landed apart) */
    struct scope_rec io[2];
    int n = scope_iodata_pack(&(struct scope_io_data){ 1, (int64_t)UINT32_MAX + 1, 5, 7, 1 }, io);
    for (int i = 0; i < n; i++)
        CHECK(!scope_rec_is_self(io[i].word));
    scope_iodata_pack(&(struct scope_io_data){ 1, 1, 0, 0, 0 }, io);
    CHECK(!scope_rec_is_self(io[0].word));
    CHECK(!scope_rec_is_iodata(SCOPE_REC_SELF_WORD));
}

/* An I/O data record: packed, its form and marks checked, never taken
 * for another kind of record, unpacked, compared. */
static void io_round_trip(struct scope_io_data d, int want_records)
{
    struct scope_rec r[2];
    int n = scope_iodata_pack(&d, r);
    CHECK_I64(n, want_records);
    for (int i = 0; i < n; i++) {
        CHECK(scope_rec_is_data(r[i].word));
        CHECK(scope_rec_is_iodata(r[i].word));
        CHECK(!scope_rec_is_request(r[i].word));
        CHECK(!scope_rec_is_postdata(r[i].word));
        CHECK(!scope_rec_is_collpost(r[i].word));
        CHECK(r[i].ticks != 0);
        CHECK((r[i].ticks & SCOPE_REC_DATA_MARK) != 0);
    }
    struct scope_io_data got;
    CHECK_I64(scope_iodata_unpack(&r[0], n == 2 ? &r[1] : NULL, &got), n);
    CHECK_I64(got.file, d.file < 0 ? SCOPE_IO_NO_FILE : d.file);
    CHECK_I64(got.bytes, d.bytes < 0 ? 0 : d.bytes);
    CHECK_I64(got.offset, d.offset < 0 ? SCOPE_IO_NO_OFFSET : d.offset);
    CHECK_I64(got.issuer, d.issuer);
    CHECK_I64(got.failed, d.failed);
    if (n == 2) {
        /* the second alone decodes to nothing; the first alone loses the offset */
        CHECK_I64(scope_iodata_unpack(&r[1], NULL, &got), 0);
        CHECK_I64(scope_iodata_unpack(&r[0], NULL, &got), 1);
        CHECK_I64(got.offset, SCOPE_IO_NO_OFFSET);
        CHECK_I64(got.bytes, d.bytes < 0 ? 0 : d.bytes);
    }
}

/* The other records' words are never I/O data records. */
static void io_words_apart(void)
{
    struct scope_rec r[2];
    scope_data_pack(&(struct scope_call_data){ 1, 1, 0, 0, 0, SCOPE_COMM_ID_MAX }, r);
    CHECK(!scope_rec_is_iodata(r[0].word) && !scope_rec_is_iodata(r[1].word));
    scope_data_pack(&(struct scope_call_data){ INT64_MAX, 1, 16777215, 16777215, 0, 0 }, r);
    CHECK(!scope_rec_is_iodata(r[0].word) && !scope_rec_is_iodata(r[1].word));
    CHECK(!scope_rec_is_iodata(SCOPE_REC_REQUEST_WORD));
    CHECK(!scope_rec_is_iodata(SCOPE_REC_POSTDATA_WORD | (0xfffu << 3) | SCOPE_REC_POSTDATA_RECV));
    CHECK(!scope_rec_is_iodata(SCOPE_REC_COLLPOST_WORD | 0xffu << 3));
    /* nor a begin, an end or a complete record of any region */
    CHECK(!scope_rec_is_iodata(0xffffffffu << SCOPE_REC_ID_SHIFT));
    CHECK(!scope_rec_is_iodata((0xffffffffu << SCOPE_REC_ID_SHIFT) | SCOPE_REC_END));
    CHECK(!scope_rec_is_iodata((0xffffffffu << SCOPE_REC_ID_SHIFT) | SCOPE_REC_COMPLETE));
}

/* A file row's payload round trip, names with any bytes but NUL, and
 * payloads cut short refused. */
static void file_meta(void)
{
    struct scope_file_meta m = { 7, SCOPE_FILE_DATASET, 3, 5, 2049, 123456789, 4096 }, got;
    const char weird[] = "out\n\x01\xff\xfe dir/\xc3(.h5";
    struct scope_file_names n = { weird, "/tmp/x/out.h5", "tmpfs", "/tmp" }, gn;
    char buf[256];
    size_t len = scope_file_meta_pack(&m, &n, buf, sizeof buf);
    CHECK_I64(len, sizeof m + sizeof weird + 14 + 6 + 5);
    CHECK_I64(scope_file_meta_unpack(buf, len, &got, &gn), 0);
    CHECK_I64(got.id, 7);
    CHECK_I64(got.kind, SCOPE_FILE_DATASET);
    CHECK_I64(got.parent, 3);
    CHECK_I64(got.layer, 5);
    CHECK_I64((int64_t)got.dev, 2049);
    CHECK_I64((int64_t)got.ino, 123456789);
    CHECK_I64(got.block_size, 4096);
    CHECK(strcmp(gn.name, weird) == 0);
    CHECK(strcmp(gn.resolved, "/tmp/x/out.h5") == 0);
    CHECK(strcmp(gn.fs_type, "tmpfs") == 0);
    CHECK(strcmp(gn.mount, "/tmp") == 0);
    for (size_t cut = 0; cut < len; cut++)
        CHECK_I64(scope_file_meta_unpack(buf, cut, &got, &gn), -1);
    CHECK_I64(scope_file_meta_pack(&m, &n, buf, len - 1), 0);
    /* NULL strings are "" */
    struct scope_file_names empty = { "<STDOUT>", NULL, NULL, NULL };
    len = scope_file_meta_pack(&m, &empty, buf, sizeof buf);
    CHECK_I64(scope_file_meta_unpack(buf, len, &got, &gn), 0);
    CHECK(strcmp(gn.name, "<STDOUT>") == 0 && gn.resolved[0] == 0 && gn.mount[0] == 0);
    m.kind = SCOPE_FILE_KINDS;
    len = scope_file_meta_pack(&m, &n, buf, sizeof buf);
    CHECK_I64(scope_file_meta_unpack(buf, len, &got, &gn), -1);
}

int main(void)
{
    self_records();
    /* I/O data records: compact up to each field's limit, long past it */
    io_round_trip((struct scope_io_data){ 0, 1, 0, 0, 0 }, 1);
    io_round_trip((struct scope_io_data){ 3, 4096, 123, SCOPE_PARADIGM_STDIO, 0 }, 1);
    io_round_trip((struct scope_io_data){ SCOPE_IO_NO_FILE, 0, SCOPE_IO_NO_OFFSET, 0, 1 }, 1);
    io_round_trip((struct scope_io_data){ (1 << 23) - 2, UINT32_MAX, (1ll << 40) - 2,
                                          SCOPE_PARADIGM_HDF5, 1 }, 1);
    io_round_trip((struct scope_io_data){ (1 << 23) - 1, 1, 0, 0, 0 }, 2);
    io_round_trip((struct scope_io_data){ 1, (int64_t)UINT32_MAX + 1, 0, SCOPE_PARADIGM_MPIIO, 0 }, 2);
    io_round_trip((struct scope_io_data){ 1, 1, (1ll << 40) - 1, 0, 0 }, 2);
    /* a 4.3 TB MPI-IO write at a 5 TiB offset: 64 bits, never negative */
    io_round_trip((struct scope_io_data){ 2, 4300000000000ll, 5ll << 40, SCOPE_PARADIGM_HDF5, 0 }, 2);
    io_round_trip((struct scope_io_data){ INT32_MAX, INT64_MAX, INT64_MAX - 1, 7, 1 }, 2);
    io_round_trip((struct scope_io_data){ 4, -5, -7, 0, 0 }, 1);
    io_words_apart();
    file_meta();

    /* compact: typical calls, and every field at its compact limit */
    round_trip((struct scope_call_data){ 400, 0, 1, -1, 7, 0 }, 1);
    round_trip((struct scope_call_data){ 0, 1600, -1, 3, 7, 0 }, 1);
    round_trip((struct scope_call_data){ 0, 0, -1, -1, SCOPE_DATA_NO_TAG, 0 }, 1);
    round_trip((struct scope_call_data){ 0, 0, -1, -1, -1, 0 }, 1);     /* MPI_ANY_TAG */
    round_trip((struct scope_call_data){ UINT32_MAX, UINT32_MAX, (1 << 17) - 2, (1 << 17) - 2,
                                         (1 << 14) - 3, (1 << 12) - 1 }, 1);
    /* long: one field past its limit each time */
    round_trip((struct scope_call_data){ (int64_t)UINT32_MAX + 1, 0, 1, -1, 7, 0 }, 2);
    round_trip((struct scope_call_data){ 0, (int64_t)5 << 40, -1, 2, 7, 0 }, 2);
    round_trip((struct scope_call_data){ 8, 0, (1 << 17) - 1, -1, 7, 0 }, 2);
    round_trip((struct scope_call_data){ 0, 8, -1, 1 << 20, 7, 0 }, 2);
    round_trip((struct scope_call_data){ 8, 8, 0, 0, (1 << 14) - 2, 0 }, 2);
    round_trip((struct scope_call_data){ 8, 8, 0, 0, 2147483647, 0 }, 2);  /* Open MPI's tag ub */
    round_trip((struct scope_call_data){ 8, 8, 0, 0, 7, 1 << 12 }, 2);
    round_trip((struct scope_call_data){ INT64_MAX, INT64_MAX, 16777215, 16777215,
                                         SCOPE_DATA_NO_TAG, (1 << 24) }, 2);

    /* posts: a send, a receive from a rank and from MPI_ANY_SOURCE with
     * MPI_ANY_TAG, every field at its limit, and one past each */
    post_round_trip((struct scope_call_data){ 4, 0, 0, -1, 1, 0 }, 1, 0, 1);
    post_round_trip((struct scope_call_data){ 0, 0, -1, 3, 9, 2 }, 77, 1, 1);
    post_round_trip((struct scope_call_data){ 0, 0, -1, -1, -1, 0 }, 78, 1, 1);
    post_round_trip((struct scope_call_data){ 0, 0, -1, -1, SCOPE_DATA_NO_TAG, 0 }, 79, 0, 1);
    post_round_trip((struct scope_call_data){ UINT32_MAX, 0, (1 << 17) - 2, -1, (1 << 14) - 3,
                                              (1 << 12) - 1 }, UINT32_MAX, 0, 1);
    post_round_trip((struct scope_call_data){ 8, 0, 0xfffe, -1, (1 << 13) - 2, 5 }, 3, 0, 1);
    post_round_trip((struct scope_call_data){ (int64_t)UINT32_MAX + 1, 0, 1, -1, 7, 0 }, 1, 0, 0);
    post_round_trip((struct scope_call_data){ 8, 0, (1 << 17) - 1, -1, 7, 0 }, 1, 0, 0);
    post_round_trip((struct scope_call_data){ 0, 0, -1, (1 << 17) - 1, 7, 0 }, 1, 1, 0);
    post_round_trip((struct scope_call_data){ 8, 0, 1, -1, (1 << 14) - 2, 0 }, 1, 0, 0);
    post_round_trip((struct scope_call_data){ 8, 0, 1, -1, 7, 1 << 12 }, 1, 0, 0);
    post_round_trip((struct scope_call_data){ 8, 0, 1, -1, 7, 0 }, 0, 0, 0);   /* no post id */
    post_round_trip((struct scope_call_data){ 8, 0, -1, 1, 7, 0 }, 1, 1, 0);   /* bytes on a receive */
    /* the post's data words are long forms' words no communicator id
     * reaches, and never the request word */
    CHECK(!scope_rec_is_postdata(SCOPE_REC_REQUEST_WORD));
    CHECK(!scope_rec_is_postdata(SCOPE_REC_DATA | SCOPE_REC_DATA_LONG | ((uint32_t)SCOPE_COMM_ID_MAX << 3)));
    CHECK(!scope_rec_is_postdata(SCOPE_REC_DATA | SCOPE_REC_DATA_LONG | (((1u << 22) + 1) << 3)));

    /* collective posts: each shape, no root, every field at its compact
     * limit, and one past each */
    for (int sh = SCOPE_COLL_NO_PAIRS; sh < SCOPE_COLL_SHAPES; sh++)
        coll_round_trip((struct scope_coll_post){ 5, sh, 2, 40 }, 1);
    coll_round_trip((struct scope_coll_post){ 6, SCOPE_COLL_ALL_EQUAL, -1, 96 }, 1);
    coll_round_trip((struct scope_coll_post){ UINT32_MAX, SCOPE_COLL_ALL_SPREAD, (1 << 17) - 2,
                                              UINT32_MAX }, 1);
    coll_round_trip((struct scope_coll_post){ 7, SCOPE_COLL_ONE_TO_ALL, (1 << 17) - 1, 8 }, 2);
    coll_round_trip((struct scope_coll_post){ 8, SCOPE_COLL_ALL_TO_ONE, 3, (int64_t)UINT32_MAX + 1 },
                    2);
    coll_round_trip((struct scope_coll_post){ 9, SCOPE_COLL_ALL_SAME, 1 << 22, INT64_MAX }, 2);
    coll_round_trip((struct scope_coll_post){ 10, SCOPE_COLL_NO_PAIRS, -1, -5 }, 1);
    /* its words are long forms' words no communicator id reaches, apart
     * from the post's data words and the request word */
    CHECK(!scope_rec_is_collpost(SCOPE_REC_REQUEST_WORD));
    CHECK(!scope_rec_is_collpost(SCOPE_REC_POSTDATA_WORD));
    CHECK(!scope_rec_is_collpost(SCOPE_REC_POSTDATA_WORD | SCOPE_REC_POSTDATA_RECV | (0xfffu << 3)));
    CHECK(!scope_rec_is_postdata(SCOPE_REC_COLLPOST_WORD | SCOPE_REC_COLLPOST_LONG | (7u << 3)));
    CHECK((SCOPE_REC_COLLPOST_WORD >> 3) > (uint32_t)SCOPE_COMM_ID_MAX);
    for (uint32_t c = 0; c < (1u << 12); c++)   /* no compact data word either */
        CHECK(!scope_rec_is_collpost(SCOPE_REC_DATA | ((1u << 17) - 1) << 3 | c << 20));

    /* no data record is a begin, an end or a complete record of the
     * recorder: those never have both low bits set */
    CHECK(!scope_rec_is_data(5u << SCOPE_REC_ID_SHIFT));
    CHECK(!scope_rec_is_data((5u << SCOPE_REC_ID_SHIFT) | SCOPE_REC_END));
    CHECK(!scope_rec_is_data((5u << SCOPE_REC_ID_SHIFT) | SCOPE_REC_COMPLETE));
    CHECK(scope_rec_is_data(SCOPE_REC_REQUEST_WORD));
    return check_result("test_data_records");
}
