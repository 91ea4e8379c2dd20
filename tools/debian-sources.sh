#!/usr/bin/env bash
# Prints the machine's Debian bookworm sources as one-line `deb` entries,
# for mmdebstrap's mirror argument (tools/test-arm64.sh, tools/test-fresh-root.sh).
#
# Asked of apt itself (`apt-get indextargets`), which reads every format it
# accepts: a cloud image's deb822 /etc/apt/sources.list.d/debian.sources,
# a classic /etc/apt/sources.list, and the sources.list.d files mmdebstrap
# itself writes into a root it made. Reading one of those files by name
# broke on a machine that had only another (issue 44, "invalid mirror").
# Only the enabled entries of the bookworm suites are printed, so a
# third-party repository (nodesource, a cloud SDK) never reaches a root.
# Exits 1, printing nothing, when the machine has no such entry.
set -euo pipefail
lines=$(apt-get indextargets --format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
  awk '$1 == "deb" && $3 ~ /^bookworm/ { print "deb " $2 " " $3 " " $4 }' | sort -u)
[ -n "$lines" ] || { echo "debian-sources.sh: apt lists no bookworm source on this machine" >&2; exit 1; }
printf '%s\n' "$lines"
