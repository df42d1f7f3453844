"""Money and time said for renting (stranger round 24): money with no platform named is spent on hours, not on a
card; a number of days "straight" is that many days in all."""

from __future__ import annotations

import re

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


def _chat(engine, turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


def _number(s: str) -> float:
    return float(s.replace(",", ""))


@pytest.mark.parametrize("turns, money", [
    (["1万块能租多久4090"], 10_000),
    (["$50, how many hours of a 4090 can I rent?"], 50),
    (["租4090的话 预算3000块能用多少小时"], 3_000),
    (["where can I rent an A100", "I have $200, how many hours is that"], 200),
    (["在哪里租3090", "那500块能租多久"], 500),
])
def test_money_to_rent_a_card_is_counted_in_hours_at_the_rate_quoted(engine, turns, money):
    _, replies = _chat(engine, turns)
    reply = replies[-1]
    said = plain(reply)
    assert reply.intent == "rent", said[:500]
    rate = re.search(r"(?:an hour|每小时) [$¥](?P<r>[\d.,]+)|[$¥](?P<r2>[\d.,]+) an hour", said)
    hours = re.search(r"(?:for about|约) (?P<h>[\d,]+) (?:hours|小时)", said)
    assert rate and hours, said[:700]
    per_hour = _number(rate.group("r") or rate.group("r2"))
    assert abs(_number(hours.group("h")) - money / per_hour) <= max(1.0, 0.01 * money / per_hour), said[:700]


@pytest.mark.parametrize("turns, said", [
    (["想租卡跑LoRA", "预算500块够租多久"], "你的 ¥500 大约能租"),
    (["where can I rent GPUs?", "I have $100, how many hours would that get me"], "Your $100 rents about"),
])
def test_money_to_rent_with_no_card_is_counted_on_the_cheapest_cards_listed(engine, turns, said):
    _, replies = _chat(engine, turns)
    assert replies[-1].intent == "rent" and said in plain(replies[-1]), plain(replies[-1])[:600]


@pytest.mark.parametrize("text, hours", [("rent a 4090 for 3 days straight, how much", 72),
                                         ("租一张A100连续跑5天要多少钱", 120),
                                         ("2 days nonstop on a rented 3090, cost?", 48)])
def test_days_straight_are_that_many_days_in_all(catalog, text, hours):
    usage = parse(text, catalog).need.usage
    assert usage is not None and usage.per == "total" and usage.hours == hours


@pytest.mark.parametrize("text", ["run it a month straight on a rented 4090", "租一张4090连续跑"])
def test_straight_without_a_number_of_days_stays_around_the_clock(catalog, text):
    usage = parse(text, catalog).need.usage
    assert usage is not None and usage.per == "day" and usage.hours == 24


@pytest.mark.parametrize("turns, no, floor", [
    (["预算3万，跑70B推理需要48G显存", "那如果只是训练CV呢，也要48G吗"], "不用 48 GB", 8),
    (["$3000, I need 48gb for llama 70b", "and for stable diffusion, do I still need 48gb?"], "does not need 48 GB", 8),
])
def test_memory_asked_about_after_a_change_of_job_is_answered_not_kept_as_a_floor(engine, turns, no, floor):
    conv, replies = _chat(engine, turns)
    assert no in plain(replies[-1]), plain(replies[-1])[:600]
    assert conv.session.need.min_vram_gb is None or conv.session.need.min_vram_gb <= floor
    assert any(r.vram_gb < 48 for r in replies[-1].recommendations)


@pytest.mark.parametrize("text", ["需要48G显存，预算3万", "I need 48gb, budget $6500", "至少要24G显存吗？预算一万"])
def test_memory_stated_as_a_need_is_still_a_floor(catalog, text):
    assert parse(text, catalog).need.min_vram_gb in (48, 24)


def test_an_hourly_price_asked_after_a_rent_or_buy_sum_is_the_offers_and_money_next_is_hours(engine):
    _, (_, price, hours) = _chat(engine, ["Should I rent or buy for stable diffusion, I use it ~2h a day",
                                          "how much per hour on runpod for a 4090", "how many hours does $200 rent"])
    assert price.intent == "rent" and "RunPod: $" in plain(price) and "Break-even" not in plain(price)
    assert "Your $200 rents one GPU for about" in plain(hours), plain(hours)[:600]
    assert "At your 2 hours a day" not in plain(hours)


def test_money_to_rent_and_the_platform_carry_to_another_card_asked_the_same(engine):
    _, (_, hours, other) = _chat(engine, ["AutoDL上租A100多少钱一小时", "100块能租多久", "那4090呢"])
    assert "你的 ¥100" in plain(hours)
    said = plain(other)
    assert "RTX 4090 在 AutoDL" in said and "你的 ¥100 按这个价格能租" in said, said[:600]


@pytest.mark.parametrize("turns, head", [
    (["4090和3090比哪个好", "那张3090二手多少钱", "两张3090呢"], "2 张 GeForce RTX 3090：二手约"),
    (["tell me about the 4090", "what about two of them?"], "2× GeForce RTX 4090: about"),
    (["tell me about the 3090", "两张呢"], "2 张 GeForce RTX 3090："),
])
def test_several_of_the_card_on_screen_get_that_setup_not_the_single_card_again(engine, turns, head):
    _, replies = _chat(engine, turns)
    said = plain(replies[-1])
    assert head in said and "48 GB" in said and ("W PSU" in said or "电源建议约" in said), said[:700]
    assert replies[-1].focus_count == 2


@pytest.mark.parametrize("text", ["租GPU定買GPU好？我每個月用大概50個鐘", "租卡定买卡好，每个月用50小时",
                                  "should I rent a gpu or buy a used one, maybe 10 hours a week"])
def test_rent_or_buy_with_things_named_between_is_worked_out(engine, text):
    conv, (reply,) = _chat(engine, [text])
    assert conv.session.last_rule == "rent-vs-buy", plain(reply)[:500]


@pytest.mark.parametrize("text, gb", [("2080ti魔改22G靠谱吗，跑大模型推理", 22),
                                      ("is a modded 2080 ti 22gb worth it for local llms?", 22)])
def test_a_modded_card_for_llms_runs_what_its_own_memory_holds_after_the_word_on_mods(engine, text, gb):
    _, (reply,) = _chat(engine, [text])
    said = plain(reply)
    assert f"({gb} GB)" in reply.title, said[:500]
    assert "魔改卡" in said or "modded card" in said, said[:800]
    assert "算例" not in said and "Worked example" not in said


@pytest.mark.parametrize("text, price, said", [
    ("is a used 3090 for $700 still a good deal in 2026 or should i get a 5070 ti", "$700", "you were offered"),
    ("闲鱼2800的3090和新的5070ti选哪个", "¥2,800", "按你说的 ¥2,800"),
])
def test_two_cards_weighed_with_a_price_offered_for_the_first_use_that_price(engine, text, price, said):
    _, (reply,) = _chat(engine, [text])
    out = plain(reply)
    assert reply.intent == "compare" and said in out, out[:600]
    assert price in reply.paragraphs[0], out[:600]


@pytest.mark.parametrize("text, budget", [("想微調LLM，預算台幣五萬，該買4090還是兩張3090", "NT$50,000"),
                                          ("$1200 budget, 4090 or 5090?", "$1,200")])
def test_cards_compared_that_all_cost_more_than_the_budget_say_so(engine, text, budget):
    _, (reply,) = _chat(engine, [text])
    assert budget in reply.paragraphs[0] and ("超出你的预算" in reply.paragraphs[0] or "超出你的預算" in
                                              reply.paragraphs[0] or "more than your budget" in reply.paragraphs[0])


@pytest.mark.parametrize("text", ["recommend a good movie about AI", "推荐几本关于AI的书", "any good podcast on deep learning?"])
def test_things_to_watch_or_read_about_ai_are_declined(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "out_of_scope", plain(reply)[:300]


@pytest.mark.parametrize("text, step", [("I have a 3090. Is it worth upgrading to a 5090?", "Upgrade from your GeForce RTX 3090"),
                                        ("我有一张3090，升级到5070ti值得吗", "留着你的 GeForce RTX 3090")])
def test_a_card_owned_weighed_against_another_is_an_upgrade_verdict(engine, text, step):
    _, (reply,) = _chat(engine, [text])
    assert reply.paragraphs[0].startswith((step, f"结论：{step}")), reply.paragraphs[0]


def test_an_upgrade_keeps_the_owned_card_through_a_job_change_and_both_cards_together(engine):
    _, (_, job, keep, psu) = _chat(engine, ["I have a 3090. Is it worth upgrading to a 5090?",
                                            "for LLM inference specifically", "could I keep the old one as a second card?",
                                            "PSU for both?"])
    assert job.paragraphs[0].startswith("Upgrade from your GeForce RTX 3090") and "LLMs" in job.paragraphs[0]
    assert keep.paragraphs[0].startswith("Yes,") and "56 GB in all" in keep.paragraphs[0], plain(keep)[:400]
    assert "GeForce RTX 3090 + GeForce RTX 5090: about 925 W" in plain(psu), plain(psu)[:400]


def test_psu_for_both_after_comparing_cards_not_owned_is_each_card(engine):
    _, (_, psu) = _chat(engine, ["3090 vs 4090", "PSU for both?"])
    assert "GeForce RTX 3090: about 350 W" in plain(psu) and "GeForce RTX 4090: about 450 W" in plain(psu)


@pytest.mark.parametrize("text", ["buy a 3090 or rent on autodl?", "自己买3090还是在autodl上租"])
def test_a_card_or_a_platform_counts_the_cards_price_in_rented_hours(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert "rents about" in plain(reply) or "够在 AutoDL 上租" in plain(reply), plain(reply)[:500]


@pytest.mark.parametrize("text, kind", [
    ("本人在读本科，自己笔记本是3050 4G，想自己攒一台，预算大概六七千，也可能考虑租云服务器", None),
    ("my laptop only has a 3050, want a desktop for dl, $1500", "desktop"),
    ("想买个笔记本跑深度学习，预算一万", "laptop"),
    ("a 4u server for training, $20k", "server"),
])
def test_a_cloud_server_or_the_users_own_laptop_is_not_the_kind_of_computer_wanted(catalog, text, kind):
    assert parse(text, catalog).need.form_factor == kind


def test_a_whole_pc_budget_is_all_a_macs_since_a_mac_is_the_whole_computer(engine):
    conv, (pc, mac) = _chat(engine, ["Mac or PC for ML? budget 3000 dollars", "which mac for llama 70b then"])
    assert "for the whole PC, $1,500 for the cards" in pc.title
    assert "for the cards" not in mac.title, mac.title


@pytest.mark.parametrize("turns", [["我有一张3060 12G，能训练yolov8吗", "多快"], ["can a 4070 train resnet50?", "how fast?"]])
def test_a_training_fit_says_how_fast_the_card_is_for_the_job(engine, turns):
    _, replies = _chat(engine, turns)
    said = plain(replies[-1])
    assert "GeForce RTX 3090 的 0." in said or "× a GeForce RTX 3090 for" in said, said[:600]


@pytest.mark.parametrize("text, card", [
    ("i've got an old gaming pc with a gtx 1660 super, it's getting slow for the fast.ai course, friend says rent on "
     "vast.ai, budget 600-800 usd, what would you do", "GeForce GTX 1660 SUPER"),
    ("我有台电脑，显卡是3060，跑训练越来越慢，预算五千", "GeForce RTX 3060 12GB"),
])
def test_a_card_in_the_users_computer_is_theirs(catalog, text, card):
    assert parse(text, catalog).need.owned_gpus == (card,)


def test_a_card_owned_money_and_a_job_beside_renting_weigh_a_new_card_against_renting(engine):
    conv, (reply,) = _chat(engine, ["i've got an old gaming pc with a gtx 1660 super, it's getting slow for the fast.ai "
                                    "course, friend says rent on vast.ai, budget 600-800 usd, what would you do"])
    assert conv.session.last_rule == "rent-or-buy-with-a-need" and reply.recommendations, plain(reply)[:500]


def test_a_card_named_far_from_an_owned_word_is_not_owned(catalog):
    assert parse("i have been reading a lot about whether the rtx 4090 is worth it", catalog).need.owned_gpus == ()


# --- stranger round 26 -------------------------------------------------------------------------------------------

def test_it_weighed_over_another_card_is_the_card_on_the_table_against_it_and_its_psu_is_its_own(engine):
    _, (_, compare, psu) = _chat(engine, ["Is the RTX 5090 good for deep learning?", "is it worth it over a used 4090?",
                                          "what PSU does it need"])
    assert compare.intent == "compare" and "GeForce RTX 5090" in compare.title and "GeForce RTX 4090" in compare.title
    assert "GeForce RTX 5090: about 575 W" in plain(psu) and "GeForce RTX 4090" not in plain(psu)


def test_keeping_the_old_card_after_an_upgrades_picks_is_the_pair_in_one_machine(engine):
    _, replies = _chat(engine, ["我有一张 3060 12G", "想微调 Qwen2.5-7B，够吗", "不够的话升级什么", "旧卡留着当第二张卡有用吗"])
    keep = replies[-1]
    assert keep.title.startswith("GeForce RTX 3060 12GB + ") and "可以" in keep.paragraphs[0], plain(keep)[:400]


@pytest.mark.parametrize("text, hours", [("每天大概跑四五個小時", 4.5), ("一天用两三个小时", 2.5)])
def test_two_neighbouring_chinese_numbers_are_a_range(catalog, text, hours):
    usage = parse(text, catalog).need.usage
    assert usage is not None and usage.hours == hours and usage.per == "day"


@pytest.mark.parametrize("text", ["Explain the math of self-attention in transformers", "self-attention的公式推导讲一下"])
def test_ml_theory_is_declined(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "out_of_scope", plain(reply)[:300]


@pytest.mark.parametrize("text, asks", [("學生黨 budget 有限，想學 deep learning，買 laptop 定 desktop 好？", True),
                                        ("笔记本定系台式好", True), ("一定要买笔记本，台式不方便", False)])
def test_two_kinds_of_computer_joined_by_cantonese_or_is_the_choice(text, asks):
    from bot.slots.hardware import form_factor_choice
    from bot.slots.text import normalise

    assert form_factor_choice(normalise(text)) is asks


@pytest.mark.parametrize("text", ["I'm a broke student, just need a GPU for a Kaggle comp. any free options?",
                                  "推荐个能白嫖的GPU，学生没钱"])
def test_free_gpus_asked_for_are_the_free_quotas_not_cards_to_buy(engine, text):
    _, (reply,) = _chat(engine, [text])
    said = plain(reply)
    assert reply.intent == "rent" and not reply.recommendations, said[:400]
    assert "Free quota" in said or "免费额度" in said or "free quota" in said, said[:600]


@pytest.mark.parametrize("turns, said", [
    (["A卡能跑深度学习吗", "那 7900 XTX 和 4080 比呢", "Mac 呢"], "Mac"),
    (["is amd ok for pytorch?", "what about intel?"], "Intel"),
])
def test_a_maker_asked_after_a_talk_about_makers_is_the_guide_on_it_not_a_budget_question(engine, turns, said):
    _, replies = _chat(engine, turns)
    reply = replies[-1]
    assert reply.intent == "question" and said in plain(reply), plain(reply)[:400]


def test_a_maker_asked_after_picks_still_filters_them(engine):
    conv, (_, amd) = _chat(engine, ["预算5000训练CNN", "AMD呢"])
    assert conv.session.last_act == "refine" and conv.session.need.vendor == "AMD"
