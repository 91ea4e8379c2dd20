/*
 * test_request_records.c - the journal's request records (format/journal.h)
 * and the region word of begin, end and complete records: each through its
 * codec and back. A post record (scope_post_pack/_unpack) keeps its id and
 * receive bit whatever they are, a send's destination, tag and bytes up to
 * each field's limit, and reads "unknown" just past it (bytes saturate); a
 * receive's post carries none of them. A completion record
 * (scope_completion_pack/_unpack) keeps its id, a receive's source, tag and
 * bytes up to each field's limit and "none" past it, and a cancelled
 * request's mark alone. Both are request records, the one kind
 * scope_req_is_completion tells apart, with the bits spelled out here by
 * hand as the oracle of the layout; the mark bit the writer adds changes
 * nothing read back. The recorder writes with one function of each pair
 * and the converter reads with the other, so their agreement is the
 * format.
 */
#include <stdint.h>

#include "check.h"
#include "journal.h"

#define NO_TAG SCOPE_DATA_NO_TAG

/* Packs p, checks the kind, unpacks (with and without the writer's mark
 * bit), and compares with what should read back. */
static void post_trip(struct scope_post p, struct scope_post want)
{
    struct scope_rec r;
    scope_post_pack(&p, &r);
    CHECK(scope_rec_is_request(r.word));
    CHECK(!scope_req_is_completion(&r));
    CHECK(r.ticks != 0);
    for (int mark = 0; mark < 2; mark++) {
        struct scope_rec m = r;
        if (mark)
            m.ticks |= SCOPE_REC_DATA_MARK;
        struct scope_post got;
        scope_post_unpack(&m, &got);
        CHECK_I64(got.id, want.id);
        CHECK_I64(got.recv, want.recv);
        CHECK_I64(got.dest, want.dest);
        CHECK_I64(got.tag, want.tag);
        CHECK_I64(got.bytes, want.bytes);
    }
}

static void completion_trip(struct scope_completion c, struct scope_completion want)
{
    struct scope_rec r;
    scope_completion_pack(&c, &r);
    CHECK(scope_rec_is_request(r.word));
    CHECK(scope_req_is_completion(&r));
    for (int mark = 0; mark < 2; mark++) {
        struct scope_rec m = r;
        if (mark)
            m.ticks |= SCOPE_REC_DATA_MARK;
        struct scope_completion got;
        scope_completion_unpack(&m, &got);
        CHECK_I64(got.id, want.id);
        CHECK_I64(got.cancelled, want.cancelled);
        CHECK_I64(got.source, want.source);
        CHECK_I64(got.tag, want.tag);
        CHECK_I64(got.bytes, want.bytes);
    }
}

static void posts(void)
{
    /* a send: every field at its limit, and just past it */
    post_trip((struct scope_post){ 1, 0, 0, 0, 0 }, (struct scope_post){ 1, 0, 0, 0, 0 });
    post_trip((struct scope_post){ UINT32_MAX, 0, 0xfffd, (1 << 13) - 3, UINT32_MAX },
              (struct scope_post){ UINT32_MAX, 0, 0xfffd, (1 << 13) - 3, UINT32_MAX });
    post_trip((struct scope_post){ 7, 0, 0xfffe, (1 << 13) - 2, (int64_t)UINT32_MAX + 1 },
              (struct scope_post){ 7, 0, -1, NO_TAG, UINT32_MAX });
    post_trip((struct scope_post){ 7, 0, -1, -1, -5 }, (struct scope_post){ 7, 0, -1, -1, 0 });
    post_trip((struct scope_post){ 7, 0, 3, -2, 12 }, (struct scope_post){ 7, 0, 3, NO_TAG, 12 });
    post_trip((struct scope_post){ 7, 0, 3, NO_TAG, 12 }, (struct scope_post){ 7, 0, 3, NO_TAG, 12 });
    /* a receive's post carries no message */
    post_trip((struct scope_post){ 9, 1, 5, 6, 100 }, (struct scope_post){ 9, 1, -1, NO_TAG, 0 });
    post_trip((struct scope_post){ UINT32_MAX, 1, -1, NO_TAG, 0 },
              (struct scope_post){ UINT32_MAX, 1, -1, NO_TAG, 0 });

    /* the layout, by hand: id, receive bit, dest + 1 at 33, tag + 2 at 49 */
    struct scope_rec r;
    scope_post_pack(&(struct scope_post){ 0x1234, 0, 5, 7, 99 }, &r);
    CHECK(r.ticks == (SCOPE_REC_DATA_MARK | 0x1234u | (uint64_t)6 << 33 | (uint64_t)9 << 49));
    CHECK_I64(r.aux, 99);
    CHECK_I64(r.word, SCOPE_REC_REQUEST_WORD);
    scope_post_pack(&(struct scope_post){ 0x1234, 1, 5, 7, 99 }, &r);
    CHECK(r.ticks == (SCOPE_REC_DATA_MARK | 0x1234u | (uint64_t)1 << 32));
    CHECK_I64(r.aux, 0);
}

static void completions(void)
{
    /* a receive: every field at its limit, and just past it */
    completion_trip((struct scope_completion){ 1, 0, 0, 0, 0 },
                    (struct scope_completion){ 1, 0, 0, 0, 0 });
    completion_trip((struct scope_completion){ UINT32_MAX, 0, 0xfffd, (1 << 14) - 3, UINT32_MAX },
                    (struct scope_completion){ UINT32_MAX, 0, 0xfffd, (1 << 14) - 3, UINT32_MAX });
    completion_trip((struct scope_completion){ 3, 0, 0xfffe, (1 << 14) - 2, 8 },
                    (struct scope_completion){ 3, 0, -1, NO_TAG, 8 });
    completion_trip((struct scope_completion){ 3, 0, -1, -1, 8 },
                    (struct scope_completion){ 3, 0, -1, -1, 8 });
    completion_trip((struct scope_completion){ 3, 0, 2, -2, 8 },
                    (struct scope_completion){ 3, 0, 2, NO_TAG, 8 });
    /* a send's, or a receive from MPI_PROC_NULL: nothing */
    completion_trip((struct scope_completion){ 4, 0, -1, NO_TAG, 0 },
                    (struct scope_completion){ 4, 0, -1, NO_TAG, 0 });
    /* cancelled: the mark alone, whatever else was given */
    completion_trip((struct scope_completion){ 5, 1, 2, 3, 40 },
                    (struct scope_completion){ 5, 1, -1, NO_TAG, 0 });

    /* the layout, by hand: id, source + 1 at 32, tag + 2 at 48, bit 62 */
    struct scope_rec r;
    scope_completion_pack(&(struct scope_completion){ 0x42, 0, 3, 10, 16 }, &r);
    CHECK(r.ticks == (SCOPE_REQ_COMPLETION | 0x42u | (uint64_t)4 << 32 | (uint64_t)12 << 48));
    CHECK_I64(r.aux, 16);
    CHECK_I64(r.word, SCOPE_REC_REQUEST_WORD);
    scope_completion_pack(&(struct scope_completion){ 0x42, 1, 3, 10, 16 }, &r);
    CHECK(r.ticks == (SCOPE_REQ_COMPLETION | 0x42u | (uint64_t)0xffff << 32));
    CHECK_I64(r.aux, 0);
}

/* A begin, end or complete record's word names its region. */
static void region_words(void)
{
    static const int32_t ids[] = { 0, 1, 12345, (1 << 30) - 1 };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        uint32_t w = scope_rec_region_word(ids[i]);
        CHECK_I64(w & (SCOPE_REC_END | SCOPE_REC_COMPLETE), 0);
        CHECK_I64(scope_rec_region_of(w), ids[i]);
        CHECK_I64(scope_rec_region_of(w | SCOPE_REC_END), ids[i]);
        CHECK_I64(scope_rec_region_of(w | SCOPE_REC_COMPLETE), ids[i]);
        CHECK_I64(w, (uint32_t)ids[i] << 2);
    }
}

int main(void)
{
    posts();
    completions();
    region_words();
    return check_result("test_request_records");
}
