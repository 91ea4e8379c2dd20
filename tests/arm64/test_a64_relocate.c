/*
 * test_a64_relocate.c - the aarch64 relocator (arch/aarch64/arch_patch.c)
 * word by word, where the programs of tests/arm64 cannot reach: targets
 * beyond the +-128 MiB of a B, which must go through x17, and the exact
 * encodings of each rewrite. Each instruction is "read" at one address and
 * "written" at another 1 GiB away; nothing is executed.
 */
#include <stdint.h>
#include <string.h>

#include "arch_patch.h"
#include "check.h"

#define PC 0x40000000000ull         /* where the instruction was */

static uint32_t w(const uint8_t *b, int i)
{
    uint32_t v;
    memcpy(&v, b + 4 * i, 4);
    return v;
}

static uint64_t q(const uint8_t *b, int at)
{
    uint64_t v;
    memcpy(&v, b + at, 8);
    return v;
}

int main(void)
{
    static uint8_t out[64] __attribute__((aligned(8)));
    char why[128] = "";
    size_t n;

    /* a plain instruction is copied */
    n = scope__arch_relocate_one(0xa9bf7bfdu /* stp x29, x30, [sp, #-16]! */, PC, out,
                                 sizeof out, why, sizeof why);
    CHECK_I64(n, 4);
    CHECK_I64(w(out, 0), 0xa9bf7bfdu);

    /* B +0x100 from PC, written 1 GiB+ away: ldr x17, .+8; br x17; .quad */
    n = scope__arch_relocate_one(0x14000040u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 16);
    CHECK_I64(w(out, 0), 0x58000051u);
    CHECK_I64(w(out, 1), 0xd61f0220u);
    CHECK_I64((int64_t)q(out, 8), (int64_t)(PC + 0x100));

    /* BL -4: x30 = PC + 4 by a literal, then the far jump */
    n = scope__arch_relocate_one(0x97ffffffu, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 32);
    CHECK_I64(w(out, 0), 0x5800005eu);          /* ldr x30, .+8 */
    CHECK_I64(w(out, 1), 0x14000003u);          /* b .+12 */
    CHECK_I64((int64_t)q(out, 8), (int64_t)(PC + 4));
    CHECK_I64(w(out, 4), 0x58000051u);
    CHECK_I64((int64_t)q(out, 24), (int64_t)(PC - 4));

    /* b.ne +8: the test to .+8, a b past the far jump, the far jump */
    n = scope__arch_relocate_one(0x54000041u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 24);
    CHECK_I64(w(out, 0), 0x54000041u);          /* b.ne .+8 */
    CHECK_I64(w(out, 1), 0x14000005u);          /* b .+20 (past 16 bytes) */
    CHECK_I64((int64_t)q(out, 16), (int64_t)(PC + 8));

    /* cbz x3, -0x40 and tbnz w5, #2, +0x20 keep register and bit */
    n = scope__arch_relocate_one(0xb4fffe03u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 24);
    CHECK_I64(w(out, 0), 0xb4000043u);
    CHECK_I64((int64_t)q(out, 16), (int64_t)(PC - 0x40));
    n = scope__arch_relocate_one(0x37100105u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 24);
    CHECK_I64(w(out, 0), 0x37100045u);
    CHECK_I64((int64_t)q(out, 16), (int64_t)(PC + 0x20));

    /* adrp x2, +3 pages (from PC's page), adr x7, -5 */
    n = scope__arch_relocate_one(0xf0000002u, PC + 0x123, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 16);
    CHECK_I64(w(out, 0), 0x58000042u);          /* ldr x2, .+8 */
    CHECK_I64((int64_t)q(out, 8), (int64_t)(PC + 0x3000));
    n = scope__arch_relocate_one(0x70ffffc7u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 16);
    CHECK_I64(w(out, 0), 0x58000047u);
    CHECK_I64((int64_t)q(out, 8), (int64_t)(PC - 5));

    /* ldr q9, +0x40 (literal): x17 = the address, then ldr q9, [x17] */
    n = scope__arch_relocate_one(0x9c000209u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(n, 20);
    CHECK_I64(w(out, 0), 0x58000051u);
    CHECK_I64((int64_t)q(out, 8), (int64_t)(PC + 0x40));
    CHECK_I64(w(out, 4), 0x3dc00229u);

    /* ldrsw x1, -8 and prfm pldl1keep, +0 */
    n = scope__arch_relocate_one(0x98ffffc1u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(w(out, 4), 0xb9800221u);
    CHECK_I64((int64_t)q(out, 8), (int64_t)(PC - 8));
    n = scope__arch_relocate_one(0xd8000000u, PC, out, sizeof out, why, sizeof why);
    CHECK_I64(w(out, 4), 0xf9800220u);

    /* refused: ldaxr x0, [x1]; an unallocated literal load; no room */
    CHECK_I64(scope__arch_relocate_one(0xc85ffc20u, PC, out, sizeof out, why, sizeof why), 0);
    CHECK(strstr(why, "exclusive load/store") != NULL);
    CHECK_I64(scope__arch_relocate_one(0xdc000000u, PC, out, sizeof out, why, sizeof why), 0);
    CHECK(strstr(why, "unallocated literal load") != NULL);
    CHECK_I64(scope__arch_relocate_one(0x14000040u, PC, out, 8, why, sizeof why), 0);
    CHECK(strstr(why, "does not fit") != NULL);
    return check_result("test_a64_relocate");
}
