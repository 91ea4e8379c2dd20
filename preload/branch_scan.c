/*
 * branch_scan.c - where a relative branch in a function's body could jump
 * back into the bytes an entry patch displaces (patch.c refuses such a
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
 */
#include "branch_scan.h"

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
    for (; j + 17 <= n; j += 16) {
        __m128i c = _mm_loadu_si128((const __m128i *)(b + j));
        __m128i next = _mm_loadu_si128((const __m128i *)(b + j + 1));
        __m128i call_jmp = _mm_cmpeq_epi8(_mm_and_si128(c, no_low), op_e8);
        __m128i jcc = _mm_and_si128(_mm_cmpeq_epi8(c, op_0f),
                                    _mm_cmpeq_epi8(_mm_and_si128(next, high), op_80));
        __m128i xbegin = _mm_and_si128(_mm_cmpeq_epi8(c, op_c7), _mm_cmpeq_epi8(next, op_f8));
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(call_jmp, _mm_or_si128(jcc, xbegin)));
        for (; mask; mask &= mask - 1)
            try_wide(b, n, j + (size_t)__builtin_ctz(mask), from, lo, hi, &last);
    }
    for (; j < n; j++)                  /* the last 16 or fewer bytes */
        try_wide(b, n, j, from, lo, hi, &last);
    return last;
}
