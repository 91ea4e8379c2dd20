/* poison/mpi.h - put first in the include path of the preload's MPI files
 * by tests/mpi/meson.build: the preload must never include an mpi.h (its
 * values would fix one MPI ABI at build time; mpi_abi.c holds them). */
#error "the preload included an mpi.h: take MPI values from preload/mpi/mpi_abi.h instead"
