"""Chinese word segmentation for BM25: jieba's algorithm over jieba's dictionary plus our domain words.

Building the index loads jieba's dictionary whole (about 0.6 s and 60 MB: a prefix table of half a million entries)
and saves it beside the index as a SQLite table. Answering cuts a question with the same jieba code, but gives it only
the entries it can consult: jieba looks up nothing but substrings of the text it is cutting (the word graph, the route
probabilities and the search-mode n-grams), so the tokens are the same (tested on every Chinese text we have) and a
question costs one indexed lookup of its substrings instead of the whole load."""

from __future__ import annotations

import logging
import sqlite3
import threading
from functools import lru_cache
from pathlib import Path

DICT_FILE = "jieba.sqlite3"
_BATCH = 900  # SQLite's smallest limit on parameters per statement is 999


@lru_cache(maxsize=2)
def full_jieba(words: tuple[str, ...]):
    """A jieba tokenizer over its default dictionary with the domain words registered. A tokenizer of its own, not
    jieba's global one: registering words changes the dictionary's total, so two word lists in one process (tests
    build indexes of several knowledge folders) must not add up."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tk = jieba.Tokenizer()
    tk.initialize()
    for w in words:
        tk.add_word(w, freq=2000)
    return tk


def save_dictionary(words: tuple[str, ...], path: Path) -> None:
    """Write the dictionary `full_jieba(words)` uses (words, their prefixes and frequencies, the total) to `path`."""
    tk = full_jieba(words)
    tk.check_initialized()
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE entry (word TEXT PRIMARY KEY, freq INTEGER NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
        db.executemany("INSERT INTO entry VALUES (?, ?)", tk.FREQ.items())
        db.executemany("INSERT INTO meta VALUES (?, ?)",
                       [("total", tk.total), ("longest", max(map(len, tk.FREQ), default=1)), ("entries", len(tk.FREQ))])
    db.close()


class SavedDictionary:
    """Cuts Chinese text with jieba over the dictionary `save_dictionary` wrote, reading only what the text needs."""

    def __init__(self, path: Path):
        try:
            self._db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            meta = dict(self._db.execute("SELECT key, value FROM meta"))
            self.total, self.longest = int(meta["total"]), int(meta["longest"])
        except (sqlite3.Error, KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a saved jieba dictionary ({e})") from e
        self._lock = threading.Lock()

    def _entries(self, text: str) -> dict[str, int]:
        subs = list({text[i:j] for i in range(len(text)) for j in range(i + 1, min(len(text), i + self.longest) + 1)})
        found: dict[str, int] = {}
        with self._lock:
            for k in range(0, len(subs), _BATCH):
                batch = subs[k:k + _BATCH]
                found.update(self._db.execute(
                    f"SELECT word, freq FROM entry WHERE word IN ({','.join('?' * len(batch))})", batch))
        return found

    def cut_for_search(self, text: str) -> list[str]:
        import jieba

        tk = jieba.Tokenizer()
        tk.FREQ, tk.total, tk.initialized = self._entries(text), self.total, True
        return tk.lcut_for_search(text)
