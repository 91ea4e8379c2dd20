/*
 * test_branch_scan.c - the body scan of entry patching
 * (arch/x86_64/arch_branch_scan.c) gives exactly the answer of its plain
 * definition: every byte offset read as each of the nine relative branch
 * forms (jmp/jcc/loop/jrcxz rel8; call/jmp rel32 and rel16; jcc rel32 and
 * rel16; xbegin rel32 and rel16). The fast scan marks candidate offsets 16
 * at a time; a slip there (an edge of the 16-byte blocks, the tail, a
 * form's end past `to`) would let a function be patched although a branch
 * jumps back into its patched bytes, or refuse one needlessly.
 *
 * Cases: spans of real code (the executable segments of this process's
 * libc and of every other object loaded) with the patched bytes at their
 * start, as patch.c scans them, and at random places; and random bytes
 * with branches planted to land in (lo, hi). Asserts equal answers for
 * every case and that the planted cases do find candidates (so that the
 * comparison is not between two scans that never find anything).
 */
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_branch_scan.h"

static int32_t rel(const uint8_t *b, int width)
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

/* The definition, as the engine first wrote it: a table of forms, every
 * offset, every form. */
static uintptr_t reference(uintptr_t from, uintptr_t to, uintptr_t lo, uintptr_t hi)
{
    static const struct { uint8_t op0, op0_last, op1, op1_last, len, width; } form[] = {
        { 0xeb, 0xeb, 0, 0, 1, 1 },         /* jmp rel8 */
        { 0x70, 0x7f, 0, 0, 1, 1 },         /* jcc rel8 */
        { 0xe0, 0xe3, 0, 0, 1, 1 },         /* loop*, jrcxz */
        { 0xe8, 0xe9, 0, 0, 1, 4 },         /* call, jmp rel32 */
        { 0xe8, 0xe9, 0, 0, 1, 2 },         /* with 0x66: rel16 */
        { 0x0f, 0x0f, 0x80, 0x8f, 2, 4 },   /* jcc rel32 */
        { 0x0f, 0x0f, 0x80, 0x8f, 2, 2 },
        { 0xc7, 0xc7, 0xf8, 0xf8, 2, 4 },   /* xbegin */
        { 0xc7, 0xc7, 0xf8, 0xf8, 2, 2 },
    };
    const uint8_t *b = (const uint8_t *)from;
    size_t n = to - from;
    uintptr_t last = from;
    for (size_t j = 0; j < n; j++)
        for (size_t f = 0; f < sizeof form / sizeof *form; f++) {
            size_t end = j + form[f].len + form[f].width;
            if (end > n || b[j] < form[f].op0 || b[j] > form[f].op0_last)
                continue;
            if (form[f].len == 2 && (b[j + 1] < form[f].op1 || b[j + 1] > form[f].op1_last))
                continue;
            uintptr_t t = from + end + (intptr_t)rel(b + j + form[f].len, form[f].width);
            if (t > lo && t < hi)
                last = from + j + 1;
        }
    return last;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t n_cases, n_found, n_wrong;

static void check(uintptr_t from, uintptr_t to, uintptr_t lo, uintptr_t hi, const char *what)
{
    uintptr_t want = reference(from, to, lo, hi);
    uintptr_t got = scope__branch_candidates(from, to, lo, hi);
    n_cases++;
    n_found += want != from;
    if (got != want && n_wrong++ < 10)
        fprintf(stderr, "%s: span of %zu bytes, patched bytes at +%zu..+%zu: "
                "expected +%zu, got +%zu\n", what, (size_t)(to - from), (size_t)(lo - from),
                (size_t)(hi - from), (size_t)(want - from), (size_t)(got - from));
}

struct span { uintptr_t lo, hi; };
struct spans { struct span v[256]; size_t n; };

static int text_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct spans *s = arg;
    for (int i = 0; i < info->dlpi_phnum && s->n < 256; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz > 4096)
            s->v[s->n++] = (struct span){ info->dlpi_addr + ph->p_vaddr,
                                          info->dlpi_addr + ph->p_vaddr + ph->p_filesz };
    }
    return 0;
}

/* Real code: spans of every executable segment loaded. */
static void real_code(void)
{
    static struct spans s;
    dl_iterate_phdr(text_segments, &s);
    for (size_t k = 0; k < s.n; k++) {
        size_t len = s.v[k].hi - s.v[k].lo;
        for (int i = 0; i < 3000; i++) {
            size_t n = 1 + next() % (i < 1500 ? 64 : 4096);
            if (n > len)
                n = len;
            uintptr_t from = s.v[k].lo + next() % (len - n + 1);
            size_t patched = 5 + next() % 15;          /* 5 bytes, up to a 19-byte cover */
            check(from, from + n, from, from + patched, "real code, patch at the start");
            size_t at = next() % n;                     /* (lo, hi) anywhere, even past `to` */
            check(from, from + n, from + at, from + at + patched, "real code, patch inside");
        }
    }
}

/* Random bytes, with branches planted at random offsets (some straddling
 * the 16-byte blocks and the end) that land in (lo, hi). */
static void planted(void)
{
    static uint8_t buf[8192 + 64];
    static const uint8_t ops[][2] = {
        { 0xeb, 0 }, { 0x74, 0 }, { 0xe2, 0 }, { 0xe8, 0 }, { 0xe9, 0 },
        { 0x0f, 0x85 }, { 0xc7, 0xf8 },
    };
    for (int i = 0; i < 20000; i++) {
        size_t n = 1 + next() % (i % 4 == 0 ? 8192 : 300);
        for (size_t j = 0; j < n; j++)
            buf[j] = (uint8_t)next();
        uintptr_t from = (uintptr_t)buf;
        size_t patched = 5 + next() % 15;
        for (int p = 0; p < 3; p++) {
            size_t op = next() % (sizeof ops / sizeof *ops);
            size_t len = ops[op][1] ? 2 : 1;
            int width = op < 3 ? 1 : (next() & 1 ? 4 : 2);
            size_t j = next() % n;
            if (j + len + (size_t)width > n)
                continue;
            memcpy(buf + j, ops[op], len);
            int32_t target = (int32_t)(1 + next() % (patched - 1));   /* in (lo, hi) */
            int32_t r = target - (int32_t)(j + len + (size_t)width);
            if (width == 1 && (r < -128 || r > 127))
                continue;
            if (width == 2 && (r < -32768 || r > 32767))
                continue;
            memcpy(buf + j + len, &r, (size_t)width);   /* little-endian low bytes */
        }
        check(from, from + n, from, from + patched, "planted");
    }
}

int main(void)
{
    real_code();
    size_t real_found = n_found;
    planted();
    printf("%zu cases (%zu with candidates: %zu in real code), %zu wrong\n", n_cases,
           n_found, real_found, n_wrong);
    if (n_wrong) {
        fprintf(stderr, "FAIL: the fast scan differs from the definition\n");
        return 1;
    }
    if (n_found - real_found < 1000) {
        fprintf(stderr, "FAIL: only %zu planted cases found candidates\n", n_found - real_found);
        return 1;
    }
    return 0;
}
