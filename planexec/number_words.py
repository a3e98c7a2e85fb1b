"""Numbers written as words, as digits: "sixty-second window" -> "60-second window", "ten frames" -> "10 frames"."""

from __future__ import annotations

import re

_ONES = "two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# "one" is left out: "one curve per row" says how the file is laid out, not how many
_NUMBER_WORD = re.compile(r"\b(?:(" + "|".join(_TENS) + r")(?:[- ](one|" + "|".join(_ONES) + r"))?|("
                          + "|".join(_TEENS + _ONES) + r"))\b", re.IGNORECASE)


def _number_word(m: re.Match[str]) -> str:
    """'twenty-one' -> '21', 'sixty' -> '60', 'seven' -> '7'."""
    tens, unit, alone = (g.lower() if g else g for g in m.groups())
    if alone:
        return str((_ONES.index(alone) + 2) if alone in _ONES else _TEENS.index(alone) + 10)
    return str(20 + 10 * _TENS.index(tens) + (0 if not unit else 1 if unit == "one" else _ONES.index(unit) + 2))


def digits(text: str) -> str:
    """`text` with numbers from two to ninety-nine written as words turned into digits."""
    return _NUMBER_WORD.sub(_number_word, text)


__all__ = ["digits"]
