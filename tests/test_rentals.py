"""Rental prices: knowledge/rentals.csv is dated and sourced, every offer belongs to a catalog card, and a rental
question answers with a dated per-GPU-hour table, cheapest first, China first for a user there."""

from __future__ import annotations

import re
import shutil

import pytest

from bot.catalog import CatalogError, months_between
from bot.dialogue import Conversation
from bot.render import plain
from bot.rentals import family_of, load_rentals

from .conftest import KNOWLEDGE, TODAY


@pytest.mark.parametrize("name, family", [
    ("A100 80GB SXM", "A100"), ("A100 40GB PCIe", "A100"), ("GeForce RTX 4090 D", "RTX 4090 D"),
    ("Tesla V100 SXM2 16GB", "V100"), ("H100 SXM5 80GB", "H100"), ("H20 (HGX)", "H20"), ("L40S", "L40S"),
])
def test_family_drops_brand_memory_and_form_factor(name, family):
    assert family_of(name) == family


def test_every_offer_is_dated_sourced_and_belongs_to_a_catalog_card(catalog):
    families = {family_of(g.name) for g in catalog}
    offers = load_rentals(KNOWLEDGE)
    assert len(offers) >= 30
    for o in offers:
        assert o.family in families, o
        assert o.source.startswith("http") and o.on <= TODAY, o
        assert o.price >= 0 and (o.price_high is None or o.price_high > o.price), o
    assert {o.region for o in offers} == {"china", "international"}


def test_a_broken_rentals_file_names_the_file_line_and_column(tmp_path):
    shutil.copytree(KNOWLEDGE, tmp_path / "k")
    path = tmp_path / "k" / "rentals.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(",2025-09,", ",last year,", 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CatalogError) as e:
        load_rentals(tmp_path / "k")
    assert "rentals.csv" in str(e.value) and "line 4" in str(e.value) and "date" in str(e.value)


def _prices(reply) -> list[float]:
    return [float(re.search(r"[\d.]+", row[2].replace(",", "")).group()) for row in reply.table.rows]


@pytest.mark.parametrize("text, lang", [
    ("AutoDL 上 4090 多少钱一小时", "zh"), ("租一张4090一小时要多少钱", "zh"), ("在國內租4090多少錢一小時", "zh"),
    ("how much is it to rent a 4090 per hour", "en"), ("Where can I rent an H100 cheapest?", "en"),
    ("A100 hourly price on the cloud?", "en"), ("rent a 3090 for a weekend, what does it cost", "en"),
])
def test_a_rental_price_question_gets_a_dated_price_table(scorer_engine, text, lang):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "rent" and reply.lang == lang, plain(reply)
    assert reply.table is not None and reply.sources
    verdict = reply.paragraphs[0]
    assert re.search(r"[¥$]\d", verdict) and re.search(r"20\d\d-\d\d", verdict), verdict  # a price with its date
    for row in reply.table.rows:
        assert re.search(r"20\d\d-\d\d", row[-1])
    if lang == "zh":  # China first, in yuan
        assert ("国内" in verdict or "國內" in verdict) and reply.table.rows[0][2].startswith("¥")  # (in the user's script)


def test_offers_are_cheapest_first_within_a_region_and_old_prices_are_marked(scorer_engine):
    reply = Conversation(scorer_engine).turn("where can I rent an H100 by the hour")
    assert _prices(reply) == sorted(_prices(reply))
    old = [o for o in load_rentals(KNOWLEDGE) if months_between(o.on, TODAY) > 18 and o.family == "RTX 4090"]
    zh = Conversation(scorer_engine).turn("租4090多少钱一小时")
    assert old and any("可能已过时" in row[-1] for row in zh.table.rows)
    assert "18" in " ".join(zh.footer)


def test_a_card_without_rental_prices_gets_the_platforms_and_says_so(scorer_engine, catalog):
    priced = {o.family for o in load_rentals(KNOWLEDGE)}
    name = next(g.name for g in catalog if family_of(g.name) not in priced and g.segment == "consumer")
    reply = Conversation(scorer_engine).turn(f"where can I rent a {name}?")
    assert reply.intent == "rent" and reply.table is not None
    assert "No dated rental price" in reply.paragraphs[0]



@pytest.mark.parametrize("turns, lang", [
    # (a US company's $40k for 70B at 8-bit buys PCIe cards that are rented by the hour, RTX PRO 6000 or 5090: no
    # substitute needed; SXM modules are no pick without a server)
    (("公司要部署一个70B的模型，8bit，预算30万", "先租几个月行不行"), "zh"),
    # the picks on screen are too small once the job grew (no quantisation): not their prices
    (("recommend a card for Qwen2.5 32B at 4-bit, $1000", "what about without quantization?",
      "could I rent instead?"), "en"),
    (("跑Qwen2.5 32B 4bit要多少显存", "那推荐张能跑的卡，预算八千", "不量化呢", "预算不够的话租呢"), "zh"),
])
def test_renting_for_a_job_whose_picks_are_not_rented_prices_cards_that_hold_the_model(scorer_engine, catalog,
                                                                                       turns, lang):
    """The picks of a big budget are often cards no platform rents by the hour (or none in China, for a user there):
    the answer prices the rented cards that hold the job's model instead, and only offers of those (not the 40 GB A100
    of an 80 GB card's family)."""
    from bot.fit import usable_memory_gb
    from bot.rentals import card_of

    conv = Conversation(scorer_engine)
    for text in turns[:-1]:
        conv.turn(text)
    reply = conv.turn(turns[-1])
    assert reply.intent == "rent" and reply.table is not None and reply.table.rows
    assert ("Rented by the hour" if lang == "en" else "按小时租") in reply.paragraphs[0]
    gb = float(re.search(r"(\d+(?:\.\d+)?) GB", reply.paragraphs[0]).group(1))
    assert gb > 60
    for o in load_rentals(KNOWLEDGE):
        if o.gpu_listed.get(lang) in {row[1] for row in reply.table.rows}:
            assert usable_memory_gb(card_of(o, list(catalog)), KNOWLEDGE) >= gb, o
    # "compare the first two" then means the picks as bought: a rental answer has no numbered rows
    compared = conv.turn("compare the first two" if lang == "en" else "前两个比一下")
    assert compared.intent == "compare"

def test_rental_prices_follow_the_card_in_focus(scorer_engine):
    conv = Conversation(scorer_engine)
    conv.turn("tell me about the A100 80GB")
    reply = conv.turn("how much to rent one per hour?")
    assert reply.intent == "rent" and "A100" in reply.title
    assert all("A100" in row[1] for row in reply.table.rows)


def test_a_count_after_a_rental_answer_prices_that_many_by_the_hour_day_and_month(scorer_engine):
    conv = Conversation(scorer_engine)
    one = conv.turn("AutoDL 上 4090 多少钱一小时")
    eight = conv.turn("那8张呢")
    assert one.intent == eight.intent == "rent", plain(eight)
    assert "一张卡" in one.paragraphs[0] and "8 张卡" in eight.paragraphs[0]
    hour = lambda r: float(re.search(r"卡：每小时 ¥([\d,.]+)", r.paragraphs[0]).group(1).replace(",", ""))  # noqa: E731
    assert hour(eight) == pytest.approx(8 * hour(one))
    en = Conversation(scorer_engine).turn("how much to rent two H100s for a month?")
    assert en.intent == "rent" and "2 GPUs" in en.paragraphs[0] and "a month" in en.paragraphs[0], plain(en)


def test_rental_follow_ups_stay_rental_questions(scorer_engine, catalog):
    conv = Conversation(scorer_engine)
    first = conv.turn("where can I rent an H100?")
    cheaper = conv.turn("cheaper?")
    assert cheaper.intent == "rent" and "rent for less" in cheaper.paragraphs[0], plain(cheaper)
    china = conv.turn("and in China?")
    assert china.intent == "rent" and "mainland China" in china.paragraphs[0], plain(china)
    month = conv.turn("for 3 months of 8h days?")
    assert month.intent == "rent" and "8 hours a day" in month.paragraphs[0], plain(month)
    assert first.intent == "rent"


def test_abroad_puts_international_offers_first_and_a_named_platform_without_a_price_is_named(scorer_engine):
    from bot.knowledge import load_platform_rows

    offers = load_rentals(KNOWLEDGE)
    bare = next(r for r in load_platform_rows(KNOWLEDGE) if r["region"] == "china" and r["name_zh"] and
                r["price_unit"].startswith("per GPU-hour") and  # a rental site (not a free notebook service)
                not any(o.platform == r["name"] and o.family == "RTX 4090" for o in offers))
    conv = Conversation(scorer_engine)
    named = conv.turn(f"{bare['name_zh']}有4090吗")
    assert bare["name_zh"] in named.paragraphs[0] and "价格页" in named.paragraphs[0], plain(named)
    abroad = conv.turn("国外呢")
    assert abroad.intent == "rent", plain(abroad)
    china_platforms = {o.platform for o in load_rentals(KNOWLEDGE) if o.region == "china"}
    assert not any(p in abroad.paragraphs[0].split("。")[0] for p in china_platforms), abroad.paragraphs[0]
    assert abroad.table.rows[0][0] not in china_platforms


def test_many_gpus_for_one_job_are_priced_on_a_multi_gpu_machine(scorer_engine):
    conv = Conversation(scorer_engine)
    conv.turn("where can I rent an H100?")
    eight = conv.turn("what about 8 of them for pretraining?")
    machines = {o.platform for o in load_rentals(KNOWLEDGE) if o.billing == "instance" and o.family == "H100"}
    assert eight.intent == "rent" and "one machine" in eight.paragraphs[0], plain(eight)
    assert any(f"At {p}'s rate, 8 GPUs" in eight.paragraphs[0] for p in machines), eight.paragraphs[0]


@pytest.mark.parametrize("text", ["国内租 A100 哪家便宜", "国内租3090多少钱一小时", "rent an RTX 4090 in China, per hour?"])
def test_a_china_rental_question_gets_a_dated_table_from_several_china_platforms(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "rent" and reply.table is not None, plain(reply)
    china = {o.platform for o in load_rentals(KNOWLEDGE) if o.region == "china"}
    rows = reply.table.rows
    local = [row for row in rows if row[0] in china]
    assert len({row[0] for row in local}) >= 2 and all(re.search(r"20\d\d-\d\d", row[-1]) for row in rows)
    assert list(rows[: len(local)]) == local, "China platforms come first for a question about China"
    assert re.search(r"¥\d", local[0][2]) and re.search(r"20\d\d-\d\d", reply.paragraphs[0])


def test_china_rental_prices_come_from_at_least_three_platforms_in_one_table(scorer_engine):
    reply = Conversation(scorer_engine).turn("租一张4090多少钱一小时")
    china = {o.platform for o in load_rentals(KNOWLEDGE) if o.region == "china"}
    assert len({row[0] for row in reply.table.rows if row[0] in china}) >= 3, plain(reply)


def test_a_named_platform_leads_the_answer_and_its_rows_come_first(scorer_engine):
    from bot.knowledge import load_platform_rows

    offers = load_rentals(KNOWLEDGE)
    rows = {r["name"]: r for r in load_platform_rows(KNOWLEDGE)}
    # a China platform with a dated offer that is not the cheapest for its card: naming it must still put it first
    for o in sorted(offers, key=lambda o: -o.price):
        cheaper = [x for x in offers if x.family == o.family and x.region == "china" and x.price < o.price]
        if o.region == "china" and o.platform in rows and rows[o.platform]["name_zh"] and cheaper:
            break
    card = next(g for g in scorer_engine.catalog if family_of(g.name) == o.family)
    for name in (rows[o.platform]["name_zh"], rows[o.platform]["name"]):
        reply = Conversation(scorer_engine).turn(f"{name} 租 {card.name} 多少钱一小时")
        assert reply.table.rows[0][0] == o.platform, plain(reply)
        assert reply.paragraphs[0].split("。")[0].count(o.platform.split()[0]) >= 1, reply.paragraphs[0]


def test_a_question_about_a_platform_alone_answers_about_that_platform(scorer_engine):
    from bot.knowledge import load_platform_rows

    offers = load_rentals(KNOWLEDGE)
    for r in load_platform_rows(KNOWLEDGE):
        if r["region"] != "china" or not r["name_zh"] or not r["price_unit"].startswith("per GPU-hour"):
            continue  # the rental sites (a free notebook service is a question about its quota)
        reply = Conversation(scorer_engine).turn(f"{r['name_zh']}怎么收费")
        if reply.intent == "question":  # the platform's own sheet answers, with its dated price when it has one
            assert reply.topic == f"platform:{r['name']}", plain(reply)
            assert not r["price"] or re.search(r"20\d\d-\d\d", " ".join(reply.paragraphs)), plain(reply)
            continue
        assert reply.intent == "rent" and r["name_zh"] in reply.paragraphs[0], plain(reply)
        mine = [o for o in offers if o.platform == r["name"]]
        if mine:  # its dated offers, and only its
            assert reply.table is not None and {row[0] for row in reply.table.rows} == {r["name"]}, plain(reply)
        else:
            assert r["url"] in reply.paragraphs[0], plain(reply)


def test_a_request_for_free_gpus_lists_the_free_quotas_first(scorer_engine):
    from bot.knowledge import load_platform_rows

    free = {r["name"] for r in load_platform_rows(KNOWLEDGE) if r["free_tier"].lower().startswith("yes")}
    reply = Conversation(scorer_engine).turn("where can I rent a GPU for free?")
    assert reply.intent == "rent", plain(reply)
    assert {row[0] for row in reply.table.rows[: len(free)]} == free, plain(reply)


@pytest.mark.parametrize("turns, platform", [
    (("预算8000 做stable diffusion", "那跑大模型呢", "还是租吧", "autodl上租哪个划算"), "AutoDL"),
    (("on runpod which gpu is the best value for fine-tuning a 7b?",), "RunPod"),
])
def test_which_card_is_best_value_on_a_named_platform_weighs_what_it_rents(scorer_engine, turns, platform):
    """"autodl上租哪个划算": the platform's own cards per unit of work for the job (was: the last answer again)."""
    conv = Conversation(scorer_engine)
    for text in turns[:-1]:
        conv.turn(text)
    reply = conv.turn(turns[-1])
    assert reply.query["rule"] == "rental-value", (reply.query["rule"], plain(reply))
    assert reply.table is not None and len(reply.table.rows) >= 3
    assert all(row[0] == platform for row in reply.table.rows), reply.table.rows


@pytest.mark.parametrize("turns", [("Budget $1200, I want to do LLM fine-tuning at home", "cheaper?", "what about used cards?"),
                                   ("预算一万跑大模型", "便宜点的呢", "二手可以吗")])
def test_used_after_cheaper_keeps_the_cheaper_list_and_says_used_were_in(scorer_engine, turns):
    conv = Conversation(scorer_engine)
    replies = [conv.turn(t) for t in turns]
    assert [r.gpu for r in replies[-1].recommendations] == [r.gpu for r in replies[-2].recommendations]
    assert "Same picks" in plain(replies[-1]) or "推荐不变" in plain(replies[-1]), plain(replies[-1])


@pytest.mark.parametrize("text, listed, not_listed", [
    ("What's the monthly cost of renting an A100 80GB full time on Lambda Cloud?", "80GB", "40GB"),
    ("A100 40G 租一小时多少钱", "40GB", "80GB")])
def test_a_card_named_with_its_memory_is_priced_on_offers_of_that_memory(scorer_engine, text, listed, not_listed):
    """"A100 80GB on Lambda": the 80 GB rate and the month counted on it, not the cheaper 40 GB rate of the family."""
    r = Conversation(scorer_engine).turn(text)
    assert r.intent == "rent" and r.table, plain(r)
    assert all(listed in row[1] and not_listed not in row[1] for row in r.table.rows), r.table.rows
