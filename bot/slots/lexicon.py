"""The word lists of knowledge/lexicon/*.yaml, loaded once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from bot.catalog import parse_yaml

LEXICON_DIR = Path(__file__).resolve().parents[2] / "knowledge" / "lexicon"


@lru_cache(maxsize=8)
def load(name: str) -> dict:
    """One lexicon file (`slots`, `workloads`, `money`) as a dict; keys are strings."""
    data = parse_yaml((LEXICON_DIR / f"{name}.yaml").read_text(encoding="utf-8")) or {}
    return _stringify(data)


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
