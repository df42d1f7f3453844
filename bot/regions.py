"""Where a user buys (knowledge/regions.csv): the region's name, its currency and which price list serves it.

Prices are kept in CNY (mainland China) and USD (everywhere else); a user in Taiwan or Germany is shown US prices,
and told so, with their budget in their own currency beside them."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bot.i18n import Text


@dataclass(frozen=True)
class Region:
    code: str  # the `region` slot's value: cn, us, tw, hk, eu, uk, jp
    name: Text
    currency: str  # what people there pay in
    price_list: str  # the currency of the prices that serve them (CNY or USD)
    note: Text | None  # how their shop prices differ from that list
    shops: Text | None = None  # where people there buy, new and used (the shops' own pages in `shops_source`)
    shop_names: tuple[str, ...] = ()  # the shops' names, as written in either language
    shops_source: tuple[str, ...] = ()


@lru_cache(maxsize=4)
def load_regions(knowledge_dir: Path) -> dict[str, Region]:
    path = knowledge_dir / "regions.csv"
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {r["region"]: Region(r["region"], Text(r["name_en"], r["name_zh"]), r["currency"], r["price_list"],
                                    Text(r["note_en"], r["note_zh"]) if r["note_en"] else None,
                                    Text(r["shops_en"], r["shops_zh"]) if r.get("shops_en") else None,
                                    tuple(n for n in (r.get("shop_names") or "").split("|") if n),
                                    tuple(u for u in (r.get("shops_source") or "").split(";") if u))
                for r in csv.DictReader(f)}


def region_of_currency(knowledge_dir: Path, currency: str) -> str | None:
    """The region whose people pay in `currency` ("EUR" -> eu): where a budget in that currency is spent."""
    return next((r.code for r in load_regions(knowledge_dir).values() if r.currency == currency), None)
