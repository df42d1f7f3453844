"""Chinese typed as pinyin ("pianyi dian de ne", "er shou ye ok"): read in characters, by knowledge/lexicon/pinyin.yaml."""

from __future__ import annotations

import re
from functools import lru_cache

from bot.slots.lexicon import load
from bot.slots.text import CJK, has_any


@lru_cache(maxsize=1)
def _phrases() -> tuple[re.Pattern[str], dict[str, str]]:
    table = {k.lower(): v for k, v in load("pinyin")["phrases"].items()}
    alternatives = "|".join(re.escape(k).replace(r"\ ", r"\s+") for k in sorted(table, key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9])(?:{alternatives})(?![a-z0-9])", re.IGNORECASE), table


def as_characters(text: str) -> str:
    """`text` with its pinyin phrases in characters, when it is pinyin chat (no Chinese characters and one of the
    marks); otherwise `text` unchanged."""
    if CJK.search(text) or not has_any(text.lower(), load("pinyin")["marks"]):
        return text
    pattern, table = _phrases()
    out = pattern.sub(lambda m: table[re.sub(r"\s+", " ", m[0].lower())], text)
    return re.sub(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", "", out)  # "便宜 点 的 呢" is one phrase
