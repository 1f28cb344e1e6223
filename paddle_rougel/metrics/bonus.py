"""The DuReader bonus shared by the contest's two metrics (:mod:`.dureader_rouge_l`, :mod:`.bleu`):
the bonus options, the bonus weights (with paddlenlp's old keywords), and ``add_inst``."""
from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence

from ..core.settings import Option, keywords_checked

__all__ = ["BONUS_OPTIONS", "DEFAULT_WEIGHT", "bonus_weights", "deprecated_alias", "BonusInstances"]


BONUS_OPTIONS = (
    Option("yesno_weight", ("--yesno-weight", "--yesno_weight"), float,
           "DuReader yes/no bonus weight (default 1.0; old name: --alpha)"),
    Option("entity_weight", ("--entity-weight", "--entity_weight"), float,
           "DuReader entity bonus weight (default 1.0; old name: --beta)"),
)


class _DefaultWeight(float):
    """1.0, the bonus weights' default, told apart from a weight the caller gave (so that
    ``alpha=`` with ``yesno_weight=``, or with the weight in its position, is an error)."""


DEFAULT_WEIGHT = _DefaultWeight(1.0)


def bonus_weights(cls_name: str, yesno_weight: float, entity_weight: float, kwargs: dict) -> tuple:
    """The bonus weights, taking paddlenlp's old keywords ``alpha`` / ``beta`` (removed from
    ``kwargs``) with a DeprecationWarning: ``alpha`` is the F weight everywhere else."""
    given = {"yesno_weight": yesno_weight is not DEFAULT_WEIGHT,
             "entity_weight": entity_weight is not DEFAULT_WEIGHT}
    for old, new in (("alpha", "yesno_weight"), ("beta", "entity_weight")):
        if old in kwargs:
            if given[new]:
                raise TypeError(f"{cls_name}() got {new} twice: as {new} and as {old}= (its deprecated "
                                f"name): give {new}= only")
            warnings.warn(f"{cls_name}({old}=...) is deprecated: the bonus weight is {new}= "
                          f"({old} is the F weight in ROUGE-1.5.5's convention)", DeprecationWarning,
                          stacklevel=3)
            value = kwargs.pop(old)
            if new == "yesno_weight":
                yesno_weight = value
            else:
                entity_weight = value
    return yesno_weight, entity_weight


def deprecated_alias(old: str, new: str):
    def get(self):
        warnings.warn(f"{type(self).__name__}.{old} is deprecated: use .{new}", DeprecationWarning,
                      stacklevel=2)
        return getattr(self, new)

    return property(get, doc=f"Deprecated alias of ``{new}``.")


class BonusInstances:
    """``add_inst`` of the two contest metrics: an instance with its yes/no labels and entities."""

    @keywords_checked
    def add_inst(self, cand: Any, ref_list: Sequence, yn_label: Any = None,
                 yn_ref: Optional[Sequence] = None, entity_ref: Any = None) -> None:
        """Add one candidate with its references and optional bonus information.

        Args:
            cand: the candidate (str: characters are tokens; or a token sequence).
            ref_list: non-empty list of references.
            yn_label: the candidate's yes/no label (e.g. ``"Yes"``).
            yn_ref: one label per reference (checked: same length as ``ref_list``); with
                ``yn_label``, selects the yes/no bonus.
            entity_ref: entities for the entity bonus (used when the yes/no bonus does not apply).
        """
        self._acc.add(self._acc.instance(cand, ref_list, yn_label, yn_ref, entity_ref))
