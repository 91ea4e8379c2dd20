/*
 * test_data_records.c - the journal's data records (format/journal.h):
 * what an MPI call moved survives scope_data_pack() and
 * scope_data_unpack() exactly, in the compact form up to each field's
 * limit and in the long form just past it, and neither form can be taken
 * for a begin, an end, a complete record, an empty slot or a request
 * record. The recorder writes with the one function and the converter
 * reads with the other, so their agreement is the format.
 */
#include <stdint.h>

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

int main(void)
{
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

    /* no data record is a begin, an end or a complete record of the
     * recorder: those never have both low bits set */
    CHECK(!scope_rec_is_data(5u << SCOPE_REC_ID_SHIFT));
    CHECK(!scope_rec_is_data((5u << SCOPE_REC_ID_SHIFT) | SCOPE_REC_END));
    CHECK(!scope_rec_is_data((5u << SCOPE_REC_ID_SHIFT) | SCOPE_REC_COMPLETE));
    CHECK(scope_rec_is_data(SCOPE_REC_REQUEST_WORD));
    return check_result("test_data_records");
}
