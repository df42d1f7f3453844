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


@pytest.mark.parametrize("text, lang", [("cheapest usable setup for llama 3.1 70b q4?", "en"), ("跑70b最便宜的配置是什么", "zh"),
                                        ("跑7b最平嘅卡係邊張", "zh"), ("cheapest card that can run a 7b model", "en")])
def test_the_cheapest_setup_asked_for_shows_no_budget_the_user_never_gave(scorer_engine, text, lang):
    """The ceiling set to look at the cheap end is not called the user's budget; what costs more says what it buys."""
    reply = Conversation(scorer_engine).turn(text)
    assert reply.recommendations, plain(reply)
    said = plain(reply)
    budget_words = ("budget", "over the budget") if lang == "en" else ("预算", "預算")
    assert not any(w in reply.title for w in budget_words), reply.title
    assert not any(w in b for b in reply.bullets for w in ("over the budget", "超出预算", "超出預算")), said
    if reply.fit is None:
        assert all("speed of the top pick" in b or "速度是首选的" in b or "速度是首選的" in b
                   for b in reply.bullets if b.startswith(("Not ", "没选", "沒選")) and ("$" in b or "¥" in b)), said
