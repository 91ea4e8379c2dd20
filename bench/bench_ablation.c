/*
 * bench_ablation.c - the mechanisms of the patched-call path (docs/
 * interposition.md, issue 13), each alone and measured in one run against
 * a plain call, since these VMs expose no performance counters:
 *
 *   plain        call + ret of a tiny function that also saves its return
 *                address to memory (what the entry path does)
 *   redirect     the same function returning to a landing pad that jumps
 *                to the saved address: the trampoline's return-address
 *                redirect, whose `ret` the return stack buffer predicts
 *                wrongly every time
 *   call mode    the fix for the redirect (trampoline.S, SCOPE_TRAMPOLINE=
 *                call): the return address is saved, then the body is
 *                `call`ed from the caller's stack pointer, so its `ret`
 *                lands where the return stack buffer predicts; the landing
 *                pad puts the saved address back and leaves with `ret`
 *   jump chain   the plain function reached through two indirect jumps
 *                (the patch's stub -> trampoline -> relocated code)
 *   tls ie / gd  a thread-local counter in a shared object, initial-exec
 *                against global-dynamic (__tls_get_addr) (bench_tls.c)
 *   two reads    two reads of the recorder's clock: the price floor
 *
 * Synthetic: each variant is the mechanism alone, not the real trampoline;
 * the differences say what each can cost on this CPU. ROUNDS interleaved
 * rounds; min / median / max of ns per call over the rounds.
 *
 *   bench_ablation [CALLS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_args.h"
#include "clock.h"

#define ROUNDS 7

long bench_tls_gd(long x);
long bench_tls_ie(long x);

long abl_plain(long x);
long abl_redirect(long x);
long abl_callmode(long x);
long abl_chain_entry(long x);
void *abl_saved;
void *abl_hop1, *abl_hop2;

__asm__(".text\n"
        ".globl abl_plain\n.type abl_plain,@function\n"
        "abl_plain:\n"
        "  mov (%rsp), %r11\n"
        "  mov %r11, abl_saved(%rip)\n"
        "  lea 1(%rdi), %rax\n"
        "  ret\n"
        ".globl abl_redirect\n.type abl_redirect,@function\n"
        "abl_redirect:\n"
        "  mov (%rsp), %r11\n"
        "  mov %r11, abl_saved(%rip)\n"
        "  lea abl_landing(%rip), %r11\n"
        "  mov %r11, (%rsp)\n"
        "  lea 1(%rdi), %rax\n"
        "  ret\n"
        "abl_landing:\n"
        "  jmp *abl_saved(%rip)\n"
        ".globl abl_callmode\n.type abl_callmode,@function\n"
        "abl_callmode:\n"
        "  mov (%rsp), %r11\n"
        "  mov %r11, abl_saved(%rip)\n"
        "  lea 8(%rsp), %rsp\n"
        "  call abl_body\n"
        "  lea -8(%rsp), %rsp\n"
        "  mov abl_saved(%rip), %r11\n"
        "  mov %r11, (%rsp)\n"
        "  ret\n"
        "abl_body:\n"
        "  lea 1(%rdi), %rax\n"
        "  ret\n"
        ".globl abl_chain_entry\n.type abl_chain_entry,@function\n"
        "abl_chain_entry:\n"
        "  jmp *abl_hop1(%rip)\n"
        "abl_hop:\n"
        "  jmp *abl_hop2(%rip)\n");
extern char abl_hop[];

static volatile long sink;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double loop(long (*f)(long), long n)
{
    long acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        acc += f(i);
    sink = acc;
    return (now_ns() - t0) / (double)n;
}

static double two_reads(long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        acc += scope__ticks();
        acc ^= scope__ticks();
    }
    sink = (long)acc;
    return (now_ns() - t0) / (double)n;
}

static const char usage[] = "usage: bench_ablation [CALLS]   (calls per variant and round, "
                            "default 5000000)\n";

int main(int argc, char **argv)
{
    long n = 5000000;
    int rc = bench_help_or_extra(argc, argv, usage, "bench_ablation", 1);
    if (rc >= 0)
        return rc;
    if (argc > 1 && bench_count_arg(usage, "bench_ablation", "CALLS must be a count from 1000 "
                                    "to 1000000000, not", argv[1], 1000, 1000000000L, &n))
        return 2;
    scope__clock_setup();
    abl_hop1 = (void *)abl_hop;
    abl_hop2 = (void *)abl_plain;
    static const char *const names[] = { "plain call", "redirect (ret -> exit path)",
                                         "call mode (call, ret, ret)",
                                         "jump chain (2 indirect)", "tls initial-exec",
                                         "tls global-dynamic", "two clock reads" };
    long (*const fns[])(long) = { abl_plain, abl_redirect, abl_callmode, abl_chain_entry,
                                  bench_tls_ie, bench_tls_gd, NULL };
    enum { NV = 7 };
    double t[NV][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int v = 0; v < NV; v++)
            t[v][r] = fns[v] ? loop(fns[v], n) : two_reads(n / 4);
    char cpu[256];
    printf("CPU: %s; clock %s; %ld calls, %d interleaved rounds: min / median / max ns\n",
           bench_cpu_model(cpu, sizeof cpu), scope__clock_tsc ? "rdtsc" : "CLOCK_MONOTONIC", n,
           ROUNDS);
    for (int v = 0; v < NV; v++) {
        bench_range x = bench_range_of(t[v], ROUNDS);
        printf("%-28s %6.2f / %6.2f / %6.2f", names[v], x.min, x.med, x.max);
        if (v == 1 || v == 2 || v == 3 || v == 5) {
            /* the cost of the mechanism: the difference within each round */
            double d[ROUNDS];
            int base = v == 5 ? 4 : 0;
            for (int r = 0; r < ROUNDS; r++)
                d[r] = t[v][r] - t[base][r];
            bench_range y = bench_range_of(d, ROUNDS);
            printf("   (%+.2f / %+.2f / %+.2f over %s)", y.min, y.med, y.max,
                   v == 5 ? "initial-exec" : "plain");
        }
        printf("\n");
    }
    return 0;
}
