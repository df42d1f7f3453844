"""Secrets never reach the logs: the bot token, the proxy URL and the webhook secret are replaced in every record."""

from __future__ import annotations

import logging


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
