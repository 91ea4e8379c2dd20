/*
 * omp_tool.h - what the OpenMP capture's two files share: the OMPT tool
 * (omp_tool.c), which the OpenMP runtime reaches through the exported
 * ompt_start_tool and which learns from the preload's lifecycle when the
 * process records (scope__lifecycle_watch, ../lifecycle.h), and the check
 * of which runtime the process runs on (omp_runtime.c). Internal to
 * preload/omp/.
 */
#ifndef SCOPE_OMP_TOOL_H
#define SCOPE_OMP_TOOL_H

/* 1 once an OpenMP runtime started the tool (ompt_start_tool, then its
 * initialize), else 0. */
int scope__omp_tool_started(void);

/* Says once per run, on stderr, that the program runs on GCC's libgomp,
 * which has no tool interface, when libgomp is loaded and no OMPT runtime
 * started the tool (`tool_started`: scope__omp_tool_started(), passed in
 * so that the runtime check needs nothing of the tool's file): its
 * OpenMP regions are not recorded, and
 * `scope run --openmp` runs it on LLVM's libomp. Called when recording
 * starts (libraries loaded); prints at most once per run (the first
 * process of a job tree, launcher rank 0). Cost: a walk of the loaded
 * objects (dl_iterate_phdr), once. */
void scope__omp_check_runtime(int tool_started);

#endif
