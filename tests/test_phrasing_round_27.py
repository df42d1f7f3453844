"""Phrasings found in stranger round 27: Taiwan's words typed in Simplified characters, a gaming card weighed against a
named card."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain
from bot.slots.text import normalise


@pytest.mark.parametrize("text, read", [
    ("显卡记忆体频宽是什么", "显存带宽是什么"),
    ("顯示卡記憶體頻寬是什麼", "显存带宽是什么"),
    ("这台伺服器的绘图卡", "这台服务器的显卡"),
    ("伺服器显示卡推荐", "服务器显卡推荐"),
    ("这张卡效能如何", "这张卡性能如何"),
])
def test_taiwan_words_in_either_script_read_as_the_mainland_words(text, read):
    assert normalise(text) == read


@pytest.mark.parametrize("text, said", [("显卡记忆体频宽是什么", "带宽"), ("顯示卡記憶體頻寬有什麼用", "頻寬")])
def test_a_concept_in_taiwan_words_finds_the_guide_on_it(engine, text, said):
    reply = Conversation(engine).turn(text)
    assert reply.intent == "question" and said in plain(reply), plain(reply)[:400]


@pytest.mark.parametrize("text", ["游戏卡和A100有啥区别", "gaming cards vs the H100, what's the difference?",
                                  "遊戲卡同A100有咩分別"])
def test_a_gaming_card_weighed_against_a_named_card_is_ours(engine, text):
    reply = Conversation(engine).turn(text)
    assert reply.intent != "out_of_scope", plain(reply)[:300]
