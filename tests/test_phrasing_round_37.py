"""Patterns found in stranger round 37: a spoken electricity price ("一度六毛") read ten times too high, NT$ said as
"塊台幣" shown in yuan, "30 cents a kWh" not read, a short price or laptop follow-up refused as out of scope, "don't
want to leave macOS" answered with NVIDIA cards, "已经有一张3060，还值得换吗" answered as whether to buy a 3060, a
setup of two cards compared again for a job as one card, and "那电费差多少" after a comparison answered for one card."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain
from bot.slots import money, usage
from bot.slots.text import chinese_numerals_to_digits, normalise


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


def _read(text: str) -> str:
    return chinese_numerals_to_digits(normalise(text))


@pytest.mark.parametrize("text, lang, amount, currency", [
    ("家里电费一度六毛", "zh", 0.6, "CNY"), ("一度电五毛五", "zh", 0.55, "CNY"), ("电费一块二一度", "zh", 1.2, "CNY"),
    ("電費一度兩塊半", "zh", 2.5, "CNY"), ("电费6毛一度", "zh", 0.6, "CNY"), ("电费每度八毛钱", "zh", 0.8, "CNY"),
    ("電費一度大概五塊台幣", "zh", 5, "TWD"), ("电费每度1.2港币", "zh", 1.2, "HKD"), ("电价1.2元/度", "zh", 1.2, "CNY"),
    ("my power is 30 cents a kwh", "en", 0.3, "USD"), ("28p per kwh", "en", 0.28, "GBP"), ("40 ct/kwh", "en", 0.4, "EUR"),
    ("$0.15 per kwh", "en", 0.15, "USD"),
])
def test_a_spoken_price_of_a_kwh(text, lang, amount, currency):
    price, _ = money.kwh_price(_read(text), lang)
    assert price is not None and (round(price.amount, 4), price.currency) == (amount, currency), price


@pytest.mark.parametrize("text", ["我 24 小時掛著訓練", "24小时挂机跑", "一张卡 24 小时不停"])
def test_a_number_spaced_from_chinese_still_reads_as_hours(text):
    u, _ = usage.usage(_read(text))
    assert u is not None and (u.hours, u.per) == (24, "day"), u


def test_a_monthly_bill_at_a_spoken_tariff(engine):
    reply = _chat(engine, ["家里电费一度六毛，一张4090天天满载跑一个月电费要多少"])[-1]
    assert reply.intent == "power" and "¥0.600" in plain(reply) and "¥263" in plain(reply), plain(reply)[:300]


@pytest.mark.parametrize("turns", [
    ["$1500 for training CNNs", "how much for that"],
    ["我是学生, budget about $800, for RL research", "那笔记本呢", "which laptop specifically"],
])
def test_a_short_follow_up_after_picks_is_not_refused(engine, turns):
    reply = _chat(engine, turns)[-1]
    assert reply.intent != "out_of_scope", plain(reply)[:300]


def test_staying_on_macos_is_the_guide_on_macs(engine):
    reply = _chat(engine, ["im on a mac, m2 pro 16gb, can i do deep learning on it", "what would you upgrade to",
                           "ok but i dont want to leave macos"])[-1]
    assert reply.intent == "question" and "Apple" in reply.title and not reply.recommendations, plain(reply)[:300]


@pytest.mark.parametrize("turns, owned", [
    (["预算8000块，想训练图像分类模型", "我已经有一张3060了，还值得换吗"], "3060"),
    (["$1000 for training CNNs", "i have a 3060 already, worth switching?"], "3060"),
])
def test_replacing_ones_card_weighs_it_against_the_pick(engine, turns, owned):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "compare" and owned in reply.paragraphs[0] and \
        ("Upgrade from your" in reply.paragraphs[0] or "升级到" in reply.paragraphs[0]), plain(reply)[:300]


@pytest.mark.parametrize("turns", [
    ["两张3090和一张4090哪个好", "如果主要是跑大模型推理呢"],
    ["two 3090s or one 4090 for deep learning?", "what if it's mostly llm inference"],
])
def test_a_setup_compared_again_for_a_job_stays_a_setup(engine, turns):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "compare" and "2× GeForce RTX 3090" in reply.title, plain(reply)[:300]


@pytest.mark.parametrize("turns, gap", [
    (["两张3090和一张4090哪个好", "如果主要是跑大模型推理呢", "那电费差多少"], "250 W"),
    (["two 3090s or one 4090 for deep learning?", "how much more power does that draw",
      "and the electricity bill difference, i pay 30 cents a kwh"], "$0.075"),
])
def test_the_electricity_of_two_setups_compared_is_their_difference(engine, turns, gap):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "power" and "4090" in reply.title and "3090" in reply.title and \
        gap in reply.paragraphs[0], plain(reply)[:400]


def test_a_training_time_on_a_named_platform_is_priced_there(engine):
    reply = _chat(engine, ["autodl上租4090一小时多少钱啊，微调qwen3-8b大概要跑多久"])[-1]
    assert "AutoDL" in reply.paragraphs[0], plain(reply)[:300]


@pytest.mark.parametrize("text", ["lab gave me ~$3k to build a box for finetuning llama 3 8b with lora, what card",
                                  "预算一万二左右，想自己搭个机器跑强化学习，买啥卡"])
def test_a_box_to_build_is_a_whole_pc_budget(catalog, text):
    from bot.nlu import parse

    assert parse(text, catalog).need.whole_pc, text


@pytest.mark.parametrize("turns, card, hours", [
    (["訓練 ResNet50 在 ImageNet 上，用一張 4090 大概要幾天"], "4090", "24.6"),
    (["how long to train resnet-50 on imagenet with a 3090"], "3090", "35.4"),
])
def test_an_imagenet_run_is_timed_on_lambdas_measured_throughput(engine, turns, card, hours):
    """ImageNet's 1,281,167 images × the usual 90 epochs over the images a second Lambda measured on the card."""
    reply = _chat(engine, turns)[-1]
    lead = reply.paragraphs[0]
    assert card in lead and hours in lead and "90" in lead and ("Lambda" in lead), plain(reply)[:300]


def test_a_card_lambda_did_not_measure_is_timed_by_calibration(engine):
    reply = _chat(engine, ["$1500 for training CNNs", "how long would imagenet take on it"])[-1]
    assert reply.intent == "fit" and "calibrated" in reply.paragraphs[0], plain(reply)[:300]


def test_images_and_epochs_stated_are_the_run(engine):
    reply = _chat(engine, ["200k images, 50 epochs, how long on a 4090 for yolo training"])[-1]
    assert "10,000,000 images" in reply.paragraphs[0], plain(reply)[:300]


def test_a_dataset_of_tiny_images_is_not_timed_at_imagenet_resolution(engine):
    reply = _chat(engine, ["cifar10 跑一个epoch要多久"])[-1]
    assert "32×32" in reply.paragraphs[0] and "Lambda" not in plain(reply), plain(reply)[:300]


def test_a_modded_card_asked_with_a_job_leads_with_the_mod(engine):
    reply = _chat(engine, ["4090 48G魔改版靠谱吗，听说跑70b很香"])[-1]
    assert "VBIOS" in reply.paragraphs[0] and any("70B" in p for p in reply.paragraphs[1:]), plain(reply)[:400]


def test_a_second_question_to_the_guide_is_answered_too(engine):
    """The comparison the message asks for, and the part the guide answers ('每周多少小时': Kaggle's weekly quota)."""
    reply = _chat(engine, ["Kaggle free GPU每周多少小时，T4 x2和P100选哪个"])[-1]
    assert reply.intent == "compare" and any("30" in p and "Kaggle" in p for p in reply.paragraphs), \
        plain(reply)[:600]


def test_a_comparison_for_a_buyer_in_china_says_which_card_is_not_sold_there(engine):
    reply = _chat(engine, ["H20和H100差多少，国内公司现在买H20做推理划算吗"])[-1]
    notes = [p for p in reply.paragraphs if p.startswith("注意")]
    assert reply.intent == "compare" and any("H100" in p and "没有新卡销售" in p for p in notes) and \
        any("H20" in p and "受限" in p for p in notes), plain(reply)[:600]
