"""Needs a stranger stated that the ranking did not meet (stranger round 23): a lab's shared machine bought from a
budget below the whole-machine threshold, and more memory than any card in budget for a job that can shard."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


def _chat(engine, turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("text", ["实验室预算20万，训练CNN", "我们课题组预算5万，主要训练transformer，买什么卡",
                                  "our lab has $8k for a training box, mostly vision models"])
def test_a_labs_budget_buys_a_shared_machine_of_several_cards(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.recommendations and all(r.count >= 4 for r in reply.recommendations), plain(reply)[:600]


@pytest.mark.parametrize("text", ["实验室预算1万，跑CNN", "budget $8k for training vision models"])
def test_a_small_lab_budget_or_one_persons_budget_stays_one_card(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.recommendations and reply.recommendations[0].count == 1, plain(reply)[:600]


def test_a_class_lab_is_not_a_shared_machine(catalog):
    assert not parse("want cards for the school lab PCs, $600 each", catalog).need.shared


@pytest.mark.parametrize("text, gb", [("need 32gb vram under $1500 for llm finetuning", 32),
                                      ("预算一万，要32G显存，做transformer训练", 32),
                                      ("need 48gb for training, budget $2000", 48)])
def test_more_memory_than_any_card_in_budget_is_met_by_cards_that_add_up(engine, text, gb):
    _, (reply,) = _chat(engine, [text])
    said = plain(reply)
    assert reply.recommendations, said[:600]
    top = reply.recommendations[0]
    assert top.count >= 2 and top.vram_gb * top.count >= gb, said[:600]
    assert ("ZeRO/FSDP" in said) and (f"{gb:g} GB in all" in said or f"合计 {gb:g} GB" in said or "48 GB" in said)


def test_memory_beyond_the_common_cards_is_not_split_for_an_image_job(engine):
    _, (reply,) = _chat(engine, ["need 32gb vram for stable diffusion training, budget $1500"])
    assert all(r.count == 1 for r in reply.recommendations), plain(reply)[:600]
