"""Retrieval quality on the labelled set bench/retrieval-eval.yaml.

Runs dense-only, BM25-only and hybrid search for every question and scores them on SECTION level: a question is
answered at k when one of its acceptable sections is among the first k distinct sections of the result (that is what
the advisor shows: the best section, in the user's language). Reports recall@1, recall@3 and MRR per language and
split (tune / heldout), the refusal accuracy on off-topic questions and the false-refusal rate on on-topic ones (hybrid
relevance against the threshold), the p50 latency of a hybrid search, and writes the table to
bench/results/retrieval.md.

    .venv/bin/python bench/eval_retrieval.py [--threshold 0.42] [--failures] [--no-write]

`evaluate(index, knowledge_dir, threshold)` returns the numbers as a dict; tests/test_retrieval_eval.py reuses it.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EVAL_SET = ROOT / "bench" / "retrieval-eval.yaml"
RESULTS = ROOT / "bench" / "results" / "retrieval.md"
MODES = ("dense", "bm25", "hybrid")
RUN_ORDER = ("hybrid", "dense", "bm25")  # hybrid first, so its latency includes embedding the question
LANGS = ("zh", "en")
ROWS = ("zh", "en", "zh-Hant")  # report rows: a question marked `script: zh-Hant` counts in its own row, not in zh


def row_of(item: dict) -> str:
    return item.get("script") or item["lang"]
SPLITS = ("tune", "heldout", "all")

# The facts of the 2022 Chinese buying guide our guide is based on (knowledge/guide/about-sources.md); every one is asked at least once per
# language in the labelled set (field `seed`).
SEED_FACTS = {
    "S01": "GPU choice fundamentally decides the deep learning experience",
    "S02": "CNNs and transformers: tensor cores > FLOPs > memory bandwidth > 16-bit",
    "S03": "RNNs: memory bandwidth > 16-bit > tensor cores > FLOPs",
    "S04": "NVIDIA: CUDA standard libraries and strong community support",
    "S05": "NVIDIA licence: only Tesla GPUs may run CUDA in data centres, not GTX/RTX",
    "S06": "Tesla has no real advantage over GTX/RTX yet costs up to 10x",
    "S07": "AMD is powerful but lacks support; 16-bit compute but behind tensor cores",
    "S08": "Google TPU: cost-effective, several cloud TPUs (~4 GPUs each) faster; better for CNN training",
    "S09": "CNNs and RNNs parallelise easily, especially one machine / 4 GPUs; TensorFlow and PyTorch fine",
    "S10": "fully connected nets incl. transformers: poor data parallelism, need smarter algorithms",
    "S11": "try 1 GPU first and compare speed before going multi-GPU",
    "S12": "better parallelism hardware (PCIe lanes) matters little when buying several GPUs",
    "S13": "Dettmers: normalised performance/cost for CNN, RNN, transformer",
    "S14": "RTX 2060 more than 5x as cost-efficient as Tesla V100",
    "S15": "Word RNN = biLSTM on sequences shorter than 100",
    "S16": "benchmarked with PyTorch 1.0.1 and CUDA 10",
    "S17": "RTX 2060 beats 2070/2080/2080 Ti on value: 16-bit on tensor cores beats more tensor cores",
    "S18": "Lambda: average GPU speed-up / total system cost",
    "S19": "Lambda: GPU performance in images processed per second",
    "S20": "Lambda: image-model training throughput normalised to Quadro RTX 8000",
    "S21": "Google Colab is the most used, free, can even pick a TPU",
    "S22": "Colab free tier: mostly K80, sometimes T4, lucky ones P100",
    "S23": "Colab paid: guaranteed T4 or P100, $10 a month, said to be US-only",
    "S24": "Colab needs a stable connection to Google; drops mean retraining; poor from China",
    "S25": "Baidu AI Studio gives generous free V100 hours",
    "S26": "AI Studio: TensorFlow/PyTorch not installable, PaddlePaddle only; only for Paddle users",
    "S27": "AI Studio: GPUs short, peak-time warnings by day, available after 22:00",
    "S28": "vast.ai is an overseas option",
    "S29": "Dettmers 2019 best overall GPU: RTX 2070",
    "S30": "avoid: any Tesla, any Quadro, any Founders Edition, Titan RTX, Titan V, Titan XP",
    "S31": "cost-efficient but expensive: RTX 2070",
    "S32": "cost-efficient and cheap: RTX 2060, GTX 1060 (6GB)",
    "S33": "affordable: GTX 1060 (6GB)",
    "S34": "cheap: GTX 1050 Ti (4GB), or CPU prototyping + AWS/TPU training, or Colab",
    "S35": "Kaggle competitions: RTX 2070",
    "S36": "computer vision researchers: (R)TX 2080 Ti; very large networks: RTX Titans",
    "S37": "Lambda, Feb 2020: RTX 8000 48GB, RTX 6000 24GB, Titan RTX 24GB train all SOTA models",
    "S38": "RTX 2060 (6GB): exploring deep learning in spare time",
    "S39": "RTX 2070/2080 (8GB): serious researchers, budget 4-6k",
    "S40": "RTX 2080 Ti (11GB): serious researchers, budget 8-9k; 40% faster than RTX 2080",
    "S41": "Titan RTX / Quadro RTX 6000 (24GB): SOTA users without budget for RTX 8000",
    "S42": "Quadro RTX 8000 (48GB): pricey, excellent, an investment in the future",
    "S43": "the article's sources (Dettmers, Lambda, Zhihu @Aero)",
}


def load_set(path: Path = EVAL_SET) -> list[dict]:
    items = yaml.safe_load(path.read_text(encoding="utf-8"))
    for i, it in enumerate(items):
        missing = {"q", "lang", "sections", "fact"} - set(it)
        if missing or it["lang"] not in LANGS or it.get("script", "zh-Hant") != "zh-Hant":
            raise ValueError(f"{path}: item {i} is malformed ({sorted(missing) or it['lang']})")
        it.setdefault("split", "tune")
    return items


def ranked_sections(result) -> list[str]:
    """Distinct sections in the order the result presents them."""
    sections = getattr(result, "sections", None)
    if sections:
        return [s.section for s in sections]
    out: list[str] = []
    for h in result.hits:
        if h.passage.section not in out:
            out.append(h.passage.section)
    return out


def _rank(ranked: list[str], acceptable: list[str]) -> int | None:
    for i, s in enumerate(ranked):
        if s in acceptable:
            return i + 1
    return None


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))]


def evaluate(index, knowledge_dir: Path, threshold: float, items: list[dict] | None = None, k: int = 10) -> dict:
    """Score every method on the labelled set. Returns
    {"methods": {mode: {split: {lang: {n, recall@1, recall@3, mrr}}}},
     "refusal": {split: {lang: {offtopic, refusal_accuracy, ontopic, false_refusal_rate}}},
     "latency_ms_p50", "threshold", "failures": [...], "scores": {"on": [...], "off": [...]}, "coverage": {...}}"""
    from bot.retrieval import clear_query_cache, search

    items = items if items is not None else load_set()
    clear_query_cache(index)
    rows = []  # (item, mode, rank, relevance)
    latencies: list[float] = []
    for it in items:
        for mode in RUN_ORDER:
            t0 = time.perf_counter()
            res = search(index, it["q"], it["lang"], knowledge_dir, mode=mode, k=k)
            dt = (time.perf_counter() - t0) * 1000
            if mode == "hybrid":
                latencies.append(dt)
            rank = _rank(ranked_sections(res), it["sections"]) if it["sections"] else None
            rows.append((it, mode, rank, res.relevance, ranked_sections(res)[:3]))

    def splits_of(it):
        return (it["split"], "all")

    methods: dict = {m: {s: {lang: {"n": 0, "hit1": 0, "hit3": 0, "rr": 0.0} for lang in ROWS} for s in SPLITS}
                     for m in MODES}
    refusal: dict = {s: {lang: {"offtopic": 0, "refused": 0, "ontopic": 0, "false_refusals": 0} for lang in ROWS}
                     for s in SPLITS}
    failures = []
    scores_on, scores_off = [], []
    for it, mode, rank, rel, top3 in rows:
        for s in splits_of(it):
            if it["sections"]:
                c = methods[mode][s][row_of(it)]
                c["n"] += 1
                c["hit1"] += rank == 1
                c["hit3"] += rank is not None and rank <= 3
                c["rr"] += 1.0 / rank if rank else 0.0
            if mode == "hybrid":
                r = refusal[s][row_of(it)]
                if it["sections"]:
                    r["ontopic"] += 1
                    r["false_refusals"] += rel < threshold
                else:
                    r["offtopic"] += 1
                    r["refused"] += rel < threshold
        if mode == "hybrid":
            (scores_on if it["sections"] else scores_off).append((rel, it))
            bad = (it["sections"] and (rank is None or rank > 3 or rel < threshold)) or \
                  (not it["sections"] and rel >= threshold)
            if bad:
                failures.append({"q": it["q"], "lang": it["lang"], "split": it["split"], "expected": it["sections"],
                                 "rank": rank, "relevance": round(rel, 3), "top3": top3})
    for m in MODES:
        for s in SPLITS:
            for lang in ROWS:
                c = methods[m][s][lang]
                n = max(c["n"], 1)
                methods[m][s][lang] = {"n": c["n"], "recall@1": c["hit1"] / n, "recall@3": c["hit3"] / n,
                                       "mrr": c["rr"] / n}
    for s in SPLITS:
        for lang in ROWS:
            r = refusal[s][lang]
            refusal[s][lang] = {"offtopic": r["offtopic"], "refusal_accuracy": r["refused"] / max(r["offtopic"], 1),
                                "ontopic": r["ontopic"], "false_refusal_rate": r["false_refusals"] / max(r["ontopic"], 1)}
    return {"methods": methods, "refusal": refusal, "threshold": threshold,
            "latency_ms_p50": statistics.median(latencies) if latencies else float("nan"),
            "failures": failures,
            "scores": {"on": [(round(r, 4), it["q"], it["split"]) for r, it in scores_on],
                       "off": [(round(r, 4), it["q"], it["split"]) for r, it in scores_off]},
            "coverage": coverage(items, knowledge_dir)}


def coverage(items: list[dict], knowledge_dir: Path) -> dict:
    """Which guide sections and seed facts the set does not ask about, per language."""
    guide = {p.stem for p in (Path(knowledge_dir) / "guide").glob("*.md")}
    out = {}
    for lang in LANGS:
        asked = {s for it in items if it["lang"] == lang for s in it["sections"]}
        seeds = {it.get("seed") for it in items if it["lang"] == lang}
        out[lang] = {"missing_sections": sorted(guide - asked), "missing_seed_facts": sorted(set(SEED_FACTS) - seeds)}
    return out


def suggest_threshold(result: dict, split: str = "tune", max_false_refusals: float = 0.02) -> float:
    """Calibrate the refusal threshold from the score distributions: among thresholds that keep the on-topic
    false-refusal rate at or below `max_false_refusals` and refuse as many off-topic questions as possible, the
    midpoint of the widest gap between neighbouring scores (the most margin on both sides)."""
    on = sorted(r for r, _, s in result["scores"]["on"] if split in (s, "all"))
    off = sorted(r for r, _, s in result["scores"]["off"] if split in (s, "all"))
    cands = sorted(set(on + off))
    best = None
    for lo, hi in zip(cands, cands[1:], strict=False):
        t = (lo + hi) / 2
        false_refusals = sum(r < t for r in on) / len(on)
        if false_refusals > max_false_refusals:
            continue
        key = (sum(r < t for r in off) / len(off), hi - lo)
        if best is None or key > best[0]:
            best = (key, t)
    return round(best[1], 3) if best else float("nan")


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def report(result: dict, threshold_source: str = "settings.min_relevance") -> str:
    now = _dt.datetime.now().astimezone()
    lines = [
        "# Retrieval evaluation",
        "",
        f"Generated by `bench/eval_retrieval.py` on {now:%Y-%m-%d %H:%M %Z}. Machine: {os.cpu_count()} CPUs (`nproc`), "
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}.",
        "",
        "Section-level metrics: a question counts as answered at k when one of its acceptable sections is among the "
        "first k distinct sections of the result. Labelled set: `bench/retrieval-eval.yaml` (tune = used while tuning, "
        "heldout = not looked at while tuning). Rows: zh = Simplified Chinese, zh-Hant = Traditional versions of "
        "a third of the Chinese questions (Taiwan and Hong Kong wording, each in its original's split), en = English.",
        "",
        "| method | split | lang | n | recall@1 | recall@3 | MRR |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for s in SPLITS:
        for m in MODES:
            for lang in ROWS:
                c = result["methods"][m][s][lang]
                lines.append(f"| {m} | {s} | {lang} | {c['n']} | {_fmt(c['recall@1'])} | {_fmt(c['recall@3'])} | "
                             f"{_fmt(c['mrr'])} |")
    lines += [
        "",
        f"Refusal (hybrid relevance < threshold {result['threshold']:.3f}, from {threshold_source}; the threshold "
        f"calibrated on the tune split by `suggest_threshold` is {suggest_threshold(result)}):",
        "",
        "| split | lang | off-topic n | refusal accuracy | on-topic n | false-refusal rate |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for s in SPLITS:
        for lang in ROWS:
            r = result["refusal"][s][lang]
            refused = _fmt(r["refusal_accuracy"]) if r["offtopic"] else "—"
            lines.append(f"| {s} | {lang} | {r['offtopic']} | {refused} | {r['ontopic']} | "
                         f"{_fmt(r['false_refusal_rate'])} |")
    on = [r for r, _, _ in result["scores"]["on"]]
    off = [r for r, _, _ in result["scores"]["off"]]
    lines += [
        "",
        f"Hybrid relevance, on-topic: min {min(on):.3f}, p5 {_pct(on, 0.05):.3f}, median {_pct(on, 0.5):.3f}; "
        f"off-topic: median {_pct(off, 0.5):.3f}, p95 {_pct(off, 0.95):.3f}, max {max(off):.3f}.",
        "",
        f"Hybrid search latency, p50 per query: {result['latency_ms_p50']:.1f} ms.",
        "",
    ]
    cov = result["coverage"]
    gaps = [f"{lang}: {v}" for lang, v in cov.items() if v["missing_sections"] or v["missing_seed_facts"]]
    lines.append("Coverage: every guide section and every seed fact is asked in both languages." if not gaps
                 else "Coverage gaps: " + "; ".join(gaps))
    lines.append("")
    if result["failures"]:
        lines += ["Hybrid misses (not in the top 3 sections, or wrongly refused / answered):", ""]
        for f in result["failures"]:
            lines.append(f"- [{f['split']}/{f['lang']}] {f['q']} — expected {f['expected']}, rank {f['rank']}, "
                         f"relevance {f['relevance']}, got {f['top3']}")
        lines.append("")
    return "\n".join(lines)


def load_index():
    from bot import index
    from bot.catalog import load_catalog
    from bot.config import get_settings

    s = get_settings()
    cat = load_catalog(s.knowledge_dir)
    return index.ensure(s.index_dir, s.knowledge_dir, cat, s.model_path()), s


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threshold", type=float, default=None, help="refusal threshold (default: settings.min_relevance)")
    ap.add_argument("--failures", action="store_true", help="list every hybrid miss")
    ap.add_argument("--scores", action="store_true", help="print the relevance distribution")
    ap.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.relative_to(ROOT)}")
    args = ap.parse_args(argv)

    idx, settings = load_index()
    threshold = settings.min_relevance if args.threshold is None else args.threshold
    result = evaluate(idx, settings.knowledge_dir, threshold)
    text = report(result, "settings.min_relevance" if args.threshold is None else "--threshold")
    table_end = text.index("Hybrid misses") if "Hybrid misses" in text and not args.failures else len(text)
    print(text[:table_end])
    print(f"suggested threshold (tune split): {suggest_threshold(result)}")
    if args.scores:
        for kind in ("on", "off"):
            for r, q, s in sorted(result["scores"][kind]):
                print(f"{kind:3} {r:.3f} [{s}] {q}")
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text, encoding="utf-8")
        print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
