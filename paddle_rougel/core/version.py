"""The package's version, in a leaf (the package face, the signatures and the command line
read it from here; pyproject.toml reads it statically)."""
__version__ = "0.1.0"
