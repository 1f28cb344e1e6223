"""The README's two commands, as a new user runs them on a fresh machine.

* `.ci/run` runs exactly the README's two bash blocks (the ones a user copies);
* the second one's `scripts/install_test_deps.sh` installs every Debian package the suite needs
  when it is missing, and nothing when all is there (run here with stub `apt-get`, `perl`,
  `chromium`, `fc-list` and `python` first on PATH, recording their calls), and the README names
  each of those packages;
* the README's first Python block runs with Paddle absent (the first command installs no Paddle).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

from markdown_docs import ROOT, blocks, text

SCRIPT = ROOT / "scripts" / "install_test_deps.sh"
DEBIAN = ["libxml-dom-perl", "chromium", "fonts-wqy-zenhei"]


def readme_commands():
    return [b.strip() for _, b in blocks("bash", [ROOT / "README.md"])][:2]


def test_ci_runs_the_readme_commands_exactly():
    first, second = readme_commands()
    assert second == "bash scripts/install_test_deps.sh && pytest"
    ci = text(".ci/run").splitlines()
    assert first in ci and second in ci
    assert ci.index(first) < ci.index(second)
    # the same two on the pages that repeat them
    for page in ("docs/index.md", "docs/getting-started.md"):
        assert second in text(page), page


def _stub_bin(tmp_path, *, have_perl_modules, have_chromium, have_font):
    """A PATH directory with recording stubs and the few real tools the script uses."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "calls.log"

    def stub(name, body):
        path = bindir / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)

    record = f'echo "$(basename "$0") $*" >> {log}\n'
    stub("apt-get", record)
    stub("sudo", record + '"$@"\n')
    stub("python", record)
    stub("perl", "exit 0\n" if have_perl_modules else "exit 2\n")
    if have_chromium:
        stub("chromium", "exit 0\n")
    stub("fc-list", "echo '/x/wqy-zenhei.ttc: WenQuanYi Zen Hei'\n" if have_font else "exit 0\n")
    for tool in ("id", "grep", "dirname", "basename", "bash", "sh"):
        real = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        assert real, f"{tool} not found"
        os.symlink(real, bindir / tool)
    return bindir, log


def _run(tmp_path, **have):
    bindir, log = _stub_bin(tmp_path, **have)
    proc = subprocess.run(["/bin/bash", str(SCRIPT)], env={"PATH": str(bindir), "HOME": str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return log.read_text().splitlines() if log.exists() else []


def test_install_script_installs_every_missing_debian_package(tmp_path):
    calls = _run(tmp_path, have_perl_modules=False, have_chromium=False, have_font=False)
    installs = [c for c in calls if c.startswith("apt-get install")]
    assert len(installs) == 1, calls
    for pkg in DEBIAN:
        assert pkg in installs[0].split(), (pkg, installs)
    assert any(c.startswith("apt-get update") for c in calls)
    assert calls[-1] == 'python -m pip install -q -e .[test]'


def test_install_script_installs_nothing_from_debian_when_all_is_there(tmp_path):
    calls = _run(tmp_path, have_perl_modules=True, have_chromium=True, have_font=True)
    assert calls == ['python -m pip install -q -e .[test]']


def test_install_script_installs_only_what_is_missing(tmp_path):
    calls = _run(tmp_path, have_perl_modules=True, have_chromium=True, have_font=False)
    installs = [c for c in calls if c.startswith("apt-get install")]
    assert len(installs) == 1 and "fonts-wqy-zenhei" in installs[0].split()
    assert "chromium" not in installs[0].split() and "libxml-dom-perl" not in installs[0].split()


def test_readme_names_what_the_script_installs():
    script = SCRIPT.read_text()
    readme = text("README.md")
    top = readme[:readme.index("## A first score")]
    for pkg in DEBIAN:
        assert pkg in script and f"`{pkg}`" in top, pkg


def test_readme_first_python_block_runs_without_paddle():
    """The first command installs numpy and pyyaml only; the README's first example must run so."""
    first = next(b for f, b in blocks("python", [ROOT / "README.md"]) if not b.startswith("# fragment"))
    code = textwrap.dedent("""\
        import sys
        class NoPaddle:  # as if Paddle were not installed: `import paddle` finds nothing
            def find_spec(self, name, path=None, target=None):
                if name == "paddle" or name.startswith("paddle."):
                    raise ModuleNotFoundError(f"No module named {name!r}")
        sys.meta_path.insert(0, NoPaddle())
        """) + first
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0.6666666666666666", "0.6"]
    # and the page says Paddle comes before the first block that needs it
    readme = text("README.md")
    assert readme.index("With Paddle") < readme.index("RougeL()")


def test_a_cjk_font_is_there_for_the_report_tests():
    """With chromium but no CJK font the report tests pass while the Chinese shows as boxes: the
    suite needs the font the install script brings, and says so loudly when it is missing."""
    proc = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip(), (
        "no CJK font: the HTML report tests would render Chinese as boxes "
        "(bash scripts/install_test_deps.sh installs fonts-wqy-zenhei)")
