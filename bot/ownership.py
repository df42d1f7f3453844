"""Rent or buy, as arithmetic: what an hour of owning a card costs (its electricity) against the cheapest dated rental
of it, when the price of buying it is paid back, and what a unit of work costs on a rental.

The figures come from data: household electricity tariffs (knowledge/electricity.csv, dated and sourced, one row per
market), the assumptions of knowledge/rent-vs-buy.yaml (the PC's power besides the card, the verdict's horizons, the
card to work on when none is named), card prices from the catalog, offers from bot.rentals. Values in, values out:
the answer says where each number comes from."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from bot.catalog import CatalogError, _rows, parse_date, parse_yaml
from bot.i18n import Text, text_of
from bot.need import Usage
from bot.rentals import RentalOffer


@dataclass(frozen=True)
class Tariff:
    """A household electricity price: what a kWh costs the people of a market (an average; the reply says whose)."""

    market: str
    regions: tuple[str, ...]  # the `region` slot codes it serves
    name: Text
    price_kwh: float
    currency: str
    on: date  # the last month of the period the average covers
    default: bool  # used for a region with no row of its own (outside mainland China)
    source: str
    note: Text


@dataclass(frozen=True)
class Assumptions:
    """knowledge/rent-vs-buy.yaml: what the arithmetic assumes besides dated prices (each an estimate, said so)."""

    comparison_card: str
    guide_section: str  # the guide's rent-or-buy section: what a question without hours is answered from
    pc_power_w: float
    buy_within_months: float
    rent_beyond_months: float


@lru_cache(maxsize=4)
def load_tariffs(knowledge_dir: Path) -> tuple[Tariff, ...]:
    """Read knowledge/electricity.csv. Raises CatalogError naming the file and line of a bad row."""
    path = knowledge_dir / "electricity.csv"
    if not path.exists():
        return ()
    out = []
    for line, r in _rows(path)[1]:
        try:
            price = float(r["price_kwh"])
            on = parse_date(r["date"])
        except ValueError:
            raise CatalogError(path, line, "price_kwh/date", "must be a number and a date (YYYY-MM)") from None
        if price <= 0 or on is None:
            raise CatalogError(path, line, "price_kwh/date", "must be a positive number and a date (YYYY-MM)")
        if not r["source"].startswith("http"):
            raise CatalogError(path, line, "source", "must be a web address")
        out.append(Tariff(r["market"], tuple(x.strip() for x in r["regions"].split("|") if x.strip()),
                          text_of(r, "name"), price, r["currency"], on, r.get("default", "").strip() == "yes",
                          r["source"], text_of(r, "note_en")))
    return tuple(out)


def tariff_for(knowledge_dir: Path, region: str | None, china: bool) -> Tariff | None:
    """The tariff of the user's region; a mainland-China user's without one; else the default row's."""
    tariffs = load_tariffs(knowledge_dir)
    if region:
        mine = next((t for t in tariffs if region in t.regions), None)
        if mine is not None:
            return mine
    if china:
        return next((t for t in tariffs if "cn" in t.regions), None)
    return next((t for t in tariffs if t.default), None)


@lru_cache(maxsize=4)
def load_assumptions(knowledge_dir: Path) -> Assumptions:
    d = parse_yaml((knowledge_dir / "rent-vs-buy.yaml").read_text(encoding="utf-8"))
    return Assumptions(str(d["comparison_card"]), str(d["guide_section"]), float(d["pc_power_w"]),
                       float(d["buy_within_months"]), float(d["rent_beyond_months"]))


INTERRUPTIBLE = ("spot", "interruptible")  # billing of offers the platform can take back at any time


def cheapest_offer(offers: Iterable[RentalOffer], today: date, china: bool,
                   rate: Callable[[RentalOffer], float]) -> RentalOffer | None:
    """The cheapest quotable offer in the user's market (China's platforms for a user there, the international ones
    otherwise), else anywhere, that the platform cannot reclaim mid-run if there is one; `rate` puts every price in one
    currency."""
    usable = [o for o in offers if o.quotable(today)]
    local = [o for o in usable if (o.region == "china") == china] or usable
    # a job that runs for hours wants a machine that stays: an offer that can be reclaimed only when there is no other
    steady = [o for o in local if o.billing not in INTERRUPTIBLE]
    return min(steady or local, key=rate, default=None)


@dataclass(frozen=True)
class BreakEven:
    """One card bought against the same card rented by the hour, in one currency."""

    card: str
    currency: str
    buy: float  # the card's price
    rent_per_hour: float  # the offer's, converted
    watts: float  # the card's board power and the rest of the PC
    tariff_per_kwh: float  # converted

    @property
    def power_per_hour(self) -> float:
        """What an hour of owning costs in electricity (renting includes it)."""
        return self.watts / 1000 * self.tariff_per_kwh

    @property
    def hours(self) -> float | None:
        """GPU-hours after which buying has cost no more than renting: the price over what each hour saves. None when
        an hour of renting costs no more than the electricity of owning (buying never pays back)."""
        saved = self.rent_per_hour - self.power_per_hour
        return self.buy / saved if saved > 0 else None

    def months(self, usage: Usage) -> float | None:
        """Months until it pays back at the user's pace (None for a total, or when it never does)."""
        per_month = usage.hours_per_month
        return self.hours / per_month if self.hours is not None and per_month else None

    def renting(self, hours: float) -> float:
        """What `hours` of renting cost."""
        return hours * self.rent_per_hour

    def owning(self, hours: float) -> float:
        """What buying and running the card for `hours` cost (no resale counted)."""
        return self.buy + hours * self.power_per_hour

    def verdict(self, usage: Usage, a: Assumptions) -> str:
        """"buy", "close" or "rent" at the user's pace (a total: whether it reaches the break-even hours)."""
        if self.hours is None:
            return "rent"
        if usage.per == "total":
            return "buy" if usage.hours >= self.hours else "rent"
        months = self.months(usage)
        return "buy" if months <= a.buy_within_months else "rent" if months > a.rent_beyond_months else "close"


def break_even(card: str, tdp_w: float, buy: float, currency: str, rent_per_hour: float, tariff: Tariff,
               a: Assumptions, convert: Callable[[float, str, str], float]) -> BreakEven:
    """`convert(amount, from, to)` puts the tariff in the price's currency (at one date: the caller's)."""
    return BreakEven(card, currency, buy, rent_per_hour, tdp_w + a.pc_power_w,
                     convert(tariff.price_kwh, tariff.currency, currency))


def cost_per_unit_of_work(rate: float, speed: float) -> float:
    """What the work of one hour of the reference card costs on a rental: its price per hour over its relative
    speed (a card twice as fast at twice the price costs the same per unit of work)."""
    return rate / speed


@dataclass(frozen=True)
class RunningCost:
    """What running `count` of a card costs in electricity at a tariff: the card(s) at board power plus the PC."""

    watts: float  # at the wall while it works: board power × count + the rest of the PC
    per_kwh: float
    currency: str

    @property
    def per_hour(self) -> float:
        return self.watts / 1000 * self.per_kwh

    def per_month(self, usage: Usage) -> float | None:
        """At the user's pace (None for a total of hours: see `for_hours`)."""
        hours = usage.hours_per_month
        return None if hours is None else hours * self.per_hour

    def for_hours(self, hours: float) -> float:
        return hours * self.per_hour


def running_cost(tdp_w: float, count: int, per_kwh: float, currency: str, knowledge_dir: Path) -> RunningCost:
    return RunningCost(tdp_w * count + load_assumptions(knowledge_dir).pc_power_w, per_kwh, currency)
