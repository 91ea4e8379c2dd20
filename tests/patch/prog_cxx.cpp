// prog_cxx.cpp - C++ cases: methods configured by demangled name and by
// glob, a virtual call, exceptions thrown through instrumented functions
// (caught by an instrumented caller, rethrown, and raised again from a
// std::exception_ptr), then normal calls to
// show the shadow stack is intact. Expected counts are in check_patch.py.
#include <cstdio>
#include <exception>
#include <stdexcept>

#define NOINLINE __attribute__((noinline, noclone))

static volatile long sink;

namespace ns {
struct Shape {
    virtual double area() const = 0;
    virtual ~Shape() {}
};
struct Square : Shape {
    double s;
    explicit Square(double v) : s(v) {}
    NOINLINE double area() const override;
};
NOINLINE double Square::area() const
{
    sink += 1;
    return s * s;
}

struct Solver {
    long acc = 0;
    NOINLINE int step(int x);
};
NOINLINE int Solver::step(int x)
{
    acc += x;
    sink += x;
    return (int)(acc & 0xff);
}

NOINLINE void thrower(int n)
{
    sink += n;
    if (n == 0)
        throw std::runtime_error("boom");
    thrower(n - 1);
    sink -= n;
}
}  // namespace ns

NOINLINE int catcher(int n)
{
    try {
        ns::thrower(n);
    } catch (const std::exception &e) {
        return (int)sizeof(e) + n;
    }
    return -1;
}

NOINLINE void rethrower()
{
    try {
        ns::thrower(1);
    } catch (...) {
        sink += 100;
        throw;
    }
}

static std::exception_ptr saved;

NOINLINE void keeper()
{
    try {
        ns::thrower(0);
    } catch (...) {
        saved = std::current_exception();
    }
}

NOINLINE void replayer()
{
    sink += 1;
    std::rethrow_exception(saved);
}

int main()
{
    ns::Square sq(1.5);
    ns::Shape *volatile shape = &sq;
    double a = 0;
    for (int i = 0; i < 7; i++)
        a += shape->area();
    std::printf("area %.2f\n", a);
    int c = 0;
    for (int i = 0; i < 5; i++)
        c += catcher(3);
    std::printf("caught %d\n", c);
    int r = 0;
    for (int i = 0; i < 2; i++) {
        try {
            rethrower();
        } catch (const std::runtime_error &e) {
            r += e.what()[0] == 'b';
        }
    }
    std::printf("rethrown %d\n", r);
    keeper();
    int k = 0;
    for (int i = 0; i < 3; i++) {
        try {
            replayer();
        } catch (const std::runtime_error &e) {
            k += e.what()[1] == 'o';
        }
    }
    std::printf("replayed %d\n", k);
    ns::Solver s;
    int t = 0;
    for (int i = 0; i < 100; i++)
        t += s.step(i);
    std::printf("steps %d\n", t);
    return 0;
}
