"""Rent or buy worked out for the user's hours, and rentals weighed per unit of work.

The arithmetic is checked against the rows it reads: the expected break-even and cost per unit of work are recomputed
here from knowledge/rentals.csv, electricity.csv, gpus.csv and rent-vs-buy.yaml, so a wrong formula fails. The policy
is driven through Conversation.turn with phrasings in English, Simplified and Traditional Chinese, and follow-ups."""

from __future__ import annotations

import csv
import re

import pytest
import yaml

from bot.catalog import months_between, parse_date
from bot.dialogue import Conversation
from bot.need import DAYS_PER_MONTH
from bot.perf import load_perf_model
from bot.render import plain
from bot.rentals import family_of
from bot.scorer import workload_spec

from .conftest import KNOWLEDGE, TODAY
from .test_bilingual import english_words, shown

SETTINGS = yaml.safe_load((KNOWLEDGE / "rent-vs-buy.yaml").read_text(encoding="utf-8"))
EXAMPLE = SETTINGS["comparison_card"]


def _csv(name: str) -> list[dict]:
    with open(KNOWLEDGE / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _quotable(row: dict) -> bool:
    """What the answers may compute from (rentals.csv's README): paid, no promotion or compute units, not stale."""
    return float(row["price"]) > 0 and row["billing"] not in ("promo", "compute-units") and \
        months_between(parse_date(row["date"]), TODAY) <= 18


def expected_break_even(catalog, card: str, china: bool) -> dict:
    """The break-even of `card`, recomputed from the CSV rows: its price (new, else used) in the market's currency,
    the cheapest quotable rental of its family in the market that cannot be reclaimed mid-run (if any), the market's
    tariff, its board power and the PC's."""
    cur = "CNY" if china else "USD"
    g = catalog.get(card)
    price = g.price(cur, "new", TODAY, catalog.fx) or g.price(cur, "used", TODAY, catalog.fx)
    rows = [r for r in _csv("rentals.csv")
            if r["family"] == family_of(card) and _quotable(r) and (r["region"] == "china") == china]
    rows = [r for r in rows if r["billing"] not in ("spot", "interruptible")] or rows  # one that stays for the job
    rents = [catalog.fx.convert(float(r["price"]), r["currency"], cur, TODAY) for r in rows]
    tariff = next(r for r in _csv("electricity.csv") if ("cn" in r["regions"].split("|")) == china and
                  (china or r["default"] == "yes"))
    kwh = catalog.fx.convert(float(tariff["price_kwh"]), tariff["currency"], cur, TODAY)
    tdp = float(next(r["tdp_w"] for r in _csv("gpus.csv") if r["name"] == card))
    power = (tdp + SETTINGS["pc_power_w"]) / 1000 * kwh
    hours = price.amount / (min(rents) - power)
    return {"price": price.amount, "rent": min(rents), "power": power, "hours": hours}


def _months_said(text: str) -> float | None:
    """The duration a reply states ("about 3.2 years", "约 8 个月"), in months; None for "more than 10 years"."""
    if m := re.search(r"(?:about|约|約) ([\d.]+) (?:years|年)", text):
        return float(m.group(1)) * 12
    if m := re.search(r"(?:about|约|約) (\d+) (?:months|个月|個月)", text):
        return float(m.group(1))
    return None


def _verdict(months: float) -> str:
    return "buy" if months <= SETTINGS["buy_within_months"] else \
        "rent" if months > SETTINGS["rent_beyond_months"] else "close"


# --- the arithmetic against the rows --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, china, per_month", [
    ("rent or buy? I'd train about 10 hours a week", False, 10 * DAYS_PER_MONTH / 7),
    ("租卡还是买卡划算，我一周大概用20小时", True, 20 * DAYS_PER_MONTH / 7),
    ("rent or buy a 3090? I'd use it 8 hours a day", False, 8 * DAYS_PER_MONTH),
    ("买3090还是租，一个月大概200小时", True, 200),
])
def test_the_break_even_is_the_price_over_what_an_hour_of_renting_saves(engine, text, china, per_month):
    reply = Conversation(engine).turn(text)
    assert reply.query["rule"] == "rent-vs-buy" and reply.intent == "rent", plain(reply)
    card = reply.table.rows[0][0]
    assert card == (EXAMPLE if "3090" not in text else catalog_name(engine, "3090"))
    want = expected_break_even(engine.catalog, card, china)
    assert reply.table.rows[0][4] == f"{want['hours']:,.0f}", (want, plain(reply))
    numbers = next(p for p in reply.paragraphs if "÷" in p)
    assert f"≈ {want['hours']:,.0f}" in numbers and f"{want['rent']:,.2f}" in numbers and f"{want['power']:.3f}" in numbers
    months = want["hours"] / per_month
    said = _months_said(reply.table.rows[0][5])
    if said is None:
        assert months > 120, reply.table.rows[0][5]
    else:
        assert said == pytest.approx(months, abs=0.05 * 12 if months >= 24 else 0.5)
    verdict = reply.paragraphs[0]
    assert verdict.rstrip("。.").endswith({"rent": ("rent", "租"), "buy": (), "close": ()}[_verdict(months)]) or \
        {"buy": ("buy", "买，"), "close": ("close", "差不多")}.get(_verdict(months), ("",))[0] in verdict or \
        {"buy": ("buy", "买，"), "close": ("close", "差不多")}.get(_verdict(months), ("", ""))[1] in verdict, verdict


def catalog_name(engine, alias: str) -> str:
    """The catalog card a user means by `alias` ("3090")."""
    return next(g.name for _, _, g in engine.catalog.find_mentions(alias))


def test_every_figure_is_dated_and_sourced_and_the_reply_says_what_it_leaves_out(engine):
    reply = Conversation(engine).turn("rent or buy? I'd train about 10 hours a week")
    numbers = next(p for p in reply.paragraphs if "÷" in p)
    assert len(re.findall(r"\b20\d\d-\d\d\b", numbers)) >= 3, numbers  # the price's, the rental's, the tariff's dates
    assert "estimate" in numbers  # the rest of the PC's power is ours
    tariff = next(r for r in _csv("electricity.csv") if r["default"] == "yes")
    assert tariff["name"] in numbers and tariff["source"] in {s.url for s in reply.sources}
    assert any(s.url == r["source"] for s in reply.sources for r in _csv("rentals.csv"))
    assert any(w in " ".join(reply.paragraphs) for w in ("resale", "rest of the PC", "your time", "availability"))
    assert f"the {EXAMPLE}" in " ".join(reply.paragraphs) and "didn't name a card" in " ".join(reply.paragraphs)


def test_a_verdict_comes_first_in_both_languages_and_chinese_has_no_english(engine, knowledge_dir):
    en = Conversation(engine).turn("rent or buy? I'd train about 10 hours a week")
    zh = Conversation(engine).turn("租卡还是买卡划算，我一周大概用10小时")
    assert en.paragraphs[0].startswith("At 10 hours a week") and zh.paragraphs[0].startswith("按每周 10 小时")
    assert len(en.paragraphs) == len(zh.paragraphs) and len(en.table.rows) == len(zh.table.rows)
    assert english_words(shown(zh), knowledge_dir) == [], shown(zh)


def test_a_total_for_one_job_is_priced_rented_against_bought(engine):
    reply = Conversation(engine).turn(f"rent vs buy a {EXAMPLE} for a 300-hour project")
    want = expected_break_even(engine.catalog, EXAMPLE, False)
    assert reply.query["rule"] == "rent-vs-buy", plain(reply)
    rented = f"${300 * want['rent']:,.0f}"
    assert rented in reply.paragraphs[0] and reply.paragraphs[0].endswith("rent."), reply.paragraphs[0]


def test_how_long_until_it_pays_off_without_hours_gives_the_hours_and_asks_for_them(engine):
    reply = Conversation(engine).turn("how many hours until buying a 3090 pays off vs renting?")
    want = expected_break_even(engine.catalog, catalog_name(engine, "3090"), False)
    assert reply.query["rule"] == "rent-vs-buy" and f"{want['hours']:,.0f} GPU-hours" in reply.paragraphs[0]
    assert "how many hours a week" in reply.paragraphs[0] and "hours a week" in reply.suggestions[0]


def test_a_card_no_platform_rents_is_weighed_against_its_work_on_the_best_rental(engine):
    rented = {r["family"] for r in _csv("rentals.csv")}
    conv = Conversation(engine)
    picks = conv.turn("预算8000训练CNN")
    reply = conv.turn("租还是买划算？一周大概用20小时")
    assert reply.query["rule"] == "rent-vs-buy", plain(reply)
    shown_cards = [r[0] for r in reply.table.rows]
    assert shown_cards == [r.gpu for r in picks.recommendations][:3]
    for card in shown_cards:
        if family_of(card) not in rented:
            assert f"没有平台出租 {card} 的记录" in reply.paragraphs[0], reply.paragraphs[0]


# --- the policy: phrasings and follow-ups ---------------------------------------------------------------------------

RENT_OR_BUY_WITH_HOURS = [
    # English
    "rent or buy? I'd train about 10 hours a week", "should I rent or buy a GPU if I use it 20 hours a week?",
    "is it cheaper to rent or buy a 4090 at 8 hours a day?", "rent vs buy for 24/7 training",
    "buy or rent, I only train on weekends", "renting or buying: I'd run it a few hours a day",
    "how many hours until buying a 3090 pays off vs renting?", "rent vs buy: i need about 200 hours of A100 time",
    # Simplified Chinese
    "租卡还是买卡划算，我一周大概用20小时", "买卡还是租卡，每天8小时", "租还是买？我一个月大概200小时", "周末用用，租还是买划算",
    "4090买了多久能回本？", "租卡和买卡哪个划算，我要全天跑", "租卡还是买卡划算，我要用A100跑200小时",
    # Traditional Chinese
    "租卡還是買卡划算，我每週十小時", "買卡還是租卡，每天八小時",
]


@pytest.mark.parametrize("text", RENT_OR_BUY_WITH_HOURS)
def test_rent_or_buy_with_hours_is_worked_out(engine, text):
    reply = Conversation(engine).turn(text)
    assert reply.query["rule"] == "rent-vs-buy" and reply.intent == "rent", (reply.query, plain(reply))
    assert reply.title.startswith(("Rent or buy", "租还是买", "租還是買"))
    assert re.search(r"[$¥][\d,.]+", " ".join(reply.paragraphs)), plain(reply)


@pytest.mark.parametrize("turns, rule", [
    (("rent or buy?", "about 10 hours a week"), "rent-vs-buy"),
    (("租还是买划算？", "一周大概10小时"), "rent-vs-buy"),
    (("租還是買比較划算？", "每週大概十小時"), "rent-vs-buy"),
])
def test_without_hours_the_guide_answers_and_asks_for_them_then_works_it_out(engine, turns, rule):
    conv = Conversation(engine)
    guide = conv.turn(turns[0])
    assert guide.query["rule"] == "rent-or-buy" and guide.topic == SETTINGS["guide_section"], plain(guide)
    assert re.search(r"hours a week|一周|一週", guide.paragraphs[-1]), guide.paragraphs[-1]
    worked = conv.turn(turns[1])
    assert worked.query["rule"] == rule and worked.table.rows[0][0] == EXAMPLE, plain(worked)


@pytest.mark.parametrize("turns", [
    ("rent or buy? I'd train about 10 hours a week", "what if it's 40 hours a week?", "and for the 3090?"),
    ("租卡还是买卡划算，我一周大概用10小时", "那一天用10小时呢", "那3090呢"),
    ("租卡還是買卡划算，我每週十小時", "那一天用十小時呢", "那3090呢"),
])
def test_follow_ups_change_the_hours_then_the_card(engine, turns):
    conv = Conversation(engine)
    first, more, other = (conv.turn(t) for t in turns)
    for r in (first, more, other):
        assert r.query["rule"] == "rent-vs-buy", (r.query, plain(r))
    assert more.query["usage_hours_month"] > first.query["usage_hours_month"]
    assert more.table.rows[0][0] == first.table.rows[0][0] == EXAMPLE
    assert more.table.rows[0][4] == first.table.rows[0][4]  # the same break-even hours, reached sooner
    said = [_months_said(r.table.rows[0][5]) for r in (first, more)]
    assert said[1] is not None and (said[0] is None or said[1] < said[0]), said
    assert other.table.rows[0][0] == catalog_name(engine, "3090")
    assert other.query["usage_hours_month"] == more.query["usage_hours_month"]  # the hours carry to the new card


RENTAL_VALUE = [
    # English
    "which is better value to rent for training, an A100 or a 4090?",
    "on vast.ai, 4090 vs A100: which is cheaper per unit of work?",
    "renting an H100 or an A100, which gives more for the money?",
    "cloud 3090 vs 4090 for training, which is more cost-effective?",
    "RunPod: 4090 or 5090, which is the better deal?", "compare renting a 4090 and an A100 on AutoDL",
    # Simplified Chinese
    "AutoDL 上 A100 和 4090 哪个划算", "租A100还是4090划算", "云上租3090和4090哪个性价比高", "恒源云的A100和4090哪个更值",
    "租卡的话H100和A100哪个更省钱", "在AutoDL租4090还是A100，哪个性价比高",
    # Traditional Chinese
    "租A100還是4090比較划算", "在AutoDL租3090還是4090，哪個性價比高",
]


@pytest.mark.parametrize("text", RENTAL_VALUE)
def test_which_rental_is_better_value_is_weighed_per_unit_of_work(engine, text):
    reply = Conversation(engine).turn(text)
    assert reply.query["rule"] == "rental-value" and reply.intent == "rent", (reply.query, plain(reply))
    assert re.search(r"\d\.\d×|\d\.\d 倍|about the same|差不多", reply.paragraphs[0]), reply.paragraphs[0]
    for row in reply.table.rows:  # per unit of work = price per GPU-hour ÷ speed, row by row
        price, speed, cost = (float(re.sub(r"[^\d.]", "", x)) for x in (row[3], row[4], row[5]))
        assert cost == pytest.approx(price / speed, abs=0.011), row
    costs = [float(re.sub(r"[^\d.]", "", row[5])) for row in reply.table.rows]
    assert costs == sorted(costs)


def test_the_value_verdict_is_the_ratio_of_the_rows_on_the_platform_named(engine):
    """AutoDL's own rows, recomputed: each listing's price over its card's speed for the default job."""
    perf = load_perf_model(KNOWLEDGE)
    ref = engine.catalog.get(perf.reference_gpu)
    family = workload_spec(KNOWLEDGE, None, TODAY).family
    cost = {}
    for r in _csv("rentals.csv"):
        if r["platform"] == "AutoDL" and r["family"] in ("A100", "RTX 4090") and _quotable(r):
            gb = float(re.search(r"(\d+)GB", r["gpu_listed"]).group(1))
            card = next(g for g in engine.catalog if family_of(g.name) == r["family"] and g.vram_gb == gb)
            cost[r["gpu_listed"]] = float(r["price"]) / perf.relative(card, family, ref)
    best_4090 = min(v for k, v in cost.items() if "4090" in k)
    best_a100 = min(v for k, v in cost.items() if "A100" in k)
    reply = Conversation(engine).turn("AutoDL 上 A100 和 4090 哪个划算")
    assert reply.paragraphs[0].startswith("AutoDL 的 RTX 4090"), reply.paragraphs[0]
    assert f"便宜约 {best_a100 / best_4090:.1f} 倍" in reply.paragraphs[0], (cost, reply.paragraphs[0])
    assert "24 GB" in reply.paragraphs[0]  # the cheaper card has less memory: the verdict says so
    assert {row[0] for row in reply.table.rows} == {"AutoDL"}


def test_a_job_that_needs_more_memory_than_the_cheaper_card_has_decides(engine):
    reply = Conversation(engine).turn("which is cheaper to rent for LoRA on a 13B model, a 4090 or an A100?")
    assert reply.query["rule"] == "rental-value", plain(reply)
    assert "only the A100 holds your job" in reply.paragraphs[0] and "Left out for memory: RTX 4090" in plain(reply)


@pytest.mark.parametrize("turns, added", [
    (("which is better value to rent for training, an A100 or a 4090?", "and the H100?"), "H100"),
    (("AutoDL 上 A100 和 4090 哪个划算", "那H100呢"), "H100"),
    (("where can I rent an H100?", "compare it with the A100"), "A100"),
])
def test_another_card_after_a_rental_comparison_joins_it(engine, turns, added):
    conv = Conversation(engine)
    for t in turns[:-1]:
        conv.turn(t)
    reply = conv.turn(turns[-1])
    assert reply.query["rule"] == "rental-value" and added in reply.title, (reply.query, plain(reply))
    assert any(added in row[1] for row in reply.table.rows)


@pytest.mark.parametrize("turns, label", [
    (("which is better value to rent for training, an A100 or a 4090?", "for LLM fine-tuning?"), "llm_finetune"),
    (("AutoDL 上 A100 和 4090 哪个划算", "用来跑SDXL训练呢"), "diffusion"),
])
def test_another_job_after_a_rental_comparison_weighs_it_for_that_job(engine, turns, label):
    conv = Conversation(engine)
    conv.turn(turns[0])
    reply = conv.turn(turns[1])
    spec = workload_spec(KNOWLEDGE, label, TODAY)
    assert reply.query["rule"] == "rental-value" and spec.label.get(reply.lang) in reply.paragraphs[0], plain(reply)


def test_a_rental_price_answer_prices_the_users_own_hours(engine):
    reply = Conversation(engine).turn("AutoDL 上 4090 多少钱一小时，我一周用20小时")
    assert reply.query["rule"] == "rent", plain(reply)
    hour = float(re.search(r"每小时 ¥([\d.]+)", reply.paragraphs[0]).group(1))
    month = hour * 20 * DAYS_PER_MONTH / 7
    assert f"每月约 ¥{month:,.0f}" in reply.paragraphs[0], reply.paragraphs[0]


@pytest.mark.parametrize("text", ["where can I rent a 4090 or a 3090?", "4090 vs 3090", "4090和3090哪个好"])
def test_two_cards_without_a_rental_value_question_are_not_weighed_as_rentals(engine, text):
    assert Conversation(engine).turn(text).query["rule"] != "rental-value"


@pytest.mark.parametrize("text, says", [("buy or rent, I only train on weekends", "I read your hours as about"),
                                        ("周末用用，租还是买划算", "我把你的用量理解为大约")])
def test_hours_read_from_words_without_a_number_are_said_to_be_a_reading(engine, text, says):
    reply = Conversation(engine).turn(text)
    assert reply.query["usage"]["approximate"] and any(says in p for p in reply.paragraphs), plain(reply)


@pytest.mark.parametrize("turns", [("AutoDL 上 A100 和 4090 哪个划算", "那H100呢"), ("租卡还是买卡划算，我要用A100跑200小时",),
                                   ("预算8000训练CNN", "租还是买划算？一周大概用20小时")])
def test_chinese_rent_answers_have_no_english_words(engine, knowledge_dir, turns):
    conv = Conversation(engine)
    for t in turns:
        reply = conv.turn(t)
    assert english_words(shown(reply), knowledge_dir) == [], shown(reply)


@pytest.mark.parametrize("text, lead", [("rent or buy? I need about 200 GPU-hours a month of A100-class compute", "Rent."),
                                        ("A100 租还是买？每个月大概用200小时", "租。")])
def test_a_rented_card_with_no_shop_price_still_gets_a_verdict(engine, text, lead):
    """No price to buy the card itself (an SXM module): the cheapest card priced with as much memory stands in, its
    price in months of the user's renting, and the verdict comes first."""
    from bot.dialogue import Conversation
    from bot.render import plain

    reply = Conversation(engine).turn(text)
    first = reply.paragraphs[0]
    assert first.startswith(lead) and ("months" in first or "个月" in first), plain(reply)
