"""The Telegram front end against a fake Bot API server: the real PTB Application, the real engine, real HTTP."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from tests.fake_bot_api import FakeBotAPI, check_html

ROOT = Path(__file__).resolve().parent.parent
aio = pytest.mark.asyncio(loop_scope="session")


# --- harness -----------------------------------------------------------------------------------------------------------
class Harness:
    """A running bot (build_application + polling) and the fake server it talks to."""

    def __init__(self, fake: FakeBotAPI, app):
        self.fake = fake
        self.app = app
        self.advisor = app.bot_data["advisor"]
        self.poller = None  # (the polling loop, when polling)

    async def idle(self, chat_id: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while self.advisor.chats.busy(chat_id):
            assert time.monotonic() < deadline, "the chat's turn did not finish"
            await asyncio.sleep(0.02)

    async def replies(self, chat_id: int, since: int, count: int = 1, timeout: float = 20):
        """The sendMessage calls of the next `count` answers in the chat (all pieces of a split answer)."""
        await self.fake.wait_for("sendMessage", chat_id=chat_id, since=since, timeout=timeout, count=count)
        await self.idle(chat_id)
        return self.fake.calls_of("sendMessage", chat_id, since)

    async def say(self, chat_id: int, text: str, **kw):
        mark = self.fake.mark()
        self.fake.push_text(chat_id, text, **kw)
        return await self.replies(chat_id, mark)

    async def click(self, chat_id: int, call, label_or_data: str):
        """Press the button of a sent message (by its label, or its callback data)."""
        button = next((b for b in call.buttons() if label_or_data in (b["text"], b["callback_data"])), None)
        assert button is not None, f"no button {label_or_data!r} in {[b['text'] for b in call.buttons()]}"
        message_id = call.result["result"]["message_id"]
        self.fake.push_callback(chat_id, message_id, button["callback_data"])
        return button




async def _start(settings, engine, fake) -> Harness:
    """Started as `gpu-advisor telegram` starts it: initialize, post_init, the bot's own polling loop, the handlers."""
    from bot.telegram import ALLOWED_UPDATES, build_application
    from bot.telegram.polling import Poller

    app = build_application(settings, engine)
    await app.initialize()
    await app.post_init(app)
    poller = Poller(app, ALLOWED_UPDATES, timeout=1)
    await poller.start()
    await app.start()
    h = Harness(fake, app)
    h.poller = poller
    return h


async def _stop(h: Harness) -> None:
    from bot.telegram.polling import shutdown

    await h.poller.stop()
    await shutdown(h.app)


@pytest_asyncio.fixture(loop_scope="session")
async def bot(bot_settings, engine, fake):
    h = await _start(bot_settings, engine, fake)
    yield h
    await _stop(h)


@pytest_asyncio.fixture(loop_scope="session")
async def start_bot(engine, fake, bot_settings):
    """A factory: a bot with some settings changed."""
    started = []

    async def factory(**changes) -> Harness:
        h = await _start(bot_settings.model_copy(update=changes), engine, fake)
        started.append(h)
        return h

    yield factory
    for h in started:
        await _stop(h)


def _read_only(path: Path) -> closing[sqlite3.Connection]:
    """The store's file as another process sees it (an operator's `sqlite3`), opened read-only."""
    return closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True))


def _prices(text: str) -> list[float]:
    """The prices of the picks of a recommendation, in order: the compact layout's second line of each pick
    ('¥6,299, 2025-02 · 16 GB · 速度 1.04'), or the full layout's '价格: ¥6,299' / 'Price: $1,099'."""
    return [float(x.replace(",", "")) for x in re.findall(r"(?:(?:价格|Price): |^)[¥$]([\d,]+)", text, flags=re.M)]


def _picks(text: str) -> list[str]:
    """The picks' names: '<b>1. GeForce RTX 5070 Ti</b> — …' (compact) or '• <b>GeForce RTX 5070 Ti</b> — …' (full)."""
    return re.findall(r"^(?:• )?<b>(?:\d+\. )?(.+?)</b> — ", text, flags=re.M)


# --- commands ------------------------------------------------------------------------------------------------------------
@aio
async def test_start_help_and_commands(bot):
    fake = bot.fake
    commands = fake.calls_of("setMyCommands")
    assert {c.params.get("language_code") for c in commands} == {None, "zh"}
    zh = next(c for c in commands if c.params.get("language_code") == "zh")
    names = [c["command"] for c in zh.params["commands"]]
    assert {"start", "help", "recommend", "compare", "gpu", "platforms", "lang", "reset", "new"} <= set(names)
    assert any("对比" in c["description"] for c in zh.params["commands"])

    [welcome] = await bot.say(11, "/start", language_code="zh-hans")
    assert "你好" in welcome.text and "预算" in welcome.text
    assert welcome.params["parse_mode"] == "HTML"
    labels = [b["text"] for b in welcome.buttons()]
    assert labels and all(re.search(r"[\u4e00-\u9fff]", t) for t in labels)  # example questions, in Chinese

    [welcome_en] = await bot.say(12, "/start", language_code="en-US")
    assert "Hi!" in welcome_en.text and "$1500, training CNNs" in welcome_en.text

    [help_en] = await bot.say(12, "/help")
    assert "GPU advisor" in help_en.text and "cheaper?" in help_en.text

    [gpu] = await bot.say(12, "/gpu 4090")
    assert "<b>GeForce RTX 4090</b>" in gpu.text and "24 GB" in gpu.text
    assert any(b["callback_data"].startswith("c:") for b in gpu.buttons())

    [cmp_] = await bot.say(12, "/compare 4090 3090")
    assert "GeForce RTX 4090 vs GeForce RTX 3090" in cmp_.text

    [plat] = await bot.say(11, "/platforms")
    assert "AutoDL" in plat.text

    [plat_en] = await bot.say(13, "/platforms")
    assert "vast.ai" in plat_en.text or "RunPod" in plat_en.text

    [usage] = await bot.say(13, "/gpu")
    assert "/gpu 4090" in usage.text

    [unknown] = await bot.say(13, "/frobnicate")
    assert "/help" in unknown.text


@aio
async def test_lang_and_reset(bot):
    [chooser] = await bot.say(21, "/lang")
    mark = bot.fake.mark()
    assert {b["text"] for b in chooser.buttons()} == {"简体中文", "繁體中文", "English"}
    await bot.click(21, chooser, "简体中文")
    [done] = await bot.replies(21, mark)
    assert "中文" in done.text
    [ans] = await bot.say(21, "$1500, training CNNs")
    assert "预算" in ans.text  # Chinese although the question was English
    assert bot.advisor.store.get(21).need.budget is not None
    [reset] = await bot.say(21, "/new")
    assert "重新开始" in reset.text
    s = bot.advisor.store.get(21)
    assert s.need.budget is None and s.last_picks == [] and s.lang_locked == "zh"


# --- the dialogue ----------------------------------------------------------------------------------------------------------
@aio
async def test_budget_question_and_follow_ups(bot):
    chat = 101
    [first] = await bot.say(chat, "预算8000训练CNN推荐什么卡", language_code="zh")
    assert "预算 ¥8,000" in first.text
    picks1, prices1 = _picks(first.text), _prices(first.text)
    assert len(picks1) >= 2 and prices1 and max(prices1) <= 8000
    labels = [b["text"] for b in first.buttons()]
    assert "便宜点的呢？" in labels and any(t.startswith("📈") for t in labels)
    assert all(len(b["callback_data"].encode()) <= 64 for b in first.buttons())

    [cheaper] = await bot.say(chat, "便宜点的呢？")
    picks2, prices2 = _picks(cheaper.text), _prices(cheaper.text)
    assert f"在上次首选 {picks1[0]}" in cheaper.text
    assert prices2[0] < prices1[0], (prices1, prices2)
    assert bot.advisor.store.get(chat).last_picks[:2] == picks2[:2]

    [compare] = await bot.say(chat, "对比一下前两个")
    assert f"对比: {picks2[0]} vs {picks2[1]}" in compare.text
    assert "显存" in compare.text and "带宽" in compare.text


@aio
async def test_recommend_flow_gives_the_typed_answer(bot):
    from bot.telegram import recommend_sentence

    fake = bot.fake
    mark = fake.mark()
    fake.push_text(201, "/recommend", language_code="zh-CN")
    [ask] = await fake.wait_for("sendMessage", chat_id=201, since=mark)
    assert "预算" in ask.text
    await bot.click(201, ask, "≤ ¥10,000")
    [step2] = await fake.wait_for("editMessageText", since=mark)
    assert "用来做什么" in step2.text
    await bot.click(201, step2, "CNN / 图像")
    step3 = (await fake.wait_for("editMessageText", since=mark, count=2))[1]
    assert "二手" in step3.text
    mark2 = fake.mark()
    await bot.click(201, step3, "只看新卡")
    answer = await bot.replies(201, mark2)
    sentence = recommend_sentence("zh", 2, 0, 0)
    assert sentence == "预算10000元，训练CNN，只要新卡"
    final = (await fake.wait_for("editMessageText", since=mark, count=3))[2]
    assert sentence in final.text and not final.buttons()
    for call in fake.calls_of("editMessageText", since=mark) + [ask]:
        assert all(len(b["callback_data"].encode()) <= 64 for b in call.buttons())

    typed = await bot.say(202, sentence)
    assert [c.text for c in answer] == [c.text for c in typed]
    assert "预算 ¥10,000" in answer[0].text and "CNN" in answer[0].text
    s = bot.advisor.store.get(201)
    assert (s.need.workload, s.need.used, s.need.budget.amount) == ("cnn", False, 10000)


@aio
async def test_two_chats_interleaved_do_not_share_state(bot):
    fake = bot.fake
    mark = fake.mark()
    fake.push_text(301, "预算8000训练CNN推荐什么卡", language_code="zh")
    fake.push_text(302, "$1500, training Transformers for NLP", language_code="en")
    fake.push_text(301, "便宜点的呢？", language_code="zh")
    fake.push_text(302, "cheaper?", language_code="en")
    a = await bot.replies(301, mark, count=2)
    b = await bot.replies(302, mark, count=2)
    assert "预算 ¥8,000" in a[0].text and "¥" in a[1].text and "$" not in a[1].text
    assert "budget $1,500" in b[0].text and "Transformer" in b[0].text
    assert f"previous top pick's ${_prices(b[0].text)[0]:,.0f}" in b[1].text
    assert f"在上次首选 {_picks(a[0].text)[0]}" in a[1].text
    s1, s2 = bot.advisor.store.get(301), bot.advisor.store.get(302)
    assert (s1.need.workload, s1.need.budget.currency) == ("cnn", "CNY")
    assert (s2.need.workload, s2.need.budget.currency) == ("transformer", "USD")
    assert s1.last_picks != s2.last_picks and s1.last_picks[0] == _picks(a[1].text)[0]


@aio
async def test_html_in_user_text_is_escaped(bot):
    from bot.reply import Reply

    [r] = await bot.say(401, "<b>x</b> & <script>alert(1)</script>")
    assert r.params["parse_mode"] == "HTML" and check_html(r.text)[0] is None  # the fake rejects bad HTML
    assert "<script>" not in r.text

    mark = bot.fake.mark()
    reply = Reply("unknown", "en", title="<b>x</b> & <script>", paragraphs=("a < b && c > d",))
    await bot.advisor.send_reply(bot.app.bot, 401, reply)
    [sent] = bot.fake.calls_of("sendMessage", 401, mark)
    assert "<b>&lt;b&gt;x&lt;/b&gt; &amp; &lt;script&gt;</b>" in sent.text
    assert "a &lt; b &amp;&amp; c &gt; d" in sent.text


@aio
async def test_long_answer_is_split_under_4096(bot):
    from bot.reply import Reply, Table

    rows = tuple((f"GPU {i}", f"{i * 100} GB <&>", "x" * 60) for i in range(150))
    reply = Reply("compare", "en", title="Long", paragraphs=("intro",), table=Table(("", "a", "b"), rows),
                  suggestions=("why?",), chart_gpus=("GeForce RTX 4090",))
    key = bot.advisor.store.put(402, bot.advisor.store.get(402), {"s": ["why?"], "c": ["GeForce RTX 4090"],
                                                                   "h": [], "session": {}})
    mark = bot.fake.mark()
    await bot.advisor.send_reply(bot.app.bot, 402, reply, key)
    sent = bot.fake.calls_of("sendMessage", 402, mark)
    assert len(sent) >= 3
    assert all(len(c.text) <= 4096 for c in sent)
    assert [bool(c.buttons()) for c in sent] == [False] * (len(sent) - 1) + [True]
    text = "\n".join(c.text for c in sent)
    assert all(f"<b>GPU {i}</b>" in text for i in range(150))
    assert "&lt;&amp;&gt;" in text


@aio
async def test_chart_and_suggestion_buttons(bot):
    chat = 501
    [first] = await bot.say(chat, "$1500, training CNNs")
    mark = bot.fake.mark()
    await bot.click(chat, first, next(b["text"] for b in first.buttons() if b["text"].startswith("📈")))
    [photo] = await bot.fake.wait_for("sendPhoto", chat_id=chat, since=mark)
    png = photo.files["photo"]
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
    assert bot.fake.calls_of("answerCallbackQuery", since=mark)

    mark = bot.fake.mark()
    await bot.click(chat, first, "cheaper?")
    [cheaper] = await bot.replies(chat, mark)
    assert cheaper.text.startswith("<i>» cheaper?</i>")  # the button's question, shown above its answer
    assert "Looking below your previous top pick" in cheaper.text

    mark = bot.fake.mark()  # an old or forged button: a polite "expired", nothing else
    bot.fake.push_callback(chat, 1, "s:999:0")
    [ans] = await bot.fake.wait_for("answerCallbackQuery", since=mark)
    assert "expired" in ans.params.get("text", "")
    bot.fake.push_callback(chat, 1, "s:bogus")
    bot.fake.push_callback(chat, 1, "z:1")  # a kind of button this bot does not make
    answers = await bot.fake.wait_for("answerCallbackQuery", since=mark, count=3)
    assert all("expired" in a.params.get("text", "") for a in answers)
    assert not bot.fake.calls_of("sendMessage", chat, mark)


@aio
async def test_commands_and_buttons_are_routed_from_their_tables(bot):
    """Each row of the command table is a CommandHandler and a line of the menu; each kind of button has its own
    CallbackQueryHandler(pattern=…). Every button the bot makes matches exactly one pattern, forged data none."""
    from telegram.ext import CallbackQueryHandler, CommandHandler

    from bot.reply import Reply
    from bot.telegram.buttons import CALLBACKS
    from bot.telegram.handlers import COMMANDS
    from bot.telegram.keyboards import BUDGETS, language_keyboard, recommend_step, reply_rows

    handlers = bot.app.handlers[0]
    assert [(h.commands, h.callback) for h in handlers if isinstance(h, CommandHandler)] == \
        [(frozenset([c.name]), c.handler) for c in COMMANDS]
    assert [c["command"] for c in bot.fake.calls_of("setMyCommands")[0].params["commands"]] == [c.name for c in COMMANDS]
    routes = [(h.pattern, h.callback) for h in handlers if isinstance(h, CallbackQueryHandler)]
    assert routes == [*CALLBACKS, (None, routes[-1][1])]  # then one for data no pattern matches
    assert len({callback for _, callback in CALLBACKS}) == len(CALLBACKS)

    reply = Reply("recommend", "en", suggestions=("why?", "cheaper?"), chart_gpus=("GeForce RTX 4090",))
    made = [data for row in reply_rows(reply, 7, details=True) for _, data in row]
    for lang in ("zh", "en"):
        for choices in ([], [len(BUDGETS[lang]) - 1], [0, 5]):
            made += [b.callback_data for row in recommend_step(lang, choices)[1].inline_keyboard for b in row]
    made += [b.callback_data for row in language_keyboard().inline_keyboard for b in row]
    assert {d[0] for d in made} == {"s", "c", "d", "r", "l"} and any(d.endswith(":b") for d in made)
    for data in made:
        assert len([p for p, _ in CALLBACKS if p.match(data)]) == 1, data
    for forged in ("s:bogus", "s:1", "c:", "c:x", "d:-1", "r:xx:1", "r:zh:1:2:3:4", "z:1", "sx:1:2"):
        assert not [p for p, _ in CALLBACKS if p.match(forged)], forged


@aio
async def test_a_chart_comes_in_the_chats_language_and_script(bot):
    """The chart's caption (and the chart, drawn from the answer's session) in the script the user writes."""
    for chat, question, caption in ((503, "預算8000訓練CNN推薦什麼顯卡", "價位相近的其他顯卡"),
                                    (504, "预算8000训练CNN推荐什么卡", "价位相近的其他显卡"),
                                    (505, "$1500, training CNNs", "other cards at similar prices")):
        [first] = await bot.say(chat, question)
        mark = bot.fake.mark()
        await bot.click(chat, first, next(b["text"] for b in first.buttons() if b["text"].startswith("📈")))
        [photo] = await bot.fake.wait_for("sendPhoto", chat_id=chat, since=mark)
        assert caption in photo.text, photo.text
        assert photo.files["photo"].startswith(b"\x89PNG")


@aio
async def test_typing_indicator_only_for_slow_answers(bot, monkeypatch):
    fake = bot.fake
    mark = fake.mark()
    await bot.say(1501, "$1000 for CNNs")
    assert not fake.calls_of("sendChatAction", 1501, mark), "an answer in milliseconds needs no 'typing…'"

    real_turn = bot.advisor.take_turn

    def slow_turn(*args, **kwargs):
        time.sleep(bot.advisor.typing_delay + 0.4)
        return real_turn(*args, **kwargs)

    monkeypatch.setattr(bot.advisor, "take_turn", slow_turn)
    mark = fake.mark()
    [r] = await bot.say(1501, "cheaper?")
    [typing] = fake.calls_of("sendChatAction", 1501, mark)
    assert typing.params["action"] == "typing" and typing.at < r.at


# --- robustness ------------------------------------------------------------------------------------------------------------
@aio
async def test_429_then_success(bot):
    bot.fake.fail_next("sendMessage", 1, status=429, retry_after=1)
    mark = bot.fake.mark()
    t0 = time.monotonic()
    [r] = await bot.say(601, "$1000 for learning deep learning")
    assert "learning" in r.text.lower()
    statuses = [c.status for c in bot.fake.calls[mark:] if c.method == "sendMessage"]
    assert statuses == [429, 200]
    assert time.monotonic() - t0 >= 1.0  # it waited retry_after


@aio
async def test_500_and_network_errors_are_retried(bot):
    bot.advisor.backoff.first = 0.05
    bot.fake.fail_next("sendMessage", 2, status=500)
    mark = bot.fake.mark()
    [r] = await bot.say(602, "/help")
    assert "GPU advisor" in r.text
    assert [c.status for c in bot.fake.calls[mark:] if c.method == "sendMessage"] == [500, 500, 200]

    bot.fake.fail_next("sendMessage", 10, status=502)  # a long outage: the reply stays queued, the bot keeps serving
    mark = bot.fake.mark()
    bot.fake.push_text(603, "/help")
    deadline = time.monotonic() + 20
    while len([c for c in bot.fake.calls[mark:] if c.method == "sendMessage"]) < 3:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    [r] = await bot.say(604, "/help")  # another chat is answered meanwhile
    assert "GPU advisor" in r.text
    bot.fake.end_outage()  # the queued reply arrives, once
    [late] = await bot.replies(603, mark)
    assert "GPU advisor" in late.text and bot.advisor.store.pending() == 0
    await asyncio.sleep(1.0)
    assert len([c for c in bot.fake.calls_of("sendMessage", 603, mark) if c.status == 200]) == 1

    bot.fake.fail_next("getUpdates", 2, status=502)  # polling itself fails for a while, then recovers
    mark = bot.fake.mark()
    await asyncio.sleep(0.3)
    [r] = await bot.say(604, "/help")
    assert "GPU advisor" in r.text
    assert [c.status for c in bot.fake.calls[mark:] if c.method == "getUpdates"][:2] == [502, 502]


@aio
async def test_rate_limit_per_user(start_bot):
    h = await start_bot(telegram_rate_limit=2)
    mark = h.fake.mark()
    for text in ("/help", "$1000 for CNNs", "cheaper?", "why?"):
        h.fake.push_text(701, text)
    calls = await h.fake.wait_for("sendMessage", chat_id=701, since=mark, count=3)
    await asyncio.sleep(0.3)
    await h.idle(701)
    texts = [c.text for c in h.fake.calls_of("sendMessage", 701, mark)]
    assert len(texts) == 3, texts  # two answers and one polite note; the fourth message is dropped silently
    assert sum("please wait" in t for t in texts) == 1
    assert calls


@aio
async def test_non_text_messages_get_a_friendly_reply(bot):
    mark = bot.fake.mark()
    bot.fake.push_sticker(801, language_code="zh")
    [r] = await bot.fake.wait_for("sendMessage", chat_id=801, since=mark)
    assert "文字" in r.text
    bot.fake.push_photo(802)
    [r] = await bot.fake.wait_for("sendMessage", chat_id=802, since=mark)
    assert "only read text" in r.text
    bot.fake.push_photo(803, caption="$1500 for training CNNs, what should I buy?")  # the caption is the question
    [r] = await bot.fake.wait_for("sendMessage", chat_id=803, since=mark)
    assert "CNN" in r.text and "only read text" not in r.text


@aio
async def test_groups_answer_only_mentions_replies_and_commands(bot):
    group = -1001
    mark = bot.fake.mark()
    bot.fake.push_text(group, "预算8000训练CNN推荐什么卡", user_id=5, chat_type="supergroup")
    bot.fake.push_text(group, "/help@some_other_bot", user_id=5, chat_type="supergroup")
    await asyncio.sleep(0.8)
    assert not bot.fake.calls_of("sendMessage", group, mark)

    [r] = await bot.say(group, "@gpu_advisor_test_bot 预算8000训练CNN推荐什么卡", user_id=5, chat_type="supergroup")
    assert "预算 ¥8,000" in r.text
    assert r.params["reply_parameters"]["message_id"]  # answers in the thread of the question
    bot_msg = r.result["result"]
    [r2] = await bot.say(group, "便宜点的呢？", user_id=6, chat_type="supergroup", reply_to=bot_msg)
    assert "在上次首选" in r2.text
    [r3] = await bot.say(group, "/help@gpu_advisor_test_bot", user_id=5, chat_type="supergroup")
    assert "使用说明" in r3.text or "深度学习显卡顾问" in r3.text or "GPU advisor" in r3.text


@aio
async def test_handler_errors_are_logged_and_the_user_told(bot, caplog, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(bot.advisor, "take_turn", broken)
    with caplog.at_level(logging.ERROR):
        [r] = await bot.say(901, "$1000 for CNNs")
    assert "something went wrong" in r.text
    assert any("boom" in (rec.exc_text or "") or rec.exc_info for rec in caplog.records)


@aio
async def test_the_token_never_reaches_the_logs(bot, caplog):
    token = bot.fake.token
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "telegram", "bot"):
        caplog.set_level(logging.DEBUG, logger=name)
    await bot.say(1001, "预算8000训练CNN推荐什么卡")
    bot.fake.fail_next("sendMessage", 1, status=500)
    await bot.say(1001, "便宜点的呢？")
    logging.getLogger("bot.test").error("token is %s in %s", token, f"http://x/bot{token}/getMe")
    try:
        raise RuntimeError(f"request to /bot{token}/sendMessage failed")
    except RuntimeError:
        logging.getLogger("bot.test").exception("failed")
    assert caplog.records, "something was logged"
    assert any("httpx" in r.name for r in caplog.records), "httpx request logs were captured (and redacted)"
    assert token not in caplog.text
    for rec in caplog.records:
        assert token not in rec.getMessage() and token not in (rec.exc_text or "")
    assert "<redacted>" in caplog.text


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@aio
async def test_webhook_mode(engine, fake, bot_settings):
    """PTB's own webhook listener (Updater.start_webhook, what run_webhook runs), configured from the settings."""
    from bot.telegram import build_application, start_webhook, stop_webhook, webhook_config

    settings = bot_settings.model_copy(update={"telegram_webhook_url": "https://bot.example.com/tg/hook",
                                               "telegram_webhook_secret": "s3cret-Token_1",
                                               "telegram_webhook_port": _free_port()})
    cfg = webhook_config(settings)
    assert (cfg["path"], cfg["listen"]) == ("/tg/hook", "127.0.0.1")
    app = build_application(settings, engine)
    await start_webhook(app, cfg)
    try:
        [hook] = fake.calls_of("setWebhook")
        assert hook.params["url"] == cfg["url"] and hook.params["secret_token"] == cfg["secret"]
        assert set(hook.params["allowed_updates"]) == {"message", "callback_query"}
        base = f"http://127.0.0.1:{cfg['port']}"
        update = {"update_id": 1, "message": {"message_id": 1, "date": int(time.time()),
                                              "chat": {"id": 1101, "type": "private"},
                                              "from": {"id": 1101, "is_bot": False, "first_name": "A"},
                                              "text": "/help", "entities": [{"type": "bot_command", "offset": 0,
                                                                             "length": 5}]}}
        async with httpx.AsyncClient(trust_env=False) as client:
            bad = await client.post(base + "/tg/hook", json=update,
                                    headers={"X-Telegram-Bot-Api-Secret-Token": "wrong"})
            assert bad.status_code == 403
            assert (await client.post(base + "/tg/hook", json=update)).status_code == 403  # no secret at all
            assert (await client.post(base + "/elsewhere", json=update)).status_code == 404
            await asyncio.sleep(0.2)
            assert not fake.calls_of("sendMessage", 1101), "a rejected post reached the bot"
            ok = await client.post(base + "/tg/hook", json=update,
                                   headers={"X-Telegram-Bot-Api-Secret-Token": cfg["secret"]})
            assert ok.status_code == 200
        [r] = await fake.wait_for("sendMessage", chat_id=1101)
        assert "GPU advisor" in r.text
    finally:
        await stop_webhook(app)


def test_webhook_settings(settings):
    from bot.telegram import ConfigError, webhook_config

    assert webhook_config(settings.model_copy(update={"telegram_webhook_url": ""})) is None
    cfg = webhook_config(settings.model_copy(update={"telegram_webhook_url": "https://x.example/a/b",
                                                     "telegram_webhook_secret": ""}))
    assert cfg["path"] == "/a/b" and cfg["port"] == 8443 and len(cfg["secret"]) >= 32  # a random one
    with pytest.raises(ConfigError, match="https://"):
        webhook_config(settings.model_copy(update={"telegram_webhook_url": "bot.example.com/hook"}))
    with pytest.raises(ConfigError, match="TELEGRAM_WEBHOOK_SECRET"):
        webhook_config(settings.model_copy(update={"telegram_webhook_url": "https://x.example/h",
                                                   "telegram_webhook_secret": "has spaces"}))


def test_telegram_settings_from_env(monkeypatch):
    from bot.config import Settings

    for k, v in {"TELEGRAM_WEBHOOK_URL": "https://bot.example.com/hook", "TELEGRAM_WEBHOOK_PORT": "8081",
                 "TELEGRAM_WEBHOOK_LISTEN": "0.0.0.0", "TELEGRAM_WEBHOOK_PATH": "/in",
                 "TELEGRAM_WEBHOOK_SECRET": "abc", "TELEGRAM_BASE_FILE_URL": "http://h/file/bot",
                 "GPU_ADVISOR_TELEGRAM_PRELOAD": "0", "GPU_ADVISOR_TELEGRAM_WORKERS": "8"}.items():
        monkeypatch.setenv(k, v)
    s = Settings(_env_file=None)
    assert (s.telegram_webhook_url, s.telegram_webhook_port, s.telegram_webhook_listen) == \
        ("https://bot.example.com/hook", 8081, "0.0.0.0")
    assert (s.telegram_webhook_path, s.telegram_webhook_secret, s.telegram_base_file_url) == \
        ("/in", "abc", "http://h/file/bot")
    assert s.telegram_preload is False and s.telegram_workers == 8
    monkeypatch.setenv("TELEGRAM_WEBHOOK_PORT", "")  # empty = the default
    assert Settings(_env_file=None).telegram_webhook_port == 8443
    monkeypatch.setenv("TELEGRAM_WEBHOOK_PORT", "not-a-port")
    with pytest.raises(ValueError, match="TELEGRAM_WEBHOOK_PORT"):
        Settings(_env_file=None)


def test_env_example_lists_the_telegram_settings_with_their_defaults(monkeypatch):
    from bot.config import Settings

    for k in list(os.environ):
        if k.startswith(("TELEGRAM_", "GPU_ADVISOR_")):
            monkeypatch.delenv(k)
    example = (ROOT / ".env.example").read_text()
    defaults, copied = Settings(_env_file=None), Settings(_env_file=ROOT / ".env.example")
    for name, field in Settings.model_fields.items():
        if name.startswith("telegram_"):
            alias = getattr(field.validation_alias, "choices", [field.validation_alias])[0]
            assert f"\n{alias}=" in example, f"{alias} is not in .env.example"
            assert getattr(copied, name) == getattr(defaults, name), name
    assert copied.catalog is None  # `GPU_ADVISOR_CATALOG=` means none


# --- persistence -----------------------------------------------------------------------------------------------------------
def test_store_keeps_chats_apart_and_survives_reopen(tmp_path):
    from bot.dialogue import Session
    from bot.need import Budget, Need
    from bot.store import SessionStore

    path = tmp_path / "s.sqlite3"
    store = SessionStore(path)
    store.put(1, Session(lang="zh", need=Need(budget=Budget(8000, "CNY"), workloads=("cnn",)), last_picks=["A", "B"]))
    key = store.put(2, Session(lang="en", need=Need(workloads=("rnn",))), {"s": ["why?"], "c": [], "h": [], "session": {}})
    with _read_only(path) as db:  # what another process sees: committed, in WAL mode
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 2
    store.close()  # (no explicit flush needed: every put is committed)
    again = SessionStore(path)
    assert again.get(1).need.budget == Budget(8000, "CNY") and again.get(1).last_picks == ["A", "B"]
    assert again.get(2).need.workload == "rnn" and again.get(2).need.budget is None
    assert again.get(3).need.workload is None
    assert again.keyboard(2, key)["s"] == ["why?"] and again.keyboard(1, key) is None


def test_corrupt_store_is_moved_aside(tmp_path, caplog):
    from bot.dialogue import Session
    from bot.need import Need
    from bot.store import SessionStore

    path = tmp_path / "telegram.sqlite3"
    path.write_bytes(b"this is not a database, it is garbage" * 200)
    with caplog.at_level(logging.WARNING):
        store = SessionStore(path)
    assert any("corrupt" in r.getMessage() for r in caplog.records)
    aside = list(tmp_path.glob("telegram.sqlite3.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    store.put(7, Session(need=Need(workloads=("cnn",))))
    assert store.get(7).need.workload == "cnn"

    # a row that no longer reads as a Session: that chat starts over, the others are unaffected
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE sessions SET data = '{\"budget\": 5}' WHERE chat_id = 7")
        db.commit()
    assert store.get(7).need.workload is None


def test_run_needs_a_token_and_a_writable_data_dir(settings, fake, tmp_path, capsys):
    from bot.telegram import run

    assert run(settings.model_copy(update={"telegram_bot_token": ""})) == 2
    assert "TELEGRAM_BOT_TOKEN" in capsys.readouterr().err

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code = run(settings.model_copy(update={"telegram_bot_token": "123:TEST", "data_dir": blocker / "sub",
                                           "telegram_base_url": fake.base_url}))
    err = capsys.readouterr().err
    assert code == 2 and "data directory" in err and "GPU_ADVISOR_DATA_DIR" in err
    assert "123:TEST" not in err


def test_telegram_command_without_token_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELEGRAM_")}
    env.update(HF_HUB_OFFLINE="1", TELEGRAM_BOT_TOKEN="", GPU_ADVISOR_DATA_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "bot", "telegram"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "TELEGRAM_BOT_TOKEN is not set" in p.stderr and "Traceback" not in p.stderr


class BotProcess:
    """The real `python -m bot telegram` as a process against a fake Bot API server, keeping its state in one data
    dir across restarts; each start's output goes to a log file of its own."""

    def __init__(self, fake: FakeBotAPI, tmp_path: Path):
        self.fake, self.cwd, self.data = fake, tmp_path, tmp_path / "data"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "GPU_ADVISOR_"))}
        self.env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
                        TELEGRAM_BOT_TOKEN=fake.token, TELEGRAM_BASE_URL=fake.base_url, GPU_ADVISOR_DATA_DIR=str(self.data),
                        GPU_ADVISOR_LOG_LEVEL="DEBUG", PYTHONPATH=str(ROOT),
                        GPU_ADVISOR_TELEGRAM_PRELOAD="0")  # budget turns never need the index: a start takes seconds
        self.logs: list[Path] = []
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.logs.append(self.cwd / f"bot-{len(self.logs)}.log")
        with open(self.logs[-1], "w") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "bot", "telegram"], cwd=self.cwd, env=self.env,
                                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        """SIGKILL: no handler, no cleanup, open connections cut."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def check_logs(self) -> None:
        for path in self.logs:
            text = path.read_text(errors="replace")
            assert "getUpdates" in text  # DEBUG logging was on, and the requests went out
            assert self.fake.token not in text, f"the token leaked into {path.name}"


def test_kill_9_between_question_and_follow_up_loses_nothing(tmp_path):
    """The real `python -m bot telegram`, killed with SIGKILL right after an answer, then restarted."""
    from bot.store import SessionStore

    fake = FakeBotAPI(token="123:TEST").start()
    bot = BotProcess(fake, tmp_path)
    bot.start()
    try:
        first_id = fake.push_text(1201, "预算8000训练CNN推荐什么卡", language_code="zh")
        [first] = fake.wait_for_sync("sendMessage", chat_id=1201, timeout=120)
        deadline = time.monotonic() + 60  # (a loaded machine: the next getUpdates may come seconds later)
        while fake.confirmed_offset <= first_id and time.monotonic() < deadline:  # the update was acknowledged
            time.sleep(0.05)
        assert fake.confirmed_offset > first_id, "the bot never acknowledged the first update"
        # "right after an answer": once the outbox has recorded it delivered (a kill between the API taking a piece
        # and the store marking it sent resends that piece: at least once, the other kill test's subject)
        watch = SessionStore(bot.data / "telegram.sqlite3")
        while watch.outbox(1201) and time.monotonic() < deadline:
            time.sleep(0.05)
        delivered = not watch.outbox(1201)
        watch.close()
        assert delivered, "the first answer was never recorded as delivered"
        bot.kill()

        db = SessionStore(bot.data / "telegram.sqlite3")  # what the killed process left
        stored = db.get(1201)
        db.close()
        assert stored.need.budget.amount == 8000 and stored.last_picks, stored

        mark = fake.mark()
        bot.start()
        fake.push_text(1201, "便宜点的呢？", language_code="zh")
        # (a long reply comes in pieces; on a loaded machine they can all be there by the first look)
        follow, *_ = fake.wait_for_sync("sendMessage", chat_id=1201, since=mark, timeout=120)
        top1, price1 = _picks(first.text)[0], _prices(first.text)[0]
        assert f"在上次首选 {top1}" in follow.text, follow.text
        assert _prices(follow.text)[0] < price1
        # the question was not answered twice: the restarted bot went on from the stored state
        assert not [c for c in fake.calls_of("sendMessage", 1201, mark) if "预算 ¥8,000</b>" in c.text]
    finally:
        bot.stop()
        fake.stop()
    bot.check_logs()


def test_kill_9_while_sending_the_reply_then_it_arrives_exactly_once(tmp_path):
    """SIGKILL lands while the reply's sendMessage is in flight (the fake server holds the request open, unanswered):
    Telegram never got it. The reply and the update it answers were committed before the send, so the restarted bot
    sends it from the outbox — once — and does not answer the question again."""
    fake = FakeBotAPI(token="123:TEST").start()
    bot = BotProcess(fake, tmp_path)
    chat = 1202
    held = fake.hold("sendMessage", lambda c: c.chat_id == chat)
    bot.start()
    try:
        update_id = fake.push_text(chat, "预算8000训练CNN推荐什么卡", language_code="zh")
        assert held.arrived.wait(120), "the bot never sent the reply"
        assert "预算 ¥8,000" in held.call.text
        bot.kill()
        held.release()
        assert held.done.wait(10) and held.outcome == "dropped", "the kill did not land while the reply was in flight"
        with _read_only(bot.data / "telegram.sqlite3") as db:  # what the killed process left
            assert db.execute("SELECT COUNT(*) FROM outbox WHERE chat_id = ?", (chat,)).fetchone()[0] == 1
            assert db.execute("SELECT 1 FROM updates WHERE update_id = ?", (update_id,)).fetchone()
        assert not fake.calls_of("sendMessage", chat)

        bot.start()
        [reply] = fake.wait_for_sync("sendMessage", chat_id=chat, timeout=120)
        assert reply.text == held.call.text
        # a later message's answer comes after everything queued before it: a second copy would be out by then
        mark = fake.mark()
        fake.push_text(chat, "便宜点的呢？", language_code="zh")
        [follow] = fake.wait_for_sync("sendMessage", chat_id=chat, since=mark, timeout=60)
        assert "在上次首选" in follow.text, follow.text
        bot.stop()
        assert bot.proc.returncode == 0
        assert [c.text for c in fake.calls_of("sendMessage", chat)] == [reply.text, follow.text]
        with _read_only(bot.data / "telegram.sqlite3") as db:
            assert db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0
        assert fake.confirmed_offset > update_id  # Telegram will not deliver the question again either
    finally:
        held.release()
        bot.stop()
        fake.stop()
    bot.check_logs()


def _log_lines(path: Path) -> list[str]:
    return path.read_text(errors="replace").splitlines()


def test_api_gone_between_get_me_and_polling_is_one_line_and_exit_2(tmp_path):
    """getMe answers, then the Bot API is gone while the model loads: one line, exit 2, no traceback, and no
    "polling Telegram" (it never started)."""
    fake = FakeBotAPI(token="123:TEST").start()
    bot = BotProcess(fake, tmp_path)
    bot.start()
    try:
        fake.wait_for_sync("getMe", timeout=60)
        fake.stop()
        assert bot.proc.wait(60) == 2
    finally:
        bot.stop()
    lines = _log_lines(bot.logs[-1])
    assert not [ln for ln in lines if "Traceback" in ln or " ERROR " in ln], lines
    assert "cannot reach the Telegram Bot API" in lines[-1] and lines[-1].startswith("gpu-advisor telegram:")
    assert not [ln for ln in lines if "polling Telegram at" in ln]


def test_a_polling_outage_is_one_warning_and_sigterm_stops_at_once(tmp_path):
    """getUpdates fails (5xx) and then the Bot API is gone altogether: one WARNING with the cause for the outage, one
    INFO when it is back, no traceback; SIGTERM while Telegram is out of reach stops the bot within seconds."""
    fake = FakeBotAPI(token="123:TEST").start()
    bot = BotProcess(fake, tmp_path)
    bot.start()
    try:
        mark = fake.mark()
        fake.push_text(1203, "$1500, training CNNs")
        fake.wait_for_sync("sendMessage", chat_id=1203, since=mark, timeout=120)
        fake.fail_next("getUpdates", 4, status=502)
        deadline = time.monotonic() + 60
        while not any("polling Telegram again" in ln for ln in _log_lines(bot.logs[-1])):
            assert time.monotonic() < deadline, "polling did not recover"
            time.sleep(0.2)
        fake.stop()  # now nothing answers at all
        deadline = time.monotonic() + 30
        while sum("cannot poll Telegram" in ln for ln in _log_lines(bot.logs[-1])) < 2:
            assert time.monotonic() < deadline, "the second outage was not logged"
            time.sleep(0.2)
        time.sleep(2.0)  # a few failed polls into the outage: the loop is waiting to try again
        started = time.monotonic()
        bot.proc.send_signal(signal.SIGTERM)
        assert bot.proc.wait(30) == 0
        assert time.monotonic() - started < 8, "SIGTERM took too long while Telegram was out of reach"
    finally:
        bot.stop()
        fake.stop()
    lines = _log_lines(bot.logs[-1])
    assert not [ln for ln in lines if "Traceback" in ln or " ERROR " in ln], lines
    outages = [ln for ln in lines if "cannot poll Telegram" in ln]
    assert len(outages) == 2 and all(" WARNING " in ln for ln in outages), outages  # one per outage
    assert "Internal Server Error" in outages[0] and "httpx" in outages[1]  # each with its cause
    assert len([ln for ln in lines if "polling Telegram again" in ln and " INFO " in ln]) == 1
    assert len([ln for ln in lines if "polling Telegram at" in ln]) == 1


@pytest.mark.parametrize("where", ["closed port", "unknown host", "wrong path"])
def test_a_bot_api_that_cannot_be_used_at_start_is_one_line_and_exit_2(where, settings, fake, tmp_path, capsys):
    """Nothing listens, the host does not resolve, or the path is not the Bot API's (404): exit 2, one line that says
    which — a 404 is not reported as a rejected token."""
    from bot import telegram

    base = {"closed port": f"http://127.0.0.1:{_free_port()}/bot", "unknown host": "http://no-such-host.invalid/bot",
            "wrong path": fake.base_url.replace("/bot", "/api/bot")}[where]
    code = telegram.run(settings.model_copy(update={"telegram_bot_token": fake.token, "data_dir": tmp_path,
                                                    "telegram_base_url": base}))
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    if where == "wrong path":
        assert "404" in err and "TELEGRAM_BASE_URL" in err and "rejected" not in err
    else:
        assert "cannot reach the Telegram Bot API" in err
    assert fake.token not in err


def test_warm_up_never_loads_the_index(catalog, settings):
    """`gpu-advisor telegram` warms the scorer up before serving, also with GPU_ADVISOR_TELEGRAM_PRELOAD=0."""
    from bot.dialogue import Engine
    from bot.telegram import warm_up

    engine = Engine(catalog, settings.knowledge_dir, settings.index_dir, settings.model_path, settings.min_relevance)
    warm_up(engine)
    assert not engine.index_loaded


def test_every_guided_choice_reads_as_typed(catalog):
    """Each /recommend path becomes a sentence the NLU reads back as exactly the choices made."""
    from bot.nlu import parse
    from bot.telegram import BUDGETS, MARKETS, WORKLOADS, recommend_sentence

    for lang in ("zh", "en"):
        for b in range(len(BUDGETS[lang])):
            for w, workload in enumerate(WORKLOADS):
                for m in range(len(MARKETS)):
                    text = recommend_sentence(lang, b, w, m)
                    q = parse(text, catalog)
                    assert (q.lang, q.need.workload, q.need.used) == (lang, workload[0], m == 1), text
                    assert q.need.budget.currency == ("CNY" if lang == "zh" else "USD"), text
                    assert len(f"r:{lang}:{b}:{w}:{m}".encode()) <= 64


@aio
async def test_proxy_setting_routes_every_call_through_the_proxy(engine, fake, bot_settings):
    """TELEGRAM_PROXY_URL (mainland China): the Bot API host below does not resolve, so the calls can only arrive at
    the fake server if they went through it as the proxy."""
    from bot.telegram import build_application

    settings = bot_settings.model_copy(update={"telegram_base_url": "http://api.telegram.invalid/bot",
                                               "telegram_proxy_url": fake.base_url.rsplit("/bot", 1)[0]})
    app = build_application(settings, engine)
    await app.initialize()
    try:
        assert fake.calls_of("getMe")
    finally:
        await app.shutdown()


def _a_store_with_a_chat(path):
    from bot.dialogue import Session
    from bot.need import Need
    from bot.store import SessionStore

    store = SessionStore(path)
    store.put(7, Session(need=Need(workloads=("cnn",))))
    store.close()
    return path.read_bytes()


def test_a_read_only_store_is_reported_and_left_untouched(tmp_path, monkeypatch, settings, fake, capsys):
    """Created once as root, then run as a service user: not 'corrupt', not moved aside, not emptied — exit 2."""
    from bot.store import SessionStore, StoreError
    from bot.telegram import run

    path = tmp_path / "telegram.sqlite3"
    before = _a_store_with_a_chat(path)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if str(p) == str(path) and mode == os.W_OK
                        else real_access(p, mode, *a, **k))
    with pytest.raises(StoreError, match="read-only") as e:
        SessionStore(path)
    assert "GPU_ADVISOR_DATA_DIR" in str(e.value)
    code = run(settings.model_copy(update={"telegram_bot_token": "123:TEST", "data_dir": tmp_path,
                                           "telegram_base_url": fake.base_url}))
    err = capsys.readouterr().err
    assert code == 2 and "read-only" in err and "Traceback" not in err
    assert err.count("GPU_ADVISOR_DATA_DIR") == 1, err  # the way out, said once
    assert path.read_bytes() == before and not list(tmp_path.glob("*.corrupt-*"))


def test_a_locked_store_is_reported_not_moved_aside(tmp_path):
    import sqlite3

    from bot.store import SessionStore, StoreError

    path = tmp_path / "telegram.sqlite3"
    _a_store_with_a_chat(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the database
    try:
        with pytest.raises(StoreError, match="locked"):
            SessionStore(path, timeout=0.2)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not list(tmp_path.glob("*.corrupt-*"))
    assert SessionStore(path).get(7).need.workload == "cnn"  # nothing was lost


def test_the_store_schema_is_versioned_and_migrated(tmp_path):
    import sqlite3

    from bot.store import SCHEMA_VERSION, SessionStore, StoreError

    old = tmp_path / "old.sqlite3"  # a store from before the schema had a version: its chats survive the upgrade
    conn = sqlite3.connect(old)
    conn.executescript("CREATE TABLE sessions (chat_id INTEGER PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL);"
                       "INSERT INTO sessions VALUES (5, '{\"lang\": \"zh\"}', 0);")
    conn.close()
    store = SessionStore(old)
    assert store.get(5).lang == "zh"
    store.close()
    with _read_only(old) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    newer = tmp_path / "newer.sqlite3"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(StoreError, match="newer gpu-advisor"):
        SessionStore(newer)
    assert not list(tmp_path.glob("*.corrupt-*"))


@aio
async def test_a_button_under_an_older_answer_acts_on_that_answer(bot):
    """'why?' pressed under the ¥20,000 answer explains that pick, not the ¥3,000 one asked for since."""
    chat = 531
    [rich] = await bot.say(chat, "预算20000训练CNN")
    [poor] = await bot.say(chat, "预算3000训练CNN")
    rich_top, poor_top = _picks(rich.text)[0], _picks(poor.text)[0]
    assert rich_top != poor_top
    why = next(b["text"] for b in rich.buttons() if "为" in b["text"] or "why" in b["text"].lower())
    mark = bot.fake.mark()
    await bot.click(chat, rich, why)
    [answer] = await bot.replies(chat, mark)
    assert rich_top in answer.text and poor_top not in answer.text


@aio
async def test_gpu_command_with_an_unknown_name_says_so_and_keeps_the_chat(bot):
    """'/gpu RTX 9999' is no card (nor a $9,999 budget): the nearest names, and the chat's need untouched."""
    chat = 532
    [first] = await bot.say(chat, "$1500, training CNNs")
    [reply] = await bot.say(chat, "/gpu RTX 9999")
    assert "RTX 9999" in reply.text and "GeForce RTX" in reply.text
    assert bot.advisor.store.get(chat).need.budget.amount == 1500
    [known] = await bot.say(chat, "/gpu 4090")
    assert "GeForce RTX 4090" in known.text


@aio
async def test_a_reply_queued_when_the_api_is_down_arrives_once_after_a_restart(engine, fake, bot_settings):
    """The process stops (or is killed) while the Bot API refuses: the reply is in the outbox with the session, and
    the next start sends it — once."""
    first = await _start(bot_settings, engine, fake)
    first.advisor.backoff.first = 5.0  # no retry before the stop
    fake.fail_next("sendMessage", 1000, status=502)
    mark = fake.mark()
    fake.push_text(611, "$1500, training CNNs")
    deadline = time.monotonic() + 20
    while not [c for c in fake.calls[mark:] if c.method == "sendMessage" and c.chat_id == 611]:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await first.idle(611)
    assert first.advisor.store.pending() == 1
    await _stop(first)
    fake.end_outage()
    second = await _start(bot_settings, engine, fake)
    try:
        [r] = await second.replies(611, mark)
        assert "CNN" in r.text
        await asyncio.sleep(1.0)
        assert len(fake.calls_of("sendMessage", 611, mark)) == 1 and second.advisor.store.pending() == 0
    finally:
        await _stop(second)


@aio
async def test_a_reply_that_cannot_be_sent_in_time_is_given_up_with_its_chat_logged(bot, caplog):
    from bot.telegram.sending import chat_tag

    bot.advisor.backoff.first = 0.05
    bot.advisor.outbox.window = 1.0  # (ten minutes by default)
    bot.fake.fail_next("sendMessage", 1000, status=502)
    try:
        with caplog.at_level(logging.INFO, logger="bot.telegram"):
            bot.fake.push_text(612, "/help")
            deadline = time.monotonic() + 20
            while not any("gave up" in r.getMessage() for r in caplog.records):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
        line = next(r.getMessage() for r in caplog.records if "gave up" in r.getMessage())
        assert chat_tag(612) in line and "612" not in line.replace(chat_tag(612), "")  # the chat, hashed
        retries = [r.getMessage() for r in caplog.records if "not sent" in r.getMessage()]
        assert retries and all(chat_tag(612) in m for m in retries)
        assert bot.advisor.store.pending() == 0
    finally:
        bot.fake.end_outage()


@aio
async def test_an_update_posted_again_is_answered_once(bot):
    """A webhook re-post, or a redelivery after a crash, carries the same update_id: one answer."""
    from telegram import Update

    mark = bot.fake.mark()
    uid = bot.fake.push_text(613, "$1500, training CNNs")
    [r] = await bot.replies(613, mark)
    msg = bot.fake.user_message(613)
    again = {"update_id": uid, "message": dict(msg, text="$1500, training CNNs")}  # the same update, posted again
    await bot.app.process_update(Update.de_json(again, bot.app.bot))
    await asyncio.sleep(0.5)
    await bot.idle(613)
    assert len(bot.fake.calls_of("sendMessage", 613, mark)) == 1
    assert bot.advisor.store.seen(uid)


@aio
async def test_an_update_delivered_twice_in_one_batch_is_answered_once(bot):
    """The same update_id twice in one getUpdates batch (the updates are handled concurrently): one answer."""
    mark = bot.fake.mark()
    uid = bot.fake.push_text(614, "$1500, training CNNs", times=2)
    [r] = await bot.replies(614, mark)
    await asyncio.sleep(1.0)
    await bot.idle(614)
    assert len(bot.fake.calls_of("sendMessage", 614, mark)) == 1 and "CNN" in r.text
    assert bot.advisor.store.seen(uid)


def test_an_update_is_claimed_once_and_a_dead_runs_claim_is_taken_over(tmp_path):
    """Claiming is one step; a claim whose run died before the reply was queued is answered by the next run; an
    answered update is never claimed again."""
    from concurrent.futures import ThreadPoolExecutor

    from bot.session import Session
    from bot.store import SessionStore

    path = tmp_path / "telegram.sqlite3"
    first = SessionStore(path)
    with ThreadPoolExecutor(8) as pool:  # many handlers of the same update at once: one wins
        assert sum(pool.map(lambda _: first.claim(41), range(16))) == 1
    assert not first.seen(41)
    first.close()  # the run dies before the reply is in the outbox

    second = SessionStore(path)  # the restart: Telegram delivers update 41 again
    assert second.claim(41) and not second.claim(41)
    second.put(7, Session(), outbox=lambda key: {"pieces": ["hi"]}, update_id=41)
    assert second.seen(41)
    second.close()
    third = SessionStore(path)
    assert not third.claim(41)  # answered: never again, by any run
    third.close()


def test_a_wrong_token_is_one_line_and_exit_2_before_anything_loads(settings, fake, tmp_path, capsys):
    """Checked with getMe first: no store opened, no model loaded, no traceback; a trailing slash in the address is
    not mistaken for a rejected token."""
    from bot import telegram

    code = telegram.run(settings.model_copy(update={"telegram_bot_token": "999:WRONG", "data_dir": tmp_path,
                                                    "telegram_base_url": fake.base_url}))
    err = capsys.readouterr().err
    assert code == 2 and "rejected TELEGRAM_BOT_TOKEN" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "999:WRONG" not in err
    assert not (tmp_path / "telegram.sqlite3").exists(), "the store was opened before the token was checked"
    me = asyncio.run(telegram.get_me(settings.model_copy(update={"telegram_base_url": fake.base_url + "/"}),
                                      fake.token))
    assert me.username == fake.username


@aio
async def test_descriptions_in_both_languages_and_one_log_line_per_message(bot, caplog):
    for method in ("setMyDescription", "setMyShortDescription"):
        calls = bot.fake.calls_of(method)
        assert {c.params.get("language_code") for c in calls} >= {None, "zh"}, method
        assert all(len(c.params["description" if method == "setMyDescription" else "short_description"]) <=
                   (512 if method == "setMyDescription" else 120) for c in calls)
    with caplog.at_level(logging.INFO, logger="bot.telegram"):
        await bot.say(621, "$1500 for training CNNs")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chat ") and " ms" in r.getMessage()]
    assert lines and "recommend" in lines[-1] and "621" not in lines[-1]  # the chat id is hashed


@aio
async def test_every_handled_update_gets_one_log_line_with_the_chat_hashed(bot, caplog):
    """Answers that skip the engine are logged too: one INFO line per update, the chat id hashed."""
    from bot.telegram.sending import chat_tag

    chat = 622
    for push in (lambda: bot.fake.push_text(chat, "/gpu RTX 9999"), lambda: bot.fake.push_text(chat, "/gpu"),
                 lambda: bot.fake.push_text(chat, "/chart"), lambda: bot.fake.push_text(chat, "/foo"),
                 lambda: bot.fake.push_sticker(chat), lambda: bot.fake.push_photo(chat),
                 lambda: bot.fake.push_text(chat, "$1500 for training CNNs")):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="bot.telegram"):
            mark = bot.fake.mark()
            push()
            await bot.replies(chat, mark)
            await asyncio.sleep(0.2)  # the update's last handler group
        lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chat ")]
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"chat {chat_tag(chat)}: ") and " ms" in lines[0]
    assert "recommend" in lines[0]  # the last one, a turn: its own line, not a second one


@aio
async def test_recommend_flow_has_back_and_cancel(bot):
    fake = bot.fake
    mark = fake.mark()
    fake.push_text(203, "/recommend")
    [ask] = await fake.wait_for("sendMessage", chat_id=203, since=mark)
    await bot.click(203, ask, ask.buttons()[1]["text"])
    [step2] = await fake.wait_for("editMessageText", since=mark)
    await bot.click(203, step2, "◀ Back")
    back = (await fake.wait_for("editMessageText", since=mark, count=2))[1]
    assert "budget" in back.text.lower() and len(back.buttons()) == len(ask.buttons())
    await bot.click(203, back, back.buttons()[0]["text"])
    step2 = (await fake.wait_for("editMessageText", since=mark, count=3))[2]
    await bot.click(203, step2, step2.buttons()[0]["text"])
    step3 = (await fake.wait_for("editMessageText", since=mark, count=4))[3]
    await bot.click(203, step3, "✖ Cancel")
    done = (await fake.wait_for("editMessageText", since=mark, count=5))[4]
    assert "Cancelled" in done.text and not done.buttons()
    await asyncio.sleep(0.3)
    assert len(fake.calls_of("sendMessage", 203, mark)) == 1  # the prompt only: nothing asked on the user's behalf
    for call in fake.calls_of("editMessageText", since=mark) + [ask]:
        assert all(len(b["callback_data"].encode()) <= 64 for b in call.buttons())


@aio
async def test_chart_command(bot):
    chat = 541
    mark = bot.fake.mark()
    bot.fake.push_text(chat, "/chart")
    [none] = await bot.fake.wait_for("sendMessage", chat_id=chat, since=mark)
    assert "nothing to chart" in none.text
    await bot.say(chat, "$1500, training CNNs")
    mark = bot.fake.mark()
    bot.fake.push_text(chat, "/chart")
    [photo] = await bot.fake.wait_for("sendPhoto", chat_id=chat, since=mark)
    assert photo.files["photo"].startswith(b"\x89PNG")
    mark = bot.fake.mark()
    bot.fake.push_text(chat, "/chart 预算8000训练CNN")  # a question: answered, then charted
    [answer] = await bot.fake.wait_for("sendMessage", chat_id=chat, since=mark)
    await bot.fake.wait_for("sendPhoto", chat_id=chat, since=mark)
    assert "CNN" in answer.text


def test_every_reply_to_the_labelled_questions_and_follow_ups_is_valid_telegram_html(engine):
    """Over the labelled question set (both languages), each followed by the usual follow-ups: every message Telegram
    would get parses as its HTML subset and is at most 4,096 UTF-16 units."""
    import yaml

    from bot.dialogue import Conversation
    from bot.render import telegram_html
    from tests.fake_bot_api import check_html, utf16_len

    questions = [q["q"] for q in yaml.safe_load((ROOT / "bench" / "retrieval-eval.yaml").read_text(encoding="utf-8"))]
    openings = ["预算8000训练CNN", "$1500, LoRA on a 7B model", "3060 12G 能跑 14B 吗", "two 3090s or one 4090 for 70B?",
                "AutoDL 上 4090 多少钱一小时", "预算两万，四卡服务器"]
    follow_ups = {"zh": ["便宜点的呢", "为什么", "对比一下前两个", "二手的呢", "那电源呢"],
                  "en": ["cheaper?", "why?", "compare the first two", "used?", "what PSU for that?"]}
    checked = 0
    for q in questions + openings:
        conv = Conversation(engine)
        first = conv.turn(q)
        replies = [first]
        if q in openings:
            replies += [conv.turn(f) for f in follow_ups["zh" if first.lang == "zh" else "en"]]
        for reply in replies:
            for piece in telegram_html(reply):
                error, visible = check_html(piece)
                assert error is None, (q, error, piece[:300])
                assert utf16_len(piece) <= 4096 and visible.strip(), q
                checked += 1
    assert checked >= len(questions) + 30


@aio
async def test_a_ranked_answer_is_compact_with_the_rest_behind_details(bot):
    """On a phone: a short block per pick (name and role; price, memory, speed; one reason); the notes, the cards not
    picked and the sources come with the 'details' button."""
    chat = 551
    [first] = await bot.say(chat, "预算8000训练CNN", language_code="zh")
    assert len(first.text) < 1000 and len(_picks(first.text)) >= 2 and "来源" not in first.text
    assert re.search(r"^¥[\d,]+.* · \d+ GB · 速度 [\d.]+$", first.text, flags=re.M)
    mark = bot.fake.mark()
    await bot.click(chat, first, "📄 详情和来源")
    [details] = await bot.replies(chat, mark)
    assert "来源" in details.text and "没选" in details.text and _picks(details.text) == _picks(first.text)


@aio
async def test_lang_traditional_and_simplified(bot):
    from bot.slots.text import chinese_script

    chat = 561
    [done] = await bot.say(chat, "/lang zh-Hant", language_code="zh")
    assert "繁體" in done.text, done.text  # the confirmation names the script, in that script
    [r] = await bot.say(chat, "预算8000训练CNN", language_code="zh")
    assert chinese_script(r.text) == "zh-tw"
    [done] = await bot.say(chat, "/lang zh-Hans", language_code="zh")
    assert "简体" in done.text, done.text
    [r] = await bot.say(chat, "預算8000訓練CNN", language_code="zh")
    assert chinese_script(r.text) == "zh-cn"


@aio
async def test_a_traditional_chats_buttons_are_in_traditional(bot):
    """Suggestions and the bot's own buttons (chart, details) in the script of the answer they sit under."""
    [first] = await bot.say(506, "預算8000訓練CNN推薦什麼顯卡")
    labels = [b["text"] for b in first.buttons()]
    assert any(t.startswith("📈") for t in labels), labels
    simplified_only = set("价图详细为这个么显卡")  # characters a Traditional label never has
    assert not [t for t in labels if set(t) & simplified_only], labels


@aio
async def test_start_and_help_follow_a_traditional_client_and_chat(bot):
    """/start from a zh-Hant client is in Traditional; /help in a Traditional chat does not switch it to Simplified."""
    [welcome] = await bot.say(521, "/start", language_code="zh-hant")
    assert "預算" in welcome.text and "预算" not in welcome.text, welcome.text[:300]
    await bot.say(522, "預算八千元訓練CNN買什麼顯卡", language_code="zh-hans")
    [helped] = await bot.say(522, "/help", language_code="zh-hans")
    assert "預算" in helped.text and "预算" not in helped.text, helped.text[:300]
    [after] = await bot.say(522, "5000", language_code="zh-hans")
    assert "预算" not in after.text, after.text[:300]
