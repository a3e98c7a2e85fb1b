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


_DIGIT_WORDS = "zero one two three four five six seven eight nine".split()
_DECIMAL = re.compile(r"\b(?:(" + "|".join(_DIGIT_WORDS) + r")\s+)?point((?:\s+(?:" + "|".join(_DIGIT_WORDS) + r"))+)\b",
                      re.IGNORECASE)


def _decimal(m: re.Match[str]) -> str:
    """'zero point seven' -> '0.7', 'point two five' -> '0.25'."""
    whole = _DIGIT_WORDS.index(m.group(1).lower()) if m.group(1) else 0
    return f"{whole}." + "".join(str(_DIGIT_WORDS.index(w.lower())) for w in m.group(2).split())


_HUNDRED = re.compile(r"\b(a|one|[2-9])[- ]hundred(?:(?:\s+and)?\s+(\d{1,2})\b)?", re.IGNORECASE)


def _hundred(m: re.Match[str]) -> str:
    """'one hundred and 20' -> '120' (the tens already digits)."""
    head = m.group(1).lower()
    times = 1 if head in ("a", "one") else int(head)  # "two" is already "2"
    return str(100 * times + int(m.group(2) or 0))


def digits(text: str) -> str:
    """`text` with decimals ("zero point seven") and numbers from two to nine hundred and ninety-nine written as words
    turned into digits ("one hundred and twenty cells" -> "120 cells")."""
    return _HUNDRED.sub(_hundred, _NUMBER_WORD.sub(_number_word, _DECIMAL.sub(_decimal, text)))


__all__ = ["digits"]
