"""Faults the Telegram bot must survive or report clearly (issue 7): a data dir it cannot write, a damaged session
database, a handler that fails for one chat while others are being served.

A corrupt or half-written retrieval index (detected by its manifest and checksums, then rebuilt) is covered by
tests/test_index.py and not repeated here. These tests use the scorer-only engine (budget questions never load the
model), so they run in seconds.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
import pytest_asyncio

from tests.fake_bot_api import FakeBotAPI
from tests.test_telegram import Harness, _start, _stop

ROOT = Path(__file__).resolve().parent.parent
aio = pytest.mark.asyncio(loop_scope="session")


# --- a data dir that cannot be used: exit code 2 and a message that names it, at start --------------------------------
def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


def _run_telegram(data_dir: Path | str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "GPU_ADVISOR_"))}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(ROOT), TELEGRAM_BOT_TOKEN="123:FAULT",
               TELEGRAM_BASE_URL=f"http://127.0.0.1:{_closed_port()}/bot",  # never Telegram, even if this test fails
               GPU_ADVISOR_DATA_DIR=str(data_dir), GPU_ADVISOR_TELEGRAM_PRELOAD="0")
    return subprocess.run([sys.executable, "-m", "bot", "telegram"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def _read_only_dir() -> str | None:
    """An existing directory that even root cannot write to (chmod does not stop root; sysfs does)."""
    for candidate in ("/sys/kernel", "/sys"):
        path = Path(candidate)
        if path.is_dir():
            try:
                (path / ".gpu-advisor-probe").write_bytes(b"")
            except OSError:
                return candidate
    return None


@pytest.mark.parametrize("kind", ["under a file", "read-only"])
def test_unusable_data_dir_is_reported_at_start(tmp_path, kind):
    if kind == "under a file":
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("a file where the data dir's parent should be")
        data_dir: str | Path = blocker / "data"
    else:
        data_dir = _read_only_dir() or pytest.skip("no read-only directory on this machine")
    t = time.monotonic()
    p = _run_telegram(data_dir, tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert str(data_dir) in p.stderr and "GPU_ADVISOR_DATA_DIR" in p.stderr
    assert "Traceback" not in p.stderr and "123:FAULT" not in p.stderr
    assert time.monotonic() - t < 30  # at start: no engine, no polling


# --- a bot on the scorer-only engine against the fake Bot API ------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="session")
async def start(scorer_engine, fake, bot_settings):
    started: list[Harness] = []

    async def factory() -> Harness:
        h = await _start(bot_settings, scorer_engine, fake)
        started.append(h)
        return h

    yield factory
    for h in started:
        await _stop(h)


@pytest.mark.parametrize("damage", ["garbage", "half-written"])
@aio
async def test_corrupt_session_database_starts_fresh(start, bot_settings, caplog, damage):
    from bot.dialogue import Session
    from bot.need import Need
    from bot.store import SessionStore

    data = bot_settings.data_dir
    data.mkdir(parents=True)
    db = data / "telegram.sqlite3"
    if damage == "garbage":
        db.write_bytes(os.urandom(64 * 1024))
    else:  # a real database cut in the middle (a disk that filled up, a copy that was interrupted)
        store = SessionStore(db)
        for chat in range(300):
            store.put(chat, Session(need=Need(workloads=("cnn",)), last_picks=["GeForce RTX 4090"] * 5),
                      {"s": ["why?"] * 5, "c": [], "h": [], "session": Session().to_dict()})
        store.close()
        with closing(sqlite3.connect(db)) as conn:  # everything in the main file, none left in the WAL
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        whole = db.read_bytes()
        db.write_bytes(whole[: len(whole) // 2])
    damaged = db.read_bytes()

    with caplog.at_level(logging.WARNING, logger="bot.store"):
        h = await start()
    assert any("corrupt" in r.getMessage() and "started a fresh one" in r.getMessage() for r in caplog.records)
    [aside] = data.glob("telegram.sqlite3.corrupt-*")
    assert aside.read_bytes() == damaged  # kept, byte for byte, for whoever wants to look at it

    [first] = await h.say(1301, "预算8000训练CNN推荐什么卡", language_code="zh")
    assert "预算 ¥8,000" in first.text
    [follow] = await h.say(1301, "便宜点的呢？", language_code="zh")
    assert "在上次首选" in follow.text  # the fresh database keeps the chat's state
    assert h.advisor.store.get(1301).last_picks


@aio
async def test_one_failing_chat_does_not_stop_the_others(start, monkeypatch, caplog):
    h = await start()
    advisor = h.advisor
    real_turn = advisor.take_turn
    failing = 1401

    def turn(chat_id, text, *args):
        if chat_id == failing:
            time.sleep(0.5)  # fails slowly: the other chat is answered meanwhile
            raise RuntimeError("injected failure for one chat")
        return real_turn(chat_id, text, *args)

    monkeypatch.setattr(advisor, "take_turn", turn)
    fake = h.fake
    mark = fake.mark()
    with caplog.at_level(logging.ERROR):
        fake.push_text(failing, "$1500, training CNNs")
        fake.push_text(1402, "$1500, training CNNs")
        [ok] = await fake.wait_for("sendMessage", chat_id=1402, since=mark)
        [err] = await fake.wait_for("sendMessage", chat_id=failing, since=mark)
    assert "budget $1,500" in ok.text
    assert "something went wrong" in err.text
    assert ok.at < err.at, "chat B waited for chat A's failing turn"
    assert any("injected failure" in (r.exc_text or "") or r.exc_info for r in caplog.records)

    # the failing chat is not stuck: once the fault is gone it is answered again
    monkeypatch.setattr(advisor, "take_turn", real_turn)
    [again] = await h.say(failing, "$1500, training CNNs")
    assert "budget $1,500" in again.text


def test_webhook_port_in_use_is_reported_at_start(tmp_path):
    import socket

    fake = FakeBotAPI(token="123:FAULT").start()
    busy = socket.socket()
    try:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "GPU_ADVISOR_"))}
        env.update(HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT), TELEGRAM_BOT_TOKEN=fake.token,
                   TELEGRAM_BASE_URL=fake.base_url, GPU_ADVISOR_DATA_DIR=str(tmp_path / "data"),
                   GPU_ADVISOR_TELEGRAM_PRELOAD="0", TELEGRAM_WEBHOOK_URL="https://bot.example.com/hook",
                   TELEGRAM_WEBHOOK_PORT=str(port), TELEGRAM_WEBHOOK_SECRET="s3cret")
        p = subprocess.run([sys.executable, "-m", "bot", "telegram"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=60)
    finally:
        busy.close()
        fake.stop()
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert f"127.0.0.1:{port}" in p.stderr and "TELEGRAM_WEBHOOK_PORT" in p.stderr
    assert "Traceback" not in p.stderr and "s3cret" not in p.stderr and fake.token not in p.stderr
