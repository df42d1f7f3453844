"""A langchain-core `VectorStore` over faiss-cpu whose metadata is JSON: the files are `bot.faissdocs`'s, so nothing
in the index folder is unpickled. The index is built through it (sentence-transformers vectors via langchain), and it
is what a langchain consumer gets from `Index.vectorstore()` (`as_retriever()` and the rest)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from bot.faissdocs import FaissDocs


class EncoderEmbeddings(Embeddings):
    """langchain-core's `Embeddings` over an encoder that has its two methods but not its base class (the ONNX
    encoder answers use, which skips importing langchain's callback machinery)."""

    def __init__(self, encoder: Any):
        self.encoder = encoder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encoder.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.encoder.embed_query(text)


def as_embeddings(encoder: Any) -> Embeddings:
    return encoder if isinstance(encoder, Embeddings) else EncoderEmbeddings(encoder)


class FaissJsonStore(VectorStore):
    """Inner-product search over normalised vectors (cosine similarity), documents kept in memory."""

    def __init__(self, embedding: Embeddings, files: FaissDocs | None = None):
        self._embedding = embedding
        self.files = files if files is not None else FaissDocs()

    @property
    def embeddings(self) -> Embeddings:
        return self._embedding

    # --- building ----------------------------------------------------------------------------------------------
    def add_texts(self, texts: Iterable[str], metadatas: list[dict] | None = None, *, ids: list[str] | None = None,
                  **kwargs: Any) -> list[str]:
        texts = list(texts)
        metadatas = metadatas or [{} for _ in texts]
        ids = ids or [str(len(self.files.docs) + i) for i in range(len(texts))]
        docs = [Document(page_content=t, metadata=m, id=i) for t, m, i in zip(texts, metadatas, ids, strict=True)]
        self.files.add(self._embedding.embed_documents(texts), docs)
        return ids

    @classmethod
    def from_texts(cls, texts: list[str], embedding: Embeddings, metadatas: list[dict] | None = None, *,
                   ids: list[str] | None = None, **kwargs: Any) -> FaissJsonStore:
        store = cls(embedding)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    # --- searching ---------------------------------------------------------------------------------------------
    def similarity_search_with_score_by_vector(self, embedding: list[float], k: int = 4) -> list[tuple[Document, float]]:
        return self.files.search(embedding, k)

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        return self.similarity_search_with_score_by_vector(self._embedding.embed_query(query), k)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return [d for d, _ in self.similarity_search_with_score(query, k)]

    # --- files -------------------------------------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        self.files.save(folder)

    @classmethod
    def load(cls, folder: Path, embedding: Embeddings) -> FaissJsonStore:
        """Raises ValueError when the files are not what `save` writes (tampered, truncated, mismatched)."""
        return cls(embedding, FaissDocs.load(folder))
