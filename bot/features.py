"""Hardware features people ask a card about (knowledge/features.yaml): FP8, BF16, FlashAttention 2 need a lowest
CUDA compute capability, which a card's own says yes or no to; a feature of the board, not the chip (NVLink), lists
the cards that have it and those that do not."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bot.catalog import GPU, parse_yaml


@dataclass(frozen=True)
class Feature:
    name: str
    label: str
    min_cc: tuple[int, int]
    words: tuple[str, ...]
    yes_en: str
    yes_zh: str
    no_en: str
    no_zh: str
    source: str
    cards: tuple[str, ...] = ()  # a board feature: the cards that have it ...
    not_cards: tuple[str, ...] = ()  # ... and those that do not (any other card: not on file)

    @property
    def listed(self) -> bool:
        return bool(self.cards or self.not_cards)

    def supported_by(self, g: GPU) -> bool | None:
        """True/False from the card's compute capability (or the lists of a board feature); None for a card without
        one (AMD, Intel, Huawei) or not listed."""
        if self.listed:
            return True if g.name in self.cards else False if g.name in self.not_cards else None
        if not g.compute_capability:
            flag = {"fp8": g.fp8, "bf16": g.bf16}.get(self.name)
            return flag
        major, minor = (int(x) for x in g.compute_capability.split(".")[:2])
        return (major, minor) >= self.min_cc


def _cc(text: str) -> tuple[int, int]:
    major, minor = str(text).split(".")[:2]
    return int(major), int(minor)


@lru_cache(maxsize=4)
def load_features(knowledge_dir: Path) -> tuple[Feature, ...]:
    path = knowledge_dir / "features.yaml"
    if not path.exists():
        return ()
    data = parse_yaml(path.read_text(encoding="utf-8")) or {}
    return tuple(Feature(name, str(d["label"]), _cc(d.get("min_cc", "0.0")), tuple(str(w).lower() for w in d["words"]),
                         str(d["yes_en"]), str(d["yes_zh"]), str(d["no_en"]), str(d["no_zh"]), str(d["source"]),
                         tuple(d.get("cards") or ()), tuple(d.get("not_cards") or ()))
                 for name, d in data.items())


def asked(knowledge_dir: Path, text: str) -> tuple[Feature, ...]:
    """The features a message asks about ('能用FP8吗', 'flash attention on a 2080 Ti?')."""
    low = text.lower()
    return tuple(f for f in load_features(knowledge_dir) if any(w in low for w in f.words))
