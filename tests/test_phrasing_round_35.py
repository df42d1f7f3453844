"""Patterns found in stranger round 35: a training job's stated sample length and its method lost between turns
("平均长度1k token", full fine-tune timed as LoRA on one card), a method or size changed after a training cost
answered with a shopping list, "跟4090比速度怎样" answered with the 4090's sheet, price per GB asked in a comparison,
a Chinese sentence with a word of English answered in English, mixing card models with one card named, and the
people served at once taken from the headcount ("给50个人用，并发大概10")."""

from __future__ import annotations

import re

import pytest

from bot.dialogue import Conversation
from bot.nlu import parse
from bot.render import plain
from bot.slots import audience
from bot.slots.model import tokens_per_sample
from bot.slots.text import normalise


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


@pytest.mark.parametrize("text, tokens", [
    ("数据5万条，平均长度1k token", 1000), ("每条大概2k token", 2000), ("50k samples averaging 800 tokens", 800),
    ("每條平均長度1.5k token", 1500),
])
def test_a_samples_stated_length_is_read(text, tokens):
    assert tokens_per_sample(normalise(text))[0] == tokens  # (parse reads Simplified, lower case)


def test_a_full_fine_tune_with_its_data_is_timed_and_costed_as_said(engine):
    replies = _chat(engine, ["我要全参微调Qwen3-8B，数据5万条，平均长度1k token，跑3个epoch", "租A100 80G的话要多久",
                             "autodl上一共多少钱", "换成LoRA呢"])
    timed, costed, lora = replies[1], replies[2], replies[3]
    for r in (timed, costed):
        first = r.paragraphs[0]
        assert "全参微调" in first and "5000 万 token" in first and "3 轮" in first and "张 A100" in first, first
    assert costed.intent == "rent" and "AutoDL" in costed.paragraphs[0], plain(costed)[:400]
    assert lora.intent == "rent" and "LoRA" in lora.paragraphs[0] and "AutoDL" in lora.paragraphs[0], plain(lora)[:400]


def test_a_size_changed_after_a_cost_is_costed_again(engine):
    reply = _chat(engine, ["can a single RTX 4090 fine-tune Mistral 7B with LoRA?", "how long for 50M tokens",
                           "and the cost if I rent a 4090 on RunPod", "what about a 13b"])[-1]
    assert reply.intent == "rent" and "13B" in reply.paragraphs[0] and "RunPod" in reply.paragraphs[0], plain(reply)[:500]


@pytest.mark.parametrize("turns", [
    ["AMD 7900XTX能跑大模型吗", "跟4090比速度怎样"], ["is the 7900 xtx good for llms", "how does it compare to a 4090"],
])
def test_compared_with_a_card_is_that_card_against_the_one_on_the_table(engine, turns):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "compare" and "7900 XTX" in reply.title and "4090" in reply.title, plain(reply)[:300]


def test_price_per_gb_asked_in_a_comparison(engine):
    reply = _chat(engine, ["for local inference, rtx 5090 or rtx pro 6000 blackwell?",
                           "compare the first two on price per GB of vram"])[-1]
    assert reply.intent == "compare" and "/GB" in reply.paragraphs[0], plain(reply)[:400]


@pytest.mark.parametrize("turns", [
    ["which is cheaper per GB, 4090 or 5090", "如果租的话呢，AutoDL上哪个划算"],
    ["budget 2w rmb，主要做RL research，policy网络不大但要跑很多env", "cheaper?", "那CPU要多少核"],
])
def test_a_chinese_sentence_with_a_word_of_english_is_answered_in_chinese(engine, turns):
    assert _chat(engine, turns)[-1].lang == "zh"


def test_a_fragment_of_english_in_a_chinese_chat_still_follows_the_message(engine):
    assert _chat(engine, ["预算5000训练CNN", "more vram 呢"])[-1].lang == "zh"
    assert _chat(engine, ["预算8000训练CNN推荐什么卡", "cheaper?"])[-1].lang == "en"


@pytest.mark.parametrize("text", ["我有一张3060 12G，想加第二张卡，mix不同型号的gpu可以吗",
                                  "I have a 3090, can I add a different model like a 4060 ti alongside it?"])
def test_mixing_card_models_with_one_card_named_is_the_guide_on_mixing(engine, text):
    reply = _chat(engine, [text])[0]
    assert reply.intent == "question" and re.search("混用|Mixing", reply.title), plain(reply)[:300]


@pytest.mark.parametrize("text, users", [
    ("公司要部署70B模型给50个人用，并发大概10，配什么服务器", 10), ("50 staff, about 10 concurrent", 10),
    ("30个人同时用", 30),
])
def test_the_people_at_once_are_the_number_said_with_at_once(text, users):
    assert audience.audience(text)[:2] == (users, audience.AT_ONCE)


def test_serving_sized_for_the_concurrency_said(catalog):
    need = parse("公司要部署70B模型给50个人用，并发大概10，配什么服务器", catalog).need
    assert need.concurrent_users == 10, need


@pytest.mark.parametrize("text, verdict", [
    ("Kaggle 免費GPU每週可以用多久？跑得動7B LoRA嗎", "可以，用 QLoRA"),
    ("is colab pro worth it for a uni project, training resnet50 on a 100k image subset of imagenet", "Yes"),
])
def test_a_free_tier_asked_whether_it_runs_the_job(engine, text, verdict):
    reply = _chat(engine, [text])[0]
    assert reply.paragraphs[0].startswith(verdict), plain(reply)[:500]


def test_how_many_users_a_card_serves_is_its_capacity(engine):
    reply = _chat(engine, ["vllm部署gpt-oss-20b，一张4090能扛多少concurrent users"])[0]
    assert re.search(r"约 \d+ 人同时使用", reply.paragraphs[0]), plain(reply)[:400]


@pytest.mark.parametrize("text, guide", [
    ("does fp8 on h100 actually matter for training or is bf16 fine", "BF16"),
    ("4090上用fp8训练有必要吗，还是bf16就够了", "FP8 是加分项"),
])
def test_whether_a_feature_matters_gets_the_cards_support_and_the_guide(engine, text, guide):
    reply = _chat(engine, [text])[0]
    assert len(reply.paragraphs) >= 3 and guide in " ".join(reply.paragraphs[2:]), plain(reply)[:800]


def test_more_cards_than_a_machine_holds_is_said_to_be_impractical(engine):
    said = plain(_chat(engine, ["how many 4090s to run deepseek v3 at q4"])[0])
    assert re.search(r"about \d+× GeForce RTX 4090", said) and "more cards than one machine holds" in said, said[:600]


def test_renting_those_after_a_count_that_holds_the_model_prices_that_many(engine):
    reply = _chat(engine, ["how many 4090s to run deepseek v3 at q4", "what about H100s",
                           "monthly cost if I rent those on runpod 24/7"])[-1]
    assert reply.intent == "rent" and reply.paragraphs[0].startswith("How many: 8×"), plain(reply)[:500]


@pytest.mark.parametrize("text", ["昇腾可以吗", "is huawei ascend usable for pytorch training?", "华为的卡能跑大模型吗"])
def test_huaweis_accelerators_are_answered_from_the_guide(engine, text):
    said = plain(_chat(engine, ["公司要部署deepseek r1满血版，有什么方案", text])[-1])
    assert "torch_npu" in said, said[:600]
