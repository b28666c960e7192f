"""Units of a millionth, written three ways: µmol/L as 'umol/L' where a keyboard has no µ (a lab's CSV export, a
note typed fast), and a microgram as 'mcg' (what prescriptions write, µg being misread as mg). FTS5 holds each as
written ('µmol' as its NFKC form 'μmol'), so 'umol/L' found no note saying µmol/L, nor 'mcg' one saying µg, and the
other way round. Keyword search looks such a unit up in its other forms too (``micro_forms``)."""
from __future__ import annotations

# the units looked up so: a gram, a litre, a mole. Not the metre ('um' is a word) nor the second ('us' is one)
UNITS = ("g", "l", "mol")
# a unit's forms, by the way each is written: μ (NFKC's form of the micro sign µ), a 'u' for it, and 'mc' (mcg, mcL;
# no one writes 'mcmol')
MICRO = ("μ", "u", "mc")


def micro_forms(word: str) -> list[str]:
    """The other forms of ``word`` (folded, as ``text.normalise`` gives it) when it is a unit of a millionth:
    'umol' gives ['μmol'], 'mcg' ['μg', 'ug'], 'μl' ['ul', 'mcl']; any other word, none."""
    for prefix in MICRO:
        if word.startswith(prefix) and word[len(prefix):] in UNITS:
            unit = word[len(prefix):]
            return [other + unit for other in MICRO if other != prefix and other + unit != "mcmol"]
    return []
