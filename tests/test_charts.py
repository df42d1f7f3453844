"""Speed-vs-price charts: from a real recommendation, in the chat's language and script with every glyph, the other cards
at similar prices, the prices' dates, and the `gpu-advisor chart` command."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_MAGIC)
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_chart_for_a_real_recommendation(scorer_engine, tmp_path):
    from bot.charts import chart_for_reply, chart_of
    from bot.dialogue import Conversation

    conv = Conversation(scorer_engine)
    reply = conv.turn("预算8000训练CNN推荐什么卡")
    assert reply.intent == "recommend" and reply.chart_gpus
    picks = [r.gpu for r in reply.recommendations]

    chart = chart_of(scorer_engine, conv.session, reply.chart_gpus, picks)
    assert chart.currency == "CNY" and chart.family == "cnn" and chart.lang == "zh"
    assert {p.name for p in chart.points if p.highlighted} == set(picks)
    by_name = {p.name: p for p in chart.points}
    for r in reply.recommendations:  # the chart shows the same numbers as the answer
        assert abs(by_name[r.gpu].price - r.price) < 0.01
        assert abs(by_name[r.gpu].perf - r.score) < 0.001

    path = chart_for_reply(scorer_engine, conv.session, reply, tmp_path / "sub" / "chart.png")
    assert path == tmp_path / "sub" / "chart.png"
    data = path.read_bytes()
    width, height = _png_size(data)
    assert width >= 600 and height >= 400 and len(data) > 10_000


def test_chart_of_a_comparison_and_nothing_to_chart(scorer_engine, tmp_path):
    from bot.charts import chart_for_reply, chart_of, draw
    from bot.dialogue import Conversation

    conv = Conversation(scorer_engine)
    reply = conv.turn("compare 4090 and 3090")
    assert reply.intent == "compare"
    assert chart_for_reply(scorer_engine, conv.session, reply, tmp_path / "c.png") is not None
    assert (tmp_path / "c.png").read_bytes().startswith(PNG_MAGIC)

    help_reply = conv.turn("help")
    assert not help_reply.chart_gpus
    assert chart_for_reply(scorer_engine, conv.session, help_reply, tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()

    # GPUs without a price still give a valid image (with a note), never an exception
    assert draw(chart_of(scorer_engine, conv.session, ["no such GPU"])).startswith(PNG_MAGIC)


def test_chart_command(tmp_path):
    out = tmp_path / "out.png"
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "bot", "chart", "预算8000训练CNN", "-o", str(out)], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(out)
    _png_size(out.read_bytes())

    p = subprocess.run([sys.executable, "-m", "bot", "chart", "help", "-o", str(tmp_path / "x.png")], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "no GPUs to chart" in p.stderr


# --- Chinese charts ----------------------------------------------------------------------------------------------

def _chart_of_turn(engine, question: str):
    from bot.charts import chart_of, highlight_of
    from bot.dialogue import Conversation

    conv = Conversation(engine)
    reply = conv.turn(question)
    assert reply.chart_gpus, reply.intent
    return reply, chart_of(engine, conv.session, reply.chart_gpus, highlight_of(reply))


def _words(fig) -> dict[str, str]:
    """The chart's words a reader sees: title, axis labels, legend, and every note and name on the plot."""
    ax = fig.axes[0]
    return {"title": ax.get_title(), "x": ax.get_xlabel(), "y": ax.get_ylabel(),
            "legend": " | ".join(t.get_text() for t in ax.get_legend().get_texts()),
            "notes": " | ".join(t.get_text() for t in ax.texts)}


def _drawn_without_missing_glyphs(chart):
    """Lay out and draw `chart`: any 'Glyph … missing from font(s)' warning (an empty box in the picture), whether
    while the names are placed or while the PNG is made, fails the test. The figure and the PNG."""
    import io
    import warnings

    from bot.charts import figure

    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = figure(chart)
        fig.savefig(buf, format="png")
    return fig, buf.getvalue()


@pytest.mark.parametrize("question, script, title, dated, budget", [
    ("预算8000训练CNN推荐什么卡", None, "速度与价格：CNN / 计算机视觉训练", "价格日期", "预算"),
    ("預算8000訓練CNN推薦什麼顯卡", "zh-tw", "速度與價格：CNN / 電腦視覺訓練", "價格日期", "預算"),  # Taiwan wording
    ("預算8000，訓練CNN買咩顯卡好？", "zh-hk", "速度與價格：CNN / 計算機視覺訓練", "價格日期", "預算"),  # Cantonese
])
def test_a_chinese_chart_is_in_the_chats_script_with_every_glyph(scorer_engine, question, script, title, dated,
                                                                  budget):
    from bot.charts import cjk_font
    from bot.slots.text import CJK, to_script

    _, chart = _chart_of_turn(scorer_engine, question)
    assert chart.lang == "zh" and chart.script == script
    fig, png = _drawn_without_missing_glyphs(chart)
    assert png.startswith(PNG_MAGIC)
    words = _words(fig)
    for where in ("title", "x", "y", "legend"):
        assert CJK.search(words[where]), (where, words[where])
        assert to_script(words[where], script or "zh-cn") == words[where], f"{where} not in {script}: {words[where]}"
    assert words["title"] == title and dated in words["x"] and budget in words["notes"]
    assert "Price" not in words["x"] and "budget" not in words["notes"]
    assert fig.axes[0].title.get_fontfamily()[0] == cjk_font() == "WenQuanYi Micro Hei"


def test_the_font_has_every_chart_word_in_both_scripts():
    """Every word a chart can say, in Simplified, Taiwan and Hong Kong Traditional, and the words of the brief
    ('顯卡 記憶體 預算'), has a glyph in the packaged font: no empty boxes whichever card or workload is charted."""
    from importlib.resources import files

    from matplotlib.ft2font import FT2Font

    from bot.charts import FONT_FILE, FONT_PACKAGE
    from bot.i18n import CHART
    from bot.scorer import load_workloads
    from bot.slots.text import to_script
    from tests.conftest import KNOWLEDGE

    have = set(FT2Font(str(files(FONT_PACKAGE) / FONT_FILE)).get_charmap())
    labels = [w["label"]["zh"] for w in load_workloads(KNOWLEDGE).values() if isinstance(w, dict) and "label" in w]
    assert labels, "no workload labels read"
    simplified = "".join(t.zh for t in CHART.values()) + "".join(labels)
    text = simplified + to_script(simplified, "zh-tw") + to_script(simplified, "zh-hk") + "顯卡記憶體預算¥$×–"
    missing = sorted({ch for ch in text if ord(ch) not in have and not ch.isspace()})
    assert not missing, missing


def test_the_missing_glyph_check_catches_empty_boxes(monkeypatch):
    """The check the Chinese chart tests rely on does fail: Chinese set in a Latin-only font is an error."""

    import bot.charts as charts
    from bot.i18n import Text

    chart = charts.Chart((), "CNY", "cnn", Text("CNN", "CNN"), "ref", None, "zh")
    monkeypatch.setattr(charts, "cjk_font", lambda: "DejaVu Sans")  # a font without Chinese
    with pytest.raises(UserWarning, match="missing from font"):
        _drawn_without_missing_glyphs(chart)


def test_without_the_font_a_chinese_chart_is_drawn_in_english(scorer_engine, monkeypatch):
    import bot.charts as charts

    _, chart = _chart_of_turn(scorer_engine, "预算8000训练CNN推荐什么卡")
    monkeypatch.setattr(charts, "cjk_font", lambda: None)
    words = _words(charts.figure(chart))
    assert words["title"].startswith("Speed vs price") and "prices dated" in words["x"]


def test_an_english_chart_stays_in_english(scorer_engine):
    from bot.slots.text import CJK

    _, chart = _chart_of_turn(scorer_engine, "$1500, training CNNs")
    assert chart.lang == "en"
    fig, png = _drawn_without_missing_glyphs(chart)
    words = _words(fig)
    assert not any(CJK.search(w) for w in words.values()), words
    assert words["title"] == "Speed vs price: CNN / computer vision training" and png.startswith(PNG_MAGIC)


# --- what the chart shows ----------------------------------------------------------------------------------------

def test_the_picks_stand_among_the_other_cards_at_similar_prices(scorer_engine):
    from dataclasses import replace

    from bot.charts import MAX_OTHERS, PRICE_MARGIN
    from bot.dialogue import Conversation
    from bot.need import Budget
    from bot.scorer import rank

    for question in ("预算8000训练CNN推荐什么卡", "$1500, training CNNs", "预算2万跑70B模型推理"):
        reply, chart = _chart_of_turn(scorer_engine, question)
        picks = {r.gpu: r for r in reply.recommendations}
        shown = [p for p in chart.points if p.highlighted]
        others = [p for p in chart.points if not p.highlighted]
        assert {p.name for p in shown} == set(picks), question
        for p in shown:  # each pick as the answer gives it: the whole setup's price and speed
            assert p.count == picks[p.name].count and abs(p.price - picks[p.name].price) < 0.01, (question, p)
            assert abs(p.perf - picks[p.name].score) < 0.001, (question, p)
        assert 0 < len(others) <= MAX_OTHERS, (question, others)
        prices = [p.price for p in shown] + [chart.budget]
        lo, hi = min(prices) / (1 + PRICE_MARGIN), max(prices) * (1 + PRICE_MARGIN)
        assert all(lo <= p.price <= hi for p in others), question
        # every other card is one the scorer finds for the same need (memory, market, date), as the same setup
        conv = Conversation(scorer_engine)
        conv.turn(question)
        need = replace(conv.session.need, budget=Budget(hi, chart.currency))
        setups = {(c.gpu.name, c.count) for c in rank(scorer_engine.catalog, need, scorer_engine.knowledge_dir,
                                                       scorer_engine.today, lang=chart.lang).candidates}
        assert {(p.name, p.count) for p in others} <= setups, question


def test_the_picks_are_named_and_only_a_few_other_cards(scorer_engine):
    from bot.charts import MAX_LABELLED_OTHERS, figure, frontier

    for question in ("预算8000训练CNN推荐什么卡", "$40000 for training LLMs, server"):
        reply, chart = _chart_of_turn(scorer_engine, question)
        ax = figure(chart).axes[0]
        named = [t.get_text() for t in ax.texts]
        for r in reply.recommendations:
            assert any(r.gpu.replace("GeForce ", "") in n for n in named), (r.gpu, named)
        others = [p for p in chart.points if not p.highlighted]
        named_others = [p for p in others if any(n.endswith(p.name.replace("GeForce ", "")) for n in named)]
        assert len(named_others) <= MAX_LABELLED_OTHERS, named_others
        assert {p.name for p in named_others} <= {p.name for p in frontier(chart.points)}


def test_the_frontier_is_what_nothing_cheaper_beats():
    from datetime import date

    from bot.charts import Point, frontier

    def pt(name, price, perf):
        return Point(name, price, perf, False, False, date(2026, 1, 1))

    points = [pt("a", 100, 0.5), pt("b", 150, 0.4), pt("c", 200, 0.9), pt("d", 200, 0.8), pt("e", 300, 0.9),
              pt("f", 400, 1.5)]
    assert [p.name for p in frontier(points)] == ["a", "c", "f"]
    assert frontier([]) == []


def test_the_price_axis_gives_the_months_the_prices_were_seen(scorer_engine):
    from datetime import date

    from bot.charts import Chart, Point, figure
    from bot.i18n import Text

    reply, chart = _chart_of_turn(scorer_engine, "预算8000训练CNN推荐什么卡")
    first, last = min(p.priced_on for p in chart.points), max(p.priced_on for p in chart.points)
    assert first < last
    assert {r.price_date[:7] for r in reply.recommendations} <= {f"{p.priced_on:%Y-%m}" for p in chart.points}
    x = figure(chart).axes[0].get_xlabel()
    assert f"价格日期 {first:%Y-%m} 至 {last:%Y-%m}" in x, x
    assert f"{scorer_engine.today:%Y-%m}" not in x or f"{last:%Y-%m}" == f"{scorer_engine.today:%Y-%m}"

    def one(on):
        return Point("card", 100.0, 1.0, False, True, on)

    en = Chart((one(date(2024, 9, 3)), one(date(2026, 10, 1))), "USD", "cnn", Text("CNN", "CNN"), "ref", None, "en")
    assert en.dates() == "2024-09 – 2026-10"
    assert "prices dated 2024-09 – 2026-10" in figure(en).axes[0].get_xlabel()
    same = Chart((one(date(2026, 10, 1)), one(date(2026, 10, 20))), "USD", "cnn", Text("CNN", "CNN"), "ref", None,
                 "zh", "zh-tw")
    assert same.dates() == "2026-10" and same.say("price", currency="USD", dates="2026-10") == \
        "價格（USD；價格日期 2026-10）"


def test_matplotlib_and_the_font_load_only_when_a_chart_is_drawn():
    code = ("import sys, bot.charts, bot.dialogue, bot.answers, bot.cli, bot.render\n"
            "print(sorted(m for m in ('matplotlib', 'paperang_p2_fonts_cjk') if m in sys.modules))\n"
            "from bot.charts import cjk_font\n"
            "cjk_font()\n"
            "print(sorted(m for m in ('matplotlib', 'paperang_p2_fonts_cjk') if m in sys.modules))\n")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["[]", "['matplotlib', 'paperang_p2_fonts_cjk']"], p.stdout
