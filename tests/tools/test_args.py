#!/usr/bin/python3
"""test_args.py SCOPE PROFILE BENCH... - every `scope` command and every
benchmark refuses an argument it does not know: exit status 2, nothing on
stdout, and on stderr one line naming the argument plus the usage (the
`scope` commands: "(try 'scope CMD --help')"; the benchmarks: their
"usage:" line). A benchmark once read `--no-uftrace` as a call count of 0
and printed 10^30 ns; a bad count (0, 10abc, -5, two counts) is refused
the same way. None of these runs a benchmark: a refused argument stops
before any work.
"""
import os
import subprocess
import sys
import unittest

SCOPE = os.path.abspath(sys.argv[1])
PROFILE = os.path.abspath(sys.argv[2])
BENCHES = [os.path.abspath(b) for b in sys.argv[3:]]
del sys.argv[1:]

# every subcommand of tools/scope.c, with arguments that are otherwise valid
COMMANDS = {
    "summary": [PROFILE],
    "events": [PROFILE],
    "tree": [PROFILE],
    "callsites": [PROFILE],
    "export": ["--to", "csv", "-o", "-", PROFILE],
    "diff": [PROFILE, PROFILE],
    "merge": ["-o", os.devnull, PROFILE],
    "report": ["-o", os.devnull, PROFILE],
    "plot": ["-o", os.devnull, PROFILE],
    "check-config": [os.devnull],
    "recover": [os.path.dirname(PROFILE)],
}


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


class ToolArgs(unittest.TestCase):
    def refused(self, argv, bad, cmd):
        rc, out, err = run(argv)
        self.assertEqual((rc, out), (2, ""), (argv, err))
        self.assertEqual(err, f"scope: {cmd}: unknown option '{bad}' "
                              f"(try 'scope {cmd} --help')\n", argv)

    def test_unknown_long_and_short_options(self):
        for cmd, args in COMMANDS.items():
            for bad in ("--no-such-option", "-Z"):
                with self.subTest(cmd=cmd, bad=bad):
                    self.refused([SCOPE, cmd, bad, *args], bad, cmd)
                    # after the paths too (options are found anywhere)
                    if cmd != "check-config":
                        self.refused([SCOPE, cmd, *args, bad], bad, cmd)

    def test_run_refuses_and_shows_usage(self):
        rc, out, err = run([SCOPE, "run", "--no-such-option", "--", "true"])
        self.assertEqual((rc, out), (2, ""))
        lines = err.splitlines()
        self.assertEqual(lines[0], "scope run: unknown option '--no-such-option'")
        self.assertTrue(lines[1].startswith("usage: scope run "), err)

    def test_extra_positionals(self):
        rc, out, err = run([SCOPE, "diff", PROFILE, PROFILE, PROFILE])
        self.assertEqual((rc, out, err), (2, "", "scope: diff: 3 runs without --vs: give A B "
                                                 "(two runs, or two folders of runs), or sets "
                                                 "of runs A... --vs B... (try 'scope diff "
                                                 "--help')\n"))
        rc, out, err = run([SCOPE, "check-config", os.devnull, os.devnull])
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, f"scope: check-config: one config file only, not also "
                              f"'{os.devnull}' (try 'scope check-config --help')\n")


class BenchArgs(unittest.TestCase):
    def refused(self, bench, args, what):
        name = os.path.basename(bench)
        rc, out, err = run([bench, *args])
        self.assertEqual((rc, out), (2, ""), (name, args, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 2, err)
        self.assertEqual(lines[0], f"{name}: {what}", err)
        self.assertTrue(lines[1].startswith(f"usage: {name} ["), err)

    def test_all_benchmarks_found(self):
        # the preload's benchmarks exist where the preload is built
        # (x86-64 so far: SCOPE_BENCH_PRELOAD=0 elsewhere, from meson)
        want = ["bench_reader", "bench_recorder"]
        if os.environ.get("SCOPE_BENCH_PRELOAD", "1") == "1":
            want = ["bench_callsites", "bench_interpose"] + want
        self.assertEqual(sorted(os.path.basename(b) for b in BENCHES), want)

    def test_unknown_options(self):
        for bench in BENCHES:
            for bad in ("--no-uftrace", "-x", "--help-me"):
                with self.subTest(bench=bench, bad=bad):
                    self.refused(bench, [bad], f"unknown option '{bad}'")

    def test_bad_counts(self):
        counts = {"bench_interpose": "CALLS must be a count from 1000 to 1000000000",
                  "bench_callsites": "CALLS must be a count from 1000 to 1000000000",
                  "bench_recorder": "PAIRS must be a count from 1000 to 1000000000",
                  "bench_reader": "EVENTS must be a count of at least 10"}
        for bench in BENCHES:
            what = counts[os.path.basename(bench)]
            for bad in ("0", "10abc", "1e6", " 5000", "99999999999999999999"):
                with self.subTest(bench=bench, bad=bad):
                    self.refused(bench, [bad], f"{what}, not '{bad}'")

    def test_too_many_arguments(self):
        extra = {"bench_interpose": ["5000", "6000"], "bench_callsites": ["5000", "6000"],
                 "bench_recorder": ["5000", "3", "4"], "bench_reader": ["100", "2", "7"]}
        for bench in BENCHES:
            args = extra[os.path.basename(bench)]
            with self.subTest(bench=bench):
                self.refused(bench, args, f"unexpected argument '{args[-1]}'")

    def test_help(self):
        for bench in BENCHES:
            with self.subTest(bench=bench):
                rc, out, err = run([bench, "--help"])
                self.assertEqual((rc, err), (0, ""))
                self.assertTrue(out.startswith(f"usage: {os.path.basename(bench)} ["), out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
