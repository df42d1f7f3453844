"""Used and modded cards as people ask about them: an offered price judged in the chat's money, advice from the used
market about the card asked (not a paragraph on another card), and a memory mod written the Chinese way."""

from __future__ import annotations

import re

import pytest

from bot.catalog import default_catalog
from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


@pytest.mark.parametrize("text, price", [("闲鱼 3090 卖3500 靠谱吗", "¥3,500"), ("P40 才卖800 值得入吗", "¥800"),
                                         ("used 3090 for $600 on eBay, good deal?", "$600")])
def test_an_offered_price_is_judged_against_the_market_even_without_a_currency(scorer_engine, text, price):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.query["rule"] == "price-check", (reply.query["rule"], plain(reply))
    assert reply.paragraphs[0].startswith(price), plain(reply)


@pytest.mark.parametrize("text", ["used 3090 for $600 on eBay, good deal?", "闲鱼 3090 卖3500 靠谱吗", "二手3090值得买吗",
                                  "is a used 3090 worth it?"])
def test_advice_on_a_used_stock_card_quotes_no_paragraph_about_another_card(scorer_engine, catalog, text):
    reply = Conversation(scorer_engine).turn(text)
    for p in reply.paragraphs:
        named = {g.name for g in catalog.mentions(p)}
        assert not named or "GeForce RTX 3090" in named, p


@pytest.mark.parametrize("text, card, gb", [("4090 魔改48G 能跑 Qwen2.5-72B 吗", "GeForce RTX 4090", 48),
                                            ("2080Ti魔改22G 跑 llama 3 70b", "GeForce RTX 2080 Ti", 22),
                                            ("2080ti modded 22gb for llama 70b?", "GeForce RTX 2080 Ti", 22),
                                            ("4090 48g 魔改 靠谱吗", "GeForce RTX 4090", 48)])
def test_a_memory_mod_is_read_whichever_side_of_the_word_for_it(text, card, gb):
    q = parse(text, default_catalog())
    assert q.gpus[0] == card and q.card_memory_gb == gb and q.need.used


def test_a_modded_card_is_weighed_with_its_memory_and_its_worth_is_the_mod_not_the_stock_price(scorer_engine):
    fit = Conversation(scorer_engine).turn("4090 魔改48G 能跑 Qwen2.5-72B 吗")
    assert fit.intent == "fit" and "48 GB" in fit.paragraphs[0] and fit.paragraphs[0].startswith("可以"), plain(fit)
    worth = Conversation(scorer_engine).turn("4090 48g 魔改 靠谱吗")
    assert any(re.search(r"48\s*GB", p) for p in worth.paragraphs[:2]), plain(worth)
    assert not any(p.startswith("值：") for p in worth.paragraphs), plain(worth)


@pytest.mark.parametrize("text, price", [("闲鱼2800的3090能买吗", "¥2,800"), ("a $600 3090, worth it?", "$600"),
                                         ("4090 2000刀值吗", "$2,000"), ("P40 两百多块 能买吗", "¥250")])  # 两百多: about 250
def test_an_offered_price_before_the_card_or_with_its_unit_after_is_checked(scorer_engine, text, price):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.query["rule"] == "price-check" and reply.paragraphs[0].startswith(price), plain(reply)


def test_a_used_offer_written_after_the_cards_memory_is_the_price_to_check_not_a_budget(scorer_engine):
    """"V100 16G 二手800块": the card at that price is weighed (no list of other cards to buy under ¥800)."""
    reply = Conversation(scorer_engine).turn("Tesla V100 16G 二手800块，能用来学习吗")
    assert reply.query["rule"] == "price-check" and not reply.recommendations, plain(reply)
    assert any("¥800" in p for p in reply.paragraphs[:4]), plain(reply)


@pytest.mark.parametrize("text, warning", [("P40 两百多块 能买吗", "低得不正常"), ("a used 3090 for $300, good deal?", "too low")])
def test_a_price_far_below_the_market_is_a_warning_not_a_bargain(scorer_engine, text, warning):
    reply = Conversation(scorer_engine).turn(text)
    assert warning in reply.paragraphs[0], plain(reply)


def test_whether_a_link_is_worth_it_for_a_pair_is_the_guides_not_the_cards_price(scorer_engine):
    reply = Conversation(scorer_engine).turn("Is NVLink worth it for 2x3090?")
    assert reply.intent == "question" and not reply.recommendations, plain(reply)


@pytest.mark.parametrize("text", ["3080 20G魔改版值得买吗，2500块", "modded 3080 20gb for $350, worth it?"])
def test_an_offer_for_a_memory_modded_card_is_weighed_with_its_memory(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    said = plain(reply)
    assert "20 GB" in said and "少于" not in said and "less than this job needs" not in said, said
