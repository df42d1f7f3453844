"""bot.slots.usage: the GPU-hours a user expects, as people write them in English, Simplified and Traditional Chinese;
read by the parser as `Need.usage` (hours a day, week or month, or a total), and kept by the session.

Inputs go through the parser's own normalisation first (bot.nlu.normalise, then chinese_numerals_to_digits), as they
do in bot.nlu.parse."""

from __future__ import annotations

import pytest

from bot.need import DAYS_PER_MONTH, Need, Usage
from bot.nlu import chinese_numerals_to_digits, normalise, parse
from bot.session import Session
from bot.slots.lexicon import load
from bot.slots.usage import usage


def read(text: str) -> Usage | None:
    return usage(chinese_numerals_to_digits(normalise(text)))[0]


VAGUE = {k: (float(v["hours"]), v["per"], not v.get("exact")) for k, v in load("slots")["usage"]["said_without_number"].items()}
WORKING_WEEK = float(load("slots")["usage"]["working_week"]["days"])

# (text, (hours, per, approximate)); the vague rates come from the lexicon, so a change there moves the expectation
CASES = [
    # --- English: rates with a number --------------------------------------------------------------------------------
    ("rent or buy? I'd train about 10 hours a week", (10, "week", False)),
    ("what if it's 40 hours a week?", (40, "week", False)),
    ("10h/week", (10, "week", False)),
    ("about 10 hrs per week", (10, "week", False)),
    ("10 hours of training every week", (10, "week", False)),
    ("ten hours a week", (10, "week", False)),
    ("weekly 10 hours", (10, "week", False)),
    ("12 gpu hours a week", (12, "week", False)),
    ("I use it 2-3 hours a day", (2.5, "day", True)),
    ("every day for 8 hours", (8, "day", False)),
    ("for 3 months of 8h days?", (8, "day", False, 3)),  # a 3-month project at 8 hours a day
    ("8-hour days", (8, "day", False)),
    ("200 hours a month", (200, "month", False)),
    ("8 hours a day, 5 days a week", (40, "week", False)),
    ("8 hours a day on weekdays", (8 * WORKING_WEEK, "week", False)),
    # --- English: rates without a number, totals -------------------------------------------------------------------
    ("24/7", (24, "day", VAGUE["around_the_clock"][2])),
    ("it would run nonstop", VAGUE["around_the_clock"]),
    ("a few hours a day", VAGUE["few_a_day"]),
    ("only on weekends", VAGUE["weekends"]),
    ("rent vs buy: i need about 200 hours of A100 time", (200, "total", False)),
    ("a 300-hour project", (300, "total", False)),
    ("we need 1,000 hours", (1000, "total", False)),
    ("rent an A100 on runpod for like 20 hours of finetuning", (20, "total", False)),
    # --- Simplified Chinese ----------------------------------------------------------------------------------------
    ("租卡还是买卡划算，我一周大概用20小时", (20, "week", False)),
    ("每天8小时", (8, "day", False)),
    ("每天八小时", (8, "day", False)),
    ("一个月200小时", (200, "month", False)),
    ("每个月两百个小时", (200, "month", False)),
    ("那一天用10小时呢", (10, "day", False)),
    ("20小时一周", (20, "week", False)),
    ("每天晚上2小时", (2, "day", False)),
    ("每天5-6小时", (5.5, "day", True)),
    ("一周5天，每天10小时", (50, "week", False)),
    ("工作日每天8小时", (8 * WORKING_WEEK, "week", False)),
    ("周末用用", VAGUE["weekends"]),
    ("全天跑", VAGUE["around_the_clock"]),
    ("每天几个小时", VAGUE["few_a_day"]),
    ("我要用A100跑200小时", (200, "total", False)),
    ("总共100小时", (100, "total", False)),
    # --- Traditional Chinese ---------------------------------------------------------------------------------------
    ("每週十小時", (10, "week", False)),
    ("一個月兩百小時", (200, "month", False)),
    ("租卡還是買卡划算，我一週大概用20小時", (20, "week", False)),
    ("每天八個小時", (8, "day", False)),
    ("每天用三四个小时", (3.5, "day", True)),  # two neighbouring numerals are a range
    ("週末用用", VAGUE["weekends"]),
]

NOTHING = [
    "4090一小时多少钱", "租一张4090一小时要多少钱", "how much is it to rent a 4090 per hour", "how much per month roughly",
    "rent a 3090 for a weekend, what does it cost", "today 8 hours", "hbm 8 hours", "预算8000训练CNN", "一天",
    "$1500 for training CNNs", "2x3090 vs one A100",
]


@pytest.mark.parametrize("text, expected", CASES)
def test_usage_is_read_as_people_write_it(text, expected):
    assert read(text) == Usage(*expected), text


@pytest.mark.parametrize("text", NOTHING)
def test_no_hours_no_usage(text):
    assert read(text) is None


@pytest.mark.parametrize("u, per_month", [
    (Usage(10, "week"), 10 * DAYS_PER_MONTH / 7), (Usage(8, "day"), 8 * DAYS_PER_MONTH), (Usage(200, "month"), 200),
    (Usage(200, "total"), None),
])
def test_hours_per_month(u, per_month):
    assert u.hours_per_month == (pytest.approx(per_month) if per_month else None)


def test_a_rate_wins_over_a_total_and_the_last_rate_said_wins():
    assert read("I need 500 hours in total, about 20 hours a week") == Usage(20, "week")
    assert read("10 hours a week, no wait, more like 20 hours a week") == Usage(20, "week")


def test_the_hours_are_no_budget_no_count_and_no_bare_number(catalog):
    for text in ("那一天用10小时呢", "what if it's 40 hours a week?", "24/7", "每天8小时"):
        q = parse(text, catalog)
        assert q.need.usage is not None, text
        assert q.need.budget is None and q.bare_number is None and q.need.gpu_count is None, (text, q.need)
    q = parse("预算8000 每天8小时训练CNN", catalog)
    assert q.need.budget.amount == 8000 and q.need.usage == Usage(8, "day") and q.need.workloads == ("cnn",)
    assert "usage" not in q.slots()  # not a labelled slot of knowledge/intents


def test_the_session_keeps_usage_across_turns_and_a_new_need():
    need = Need().merge(Need(usage=Usage(10, "week")))
    assert need.merge(Need(region="cn")).usage == Usage(10, "week")
    assert need.merge(Need(usage=Usage(40, "week"))).usage == Usage(40, "week")
    from bot.need import Budget

    fresh = need.merge(Need(budget=Budget(1500, "USD"), workloads=("cnn",)))  # a new need: the user's hours stay
    assert fresh.usage == Usage(10, "week")
    restored = Session.from_dict(Session(need=need).to_dict())
    assert restored.need.usage == Usage(10, "week")


@pytest.mark.parametrize("text", ["how much per month at 8h/day on runpod", "per month 8h/day", "monthly cost at 8 hours a day"])
def test_an_english_period_right_after_the_hours_is_their_rate(text):
    found, _ = usage(text)
    assert found is not None and found.hours == 8 and found.per == "day", found
