"""Follow-ups about a card or a need that the fifth round of fresh messages showed misread: a PSU stated after a
power question, 'more memory?' when the budget holds nothing bigger, a maker turned down, one more of the card the
user owns, cooling, a model or quantisation asked again after a fit, and money or jobs read out of a message."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain


def talk(engine, *turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("turns", [
    ("3090要多大电源", "我电源只有750w 不想换"),
    ("what PSU does a 3090 need?", "I only have a 750w one and don't want to swap it"),
])
def test_a_psu_stated_after_a_power_question_answers_for_that_card(scorer_engine, turns):
    conv, (_, mine) = talk(scorer_engine, *turns)
    assert mine.intent == "power", plain(mine)
    assert "750" in plain(mine) and "3090" in plain(mine)
    assert conv.session.need.psu_w == 750  # kept for the picks that follow


@pytest.mark.parametrize("turns", [
    ("预算八千 跑sd", "我個火牛係650W 夠唔夠"),
    ("$900 for stable diffusion", "is my 650w psu enough?"),
])
def test_a_psu_with_enough_after_picks_is_a_power_question(scorer_engine, turns):
    _, (picks, psu) = talk(scorer_engine, *turns)
    assert picks.recommendations
    assert psu.intent == "power", plain(psu)
    assert "650" in plain(psu)


@pytest.mark.parametrize("text,budget,psu", [
    ("那推荐一张750w带得动的 预算六千", 6000, 750),
    ("预算100w", 1_000_000, None),  # a budget word before it: 1,000,000 yuan
    ("can my 650w handle a 4090", None, 650),
])
def test_watts_beside_a_budget_word_further_on_are_watts(catalog, text, budget, psu):
    q = parse(text, catalog=catalog)
    assert (q.need.budget.amount if q.need.budget else None) == budget
    assert q.need.psu_w == psu


@pytest.mark.parametrize("turns", [
    ("best GPU for fine-tuning a 13B LLM with QLoRA, under $1500", "more memory?"),
    ("预算一万二，微调13B大模型用QLoRA", "显存大点的呢"),
])
def test_more_memory_with_nothing_bigger_in_budget_shows_the_cheapest_that_have_it(scorer_engine, turns):
    _, (first, more) = talk(scorer_engine, *turns)
    top_vram = first.recommendations[0].vram_gb
    assert more.recommendations, plain(more)
    assert all(r.vram_gb > top_vram for r in more.recommendations)
    assert any(word in plain(more) for word in ("over budget", "超出预算"))


def test_more_memory_far_beyond_the_budget_says_what_rules_it_out(scorer_engine):
    _, (first, more) = talk(scorer_engine, "预算四千，收二手的，跑CV", "显存大点的有吗")
    assert first.recommendations and not more.recommendations
    assert "24.5 GB" in plain(more)  # what rules everything out, and the cheapest card that has it


@pytest.mark.parametrize("text,vendor", [
    ("ok forget apple. nvidia only, used ok", "NVIDIA"),
    ("forget amd, nvidia only", "NVIDIA"),
    ("不要amd 换成nvidia的", "NVIDIA"),
    ("apple算了，还是N卡吧", "NVIDIA"),
    ("amd vs nvidia?", None),
])
def test_a_maker_turned_down_leaves_the_other(catalog, text, vendor):
    assert parse(text, catalog=catalog).need.vendor == vendor


@pytest.mark.parametrize("text", [
    "i have a 3090. if i add a second one can i run llama 70b at q4?",
    "我有一张3090，再加一张能跑70B吗",
])
def test_one_more_of_the_card_owned_is_a_fit_of_two(scorer_engine, text):
    _, (fit,) = talk(scorer_engine, text)
    assert fit.intent == "fit", plain(fit)
    assert "2× GeForce RTX 3090" in plain(fit)


def test_asking_which_card_to_add_is_still_a_recommendation(scorer_engine):
    _, (rec,) = talk(scorer_engine, "我有一张3090，再加一张什么卡能跑70B")
    assert rec.intent == "recommend"


@pytest.mark.parametrize("text", [
    "got 2 p40s off ebay, what llms can i run on them",
    "闲鱼收了两张P40，能跑哪些模型",
])
def test_what_cards_bought_can_run_is_not_where_to_buy(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "fit", plain(reply)
    assert "2× Tesla P40" in plain(reply)


@pytest.mark.parametrize("turns,words", [
    (("bought a p40 off ebay, how do I keep it cool in a normal case",), ("passive", "shroud")),
    (("我的4090温度太高了怎么办",), ("涡轮", "散热")),
    (("cheapest way to get 48GB vram for llm inference? used is fine", "tell me more about the first one",
      "how hot and loud is it? it's going in my home office"), ("blower",)),
])
def test_cooling_questions_get_the_cooling_advice_with_the_cards_power(scorer_engine, turns, words):
    *_, reply = talk(scorer_engine, *turns)[1]
    assert reply.intent == "power", plain(reply)
    assert any(w in plain(reply) for w in words), plain(reply)
    assert " W" in plain(reply)


@pytest.mark.parametrize("turns,second", [
    (("I've got a 2070 super, can it handle SDXL?", "and flux dev?"), "Flux"),
    (("我手上有张3060 12G，能跑Qwen 14B吗", "4bit量化的话能跑吗"), "Qwen2.5 14B"),
])
def test_a_model_or_quant_asked_again_after_a_fit_stays_a_fit(scorer_engine, turns, second):
    _, (first, again) = talk(scorer_engine, *turns)
    assert first.intent == "fit" and again.intent == "fit", plain(again)
    assert second in plain(again)


@pytest.mark.parametrize("text", ["我部機有張 2070 Super 8G，跑唔跑到 SDXL", "2070 Super 跑不跑得动 SDXL"])
def test_an_a_not_a_question_keeps_the_job(scorer_engine, catalog, text):
    assert parse(text, catalog=catalog).need.workloads == ("diffusion",)
    _, (fit,) = talk(scorer_engine, text)
    assert fit.intent == "fit"


@pytest.mark.parametrize("text", ["budget 6000 rmb, 想跑 qwen 14b and some SD", "1.5w预算，想跑SD和本地7B模型"])
def test_an_llm_beside_an_image_job_keeps_both(catalog, text):
    assert set(parse(text, catalog=catalog).need.workloads) == {"llm_inference", "diffusion"}


def test_a_size_alone_states_only_the_size(catalog):
    assert parse("for a 34b model?", catalog=catalog).need.workloads == ()


@pytest.mark.parametrize("text", ["中古的呢", "中古貨得唔得"])
def test_chuko_means_used(catalog, text):
    assert parse(text, catalog=catalog).need.used is True


@pytest.mark.parametrize("text,words", [
    ("我有张6800xt，能拿来跑pytorch训练吗", ("ROCm",)),
    ("can my rx 7900 xtx train cnns in pytorch", ("ROCm",)),
])
def test_an_amd_card_for_deep_learning_is_checked_with_its_software(scorer_engine, text, words):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "fit", plain(reply)
    assert any(w in plain(reply) for w in words)


def test_a_follow_up_after_a_recommendation_that_found_nothing_does_not_ask_the_job_again(scorer_engine):
    _, (amd, nvidia) = talk(scorer_engine, "给我推荐一张A卡，预算五千", "换N卡呢")
    assert amd.intent == "recommend"
    assert nvidia.recommendations, plain(nvidia)


# --- patterns from the closing stranger round -----------------------------------------------------------------


def test_an_upgrade_is_not_built_on_the_card_owned(scorer_engine):
    _, (*_, upgrade) = talk(scorer_engine, "I own an RTX 3060 12GB. Can it run Llama 3.1 8B?", "and 70B?",
                            "ok what should I upgrade to for 70B, budget ~2000?")
    assert upgrade.recommendations, plain(upgrade)
    assert not any("your" in row[0] for row in upgrade.table.rows)  # a replacement, not a card added to the 3060


@pytest.mark.parametrize("text", ["tesla p40 24gb for $180 — good for local llms?", "p40 24g才300块 跑大模型行吗"])
def test_an_amount_right_after_the_card_is_its_price_checked(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "gpu" and not reply.recommendations, plain(reply)
    assert any(w in plain(reply) for w in ("below the used price", "低"))


@pytest.mark.parametrize("turns", [
    ("二手3090和新的4070Ti Super怎么选？跑LLM", "那两张3090呢？"),
    ("used 3090 or a new 4070 ti super for running llms?", "what about two 3090s?"),
])
def test_a_count_of_one_card_after_a_comparison_for_llms_is_what_that_setup_runs(scorer_engine, turns):
    _, (_, two) = talk(scorer_engine, *turns)
    assert two.intent == "fit", plain(two)
    assert "2× GeForce RTX 3090" in plain(two) and "70B" in plain(two)


@pytest.mark.parametrize("turns", [
    ("两张3090跑70b要多大电源", "主板有要求吗"),
    ("PSU for two 3090s?", "does the motherboard matter?"),
])
def test_a_short_question_about_a_multi_card_setup_goes_to_the_multi_gpu_guide(scorer_engine, turns):
    _, (_, board) = talk(scorer_engine, *turns)
    assert board.intent == "question", plain(board)


@pytest.mark.parametrize("text", ["AutoDL租4090一小时多少钱？和自己买比哪个划算？",
                                  "how much is a 4090 on runpod per hour, vs buying one?"])
def test_rent_or_buy_with_a_card_shows_its_rentals_and_asks_the_hours(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "rent" and reply.table and reply.table.rows, plain(reply)
    assert any(w in plain(reply) for w in ("hours", "小时"))


def test_a_cantonese_compare_with_buying_then_hours_works_out_rent_or_buy(scorer_engine):
    _, (_, vs, hours) = talk(scorer_engine, "請問香港租GPU邊度平？想跑LLM fine-tune", "同買一張4090比邊個抵？",
                             "如果我每日用4個鐘呢？")
    assert vs.intent in ("question", "rent"), plain(vs)
    assert hours.intent == "rent" and "4090" in plain(hours), plain(hours)


@pytest.mark.parametrize("turns", [
    ("Thinking about AMD. 7900 XTX for LLM inference, good idea?", "compare it with a used 3090",
     "which one would you buy?"),
    ("想买7900XTX跑大模型推理，行吗", "和二手3090比呢", "选哪个"),
])
def test_a_near_tie_goes_to_the_cuda_card_and_which_to_buy_is_the_verdict_only(scorer_engine, turns):
    _, (_, cmp, which) = talk(scorer_engine, *turns)
    assert cmp.intent == "compare"
    assert cmp.paragraphs[0].split("—")[0].split("——")[0].count("3090"), plain(cmp)
    assert which.intent == "compare" and which.table is None, plain(which)


@pytest.mark.parametrize("text,method", [
    ("想用RTX 5070跑Llama3 8B的LoRA微调，显存够吗？", "QLoRA"),
    ("can a 3060 12gb lora finetune a 7b model", "QLoRA"),
])
def test_lora_that_does_not_fit_names_qlora_when_it_does(scorer_engine, text, method):
    _, (fit,) = talk(scorer_engine, text)
    assert fit.intent == "fit", plain(fit)
    first = fit.paragraphs[0]
    assert method in first and not first.startswith(("No:", "不行：")), plain(fit)


@pytest.mark.parametrize("text,card", [("我有张1660s 6g", "GeForce GTX 1660 SUPER"), ("my 2060s", "GeForce RTX 2060 Super"),
                                       ("two 3090s", "GeForce RTX 3090")])
def test_a_model_number_with_s_is_its_super_when_there_is_one(catalog, text, card):
    assert parse(text, catalog=catalog).gpus == (card,)


@pytest.mark.parametrize("turns", [("我有张1660S 6G，能跑stable diffusion吗", "慢不慢"),
                                   ("can my 1660 super run stable diffusion?", "is it slow?")])
def test_how_fast_after_an_image_fit_gives_the_estimated_speed(scorer_engine, turns):
    _, (_, speed) = talk(scorer_engine, *turns)
    assert speed.intent == "fit", plain(speed)
    assert any(w in plain(speed) for w in ("Speed: about", "速度：")), plain(speed)


@pytest.mark.parametrize("text", ["Should I buy 2x 3090 or 1x 4090 for training 13B models?", "两张3090还是一张4090，微调14B"])
def test_setups_for_training_are_weighed_by_the_method_each_holds(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "compare" and reply.table is None, plain(reply)
    assert reply.paragraphs[0].startswith(("Verdict: 2× GeForce RTX 3090", "结论：2× GeForce RTX 3090")), plain(reply)
    text = plain(reply)  # a training question is answered with training speeds, each setup's, not generation speeds
    assert "when generating" not in text and "生成" not in text, text
    assert text.count("Training speed") == 2 or text.count("训练速度") == 2, text


@pytest.mark.parametrize("text,words", [("显卡买啥 跑deepseek 预算两万 急！！", ("DeepSeek-R1", "671")),
                                        ("best gpu for qwen, $1500", ("Qwen",))])
def test_a_model_family_without_a_size_says_which_of_it_fits(scorer_engine, text, words):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.recommendations
    assert any(p for p in reply.paragraphs if "4-bit" in p or "4 位" in p), plain(reply)
    assert words[0] in plain(reply)


def test_memory_for_70b_at_4_bit_names_two_24_gb_cards(scorer_engine):
    _, (reply,) = talk(scorer_engine, "How much VRAM do I need to run a 70B model in 4-bit?")
    assert "2× 24 GB" in plain(reply)


def test_serving_after_picks_refines_them(scorer_engine):
    _, (_, _, serve) = talk(scorer_engine, "想买卡跑Qwen2.5-32B", "预算一万以内", "要是用vLLM并发服务几个人呢")
    assert serve.intent == "recommend", plain(serve)


def test_two_cards_for_more_memory_is_not_a_bigger_card_each(scorer_engine):
    _, (_, _, two) = talk(scorer_engine, "想买卡跑Qwen2.5-32B", "预算一万以内", "显存不够的话双卡可以吗")
    assert two.intent == "recommend"
    assert "24.5 GB" not in plain(two), plain(two)


@pytest.mark.parametrize("text", ["昇腾910B能拿来跑pytorch训练吗", "can an ascend 910b train models in pytorch"])
def test_a_card_of_a_maker_without_lexicon_words_is_still_answered(scorer_engine, caplog, text):
    with caplog.at_level("ERROR"):
        _, (reply,) = talk(scorer_engine, text)
    assert not [r for r in caplog.records if "turn failed" in r.getMessage()]
    assert reply.intent in ("fit", "gpu", "question"), plain(reply)


@pytest.mark.parametrize("text,expected", [
    ("I'm a PhD student, 2.000 € budget, computer vision (ResNets, ViTs, some detection)", {"cnn", "transformer"}),
    ("budget 800 euros, mostly stable diffusion XL + some comfyui video stuff", {"diffusion", "video"}),
    ("研究生，预算1万5，做NLP，BERT和LLM都会用", {"transformer", "llm_inference"}),
    ("bert-vits2 训练", {"speech"}),
])
def test_workloads_read_from_how_people_list_them(catalog, text, expected):
    assert set(parse(text, catalog=catalog).need.workloads) == expected


@pytest.mark.parametrize("text", ["gpu for whisper large-v3 transcription, cheap as possible", "跑whisper的显卡，越便宜越好"])
def test_cheap_as_possible_includes_used_cards(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.recommendations, plain(reply)
    assert reply.query["used"] is True
    assert any(w in plain(reply) for w in ('"new only"', "只要新卡")), plain(reply)


@pytest.mark.parametrize("text,words", [
    ("A卡（7900XTX）跑深度学习行不行？ROCm在国内好用吗？", ("ROCm",)),
    ("Does NVLink matter for 2x RTX 3090 when fine-tuning?", ("GPU", "multi")),
])
def test_a_topic_question_naming_a_card_gets_the_guides_section_not_the_sheet(scorer_engine, text, words):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "question" and not reply.focus, plain(reply)
    assert any(w in plain(reply) for w in words)


@pytest.mark.parametrize("text", ["Mac Studio or a PC with 2x3090 for running 70B models?", "两张3090还是买台mac studio跑70b"])
def test_a_mac_named_only_as_a_mac_is_weighed_against_the_setup(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "compare", plain(reply)
    assert "Mac" in reply.title and "2× GeForce RTX 3090" in reply.title


def test_a_job_named_in_a_rental_question_stays_for_the_purchase_after(scorer_engine):
    conv, (*_, buy) = talk(scorer_engine, "A100 在 AutoDL 上多少钱一小时", "训练一个7B模型LoRA大概要多久，花多少钱",
                           "还是买卡吧，预算两万")
    assert buy.recommendations and conv.session.need.workload == "llm_finetune", plain(buy)


@pytest.mark.parametrize("turns", [("預算三萬台幣，想跑本地LLM同埋微調", "第二張點解好啲"),
                                   ("$1500 for fine-tuning LLMs", "why is the second one better?")])
def test_why_about_the_second_pick_explains_the_second(scorer_engine, turns):
    conv, (picks, why) = talk(scorer_engine, *turns)
    second = picks.recommendations[1].gpu
    assert why.paragraphs[0].endswith((f"{second}:", f"{second}：")), plain(why)


def test_renting_instead_of_a_multi_card_pick_rents_as_many(scorer_engine):
    _, (picks, rent) = talk(scorer_engine, "what should I buy for 70B, budget ~2000?", "or should I just rent?")
    assert picks.recommendations[0].count == 2
    assert rent.intent == "rent" and "2 GPUs" in plain(rent), plain(rent)


@pytest.mark.parametrize("text", ["what GPU is best for Call of Duty?", "使命召唤用什么显卡", "best gpu for cs2 at 240fps"])
def test_a_game_named_is_out_of_scope(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "out_of_scope", plain(reply)


def test_which_is_faster_after_setups_is_the_setups_answer(scorer_engine):
    _, (_, which) = talk(scorer_engine, "Mac Studio M4 Max 128GB or a PC with 2x 3090 for running 70B models?",
                         "which is faster in tokens/s?")
    assert which.intent == "compare" and "tokens/s" in plain(which), plain(which)
    assert not which.recommendations


def test_a_tight_card_that_costs_more_is_not_called_cheaper(scorer_engine):
    _, (cmp,) = talk(scorer_engine, "used 3090 vs new 5070 Ti for deep learning, same price roughly")
    verdict = cmp.paragraphs[0]
    assert verdict.startswith("Verdict: GeForce RTX 3090") and "is cheaper" not in verdict, plain(cmp)


def test_a_price_offered_is_judged_against_the_latest_prices_whatever_year_is_said(scorer_engine):
    _, (reply,) = talk(scorer_engine, "Is a used RTX 3090 for $700 a good deal in 2025? what should I check")
    assert "below the used price" in plain(reply), plain(reply)


@pytest.mark.parametrize("text", ["What did Tim Dettmers recommend as the best GPU for deep learning on a budget?",
                                  "Dettmers 推荐什么显卡"])
def test_what_a_source_recommended_is_its_recommendations_not_the_guides_history(engine, text):
    _, (reply,) = talk(engine, text)
    assert reply.intent == "question" and reply.topic and reply.topic.startswith("dettmers-"), plain(reply)


@pytest.mark.parametrize("text,verdict", [("Is 850W enough for an RTX 5090 with a Ryzen 9 7950X?", "not enough"),
                                          ("5090配850w电源够不够", "不够")])
def test_is_this_psu_enough_gets_a_verdict(scorer_engine, text, verdict):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "power" and verdict in plain(reply), plain(reply)


@pytest.mark.parametrize("text", ["Budget €2,500, I want to train diffusion models (SDXL fine-tuning) at home. Which GPU?",
                                  "预算8000训练SDXL的LoRA"])
def test_training_an_image_model_asks_for_the_comfortable_memory_from_the_first_message(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.recommendations and all(r.vram_gb >= 12 for r in reply.recommendations), plain(reply)


@pytest.mark.parametrize("text,counts", [("RTX 5090 or two used 3090s for 70B?", {"GeForce RTX 3090": 2}),
                                         ("两张二手3090还是一张5090", {"GeForce RTX 3090": 2})])
def test_a_count_with_a_word_before_the_card_still_counts(catalog, text, counts):
    got = parse(text, catalog=catalog).card_counts
    assert all(got[k] == v for k, v in counts.items()), got


@pytest.mark.parametrize("text", ["魔改卡靠谱吗", "are modded cards reliable?"])
def test_modded_cards_are_answered_from_the_used_market_section(engine, text):
    _, (reply,) = talk(engine, text)
    assert reply.intent == "question" and reply.topic == "used-market", plain(reply)


@pytest.mark.parametrize("text, causes", [
    ("my Tesla P40 is really slow for stable diffusion, why?", ("FP16", "tensor cores", "passive")),
    ("我的1060跑yolo训练为什么这么慢", ("FP16", "张量核心")),
])
def test_why_a_card_is_slow_names_the_causes_its_figures_show(scorer_engine, text, causes):
    """"Why is my card slow?": the causes its own figures show (FP16 at a fraction of FP32, no tensor cores, little
    bandwidth, passive cooling) and its speed for the job, not a memory-fit table."""
    _, (reply,) = talk(scorer_engine, text)
    shown = plain(reply)
    assert reply.intent == "gpu" and not reply.table and reply.fit is None, shown
    assert all(c in shown for c in causes), shown
