"""The Telegram front end: a python-telegram-bot Application around the same Conversation.turn as the CLI.

One job per module:
  app.py        builds the Application (the one place) and runs `gpu-advisor telegram`
  handlers.py   one small async handler per command and message kind; the command table; around every update
  buttons.py    one small async handler per kind of button; the table of their callback-data patterns
  advisor.py    what the handlers share (engine, store, chat locks, rate limiter, outbox) and how a message is answered
  outbox.py     replies queued with the chat's state, delivered in order, retried with backoff
  sending.py    Bot API calls that never crash a handler; one HTML message with its plain-text fallback
  keyboards.py  inline keyboards, callback data and its patterns, the guided /recommend steps
  polling.py    getUpdates in a loop that rides out an outage quietly; serving until SIGTERM, and the shutdown
  ratelimit.py  messages per user per minute
  texts.py      what the bot says itself, in both languages
  redact.py     the token and other secrets kept out of every log record
  webhook.py    webhook mode behind a reverse proxy

Only what other modules (bot/cli.py, bench/) and the tests use is exported here.
"""

from bot.telegram.app import build_application, get_me, run, warm_up
from bot.telegram.handlers import ALLOWED_UPDATES
from bot.telegram.keyboards import BUDGETS, MARKETS, WORKLOADS, recommend_sentence
from bot.telegram.webhook import ConfigError, start_webhook, stop_webhook, webhook_config

__all__ = ["ALLOWED_UPDATES", "BUDGETS", "MARKETS", "WORKLOADS", "ConfigError", "build_application", "get_me",
           "recommend_sentence", "run", "start_webhook", "stop_webhook", "warm_up", "webhook_config"]
