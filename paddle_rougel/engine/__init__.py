"""The engine layer (imports only the core): the host operations (:mod:`.host`), the back ends
registered into it from below (:mod:`.backends`), the Python reference fallbacks
(:mod:`.fallbacks`), the inputs, the n-gram / Lsum kernels' host parts, the Paddle-op LCS
(:mod:`.device`), the conversions and the candidate bounds.  :mod:`.cext` is the only importer
of the C extensions.

``paddle_rougel.engine.set_backend`` and its siblings (the documented back-end API) are the
host's functions, re-exported here."""
from . import backends  # noqa: F401 - the built-in back ends register themselves (from below)
from .host import (LcsResult, backend, c_kernel, clipped_matches, default_threads, get_backend, lcs_batch,
                   lcs_length, lcs_pairs, register_backend, set_backend, unregister_backend)

__all__ = ["LcsResult", "c_kernel", "lcs_batch", "lcs_pairs", "lcs_length", "clipped_matches", "backend",
           "set_backend", "get_backend", "register_backend", "unregister_backend", "default_threads"]
