"""``python -m paddle_rougel``: the same as the ``paddle-rougel`` command."""
import sys

from .cli import main

sys.exit(main())
