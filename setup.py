"""Build script: the package plus one optional C extension (the LCS kernel).

The extension is marked optional: on a machine without a C compiler the
install still succeeds and paddle_rougel falls back to its pure-Python
bit-parallel engine (exact, slower, with one warning).
"""
import glob
import os
import re

from setuptools import Extension, find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "paddle_rougel", "__init__.py"), encoding="utf-8") as f:
    VERSION = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)

# Oracles used only by tests and benchmarks.  paddlenlp 2.8.1 imports only with
# these pins on today's index (see README, "Dependencies").
PADDLENLP_PINS = [
    "paddlenlp==2.8.1",
    "huggingface_hub==0.25.2",
    "aistudio-sdk==0.2.6",
    "datasets==2.21.0",
    "pyarrow==17.0.0",
    "numpy==1.26.4",
]

setup(
    name="paddle-rougel",
    version=VERSION,
    description="Fast exact ROUGE-L for PaddlePaddle: paddle.metric.Metric, DuReader scorer, CLI",
    long_description=open(os.path.join(HERE, "README.md"), encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    packages=find_packages(include=["paddle_rougel", "paddle_rougel.*"]),
    python_requires=">=3.8",
    install_requires=[
        "numpy>=1.21",
        "paddlepaddle>=2.5",
        "pyyaml>=5.1",
    ],
    extras_require={
        "test": ["pytest>=7", "rouge-score==0.1.2", "rouge-score-rs==0.2.1"] + PADDLENLP_PINS,
        "jieba": ["jieba>=0.42"],
    },
    ext_modules=[
        Extension(
            "paddle_rougel._lcs",
            sources=sorted(glob.glob("paddle_rougel/csrc/*.c")),
            depends=sorted(glob.glob("paddle_rougel/csrc/*.h")),
            extra_compile_args=["-O3", "-std=gnu99"],
            extra_link_args=["-lpthread"],
            optional=True,
        )
    ],
    entry_points={"console_scripts": ["paddle-rougel = paddle_rougel.__main__:run"]},
)
