"""The only importer of the package's C extensions (setup.py builds them; both are optional).

``lcs``: the LCS / n-gram / Lsum / statistics kernels (``csrc/``), None in a pure-Python build
(the Python back end then runs: :mod:`.fallbacks`).  ``r155``: the ROUGE-1.5.5 port's counting
kernels (:mod:`paddle_rougel.rouge155` reads them here), None without it.  Both are read at each
call (``cext.lcs``), so a test can take the extension away with ``monkeypatch``.
"""
try:  # the compiled kernel is optional: see setup.py
    from .. import _lcs as lcs
except ImportError:  # pragma: no cover - exercised by the fallback tests (monkeypatch lcs to None)
    lcs = None

try:
    from .. import _r155 as r155
except ImportError:  # pragma: no cover - the pure-Python build: rouge155's reference kernels
    r155 = None

__all__ = ["lcs", "r155"]
