"""Retrieval quality on the labelled set (bench/retrieval-eval.yaml), with the real index and the real MiniLM model.

Targets: hybrid recall@3 >= 0.90 in each language, hybrid at least as good as dense-only and BM25-only and better on
recall@3 or MRR, off-topic questions refused (>= 0.9) at the configured threshold with few on-topic false refusals."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent


def _load_bench():
    spec = importlib.util.spec_from_file_location("eval_retrieval", ROOT / "bench" / "eval_retrieval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()


@pytest.fixture(scope="session")
def retrieval_index():
    """The real index in the configured directory (GPU_ADVISOR_INDEX_DIR or index/), rebuilt first if stale."""
    from bot import index
    from bot.catalog import load_catalog
    from bot.config import get_settings

    s = get_settings()
    return index.ensure(s.index_dir, s.knowledge_dir, load_catalog(s.knowledge_dir), s.model_path())


@pytest.fixture(scope="session")
def evaluation(retrieval_index):
    from bot.config import get_settings

    s = get_settings()
    return bench.evaluate(retrieval_index, s.knowledge_dir, s.min_relevance)


@pytest.fixture(scope="session")
def eval_set():
    return bench.load_set()


def test_set_is_large_balanced_and_has_a_heldout_split(eval_set):
    on = [it for it in eval_set if it["sections"] and not it.get("script")]  # Traditional versions: their own row
    off = [it for it in eval_set if not it["sections"]]
    assert len(on) >= 110 and len(off) >= 24
    for lang in bench.LANGS:
        assert sum(it["lang"] == lang for it in on) >= len(on) // 2 - 2
        assert sum(it["lang"] == lang for it in off) >= 12
    heldout = sum(it["split"] == "heldout" for it in eval_set) / len(eval_set)
    assert 0.25 <= heldout <= 0.35


def test_labels_name_real_sections(eval_set, knowledge_dir, catalog):
    from bot.knowledge import load_platform_rows

    known = {p.stem for p in (knowledge_dir / "guide").glob("*.md")}
    known |= {f"gpu:{g.name}" for g in catalog} | {f"platform:{r['name']}" for r in load_platform_rows(knowledge_dir)}
    unknown = sorted({s for it in eval_set for s in it["sections"]} - known)
    assert not unknown, f"labels point at sections that do not exist: {unknown}"


def test_every_guide_section_and_seed_fact_is_asked_in_both_languages(eval_set, knowledge_dir):
    cov = bench.coverage(eval_set, knowledge_dir)
    for lang in bench.LANGS:
        assert not cov[lang]["missing_sections"], f"{lang}: no question for {cov[lang]['missing_sections']}"
        assert not cov[lang]["missing_seed_facts"], f"{lang}: no question for {cov[lang]['missing_seed_facts']}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hybrid_recall_at_3(evaluation, lang):
    r3 = evaluation["methods"]["hybrid"]["all"][lang]["recall@3"]
    assert r3 >= 0.90, f"hybrid recall@3 ({lang}) = {r3:.3f}; misses: {evaluation['failures']}"


def test_traditional_questions_are_their_own_row_and_retrieve_as_well_as_simplified(eval_set, evaluation):
    hant = [it for it in eval_set if it.get("script") == "zh-Hant"]
    assert len(hant) >= 40 and any(it["split"] == "heldout" for it in hant)
    h = evaluation["methods"]["hybrid"]
    assert h["all"]["zh-Hant"]["n"] == len(hant)
    for split in ("heldout", "all"):
        hant_r3, simp_r3 = h[split]["zh-Hant"]["recall@3"], h[split]["zh"]["recall@3"]
        assert hant_r3 >= simp_r3 - 0.03, f"{split}: Traditional {hant_r3:.3f} vs Simplified {simp_r3:.3f}"


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("single", ["dense", "bm25"])
def test_hybrid_beats_each_single_method(evaluation, lang, single):
    h = evaluation["methods"]["hybrid"]["all"][lang]
    m = evaluation["methods"][single]["all"][lang]
    assert h["recall@3"] >= m["recall@3"], f"{lang}: hybrid {h} vs {single} {m}"
    assert h["recall@3"] > m["recall@3"] or h["mrr"] > m["mrr"], f"{lang}: hybrid {h} vs {single} {m}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_off_topic_refused_and_on_topic_answered(evaluation, lang):
    r = evaluation["refusal"]["all"][lang]
    assert r["refusal_accuracy"] >= 0.9, f"{lang}: off-topic answered: {evaluation['failures']}"
    assert r["false_refusal_rate"] <= 0.05, (
        f"{lang}: on-topic refused at threshold {evaluation['threshold']} "
        f"(is bot/config.py min_relevance calibrated? see bench/results/retrieval.md): {evaluation['failures']}")


def test_latency_is_interactive(evaluation):
    assert evaluation["latency_ms_p50"] < 1000
