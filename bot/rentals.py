"""Dated per-GPU-hour rental offers: knowledge/rentals.csv as typed values, matched to catalog cards by family.

A platform lists "A100 SXM 40GB" or "H100 80GB (a3-highgpu-1g)", while the catalog has "A100 80GB SXM" and
"H100 SXM5 80GB": someone asking where to rent "an A100" wants every A100 offer, each labelled as listed. The family
of a catalog card is its name without the maker's brand, memory size and form factor ("A100", "RTX 4090 D").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from bot.catalog import STALE_PRICE_MONTHS, CatalogError, _rows, months_between, parse_date
from bot.i18n import Text, text_of

BILLING = ("on-demand", "community", "secure", "spot", "interruptible", "instance", "promo", "compute-units",
           "free-quota")
_NOT_FAMILY = re.compile(r"^(geforce|tesla|nvidia|\d+gb?|sxm\d?|pcie|hgx|\(hgx\)|nvl|laptop)$", re.I)


@dataclass(frozen=True)
class RentalOffer:
    platform: str
    region: str  # china | international
    url: str
    gpu_listed: Text  # as the platform lists it ("8-GPU instance" said in each language)
    family: str
    price: float  # per GPU-hour, in `currency`
    price_high: float | None  # the top of a reported range
    currency: str
    billing: str  # one of BILLING
    on: date
    source: str
    note: Text  # what the price includes or excludes

    def stale(self, today: date) -> bool:
        """Older than STALE_PRICE_MONTHS: still shown, marked as possibly out of date."""
        return months_between(self.on, today) > STALE_PRICE_MONTHS

    def quotable(self, today: date) -> bool:
        """A price to lead with or compute from: paid, not a promotion or compute-unit burn, not stale."""
        return self.price > 0 and self.billing not in ("promo", "compute-units") and not self.stale(today)


def family_of(name: str) -> str:
    """'A100 80GB SXM' -> 'A100'; 'GeForce RTX 4090 D' -> 'RTX 4090 D'; 'Tesla V100 SXM2 16GB' -> 'V100'."""
    return " ".join(t for t in name.split() if not _NOT_FAMILY.match(t)).upper()


@lru_cache(maxsize=4)
def load_rentals(knowledge_dir: Path) -> tuple[RentalOffer, ...]:
    """Read knowledge/rentals.csv. Raises CatalogError naming the file and line of a bad row."""
    path = knowledge_dir / "rentals.csv"
    if not path.exists():
        return ()
    out = []
    for line, r in _rows(path)[1]:
        def bad(column: str, problem: str) -> CatalogError:
            return CatalogError(path, line, column, problem)  # noqa: B023 -- used at once, inside the loop
        try:
            price = float(r["price"])
            high = float(r["price_high"]) if r.get("price_high") else None
        except ValueError:
            raise bad("price", "must be a number") from None
        if r["billing"] not in BILLING:
            raise bad("billing", f"{r['billing']!r} is not one of {', '.join(BILLING)}")
        if r["region"] not in ("china", "international"):
            raise bad("region", "must be china or international")
        for column in ("url", "source"):
            if not r[column].startswith("http"):
                raise bad(column, "must be a web address")
        try:
            on = parse_date(r["date"])
        except ValueError:
            on = None
        if on is None:
            raise bad("date", "must be YYYY-MM or YYYY-MM-DD")
        out.append(RentalOffer(r["platform"], r["region"], r["url"], text_of(r, "gpu_listed"), r["family"].upper(),
                               price, high, r["currency"], r["billing"], on, r["source"], text_of(r, "note_en")))
    return tuple(out)


def offers_for(knowledge_dir: Path, names: list[str]) -> list[RentalOffer]:
    """Every offer of the families these catalog cards belong to."""
    families = {family_of(n) for n in names}
    return [o for o in load_rentals(knowledge_dir) if o.family in families]


def offers_on(knowledge_dir: Path, platform: str) -> list[RentalOffer]:
    return [o for o in load_rentals(knowledge_dir) if o.platform == platform]


_LISTED_GB = re.compile(r"(\d+)\s*GB", re.I)
_LISTED_FORM = re.compile(r"\b(SXM|PCIe)", re.I)


def listed_memory(offer: RentalOffer) -> float | None:
    """The memory the platform lists the card with ("A100 SXM 80GB" -> 80), None when it says none."""
    gb = _LISTED_GB.search(offer.gpu_listed.en)
    return float(gb.group(1)) if gb else None


def listed_form(offer: RentalOffer) -> str | None:
    """The form factor the platform lists the card in ("H100 SXM 80GB" -> "SXM"), None when it says none."""
    m = _LISTED_FORM.search(offer.gpu_listed.en)
    return m.group(1).upper().replace("PCIE", "PCIe") if m else None


def card_of(offer: RentalOffer, cards, prefer: tuple[str, ...] = ()):
    """The catalog card an offer rents, for its speed: a card of its family with the memory (and form factor) the
    platform lists ("A100 40GB" -> the 40 GB A100); a card the user named when the listing leaves it open; else the
    family's first. None when the catalog has no card of the family."""
    family = [g for g in cards if family_of(g.name) == offer.family]
    gb, form = listed_memory(offer), listed_form(offer)
    sized = [g for g in family if gb is None or g.vram_gb == gb] or family
    formed = [g for g in sized if form is None or g.form_factor.lower() == form.lower()] or sized
    return next((g for g in formed if g.name in prefer), formed[0] if formed else None)
