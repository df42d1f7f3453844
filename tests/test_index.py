"""Index build, load, staleness and recovery, on a small copy of knowledge/ (real model, real FAISS and BM25)."""

from __future__ import annotations

import json
import shutil

import pytest

from bot import index
from bot.catalog import load_catalog
from tests.conftest import KNOWLEDGE

KEEP_SECTIONS = ("colab", "multi-gpu", "baidu-ai-studio")


@pytest.fixture(scope="module")
def small(tmp_path_factory, engine):
    kb = tmp_path_factory.mktemp("kb")
    shutil.copytree(KNOWLEDGE, kb, dirs_exist_ok=True)
    for p in (kb / "guide").glob("*.md"):
        if p.stem not in KEEP_SECTIONS:
            p.unlink()
    lines = (kb / "gpus.csv").read_text(encoding="utf-8").splitlines()
    (kb / "gpus.csv").write_text("\n".join(lines[:13]) + "\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("index")
    embedder = engine.index.embedder  # the session's loaded model, shared by every build here
    catalog = load_catalog(kb)
    index.build(out, kb, catalog, engine.model_path_fn(), embedder=embedder)
    return kb, out, catalog, engine.model_path_fn(), embedder


def test_built_index_is_fresh_and_loads(small):
    kb, out, catalog, model, emb = small
    assert index.is_fresh(out, kb, model)
    idx = index.load(out, kb, model)
    assert len(idx.passages) == idx.manifest.passages == idx.faiss.index.ntotal
    sections = {p.section for p in idx.passages if p.kind == "guide"}
    assert sections == set(KEEP_SECTIONS)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"] == index.model_id(model)


def test_a_changed_section_makes_it_stale_and_ensure_rebuilds(small):
    kb, out, catalog, model, emb = small
    p = kb / "guide" / "colab.md"
    original = p.read_text(encoding="utf-8")
    try:
        p.write_text(original.replace("## en\n", "## en\nA new English paragraph about Colab quotas.\n\n", 1),
                     encoding="utf-8")
        assert not index.is_fresh(out, kb, model)
        idx = index.ensure(out, kb, catalog, model, embedder=emb)
        assert index.is_fresh(out, kb, model)
        assert any("Colab quotas" in x.text for x in idx.passages)
    finally:
        p.write_text(original, encoding="utf-8")


def test_a_different_model_id_makes_it_stale(small, monkeypatch):
    kb, out, catalog, model, emb = small
    monkeypatch.setattr(index, "model_id", lambda _p: "another-model")
    assert not index.is_fresh(out, kb, model)


def test_corrupt_or_half_written_index_is_rebuilt(small, caplog):
    kb, out, catalog, model, emb = small
    index.ensure(out, kb, catalog, model, embedder=emb)
    (out / "faiss" / "index.faiss").write_bytes(b"not a faiss file")
    idx = index.ensure(out, kb, catalog, model, embedder=emb)  # fresh by manifest, unreadable on load: rebuilt
    assert idx.faiss.index.ntotal == len(idx.passages)
    assert any("unreadable" in r.message for r in caplog.records)
    (out / "manifest.json").unlink()  # a build that died before its last step
    assert not index.is_fresh(out, kb, model)
    index.ensure(out, kb, catalog, model, embedder=emb)
    assert index.is_fresh(out, kb, model)


def test_every_guide_section_has_both_languages_and_a_source():
    from bot.knowledge import load_sections

    sections = load_sections(KNOWLEDGE)
    assert len(sections) >= 25
    for s in sections:
        assert s.paragraphs["zh"] and s.paragraphs["en"]
        assert s.sources and all(x.url.startswith("http") for x in s.sources)


def test_tokenizer_keeps_domain_words():
    tok = index.tokenizer(KNOWLEDGE)
    tokens = tok("显存带宽和张量核心，RTX 4090 的 fp16")
    assert "显存" in tokens and "张量核心" in tokens and "4090" in tokens and "fp16" in tokens


def test_nothing_is_unpickled_and_tampered_metadata_is_refused(small, caplog):
    kb, out, catalog, model, emb = small
    index.ensure(out, kb, catalog, model, embedder=emb)
    assert not list(out.rglob("*.pkl")) and not list(out.rglob("*.pickle"))
    docs = out / "faiss" / "docs.json"
    docs.write_text('[{"id": "only-one"}]', encoding="utf-8")  # tampered: disagrees with the vectors
    idx = index.ensure(out, kb, catalog, model, embedder=emb)
    assert idx.faiss.index.ntotal == len(idx.passages) == len(idx.faiss.docs)
    assert any("unreadable" in r.message for r in caplog.records)


def test_the_vector_store_searches_like_a_langchain_store(small):
    kb, out, catalog, model, emb = small
    idx = index.ensure(out, kb, catalog, model, embedder=emb)
    store = idx.vectorstore()
    hits = store.similarity_search_with_score(idx.passages[0].search_text, k=3)
    assert hits and hits[0][0].id == idx.passages[0].id and hits[0][1] > 0.99
    from langchain_core.vectorstores import VectorStore

    assert isinstance(store, VectorStore)
    docs = store.as_retriever(search_kwargs={"k": 2}).invoke(idx.passages[0].search_text)
    assert [d.id for d in docs][:1] == [idx.passages[0].id] and len(docs) == 2


def test_bm25_scores_are_bm25s_own_on_every_labelled_question(engine, settings):
    """Answers read bm25s's saved arrays without importing bm25s: the scores must be the ones bm25s computes."""
    import bm25s
    import numpy as np
    import yaml

    from bot.retrieval import expand_terms
    from tests.conftest import ROOT

    reference = bm25s.BM25.load(str(settings.index_dir / "bm25"))
    idx = engine.index
    questions = yaml.safe_load((ROOT / "bench" / "retrieval-eval.yaml").read_text(encoding="utf-8"))
    compared = 0
    for q in questions:
        en, zh = expand_terms(q["q"], KNOWLEDGE)
        tokens = idx.tokenize(f"{q['q']} {' '.join(en)}") + idx.tokenize_terms(zh) + ["a-token-no-passage-has"]
        known = [t for t in tokens if t in reference.vocab_dict]
        ours = idx.bm25.get_scores(tokens)
        if known:
            np.testing.assert_allclose(ours, reference.get_scores(known), rtol=1e-5, atol=1e-6, err_msg=q["q"])
            compared += 1
        else:
            assert not ours.any()
    assert compared >= 0.9 * len(questions)


def test_damaged_bm25_arrays_are_refused(tmp_path, settings):
    shutil.copytree(settings.index_dir / "bm25", tmp_path / "bm25")
    index.Bm25Scores(tmp_path / "bm25")  # intact: loads
    (tmp_path / "bm25" / "indptr.csc.index.npy").write_bytes(b"garbage")
    with pytest.raises(index.IndexError_):
        index.Bm25Scores(tmp_path / "bm25")


def test_a_question_is_cut_as_jieba_cuts_it_without_loading_the_whole_dictionary(engine, settings):
    """The saved dictionary gives jieba only the entries a text can consult: the tokens must be jieba's own, on
    every Chinese text we have (questions, the labelled utterances, the guide's passages)."""
    import re as _re

    import yaml

    from tests.conftest import ROOT

    full = index.tokenizer(KNOWLEDGE)
    saved = index.tokenizer(KNOWLEDGE, saved=settings.index_dir / "jieba.sqlite3")
    texts = [q["q"] for q in yaml.safe_load((ROOT / "bench" / "retrieval-eval.yaml").read_text(encoding="utf-8"))]
    for path in sorted((KNOWLEDGE / "intents").glob("*.yaml")):
        texts += [item["text"] for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []
                  if isinstance(item, dict) and item.get("text")]
    texts += [p.search_text for p in engine.index.passages if p.lang == "zh"]
    texts = [t for t in texts if _re.search(r"[\u4e00-\u9fff]", t)]
    assert len(texts) > 2000
    for t in texts:
        assert saved(t) == full(t), t


def test_a_damaged_saved_dictionary_makes_the_index_stale_or_refused(tmp_path, settings):
    from bot import zhseg

    path = tmp_path / zhseg.DICT_FILE
    path.write_bytes(b"not a database")
    with pytest.raises(ValueError):
        zhseg.SavedDictionary(path)
