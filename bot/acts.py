"""The learned dialogue-act layer: which act a message performs (recommend, refine, compare, fit, …).

A linear classifier over character n-grams (Chinese needs no word segmentation) of the delexicalised text (cards
read "@", digits "9"), trained with scikit-learn on knowledge/intents/*.yaml when the index is built, and saved as
plain JSON next to it. Predicting needs numpy only: no scikit-learn import on the answer path."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

log = logging.getLogger(__name__)

ACTS = ("recommend", "refine", "compare", "why", "why_not", "rent", "where_to_buy", "gpu_info", "fit", "memory",
        "power", "question", "greeting", "help", "reset", "language", "out_of_scope")
MODEL_FILE = "acts.json"
NGRAMS = (1, 4)
HELDOUT_SHARE = 3  # of 10: the frozen held-out part of every labelled set


def split_of(key: str) -> str:
    """'heldout' or 'train', fixed by a hash of the text (or story id): frozen when it was written."""
    h = int(hashlib.sha1(key.strip().encode("utf-8")).hexdigest(), 16)
    return "heldout" if h % 10 < HELDOUT_SHARE else "train"


def ngrams(text: str) -> list[str]:
    """Character n-grams inside each whitespace-separated word, padded with spaces (scikit-learn's char_wb)."""
    out = []
    lo, hi = NGRAMS
    for w in re.sub(r"\s+", " ", text).split():
        w = f" {w} "
        for n in range(lo, hi + 1):
            if len(w) < n:
                break
            out.extend(w[i:i + n] for i in range(len(w) - n + 1))
    return out


@dataclass(frozen=True)
class ActGuess:
    act: str
    confidence: float
    runner_up: str
    runner_up_confidence: float


class ActModel:
    """TF-IDF (sublinear tf, l2) + multinomial logistic regression, evaluated with numpy."""

    def __init__(self, vocabulary: dict[str, int], idf, coef, intercept, classes: list[str], data_hash: str):
        import numpy as np

        self.vocabulary = vocabulary
        self.idf = np.asarray(idf, dtype=float)
        self.coef = np.asarray(coef, dtype=float)
        self.intercept = np.asarray(intercept, dtype=float)
        self.classes = list(classes)
        self.data_hash = data_hash

    def scores(self, text: str):
        import numpy as np

        counts = Counter(g for g in ngrams(text) if g in self.vocabulary)
        if not counts:
            x_idx, x_val = np.zeros(0, dtype=int), np.zeros(0)
        else:
            x_idx = np.fromiter((self.vocabulary[g] for g in counts), dtype=int, count=len(counts))
            x_val = np.fromiter(((1 + math.log(c)) for c in counts.values()), dtype=float, count=len(counts))
            x_val = x_val * self.idf[x_idx]
            x_val = x_val / (np.linalg.norm(x_val) or 1.0)
        z = self.coef[:, x_idx] @ x_val + self.intercept
        z = np.exp(z - z.max())
        return z / z.sum()

    def predict(self, text: str) -> ActGuess:
        p = self.scores(text)
        order = p.argsort()[::-1]
        return ActGuess(self.classes[order[0]], float(p[order[0]]), self.classes[order[1]], float(p[order[1]]))

    def save(self, path: Path) -> None:
        data = {"format": 1, "data_hash": self.data_hash, "classes": self.classes, "vocabulary": self.vocabulary,
                "idf": [round(float(x), 6) for x in self.idf],
                "coef": [[round(float(x), 6) for x in row] for row in self.coef],
                "intercept": [round(float(x), 6) for x in self.intercept]}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> ActModel:
        d = json.loads(path.read_text(encoding="utf-8"))
        return cls(d["vocabulary"], d["idf"], d["coef"], d["intercept"], d["classes"], d["data_hash"])


# --- the labelled set ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Utterance:
    text: str
    act: str
    slots: dict
    split: str
    source: str


def load_utterances(intents_dir: Path) -> list[Utterance]:
    out = []
    for path in sorted(intents_dir.glob("*.yaml")):
        for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            text = str(item["text"])
            out.append(Utterance(text, item["act"], item.get("slots") or {}, split_of(text), path.name))
    return out


def data_hash(intents_dir: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(intents_dir.glob("*.yaml")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(Path(__file__).read_bytes())  # the features are defined here
    return h.hexdigest()[:16]


def train(texts: list[str], labels: list[str], hash_: str) -> ActModel:
    """Fit on delexicalised texts (scikit-learn is imported here only, at build time)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = TfidfVectorizer(analyzer=ngrams, sublinear_tf=True, min_df=1, norm="l2")
    x = vec.fit_transform(texts)
    clf = LogisticRegression(C=20.0, max_iter=3000)
    clf.fit(x, labels)
    vocab = {k: int(v) for k, v in vec.vocabulary_.items()}
    return ActModel(vocab, vec.idf_, clf.coef_, clf.intercept_, [str(c) for c in clf.classes_], hash_)


def build(intents_dir: Path, out_dir: Path, catalog, only_train: bool = True) -> ActModel:
    """Train on the train split (never the held-out one) and save next to the index."""
    from bot.nlu import parse

    utterances = [u for u in load_utterances(intents_dir) if u.split == "train" or not only_train]
    texts = [parse(u.text, catalog).delexicalised for u in utterances]
    model = train(texts, [u.act for u in utterances], data_hash(intents_dir))
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save(out_dir / MODEL_FILE)
    log.info("act model: %d utterances, %d features, %d acts", len(texts), len(model.vocabulary), len(model.classes))
    return model


def ensure(intents_dir: Path, out_dir: Path, catalog) -> ActModel | None:
    """The saved model when it matches the labelled data, else a fresh one; None when there is no labelled data."""
    path = out_dir / MODEL_FILE
    if not any(intents_dir.glob("*.yaml")):
        return None
    want = data_hash(intents_dir)
    if path.exists():
        try:
            model = ActModel.load(path)
            if model.data_hash == want:
                return model
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("act model at %s is unreadable; retraining", path)
    return build(intents_dir, out_dir, catalog)
