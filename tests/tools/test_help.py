#!/usr/bin/python3
"""test_help.py SCOPE SOURCE_ROOT - help that cannot lag the commands.

What each command accepts is read from the code's own tables, not
written here, so a new option, format or section fails this test until
its help names it:
- the commands: tools/commands.h's SCOPE_COMMANDS, each with its
  tools/cmd_<name>.c, each listed by `scope --help`;
- a command's options: its getopt_long table (`struct option opts[]`)
  and short-option string, or, for the commands that read argv by hand
  (run, check-config), the "--x" / "-x" they compare against; each must
  appear in `scope CMD --help`;
- a command's values: its `formats[]`, `kinds[]` and `sorts[]` tables
  (and tools/args.c's `formats[]` when it parses --format with
  scope__parse_format) and the strings it compares optarg with (diff's
  --metric); each must be a word of its help;
- `scope --help`'s line of export names every export format, of plot
  every kind, of report every section the page can have (the link texts
  of tools/cmd_report.c's page_sections()), of diff the sets of runs;
- docs/cli.md names exactly the commands that take --wide;
- `scope diff` with a wrong number of runs says both forms (A B and
  A... --vs B...).
Issue 44: scope --help described diff as "between two runs", export
without hatchet and otf2, report without communication and waits, and
docs/cli.md gave --wide to every table command.
"""
import os
import re
import subprocess
import sys
import unittest

SCOPE = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
del sys.argv[1:]


def read(*path):
    with open(os.path.join(SRC, *path), encoding="utf-8") as f:
        return f.read()


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def commands():
    """{name typed: source file} from tools/commands.h."""
    text = read("tools", "commands.h")
    return {name: f"cmd_{fn}.c" for fn, name in re.findall(r'X\((\w+), "([a-z-]+)"', text)}


def accepted(source):
    """(long options, short options, values) the command's code accepts."""
    text = read("tools", source)
    longs, shorts, values = set(), set(), set()
    table = re.search(r"struct option opts\[\] = \{(.*?)\n    \};", text, re.S)
    if table:
        longs |= set(re.findall(r'\{ "([a-z][a-z-]*)",', table.group(1)))
    # getopt_long's option string, or scope__next_option's (args.h)
    for optstring in re.findall(r'(?:getopt_long\(argc, argv, |\.shortopts = )"([^"]*)"', text):
        shorts |= set(re.sub(r"[:-]", "", optstring))
    # commands that read argv by hand
    for opt in re.findall(r'strcmp\(\w+(?:\[\w+\])?, "(-[^"]+)"\) == 0', text):
        if opt.startswith("--") and len(opt) > 2:
            longs.add(opt[2:])
        elif len(opt) == 2 and opt != "--":
            shorts.add(opt[1])
    # --format's values are args.c's: asked directly, or read by the option
    # loop (scope__options.format)
    reads_format = "scope__parse_format(" in text or re.search(r"\.format = &", text)
    tables = text + (read("tools", "args.c") if reads_format else "")
    for _, body in re.findall(r"static const char \*const (formats|kinds|sorts)\[\] = \{([^}]*)\}",
                              tables):
        values |= set(re.findall(r'"([^"]+)"', body))
    values |= set(re.findall(r'strcmp\(optarg, "([^"]+)"\)', text))
    return longs, shorts, values


def word(text, w):
    """w appears in text as a whole word (or option)."""
    return re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text) is not None


def summary_lines():
    rc, out, err = run("--help")
    assert (rc, err) == (0, ""), (rc, err)
    return dict(re.findall(r"^  ([a-z-]+) +(.*)$", out, re.M))


class Help(unittest.TestCase):
    def test_commands_listed(self):
        cmds = commands()
        self.assertEqual(len(cmds), 17)
        self.assertEqual(sorted(summary_lines()), sorted(cmds))
        for name, source in cmds.items():
            self.assertTrue(os.path.exists(os.path.join(SRC, "tools", source)), source)

    def test_options_and_values_named(self):
        for name, source in commands().items():
            longs, shorts, values = accepted(source)
            with self.subTest(cmd=name):
                self.assertIn("help", longs)
                rc, text, err = run(name, "--help")
                self.assertEqual((rc, err), (0, ""))
                self.assertEqual(run("help", name), (0, text, ""))
                self.assertEqual([o for o in sorted(longs) if not word(text, "--" + o)], [],
                                 "options the help does not name")
                self.assertEqual([o for o in sorted(shorts) if not word(text, "-" + o)], [],
                                 "short options the help does not name")
                self.assertEqual([v for v in sorted(values) if not word(text, v)], [],
                                 "values the help does not name")

    def test_the_tables_were_read(self):
        # the parsing above found what the commands are known to take
        self.assertEqual(accepted("cmd_export.c")[2],
                         {"chrome-trace", "speedscope", "folded", "hatchet", "csv", "json",
                          "otf2"})
        self.assertEqual(accepted("cmd_plot.c")[2], {"timeline", "flame", "imbalance", "comm"})
        self.assertEqual(accepted("cmd_diff.c")[2], {"table", "csv", "json", "median", "total"})
        self.assertEqual(accepted("cmd_run.c")[:2],
                         ({"config", "output", "verbose", "openmp", "help"}, {"c", "o", "v", "h"}))
        self.assertEqual(accepted("cmd_check_config.c")[:2], ({"quiet", "help"}, {"q", "h"}))
        self.assertIn("wide", accepted("cmd_waits.c")[0])

    def test_one_line_descriptions(self):
        lines = summary_lines()
        for cmd in ("export", "plot"):
            with self.subTest(cmd=cmd):
                values = accepted(commands()[cmd])[2]
                self.assertEqual([v for v in sorted(values) if not word(lines[cmd], v)], [])
        sections = re.findall(r'\(section\)\{ "[a-z-]+", "[^"]+", "([^"]+)"',
                              read("tools", "cmd_report.c"))
        self.assertEqual(len(sections), 8, sections)
        self.assertEqual([s for s in sections if not word(lines["report"].lower(), s.lower())], [])
        self.assertIn("sets of runs", lines["diff"])
        self.assertIn("--vs", lines["diff"])

    def test_wide_in_docs(self):
        cli = " ".join(read("docs", "cli.md").split())
        m = re.search(r"The commands whose tables hold names take it: (.*?); `scope comm`", cli)
        self.assertIsNotNone(m)
        documented = set(re.findall(r"`([a-z-]+)`", m.group(1)))
        takes = {name for name, source in commands().items() if "wide" in accepted(source)[0]}
        self.assertEqual(documented, takes)
        self.assertNotIn("wide", accepted("cmd_comm.c")[0])

    def test_diff_operands(self):
        both = "A B (two runs, or two folders of runs), or sets of runs A... --vs B..."
        self.assertEqual(run("diff"), (2, "", f"scope: diff: no runs given: {both} "
                                              "(try 'scope diff --help')\n"))
        self.assertEqual(run("diff", "a.h5"),
                         (2, "", f"scope: diff: 1 run without --vs: give {both} "
                                 "(try 'scope diff --help')\n"))
        self.assertEqual(run("diff", "a.h5", "b.h5", "c.h5"),
                         (2, "", f"scope: diff: 3 runs without --vs: give {both} "
                                 "(try 'scope diff --help')\n"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
