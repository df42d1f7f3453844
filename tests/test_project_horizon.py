"""Rent or buy for a project of a stated length: "a 3-month project, 8 hours a day" is weighed as that project's
GPU-hours, renting against buying (was a break-even in years, "close"), and a rental answer totals the project."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


@pytest.mark.parametrize("text,hours,per,months", [
    ("rent vs buy for a 3-month research project, training ~8 hours a day", 8, "day", 3),
    ("三个月的项目，每天跑8小时，租还是买", 8, "day", 3),
    ("三個月嘅project，每日跑8個鐘", 8, "day", 3),
    ("8 hours a day for 6 weeks", 8, "day", 6 / (30.44 / 7)),
    ("10 hours a week", 10, "week", None),
    ("一个月200小时", 200, "month", None),
])
def test_a_projects_length_is_read_beside_its_rate(catalog, text, hours, per, months):
    u = parse(text, catalog=catalog).need.usage
    assert (u.hours, u.per) == (hours, per)
    assert u.months == (pytest.approx(months) if months else None)


@pytest.mark.parametrize("text,verdict", [
    ("rent vs buy for a 3-month research project, training ~8 hours a day", "Rent: over 3 months"),
    ("三个月的项目，每天跑8小时，租还是买4090", "租：按每天 8 小时用 3 个月"),
])
def test_a_short_project_is_weighed_as_its_own_hours(scorer_engine, text, verdict):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "rent" and verdict in plain(reply), plain(reply)


def test_a_rental_answer_after_a_project_totals_it(scorer_engine):
    conv = Conversation(scorer_engine)
    conv.turn("rent vs buy for a 3-month research project, training ~8 hours a day")
    reply = conv.turn("so what would the whole 3 months cost?")
    assert "for the 3 months" in plain(reply), plain(reply)
