"""The torch-free query encoder (bot/encoder.py) against sentence-transformers: the same vectors, the same answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

from bot import index
from bot.encoder import CONFIG_FILE, ENCODER_DIR, MODEL_FILE, WEIGHTS_FILE, OnnxEncoder
from tests.conftest import KNOWLEDGE, ROOT


@pytest.fixture(scope="session")
def sentence_transformers_embedder(settings):
    return index.embeddings(settings.model_path())


def _texts() -> list[str]:
    """Questions people ask, both languages: the labelled retrieval set and labelled utterances."""
    out = [q["q"] for q in yaml.safe_load((ROOT / "bench" / "retrieval-eval.yaml").read_text(encoding="utf-8"))]
    for f in sorted((KNOWLEDGE / "intents").glob("*.yaml")):
        out += [u["text"] for u in (yaml.safe_load(f.read_text(encoding="utf-8")) or [])[:40]]
    return out


def test_the_onnx_encoder_gives_the_same_vectors(engine, sentence_transformers_embedder):
    onnx = engine.index.embedder
    assert isinstance(onnx, OnnxEncoder)
    texts = _texts()
    assert len(texts) >= 200 and any("\u4e00" <= ch <= "\u9fff" for t in texts for ch in t)
    a = np.asarray(sentence_transformers_embedder.embed_documents(texts))
    b = np.asarray(onnx.embed_documents(texts))
    cos = (a * b).sum(axis=1)
    assert cos.min() >= 0.999, [texts[i] for i in np.argsort(cos)[:3]]
    assert np.allclose(onnx.embed_query(texts[0]), a[0], atol=1e-3)


def test_the_same_top_3_on_the_labelled_retrieval_set(engine, sentence_transformers_embedder):
    from bot.retrieval import search

    questions = yaml.safe_load((ROOT / "bench" / "retrieval-eval.yaml").read_text(encoding="utf-8"))
    base = engine.index
    st_index = index.Index(base.passages, base.faiss, base.bm25, base.tokenize, sentence_transformers_embedder,
                           base.manifest)
    for q in questions:
        lang = q.get("lang", "en")
        a = search(base, q["q"], lang, KNOWLEDGE)
        b = search(st_index, q["q"], lang, KNOWLEDGE)
        assert [h.passage.id for h in a.hits[:3]] == [h.passage.id for h in b.hits[:3]], q["q"]


def test_a_missing_or_tampered_encoder_is_rebuilt(tmp_path, engine, settings):
    out = tmp_path / "index"
    shutil.copytree(settings.index_dir, out, ignore=shutil.ignore_patterns("acts*"))
    model = settings.model_path()
    assert index.is_fresh(out, KNOWLEDGE, model)
    weights = (out / ENCODER_DIR / WEIGHTS_FILE).read_bytes()
    (out / ENCODER_DIR / WEIGHTS_FILE).write_bytes(weights[: len(weights) // 2])  # a half-copied weights file
    assert not index.is_fresh(out, KNOWLEDGE, model)
    (out / ENCODER_DIR / WEIGHTS_FILE).write_bytes(weights)
    assert index.is_fresh(out, KNOWLEDGE, model)
    (out / ENCODER_DIR / MODEL_FILE).write_bytes(b"not a model")
    assert not index.is_fresh(out, KNOWLEDGE, model)  # its hash no longer matches the manifest
    shutil.rmtree(out / ENCODER_DIR)
    assert not index.is_fresh(out, KNOWLEDGE, model)
    idx = index.ensure(out, KNOWLEDGE, engine.catalog, model, embedder=engine.index.embedder)
    assert isinstance(idx.embedder, OnnxEncoder) and index.is_fresh(out, KNOWLEDGE, model)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["encoder"]["model_sha256"]


def test_a_free_form_answer_imports_no_torch(settings):
    """Nor langchain-core's VectorStore machinery (langsmith tracing): answers read the FAISS files directly."""
    code = ("import sys; from bot.dialogue import Conversation, Engine; "
            "r = Conversation(Engine.from_settings()).turn('is AMD usable for PyTorch?'); "
            "heavy = [m for m in ('torch', 'transformers', 'sentence_transformers', 'sklearn', 'langsmith', "
            "'langchain_core.vectorstores', 'langchain_core.callbacks') if m in sys.modules]; "
            "print(r.intent, heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.strip() == "question []"


def test_a_langchain_consumer_gets_the_onnx_encoder_as_embeddings(engine):
    from langchain_core.embeddings import Embeddings

    store = engine.index.vectorstore()
    assert isinstance(store.embeddings, Embeddings)
    text = engine.index.passages[0].search_text
    assert np.allclose(store.embeddings.embed_query(text), engine.index.embedder.embed_query(text))
    assert store.similarity_search(text, k=1)[0].id == engine.index.passages[0].id


def test_the_copy_kept_of_an_export_goes_when_the_process_ends(tmp_path):
    """Each index build keeps its exported encoder (~90 MB) for a second build in the same process; it must not be
    left in the temp folder afterwards."""
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / CONFIG_FILE).write_text("{}", encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    code = ("import sys; from pathlib import Path; from bot.encoder import _keep_copy; "
            f"kept = _keep_copy(Path({str(tmp_path / 'export')!r})); print(kept.exists(), kept.parent)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={**os.environ, "TMPDIR": str(temp)})
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.split() == ["True", str(temp)]
    assert list(temp.iterdir()) == []
