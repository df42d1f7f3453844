"""Follow-ups about a card or a need that the fifth round of fresh messages showed misread: a PSU stated after a
power question, 'more memory?' when the budget holds nothing bigger, a maker turned down, one more of the card the
user owns, cooling, a model or quantisation asked again after a fit, and money or jobs read out of a message."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


def talk(engine, *turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("turns", [
    ("3090要多大电源", "我电源只有750w 不想换"),
    ("what PSU does a 3090 need?", "I only have a 750w one and don't want to swap it"),
])
def test_a_psu_stated_after_a_power_question_answers_for_that_card(scorer_engine, turns):
    conv, (_, mine) = talk(scorer_engine, *turns)
    assert mine.intent == "power", plain(mine)
    assert "750" in plain(mine) and "3090" in plain(mine)
    assert conv.session.need.psu_w == 750  # kept for the picks that follow


@pytest.mark.parametrize("turns", [
    ("预算八千 跑sd", "我個火牛係650W 夠唔夠"),
    ("$900 for stable diffusion", "is my 650w psu enough?"),
])
def test_a_psu_with_enough_after_picks_is_a_power_question(scorer_engine, turns):
    _, (picks, psu) = talk(scorer_engine, *turns)
    assert picks.recommendations
    assert psu.intent == "power", plain(psu)
    assert "650" in plain(psu)


@pytest.mark.parametrize("text,budget,psu", [
    ("那推荐一张750w带得动的 预算六千", 6000, 750),
    ("预算100w", 1_000_000, None),  # a budget word before it: 1,000,000 yuan
    ("can my 650w handle a 4090", None, 650),
])
def test_watts_beside_a_budget_word_further_on_are_watts(catalog, text, budget, psu):
    q = parse(text, catalog=catalog)
    assert (q.need.budget.amount if q.need.budget else None) == budget
    assert q.need.psu_w == psu


@pytest.mark.parametrize("turns", [
    ("best GPU for fine-tuning a 13B LLM with QLoRA, under $1500", "more memory?"),
    ("预算一万二，微调13B大模型用QLoRA", "显存大点的呢"),
])
def test_more_memory_with_nothing_bigger_in_budget_shows_the_cheapest_that_have_it(scorer_engine, turns):
    _, (first, more) = talk(scorer_engine, *turns)
    top_vram = first.recommendations[0].vram_gb
    assert more.recommendations, plain(more)
    assert all(r.vram_gb > top_vram for r in more.recommendations)
    assert any(word in plain(more) for word in ("over budget", "超出预算"))


def test_more_memory_far_beyond_the_budget_says_what_rules_it_out(scorer_engine):
    _, (first, more) = talk(scorer_engine, "预算四千，收二手的，跑CV", "显存大点的有吗")
    assert first.recommendations and not more.recommendations
    assert "24.5 GB" in plain(more)  # what rules everything out, and the cheapest card that has it


@pytest.mark.parametrize("text,vendor", [
    ("ok forget apple. nvidia only, used ok", "NVIDIA"),
    ("forget amd, nvidia only", "NVIDIA"),
    ("不要amd 换成nvidia的", "NVIDIA"),
    ("apple算了，还是N卡吧", "NVIDIA"),
    ("amd vs nvidia?", None),
])
def test_a_maker_turned_down_leaves_the_other(catalog, text, vendor):
    assert parse(text, catalog=catalog).need.vendor == vendor


@pytest.mark.parametrize("text", [
    "i have a 3090. if i add a second one can i run llama 70b at q4?",
    "我有一张3090，再加一张能跑70B吗",
])
def test_one_more_of_the_card_owned_is_a_fit_of_two(scorer_engine, text):
    _, (fit,) = talk(scorer_engine, text)
    assert fit.intent == "fit", plain(fit)
    assert "2× GeForce RTX 3090" in plain(fit)


def test_asking_which_card_to_add_is_still_a_recommendation(scorer_engine):
    _, (rec,) = talk(scorer_engine, "我有一张3090，再加一张什么卡能跑70B")
    assert rec.intent == "recommend"


@pytest.mark.parametrize("text", [
    "got 2 p40s off ebay, what llms can i run on them",
    "闲鱼收了两张P40，能跑哪些模型",
])
def test_what_cards_bought_can_run_is_not_where_to_buy(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "fit", plain(reply)
    assert "2× Tesla P40" in plain(reply)


@pytest.mark.parametrize("turns,words", [
    (("bought a p40 off ebay, how do I keep it cool in a normal case",), ("passive", "shroud")),
    (("我的4090温度太高了怎么办",), ("涡轮", "散热")),
    (("cheapest way to get 48GB vram for llm inference? used is fine", "tell me more about the first one",
      "how hot and loud is it? it's going in my home office"), ("blower",)),
])
def test_cooling_questions_get_the_cooling_advice_with_the_cards_power(scorer_engine, turns, words):
    *_, reply = talk(scorer_engine, *turns)[1]
    assert reply.intent == "power", plain(reply)
    assert any(w in plain(reply) for w in words), plain(reply)
    assert " W" in plain(reply)


@pytest.mark.parametrize("turns,second", [
    (("I've got a 2070 super, can it handle SDXL?", "and flux dev?"), "Flux"),
    (("我手上有张3060 12G，能跑Qwen 14B吗", "4bit量化的话能跑吗"), "Qwen2.5 14B"),
])
def test_a_model_or_quant_asked_again_after_a_fit_stays_a_fit(scorer_engine, turns, second):
    _, (first, again) = talk(scorer_engine, *turns)
    assert first.intent == "fit" and again.intent == "fit", plain(again)
    assert second in plain(again)


@pytest.mark.parametrize("text", ["我部機有張 2070 Super 8G，跑唔跑到 SDXL", "2070 Super 跑不跑得动 SDXL"])
def test_an_a_not_a_question_keeps_the_job(scorer_engine, catalog, text):
    assert parse(text, catalog=catalog).need.workloads == ("diffusion",)
    _, (fit,) = talk(scorer_engine, text)
    assert fit.intent == "fit"


@pytest.mark.parametrize("text", ["budget 6000 rmb, 想跑 qwen 14b and some SD", "1.5w预算，想跑SD和本地7B模型"])
def test_an_llm_beside_an_image_job_keeps_both(catalog, text):
    assert set(parse(text, catalog=catalog).need.workloads) == {"llm_inference", "diffusion"}


def test_a_size_alone_states_only_the_size(catalog):
    assert parse("for a 34b model?", catalog=catalog).need.workloads == ()


@pytest.mark.parametrize("text", ["中古的呢", "中古貨得唔得"])
def test_chuko_means_used(catalog, text):
    assert parse(text, catalog=catalog).need.used is True


@pytest.mark.parametrize("text,words", [
    ("我有张6800xt，能拿来跑pytorch训练吗", ("ROCm",)),
    ("can my rx 7900 xtx train cnns in pytorch", ("ROCm",)),
])
def test_an_amd_card_for_deep_learning_is_checked_with_its_software(scorer_engine, text, words):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "fit", plain(reply)
    assert any(w in plain(reply) for w in words)


def test_a_follow_up_after_a_recommendation_that_found_nothing_does_not_ask_the_job_again(scorer_engine):
    _, (amd, nvidia) = talk(scorer_engine, "给我推荐一张A卡，预算五千", "换N卡呢")
    assert amd.intent == "recommend"
    assert nvidia.recommendations, plain(nvidia)
