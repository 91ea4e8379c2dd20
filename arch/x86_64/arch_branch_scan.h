/*
 * arch_branch_scan.h - the cheap first pass of arch_patch.c's check that no branch
 * in a function's body jumps back into the bytes its entry patch displaces
 * (arch_branch_scan.c). Its own file so that a test can compare it, byte for
 * byte, with the plain definition it must equal.
 */
#ifndef SCOPE_ARCH_BRANCH_SCAN_H
#define SCOPE_ARCH_BRANCH_SCAN_H

#include <stdint.h>

/* Where in [from, to) a relative branch into (lo, hi) could have its
 * opcode: every byte offset is read as if an opcode of each relative
 * branch form started there (jmp, call, jcc, loop, jrcxz, xbegin; rel8,
 * rel16 and rel32), whatever the real instruction boundaries; a form is
 * only read when it ends by `to`. Returns the last such offset + 1, or
 * `from` when there is none. Reads only [from, to); lo may equal from.
 * Cost: one pass over the bytes, 16 at a time (SSE2), plus a few
 * instructions per byte that opens a rel32/rel16 form (e8, e9, 0f 8x,
 * c7 f8). */
uintptr_t scope__branch_candidates(uintptr_t from, uintptr_t to, uintptr_t lo, uintptr_t hi);

#endif
