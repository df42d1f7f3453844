"""Deterministic ranking: hard constraints (date, vendor, price, memory), then speed and value, with reasons.

A pure function of (catalog, needs, as_of): no model, no clock except the `as_of` default, no randomness."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from pathlib import Path

import yaml

from bot.catalog import GPU, Catalog, Price
from bot.i18n import Text, money
from bot.need import LLM_WORKLOADS, PRICING_CURRENCIES, Budget, Need
from bot.perf import PerfModel, load_perf_model
from bot.vram import MemoryEstimate, estimate

MODULE_FORM_FACTORS = ("SXM", "OAM")
MULTI_CARD_COUNTS = (2, 4)  # setups tried when no single card holds an LLM job
DEFAULT_WORKLOAD = "general"  # "deep learning" with nothing more specific
SYSTEM_POWER_W = 250  # CPU, board, drives: what a PSU feeds besides the cards
PSU_HEADROOM = 1.25  # a PSU sized 25% over the steady draw rides out the cards' transient spikes


@dataclass(frozen=True)
class WorkloadSpec:
    name: str
    label: Text
    family: str
    min_vram_gb: float
    comfortable_vram_gb: float
    memory_source: str
    default_method: str | None
    default_precision_bits: int | None
    caveat: Text | None = None
    quantised_default: tuple[int, float] | None = None  # (bits, from this many billion parameters)


@dataclass(frozen=True)
class Candidate:
    gpu: GPU
    price: Price  # per card
    count: int
    perf: float  # relative to one reference card, for the whole setup
    total: float

    @property
    def value(self) -> float:
        """Relative speed per 1,000 of the currency spent."""
        return 1000 * self.perf / self.total


@dataclass(frozen=True)
class Pick:
    candidate: Candidate
    role: str  # "best" | "value" | "overall" | "runner_up"
    reasons: tuple[Text, ...]
    caveats: tuple[Text, ...]

    @property
    def gpu(self) -> GPU:
        return self.candidate.gpu


@dataclass(frozen=True)
class Exclusion:
    gpu: GPU
    why: Text


@dataclass(frozen=True)
class Ranking:
    need: Need
    currency: str  # what prices are compared in (CNY or USD)
    budget: Budget | None  # the need's budget in `currency` (converted when the user wrote another currency)
    count: int  # cards in each setup
    workload: WorkloadSpec
    as_of: date
    required_vram_gb: float  # per card
    memory: MemoryEstimate | None
    picks: tuple[Pick, ...]
    candidates: tuple[Candidate, ...]  # everything that met the hard constraints, best first
    notable_exclusions: tuple[Exclusion, ...] = ()
    suggestions: tuple[Text, ...] = ()  # when nothing fits: quantise, two cards, rent
    notes: tuple[Text, ...] = field(default=())
    used_fallback: bool = False  # no new card met the need, so these picks include used-market prices


@lru_cache(maxsize=4)
def load_workloads(knowledge_dir: Path) -> dict:
    return yaml.safe_load((knowledge_dir / "workloads.yaml").read_text(encoding="utf-8"))


def workload_spec(knowledge_dir: Path, workload: str | None, on: date) -> WorkloadSpec:
    table = load_workloads(knowledge_dir)
    if workload not in table:
        workload = DEFAULT_WORKLOAD if DEFAULT_WORKLOAD in table else "cnn"
    data = table[workload]
    eras = [e for e in data["memory"] if e["since"] <= on.year] or data["memory"][:1]
    era = eras[-1]
    return WorkloadSpec(workload, Text(data["label"]["en"], data["label"]["zh"]), data["family"], float(era["min"]),
                        float(era["comfortable"]), era.get("source", ""), data.get("default_method"),
                        data.get("default_precision_bits"),
                        Text(data["caveat"]["en"], data["caveat"]["zh"]) if data.get("caveat") else None,
                        (int(data["quantised_default"]["bits"]), float(data["quantised_default"]["from_params_b"]))
                        if data.get("quantised_default") else None)


def memory_needed(need: Need, spec: WorkloadSpec, knowledge_dir: Path, on: date | None = None
                  ) -> tuple[float, MemoryEstimate | None]:
    """Per-card VRAM the job needs (the most any of its workloads needs), and the estimate behind it."""
    est = None
    needed = spec.min_vram_gb
    for other in need.workloads[1:]:
        needed = max(needed, workload_spec(knowledge_dir, other, on or date.today()).min_vram_gb)
    llm = next((w for w in need.workloads if w in LLM_WORKLOADS), None)
    if llm and need.model_size_b:
        llm_spec = spec if spec.name == llm else workload_spec(knowledge_dir, llm, on or date.today())
        method = "inference" if llm == "llm_inference" else (need.finetune_method or llm_spec.default_method)
        bits = need.precision_bits or default_bits(llm_spec, need.model_size_b)
        est = estimate(need.model_size_b, method, bits, knowledge_dir)
        # model weights split across cards (tensor/pipeline parallel) for inference and LoRA/QLoRA
        needed = max(needed, est.total_gb / max(1, need.gpu_count or 1))
    if need.min_vram_gb:
        needed = max(needed, need.min_vram_gb)
    return needed, est


def default_bits(spec: WorkloadSpec, params_b: float | None) -> int | None:
    """The precision assumed when the user states none: 4-bit for local LLM inference of large models."""
    q = spec.quantised_default
    if q and params_b and params_b >= q[1]:
        return q[0]
    return spec.default_precision_bits


def assumed_precision(need: Need, knowledge_dir: Path, on: date) -> int | None:
    """The bits the ranking assumed for the need's model, when the user did not say (None when they did)."""
    if need.precision_bits or need.workload != "llm_inference" or not need.model_size_b:
        return None
    spec = workload_spec(knowledge_dir, "llm_inference", on)
    bits = default_bits(spec, need.model_size_b)
    return bits if bits != spec.default_precision_bits else None


def pricing(need: Need, catalog: Catalog, on: date, lang: str = "en") -> tuple[str, Budget | None]:
    """The currency prices are compared in, and the budget in it: a CNY or USD budget as it is; another currency
    (EUR, JPY, …) converted at the dated rate — to CNY for a buyer in mainland China, else to USD."""
    b = need.budget
    if b is None:
        return ("CNY" if need.region == "cn" or (need.region is None and lang == "zh") else "USD"), None
    if b.currency in PRICING_CURRENCIES:
        return b.currency, b
    cur = "CNY" if need.region == "cn" else "USD"
    conv = catalog.fx.convert
    return cur, Budget(round(conv(b.amount, b.currency, cur, on), 2), cur,
                       low=round(conv(b.low, b.currency, cur, on), 2) if b.low else None, approximate=True)


def power_cap_w(need: Need) -> float | None:
    """The most one card may draw: the user's own cap, or what their PSU can feed for the whole setup."""
    caps = []
    if need.max_power_w:
        caps.append(need.max_power_w)
    if need.psu_w:
        caps.append((need.psu_w / PSU_HEADROOM - SYSTEM_POWER_W) / max(1, need.gpu_count or 1))
    return min(caps) if caps else None


def psu_for(tdp_w: float, count: int = 1) -> int:
    """A PSU size for `count` cards of `tdp_w` each (rounded to 50 W)."""
    return int(math.ceil((tdp_w * count + SYSTEM_POWER_W) * PSU_HEADROOM / 50) * 50)


def price_for(gpu: GPU, currency: str, used_ok: bool | None, on: date, catalog: Catalog) -> Price | None:
    """The price the user would pay on `on`: new, or used when they allow it and it is cheaper."""
    new = gpu.price(currency, "new", on, catalog.fx)
    if used_ok:
        used = gpu.price(currency, "used", on, catalog.fx)
        if used and (new is None or used.amount < new.amount):
            return used
    return new


def rank(catalog: Catalog, need: Need, knowledge_dir: Path, as_of: date | None = None,
         perf_model: PerfModel | None = None, lang: str = "en") -> Ranking:
    """Every card that meets the need's hard constraints, best first, and the picks with their reasons."""
    on = as_of or need.as_of or date.today()
    currency, budget = pricing(need, catalog, on, lang)
    model = perf_model or load_perf_model(knowledge_dir)
    spec = workload_spec(knowledge_dir, need.workload, on)
    needed, est = memory_needed(need, spec, knowledge_dir, on)
    ref = catalog.get(model.reference_gpu)
    count = max(1, need.gpu_count or 1)
    vendors = (need.vendor,) if need.vendor else model.default_vendors
    cap = power_cap_w(need)

    candidates: list[Candidate] = []
    too_small: list[Candidate] = []
    over_budget: list[Candidate] = []
    modules_ok = need.form_factor == "server" or count >= 8
    for g in catalog:
        if g.release_date and g.release_date > on:
            continue
        if vendors and g.vendor not in vendors:
            continue
        if g.form_factor in MODULE_FORM_FACTORS and not modules_ok:
            continue  # an SXM/OAM module needs a server board: only for those who ask for servers
        if cap and g.tdp_w and g.tdp_w > cap:
            continue
        price = price_for(g, currency, need.used, on, catalog)
        if price is None or ref is None:
            continue
        perf = model.relative(g, spec.family, ref, count)
        if perf is None or (need.min_perf is not None and perf <= need.min_perf):
            continue
        c = Candidate(g, price, count, perf, price.amount * count)
        if g.vram_gb < needed:
            too_small.append(c)
        elif budget and c.total > budget.amount:
            over_budget.append(c)
        else:
            candidates.append(c)

    candidates.sort(key=lambda c: (-c.perf, c.total, c.gpu.name))
    picks = _choose(candidates, budget, currency, spec, needed, model.reference_gpu)
    exclusions = _notable_exclusions(candidates, too_small, over_budget, needed, budget)
    suggestions = () if picks else _suggestions(need, est, needed, over_budget)
    return Ranking(need, currency, budget, count, spec, on, round(needed, 1), est, tuple(picks), tuple(candidates),
                   exclusions, suggestions)


_QLORA_NOTE = Text("LoRA on this model does not fit the budget, so these are for QLoRA (4-bit base weights, a little "
                   "slower, nearly the same quality).",
                   "这个模型做 LoRA 在预算内装不下，下面按 QLoRA（4 位基座权重，稍慢，效果接近）推荐。")


def _split_note(n: int) -> Text:
    return Text(f"No single card holds this within the budget, so these are {n}-card setups: the model is split across "
                "the cards (memory adds up, speed does not multiply), and consumer cards talk over PCIe.",
                f"单张卡在预算内装不下，下面是 {n} 卡方案：模型按层切分到各张卡上（显存相加，速度不会成倍增加），消费级卡之间走 PCIe。")


def _alternatives(need: Need):
    """What an expert tries, in order, when nothing meets the need as asked: the used market, QLoRA instead of LoRA,
    the model split over two or four identical cards. Each with the note the reply makes of it."""
    markets = (need.used,) if need.used is not None else (None, True)
    for used in markets:
        yield replace(need, used=used), ()
    if need.workload == "llm_finetune" and need.finetune_method is None and need.model_size_b:
        for used in markets:
            yield replace(need, finetune_method="qlora", used=used), (_QLORA_NOTE,)
    if need.gpu_count is None and need.workload in LLM_WORKLOADS and need.model_size_b:
        for n in MULTI_CARD_COUNTS:
            for used in markets:
                yield replace(need, gpu_count=n, used=used), (_split_note(n),)


def rank_or_used(catalog: Catalog, need: Need, knowledge_dir: Path, as_of: date | None = None,
                 lang: str = "en") -> Ranking:
    """`rank`, and when nothing meets the need as asked, the first alternative that has picks (`_alternatives`):
    flagged and noted so the reply says what changed and follow-ups carry on from it."""
    first = None
    for alt, notes in _alternatives(need):
        r = rank(catalog, alt, knowledge_dir, as_of, lang=lang)
        first = first or r
        if r.picks:
            return replace(r, notes=r.notes + notes, used_fallback=bool(alt.used) and need.used is None)
    return first


def candidate_for(catalog: Catalog, r: Ranking, name: str, knowledge_dir: Path) -> Candidate | None:
    """One card as the ranking `r` would price and score it, whether or not it met the constraints."""
    for c in r.candidates:
        if c.gpu.name == name:
            return c
    g = catalog.get(name)
    if g is None:
        return None
    price = price_for(g, r.currency, r.need.used, r.as_of, catalog)
    if price is None:
        return None
    model = load_perf_model(knowledge_dir)
    ref = catalog.get(model.reference_gpu)
    perf = (model.relative(g, r.workload.family, ref, r.count) if ref else None) or 0.0
    return Candidate(g, price, r.count, perf, price.amount * r.count)


def _choose(cands: list[Candidate], budget: Budget | None, currency: str, spec: WorkloadSpec, need: float,
            ref: str) -> list[Pick]:
    """With a budget: the fastest that fits, the best value, a runner-up. Without: the best value with comfortable
    memory ("best overall") and the best value of all."""
    if not cands:
        return []
    by_value = sorted(cands, key=lambda c: (-c.value, c.total, c.gpu.name))
    chosen: list[tuple[str, Candidate]] = []
    if budget:
        chosen.append(("best", cands[0]))
        chosen.append(("value", by_value[0]))
    else:
        roomy = [c for c in by_value if c.gpu.vram_gb >= max(spec.comfortable_vram_gb, need)]
        chosen.append(("overall", roomy[0] if roomy else by_value[0]))
        chosen.append(("value", by_value[0]))
    taken = {c.gpu.name for _, c in chosen}
    # with a budget the runner-up is the next fastest that fits; without one, the next best value
    for c in (cands if budget else by_value):
        if c.gpu.name not in taken:
            chosen.append(("runner_up", c))
            break
    seen, picks = set(), []
    for role, c in chosen:
        if c.gpu.name in seen:
            continue
        seen.add(c.gpu.name)
        picks.append(Pick(c, role, _reasons(c, role, cands, by_value, budget, currency, spec, need, ref),
                          _caveats(c, spec)))
    return picks


def _reasons(c: Candidate, role: str, cands: list[Candidate], by_value: list[Candidate], budget: Budget | None,
             currency: str, spec: WorkloadSpec, need: float, ref: str) -> tuple[Text, ...]:
    g = c.gpu
    out = []
    rank_perf = cands.index(c) + 1
    rank_value = by_value.index(c) + 1
    n = len(cands)
    setup = f"{c.count}× " if c.count > 1 else ""
    if role == "best":
        out.append(Text(f"fastest of the {n} options within {budget}: {setup}relative speed {c.perf:.2f} "
                        f"for {spec.label.en} ({ref} = 1.00)",
                        f"预算 {budget} 内 {n} 个选项中最快：{setup}相对速度 {c.perf:.2f}"
                        f"（{spec.label.zh}，{ref} = 1.00）"))
    elif role == "value":
        out.append(Text(f"best value: {c.value:.2f} relative speed per {money(1000, currency)} "
                        f"(#{rank_value} of {n})",
                        f"性价比最高：每 {money(1000, currency)} 换 {c.value:.2f} 的相对速度（{n} 个中第 {rank_value}）"))
    elif role == "overall":
        out.append(Text(f"best value among cards with {max(spec.comfortable_vram_gb, need):g} GB or more "
                        f"(comfortable for {spec.label.en}): {c.value:.2f} speed per {money(1000, currency)}",
                        f"在显存 ≥ {max(spec.comfortable_vram_gb, need):g} GB（{spec.label.zh}较从容）的卡里性价比最高："
                        f"每 {money(1000, currency)} {c.value:.2f}"))
    else:
        out.append(Text(f"runner-up: #{rank_perf} in speed ({c.perf:.2f}), {c.value:.2f} per "
                        f"{money(1000, currency)}",
                        f"备选：速度第 {rank_perf}（{c.perf:.2f}），每 {money(1000, currency)} {c.value:.2f}"))
    if role != "best" and role != "runner_up":
        out.append(Text(f"relative speed {c.perf:.2f} ({ref} = 1.00)", f"相对速度 {c.perf:.2f}（{ref} = 1.00）"))
    specs_en = [f"{g.vram_gb:g} GB VRAM (needs ≥ {need:g} GB)"]
    specs_zh = [f"{g.vram_gb:g} GB 显存（需要 ≥ {need:g} GB）"]
    if g.tensor_fp16_tflops:
        specs_en.append(f"{g.tensor_fp16_tflops:g} TFLOPS FP16 tensor")
        specs_zh.append(f"张量核心 FP16 {g.tensor_fp16_tflops:g} TFLOPS")
    else:
        specs_en.append("no tensor cores")
        specs_zh.append("没有张量核心")
    if g.mem_bandwidth_gbs:
        specs_en.append(f"{g.mem_bandwidth_gbs:,.0f} GB/s")
        specs_zh.append(f"带宽 {g.mem_bandwidth_gbs:,.0f} GB/s")
    out.append(Text(", ".join(specs_en), "，".join(specs_zh)))
    return tuple(out)


def _caveats(c: Candidate, spec: WorkloadSpec) -> tuple[Text, ...]:
    g = c.gpu
    out = []
    if c.price.market == "used":
        out.append(Text("used price: test the card before paying, ask about mining history and warranty",
                        "二手价：付款前实测，问清是否矿卡、是否还有保修"))
    if c.price.converted_from:
        out.append(Text(f"price converted from {c.price.converted_from}; local prices differ",
                        f"价格由 {c.price.converted_from} 换算，本地价格会有出入"))
    if g.form_factor in ("SXM", "OAM"):
        out.append(Text(f"{g.form_factor} module, not a PCIe card: it needs a server board or an "
                        f"{g.form_factor}-to-PCIe adapter, and its own cooling",
                        f"{g.form_factor} 模组，不是 PCIe 显卡：需要服务器主板或 {g.form_factor} 转 PCIe 转接板，并自行解决散热"))
    if g.segment == "datacenter":
        out.append(Text("data-centre card: passive cooling (needs server airflow), priced for companies",
                        "数据中心卡：被动散热（需要服务器风道），价格面向企业"))
    if g.vendor != "NVIDIA":
        out.append(Text(f"{g.vendor}: no CUDA; check that your framework supports it (ROCm / oneAPI) first",
                        f"{g.vendor}：不支持 CUDA，先确认你的框架支持（ROCm / oneAPI）"))
    if g.tdp_w and g.tdp_w * c.count >= 300:
        psu = psu_for(g.tdp_w, c.count)
        out.append(Text(f"{g.tdp_w * c.count:.0f} W of GPU power: plan a ~{psu} W PSU and good case airflow",
                        f"显卡功耗 {g.tdp_w * c.count:.0f} W：电源建议约 {psu} W，机箱散热要好"))
    if g.vram_gb < spec.comfortable_vram_gb:
        out.append(Text(f"{g.vram_gb:g} GB is enough to start but tight for bigger models "
                        f"({spec.comfortable_vram_gb:g} GB is comfortable)",
                        f"{g.vram_gb:g} GB 够入门，但大模型会紧张（{spec.comfortable_vram_gb:g} GB 比较从容）"))
    if g.notes:
        out.append(Text(g.notes, ""))  # the catalog's notes are in English
    return tuple(out)


def _notable_exclusions(cands: list[Candidate], too_small: list[Candidate], over_budget: list[Candidate],
                        need: float, budget: Budget | None) -> tuple[Exclusion, ...]:
    """Faster cards the user might expect, and why they are not picked."""
    top = cands[0].perf if cands else 0.0
    out = []
    for c in sorted(too_small, key=lambda c: -c.perf)[:2]:
        if c.perf > top and (not budget or c.total <= budget.amount):
            out.append(Exclusion(c.gpu, Text(f"{c.gpu.vram_gb:g} GB VRAM, below the {need:g} GB this job needs",
                                             f"显存 {c.gpu.vram_gb:g} GB，低于所需的 {need:g} GB")))
    for c in sorted(over_budget, key=lambda c: c.total)[:2]:
        out.append(Exclusion(c.gpu, Text(f"{money(c.total, c.price.currency)} is over the budget",
                                         f"{money(c.total, c.price.currency)} 超出预算")))
    return tuple(out)


def _suggestions(need_: Need, est: MemoryEstimate | None, need: float, over_budget: list[Candidate]
                 ) -> tuple[Text, ...]:
    out = []
    if est and est.precision_bits > 4 and need_.workload in LLM_WORKLOADS:
        if need_.workload == "llm_inference":
            out.append(Text("quantise the model to 4-bit (GGUF/AWQ/GPTQ): it needs about a third of the memory",
                            "把模型量化到 4 位（GGUF/AWQ/GPTQ），显存需求约为三分之一"))
        else:
            out.append(Text("use QLoRA (4-bit base weights) instead: far less memory",
                            "改用 QLoRA（4 位基座权重），显存需求低得多"))
    if (need_.gpu_count or 1) <= 1 and need_.workload in LLM_WORKLOADS:
        out.append(Text("split the model across two cards", "用两张卡分摊模型"))
    cheapest_fit = min((c for c in over_budget if c.gpu.vram_gb >= need), key=lambda c: c.total, default=None)
    if cheapest_fit:
        out.append(Text(f"the cheapest card that fits is {cheapest_fit.gpu.name} at "
                        f"{money(cheapest_fit.total, cheapest_fit.price.currency)}",
                        f"能装下的最便宜的卡是 {cheapest_fit.gpu.name}，{money(cheapest_fit.total, cheapest_fit.price.currency)}"))
    if need_.used is not True:
        out.append(Text("look at the used market", "考虑二手市场"))
    out.append(Text("rent a GPU by the hour instead", "按小时租用云 GPU"))
    return tuple(out)
