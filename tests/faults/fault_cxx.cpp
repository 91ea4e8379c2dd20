// fault_cxx.cpp - N calls of work(), then an exception thrown through the
// instrumented thrower() that nobody catches (std::terminate, SIGABRT).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

volatile int sink;

__attribute__((noinline)) void work(int i)
{
    for (int k = 0; k < 50; k++)
        sink = sink + i * k;
}

__attribute__((noinline)) void thrower()
{
    sink = sink + 1;
    throw std::runtime_error("nobody catches this");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    for (int i = 0; i < n; i++)
        work(i);
    std::printf("recorded %d\n", n);
    std::fflush(stdout);
    thrower();
    return 0;
}
