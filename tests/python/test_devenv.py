#!/usr/bin/python3
"""test_devenv.py MESON BUILD_DIR SOURCE_DIR PROFILE - `meson devenv -C
BUILD_DIR python3 -c 'import scope_reader'` works for this build folder,
whatever it is called (CI's is build-test, the demo's build): run from an
unrelated folder with no PYTHONPATH, SCOPE_READER_LIB or LD_LIBRARY_PATH
of its own, the module comes from SOURCE_DIR/tools/python, the library it
maps is BUILD_DIR's libscope_reader, and it reads PROFILE (21 calls).
The same through a symlink to BUILD_DIR with another name, so nothing
depends on the folder's name. And the documented command, with plain
`python3`, runs the Python the build is for (Debian's /usr/bin/python3,
with numpy) even when another python3 comes first on PATH (issue 44: a
pyenv python3 without numpy did).
"""
import os
import subprocess
import sys
import tempfile
import unittest

MESON, BUILD, SOURCE, PROFILE = sys.argv[1:5]
BUILD, SOURCE, PROFILE = (os.path.realpath(p) for p in (BUILD, SOURCE, PROFILE))
del sys.argv[1:]

PROBE = r"""
import os, sys, scope_reader
maps = open("/proc/self/maps").read().split("\n")
libs = sorted({l.split()[-1] for l in maps if "libscope_reader" in l})
print(os.path.realpath(scope_reader.__file__))
print(os.path.realpath(libs[0]) if len(libs) == 1 else libs)
print(len(scope_reader.read_h5(sys.argv[1]).events()))
"""


def clean_env():
    drop = ("PYTHONPATH", "SCOPE_READER_LIB", "LD_LIBRARY_PATH", "MESON_DEVENV",
            "MESON_PROJECT_NAME")
    return {k: v for k, v in os.environ.items() if k not in drop}


class Devenv(unittest.TestCase):
    def probe(self, build_dir, cwd):
        p = subprocess.run([MESON, "devenv", "-C", build_dir, "-w", cwd,
                            "/usr/bin/python3", "-c", PROBE, PROFILE],
                           cwd=cwd, env=clean_env(), capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.splitlines()[-3:]

    def check(self, build_dir):
        with tempfile.TemporaryDirectory() as cwd:
            module, lib, calls = self.probe(build_dir, cwd)
        self.assertEqual(module, os.path.join(SOURCE, "tools", "python", "scope_reader",
                                              "__init__.py"))
        self.assertEqual(os.path.dirname(lib), os.path.join(BUILD, "reader"))
        self.assertTrue(os.path.basename(lib).startswith("libscope_reader.so"), lib)
        self.assertEqual(calls, "21")

    def test_this_build_dir(self):
        self.check(BUILD)

    def test_a_build_dir_of_another_name(self):
        with tempfile.TemporaryDirectory() as tmp:
            other = os.path.join(tmp, "my-odd-build.dir")
            os.symlink(BUILD, other)
            self.check(other)

    def test_plain_python3_is_the_builds(self):
        with tempfile.TemporaryDirectory() as cwd:
            # a python3 first on PATH that is not the build's: it says so
            other = os.path.join(cwd, "other-bin")
            os.makedirs(other)
            with open(os.path.join(other, "python3"), "w") as f:
                f.write("#!/bin/sh\necho 'not the build python' >&2\nexit 97\n")
            os.chmod(os.path.join(other, "python3"), 0o755)
            env = clean_env()
            env["PATH"] = other + os.pathsep + env.get("PATH", "")
            p = subprocess.run([MESON, "devenv", "-C", BUILD, "-w", cwd, "python3", "-c",
                                "import sys, numpy, scope_reader; print(sys.executable)"],
                               cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.path.realpath(p.stdout.splitlines()[-1]),
                         os.path.realpath("/usr/bin/python3"))

    def test_without_devenv_not_this_tree(self):
        # the negative: without the devenv, python3 does not see this tree's
        # module (it may see an installed one)
        with tempfile.TemporaryDirectory() as cwd:
            p = subprocess.run(["/usr/bin/python3", "-c",
                                "import scope_reader; print(scope_reader.__file__)"],
                               cwd=cwd, env=clean_env(), capture_output=True, text=True)
        if p.returncode != 0:
            self.assertIn("No module named 'scope_reader'", p.stderr)
        else:
            self.assertFalse(os.path.realpath(p.stdout.strip()).startswith(SOURCE + "/"))

if __name__ == "__main__":
    unittest.main(verbosity=2)
