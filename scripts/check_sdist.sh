#!/usr/bin/env bash
# The sdist round trip: sdist of a clean clone (committed files only) -> unpack -> fresh venv ->
# the README's install command (bash scripts/install_test_deps.sh: the C extensions build from the
# sdist's sources), then, in the unpacked tree: every test module collected (each imports from the
# sdist's install), and a smoke run of the tests that read the tree's own files (the golden outputs
# of the README's commands, the README and docs code blocks, the README commands) and of the C
# engine.  That the sdist holds every committed file is tests/test_packaging.py's
# test_sdist_holds_every_committed_file, in the main run; the main run has run every test on the
# same files, so the whole suite is not run twice (it kept .ci/run over 30 minutes).  Fails if the
# sdist lacks anything the build, the collection or the smoke run needs.  Needs `build` (the test
# extra) in the python that runs it; takes a few minutes (it installs the test extras once more).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/paddle-rougel-sdist.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if [ -d .git ]; then
    git clone --quiet --no-hardlinks "$ROOT" "$TMP/src"
else
    echo "not a git checkout: building the sdist from this tree" >&2
    cp -r "$ROOT" "$TMP/src"
fi
"$PY" -m build --sdist --outdir "$TMP/dist" "$TMP/src" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; exit 1; }
tar -xzf "$TMP"/dist/*.tar.gz -C "$TMP"
cd "$TMP"/paddle_rougel-*/
echo "sdist unpacked in $PWD; installing the test extras into a fresh venv ..." >&2
"$PY" -m venv "$TMP/venv"
. "$TMP/venv/bin/activate"
python -m pip install -q --upgrade pip
bash scripts/install_test_deps.sh
pytest -q -p no:cacheprovider --collect-only >"$TMP/collect.log" 2>&1 || { tail -40 "$TMP/collect.log"; exit 1; }
tail -n 1 "$TMP/collect.log"
pytest -q -p no:cacheprovider tests/test_golden.py tests/test_readme.py tests/test_readme_commands.py \
    tests/test_docs.py tests/test_engine.py
