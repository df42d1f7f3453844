"""Patterns found in stranger round 38: what a term means asked with a generic job ("KV cache 是什麼，為什麼長上下文推理很
吃顯存") answered with a memory floor, a comparison of setups with a power bill asked beside it answered with one card's
bill, images said as the data of an image-generation job read as a new vision job, a short image run timed as "0
minutes", and a modded card asked only whether it runs a model led by the mod's story."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


@pytest.mark.parametrize("text", ["請問 KV cache 是什麼，為什麼長上下文推理很吃顯存", "what is the kv cache and why does it eat vram"])
def test_what_a_term_means_with_a_generic_job_is_the_guide(engine, text):
    reply = _chat(engine, [text])[-1]
    assert reply.intent == "question" and not reply.recommendations and "KV" in plain(reply), plain(reply)[:300]


@pytest.mark.parametrize("text, lang", [("3090和4090哪个好，电费差多少", "zh"),
                                        ("3090 or 4090 for training, and how much more is the power bill", "en")])
def test_a_comparison_with_its_power_bill_asked_gets_the_bills_gap(engine, text, lang):
    reply = _chat(engine, [text])[-1]
    gap = "多耗电约" if lang == "zh" else "more at the wall"
    assert reply.intent == "compare" and any(gap in p for p in reply.paragraphs), plain(reply)[:600]


def test_images_said_in_an_image_generation_chat_are_its_data(engine):
    replies = _chat(engine, ["recommend a GPU for flux lora training under $1000",
                             "how long would training take for like 30 images"])
    assert "CNN" not in replies[-1].title and "computer vision" not in plain(replies[-1]), plain(replies[-1])[:300]


def test_a_short_image_run_is_timed_in_seconds(engine):
    reply = _chat(engine, ["预算一万五想训练YOLO做工业缺陷检测，买啥卡", "训练大概要多久，数据集两万张图"])[-1]
    assert "秒" in reply.paragraphs[0] and "0 分钟" not in reply.paragraphs[0], plain(reply)[:300]


@pytest.mark.parametrize("text, first", [("4090 48G魔改版靠谱吗，听说跑70b很香", "VBIOS"),
                                         ("4090 魔改48G 能跑 Qwen2.5-72B 吗", "可以")])
def test_a_modded_card_leads_with_the_mod_only_when_its_reliability_is_asked(engine, text, first):
    reply = _chat(engine, [text])[-1]
    assert first in reply.paragraphs[0], plain(reply)[:300]


@pytest.mark.parametrize("text, amount", [("才一千多块", 1500), ("两万出头", 21000), ("3000多块的卡", 3500), ("2k+", 2500),
                                          ("1000左右", 1000)])
def test_an_amount_said_as_more_than_it_is_weighed_at_the_middle_of_its_range(text, amount):
    from bot.slots.money import more_than_said
    from bot.slots.text import chinese_numerals_to_digits, normalise

    said = {"才一千多块": 1000, "两万出头": 20000, "3000多块的卡": 3000, "2k+": 2000, "1000左右": 1000}[text]
    assert more_than_said(chinese_numerals_to_digits(normalise(text)), said) == amount


def test_a_p40_at_a_thousand_plus_is_a_good_price_not_a_scam(engine):
    reply = _chat(engine, ["用二手 Tesla P40 24G 跑 LLM inference 划算吗，才一千多块"])[-1]
    assert "低得不正常" not in plain(reply), plain(reply)[:300]


def test_a_kwh_price_in_a_place_named_is_in_its_money(engine):
    reply = _chat(engine, ["台灣電費一度大概4塊多，4090 每天跑滿 12 小時一個月電費多少"])[-1]
    assert "NT$4.500" in reply.paragraphs[0] and "¥" not in reply.paragraphs[0], plain(reply)[:300]


@pytest.mark.parametrize("turns", [
    ["PhD student, doing RL with big transformer policies, i have $2500 for a gpu", "cheaper?", "why not an AMD card"],
    ["$1500 for training CNNs", "为什么不推荐A卡"],
])
def test_why_not_a_maker_is_that_makers_cards_and_software(engine, turns):
    reply = _chat(engine, turns)[-1]
    assert reply.query["rule"] == "why-not-a-maker" and "AMD" in plain(reply), plain(reply)[:300]


def test_no_amd_still_turns_amd_down(catalog):
    from bot.nlu import parse

    assert parse("no amd please", catalog).need.vendor == "NVIDIA"
    assert parse("why not an AMD card", catalog).need.vendor == "AMD"


def test_the_upgrade_on_screen_with_ones_own_card_is_the_mixed_setup(engine):
    reply = _chat(engine, ["我已经有一张3060 12G了，想跑stable diffusion xl，够吗", "想升级的话买啥，预算六千",
                           "这张能和我的3060一起用吗"])[-1]
    assert reply.query["rule"] == "keep-the-old-card" and "3060" in reply.title, plain(reply)[:300]


def test_a_question_of_the_comparison_just_made_keeps_its_cards(engine):
    reply = _chat(engine, ["compare 4090 and 5090 for training diffusion models", "and for LLMs?",
                           "is the price difference worth it for a hobbyist"])[-1]
    assert reply.intent == "compare" and "4090" in reply.title and "5090" in reply.title, plain(reply)[:300]


def test_pretraining_from_scratch_is_full_training_and_says_the_cards_for_a_month(engine):
    """'train a 7B from scratch on 1T tokens': every weight trained (not LoRA), on the H100s that hold it, and how many
    bring the run to about a month."""
    reply = _chat(engine, ["请问 H100 rent on vast.ai 现在多少一小时，train一个7B from scratch 1T tokens大概多少钱"])[-1]
    lead = reply.paragraphs[0]
    assert "全参训练" in lead and "LoRA" not in lead and "分到" in lead and "vast.ai" in lead, plain(reply)[:400]


@pytest.mark.parametrize("text, job", [
    ("Kaggle gives me free P100/T4 - is that enough to fine-tune whisper small on my own 100h dataset, or should i pay "
     "for colab pro?", "speech"),
    ("kaggle免费的GPU够我训练yolo吗", "CNN"),
])
def test_a_free_tier_asked_with_its_own_cards_or_another_platform_gets_its_verdict(engine, text, job):
    reply = _chat(engine, [text])[-1]
    assert reply.query["rule"] == "free-tier-enough" and job in reply.paragraphs[0] and \
        "Kaggle" in reply.paragraphs[0], plain(reply)[:300]


def test_a_choice_between_setups_asked_with_why_is_the_comparison(engine):
    reply = _chat(engine, ["M4 Max macbook 128gb vs a 5090 desktop for running 70b models locally - which one and why"])[-1]
    assert reply.intent == "compare" and "M4 Max" in reply.paragraphs[0] and "5090" in reply.paragraphs[0], \
        plain(reply)[:300]


@pytest.mark.parametrize("turns, hours", [
    (["想租卡训练一个推荐模型，数据一亿条，用什么卡", "autodl和阿里云哪个划算", "预算改成每月3000元呢"], "卡时"),
    (["where can i rent a 4090", "what about a budget of 200 a month"], "hours"),
])
def test_a_monthly_budget_after_rentals_is_money_to_rent_with(engine, turns, hours):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "rent" and not reply.recommendations and hours in plain(reply), plain(reply)[:400]


def test_a_node_of_cards_fine_tuning_a_big_model_shards_16_bit_lora(engine):
    """'公司要搭一个8卡训练节点，做70B模型的SFT': memory pools over the node (ZeRO-3/FSDP), so no 12 GB cards on QLoRA."""
    reply = _chat(engine, ["公司要搭一个8卡训练节点，做70B模型的SFT，推荐什么配置"])[-1]
    assert reply.recommendations and all("3060" not in r.gpu for r in reply.recommendations) and \
        "QLoRA" not in reply.paragraphs[1], plain(reply)[:500]


def test_a_card_for_a_job_or_another_instead_weighs_both(engine):
    reply = _chat(engine, ["does a 4060 ti 16gb make sense for sdxl + some flux dev stuff? or should i just save up for "
                           "a 4070 ti super"])[-1]
    assert reply.intent == "compare" and "4060 Ti 16GB" in reply.title and "4070 Ti Super" in reply.title, \
        plain(reply)[:300]


def test_an_epochs_cost_with_the_data_said_after_a_fit_is_the_jobs_cost(engine):
    """'一个epoch大概多少钱，数据大概5亿token' after a full fine-tune of a 7B was fitted on A100s: that job priced."""
    reply = _chat(engine, ["我在autodl上租卡做实验，一般用3090，最近想换4090，值不值", "如果是A100呢，跑7B全参微调",
                           "一个epoch大概多少钱，数据大概5亿token"])[-1]
    assert reply.query["rule"] == "training-cost" and "A100" in reply.title, plain(reply)[:300]


@pytest.mark.parametrize("text", ["张量核心(tensor core)到底有啥用，为啥老显卡跑深度学习慢",
                                  "which is better for deep learning, 7900 xtx or 4080 super?"])
def test_a_part_with_no_word_of_its_own_adds_no_section(engine, text):
    """The second question step adds the guide only when the section it finds is about a word the part says."""
    reply = _chat(engine, [text])[-1]
    assert not any("laptop" in p.lower() or "笔记本" in p or "CPU only" in p or "Apple Silicon" in p
                   for p in reply.paragraphs), plain(reply)[:600]


@pytest.mark.parametrize("text, side", [("我要训一个YOLOv8m，数据集8万张图，640分辨率，用4090大概要多久", "640"),
                                        ("yolov8 training on 20000 images how long on a 3090", "640"),
                                        ("200k images at 1024px, 50 epochs, how long on a 4090", "1024")])
def test_an_image_run_at_another_side_is_scaled_by_its_pixels(engine, text, side):
    """YOLO trains at 640 px (its default, or said): ResNet-50's measured 224 px rate scaled by the pixels, said so."""
    reply = _chat(engine, [text])[-1]
    assert f"{side} " in reply.paragraphs[0] and ("formula" in reply.paragraphs[0] or "公式" in reply.paragraphs[0]), \
        plain(reply)[:300]
