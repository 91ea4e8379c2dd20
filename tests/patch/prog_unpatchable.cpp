/*
 * prog_unpatchable.cpp - C++ exceptions whose unwinder entry points a
 * broad config reaches (check_unpatchable.py): a throw through frames
 * with destructors (_Unwind_RaiseException, then _Unwind_Resume from each
 * cleanup), a rethrow (_Unwind_Resume_or_Rethrow), std::rethrow_exception
 * and a backtrace from main, whose depth it prints (under `*` main is
 * timed: the preload's backtrace wrapper must show the whole stack). With
 * the unwinder's entry points instrumented, the first throw ended in
 * std::terminate. work() is called 5 times; the
 * program prints its arguments and what it caught, and exits with status 4.
 */
#include <cstdio>
#include <exception>
#include <execinfo.h>
#include <stdexcept>
#include <string>

static int destroyed;

struct guard {
    std::string s;
    guard() : s(40, 'g') {}
    ~guard() { destroyed++; }
};

extern "C" __attribute__((noinline)) int work(int i)
{
    volatile int s = 0;
    for (int k = 0; k < 1000; k++)
        s += k * i;
    return s & 1;
}

__attribute__((noinline)) static int dive(int n)
{
    guard g;
    if (n == 0)
        throw std::runtime_error("bottom");
    return dive(n - 1) + (int)g.s.size();
}

int main(int argc, char **argv)
{
    int caught = 0, rethrown = 0, from_ptr = 0;
    for (int i = 0; i < 4; i++) {
        try {
            try {
                dive(3);
            } catch (const std::exception &) {
                caught++;
                throw;
            }
        } catch (const std::runtime_error &) {
            rethrown++;
        }
    }
    std::exception_ptr ep;
    try {
        dive(2);
    } catch (...) {
        ep = std::current_exception();
    }
    try {
        std::rethrow_exception(ep);
    } catch (const std::runtime_error &) {
        from_ptr++;
    }
    void *frames[32];
    int depth = backtrace(frames, 32);
    int odd = 0;
    for (int i = 0; i < 5; i++)
        odd += work(i);
    std::printf("args %d %s caught %d rethrown %d from_ptr %d destroyed %d backtrace %d work %d\n",
                argc, argc > 1 ? argv[argc - 1] : "-", caught, rethrown, from_ptr, destroyed,
                depth, odd);
    return 4;
}
