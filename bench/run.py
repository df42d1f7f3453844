"""`make bench`: cold start, per-question latency, index build, peak memory and the Telegram bot under load.

Prints a table and writes bench/results/latest.md (machine, versions, date). Figures are medians with spreads, and
cold starts are ratios to `python -c "import torch"` on the same machine, so they compare across machines."""

from __future__ import annotations

import compileall
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
PY = sys.executable
ENV = dict(os.environ, HF_HUB_OFFLINE="1")

BUDGET_QUESTIONS = ["预算5000元训练CNN买什么卡", "$1500, LoRA on a 7B model", "八千块入门深度学习", "$800 for Kaggle",
                    "一万五做图像生成", "$3000 to run a 13B model", "预算两万，两张卡训练Transformer", "$400 for learning",
                    "预算3000元，二手也行，训练CNN", "$2000 for time series LSTM"]
RETRIEVAL_QUESTIONS = ["国内用哪个云平台？", "is AMD usable for PyTorch?", "Colab 免费版是什么卡？", "为什么不建议买 Tesla？",
                       "多卡训练 Transformer 划算吗？", "what matters most for RNN speed?", "百度 AI Studio 能用 PyTorch 吗？",
                       "how does Lambda measure GPU value?", "张量核心为什么重要", "Is vast.ai cheap?"]
FOLLOW_UPS = ["预算8000训练CNN推荐什么卡", "便宜点的呢？", "显存大一点的？", "为什么？", "对比一下前两个", "二手的可以吗？"]


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def timed_runs(cmd: list[str], n: int, stdin: str | None = None) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=ENV, cwd=ROOT, check=True)
        out.append(time.perf_counter() - t)
    return out


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.3f} s (min {min(values):.3f}, max {max(values):.3f}, n={len(values)})"


def rss_of(cmd: list[str], stdin: str) -> float:
    """Peak resident memory (MB) of `cmd`, read from a wrapper process's RUSAGE_CHILDREN."""
    code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], input=sys.stdin.read(), "
            "capture_output=True, text=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    p = subprocess.run([PY, "-c", code, *cmd], input=stdin, capture_output=True, text=True, env=ENV, cwd=ROOT)
    return int(p.stdout.strip() or 0) / 1024


def bench_cold_start(rows: list[tuple[str, str, str]]) -> None:
    # Bytecode first, as a user has it from the second run on (and as pip writes it for torch at install): with
    # PYTHONDONTWRITEBYTECODE set, as on some shared machines, every run would otherwise recompile each edited module.
    compileall.compile_dir(ROOT / "bot", quiet=1)
    n = 5
    torch = timed_runs([PY, "-c", "import torch"], n)
    budget = timed_runs([PY, "-m", "bot", "ask", "--json", BUDGET_QUESTIONS[0]], n)
    # answered from the guide: an English question, and a Chinese one (which also cuts Chinese words with jieba)
    retrieval_en = timed_runs([PY, "-m", "bot", "ask", "--json", RETRIEVAL_QUESTIONS[1]], n)
    retrieval_zh = timed_runs([PY, "-m", "bot", "ask", "--json", RETRIEVAL_QUESTIONS[3]], n)
    base = statistics.median(torch)
    rows.append(("cold start: `python -c 'import torch'` (baseline)", spread(torch), "1.00×"))
    rows.append(("cold start: budget question (`ask`, act model included)", spread(budget),
                 f"{statistics.median(budget) / base:.2f}× (target ≤ 0.5×)"))
    for lang, runs in (("English", retrieval_en), ("Chinese", retrieval_zh)):
        rows.append((f"cold start: free-form question answered from the guide, {lang} (`ask`)", spread(runs),
                     f"{statistics.median(runs) / base:.2f}× (target ≤ 0.6×)"))
    for lang, q in (("English", RETRIEVAL_QUESTIONS[1]), ("Chinese", RETRIEVAL_QUESTIONS[3])):
        rss = rss_of([PY, "-m", "bot", "ask", "--json", q], "")
        rows.append((f"peak RSS: one free-form answer, {lang} (`ask`)", f"{rss:.0f} MB", "target ≤ 250 MB"))


def bench_latency(rows: list[tuple[str, str, str]]) -> None:
    from bot.dialogue import Conversation, Engine
    from bot.retrieval import clear_query_cache

    engine = Engine.from_settings()
    _ = engine.index
    for q in RETRIEVAL_QUESTIONS[:2] + BUDGET_QUESTIONS[:2]:  # warm caches
        Conversation(engine).turn(q)
    for label, questions, target in (("scorer (understanding + ranking)", BUDGET_QUESTIONS, 0.005),
                                     ("free-form turn (understanding + retrieval + reply)", RETRIEVAL_QUESTIONS,
                                      0.030)):
        times = []
        for _ in range(5):
            clear_query_cache(engine.index)  # every round embeds its questions again: no cached vectors
            for q in questions:
                conv = Conversation(engine)
                t = time.perf_counter()
                conv.turn(q)
                times.append(time.perf_counter() - t)
        rows.append((f"per question, loaded: {label} ({len(times)} turns)",
                     f"p50 {1000 * pct(times, 50):.1f} ms, p95 {1000 * pct(times, 95):.1f} ms",
                     f"target p50 < {1000 * target:.0f} ms"))
    # the retrieval step alone (encode, FAISS, BM25, fusion, relevance) against one query encoding with the same ONNX
    # encoder in the same run: retrieval should cost at most ~1.5× that. A search encodes one text (for a Chinese
    # question its English view, shorter than the question), so it is also compared with encoding exactly that text.
    from bot.retrieval import dense_text, search
    from bot.slots.text import detect_language

    embedder = engine.index.embedder
    one: dict[str, list[float]] = {"en": [], "zh": []}
    own: dict[str, list[float]] = {"en": [], "zh": []}
    step: dict[str, list[float]] = {"en": [], "zh": []}
    for _ in range(5):
        clear_query_cache(engine.index)
        for q in RETRIEVAL_QUESTIONS:
            lang = detect_language(q)
            text = dense_text(q, lang, engine.knowledge_dir)[0]
            t = time.perf_counter()
            search(engine.index, q, lang, engine.knowledge_dir)
            step[lang].append(time.perf_counter() - t)
            t = time.perf_counter()
            embedder.embed_query(q)
            one[lang].append(time.perf_counter() - t)
            t = time.perf_counter()
            embedder.embed_query(text)
            own[lang].append(time.perf_counter() - t)
    all_one, all_step = one["en"] + one["zh"], step["en"] + step["zh"]
    rows.append((f"one query encoding (ONNX Runtime, {len(all_one)} encodings)", f"p50 {1000 * pct(all_one, 50):.1f} ms",
                 ""))
    rows.append((f"retrieval step alone, loaded ({len(all_step)} questions: {len(step['en'])} English, "
                 f"{len(step['zh'])} Chinese)", f"p50 {1000 * pct(all_step, 50):.1f} ms",
                 f"{pct(all_step, 50) / pct(all_one, 50):.2f}× one encoding (target ≤ 10 ms and ≤ 1.5×)"))
    for lang, name in (("en", "English"), ("zh", "Chinese")):
        rows.append((f"retrieval step alone, {name} questions", f"p50 {1000 * pct(step[lang], 50):.1f} ms",
                     f"{pct(step[lang], 50) / pct(one[lang], 50):.2f}× one encoding; "
                     f"{pct(step[lang], 50) / pct(own[lang], 50):.2f}× encoding the text it encodes"))
    times = []
    for _ in range(5):
        conv = Conversation(engine)
        conv.turn(FOLLOW_UPS[0])
        for q in FOLLOW_UPS[1:]:
            t = time.perf_counter()
            conv.turn(q)
            times.append(time.perf_counter() - t)
    rows.append((f"per question, loaded: follow-up turns ({len(times)})",
                 f"p50 {1000 * pct(times, 50):.1f} ms, p95 {1000 * pct(times, 95):.1f} ms", ""))


def bench_understanding(rows: list[tuple[str, str, str]]) -> None:
    """Act accuracy, slot exact-match, refusals and story success on the held-out split (bench/eval_understanding.py
    writes the details to bench/results/understanding.md)."""
    p = subprocess.run([PY, "bench/eval_understanding.py", "--split", "heldout", "--failures", "0"], env=ENV, cwd=ROOT,
                       capture_output=True, text=True)
    table = [line for line in p.stdout.splitlines() if line.startswith("| all |")]
    stories = next((line for line in p.stdout.splitlines() if line.startswith("Stories:")), "")
    if not table:
        rows.append(("understanding (held-out)", f"failed: {p.stderr.strip()[-200:]}", ""))
        return
    cells = [c.strip() for c in table[0].strip("|").split("|")]
    rows.append(("understanding, held-out: act accuracy / slot exact-match", f"{cells[2]} / {cells[3]}",
                 "targets ≥ 0.95 / ≥ 0.95"))
    rows.append(("understanding, held-out: in-scope refused / out-of-scope answered", f"{cells[4]} / {cells[6]}",
                 "targets ≤ 0.01 / ≤ 0.05"))
    rows.append(("understanding, held-out: stories", stories.replace("Stories: ", ""), "target ≥ 0.9"))


def bench_fit(rows: list[tuple[str, str, str]]) -> None:
    """The tokens/s estimator on the held-out measurements (bench/eval_fit.py writes the details to
    bench/results/fit.md)."""
    p = subprocess.run([PY, "bench/eval_fit.py"], env=ENV, cwd=ROOT, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("| **held-out**"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append((f"LLM {cells[1]} tokens/s, held-out ({cells[2]} rows, {cells[3]} GPUs): median / p80 ratio "
                         f"error, Spearman", f"{cells[4]} / {cells[5]}, {cells[6]}",
                         "targets ≤ 1.15× / ≤ 1.35×" if cells[1] == "decode" else "(no target)"))
    if p.returncode:
        rows.append(("LLM tokens/s estimator", f"failed: {p.stderr.strip()[-200:]}", ""))


def bench_index(rows: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(ENV, GPU_ADVISOR_INDEX_DIR=tmp)
        t = time.perf_counter()
        subprocess.run([PY, "-m", "bot", "index", "build"], env=env, cwd=ROOT, capture_output=True, check=True)
        rows.append(("index build (whole knowledge/, fresh process)", f"{time.perf_counter() - t:.1f} s", ""))


def bench_memory(rows: list[tuple[str, str, str]]) -> None:
    turns = "\n".join(FOLLOW_UPS + RETRIEVAL_QUESTIONS[:3]) + "\n"
    rss = rss_of([PY, "-m", "bot", "chat", "--json"], turns)
    rows.append(("peak RSS: chat (scorer + retrieval turns)", f"{rss:.0f} MB", ""))


def bench_bot(rows: list[tuple[str, str, str]]) -> None:
    try:
        from bench.bot_load import run_load
    except ImportError as e:
        rows.append(("bot under load", f"skipped ({e})", ""))
        return
    result = run_load()
    for label, value, target in result:
        rows.append((label, value, target))
    # 200 scorer messages and 20 free-form questions in one process: the bot's memory with the index loaded
    mixed = run_load(retrieval=20, rate=0)
    for label, value, target in mixed:
        if "peak RSS" in label or "free-form" in label:
            rows.append((label + " — mixed run", value, "target ≤ 300 MB" if "peak RSS" in label else target))


def main() -> int:
    rows: list[tuple[str, str, str]] = []
    # the steps that start child processes come before this process loads the model: a forked child's peak RSS
    # starts from its parent's
    steps = [bench_cold_start, bench_index, bench_memory, bench_bot, bench_understanding, bench_fit, bench_latency]
    for step in steps:
        print(f"… {step.__name__}", file=sys.stderr, flush=True)
        step(rows)
    import importlib.metadata as md

    versions = ", ".join(f"{p} {md.version(p)}" for p in ("torch", "sentence-transformers", "faiss-cpu", "bm25s",
                                                          "python-telegram-bot"))
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Benchmarks", "", f"- date: {now}", f"- machine: {machine()}", f"- versions: {versions}", "",
             "| what | measured | target / ratio |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    text = "\n".join(lines) + "\n"
    out = ROOT / "bench" / "results" / "latest.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
