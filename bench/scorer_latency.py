"""Latency of a budget question: `Conversation.turn` on a scorer-only engine (no index, no model), after loading.

Each question is asked as the first turn of a fresh conversation, ROUNDS times over, after one warm-up round.
Prints p50/p95 and writes bench/results/scorer.md. Also checks that answering never imported torch or
sentence-transformers (a budget question must not load the retrieval stack).

    .venv/bin/python bench/scorer_latency.py [--rounds 25]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import date, datetime
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_P50_MS = 5.0
HEAVY = ("torch", "sentence_transformers", "transformers", "faiss")

QUESTIONS = [
    "预算5000元训练CNN买什么卡？",
    "预算一万五，做Transformer/NLP训练",
    "八千块，图像分类入门",
    "5k左右，跑LSTM时序模型",
    "预算两千美元，微调7B模型用QLoRA",
    "1.5万，本地跑70B大模型推理，4bit量化",
    "預算五千元，圖像生成（stable diffusion）",
    "二手也行，3000元以内，Kaggle比赛",
    "两张卡，预算2万，训练transformer",
    "A卡，预算6000，深度学习入门",
    "$800 for CNN training",
    "I have $1500 to fine-tune a 7B LLM with LoRA",
    "under $400, learning deep learning",
    "$3000 to run a 70B model at 4-bit",
    "5k RMB for stable diffusion",
    "budget 1,200 dollars, NLP transformers",
    "used is fine, $600, Kaggle competitions",
    "AMD card under $1000 for LLM inference, 13B",
    "2x GPUs, $2500, computer vision",
    "$2000, RNN / time series, fp16",
]


def _machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"nproc": str(os.cpu_count()), "cpu": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "date": datetime.now().strftime("%Y-%m-%d %H:%M")}


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scorer.md")
    args = ap.parse_args()

    t0 = time.perf_counter()
    from bot.catalog import load_catalog
    from bot.config import get_settings
    from bot.dialogue import Conversation, Engine

    s = get_settings()
    engine = Engine(load_catalog(s.knowledge_dir, s.catalog), s.knowledge_dir, s.index_dir, s.model_path,
                    s.min_relevance, s.max_input_chars, today=date.today())
    load_s = time.perf_counter() - t0

    first_ms = []
    for q in QUESTIONS:  # warm-up: the first call of each path compiles regexes, reads YAML, converts scripts
        t = time.perf_counter()
        reply = Conversation(engine).turn(q)
        first_ms.append((time.perf_counter() - t) * 1000)
        assert reply.intent == "recommend", (q, reply.intent, reply.paragraphs[:1])

    per_question: dict[str, list[float]] = {q: [] for q in QUESTIONS}
    for _ in range(args.rounds):
        for q in QUESTIONS:
            conv = Conversation(engine)
            t = time.perf_counter()
            conv.turn(q)
            per_question[q].append((time.perf_counter() - t) * 1000)
    samples = [x for xs in per_question.values() for x in xs]
    p50, p95 = _pct(samples, 50), _pct(samples, 95)

    heavy = [m for m in HEAVY if m in sys.modules]
    index_loaded = engine.index_loaded
    m = _machine()
    ok = p50 < TARGET_P50_MS and not heavy and not index_loaded

    lines = [
        "# Scorer latency: `Conversation.turn` on a budget question",
        "",
        f"- machine: {m['nproc']} CPUs, {m['cpu']}; Python {m['python']}; {m['platform']}",
        f"- date: {m['date']}",
        f"- engine: catalog + perf model + workloads, no retrieval index (loaded in {load_s:.2f} s, imports included)",
        f"- {len(QUESTIONS)} budget questions (10 Chinese, 10 English), each the first turn of a fresh conversation, "
        f"{args.rounds} rounds after one warm-up round: {len(samples)} turns",
        "",
        "| measure | ms |",
        "|---|---|",
        f"| p50 | {p50:.2f} |",
        f"| p95 | {p95:.2f} |",
        f"| mean | {statistics.fmean(samples):.2f} |",
        f"| max | {max(samples):.2f} |",
        f"| first (cold) call, median over questions | {statistics.median(first_ms):.2f} |",
        "",
        f"Target p50 < {TARGET_P50_MS:g} ms: {'met' if p50 < TARGET_P50_MS else 'NOT MET'}.",
        f"Heavy modules imported while answering ({', '.join(HEAVY)}): {', '.join(heavy) or 'none'}; "
        f"retrieval index loaded: {'yes' if index_loaded else 'no'}.",
        "",
        "| question | p50 ms |",
        "|---|---|",
    ]
    lines += [f"| {q} | {statistics.median(v):.2f} |" for q, v in per_question.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    assert "torch" not in sys.modules and "sentence_transformers" not in sys.modules, heavy
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
