"""The Telegram bot under load: the real Application (build_application, long polling) against the fake Bot API.

CHATS users talk at the same time, each sending MESSAGES messages one after the other (the next once the answer to the
last has arrived): a budget question, then follow-ups ("便宜点的呢？", "cheaper?", "为什么？", "compare the first two",
…). These are all scorer turns, so the figures measure the bot (polling, handlers, worker threads, the SQLite commit,
rendering, sending), not retrieval; `--retrieval N` adds a small separate row of N free-form questions (it loads the
model and the index first, outside the timing).

Latency is from the update being queued at the fake server to the first sendMessage of its answer arriving there
(loopback, so no network in it); throughput is answers over the wall time of the run. Peak RSS is the process's
(`ru_maxrss`): `run_load()` measures in a fresh process by default, so that whatever its caller loaded before does
not count. The run stops by itself after DEADLINE seconds whatever happens.

    .venv/bin/python bench/bot_load.py [--chats 20] [--messages 10] [--retrieval 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_RPS = 50.0
TARGET_P95_MS = 300.0
DEADLINE = 50.0  # seconds for the whole run, start-up included

# one conversation per chat: a budget question, then follow-ups in the same language (all answered by the scorer)
SCRIPTS = {
    "zh": ["预算8000训练CNN推荐什么卡", "便宜点的呢？", "为什么？", "显存大一点的？", "对比一下前两个",
           "二手的可以吗？", "便宜点的呢？", "为什么？", "预算1.5万做图像生成", "便宜点的呢？"],
    "en": ["$1500, training CNNs", "cheaper?", "why?", "more memory?", "compare the first two", "used is fine",
           "cheaper?", "why?", "$2500 for image generation", "cheaper?"],
}
OPENERS = {"zh": ["预算8000训练CNN推荐什么卡", "预算5000元训练CNN买什么卡", "八千块入门深度学习", "一万五做图像生成",
                  "预算两万，两张卡训练Transformer"],
           "en": ["$1500, training CNNs", "$1500, LoRA on a 7B model", "$800 for Kaggle", "$1200 for Stable Diffusion",
                  "$2000 for time series LSTM"]}
RETRIEVAL_QUESTIONS = ["国内用哪个云平台？", "is AMD usable for PyTorch?", "为什么不建议买 Tesla？",
                       "what matters most for RNN speed?", "Colab 免费版是什么卡？", "Is vast.ai cheap?"]


def script_for(chat_index: int, messages: int) -> tuple[str, list[str]]:
    lang = "zh" if chat_index % 2 == 0 else "en"
    base = list(SCRIPTS[lang])
    base[0] = OPENERS[lang][(chat_index // 2) % len(OPENERS[lang])]
    return lang, [base[i % len(base)] for i in range(messages)]


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


class _Replies:
    """The fake server's sendMessage calls per chat, handed to the event loop as they arrive."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.events: dict[int, asyncio.Event] = {}
        self.arrivals: dict[int, list[float]] = {}
        self._lock = threading.Lock()

    def watch(self, chat_id: int) -> None:
        self.events[chat_id] = asyncio.Event()
        self.arrivals[chat_id] = []

    def on_call(self, call) -> None:  # in the fake server's thread
        if call.method != "sendMessage" or call.status != 200 or call.chat_id not in self.events:
            return
        with self._lock:
            self.arrivals[call.chat_id].append(call.at)
        self.loop.call_soon_threadsafe(self.events[call.chat_id].set)

    async def next_after(self, chat_id: int, seen: int, deadline: float) -> float | None:
        """The arrival time of the chat's sendMessage number `seen` (0-based), or None at the deadline."""
        event = self.events[chat_id]
        while True:
            with self._lock:
                if len(self.arrivals[chat_id]) > seen:
                    return self.arrivals[chat_id][seen]
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            event.clear()
            with self._lock:
                if len(self.arrivals[chat_id]) > seen:
                    continue
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                return None


async def _measure(chats: int, messages: int, retrieval: int, rate: float, deadline: float) -> dict:
    from bot.config import get_settings
    from bot.dialogue import Engine
    from bot.telegram import ALLOWED_UPDATES, build_application, warm_up
    from tests.fake_bot_api import FakeBotAPI

    fake = FakeBotAPI(token="4242:LOAD").start()
    tmp = tempfile.TemporaryDirectory(prefix="gpu-advisor-load-")
    settings = get_settings().model_copy(update={
        "telegram_bot_token": fake.token, "telegram_base_url": fake.base_url, "data_dir": Path(tmp.name),
        "telegram_rate_limit": 0, "telegram_preload": False})
    engine = Engine.from_settings(settings)  # scorer-only: the index and the model are not loaded
    app = build_application(settings, engine)
    advisor = app.bot_data["advisor"]
    replies = _Replies(asyncio.get_running_loop())
    fake.subscribe(replies.on_call)
    out: dict = {"chats": chats, "messages": messages, "workers": settings.telegram_workers,
                 "send_rate": settings.telegram_send_rate}
    try:
        await app.initialize()
        await app.post_init(app)
        await app.start()
        await app.updater.start_polling(timeout=1, poll_interval=0, allowed_updates=ALLOWED_UPDATES)

        async def idle(chat_id: int) -> None:
            """Every piece of the last answer is out: the chat's turn lock (held while its pieces are sent) is free."""
            if advisor.chats.busy(chat_id):
                lock = advisor.chats.of(chat_id)
                try:
                    await asyncio.wait_for(lock.acquire(), max(0.001, deadline - time.monotonic()))
                    lock.release()
                except TimeoutError:
                    pass

        async def user(chat_id: int, lang: str, texts: list[str], latencies: list[float],
                       interval: float = 0.0, start: float | None = None) -> int:
            """Send `texts` one after the other, each once the answer to the last is out; with `interval`, message k
            goes at start + k·interval (or later, if its predecessor's answer is late)."""
            replies.watch(chat_id)
            answered = 0
            for k, text in enumerate(texts):
                if interval:
                    await asyncio.sleep(max(0.0, start + k * interval - time.monotonic()))
                seen = len(replies.arrivals[chat_id])
                t0 = time.monotonic()
                fake.push_text(chat_id, text, language_code=lang)
                at = await replies.next_after(chat_id, seen, deadline)
                if at is None:
                    break
                latencies.append(at - t0)
                answered += 1
                await idle(chat_id)
            return answered

        # warm-up, not counted: what the engine loads lazily (as `gpu-advisor telegram` does before serving), then
        # one short conversation through the bot (first render, SQLite pages, HTTP connections)
        await asyncio.to_thread(warm_up, engine)
        await user(10_000, "zh", SCRIPTS["zh"][:3], [])

        # 1. throughput: every chat sends its next message as soon as it has the answer to the last
        latencies: list[float] = []
        mark = fake.mark()
        t0, cpu0 = time.monotonic(), time.process_time()
        jobs = [user(20_000 + i, *script_for(i, messages), latencies) for i in range(chats)]
        answered = sum(await asyncio.gather(*jobs))
        wall, cpu = time.monotonic() - t0, time.process_time() - cpu0
        sent = [c for c in fake.calls[mark:] if c.status == 200]
        out.update(answered=answered, expected=chats * messages, wall=wall, latencies=latencies,
                   cpu_ms_per_reply=1000 * cpu / max(1, answered),
                   api_calls={m: sum(c.method == m for c in sent) for m in {c.method for c in sent}},
                   errors=sum("something went wrong" in c.text or "出了点问题" in c.text for c in sent))

        # 2. latency at the target rate: the same conversations, messages arriving at `rate` per second in all
        if rate and time.monotonic() < deadline:
            interval = chats / rate
            paced: list[float] = []
            start = time.monotonic() + 0.05
            t0 = time.monotonic()
            jobs = [user(40_000 + i, *script_for(i, messages), paced, interval, start + i * interval / chats)
                    for i in range(chats)]
            paced_answered = sum(await asyncio.gather(*jobs))
            out.update(rate=rate, paced=paced, paced_answered=paced_answered, paced_wall=time.monotonic() - t0)
        out.update(retrieval_loaded=engine.index_loaded, timed_out=time.monotonic() > deadline)

        if retrieval and time.monotonic() < deadline:
            t = time.monotonic()
            await asyncio.to_thread(lambda: engine.index)  # load the model and index outside the timing
            await asyncio.to_thread(warm_up, engine, True)  # and warm them up, as `gpu-advisor telegram` does
            out["index_load"] = time.monotonic() - t
            r_lat: list[float] = []
            qs = [RETRIEVAL_QUESTIONS[i % len(RETRIEVAL_QUESTIONS)] for i in range(retrieval)]
            for i, q in enumerate(qs):
                await user(30_000 + i, "zh" if any("\u4e00" <= c <= "\u9fff" for c in q) else "en", [q], r_lat)
            out["retrieval_latencies"] = r_lat
    finally:
        try:
            if app.updater.running:
                await app.updater.stop()
            if app.running:
                await app.stop()
            await app.shutdown()
            await app.post_shutdown(app)
        finally:
            fake.stop()
            tmp.cleanup()
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def _ms(values: list[float]) -> str:
    return f"p50 {1000 * pct(values, 50):.0f} ms, p95 {1000 * pct(values, 95):.0f} ms, max {1000 * max(values or [0]):.0f} ms"


def rows_of(r: dict) -> list[tuple[str, str, str]]:
    lat = r.get("latencies", [])
    rps = r["answered"] / r["wall"] if r.get("wall") else 0.0
    spread = f"send spreading {r['send_rate']:g}/s" if r["send_rate"] else "no send spreading"
    note = []
    if r["answered"] < r["expected"]:
        note.append(f"only {r['answered']}/{r['expected']} answered before the deadline")
    if r.get("errors"):
        note.append(f"{r['errors']} error replies")
    if r.get("retrieval_loaded") and not r.get("retrieval_latencies"):
        note.append("retrieval was touched")
    note = f" — {'; '.join(note)}" if note else ""
    rows = [
        (f"Telegram bot, throughput: {r['chats']} chats × {r['messages']} messages, each sent once the last is "
         f"answered (scorer turns, polling, fake Bot API on loopback, {spread})",
         f"{rps:.0f} replies/s ({r['answered']} in {r['wall']:.2f} s, {r['cpu_ms_per_reply']:.1f} ms CPU per reply, "
         f"{r['workers']} workers){note}", f"target ≥ {TARGET_RPS:.0f} replies/s"),
        ("Telegram bot, latency at full load (same run), update queued → reply at the API", _ms(lat), ""),
    ]
    if r.get("paced"):
        paced = r["paced"]
        rows.append((f"Telegram bot, latency at {r['rate']:g} messages/s ({r['chats']} chats, one message every "
                     f"{r['chats'] / r['rate']:.2f} s each), update queued → reply at the API",
                     f"{_ms(paced)} ({len(paced)} replies, {len(paced) / r['paced_wall']:.0f}/s)",
                     f"target p95 < {TARGET_P95_MS:.0f} ms"))
    rows.append(("Telegram bot: peak RSS of the process (fake API included)", f"{r['peak_rss_mb']:.0f} MB"
                 + (" (scorer only)" if not r.get("retrieval_latencies") else " (model and index loaded)"), ""))
    if r.get("retrieval_latencies"):
        rl = r["retrieval_latencies"]
        rows.append((f"Telegram bot: free-form questions ({len(rl)}, one at a time, index loaded)",
                     f"{_ms(rl)} (index load {r.get('index_load', 0):.1f} s, not counted)", ""))
    return rows


def measure(chats: int = 20, messages: int = 10, retrieval: int = 0, rate: float = TARGET_RPS,
            send_rate: float = 0) -> dict:
    """The run, in this process. `send_rate`: GPU_ADVISOR_TELEGRAM_SEND_RATE for the bot (0: off, so the figures
    are the bot's, not Telegram's flood limit of about 30 messages/s that the default spreads sends to)."""
    deadline = time.monotonic() + DEADLINE
    os.environ["GPU_ADVISOR_TELEGRAM_SEND_RATE"] = str(send_rate)
    from bot.config import get_settings

    get_settings.cache_clear()
    return asyncio.run(_measure(chats, messages, retrieval, rate, deadline))


def run_load(chats: int = 20, messages: int = 10, retrieval: int = 0, rate: float = TARGET_RPS,
             send_rate: float = 0, fresh_process: bool = True) -> list[tuple[str, str, str]]:
    """Rows (label, measured, target) for bench/run.py. `fresh_process`: measure in a new Python process (so its
    peak RSS is the bot's alone); else in this one."""
    if not fresh_process:
        return rows_of(measure(chats, messages, retrieval, rate, send_rate))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--chats", str(chats), "--messages", str(messages),
           "--retrieval", str(retrieval), "--rate", str(rate), "--send-rate", str(send_rate), "--json"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=DEADLINE + 30,
                           env=dict(os.environ, HF_HUB_OFFLINE="1"))
    except subprocess.TimeoutExpired:
        return [("Telegram bot under load", "did not finish in time", f"target ≥ {TARGET_RPS:.0f} replies/s")]
    if p.returncode != 0 or not p.stdout.strip():
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return [("Telegram bot under load", f"failed: {tail}", "")]
    return [tuple(row) for row in json.loads(p.stdout.strip().splitlines()[-1])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chats", type=int, default=20)
    ap.add_argument("--messages", type=int, default=10)
    ap.add_argument("--retrieval", type=int, default=0, help="also N free-form questions (loads the model)")
    ap.add_argument("--rate", type=float, default=TARGET_RPS, help="messages/s of the latency run (0: skip it)")
    ap.add_argument("--send-rate", type=float, default=0,
                    help="the bot's GPU_ADVISOR_TELEGRAM_SEND_RATE (default 0: off; the bot's default is 30)")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON line")
    ap.add_argument("--raw", action="store_true", help="print the raw measurements too")
    args = ap.parse_args(argv)
    r = measure(args.chats, args.messages, args.retrieval, args.rate, args.send_rate)
    rows = rows_of(r)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    width = max(len(a) for a, _, _ in rows)
    for a, b, c in rows:
        print(f"{a:<{width}}  {b}  [{c}]" if c else f"{a:<{width}}  {b}")
    if args.raw:
        print(json.dumps({k: v for k, v in r.items() if k not in ("latencies", "retrieval_latencies", "paced")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
