"""Phrasings a stranger used that were misread (stranger round 21 and the train split's slot failures): a laptop
named by its card's number, processors and phone chips that look like money, compute counted in GPU-hours."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


def _chat(engine, turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("text", ["1650笔记本能跑深度学习吗", "笔记本是1650的，能训练个resnet吗",
                                  "1650 laptop, can i even run llama 3.2 3b on it lol", "laptop with a 1650, good for pytorch?",
                                  "我這台1650的筆電能學深度學習嗎"])
def test_a_laptop_named_by_its_cards_number_is_that_card_not_a_budget(catalog, text):
    q = parse(text, catalog)
    assert q.need.budget is None
    assert [g for g in q.gpus if "1650" in g], q.gpus


def test_a_budget_for_a_laptop_is_still_a_budget(catalog):
    q = parse("预算1650 笔记本", catalog)
    assert q.need.budget is not None and q.need.budget.amount == 1650 and not q.gpus


@pytest.mark.parametrize("text", ["PSU 750W够不够 一张4070ti super加13900k", "9800X3D和265K选哪个",
                                  "my rig: 4090 + 14700kf, 1000w psu enough?", "骁龙8gen3和天玑9300哪个GPU强",
                                  "天璣9400同驍龍8 Elite邊個強"])
def test_processors_and_phone_chips_are_not_money(catalog, text):
    assert parse(text, catalog).need.budget is None


@pytest.mark.parametrize("text, amount", [("budget 3k, cpu will be a 7800x3d", 3000), ("预算1.5w 跑cnn", 15000)])
def test_a_budget_beside_a_processor_is_still_read(catalog, text, amount):
    q = parse(text, catalog)
    assert q.need.budget is not None and q.need.budget.amount == amount


@pytest.mark.parametrize("text, hours, verdict", [
    ("is renting actually cheaper than buying if my thesis needs ~500 GPU hours?", "500 GPU-hours in total", "rent"),
    ("租还是买 我一共要跑大概2000卡时", "总共 2,000 小时", "租"),
])
def test_compute_counted_in_gpu_hours_is_the_total_rent_or_buy_turns_on(engine, text, hours, verdict):
    _, (reply,) = _chat(engine, [text])
    said = plain(reply)
    assert hours in said and f": {verdict}." in said.replace("：", ": ").replace("。", "."), said[:600]
    assert "PRO 2000" not in said  # "2000卡时" is hours, not the RTX PRO 2000


@pytest.mark.parametrize("turns, currency", [
    (["我在台灣 預算3萬 想玩SD"], "TWD"),
    (["我在台灣", "預算3萬 想玩SD"], "TWD"),
    (["im in germany, budget 1500 for training CNNs"], "EUR"),
    (["uk based, budget 900, a card to run 14b models"], "GBP"),
    (["best GPU for DL under 1.2k in japan"], "USD"),  # ¥1,200 buys no GPU: dollars
    (["预算¥6000 打算在香港买 深度学习入门用"], "CNY"),  # the currency written wins over the place
])
def test_a_bare_amount_is_in_the_money_of_the_place_the_user_named(engine, turns, currency):
    conv, replies = _chat(engine, turns)
    assert conv.session.need.budget is not None and conv.session.need.budget.currency == currency, plain(replies[-1])
    assert replies[-1].recommendations


def test_a_bare_amount_in_traditional_characters_read_as_yuan_says_so(engine):
    _, (reply,) = _chat(engine, ["想用Stable Diffusion畫圖 預算兩萬以內"])
    assert "NT$" in plain(reply) and "人民幣" in plain(reply)
    _, (reply,) = _chat(engine, ["预算两万以内 sd画图"])
    assert "NT$" not in plain(reply)


@pytest.mark.parametrize("turns", [
    ["3090 vs 4090 for fine tuning", "and the 5090?", "which is best per dollar"],
    ["3090 vs 4090 for fine tuning", "which would you pick"],
    ["4090 vs 5090", "你会选哪个"],
    ["4070 super or 3090 for sd", "what would you get"],
])
def test_a_choice_asked_after_a_comparison_gets_its_verdict(engine, turns):
    conv, replies = _chat(engine, turns)
    said = plain(replies[-1])
    assert replies[-1].intent == "compare" and conv.session.last_rule == "choose-from-comparison", said[:300]
    assert "Verdict" in said or "结论" in said


def test_a_card_not_sold_new_where_the_user_buys_is_weighed_on_its_converted_price(engine):
    """In mainland China the 5090 is not sold new: the verdict weighs its US price converted (said so), instead of
    saying it has no prices while the table shows both."""
    _, (reply,) = _chat(engine, ["4090和5090差多少 值得多花钱吗"])
    verdict = reply.paragraphs[0]
    assert verdict.startswith("结论") and "¥" in verdict and "换算" in verdict and "没有两张卡的当前价格" not in verdict


def test_a_bigger_budget_that_buys_nothing_faster_keeps_the_pick_and_names_the_next_step(engine):
    _, replies = _chat(engine, ["i want to do video generation locally, budget 3000 usd", "what if i double the budget"])
    first, doubled = replies
    said = plain(doubled)
    assert doubled.recommendations, said[:500]
    assert doubled.recommendations[0].gpu == first.recommendations[0].gpu
    assert "stays the pick" in said and "next step up" in said


@pytest.mark.parametrize("turns, setup", [
    (["i want to do video generation locally, budget 3000 usd", "a pair of 3090s instead?"], "2× GeForce RTX 3090"),
    (["预算1.5万 跑大模型", "两张3090呢"], "2× GeForce RTX 3090"),
])
def test_a_setup_named_instead_of_the_pick_is_weighed_against_it(engine, turns, setup):
    conv, replies = _chat(engine, turns)
    top = replies[0].recommendations[0].gpu
    said = plain(replies[-1])
    assert replies[-1].intent == "compare" and setup in replies[-1].title and top in replies[-1].title, said[:300]


@pytest.mark.parametrize("turns", [["预算8000训练CNN", "礦機六張 3060Ti 一日賺幾多"],
                                   ["$1500 for training CNNs", "can you summarize the attention is all you need paper for me"]])
def test_mining_income_and_paper_summaries_after_picks_are_declined(engine, turns):
    _, replies = _chat(engine, turns)
    assert replies[-1].intent == "out_of_scope", plain(replies[-1])[:300]


@pytest.mark.parametrize("text, lang", [("为啥大家都说别买4060", "zh"), ("is the 4060 bad for deep learning? why", "en"),
                                        ("4060为什么不适合深度学习", "zh")])
def test_why_a_card_is_judged_badly_gets_the_verdict_on_that_card(engine, text, lang):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "gpu" and reply.focus == "GeForce RTX 4060", plain(reply)[:300]
    assert ("Worth it only used" if lang == "en" else "只有二手") in plain(reply)


@pytest.mark.parametrize("text", ["why not just buy a 4090 instead of 5090 for training", "为什么不买3090而买4090"])
def test_why_not_one_card_instead_of_another_weighs_the_two(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "compare" and len(reply.chart_gpus) == 2, plain(reply)[:300]
    assert reply.paragraphs[0].startswith(("Verdict", "结论")), reply.paragraphs


@pytest.mark.parametrize("text, lang", [("cheaper alternative to 4090 with 24gb?", "en"), ("4090平替 24g", "zh")])
def test_a_cheaper_alternative_to_a_card_keeps_its_memory_and_costs_less(engine, text, lang):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "recommend" and reply.recommendations, plain(reply)[:300]
    top = reply.recommendations[0]
    assert top.gpu != "GeForce RTX 4090" and "24 GB" in plain(reply)
    assert engine.catalog.get(top.gpu).vram_gb >= 24


def test_setups_compared_for_a_model_with_nvlink_mentioned_are_weighed_for_that_job(engine):
    _, (reply,) = _chat(engine, ["a pair of 3090s with nvlink vs one 4090 for fine tuning 13b"])
    assert reply.intent == "compare" and "2× GeForce RTX 3090" in reply.title, plain(reply)[:300]
    assert reply.paragraphs[0].startswith("Verdict: 2× GeForce RTX 3090")


@pytest.mark.parametrize("text", ["my lab has 10k for gpus, want to do LLM pretraining research on small models",
                                  "预训练小型LLM 预算5万"])
def test_pretraining_a_language_model_is_training_not_running_one(catalog, text):
    assert parse(text, catalog).need.workloads == ("transformer",)


@pytest.mark.parametrize("turns, rule_words, hours_words", [
    (["whats better for a phd student doing RL, rent or buy? ~£1000", "about 10 hours a week"], "The broad rule",
     "At 10 hours a week"),
    (["预算8000 训练CNN 租卡还是买卡划算", "一周大概20小时"], "大原则", "按每周 20 小时"),
])
def test_rent_or_buy_asked_with_a_budget_and_a_job_gives_the_picks_and_then_the_sum(engine, turns, rule_words,
                                                                                  hours_words):
    _, (picks, verdict) = _chat(engine, turns)
    assert picks.recommendations and rule_words in plain(picks), plain(picks)[:400]
    top = picks.recommendations[0].gpu
    assert verdict.intent == "rent" and top in verdict.title and hours_words in plain(verdict), plain(verdict)[:400]


def test_a_platform_weighed_against_buying_a_card_is_rent_or_buy(engine):
    _, (reply,) = _chat(engine, ["Colab Pro跟自己買顯卡 哪個划算"])
    assert reply.query["rule"] == "rent-or-buy" and "Colab" in plain(reply), plain(reply)[:300]
    assert "跑多少小時" in plain(reply)  # the hours the sum needs are asked for


def test_full_parameter_fine_tuning_is_the_full_method(catalog):
    assert parse("A100 40gb vs 80gb rental, which for fine tuning 13b full param", catalog).need.finetune_method == "full"


@pytest.mark.parametrize("text", ["need to do inference for a 7b model in production, low latency, 100 req/s",
                                  "生产环境部署qwen 14b 高并发 预算10万"])
def test_a_production_service_is_serving_many_users(engine, text):
    q = parse(text, engine.catalog)
    assert q.need.serving
    _, (reply,) = _chat(engine, [text])
    names = [r.gpu for r in reply.recommendations]
    assert names and not any("P40" in n or "Mac" in n for n in names), names
    assert "vLLM" in plain(reply)


@pytest.mark.parametrize("text, intent", [("how many watts does a space heater actually use", "out_of_scope"),
                                          ("is the 3090 Ti a space heater?", "power"),
                                          ("4090跑起来跟电暖器一样吗 功耗多少", "power")])
def test_household_appliances_are_another_topic_unless_a_card_is_compared_to_one(engine, text, intent):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == intent, plain(reply)[:300]


@pytest.mark.parametrize("text, said, not_said", [
    ("I want to train a yolov8 model on like 50k images. is a 4060 8gb enough", "rule of thumb", "KV cache"),
    ("4070 12g 能微调 8b 模型吗", "KV 缓存", "经验值"),
])
def test_a_fit_answer_says_what_its_memory_verdict_rests_on(engine, text, said, not_said):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "fit" and said in " ".join(reply.footer) and not_said not in " ".join(reply.footer)


@pytest.mark.parametrize("turns, advice", [(["budget 1200 for running llms", "used ok?"], "GPU-Z"),
                                           (["预算5000 跑cnn", "二手的可以吗"], "GPU-Z")])
def test_asking_whether_used_is_ok_after_picks_gets_the_used_picks_and_how_to_buy_used(engine, turns, advice):
    _, (_, reply) = _chat(engine, turns)
    assert reply.recommendations and advice in " ".join(reply.paragraphs), plain(reply)[:500]


def test_saying_used_is_fine_gets_the_picks_without_the_lecture(engine):
    _, (_, reply) = _chat(engine, ["预算5000 跑cnn", "二手也行"])
    assert reply.recommendations and "GPU-Z" not in plain(reply)


@pytest.mark.parametrize("text, verdict", [("二手3090喺香港幾錢 抵唔抵買", "值"), ("where to buy a 4090, is it worth it", "Yes")])
def test_where_to_buy_asked_with_worth_it_leads_with_the_verdict(engine, text, verdict):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "where_to_buy" and reply.paragraphs[0].startswith(verdict), reply.paragraphs[:2]


def test_what_to_watch_for_buying_a_used_card_somewhere_gets_the_used_market_advice(engine):
    _, (reply,) = _chat(engine, ["台灣買二手3090要注意什麼"])
    assert reply.intent == "where_to_buy" and "GPU-Z" in plain(reply) and "PTT" in plain(reply)


@pytest.mark.parametrize("text", ["苹果a18芯片性能咋样", "點樣煲老火湯", "how much vram do i need for 4k texture mods in skyrim",
                                  "can i use my old rx 580 in a hackintosh", "點樣喺 Steam 退款", "百度网盘会员一年多少钱 值不值",
                                  "what laptop should i buy for college, budget 900"])
def test_everyday_and_other_computing_questions_are_declined(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "out_of_scope", plain(reply)[:300]


@pytest.mark.parametrize("text", ["a laptop for school that can also run pytorch, budget 1500",
                                  "预算5000配个电脑 打游戏 偶尔跑跑AI"])
def test_a_budget_with_words_of_machine_learning_is_never_declined(engine, text):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "recommend", plain(reply)[:300]


@pytest.mark.parametrize("turns, intent", [
    (["gaming gpu budget 700 what do i get"], "out_of_scope"),
    (["游戏卡跑深度学习行吗"], "question"),
    (["预算8000训练CNN", "功耗能再低点吗，机房空调顶不住"], "recommend"),  # the server room's air conditioning
    (["are those chinese 48gb 4090 mods legit or a scam"], "question"),
])
def test_gaming_cards_are_ours_only_beside_machine_learning(engine, turns, intent):
    _, replies = _chat(engine, turns)
    assert replies[-1].intent == intent, plain(replies[-1])[:300]


@pytest.mark.parametrize("text, limit", [("PSU is 550W, can i put a 4070s in there", "nvidia-smi -pl 200"),
                                         ("two 3090s on a 1000w psu?", "nvidia-smi -pl 290"),
                                         ("我电源650w 能带4080吗", "nvidia-smi -pl 290")])
def test_a_psu_a_little_short_is_offered_a_power_limit_that_fits(engine, text, limit):
    _, (reply,) = _chat(engine, [text])
    assert reply.intent == "power" and limit in plain(reply), plain(reply)


def test_a_psu_far_too_small_is_not_offered_a_crippling_limit(engine):
    _, (reply,) = _chat(engine, ["my psu is 450w, 4090 ok?"])
    assert "not enough" in plain(reply) and "nvidia-smi" not in plain(reply)


@pytest.mark.parametrize("turns, top_word", [
    (["预算6000，想跑sd和flux", "你会选哪个"], "为什么是"),
    (["預算NT$40000，想做LLM微調", "你會揀邊張"], "為什麼是"),
    (["recommend me a gpu for NLP under 2000 usd", "ok pick one for me"], "Why "),
])
def test_which_would_you_pick_after_picks_names_the_top_pick_and_why(engine, turns, top_word):
    conv, (picks, reply) = _chat(engine, turns)
    assert conv.session.last_rule == "why" and picks.recommendations[0].gpu in plain(reply), plain(reply)[:300]
    assert top_word in plain(reply)


@pytest.mark.parametrize("turns, rule", [
    (["compare 3090 and 4090 for training", "换成中文说", "那5090呢"], "card-after-a-comparison"),
    (["3090 vs 4090", "thanks!", "which would you pick"], "choose-from-comparison"),
    (["compare the 4070 ti super and the 3090 for deep learning", "and for image gen?"], "job-after-a-comparison"),
])
def test_small_talk_and_a_language_switch_leave_the_comparison_on_the_table(engine, turns, rule):
    conv, replies = _chat(engine, turns)
    assert conv.session.last_rule == rule and replies[-1].intent == "compare", plain(replies[-1])[:300]


def test_a_psu_said_earlier_is_checked_in_a_fit_answer_and_bounds_the_best_card_asked_for(engine):
    conv, (_, fit, best) = _chat(engine, ["my psu is 750w, want a card for llm inference", "would a 5090 work?",
                                          "ok what's the best that works with my current psu then"])
    assert fit.intent == "fit" and "750 W is not enough at full power" in plain(fit), plain(fit)
    assert best.intent == "recommend" and best.recommendations, plain(best)[:400]
    for r in best.recommendations:
        g = engine.catalog.get(r.gpu)
        assert g.tdp_w * r.count <= 750, r.gpu


@pytest.mark.parametrize("text, count", [("给我推荐3张卡 从便宜到贵 用于LLM微调", None),
                                         ("recommend me 3 gpus for deep learning under 2000 usd", None),
                                         ("推荐4卡服务器 跑70b", 4), ("show me 2x 3090 builds", 2),
                                         ("预算5万 推荐两张卡的方案", 2), ("recommend 2 cards to run together for 70b", 2)])
def test_a_number_of_cards_asked_as_suggestions_is_not_a_rig(catalog, text, count):
    assert parse(text, catalog).need.gpu_count == count


@pytest.mark.parametrize("text", ["-1010k", "负1010k", "minus 2500k"])
def test_a_negative_amount_in_thousands_is_still_rejected_as_negative(text):
    from bot.slots.money import extract_money
    from bot.slots.text import normalise

    f = extract_money(normalise(text), "zh")
    assert f.budget is None and f.rejected is not None and f.rejected[0] == "negative"


@pytest.mark.parametrize("turns, topic", [
    (["I want to train yolo models for a robotics project, budget $600", "actually should I just rent instead?",
      "which platform would you use"], "international-cloud-platforms"),
    (["预算6000 训练CNN", "租的话呢", "你推荐哪个平台"], "china-cloud-platforms"),
])
def test_which_platform_after_a_rental_list_is_the_guides_word_on_the_users_market(engine, turns, topic):
    conv, replies = _chat(engine, turns)
    assert conv.session.last_rule == "platform-choice" and replies[-1].topic == topic, plain(replies[-1])[:300]
