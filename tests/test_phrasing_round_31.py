"""Patterns found in stranger round 31: two platforms weighed against each other ("AutoDL vs RunPod which is
cheaper", "阿里云和autodl哪个划算"), the computer's RAM taken for video memory ("what about with 64GB RAM offload?"),
a laptop's card declined as another topic ("筆電4090跟桌機4090差多少"), and a question on memory bandwidth answered
with the memory-size formula."""

from __future__ import annotations

import re

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain
from bot.retrieval import expand_terms


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


@pytest.mark.parametrize("text, cheaper, word", [
    ("AutoDL vs RunPod which is cheaper", None, "Verdict"),
    ("恒源云和autodl哪个好", "AutoDL", "结论"),
    ("vast还是runpod便宜", None, "结论"),
    ("is vast.ai or runpod cheaper for a 4090", None, "Verdict"),
])
def test_two_platforms_are_weighed_on_the_cards_both_rent(engine, text, cheaper, word):
    reply = _chat(engine, [text])[0]
    first = reply.paragraphs[0]
    assert reply.intent == "rent" and first.startswith(word), plain(reply)[:600]
    # the same card (family and memory) priced on each, with the difference
    assert re.search(r"(RTX \d{4}|A100|H100) \d+GB", first) and ("%" in first or "差不多" in first or "same" in first), first
    if cheaper:
        assert cheaper in first.split("。")[0], first


def test_a_platform_with_no_current_price_is_said_plainly_not_an_empty_table(engine):
    reply = _chat(engine, ["阿里云和autodl哪个租gpu划算"])[0]
    said = plain(reply)
    assert reply.intent == "rent" and reply.paragraphs and all(p.strip() for p in reply.paragraphs), said[:500]
    assert "阿里云" in reply.paragraphs[0] and "AutoDL" in said, said[:500]


@pytest.mark.parametrize("text, ram", [
    ("what about with 64GB RAM offload?", 64), ("32GB RAM and a 3060, can I run qwen 32b", 32),
    ("我有64G内存，4060ti 16g能跑70b吗", 64), ("内存32G 显卡3060 12G 能跑什么模型", 32), ("128g ddr5 ram, 4090", 128),
])
def test_the_computers_ram_is_not_a_need_for_video_memory(catalog, text, ram):
    need = parse(text, catalog).need
    assert need.system_ram_gb == ram and need.min_vram_gb is None, need


def test_a_macs_unified_memory_is_not_system_ram(catalog):
    assert parse("Mac mini 24G统一内存能跑14b吗", catalog).need.system_ram_gb is None


@pytest.mark.parametrize("turns, holds", [
    (["can a 4070 12gb run mixtral 8x7b?", "what about with 64GB RAM offload?"], True),
    (["我有64G内存，4060ti 16g能跑70b吗"], True),
    (["32GB RAM and a 3060, can I run qwen 72b"], False),
])
def test_the_ram_said_is_weighed_against_what_the_card_offloads(engine, turns, holds):
    reply = _chat(engine, turns)[-1]
    first = reply.paragraphs[0]
    assert reply.intent == "fit", plain(reply)[:500]
    if holds:
        assert re.match(r"(With your \d+ GB of RAM it runs|有 \d+ GB 内存就能靠卸载跑)", first), first
    else:
        assert "not enough" in first, first
    assert "min_vram_gb" not in (reply.query or {}).get("need", {}), reply.query


@pytest.mark.parametrize("text", ["筆電RTX 4090 16G 跟桌機 4090 差多少", "笔电4060能跑yolo吗"])
def test_a_laptops_card_is_ours(engine, text):
    reply = _chat(engine, [text])[0]
    assert reply.intent != "out_of_scope", plain(reply)[:300]


def test_a_laptop_alone_is_still_another_topic(engine):
    assert _chat(engine, ["笔电推荐"])[0].intent == "out_of_scope"


def test_a_longer_glossary_term_is_not_also_read_as_its_parts(settings):
    en, _ = expand_terms("显存带宽到底有啥用", settings.knowledge_dir)
    assert "memory bandwidth" in en and "VRAM" not in en, en


@pytest.mark.parametrize("text", ["記憶體頻寬跟顯存容量，哪個對跑 LLM 比較重要",
                                  "does memory bandwidth or VRAM capacity matter more for running LLMs"])
def test_capacity_against_bandwidth_is_answered_from_the_section_on_both(engine, text):
    reply = _chat(engine, [text])[0]
    assert reply.intent == "question" and ("带宽" in reply.title or "頻寬" in reply.title or "帶寬" in reply.title
                                           or "bandwidth" in reply.title), reply.title


@pytest.mark.parametrize("text", ["what does FP8 mean and which gpus support it", "FP8是什么，哪些卡支持",
                                  "whats FP8 and do i need a card that supports it"])
def test_fp8_is_defined_with_the_cards_that_compute_in_it(engine, text):
    reply = _chat(engine, [text])[0]
    said = "\n".join(reply.paragraphs)
    assert reply.intent == "question" and reply.topic == "fp8", (reply.topic, said[:300])
    # which cards, or whether it is needed: the paragraph the question asks for follows the definition
    assert "8.9" in said or "not a requirement" in said or "不是必需" in said, said[:600]


@pytest.mark.parametrize("text", ["Is an AMD card OK for deep learning?", "intel显卡能训练模型吗"])
def test_a_question_about_a_maker_is_answered_about_that_maker_in_both_languages(engine, text):
    from bot.dialogue import Session
    from bot.need import Need

    replies = [Conversation(engine, Session(lang=lang, lang_locked=lang, need=Need(region="cn"))).turn(text)
               for lang in ("zh", "en")]
    maker = "AMD" if "AMD" in text else "Intel"
    assert {r.topic for r in replies} == {"nvidia-vs-amd-vs-tpu"}, [r.topic for r in replies]
    assert all(maker in r.paragraphs[0][:80] for r in replies), [r.paragraphs[0][:80] for r in replies]


@pytest.mark.parametrize("turns, job", [
    # a turn about one of the compared cards in between: the comparison is still what a new job is asked of
    (["AMD 7900 XTX vs RTX 4090 for LLM inference", "what about the 4090's power draw", "for training instead?"],
     "fine-tuning"),
    (["4090和5090d哪个好，做深度学习", "4090功耗多少", "做视频生成呢"], "视频生成"),
])
def test_a_new_job_after_a_comparison_weighs_the_same_cards_again(engine, turns, job):
    first, *_, reply = _chat(engine, turns)
    assert reply.intent == "compare" and reply.title == first.title, (first.title, reply.title)
    assert job in "\n".join(reply.paragraphs), plain(reply)[:400]


def test_why_not_a_card_the_comparison_left_out_weighs_it_against_the_verdict(engine):
    first, reply = _chat(engine, ["4090和5090d哪个好，做深度学习", "为什么不是4090d"])
    assert reply.intent == "compare", plain(reply)[:300]
    assert "GeForce RTX 4090 D" in reply.title and "GeForce RTX 5090 D" in reply.title, reply.title


@pytest.mark.parametrize("turns", [["4060 Ti 16G 同 3060 12G 邊張好", "佢哋功耗幾多"], ["3090和4090哪个好", "它们功耗多少"],
                                   ["3090 vs 4090", "how much power do they draw"]])
def test_a_plural_pronoun_after_a_comparison_is_each_card(engine, turns):
    first, reply = _chat(engine, turns)
    said = "\n".join(reply.paragraphs)
    assert reply.intent == "power" and all(g in said for g in first.chart_gpus[:2]), said


@pytest.mark.parametrize("turns, cheaper", [
    (["AMD 7900 XTX vs RTX 4090 for LLM inference", "which is cheaper per GB of VRAM?"], "Radeon RX 7900 XTX"),
    (["3090和4090哪个好", "哪个每G显存更便宜"], "GeForce RTX 3090"),
])
def test_price_per_gb_of_the_compared_cards(engine, turns, cheaper):
    reply = _chat(engine, turns)[-1]
    first = reply.paragraphs[0]
    assert "/GB" in first and cheaper in first.split("/GB")[0], first


@pytest.mark.parametrize("text, total", [("显卡显存不够怎么办，能用两张3060凑24g吗", "24 GB"), ("两张3060显存能叠加吗", "24 GB"),
                                         ("兩張4060ti 16g可以合起來當32g用嗎", "32 GB")])
def test_memory_of_two_cards_taken_as_one_is_that_setups_sheet(engine, text, total):
    reply = _chat(engine, [text])[0]
    first = reply.paragraphs[0]
    assert reply.intent == "gpu" and total in first and ("相加" in first or "adds up" in first), first


def test_a_form_factor_said_after_a_comma_picks_that_card(catalog):
    assert parse("打算买二手V100 32G，PCIe版本，worth it吗", catalog).gpus == ("Tesla V100 PCIe 32GB",)


@pytest.mark.parametrize("text, tokens, size", [
    ("how long to pretrain a 1B model on 20B tokens with 8 H100s", 20e9, 1.0),
    ("roughly how long on 8 of them for 20B tokens", 20e9, None),
    ("训练一个1B的小模型from scratch，200亿token，用8张4090要多久", 20e9, 1.0),
    ("pretraining a 3b on 1.5T tokens", 1.5e12, 3.0),
])
def test_tokens_to_train_on_are_no_models_size(catalog, text, tokens, size):
    need = parse(text, catalog).need
    assert need.train_tokens == tokens and need.model_size_b == size, need


def test_a_long_context_is_no_training_data(catalog):
    need = parse("qwen 7b with 1M tokens context", catalog).need
    assert need.train_tokens is None, need


@pytest.mark.parametrize("turns, days_or_hours", [
    (["how long to pretrain a 1B model on 20B tokens with 8 H100s"], "hours"),
    (["rent 8 H100s for fine-tuning a 7b", "roughly how long on 8 of them for 20B tokens"], "days"),
    (["训练一个1B的小模型from scratch，200亿token，用8张4090要多久"], "天"),
])
def test_training_on_many_tokens_over_several_cards_is_timed_data_parallel(engine, turns, days_or_hours):
    reply = _chat(engine, turns)[-1]
    said = plain(reply)
    assert reply.intent == "fit", said[:400]
    assert ("20B" in said or "200 亿" in said) and days_or_hours in said, said[:900]
    assert "data-parallel" in said or "数据并行" in said, said[:900]


@pytest.mark.parametrize("turns, job", [
    (["compare 4090 and 5090 for inference", "how much power do they draw", "for training instead?"],
     "deep learning in general"),
    (["3090和4090哪个适合跑大模型推理", "那训练呢"], "大模型微调"),
])
def test_training_after_a_comparison_for_running_a_model_weighs_them_for_training(engine, turns, job):
    first, *_, reply = _chat(engine, turns)
    assert reply.intent == "compare" and reply.title == first.title, (first.title, reply.title)
    assert job in "\n".join(reply.paragraphs), plain(reply)[:400]


def test_why_not_a_method_after_a_fit_is_that_method_on_the_card(engine):
    reply = _chat(engine, ["How much VRAM do I need to fine-tune Llama 3 8B with LoRA?", "will a 3080 10GB work",
                           "why not QLoRA"])[-1]
    assert reply.intent == "fit" and "QLoRA" in reply.paragraphs[0], plain(reply)[:300]


def test_why_not_a_method_elsewhere_asks_the_guide_about_it(engine):
    reply = _chat(engine, ["4090 vs 5090", "why not just use qlora?"])[-1]
    assert reply.intent == "question" and reply.topic == "llm-finetune-memory", (reply.topic, plain(reply)[:300])


def test_several_cards_train_data_parallel_even_when_the_job_is_sharded(engine):
    reply = _chat(engine, ["我想做7B全参数fine-tune，需要什么配置", "8张A100要多久，1B tokens"])[-1]
    said = plain(reply)
    assert reply.intent == "fit" and "ZeRO/FSDP" in said and "按层切分" not in said, said[:600]
    hours = re.search(r"约 ([\d.]+) (小时|天)", said)
    assert hours and (float(hours[1]) < 72 if hours[2] == "小时" else float(hours[1]) < 3), said[:400]


def test_the_mac_mini_said_with_its_memory_is_that_one(catalog):
    assert parse("Mac mini M4 Pro 48GB vs RTX 3090 for local LLMs", catalog).gpus[0] == "Mac mini M4 Pro 48GB"


def test_platforms_are_weighed_like_for_like_not_spot_against_on_demand(engine):
    first = _chat(engine, ["vast.ai还是AutoDL租4090便宜"])[0].paragraphs[0]
    # vast.ai's interruptible rate is not weighed against AutoDL's on-demand one when vast.ai rents it on demand too
    assert "可中断" not in first and "竞价" not in first, first


@pytest.mark.parametrize("text, count, card", [("what about renting an 8xH100 node instead", 8, "H100 SXM5 80GB"),
                                               ("8xa100 训练7B要多久", 8, "A100 80GB SXM")])
def test_a_count_glued_to_a_cards_name_is_that_many(catalog, text, count, card):
    q = parse(text, catalog)
    assert q.need.gpu_count == count and q.gpus[:1] == (card,), (q.need.gpu_count, q.gpus)


def test_renting_after_a_training_time_prices_that_many_cards(engine):
    reply = _chat(engine, ["我想做7B全参数fine-tune，需要什么配置", "8张A100要多久，1B tokens", "租的话多少钱"])[-1]
    said = "\n".join(reply.paragraphs)
    assert reply.intent == "rent" and "A100" in reply.title and "8 张卡" in said and "装不下" not in said, said[:500]


def test_which_platform_with_a_place_is_where_to_rent_there(engine):
    reply = _chat(engine, ["我想做7B LoRA", "我在香港，哪个平台方便"])[-1]
    # the guide on the platforms of that market (Hong Kong: the international ones), not a purchase list
    assert reply.intent == "question" and reply.topic == "international-cloud-platforms", (reply.topic, plain(reply)[:300])


@pytest.mark.parametrize("text", ["多張卡的顯存可以加起來用嗎？", "can multiple gpus pool their vram?", "两张卡显存能叠加吗"])
def test_pooling_the_memory_of_several_cards_is_answered_first(engine, text):
    reply = _chat(engine, [text])[0]
    first = reply.paragraphs[0]
    assert reply.topic == "multi-gpu" and ("FSDP" in first and ("llama.cpp" in first)), first[:300]


@pytest.mark.parametrize("text, declined", [("想生成影片，用Wan 2.1或HunyuanVideo，要幾多VRAM", False), ("生成影片要多大显存", False),
                                            ("推荐几部关于AI的电影", True), ("有什么好看的AI影片推荐", True)])
def test_a_video_to_generate_is_ours_a_film_to_watch_is_not(engine, text, declined):
    reply = _chat(engine, [text])[0]
    assert (reply.intent == "out_of_scope") == declined, plain(reply)[:300]


@pytest.mark.parametrize("text", ["数据集大概2万条，每条1000 token，要多久", "20k samples of 1000 tokens each, how long"])
def test_samples_of_a_stated_length_are_the_tokens_trained_on(catalog, text):
    need = parse(text, catalog).need
    assert need.dataset_samples == 20000 and need.train_tokens == 20_000_000 and need.budget is None, need


def test_a_dataset_of_stated_length_is_timed_for_its_tokens(engine):
    reply = _chat(engine, ["想微调llama 3 8B，用QLoRA，有什么卡推荐，预算5000", "数据集大概2万条，每条1000 token，要多久"])[-1]
    said = plain(reply)
    assert reply.intent == "fit" and "2000 万 token" in said, said[:400]
