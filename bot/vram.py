"""How much GPU memory a job needs, with the assumption stated (formulas and model shapes from knowledge/).

Inference: weights (params x bytes) + KV cache (2 x layers x kv_heads x head_dim x context x batch x bytes) + 20%.
Fine-tuning: full (mixed-precision AdamW, 18 B/param), LoRA (frozen 16-bit weights + adapters), QLoRA (4-bit weights
+ adapters); activations with gradient checkpointing and the output logits; + 20% overhead.

Checked against published figures in tests/test_vram.py (Hugging Face, EleutherAI, the QLoRA paper): 7B QLoRA ~8 GB, 7B LoRA 16-22 GB, 70B 4-bit
inference 40-45 GB, 70B QLoRA ~52 GB, full fine-tuning 16-18 bytes per parameter before activations."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

OVERHEAD = 1.20  # EleutherAI rule of thumb, as in `accelerate estimate-memory`
BYTES_PER_PARAM = {32: 4.0, 16: 2.0, 8: 1.0, 4: 0.5}  # the EleutherAI / `accelerate estimate-memory` figures
FULL_FT_BYTES = 18.0  # 6 weights (fp32 master + fp16) + 4 gradients + 8 AdamW states: HF "model memory anatomy"
ADAPTER_SHARE = 0.005  # LoRA adapters: about 0.5% of the parameters (rank 16 on attention + MLP)
ADAPTER_BYTES = 16.0  # adapters train in full mixed precision with AdamW
DEFAULT_CONTEXT = 4096
TRAIN_CONTEXT = 2048
# Training also holds the output logits for the loss: context x vocabulary x (2 B in BF16 + 4 B upcast to FP32).
# Llama-3 and Qwen2.5 tokenizers have 128k-152k entries.
TRAIN_VOCAB = 128_256
LOGIT_BYTES = 6.0


def bytes_per_param(bits: int) -> float:
    return BYTES_PER_PARAM.get(bits, bits / 8)


@dataclass(frozen=True)
class ModelShape:
    params_b: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    example: str


@dataclass(frozen=True)
class MemoryEstimate:
    total_gb: float
    weights_gb: float
    extra_gb: float  # KV cache (inference) or gradients/optimizer/adapters/activations (training)
    method: str  # "inference" | "full" | "lora" | "qlora"
    precision_bits: int
    params_b: float
    assumption_en: str
    assumption_zh: str


@lru_cache(maxsize=4)
def load_shapes(knowledge_dir: Path) -> tuple[ModelShape, ...]:
    with open(knowledge_dir / "model-shapes.csv", encoding="utf-8") as f:
        return tuple(ModelShape(float(r["params_b"]), int(r["layers"]), int(r["hidden"]), int(r["kv_heads"]),
                                int(r["head_dim"]), r["example"]) for r in csv.DictReader(f))


def nearest_shape(shapes: tuple[ModelShape, ...], params_b: float) -> ModelShape:
    """The reference architecture closest in size (ratio, not difference: 70B is nearer 32B than 405B is)."""
    import math

    return min(shapes, key=lambda s: abs(math.log(s.params_b / params_b)))


def kv_cache_gb(shape: ModelShape, params_b: float, context: int, batch: int = 1, bits: int = 16) -> float:
    scale = params_b / shape.params_b  # depth grows with size: scale the layers of the reference shape
    layers = max(1, round(shape.layers * scale ** 0.5))
    return 2 * layers * shape.kv_heads * shape.head_dim * context * batch * (bits / 8) / 1e9


def estimate(params_b: float, method: str, precision_bits: int | None, knowledge_dir: Path,
             context: int | None = None) -> MemoryEstimate:
    """Memory for a job on a model of `params_b` billion parameters. method: inference | full | lora | qlora."""
    shape = nearest_shape(load_shapes(knowledge_dir), params_b)
    if method == "inference":
        bits = precision_bits or 16
        ctx = context or DEFAULT_CONTEXT
        weights = params_b * bytes_per_param(bits)
        extra = kv_cache_gb(shape, params_b, ctx)
        en = (f"{params_b:g}B parameters at {bits}-bit = {weights:.1f} GB of weights, + {extra:.1f} GB KV cache "
              f"({ctx:,}-token context, batch 1, shape like {shape.example}), + 20% overhead")
        zh = (f"{params_b:g}B 参数按 {bits} 位存储约 {weights:.1f} GB 权重，另加 {extra:.1f} GB KV 缓存"
              f"（上下文 {ctx:,} token、batch 1，结构参照 {shape.example}），再加 20% 额外开销")
    else:
        ctx = context or TRAIN_CONTEXT
        checkpoints = 2 * ctx * shape.hidden * max(1, round(shape.layers * (params_b / shape.params_b) ** 0.5)) / 1e9
        logits = ctx * TRAIN_VOCAB * LOGIT_BYTES / 1e9
        activations = checkpoints + logits
        if method == "full":
            bits = 16
            weights = params_b * FULL_FT_BYTES
            extra = activations
            en = (f"full fine-tuning with mixed-precision AdamW: {FULL_FT_BYTES:g} bytes per parameter (weights, "
                  f"gradients, optimizer states) = {weights:.0f} GB, + {activations:.1f} GB of activations (batch 1, "
                  f"{ctx:,} tokens, gradient checkpointing, output logits), + 20% (8-bit Adam would save about a "
                  "third)")
            zh = (f"全参微调（混合精度 AdamW）：每个参数约 {FULL_FT_BYTES:g} 字节（权重、梯度、优化器状态）= {weights:.0f} GB，"
                  f"加上 {activations:.1f} GB 激活（batch 1、{ctx:,} token、梯度检查点、输出 logits），"
                  "再加 20%（用 8-bit Adam 可省约三分之一）")
        else:
            bits = 4 if method == "qlora" else (precision_bits or 16)
            weights = params_b * bytes_per_param(bits)
            adapters = params_b * ADAPTER_SHARE * ADAPTER_BYTES
            extra = adapters + activations
            name = "QLoRA" if method == "qlora" else "LoRA"
            en = (f"{name}: frozen {bits}-bit weights {weights:.1f} GB + adapters (~0.5% of parameters, trained with "
                  f"AdamW) {adapters:.1f} GB + {activations:.1f} GB of activations (batch 1, {ctx:,} tokens, gradient "
                  "checkpointing, output logits), + 20%")
            zh = (f"{name}：冻结的 {bits} 位权重 {weights:.1f} GB + 适配器（约 0.5% 参数，AdamW 训练）{adapters:.1f} GB"
                  f" + 激活 {activations:.1f} GB（batch 1、{ctx:,} token、梯度检查点、输出 logits），再加 20%")
    total = (weights + extra) * OVERHEAD
    return MemoryEstimate(round(total, 1), round(weights, 1), round(extra, 1), method, bits, params_b, en, zh)
