/*
 * omp_tool.h - the OpenMP capture's interface to the rest of the preload:
 * the OMPT tool (omp_tool.c) records only while the process records, and
 * the preload's lifecycle says when that is. The tool itself is reached by
 * the OpenMP runtime through the exported ompt_start_tool.
 */
#ifndef SCOPE_OMP_TOOL_H
#define SCOPE_OMP_TOOL_H

/* Recording started (on = 1) or stopped for good (0) in this process.
 * Cheap; any thread. */
void scope__omp_recording(int on);

/* 1 once an OpenMP runtime started the tool (ompt_start_tool, then its
 * initialize), else 0. */
int scope__omp_tool_started(void);

/* Says once per run, on stderr, that the program runs on GCC's libgomp,
 * which has no tool interface, when libgomp is loaded and no OMPT runtime
 * started the tool: its OpenMP regions are not recorded, and
 * `scope run --openmp` runs it on LLVM's libomp. Call at the start of
 * recording (libraries loaded) and at its end; prints at most once per
 * run (the first process of a job tree, launcher rank 0). Cost: a walk
 * of the loaded objects (dl_iterate_phdr), once. */
void scope__omp_check_runtime(void);

#endif
