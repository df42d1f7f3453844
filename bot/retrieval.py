"""Hybrid search: dense (FAISS, MiniLM) and BM25 (jieba tokens) fused by reciprocal rank, with an abstain threshold.

The embedding model is English-trained, so a Chinese query is expanded with the English of its domain words
(knowledge/glossary.csv) before it is embedded, and an English query gets the Chinese words for BM25."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.index import Index
from bot.knowledge import Passage, load_glossary

RRF_K = 60
DEPTH = 40


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float  # fused reciprocal-rank score
    dense: float  # cosine similarity of the query and the passage
    bm25: float  # BM25 score normalised to 0..1 against this query's best


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[Hit, ...]
    relevance: float  # confidence that the top section answers the question, 0..1

    @property
    def top(self) -> Hit | None:
        return self.hits[0] if self.hits else None


def expand(query: str, lang: str, knowledge_dir: Path) -> tuple[str, str]:
    """(text to embed, text for BM25): each with the other language's words for the domain terms it contains."""
    low = query.lower()
    en_terms, zh_terms = [], []
    for zh, en in load_glossary(knowledge_dir):
        if zh in query:
            en_terms.append(en)
        if any(w and w.lower() in low.split() for w in en.split()[:1]):
            zh_terms.append(zh)
    dense = f"{query} {' '.join(en_terms)}".strip()
    sparse = f"{query} {' '.join(en_terms)} {' '.join(zh_terms)}".strip()
    return dense, sparse


def search(index: Index, query: str, lang: str, knowledge_dir: Path, mode: str = "hybrid", k: int = 10,
           kinds: tuple[str, ...] | None = None) -> SearchResult:
    """Rank passages for `query`. mode: hybrid | dense | bm25."""
    dense_q, sparse_q = expand(query, lang, knowledge_dir)
    n = len(index.passages)
    dense_scores = np.zeros(n, dtype=np.float32)
    dense_rank: list[int] = []
    if mode in ("hybrid", "dense"):
        vec = np.asarray(index.embedder.embed_query(dense_q), dtype=np.float32)[None, :]
        scores, ids = index.faiss.index.search(vec, min(DEPTH, n))
        ids_to_pos = _faiss_positions(index)
        for s, i in zip(scores[0], ids[0], strict=False):
            if i < 0:
                continue
            pos = ids_to_pos[int(i)]
            dense_scores[pos] = s
            dense_rank.append(pos)
    bm_scores = np.zeros(n, dtype=np.float32)
    bm_rank: list[int] = []
    if mode in ("hybrid", "bm25"):
        tokens = index.tokenize(sparse_q)
        if tokens:
            raw = index.bm25.get_scores(tokens)
            top = float(raw.max()) if raw.size else 0.0
            if top > 0:
                bm_scores = raw / top
                bm_rank = [int(i) for i in np.argsort(-raw)[:DEPTH] if raw[i] > 0]
    fused: dict[int, float] = {}
    for ranking in (dense_rank, bm_rank):
        for r, pos in enumerate(ranking):
            fused[pos] = fused.get(pos, 0.0) + 1.0 / (RRF_K + r + 1)
    order = sorted(fused, key=lambda p: (-fused[p], index.passages[p].id))
    if kinds:
        order = [p for p in order if index.passages[p].kind in kinds]
    hits = tuple(Hit(index.passages[p], fused[p], float(dense_scores[p]), float(bm_scores[p])) for p in order[:k])
    return SearchResult(hits, _relevance(hits, mode, bm_rank, index, tokens if mode != "dense" else []))


def _faiss_positions(index: Index) -> dict[int, int]:
    cached = getattr(index, "_pos_cache", None)
    if cached is None:
        by_id = {p.id: i for i, p in enumerate(index.passages)}
        cached = {fi: by_id[doc_id] for fi, doc_id in index.faiss.index_to_docstore_id.items()}
        index._pos_cache = cached
    return cached


def _relevance(hits: tuple[Hit, ...], mode: str, bm_rank: list[int], index: Index, tokens: list[str]) -> float:
    """How sure we are: the top hit's cosine similarity, raised when its BM25 match covers the query's words."""
    if not hits:
        return 0.0
    top = hits[0]
    dense = max(0.0, top.dense)
    coverage = 0.0
    if tokens and bm_rank:
        text_tokens = set(index.tokenize(top.passage.search_text))
        meaningful = [t for t in tokens if len(t) > 1]
        if meaningful:
            coverage = sum(t in text_tokens for t in meaningful) / len(meaningful)
    if mode == "dense":
        return dense
    if mode == "bm25":
        return coverage
    return max(dense, 0.5 * dense + 0.5 * coverage)
