"""What running a card costs in electricity: the user's tariff read from the message ("电费每度0.6", "0.35€/kWh"), never
as a budget, times the card's board power and the rest of the PC, at the user's hours."""

from __future__ import annotations

import re

import pytest

from bot.dialogue import Conversation
from bot.need import Budget
from bot.nlu import parse
from bot.render import plain


@pytest.mark.parametrize("text, price", [
    ("電費每度1.2港幣，4090每日10個鐘，一個月幾錢？", Budget(1.2, "HKD")),
    ("电费一度0.6，3090一天跑10小时一个月多少钱", Budget(0.6, "CNY")),
    ("electricity is 0.35€/kWh here", Budget(0.35, "EUR")),
    ("how much is the power bill for a 4090 running 8 hours a day at $0.15/kWh", Budget(0.15, "USD")),
    ("we pay 0.30 per kwh", Budget(0.30, "USD")),
])
def test_an_electricity_price_is_read_and_is_never_a_budget(text, price):
    q = parse(text)
    assert q.need.kwh_price == price and q.need.budget is None, q.need


@pytest.mark.parametrize("text, per_month", [
    ("電費每度1.2港幣，4090每日10個鐘，一個月幾錢？", 219),  # (450 + 150) W × 10 h × 30.4 days × HK$1.2
    ("电费一度0.6，3090一天跑10小时一个月多少钱", 91),
    ("how much is the power bill for a 4090 running 8 hours a day at $0.15/kWh", 22),
])
def test_the_running_cost_is_the_cards_power_and_the_pcs_at_the_users_hours(scorer_engine, text, per_month):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.query["rule"] == "running-cost", (reply.query["rule"], plain(reply))
    said = [int(x.replace(",", "")) for x in re.findall(r"(?:HK\$|¥|\$)([\d,]+)(?!\.\d)", reply.paragraphs[0])]
    assert per_month in said, plain(reply)


@pytest.mark.parametrize("turns", [("$2000 for LLM inference", "and the electric bill if it runs 24/7?"),
                                   ("预算一万跑大模型", "电费一个月大概多少")])
def test_the_electricity_of_the_card_on_the_table_uses_the_regions_tariff_when_none_is_said(scorer_engine, turns):
    conv = Conversation(scorer_engine)
    first = conv.turn(turns[0])
    reply = conv.turn(turns[1])
    assert reply.query["rule"] == "running-cost" and first.recommendations[0].gpu in reply.title, plain(reply)
    assert any("Tariff" in p or "电价按" in p for p in reply.paragraphs), plain(reply)


def test_rent_or_buy_uses_the_tariff_the_user_said(scorer_engine):
    reply = Conversation(scorer_engine).turn("rent or buy a 4090 if I use it 20 hours a week, electricity is $0.40/kWh")
    assert reply.query["rule"] == "rent-vs-buy" and "$0.400 per kWh (your tariff" in plain(reply), plain(reply)
