"""Webhook mode: python-telegram-bot's own listener behind a reverse proxy that terminates TLS.

`webhook_config` reads the TELEGRAM_WEBHOOK_* settings (None = long polling); `webhook_args` are the arguments of
PTB's `run_webhook` / `Updater.start_webhook` for it.
"""

from __future__ import annotations

import re
import secrets
import urllib.parse
from typing import TYPE_CHECKING

from telegram.ext import Application

from bot.telegram.handlers import ALLOWED_UPDATES
from bot.telegram.polling import shutdown
from bot.telegram.redact import install_redaction

if TYPE_CHECKING:
    from bot.config import Settings


class ConfigError(ValueError):
    """A Telegram setting that cannot be used (a message for a person)."""


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
    await shutdown(app)
