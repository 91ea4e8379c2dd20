#!/bin/sh
# check_install.sh BUILDDIR WORKDIR - `meson install` into a staging prefix
# gives what a user builds against: the headers, libscope and
# libscope_reader through pkg-config (scope.pc, scope-reader.pc), the
# private HDF5 writer where libscope finds it, and the `scope` tool. A
# program built that way records a region and `scope summary` reads it,
# and so does the installed Python module (with its compiled _rows).
set -eu
build=$1; work=$2
rm -rf "$work"; mkdir -p "$work"
meson install -C "$build" --no-rebuild --destdir "$work/stage" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; exit 1; }
prefix=$(meson introspect "$build" --buildoptions |
  /usr/bin/python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
libdir=$(meson introspect "$build" --buildoptions |
  /usr/bin/python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"][0])')
root="$work/stage$prefix"
case $libdir in /*) lib="$work/stage$libdir" ;; *) lib="$root/$libdir" ;; esac
for f in "$root/include/scope/scope.h" "$root/include/scope/scope_error.h" \
         "$root/include/scope/scope_reader.h" "$lib/pkgconfig/scope.pc" \
         "$lib/pkgconfig/scope-reader.pc" "$lib/scope/scope-h5write" "$root/bin/scope"; do
  [ -e "$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
cat >"$work/app.c" <<'C'
#include <scope.h>
int main(void) {
    int32_t id = scope_region("installed");
    for (int i = 0; i < 3; i++) { scope_begin(id); scope_end(id); }
    return scope_finalize();
}
C
export PKG_CONFIG_PATH="$lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$work/stage"
cc -o "$work/app" "$work/app.c" $(pkg-config --cflags --libs scope)
cd "$work"
LD_LIBRARY_PATH="$lib" ./app
LD_LIBRARY_PATH="$lib" "$root/bin/scope" summary --format csv scope_profile.h5 >summary.csv
grep -q '^installed,3,' summary.csv || { cat summary.csv >&2; exit 1; }
# the Python module, from where it was installed
init=$(find "$work/stage" -path '*/scope_reader/__init__.py' | head -n 1)
[ -n "$init" ] || { echo "not installed: the scope_reader Python module" >&2; exit 1; }
[ -e "$(dirname "$init")/_install_paths.py" ] || { echo "no _install_paths.py" >&2; exit 1; }
calls=$(cd / && PYTHONPATH="$(dirname "$(dirname "$init")")" LD_LIBRARY_PATH="$lib" \
  /usr/bin/python3 -c "import sys, scope_reader as s; print(len(s.read_h5(sys.argv[1]).events()))" \
  "$work/scope_profile.h5")
[ "$calls" = 3 ] || { echo "python read $calls calls, expected 3" >&2; exit 1; }
# its compiled helper (built when python3-dev is there), installed beside it
if ls "$(dirname "$init")"/_rows.*so >/dev/null 2>&1; then
  rows=$(cd / && PYTHONPATH="$(dirname "$(dirname "$init")")" LD_LIBRARY_PATH="$lib" \
    /usr/bin/python3 -c "import scope_reader as s; print(s._rows.__file__)")
  case $rows in "$(dirname "$init")"/_rows.*) ;;
    *) echo "the installed module loads _rows from $rows" >&2; exit 1 ;; esac
fi
echo "check_install: installed tree builds and runs a profiled program; Python reads it"
cd / && rm -rf "$work"
