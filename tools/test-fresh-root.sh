#!/usr/bin/env bash
# Proves the README's first command on a machine that has nothing: makes a
# minimal Debian 12 root (mmdebstrap --variant=minbase, plus git and
# ca-certificates only), clones this tree into it, runs `./tools/demo.sh`
# there as root and checks the summary it prints, call count by call count.
# Then, in the same root, takes the Python headers away again and checks
# that a new build still configures, without the optional compiled helper
# (issue 44: meson reported Python found without Python.h, and the build
# stopped at _rows.c).
#
# Every other phase of tools/test.sh runs on this machine, where the test
# set of packages is installed: a package the build needs but the build
# set of tools/install-deps.sh lacks is invisible there. Here nothing leaks
# in: the root is new each time and sees none of the machine's packages.
#
# What is tested is the tree as it is now, uncommitted changes included
# (a commit made of the working tree by `git stash create`, fetched into
# the clone). Needs root (or sudo) for mmdebstrap, chroot and mounts, and
# the network for Debian's mirror. About 200 MB for the root, 1 GB once
# the demo's packages are in; removed at the end.
#
#   tools/test-fresh-root.sh [ROOT]   (default: a new folder under /var/tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
t0=$SECONDS
say() { echo "test-fresh-root: $1 ($((SECONDS - t0)) s)"; }

root=${1:-$(mktemp -d /var/tmp/scope-fresh-root.XXXXXX)}
cleanup() { $SUDO rm -rf --one-file-system "$root"; }
trap cleanup EXIT

say "a minimal Debian 12 root in $root"
sources=$(mktemp /tmp/scope-fresh-sources.XXXXXX)
tools/debian-sources.sh >"$sources"
$SUDO rm -rf "$root"
$SUDO mmdebstrap --quiet --variant=minbase --include=git,ca-certificates \
  --aptopt='Acquire::Check-Valid-Until "false"' bookworm "$root" "$sources"
rm -f "$sources"
# A minimal root has no /etc/hosts: every mpirun would wait ~40 s on a
# name lookup of the host. A machine's own names, as its installer writes.
host=$(hostname)
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$host" |
  $SUDO tee "$root/etc/hosts" >/dev/null
$SUDO cp /etc/resolv.conf "$root/etc/resolv.conf"

say "a clone of this tree in the root's /root/scope"
tree=$(git stash create)
tree=${tree:-$(git rev-parse HEAD)}
git update-ref refs/scope-fresh-root/tree "$tree"
$SUDO git clone --quiet "$PWD" "$root/root/scope"
$SUDO git -C "$root/root/scope" fetch --quiet "$PWD" refs/scope-fresh-root/tree
$SUDO git -C "$root/root/scope" checkout --quiet --detach FETCH_HEAD
git update-ref -d refs/scope-fresh-root/tree

# Runs a command in the root as its root user, with a private mount
# namespace for /proc, /sys and /dev (gone with it) and an environment of
# its own: nothing of this machine's PATH (a pyenv python3 here) leaks in.
in_root() {
  $SUDO unshare --mount --propagation private -- /bin/bash -c '
    set -e
    r=$1; shift
    mount -t proc proc "$r/proc"
    mount -t sysfs sysfs "$r/sys"
    mount --rbind /dev "$r/dev"
    exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
  ' in_root "$root" "$@"
}

say "the README's first command: ./tools/demo.sh"
log=$(mktemp /tmp/scope-fresh-demo.XXXXXX)
status=0
in_root /bin/bash -c 'cd /root/scope && ./tools/demo.sh' >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 60 "$log"
  echo "test-fresh-root: tools/demo.sh exited $status in a fresh root (last lines above)" >&2
  exit 1
fi
say "checking the summary it printed"
# The demo's known counts (tools/demo/scope-demo.c: 4 ranks, 20 steps,
# two halo exchanges of 8 bytes each way per step, one Allreduce of one
# double per step, a setup and a checkpoint per rank).
/usr/bin/python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
want = {  # region: (calls, sent, received) of the first table
    "MPI_Init..MPI_Finalize": ("4", "0", "0"),
    "MPI_Init": ("4", "0", "0"),
    "setup_grid": ("4", "0", "0"),
    "compute_step": ("80", "0", "0"),
    "exchange_halo": ("80", "0", "0"),
    "MPI_Sendrecv": ("160", "1.2 KiB", "1.2 KiB"),
    "reduce_residual": ("80", "0", "0"),
    "MPI_Allreduce": ("80", "640 B", "640 B"),
    "write_checkpoint": ("4", "0", "0"),
}
tables = text.split("\nregion ")
if len(tables) < 3:
    sys.exit("test-fresh-root: the demo printed no summary tables:\n" + text[-3000:])
got = {}
for line in tables[1].splitlines()[1:]:
    if not line.strip():
        break
    cols = re.split(r"\s{2,}", line.strip())   # a cell may hold one space: "1.2 KiB"
    if len(cols) in (10, 12):                   # + read, written when I/O was recorded
        got[cols[0]] = (cols[1], cols[8], cols[9]) + tuple(cols[10:])
io_rows = {k: v for k, v in got.items() if k not in want}
got = {k: v[:3] for k, v in got.items() if k in want}
bad = [f"{k}: want calls/sent/received {v}, got {got.get(k)}" for k, v in want.items() if got.get(k) != v]
# The I/O calls every rank times by default (issue 46): each rank prints
# one line (printf), and stdio may look at and write to its stream; any
# other row is a region the demo does not have. Their names come from the
# one vocabulary of calls.
io_calls = set(re.findall(r"^SCOPE_IO_CALL\(\w+, (\w+),",
                          open("format/calls_io.def").read(), re.M))
extra = sorted(k for k in io_rows if k not in io_calls)
if extra:
    bad.append(f"regions the demo does not have: {extra}")
if io_rows.get("printf", ("",))[0] != "4":
    bad.append(f"printf: one call per rank, got {io_rows.get('printf')}")
for k, v in io_rows.items():
    if k in io_calls and (v[1:3] != ("0", "0") or (len(v) == 5 and v[3] != "0")):
        bad.append(f"{k}: an I/O call that sent, received or read: {v}")
ranks = sorted(set(re.findall(r"^rank (\d): residual", text, re.M)))
if ranks != ["0", "1", "2", "3"]:
    bad.append(f"the program's own output lost ranks: {ranks}")
per_rank = re.findall(r"^compute_step\s+([0-3])\s+20\s", tables[2], re.M)
if sorted(per_rank) != ["0", "1", "2", "3"]:
    bad.append(f"--per-rank: compute_step rows of 20 calls for ranks {per_rank}")
if bad:
    sys.exit("test-fresh-root: the summary is wrong:\n  " + "\n  ".join(bad) + "\n" + tables[1])
print("test-fresh-root: the summary has every region with its calls and bytes")
PY

say "the build without Python's headers: configures, no compiled helper"
in_root /bin/bash -c '
  set -e
  export DEBIAN_FRONTEND=noninteractive
  apt-get purge -y -q python3-dev libpython3-dev "libpython3*-dev" "python3*-dev" >/dev/null
  ! [ -e "/usr/include/python3.11/Python.h" ] || { echo "Python.h still there" >&2; exit 1; }
  cd /root/scope
  meson setup /tmp/nopy >/tmp/nopy.log 2>&1 || { cat /tmp/nopy.log; exit 1; }
  grep -q "Has header \"Python.h\" .*: NO" /tmp/nopy.log || { cat /tmp/nopy.log; echo "no Python.h check above" >&2; exit 1; }
  if meson introspect --targets /tmp/nopy | grep -q "\"_rows\""; then
    echo "the build still makes _rows without Python.h" >&2; exit 1
  fi
  ninja -C /tmp/nopy tools/scope >/dev/null
' || { echo "test-fresh-root: the build without python3-dev failed (above)" >&2; exit 1; }
say "done: the README's first command works on a fresh Debian 12"
