"""triage.py FUZZER ARTIFACT... - sorts fuzz_reader's failures by where they
happened. Each input is run again; in the first stack of the report, the
frames of the sanitizers, libFuzzer, the allocator and libc's memory
functions are skipped, and the first frame left says whose code failed.
Failures inside libhdf5 (it loops, leaks or reads out of bounds on some
damaged metadata, which the reader cannot see coming) are listed as such;
any other is scope's, and the exit status is 1.

A frame ASan could not name (no llvm-symbolizer on the machine: it
prints "(module+0xOFFSET)" only) is named here with addr2line, so the
sorting does not depend on the machine: unnamed, ASan's own memcpy
interceptor in the fuzz binary read as scope's code, and a libhdf5
failure was blamed on scope (issue 44).
"""
import re
import subprocess
import sys

SKIP = re.compile(r"__sanitizer|__asan|__ubsan|__lsan|__interceptor|fuzzer::|"
                  r"\bin (malloc|calloc|realloc|free|memcpy|memmove|memset|strlen|strdup|"
                  r"__memcpy\w*|__memmove\w*|__memset\w*|__libc\w*|_start|main)\b|libc\.so|libstdc\+\+\.so|ld-linux|sysdeps/")
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ +(?:in )?(.*)$")
UNNAMED = re.compile(r"^\((.+)\+(0x[0-9a-f]+)\)")


def named(frame):
    """The frame with its function's name in front when ASan gave none:
    addr2line's, from the module's symbol table (libhdf5's stripped
    frames keep the module's path, which says whose they are)."""
    m = UNNAMED.match(frame)
    if not m:
        return frame
    try:
        p = subprocess.run(["addr2line", "-f", "-e", m.group(1), m.group(2)],
                           capture_output=True, text=True, timeout=60)
        fn = p.stdout.splitlines()[0] if p.returncode == 0 and p.stdout else "??"
    except (OSError, subprocess.TimeoutExpired):
        fn = "??"
    return frame if fn == "??" else f"{fn} {frame}"


exe, artifacts = sys.argv[1], sys.argv[2:]
ours = 0
for a in artifacts:
    p = subprocess.run([exe, "-timeout=5", "-rss_limit_mb=2048", a], capture_output=True,
                       text=True, timeout=120)
    frames = []
    for line in p.stderr.splitlines():
        m = FRAME.match(line)
        if m:
            frames.append(named(m.group(1)))
        elif frames:
            break  # the end of the first stack
    kept = [f for f in frames if not SKIP.search("in " + f)]
    # UBSan names the place on its "runtime error" line, stack or not
    ub = re.search(r"^(\S+:\d+:\d+): runtime error: (.*)$", p.stderr, re.M)
    if ub and not kept:
        kept = [f"{ub.group(1)} ({ub.group(2)})"]
    where = kept[0] if kept else "(no stack: the input no longer fails)"
    name = a.rsplit("/", 1)[-1]
    # an RSS-limit OOM prints the stack of whatever allocation crossed the
    # limit; when that is libFuzzer's own, no code of scope's is implicated
    rss_oom = "out-of-memory (used:" in p.stderr
    if rss_oom and all(re.match(r"main \(", f) for f in kept):
        print(f"{name}: over the RSS limit, no allocation of scope's on the stack (the "
              "reader checks claimed sizes against stored bytes; libhdf5's metadata cache)")
        continue
    if "libhdf5" in where:
        print(f"{name}: inside libhdf5 ({where.split(' ')[0]})")
    elif not kept and p.returncode == 0:
        print(f"{name}: does not fail when run alone")
    else:
        ours += 1
        print(f"{name}: FAILURE in scope's code: {where}", file=sys.stderr)
        print("\n".join(frames[:12]), file=sys.stderr)
sys.exit(1 if ours else 0)
