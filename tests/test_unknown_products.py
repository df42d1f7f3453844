"""Hardware named by its line that I have no data on ("RTX 9990", "a 5090 Super", "Jetson Zeta") is said to be unknown,
never answered with another card's figures (the card in focus, the nearest number); a family name ("Jetson Orin") is
asked about; a reference card's full name without a number ("Jetson Nano") is found."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


@pytest.mark.parametrize("text, unknown", [
    ("what about the RTX 9990?", "RTX 9990"),
    ("rtx9990 值得等吗", "RTX9990"),
    ("is the RTX 5090 Super worth waiting for", "RTX 5090 Super"),
    ("5090 super 同 5090 差幾多", None),  # no line word: a bare number with a variant is not claimed
    ("MI990 for training?", "MI990"),
    ("jetson zeta 跑得动yolo吗", "Jetson Zeta"),
    ("Jetson Zeta可唔可以跑LLM", "Jetson Zeta"),
])
def test_the_names_read_as_unknown_products(catalog, text, unknown):
    q = parse(text, catalog)
    assert q.unknown_products == ((unknown,) if unknown else ()), q


@pytest.mark.parametrize("text", ["rtx 3090 vs 4090", "gtx 1660 super enough?", "rx 7900 xtx rocm", "Arc B580 ok?",
                                  "rtx 4080 super 还是 5080", "tesla p40 两张", "mi300x price", "rtx pro 6000"])
def test_known_cards_and_their_variants_are_not_unknown(catalog, text):
    q = parse(text, catalog)
    assert q.gpus and not q.unknown_products, q


@pytest.mark.parametrize("text, name", [("jetson nano for yolo", "Jetson Nano"),
                                        ("jetson orin nano super 跑 yolo 够吗", "Jetson Orin Nano Super")])
def test_a_reference_cards_full_name_without_a_number_is_found(catalog, text, name):
    q = parse(text, catalog)
    assert q.gpus == (name,) and not q.unknown_products, q


@pytest.mark.parametrize("turns, lang", [
    (("$1500 for training CNNs", "what about the RTX 9990?"), "en"),
    (("预算一万训练CNN", "RTX 9990 值得买吗"), "zh"),
    (("預算一萬訓練CNN", "RTX 9990 值唔值得買"), "zh"),
])
def test_an_unknown_card_is_said_so_not_answered_with_the_card_in_focus(scorer_engine, turns, lang):
    conv = Conversation(scorer_engine)
    first = conv.turn(turns[0])
    focus = first.recommendations[0].gpu
    reply = conv.turn(turns[1])
    text = plain(reply)
    assert reply.lang == lang and reply.intent == "unknown", text
    assert "9990" in text and focus not in text, text
    assert not reply.recommendations and conv.session.focus == focus  # the picks stay the conversation's


def test_a_family_name_is_asked_about_with_its_models(scorer_engine):
    reply = Conversation(scorer_engine).turn("is a jetson orin enough for yolo?")
    text = plain(reply)
    assert reply.intent == "unknown" and "which one" in text.lower(), text
    assert text.count("Jetson") >= 3 and "Orin" in text


def test_an_unknown_card_beside_a_known_one_is_named_above_the_answer(scorer_engine):
    reply = Conversation(scorer_engine).turn("RTX 5090 Super or the RTX 4090 for stable diffusion?")
    text = plain(reply)
    assert "no data on the RTX 5090 Super" in text, text
    assert "4090" in text.split("no data on")[1], text


def test_computers_with_unified_memory_are_known_by_their_names_and_hold_what_their_gpu_may_use(catalog, knowledge_dir):
    """systems.csv (a DGX Spark, a Ryzen AI Max mini PC): found by name and aliases like a card, never ranked with the
    cards, and a fit counts what the maker lets the GPU have of the shared memory (all of it when no figure is given)."""
    import csv

    from bot.fit import usable_memory_gb

    with open(knowledge_dir / "systems.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows
    for row in rows:
        g = catalog.get(row["name"])
        assert g is not None and g.unified_memory and g not in list(catalog), row["name"]
        for alias in row["aliases"].split("|")[:3]:
            assert parse(f"is the {alias} good for llms", catalog).gpus == (g.name,), alias
        assert usable_memory_gb(g, knowledge_dir) == float(row["gpu_memory_gb"] or row["vram_gb"])


@pytest.mark.parametrize("text", ["DGX Spark 能跑 70B 吗，多快", "can a ryzen ai max+ 395 run a 70B model?"])
def test_a_computer_with_unified_memory_answers_a_fit_on_its_own(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "fit" and reply.fit and reply.fit["count"] == 1, plain(reply)
    assert "tokens/s" in plain(reply)
