/*
 * prog_bti.c - calls the BTI-guarded, PAC-signing library (bti_lib.c,
 * bti_excl.S) through its PLT (`br x17` onto each landing pad) and prints
 * the results, which must be the same under the preload (check_patch.py,
 * case a64_bti). Then it checks what the case relies on: the entries are
 * `bti c` and `paciasp` as compiled, and the library's pages are still
 * guarded (an indirect call past a landing pad raises SIGILL) after the
 * preload patched them and put their protection back. Exit 2 when the
 * compiler or the CPU (qemu: -cpu max) does not give what the test needs,
 * 3 when the pages are no longer guarded.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

long bti_leaf(long), bti_nonleaf(long), bti_ret42(void), bti_excl(long *);

static sigjmp_buf jb;

static void on_ill(int sig)
{
    (void)sig;
    siglongjmp(jb, 1);
}

static uint32_t first_insn(void *fn)
{
    uint32_t w;
    memcpy(&w, fn, 4);
    return w;
}

int main(void)
{
    if (!(getauxval(AT_HWCAP2) & (1ul << 17)) || !(getauxval(AT_HWCAP) & (1ul << 30))) {
        fprintf(stderr, "prog_bti: the CPU lacks BTI or PAC (qemu: QEMU_CPU=max)\n");
        return 2;
    }
    if (first_insn((void *)bti_ret42) != 0xd503245f) {
        fprintf(stderr, "prog_bti: bti_ret42 does not start with bti c\n");
        return 2;
    }
    long sum = 0, counter = 0;
    for (long i = 0; i < 7; i++)
        sum += bti_leaf(i);
    for (long i = 0; i < 5; i++)
        sum += bti_nonleaf(i);
    for (int i = 0; i < 3; i++)
        sum += bti_excl(&counter);
    printf("sum %ld counter %ld\n", sum, counter);
    /* an indirect call to bti_ret42's second instruction */
    signal(SIGILL, on_ill);
    if (sigsetjmp(jb, 1) == 0) {
        long (*past_pad)(void) = (long (*)(void))((char *)bti_ret42 + 4);
        long r = past_pad();
        fprintf(stderr, "prog_bti: the library's pages are not guarded (got %ld)\n", r);
        return 3;
    }
    printf("guarded\n");
    return 0;
}
