"""The Porter stemmer of ROUGE-1.5.5.pl: its Perl "Release 1" with Chin-Yew Lin's 2004 step 4.

A Python reading of the ``stem`` routine at the end of ``ROUGE-1.5.5.pl`` (the same regular
expressions, tried in the same order, on a lower-case word).  It differs from Porter's paper and
from NLTK's default mode in a few places the script fixes for good:

* words under 3 characters are returned as they are;
* an initial ``y`` is a consonant (``Y`` while stemming);
* step 2 has ``bli -> ble`` and ``logi -> log`` (Porter's later "release 1" departures);
* step 4 (Lin, 02/14/2004): a word ending in ``-ement`` loses it as one suffix and does not
  then try ``-ment`` / ``-ent`` (``agreement -> agreem``, ``argument -> argum``).

Checked word for word against the script's own ``stem()`` run through perl
(tests/test_rouge155_stem.py).

>>> [stem(w) for w in ("caresses", "ponies", "agreement", "argument", "environmental", "yes")]
['caress', 'poni', 'agreem', 'argum', 'environ', 'ye']
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["stem"]

_c = "[^aeiou]"            # consonant
_v = "[aeiouy]"            # vowel
_C = _c + "[^aeiouy]*"     # consonant sequence
_V = _v + "[aeiou]*"       # vowel sequence

_MGR0 = re.compile(f"^({_C})?{_V}{_C}")                # [C]VC... is m>0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")        # [C]VC[V] is m=1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")        # [C]VCVC... is m>1
_VOWEL_IN = re.compile(f"^({_C})?{_v}")                # vowel in stem
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")

_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize",
          "bli": "ble", "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize",
          "ation": "ate", "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful",
          "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble", "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "",
          "ness": ""}

_S1A_IES = re.compile(r"(ss|i)es$")
_S1A_S = re.compile(r"([^s])s$")
_S1B_EED = re.compile(r"eed$")
_S1B_ED = re.compile(r"(ed|ing)$")
_S1B_E = re.compile(r"(at|bl|iz)$")
_S1B_DOUBLE = re.compile(r"([^aeiouylsz])\1$")
_S1C = re.compile(r"y$")
_S2 = re.compile("(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism"
                 "|iveness|fulness|ousness|aliti|iviti|biliti|logi)$")
_S3 = re.compile("(icate|ative|alize|iciti|ical|ful|ness)$")
_S4 = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")
_S4_MENT = re.compile("ment$")
_S4_ENT = re.compile("ent$")
_S4_ION = re.compile("(s|t)(ion)$")
_S5_E = re.compile("e$")
_S5_LL = re.compile("ll$")


def _step1(w: str) -> str:
    m = _S1A_IES.search(w)
    if m:
        w = w[:m.start()] + m.group(1)
    else:
        m = _S1A_S.search(w)
        if m:
            w = w[:m.start()] + m.group(1)
    m = _S1B_EED.search(w)
    if m:
        if _MGR0.search(w[:m.start()]):
            w = w[:-1]
    else:
        m = _S1B_ED.search(w)
        if m:
            st = w[:m.start()]
            if _VOWEL_IN.search(st):
                w = st
                if _S1B_E.search(w):
                    w += "e"
                elif _S1B_DOUBLE.search(w):
                    w = w[:-1]
                elif _CVC.search(w):
                    w += "e"
    m = _S1C.search(w)
    if m:
        st = w[:m.start()]
        if _VOWEL_IN.search(st):
            w = st + "i"
    return w


def _step234(w: str) -> str:
    m = _S2.search(w)
    if m:
        st = w[:m.start()]
        if _MGR0.search(st):
            w = st + _STEP2[m.group(1)]
    m = _S3.search(w)
    if m:
        st = w[:m.start()]
        if _MGR0.search(st):
            w = st + _STEP3[m.group(1)]
    # step 4 as Lin changed it: -ement is one suffix; -ment and -ent are tried after it
    m = _S4.search(w)
    if m:
        st = w[:m.start()]
        if _MGR1.search(st):
            w = st
    m = _S4_MENT.search(w)
    if m:
        st = w[:m.start()]
        if _MGR1.search(st):
            w = st
    m = _S4_ENT.search(w)
    if m:
        st = w[:m.start()]
        if _MGR1.search(st):
            w = st
    else:
        m = _S4_ION.search(w)
        if m:
            st = w[:m.start()] + m.group(1)
            if _MGR1.search(st):
                w = st
    return w


def _step5(w: str) -> str:
    m = _S5_E.search(w)
    if m:
        st = w[:m.start()]
        if _MGR1.search(st) or (_MEQ1.search(st) and not _CVC.search(st)):
            w = st
    if _S5_LL.search(w) and _MGR1.search(w):
        w = w[:-1]
    return w


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The script's ``stem($w)``: ``word`` (lower case, as the script hands it) stemmed."""
    if len(word) < 3:
        return word
    initial_y = word[0] == "y"
    w = "Y" + word[1:] if initial_y else word
    w = _step5(_step234(_step1(w)))
    if initial_y:
        w = w[0].lower() + w[1:]
    return w
