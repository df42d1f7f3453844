"""Conversations about the card the user has, and "cheaper?" at the floor: a job asked after "is my card enough?" is
that card for the job; "how much faster than my card?" weighs the card meant against the user's; "cheaper?" when the
top pick is already the cheapest with the memory asked for says so and shows what less memory buys; a budget that
alone rules everything out names the cheapest setup that does the job."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain


def talk(engine, *turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("turns", [
    ("我的筆電是4060 laptop，想學深度學習夠用嗎", "那跑SD呢", "那拿來訓練CNN呢"),
    ("公司有部舊workstation，入面係Quadro P4000，可唔可以拎嚟train啲細CNN", "行唔行到SD"),
    ("my old 1080 ti, is it enough for learning deep learning?", "and for stable diffusion?"),
])
def test_a_job_asked_after_a_question_about_my_card_is_that_card_for_the_job(scorer_engine, turns):
    _, replies = talk(scorer_engine, *turns)
    assert all(r.intent == "fit" for r in replies), [(r.intent, plain(r)[:80]) for r in replies]
    assert len({r.focus for r in replies}) == 1


def test_a_job_after_a_card_sheet_with_picks_on_screen_refines_the_picks(scorer_engine):
    _, (_, _, reply) = talk(scorer_engine, "$1500 for training CNNs", "tell me about the 4090", "and for stable diffusion?")
    assert reply.intent == "recommend" and reply.recommendations, plain(reply)


@pytest.mark.parametrize("turns,mine", [
    (("I've still got my old 1080 ti, can it do stable diffusion?", "ok what should I upgrade to, around $600",
      "the second one, how much faster is it than my card?"), "GeForce GTX 1080 Ti"),
    (("手里有张6700xt 12G，能不能跑SD", "那换张N卡吧，预算三千五", "比我现在这张快多少"), "Radeon RX 6700 XT"),
])
def test_how_much_faster_than_my_card_weighs_the_card_meant_against_the_users(scorer_engine, turns, mine):
    conv, replies = talk(scorer_engine, *turns)
    picks = [r.gpu for r in replies[1].recommendations]
    reply = replies[-1]
    assert reply.intent == "compare", plain(reply)
    assert mine in plain(reply) and any(p in reply.title for p in picks), plain(reply)


@pytest.mark.parametrize("turns", [("碩一，指導教授給台幣6萬，要訓練語音模型，VRAM至少24G，二手可以", "那便宜一點的呢"),
                                   ("$1800 for speech models, at least 24GB, used is fine", "cheaper?")])
def test_cheaper_at_the_memory_floor_says_it_is_already_the_cheapest_and_shows_less_memory(scorer_engine, turns):
    _, (first, cheaper) = talk(scorer_engine, *turns)
    top = first.recommendations[0]
    assert cheaper.recommendations, plain(cheaper)
    assert all(r.vram_gb < 24 for r in cheaper.recommendations)
    said = "".join(cheaper.paragraphs)
    assert f"{top.gpu} (" in said and "already the cheapest" in said or f"{top.gpu}（" in said and "已經是最便宜" in said, said


@pytest.mark.parametrize("turns", [("跑Qwen2.5 32B 4bit要多少显存", "那推荐张能跑的卡，预算八千", "不量化呢"),
                                   ("$900 to run a 70B model at 16-bit",)])
def test_a_budget_that_rules_everything_out_names_the_cheapest_setup_that_does_it(scorer_engine, turns):
    _, replies = talk(scorer_engine, *turns)
    text = plain(replies[-1])
    assert "卡住的是预算" in text or "What rules everything out is the budget" in text, text


@pytest.mark.parametrize("turns", [("台北，預算三萬台幣，做SD出圖", "4070 Ti Super 點睇？", "兩張會唔會好啲"),
                                   ("$1500 for stable diffusion", "tell me about the 4070 ti super",
                                    "would two of them be better?")])
def test_two_of_the_card_for_an_image_job_says_memory_does_not_pool(scorer_engine, turns):
    _, replies = talk(scorer_engine, *turns)
    reply = replies[-1]
    assert reply.intent == "fit" and reply.recommendations == (), plain(reply)
    assert "does not pool memory" in reply.paragraphs[0] or "不會把顯存加在一起" in reply.paragraphs[0], plain(reply)
    assert "16 GB" in reply.paragraphs[0] and "32 GB" not in reply.paragraphs[0]


def test_two_of_the_card_for_an_llm_still_adds_memory_up(scorer_engine):
    _, (_, reply) = talk(scorer_engine, "can a 3090 run a 70B model?", "what about two of them?")
    assert reply.intent == "fit" and "48 GB" in reply.paragraphs[0], plain(reply)


@pytest.mark.parametrize("text,limit", [("what PSU for 4x 4090?", "nvidia-smi -pl 270"), ("4张3090要多大电源", "nvidia-smi -pl 270")])
def test_a_psu_beyond_any_single_unit_says_two_psus_or_a_power_limit(scorer_engine, text, limit):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "power" and limit in plain(reply), plain(reply)
    assert "two PSUs" in plain(reply) or "两个电源" in plain(reply)


def test_two_cards_within_one_psu_get_no_such_advice(scorer_engine):
    _, (reply,) = talk(scorer_engine, "two 3090s, what psu?")
    assert "nvidia-smi" not in plain(reply), plain(reply)


@pytest.mark.parametrize("turns", [("Can my RTX 2060 6GB run Mistral 7B?", "what if I upgrade to a 3060 12GB?"),
                                   ("我的2060 6G能跑mistral 7b吗", "升级到3060 12G呢")])
def test_an_upgrade_to_a_named_card_weighs_both_cards_on_the_model_in_context(scorer_engine, turns):
    """Not a list of upgrades: the user's card and the one named, on the model just asked about; about the same
    speed, so the verdict says the gain is memory."""
    _, (_, up) = talk(scorer_engine, *turns)
    assert up.intent == "compare" and up.query["rule"] == "upgrade-to-a-card", plain(up)
    assert {row[0] for row in up.table.rows} == {"GeForce RTX 2060", "GeForce RTX 3060 12GB"}
    assert "12 GB" in up.paragraphs[0] and ("memory" in up.paragraphs[0] or "显存" in up.paragraphs[0]), up.paragraphs[0]
