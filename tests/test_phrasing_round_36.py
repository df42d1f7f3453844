"""Patterns found in stranger round 36: "一个月每天用4小时" read as four hours a month, "20个并发" not read as users at
once, "免费的有哪些" after picks refused, price per GB asked of the picks answered with where to buy, keeping one's
own card as a second card refused, and Taiwan's power company not read as Taiwan."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain
from bot.slots import audience, usage
from bot.slots.text import chinese_numerals_to_digits, normalise


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


@pytest.mark.parametrize("text, hours, per", [
    ("一个月每天用4小时", 4, "day"), ("那租呢，一个月每天用4小时一共多少钱", 4, "day"), ("每周10小时", 10, "week"),
    ("4 hours a day for a month", 4, "day"),
])
def test_the_period_next_to_the_hours_is_their_rate(text, hours, per):
    u, _ = usage.usage(chinese_numerals_to_digits(normalise(text)))
    assert (u.hours, u.per) == (hours, per), u


@pytest.mark.parametrize("text, users", [("大概20个并发", 20), ("50路并发", 50), ("20 concurrent", 20)])
def test_a_number_of_concurrent_requests_is_users_at_once(text, users):
    assert audience.audience(text)[:2] == (users, audience.AT_ONCE)


def test_free_options_after_picks_are_the_free_quotas(engine):
    reply = _chat(engine, ["我是学生，想学深度学习，没什么钱", "免费的有哪些"])[-1]
    assert reply.intent == "rent" and "免费" in reply.paragraphs[0] and "3060" not in reply.paragraphs[0], \
        plain(reply)[:400]


def test_price_per_gb_of_the_picks(engine):
    reply = _chat(engine, ["想玩stable diffusion，预算3000块以内", "二手的呢", "那每GB显存多少钱，哪个最划算"])[-1]
    assert reply.intent == "compare" and "/GB" in reply.paragraphs[0], plain(reply)[:400]


@pytest.mark.parametrize("turns", [
    ["compare 5080 and 5070 ti for diffusion", "I already have a 3060, should I keep it as a second card?"],
    ["我有一张3060 12G，想加第二张卡，mix不同型号的gpu可以吗"],
])
def test_keeping_ones_card_as_a_second_card_is_the_guide_on_mixing_cards(engine, turns):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "question" and ("Mixing" in reply.title or "混用" in reply.title), plain(reply)[:300]


def test_taiwans_power_company_is_taiwan(catalog):
    assert parse("4090整台電腦一個月電費大概多少（台電）", catalog).need.region == "tw"
