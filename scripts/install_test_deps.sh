#!/usr/bin/env bash
# Everything the test suite needs, on a fresh Debian machine, in one command (the README's second
# command and .ci/run both call it):
#   Debian packages, installed with apt-get only when missing (needs root, or sudo):
#     perl's XML::DOM and DB_File  (libxml-dom-perl; it brings XML::Parser): the official
#                                   ROUGE-1.5.5 Perl script of tests/test_rouge155_perl.py
#     chromium                      the HTML report tests render the page in a real headless browser
#     fonts-wqy-zenhei              a CJK font, so that browser draws the Chinese text (not boxes)
#   Python packages into the active environment: the package itself, editable, with its `test`
#   extra (Paddle's CPU build and the oracle packages: pyproject.toml says why each is there).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

need=()
perl -MXML::DOM -MDB_File -e 1 >/dev/null 2>&1 || need+=(perl libxml-dom-perl)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if command -v fc-list >/dev/null 2>&1; then
    fc-list :lang=zh 2>/dev/null | grep -q . || need+=(fonts-wqy-zenhei)
else
    need+=(fontconfig fonts-wqy-zenhei)
fi
if [ ${#need[@]} -gt 0 ]; then
    SUDO=
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "install_test_deps: apt-get install ${need[*]}" >&2
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi

PY=$(command -v python || command -v python3)
"$PY" -m pip install -q -e ".[test]"
