"""Build steps that pyproject.toml cannot declare: the C extension and the shipped presets.

Metadata and dependencies are in pyproject.toml.

* Presets: ``configs/*.yaml`` (the source of truth, at the top of the repository) become the
  package data ``paddle_rougel/presets/*.yaml``: copied into the build tree for a wheel (also
  when the wheel is built from the sdist, which carries configs/), and into the source tree
  (git-ignored) for an editable install, whose package is the source tree.
* The C extension (``paddle_rougel._lcs``): if it does not compile, the build stops with one
  line naming ``PADDLE_ROUGEL_PURE_PYTHON=1``, which builds without it (the pure-Python engine:
  exact, much slower).  A silently optional extension would hide the failure: pip shows a
  backend's output only when the build fails (or with -v).
"""
import glob
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PURE_ENV = "PADDLE_ROUGEL_PURE_PYTHON"


def _presets():
    found = sorted(glob.glob(os.path.join(HERE, "configs", "*.yaml")))
    if not found:
        raise SystemExit(f"error: no presets in {os.path.join(HERE, 'configs')} (incomplete source tree?)")
    return found


class BuildPyWithPresets(build_py):
    """build_py, plus configs/*.yaml -> paddle_rougel/presets/."""

    def _preset_dir(self):
        if self.editable_mode:
            return os.path.join(HERE, "paddle_rougel", "presets")
        return os.path.join(self.build_lib, "paddle_rougel", "presets")

    def run(self):
        if not self.editable_mode:  # a stale build/ would otherwise ship modules deleted since
            shutil.rmtree(os.path.join(self.build_lib, "paddle_rougel"), ignore_errors=True)
        super().run()
        dest = self._preset_dir()
        os.makedirs(dest, exist_ok=True)
        for old in glob.glob(os.path.join(dest, "*.yaml")):  # a renamed or removed preset
            os.remove(old)
        for src in _presets():
            shutil.copyfile(src, os.path.join(dest, os.path.basename(src)))

    def get_outputs(self, include_bytecode=True):
        dest = os.path.join(self.build_lib, "paddle_rougel", "presets")
        return super().get_outputs(include_bytecode) + [
            os.path.join(dest, os.path.basename(p)) for p in _presets()]


class BuildExtOrExplain(build_ext):
    """A compile failure ends the build with one line that says what to do."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # CompileError, no compiler, missing headers, ...
            detail = " ".join(str(e).split())
            detail = detail if len(detail) <= 80 else detail[:77] + "..."  # the compiler's output is above
            raise SystemExit(
                f"error: paddle-rougel: the C extension {ext.name} failed to build ({detail}); install "
                f"a C compiler and Python headers, or set {PURE_ENV}=1 to install the pure-Python "
                "engine (exact, much slower)") from None


if os.environ.get(PURE_ENV, "") not in ("", "0"):
    EXTENSIONS = []
else:
    EXTENSIONS = [
        Extension(
            "paddle_rougel._lcs",
            sources=sorted(glob.glob("paddle_rougel/csrc/*.c")),
            depends=sorted(glob.glob("paddle_rougel/csrc/*.h")),
            # no fused multiply-add: the C scores are the float64 values numpy computes.
            # Functions and loops start on 64-byte lines: the kernels' speed then does not
            # depend on where the linker happens to place them (an edit to one source shifted
            # the others' hot loops by a few bytes and cost them 3-4%); about 6% more code.
            extra_compile_args=["-O3", "-std=gnu99", "-ffp-contract=off", "-falign-functions=64",
                                "-falign-loops=64"],
            extra_link_args=["-lpthread"],
        ),
        Extension(  # ROUGE-1.5.5's LCS / weighted-LCS masks and clipped counts (rouge155/)
            "paddle_rougel._r155",
            sources=["paddle_rougel/rouge155/_r155.c"],
            extra_compile_args=["-O3", "-std=gnu99", "-ffp-contract=off"],
            libraries=["m"],
        ),
    ]

setup(
    ext_modules=EXTENSIONS,
    cmdclass={"build_py": BuildPyWithPresets, "build_ext": BuildExtOrExplain},
)
