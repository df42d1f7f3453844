"""Can this GPU setup run this model, and how fast: memory and single-stream tokens/s, no model loaded.

Memory: weights (parameters x bits per weight of the format) + KV cache (layers x KV heads x head dim x context) +
the per-card reserve and compute buffers of knowledge/llm-inference.yaml. Speed at batch 1 is memory-bound when
generating (every active weight is read once per token: bandwidth / bytes, times an efficiency) and compute-bound
when reading the prompt (2 FLOPs per active parameter per token). The efficiencies and the per-token overhead are
fitted, per backend, on the training split of measured llama.cpp figures (knowledge/benchmarks/llm-speed.csv); each
estimate says whether it is measured, calibrated on measurements, or formula only."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bot.catalog import GPU, CatalogError, _num, _rows, parse_yaml
from bot.i18n import Text
from bot.models import ModelSpec, ModelTable, Quant, load_models

GIB = 2 ** 30
DECODE_TESTS = ("tg128", "tg", "decode")
PREFILL_TESTS = ("pp512", "pp", "prefill")


@dataclass(frozen=True)
class Measurement:
    """One published figure: `tokens_per_s` for `count` x `gpu` on a model at a quantisation."""

    gpu: str
    count: int
    model: str
    params_b: float
    active_params_b: float | None
    quant: str  # normalised code (Q4_K_M, F16, …)
    backend: str
    test: str  # decode | prefill
    tokens_per_s: float
    url: str
    date: str
    bandwidth_gbs: float | None  # the card's, from the catalog or the row's notes ("bw=800")
    compute_tflops: float | None
    held_out: bool

    @property
    def active_b(self) -> float:
        return self.active_params_b or self.params_b


@dataclass(frozen=True)
class SpeedModel:
    """Fitted constants: the share of memory bandwidth reached when generating and of compute when reading the
    prompt, per backend group, and a fixed cost per generated token."""

    decode_efficiency: dict[str, float]
    prefill_efficiency: dict[str, float]
    token_overhead_s: float
    trained_on: dict[str, int]  # backend group -> training rows (decode)
    bandwidth_exponent: float = 1.0
    compute_exponent: float = 1.0


@dataclass(frozen=True)
class FitEstimate:
    gpu: str
    count: int
    model: str
    params_b: float
    active_params_b: float
    quant: str
    bits_per_weight: float
    context: int
    weights_gb: float
    kv_cache_gb: float
    overhead_gb: float
    total_gb: float
    vram_gb: float  # all cards
    fits: bool
    offload_gb: float  # weights left in system RAM when it does not fit
    decode_tokens_per_s: float | None
    prefill_tokens_per_s: float | None
    basis: str  # measured | calibrated | formula
    measured: tuple[Measurement, ...] = ()
    assumptions: tuple[Text, ...] = field(default=())

    def to_json(self, lang: str = "en") -> dict:
        return {
            "gpu": self.gpu, "count": self.count, "model": self.model, "params_b": self.params_b,
            "active_params_b": self.active_params_b, "quant": self.quant, "bits_per_weight": self.bits_per_weight,
            "context": self.context, "weights_gb": self.weights_gb, "kv_cache_gb": self.kv_cache_gb,
            "overhead_gb": self.overhead_gb, "total_gb": self.total_gb, "vram_gb": self.vram_gb, "fits": self.fits,
            "offload_gb": self.offload_gb, "decode_tokens_per_s": self.decode_tokens_per_s,
            "prefill_tokens_per_s": self.prefill_tokens_per_s, "basis": self.basis,
            "measured": [{"tokens_per_s": m.tokens_per_s, "test": m.test, "backend": m.backend, "url": m.url,
                          "date": m.date} for m in self.measured],
            "assumptions": [a.get(lang) for a in self.assumptions],
        }


@lru_cache(maxsize=4)
def settings(knowledge_dir: Path) -> dict:
    return parse_yaml((knowledge_dir / "llm-inference.yaml").read_text(encoding="utf-8"))


def backend_group(gpu: GPU | None, knowledge_dir: Path, backend: str = "") -> str:
    """cuda / rocm / metal / sycl: from the measured backend when given, else from the vendor."""
    b = backend.lower()
    for group in ("metal", "rocm", "vulkan", "sycl", "cuda"):
        if group in b:
            return group
    if b in ("mlx",):
        return "metal"
    if gpu is not None:
        return settings(knowledge_dir)["backend_of_vendor"].get(gpu.vendor, "cuda")
    return "cuda"


def compute_tflops(gpu: GPU) -> float | None:
    """The throughput prompt reading runs at: tensor-core FP16 (FP16 accumulate, what llama.cpp's kernels use)
    where the card has it, else FP32."""
    return gpu.tensor_fp16_tflops_fp16acc or gpu.tensor_fp16_tflops or gpu.fp32_tflops


def finetune_tokens_per_s(gpu: GPU, params_b: float, method: str, knowledge_dir: Path) -> float | None:
    """Training tokens a second of fine-tuning a `params_b` model on one card (formula only: FLOPs per token over the
    card's FP16 tensor throughput at an assumed utilisation; knowledge/llm-inference.yaml `finetune_speed`). A model
    split over several cards by layers trains at about one card's speed, so the count does not enter."""
    cfg = settings(knowledge_dir)["finetune_speed"]
    tflops = gpu.tensor_fp16_tflops or gpu.fp32_tflops
    per_param = cfg["flops_per_param"].get(method)
    if not tflops or not per_param or params_b <= 0:
        return None
    tps = tflops * 1e12 * cfg["mfu"] / (per_param * params_b * 1e9)
    return tps / cfg["qlora_slowdown"] if method == "qlora" else tps


def _quant_code(text: str, table: ModelTable) -> str:
    t = text.strip().upper().replace(" ", "_").replace("-", "_")
    t = {"Q4_K_MEDIUM": "Q4_K_M", "Q5_K_MEDIUM": "Q5_K_M", "BF16": "F16", "FP16": "F16", "GPTQ": "AWQ",
         "INT4": "AWQ", "INT8": "Q8_0"}.get(t, t)
    if table.quant(t):
        return t
    for q in table.quants:
        if text.strip().lower() in q.aliases:
            return q.code
    return t


def _held_out(key: str, share: float) -> bool:
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF < share


@lru_cache(maxsize=4)
def load_measurements(knowledge_dir: Path) -> tuple[Measurement, ...]:
    """knowledge/benchmarks/llm-speed.csv, each row with its split (held out rows are never fitted on)."""
    from bot.catalog import load_catalog

    path = knowledge_dir / "benchmarks" / "llm-speed.csv"
    if not path.exists():
        return ()
    catalog = load_catalog(knowledge_dir)
    table = load_models(knowledge_dir)
    share = float(settings(knowledge_dir)["held_out_share"])
    _, rows = _rows(path)
    out = []
    for line, row in rows:
        tps = _num(path, line, row, "tokens_per_s")
        params = _num(path, line, row, "params_b")
        if not tps or not params:
            raise CatalogError(path, line, "tokens_per_s" if not tps else "params_b", "needs a value")
        test = row.get("test", "").lower()
        kind = "decode" if test in DECODE_TESTS or test.startswith("tg") else \
            "prefill" if test in PREFILL_TESTS or test.startswith("pp") else None
        if kind is None:
            continue
        g = catalog.get(row.get("gpu", ""))
        bw = g.mem_bandwidth_gbs if g else None
        m = re.search(r"bw\s*=\s*(\d+(?:\.\d+)?)", row.get("notes", ""))
        if bw is None and m:
            bw = float(m[1])
        fl = compute_tflops(g) if g else None
        m = re.search(r"tflops\s*=\s*(\d+(?:\.\d+)?)", row.get("notes", ""))
        if fl is None and m:
            fl = float(m[1])
        count = int(_num(path, line, row, "count") or 1)
        key = "|".join((row.get("gpu", ""), str(count), row.get("model", ""), row.get("quant", ""), test,
                        row.get("backend", ""), row.get("url", "")))
        out.append(Measurement(row.get("gpu", ""), count, row.get("model", ""), params,
                               _num(path, line, row, "active_params_b"), _quant_code(row.get("quant", ""), table),
                               row.get("backend", ""), kind, tps, row.get("url", ""), row.get("date", ""), bw, fl,
                               _held_out(key, share)))
    return tuple(out)


def _bits(code: str, table: ModelTable) -> float | None:
    q = table.quant(code)
    return q.bits_per_weight if q else None


def _decode_bytes_gb(m: Measurement, table: ModelTable) -> float | None:
    bpw = _bits(m.quant, table)
    return m.active_b * bpw / 8 if bpw else None


def _effective_bw(bw: float, alpha: float) -> float:
    """Bandwidth a single stream reaches grows less than linearly with the peak (HBM cards reach a smaller share):
    GB/s, equal to the peak at 1,000 GB/s."""
    return 1000 * (bw / 1000) ** alpha


def _effective_compute(tflops: float, beta: float) -> float:
    return 100 * (tflops / 100) ** beta


def fit_speed_model(rows: tuple[Measurement, ...], knowledge_dir: Path) -> SpeedModel:
    """Least squares in log space over a grid of the per-token overhead and the bandwidth exponent, closed form for
    the per-backend efficiencies; the same for prompt reading with a compute exponent."""
    table = load_models(knowledge_dir)
    hop = float(settings(knowledge_dir)["multi_gpu_hop_ms"]) / 1000
    dec = [(m, b, backend_group(None, knowledge_dir, m.backend)) for m in rows
           if m.test == "decode" and m.bandwidth_gbs and (b := _decode_bytes_gb(m, table))]
    groups = sorted({grp for _, _, grp in dec})
    best = None
    for a_step in range(0, 11):
        alpha = 0.5 + a_step * 0.05
        for step in range(0, 81):
            c = step * 0.05e-3
            eff, err = {}, 0.0
            for grp in groups:
                pts = [(m, b) for m, b, g in dec if g == grp]
                logs = []
                for m, b in pts:
                    t = 1 / m.tokens_per_s - c - hop * (m.count - 1)
                    if t <= 0:
                        logs = None
                        break
                    logs.append(math.log(b / (t * _effective_bw(m.bandwidth_gbs, alpha))))
                if not logs:
                    err = math.inf
                    break
                e = math.exp(sum(logs) / len(logs))
                eff[grp] = e
                for m, b in pts:
                    pred = 1 / (b / (e * _effective_bw(m.bandwidth_gbs, alpha)) + c + hop * (m.count - 1))
                    err += math.log(pred / m.tokens_per_s) ** 2
            if best is None or err < best[0]:
                best = (err, c, eff, alpha)
    pre = [(m, backend_group(None, knowledge_dir, m.backend)) for m in rows if m.test == "prefill" and m.compute_tflops]
    best_p = None
    for b_step in range(0, 11):
        beta = 0.5 + b_step * 0.05
        logs: dict[str, list[float]] = {}
        for m, grp in pre:
            logs.setdefault(grp, []).append(math.log(m.tokens_per_s * 2 * m.active_b * 1e9 /
                                                     (_effective_compute(m.compute_tflops, beta) * 1e12)))
        eff = {g: sum(v) / len(v) for g, v in logs.items()}
        err = sum((x - eff[g]) ** 2 for g, v in logs.items() for x in v)
        if best_p is None or err < best_p[0]:
            best_p = (err, {g: math.exp(v) for g, v in eff.items()}, beta)
    counts = {g: sum(1 for _, _, grp in dec if grp == g) for g in groups}
    if best is None:
        return SpeedModel({}, best_p[1] if best_p else {}, 0.0, {})
    return SpeedModel(best[2], best_p[1] if best_p else {}, best[1], counts, best[3], best_p[2] if best_p else 1.0)


@lru_cache(maxsize=4)
def speed_model(knowledge_dir: Path) -> SpeedModel:
    """The model fitted on the training split."""
    return fit_speed_model(tuple(m for m in load_measurements(knowledge_dir) if not m.held_out), knowledge_dir)


MIN_ROWS_CALIBRATED = 3  # a backend group needs this many measurements before its efficiency is its own


def _efficiency(table: dict[str, float], group: str) -> float | None:
    """A group's own efficiency, else CUDA's (the best-measured backend)."""
    if group in table:
        return table[group]
    return table.get("cuda") or (sorted(table.values())[len(table) // 2] if table else None)


def decode_speed(read_gb: float, bandwidth_gbs: float | None, group: str, count: int, sm: SpeedModel,
                 knowledge_dir: Path, on_cpu_gb: float = 0.0) -> float | None:
    """Tokens/s when generating at batch 1: every active weight is read once per token (`read_gb`), the part held in
    system RAM (`on_cpu_gb`) at the CPU's memory speed."""
    e = _efficiency(sm.decode_efficiency, group)
    if not bandwidth_gbs or not e:
        return None
    s = settings(knowledge_dir)
    t = (read_gb - on_cpu_gb) / (e * _effective_bw(bandwidth_gbs, sm.bandwidth_exponent)) + sm.token_overhead_s + \
        float(s["multi_gpu_hop_ms"]) / 1000 * (count - 1)
    if on_cpu_gb:
        t += on_cpu_gb / (float(s["offload"]["ram_bandwidth_gbs"]) * float(s["offload"]["efficiency"]))
    return 1 / t


def mixed_decode_speed(gpus: list[GPU], model: ModelSpec, quant: Quant, knowledge_dir: Path) -> float | None:
    """Tokens/s of different cards splitting a model by layers in proportion to their memory (llama.cpp's default
    split): each card reads its share of the weights per token, in turn."""
    sm = speed_model(knowledge_dir)
    total = sum(usable_memory_gb(g, knowledge_dir) for g in gpus)
    read_gb = model.active_b * quant.bits_per_weight / 8
    t = sm.token_overhead_s + float(settings(knowledge_dir)["multi_gpu_hop_ms"]) / 1000 * (len(gpus) - 1)
    for g in gpus:
        e = _efficiency(sm.decode_efficiency, backend_group(g, knowledge_dir))
        if not g.mem_bandwidth_gbs or not e:
            return None
        t += read_gb * usable_memory_gb(g, knowledge_dir) / total / (e * _effective_bw(g.mem_bandwidth_gbs,
                                                                                      sm.bandwidth_exponent))
    return 1 / t


@dataclass(frozen=True)
class ServingSpeed:
    """Generation speed of a setup serving `users` requests at once (vLLM-style batching; formula only)."""

    users: int
    per_user_tokens_per_s: float
    total_tokens_per_s: float
    compute_bound: bool  # the batch is large enough that tensor throughput, not bandwidth, sets the pace


def tensor_parallel_speedup(count: int, knowledge_dir: Path) -> float:
    """How many times one card's bandwidth and compute `count` cards give when each layer is split over them (vLLM
    tensor parallel): `count` less the all-reduce's share of each doubling (knowledge/llm-inference.yaml `serving`)."""
    if count <= 1:
        return 1.0
    return count * float(settings(knowledge_dir)["serving"]["tensor_parallel_efficiency"]) ** math.log2(count)


def serving_speed(gpu: GPU, model: ModelSpec, quant: Quant, users: int, count: int, knowledge_dir: Path,
                  context: int | None = None) -> ServingSpeed | None:
    """Tokens/s each of `users` gets, and all of them together, when `count` x `gpu` serve `model` at `quant` with
    tensor parallelism: a step reads the weights once and each request's KV cache (bandwidth), and computes 2 FLOPs
    per active parameter per request (tensor throughput); the slower of the two sets the step's time. The
    efficiencies are the llama.cpp ones fitted here; knowledge/llm-inference.yaml `serving` says what else is assumed."""
    s, sm = settings(knowledge_dir), speed_model(knowledge_dir)
    cfg = s["serving"]
    group = backend_group(gpu, knowledge_dir)
    e_bw, e_c = _efficiency(sm.decode_efficiency, group), _efficiency(sm.prefill_efficiency, group)
    tflops = compute_tflops(gpu)
    if not (gpu.mem_bandwidth_gbs and tflops and e_bw and e_c and users >= 1):
        return None
    parallel = tensor_parallel_speedup(count, knowledge_dir)
    ctx = int(context or s["default_context"])
    read_gb = model.active_b * quant.bits_per_weight / 8 + \
        users * model.kv_bytes_per_token(float(s["kv_cache_bytes"])) * ctx * float(cfg["average_context_share"]) / 1e9
    t_memory = read_gb / (e_bw * _effective_bw(gpu.mem_bandwidth_gbs, sm.bandwidth_exponent) * parallel)
    t_compute = users * 2 * model.active_b * 1e9 / (e_c * _effective_compute(tflops, sm.compute_exponent) * 1e12 *
                                                    parallel)
    step = max(t_memory, t_compute) + sm.token_overhead_s
    return ServingSpeed(users, 1 / step, users / step, t_compute > t_memory)


def prefill_speed(active_b: float, tflops: float | None, group: str, sm: SpeedModel) -> float | None:
    """Tokens/s when reading the prompt: compute-bound, 2 FLOPs per active parameter per token."""
    e = _efficiency(sm.prefill_efficiency, group)
    if not tflops or not e:
        return None
    return e * _effective_compute(tflops, sm.compute_exponent) * 1e12 / (2 * active_b * 1e9)


def predict(m: Measurement, sm: SpeedModel, knowledge_dir: Path) -> float | None:
    """The formula's figure for a measured row (what `make bench` compares on the held-out split)."""
    group = backend_group(None, knowledge_dir, m.backend)
    if m.test == "decode":
        bpw = _bits(m.quant, load_models(knowledge_dir))
        return decode_speed(m.active_b * bpw / 8, m.bandwidth_gbs, group, m.count, sm, knowledge_dir) if bpw else None
    return prefill_speed(m.active_b, m.compute_tflops, group, sm)


def usable_memory_gb(gpu: GPU, knowledge_dir: Path) -> float:
    """What the model may use of one device: all of a card; what the maker lets the GPU have of a computer's unified
    memory; the GPU's default share of a Mac's."""
    if gpu.gpu_memory_gb:
        return gpu.gpu_memory_gb
    if gpu.segment == "mac":
        return gpu.vram_gb * float(settings(knowledge_dir)["unified_memory_gpu_share"])
    return gpu.vram_gb


def memory(model: ModelSpec, quant: Quant, context: int, count: int, knowledge_dir: Path, kv_bits: int | None = None
           ) -> tuple[float, float, float]:
    """(weights, KV cache, overhead) in GiB for the whole setup. `kv_bits`: a quantised KV cache (q8_0: 8)."""
    s = settings(knowledge_dir)
    weights = model.params_b * 1e9 * quant.bits_per_weight / 8 / GIB
    kv_bytes = kv_bits / 8 * 1.0625 if kv_bits else float(s["kv_cache_bytes"])  # q8_0/q4_0 blocks carry a scale
    kv = model.kv_bytes_per_token(kv_bytes) * context / GIB
    per_card = float(s["reserved_per_card_gb"]) + float(s["compute_buffer_gb"]) + \
        float(s["compute_buffer_per_8k_gb"]) * context / 8192
    return weights, kv, per_card * count


def estimate(gpu: GPU, model: ModelSpec, quant: Quant, knowledge_dir: Path, count: int = 1,
             context: int | None = None, use_measured: bool = True, kv_bits: int | None = None) -> FitEstimate:
    """Memory, fit and speed of `count` x `gpu` running `model` at `quant` (batch 1)."""
    s = settings(knowledge_dir)
    ctx = int(context or s["default_context"])
    weights, kv, overhead = memory(model, quant, ctx, count, knowledge_dir, kv_bits)
    total = weights + kv + overhead
    vram = usable_memory_gb(gpu, knowledge_dir) * count
    fits = total <= vram
    offload = max(0.0, total - vram)
    group = backend_group(gpu, knowledge_dir)
    sm = speed_model(knowledge_dir)
    read_gb = model.active_b * quant.bits_per_weight / 8  # GB read per generated token
    on_cpu = min(read_gb, read_gb * offload / weights) if weights else 0.0
    unified = gpu.unified_memory  # no separate system RAM to offload to
    decode = None if unified and offload else \
        decode_speed(read_gb, gpu.mem_bandwidth_gbs, group, count, sm, knowledge_dir, on_cpu)
    prefill = None if offload else prefill_speed(model.active_b, compute_tflops(gpu), group, sm)
    own = sm.trained_on.get(group, 0) >= MIN_ROWS_CALIBRATED
    moe_measured = any(m.active_params_b for m in load_measurements(knowledge_dir))
    # no measured MoE rows yet: their per-token routing cost is not in the fit, so say "formula only"
    basis = "calibrated" if own and quant.kind != "gptq" and (not model.is_moe or moe_measured) else "formula"
    measured = tuple(m for m in (load_measurements(knowledge_dir) if use_measured else ())
                     if m.gpu in (gpu.name, gpu.architecture) and m.count == count and m.quant == quant.code
                     and abs(m.params_b / model.params_b - 1) <= 0.08)
    dec_meas = [m.tokens_per_s for m in measured if m.test == "decode"]
    pre_meas = [m.tokens_per_s for m in measured if m.test == "prefill"]
    if dec_meas and fits:
        decode, basis = sorted(dec_meas)[len(dec_meas) // 2], "measured"
        if pre_meas:
            prefill = sorted(pre_meas)[len(pre_meas) // 2]
    return FitEstimate(
        gpu.name, count, model.name, model.params_b, model.active_b, quant.code, quant.bits_per_weight, ctx,
        round(weights, 1), round(kv, 1), round(overhead, 1), round(total, 1), round(vram, 1), fits, round(offload, 1),
        _round_speed(decode), _round_speed(prefill), basis, measured,
        _assumptions(model, quant, ctx, count, group, basis, 0.0 if unified else offload, sm, knowledge_dir, kv_bits)
        + ((Text(f"a Mac's GPU may use about {float(s['unified_memory_gpu_share']):.0%} of its {gpu.vram_gb:g} GB "
                 "unified memory by default (raised with `sudo sysctl iogpu.wired_limit_mb=...`)",
                 f"Mac 的 GPU 默认最多使用约 {float(s['unified_memory_gpu_share']):.0%} 的统一内存（共 {gpu.vram_gb:g} GB），"
                 "可用 `sudo sysctl iogpu.wired_limit_mb=...` 调高"),) if gpu.segment == "mac" else
           (Text(f"the GPU may use up to {gpu.gpu_memory_gb:g} GB of the {gpu.vram_gb:g} GB of unified memory",
                 f"GPU 最多可用 {gpu.vram_gb:g} GB 统一内存中的 {gpu.gpu_memory_gb:g} GB"),) if unified and gpu.gpu_memory_gb
           else ()))


def _round_speed(v: float | None) -> float | None:
    if v is None:
        return None
    return round(v) if v >= 20 else round(v, 1)


def _assumptions(model: ModelSpec, quant: Quant, ctx: int, count: int, group: str, basis: str, offload: float,
                 sm: SpeedModel, knowledge_dir: Path, kv_bits: int | None = None) -> tuple[Text, ...]:
    s = settings(knowledge_dir)
    kv = f"q{kv_bits}_0" if kv_bits else "F16"
    out = [Text(f"{quant.label_en}: {quant.bits_per_weight:g} bits per weight; KV cache in {kv} for a {ctx:,}-token "
                f"context; {float(s['reserved_per_card_gb']) + float(s['compute_buffer_gb']):g} GB per card for the "
                "runtime and compute buffers; sizes in GiB, as cards are labelled",
                f"{quant.label_zh}：每个权重 {quant.bits_per_weight:g} 位；KV 缓存 {kv}、上下文 {ctx:,} token；"
                f"每张卡为运行时和计算缓冲预留 {float(s['reserved_per_card_gb']) + float(s['compute_buffer_gb']):g} GB；"
                "容量按 GiB 计（与显卡标称一致）")]
    if model.is_moe:
        out.append(Text(f"mixture of experts: all {model.params_b:g}B parameters must be in memory, but only "
                        f"{model.active_b:g}B are read per token",
                        f"MoE 模型：{model.params_b:g}B 参数都要放进内存，但每个 token 只读取 {model.active_b:g}B"))
    if count > 1:
        out.append(Text(f"split by layers over {count} cards (llama.cpp's default): memory adds up, generation speed "
                        "does not multiply",
                        f"按层切分到 {count} 张卡（llama.cpp 默认）：显存相加，生成速度不会成倍增加"))
    if offload:
        out.append(Text(f"{offload:.1f} GB of weights stay in system RAM and run on the CPU (~"
                        f"{s['offload']['ram_bandwidth_gbs']} GB/s dual-channel DDR5): much slower",
                        f"{offload:.1f} GB 权重留在内存里由 CPU 计算（双通道 DDR5 约 {s['offload']['ram_bandwidth_gbs']} GB/s），"
                        "速度会慢很多"))
    n = sum(sm.trained_on.values())
    how = {"measured": Text("speed: measured (published llama.cpp figures for this card, model size and format)",
                            "速度：实测值（公开的 llama.cpp 数据，同卡、同模型规模、同格式）"),
           "calibrated": Text(f"speed: estimated, calibrated on {n} published llama.cpp measurements ({group}); "
                              "batch 1, short prompt",
                              f"速度：估算值，按 {n} 条公开 llama.cpp 实测校准（{group}）；batch 1、短提示"),
           "formula": Text("speed: formula only (memory bandwidth over the bytes read per token); no measurements "
                           f"for this backend ({group}) or format to calibrate on",
                           f"速度：仅公式估算（显存带宽 ÷ 每个 token 读取的字节）；该后端（{group}）或格式没有可校准的实测")}
    out.append(how[basis])
    return tuple(out)


def default_quant(model: ModelSpec, knowledge_dir: Path, table: ModelTable) -> Quant:
    """What a practitioner runs locally when nobody says: the released format of a model released quantised, else
    4-bit (Q4_K_M) from 7B up, 8-bit below."""
    s = settings(knowledge_dir)
    if model.native_quant and table.quant(model.native_quant):
        return table.quant(model.native_quant)  # released quantised (gpt-oss in MXFP4): run as released
    code = s["default_quant"] if model.params_b >= float(s["small_model_below_b"]) else s["small_model_quant"]
    return table.quant(code)


@dataclass(frozen=True)
class FitAnswer:
    """A verdict over the usual formats: the one to use (`chosen`), and every format on the ladder."""

    chosen: FitEstimate
    ladder: tuple[FitEstimate, ...]
    best_fitting: FitEstimate | None  # the highest-quality format that fits
    asked_quant: bool  # the user named the format
    cards_needed: int | None  # identical cards that would hold the chosen format, when it does not fit


def fit(gpu: GPU, model: ModelSpec, knowledge_dir: Path, count: int = 1, quant: Quant | None = None,
        context: int | None = None, kv_bits: int | None = None) -> FitAnswer:
    table = load_models(knowledge_dir)
    ladder_codes = settings(knowledge_dir)["ladder"]
    ladder = tuple(estimate(gpu, model, q, knowledge_dir, count, context, kv_bits=kv_bits)
                   for c in ladder_codes if (q := table.quant(c)))
    best = next((e for e in ladder if e.fits and e.total_gb <= 0.9 * e.vram_gb), None)  # room left for context
    if quant is not None:
        chosen = estimate(gpu, model, quant, knowledge_dir, count, context, kv_bits=kv_bits)
    else:
        default = default_quant(model, knowledge_dir, table)
        chosen = estimate(gpu, model, default, knowledge_dir, count, context, kv_bits=kv_bits)
        if not chosen.fits:
            lower = [e for e in ladder if e.fits and e.bits_per_weight < default.bits_per_weight]
            chosen = lower[0] if lower else chosen
    need = None
    if not chosen.fits and not gpu.unified_memory and gpu.form_factor != "Laptop":  # one GPU per computer or laptop
        for n in (2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32):
            w, kv, oh = memory(model, table.quant(chosen.quant), chosen.context, n, knowledge_dir, kv_bits)
            if n > count and w + kv + oh <= usable_memory_gb(gpu, knowledge_dir) * n:
                need = n
                break
    return FitAnswer(chosen, ladder, best, quant is not None, need)


def model_for(knowledge_dir: Path, name: str | None, params_b: float | None) -> ModelSpec | None:
    """The model a need means: the named one when its size agrees with the size stated (±15 %), else a generic model
    of that size. One rule for the scorer and the answers."""
    if name:
        m = load_models(knowledge_dir).get(name)
        if m is not None and (not params_b or abs(m.params_b / params_b - 1) <= 0.15):
            return m
    return generic_model(params_b, knowledge_dir) if params_b else None


def quant_for(knowledge_dir: Path, code: str | None, bits: int | None) -> Quant | None:
    """The format a need means: the one named, else the usual one of the width stated ("4-bit" -> Q4_K_M)."""
    table = load_models(knowledge_dir)
    if code and table.quant(code):
        return table.quant(code)
    return table.quant_for_bits(bits) if bits else None


def resolve_model(text: str, knowledge_dir: Path) -> ModelSpec | None:
    """A model from the table by name ('qwen2.5 32b'), or a generic one of that size ('8b', '14B')."""
    table = load_models(knowledge_dir)
    m = table.find(text)
    if m:
        return m
    size = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*b\s*", text.lower())
    if size:
        return generic_model(float(size[1]), knowledge_dir)
    return None


def generic_model(params_b: float, knowledge_dir: Path) -> ModelSpec | None:
    """'A 14B model': a dense model of `params_b` shaped like the newest known model of about that size (layers
    scale with the square root of size when none is close)."""
    from dataclasses import replace

    shape = load_models(knowledge_dir).nearest(params_b)
    if shape is None:
        return None
    layers = max(1, round(shape.layers * (params_b / shape.params_b) ** 0.5))
    return replace(shape, name=f"{params_b:g}B", aliases=(), params_b=params_b, active_params_b=None, layers=layers,
                   notes=f"shape like {shape.name}", licence="", gated=False, generic=True)
