"""Questions whose answer is a verdict first: "is 8 GB enough for X?" is judged against the job's memory tiers
(knowledge/workloads.yaml), not answered with picks, a guide section about Macs, or a card nobody named."""

from __future__ import annotations

import pytest

from bot.dialogue import Conversation
from bot.render import plain


def talk(engine, *turns):
    conv = Conversation(engine)
    return conv, [conv.turn(t) for t in turns]


@pytest.mark.parametrize("text,verdict", [
    ("is 8GB enough for deep learning?", "Only for small models: 8 GB"),
    ("is 24gb enough for most research", "Yes: 24 GB is comfortable"),
    ("is 8GB enough for training CNNs?", "Yes, but tight: 8 GB"),
    ("is 16gb enough for stable diffusion", "Yes: 16 GB is comfortable for image generation"),
    ("4GB够不够入门深度学习", "只适合小模型：4 GB"),
    ("8G显存够学深度学习吗", "能用但偏紧：8 GB"),
    ("16GB夠唔夠玩AI繪圖", "夠用：16 GB"),
])
def test_is_this_much_memory_enough_gets_a_verdict_for_the_job(scorer_engine, text, verdict):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "memory" and not reply.recommendations, plain(reply)
    assert plain(reply).splitlines()[2].startswith(verdict), plain(reply)


@pytest.mark.parametrize("text,runs", [("12G显存够跑大模型吗", "14B"), ("is 24gb enough for local llms?", "32B")])
def test_enough_memory_for_llms_says_which_models_it_holds(scorer_engine, text, runs):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "memory" and reply.table is not None, plain(reply)
    assert runs in plain(reply), plain(reply)


@pytest.mark.parametrize("turns,job", [(("$1500 for stable diffusion", "is 12gb enough?"), "image generation"),
                                       (("预算八千训练CNN", "12G够吗"), "计算机视觉")])
def test_enough_memory_after_picks_is_judged_for_the_job_on_the_table(scorer_engine, turns, job):
    _, (_, reply) = talk(scorer_engine, *turns)
    assert reply.intent == "memory" and job in plain(reply).splitlines()[0], plain(reply)


@pytest.mark.parametrize("text", ["need at least 16gb, what's good enough for SD?", "推荐一张16G以上的卡 够跑SD就行",
                                  "24GB is enough for me, which card for LLM?", "is 12gb vram enough for a 7b at q4"])
def test_memory_stated_as_a_need_or_with_a_model_is_not_a_memory_verdict(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent in ("recommend", "fit"), plain(reply)


@pytest.mark.parametrize("text,lead", [
    ("ROCm usable for pytorch now?", "Is AMD usable today? Yes, if"),
    ("A卡现在能跑pytorch吗", "AMD（A卡）现在能不能用：能，但前提是"),
    ("is intel arc usable for pytorch?", "Intel Arc cards work, but it is early days"),
    ("do I need NVLink for 2x 3090?", "Do you need NVLink (a bridge)? Not for one or two consumer cards"),
    ("双3090要不要买NVLink桥", "要不要买 NVLink（桥）：一两块消费级显卡不需要"),
])
def test_a_guide_answer_leads_with_the_paragraph_that_answers_it(engine, text, lead):
    conv = Conversation(engine)
    conv.session.lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    reply = conv.turn(text)
    assert reply.intent == "question" and reply.paragraphs[0].startswith(lead), plain(reply)


@pytest.mark.parametrize("text,memory", [("Is a Mac Studio M2 Ultra with 192GB good for running LLMs?", None),
                                         ("a 4090 with 24GB for SD?", None), ("need 24GB for SD, 4070 ti super?", 24)])
def test_a_named_machines_own_memory_is_not_a_need(catalog, text, memory):
    from bot.nlu import parse

    assert parse(text, catalog=catalog).need.min_vram_gb == memory


@pytest.mark.parametrize("text,maker,not_about", [
    ("is an intel gpu any good for deep learning", ("Intel",), ("laptop", "AMD")),
    ("intel显卡能训练模型吗", ("Intel", "I卡"), ("笔记本",)),
    ("英特尔显卡能不能训练", ("Intel",), ("笔记本",)),
    ("I卡能跑深度学习吗", ("Intel", "I卡"), ("Apple", "苹果")),
    ("rocm好用吗", ("AMD", "ROCm"), ("Intel",)),
])
def test_a_question_about_a_maker_is_answered_by_what_the_guide_says_of_that_maker(scorer_engine, text, maker,
                                                                                    not_about):
    """"intel显卡能训练模型吗" shares its words with the laptop section ("显卡", "训练"): the maker it names decides which
    paragraphs answer, and only those are shown."""
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "question", plain(reply)
    first = reply.paragraphs[0]
    assert any(m in first for m in maker), plain(reply)
    assert not any(w in p for p in reply.paragraphs for w in not_about if w not in maker), plain(reply)


@pytest.mark.parametrize("text", ["what does Dettmers currently recommend?", "Dettmers 最新的推荐是什么",
                                  "Dettmers现在推荐什么卡"])
def test_dettmers_now_means_his_latest_edition(scorer_engine, text):
    """"Currently", "最新", "现在": the 2023 edition, not the 2019 list the seed article summarises."""
    _, (reply,) = talk(scorer_engine, text)
    assert "2023" in reply.title, (reply.title, plain(reply))


@pytest.mark.parametrize("text", ["训练老是OOM怎么办", "CUDA out of memory when fine-tuning, what should I do?", "显存不够怎么办",
                                  "爆显存了 要换卡吗"])
def test_running_out_of_memory_gets_the_settings_to_change_before_a_new_card(scorer_engine, text):
    _, (reply,) = talk(scorer_engine, text)
    assert reply.intent == "question" and ("OOM" in reply.title), (reply.title, plain(reply))
