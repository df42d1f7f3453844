"""Speed-vs-price charts: from a real recommendation, and from the `gpu-advisor chart` command."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_MAGIC)
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_chart_for_a_real_recommendation(scorer_engine, tmp_path):
    from bot.charts import chart_for_reply, chart_points
    from bot.dialogue import Conversation

    conv = Conversation(scorer_engine)
    reply = conv.turn("预算8000训练CNN推荐什么卡")
    assert reply.intent == "recommend" and reply.chart_gpus
    picks = [r.gpu for r in reply.recommendations]

    points, currency, family = chart_points(scorer_engine, conv.session, reply.chart_gpus, picks)
    assert currency == "CNY" and family == "cnn"
    assert {p.name for p in points if p.highlighted} == set(picks)
    by_name = {p.name: p for p in points}
    for r in reply.recommendations:  # the chart shows the same numbers as the answer
        assert abs(by_name[r.gpu].price - r.price) < 0.01
        assert abs(by_name[r.gpu].perf - r.score) < 0.001

    path = chart_for_reply(scorer_engine, conv.session, reply, tmp_path / "sub" / "chart.png")
    assert path == tmp_path / "sub" / "chart.png"
    data = path.read_bytes()
    width, height = _png_size(data)
    assert width >= 600 and height >= 400 and len(data) > 10_000


def test_chart_of_a_comparison_and_nothing_to_chart(scorer_engine, tmp_path):
    from bot.charts import chart_for_reply, render_chart
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
    assert render_chart(scorer_engine, conv.session, ["no such GPU"]).startswith(PNG_MAGIC)


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
