// exc_common.h - shared by exc_prog.cpp and exc_plugin.cpp: the program
// counts every call of an instrumented function itself and prints the
// counts at the end ("calls NAME N"), so the test compares the profile with
// what really ran, in the same process.
#ifndef EXC_COMMON_H
#define EXC_COMMON_H

#define EXC_NOINLINE __attribute__((noinline, noclone))
#define EXC_EXPORT __attribute__((visibility("default")))

extern "C" {
/* defined in exc_prog.cpp (exported with -rdynamic for the plugin) */
void exc_count(const char *name);
extern volatile long exc_sink;
}

#define EXC_COUNT(name) exc_count(#name)

#endif
