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
