"""Numbers that count something else, and "budget" used as an adjective, are not the user's budget."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


@pytest.mark.parametrize("text", ["serve a 8B model to ~50 concurrent users with vLLM", "50并发跑7b要什么卡",
                                  "need a card for 30 students to share", "100 simultaneous requests on a 13b model"])
def test_who_is_served_is_not_money(catalog, text):
    assert parse(text, catalog).need.budget is None


@pytest.mark.parametrize("text", ["tesla p40 24gb for $200 - good budget llm card?",
                                  "used 3090 for $650, a good budget pick for local llms?"])
def test_a_card_offered_at_a_price_as_a_budget_card_is_a_price_check_not_a_budget(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "gpu" and not reply.recommendations, plain(reply)


def test_a_budget_said_as_a_budget_is_still_one(catalog):
    q = parse("my budget is 800, any good budget card?", catalog)
    assert q.need.budget is not None and q.need.budget.amount == 800
