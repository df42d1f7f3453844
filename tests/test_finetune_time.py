"""How long a fine-tune takes: the fit answer gives a training speed (formula only, and says so), a dataset size
("10k samples", "1万条数据") turns it into hours an epoch, and "how long?" after a fine-tuning fit asks exactly that
(was refused as out of scope)."""

from __future__ import annotations

import re

import pytest

from bot.dialogue import Conversation
from bot.fit import finetune_tokens_per_s
from bot.nlu import parse
from bot.render import plain


def talk(engine, *turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("text,samples", [
    ("how long would it take for 10k samples?", 10_000), ("训练1万条数据要多久", 10_000), ("2w条数据", 20_000),
    ("5,000 conversations, 7b lora", 5_000), ("訓練5千條樣本要幾耐", 5_000), ("give me 3 examples", None),
    ("3条建议", None), ("预算1万 训练CNN", None),
    ("用一张A100微调ChatGLM3-6B，5万条数据，大概要训练多久？", 50_000),  # after a comma (full-width, read as ",")
])
def test_a_dataset_size_is_read_and_is_never_money(catalog, text, samples):
    q = parse(text, catalog=catalog)
    assert q.need.dataset_samples == samples
    if samples:
        assert q.need.budget is None and q.need.gpu_count is None


def test_training_speed_scales_with_throughput_and_size_and_qlora_is_slower(catalog, knowledge_dir):
    g = catalog.get("GeForce RTX 4090")
    lora_7 = finetune_tokens_per_s(g, 7, "lora", knowledge_dir)
    assert finetune_tokens_per_s(g, 14, "lora", knowledge_dir) == pytest.approx(lora_7 / 2)
    assert finetune_tokens_per_s(g, 7, "qlora", knowledge_dir) < lora_7
    assert finetune_tokens_per_s(g, 7, "full", knowledge_dir) < lora_7  # weight gradients too
    slower = catalog.get("GeForce RTX 3090")
    assert finetune_tokens_per_s(slower, 7, "lora", knowledge_dir) < lora_7
    assert finetune_tokens_per_s(g, 0, "lora", knowledge_dir) is None


@pytest.mark.parametrize("turns", [
    ("can a 3090 fine-tune a 13B with LoRA?", "how long would it take for 10k samples?"),
    ("4090能用QLoRA微调14B吗", "训练1万条数据要多久"),
    ("4090能用QLoRA微調14B嗎", "一萬條數據要訓練幾耐"),
])
def test_how_long_after_a_finetuning_fit_gives_the_hours_of_an_epoch(scorer_engine, turns):
    _, (first, reply) = talk(scorer_engine, *turns)
    assert first.intent == "fit" and reply.intent == "fit", plain(reply)
    text = plain(reply)
    assert "10,000" in text and re.search(r"(\d+(\.\d)?) (hours|minutes|小时|分钟|小時|分鐘)", text), text
    assert "formula only" in text or "仅公式估算" in text or "僅公式估算" in text


@pytest.mark.parametrize("text", ["Can a 4090 fine-tune Llama 3 8B with LoRA?", "3090能QLoRA微调13B吗"])
def test_a_finetuning_fit_says_how_fast_it_trains(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "fit" and ("tokens/s with" in plain(reply) or "大约每秒" in plain(reply)), plain(reply)


@pytest.mark.parametrize("text", ["can an A6000 do QLoRA on a 70B model?", "2x 3090 enough to QLoRA a 70B?",
                                  "A6000能QLoRA微调65B吗"])
def test_qlora_a_little_over_the_card_is_borderline_with_the_papers_precedent(scorer_engine, text):
    conv = Conversation(scorer_engine)
    conv.session.lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    reply = conv.turn(text)
    assert reply.intent == "fit" and reply.paragraphs[0].startswith(("Borderline", "勉强")), plain(reply)
    assert any("arxiv.org/abs/2305.14314" in s.url for s in reply.sources)


def test_qlora_far_over_the_card_is_still_no(scorer_engine):
    reply = Conversation(scorer_engine).turn("can a 3090 do QLoRA on a 70B model?")
    assert reply.paragraphs[0].startswith("No:"), plain(reply)


@pytest.mark.parametrize("text,method", [("Can an A6000 fully fine-tune 13B?", "LoRA"), ("一张4090能全参微调7B吗", "LoRA"),
                                         ("can a 3060 12GB do LoRA on a 13B?", "QLoRA")])
def test_a_method_that_does_not_fit_offers_the_next_lighter_one_that_does(scorer_engine, text, method):
    conv = Conversation(scorer_engine)
    conv.session.lang_locked = "en"  # the verdict's English wording, whatever the message's language
    reply = conv.turn(text)
    assert f"but yes with {method} " in reply.paragraphs[0], plain(reply)


@pytest.mark.parametrize("text", ["A100 price on vast.ai vs Lambda", "h100 on lambda cloud per hour?"])
def test_lambda_the_cloud_with_a_card_and_a_price_is_a_rental_question(scorer_engine, text):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "rent" and "Lambda Cloud" in plain(reply), plain(reply)


@pytest.mark.parametrize("text, samples, job", [
    ("fine-tuning bert-base on ~50k sentences, will a 4060 do?", 50_000, "transformer"),
    ("how long for 10k instruction samples?", 10_000, None),
    ("training a classifier on 200k labelled images, is a 4060 ti enough?", 200_000, "cnn"),
    ("20万张图片 4060ti够用吗", 200_000, "cnn"),
    ("5萬條對話數據微調7B要多久", 50_000, "llm_finetune"),
])
def test_a_dataset_size_is_never_a_budget_and_its_unit_names_the_job(text, samples, job):
    """"~50k sentences" and "10k instruction samples" are datasets (was: a $50,000 budget and an 8-GPU server); the
    unit of a dataset names the job when nothing else does ("200k images": training on images)."""
    q = parse(text)
    assert q.need.budget is None and q.need.dataset_samples == samples, q.need
    if job:
        assert job in q.need.workloads, q.need


@pytest.mark.parametrize("text, twin", [("20万张图片 4060ti够用吗", "16 GB 版 GeForce RTX 4060 Ti 16GB"),
                                        ("is a 5060 ti 8gb enough for stable diffusion training",
                                         "16 GB version, GeForce RTX 5060 Ti 16GB")])
def test_a_card_short_of_comfortable_memory_names_its_roomier_version(scorer_engine, text, twin):
    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "fit" and twin in plain(reply), plain(reply)
