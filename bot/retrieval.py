"""Hybrid search: dense (MiniLM) and BM25 (jieba tokens) fused by weighted reciprocal rank, aggregated per section,
with a relevance score for abstaining.

The embedding model is English-trained, so a query is expanded with the other language's words for the domain terms
it contains (knowledge/glossary.csv): a Chinese query is embedded twice, as typed and as the English of its domain
terms, and BM25 sees both languages. A query that names a GPU of the catalog or a rental platform gets that item's
card as a candidate. Every guide section exists in both languages, so passages are scored one by one and then summed
per section; the answer is built from the best section."""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from bot.index import Index
from bot.knowledge import Passage, load_platform_rows, platform_pattern

RRF_K = 20  # small: the first few ranks of each list matter most once passages are summed per section
DEPTH = 60  # candidates taken from each ranking
# Weight of each ranking in the fusion, by query language: the dense model understands English far better.
WEIGHTS = {"zh": {"dense": 0.8, "bm25": 1.0, "entity": 0.5}, "en": {"dense": 1.0, "bm25": 1.0, "entity": 0.5}}
SECTION_DECAY = (1.0, 0.5)  # a section scores its best passage plus half its second best
UNNAMED_CARD = 0.8  # factor on the score of a GPU/platform card the question does not name
HITS_PER_SECTION = 3  # passages returned per section
GENERIC_WEIGHT = 0.5  # how much an everyday domain word (buy, price, free) counts towards understanding a question
VIEW_ALTERNATIVES = 2  # English alternatives per glossary term in the English view of a Chinese query


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float  # the passage's final score: its fused reciprocal-rank score, adjusted like its section (named item)
    dense: float  # cosine similarity of the query and the passage
    bm25: float  # BM25 score normalised to 0..1 against this query's best
    section_score: float = 0.0  # score of the passage's section (hits are ordered by it)
    fused: float = 0.0  # the plain weighted reciprocal-rank score of the passage


@dataclass(frozen=True)
class SectionScore:
    section: str
    score: float
    kind: str


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[Hit, ...]  # grouped by section, best section first; within a section best passage first (any language)
    relevance: float  # confidence that the top section answers the question, 0..1
    sections: tuple[SectionScore, ...] = ()  # every candidate section, best first
    signals: dict = field(default_factory=dict, compare=False)  # what the relevance was computed from

    @property
    def top(self) -> Hit | None:
        return self.hits[0] if self.hits else None

    @property
    def best_section(self) -> str | None:
        return self.sections[0].section if self.sections else None


# --- query expansion ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Gloss:
    zh: str
    en: tuple[str, ...]  # alternatives, the first is the preferred English
    generic: bool  # an everyday word (buy, price, free) rather than a term only this domain uses
    heads: tuple[str, ...]  # the first word of each alternative, lower case

    def in_english(self, low: str) -> bool:
        """Whether lower-cased `low` uses one of the English alternatives (words may be joined by spaces, hyphens or
        nothing). The first word is checked as a plain substring first: most terms are absent from most questions,
        so their patterns are never compiled nor run."""
        return any(h in low and _term_pattern(a).search(low) for h, a in zip(self.heads, self.en, strict=True))


@lru_cache(maxsize=4096)
def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9])" + re.escape(term.lower()).replace(r"\ ", r"[\s\-]*") + r"(?![a-z0-9])")


@lru_cache(maxsize=4)
def _glossary(knowledge_dir: Path) -> tuple[_Gloss, ...]:
    """knowledge/glossary.csv: zh, en (alternatives separated by '|'), generic ('yes' for everyday words)."""
    path = Path(knowledge_dir) / "glossary.csv"
    if not path.exists():
        return ()
    out = []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            zh, en = (row.get("zh") or "").strip(), row.get("en") or ""
            alts = tuple(a.strip() for a in en.split("|") if a.strip())
            out.append(_Gloss(zh, alts, (row.get("generic") or "").strip().lower() in ("yes", "1", "true"),
                              tuple(a.lower().split(" ", 1)[0] for a in alts)))
    return tuple(out)


def expand_terms(query: str, knowledge_dir: Path) -> tuple[list[str], list[str]]:
    """(English for the Chinese domain terms in the query, Chinese for its English domain terms)."""
    low = query.lower()
    en_terms: list[str] = []
    zh_terms: list[str] = []
    present = {h for h in _heads(knowledge_dir) if h in low}  # one pass, instead of one per term
    for g in _chinese_terms(low, knowledge_dir):
        en_terms.extend(a for a in g.en if a not in en_terms)
    for g in _glossary(knowledge_dir):
        if not present.isdisjoint(g.heads) and g.in_english(low) and g.zh not in zh_terms:
            zh_terms.append(g.zh)
    return en_terms, zh_terms


def _chinese_terms(low: str, knowledge_dir: Path) -> list[_Gloss]:
    """The glossary's Chinese terms in lower-cased `low`, longest first where they overlap: "显存带宽" is memory
    bandwidth, not also VRAM and bandwidth on their own (the shorter terms flooded the query's English with
    "memory" and sent "what is memory bandwidth for" to the memory-size sections)."""
    found = [(m.start(), m.start() + len(g.zh), g) for g in _glossary(knowledge_dir) if g.zh
             for m in re.finditer(re.escape(g.zh.lower()), low)]
    covered = [(a, b) for a, b, _ in found]
    out: list[_Gloss] = []
    for a, b, g in found:
        inside = any(x <= a and b <= y and (y - x) > (b - a) for x, y in covered)
        if not inside and g not in out:
            out.append(g)
    return out


@lru_cache(maxsize=4)
def _heads(knowledge_dir: Path) -> frozenset[str]:
    return frozenset(h for g in _glossary(knowledge_dir) for h in g.heads)


def expand(query: str, lang: str, knowledge_dir: Path) -> tuple[str, str]:
    """(text to embed, text for BM25): each with the other language's words for the domain terms it contains."""
    en_terms, zh_terms = expand_terms(query, knowledge_dir)
    dense = f"{query} {' '.join(en_terms)}".strip()
    sparse = f"{query} {' '.join(en_terms)} {' '.join(zh_terms)}".strip()
    return dense, sparse


_LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+\-]*(?:\s+[A-Za-z0-9][A-Za-z0-9.+\-]*)*")


def _english_view(query: str, knowledge_dir: Path) -> str:
    """The Latin-script parts of a Chinese query plus the preferred English of its domain terms: what MiniLM reads."""
    latin = " ".join(m.group(0) for m in _LATIN.finditer(query))
    low = query.lower()
    terms: list[str] = []
    for g in _chinese_terms(low, knowledge_dir):
        for a in g.en[:VIEW_ALTERNATIVES]:
            if a not in terms:
                terms.append(a)
    return f"{latin} {' '.join(terms)}".strip()


def dense_text(query: str, lang: str, knowledge_dir: Path, en_terms: list[str] | None = None) -> tuple[str, bool]:
    """What a search encodes, one text per question, and whether the relevance may trust its score: the question with
    the English of its domain terms; for a Chinese question its English view instead (MiniLM reads Chinese characters
    as noise: encoding the question itself as well cost a second encoding and moved no section out of the top 3 on
    the tune split). A Chinese question without a view still searches, but its dense score judges nothing."""
    if lang == "zh":
        view = _english_view(query, knowledge_dir)
        if view:
            return view, True
    if en_terms is None:
        en_terms = expand_terms(query, knowledge_dir)[0]
    return f"{query} {' '.join(en_terms)}".strip(), lang != "zh"


# --- named items: GPUs of the catalog and rental platforms ---------------------------------------------------------

@lru_cache(maxsize=4)
def _catalog(knowledge_dir: Path):
    from bot.catalog import load_catalog

    try:
        return load_catalog(knowledge_dir)
    except Exception:  # a broken catalog must not break search; GPU cards are then found by text only
        return None


def named_sections(query: str, knowledge_dir: Path, sections: set[str]) -> list[str]:
    """Sections of the GPUs and platforms the query names, in order of mention."""
    found: list[tuple[int, str]] = []
    cat = _catalog(knowledge_dir)
    if cat is not None:
        low = query.lower()
        for g in cat.mentions(query):
            sec = f"gpu:{g.name}"
            if sec in sections:
                at = [i for i in (low.find(a.lower()) for a in (g.name, *g.aliases)) if i >= 0]
                found.append((min(at) if at else len(low), sec))
    pat, names = platform_pattern(knowledge_dir)
    if pat is not None:
        for m in pat.finditer(query):
            sec = f"platform:{names[m.group(1).lower()]}"
            if sec in sections and sec not in [s for _, s in found]:
                found.append((m.start(), sec))
    out: list[str] = []
    for _, s in sorted(found):
        if s not in out:
            out.append(s)
    return out


# --- per-index caches -----------------------------------------------------------------------------------------------

@dataclass
class _Cache:
    vectors: np.ndarray  # passage vectors in passage order (normalised)
    idf: dict[str, float]
    section_tokens: dict[str, frozenset[str]]
    section_positions: dict[str, list[int]]
    sections: set[str]
    query_vectors: dict[str, np.ndarray] = field(default_factory=dict)


def _cache(index: Index) -> _Cache:
    cached = getattr(index, "_retrieval_cache", None)
    if cached is not None:
        return cached
    n = len(index.passages)
    by_id = {p.id: i for i, p in enumerate(index.passages)}
    raw = index.faiss.vectors()
    vectors = np.zeros((n, raw.shape[1]), dtype=np.float32)
    for row, doc in enumerate(index.faiss.docs):
        vectors[by_id[doc.id]] = raw[row]
    df: dict[str, int] = {}
    section_tokens: dict[str, set[str]] = {}
    section_positions: dict[str, list[int]] = {}
    for i, p in enumerate(index.passages):
        toks = set(index.passage_tokens[i] if index.passage_tokens else index.tokenize(p.search_text))
        for t in toks:
            df[t] = df.get(t, 0) + 1
        section_tokens.setdefault(p.section, set()).update(toks)
        section_positions.setdefault(p.section, []).append(i)
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    idf[""] = math.log(1 + (n + 0.5) / 0.5)  # the weight of a word the corpus never uses
    cached = _Cache(vectors, idf, {s: frozenset(t) for s, t in section_tokens.items()}, section_positions,
                    set(section_positions))
    index._retrieval_cache = cached
    return cached


def _embed(index: Index, cache: _Cache, texts: list[str]) -> np.ndarray:
    """Query vectors, remembered for the last few hundred texts (follow-ups and the three eval modes repeat them)."""
    missing = list(dict.fromkeys(t for t in texts if t not in cache.query_vectors))
    if missing:
        vecs = index.embedder.embed_documents(missing) if len(missing) > 1 else [index.embedder.embed_query(missing[0])]
        if len(cache.query_vectors) > 512:
            cache.query_vectors.clear()
        for t, v in zip(missing, vecs, strict=True):
            cache.query_vectors[t] = np.asarray(v, dtype=np.float32)
    return np.stack([cache.query_vectors[t] for t in texts])


def clear_query_cache(index: Index) -> None:
    """Forget remembered query vectors (benchmarks call this to time cold queries)."""
    cached = getattr(index, "_retrieval_cache", None)
    if cached is not None:
        cached.query_vectors.clear()


# --- search ---------------------------------------------------------------------------------------------------------

def search(index: Index, query: str, lang: str, knowledge_dir: Path, mode: str = "hybrid", k: int = 10,
           kinds: tuple[str, ...] | None = None) -> SearchResult:
    """Rank passages for `query`, grouped by section. mode: hybrid | dense | bm25."""
    if mode not in ("hybrid", "dense", "bm25"):
        raise ValueError(f"unknown search mode {mode!r}")
    if not query.strip():
        return SearchResult((), 0.0)
    from bot.slots.text import to_script

    query = to_script(query, "zh-cn")  # the knowledge is written in Simplified: "免費" finds what "免费" finds
    cache = _cache(index)
    n = len(index.passages)
    en_terms, zh_terms = expand_terms(query, knowledge_dir)
    weights = WEIGHTS.get(lang, WEIGHTS["en"])
    allowed = np.ones(n, dtype=bool)
    if kinds:
        allowed = np.array([p.kind in kinds for p in index.passages])

    rankings: list[tuple[float, list[int]]] = []
    dense_scores = np.zeros(n, dtype=np.float32)
    judge_scores = dense_scores
    if mode in ("hybrid", "dense"):
        text, trusted = dense_text(query, lang, knowledge_dir, en_terms)
        dense_scores = cache.vectors @ _embed(index, cache, [text])[0]
        # what the relevance trusts: for Chinese only the English view (MiniLM reads Chinese characters as noise)
        judge_scores = dense_scores if trusted else np.zeros(n, np.float32)
        ranked = np.argsort(-dense_scores)
        order = ranked[allowed[ranked]][:DEPTH].tolist()
        rankings.append((weights["dense"] if mode == "hybrid" else 1.0, order))

    bm_scores = np.zeros(n, dtype=np.float32)
    tokens: list[str] = []
    if mode in ("hybrid", "bm25"):
        tokens = index.tokenize(f"{query} {' '.join(en_terms)}") + index.tokenize_terms(zh_terms)
        if tokens:
            raw = np.asarray(index.bm25.get_scores(tokens), dtype=np.float32)
            top = float(raw.max()) if raw.size else 0.0
            if top > 0:
                bm_scores = raw / top
                ranked = np.argsort(-raw)
                order = ranked[(raw[ranked] > 0) & allowed[ranked]][:DEPTH].tolist()
                rankings.append((weights["bm25"] if mode == "hybrid" else 1.0, order))

    fused = np.zeros(n, dtype=np.float64)
    for w, order in rankings:
        for r, pos in enumerate(order):
            fused[pos] += w / (RRF_K + r + 1)

    # section scores: best passage + half the second best, plus a bonus when the query names the item
    named = named_sections(query, knowledge_dir, cache.sections) if mode == "hybrid" else []
    factor: dict[str, float] = {}  # per section: multiplies its passages' fused scores
    bonus: dict[str, float] = {}  # per section: added for a named item
    if mode == "hybrid":
        for sec, positions in cache.section_positions.items():
            # a GPU's or platform's card answers questions about that item; when the question names no item, the
            # card competes with the guide sections only at a discount (all cards share words like "cloud")
            if sec not in named and index.passages[positions[0]].kind != "guide":
                factor[sec] = UNNAMED_CARD
        for i, sec in enumerate(named):
            if kinds and index.passages[cache.section_positions[sec][0]].kind not in kinds:
                continue
            # one named item is probably what the question is about; several are probably being compared
            bonus[sec] = weights["entity"] / (RRF_K + 1 + i) / len(named) ** 2
    final = fused.copy()
    sec_scores: dict[str, float] = {}
    for sec, positions in cache.section_positions.items():
        f, b = factor.get(sec, 1.0), bonus.get(sec, 0.0)
        for p in positions:
            if fused[p] > 0 or b:
                final[p] = fused[p] * f + b
        vals = sorted((fused[p] * f for p in positions if fused[p] > 0), reverse=True)
        if vals or b:
            sec_scores[sec] = sum(v * d for v, d in zip(vals, SECTION_DECAY, strict=False)) + b

    ranked = sorted(sec_scores, key=lambda s: (-sec_scores[s], s))
    sections = tuple(SectionScore(s, float(sec_scores[s]), index.passages[cache.section_positions[s][0]].kind)
                     for s in ranked)
    hits: list[Hit] = []
    for s in ranked:
        if len(hits) >= k:
            break
        positions = [p for p in cache.section_positions[s] if allowed[p]]
        positions.sort(key=lambda p: (-fused[p], index.passages[p].lang != lang, index.passages[p].position))
        for p in positions[:HITS_PER_SECTION]:
            if len(hits) >= k:
                break
            hits.append(Hit(index.passages[p], float(final[p]), float(dense_scores[p]), float(bm_scores[p]),
                            float(sec_scores[s]), float(fused[p])))
    rel, signals = _relevance(query, lang, mode, sections, judge_scores, tokens, cache, knowledge_dir, named)
    return SearchResult(tuple(hits), rel, sections, signals)


OFF_TOPIC_DISCOUNT = 0.3  # what a question about another topic keeps of its relevance: below the refusal threshold


def about_something_else(query: str) -> bool:
    """The question is about something the guide does not cover although its words are close to ours: a task we do
    not do (writing a CUDA kernel, fixing a driver install), cards not released yet (leaks, rumours), or words of
    another topic (stocks, phones, games, CPU overclocking) with no word of machine learning. The word lists are the
    dialogue's (knowledge/lexicon/slots.yaml)."""
    from bot.slots.context import cues
    from bot.slots.lexicon import words
    from bot.slots.text import find_any, has_any, mask, normalise

    text = normalise(query)
    text = mask(text, find_any(text, words("slots", "form_factor", "laptop")))  # 游戏本 is a laptop, not a game
    if has_any(text, words("slots", "support_we_do_not_give")) or has_any(text, words("slots", "cues", "speculation")):
        return True
    found = cues(text)  # the dialogue's reading: a mining card or a gaming card for ML is ours
    return "offtopic" in found and "dl" not in found


def _relevance(query: str, lang: str, mode: str, sections: tuple[SectionScore, ...], judge_scores: np.ndarray,
               tokens: list[str], cache: _Cache, knowledge_dir: Path, named: list[str]) -> tuple[float, dict]:
    """How sure we are that the best section answers the question, 0..1.

    Two signals: how close the best section is to the question (cosine similarity of its best passage; for Chinese
    questions measured on their English view, since MiniLM reads Chinese characters as noise), and how much of the
    question is domain vocabulary at all (glossary, section keywords, GPU and platform names; everyday words count
    half). A question we understand raises a moderate similarity to their mean; a question made of words we do not
    know keeps only its similarity. Calibrated against bench/retrieval-eval.yaml (bench/eval_retrieval.py)."""
    if not sections:
        return 0.0, {}
    best = sections[0].section
    positions = cache.section_positions[best]
    dense = float(max(0.0, max(judge_scores[p] for p in positions)))
    understood, specific = understanding(query, knowledge_dir)
    toks = list(dict.fromkeys(tokens))
    coverage = 0.0
    if toks:
        have = cache.section_tokens[best]
        unseen = cache.idf[""]
        total = sum(cache.idf.get(t, unseen) for t in toks)
        coverage = sum(cache.idf.get(t, unseen) for t in toks if t in have) / total if total else 0.0
    elsewhere = about_something_else(query)
    signals = {"section": best, "dense": round(dense, 4), "understood": round(understood, 4),
               "coverage": round(coverage, 4), "named": bool(named),
               "specific": specific, "elsewhere": elsewhere}
    if elsewhere:  # the question is about another topic, however close its words are to ours: say we don't know
        return OFF_TOPIC_DISCOUNT * (0.5 * dense + 0.5 * understood), signals
    if mode == "dense":
        return dense, signals
    if mode == "bm25":
        return 0.5 * coverage + 0.5 * understood, signals
    blended = 0.5 * dense + 0.5 * understood
    if not specific and not named:
        # only everyday words ("buy or rent, which is cheaper?"): that could be about anything, so the evidence
        # must be twice as strong before we answer from the guide
        return 0.5 * min(dense, blended), signals
    if lang == "zh" and not specific:
        # the English view of a Chinese question with only everyday domain words (buy, rent, price) is all domain
        # words by construction, so its similarity alone proves nothing
        return min(dense, blended), signals
    return max(dense, blended), signals


# --- how much of a question is domain vocabulary ------------------------------------------------------------------

# Function words that carry no topic; they count neither for nor against a question.
_ZH_FUNCTION = sorted(set("""的 了 是 在 和 与 或 吗 呢 吧 啊 呀 嘛 么 我 你 他 她 它 们 这 那 有 也 就 都 要 会 能 可以 什么 怎么
怎样 怎么样 如何 哪 哪些 哪个 哪张 哪几 个 为什么 为啥 多少 几 是不是 能不能 有没有 到底 大概 一般 现在 还是 应该 需要 一个 一下
请问 请 把 被 给 让 对 从 到 为 以 及 其 该 些 还 又 很 最 更 比 跟 着 过 吗 上 下 里 中 说 用 做 想 看 得 地 当 年""".split()),
                      key=len, reverse=True)
_EN_FUNCTION = frozenset("""a an the is are was were be been being am to of in on for and or with what which how do does did
done can could i you it its my me mine should would will shall may might must this that these those there here any
why when where who whom whose much many have has had get got really just so than then their them they we our your
at by from as if not no but about into out up down over under again more most other some such only own same too very
s t ve ll re d m don now also per vs one ones thing things way lot lots like make made want need tell please know
something anything every each all both few still even yet ever""".split())


@dataclass(frozen=True)
class _Lexicon:
    zh_terms: tuple[tuple[str, bool], ...]  # (term, generic), longest first
    en_words: dict[str, bool]  # word -> generic


@lru_cache(maxsize=4)
def _lexicon(knowledge_dir: Path) -> _Lexicon:
    """The domain vocabulary: the glossary, the section keywords and the names of the GPUs and platforms. Words the
    glossary marks as everyday (buy, price, free, ...) are 'generic'; every other domain word is specific."""
    from bot.knowledge import load_sections

    zh: dict[str, bool] = {}
    en: dict[str, bool] = {}

    def add(term: str, generic: bool = False) -> None:  # once everyday, always everyday
        term = term.strip().lower()
        if re.search(r"[\u4e00-\u9fff]", term):
            zh[term] = zh.get(term, False) or generic
        for w in re.findall(r"[a-z0-9]+", term):
            if w not in _EN_FUNCTION and len(w) > 1:
                en[w] = en.get(w, False) or generic

    for g in _glossary(knowledge_dir):
        add(g.zh, g.generic)
        for a in g.en:
            add(a, g.generic)
    for sec in load_sections(knowledge_dir):
        for kw in sec.keywords["zh"] + sec.keywords["en"]:
            add(kw)
    for g in _catalog(knowledge_dir) or ():
        for name in (g.name, *g.aliases):
            add(name)
    for r in load_platform_rows(knowledge_dir):
        for name in [r["name"], r.get("name_zh", "")] + r.get("aliases", "").split("|"):
            add(name)
    return _Lexicon(tuple(sorted(zh.items(), key=lambda kv: len(kv[0]), reverse=True)), en)


def _word_class(w: str, en: dict[str, bool]) -> bool | None:
    """None: not a domain word; True: an everyday domain word; False: a specific one. Plurals count."""
    for cand in (w, w[:-1] if len(w) > 3 and w.endswith("s") else None, w[:-2] if len(w) > 4 and w.endswith("es")
                 else None):
        if cand and cand in en:
            return en[cand]
    return None


def understanding(query: str, knowledge_dir: Path) -> tuple[float, bool]:
    """(share of the question's content that is domain vocabulary, whether it has a specific domain term).

    Content is Chinese characters and Latin words, function words left out; a Latin word weighs as much as two
    Chinese characters; an everyday domain word counts half."""
    lex = _lexicon(knowledge_dir)
    low = query.lower()
    known = [0.0] * len(low)  # 1 specific, 0.5 everyday
    function = [False] * len(low)
    for term, generic in lex.zh_terms:
        weight = GENERIC_WEIGHT if generic else 1.0
        start = low.find(term)
        while start >= 0:
            for i in range(start, start + len(term)):
                known[i] = max(known[i], weight)
            start = low.find(term, start + 1)
    for w in _ZH_FUNCTION:
        start = low.find(w)
        while start >= 0:
            for i in range(start, start + len(w)):
                function[i] = True
            start = low.find(w, start + 1)
    total = have = 0.0
    specific = False
    for i, ch in enumerate(low):
        if "\u4e00" <= ch <= "\u9fff" and (known[i] or not function[i]):
            total += 1
            have += known[i]
            specific = specific or known[i] == 1.0
    for m in re.finditer(r"[a-z0-9]+", low):
        w = m.group(0)
        if w in _EN_FUNCTION or len(w) < 2:
            continue
        total += 2
        cls = _word_class(w, lex.en_words)
        if cls is not None:
            have += 2.0 * (GENERIC_WEIGHT if cls else 1.0)
            specific = specific or not cls
    return (have / total if total else 0.0), specific


def understood_fraction(query: str, knowledge_dir: Path) -> float:
    return understanding(query, knowledge_dir)[0]
