"""Long polling that rides out an outage quietly, and the one way the bot is served (polling or webhook) and stopped.

PTB's Updater logs a traceback for every failed poll and sleeps up to 30 s between tries where a stop cannot reach it.
Here getUpdates runs in a loop of our own: an outage (network errors, 5xx, 429, a conflict) is one WARNING with its
cause and its end one INFO, the tries back off, and a stop ends the loop at once, even while it waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Callable, Sequence

from telegram.error import InvalidToken, RetryAfter, TelegramError
from telegram.ext import Application

from bot.telegram.sending import Backoff, retry_seconds

log = logging.getLogger(__name__)

CONFIRM_TIMEOUT = 5.0  # seconds for the last getUpdates at a stop, which confirms what was fetched


class Poller:
    """getUpdates in a loop, each update put on the Application's queue (its handlers run as with PTB's Updater)."""

    def __init__(self, app: Application, allowed_updates: Sequence[str], timeout: float = 10.0,
                 backoff: Backoff | None = None):
        self.app = app
        self.allowed_updates = list(allowed_updates)
        self.timeout = timeout  # long-polling seconds of each getUpdates
        self.backoff = backoff or Backoff(first=1.0)
        self.offset: int | None = None  # the next update to fetch: everything before it is confirmed by the next call
        self.failures = 0  # failed polls in a row: > 0 during an outage
        self.task: asyncio.Task | None = None

    async def start(self) -> None:
        """A webhook left registered is removed (Telegram sends nothing to getUpdates while one is set), then the
        loop starts. A failure here is raised: the bot has not started."""
        await self.app.bot.delete_webhook(drop_pending_updates=False)
        self.task = asyncio.get_running_loop().create_task(self._run(), name="gpu-advisor-polling")

    async def _run(self) -> None:
        """Until cancelled, or a rejected token (raised: nothing would ever work again)."""
        outage_began = 0.0
        while True:
            try:
                updates = await self.app.bot.get_updates(offset=self.offset, timeout=self.timeout,
                                                         allowed_updates=self.allowed_updates)
            except InvalidToken:
                raise
            except TelegramError as e:  # network errors, timeouts, 5xx, 429, 409 (another getUpdates)
                self.failures += 1
                if self.failures == 1:
                    outage_began = time.monotonic()
                    log.warning("cannot poll Telegram (%s); retrying until it answers", e)
                delay = retry_seconds(e) + 0.1 if isinstance(e, RetryAfter) else self.backoff.after(self.failures)
                await asyncio.sleep(delay)
                continue
            if self.failures:
                log.info("polling Telegram again after %.0f s (%d failed polls)", time.monotonic() - outage_began,
                         self.failures)
                self.failures = 0
            for update in updates:
                await self.app.update_queue.put(update)
            if updates:
                self.offset = updates[-1].update_id + 1

    async def stop(self) -> None:
        """The loop ends at once; the fetched updates are confirmed with one short getUpdates unless Telegram is out
        of reach (then they come again at the next start, and are skipped as answered)."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.offset is None or self.failures:
            return
        try:
            await asyncio.wait_for(self.app.bot.get_updates(offset=self.offset, timeout=0,
                                                            allowed_updates=self.allowed_updates), CONFIRM_TIMEOUT)
        except (TimeoutError, TelegramError) as e:
            log.info("could not confirm the last updates to Telegram (%s); they are skipped as answered next time", e)


async def shutdown(app: Application) -> None:
    """Stop whatever of the application runs (PTB's updater, the handlers), then shut it down (post_shutdown too)."""
    if app.updater is not None and app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
    await app.shutdown()
    if app.post_shutdown:
        await app.post_shutdown(app)


async def serve(app: Application, start: Callable[[], object], started: Callable[[], None],
                poller: Poller | None = None) -> None:
    """Run the application until SIGINT or SIGTERM (or the poller fails for good, which is raised): `start()` (a
    coroutine function) brings it up, `started()` says so; the application is shut down however this ends."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await start()
        started()
        waiting = [asyncio.create_task(stop.wait())] + ([poller.task] if poller and poller.task else [])
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        waiting[0].cancel()
        for task in done:
            if task is not waiting[0]:
                task.result()  # the poller's rejected token
        log.info("stopping")
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if poller is not None:
            await poller.stop()
        await shutdown(app)
