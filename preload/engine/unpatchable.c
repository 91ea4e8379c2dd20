/*
 * unpatchable.c - the functions the interposition engine refuses to time,
 * by name, whatever the config says.
 *
 * A timed function runs with its return slot holding the address of
 * scope's exit path (both trampoline modes; docs/interposition.md). Most
 * functions never look at that slot. These do, and a broad glob (`*`,
 * `_U*`) reaches them in libc, libgcc_s and libunwind:
 *
 *   - functions that return twice (GCC's list: setjmp, sigsetjmp, savectx,
 *     vfork, getcontext, with up to two leading underscores): the context
 *     they save holds the exit path as the place to return to, and the
 *     second return comes through it after the shadow stack's frame is
 *     gone. The program crashes. swapcontext resumes on another context's
 *     stack, whose frames the exit path would close instead.
 *   - the unwinder's entry points (_Unwind_RaiseException & co.): they
 *     start walking from their own frame, the walk stops at the exit path
 *     (it has no CFI), and every C++ throw ends in std::terminate.
 *     unwind_hooks.c puts the real return addresses back before a throw,
 *     but these frames are made after it.
 *   - backtrace walkers (_Unwind_Backtrace, unw_backtrace, unw_getcontext;
 *     backtrace is wrapped, below): every walk would stop at the exit path.
 *   - dlsym and dlvsym: RTLD_NEXT finds the caller by the return address,
 *     which would be the exit path's, in no object.
 *   - code that is jumped to, not called: the program's entry point
 *     (_start: what the trampoline took for a return address was argc,
 *     and main saw a wrong argc, a crash in about half of the runs of a
 *     program that reads its arguments), the signal return trampoline,
 *     ld.so's lazy-binding and TLS-descriptor stubs (their own calling
 *     conventions).
 *   - the functions the preload wraps itself (unwind_hooks.c,
 *     dlopen_hook.c; backtrace too): their calls arrive from the wrapper, whose calls are
 *     scope's own and not timed, so a patch would time nothing while
 *     saying it does.
 *
 * The check is by every name an address has (a glob may match only the
 * alias __vfork, or __libunwind_Unwind_Resume), and comes before both the
 * entry patch and the GOT stub, which share the trampoline.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#include "unpatchable.h"

static const char returns_twice[] =
    "returns twice (like setjmp, vfork, getcontext): the second return would come back "
    "through scope's exit path after the call was closed, and crash";
static const char switches[] =
    "resumes on another context's stack: scope's exit path would close that context's call";
static const char unwinds[] =
    "starts unwinding an exception from its own frame: the unwinder would stop at scope's "
    "exit path, and every throw would end in std::terminate";
static const char walks[] =
    "walks the stack from its own frame: every walk would stop at scope's exit path";
static const char by_caller[] =
    "finds its caller by its return address (RTLD_NEXT): it would see scope's exit path";
static const char wrapped[] =
    "the preload wraps it itself (longjmp, C++ throw and catch, pthread_exit, dlopen, "
    "backtrace): "
    "its calls come from that wrapper, and scope's own calls are not timed";

static const char jumped_to[] =
    "is jumped to, not called (the program's entry point, a signal return, ld.so's stubs): "
    "it has no return address for scope's exit path to take";

static const struct {
    const char *name;
    const char *why;
} table[] = {
    { "swapcontext", switches },
    { "_start", jumped_to },
    { "__restore_rt", jumped_to },
    { "_Unwind_RaiseException", unwinds },
    { "_Unwind_Resume", unwinds },
    { "_Unwind_Resume_or_Rethrow", unwinds },
    { "_Unwind_ForcedUnwind", unwinds },
    { "__pthread_unwind_next", unwinds },
    { "_Unwind_Backtrace", walks },
    { "backtrace", wrapped },
    { "__backtrace", wrapped },
    { "unw_backtrace", walks },
    { "unw_getcontext", walks },
    { "__unw_getcontext", walks },
    { "_Ux86_64_getcontext", walks },
    { "dlsym", by_caller },
    { "dlvsym", by_caller },
    { "longjmp", wrapped },
    { "_longjmp", wrapped },
    { "siglongjmp", wrapped },
    { "__longjmp_chk", wrapped },
    { "__cxa_throw", wrapped },
    { "__cxa_rethrow", wrapped },
    { "__cxa_begin_catch", wrapped },
    { "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE", wrapped },
    { "pthread_exit", wrapped },
    { "dlopen", wrapped },
    { "dlmopen", wrapped },
    { "dlclose", wrapped },
};

/* GCC's rule (special_function_p): one or two leading underscores
 * stripped, then these names return twice */
static const char *const twice[] = { "setjmp", "sigsetjmp", "savectx", "vfork", "getcontext" };

/* The first letters of the names above and of the table (and '_', which
 * the stripped, prefixed and ld.so names start with), made once from them:
 * most names a config matches (MPI_*, the I/O calls) are rejected at one
 * load, at every alias of every function a start-up instruments. */
static uint8_t listed_first[256];
static pthread_once_t listed_once = PTHREAD_ONCE_INIT;

static void note_first_letters(void)
{
    listed_first['_'] = 1;
    for (size_t i = 0; i < sizeof twice / sizeof *twice; i++)
        listed_first[(unsigned char)twice[i][0]] = 1;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        listed_first[(unsigned char)table[i].name[0]] = 1;
}

const char *scope__unpatchable_name(const char *name)
{
    pthread_once(&listed_once, note_first_letters);
    if (!listed_first[(unsigned char)name[0]])
        return NULL;
    const char *t = name[0] == '_' ? name + (name[1] == '_' ? 2 : 1) : name;
    for (size_t i = 0; i < sizeof twice / sizeof *twice; i++)
        if (strcmp(t, twice[i]) == 0)
            return returns_twice;
    if (strncmp(name, "_dl_runtime_", 12) == 0 || strncmp(name, "_dl_tlsdesc_", 12) == 0)
        return jumped_to;
    /* LLVM's libunwind and nongnu libunwind export the unwinder under a
     * prefix too */
    static const char prefix[] = "__libunwind";
    if (strncmp(name, prefix, sizeof prefix - 1) == 0 && name[sizeof prefix - 1] == '_')
        name += sizeof prefix - 1;
    /* the first letter before the call: a strcmp per entry and alias was
     * start-up time */
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (name[0] == table[i].name[0] && strcmp(name, table[i].name) == 0)
            return table[i].why;
    return NULL;
}

const char *scope__unpatchable(const struct scope__object *o, uintptr_t addr)
{
    if (o->is_main && addr == getauxval(AT_ENTRY))
        return jumped_to;               /* whatever the entry point is named */
    for (size_t i = scope__object_first_at(o, addr); i < o->n_syms && o->syms[i].addr == addr;
         i++) {
        const char *why = scope__unpatchable_name(o->syms[i].name);
        if (why)
            return why;
    }
    return NULL;
}
