"""A langchain-core `VectorStore` over faiss-cpu whose metadata is JSON: nothing in the index folder is unpickled.

The FAISS index itself is written with faiss's own binary format (`index.faiss`); the ids and metadata of the
documents go to `docs.json`. Loading checks that the two agree, so a tampered or half-written folder is refused
(and `bot.index.ensure` rebuilds it) instead of running code."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

INDEX_FILE = "index.faiss"
DOCS_FILE = "docs.json"


class FaissJsonStore(VectorStore):
    """Inner-product search over normalised vectors (cosine similarity), documents kept in memory."""

    def __init__(self, embedding: Embeddings, index, docs: list[Document]):
        self._embedding = embedding
        self.index = index
        self.docs = docs
        self.index_to_docstore_id = {i: d.id for i, d in enumerate(docs)}

    @property
    def embeddings(self) -> Embeddings:
        return self._embedding

    # --- building ----------------------------------------------------------------------------------------------
    def add_texts(self, texts: Iterable[str], metadatas: list[dict] | None = None, *, ids: list[str] | None = None,
                  **kwargs: Any) -> list[str]:
        texts = list(texts)
        vectors = np.asarray(self._embedding.embed_documents(texts), dtype=np.float32)
        if self.index is None:
            import faiss

            self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors)
        metadatas = metadatas or [{} for _ in texts]
        ids = ids or [str(len(self.docs) + i) for i in range(len(texts))]
        for text, meta, doc_id in zip(texts, metadatas, ids, strict=True):
            self.index_to_docstore_id[len(self.docs)] = doc_id
            self.docs.append(Document(page_content=text, metadata=meta, id=doc_id))
        return ids

    @classmethod
    def from_texts(cls, texts: list[str], embedding: Embeddings, metadatas: list[dict] | None = None, *,
                   ids: list[str] | None = None, **kwargs: Any) -> FaissJsonStore:
        store = cls(embedding, None, [])
        store.add_texts(texts, metadatas, ids=ids)
        return store

    # --- searching ---------------------------------------------------------------------------------------------
    def similarity_search_with_score_by_vector(self, embedding: list[float], k: int = 4) -> list[tuple[Document, float]]:
        scores, rows = self.index.search(np.asarray([embedding], dtype=np.float32), k)
        return [(self.docs[int(r)], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0]

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        return self.similarity_search_with_score_by_vector(self._embedding.embed_query(query), k)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return [d for d, _ in self.similarity_search_with_score(query, k)]

    # --- files -------------------------------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        import faiss

        folder.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self.index, str(folder / INDEX_FILE))
        (folder / DOCS_FILE).write_text(json.dumps(
            [{"id": d.id, "text": d.page_content, "metadata": d.metadata} for d in self.docs], ensure_ascii=False),
            encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, embedding: Embeddings) -> FaissJsonStore:
        """Raises ValueError when the files are not what `save` writes (tampered, truncated, mismatched)."""
        import faiss

        raw = json.loads((folder / DOCS_FILE).read_text(encoding="utf-8"))
        if not isinstance(raw, list) or not all(isinstance(d, dict) and isinstance(d.get("id"), str) for d in raw):
            raise ValueError(f"{folder / DOCS_FILE} is not a list of documents")
        index = faiss.read_index(str(folder / INDEX_FILE))
        if index.ntotal != len(raw):
            raise ValueError(f"{folder}: {index.ntotal} vectors for {len(raw)} documents")
        docs = [Document(page_content=str(d.get("text", "")), metadata=dict(d.get("metadata") or {}), id=d["id"])
                for d in raw]
        return cls(embedding, index, docs)
