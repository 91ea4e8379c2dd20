#!/bin/sh
# missing_dependencies.sh WHAT... - the test that stands for the tests meson
# left out: it fails and says what to install (tools/install-deps.sh).
echo "tests were left out for lack of:" >&2
for w in "$@"; do echo "  - $w" >&2; done
echo "run tools/install-deps.sh (or install the above), then meson setup --reconfigure" >&2
exit 1
