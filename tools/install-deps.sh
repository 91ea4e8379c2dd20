#!/usr/bin/env bash
# Installs the Debian packages scope needs: `install-deps.sh build` what
# building scope and running the demo take; `install-deps.sh` (or `test`)
# also what the test suite takes; `install-deps.sh arm64` only what the
# aarch64 cross build adds (tools/test-arm64.sh; its libraries come from
# a sysroot that script makes, not from these packages). Several sets at
# once (`install-deps.sh test arm64`, as tools/test.sh does) cost one
# apt-get update. Does nothing when they are all present already (so it
# is cheap to call from every entry script); otherwise runs apt-get
# update + install, and fails when either fails.
set -euo pipefail
[ $# -gt 0 ] || set -- test
pkgs=()
for set in "$@"; do
case $set in
arm64)
  pkgs+=(
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gfortran-aarch64-linux-gnu  # the cross toolchain
  qemu-user-static                                    # runs the arm64 tests (binfmt: tools/test-arm64.sh)
  mmdebstrap                                          # unpacks the arm64 sysroot without emulation
  meson ninja-build pkg-config
  )
  ;;
build|test)
pkgs+=(
  gcc g++ gfortran make pkg-config meson ninja-build   # toolchain (the C, C++ and Fortran test programs too)
  libhdf5-dev hdf5-tools                              # the HDF5 writer and reader; h5dump to look inside
  openmpi-bin libopenmpi-dev                          # mpirun and MPI programs (the default mpicc/mpirun)
  mpich libmpich-dev                                  # the MPICH ABI: mpicc.mpich, mpif90.mpich, mpirun.mpich (tests/mpi); Open MPI stays the default
  libelf-dev libzydis-dev                             # symbol lookup and x86 disassembly (preload)
  libdw-dev                                           # scope callsites: DWARF/ELF symbolization of call sites (the tool only)
  libunwind8                                          # call-site walks deeper than 1 frame (preload dlopen()s it, RTLD_LOCAL)
  python3-h5py python3-numpy python3-pandas           # the Python module's numpy/pandas; h5py for checks
  python3-dev                                         # the Python module's compiled _rows (events() dicts; optional: built only when Python.h compiles)
  libopen-trace-format2-dev                           # libotf2: scope export --to otf2 (tools/export_otf2.c)
)
if [ "$set" = test ]; then
  pkgs+=(
  python3-mpi4py                                      # the mpi4py test programs
  otf2-tools python3-otf2                             # tests/otf2 reads the exported archives back (otf2-print, import otf2)
  python3-scipy                                       # tests/compare: scope diff's statistics checked against scipy.stats
  python3-dask python3-distributed                    # to_dask() and its test on a local cluster (optional for users)
  iproute2                                            # ip: tests/hosts/loopback_net brings up loopback in a private network namespace
  valgrind                                            # leak and memory checks in tests
  clang libclang-rt-14-dev                            # libFuzzer targets (tests/fuzz)
  libomp-14-dev libomp5-14                            # LLVM's OpenMP runtime (OMPT): tests/omp's clang programs, `scope run --openmp`
  cp2k                                                # tests/omp: cp2k.psmp (MPI + OpenMP, GCC) under `scope run --openmp`
  uftrace                                             # bench/bench_interpose compares against it (optional)
  chromium                                            # headless browser: tests draw the `scope report` page
  librsvg2-bin                                        # rsvg-convert: tests render the `scope plot` SVGs
  lammps lammps-examples                              # tests/startup and bench_startup: lmp (liblammps.so) and its melt example
  mmdebstrap                                          # tools/test-fresh-root.sh: the README's first command in a minimal Debian 12 root
  )
fi
  ;;
*)
  echo "install-deps.sh: no package set '$set' (build, test, arm64)" >&2
  exit 2
  ;;
esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then exit 0; fi
echo "scope: installing Debian packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q --error-on=any   # a mirror that failed fails here, not later
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
