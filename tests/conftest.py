"""Shared, expensive fixtures: one catalog, one engine with the real index and model, for the whole session."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE = ROOT / "knowledge"
# Tests pin "today" so that answers do not drift as the calendar moves past the prices' dates.
TODAY = date(2026, 11, 29)


@pytest.fixture(scope="session")
def knowledge_dir() -> Path:
    return KNOWLEDGE


@pytest.fixture(scope="session")
def catalog():
    from bot.catalog import load_catalog

    return load_catalog(KNOWLEDGE)


@pytest.fixture(scope="session")
def settings():
    from bot.config import get_settings

    return get_settings()


@pytest.fixture(scope="session")
def engine(catalog, settings):
    """The real engine: real catalog, real index (built by `make test` before the suite), real MiniLM model."""
    from bot.dialogue import Engine

    e = Engine(catalog, KNOWLEDGE, settings.index_dir, settings.model_path, settings.min_relevance,
               settings.max_input_chars, today=TODAY)
    _ = e.index  # load once, up front
    return e


@pytest.fixture
def conversation(engine):
    from bot.dialogue import Conversation

    return Conversation(engine)


@pytest.fixture(scope="session")
def scorer_engine(catalog, settings):
    """An engine for scorer-only tests: the index is never touched."""
    from bot.dialogue import Engine

    return Engine(catalog, KNOWLEDGE, settings.index_dir, settings.model_path, settings.min_relevance,
                  settings.max_input_chars, today=TODAY)


@pytest.fixture
def fake():
    """A fake Telegram Bot API server on 127.0.0.1 (tests/fake_bot_api.py), one per test."""
    from tests.fake_bot_api import FakeBotAPI

    server = FakeBotAPI(token="123:TEST").start()
    yield server
    server.stop()


@pytest.fixture
def bot_settings(settings, fake, tmp_path):
    """Settings for a bot that talks to the fake server and keeps its state in a fresh folder."""
    return settings.model_copy(update={"telegram_bot_token": fake.token, "telegram_base_url": fake.base_url,
                                       "data_dir": tmp_path / "data", "telegram_rate_limit": 100})
