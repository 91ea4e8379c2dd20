! prog_fortran.f90 - OpenMP in Fortran (gfortran, GCC's libgomp; recorded
! under `scope run --openmp` on LLVM's libomp): 10 `parallel do` regions
! of 100 iterations, dynamic schedule in chunks of 10, with a reduction,
! a parallel region in which each of 2 threads enters a critical section
! 5 times, and one in which each adds to a real(16) 5 times with `omp
! atomic`, which gfortran hands to the runtime (GOMP_atomic_start: a lock,
! an atomic wait). Prints what it computed, which must not change under
! the profiler. check_lang.py derives every count.
program prog_fortran
  use omp_lib
  implicit none
  integer :: r, i, k, hits
  integer(8) :: total
  real(16) :: q
  total = 0
  hits = 0
  do r = 1, 10
    !$omp parallel do schedule(dynamic, 10) num_threads(2) reduction(+:total)
    do i = 1, 100
      total = total + i
    end do
    !$omp end parallel do
  end do
  !$omp parallel num_threads(2) private(k)
  do k = 1, 5
    !$omp critical
    hits = hits + 1
    !$omp end critical
  end do
  !$omp end parallel
  q = 0
  !$omp parallel num_threads(2) private(k)
  do k = 1, 5
    !$omp atomic
    q = q + 1.5_16
  end do
  !$omp end parallel
  print '(a,i0,a,i0,a,f0.1)', 'total ', total, ' hits ', hits, ' atomic ', q
end program prog_fortran
