"""A follow-up that asks something new gets a new answer, not the last one again (stranger round 18)."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain


def _chat(engine, turns):
    conv = Conversation(engine)
    return [conv.turn(t) for t in turns]


@pytest.mark.parametrize("turns, said", [
    (["rent or buy a 4090 if I use it 500 hours in total?", "what if its 2000 hours"], "2,000 GPU-hours"),
    (["4090 租还是买，总共用500小时", "如果是2000小时呢"], "2,000"),
])
def test_another_total_of_hours_redoes_the_rent_or_buy_sum(scorer_engine, turns, said):
    first, second = _chat(scorer_engine, turns)
    assert second.intent == "rent" and said in plain(second) and plain(second) != plain(first), plain(second)


@pytest.mark.parametrize("turns", [["我的3060能跑什么模型", "想升级，预算4000"],
                                   ["what can my 3060 run", "i want to upgrade, budget $600"]])
def test_a_budget_after_what_a_card_runs_is_a_recommendation_for_running_llms(scorer_engine, turns):
    _, reply = _chat(scorer_engine, turns)
    assert reply.intent == "recommend" and reply.recommendations, plain(reply)


def test_a_context_length_after_a_fit_is_still_a_context_length(scorer_engine):
    _, reply = _chat(scorer_engine, ["can a 3090 run a 32b model", "and 32k?"])
    assert reply.intent == "fit" and not reply.recommendations


@pytest.mark.parametrize("turns, two", [
    (["can my 4070 12gb fine-tune an 8b model?", "would adding a second 4070 help"], "2× GeForce RTX 4070"),
    (["4070 12g 能微调 8b 模型吗", "再加一张4070有用吗"], "2 张 GeForce RTX 4070"),
])
def test_adding_a_card_after_a_fit_answers_for_one_card_more(scorer_engine, turns, two):
    first, second = _chat(scorer_engine, turns)
    assert second.intent == "fit" and plain(second) != plain(first)
    assert two in plain(second) or two.replace("2 张 ", "2× ") in plain(second), plain(second)


@pytest.mark.parametrize("text, cards, watts", [("电源多大才够，一张4090加一张3090", 2, 800),
                                                ("psu for a 4090 and two 3090s?", 3, 1150)])
def test_a_psu_for_different_cards_adds_up_every_card(scorer_engine, catalog, text, cards, watts):
    from bot.scorer import psu_for

    reply = Conversation(scorer_engine).turn(text)
    shown = plain(reply)
    assert reply.intent == "power" and f"{watts} W" in shown, shown
    assert f"{psu_for(watts, 1)} W" in shown


@pytest.mark.parametrize("text", ["Mac Studio M2 Ultra 192GB for running big LLMs - worth it vs nvidia?",
                                  "mac studio 512g 对比 N卡 跑大模型值吗"])
def test_a_mac_against_nvidia_in_general_is_judged_on_what_it_runs_not_asked_for_a_second_card(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "fit" and "tokens/s" in plain(reply), plain(reply)


@pytest.mark.parametrize("turns, least", [
    (["4090 vs A6000 for training", "and the 5090?", "which one uses less power?"], "RTX A6000 draws the least"),
    (["4090和A6000对比 训练用", "那5090呢", "哪张最省电"], "RTX A6000 功耗最低"),
])
def test_a_power_question_after_a_three_way_comparison_names_the_card_that_draws_least(scorer_engine, turns, least):
    replies = _chat(scorer_engine, turns)
    assert least in plain(replies[-1]), plain(replies[-1])


@pytest.mark.parametrize("turns, lang", [(["compare the 3090 and 4090 for training", "what about noise, its in my bedroom"],
                                          "en"), (["3090和4090对比", "噪音呢 放在卧室"], "zh")])
def test_noise_after_a_comparison_says_which_runs_cooler_and_how_to_make_it_quiet(scorer_engine, turns, lang):
    reply = _chat(scorer_engine, turns)[-1]
    shown = plain(reply)
    assert ("draws less" if lang == "en" else "功耗更低") in shown, shown
    assert ("cooler" if lang == "en" else "散热") in shown


@pytest.mark.parametrize("turns, setups", [
    (["2x3090 or 1x5090 for deep learning?", "do I need nvlink?", "what psu and case"],
     ["2× GeForce RTX 3090:", "GeForce RTX 5090:"]),
    (["两张3090还是一张5090，做深度学习", "需要nvlink吗", "电源和机箱怎么选"], ["2× GeForce RTX 3090：", "GeForce RTX 5090："]),
])
def test_a_psu_after_a_comparison_and_a_general_question_is_for_the_setups_compared(scorer_engine, turns, setups):
    """A general question between them leaves the comparison on the table; a card compared without a count is one."""
    *_, reply = _chat(scorer_engine, turns)
    text = plain(reply)
    assert reply.intent == "power" and all(s in text for s in setups), text
    assert "2× GeForce RTX 5090" not in text and "2 张 GeForce RTX 5090" not in text


@pytest.mark.parametrize("turns", [
    ["我想跑本地大模型，预算8000", "有没有AMD的选择", "回到刚才第一个推荐，它功耗多少"],
    ["local llm box, $1500", "any AMD options?", "go back to your first suggestion, how much power does it draw"],
])
def test_going_back_to_an_earlier_list_means_that_list_not_the_last(scorer_engine, turns):
    first, second, third = _chat(scorer_engine, turns)
    assert first.recommendations and second.recommendations
    assert {r.gpu for r in second.recommendations}.isdisjoint({first.recommendations[0].gpu})  # (a real second list)
    assert third.focus == first.recommendations[0].gpu, plain(third)


@pytest.mark.parametrize("turns", [["can a 4090 run llama 3 70b?", "how many would I need?"],
                                   ["4090能跑70b吗", "那要几张"],
                                   ["4090能跑70b嗎", "要幾張"]])
def test_how_many_after_a_no_answers_for_as_many_cards_as_hold_it(scorer_engine, turns):
    first, second = _chat(scorer_engine, turns)
    assert first.fit and first.fit["fits"] is False
    assert second.fit and second.fit["count"] > 1 and second.fit["fits"] is True, plain(second)


@pytest.mark.parametrize("turns, said", [
    (["how much vram to fine-tune llama 3 70b with lora", "how many H100s would I rent and what's the cost per hour"],
     "How many: "),
    (["微调70B用LoRA要多少显存", "租H100的话要几张，一小时多少钱"], "张"),
])
def test_how_many_to_rent_prices_as_many_as_hold_the_job(scorer_engine, turns, said):
    _, reply = _chat(scorer_engine, turns)
    text = plain(reply)
    assert reply.intent == "rent" and said in text, text
    assert "4 GPUs" in text or "4 张" in text, text


@pytest.mark.parametrize("turns, card", [
    (["rent or buy a 4090 if I use it 6 hours a day", "what about a 3090 instead"], "GeForce RTX 3090"),
    (["4090 租还是买，每天用6小时", "那3090呢"], "GeForce RTX 3090"),
    (["4090 租定買好，每日用6個鐘", "3090呢"], "GeForce RTX 3090"),
])
def test_another_card_after_a_rent_or_buy_sum_gets_the_sum(scorer_engine, turns, card):
    _, reply = _chat(scorer_engine, turns)
    assert reply.query["rule"] == "rent-vs-buy" and card in reply.title, plain(reply)


@pytest.mark.parametrize("text", ["How loud is a 4090 under full training load? rig is in my bedroom",
                                  "4090满载训练噪音大吗，放卧室", "4090會唔會好嘈，放喺房"])
def test_how_loud_a_card_is_says_how_to_make_it_quiet(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "power" and "nvidia-smi -pl" in reply.paragraphs[0], plain(reply)  # the advice leads


@pytest.mark.parametrize("turns", [["想買張二手卡玩AI繪圖，預算8千", "礦卡可以買嗎"],
                                   ["$800 for stable diffusion, used is fine", "are ex-mining cards ok?"]])
def test_asking_about_mining_cards_after_picks_gets_the_used_market_advice(scorer_engine, turns):
    _, reply = _chat(scorer_engine, turns)
    assert reply.query["rule"] == "used-safety" and not reply.recommendations, plain(reply)


@pytest.mark.parametrize("turns", [["my 3060 12gb for sdxl, is it ok?", "4060 ti 16g呢", "值得升级吗"],
                                   ["my 3060 for llama 8b ok?", "and a 4070 ti super?", "is it worth upgrading?"]])
def test_worth_upgrading_weighs_the_users_card_against_the_one_asked_about(scorer_engine, turns):
    *_, reply = _chat(scorer_engine, turns)
    assert reply.intent == "compare" and "GeForce RTX 3060 12GB" in reply.title, plain(reply)
    assert "4060 Ti 16GB" in reply.title or "4070 Ti Super" in reply.title
