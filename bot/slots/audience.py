"""The audience slots: how many people use a model, and whether at once, which sizes the KV cache and the speed each
one gets. A headcount ("20 staff") is not that many at once: the scorer sizes for the share of them active at the
busiest moment (knowledge/llm-inference.yaml `serving`).

"20 staff", "50 concurrent users", "30个人同时用", "并发50", "50路并发", "a team of 15", "十几个同事" (about 15),
"20-30 people" (sized for 30, the upper end); an app's daily users ("3000 daily users", "日活5000", "每天有2万人用"), of
whom far fewer are at once than of a staff. Words in knowledge/lexicon/slots.yaml `audience`; the text is the
parser's, with Chinese numerals already digits ("十几" reads "10几")."""

from __future__ import annotations

import re
from functools import lru_cache

from bot.slots.lexicon import load
from bot.slots.text import word_alternation

Spans = list[tuple[int, int]]
AT_ONCE, HEADCOUNT, DAILY = "at_once", "headcount", "daily"  # what the number counts
MOST_USERS = 100_000  # more is no audience a GPU buyer sizes for ("100000000 users"): not read


@lru_cache(maxsize=1)
def _grammar() -> tuple[tuple[re.Pattern[str], bool], ...]:
    """(pattern, counts a day's users) pairs."""
    lex = load("slots")["audience"]
    people, at_once, team, more, daily, daily_people, per_day, app_people = (
        word_alternation(lex[k]) for k in ("people", "at_once", "team", "more", "daily", "daily_people", "per_day",
                                           "app_people"))
    # a number, an optional range's upper end, an optional "more than" word
    # (thousands written out: "10,000 users"; "2万", "1.5w", "3k" app users)
    count = r"(\d{1,3}(?:,\d{3})+|\d{1,6}(?:\.\d+)?)"
    num = (r"(?<![\d.$¥€£])(?<!\d,)" + count + r"(?:\s*(?:-|–|~|到|至|to)\s*" + count + r")?\s*(万|w|k|千)?(?![a-z])\s*(" +
           more + r")?")
    classifier = r"[\s-]*(?:来)?(?:个|位|名|号)?\s*"  # ("十来个人", "60来号人": about that many)
    person = r"人(?!民|工|脸|像|体|物|类)"
    about = r"(?:\s*(?:有|约|大概|大约|差不多|around|about|of|=|:|：|is|为|是|到|达到|~|～))*\s*"
    return (
        # "3000 daily users", "5000 DAU", "5000日活用户"
        (re.compile(num + classifier + r"(?:" + daily_people + ")"), True),
        # "日活5000", "DAU of 3000", "日活跃用户约2万"
        (re.compile(r"(?:" + daily + ")" + about + num), True),
        # "每天有2万人用", "每天5000个用户", "5000 users a day", "2万用户每天"
        (re.compile(r"(?:" + per_day + ")" + about + num + classifier + r"(?:" + app_people + "|" + person + ")"), True),
        (re.compile(num + classifier + r"(?:" + app_people + r")\s*(?:" + per_day + ")"), True),
        # "20 staff", "30个同事", "15 concurrent users", "30个人同时用", "二三十人"
        (re.compile(num + classifier + r"(?:(?:" + at_once + r"|active|internal)\s+)?(?:" + people + "|" + person + ")"),
         False),
        # "50 concurrent", "50并发", "50路并发", "20个并发"
        (re.compile(num + classifier + r"(?:" + at_once + ")"), False),
        # "并发50", "concurrency of 50", "同时在线50人"
        (re.compile(r"(?:" + at_once + r")\s*(?:数|量|用户|人数|数量)?" + about + num), False),
        # "a team of 15", "团队15人"
        (re.compile(r"(?:" + team + r")\s*(?:约|大概|about|around)?\s*" + num), False),
    )


_TIMES = {"万": 10_000, "w": 10_000, "k": 1_000, "千": 1_000}


def _value(m: re.Match) -> int:
    """The number read: a range's upper end, times its "万"/"k"; "十几", "30多", "20+" as half a place more (15, 35,
    25)."""
    value = float((m[2] or m[1]).replace(",", "")) * _TIMES.get(m[3] or "", 1)
    if m[4] and not m[2]:
        place = 10 ** (len(str(int(value))) - 1)
        value += max(1, place // 2)
    return int(value)


@lru_cache(maxsize=1)
def _at_once() -> re.Pattern[str]:
    return re.compile(word_alternation(load("slots")["audience"]["at_once"]))


def audience(text: str) -> tuple[int | None, str | None, Spans]:
    """How many people the text says use the model (None: not said); what that number counts: people using it at once
    (AT_ONCE: "50 concurrent", "30个人同时用", "并发50"), a day's users of an app (DAILY: "3000 daily users", "日活5000"),
    or how many people there are (HEADCOUNT: "20 staff", "a team of 15": a few of them at a time); and where it says
    so."""
    found, daily, spans, at_once = None, False, [], None
    for pattern, counts_a_day in _grammar():
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue  # read already ("3000 daily users" is not also "3000 users")
            value = _value(m)
            if 0 < value <= MOST_USERS:
                found = value if found is None else max(found, value)
                daily = daily or counts_a_day
                spans.append(m.span())
                if not counts_a_day and _at_once().search(m.group(0)):
                    at_once = value if at_once is None else max(at_once, value)
    if found is None:
        return None, None, spans
    if at_once is not None and not daily:  # "给50个人用，并发大概10": the 10 at once, not the 50 in all
        return at_once, AT_ONCE, spans
    return found, DAILY if daily else AT_ONCE if _at_once().search(text) else HEADCOUNT, spans
