"""A question about one card gets a verdict on that card (stranger round 19): an AMD card is weighed against what the
same money buys, and a card with slow FP16 is not told to train in mixed precision."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain


@pytest.mark.parametrize("text", ["A卡行不行，7900xtx值得吗", "is the 7900 xtx worth it for deep learning?",
                                  "7900XTX 值唔值得買"])
def test_an_amd_card_asked_about_is_weighed_not_left_unjudged(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    said = plain(reply)
    assert reply.focus == "Radeon RX 7900 XTX", said
    assert "can't weigh" not in said and "没法把" not in said and "沒法把" not in said, said


@pytest.mark.parametrize("text", ["is a GTX 1080 Ti still ok for deep learning in 2026?", "1080ti还能跑深度学习吗"])
def test_a_card_with_slow_fp16_is_not_told_to_use_mixed_precision(scorer_engine, catalog, text):
    assert catalog.get("GeForce GTX 1080 Ti").crippled_fp16  # the case this is about
    said = plain(Conversation(scorer_engine).turn(text))
    assert "mixed precision (FP16)" not in said and "混合精度（FP16）和" not in said, said
    assert "FP32" in said, said


@pytest.mark.parametrize("text", ["is 8gb vram dead for ai", "8G显存是不是已经淘汰了", "12gb obsolete for local llms?"])
def test_whether_a_memory_size_is_dead_is_whether_it_is_enough(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "memory" and reply.query["rule"] == "memory-enough", plain(reply)
