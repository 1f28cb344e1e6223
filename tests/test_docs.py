"""The documentation site's structure, without building it (.ci/run runs `mkdocs build --strict`,
which also checks the anchors and the API reference): every relative link of README.md and of
docs/*.md names a file that exists, and mkdocs.yml's nav lists every page exactly once."""
from __future__ import annotations

import re

import pytest
import yaml

from markdown_docs import FILES, ROOT, name

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _links(path):
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)  # not in code
    text = re.sub(r"`[^`\n]*`", "", text)
    return [u for u in LINK.findall(text) if not re.match(r"[a-z]+:", u)]


@pytest.mark.parametrize("path", FILES, ids=name)
def test_relative_links_name_existing_files(path):
    missing = [u for u in _links(path) if u.split("#")[0]
               and not (path.parent / u.split("#")[0]).exists()]
    assert not missing, f"{name(path)} links to files that do not exist: {missing}"


def test_readme_links_every_page():
    linked = {u.split("#")[0] for u in _links(ROOT / "README.md")}
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} - {"docs/index.md"}
    assert not pages - linked, f"pages the README does not link: {sorted(pages - linked)}"
    assert linked >= {"docs/python-api.md", "docs/command-line.md", "docs/reference.md"}


def _nav_pages(nav):
    for item in nav:
        for v in item.values():
            yield from ([v] if isinstance(v, str) else _nav_pages(v))


def test_nav_lists_every_page_once():
    conf = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = list(_nav_pages(conf["nav"]))
    assert len(nav) == len(set(nav))
    assert set(nav) == {p.name for p in (ROOT / "docs").glob("*.md")}
    assert conf["strict"] is True


def test_reference_documents_every_public_name():
    import paddle_rougel

    ref = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    documented = {t.rsplit(".", 1)[1] for t in re.findall(r"^::: (\S+)", ref, flags=re.M)}
    aliases = {"paddleformers_compute_metrics", "paddlenlp_compute_metrics", "__version__"}  # named in prose
    assert not set(paddle_rougel.__all__) - documented - aliases
    assert all(f"`{a}`" in ref for a in aliases - {"__version__"})
