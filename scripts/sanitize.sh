#!/usr/bin/env bash
# Build the C extensions (paddle_rougel._lcs and the ROUGE-1.5.5 port's _r155) with
# AddressSanitizer + UndefinedBehaviorSanitizer into a temporary directory (the normal build is
# left alone) and run the engine tests and the ROUGE-1.5.5 kernel tests against them (ROUGE-Lsum's bounded-memory paths included:
# tests/test_lsum_memory.py, also selected by -k lsum).  Exits non-zero on a test failure or on any
# sanitizer report, including reports from the tests' child processes.
#
#   scripts/sanitize.sh                 # engine tests
#   scripts/sanitize.sh -k hostile      # extra pytest arguments
#   SANITIZE_PORTABLE=1 scripts/sanitize.sh -k lsum
#                                       # the portable C paths (no SSE2 code), as a
#                                       # build for another architecture compiles them
#
# Needs gcc (or clang: CC=clang) with libasan; PYTHON defaults to python.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python}
CC=${CC:-gcc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/paddle-rougel-sanitize.XXXXXX")
[ -n "${SANITIZE_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
[ -z "${SANITIZE_PORTABLE:-}" ] || SAN="$SAN -U__SSE2__"
# setup.py reads pyproject.toml's metadata, which needs setuptools >= 77 (pyproject.toml's
# build-system; pip builds get it in their isolated environment).  An older one in this
# environment: a newer copy in the work directory, for the build step only.
BUILD_PATH=
if ! "$PY" -c 'import sys, setuptools; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
    "$PY" -m pip install -q --target "$WORK/setuptools" "setuptools>=77" >"$WORK/pip.log" 2>&1 \
        || { cat "$WORK/pip.log"; echo "sanitize.sh: cannot get setuptools>=77" >&2; exit 1; }
    BUILD_PATH="$WORK/setuptools"
fi
echo "== building the extension with $SAN into $WORK"
(
    cd "$ROOT"
    PYTHONPATH="$BUILD_PATH${PYTHONPATH:+:$PYTHONPATH}" CC="$CC" CFLAGS="$SAN -O1" LDFLAGS="$SAN" \
        "$PY" setup.py -q build_ext --build-temp "$WORK/build" --build-lib "$WORK/lib" >"$WORK/build.log" 2>&1
) || { cat "$WORK/build.log"; echo "sanitize.sh: build failed" >&2; exit 1; }
SO=$(find "$WORK/lib" -name '_lcs*.so' | head -n 1)
if [ -z "$SO" ]; then  # setup.py marks the extension optional: a failed build is silent
    cat "$WORK/build.log"
    echo "sanitize.sh: no _lcs extension was built" >&2
    exit 1
fi

# A copy of the package around the sanitized extension, first on sys.path.
PKG="$WORK/lib/paddle_rougel"
(cd "$ROOT/paddle_rougel" && find . -name '*.py' -not -path '*/__pycache__/*' -exec cp --parents {} "$PKG/" \;)
# and its presets (package data: an install copies them from configs/)
mkdir -p "$PKG/presets" && cp "$ROOT"/configs/*.yaml "$PKG/presets/"

ASAN_LIB=$("$CC" -print-file-name=libasan.so)
[ -f "$ASAN_LIB" ] || { echo "sanitize.sh: libasan.so not found ($ASAN_LIB)" >&2; exit 1; }
export LD_PRELOAD="$ASAN_LIB"  # python itself is not instrumented
# detect_leaks=0: CPython keeps its objects at exit.  alloc_dealloc_mismatch=0: a
# C++ new[]/delete check; our code is C (malloc/free only), and Paddle's libpaddle.so,
# imported by test_bleu.py through paddlenlp, trips it in its exit handlers.
export ASAN_OPTIONS="detect_leaks=0:alloc_dealloc_mismatch=0:halt_on_error=1:log_path=$WORK/asan"
# UBSan ignores log_path next to a preloaded libasan: its reports go to stderr, so
# pytest runs with --capture=sys (C-level stderr is not captured) and its output is
# searched below.  Children's stderr reaches their test's failure message.
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
export PYTHONPATH="$WORK/lib${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
# Python objects (str data included) from malloc, not pymalloc's arenas: a read past
# the end of a str the kernels are given is then an ASan report.
export PYTHONMALLOC=malloc
# Under the sanitizers: tests/conftest.py deselects the runs that execute no C code (the
# pure-Python engine's), and tests that generate many cases run fewer of them (tests/test_scale.py:
# fewer alphas and examples): every kernel-facing test still runs, in minutes.
export PADDLE_ROUGEL_SANITIZE=1

cd "$WORK"  # not the checkout: `python -m` puts the cwd first on sys.path
"$PY" - "$SO" <<'EOF'
import sys
import os
from paddle_rougel import _lcs, _r155, engine
assert _lcs.__file__ == sys.argv[1], (_lcs.__file__, sys.argv[1])
assert os.path.dirname(_r155.__file__) == os.path.dirname(sys.argv[1]), _r155.__file__
assert engine.backend() == "c"
print("== sanitized extensions in use:", _lcs.__file__, _r155.__file__)
EOF

set +e -o pipefail
"$PY" -m pytest -q -p no:cacheprovider --capture=sys \
    "$ROOT/tests/test_engine.py" \
    "$ROOT/tests/test_engine_props.py" \
    "$ROOT/tests/test_engine_hostile.py" \
    "$ROOT/tests/test_inputs_hostile.py" \
    "$ROOT/tests/test_engine_words.py" \
    "$ROOT/tests/test_words_simd.py" \
    "$ROOT/tests/test_words_masks.py" \
    "$ROOT/tests/test_ngrams.py" \
    "$ROOT/tests/test_engine_matrix.py" \
    "$ROOT/tests/test_engine_pairs.py" \
    "$ROOT/tests/test_bleu.py::test_kernel_counts_equal_dict_counts" \
    "$ROOT/tests/test_bleu.py::test_python_fallback_gives_the_same_bleu" \
    "$ROOT/tests/test_lsum.py" \
    "$ROOT/tests/test_lsum_memory.py" \
    "$ROOT/tests/test_lsum_simd.py" \
    "$ROOT/tests/test_stats.py" \
    "$ROOT/tests/test_backends.py" \
    "$ROOT/tests/test_scale.py" \
    "$ROOT/tests/test_rouge155_kernels.py" \
    "$ROOT/tests/test_rouge155_metrics.py" \
    "$@" 2>&1 | tee "$WORK/pytest.log"
status=$?
set -e

found=0
for f in $(find "$WORK" -maxdepth 1 -name 'asan.*' | sort); do  # ASan: one file per process
    echo "== sanitizer report $f"
    cat "$f"
    found=1
done
if grep -qE "runtime error:|ERROR: AddressSanitizer" "$WORK/pytest.log"; then  # UBSan, children
    echo "== sanitizer report in the test output above"
    found=1
fi
if [ "$found" -ne 0 ]; then
    echo "sanitize.sh: sanitizer reports found" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize.sh: tests failed (exit $status)" >&2
    exit "$status"
fi
echo "== sanitize.sh: no sanitizer reports, tests passed"
