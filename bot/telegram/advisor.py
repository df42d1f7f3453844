"""What the handlers share (PTB's `bot_data["advisor"]`), and the one way a message is answered.

Every text goes through Conversation.turn in a worker thread (the engine is CPU-bound and synchronous), one turn at a
time per chat; the turn's session, its reply (queued in the outbox) and the update it answers are committed to SQLite
in one transaction before the reply is sent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from functools import partial
from typing import TYPE_CHECKING

from telegram import Message, Update
from telegram.constants import ChatAction
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot import render
from bot.reply import Reply
from bot.store import SessionStore
from bot.telegram.keyboards import MAX_BUTTONS, markup
from bot.telegram.outbox import ChatLocks, Outbox, reply_payload
from bot.telegram.ratelimit import RateLimiter
from bot.telegram.sending import Backoff, call, chat_tag, send_piece
from bot.telegram.texts import T

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.dialogue import Engine

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE  # what every handler gets; its bot_data["advisor"] is the Advisor

# the update this task handles (PTB runs each update's handler groups in one task): when it began, and whether a turn
# has logged its line — every handled update gets one INFO line, the turn's or `handled`'s
_update: ContextVar[dict | None] = ContextVar("gpu_advisor_update", default=None)


def begin_update() -> None:
    _update.set({"began": time.perf_counter(), "logged": False})


def handled(chat_id: int | None, what: str) -> None:
    """The INFO line of an update no turn answered (a usage message, an unknown command, a sticker …)."""
    state = _update.get()
    if state is None or state["logged"]:
        return
    state["logged"] = True
    log.info("chat %s: %s in %.0f ms", chat_tag(chat_id) if chat_id is not None else "-", what,
             1000 * (time.perf_counter() - state["began"]))


class Advisor:
    """Engine, store, per-chat locks, the rate limiter, the outbox and the worker threads."""

    def __init__(self, settings: Settings, engine: Engine, store: SessionStore, owns_store: bool = False):
        self.settings = settings
        self.engine = engine
        self.store = store
        self.owns_store = owns_store  # closed with the application
        self.limiter = RateLimiter(settings.telegram_rate_limit)
        self.backoff = Backoff()
        self.chats = ChatLocks()
        self.outbox = Outbox(store, self.chats, self.backoff)
        # "typing…" only for a turn that takes longer than this (seconds): a budget answer takes milliseconds, and a
        # chat action for it would be one more API call per answer, which nobody gets to see (bench/bot_load.py)
        self.typing_delay = 0.5
        self._executor = ThreadPoolExecutor(max_workers=settings.telegram_workers, thread_name_prefix="gpu-advisor-turn")

    # --- plumbing ----------------------------------------------------------------------------------------------------
    async def in_thread(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def call(self, fn, *args, **kwargs):
        """A Bot API call that never crashes a handler (sending.call with this bot's backoff)."""
        return await call(self.backoff, fn, *args, **kwargs)

    def lang(self, chat_id: int, user=None, prefer_client: bool = False) -> str:
        """The chat's language: a language the user asked for, else what they wrote in, else their client's."""
        s = self.store.get(chat_id)
        code = getattr(user, "language_code", None)
        client = ("zh" if code.lower().startswith("zh") else "en") if code else None
        if s.lang_locked:
            return s.lang_locked
        if prefer_client and client:
            return client
        return s.lang or client or "en"

    async def gate(self, update: Update, context: Context) -> bool:
        """Rate limit: False (after one polite message) when the user is over the limit."""
        user = update.effective_user
        ok, wait = self.limiter.allow(user.id if user else None)
        if ok:
            return True
        log.info("rate limit: user %s", chat_tag(user.id) if user else "?")
        chat = update.effective_chat
        if update.callback_query:
            await self.call(update.callback_query.answer, T["rate"].get(self.lang(chat.id, user)).format(s=wait or 60))
        elif wait and chat:
            await self.call(context.bot.send_message, chat.id, T["rate"].get(self.lang(chat.id, user)).format(s=wait))
        return False

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
    def take_turn(self, chat_id: int, text: str, decorate=None, base: dict | None = None, reply_to: int | None = None,
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
                       outbox=lambda key: reply_payload(reply, key, reply_to, echo, compact or full, bool(compact)),
                       update_id=update_id)
        log.info("chat %s: %s (%s) in %.0f ms", chat_tag(chat_id), reply.intent, (reply.query or {}).get("rule", "-"),
                 1000 * (time.perf_counter() - started))
        return reply

    async def answer(self, bot, chat_id: int, text: str, *, reply_to: int | None = None, decorate=None,
                     echo: bool = False, base: dict | None = None, update_id: int | None = None) -> Reply:
        """Take one turn of the chat, queue its reply and send it; turns of one chat run in order, other chats
        meanwhile. A reply the Bot API does not take now stays queued and is retried by the outbox."""
        async with self.chats.of(chat_id):
            typing = asyncio.create_task(self._typing(bot, chat_id))
            try:
                reply = await self.in_thread(self.take_turn, chat_id, text, decorate, base, reply_to,
                                             text if echo else None, update_id)
            finally:
                typing.cancel()
            if (state := _update.get()) is not None:
                state["logged"] = True  # take_turn logged the turn
            await self.outbox.flush(bot, chat_id)
            return reply

    async def send_reply(self, bot, chat_id: int, reply: Reply, key: int | None = None, *,
                         reply_to: int | None = None, echo: str | None = None) -> list[Message]:
        """The reply sent now, not queued (the whole layout, retried by `call`): the buttons go on the last piece."""
        payload = reply_payload(reply, key, reply_to, echo)
        buttons, pieces = markup(payload["buttons"]), payload["pieces"]
        sent = []
        for i, piece in enumerate(pieces):
            msg = await send_piece(partial(self.call, bot.send_message), chat_id, piece,
                                   markup=buttons if i == len(pieces) - 1 else None,
                                   reply_to=reply_to if i == 0 else None)
            if msg is not None:
                sent.append(msg)
        return sent

    async def send_chart(self, bot, chat_id: int, kb: dict, lang: str) -> None:
        """The chart of one answer, drawn from the state that answer was given in (its stored keyboard's)."""
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

    # --- lifecycle ---------------------------------------------------------------------------------------------------
    def start(self, bot) -> None:
        """The outbox's sender starts (and sends what a previous run left unsent)."""
        self.outbox.start(bot)

    async def stop(self) -> None:
        await self.outbox.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self.owns_store:
            self.store.close()


def advisor_of(context: Context) -> Advisor:
    """The Advisor of the application an update came to (put there by app.build_application)."""
    return context.bot_data["advisor"]
