#!/usr/bin/env bash
# The Paddle version matrix: every supported Paddle minor version in its own venv, each with this
# package (one wheel, built once) and pytest, running the tests that need paddle but not paddlenlp
# (paddlenlp 2.8.1 pins numpy 1.26.4 and friends, which would decide the numpy each Paddle gets
# instead of Paddle itself).  Prints a markdown table; exits non-zero if any version fails.
#
#   scripts/paddle_versions.sh                 # all supported versions
#   PADDLE_VERSIONS="3.0.0 3.3.1" scripts/paddle_versions.sh
#
# Venvs are kept in $PADDLE_VERSIONS_DIR (default .paddle-versions/, git-ignored) and reused.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# the newest release of each minor version from the floor (2.6) on
VERSIONS=${PADDLE_VERSIONS:-"2.6.2 3.0.0 3.1.1 3.2.2 3.3.1"}
WORK=${PADDLE_VERSIONS_DIR:-$ROOT/.paddle-versions}
PY=${PYTHON:-python3}
# paddle, not paddlenlp: the device path and hapi first, then the metrics and two real gloo ranks
TESTS=(tests/test_device.py tests/test_hapi.py tests/test_hapi_static.py tests/test_metric.py tests/test_bad_input.py
       tests/test_metric_hostile.py tests/test_metric_stats.py tests/test_distributed.py
       --deselect tests/test_device.py::test_paddlenlp_compat_equals_paddlenlp)
mkdir -p "$WORK"

echo "building one wheel of this tree ..." >&2
rm -rf "$WORK/wheel"
{ [ -x "$WORK/build-venv/bin/python" ] || "$PY" -m venv "$WORK/build-venv"; } &&
    "$WORK/build-venv/bin/python" -m pip wheel -q --no-deps -w "$WORK/wheel" "$ROOT" >"$WORK/wheel.log" 2>&1 \
    || { cat "$WORK/wheel.log" >&2; exit 1; }
WHEEL=$(ls "$WORK"/wheel/paddle_rougel-*.whl)

rows=()
fail=0
for v in $VERSIONS; do
    venv=$WORK/paddle-$v
    log=$WORK/paddle-$v.log
    echo "paddle $v: installing into $venv (log: $log) ..." >&2
    start=$SECONDS
    {
        [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
        # Paddle 2.x predates numpy 2 (with it, two-rank hapi evaluation segfaults inside Paddle)
        case $v in 2.*) numpy_pin="numpy<2" ;; *) numpy_pin=numpy ;; esac
        "$venv/bin/python" -m pip install -q "paddlepaddle==$v" "$numpy_pin" pytest &&
            "$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL" &&
            "$venv/bin/python" -m pip install -q "$WHEEL"  # its own deps, if any are missing
    } >"$log" 2>&1
    if [ $? -ne 0 ]; then
        rows+=("| $v | | | install failed (see $log) | |")
        fail=1
        continue
    fi
    numpy=$("$venv/bin/python" -c "import numpy; print(numpy.__version__)" 2>/dev/null)
    # the repo's tests against the installed wheel: the pytest script (not python -m pytest)
    # keeps the repo root off sys.path
    echo "paddle $v: running ${TESTS[*]:0:5} ..." >&2
    "$venv/bin/pytest" -q -p no:cacheprovider "${TESTS[@]}" >>"$log" 2>&1
    rc=$?
    summary=$(grep -E '^=*.*[0-9]+ (passed|failed|error)' "$log" | tail -1 | tr -d '=' | sed 's/^ *//;s/ *$//')
    [ $rc -eq 0 ] || fail=1
    where=$(cd "$WORK" && "$venv/bin/python" -c "import paddle_rougel, os; print(os.path.dirname(paddle_rougel.__file__))")
    case $where in "$ROOT/paddle_rougel") echo "error: tests imported the source tree, not the wheel" >&2; fail=1 ;; esac
    rows+=("| $v | $numpy | $([ $rc -eq 0 ] && echo pass || echo FAIL) | ${summary:-no summary, see $log} | $((SECONDS - start)) s |")
done

pyv=$("$PY" -c "import platform; print(platform.python_version())")
echo
echo "Python $pyv, CPU; tests: ${TESTS[*]:0:5}"
echo
echo "| paddlepaddle | numpy | result | pytest | time |"
echo "|---|---|---|---|---:|"
printf '%s\n' "${rows[@]}"
exit $fail
