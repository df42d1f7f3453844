"""The usage slot: how many GPU-hours the user expects, the number rent-or-buy arithmetic turns on.

A rate ("10 hours a week", "每天8小时", "一个月200小时", "8h days", "8 hours a day, 5 days a week"), a rate said without a
number ("周末用用", "24/7", "a few hours a day": read as the hours the lexicon gives, marked approximate unless exact),
or a total for one job ("200 hours of A100 time", "要跑200小时"). Words in knowledge/lexicon/slots.yaml `usage`; the
text is the parser's, with Chinese numerals already digits, so the words are converted the same way."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from bot.need import Usage
from bot.slots.lexicon import load
from bot.slots.text import mask, word_alternation

Spans = list[tuple[int, int]]
HOURS_A_DAY = 24  # a rented card kept running: whole days of it are counted around the clock
_MOST = {"day": 24, "week": 24 * 7, "month": 24 * 31}  # more is no rate ("每天三四个小时" read as 34 by the numerals)

_STOP = r"[^\d，,。.!！?？;；\n]"  # what may sit between a period and its hours ("一周大概用20小时"): no digit, no clause end


_DIGIT_THEN_CJK = re.compile(r"(\d)([\u4e00-\u9fff])")


@lru_cache(maxsize=1)
def _grammar() -> dict:
    lex = load("slots")["usage"]
    words = lex["number_words"]
    num = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|" + "|".join(rf"(?<![a-z]){re.escape(w)}(?![a-z])" for w in sorted(words, key=len, reverse=True))
    rng = rf"(?P<lo>{num})(?:\s*(?:-|–|~|～|到|至|to|or|、)\s*(?P<hi>{num}))?"
    hours = word_alternation(lex["hours"])
    per = {p: word_alternation(ws) for p, ws in lex["per"].items()}
    any_per = "(?:" + "|".join(f"(?P<{p}>{rx})" for p, rx in per.items()) + ")"
    # an English period right after the hours ("8h/day", "8 hours a day") is their rate, whatever period came before
    # ("per month at 8h/day": the month is what the question is about)
    ascii_per = "(?:" + "|".join(f"(?P<{p}>{word_alternation([w for w in ws if w.isascii()])})"
                                 for p, ws in lex["per"].items()) + ")"
    between = r"(?:\s+(?:[a-z]+\s+){0,3}?|\s*)"  # "10 hours of training a week", "10 hours or so a week"
    days = word_alternation(lex["days"])
    return {
        "numbers": {k: float(v) for k, v in words.items()},
        "rates": (
            re.compile(rng + r"\s*-?\s*" + hours + r"\s*" + ascii_per),
            # "每周10小时", "一周大概用20小时", "every day for 8 hours" (first: in "一天跑10小时一个月多少钱" the period
            # before the hours is the rate, the one after is what the question is about)
            # (no other period between: in "一个月每天用4小时" the day is the rate, the month what it is for)
            re.compile(any_per + r"(?:(?!" + "|".join(per.values()) + ")" + _STOP + "){0,8}?" + rng + r"\s*" + hours),
            # "10 hours a week", "10h/week", "20小时一周"
            re.compile(rng + r"\s*-?\s*" + hours + between + r"(?:,\s*)?" + any_per),
            # "8h days", "8-hour days": hours a day
            re.compile(rng + r"\s*-?\s*" + hours + r"\s*(?P<day>" + word_alternation(lex["days_after_hours"]) + ")"),
        ),
        # "5 days a week", "一周5天"
        "days": (re.compile(rng + r"\s*" + days + r"\s*" + per["week"]),
                 re.compile(per["week"] + _STOP + "{0,4}?" + rng + r"\s*" + days)),
        "working_week": (re.compile(word_alternation(lex["working_week"]["words"])), float(lex["working_week"]["days"])),
        "totals": (
            # "need 200 hours", "总共100小时", "跑200小时"
            re.compile(word_alternation(lex["total_before"]) + r"\s*(?:about|around|roughly|approximately|like|maybe|say|"
                       r"大概|大约|约|差不多|~|～)?\s*" + rng + r"\s*-?\s*" + hours),
            # "200 hours of A100 time", "500 hours in total", "a 300-hour project"
            re.compile(rng + r"\s*-?\s*" + hours + r"\s*(?:of\s+(?:[a-z0-9@]+\s+){0,2}?)?" +
                       word_alternation(lex["total_after"])),
            # "~500 GPU hours", "2000卡时": compute counted in card-hours is a total
            re.compile(r"(?<![\d.])" + rng + r"\s*-?\s*" + word_alternation(lex["total_units"])),
        ),
        # "how much would 10 hours cost", "10小时要多少钱": hours asked the price of are a total
        "total_hours": re.compile(r"(?<![\d.])" + rng + r"\s*-?\s*" + hours + r"\s*" + word_alternation(lex["cost_after"])),
        # "跑三天", "for 3 days", "how much would 3 days cost": whole days around the clock
        "total_days": (
            re.compile(word_alternation(lex["total_before"]) + r"\s*" + rng + r"\s*" + word_alternation(lex["total_days"])),
            re.compile(r"(?<![\d.])" + rng + r"\s*" + word_alternation(lex["total_days"]) + r"\s*" +
                       word_alternation(lex["cost_after"])),
        ),
        # "a 3-month project", "for 6 weeks", "三个月": how long the rate runs (a number right before the unit)
        "horizon": {p: re.compile(r"(?<![\d.])(?P<lo>" + num + r")\s*-?\s*" + word_alternation(ws))
                    for p, ws in lex["horizon"].items()},
        # ("我 24 小时挂着": a number may stand spaced from the Chinese word after it)
        "vague": tuple((re.compile(_DIGIT_THEN_CJK.sub(r"\1\\s*\2", word_alternation(v["words"]))), float(v["hours"]),
                        v["per"], not v.get("exact"))
                       for v in lex["said_without_number"].values()),
    }


def _value(m: re.Match, numbers: dict[str, float]) -> tuple[float, bool]:
    """A match's number: a range's middle ("5-6" -> 5.5), approximate."""
    def one(s: str) -> float:
        return numbers[s] if s in numbers else float(s.replace(",", ""))
    if m.group("hi") is None:
        return one(m.group("lo")), False
    return (one(m.group("lo")) + one(m.group("hi"))) / 2, True


WEEKS_PER_MONTH = 30.44 / 7


def _horizon(text: str, g: dict) -> tuple[float | None, Spans]:
    """How many months the rate runs ("a 3-month project", "for 6 weeks", "三个月"), from up to 5 years."""
    for per, rx in g["horizon"].items():
        m = rx.search(text)
        if m is None:
            continue
        lo = m.group("lo")
        n = g["numbers"][lo] if lo in g["numbers"] else float(lo.replace(",", ""))
        months = n if per == "month" else n / WEEKS_PER_MONTH
        if 0 < months <= 60:
            return months, [m.span()]
    return None, []


def usage(text: str) -> tuple[Usage | None, Spans]:
    """The user's GPU-hours in `text` (normalised, numerals as digits), with the spans read. The last rate stated
    wins ("10 hours a week, no, 20"); a rate wins over a total; hours a day with days a week are hours a week."""
    g = _grammar()
    found: list[tuple[int, Usage]] = []
    spans: Spans = []
    for rx in g["rates"]:
        for m in rx.finditer(mask(text, spans)):
            per = next(p for p in ("day", "week", "month") if p in rx.groupindex and m.group(p) is not None)
            hours, approx = _value(m, g["numbers"])
            spans.append(m.span())
            if 0 < hours <= _MOST[per]:
                found.append((m.start(), Usage(hours, per, approx)))
    vague: Spans = []  # ("a month straight": around the clock, and for how long)
    counted = [m.span() for rx in g["total_days"] for m in rx.finditer(mask(text, spans))]  # "3 days straight": 72 h
    for rx, hours, per, approx in g["vague"]:
        for m in rx.finditer(mask(text, spans + counted)):
            found.append((m.start(), Usage(hours, per, approx)))
            spans.append(m.span())
            vague.append(m.span())
    if found:
        said = max(found, key=lambda x: x[0])[1]
        if said.per == "day":  # "8 hours a day, 5 days a week", "工作日每天8小时": hours a week
            rest = mask(text, spans)
            days = next((m for rx in g["days"] for m in rx.finditer(rest)), None)
            rx, working = g["working_week"]
            week = rx.search(rest)
            if days is not None:
                n, approx = _value(days, g["numbers"])
                said = Usage(said.hours * n, "week", said.approximate or approx)
                spans.append(days.span())
            elif week is not None:
                said = Usage(said.hours * working, "week", said.approximate)
                spans.append(week.span())
        months, horizon_spans = _horizon(mask(text, [sp for sp in spans if sp not in vague]), g)
        if months:
            said = replace(said, months=months)
        return said, spans + horizon_spans
    rest = mask(text, spans)  # (a rate read as impossible is no total either)
    for rx in g["totals"]:
        m = rx.search(rest)
        if m is not None:
            hours, approx = _value(m, g["numbers"])
            if hours >= 2:  # "一小时多少钱", "for an hour": a price asked per hour, not hours needed
                return Usage(hours, "total", approx), spans + [m.span()]
    m = g["total_hours"].search(rest)
    if m is not None:
        hours, approx = _value(m, g["numbers"])
        if hours >= 2:
            return Usage(hours, "total", approx), spans + [m.span()]
    days_a_week = next((m for rx in g["days"] for m in rx.finditer(rest)), None)
    if days_a_week is not None:  # "一週跑三天訓練", "I train 3 days a week": whole days around the clock, each week
        days, _ = _value(days_a_week, g["numbers"])
        if 0 < days <= 7:
            return Usage(days * HOURS_A_DAY, "week", True), spans + [days_a_week.span()]
    for rx in g["total_days"]:
        m = rx.search(rest)
        if m is not None:
            days, _ = _value(m, g["numbers"])
            return Usage(days * HOURS_A_DAY, "total", True), spans + [m.span()]
    return None, spans
