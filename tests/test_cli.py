"""The CLI end to end, as scripts use it: real processes, real index and model, the JSON contract of
docs/architecture.md ("The JSON interface")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bot.reply import INTENTS
from tests.conftest import ROOT

REQUIRED = {"reply", "lang", "intent", "sources", "query", "recommendations"}
REC_FIELDS = {"gpu", "vendor", "price", "currency", "vram_gb", "count", "score", "reasons"}


def run_cli(*args: str, stdin: str | None = None, env: dict | None = None, timeout: int = 180):
    e = dict(os.environ, HF_HUB_OFFLINE="1")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "bot", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, env=e, timeout=timeout)


def check_contract(obj: dict) -> None:
    assert REQUIRED <= set(obj), set(obj)
    assert isinstance(obj["reply"], str) and obj["reply"].strip()
    assert obj["lang"] in ("zh", "en")
    assert obj["intent"] in INTENTS
    for s in obj["sources"]:
        assert set(s) == {"title", "url"}
    assert isinstance(obj["query"], dict)
    for r in obj["recommendations"]:
        assert REC_FIELDS <= set(r)


@pytest.fixture(scope="module")
def batch():
    """One process answers many fresh questions (`ask --json -`): the model loads once."""
    questions = [
        "预算5000元训练CNN买什么卡",
        "Which cloud GPU platform should I use in China?",
        "今天天气怎么样？",
        "$1500, LoRA on a 7B model",
        "4090 有多少显存？",
        "What's the capital of France?",
        "",
        "<b>hi</b> & <script>alert(1)</script>",
    ]
    p = run_cli("ask", "--json", "-", stdin="\n".join(questions) + "\n")
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    non_empty = [q for q in questions if q.strip()]
    assert len(lines) == len(non_empty)
    return dict(zip(non_empty, lines, strict=True))


def test_every_answer_keeps_the_json_contract(batch):
    for obj in batch.values():
        check_contract(obj)


def test_budget_question_recommends_within_budget(batch):
    obj = batch["预算5000元训练CNN买什么卡"]
    assert obj["intent"] == "recommend" and obj["lang"] == "zh"
    assert obj["query"]["budget"]["amount"] == 5000 and obj["query"]["budget"]["currency"] == "CNY"
    assert obj["query"]["workload"] == "cnn"
    assert obj["recommendations"]
    for r in obj["recommendations"]:
        assert r["currency"] == "CNY" and r["price"] <= 5000
        assert r["reasons"]


def test_china_platform_question_names_reachable_platforms_with_a_source(batch):
    obj = batch["Which cloud GPU platform should I use in China?"]
    assert obj["intent"] == "question" and obj["lang"] == "en"
    assert "AutoDL" in obj["reply"]
    assert obj["sources"] and all(s["url"].startswith("http") for s in obj["sources"])


def test_off_topic_questions_are_declined(batch):
    for q in ("今天天气怎么样？", "What's the capital of France?"):
        obj = batch[q]
        assert obj["intent"] == "out_of_scope"  # declined as off-topic, not an "I don't know"
        assert not obj["sources"]
    assert "显卡" in batch["今天天气怎么样？"]["reply"]


def test_llm_finetune_states_the_memory_assumption(batch):
    obj = batch["$1500, LoRA on a 7B model"]
    assert obj["intent"] == "recommend" and obj["query"]["workload"] == "llm_finetune"
    assert obj["query"]["model_size_b"] == 7 and obj["query"]["finetune_method"] == "lora"
    assert "LoRA" in obj["reply"] and "GB" in obj["reply"]
    for r in obj["recommendations"]:
        assert r["price"] <= 1500 and r["vram_gb"] >= 16


def test_gpu_question_answers_from_the_table(batch):
    obj = batch["4090 有多少显存？"]
    assert obj["intent"] == "gpu"
    assert "24 GB" in obj["reply"]
    assert obj["sources"]


def test_html_in_text_is_harmless(batch):
    obj = batch["<b>hi</b> & <script>alert(1)</script>"]
    check_contract(obj)


def test_chat_json_keeps_one_conversation():
    turns = ["预算8000训练CNN推荐什么卡", "便宜点的呢？", "如果做大模型微调呢？", "对比一下前两个"]
    p = run_cli("chat", "--json", stdin="\n".join(turns) + "\n")
    assert p.returncode == 0, p.stderr
    objs = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(objs) == 4
    for o in objs:
        check_contract(o)
    first, cheaper, llm, cmp = objs
    top = first["recommendations"][0]["price"]
    assert cheaper["recommendations"] and all(r["price"] < top for r in cheaper["recommendations"])
    assert llm["query"]["workload"] == "llm_finetune"
    assert llm["query"]["budget"]["amount"] == cheaper["query"]["budget"]["amount"]  # the budget is kept
    assert cmp["intent"] == "compare"


def test_ask_human_readable_and_as_of():
    p = run_cli("ask", "--as-of", "2019-04-03", "best GPU for training CNNs")
    assert p.returncode == 0, p.stderr
    assert "RTX 2070" in p.stdout and "RTX 2060" in p.stdout


def test_gpus_json_lists_relative_perf():
    p = run_cli("gpus", "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert len(data["gpus"]) >= 60
    ref = next(g for g in data["gpus"] if g["gpu"] == data["reference_gpu"])
    assert all(abs(v - 1.0) < 1e-6 for v in ref["relative_perf"].values())
    assert all("relative_perf" in g for g in data["gpus"])


def test_bad_user_catalog_is_named_without_traceback(tmp_path):
    bad = tmp_path / "shop.csv"
    bad.write_text("name,street_price_cny,street_price_date\nRTX 4090,abc,2026-11\n", encoding="utf-8")
    p = run_cli("ask", "预算5000元训练CNN", env={"GPU_ADVISOR_CATALOG": str(bad)})
    assert p.returncode == 2
    assert str(bad) in p.stderr and "line 2" in p.stderr and "street_price_cny" in p.stderr
    assert "Traceback" not in p.stderr


def test_scorer_question_does_not_import_torch():
    code = ("import sys; from bot.cli import main; main(['ask', '--json', '预算5000元训练CNN买什么卡']); "
            "bad = [m for m in ('torch', 'sentence_transformers', 'langchain_huggingface', 'faiss') "
            "if m in sys.modules]; print('HEAVY', bad, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "HEAVY []" in p.stderr


def test_a_piped_chat_loads_the_index_while_waiting_for_the_first_line(monkeypatch, capsys):
    """Lines piped in can come slowly, as typed ones do: the index loads in the background meanwhile."""
    import argparse
    import time

    from bot import cli
    from bot.dialogue import Engine

    engine = Engine.from_settings()
    monkeypatch.setattr(cli, "_engine", lambda: engine)

    class SlowStdin:
        def isatty(self):
            return False

        def __iter__(self):
            deadline = time.monotonic() + 120
            while not engine.index_loaded and time.monotonic() < deadline:
                time.sleep(0.05)
            assert engine.index_loaded, "nothing loaded the index before the first line arrived"
            yield "国内用哪个云平台？\n"

    monkeypatch.setattr(sys, "stdin", SlowStdin())
    assert cli.cmd_chat(argparse.Namespace(json=True, as_of=None)) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["intent"] in ("question", "rent")


def test_piped_chat_takes_lang_commands_as_typed_ones_do():
    turns = ["/lang zh-Hant", "预算8000训练CNN", "/lang en", "budget 8000 cny for CNN training"]
    p = run_cli("chat", "--json", stdin="\n".join(turns) + "\n")
    assert p.returncode == 0, p.stderr
    hant, reply, en, english = [json.loads(line) for line in p.stdout.splitlines()]
    assert hant["intent"] != "out_of_scope" and reply["script"] == "zh-tw" and "預算" in reply["reply"]
    assert "繁體" in hant["reply"] and "English" in en["reply"]  # the confirmation names the script, in that script
    assert en["lang"] == "en" and english["lang"] == "en"
