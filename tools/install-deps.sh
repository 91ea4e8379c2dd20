#!/usr/bin/env bash
# Installs the Debian packages scope needs to build, test and run its demo.
# Does nothing when they are all present already (so it is cheap to call
# from every entry script); otherwise runs apt-get update + install.
set -euo pipefail
pkgs=(
  gcc g++ gfortran make pkg-config meson ninja-build   # toolchain (C, C++ and Fortran test programs)
  libhdf5-dev hdf5-tools                              # the HDF5 writer and reader; h5dump in tests
  openmpi-bin libopenmpi-dev                          # mpirun and MPI test programs
  libelf-dev libcapstone-dev                          # symbol lookup and x86 disassembly (preload)
  libunwind8                                          # call-site walks deeper than 1 frame (preload dlopen()s it, RTLD_LOCAL)
  libdw-dev                                           # call sites -> function, file:line, inlines (tools/symbolize.c)
  python3-h5py python3-numpy python3-mpi4py python3-pandas  # file checks and mpi4py tests
  valgrind                                            # leak and memory checks in tests
  clang libclang-rt-14-dev                            # libFuzzer targets (tests/fuzz)
  uftrace                                             # bench/bench_interpose compares against it (optional)
  chromium                                            # headless browser: tests draw the `scope report` page
  librsvg2-bin                                        # rsvg-convert: tests render the `scope plot` SVGs
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then exit 0; fi
echo "scope: installing Debian packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
