"""Build, load and check the retrieval index under index/: FAISS (MiniLM, inner product on normalised vectors) and
BM25 (bm25s over jieba tokens). A missing, stale or unreadable index is rebuilt, never trusted."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from bot import zhseg
from bot.catalog import Catalog
from bot.faissdocs import FaissDocs
from bot.knowledge import Passage, Source, content_hash, domain_words, load_passages

log = logging.getLogger(__name__)
INDEX_FORMAT = 6  # 3: FAISS + JSON metadata (no pickle); 4: + the ONNX query encoder; 5: + tokens.json;
# 6: the encoder's weights in a file of their own (mapped, not copied), and jieba's dictionary as SQLite
_TOKEN = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*|[\u4e00-\u9fff]+")
_STOP = frozenset("的 了 是 在 和 与 或 吗 呢 吧 啊 我 你 他 她 它 们 这 那 有 也 就 都 要 会 能 可以 什么 怎么 如何 哪 个 "
                  "a an the is are was were be to of in on for and or with what which how do does can i you it my me "
                  "should would this that there any".split())


class IndexError_(RuntimeError):
    """The index could not be built or loaded."""


@dataclass(frozen=True)
class Manifest:
    content_hash: str
    model: str
    format: int
    passages: int
    encoder: dict | None = None  # the exported query encoder's file hashes (bot/encoder.py)

    @classmethod
    def read(cls, path: Path) -> Manifest | None:
        try:
            return cls(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None


def model_id(model_path: str) -> str:
    """Identifies the embedding model by its config and weights' sizes, so a changed model forces a rebuild."""
    p = Path(model_path)
    parts = [p.name]
    for f in sorted(p.glob("*")) if p.is_dir() else []:
        if f.is_file():
            parts.append(f"{f.name}:{f.stat().st_size}")
    return "|".join(parts)


_words_cache: dict[str, tuple[str, ...]] = {}


def _domain_words(knowledge_dir: Path) -> tuple[str, ...]:
    key = str(knowledge_dir)
    if key not in _words_cache:
        _words_cache[key] = tuple(domain_words(knowledge_dir))
    return _words_cache[key]


def tokenizer(knowledge_dir: Path, saved: Path | None = None) -> Callable[[str], list[str]]:
    """jieba for Chinese runs (with domain words registered), lower-cased words and model numbers for the rest.
    With `saved` (the index's copy of the dictionary), Chinese is cut without loading jieba's dictionary whole."""
    from bot import zhseg

    if saved is not None:
        cut = zhseg.SavedDictionary(saved).cut_for_search
    else:
        words = _domain_words(knowledge_dir)

        def cut(chunk: str) -> list[str]:  # the whole dictionary (~0.6 s, 60 MB) loads at the first Chinese text
            return zhseg.full_jieba(words).lcut_for_search(chunk)

    def tokenize(text: str) -> list[str]:
        out = []
        for m in _TOKEN.finditer(text.lower()):
            chunk = m.group(0)
            if "\u4e00" <= chunk[0] <= "\u9fff":
                out.extend(t for t in cut(chunk) if t.strip() and t not in _STOP)
            elif chunk not in _STOP:
                out.append(chunk)
        return out

    return tokenize


def embeddings(model_path: str):
    """The sentence-transformers model through langchain, loaded by path, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_huggingface import HuggingFaceEmbeddings
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        return HuggingFaceEmbeddings(model_name=model_path, model_kwargs={"device": "cpu"},
                                     encode_kwargs={"normalize_embeddings": True, "batch_size": 32})


class Bm25Scores:
    """BM25 scores of a query's tokens over the passages, read from the files `bm25s.BM25.save` writes (its eager
    CSC matrix of per-token passage scores, plain .npy arrays, and its JSON vocabulary): the numbers of
    `bm25s.BM25.get_scores` (tested on every labelled question), without importing bm25s and scipy at answer time
    (about a tenth of a cold free-form answer). The index is still built by bm25s."""

    def __init__(self, folder: Path):
        import numpy as np

        try:
            params = json.loads((folder / "params.index.json").read_text(encoding="utf-8"))
            self.vocab: dict[str, int] = json.loads((folder / "vocab.index.json").read_text(encoding="utf-8"))
            self.data, self.indices, self.indptr = (np.load(folder / f"{n}.csc.index.npy", allow_pickle=False)
                                                    for n in ("data", "indices", "indptr"))
            self.num_docs = int(params["num_docs"])
            self.dtype = np.dtype(params.get("dtype", "float32"))
        except (OSError, ValueError, EOFError, KeyError, TypeError) as e:
            raise IndexError_(f"{folder}: unreadable BM25 files ({type(e).__name__}: {e})") from e
        if params.get("method") not in ("lucene", "robertson", "atire"):  # the methods with no per-passage floor
            raise IndexError_(f"{folder}: BM25 method {params.get('method')!r} is not supported")
        # bm25s's vocabulary may end with a placeholder ('') that has no column
        self.columns = len(self.indptr) - 1
        if max(self.vocab.values(), default=0) > self.columns or (self.indices.size and
                                                                  self.indices.max() >= self.num_docs):
            raise IndexError_(f"{folder}: the BM25 arrays disagree with its vocabulary")

    def get_scores(self, tokens: list[str]):
        import numpy as np

        scores = np.zeros(self.num_docs, dtype=self.dtype)
        for t in tokens:  # a repeated token counts again, as in bm25s
            i = self.vocab.get(t, self.columns)
            if i < self.columns:
                a, b = self.indptr[i], self.indptr[i + 1]
                np.add.at(scores, self.indices[a:b], self.data[a:b])
        return scores


@dataclass
class Index:
    """The loaded index: passages in order, the FAISS vectors and the BM25 retriever."""

    passages: list[Passage]
    faiss: FaissDocs
    bm25: Bm25Scores
    tokenize: Callable[[str], list[str]]
    embedder: object
    manifest: Manifest
    passage_tokens: list[list[str]] | None = None  # each passage's BM25 tokens, as built
    term_tokens: dict[str, list[str]] | None = None  # the glossary's Chinese terms, tokenised at build time

    def vectorstore(self):
        """The FAISS vectors behind langchain-core's `VectorStore` interface, queries encoded by `embedder`."""
        from bot.vectorstore import FaissJsonStore, as_embeddings

        return FaissJsonStore(as_embeddings(self.embedder), self.faiss)

    def tokenize_terms(self, terms: list[str]) -> list[str]:
        """BM25 tokens of glossary terms: from the build when known (no jieba for an English question)."""
        out: list[str] = []
        for t in terms:
            known = (self.term_tokens or {}).get(t)
            out.extend(known if known is not None else self.tokenize(t))
        return out


def is_fresh(index_dir: Path, knowledge_dir: Path, model_path: str) -> bool:
    from bot.encoder import ENCODER_DIR, is_complete

    m = Manifest.read(index_dir / "manifest.json")
    return (m is not None and m.format == INDEX_FORMAT and m.model == model_id(model_path)
            and m.content_hash == content_hash(knowledge_dir)
            and all((index_dir / n).exists() for n in ("faiss/index.faiss", "faiss/docs.json", "bm25", "docs.json",
                                                       "tokens.json", zhseg.DICT_FILE))
            and is_complete(index_dir / ENCODER_DIR, m.encoder))


def build(index_dir: Path, knowledge_dir: Path, catalog: Catalog, model_path: str, embedder=None,
          progress: Callable[[str], None] | None = None) -> Manifest:
    """Build into a temporary folder, then swap it in: a crash mid-build never leaves a half-written index."""
    import bm25s

    from bot import encoder
    from bot.vectorstore import FaissJsonStore

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    say = progress or (lambda _msg: None)
    passages = load_passages(knowledge_dir, catalog)
    say(f"{len(passages)} passages from {knowledge_dir}")
    tok = tokenizer(knowledge_dir)
    embedder = embedder or embeddings(model_path)
    say(f"embedding {len(passages)} passages with {Path(model_path).name}")
    store = FaissJsonStore.from_texts([p.search_text for p in passages], embedder,
                                      [{"id": p.id} for p in passages], ids=[p.id for p in passages]).files
    say("BM25 over jieba tokens")
    tokens = [tok(p.search_text) for p in passages]
    bm = bm25s.BM25()
    bm.index([t or ["_"] for t in tokens], show_progress=False)

    index_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=index_dir))
    try:
        store.save(tmp / "faiss")
        bm.save(str(tmp / "bm25"))
        (tmp / "docs.json").write_text(json.dumps([_passage_json(p) for p in passages], ensure_ascii=False),
                                       encoding="utf-8")
        # the passages' tokens, so answering never re-tokenises the corpus (nor loads jieba for an English question)
        (tmp / "tokens.json").write_text(json.dumps({"passages": tokens, "terms": _term_tokens(knowledge_dir, tok)},
                                                    ensure_ascii=False), encoding="utf-8")
        # and jieba's dictionary, so answering cuts a Chinese question without loading it whole
        zhseg.save_dictionary(_domain_words(knowledge_dir), tmp / zhseg.DICT_FILE)
        say("exporting the query encoder to ONNX (answers then need no torch)")
        cfg = encoder.export(model_path, tmp / encoder.ENCODER_DIR)
        manifest = Manifest(content_hash(knowledge_dir), model_id(model_path), INDEX_FORMAT, len(passages),
                            {k: cfg[k] for k in encoder.ENCODER_KEYS})
        (tmp / "manifest.json").write_text(json.dumps(asdict(manifest), indent=2), encoding="utf-8")
        names = ("faiss", "bm25", "docs.json", "tokens.json", zhseg.DICT_FILE, encoder.ENCODER_DIR, "manifest.json")
        for name in names:
            target = index_dir / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        (index_dir / "manifest.json").unlink(missing_ok=True)
        for name in names:  # manifest last: it marks the index complete
            os.replace(tmp / name, index_dir / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    say(f"index written to {index_dir}")
    return manifest


def _term_tokens(knowledge_dir: Path, tok: Callable[[str], list[str]]) -> dict[str, list[str]]:
    import csv

    path = knowledge_dir / "glossary.csv"
    if not path.exists():
        return {}
    with open(path, encoding="utf-8") as f:
        terms = {(row.get("zh") or "").strip() for row in csv.DictReader(f)}
    return {t: tok(t) for t in sorted(terms) if t}


def _passage_json(p: Passage) -> dict:
    d = asdict(p)
    d["sources"] = [asdict(s) for s in p.sources]
    return d


def _passage_from_json(d: dict) -> Passage:
    d = dict(d)
    d["sources"] = tuple(Source(**s) for s in d["sources"])
    return Passage(**d)


def load(index_dir: Path, knowledge_dir: Path, model_path: str, embedder=None) -> Index:
    """Load a built index. Queries are encoded with the exported ONNX encoder unless `embedder` is given."""
    from bot.encoder import ENCODER_DIR, OnnxEncoder

    embedder = embedder or OnnxEncoder(index_dir / ENCODER_DIR)
    store = FaissDocs.load(index_dir / "faiss")  # JSON and faiss's own format: nothing unpickled
    bm = Bm25Scores(index_dir / "bm25")
    passages = [_passage_from_json(d) for d in json.loads((index_dir / "docs.json").read_text(encoding="utf-8"))]
    manifest = Manifest.read(index_dir / "manifest.json")
    tokens = json.loads((index_dir / "tokens.json").read_text(encoding="utf-8"))
    try:
        tokenize = tokenizer(knowledge_dir, saved=index_dir / zhseg.DICT_FILE)
    except ValueError as e:
        raise IndexError_(str(e)) from e
    if manifest is None or not (manifest.passages == len(passages) == store.index.ntotal == len(tokens["passages"])):
        raise IndexError_("the index files disagree with each other")
    return Index(passages, store, bm, tokenize, embedder, manifest, tokens["passages"], tokens["terms"])


def ensure(index_dir: Path, knowledge_dir: Path, catalog: Catalog, model_path: str,
           progress: Callable[[str], None] | None = None, embedder=None, query_encoder=None) -> Index:
    """Load the index, rebuilding it first when it is missing, stale or unreadable. Only a rebuild loads
    sentence-transformers (and torch); a fresh index is queried through the ONNX encoder (`query_encoder`: one
    already loaded from this index's files)."""
    if is_fresh(index_dir, knowledge_dir, model_path):
        try:
            return load(index_dir, knowledge_dir, model_path, embedder or query_encoder)
        except Exception as e:  # corrupt files: say so and rebuild
            log.warning("index at %s is unreadable (%s); rebuilding", index_dir, e)
            if progress:
                progress(f"index unreadable ({type(e).__name__}); rebuilding")
    elif progress:
        progress("index missing or stale; building")
    build(index_dir, knowledge_dir, catalog, model_path, embedder, progress)
    return load(index_dir, knowledge_dir, model_path, embedder)
