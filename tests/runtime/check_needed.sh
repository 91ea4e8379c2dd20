#!/bin/sh
# check_needed.sh LIB... - the recorder never puts libhdf5 (nor libmpi,
# libunwind, libstdc++) into an application's symbol scope: none of them
# may be DT_NEEDED by the given libraries.
status=0
for lib in "$@"; do
  bad=$(readelf -d "$lib" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
        grep -E 'hdf5|mpi|unwind|stdc\+\+')
  if [ -n "$bad" ]; then
    echo "$lib needs: $bad" >&2
    status=1
  fi
done
[ $status = 0 ] && echo "check_needed: no libhdf5/libmpi/libunwind/libstdc++ in $*"
exit $status
