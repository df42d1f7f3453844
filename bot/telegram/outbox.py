"""Delivering answers: each reply is queued in the store with its chat's new state, then sent from there.

A reply the Bot API does not take now (5xx, timeouts, network loss, a 429) stays queued and is tried again with
backoff for up to OUTBOX_WINDOW seconds; a chat's later replies wait behind it, so answers never arrive out of order.
A piece of a long answer that was sent is not sent again. Right after a start, what the last run left unsent goes
first — which is what makes a `kill -9` in the middle of sending lose nothing.
"""

from __future__ import annotations

import asyncio
import html
import logging
import time
import weakref

from telegram.error import Forbidden, RetryAfter, TelegramError

from bot import render
from bot.reply import Reply
from bot.store import OutboxItem, SessionStore
from bot.telegram.keyboards import markup, reply_rows
from bot.telegram.sending import Backoff, chat_tag, retry_seconds, send_piece

log = logging.getLogger(__name__)

OUTBOX_WINDOW = 600.0  # seconds a queued reply keeps being retried before it is given up (and logged with its chat)
OUTBOX_POLL = 0.5  # seconds between looks at the outbox for replies whose next try is due


class ChatLocks:
    """One asyncio.Lock per chat, kept while someone holds or waits for it: a chat's turns and the delivery of its
    replies go one at a time, in order, while other chats go on."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def of(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[chat_id] = lock
        return lock

    def busy(self, chat_id: int) -> bool:
        """A turn of the chat, or the delivery of its replies, is under way."""
        lock = self._locks.get(chat_id)
        return lock is not None and lock.locked()


def reply_payload(reply: Reply, key: int | None, reply_to: int | None, echo: str | None,
                  pieces: list[str] | None = None, details: bool = False) -> dict:
    """What the outbox keeps of a reply: its HTML pieces (each under 4,096 characters), its buttons, what it answers.

    `echo`: the question a button asked, shown above the answer (a press leaves no message of its own). `details`:
    the pieces are the compact layout, and a button sends the whole answer."""
    pieces = list(pieces if pieces is not None else render.telegram_html(reply))
    if echo:
        quoted = f"<i>» {html.escape(echo, quote=False)}</i>"
        if len(quoted) + 2 + len(pieces[0]) <= render.TELEGRAM_LIMIT:
            pieces[0] = f"{quoted}\n\n{pieces[0]}"
    return {"pieces": pieces, "buttons": reply_rows(reply, key, details), "reply_to": reply_to}


class Outbox:
    """Sends the store's queued replies: at once after a turn (`flush`), and from a background task for the ones
    whose next try is due (`start`/`stop`)."""

    def __init__(self, store: SessionStore, chats: ChatLocks, backoff: Backoff,
                 window: float = OUTBOX_WINDOW, poll: float = OUTBOX_POLL):
        self.store = store
        self.chats = chats
        self.backoff = backoff
        self.window = window
        self.poll = poll
        self._task: asyncio.Task | None = None

    async def flush(self, bot, chat_id: int) -> None:
        """Send the chat's queued replies in order. One that fails waits out its backoff, and the later ones wait
        behind it. The caller holds the chat's lock."""
        for item in self.store.outbox(chat_id):
            if item.attempts and item.next_try > time.time():
                return
            if not await self._deliver(bot, item):
                return

    async def _deliver(self, bot, item: OutboxItem) -> bool:
        """Send one queued reply, piece by piece, from the first piece not yet sent. True when it is done with
        (sent, or given up and logged); False when it is to be tried again later."""
        pieces = item.payload["pieces"]
        buttons = markup(item.payload.get("buttons") or [])
        reply_to = item.payload.get("reply_to")
        for i in range(item.sent_pieces, len(pieces)):
            try:
                await send_piece(bot.send_message, item.chat_id, pieces[i],
                                 markup=buttons if i == len(pieces) - 1 else None,
                                 reply_to=reply_to if i == 0 else None)
            except Forbidden as e:  # blocked by the user, kicked from the group: nobody to deliver to
                log.info("chat %s refuses messages (%s); its reply is dropped", chat_tag(item.chat_id), e)
                self.store.remove(item.id)
                return True
            except (RetryAfter, TelegramError) as e:  # 429, 5xx, network errors, timeouts
                return self._later(item, e)
            self.store.sent_piece(item.id, i + 1)
        self.store.remove(item.id)
        return True

    def _later(self, item: OutboxItem, error: Exception) -> bool:
        now = time.time()
        if isinstance(error, RetryAfter):
            delay = retry_seconds(error) + 0.1  # what Telegram asked for
        else:
            delay = self.backoff.after(item.attempts + 1)
        if now + delay - item.created > self.window:
            log.warning("gave up sending a reply to chat %s after %d tries over %.0f s: %s", chat_tag(item.chat_id),
                        item.attempts + 1, now - item.created, error)
            self.store.remove(item.id)
            return True
        log.info("reply to chat %s not sent (%s); trying again in %.1f s", chat_tag(item.chat_id), error, delay)
        self.store.retry_later(item.id, now + delay, str(error))
        return False

    def start(self, bot) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(bot))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None

    async def _run(self, bot) -> None:
        """Delivers what could not be sent at once — and, right after a start, whatever the last run left unsent."""
        while True:
            try:
                for chat_id in self.store.chats_due():
                    lock = self.chats.of(chat_id)
                    if lock.locked():
                        continue  # a turn of that chat is under way: it flushes when done
                    async with lock:
                        await self.flush(bot, chat_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # never let the sender die: the next round tries again
                log.exception("delivering queued replies failed; trying again")
            await asyncio.sleep(self.poll)
