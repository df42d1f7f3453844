"""The memory model (bot/vram.py) against published figures (Hugging Face and EleutherAI memory guides, QLoRA paper), and the reply that
must state the assumption behind its number."""

from __future__ import annotations

import pytest

from bot import vram
from bot.vram import estimate

from .conftest import KNOWLEDGE


def test_7b_qlora_is_about_8_gb():
    # published figure: "7B ≈ ... 8 GB QLoRA" (order of magnitude, batch 1, short context)
    e = estimate(7, "qlora", None, KNOWLEDGE)
    assert 6 <= e.total_gb <= 10
    assert e.precision_bits == 4 and e.weights_gb == pytest.approx(3.5, abs=0.3)  # ~0.5 B/param


def test_7b_lora_is_16_to_22_gb():
    e = estimate(7, "lora", None, KNOWLEDGE)
    assert 16 <= e.total_gb <= 22
    assert e.weights_gb == pytest.approx(14)  # frozen 16-bit weights


def test_70b_4bit_inference_is_40_to_45_gb():
    e = estimate(70, "inference", 4, KNOWLEDGE)
    assert 40 <= e.total_gb <= 45
    assert e.weights_gb == pytest.approx(35)


def test_70b_qlora_is_about_52_gb():
    assert 45 <= estimate(70, "qlora", None, KNOWLEDGE).total_gb <= 60


@pytest.mark.parametrize(("size", "bits", "low", "high"), [(7, 16, 14 * 1.2, 14 * 1.2 + 2), (13, 8, 13 * 1.2, 22),
                                                           (70, 16, 140 * 1.2, 175)])
def test_inference_is_weights_plus_kv_cache_plus_20_percent(size, bits, low, high):
    e = estimate(size, "inference", bits, KNOWLEDGE)
    assert low <= e.total_gb <= high
    assert e.total_gb == pytest.approx((e.weights_gb + e.extra_gb) * vram.OVERHEAD, abs=0.15)


def test_full_finetune_is_16_to_18_bytes_per_parameter_plus_overhead():
    assert 16 <= vram.FULL_FT_BYTES <= 18
    for size in (1, 7, 13):
        e = estimate(size, "full", None, KNOWLEDGE)
        assert e.weights_gb == pytest.approx(size * vram.FULL_FT_BYTES)
        assert size * 16 * vram.OVERHEAD <= e.total_gb <= size * 18 * vram.OVERHEAD + 6


def test_ordering_of_methods():
    for size in (1.5, 7, 14, 70):
        q, lo, full = (estimate(size, m, None, KNOWLEDGE).total_gb for m in ("qlora", "lora", "full"))
        inf4, inf8, inf16 = (estimate(size, "inference", b, KNOWLEDGE).total_gb for b in (4, 8, 16))
        assert q < lo < full
        assert inf4 < inf8 < inf16


def test_memory_grows_with_model_size():
    # (13B is left out: its reference shape, Llama-2-13B, has no grouped-query attention, so its KV cache at 4k
    # tokens is larger than Qwen2.5-14B's; that is real, not an error)
    sizes = (0.5, 1, 3, 7, 8, 14, 32, 70, 405)
    for method, bits in (("inference", 16), ("inference", 4), ("lora", None), ("qlora", None), ("full", None)):
        totals = [estimate(s, method, bits, KNOWLEDGE).total_gb for s in sizes]
        assert totals == sorted(totals), (method, bits, totals)


def test_longer_context_needs_more_memory():
    short = estimate(8, "inference", 16, KNOWLEDGE, context=2048).total_gb
    long = estimate(8, "inference", 16, KNOWLEDGE, context=32768).total_gb
    assert long > short + 3


def test_odd_precision_does_not_raise():
    assert estimate(7, "inference", 32, KNOWLEDGE).weights_gb == pytest.approx(28)
    assert estimate(7, "inference", 6, KNOWLEDGE).weights_gb == pytest.approx(5.25, abs=0.06)


@pytest.mark.parametrize("method", ["inference", "lora", "qlora", "full"])
def test_assumption_is_stated_in_both_languages(method):
    e = estimate(7, method, 4 if method == "inference" else None, KNOWLEDGE)
    assert "20%" in e.assumption_en and "20%" in e.assumption_zh
    assert "7B" in e.assumption_en and "7B" in e.assumption_zh or method != "inference"
    if method in ("lora", "qlora"):
        assert f"{e.weights_gb:.1f} GB" in e.assumption_en and f"{e.weights_gb:.1f} GB" in e.assumption_zh
    if method == "full":
        assert "18 bytes per parameter" in e.assumption_en and "18 字节" in e.assumption_zh


@pytest.mark.parametrize(("text", "must_have"), [
    ("$1000 to fine-tune a 7B LLM with QLoRA", ("QLoRA", "4-bit weights", "20%")),
    ("预算一万，7B模型QLoRA微调", ("QLoRA", "4 位权重", "20%")),
    ("$3000 to run a 70B model at 4-bit", ("a 70B model at 4-bit (Q4_K_M)", "GB of weights", "KV cache", "runtime")),
    ("预算两万跑70B大模型推理，4bit量化", ("70B 模型 按 4 位（Q4_K_M）", "GB 权重", "KV 缓存", "运行时开销")),
])
def test_recommendation_reply_states_the_assumption(scorer_engine, text, must_have):
    from bot.dialogue import Conversation

    reply = Conversation(scorer_engine).turn(text)
    assert reply.intent == "recommend"
    shown = "\n".join(reply.paragraphs)
    for piece in must_have:
        assert piece in shown, (piece, shown)
