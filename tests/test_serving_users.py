"""Serving a model to many people at once: how many is a slot of its own ("20 staff", "并发50", "十幾個同事"), and the
memory, the cards and the speed are sized for them: every running request's KV cache, vLLM's compute capability,
tensor parallel over several cards, and what each user gets at that load."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.dialogue import Conversation
from bot.fit import model_for, quant_for, serving_speed
from bot.fit import settings as inference_settings
from bot.need import Need
from bot.nlu import parse
from bot.render import plain
from bot.scorer import rank
from bot.slots.audience import audience
from bot.slots.text import chinese_numerals_to_digits, normalise

KNOWLEDGE = Path(__file__).resolve().parent.parent / "knowledge"


def _users(text: str) -> int | None:
    return audience(chinese_numerals_to_digits(normalise(text)))[0]


@pytest.mark.parametrize("text, users", [
    ("we want to serve Qwen3-32B to 20 staff with vLLM", 20),
    ("50 concurrent users on an 8B model", 50),
    ("a team of 15 will use it", 15),
    ("20+ users hitting the endpoint", 25),
    ("serving ~100 requests at a time", 100),
    ("about 8 people in the office would chat with it", 8),
    ("我们想部署一个14B模型给30个人同时用", 30),
    ("并发50，跑qwen2.5 7b", 50),
    ("50路并发", 50),
    ("二三十人用", 30),
    ("给公司十几个同事用", 15),
    ("給公司十幾個同事用嘅內部chatbot", 15),
    ("同時在線一百人", 100),
    ("團隊20人要一起用", 20),
])
def test_the_number_of_people_served_at_once_is_read(text, users):
    assert _users(text) == users


@pytest.mark.parametrize("text", ["预算5万人民币", "5000元跑人工智能", "just for me", "only one user", "$1500 for a 4090",
                                  "2x 3090 for 70B", "两张3090跑32B", "一个人用"])
def test_money_cards_and_one_person_are_no_audience(text):
    assert _users(text) in (None, 1)


@pytest.mark.parametrize("text, users", [("we want to serve Qwen3-32B to 20 staff, $15k", 20),
                                         ("我们想部署一个14B模型给30个人同时用，预算5万", 30)])
def test_users_are_not_read_as_a_budget_or_a_card_count(catalog, text, users):
    need = parse(text, catalog).need
    assert (need.concurrent_users or need.headcount) == users and need.gpu_count is None
    assert need.budget is not None and need.budget.amount in (15_000, 50_000)


def test_people_training_together_are_not_a_served_model(catalog):
    need = parse("我们实验室4个人共用，预算5万训练CNN", catalog).need
    assert need.headcount == 4 and not need.serves_many


@pytest.mark.parametrize("text, at_once, headcount", [
    ("50 concurrent users on an 8B model", 50, None),
    ("30个人同时用", 30, None),
    ("并发50", 50, None),
    ("we want to serve Qwen3-32B to 20 staff", None, 20),
    ("a team of 15 will use it", None, 15),
    ("公司100人要用内部知识库", None, 100),
    ("部門五十個同事都會用", None, 50),
])
def test_people_at_once_are_told_from_a_headcount(catalog, text, at_once, headcount):
    need = parse(text, catalog).need
    assert (need.concurrent_users, need.headcount) == (at_once, headcount)


@pytest.mark.parametrize("text, daily", [
    ("we expect about 3000 daily users for a chatbot on Qwen3 8B", 3000),
    ("5000 DAU, qwen3 14b customer service bot", 5000),
    ("我们的应用日活5000，用Qwen3-14B做客服", 5000),
    ("日活跃用户约2万的app想接入大模型", 20_000),
    ("每天大概有8000个用户会用这个问答机器人", 8000),
    ("our app gets 10,000 users a day", 10_000),
    ("App日活一萬，要自己部署模型", 10_000),
])
def test_an_apps_daily_users_are_told_from_a_headcount_and_from_users_at_once(catalog, text, daily):
    need = parse(text, catalog).need
    assert (need.daily_users, need.headcount, need.concurrent_users) == (daily, None, None)


@pytest.mark.parametrize("text", ["我们20个同事每天都会用", "our 20 staff use it every day", "一天5000块的预算能租什么卡",
                                  "每天跑8小时，20人团队"])
def test_a_team_that_uses_it_daily_is_no_apps_daily_users(catalog, text):
    assert parse(text, catalog).need.daily_users is None


def test_daily_users_are_sized_for_a_small_share_at_once_and_say_so(engine):
    reply = _chat(engine, ["we expect about 3000 daily users for a chatbot on Qwen3 8B, what GPUs?"])[-1]
    said = plain(reply)
    share = float(inference_settings(KNOWLEDGE)["serving"]["daily_peak_share"])
    at_once = math.ceil(3000 * share)
    assert reply.intent == "recommend" and reply.recommendations, said[:600]
    assert "3,000 daily users" in said and f"{at_once} users at once" in said, said[:1200]


def test_a_served_model_is_not_pushed_to_the_used_market(engine):
    reply = _chat(engine, ["我们的应用日活5000，用Qwen3-14B做客服，预算10万"])[-1]
    assert reply.recommendations and all(r.market != "used" for r in reply.recommendations), plain(reply)[:900]


def test_a_new_way_of_counting_the_users_replaces_the_old_one():
    need = Need(workloads=("llm_inference",), headcount=20).merge(Need(concurrent_users=100))
    assert (need.headcount, need.concurrent_users) == (None, 100)


def test_a_new_kind_of_job_drops_the_users():
    need = Need(workloads=("llm_inference",), model_size_b=14, concurrent_users=20)
    assert need.merge(Need(workloads=("cnn",))).concurrent_users is None


@pytest.fixture(scope="module")
def llm_need():
    return Need(workloads=("llm_inference",), model_size_b=32, model="Qwen3 32B")


def test_memory_grows_with_every_user_and_old_cards_are_out(catalog, llm_need):
    one = rank(catalog, llm_need, KNOWLEDGE)
    many = rank(catalog, Need(**{**llm_need.__dict__, "concurrent_users": 20}), KNOWLEDGE)
    assert many.memory.total_gb > one.memory.total_gb + 15  # 20 requests of a 32B model's 4k-token cache: ~20 GB
    assert "20 users at once" in many.memory.assumption_en
    for c in many.candidates:  # vLLM needs compute capability 7.0+
        assert not c.gpu.compute_capability or float(c.gpu.compute_capability) >= 7.0, c.gpu.name


@settings(max_examples=30, deadline=None)
@given(users=st.integers(min_value=2, max_value=200), count=st.sampled_from([1, 2, 4]))
def test_each_user_never_gets_more_when_more_share_the_setup(catalog, users, count):
    model = model_for(KNOWLEDGE, "Qwen3 32B", 32)
    quant = quant_for(KNOWLEDGE, "AWQ", 4)
    card = catalog.get("GeForce RTX 3090")
    fewer = serving_speed(card, model, quant, users - 1, count, KNOWLEDGE)
    more = serving_speed(card, model, quant, users, count, KNOWLEDGE)
    assert more.per_user_tokens_per_s <= fewer.per_user_tokens_per_s
    assert more.total_tokens_per_s >= fewer.total_tokens_per_s * 0.999  # batching never loses throughput in all


def test_more_cards_in_tensor_parallel_serve_each_user_faster(catalog):
    model = model_for(KNOWLEDGE, "Qwen3 32B", 32)
    quant = quant_for(KNOWLEDGE, "AWQ", 4)
    card = catalog.get("GeForce RTX 3090")
    speeds = [serving_speed(card, model, quant, 20, n, KNOWLEDGE).per_user_tokens_per_s for n in (1, 2, 4)]
    assert speeds[0] < speeds[1] < speeds[2] < 4 * speeds[0]


def _chat(engine, turns):
    conv = Conversation(engine)
    return [conv.turn(t) for t in turns]


@pytest.mark.parametrize("turns, users", [
    (["50 concurrent users with vLLM on an 8B model, what GPU should I buy? budget $10000"], 50),
    (["我们想部署一个14B模型给30个人同时用，用vllm，预算5万，买什么卡"], 30),
    (["best gpu for a local llm, 70b, $8000", "12 of us will use it at the same time"], 12),
    (["预算3万，跑qwen 14b", "我们有20个人要同时用呢"], 20),
    (["預算10萬台幣，公司內部部署32B模型", "大概十幾個同事會同時用"], 15),
    (["公司想部署一个内部问答系统，50人用，预算10万", "那如果要并发100人呢"], 100),
    (["我们想给客服系统部署LLM, 并发大概20，预算5万"], 20),
])
def test_picks_for_many_users_are_sized_and_timed_for_them(engine, turns, users):
    reply = _chat(engine, turns)[-1]
    said = plain(reply)
    assert reply.intent == "recommend" and reply.recommendations, said[:600]
    assert f"{users} users at once" in said or f"{users} 人同时使用" in said or f"{users} 人同時使用" in said, said[:900]
    assert re.search(r"for each of \d+ users|每人约 [\d.]+ tokens/s|每人約 [\d.]+ tokens/s", said), said[:1500]
    assert "P40" not in " ".join(r.gpu for r in reply.recommendations)


@pytest.mark.parametrize("text, verdict", [
    ("can 2x 3090 serve qwen2.5 32b to 20 users at once with vllm?", "it fits"),
    ("4090能不能同时给10个人跑7B模型？速度多少", "装得下"),
    ("can a single 3090 serve a 32B model to 40 people at once?", "does not fit"),
])
def test_a_setup_asked_about_for_many_users_gets_their_memory_and_speed(engine, text, verdict):
    reply = _chat(engine, [text])[-1]
    said = plain(reply)
    assert reply.intent == "fit" and verdict in said, said[:900]
    assert "KV" in said and ("tokens/s" in said), said[:900]


@pytest.mark.parametrize("text", ["公司内部部署deepseek-r1满血版，预算100万，H20还是4090？", "H100 vs A100 for llama 405b?",
                                  "llama 3.1 405b: h100或a100哪個好"])
def test_cards_too_small_alone_are_weighed_as_the_fewest_that_hold_the_model(engine, text):
    reply = _chat(engine, [text])[-1]
    said = plain(reply)
    assert reply.intent == "compare", said[:600]
    setups = [row[0] for row in reply.table.rows]
    grown = [s for s in setups if re.match(r"\d+× ", s)]
    assert grown, said[:600]
    assert "fewest that do" in said or "最少张数" in said or "最少張數" in said, said[:600]
    for s in grown:  # no more than a server holds
        assert int(s.split("×")[0]) <= 8


def test_a_setup_the_user_counted_is_kept_as_said(engine):
    reply = _chat(engine, ["2x3090 vs one A6000 for 70B"])[-1]
    assert [row[0] for row in reply.table.rows] == ["2× GeForce RTX 3090", "RTX A6000"]


@pytest.mark.parametrize("turns, headcount, at_once", [
    (["we want to serve Qwen3-32B to 20 staff with vLLM, budget $15k, what GPUs?"], 20, 3),
    (["best gpu for a local llm, 70b, $8000", "it's for our team of 12"], 12, 2),
    (["公司想部署一个内部问答系统，200人用，预算20万"], 200, 30),
])
def test_a_headcount_is_sized_for_the_share_active_at_once_and_says_so(engine, turns, headcount, at_once):
    reply = _chat(engine, turns)[-1]
    said = plain(reply)
    assert reply.intent == "recommend", said[:600]
    assert f"Your {headcount} people" in said or f"{headcount} 个人不会" in said, said[:900]
    assert f"{at_once} users at once" in said or f"{at_once} 人同时使用" in said, said[:1200]


@pytest.mark.parametrize("text", ["公司想部署一个内部问答系统，50人用，预算10万", "support bot for our 30 agents, budget $12k",
                                  "智能客服要同時服務40人，預算30萬台幣",
                                  # an in-house ChatGPT or a coding assistant is a served LLM too
                                  "公司想搭个内部ChatGPT给200个员工用，预算30万", "给开发团队20人搭个代码助手，预算8万",
                                  "self-hosted coding assistant for 25 devs, $20k"])
def test_a_served_assistant_with_no_model_named_is_sized_for_a_stated_default(engine, text):
    reply = _chat(engine, [text])[-1]
    said = plain(reply)
    assert reply.intent == "recommend" and reply.recommendations, said[:600]
    assert "No model named" in said or "没说用哪个模型" in said or "沒說用哪個模型" in said, said[:900]


@pytest.mark.parametrize("text, users", [
    ("vllm serving qwen2.5-72b w/ 50 concurrent users, A100s or H100s? how many", 50),
    ("50人同时用qwen3 32b，4090还是L40S", 50),
    ("8x H100 vs 8x H200 for serving deepseek v3 with 64 concurrent requests", 64),
])
def test_setups_weighed_for_serving_hold_every_users_cache_and_say_each_users_speed(engine, text, users):
    reply = _chat(engine, [text])[-1]
    said = plain(reply)
    assert reply.intent == "compare", said[:600]
    assert f"{users} users" in said or f"{users} 人" in said, said[:600]
    for row in reply.table.rows:
        have, needed = float(row[1].split()[0]), float(row[2].strip("~").split()[0])
        assert ("does not fit" in row[2] or "装不下" in row[2] or "裝不下" in row[2]) == (needed > have), row
        assert int(row[0].split("×")[0]) <= 8 if "×" in row[0] else True
    assert re.search(r"tokens/s a user|每人(?:约|約) [\d.]+ tokens/s", said), said[:600]


@pytest.mark.parametrize("text, users, headcount", [
    ("2x 3090能不能同时给20个人用qwen2.5 32b", 20, None),
    ("can 2x 3090 serve qwen2.5 32b to our 20 staff?", 3, 20),
])
def test_a_fit_for_many_users_says_how_many_it_sized_for(engine, text, users, headcount):
    said = plain(_chat(engine, [text])[-1])
    assert f"For {users} users at once" in said or f"{users} 人同时使用" in said, said[:700]
    assert (f"Your {headcount} people" in said or f"{headcount} 个人不会" in said) if headcount else "高峰" not in said


@pytest.mark.parametrize("turns, card, users", [
    (["公司200人用qwen2.5 72b做内部助手，预算50万", "用H20可以吗"], "H20", 30),
    (["我们想给客服系统部署LLM, 并发大概20", "can an L40S handle it?"], "L40S", 20),
    (["serving llama 3.3 70b to 40 people at once, $30k", "would two A6000s do it?"], "A6000", 40),
])
def test_a_card_asked_after_picks_for_a_team_is_fitted_for_that_team(engine, turns, card, users):
    reply = _chat(engine, turns)[-1]
    said = plain(reply)
    assert reply.intent == "fit" and card in said, said[:600]
    assert f"For {users} users at once" in said or f"{users} 人同时使用" in said, said[:900]


@pytest.mark.parametrize("text, gpus, at_once, headcount", [
    ("500 person company, how many H100", ("H100 SXM5 80GB",), None, 500),
    ("RTX 6000 Ada可以同時服務20個使用者跑70B嗎", ("RTX 6000 Ada Generation",), 20, None),
    ("公司60来号人用", (), None, 60),
    ("2x 3090 for 20 ppl", ("GeForce RTX 3090",), None, 20),
])
def test_people_are_read_before_cards_whose_names_are_numbers(catalog, text, gpus, at_once, headcount):
    q = parse(text, catalog)
    assert (q.gpus, q.need.concurrent_users, q.need.headcount) == (gpus, at_once, headcount)


@pytest.mark.parametrize("turns", [
    ["how many users at once can a single 4090 handle on an 8b model"],
    ["4090跑qwen2.5 14b能同时给几个人用"],
    ["A800能撑多少并发"],
    ["how many concurrent users can 2x 3090 serve with llama 3.3 70b?"],
    ["4090多少钱", "它能同时给几个人用"],
    ["RTX PRO 6000可以同時服務幾多個人？"],
])
def test_how_many_users_a_setup_serves_is_a_number_of_users(engine, turns):
    reply = _chat(engine, turns)[-1]
    said = plain(reply)
    first = reply.paragraphs[0]
    found = re.search(r"about (\d+) users at once|约 (\d+) 人同时使用|約 (\d+) 人同時使用", first)
    assert reply.intent == "fit" and found, said[:600]
    assert int(next(g for g in found.groups() if g)) >= 1


def test_more_memory_serves_more_users(engine):
    def users(text):
        m = re.search(r"about (\d+) users at once", _chat(engine, [text])[-1].paragraphs[0])
        return int(m.group(1))
    assert users("how many users can a 3090 serve on an 8b model") < \
        users("how many users can an RTX PRO 6000 serve on an 8b model")


@pytest.mark.parametrize("turns, verdict", [
    (["serving llama 3.3 70b to 40 people at once, $30k", "16k context per user?"], "it does not fit"),
    (["can a single 3090 serve a 32B model to 40 people at once?"], "it does not fit"),
    (["2x 3090能不能同时给20个人用qwen2.5 32b"], "装得下"),
])
def test_the_verdict_for_the_users_comes_before_one_users_figures(engine, turns, verdict):
    reply = _chat(engine, turns)[-1]
    assert verdict in reply.paragraphs[0], plain(reply)[:700]


@pytest.mark.parametrize("text, said", [("serve qwen3 32b at 8-bit to 30 users at once, budget $40k", "at FP8"),
                                        ("50人同时用qwen3 32b，8位，预算30万", "按 FP8")])
def test_eight_bits_for_a_server_are_fp8_not_llama_cpps_q8_0(engine, text, said):
    reply = _chat(engine, [text])[-1]
    assert said in plain(reply) and "Q8_0" not in plain(reply), plain(reply)[:900]


def test_a_served_models_format_is_the_same_in_a_fit_a_capacity_and_a_comparison(engine):
    fit = _chat(engine, ["can one 4090 serve qwen3 8b to 10 users at once?"])[-1]
    compared = _chat(engine, ["10 users at once on qwen3 8b: 4090 or L40S?"])[-1]
    for reply in (fit, compared):  # (the fit's next paragraph is one user's llama.cpp figure, in GGUF)
        assert "(AWQ/GPTQ)" in reply.paragraphs[0], reply.paragraphs[0]
