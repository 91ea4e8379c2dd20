/*
 * unwind_hooks.c - keeps the shadow stack right when control leaves
 * instrumented functions without returning: longjmp and siglongjmp, and
 * C++ exceptions; and lets backtrace(3) see the real stack (at the end).
 *
 * These are the only symbols of the engine that the preload exports: each
 * wraps the definition that follows it in the lookup order and forwards to
 * it (scope__next, symbol_next.c's table: libstdc++ may be loaded
 * RTLD_LOCAL under a Python extension, where RTLD_NEXT cannot see it).
 *
 *   longjmp & co: the target stack pointer is read from the jmp_buf (glibc
 *     stores it mangled with the thread's pointer guard; the layout is
 *     fixed by glibc's ABI, arch_unwind.h) and every open call whose return slot
 *     lies below it is closed, marked unwound, at the time of the jump.
 *   __cxa_throw / __cxa_rethrow / std::rethrow_exception: the unwinder walks return addresses, and
 *     the redirected ones lead to the exit path, which has no unwind info.
 *     Before raising, every redirected slot of the thread gets its original
 *     address back. __cxa_begin_catch (every catch clause calls it) then
 *     closes, marked unwound, the calls below the catching frame and
 *     redirects the ones above it again.
 *   pthread_exit: glibc unwinds the thread (a forced unwind) to run C++
 *     destructors and cleanup handlers; like a throw, the unwinder must see
 *     the real return addresses, or it stops at the first redirected one
 *     and skips every destructor above it. The addresses stay restored: the
 *     thread ends, and its open calls are closed at thread exit, after
 *     the destructors (which may record calls inside them). (A
 *     cancellation starts the same unwinding from inside libc, where no
 *     symbol can be wrapped: that case is a known limit.)
 */
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include "arch_unwind.h"
#include "self.h"
#include "shadow_stack.h"
#include "symbol_next.h"

#define HOOK __attribute__((visibility("default")))

typedef void (*jump_fn)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
typedef void (*throw_fn)(void *, void *, void (*)(void *)) __attribute__((noreturn));
typedef void (*rethrow_fn)(void) __attribute__((noreturn));
typedef void *(*catch_fn)(void *);
typedef void (*thread_exit_fn)(void *) __attribute__((noreturn));
typedef int (*backtrace_fn)(void **, int);
/* std::rethrow_exception(std::exception_ptr): the class is not trivially
 * copyable, so the Itanium ABI passes it by address */
typedef void (*rethrow_ptr_fn)(void *) __attribute__((noreturn));
void _ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE(void *ep)
    __attribute__((noreturn));

/* Resolves what can be resolved now, so that a siglongjmp from a signal
 * handler never has to call dlsym. A name not found yet (libstdc++ loaded
 * later) is looked up again at its first call. */
void scope__unwind_hooks_init(void)
{
    for (int id = SCOPE__NEXT_LONGJMP; id <= SCOPE__NEXT_BACKTRACE; id++)
        (void)scope__next((enum scope__next_id)id);
}

#define JUMP_HOOK(sym, id)                                                     \
    HOOK __attribute__((noreturn)) void sym(struct __jmp_buf_tag env[1], int val) \
    {                                                                          \
        scope__shadow_unwind_to(scope__arch_jmpbuf_sp(env));                   \
        ((jump_fn)scope__next(id))(env, val);                                  \
    }

JUMP_HOOK(longjmp, SCOPE__NEXT_LONGJMP)
JUMP_HOOK(_longjmp, SCOPE__NEXT__LONGJMP)
JUMP_HOOK(siglongjmp, SCOPE__NEXT_SIGLONGJMP)
JUMP_HOOK(__longjmp_chk, SCOPE__NEXT_LONGJMP_CHK)

HOOK __attribute__((noreturn)) void __cxa_throw(void *obj, void *tinfo, void (*dest)(void *))
{
    scope__shadow_restore();
    ((throw_fn)scope__next(SCOPE__NEXT_CXA_THROW))(obj, tinfo, dest);
}

HOOK __attribute__((noreturn)) void __cxa_rethrow(void)
{
    scope__shadow_restore();
    ((rethrow_fn)scope__next(SCOPE__NEXT_CXA_RETHROW))();
}

HOOK __attribute__((noreturn)) void
_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE(void *ep)
{
    scope__shadow_restore();
    ((rethrow_ptr_fn)scope__next(SCOPE__NEXT_RETHROW_EXCEPTION))(ep);
}

HOOK void *__cxa_begin_catch(void *exc)
{
    /* the catching frame's stack pointer, as it is after this call returns */
    uintptr_t sp = SCOPE_ARCH_CALLER_SP();
    scope__shadow_caught(sp);
    return ((catch_fn)scope__next(SCOPE__NEXT_CXA_BEGIN_CATCH))(exc);
}

HOOK __attribute__((noreturn)) void pthread_exit(void *retval)
{
    scope__shadow_thread_exit();
    ((thread_exit_fn)scope__next(SCOPE__NEXT_PTHREAD_EXIT))(retval);
}

/* backtrace(3) from inside a timed function: the walk would stop at the
 * first timed frame (its return slot leads to the exit path, which has no
 * CFI), and a program printing its own stack would print less than it
 * does bare. The real return addresses are put back for the walk, as for
 * a call-site walk, and this wrapper's own frame is left out of the
 * result, so the array is what the program gets without the preload (for
 * a buffer of more than 256 entries the walk runs in it directly, and a
 * stack deeper than the buffer then yields one frame fewer). Not while the
 * trampoline is mid-frame (a signal handler's backtrace): then the walk
 * stops early, as before. */
HOOK int backtrace(void **buffer, int size)
{
    backtrace_fn real = (backtrace_fn)scope__next(SCOPE__NEXT_BACKTRACE);
    if (!real || size <= 0)
        return 0;
    void *local[257];               /* room for this frame too */
    int fits = size < (int)(sizeof local / sizeof *local);
    void **b = fits ? local : buffer;
    int walk = !scope__shadow_busy();
    if (walk)
        scope__shadow_walk_begin();
    int n = real(b, fits ? size + 1 : size);
    if (walk)
        scope__shadow_walk_end();
    int skip = n > 0 && scope__is_own_address(b[0]);
    n -= skip;
    if (n > size)
        n = size;
    if (n > 0)
        memmove(buffer, b + skip, (size_t)n * sizeof *buffer);
    return n > 0 ? n : 0;
}
