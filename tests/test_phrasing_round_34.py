"""Patterns found in stranger round 34: a job just timed and then asked about in money ("那在autodl租4090跑完要多少钱",
"so what's the total cost on runpod") got an hourly rate card instead of time × rate; epochs said were not counted;
"best gpu to rent for…" was ranked for buying; price per GB asked after the compared cards' power draw went to the
guide; eight server modules on NVSwitch were scaled like two consumer cards over PCIe; pretraining was called a
fine-tune."""

from __future__ import annotations

import re

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.perf import load_perf_model
from bot.render import plain


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


@pytest.mark.parametrize("turns, platform, card", [
    (["想微调llama 3 8B，用QLoRA，预算5000", "数据集大概2万条，每条1000 token，要多久", "那在autodl租4090跑完要多少钱"],
     "AutoDL", "4090"),
    (["can a single RTX 4090 fine-tune Mistral 7B with LoRA?", "how long for 50M tokens",
      "and the cost if I rent a 4090 on RunPod"], "RunPod", "4090"),
    (["I want to pretrain a 1B model from scratch", "how long for 10B tokens on 8 A100s",
      "and the cost if I rent on RunPod"], "RunPod", "A100"),
])
def test_a_timed_job_asked_in_money_is_time_times_rate(engine, turns, platform, card):
    timed, costed = _chat(engine, turns)[-2:]
    first = costed.paragraphs[0]
    hours = re.search(r"× ([\d.]+) (?:h|小时)", first)
    assert costed.intent == "rent" and card in costed.title and platform in first and hours, plain(costed)[:700]
    # the hours multiplied are the job's, and a total is said (not only a rate)
    assert re.search(r"(?:costs about|约) [$¥][\d,]+", first), first


def test_the_samples_said_carry_into_the_cost(engine):
    replies = _chat(engine, ["想微调llama 3 8B，用QLoRA，预算5000", "数据集大概2万条，每条1000 token，要多久", "用租的话呢"])
    assert "2000 万 token" in replies[-1].paragraphs[0] and replies[-1].intent == "rent", plain(replies[-1])[:500]


def test_a_platform_that_does_not_rent_the_card_prices_one_it_does_that_holds_the_job(engine):
    replies = _chat(engine, ["best gpu to rent for fine-tuning qwen3 14b with lora",
                             "how long would 3 epochs on 20k samples take", "so what's the total cost on runpod",
                             "what about vast.ai instead"])
    for reply, platform in ((replies[2], "RunPod"), (replies[3], "vast.ai")):
        first = reply.paragraphs[0]
        assert f"Rented on {platform}" in first and "3 epochs" in first, first


@pytest.mark.parametrize("text, epochs", [
    ("how long would 3 epochs on 20k samples take", 3), ("训练3轮要多久", 3), ("跑 5 个epoch大概多久", 5),
    ("2 full passes over the data", 2), ("訓練10輪要多久", 10),
])
def test_epochs_said_are_read(catalog, text, epochs):
    need = parse(text, catalog).need
    assert need.epochs == epochs and need.gpu_count is None and need.budget is None, need


def test_epochs_multiply_the_training_time(engine):
    one = _chat(engine, ["lora on a 7b with a 4090, 20k samples, how long"])[-1]
    three = _chat(engine, ["lora on a 7b with a 4090, 20k samples, 3 epochs, how long"])[-1]

    def hours(reply):
        m = re.search(r"~([\d.]+) (hours|minutes)", plain(reply))
        return float(m[1]) / (60 if m[2] == "minutes" else 1)
    assert hours(three) == pytest.approx(3 * hours(one), rel=0.05), (plain(one)[:300], plain(three)[:300])


@pytest.mark.parametrize("text, lang", [
    ("best gpu to rent for fine-tuning qwen3 14b with lora", "en"), ("which cloud gpu should I rent to train a 7B lora", "en"),
    ("租什么卡微调qwen3 14b比较好", "zh"),
])
def test_a_pick_asked_of_the_rentals_is_the_rented_cards_that_hold_the_job(engine, text, lang):
    reply = _chat(engine, [text])[0]
    assert reply.intent == "rent" and reply.table is not None, plain(reply)[:400]
    assert ("hold the ~" in reply.paragraphs[0]) if lang == "en" else ("能装下这个任务" in reply.paragraphs[0]), \
        reply.paragraphs[0]


def test_price_per_gb_after_the_compared_cards_power_draw(engine):
    reply = _chat(engine, ["rtx 4090 vs rtx 5090 for stable diffusion and flux", "compare their power draw",
                           "which is better price per GB of vram"])[-1]
    assert reply.intent == "compare" and "/GB" in reply.paragraphs[0], plain(reply)[:500]


def test_server_modules_on_nvswitch_scale_better_than_consumer_cards(engine):
    perf, cat = load_perf_model(engine.knowledge_dir), engine.catalog
    sxm, consumer = cat.get("H100 SXM5 80GB"), cat.get("GeForce RTX 4090")
    assert perf.scaling("transformer", 8, sxm) > 6 > perf.scaling("transformer", 8, consumer)


@pytest.mark.parametrize("text, words", [
    ("how long to pretrain a 1B model on 10B tokens with 8 H100s", "full training"),
    ("从头训练一个1B模型，100亿token，8张H100要多久", "全参训练"),
])
def test_training_from_scratch_is_not_called_a_fine_tune(engine, text, words):
    said = plain(_chat(engine, [text])[0])
    assert words in said and "fine-tune" not in said.split("\n")[0] and "微调" not in said.split("\n")[0], said[:500]
