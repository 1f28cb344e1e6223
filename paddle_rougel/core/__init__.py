"""The core layer (a leaf: it imports no other layer): the version, the scoring formulas and
``Score``, the settings machinery, the text settings, the LCS step, the invariants, the
tokenization hints and the one signature builder."""
