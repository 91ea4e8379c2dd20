/*
 * arch_branch_scan.c - where a relative branch in a function's body could jump
 * back into the bytes an entry patch displaces (arch_patch.c refuses such a
 * function: the jump would land in the middle of the patch).
 *
 * The scan does not know the instruction boundaries: it reads every byte
 * offset as if an opcode of each relative branch form started there, and
 * returns the last offset where one would land in the patched bytes. The
 * disassembler, which decodes from the entry and knows the boundaries,
 * then decodes no further than that offset (nothing at all when there is
 * none, as for nearly every function): a large function is decoded only
 * near its entry, not to its end.
 *
 * It reads every byte of every patched function: MPICH's 616 MPI_*
 * functions are 1 MB, and finding the rel32 opcodes with four memchr
 * passes cost ~4 ns a byte there (the opcodes are common: memchr stops
 * every few dozen bytes), most of MPICH's start-up. One SSE2 pass marks
 * the offsets that open a rel32/rel16 form, 16 at a time, and only those
 * are read as a form. rel8 forms can only reach back from the first
 * hi - from + 126 bytes: only those are tested.
 *
 * Most of those openings are real calls and jumps elsewhere, or bytes
 * inside other instructions, and each cost a form test: ~0.7 ns a byte
 * of MPICH's code. For a block of 16 offsets the displacement that lands
 * in (lo, hi) lies in a range known in advance; when that range is
 * narrower than 256, its second byte (bits 8-15, the same for the rel16
 * and the rel32 forms) can take only two values, and an offset is kept
 * only if the byte there has one of them: a necessary condition, so the
 * answer is unchanged (tests/patch/test_branch_scan.c checks it against
 * the plain definition).
 */
#include "arch_branch_scan.h"

#include <emmintrin.h>
#include <stddef.h>
#include <string.h>

static int32_t rel_at(const uint8_t *b, int width)
{
    if (width == 1)
        return (int8_t)b[0];
    if (width == 2) {
        int16_t v;
        memcpy(&v, b, 2);
        return v;
    }
    int32_t v;
    memcpy(&v, b, 4);
    return v;
}

/* A relative branch of opcode length `len` and displacement `width` at
 * offset j into (lo, hi): then *last = at least from + j + 1. */
static void try_form(const uint8_t *b, size_t n, size_t j, size_t len, int width,
                     uintptr_t from, uintptr_t lo, uintptr_t hi, uintptr_t *last)
{
    size_t end = j + len + (size_t)width;
    if (end > n)
        return;
    uintptr_t t = from + end + (intptr_t)rel_at(b + j + len, width);
    if (t > lo && t < hi && from + j + 1 > *last)
        *last = from + j + 1;
}

/* The rel32 and rel16 forms whose opcode could start at offset j: call
 * and jmp (e8, e9; rel16 with a 0x66 prefix), jcc (0f 80..8f), xbegin
 * (c7 f8). */
static void try_wide(const uint8_t *b, size_t n, size_t j, uintptr_t from, uintptr_t lo,
                     uintptr_t hi, uintptr_t *last)
{
    uint8_t c = b[j], next = j + 1 < n ? b[j + 1] : 0;
    if (c == 0xe8 || c == 0xe9) {
        try_form(b, n, j, 1, 4, from, lo, hi, last);
        try_form(b, n, j, 1, 2, from, lo, hi, last);
    } else if ((c == 0x0f && (next & 0xf0) == 0x80) || (c == 0xc7 && next == 0xf8)) {
        try_form(b, n, j, 2, 4, from, lo, hi, last);
        try_form(b, n, j, 2, 2, from, lo, hi, last);
    }
}

/* The displacements a rel16 or rel32 form opening at offsets j..j+15
 * would need to land in (lo, hi): the form ends 3 to 6 bytes after its
 * opening. Returns 1 with the range when it is narrower than 256 and
 * within int16 (then every such displacement, rel16 or rel32, has a second
 * byte equal to that of *min or of *max), else 0: no filter. */
static int rel_range(uintptr_t from, size_t j, uintptr_t lo, uintptr_t hi, int64_t *min,
                     int64_t *max)
{
    if (hi <= lo + 1 || hi - lo > 128)
        return 0;
    /* t = from + end + rel, end in [j + 3, j + 15 + 6], t in [lo + 1, hi - 1] */
    int64_t base = (int64_t)(from + j - lo);   /* from + j - lo, may be < 0 */
    if (base > 65536 || base < -65536)
        return 0;
    *min = 1 - base - (15 + 6);
    *max = (int64_t)(hi - lo) - 1 - base - 3;
    return *min >= -32768 && *max <= 32767 && *max - *min < 256;
}

uintptr_t scope__branch_candidates(uintptr_t from, uintptr_t to, uintptr_t lo, uintptr_t hi)
{
    const uint8_t *b = (const uint8_t *)from;
    size_t n = to - from;
    uintptr_t last = from;
    /* rel8 forms: a rel8 branch at offset j targets at least j + 2 - 128,
     * so only the first bytes can reach back into (lo, hi) */
    size_t reach8 = hi - from + 126;
    for (size_t j = 0; j < n && j < reach8; j++) {
        uint8_t c = b[j];
        if (c == 0xeb || (c & 0xf0) == 0x70 || (c & 0xfc) == 0xe0)
            try_form(b, n, j, 1, 1, from, lo, hi, &last);
    }
    /* rel32 and rel16 forms, anywhere: a mask of the offsets j..j+15 whose
     * byte (and the next one, loaded shifted by one) opens one */
    const __m128i op_e8 = _mm_set1_epi8((char)0xe8), no_low = _mm_set1_epi8((char)0xfe);
    const __m128i op_0f = _mm_set1_epi8(0x0f), op_80 = _mm_set1_epi8((char)0x80);
    const __m128i high = _mm_set1_epi8((char)0xf0);
    const __m128i op_c7 = _mm_set1_epi8((char)0xc7), op_f8 = _mm_set1_epi8((char)0xf8);
    size_t j = 0;
    for (; j + 19 <= n; j += 16) {
        __m128i c = _mm_loadu_si128((const __m128i *)(b + j));
        __m128i next = _mm_loadu_si128((const __m128i *)(b + j + 1));
        __m128i call_jmp = _mm_cmpeq_epi8(_mm_and_si128(c, no_low), op_e8);
        __m128i two = _mm_or_si128(
            _mm_and_si128(_mm_cmpeq_epi8(c, op_0f),
                          _mm_cmpeq_epi8(_mm_and_si128(next, high), op_80)),
            _mm_and_si128(_mm_cmpeq_epi8(c, op_c7), _mm_cmpeq_epi8(next, op_f8)));
        int64_t rel_min, rel_max;   /* of a displacement from here into (lo, hi) */
        if (rel_range(from, j, lo, hi, &rel_min, &rel_max)) {
            const __m128i h1 = _mm_set1_epi8((char)((uint64_t)rel_min >> 8));
            const __m128i h2 = _mm_set1_epi8((char)((uint64_t)rel_max >> 8));
            /* the displacement's second byte: at j + 2 after a one-byte
             * opcode, at j + 3 after a two-byte one */
            __m128i d1 = _mm_loadu_si128((const __m128i *)(b + j + 2));
            __m128i d2 = _mm_loadu_si128((const __m128i *)(b + j + 3));
            call_jmp = _mm_and_si128(call_jmp, _mm_or_si128(_mm_cmpeq_epi8(d1, h1),
                                                            _mm_cmpeq_epi8(d1, h2)));
            two = _mm_and_si128(two, _mm_or_si128(_mm_cmpeq_epi8(d2, h1),
                                                  _mm_cmpeq_epi8(d2, h2)));
        }
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(call_jmp, two));
        for (; mask; mask &= mask - 1)
            try_wide(b, n, j + (size_t)__builtin_ctz(mask), from, lo, hi, &last);
    }
    for (; j < n; j++)                  /* the last 16 or fewer bytes */
        try_wide(b, n, j, from, lo, hi, &last);
    return last;
}
