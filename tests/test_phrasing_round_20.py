"""Phrasings a stranger used that were misread (stranger round 20): Chinese typed as pinyin, a model size left
behind, a maker turned down after its name, follow-ups to a comparison or to a guide answer, power limiting the cards
on the table, spec questions about one card."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain
from bot.slots.model import model_size
from bot.slots.pinyin import as_characters


def _chat(engine, turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("text, read", [
    ("pianyi dian de ne", "便宜点的呢"),
    ("er shou ye ok", "二手也 ok"),
    ("compare di yi he di er ge", "compare 第一和第二个"),
    ("zhi yao N ka, A ka bu yao", "只要 n卡, a卡不要"),
])
def test_pinyin_chat_is_read_in_characters(text, read):
    assert as_characters(text) == read


@pytest.mark.parametrize("text", ["he said the 4090 is good for ml", "de-noise diffusion models", "预算5000 pianyi"])
def test_english_and_chinese_messages_are_left_as_written(text):
    assert as_characters(text) == text


@pytest.mark.parametrize("text, slot, value", [
    ("pianyi dian de ne", "direction", "cheaper"),
    ("er shou ye ok", "used", True),
    ("zhi yao N ka, A ka bu yao", "vendor", "NVIDIA"),
    ("只要N卡，A卡不要", "vendor", "NVIDIA"),
    ("AMD no thanks, budget $900", "vendor", "NVIDIA"),
])
def test_pinyin_and_trailing_refusals_fill_the_slots(catalog, text, slot, value):
    q = parse(text, catalog)
    got = q.direction if slot == "direction" else getattr(q.need, slot)
    assert got == value, (text, got)


@pytest.mark.parametrize("text, size", [
    ("13B换成32B呢", 32), ("from 13b to 32b?", 32), ("32B instead of 13B", 32), ("不要13B了，32B", 32),
    ("7B and 13B models", 7), ("a 7b model to chat", 7), ("70B", 70),
])
def test_the_size_a_message_moves_to_is_the_one_kept(text, size):
    assert model_size(text.lower())[0] == size


def test_a_message_that_moves_the_model_size_moves_the_conversation(scorer_engine):
    conv, _ = _chat(scorer_engine, ["预算一万，本地跑13B的模型", "13B换成32B呢"])
    assert conv.session.need.model_size_b == 32


@pytest.mark.parametrize("text, budget", [("1w?", 10000), ("1w", 10000)])
def test_a_bare_wan_is_yuan_not_watts(catalog, text, budget):
    q = parse(text, catalog)
    assert q.need.budget and q.need.budget.amount == budget and q.need.budget.currency == "CNY"


@pytest.mark.parametrize("text", ["best gpu for cyberpunk 2077", "need a laptop for premiere pro, 4k timelines"])
def test_a_games_year_or_a_resolution_is_no_budget(catalog, text):
    assert parse(text, catalog).need.budget is None


@pytest.mark.parametrize("turns", [
    ["3090 vs 4090 vs 5090 which is best value for stable diffusion", "why"],
    ["4090和5090哪个好", "为什么"],
])
def test_why_after_a_comparison_gives_its_reasons(engine, turns):
    _, (first, second) = _chat(engine, turns)
    assert first.intent == "compare" and second.intent == "compare", plain(second)
    assert second.chart_gpus == first.chart_gpus


def test_a_place_after_a_comparison_prices_the_same_cards_there(engine):
    _, (first, second) = _chat(engine, ["3090 vs 4090 vs 5090 which is best value for stable diffusion",
                                        "what about in china, prices in rmb"])
    assert second.intent == "compare" and second.chart_gpus == first.chart_gpus and "¥" in plain(second)


@pytest.mark.parametrize("turns", [
    ["which gpu for llm inference, budget 2500 usd", "and the power limit thing, can I cap them at 250W each"],
    ["预算两万跑大模型推荐什么卡", "功耗限制到300W会慢多少"],
])
def test_power_limiting_the_cards_on_the_table_is_answered_from_the_guide(engine, turns):
    conv, (_, reply) = _chat(engine, turns)
    assert reply.intent == "question" and not reply.recommendations, plain(reply)
    assert reply.query["act"] == "power" and reply.query["rule"] == "power-limit"


@pytest.mark.parametrize("turns, said", [
    (["need cheap gpu for kaggle comps", "what about just using kaggle's free gpus", "how many hours do they give"],
     "Kaggle"),
    (["is vast.ai cheap?", "how do they bill"], "vast.ai"),
])
def test_a_follow_up_to_a_guide_answer_stays_on_its_topic(engine, turns, said):
    _, replies = _chat(engine, turns)
    assert replies[-1].intent not in ("out_of_scope", "unknown") and said in plain(replies[-1]), plain(replies[-1])


def test_two_cards_after_more_memory_hold_that_memory_together(scorer_engine):
    _, (_, _, reply) = _chat(scorer_engine, ["which gpu for llm inference, budget 2500 usd", "more vram?",
                                             "what about two 3090s then"])
    assert reply.recommendations and reply.recommendations[0].count == 2, plain(reply)


@pytest.mark.parametrize("text", ["memory bandwidth of the h100 pcie?", "V100 32G PCIe版的fp16算力多少",
                                  "does the v100 32gb pcie have tensor cores"])
def test_a_spec_of_one_card_is_a_question_about_that_card(engine, text):
    t = Conversation(engine).understand(text)
    assert t.act == "gpu_info", (text, t.act)


@pytest.mark.parametrize("text, workload", [("wat gpu shud i get for fine tuning mistral 7b, got like 1.2k", "llm_finetune"),
                                            ("fine tuning bert on a 3060?", "transformer")])
def test_fine_tuning_written_apart_is_fine_tuning(catalog, text, workload):
    assert parse(text, catalog).need.workloads == (workload,)


@pytest.mark.parametrize("text, count", [("want to build a 4x gpu rig for training, budget 10k usd", 4),
                                         ("8 x GPUs for pretraining", 8)])
def test_a_count_written_with_x_before_gpu_is_the_count(catalog, text, count):
    assert parse(text, catalog).need.gpu_count == count


@pytest.mark.parametrize("turns, card", [
    (["想跑本地大模型，现在用的是4060ti 16g", "能跑多大的模型"], "GeForce RTX 4060 Ti 16GB"),
    (["I'm using a 3060 12gb and want to run local llms", "what's the biggest model?"], "GeForce RTX 3060 12GB"),
])
def test_the_card_a_user_has_is_what_a_local_llm_question_is_about(scorer_engine, turns, card):
    _, replies = _chat(scorer_engine, turns)
    for reply in replies:
        assert reply.intent == "fit" and reply.focus == card and not reply.recommendations, plain(reply)


@pytest.mark.parametrize("text", ["how much vram do i need to run deepseek r1 distill 32b", "我想本地跑deepseek 32b，需要多大显存"])
def test_the_smallest_card_for_a_model_is_the_cheapest_of_its_size_not_a_china_only_flagship(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert "5090 D" not in plain(reply) and "3090" in plain(reply), plain(reply)


@pytest.mark.parametrize("text, slot", [("预算两万，搞个双卡机器训练模型", "whole_pc"),
                                        ("rent or buy, I need to train a 1B model for a month straight", "usage")])
def test_a_machine_and_a_month_straight_are_read(catalog, text, slot):
    assert getattr(parse(text, catalog).need, slot)


@pytest.mark.parametrize("text, verdict", [("rent or buy, I need to train a 1B model for a month straight", "Rent:"),
                                           ("租还是买 连续跑一个月训练1B模型", "租：")])
def test_a_job_of_a_month_around_the_clock_is_rented(scorer_engine, text, verdict):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "rent" and plain(reply).split("\n", 2)[2].startswith(verdict), plain(reply)
