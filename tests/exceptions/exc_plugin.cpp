// exc_plugin.cpp - the library exc_prog.cpp opens with dlopen (never linked):
// its instrumented functions let exceptions cross the object boundary both
// ways (a callback from the program throws through pl_run; pl_throw throws
// a type defined here that the program catches as std::runtime_error),
// with a destructor that throws and catches its own exception while the
// outer one unwinds through the library.
#include <stdexcept>

#include "exc_common.h"

struct PluginError : std::runtime_error {
    explicit PluginError(const char *m) : std::runtime_error(m) {}
};

namespace {
struct LibGuard {
    ~LibGuard()
    {
        try {
            throw std::logic_error("plugin inner");
        } catch (const std::logic_error &) {
            EXC_COUNT(lib_guard_inner);
        }
    }
};
}

extern "C" EXC_EXPORT EXC_NOINLINE void pl_run(void (*cb)(int), int i)
{
    EXC_COUNT(pl_run);
    LibGuard g;
    cb(i);
    exc_sink += i;
}

extern "C" EXC_EXPORT EXC_NOINLINE void pl_throw(int i)
{
    EXC_COUNT(pl_throw);
    LibGuard g;
    if (i % 2)
        throw PluginError("from the plugin");
    exc_sink += i;
}
