// exc_prog.cpp SCENARIO - C++ exceptions through instrumented functions.
// tests/exceptions/check_exceptions.py runs each scenario bare and under
// the preload (call sites off, depth 1, depth 4) and requires the same
// output, exit status and standard error, and, in the profile, exactly the
// call counts this program prints at the end ("calls NAME N").
//
// Scenarios (the functions instrumented for each are in the checker):
//   dtor_nested   an exception unwinds through instrumented calls while a
//                 destructor throws and catches a second one, also from an
//                 instrumented function, and calls instrumented functions
//                 (first call from those places: call-site misses during
//                 the unwinding), and rethrows (`throw;`) inside it
//   dtor_call     a destructor run by the unwinder calls an instrumented
//                 function (with call sites on: a cache miss mid-unwinding)
//   rethrow       `throw;` from a catch clause in an instrumented function
//   rethrow_ptr   std::current_exception + std::rethrow_exception, also
//                 from a destructor during another exception's unwinding
//   threads       dtor_nested on 4 threads at once; exception_ptrs from
//                 the threads raised again on the main thread
//   pthread_exit  a thread leaves instrumented calls with pthread_exit (a
//                 forced unwind): destructors above them still run
//   nested        std::throw_with_nested / std::rethrow_if_nested
//   dlopen        exceptions crossing a dlopen'ed library (exc_plugin.cpp)
//   noexcept      an exception reaching a noexcept function: std::terminate
//                 (the default handler aborts: SIGABRT)
//   terminate_handler  the same with a handler that calls an instrumented
//                 function and exit(3) (so the profile is written)
//   uncaught      an exception no one catches: std::terminate
#include <dlfcn.h>
#include <pthread.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exc_common.h"

/* ------------------------------------------------------------ counting */

extern "C" {
volatile long exc_sink;

static struct { const char *name; long n; } counts[64];
static std::mutex counts_lock;

EXC_EXPORT void exc_count(const char *name)
{
    std::lock_guard<std::mutex> hold(counts_lock);
    for (auto &c : counts) {
        if (!c.name)
            c.name = name;
        if (std::strcmp(c.name, name) == 0) {
            c.n++;
            return;
        }
    }
}
}

static void print_counts()
{
    for (auto &c : counts)
        if (c.name)
            std::printf("calls %s %ld\n", c.name, c.n);
}

#define ROUNDS 6

/* ------------------------------------------------------------ dtor_nested */

extern "C" EXC_NOINLINE void dn_leaf(int i)
{
    EXC_COUNT(dn_leaf);
    exc_sink += i;
}

extern "C" EXC_NOINLINE void dn_inner_throw(int i)
{
    EXC_COUNT(dn_inner_throw);
    dn_leaf(i);
    throw std::logic_error("inner");
}

namespace {
/* the guard: a second exception thrown and caught inside the
 * unwinding of the first */
struct Guard {
    ~Guard()
    {
        try {
            throw std::logic_error("inner");
        } catch (...) {
            EXC_COUNT(guard_caught);
        }
    }
};

}

namespace exc {
/* the same through instrumented functions, plus `throw;`; the destructor
 * itself is instrumented too (out of line, by its demangled name) */
struct DeepGuard {
    int i;
    EXC_NOINLINE ~DeepGuard();
};

EXC_NOINLINE DeepGuard::~DeepGuard()
{
    EXC_COUNT(exc::DeepGuard::~DeepGuard());
    dn_leaf(i);                            /* a call-site miss while unwinding */
    try {
        dn_inner_throw(i);
    } catch (const std::logic_error &) {
        EXC_COUNT(deep_caught);
    }
    try {
        try {
            dn_inner_throw(i + 1);
        } catch (const std::logic_error &) {
            dn_leaf(i);
            throw;
        }
    } catch (const std::exception &) {
        EXC_COUNT(deep_rethrow_caught);
    }
    dn_leaf(i + 2);
}
}

extern "C" EXC_NOINLINE void dn_work(int i)
{
    EXC_COUNT(dn_work);
    Guard g;
    exc::DeepGuard d{i};
    if (i % 2 == 0)
        throw std::runtime_error("outer");
    exc_sink += i;
}

extern "C" EXC_NOINLINE void dn_outer(int i)
{
    EXC_COUNT(dn_outer);
    Guard g;
    dn_work(i);
}

static int dtor_nested()
{
    for (int i = 0; i < ROUNDS; i++) {
        try {
            dn_outer(i);
            std::printf("round %d: no exception\n", i);
        } catch (const std::runtime_error &e) {
            std::printf("round %d: caught %s\n", i, e.what());
        }
        dn_leaf(i);
    }
    return 0;
}

/* ------------------------------------------------------------ dtor_call */

extern "C" EXC_NOINLINE void dc_leaf(int i)
{
    EXC_COUNT(dc_leaf);
    exc_sink += i;
}

namespace {
/* no second exception: only instrumented calls made by the unwinder's
 * cleanup, the first of them from this place (a call-site cache miss) */
struct CallingGuard {
    int i;
    ~CallingGuard() { dc_leaf(i); }
};
}

extern "C" EXC_NOINLINE void dc_work(int i)
{
    EXC_COUNT(dc_work);
    CallingGuard g{i};
    if (i % 2 == 0)
        throw std::runtime_error("dc");
    exc_sink += i;
}

extern "C" EXC_NOINLINE void dc_outer(int i)
{
    EXC_COUNT(dc_outer);
    dc_work(i);
}

static int dtor_call()
{
    for (int i = 0; i < ROUNDS; i++) {
        try {
            dc_outer(i);
            std::printf("round %d: no exception\n", i);
        } catch (const std::runtime_error &e) {
            std::printf("round %d: caught %s\n", i, e.what());
        }
    }
    return 0;
}

/* ------------------------------------------------------------ rethrow */

extern "C" EXC_NOINLINE void rt_thrower(int i)
{
    EXC_COUNT(rt_thrower);
    if (i % 3 != 1)
        throw std::runtime_error("rt " + std::to_string(i));
    exc_sink += i;
}

extern "C" EXC_NOINLINE void rt_middle(int i)
{
    EXC_COUNT(rt_middle);
    try {
        rt_thrower(i);
    } catch (const std::runtime_error &) {
        EXC_COUNT(rt_middle_caught);
        if (i % 3 == 0)
            throw;                          /* __cxa_rethrow */
    }
}

extern "C" EXC_NOINLINE void rt_top(int i)
{
    EXC_COUNT(rt_top);
    rt_middle(i);
}

static int rethrow()
{
    for (int i = 0; i < ROUNDS; i++) {
        try {
            rt_top(i);
            std::printf("round %d: returned\n", i);
        } catch (const std::exception &e) {
            std::printf("round %d: caught %s\n", i, e.what());
        }
    }
    return 0;
}

/* -------------------------------------------------------- rethrow_ptr */

extern "C" EXC_NOINLINE void rp_thrower(int i)
{
    EXC_COUNT(rp_thrower);
    throw std::runtime_error("rp " + std::to_string(i));
}

extern "C" EXC_NOINLINE std::exception_ptr *rp_capture(int i)
{
    EXC_COUNT(rp_capture);
    try {
        rp_thrower(i);
    } catch (...) {
        return new std::exception_ptr(std::current_exception());
    }
    return nullptr;
}

extern "C" EXC_NOINLINE void rp_replay(std::exception_ptr *p)
{
    EXC_COUNT(rp_replay);
    std::rethrow_exception(*p);
}

namespace {
struct ReplayGuard {
    std::exception_ptr *p;
    ~ReplayGuard()
    {
        try {
            rp_replay(p);
        } catch (const std::runtime_error &e) {
            EXC_COUNT(replay_in_dtor_caught);
        }
    }
};
}

extern "C" EXC_NOINLINE void rp_unwinding(std::exception_ptr *p, int i)
{
    EXC_COUNT(rp_unwinding);
    ReplayGuard g{p};
    if (i % 2 == 0)
        throw std::out_of_range("unwinding " + std::to_string(i));
}

static int rethrow_ptr()
{
    for (int i = 0; i < ROUNDS; i++) {
        std::exception_ptr *p = rp_capture(i);
        try {
            rp_replay(p);
        } catch (const std::runtime_error &e) {
            std::printf("round %d: replayed %s\n", i, e.what());
        }
        try {
            rp_unwinding(p, i);
            std::printf("round %d: no exception\n", i);
        } catch (const std::out_of_range &e) {
            std::printf("round %d: caught %s\n", i, e.what());
        }
        delete p;
    }
    return 0;
}

/* ------------------------------------------------------------ threads */

/* dtor_nested's rounds on 4 threads at once (each thread has its own
 * shadow stack and exceptions in flight), then an exception thrown on each
 * thread and raised again on the main thread */
static int threads()
{
    const int n = 4;
    std::vector<std::exception_ptr> left(n);
    std::vector<std::thread> pool;
    std::vector<int> caught(n);
    for (int t = 0; t < n; t++)
        pool.emplace_back([t, &left, &caught] {
            for (int i = 0; i < ROUNDS; i++) {
                try {
                    dn_outer(i);
                } catch (const std::runtime_error &) {
                    caught[t]++;
                }
                dn_leaf(i);
            }
            try {
                rp_thrower(t);
            } catch (...) {
                left[t] = std::current_exception();
            }
        });
    for (auto &th : pool)
        th.join();
    for (int t = 0; t < n; t++) {
        try {
            rp_replay(&left[t]);
        } catch (const std::runtime_error &e) {
            std::printf("thread %d: caught %d, then %s\n", t, caught[t], e.what());
        }
    }
    return 0;
}

/* ------------------------------------------------------- pthread_exit */

extern "C" EXC_NOINLINE void pe_leaf(int t)
{
    EXC_COUNT(pe_leaf);
    exc_sink += t;
}

namespace {
struct Announce {
    int t;
    ~Announce()
    {
        pe_leaf(t);                         /* instrumented, mid-unwinding */
        std::printf("thread %d: destructor ran\n", t);
    }
};
}

extern "C" EXC_NOINLINE void pe_inner(int t)
{
    EXC_COUNT(pe_inner);
    if (t >= 0)
        pthread_exit(nullptr);             /* a forced unwind */
}

extern "C" EXC_NOINLINE void pe_middle(int t)
{
    EXC_COUNT(pe_middle);
    try {
        pe_inner(t);
    } catch (...) {                         /* sees the forced unwind */
        EXC_COUNT(pe_forced_caught);
        throw;
    }
}

extern "C" EXC_NOINLINE void pe_outer(int t)
{
    EXC_COUNT(pe_outer);
    Announce a{t};
    pe_middle(t);
    std::printf("not reached\n");
}

/* a thread leaves instrumented calls with pthread_exit: the destructors
 * above them still run, and catch (...) { throw; } sees the unwinding */
static int pthread_exit_case()
{
    for (int t = 0; t < 2; t++) {
        pthread_t th;
        if (pthread_create(&th, nullptr, [](void *p) -> void * {
                pe_outer((int)(intptr_t)p);
                return nullptr;
            }, (void *)(intptr_t)t) != 0)
            return 1;
        pthread_join(th, nullptr);
        std::printf("thread %d: joined\n", t);
    }
    return 0;
}

/* ------------------------------------------------------------ nested */

extern "C" EXC_NOINLINE void ne_low(int i)
{
    EXC_COUNT(ne_low);
    throw std::runtime_error("low " + std::to_string(i));
}

extern "C" EXC_NOINLINE void ne_mid(int i)
{
    EXC_COUNT(ne_mid);
    try {
        ne_low(i);
    } catch (...) {
        std::throw_with_nested(std::logic_error("mid " + std::to_string(i)));
    }
}

extern "C" EXC_NOINLINE void ne_top(int i)
{
    EXC_COUNT(ne_top);
    try {
        ne_mid(i);
    } catch (...) {
        std::throw_with_nested(std::runtime_error("top " + std::to_string(i)));
    }
}

extern "C" EXC_NOINLINE void ne_print(const std::exception &e, int level)
{
    EXC_COUNT(ne_print);
    std::printf("%*s%s\n", 2 * level, "", e.what());
    try {
        std::rethrow_if_nested(e);
    } catch (const std::exception &inner) {
        ne_print(inner, level + 1);
    }
}

static int nested()
{
    for (int i = 0; i < ROUNDS; i++) {
        try {
            ne_top(i);
        } catch (const std::exception &e) {
            ne_print(e, 0);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ dlopen */

extern "C" EXC_NOINLINE void dl_callback(int i)
{
    EXC_COUNT(dl_callback);
    if (i % 2 == 0)
        throw std::runtime_error("callback " + std::to_string(i));
}

extern "C" EXC_NOINLINE void dl_top(void (*run)(void (*)(int), int), void (*thr)(int), int i)
{
    EXC_COUNT(dl_top);
    try {
        run(dl_callback, i);
        std::printf("round %d: run returned\n", i);
    } catch (const std::runtime_error &e) {
        std::printf("round %d: caught %s\n", i, e.what());
    }
    try {
        thr(i);
        std::printf("round %d: throw returned\n", i);
    } catch (const std::runtime_error &e) {
        std::printf("round %d: caught %s\n", i, e.what());
    }
}

static int dlopen_case(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::printf("dlopen: %s\n", dlerror());
        return 1;
    }
    auto run = (void (*)(void (*)(int), int))dlsym(h, "pl_run");
    auto thr = (void (*)(int))dlsym(h, "pl_throw");
    if (!run || !thr)
        return 1;
    for (int i = 0; i < ROUNDS; i++)
        dl_top(run, thr, i);
    return 0;
}

/* ------------------------------------------------------------ termination */

extern "C" EXC_NOINLINE void nx_thrower(int i)
{
    EXC_COUNT(nx_thrower);
    if (i >= 0)
        throw std::runtime_error("escapes a noexcept function");
}

extern "C" EXC_NOINLINE void nx_guarded(int i) noexcept
{
    EXC_COUNT(nx_guarded);
    nx_thrower(i);
}

extern "C" EXC_NOINLINE void nx_outer(int i)
{
    EXC_COUNT(nx_outer);
    Guard g;
    nx_guarded(i);
}

extern "C" EXC_NOINLINE void nx_in_handler(void)
{
    EXC_COUNT(nx_in_handler);
    exc_sink++;
}

static void handler()
{
    nx_in_handler();
    std::printf("terminate handler\n");
    print_counts();
    std::fflush(stdout);
    std::exit(3);
}

static int terminate_case(int with_handler)
{
    if (with_handler)
        std::set_terminate(handler);
    std::printf("before\n");
    std::fflush(stdout);
    nx_outer(1);
    std::printf("not reached\n");
    return 0;
}

static int uncaught()
{
    std::printf("before\n");
    std::fflush(stdout);
    rt_top(0);
    std::printf("not reached\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    std::string s = argv[1];
    int rc = 2;
    if (s == "dtor_nested")
        rc = dtor_nested();
    else if (s == "dtor_call")
        rc = dtor_call();
    else if (s == "rethrow")
        rc = rethrow();
    else if (s == "rethrow_ptr")
        rc = rethrow_ptr();
    else if (s == "nested")
        rc = nested();
    else if (s == "threads")
        rc = threads();
    else if (s == "pthread_exit")
        rc = pthread_exit_case();
    else if (s == "dlopen" && argc == 3)
        rc = dlopen_case(argv[2]);
    else if (s == "noexcept")
        rc = terminate_case(0);
    else if (s == "terminate_handler")
        rc = terminate_case(1);
    else if (s == "uncaught")
        rc = uncaught();
    print_counts();
    return rc;
}
