"""The product as users get it: sdist and wheel built from a clean clone, installed into fresh venvs
without a compiler and without Paddle; presets; metadata that leaves a GPU Paddle alone; a failed C
build that says so.

One module-scoped build serves every test here (about a minute in all, mostly pip's network
round trips); the sdist round trip (unpack, install the test extras, run this suite) is
scripts/check_sdist.sh, run once by .ci/run.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from paddle_rougel.api import config

ROOT = Path(__file__).resolve().parents[1]
# the output docs/command-line.md shows under the README's first command
README_STDOUT = re.search(r"^# stdout: (\{.*\})$", (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8"), re.M)
PRESET_NAMES = sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))
C_FAILURE = "error: paddle-rougel: the C extension paddle_rougel._lcs failed to build"


def _run(cmd, timeout=600, ok=True, **kw):
    kw.setdefault("cwd", "/")  # never the repository: `python -c` would import its source tree
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    if ok and proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def _venv(path: Path) -> Path:
    """A fresh venv without pip (faster); this interpreter's pip installs into it (--python)."""
    _run([sys.executable, "-m", "venv", "--without-pip", path])
    return path / "bin" / "python"


def _pip(py: Path, *args, env=None, ok=True):
    return _run([sys.executable, "-m", "pip", "--python", py, *args], env=env, ok=ok)


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PADDLE_ROUGEL"))}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """sdist and wheel (the wheel built from the sdist) of a clean clone of this repository."""
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    if (ROOT / ".git").exists():  # committed files only: what a user would get
        _run(["git", "clone", "--quiet", "--no-hardlinks", ROOT, src])
    else:  # an unpacked sdist: its files are the product
        shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
            ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", "presets", ".paddle-versions",
            ".build-wheels", ".pytest_cache"))
    out = tmp / "dist"
    _run([sys.executable, "-m", "build", "--outdir", out, src])
    (sdist,), (wheel,) = list(out.glob("*.tar.gz")), list(out.glob("*.whl"))
    return SimpleNamespace(tmp=tmp, src=src, sdist=sdist, wheel=wheel)


# ------------------------------------------------------------------ presets (this install)

def test_presets_of_this_install_equal_configs():
    """The package data is configs/ byte for byte (an editable install copies them: this catches
    a stale copy, `pip install -e .` refreshes it)."""
    shipped = config.preset_dir()
    assert sorted(config.PRESETS) == PRESET_NAMES
    for name in PRESET_NAMES:
        assert shipped.joinpath(name + ".yaml").read_bytes() == (ROOT / "configs" / (name + ".yaml")).read_bytes()


def test_bare_preset_name_reads_only_package_data(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    for decoy in (tmp_path / "configs" / "dureader.yaml", tmp_path / "dureader"):
        decoy.write_text("gamma: 5.0\n")
    monkeypatch.chdir(tmp_path)
    got = config.resolve_config_path("dureader")
    assert Path(got) == Path(os.fspath(config.preset_dir().joinpath("dureader.yaml")))
    assert config.read_config("dureader")["gamma"][0] == 1.2
    assert config.resolve_config_path("./dureader") == "./dureader"  # a path is a path
    assert config.read_config("./dureader")["gamma"][0] == 5.0
    with pytest.raises(config.ConfigError, match="presets: dureader"):
        config.resolve_config_path("nosuchpreset")


# ------------------------------------------------------------------ the artefacts

def test_wheel_requires_no_paddle_and_ships_presets_not_sources(dist):
    with zipfile.ZipFile(dist.wheel) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        presets = {Path(n).stem: z.read(n) for n in names if n.startswith("paddle_rougel/presets/")}
    requires = re.findall(r"^Requires-Dist: (.*)$", meta, re.M)
    unconditional = sorted(re.split(r"[<>=!~ ;\[]", r)[0].lower() for r in requires if "extra ==" not in r)
    assert unconditional == ["numpy", "pyyaml"]
    assert 'paddlepaddle>=2.6; extra == "cpu"' in requires
    assert re.search(r"^License-Expression: Apache-2.0$", meta, re.M)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert presets == {n: (dist.src / "configs" / f"{n}.yaml").read_bytes() for n in PRESET_NAMES}
    assert any(re.match(r"paddle_rougel/_lcs\..*\.so$", n) for n in names)
    assert not [n for n in names if n.endswith((".c", ".h"))]


def test_sdist_has_what_the_build_and_the_tests_need(dist):
    with tarfile.open(dist.sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    want = {"LICENSE", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in", "pytest.ini", ".ci/run",
            "tests/conftest.py", "tests/oracle.py", "tests/dist_worker.py", "tests/dist_hapi_worker.py",
            "tests/test_packaging.py", "examples/dureader/pred.jsonl", "examples/dureader/ref.jsonl",
            "examples/hapi_seq2seq.py", "examples/distributed_eval.py", "benchmarks/dureader_workload.py",
            "scripts/check_sdist.sh", "mkdocs.yml", "tests/markdown_docs.py"}
    # the pages whose blocks the tests run (tests/test_readme.py, test_golden.py, test_hints.py)
    want |= {f"docs/{p.name}" for p in (ROOT / "docs").glob("*")}
    want |= {f"configs/{n}.yaml" for n in PRESET_NAMES}
    csrc = {str(p.relative_to(dist.src)) for p in (dist.src / "paddle_rougel" / "csrc").glob("*.[ch]")}
    assert csrc and any(c.endswith(".h") for c in csrc)
    assert not (want | csrc) - names
    assert not [n for n in names if n.startswith("paddle_rougel/presets/") or n.endswith((".so", ".pyc"))]


def test_sdist_holds_every_committed_file(dist):
    """The sdist is the whole tree it was built from (a clean clone: the committed files; but .git,
    .gitignore and what the build writes): what scripts/check_sdist.sh relies on when it runs only
    a smoke subset of the suite in the unpacked sdist."""
    tree = {str(p.relative_to(dist.src)) for p in dist.src.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(dist.src).parts[:1]
            and not any(part.endswith(".egg-info") for part in p.relative_to(dist.src).parts)}
    tree.discard(".gitignore")
    assert len(tree) > 200, len(tree)
    with tarfile.open(dist.sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert not tree - names, sorted(tree - names)


# ------------------------------------------------------------------ installed as a user would

def test_wheel_without_compiler_or_paddle_scores_the_readme_example(dist):
    py = _venv(dist.tmp / "user")
    # binaries only, and no compiler: nothing is built on the user's side
    _pip(py, "install", "--only-binary", ":all:", dist.wheel, env=_env(CC="false", LDSHARED="false"))
    assert _run([py, "-c", "import paddle"], ok=False).returncode != 0
    assert _run([py, "-c", "from paddle_rougel import engine; print(engine.backend())"]).stdout.strip() == "c"
    work = dist.tmp / "work"  # outside the repository, with decoys the presets must ignore
    (work / "configs").mkdir(parents=True)
    for f in ("pred.jsonl", "ref.jsonl"):
        shutil.copy(ROOT / "examples" / "dureader" / f, work / f)
    for decoy in (work / "configs" / "dureader.yaml", work / "dureader"):
        decoy.write_text("gamma: 5.0\n")
    cli = py.parent / "paddle-rougel"
    args = ["dureader", "--pred_file", "pred.jsonl", "--ref_file", "ref.jsonl"]
    out = {}
    for name in ("dureader", "paddlenlp", "./dureader"):  # the presets that score characters
        out[name] = json.loads(_run([cli, *args, "--config", name], cwd=work, env=_env()).stdout)
    # every preset through the plain-text command: the signature shows which file was read
    (work / "hyp.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (work / "ref.txt").write_text("the cat is on the mat\n", encoding="utf-8")
    signature = {"dureader": "gamma:1.2|multi_ref:max_pr|tok:char|norm:nows",
                 "paddlenlp": "gamma:1.2|multi_ref:max_pr|tok:char|norm:none",
                 "rouge155": "alpha:0.5|multi_ref:pooled|tok:rouge_score|norm:none",
                 "rouge_chinese": "gamma:1.0|multi_ref:max_pr|tok:rouge_chinese|norm:none",
                 "rouge_score": "gamma:1.0|multi_ref:best|tok:rouge_score|norm:none",
                 "t2t": "f:t2t|multi_ref:best|tok:whitespace|norm:none"}
    assert sorted(signature) == PRESET_NAMES
    for name, sig in signature.items():
        if name == "rouge_chinese":  # jieba is optional and not in this venv: a one-line error naming it
            proc = _run([cli, "score", "--hyp", "hyp.txt", "--ref", "ref.txt", "--config", name], cwd=work,
                        env=_env(), ok=False)
            assert proc.returncode == 2 and "rouge_chinese.yaml" in proc.stderr \
                and "paddle-rougel[jieba]" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
            continue
        proc = _run([cli, "score", "--hyp", "hyp.txt", "--ref", "ref.txt", "--config", name], cwd=work, env=_env())
        assert sig in proc.stdout + proc.stderr, (name, proc.stdout, proc.stderr)
    assert README_STDOUT and json.loads(README_STDOUT.group(1)) == {"ROUGE-L": 56.38, "BLEU-4": 36.44}
    assert out["dureader"] == json.loads(README_STDOUT.group(1))
    assert out["./dureader"]["ROUGE-L"] != out["dureader"]["ROUGE-L"]  # the decoy, read as a path
    # a metric needs Paddle when it is created (the classes import without it): the error names both builds
    assert _run([py, "-c", "import paddle_rougel, sys; paddle_rougel.RougeN; assert 'paddle' not in sys.modules"])
    err = _run([py, "-c", "import paddle_rougel; paddle_rougel.RougeL()"], ok=False).stderr
    assert "paddlepaddle-gpu" in err and re.search(r"\bpaddlepaddle\b(?!-)", err), err[-2000:]


def test_wheel_with_paddle_runs_the_hapi_example(dist):
    """The same wheel where Paddle is installed: hapi fit + evaluate, outside the repository.

    Paddle (and numpy) come from this test environment's site-packages, added after the venv's
    own, so `paddle_rougel` is the wheel's and nothing is downloaded."""
    import paddle

    py = _venv(dist.tmp / "with-paddle")
    _pip(py, "install", "--no-deps", "--only-binary", ":all:", dist.wheel, env=_env())
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "zz_test_env.pth").write_text(str(Path(paddle.__file__).resolve().parents[1]) + "\n")
    work = dist.tmp / "hapi"
    work.mkdir()
    shutil.copy(ROOT / "examples" / "hapi_seq2seq.py", work)
    where = _run([py, "-c", "import paddle_rougel; print(paddle_rougel.__file__)"], cwd=work).stdout
    assert Path(where.strip()).is_relative_to(site), where
    out = _run([py, "hapi_seq2seq.py"], cwd=work, env=_env(), timeout=600).stdout
    result = ast.literal_eval(out.strip().splitlines()[-1])  # {'loss': [...], 'rouge-l': ...}
    assert 0.0 < result["rouge-l"] < 1.0


def _fake_wheel(tmp: Path, name: str, version: str) -> Path:
    """A metadata-only wheel: an installed distribution named ``name`` (no code)."""
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    path = tmp / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    files = {f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{dist_info}/RECORD"] = "".join(f"{f},,\n" for f in files) + f"{dist_info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for f, text in files.items():
            z.writestr(f, text)
    return path


def _dry_run(py: Path, req: str, report: Path):
    _pip(py, "install", "--dry-run", "--only-binary", ":all:", "--report", report, req)
    return {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}


def test_next_to_paddlepaddle_gpu_no_cpu_paddle_is_pulled(dist):
    py = _venv(dist.tmp / "gpu")
    _pip(py, "install", "--no-index", "--no-deps", _fake_wheel(dist.tmp, "paddlepaddle-gpu", "3.3.1"))
    plain = _dry_run(py, str(dist.wheel), dist.tmp / "plain.json")
    assert "paddle-rougel" in plain and not {n for n in plain if n.startswith("paddle") and n != "paddle-rougel"}
    # the check can see a Paddle requirement: the [cpu] extra asks for one
    cpu = _dry_run(py, f"paddle-rougel[cpu] @ {dist.wheel.as_uri()}", dist.tmp / "cpu.json")
    assert "paddlepaddle" in cpu


def test_failed_c_build_stops_the_install_with_one_line(dist):
    py = _venv(dist.tmp / "nocc")
    proc = _pip(py, "install", "--no-deps", "--no-cache-dir", dist.sdist, env=_env(CC="false"), ok=False)
    shown = proc.stdout + proc.stderr  # pip's normal (not -v) output
    assert proc.returncode != 0
    assert len([ln for ln in shown.splitlines() if C_FAILURE in ln]) == 1, shown[-3000:]
    assert "PADDLE_ROUGEL_PURE_PYTHON=1" in shown
    _pip(py, "install", "--prefer-binary", "--no-cache-dir", dist.sdist,
         env=_env(CC="false", PADDLE_ROUGEL_PURE_PYTHON="1"))
    got = _run([py, "-W", "ignore", "-c", "from paddle_rougel import engine, config; "
                "print(engine.backend(), config.read_config('t2t')['alpha'][0])"]).stdout.split()
    assert got == ["python", "-1.0"]
