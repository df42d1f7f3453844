"""The learned dialogue-act layer: which act a message performs (recommend, refine, compare, fit, …).

A linear classifier over character n-grams (Chinese needs no word segmentation) of the delexicalised text (cards
read "@", digits "9"), trained with scikit-learn on knowledge/intents/*.yaml when the index is built, and saved as
plain JSON next to it. Predicting needs numpy only: no scikit-learn import on the answer path.

When the n-grams leave it unsure (under `ESCALATE_BELOW`), a second classifier that also reads the message's sentence
vector (the index's ONNX encoder) decides: phrasings the labelled set never had still land near ones it had. Five-fold
CV on the train split, the model alone: 0.929 → 0.940, with 14 % of messages consulting the vector; a budget answer that is sure of its
act never loads the encoder (cold start)."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

log = logging.getLogger(__name__)

ACTS = ("recommend", "refine", "compare", "why", "why_not", "rent", "where_to_buy", "gpu_info", "fit", "memory",
        "power", "question", "greeting", "help", "reset", "language", "out_of_scope")
MODEL_FILE = "acts.json"
NGRAMS = (1, 3)
HELDOUT_SHARE = 3  # of 10: the frozen held-out part of every labelled set
ESCALATE_BELOW = 0.7  # n-gram confidence under which the sentence vector is consulted (CV: 0.6 → 10 %, 0.8 → 21 %)
SENTENCE_WEIGHT = 0.5  # the vector's scale beside the l2-normalised n-grams (CV: 0.3 → 0.938, 0.5 → 0.940, 1 → 0.936)


def split_of(key: str) -> str:
    """'heldout' or 'train', fixed by a hash of the text (or story id): frozen when it was written."""
    h = int(hashlib.sha1(key.strip().encode("utf-8")).hexdigest(), 16)
    return "heldout" if h % 10 < HELDOUT_SHARE else "train"


FEATURE_WEIGHT = 3  # each structural feature counts as this many n-grams
_YES_NO = re.compile(r"[吗嗎麼么][?？!！。\s]*$|是否|能不能|可不可以|行不行|值不值|划不划算|有没有必要|"
                     r"^(?:is|are|does|do|can|could|should|would|will|was|were)\b")
_WH = re.compile(r"什么|什麼|哪|怎么|怎麼|如何|为什么|為什麼|为啥|多少|几|幾|\b(?:how|what|which|why|where|when)\b")


def features(q) -> list[str]:
    """What the slot extractors found, as tokens the classifier weighs with the text: a card named, a budget, a
    model size, cue words ("why", "psu", "rent"…), the length of the message."""
    n = q.need
    out = [f"§g{min(len(q.gpus), 2)}"]
    for k in ("budget", "model_size_b", "finetune_method", "precision_bits", "gpu_count", "used", "vendor",
              "min_vram_gb", "max_power_w", "psu_w", "region", "as_of"):
        if getattr(n, k) is not None:
            out.append(f"§{k}")
    if n.workloads:
        out.append("§workload")
    if q.bare_number:
        out.append("§bare")
    if q.direction:
        out.append(f"§dir_{q.direction}")
    if q.ordinals:
        out.append("§ordinal")
    if "pronoun" in q.cues:
        out.append("§pronoun")
    out += [f"§cue_{c}" for c in sorted(q.cues) if c not in ("domain", "offtopic", "dl")]
    out.append("§domain" if "domain" in q.cues or q.gpus or not n.is_empty() else "§no_domain")
    if "dl" in q.cues:
        out.append("§ml")
    if "offtopic" in q.cues:
        out.append("§offtopic")
    text = q.text.strip().lower()
    if _YES_NO.search(text):
        out.append("§yes_no")  # "划算吗？", "is it worth it": asks, does not state
    if _WH.search(text):
        out.append("§wh")
    length = len(q.text.strip())
    out.append(f"§len{0 if length <= 8 else 1 if length <= 20 else 2 if length <= 50 else 3}")
    return out


def model_input(q) -> str:
    """The classifier's view of a parsed message: its delexicalised text, then its feature tokens."""
    return q.delexicalised + " " + " ".join(features(q))


def ngrams(text: str) -> list[str]:
    """Character n-grams inside each whitespace-separated word, padded with spaces (scikit-learn's char_wb);
    feature tokens (§…) whole."""
    out = []
    lo, hi = NGRAMS
    for w in re.sub(r"\s+", " ", text).split():
        if w.startswith("§"):
            out.extend([w] * FEATURE_WEIGHT)
            continue
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
    read_the_sentence: bool = False  # the n-grams were unsure and the sentence vector was consulted


class ActModel:
    """TF-IDF (sublinear tf, l2) + multinomial logistic regression, evaluated with numpy; optionally a second one over
    the same n-grams and the sentence vector (`sentence_coef`, its last columns the vector's)."""

    def __init__(self, vocabulary: dict[str, int], idf, coef, intercept, classes: list[str], data_hash: str,
                 sentence_coef=None, sentence_intercept=None):
        import numpy as np

        self.vocabulary = vocabulary
        self.idf = np.asarray(idf, dtype=float)
        self.coef = np.asarray(coef, dtype=float)
        self.intercept = np.asarray(intercept, dtype=float)
        self.classes = list(classes)
        self.data_hash = data_hash
        self.sentence_coef = None if sentence_coef is None else np.asarray(sentence_coef, dtype=float)
        self.sentence_intercept = None if sentence_intercept is None else np.asarray(sentence_intercept, dtype=float)

    def _tfidf(self, text: str):
        import numpy as np

        counts = Counter(g for g in ngrams(text) if g in self.vocabulary)
        if not counts:
            return np.zeros(0, dtype=int), np.zeros(0)
        x_idx = np.fromiter((self.vocabulary[g] for g in counts), dtype=int, count=len(counts))
        x_val = np.fromiter(((1 + math.log(c)) for c in counts.values()), dtype=float, count=len(counts))
        x_val = x_val * self.idf[x_idx]
        return x_idx, x_val / (np.linalg.norm(x_val) or 1.0)

    def scores(self, text: str, vector=None):
        """Probabilities of the acts from the n-grams, or from the n-grams and the sentence `vector` when given."""
        import numpy as np

        x_idx, x_val = self._tfidf(text)
        if vector is None:
            z = self.coef[:, x_idx] @ x_val + self.intercept
        else:
            width = len(self.vocabulary)
            z = self.sentence_coef[:, x_idx] @ x_val + self.sentence_coef[:, width:] @ (
                SENTENCE_WEIGHT * np.asarray(vector, dtype=float)) + self.sentence_intercept
        z = np.exp(z - z.max())
        return z / z.sum()

    @property
    def reads_sentences(self) -> bool:
        return self.sentence_coef is not None

    def predict(self, text: str, sentence_vector: Callable[[], object] | None = None) -> ActGuess:
        """The act of a model input (`model_input`); `sentence_vector` is asked for the message's vector only when
        the n-grams leave the model unsure (it may return None: no encoder)."""
        p = self.scores(text)
        order, conf, read = p.argsort()[::-1], p, False
        if p.max() < ESCALATE_BELOW and self.reads_sentences and sentence_vector is not None:
            vector = sentence_vector()
            if vector is not None:
                both = self.scores(text, vector)
                order, conf, read = both.argsort()[::-1], both, True
        return ActGuess(self.classes[order[0]], float(conf[order[0]]), self.classes[order[1]], float(conf[order[1]]),
                        read)

    def save(self, path: Path) -> None:
        """`acts.json` (vocabulary, classes, data hash) and `acts.npz` (the weights, no pickle) side by side."""
        import numpy as np

        data = {"format": 3, "data_hash": self.data_hash, "classes": self.classes, "vocabulary": self.vocabulary}
        weights = path.with_suffix(".npz")
        tmp = path.with_suffix(".tmp.npz")
        sentence = {} if not self.reads_sentences else {
            "sentence_coef": self.sentence_coef.astype("float32"),
            "sentence_intercept": self.sentence_intercept.astype("float32")}
        np.savez(tmp, idf=self.idf.astype("float32"), coef=self.coef.astype("float32"),
                 intercept=self.intercept.astype("float32"), **sentence)
        tmp.replace(weights)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        tmp.replace(path)  # written last: a model whose weights are missing is never taken for a whole one

    @classmethod
    def load(cls, path: Path) -> ActModel:
        import numpy as np

        d = json.loads(path.read_text(encoding="utf-8"))
        with np.load(path.with_suffix(".npz"), allow_pickle=False) as w:
            sentence = (w["sentence_coef"], w["sentence_intercept"]) if "sentence_coef" in w.files else (None, None)
            return cls(d["vocabulary"], w["idf"], w["coef"], w["intercept"], d["classes"], d["data_hash"], *sentence)


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


def encoder_id(out_dir: Path) -> str:
    """The sentence encoder saved with the index (its weights' hash), or "" when there is none yet."""
    from bot.encoder import CONFIG_FILE, ENCODER_DIR

    try:
        return str(json.loads((out_dir / ENCODER_DIR / CONFIG_FILE).read_text(encoding="utf-8")).get(
            "weights_sha256", ""))
    except (OSError, ValueError, AttributeError):
        return ""


def data_hash(intents_dir: Path, encoder: str = "") -> str:
    """What the model was trained from: the labelled data, the feature code and the sentence encoder's id."""
    h = hashlib.sha256(encoder.encode())
    for path in sorted(intents_dir.glob("*.yaml")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(Path(__file__).read_bytes())  # the features and the file format are defined here
    # ... from what the parser reads: a change there changes the features, so the model is retrained
    here = Path(__file__).resolve().parent
    for path in [here / "nlu.py", *sorted((here / "slots").glob("*.py")),
                 *sorted((intents_dir.parent / "lexicon").glob("*.yaml"))]:
        if path.exists():
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def train(texts: list[str], labels: list[str], hash_: str, vectors=None) -> ActModel:
    """Fit on delexicalised texts, and with `vectors` (the messages' sentence vectors, row by row) the second
    classifier too (scikit-learn is imported here only, at build time)."""
    import numpy as np
    from scipy.sparse import csr_matrix, hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    def fit(x):
        return LogisticRegression(C=50, max_iter=3000, class_weight="balanced").fit(x, labels)

    vec = TfidfVectorizer(analyzer=ngrams, sublinear_tf=True, min_df=1, norm="l2")
    x = vec.fit_transform(texts)
    clf = fit(x)
    sentence = (None, None)
    if vectors is not None:
        both = fit(hstack([x, csr_matrix(SENTENCE_WEIGHT * np.asarray(vectors, dtype=float))]).tocsr())
        assert list(both.classes_) == list(clf.classes_)
        sentence = (both.coef_, both.intercept_)
    vocab = {k: int(v) for k, v in vec.vocabulary_.items()}
    return ActModel(vocab, vec.idf_, clf.coef_, clf.intercept_, [str(c) for c in clf.classes_], hash_, *sentence)


def sentence_vectors(out_dir: Path, texts: list[str]):
    """The texts' vectors from the encoder saved with the index, or None when the index has none yet (the model is
    then trained on n-grams alone, and retrained once the encoder exists: `encoder_id` is part of its hash)."""
    from bot.encoder import ENCODER_DIR, EncoderError, OnnxEncoder

    if not encoder_id(out_dir):
        return None
    try:
        return OnnxEncoder(out_dir / ENCODER_DIR).embed_documents(texts)
    except EncoderError as e:
        log.warning("act model trained without sentence vectors: %s", e)
        return None


def build(intents_dir: Path, out_dir: Path, catalog, only_train: bool = True) -> ActModel:
    """Train on the train split (never the held-out one) and save next to the index."""
    from bot.nlu import parse

    utterances = [u for u in load_utterances(intents_dir) if u.split == "train" or not only_train]
    texts = [model_input(parse(u.text, catalog)) for u in utterances]
    vectors = sentence_vectors(out_dir, [u.text for u in utterances])
    model = train(texts, [u.act for u in utterances], data_hash(intents_dir, encoder_id(out_dir) if vectors else ""),
                  vectors)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        model.save(out_dir / MODEL_FILE)
    except OSError as e:  # a read-only index folder: the model still serves this process
        log.warning("could not save the act model to %s: %s", out_dir, e)
    log.info("act model: %d utterances, %d features, %d acts", len(texts), len(model.vocabulary), len(model.classes))
    return model


def is_fresh(intents_dir: Path, out_dir: Path) -> bool:
    """The saved model matches the labelled data (or there is no labelled data to train on)."""
    if not any(intents_dir.glob("*.yaml")):
        return True
    try:
        saved = json.loads((out_dir / MODEL_FILE).read_text(encoding="utf-8")).get("data_hash")
    except (OSError, ValueError):
        return False
    return saved == data_hash(intents_dir, encoder_id(out_dir))


def ensure(intents_dir: Path, out_dir: Path, catalog) -> ActModel | None:
    """The saved model when it matches the labelled data, else a fresh one; None when there is no labelled data."""
    path = out_dir / MODEL_FILE
    if not any(intents_dir.glob("*.yaml")):
        return None
    want = data_hash(intents_dir, encoder_id(out_dir))
    if path.exists():
        try:
            model = ActModel.load(path)
            if model.data_hash == want:
                return model
        except (OSError, ValueError, KeyError, TypeError, EOFError):
            log.warning("act model at %s is unreadable; retraining", path)
    return build(intents_dir, out_dir, catalog)
