"""Fuzzing: arbitrary text through the parser, the whole conversation and the renderers never fails a person."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import nlu
from bot.dialogue import Conversation
from bot.need import CURRENCIES
from bot.render import TELEGRAM_LIMIT, as_json, plain, split_lines, telegram_html
from bot.reply import INTENTS

from .conftest import TODAY

WORDS = st.sampled_from(["预算", "5000元", "$800", "一万五", "训练CNN", "LoRA", "7B", "4090", "3060 12G", "二手", "便宜点的呢",
                         "compare", "why not", "the first two", "<b>", "&amp;", "🙂", "\u202e", "\x00", "9" * 40,
                         "-1e309", "1e309", "NaN", "重新开始", "in English", "2019年", "两张卡", "for transformers"])
MIXED = st.lists(st.one_of(WORDS, st.text(max_size=20)), max_size=12).map(" ".join)
ANY_TEXT = st.one_of(st.text(max_size=300), MIXED)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(text=ANY_TEXT)
def test_parser_never_raises(text, catalog):
    # the inner parser: parse() would hide a bug behind its own safety net
    q = nlu._parse(text, nlu.detect_language(text), catalog, TODAY)
    assert q.lang in ("zh", "en")
    if q.need.budget:
        assert q.need.budget.amount > 0 and q.need.budget.currency in CURRENCIES


@FUZZ
@given(texts=st.lists(ANY_TEXT, min_size=1, max_size=4))
def test_conversation_always_answers(texts, scorer_engine, monkeypatch, caplog):
    # questions that fall through to retrieval are answered as "unknown" here: this test is about the engine's
    # robustness, and the retrieval path has its own tests with the real index
    import bot.answers

    monkeypatch.setattr(bot.answers, "question", lambda engine, text, lang, kinds=None: bot.answers.unknown(lang))
    caplog.clear()
    conv = Conversation(scorer_engine)
    for text in texts:
        reply = conv.turn(text)
        # turn() never raises, so a bug would hide behind its polite catch-all: fail on it here
        assert not [r for r in caplog.records if r.getMessage() in ("turn failed",) or "parse failed" in r.getMessage()]
        obj = as_json(reply)
        assert obj["reply"].strip()
        assert obj["intent"] in INTENTS
        for message in telegram_html(reply):
            assert 0 < len(message) <= TELEGRAM_LIMIT
        for r in reply.recommendations:
            if conv.session.need.budget and conv.session.need.budget.currency in ('CNY', 'USD'):
                assert r.price <= conv.session.need.budget.amount + 1e-6


@FUZZ
@given(lines=st.lists(st.text(max_size=6000), max_size=6))
def test_split_lines_respects_the_limit(lines):
    for m in split_lines(lines):
        assert 0 < len(m) <= TELEGRAM_LIMIT


def test_long_answer_is_split_between_lines():
    lines = [f"<b>line {i}</b> " + "x" * 90 for i in range(200)]
    messages = split_lines(lines)
    assert len(messages) > 1
    for m in messages:
        assert len(m) <= TELEGRAM_LIMIT
        assert m.count("<b>") == m.count("</b>")


def test_plain_never_empty_for_empty_reply():
    from bot.reply import Reply

    assert plain(Reply("unknown", "en")).strip()
