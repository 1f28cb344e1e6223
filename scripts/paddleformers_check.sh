#!/usr/bin/env bash
# PaddleFormers (PaddleNLP's successor): trainer_compute_metrics under a real Trainer.evaluate()
# (tests/paddleformers_trainer.py), in a venv of its own: paddleformers 1.2.0 needs datasets >= 3,
# transformers >= 5 and aistudio-sdk >= 0.3, which clash with the pins paddlenlp 2.8.1 needs in
# the test extra.  The venv gets one wheel of this tree and the `paddleformers-test` extra
# (pyproject.toml); the tests import the wheel, not the source tree.  Run by .ci/run.
#
# Fails (non-zero) if the venv cannot be built, if the tests fail, or if any test is skipped or
# none ran: never a silent pass.  No model or tokenizer is downloaded (the test builds both from
# local files; its sockets cannot reach another host).
#
#   scripts/paddleformers_check.sh
#
# The venv is kept in $PADDLEFORMERS_CHECK_DIR (default .paddleformers-check/, git-ignored) and
# reused.  Building it took 62 s with an empty pip cache on a quiet 2-core machine, 184-216 s
# with seven other jobs on it (the install is CPU-bound: 2.1 GB unpacked); the tests, seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${PADDLEFORMERS_CHECK_DIR:-$ROOT/.paddleformers-check}
PY=${PYTHON:-python3}
VENV=$WORK/venv
LOG=$WORK/install.log
mkdir -p "$WORK"
start=$SECONDS

echo "paddleformers check: building the venv in $VENV (log: $LOG) ..." >&2
{
    { [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"; } &&
        "$VENV/bin/python" -m pip install -q --upgrade pip &&
        rm -rf "$WORK/wheel" &&
        "$VENV/bin/python" -m pip wheel -q --no-deps -w "$WORK/wheel" "$ROOT"
} >"$LOG" 2>&1 || { cat "$LOG" >&2; echo "paddleformers check: FAILED to build the venv" >&2; exit 1; }
WHEEL=$(ls "$WORK"/wheel/paddle_rougel-*.whl)
{
    "$VENV/bin/python" -m pip install -q "$WHEEL[paddleformers-test]" &&
        "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL"  # this tree's, always
} >>"$LOG" 2>&1 || { cat "$LOG" >&2; echo "paddleformers check: FAILED to install into the venv" >&2; exit 1; }
echo "paddleformers check: venv ready in $((SECONDS - start)) s" >&2

where=$(cd "$WORK" && "$VENV/bin/python" -c "import paddle_rougel, os; print(os.path.dirname(paddle_rougel.__file__))")
case $where in
    "$ROOT/paddle_rougel") echo "paddleformers check: the tests would import the source tree, not the wheel" >&2; exit 1 ;;
esac
"$VENV/bin/python" -c "import paddleformers, paddle; print('paddleformers', paddleformers.__version__, 'paddle', paddle.__version__)" 2>/dev/null

# the pytest script (not python -m pytest) keeps the repository root off sys.path
out=$WORK/pytest.log
set +e
"$VENV/bin/pytest" -q -rs -p no:cacheprovider tests/paddleformers_trainer.py >"$out" 2>&1
rc=$?
set -e
tail -n 30 "$out"
summary=$(grep -E '^=*.*[0-9]+ (passed|failed|error)' "$out" | tail -1)
if [ $rc -ne 0 ] || ! grep -qE '[0-9]+ passed' <<<"$summary" || grep -qE 'skipped|failed|error' <<<"$summary"; then
    echo "paddleformers check: FAILED (pytest exit $rc: ${summary:-no summary})" >&2
    exit 1
fi
echo "paddleformers check: passed in $((SECONDS - start)) s" >&2
