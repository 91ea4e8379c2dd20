// prog_cxx_nolib.cpp - a C++ program that uses nothing of the C++ library,
// linked with --as-needed so that libstdc++ is not loaded (what
// mpicxx.mpich gives a program like this): its functions are mangled, and
// the config names them by their C++ names. check_patch.py checks that
// libstdc++ is absent from the program's needed libraries and the counts.
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile double sink;

namespace solver {
NOINLINE double work(double x)
{
    sink = sink + x;
    return sink * 0.5;
}
NOINLINE double work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += work((double)i);
    return s;
}
} // namespace solver

int main()
{
    double t = 0;
    for (int i = 0; i < 4; i++)
        t += solver::work(5);
    printf("total %.1f\n", t);
    return 0;
}
