"""Bot API calls that never crash a handler, and one HTML message with its plain-text fallback.

Network errors and 5xx are retried with backoff; a 429 is retried by PTB's AIORateLimiter first. The outbox (outbox.py)
retries what these give up on, for answers; a prompt or a notice is sent with `call` and not queued.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import re
from dataclasses import dataclass

from telegram import LinkPreviewOptions, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

log = logging.getLogger(__name__)

SEND_ATTEMPTS = 3  # for network errors and 5xx; 429s are retried by AIORateLimiter
MAX_DELAY = 60.0  # the longest wait between two tries


@dataclass
class Backoff:
    """How long to wait before trying a failed call again: `first` seconds, doubling with each try."""

    first: float = 0.5

    def after(self, attempts: int) -> float:
        """The wait after `attempts` failed tries (1 = the first failure)."""
        return min(MAX_DELAY, self.first * 2 ** (attempts - 1))


async def call(backoff: Backoff, fn, *args, **kwargs):
    """`fn(*args, **kwargs)`, a Bot API call: retried on network errors, 5xx and persisting 429s, then logged and None.

    A BadRequest is raised (the caller knows what to do); a Forbidden (blocked by the user) is None."""
    name = getattr(fn, "__name__", fn)
    for attempt in range(1, SEND_ATTEMPTS + 1):
        try:
            return await fn(*args, **kwargs)
        except BadRequest:
            raise
        except Forbidden as e:  # blocked by the user, kicked from the group
            log.info("Telegram refused %s: %s", name, e)
            return None
        except RetryAfter as e:
            if attempt == SEND_ATTEMPTS:
                log.warning("Telegram rate limit persists for %s; giving up", name)
                return None
            await asyncio.sleep(retry_seconds(e) + 0.1)
        except (TimedOut, NetworkError) as e:
            if attempt == SEND_ATTEMPTS:
                log.warning("Telegram API call %s failed %d times: %s", name, attempt, e)
                return None
            log.info("Telegram API call %s failed (%s); retrying", name, e)
            await asyncio.sleep(backoff.after(attempt))
    return None


async def send_piece(send, chat_id: int, piece: str, *, markup=None, reply_to: int | None = None):
    """One HTML message through `send` (bot.send_message, or it wrapped in `call`); when Telegram cannot take the
    HTML, the same words as plain text rather than nothing. Other API errors reach the caller (the outbox retries)."""
    kwargs = {"reply_markup": markup, "link_preview_options": LinkPreviewOptions(is_disabled=True)}
    if reply_to:
        kwargs["reply_parameters"] = ReplyParameters(reply_to, allow_sending_without_reply=True)
    try:
        return await send(chat_id, piece, parse_mode=ParseMode.HTML, **kwargs)
    except BadRequest as e:
        log.warning("Telegram rejected a reply to chat %s (%s); sending it as plain text", chat_tag(chat_id), e)
        kwargs.pop("reply_parameters", None)
        try:
            return await send(chat_id, _strip_tags(piece)[:4096], **kwargs)
        except BadRequest as e2:
            log.error("Telegram rejected the plain-text reply to chat %s too: %s", chat_tag(chat_id), e2)
            return None


def chat_tag(chat_id: int) -> str:
    """A chat's (or user's) id as operators' logs show it: stable, short, not the id itself."""
    return hashlib.sha256(str(chat_id).encode()).hexdigest()[:10]


def retry_seconds(e: RetryAfter) -> float:
    """The wait a 429 asks for, in seconds (PTB gives an int or a timedelta, depending on its settings)."""
    value = getattr(e, "_retry_after", None)
    if value is None:
        value = e.retry_after
    return value.total_seconds() if hasattr(value, "total_seconds") else float(value)


def _strip_tags(html_text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))
