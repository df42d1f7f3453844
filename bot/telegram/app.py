"""The one place the Application is built, and `gpu-advisor telegram` that runs it.

Start-up order: settings → data dir → token (getMe: a wrong token is one line and exit 2, before anything loads) →
session store → engine (model and index preloaded unless GPU_ADVISOR_TELEGRAM_PRELOAD=0) → warm-up → polling, or
PTB's webhook listener when TELEGRAM_WEBHOOK_URL is set.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import time
import urllib.parse
from typing import TYPE_CHECKING

from telegram import BotCommand, Update
from telegram.error import InvalidToken, NetworkError, TelegramError, TimedOut
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.store import SessionStore, StoreError, check_data_dir, open_store
from bot.telegram import buttons, handlers
from bot.telegram.advisor import Advisor
from bot.telegram.polling import Poller, serve
from bot.telegram.redact import install_redaction
from bot.telegram.texts import T
from bot.telegram.webhook import ConfigError, start_webhook, webhook_config

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.dialogue import Engine

log = logging.getLogger(__name__)

MESSAGE = filters.UpdateType.MESSAGE  # not edited messages: an edit is not a new question


def build_application(settings: Settings, engine: Engine, store: SessionStore | None = None, *,
                      owns_store: bool | None = None) -> Application:
    """Bot URL, rate limiter, handlers, error handler. The store is opened here when not given, and then closed with
    the application (`owns_store` overrides that)."""
    token = (settings.telegram_bot_token or "").strip()
    if not token:
        raise ValueError("TELEGRAM_BOT_TOKEN is not set")
    install_redaction(token, settings.telegram_proxy_url)
    owns = store is None if owns_store is None else owns_store
    store = store or open_store(settings.data_dir)
    base_url = api_base_url(settings)
    builder = (ApplicationBuilder()
               .token(token)
               .base_url(base_url)
               .base_file_url(settings.telegram_base_file_url or file_url_for(base_url))
               .rate_limiter(AIORateLimiter(overall_max_rate=settings.telegram_send_rate, max_retries=3))
               .concurrent_updates(True)
               .connect_timeout(10).read_timeout(20).write_timeout(30).pool_timeout(10)
               .post_init(post_init)
               .post_shutdown(post_shutdown))
    if settings.telegram_proxy_url:  # mainland China: Telegram is reached through a proxy
        builder = builder.proxy(settings.telegram_proxy_url).get_updates_proxy(settings.telegram_proxy_url)
    app = builder.build()
    app.bot_data["advisor"] = Advisor(settings, engine, store, owns_store=owns)
    for command in handlers.COMMANDS:
        app.add_handler(CommandHandler(command.name, command.handler, filters=MESSAGE))
    app.add_handler(MessageHandler(MESSAGE & filters.COMMAND, handlers.unknown_command))
    app.add_handler(MessageHandler(MESSAGE & filters.TEXT & ~filters.COMMAND, handlers.on_text))
    app.add_handler(MessageHandler(MESSAGE & ~filters.TEXT & ~filters.StatusUpdate.ALL, handlers.on_other))
    for pattern, callback in buttons.CALLBACKS:
        app.add_handler(CallbackQueryHandler(callback, pattern=pattern))
    app.add_handler(CallbackQueryHandler(buttons.on_unknown_button))
    app.add_handler(TypeHandler(Update, handlers.claim_update), group=-1)
    app.add_handler(TypeHandler(Update, handlers.mark_answered), group=1)
    app.add_error_handler(handlers.on_error)
    return app


async def post_init(app: Application) -> None:
    """The outbox's sender starts (and sends what a previous run left unsent); the profile texts and the command
    menu are set in English (default) and Chinese."""
    advisor: Advisor = app.bot_data["advisor"]
    advisor.start(app.bot)
    for code, lang in ((None, "en"), ("zh", "zh")):
        try:  # the "What can this bot do?" text of an empty chat, and the profile line
            await advisor.call(app.bot.set_my_description, T["description"].get(lang)[:512], language_code=code)
            await advisor.call(app.bot.set_my_short_description, T["short_description"].get(lang)[:120],
                               language_code=code)
        except TelegramError as e:
            log.warning("setMyDescription failed: %s", e)
        commands = [BotCommand(c.name, c.description.get(lang)) for c in handlers.COMMANDS]
        try:
            await advisor.call(app.bot.set_my_commands, commands, language_code=code)
        except TelegramError as e:
            log.warning("setMyCommands failed: %s", e)


async def post_shutdown(app: Application) -> None:
    await app.bot_data["advisor"].stop()


def api_base_url(settings: Settings) -> str:
    """The Bot API address as PTB wants it (…/bot, then the token): a trailing slash would turn every call into a
    404, which PTB reports as a rejected token."""
    return (settings.telegram_base_url or "https://api.telegram.org/bot").strip().rstrip("/")


def file_url_for(base_url: str) -> str:
    """Telegram's file URL next to a Bot API URL: https://host/bot -> https://host/file/bot."""
    if "{" in base_url:
        return base_url.replace("/bot{", "/file/bot{", 1)
    if base_url.rstrip("/").endswith("/bot"):
        return base_url.rstrip("/")[: -len("/bot")] + "/file/bot"
    return base_url.rstrip("/") + "/file/bot"


async def get_me(settings: Settings, token: str):
    """The bot's own user, from getMe: proves the token and the address before anything else starts."""
    from telegram import Bot
    from telegram.request import HTTPXRequest

    request = HTTPXRequest(proxy=settings.telegram_proxy_url or None, connect_timeout=10, read_timeout=20)
    async with Bot(token, base_url=api_base_url(settings), request=request) as bot:
        return bot.bot


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


def rejected(e: InvalidToken, token: str) -> str:
    """What a 401 or 404 from the Bot API means: a 404 (Not Found) is a wrong TELEGRAM_BASE_URL — or, from Telegram
    itself, a token that is not even of the form 123456:ABC…; a 401 (Unauthorized) a token Telegram does not know."""
    if "not found" not in str(e.__cause__ or e).lower():  # (getMe wraps the HTTP error in one of its own)
        return "Telegram rejected TELEGRAM_BOT_TOKEN (check it with @BotFather)"
    if not re.fullmatch(r"\d+:[A-Za-z0-9_-]+", token):
        return "TELEGRAM_BOT_TOKEN is malformed: a token looks like 123456789:ABC-DEF1234ghIkl… (from @BotFather)"
    return ("the Bot API answered 404 Not Found: TELEGRAM_BASE_URL has a wrong host or path (it must end in /bot, "
            "like https://api.telegram.org/bot)")


def unreachable(e: TelegramError, settings: Settings) -> str:
    return (f"cannot reach the Telegram Bot API at {urllib.parse.urlsplit(api_base_url(settings)).netloc}: {e} "
            "(check TELEGRAM_BASE_URL, TELEGRAM_PROXY_URL and the network)")


def store_failure(e: StoreError) -> str:
    """The store's own message, with the way out unless it gives one already."""
    return str(e) if "GPU_ADVISOR_DATA_DIR" in str(e) else f"{e} (set GPU_ADVISOR_DATA_DIR to a writable directory)"


def _fail(message: str, code: int = 2) -> int:
    print(f"gpu-advisor telegram: {message}", file=sys.stderr)
    return code


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
        return _fail(store_failure(e))
    # then the token: a wrong one is one line and exit 2, before the store is opened or the model loaded
    try:
        me = asyncio.run(get_me(s, token))
    except InvalidToken as e:
        return _fail(rejected(e, token))
    except (NetworkError, TimedOut) as e:
        return _fail(unreachable(e, s))
    log.warning("signed in to Telegram as @%s", me.username)
    try:
        store = open_store(s.data_dir)
    except StoreError as e:
        return _fail(store_failure(e))
    from bot.dialogue import Engine

    engine = Engine.from_settings(s)
    if s.telegram_preload:
        started = time.perf_counter()
        _ = engine.index  # load the encoder and index now: the first question is answered at full speed
        log.warning("retrieval index loaded in %.1f s", time.perf_counter() - started)
    warm_up(engine, retrieval=s.telegram_preload)
    app = build_application(s, engine, store, owns_store=True)
    poller = None if cfg else Poller(app, handlers.ALLOWED_UPDATES)

    async def start() -> None:
        if cfg:
            await start_webhook(app, cfg)
            return
        await app.initialize()
        await post_init(app)
        await poller.start()
        await app.start()

    def started() -> None:
        if cfg:
            log.warning("webhook mode: Telegram posts to %s, the proxy forwards to %s:%s%s (data in %s)", cfg["url"],
                        cfg["listen"], cfg["port"], cfg["path"], s.data_dir)
        else:
            log.warning("polling Telegram at %s (data in %s)", urllib.parse.urlsplit(api_base_url(s)).netloc,
                        s.data_dir)

    try:
        asyncio.run(serve(app, start, started, poller))
    except InvalidToken as e:
        return _fail(rejected(e, token))
    except (NetworkError, TimedOut) as e:  # gone between getMe and the start of polling
        return _fail(unreachable(e, s))
    except OSError as e:  # the webhook listener cannot bind (port in use, address not on this machine)
        if not cfg:
            raise
        return _fail(f"cannot listen on {cfg['listen']}:{cfg['port']} for the webhook: {e.strerror or e} "
                     "(see TELEGRAM_WEBHOOK_LISTEN / TELEGRAM_WEBHOOK_PORT)")
    return 0
