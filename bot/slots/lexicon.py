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


@lru_cache(maxsize=1024)
def words(name: str, *path: str) -> tuple[str, ...]:
    """The word list at `path` in lexicon `name`, e.g. words('slots', 'direction', 'cheaper'). Messages are read in
    Simplified Chinese: an entry written in Traditional ("定係", "幾張") is looked for as it reads then, too."""
    node = load(name)
    for key in path:
        node = node[key]
    if not isinstance(node, tuple) or (name, *path) in AS_WRITTEN:
        return node
    from bot.slots.text import normalise

    return tuple(dict.fromkeys(w for x in node for w in (x, normalise(x))))
