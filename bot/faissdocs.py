"""FAISS vectors and their documents on disk, with nothing unpickled.

The vectors are written in faiss's own binary format (`index.faiss`); the documents' ids, text and metadata go to
`docs.json`, row for row. Loading checks that the two agree, so a tampered or half-written folder is refused (and
`bot.index.ensure` rebuilds it) instead of running code. This is the part answers need; `bot.vectorstore` puts
langchain-core's `VectorStore` interface over it (importing that interface costs ~0.4 s and ~45 MB of tracing
machinery, more than everything else a cold free-form answer loads)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from langchain_core.documents import Document

INDEX_FILE = "index.faiss"
DOCS_FILE = "docs.json"


class FaissDocs:
    """Inner-product search over normalised vectors (cosine similarity); row i of the index is `docs[i]`."""

    def __init__(self, index=None, docs: list[Document] | None = None):
        self.index = index
        self.docs = docs or []

    def add(self, vectors: np.ndarray, docs: list[Document]) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(vectors) != len(docs):
            raise ValueError(f"{len(vectors)} vectors for {len(docs)} documents")
        if self.index is None:
            import faiss

            self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors)
        self.docs.extend(docs)

    def search(self, vector, k: int) -> list[tuple[Document, float]]:
        """The k documents nearest to one vector, with their inner products."""
        if self.index is None:
            return []
        scores, rows = self.index.search(np.asarray([vector], dtype=np.float32), k)
        return [(self.docs[int(r)], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0]

    def vectors(self) -> np.ndarray:
        """Every stored vector, in document order."""
        return self.index.reconstruct_n(0, self.index.ntotal)

    def save(self, folder: Path) -> None:
        import faiss

        folder.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self.index, str(folder / INDEX_FILE))
        (folder / DOCS_FILE).write_text(json.dumps(
            [{"id": d.id, "text": d.page_content, "metadata": d.metadata} for d in self.docs], ensure_ascii=False),
            encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> FaissDocs:
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
        return cls(index, docs)
