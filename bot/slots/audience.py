"""The audience slots: how many people use a model, and whether at once, which sizes the KV cache and the speed each
one gets. A headcount ("20 staff") is not that many at once: the scorer sizes for the share of them active at the
busiest moment (knowledge/llm-inference.yaml `serving`).

"20 staff", "50 concurrent users", "30个人同时用", "并发50", "50路并发", "a team of 15", "十几个同事" (about 15),
"20-30 people" (sized for 30, the upper end). Words in knowledge/lexicon/slots.yaml `audience`; the text is the
parser's, with Chinese numerals already digits ("十几" reads "10几")."""

from __future__ import annotations

import re
from functools import lru_cache

from bot.slots.lexicon import load
from bot.slots.text import word_alternation

Spans = list[tuple[int, int]]
MOST_USERS = 100_000  # more is no audience a GPU buyer sizes for ("100000000 users"): not read


@lru_cache(maxsize=1)
def _grammar() -> tuple[re.Pattern[str], ...]:
    lex = load("slots")["audience"]
    people, at_once, team, more = (word_alternation(lex[k]) for k in ("people", "at_once", "team", "more"))
    # a number, an optional range's upper end, an optional "more than" word
    num = r"(?<![\d.$¥€£])(?<!\d,)(\d{1,6})(?:\s*(?:-|–|~|到|至|to)\s*(\d{1,6}))?\s*(" + more + r")?"
    classifier = r"[\s-]*(?:来)?(?:个|位|名|号)?\s*"  # ("十来个人", "60来号人": about that many)
    person = r"人(?!民|工|脸|像|体|物|类)"
    return (
        # "20 staff", "30个同事", "15 concurrent users", "30个人同时用", "二三十人"
        re.compile(num + classifier + r"(?:(?:" + at_once + r"|active|internal|daily)\s+)?(?:" + people + "|" + person + ")"),
        # "50 concurrent", "50并发", "50路并发"
        re.compile(num + r"\s*(?:" + at_once + ")"),
        # "并发50", "concurrency of 50", "同时在线50人"
        re.compile(r"(?:" + at_once + r")\s*(?:数|量|用户|人数|数量)?\s*(?:of|=|:|：|is|为|是|到|达到|约|大概|around|about)?\s*"
                   + num),
        # "a team of 15", "团队15人"
        re.compile(r"(?:" + team + r")\s*(?:约|大概|about|around)?\s*" + num),
    )


def _value(m: re.Match) -> int:
    """The number read: a range's upper end; "十几", "30多", "20+" as half a place more (15, 35, 25)."""
    value = int(m[2] or m[1])
    if m[3] and not m[2]:
        place = 10 ** (len(str(value)) - 1)
        value += max(1, place // 2)
    return value


@lru_cache(maxsize=1)
def _at_once() -> re.Pattern[str]:
    return re.compile(word_alternation(load("slots")["audience"]["at_once"]))


def audience(text: str) -> tuple[int | None, bool, Spans]:
    """How many people the text says use the model (None: not said); whether it says they use it at once ("50
    concurrent", "30个人同时用", "并发50") rather than how many people there are ("20 staff", "a team of 15": a few of
    them at a time); and where it says so."""
    found, spans = None, []
    for pattern in _grammar():
        for m in pattern.finditer(text):
            value = _value(m)
            if 0 < value <= MOST_USERS:
                found = value if found is None else max(found, value)
                spans.append(m.span())
    return found, found is not None and _at_once().search(text) is not None, spans
