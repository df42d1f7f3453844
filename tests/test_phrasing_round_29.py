"""Follow-ups found in stranger round 29 that got a card's spec sheet or the wrong kind of answer: the card the user
has named in a follow-up ("worth upgrading from my 4070", "我是4070 12g"), a card offered in place of the one on the
table ("那还不如买新的5070ti？"), a platform after a rental ("what about vast"), what a term means ("whats FP8"), and a
machine described with no budget ("实验室要配一台服务器给8个人用")."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain


def _chat(engine, turns):
    c = Conversation(engine)
    return [c.turn(t) for t in turns]


@pytest.mark.parametrize("turns, mine, other", [
    # worth upgrading from the card named, after another card: the two weighed
    (["does the 5070 have more than the 4070", "so is it worth upgrading from my 4070 for training"],
     "GeForce RTX 4070", "GeForce RTX 5070"),
    (["5080怎么样", "我现在用的是3080，值得升级吗"], "GeForce RTX 3080 10GB", "GeForce RTX 5080"),
    # a card offered instead of the one on the table: the two weighed, not the new card's spec sheet
    (["3090大概多少钱", "那还不如买新的5070ti？"], "GeForce RTX 3090", "GeForce RTX 5070 Ti"),
    (["how much is a used 3090 these days", "why not just get a 4070 ti super then?"], "GeForce RTX 3090",
     "GeForce RTX 4070 Ti Super"),
    (["4090現在多少錢", "不如直接上5090？"], "GeForce RTX 4090", "GeForce RTX 5090"),
    # upgrading from the card the user has to a card named, for a job with no model: the two weighed for it
    (["I've got a 3070 8GB, mostly doing stable diffusion", "is it worth upgrading to a 5070 for that"],
     "GeForce RTX 3070", "GeForce RTX 5070"),
    (["I've got a 3070 8GB, mostly doing stable diffusion", "is it worth upgrading to a 5070 for that",
      "what about the 5070 Ti instead"], "GeForce RTX 5070 Ti", "GeForce RTX 5070"),
])
def test_a_card_weighed_against_the_one_on_the_table_is_a_comparison_of_the_two(engine, turns, mine, other):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "compare", plain(reply)[:500]
    assert mine in reply.title and other in reply.title, reply.title


@pytest.mark.parametrize("turns", [
    ["我想fine-tune llama 3.1 8b", "那用LoRA要多少显存，我是4070 12g"],
    ["want to lora a 8b model", "how much vram would that need? i'm on a 4070"],
])
def test_the_jobs_memory_asked_with_the_users_card_is_that_job_on_that_card(engine, turns):
    reply = _chat(engine, turns)[-1]
    said = plain(reply)
    assert reply.intent == "fit", said[:500]
    assert "QLoRA" in said and "GeForce RTX 4070" in said, said[:700]


@pytest.mark.parametrize("turns, platform", [
    (["what would renting an A100 cost on runpod", "what about vast"], "vast.ai"),
    (["AutoDL上4090多少钱一小时", "恒源云呢"], "恒源云"),
])
def test_a_platform_after_a_rental_prices_the_same_card_there(engine, turns, platform):
    first, reply = _chat(engine, turns)
    assert reply.intent == "rent" and reply.title == first.title, (first.title, reply.title)
    assert platform in plain(reply).split("\n\n", 2)[1], plain(reply)[:500]


@pytest.mark.parametrize("text", ["whats FP8 and do i need a card that supports it", "what is TF32?",
                                  "什么是BF16", "NVLink是啥"])
def test_what_a_term_means_is_explained_not_a_budget_asked(engine, text):
    reply = Conversation(engine).turn(text)
    assert reply.intent == "question", plain(reply)[:400]


@pytest.mark.parametrize("text", ["what is the best gpu for me", "what's a good card for deep learning under $1000"])
def test_what_is_the_best_card_still_asks_for_picks(engine, text):
    reply = Conversation(engine).turn(text)
    assert reply.intent == "recommend", plain(reply)[:400]


@pytest.mark.parametrize("text", ["实验室要配一台服务器给8个人用，训练为主", "我们组想买台训练服务器，大概6个人用"])
def test_a_machine_described_with_no_budget_asks_for_it(engine, text):
    reply = Conversation(engine).turn(text)
    said = plain(reply)
    assert reply.intent == "recommend" and "预算" in said, said[:400]


@pytest.mark.parametrize("text, laptop, desktop", [
    ("筆電RTX 5090 24G跟桌機5080比，跑模型哪個好", "GeForce RTX 5090 Mobile", "GeForce RTX 5080"),
    ("游戏本4090和台式4090差多少", "GeForce RTX 4090 Laptop GPU", "GeForce RTX 4090"),
    ("laptop 4070 vs desktop 4070 for pytorch", "GeForce RTX 4070 Laptop GPU", "GeForce RTX 4070"),
])
def test_a_laptop_card_against_a_desktop_card_reads_each_as_said(engine, text, laptop, desktop):
    reply = Conversation(engine).turn(text)
    assert reply.intent == "compare", plain(reply)[:300]
    assert reply.title.split(" vs ")[0].split(": ")[-1] == laptop and reply.title.split(" vs ")[1] == desktop, \
        reply.title


@pytest.mark.parametrize("turns, said", [
    (["AutoDL上4090多少钱一小时", "一年下来哪个划算，我大概每天用6小时"], "回本"),
    (["what does an H100 cost per hour on runpod", "which works out cheaper if I use it 10 hours a week?"],
     "Break-even"),
])
def test_which_is_cheaper_after_a_rental_with_hours_works_out_rent_or_buy(engine, turns, said):
    reply = _chat(engine, turns)[-1]
    assert reply.query["rule"] == "rent-vs-buy" and said in plain(reply), plain(reply)[:500]


@pytest.mark.parametrize("turns", [["想跑qwen3 14b", "要多大显存？我的是3060"],
                                   ["want to run qwen3 14b", "how much vram does it need? mine is a 3060"]])
def test_how_much_memory_with_the_users_card_named_is_the_job_on_that_card(engine, turns):
    reply = _chat(engine, turns)[-1]
    assert reply.intent == "fit" and "GeForce RTX 3060 12GB" in reply.title, plain(reply)[:400]


def test_what_to_upgrade_to_after_the_users_card_fell_short_lists_the_cards_that_beat_it(engine):
    reply = _chat(engine, ["我现在有一张3060 12g", "能跑qwen3 32b吗", "那升级成什么好"])[-1]
    assert reply.intent == "recommend" and reply.recommendations, plain(reply)[:400]
    assert "GeForce RTX 3060 12GB" in plain(reply).split("\n\n")[1], plain(reply)[:400]  # "从你的 … 升级"


def test_a_rental_then_another_card_instead_rents_that_card(engine):
    reply = _chat(engine, ["what would renting an A100 cost on runpod", "what about H100 instead"])[-1]
    assert reply.intent == "rent" and "H100" in reply.title, reply.title
