"""The Telegram front end: a python-telegram-bot Application around the same Conversation.turn as the CLI.

`build_application(settings, engine)` is the one place that builds it; `run()` starts it (long polling, or PTB's own
webhook listener behind a reverse proxy when TELEGRAM_WEBHOOK_URL is set). Every text goes through Conversation.turn in
a worker thread (the engine is CPU-bound and synchronous), one turn at a time per chat; each chat's Session is
committed to SQLite (bot/store.py) before its reply is sent.
"""

from __future__ import annotations

import asyncio
import html
import logging
import math
import re
import secrets
import sys
import time
import urllib.parse
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from telegram import (
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    MessageEntity,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatAction, ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, RetryAfter, TelegramError, TimedOut
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import render
from bot.i18n import LANG_SENTENCE, Text, lang_choice
from bot.reply import Reply
from bot.store import SessionStore, StoreError, check_data_dir, open_store

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.dialogue import Engine

log = logging.getLogger(__name__)

ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]
SEND_ATTEMPTS = 3  # for network errors and 5xx; 429s are retried by AIORateLimiter
OUTBOX_WINDOW = 600.0  # seconds a queued reply keeps being retried before it is given up (and logged with its chat)
OUTBOX_MAX_DELAY = 60.0  # the longest wait between two tries of one reply
OUTBOX_POLL = 0.5  # seconds between looks at the outbox for replies whose next try is due
MAX_BUTTONS = 6

# --- the things the bot says itself (everything else comes from the engine) -------------------------------------
T = {
    "welcome": Text("👋 Hi! I'm a GPU advisor for deep learning.", "👋 你好！我是深度学习显卡顾问。"),
    "rate": Text("You're sending messages faster than I can answer well — please wait about {s} seconds and try "
                 "again.", "消息有点多，我需要喘口气 🙂 请大约 {s} 秒后再试。"),
    "text_only": Text("I can only read text messages. Type your question, for example: \"$1500, training CNNs\".",
                      "我只能读文字消息。请直接打字提问，例如：“预算5000元训练CNN”。"),
    "error": Text("Sorry, something went wrong on my side. Please try again in a moment.",
                  "抱歉，我这边出了点问题，请稍后再试。"),
    "expired": Text("That button has expired — please ask again.", "这个按钮已过期，请重新提问。"),
    "chart_button": Text("📈 Speed vs price", "📈 速度/价格图"),
    "no_chart": Text("There's nothing to chart for that answer.", "这个回答没有可以画图的显卡。"),
    "ask_budget": Text("🧭 What's your budget?", "🧭 预算大概多少？"),
    "ask_workload": Text("🧭 What will you use it for?", "🧭 主要用来做什么？"),
    "ask_market": Text("🧭 New cards only, or used too?", "🧭 只看新卡，还是二手也行？"),
    "asking": Text("🧭 Asking: {q}", "🧭 提问：{q}"),
    "back": Text("◀ Back", "◀ 上一步"),
    "details_button": Text("📄 Details and sources", "📄 详情和来源"),
    "cancel": Text("✖ Cancel", "✖ 取消"),
    "cancelled": Text("Cancelled. Type a question any time, or /recommend to start again.",
                      "已取消。随时可以直接提问，或用 /recommend 重新开始。"),
    "usage_compare": Text("Usage: /compare 4090 3090 — or, after a recommendation, /compare alone compares the "
                          "first two picks.", "用法：/compare 4090 3090；推荐之后直接发 /compare 会对比前两个推荐。"),
    "usage_gpu": Text("Usage: /gpu 4090", "用法：/gpu 4090"),
    # what an empty chat shows ("What can this bot do?") and the bot's profile line; Telegram caps them at 512 and 120
    "description": Text(
        "I help you choose a GPU for deep learning — to buy or to rent. Tell me your budget and what you want to run "
        "(\"$1500, LoRA on a 7B model\", \"can my 3060 run a 14B model?\"), and I rank cards with prices, memory and "
        "speed, and say why. I also compare cards, estimate memory and speed for LLMs, and price cloud GPUs. "
        "中文也可以。",
        "我帮你挑深度学习用的显卡——买或租。告诉我预算和用途（例如“预算8000训练CNN”“3060能跑14B模型吗”），"
        "我会列出带价格、显存、速度和理由的推荐；也能对比显卡、估算大模型的显存和速度、查云平台租卡价格。"
        "English works too."),
    "short_description": Text("Which GPU to buy or rent for deep learning, and why. 中文/English.",
                              "深度学习显卡怎么选、去哪租，附理由。中文/English。"),
    "unknown_gpu": Text("I don't know a GPU called “{name}”. The nearest names I have: {near}.",
                        "我没有叫“{name}”的显卡。最接近的有：{near}。"),
    "choose_lang": Text("Choose a language:", "选择语言："),
    "unknown_command": Text("I don't know that command. Try /help.", "没有这个命令，试试 /help。"),
}

COMMANDS = [  # (command, English description, Chinese description)
    ("start", "Welcome and examples", "欢迎和示例"),
    ("help", "What I can do", "使用说明"),
    ("recommend", "Guided recommendation: budget → workload → new/used", "引导式推荐：预算 → 用途 → 新/二手"),
    ("compare", "Compare GPUs, e.g. /compare 4090 3090", "对比显卡，例如 /compare 4090 3090"),
    ("gpu", "Specs and prices of one GPU, e.g. /gpu 4090", "单卡参数和价格，例如 /gpu 4090"),
    ("platforms", "Where to rent GPUs in the cloud", "云上租卡平台"),
    ("chart", "Speed vs price chart of the last answer", "上一个回答的速度-价格图"),
    ("lang", "Answer in 中文 or English", "切换回答语言（中文 / English）"),
    ("reset", "Start over (forget budget and picks)", "重新开始（清空预算和推荐）"),
    ("new", "Start a new conversation", "开始新对话"),
]

# the guided /recommend flow: every choice becomes the sentence a person would type, then the same turn
BUDGETS = {"zh": [("≤ ¥3,000", "3000元"), ("≤ ¥6,000", "6000元"), ("≤ ¥10,000", "10000元"),
                  ("≤ ¥20,000", "20000元"), ("≤ ¥50,000", "50000元")],
           "en": [("≤ $500", "$500"), ("≤ $1,000", "$1000"), ("≤ $2,000", "$2000"), ("≤ $4,000", "$4000"),
                  ("≤ $8,000", "$8000")]}
WORKLOADS = [  # (id, en label, en phrase, zh label, zh phrase)
    ("cnn", "CNN / vision", "training CNNs", "CNN / 图像", "训练CNN"),
    ("transformer", "Transformer / NLP", "training Transformers for NLP", "Transformer / NLP", "训练Transformer/NLP模型"),
    ("llm_inference", "Run a 7B LLM", "LLM inference with a 7B model", "跑 7B 大模型", "本地跑7B大模型推理"),
    ("llm_finetune", "LoRA on a 7B LLM", "LoRA fine-tuning a 7B model", "7B 模型 LoRA 微调", "7B模型LoRA微调"),
    ("diffusion", "Image generation", "image generation (Stable Diffusion)", "图像生成", "图像生成（Stable Diffusion）"),
    ("learning", "Learning DL", "learning deep learning", "入门学习", "入门学习深度学习"),
]
MARKETS = [("new", Text("New only", "只看新卡"), Text("new only", "只要新卡")),
           ("used", Text("Used is fine", "二手也行"), Text("used is fine", "二手也可以"))]


def recommend_sentence(lang: str, budget: int, workload: int, market: int) -> str:
    """The sentence the guided flow sends to Conversation.turn (the same one a person could type)."""
    amount = BUDGETS[lang][budget][1]
    wl = WORKLOADS[workload]
    phrase = wl[4] if lang == "zh" else wl[2]
    m = MARKETS[market][2].get(lang)
    return f"预算{amount}，{phrase}，{m}" if lang == "zh" else f"Budget {amount}, {phrase}, {m}"


# --- secrets never reach the logs ------------------------------------------------------------------------------------
class TokenRedactor(logging.Filter):
    """Replaces the bot token (and the webhook secret) in every log record, its arguments and its traceback."""

    secrets: set[str] = set()

    @classmethod
    def redact(cls, text: str) -> str:
        for s in cls.secrets:
            if s and s in text:
                text = text.replace(s, "<redacted>")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to the handler to report
            return True
        clean = self.redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


_redactor = TokenRedactor()
_factory_installed = False


def install_redaction(*values: str) -> None:
    """Redact `values` from every log record of the process (any logger, any handler, pytest's caplog too).

    httpx logs each request URL, which contains the token: it is also turned down to WARNING."""
    global _factory_installed
    TokenRedactor.secrets.update(v for v in values if v)
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    if not _factory_installed:
        previous = logging.getLogRecordFactory()

        def factory(*args, **kwargs):
            record = previous(*args, **kwargs)
            _redactor.filter(record)
            return record

        logging.setLogRecordFactory(factory)
        _factory_installed = True
    for handler in logging.getLogger().handlers:
        if _redactor not in handler.filters:
            handler.addFilter(_redactor)


class ConfigError(ValueError):
    """A Telegram setting that cannot be used (a message for a person)."""


def file_url_for(base_url: str) -> str:
    """Telegram's file URL next to a Bot API URL: https://host/bot -> https://host/file/bot."""
    if "{" in base_url:
        return base_url.replace("/bot{", "/file/bot{", 1)
    if base_url.rstrip("/").endswith("/bot"):
        return base_url.rstrip("/")[: -len("/bot")] + "/file/bot"
    return base_url.rstrip("/") + "/file/bot"


def _lang_of_code(code: str | None) -> str | None:
    if not code:
        return None
    return "zh" if code.lower().startswith("zh") else "en"


# --- the handlers -----------------------------------------------------------------------------------------------------
class Advisor:
    """The state the handlers share: engine, store, per-chat locks, per-user rate windows, the worker threads."""

    def __init__(self, settings: Settings, engine: Engine, store: SessionStore, owns_store: bool = False):
        self.settings = settings
        self.engine = engine
        self.store = store
        self.owns_store = owns_store
        self.rate_limit = settings.telegram_rate_limit
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._hits: dict[int, deque] = {}
        self._warned: dict[int, float] = {}
        self.retry_delay = 0.5  # seconds before the first retry of a failed API call; doubles each time
        # "typing…" only for a turn that takes longer than this (seconds): a budget answer takes milliseconds, and a
        # chat action for it would be one more API call per answer, which nobody gets to see (bench/bot_load.py)
        self.typing_delay = 0.5
        self.outbox_window = OUTBOX_WINDOW
        self.outbox_poll = OUTBOX_POLL
        self._outbox_task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=settings.telegram_workers, thread_name_prefix="gpu-advisor-turn")

    # --- plumbing ----------------------------------------------------------------------------------------------------
    def lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[chat_id] = lock
        return lock

    async def in_thread(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def lang(self, chat_id: int, user=None, prefer_client: bool = False) -> str:
        """The chat's language: a language the user asked for, else what they wrote in, else their client's."""
        s = self.store.get(chat_id)
        client = _lang_of_code(getattr(user, "language_code", None))
        if s.lang_locked:
            return s.lang_locked
        if prefer_client and client:
            return client
        return s.lang or client or "en"

    def allow(self, user_id: int | None) -> tuple[bool, int | None]:
        """(allowed, seconds to wait — only the first time a user hits the limit in a window, else None)."""
        if not self.rate_limit or user_id is None:
            return True, None
        now = time.monotonic()
        hits = self._hits.setdefault(user_id, deque())
        while hits and now - hits[0] >= 60:
            hits.popleft()
        if len(hits) < self.rate_limit:
            hits.append(now)
            if len(self._hits) > 10_000:  # forget idle users
                for uid in [u for u, h in self._hits.items() if not h or now - h[-1] >= 60]:
                    self._hits.pop(uid, None)
                    self._warned.pop(uid, None)
            return True, None
        wait = max(1, math.ceil(60 - (now - hits[0])))
        if now - self._warned.get(user_id, -1e9) >= 60:
            self._warned[user_id] = now
            return False, wait
        return False, None

    async def gate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """Rate limit: False (after one polite message) when the user is over the limit."""
        user = update.effective_user
        ok, wait = self.allow(user.id if user else None)
        if ok:
            return True
        log.info("rate limit: user %s", user.id if user else "?")
        chat = update.effective_chat
        if update.callback_query:
            await self.call(update.callback_query.answer, T["rate"].get(self.lang(chat.id, user)).format(s=wait or 60))
        elif wait and chat:
            await self.call(context.bot.send_message, chat.id,
                            T["rate"].get(self.lang(chat.id, user)).format(s=wait))
        return False

    async def call(self, fn, *args, **kwargs):
        """A Bot API call that never crashes a handler: network errors and 5xx retried with backoff, then logged.

        A 429 is retried by AIORateLimiter first; a BadRequest is raised (the caller knows what to do)."""
        delay = self.retry_delay
        for attempt in range(1, SEND_ATTEMPTS + 1):
            try:
                return await fn(*args, **kwargs)
            except BadRequest:
                raise
            except Forbidden as e:  # blocked by the user, kicked from the group
                log.info("Telegram refused %s: %s", getattr(fn, "__name__", fn), e)
                return None
            except RetryAfter as e:
                wait = _retry_seconds(e)
                if attempt == SEND_ATTEMPTS:
                    log.warning("Telegram rate limit persists for %s; giving up", getattr(fn, "__name__", fn))
                    return None
                await asyncio.sleep(float(wait) + 0.1)
            except (TimedOut, NetworkError) as e:
                if attempt == SEND_ATTEMPTS:
                    log.warning("Telegram API call %s failed %d times: %s", getattr(fn, "__name__", fn), attempt, e)
                    return None
                log.info("Telegram API call %s failed (%s); retrying", getattr(fn, "__name__", fn), e)
                await asyncio.sleep(delay)
                delay *= 2
        return None

    async def _typing(self, bot, chat_id: int, action: str = ChatAction.TYPING) -> None:
        try:
            await asyncio.sleep(self.typing_delay)
            while True:
                try:
                    await bot.send_chat_action(chat_id, action)
                except TelegramError as e:
                    log.debug("chat action failed: %s", e)
                await asyncio.sleep(4.5)
        except asyncio.CancelledError:
            pass

    # --- turns -------------------------------------------------------------------------------------------------------
    def _turn(self, chat_id: int, text: str, decorate=None, base: dict | None = None, reply_to: int | None = None,
              echo: str | None = None, update_id: int | None = None) -> Reply:
        """In a worker thread: load the chat's session, take the turn, and commit the session, the reply's keyboard,
        the reply itself (to the outbox) and the update it answers in one transaction.

        `base`: the state to answer from instead of the chat's latest — a button's own message's state, so "why?"
        under an older answer explains that answer; the chat then goes on from there."""
        from bot.charts import highlight_of
        from bot.dialogue import Conversation, Session

        started = time.perf_counter()
        session = self.store.get(chat_id)
        if base is not None:
            older = Session.from_dict(base)
            # what the user set for the whole chat since (a language asked for) still holds
            older.lang_locked = session.lang_locked or older.lang_locked
            session = older
        conv = Conversation(self.engine, session)
        reply = conv.turn(text)  # (Engine.index loads once under its own lock when several turns need it at once)
        if decorate is not None:
            reply = decorate(reply)
        full = render.telegram_html(reply)
        compact = render.telegram_compact(reply)  # a ranked list, laid out for a phone; the rest behind "details"
        if compact is not None and sum(map(len, compact)) > 0.8 * sum(map(len, full)):
            compact = None  # nothing worth hiding
        keyboard = None
        if reply.suggestions or reply.chart_gpus or compact:
            keyboard = {"s": list(reply.suggestions[:MAX_BUTTONS]), "c": list(reply.chart_gpus),
                        "h": list(highlight_of(reply)), "session": conv.session.to_dict()}
            if compact:
                keyboard["d"] = full
        self.store.put(chat_id, conv.session, keyboard,
                       outbox=lambda key: self._payload(reply, key, reply_to, echo, compact or full, bool(compact)),
                       update_id=update_id)
        log.info("chat %s: %s (%s) in %.0f ms", _chat_tag(chat_id), reply.intent, (reply.query or {}).get("rule", "-"),
                 1000 * (time.perf_counter() - started))
        return reply

    def _payload(self, reply: Reply, key: int | None, reply_to: int | None, echo: str | None,
                 pieces: list[str] | None = None, details: bool = False) -> dict:
        """What the outbox keeps of a reply: its HTML pieces (each under 4,096 characters), its buttons, what it
        answers. `echo`: the question a button asked, shown above the answer (a press leaves no message of its own).
        `details`: the pieces are the compact layout, and a button sends the whole answer."""
        pieces = list(pieces if pieces is not None else render.telegram_html(reply))
        if echo:
            quoted = f"<i>» {html.escape(echo, quote=False)}</i>"
            if len(quoted) + 2 + len(pieces[0]) <= render.TELEGRAM_LIMIT:
                pieces[0] = f"{quoted}\n\n{pieces[0]}"
        rows = self._button_rows(reply, key)
        if details and key is not None:
            rows.append([[T["details_button"].get(reply.lang), f"d:{key}"]])
        return {"pieces": pieces, "buttons": rows, "reply_to": reply_to}

    async def answer(self, bot, chat_id: int, text: str, *, reply_to: int | None = None, decorate=None,
                     echo: bool = False, base: dict | None = None, update_id: int | None = None) -> Reply:
        """Take one turn of the chat, queue its reply and send it; turns of one chat run in order, other chats
        meanwhile. A reply the Bot API does not take now stays queued and is retried (see `flush`)."""
        async with self.lock(chat_id):
            typing = asyncio.create_task(self._typing(bot, chat_id))
            try:
                reply = await self.in_thread(self._turn, chat_id, text, decorate, base, reply_to,
                                             text if echo else None, update_id)
            finally:
                typing.cancel()
            await self.flush(bot, chat_id)
            return reply

    # --- the outbox --------------------------------------------------------------------------------------------------
    async def flush(self, bot, chat_id: int) -> None:
        """Send the chat's queued replies in order. One that fails waits out its backoff, and the later ones wait
        behind it, so a chat never sees its answers out of order. The caller holds the chat's lock."""
        for item in self.store.outbox(chat_id):
            if item.attempts and item.next_try > time.time():
                return
            if not await self._deliver(bot, item):
                return

    async def _deliver(self, bot, item) -> bool:
        """Send one queued reply, piece by piece (a piece already sent is not sent again). True when it is done with
        (sent, or given up and logged); False when it is to be tried again later."""
        pieces = item.payload["pieces"]
        markup = _markup(item.payload.get("buttons") or [])
        reply_to = item.payload.get("reply_to")
        for i in range(item.sent_pieces, len(pieces)):
            try:
                await self._send_piece(bot.send_message, item.chat_id, pieces[i],
                                       markup=markup if i == len(pieces) - 1 else None,
                                       reply_to=reply_to if i == 0 else None)
            except Forbidden as e:  # blocked by the user, kicked from the group: nobody to deliver to
                log.info("chat %s refuses messages (%s); its reply is dropped", item.chat_id, e)
                self.store.remove(item.id)
                return True
            except (RetryAfter, TelegramError) as e:  # 429, 5xx, network errors, timeouts
                return self._later(item, e)
            self.store.sent_piece(item.id, i + 1)
        self.store.remove(item.id)
        return True

    def _later(self, item, error: Exception) -> bool:
        now = time.time()
        if isinstance(error, RetryAfter):
            delay = _retry_seconds(error) + 0.1  # what Telegram asked for
        else:
            delay = min(OUTBOX_MAX_DELAY, self.retry_delay * 2 ** item.attempts)
        if now + delay - item.created > self.outbox_window:
            log.warning("gave up sending a reply to chat %s after %d tries over %.0f s: %s", item.chat_id,
                        item.attempts + 1, now - item.created, error)
            self.store.remove(item.id)
            return True
        log.info("reply to chat %s not sent (%s); trying again in %.1f s", item.chat_id, error, delay)
        self.store.retry_later(item.id, now + delay, str(error))
        return False

    async def _outbox_loop(self, bot) -> None:
        """Delivers what could not be sent at once — and, right after a start, whatever the last run left unsent."""
        while True:
            try:
                for chat_id in self.store.chats_due():
                    lock = self.lock(chat_id)
                    if lock.locked():
                        continue  # a turn of that chat is under way: it flushes when done
                    async with lock:
                        await self.flush(bot, chat_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # never let the sender die: the next round tries again
                log.exception("delivering queued replies failed; trying again")
            await asyncio.sleep(self.outbox_poll)

    def _button_rows(self, reply: Reply, key: int | None) -> list[list[list[str]]]:
        """The reply's buttons as rows of [label, callback data]; the data carries the key of the state they act on."""
        if key is None:
            return []
        buttons = [[_label(s), f"s:{key}:{i}"] for i, s in enumerate(reply.suggestions[:MAX_BUTTONS])]
        rows = [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
        if reply.chart_gpus:
            rows.append([[T["chart_button"].get(reply.lang), f"c:{key}"]])
        return rows


    async def send_reply(self, bot, chat_id: int, reply: Reply, key: int | None = None, *,
                         reply_to: int | None = None, echo: str | None = None) -> list[Message]:
        """The reply sent now, not queued (the whole layout, retried by `call`): the buttons go on the last piece."""
        payload = self._payload(reply, key, reply_to, echo)
        markup, pieces = _markup(payload["buttons"]), payload["pieces"]
        sent = []
        for i, piece in enumerate(pieces):
            msg = await self._send_piece(partial(self.call, bot.send_message), chat_id, piece,
                                         markup=markup if i == len(pieces) - 1 else None,
                                         reply_to=reply_to if i == 0 else None)
            if msg is not None:
                sent.append(msg)
        return sent

    async def _send_piece(self, send, chat_id: int, piece: str, *, markup=None, reply_to: int | None = None):
        """One HTML message; when Telegram cannot take the HTML, the same words as plain text rather than nothing.
        Other API errors reach the caller (the outbox retries them)."""
        kwargs = {"reply_markup": markup, "link_preview_options": LinkPreviewOptions(is_disabled=True)}
        if reply_to:
            kwargs["reply_parameters"] = ReplyParameters(reply_to, allow_sending_without_reply=True)
        try:
            return await send(chat_id, piece, parse_mode=ParseMode.HTML, **kwargs)
        except BadRequest as e:
            log.warning("Telegram rejected a reply to chat %s (%s); sending it as plain text", chat_id, e)
            kwargs.pop("reply_parameters", None)
            try:
                return await send(chat_id, _strip_tags(piece)[:4096], **kwargs)
            except BadRequest as e2:
                log.error("Telegram rejected the plain-text reply to chat %s too: %s", chat_id, e2)
                return None

    # --- handlers ----------------------------------------------------------------------------------------------------
    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        msg = update.effective_message
        chat = update.effective_chat
        if msg is None or chat is None or msg.text is None:
            return
        text = msg.text
        reply_to = None
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            text = _addressed_text(msg, context.bot)
            if text is None:
                return  # group chatter not meant for the bot
            reply_to = msg.message_id
        if not await self.gate(update, context):
            return
        await self.answer(context.bot, chat.id, text, reply_to=reply_to, update_id=update.update_id)

    async def on_other(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Stickers, photos, voice, documents …: a caption is read as the question ("a screenshot: can this run
        llama 70b?"); without one, a friendly 'text only'."""
        msg = update.effective_message
        chat = update.effective_chat
        if msg is None or chat is None:
            return
        text = msg.caption
        reply_to = None
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            text = _addressed_text(msg, context.bot)
            if text is None:
                return
            reply_to = msg.message_id
        if not await self.gate(update, context):
            return
        if text and text.strip():
            await self.answer(context.bot, chat.id, text, reply_to=reply_to, update_id=update.update_id)
            return
        lang = self.lang(chat.id, update.effective_user)
        await self.call(context.bot.send_message, chat.id, T["text_only"].get(lang))

    async def _opened(self, update: Update, context: ContextTypes.DEFAULT_TYPE,
                      prefer_client: bool = False) -> tuple[int, str, str] | None:
        """(chat id, language, the command's arguments as one string) for a command that passed the rate limit, or
        None when it should be ignored."""
        if not await self.gate(update, context):
            return None
        chat = update.effective_chat
        return (chat.id, self.lang(chat.id, update.effective_user, prefer_client=prefer_client),
                " ".join(context.args or []).strip())

    async def cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context, prefer_client=True)
        if opened is None:
            return
        chat_id, lang, _ = opened
        welcome = T["welcome"].get(lang)

        def decorate(reply: Reply) -> Reply:
            return replace(reply, title=welcome)

        await self.answer(context.bot, chat_id, "帮助" if lang == "zh" else "help", decorate=decorate)

    async def cmd_help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, _ = opened
        await self.answer(context.bot, chat_id, "帮助" if lang == "zh" else "help")

    async def cmd_reset(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, _ = opened
        await self.answer(context.bot, chat_id, "重新开始" if lang == "zh" else "start over")

    async def cmd_compare(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, args = opened
        if not args:
            if self.store.get(chat_id).last_picks:
                await self.answer(context.bot, chat_id, "对比一下前两个" if lang == "zh" else "compare the first two")
            else:
                await self.call(context.bot.send_message, chat_id, T["usage_compare"].get(lang))
            return
        await self.answer(context.bot, chat_id, f"对比 {args}" if lang == "zh" else f"compare {args}")

    async def cmd_gpu(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, args = opened
        if not args:
            await self.call(context.bot.send_message, chat_id, T["usage_gpu"].get(lang))
            return
        catalog = self.engine.catalog
        if catalog.lookup(args) is None and not catalog.find_mentions(args):
            # "/gpu RTX 9999": no such card — say so with the nearest names, and leave the chat's state alone
            near = ", ".join(catalog.closest_names(args))
            await self.call(context.bot.send_message, chat_id, T["unknown_gpu"].get(lang).format(
                name=html.escape(args[:60], quote=False), near=html.escape(near, quote=False)), parse_mode=ParseMode.HTML)
            return
        await self.answer(context.bot, chat_id, f"介绍一下 {args}" if lang == "zh" else f"tell me more about {args}")

    async def cmd_platforms(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, args = opened
        if args:
            text = f"租GPU的云平台：{args}" if lang == "zh" else f"cloud GPU platforms: {args}"
        else:
            text = "国内用哪个云平台租GPU？" if lang == "zh" else "Which cloud GPU platform should I use?"
        await self.answer(context.bot, chat_id, text)

    async def cmd_lang(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if not await self.gate(update, context):
            return
        chat = update.effective_chat
        choice = lang_choice((context.args or [""])[0])
        if choice:
            await self.answer(context.bot, chat.id, LANG_SENTENCE[choice])
            return
        lang = self.lang(chat.id, update.effective_user)
        markup = InlineKeyboardMarkup([[InlineKeyboardButton("简体中文", callback_data="l:zh-cn"),
                                        InlineKeyboardButton("繁體中文", callback_data="l:zh-tw"),
                                        InlineKeyboardButton("English", callback_data="l:en")]])
        await self.call(context.bot.send_message, chat.id, T["choose_lang"].get(lang), reply_markup=markup)

    async def cmd_recommend(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, _ = opened
        await self.call(context.bot.send_message, chat_id, T["ask_budget"].get(lang),
                        reply_markup=_budget_keyboard(lang))

    async def cmd_unknown(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat = update.effective_chat
        msg = update.effective_message
        if chat is None or msg is None:
            return
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            first = (msg.text or "").split()[0] if msg.text else ""
            if "@" not in first or first.split("@", 1)[1].lower() != (context.bot.username or "").lower():
                return  # another bot's command
        if not await self.gate(update, context):
            return
        lang = self.lang(chat.id, update.effective_user)
        await self.call(context.bot.send_message, chat.id, T["unknown_command"].get(lang))

    async def on_callback(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        q = update.callback_query
        chat = update.effective_chat
        if q is None or chat is None or not q.data:
            return
        if not await self.gate(update, context):
            return
        kind, _, rest = q.data.partition(":")
        try:
            if kind == "s":
                await self._on_suggestion(q, context, chat.id, rest)
            elif kind == "c":
                await self._on_chart(q, context, chat.id, rest)
            elif kind == "d":
                await self._on_details(q, context, chat.id, rest)
            elif kind == "r":
                await self._on_recommend_step(q, context, chat.id, rest)
            elif kind == "l":
                await self._answer_query(q)
                await self.answer(context.bot, chat.id, LANG_SENTENCE.get(rest, LANG_SENTENCE["en"]))
            else:
                await self._answer_query(q)
        except (ValueError, IndexError):
            log.info("malformed callback data %r", q.data)
            await self._answer_query(q, T["expired"].get(self.lang(chat.id, update.effective_user)))

    async def _answer_query(self, q, text: str | None = None) -> None:
        try:
            await self.call(q.answer, text)
        except BadRequest as e:  # "query is too old": the click still counts
            log.debug("answerCallbackQuery: %s", e)

    async def _on_suggestion(self, q, context, chat_id: int, rest: str) -> None:
        key, index = (int(x) for x in rest.split(":"))
        kb = self.store.keyboard(chat_id, key)
        if kb is None or index >= len(kb.get("s", [])):
            await self._answer_query(q, T["expired"].get(self.lang(chat_id, q.from_user)))
            return
        text = kb["s"][index]
        await self._answer_query(q)
        await self.answer(context.bot, chat_id, text, echo=True, base=kb.get("session"))

    async def _on_chart(self, q, context, chat_id: int, rest: str) -> None:
        kb = self.store.keyboard(chat_id, int(rest))
        lang = self.lang(chat_id, q.from_user)
        if kb is None or not kb.get("c"):
            await self._answer_query(q, T["expired"].get(lang))
            return
        await self._answer_query(q)
        await self._send_chart(context.bot, chat_id, kb, lang)

    async def _on_details(self, q, context, chat_id: int, rest: str) -> None:
        """The whole answer (notes on each card, cards not picked, how speed is measured, sources) under a compact
        one."""
        kb = self.store.keyboard(chat_id, int(rest))
        if kb is None or not kb.get("d"):
            await self._answer_query(q, T["expired"].get(self.lang(chat_id, q.from_user)))
            return
        await self._answer_query(q)
        for piece in kb["d"]:
            await self._send_piece(partial(self.call, context.bot.send_message), chat_id, piece)

    async def cmd_chart(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """`/chart`: the speed-vs-price chart of the latest answer with picks; `/chart <question>` answers the
        question first, then charts it."""
        opened = await self._opened(update, context)
        if opened is None:
            return
        chat_id, lang, args = opened
        if args:
            await self.answer(context.bot, chat_id, args, update_id=update.update_id)
        kb = self.store.latest_chart(chat_id)
        if kb is None:
            await self.call(context.bot.send_message, chat_id, T["no_chart"].get(lang))
            return
        await self._send_chart(context.bot, chat_id, kb, lang)

    async def _send_chart(self, bot, chat_id: int, kb: dict, lang: str) -> None:
        """The chart of one answer, drawn from the state that answer was given in (the keyboard's)."""
        from bot.charts import chart_of, draw
        from bot.dialogue import Session

        session = Session.from_dict(kb.get("session") or {})
        lang = session.lang or lang
        chart = chart_of(self.engine, session, kb["c"], kb.get("h", ()))
        if not chart.points:
            await self.call(bot.send_message, chat_id, T["no_chart"].get(lang))
            return
        typing = asyncio.create_task(self._typing(bot, chat_id, ChatAction.UPLOAD_PHOTO))
        try:
            png = await self.in_thread(draw, chart)
        finally:
            typing.cancel()
        await self.call(bot.send_photo, chat_id, photo=png, caption=chart.say("caption"),
                        filename="gpu-speed-vs-price.png")

    async def _on_recommend_step(self, q, context, chat_id: int, rest: str) -> None:
        """One step of the guided /recommend: budget → workload → new/used. The data carries the choices so far;
        "back" (the choices minus the last, ending in 'b') redraws the step before, "x" cancels."""
        parts = rest.split(":")
        lang = parts[0] if parts[0] in ("zh", "en") else "en"
        if parts[-1] == "x":
            await self._answer_query(q)
            await self._edit(q, T["cancelled"].get(lang), None)
            return
        if parts[-1] == "b":
            parts = parts[:-1]
            if len(parts) == 1:
                await self._answer_query(q)
                await self._edit(q, T["ask_budget"].get(lang), _budget_keyboard(lang))
                return
        choices = [int(x) for x in parts[1:]]
        if any(c < 0 for c in choices):
            raise ValueError(rest)
        if len(choices) == 1:
            BUDGETS[lang][choices[0]]  # noqa: B018 — validates the index
            prefix = f"r:{lang}:{choices[0]}"
            label = (lambda w: w[3]) if lang == "zh" else (lambda w: w[1])
            buttons = [InlineKeyboardButton(label(w), callback_data=f"{prefix}:{i}") for i, w in enumerate(WORKLOADS)]
            markup = InlineKeyboardMarkup([buttons[i:i + 2] for i in range(0, len(buttons), 2)] +
                                          [_back_and_cancel(lang, f"r:{lang}")])
            await self._answer_query(q)
            await self._edit(q, T["ask_workload"].get(lang), markup)
            return
        if len(choices) == 2:
            WORKLOADS[choices[1]]  # noqa: B018
            prefix = f"r:{lang}:{choices[0]}:{choices[1]}"
            markup = InlineKeyboardMarkup([[InlineKeyboardButton(m[1].get(lang), callback_data=f"{prefix}:{i}")
                                            for i, m in enumerate(MARKETS)],
                                           _back_and_cancel(lang, f"r:{lang}:{choices[0]}")])
            await self._answer_query(q)
            await self._edit(q, T["ask_market"].get(lang), markup)
            return
        sentence = recommend_sentence(lang, *choices[:3])
        await self._answer_query(q)
        await self._edit(q, T["asking"].get(lang).format(q=sentence), None)
        await self.answer(context.bot, chat_id, sentence)

    async def _edit(self, q, text: str, markup) -> None:
        try:
            await self.call(q.edit_message_text, text, reply_markup=markup)
        except BadRequest as e:  # "message is not modified", a deleted message: the flow goes on
            log.debug("edit failed: %s", e)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        err = context.error
        if isinstance(err, (NetworkError, TimedOut, RetryAfter)) and not isinstance(err, BadRequest):
            log.warning("Telegram API problem (will retry): %s", err)
        else:
            log.error("error while handling an update", exc_info=err)
        if isinstance(update, Update) and update.effective_chat:
            try:
                lang = self.lang(update.effective_chat.id, update.effective_user)
                await context.bot.send_message(update.effective_chat.id, T["error"].get(lang))
            except Exception as e:  # the error handler itself must not raise
                log.warning("could not tell the user about the error: %s", e)

    # --- lifecycle ---------------------------------------------------------------------------------------------------
    async def skip_answered(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Before any handler: an update answered already (a webhook re-post, a redelivery after a crash) is not
        answered twice."""
        if update.update_id is not None and self.store.seen(update.update_id):
            log.info("update %s was answered already; skipped", update.update_id)
            raise ApplicationHandlerStop

    async def mark_answered(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """After the handlers: the update is handled (a turn marks its update with its reply, in one transaction)."""
        if update.update_id is not None:
            self.store.mark_seen(update.update_id)

    async def post_init(self, app: Application) -> None:
        """Commands in the menu, in English (default) and Chinese; the outbox's sender starts (and sends what a
        previous run left unsent)."""
        if self._outbox_task is None:
            self._outbox_task = asyncio.get_running_loop().create_task(self._outbox_loop(app.bot))
        for code, lang in ((None, "en"), ("zh", "zh")):
            try:  # the "What can this bot do?" text of an empty chat, and the profile line, in both languages
                await self.call(app.bot.set_my_description, T["description"].get(lang)[:512], language_code=code)
                await self.call(app.bot.set_my_short_description, T["short_description"].get(lang)[:120],
                                language_code=code)
            except TelegramError as e:
                log.warning("setMyDescription failed: %s", e)
        for code, pick in ((None, 1), ("zh", 2)):
            commands = [BotCommand(c[0], c[pick]) for c in COMMANDS]
            try:
                await self.call(app.bot.set_my_commands, commands, language_code=code)
            except TelegramError as e:
                log.warning("setMyCommands failed: %s", e)

    async def post_shutdown(self, app: Application) -> None:
        if self._outbox_task is not None:
            self._outbox_task.cancel()
            try:
                await self._outbox_task
            except (asyncio.CancelledError, Exception):
                pass
            self._outbox_task = None
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self.owns_store:
            self.store.close()


def _retry_seconds(e: RetryAfter) -> float:
    value = getattr(e, "_retry_after", None)
    if value is None:
        value = e.retry_after
    return value.total_seconds() if hasattr(value, "total_seconds") else float(value)





def _budget_keyboard(lang: str) -> InlineKeyboardMarkup:
    buttons = [InlineKeyboardButton(label, callback_data=f"r:{lang}:{i}") for i, (label, _) in enumerate(BUDGETS[lang])]
    return InlineKeyboardMarkup([buttons[:3], buttons[3:], [InlineKeyboardButton(T["cancel"].get(lang),
                                                                                 callback_data=f"r:{lang}:x")]])


def _back_and_cancel(lang: str, previous: str) -> list[InlineKeyboardButton]:
    """`previous`: the callback data that drew the step before this one."""
    return [InlineKeyboardButton(T["back"].get(lang), callback_data=f"{previous}:b"),
            InlineKeyboardButton(T["cancel"].get(lang), callback_data=f"r:{lang}:x")]


def _chat_tag(chat_id: int) -> str:
    """A chat's id as operators' logs show it: stable, short, not the id itself."""
    import hashlib

    return hashlib.sha256(str(chat_id).encode()).hexdigest()[:10]


def _markup(rows: list[list[list[str]]]) -> InlineKeyboardMarkup | None:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in row]
                                 for row in rows]) if rows else None


def _label(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _strip_tags(html_text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def _addressed_text(msg: Message, bot) -> str | None:
    """In a group: the text (or caption) without the @mention when the message is for the bot, else None."""
    text = msg.text or msg.caption or ""
    username = (bot.username or "").lower()
    reply = msg.reply_to_message
    if reply is not None and reply.from_user is not None and reply.from_user.id == bot.id:
        return text
    entities = msg.parse_entities([MessageEntity.MENTION]) if msg.text else \
        msg.parse_caption_entities([MessageEntity.MENTION])
    mentioned = [t for t in entities.values() if t.lstrip("@").lower() == username]
    if not username or not mentioned:
        return None
    for t in mentioned:
        text = text.replace(t, " ")
    return " ".join(text.split())


# --- building and running ---------------------------------------------------------------------------------------------
def build_application(settings: Settings, engine: Engine, store: SessionStore | None = None) -> Application:
    """The one place the Application is put together: bot URL, rate limiter, handlers, error handler."""
    token = (settings.telegram_bot_token or "").strip()
    if not token:
        raise ValueError("TELEGRAM_BOT_TOKEN is not set")
    install_redaction(token, settings.telegram_proxy_url)
    owns = store is None
    store = store or open_store(settings.data_dir)
    advisor = Advisor(settings, engine, store, owns_store=owns)
    base_url = api_base_url(settings)
    file_url = settings.telegram_base_file_url or file_url_for(base_url)
    builder = (ApplicationBuilder()
               .token(token)
               .base_url(base_url)
               .base_file_url(file_url)
               .rate_limiter(AIORateLimiter(overall_max_rate=settings.telegram_send_rate, max_retries=3))
               .concurrent_updates(True)
               .connect_timeout(10).read_timeout(20).write_timeout(30).pool_timeout(10)
               .post_init(advisor.post_init)
               .post_shutdown(advisor.post_shutdown))
    if settings.telegram_proxy_url:  # mainland China: Telegram is reached through a proxy
        builder = builder.proxy(settings.telegram_proxy_url).get_updates_proxy(settings.telegram_proxy_url)
    app = builder.build()
    app.bot_data["advisor"] = advisor
    for names, fn in ((["start"], advisor.cmd_start), (["help"], advisor.cmd_help),
                      (["recommend"], advisor.cmd_recommend), (["compare"], advisor.cmd_compare),
                      (["gpu"], advisor.cmd_gpu), (["platforms"], advisor.cmd_platforms), (["lang"], advisor.cmd_lang),
                      (["chart"], advisor.cmd_chart),
                      (["reset", "new"], advisor.cmd_reset)):
        app.add_handler(CommandHandler(names, fn, filters=filters.UpdateType.MESSAGE))
    app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & filters.COMMAND, advisor.cmd_unknown))
    app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, advisor.on_text))
    app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & ~filters.TEXT & ~filters.StatusUpdate.ALL,
                                   advisor.on_other))
    app.add_handler(CallbackQueryHandler(advisor.on_callback))
    app.add_handler(TypeHandler(Update, advisor.skip_answered), group=-1)
    app.add_handler(TypeHandler(Update, advisor.mark_answered), group=1)
    app.add_error_handler(advisor.on_error)
    return app


def webhook_config(settings: Settings) -> dict | None:
    """None for long polling; else url, listen, port, path, secret (from the TELEGRAM_WEBHOOK_* settings)."""
    url = settings.telegram_webhook_url.strip()
    if not url:
        return None
    if not url.startswith(("https://", "http://")):
        raise ConfigError(f"TELEGRAM_WEBHOOK_URL must be an https:// URL, not {url!r}")
    secret = settings.telegram_webhook_secret or secrets.token_urlsafe(32)
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
        raise ConfigError("TELEGRAM_WEBHOOK_SECRET may only use A-Z, a-z, 0-9, _ and - (1-256 characters)")
    path = settings.telegram_webhook_path or urllib.parse.urlsplit(url).path or "/"
    if not path.startswith("/"):
        path = "/" + path
    return {"url": url, "secret": secret, "path": path, "listen": settings.telegram_webhook_listen,
            "port": settings.telegram_webhook_port}


def webhook_args(cfg: dict) -> dict:
    """The arguments of PTB's `run_webhook` / `Updater.start_webhook` for a webhook_config: plain HTTP on
    listen:port/path behind the TLS proxy, Telegram told the public URL and the secret it must send."""
    return {"listen": cfg["listen"], "port": cfg["port"], "url_path": cfg["path"], "webhook_url": cfg["url"],
            "secret_token": cfg["secret"], "allowed_updates": ALLOWED_UPDATES, "drop_pending_updates": False,
            "max_connections": 40, "bootstrap_retries": 3}


async def start_webhook(app: Application, cfg: dict) -> None:
    """What `run_webhook` does before it waits, for an event loop that is already running (tests, embedding):
    initialise, register the webhook and start PTB's listener, start the app."""
    install_redaction(cfg["secret"])
    await app.initialize()
    if app.post_init:
        await app.post_init(app)
    await app.updater.start_webhook(**webhook_args(cfg))
    await app.start()


async def stop_webhook(app: Application) -> None:
    if app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
    await app.shutdown()
    if app.post_shutdown:
        await app.post_shutdown(app)


def api_base_url(settings: Settings) -> str:
    """The Bot API address as PTB wants it (…/bot, then the token): a trailing slash would turn every call into a
    404, which PTB reports as a rejected token."""
    return (settings.telegram_base_url or "https://api.telegram.org/bot").strip().rstrip("/")


async def _get_me(settings: Settings, token: str):
    """The bot's own user, from getMe: proves the token and the address before anything else starts."""
    from telegram import Bot
    from telegram.request import HTTPXRequest

    request = HTTPXRequest(proxy=settings.telegram_proxy_url or None, connect_timeout=10, read_timeout=20)
    async with Bot(token, base_url=api_base_url(settings), request=request) as bot:
        return bot.bot


def _fail(message: str, code: int = 2) -> int:
    print(f"gpu-advisor telegram: {message}", file=sys.stderr)
    return code


# budget questions and follow-ups in both languages: they load what the scorer and the NLU import lazily (Chinese
# numerals, the GPU tables), about a second that would otherwise fall on the first users; they never need the index
WARM_UP = (("预算八千训练CNN推荐什么卡", "便宜点的呢？", "显存大一点的？", "为什么？", "对比一下前两个"),
           ("$1500, LoRA on a 7B model", "cheaper?", "why?", "compare the first two"))
# free-form questions: the tokenizer's dictionary and the model's first inference (about a second)
WARM_UP_RETRIEVAL = ("国内用哪个云平台租GPU？", "Is AMD usable for PyTorch?")


def warm_up(engine: Engine, retrieval: bool = False) -> None:
    """Take the WARM_UP turns in throwaway conversations (nothing is stored); with `retrieval` (the index is loaded
    anyway) also the WARM_UP_RETRIEVAL questions."""
    from bot.dialogue import Conversation

    for turns in WARM_UP + ((WARM_UP_RETRIEVAL,) if retrieval else ()):
        conv = Conversation(engine)
        for text in turns:
            conv.turn(text)


def run(settings: Settings | None = None) -> int:
    """`gpu-advisor telegram`: check the configuration, load the engine, then poll (or serve the webhook)."""
    from bot.config import get_settings

    s = settings or get_settings()
    token = (s.telegram_bot_token or "").strip()
    if not token:
        return _fail("TELEGRAM_BOT_TOKEN is not set. Get a token from @BotFather and run:\n"
                     "  TELEGRAM_BOT_TOKEN=123456:ABC... gpu-advisor telegram")
    install_redaction(token, s.telegram_proxy_url)
    try:
        cfg = webhook_config(s)
    except ConfigError as e:
        return _fail(str(e))
    try:
        check_data_dir(s.data_dir)  # local, no network: said before anything else
    except StoreError as e:
        return _fail(f"{e} (set GPU_ADVISOR_DATA_DIR to a writable directory)")
    # then the token: a wrong one is one line and exit 2, before the store is opened or the model loaded
    try:
        me = asyncio.run(_get_me(s, token))
    except InvalidToken:
        return _fail("Telegram rejected TELEGRAM_BOT_TOKEN (check it with @BotFather)")
    except (NetworkError, TimedOut) as e:
        return _fail(f"cannot reach the Telegram Bot API at {api_base_url(s)}: {e}", 1)
    log.warning("signed in to Telegram as @%s", me.username)
    try:
        store = open_store(s.data_dir)
    except StoreError as e:
        return _fail(f"{e} (set GPU_ADVISOR_DATA_DIR to a writable directory)")
    from bot.dialogue import Engine

    engine = Engine.from_settings(s)
    if s.telegram_preload:
        started = time.perf_counter()
        _ = engine.index  # load the encoder and index now: the first question is answered at full speed
        log.warning("retrieval index loaded in %.1f s", time.perf_counter() - started)
    warm_up(engine, retrieval=s.telegram_preload)
    app = build_application(s, engine, store)
    app.bot_data["advisor"].owns_store = True
    try:
        if cfg:
            install_redaction(cfg["secret"])
            log.warning("webhook mode: Telegram posts to %s, the proxy forwards to %s:%s%s (data in %s)", cfg["url"],
                        cfg["listen"], cfg["port"], cfg["path"], s.data_dir)
            app.run_webhook(**webhook_args(cfg))
        else:
            log.warning("polling Telegram at %s (data in %s)", urllib.parse.urlsplit(s.telegram_base_url).netloc,
                        s.data_dir)
            app.run_polling(allowed_updates=ALLOWED_UPDATES, drop_pending_updates=False, bootstrap_retries=3)
    except InvalidToken:
        return _fail("Telegram rejected TELEGRAM_BOT_TOKEN (check it with @BotFather)")
    except (NetworkError, TimedOut) as e:
        return _fail(f"cannot reach the Telegram Bot API at {s.telegram_base_url}: {e}", 1)
    except OSError as e:  # the webhook listener cannot bind (port in use, address not on this machine)
        if not cfg:
            raise
        return _fail(f"cannot listen on {cfg['listen']}:{cfg['port']} for the webhook: {e.strerror or e} "
                     "(see TELEGRAM_WEBHOOK_LISTEN / TELEGRAM_WEBHOOK_PORT)")
    return 0
