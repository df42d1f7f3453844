"""Engine: the loaded things a conversation needs (catalog, knowledge, index, act model), shared by every chat."""

from __future__ import annotations

import gc
import logging
import threading
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from bot.acts import ActModel
from bot.catalog import Catalog

log = logging.getLogger(__name__)


@dataclass
class Engine:
    """The loaded things a conversation needs. Retrieval loads lazily: a budget question never imports torch."""

    catalog: Catalog
    knowledge_dir: Path
    index_dir: Path
    model_path_fn: object  # () -> str
    min_relevance: float
    max_input_chars: int = 2000
    today: date | None = None
    _index: object = None
    _acts: object = None
    _encoder: object = None  # the index's query encoder, loaded alone for the act model while the index is not
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def index(self):
        """Loaded (or rebuilt) on first use, once, even when several threads ask at the same time."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    from bot import index as index_mod

                    self._index = _long_lived(index_mod.ensure(self.index_dir, self.knowledge_dir, self.catalog,
                                                               self.model_path_fn(), query_encoder=self._encoder or None))
        return self._index

    @property
    def index_loaded(self) -> bool:
        """Whether the index (and the model) is in memory already — what a budget question must not cause."""
        return self._index is not None

    @property
    def acts(self) -> ActModel | None:
        """The dialogue-act model saved with the index (trained now if missing or stale); None without data."""
        if self._acts is None:
            with self._lock:
                if self._acts is None:
                    from bot import acts

                    try:
                        self._acts = _long_lived(acts.ensure(self.knowledge_dir / "intents", self.index_dir,
                                                             self.catalog) or False)
                    except Exception:  # the rules still understand; never take a chat down for this
                        log.exception("act model unavailable; using the word rules alone")
                        self._acts = False
        return self._acts or None

    def sentence_vector(self, text: str):
        """The message's sentence vector, for the act model when its n-grams leave it unsure: the index's encoder,
        or the same encoder loaded alone (a fraction of the index's load) while the index is not in memory. None
        when there is no encoder."""
        if self._index is not None:
            return self._index.embedder.embed_query(text)
        if self._encoder is None:
            with self._lock:
                if self._encoder is None:
                    self._encoder = _query_encoder(self.index_dir)
        return self._encoder.embed_query(text) if self._encoder else None

    @classmethod
    def from_settings(cls, settings=None) -> Engine:
        from bot.catalog import load_catalog
        from bot.config import get_settings

        s = settings or get_settings()
        return cls(_long_lived(load_catalog(s.knowledge_dir, s.catalog)), s.knowledge_dir, s.index_dir, s.model_path,
                   s.min_relevance, s.max_input_chars)


def _query_encoder(index_dir: Path):
    from bot.encoder import ENCODER_DIR, OnnxEncoder

    try:
        return _long_lived(OnnxEncoder(index_dir / ENCODER_DIR))
    except Exception as e:  # no index yet, or a damaged one (rebuilt when retrieval loads it): n-grams alone
        log.warning("act model without sentence vectors: %s", e)
        return False


def _long_lived(value):
    """What the engine loads lives as long as the process: move everything allocated so far out of the cyclic
    collector's sight (`gc.freeze`), so that later collections, and the last one at exit, do not walk the catalog,
    the word lists and the index again. Measured: about a tenth of a second of a cold free-form answer."""
    gc.freeze()
    return value
