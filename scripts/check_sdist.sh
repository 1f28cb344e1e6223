#!/usr/bin/env bash
# The sdist round trip: sdist of a clean clone (committed files only) -> unpack -> fresh venv ->
# the README's install command (bash scripts/install_test_deps.sh), then pytest in the unpacked tree:
# every test module collected (each imports from the sdist), and every test run but the
# property-based, fuzz and hostile ones (-k), which compute on generated data and read no file of
# the tree, so the sdist cannot lack what they need (the main run has just run them: this keeps
# .ci/run well under 30 minutes).  Fails if the sdist lacks anything the build or the tests need.  Needs `build` (the test extra)
# in the python that runs it; takes a few minutes (it installs the test extras once more).
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
bash scripts/install_test_deps.sh && pytest -q -k "not props and not fuzz and not hostile"
