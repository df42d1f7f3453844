"""The word lists of knowledge/lexicon/*.yaml, loaded once."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from bot.catalog import parse_yaml

LEXICON_DIR = Path(__file__).resolve().parents[2] / "knowledge" / "lexicon"


@lru_cache(maxsize=8)
def load(name: str) -> dict:
    """One lexicon file (`slots`, `workloads`, `money`) as a dict; keys are strings."""
    return _stringify(_parsed(LEXICON_DIR / f"{name}.yaml"))


def _parsed(path: Path):
    """The file's YAML, through a JSON copy in the temp folder keyed by its path, size and modification time (as
    jieba keeps its dictionary): every message reads these ~190 KB of word lists, and parsing the YAML was a twentieth
    of a cold start; JSON loads in a tenth of the time. Any problem with the copy falls back to the YAML."""
    stat = path.stat()
    key = hashlib.sha1(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:20]
    cached = Path(tempfile.gettempdir()) / "gpu-advisor-lexicon" / f"{path.stem}-{key}.json"
    try:
        return json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    data = parse_yaml(path.read_text(encoding="utf-8")) or {}
    try:
        cached.parent.mkdir(exist_ok=True)
        part = cached.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(part, cached)
    except (OSError, TypeError, ValueError):  # a read-only temp folder, or a value JSON cannot hold: no copy
        pass
    return data


def _stringify(value):
    if isinstance(value, dict):
        return {str(k): _stringify(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(str(x).lower() for x in value)
    return value


# Lists counted on a message as written, not as it is read (Traditional turned Simplified): their Traditional forms
# are what they look for (Cantonese particles tell Hong Kong wording from Taiwan's).
AS_WRITTEN = {("slots", "cantonese")}


def words(name: str, *path: str) -> tuple[str, ...]:
    """The word list at `path` in lexicon `name`, e.g. words('slots', 'direction', 'cheaper'). Messages are read in
    Simplified Chinese, so entries are written so too (`gpu-advisor knowledge check` says which are not), except in
    the lists of AS_WRITTEN."""
    node = load(name)
    for key in path:
        node = node[key]
    return node


def not_as_read(name: str) -> list[tuple[str, str, str]]:
    """(path, entry, as a message reads it) for each entry of lexicon `name` that no normalised message can contain
    ("幾張" where messages read "几张"): a dead word."""
    from bot.slots.text import normalise

    out = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, (*path, k))
        elif isinstance(node, tuple) and (name, *path) not in AS_WRITTEN:
            out.extend(("/".join(path), w, normalise(w)) for w in node if normalise(w) != w)
    walk(load(name), ())
    return out
