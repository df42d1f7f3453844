"""Deterministic ranking: hard constraints (date, vendor, price, memory), then speed and value, with reasons.

A pure function of (catalog, needs, as_of): no model, no clock except the `as_of` default, no randomness."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from bot.catalog import GPU, MODULE_FORM_FACTORS, Availability, Catalog, Price, load_workloads
from bot.fit import estimate as fit_estimate
from bot.fit import (
    memory,
    mixed_decode_speed,
    model_for,
    quant_for,
    serving_speed,
    settings,
    tensor_parallel_speedup,
    usable_memory_gb,
)
from bot.i18n import CURRENCY_NAMES, MARKET_WHERE, PRICE_BASIS, PRICE_LIST, Text, money, per_thousand
from bot.models import Quant
from bot.need import LLM_WORKLOADS, PRICING_CURRENCIES, Budget, Need
from bot.perf import PerfModel, load_perf_model
from bot.vram import MemoryEstimate, estimate

# jobs whose memory decides which models run at all: the picks lead with memory, then speed
MEMORY_BOUND_WORKLOADS = ("llm_inference", "llm_finetune", "diffusion", "video")
MULTI_CARD_COUNTS = (2, 4)  # setups tried when no single card holds an LLM job
DEFAULT_WORKLOAD = "general"  # "deep learning" with nothing more specific
SYSTEM_POWER_W = 250  # CPU, board, drives: what a PSU feeds besides the cards
PSU_HEADROOM = 1.2  # 20% over the steady draw rides out transient spikes; it gives the PSU sizes GPU makers publish
LARGEST_PSU_W = 1600  # the biggest workstation PSU commonly sold (the guide's power-and-cooling section, Lambda 2020)
MIN_POWER_LIMIT_SHARE = 0.5  # a power limit below this share of a card's TDP costs too much speed to suggest
ONE_CARD_MAX_W = 700  # no single card draws more: a cap above this is for the whole machine ("4 cards, 1600 W")


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
    trains: bool = True  # the workload trains models (False: inference only)
    small_models_fit: bool = False  # under the minimum memory, small models of the kind still train
    served_formats: tuple[tuple[int, str], ...] = ()  # (bits, format code) a server runs at that width ("AWQ" at 4)
    value_first: bool = False  # the GPU mostly waits on something else (RL's CPU simulation): the best value leads


SMALL_MODELS_SHARE = 0.5  # memory at least this share of a training job's minimum still trains small models


@dataclass(frozen=True)
class Candidate:
    gpu: GPU
    price: Price  # per card
    count: int
    perf: float  # relative to one reference card, for the whole setup
    total: float
    with_owned: tuple[str, ...] = ()  # cards the user already has that this one joins (not in `total`)
    owned_gb: float = 0.0  # their memory
    owned_w: float = 0.0  # their board power
    power_limit_w: float | None = None  # each card power-limited to this to run on the user's PSU (two 350 W cards, 850 W)

    @property
    def setup(self) -> Text:
        """What the user buys and runs: 'N× card', or 'card + your other card'."""
        base = f"{self.count}× {self.gpu.name}" if self.count > 1 else self.gpu.name
        if not self.with_owned:
            return Text(base, base)
        mine = " + ".join(self.with_owned)
        return Text(f"{base} + your {mine}", f"{base} + 你现有的 {mine}")

    @property
    def value(self) -> float:
        """Relative speed per 1,000 of the currency spent."""
        return 1000 * self.perf / self.total


@dataclass(frozen=True)
class Pick:
    candidate: Candidate
    role: str  # "best" | "value" | "overall" | "roomy" (fastest in budget with comfortable memory) | "runner_up" |
    # for memory-bound jobs, "memory_first" (the fastest with comfortable memory, leading) or "roomier" (more memory
    # than the fastest, none comfortable), then "fastest" (faster, less memory)
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
    used_fallback: bool = False  # these picks include used-market prices though the user did not ask for them
    used_why: str | None = None  # "no_new": no new card met the need; "better_value": used cards are the usual buy


def default_vendors(knowledge_dir: Path) -> tuple[str, ...]:
    """The makers ranked unless the user asks for another (CUDA support: perf-model.yaml)."""
    return load_perf_model(knowledge_dir).default_vendors


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
                        if data.get("quantised_default") else None, bool(data.get("trains", True)),
                        bool(data.get("small_models_fit", False)),
                        tuple((int(b), str(c)) for b, c in (data.get("served_formats") or {}).items()),
                        bool(data.get("value_first", False)))


def memory_needed(need: Need, spec: WorkloadSpec, knowledge_dir: Path, on: date | None = None
                  ) -> tuple[float, MemoryEstimate | None]:
    """Per-card VRAM the job needs (the most any of its workloads needs), and the estimate behind it."""
    est = None
    needed = spec.min_vram_gb * (SMALL_MODELS_SHARE if need.small_models and spec.small_models_fit else 1.0)
    for other in need.workloads[1:]:
        needed = max(needed, workload_spec(knowledge_dir, other, on or date.today()).min_vram_gb)
    llm = next((w for w in need.workloads if w in LLM_WORKLOADS), None)
    count = max(1, need.gpu_count or 1)
    if llm and need.model_size_b:
        llm_spec = spec if spec.name == llm else workload_spec(knowledge_dir, llm, on or date.today())
        method = "inference" if llm == "llm_inference" else (need.finetune_method or llm_spec.default_method)
        # serving (vLLM) a big model unquantised is not the default either: AWQ 4-bit is how a few users are served
        bits = need.precision_bits or default_bits(llm_spec, need.model_size_b)
        if method == "inference":
            est, per_card = _inference_memory(need, bits, count, knowledge_dir)
            needed = max(needed, per_card)
        else:
            est = estimate(need.model_size_b, method, bits, knowledge_dir)
            # model weights split across cards (sharded LoRA/QLoRA)
            needed = max(needed, est.total_gb / count)
    if need.min_vram_gb:
        needed = max(needed, need.min_vram_gb)
    if need.min_total_vram_gb:  # "more memory?" after two cards: more in all, shared by however many cards
        needed = max(needed, need.min_total_vram_gb / count)
    return needed, est


def _inference_memory(need: Need, bits: int | None, count: int, knowledge_dir: Path
                      ) -> tuple[MemoryEstimate, float]:
    """Running the need's model, as bot.fit counts it (the same figures a fit answer shows): the estimate for one
    card, and what each of `count` cards must hold when the layers are split over them."""
    model = model_for(knowledge_dir, need.model, need.model_size_b)
    quant = served_quant(need, bits, knowledge_dir)
    ctx = need.context_tokens or int(settings(knowledge_dir)["default_context"])
    w, kv, oh = memory(model, quant, ctx, 1, knowledge_dir)
    users = serving_users(need, knowledge_dir)
    kv *= users  # vLLM keeps every running request's KV cache at once
    total = w + kv + oh
    batch_en = f"{users} users at once, {ctx:,} tokens each" if users > 1 else f"{ctx:,}-token context, batch 1"
    batch_zh = f"{users} 人同时使用、每人 {ctx:,} token" if users > 1 else f"上下文 {ctx:,} token、batch 1"
    en = (f"{model.label('en')} at {quant.label_en} = {w:.1f} GB of weights, + {kv:.1f} GB KV cache ({batch_en}), "
          f"+ {oh:.1f} GB for the runtime")
    zh = (f"{model.label('zh')} 按 {quant.label_zh} 约 {w:.1f} GB 权重，另加 {kv:.1f} GB KV 缓存（{batch_zh}），"
          f"再加 {oh:.1f} GB 运行时开销")
    est = MemoryEstimate(round(total, 1), round(w, 1), round(kv, 1), "inference", quant.bits, need.model_size_b, en, zh)
    return est, (w + kv) / count + oh


def with_assumed_serving_model(need: Need, knowledge_dir: Path) -> tuple[Need, Text | None]:
    """An LLM served to several people with no model or size named: the need for the model served by default
    (knowledge/llm-inference.yaml `serving.assumed_model`), and the note that says so; else the need as it is."""
    if need.model_size_b or need.model or not need.serves_many or need.workload != "llm_inference":
        return need, None
    m = model_for(knowledge_dir, settings(knowledge_dir)["serving"].get("assumed_model"), None)
    if m is None:
        return need, None
    return replace(need, model=m.name, model_size_b=m.params_b), Text(
        f"No model named: sized for {m.label('en')}, a common choice for an internal assistant or support bot (good "
        "answers on one or two cards). Name the model to size for it.",
        f"没说用哪个模型：按 {m.label('zh')} 来配，这是内部助手、客服一类服务的常见选择（效果好，一两张卡放得下）。说出模型名就按它来算。")


def serving_users(need: Need, knowledge_dir: Path) -> int:
    """The requests whose KV cache is held at once when a model is served to several: the users said to use it at
    once, else the share of a headcount active at the busiest moment (knowledge/llm-inference.yaml `serving`), at
    least two; one when it is not served to several."""
    if not need.serves_many:
        return 1
    if (need.concurrent_users or 0) > 1:
        return need.concurrent_users
    counted = need.daily_users or need.headcount
    if counted:
        share = settings(knowledge_dir)["serving"]["daily_peak_share" if need.daily_users else "peak_active_share"]
        return max(2, math.ceil(counted * float(share)))
    return 1


def assumed_at_once(need: Need, users: int, knowledge_dir: Path) -> Text | None:
    """How the users sized for were read from a number of people who are not all at once ("20 staff", "3000 daily
    users"), said as the assumption it is and how to change it; None when the user said how many at once."""
    if need.concurrent_users or users < 2:
        return None
    if need.daily_users:
        n, pct = need.daily_users, float(settings(knowledge_dir)["serving"]["daily_peak_share"]) * 100
        return Text(f"{n:,} daily users come and go over the day: at the busiest moment about {users} of them have a "
                    f"request running (an assumption, about {pct:g} % of a day's users; say \"{users * 2} at once\" to size "
                    "for more)",
                    f"日活 {n:,} 的用户分散在一天里：高峰时刻约 {users} 人的请求同时在跑（这是假设，约为日活的 {pct:g}%；要多留余量就说"
                    f"“{users * 2} 人同时用”）")
    if need.headcount:
        n = need.headcount
        return Text(f"Your {n} people will not all send a request at the same moment: sized for about {users} at once at "
                    f"the busiest time (an assumption; say \"{n} at once\" to size for all of them)",
                    f"{n} 个人不会在同一时刻都发请求：按高峰时约 {users} 人同时使用来配（这是假设；要按全部人同时用来配，就说"
                    f"“{n} 人同时用”）")
    return None


def setup_counts(need: Need, spec: WorkloadSpec, lab: bool = False) -> tuple[int, ...]:
    """The numbers of identical cards tried: the user's count; a lab's budget or a server: 4- and 8-card machines;
    for running an LLM of a given size, also 2 and 4 cards when one card cannot hold it (llama.cpp splits layers over
    cards with no setup at all). Training split over cards (sharding over PCIe) is otherwise a fallback only
    (`_alternatives`)."""
    if need.gpu_count:
        return (need.gpu_count,)
    if need.multi_gpu:  # "多卡训练": several cards, as many as the budget buys (a server's 8 for a lab)
        return MULTI_CARD_COUNTS + ((8,) if lab or need.form_factor == "server" else ())
    if runs_a_model(need, spec):
        return (1,) + MULTI_CARD_COUNTS + ((8,) if lab or need.form_factor == "server" else ())
    if lab:
        return (4, 8)
    return (1,)


def _with_named_model(spec: WorkloadSpec, need: Need, knowledge_dir: Path) -> WorkloadSpec:
    """An image or video model named ("预算6000跑flux", "Wan 2.1"): comfortable with the memory it runs in as released
    (knowledge/models.csv `image_infer_gb`), not the job's general figure (SD 1.5 in 8 GB)."""
    if not need.model or spec.name not in ("diffusion", "video"):
        return spec
    from bot.models import load_models

    m = load_models(knowledge_dir).get(need.model)
    if m is None or m.kind not in ("image", "video") or not m.image_infer_gb:
        return spec
    return replace(spec, comfortable_vram_gb=max(spec.comfortable_vram_gb, m.image_infer_gb))


def fine_tuning_floor(need: Need, spec: WorkloadSpec, knowledge_dir: Path) -> tuple[float, str | None]:
    """The memory fine-tuning the job's kind of model takes, and the model it is for: the named image or video model's
    LoRA figure (knowledge/models.csv `image_lora_gb`, "Flux LoRA: 24 GB minimum") when there is one, else what the job
    is comfortable with (no model)."""
    if need.model and spec.name in ("diffusion", "video"):
        from bot.models import load_models

        m = load_models(knowledge_dir).get(need.model)
        if m is not None and m.kind in ("image", "video") and m.image_lora_gb:
            return float(m.image_lora_gb), m.name
    return spec.comfortable_vram_gb, None


def whole_pc_share(need: Need, model: PerfModel) -> float:
    """The share of a whole computer's budget its graphics cards are chosen within (knowledge/perf-model.yaml); all of
    it for a Mac, which is the whole computer ("Mac or PC for ML, $3000" then "what about the Mac Studio")."""
    if need.vendor == "Apple":
        return 1.0
    several = need.multi_gpu or (need.gpu_count or 1) > 1 or need.form_factor == "server"
    return model.whole_pc_gpu_share_multi if several else model.whole_pc_gpu_share


def runs_a_model(need: Need, spec: WorkloadSpec) -> bool:
    """Running an LLM of a known size: the fewest cards that hold it are the setup, whatever the budget (cards beyond
    those add room for more concurrent users, not speed for one)."""
    return spec.name == "llm_inference" and bool(need.model_size_b)


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


def served_quant(need: Need, bits: int | None, knowledge_dir: Path) -> Quant | None:
    """The format the need's model runs in at `bits`: the one named; for a model served to several people, the
    server's format of that width (AWQ at 4-bit, FP8 at 8-bit: vLLM does not run GGUF well); else the usual one."""
    spec = workload_spec(knowledge_dir, "llm_inference", date.today())
    named = quant_for(knowledge_dir, need.quant, None) if need.quant else None
    served = dict(spec.served_formats).get(bits) if need.serves_many and bits else None
    # ("8-bit" reads as llama.cpp's Q8_0; said of a server, it is FP8)
    code = served if served and (named is None or named.kind == "gguf") else need.quant
    return quant_for(knowledge_dir, code, bits or 16)


def quant_on_a_server(need: Need, params_b: float, knowledge_dir: Path) -> Quant | None:
    """The format a model of `params_b` billion runs in when served to several people: the precision said, else the
    usual one for its size, in the server's format of that width (what a fit, a capacity and a comparison of serving
    setups all weigh)."""
    spec = workload_spec(knowledge_dir, "llm_inference", date.today())
    bits = need.precision_bits or default_bits(spec, params_b) or 16
    return served_quant(replace(need, serving=True), bits, knowledge_dir)


def pricing(need: Need, catalog: Catalog, on: date, lang: str = "en") -> tuple[str, Budget | None]:
    """The currency prices are compared in, and the budget in it: a CNY or USD budget as it is; another currency
    (EUR, JPY, …) converted at the dated rate — to CNY for a buyer in mainland China, else to USD; the cards' share
    of a whole PC's budget; lowered to a 'cheaper than' ceiling when there is one."""
    cur, budget = stated_pricing(need, catalog, on, lang)
    share = whole_pc_share(need, load_perf_model(Path(catalog.knowledge_dir))) \
        if need.whole_pc and budget is not None and catalog.knowledge_dir is not None else 1.0
    if share < 1:  # "整机预算": the cards get their share of it (before a 'cheaper than' ceiling, a card's price)
        budget = Budget(round(budget.amount * share), cur, low=round(budget.low * share) if budget.low else None,
                        approximate=True)
    ceiling = need.max_price
    if ceiling is not None:  # "cheaper?": below the last top pick, within the budget
        amount = ceiling.amount if ceiling.currency == cur else round(
            catalog.fx.convert(ceiling.amount, ceiling.currency, cur, on), 2)
        if budget is None or amount < budget.amount:
            low = budget.low if budget and budget.low and budget.low < amount else None
            budget = Budget(amount, cur, low=low)
    return cur, budget


def stated_pricing(need: Need, catalog: Catalog, on: date, lang: str = "en") -> tuple[str, Budget | None]:
    """`pricing` without the 'cheaper than' ceiling: the budget as the user stated it, in the pricing currency."""
    b, region = need.budget, need.region
    shown = need.price_currency  # "same but in euros": prices converted to that currency at the dated rate
    if b is None:
        return shown or ("CNY" if region == "cn" or (region is None and lang == "zh") else "USD"), None
    if b.currency in PRICING_CURRENCIES and shown in (None, b.currency):
        return b.currency, b
    cur = shown or ("CNY" if region == "cn" else "USD")
    conv = catalog.fx.convert
    return cur, Budget(round(conv(b.amount, b.currency, cur, on), 2), cur,
                       low=round(conv(b.low, b.currency, cur, on), 2) if b.low else None, approximate=True)


MARKET_NAMES = {"cn": Text("mainland China", "中国大陆"), "global": Text("your market", "你所在的市场")}


def buyer_market(need: Need, currency: str) -> str:
    """Where the user buys: `cn` (mainland China) when they say so or price in CNY without saying, else `global`."""
    if need.region:
        return "cn" if need.region == "cn" else "global"
    return "cn" if currency == "CNY" else "global"


def low_power_w(knowledge_dir: Path) -> float:
    """The board power "quiet and low power" means when no number is said (knowledge/perf-model.yaml)."""
    return load_perf_model(knowledge_dir).low_power_w


def power_cap_w(need: Need) -> float | None:
    """The most one card may draw: the user's own cap, or what their PSU can feed for the whole setup."""
    caps = []
    if need.max_power_w and need.max_power_w > ONE_CARD_MAX_W:
        caps.append((need.max_power_w - SYSTEM_POWER_W) / max(1, need.gpu_count or 1))  # the whole machine's draw
    elif need.max_power_w:
        caps.append(need.max_power_w)
    if need.psu_w:
        caps.append((need.psu_w / PSU_HEADROOM - SYSTEM_POWER_W) / max(1, need.gpu_count or 1))
    return min(caps) if caps else None


def psu_for(tdp_w: float, count: int = 1) -> int:
    """A PSU size for `count` cards of `tdp_w` each (rounded to 50 W)."""
    return int(math.ceil((tdp_w * count + SYSTEM_POWER_W) * PSU_HEADROOM / 50) * 50)


@dataclass(frozen=True)
class PriceElsewhere:
    """A card not sold new where the user buys, priced in the market that sells it: that market's own price, and
    the same in the user's currency as a conversion (knowledge/fx.csv at the price's date)."""

    price: Price  # native, in the other market's currency
    currency: str  # the user's currency
    converted: float
    rate_on: date | None  # the date of the exchange rate used
    block: Availability  # the record that says it is not sold where the user buys

    def conversion_text(self) -> Text:
        """'about ¥Y converted at the <date> exchange rate' / '按 <date> 汇率换算约 ¥Y'."""
        rate = f" at the {self.rate_on:%Y-%m} exchange rate" if self.rate_on else ""
        rate_zh = f"按 {self.rate_on:%Y-%m} 汇率" if self.rate_on else ""
        conv = money(self.converted, self.currency)
        return Text(f"about {conv} converted{rate}", f"{rate_zh}换算约 {conv}")

    def price_text(self) -> Text:
        """'no CNY price; US price $X (date), about ¥Y converted at the <date> exchange rate'."""
        none, listed, conv = CURRENCY_NAMES[self.currency], PRICE_LIST[self.price.currency], self.conversion_text()
        return Text(f"no {none.en} price; {listed.en} {self.price} ({self.price.on:%Y-%m}), {conv.en}",
                    f"没有{none.zh}价格；{listed.zh} {self.price}（{self.price.on:%Y-%m}），{conv.zh}")

    def text(self) -> Text:
        """'not sold new in mainland China, so no CNY price; US price $X (date), about ¥Y converted at the <date>
        exchange rate'."""
        where, rest = MARKET_WHERE[self.block.market], self.price_text()
        return Text(f"not sold new {where.en}, so {rest.en}", f"{where.zh}不销售新卡，{rest.zh}")


def price_elsewhere(gpu: GPU, currency: str, on: date, catalog: Catalog) -> PriceElsewhere | None:
    """For a card with no new price in `currency` because it is not sold new in that market (a flagship under US
    export rules in mainland China, a China-only variant outside it): the other market's native new price, converted;
    None otherwise."""
    if currency not in ("CNY", "USD"):
        return None
    block = gpu.not_sold_in("cn" if currency == "CNY" else "global", on)
    if block is None or gpu.price(currency, "new", on) is not None:  # (no fx: a native price only)
        return None
    native = gpu.price("USD" if currency == "CNY" else "CNY", "new", on)
    if native is None or catalog.fx is None:
        return None
    rate = catalog.fx.rate("CNY", native.on)
    return PriceElsewhere(native, currency, catalog.fx.convert(native.amount, native.currency, currency, native.on),
                          rate.on if rate else None, block)


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
    if need.vendor == "Apple" and need.gpu_count:
        need = replace(need, gpu_count=None)  # a Mac is the whole computer: "two cards" asked before is not two Macs
    need, assumed = with_assumed_serving_model(need, knowledge_dir)
    currency, budget = pricing(need, catalog, on, lang)
    model = perf_model or load_perf_model(knowledge_dir)
    spec = workload_spec(knowledge_dir, need.workload, on)
    others = [workload_spec(knowledge_dir, w, on) for w in need.workloads[1:]]
    spec = _with_named_model(spec, need, knowledge_dir)
    if others:  # "SD and a 13B chat model": comfortable with what the hungriest of its jobs is comfortable with
        spec = replace(spec, comfortable_vram_gb=max([spec.comfortable_vram_gb] + [o.comfortable_vram_gb for o in others]))
    needed, est = memory_needed(need, spec, knowledge_dir, on)
    def at_least(usd: float) -> bool:
        return bool(budget and budget.amount >= catalog.fx.convert(usd, "USD", currency, on))

    lab = need.form_factor == "server" or (need.gpu_count is None and (
        at_least(model.lab_budget_usd) or bool(need.shared) and at_least(model.shared_budget_usd)))
    # a lab's machine from a smaller budget: one or two big cards compete with four or eight smaller ones
    shared_only = lab and need.form_factor != "server" and not at_least(model.lab_budget_usd)
    counts = (1, 2, 4, 8) if shared_only and not runs_a_model(need, spec) else setup_counts(need, spec, lab)
    per_card = {n: round(memory_needed(replace(need, gpu_count=n), spec, knowledge_dir, on)[0], 1) for n in counts}
    ref = catalog.get(model.reference_gpu)
    count = max(1, need.gpu_count or 1)
    vendors = (need.vendor,) if need.vendor else tuple(dict.fromkeys(
        model.default_vendors + ((need.also_vendor,) if need.also_vendor else ())))
    cap = power_cap_w(need)
    serving = spec.name == "llm_inference" and need.serves_many

    candidates: list[Candidate] = []
    too_small: list[Candidate] = []
    over_budget: list[Candidate] = []
    not_sold: list[tuple[Candidate, Text]] = []
    # an SXM/OAM module needs a server: for a lab's machine or an 8-card node, not for running one model on the
    # fewest cards a big budget buys (a 7B model with $60k is still one PCIe card)
    modules_ok = need.form_factor == "server" or count >= 8 or (lab and not runs_a_model(need, spec))
    market = buyer_market(need, currency)
    no_crippled = spec.trains and model.fp16_training_since is not None and on >= model.fp16_training_since
    pool = catalog.systems if need.vendor == "Apple" else list(catalog)  # Macs only when asked for
    owned = [g for n in need.owned_gpus if (g := catalog.get(n))] if spec.name == "llm_inference" and \
        need.model_size_b and (need.gpu_count or 1) == 1 else []  # "我有一张X，再加一张": one new card
    if owned:  # a card to add to the ones the user has: the model split over all of them
        k = len(owned) + 1
        owned_total_need = memory_needed(replace(need, gpu_count=k), spec, knowledge_dir, on)[0] * k
        owned_gb = sum(usable_memory_gb(g, knowledge_dir) for g in owned)
        per_card = {1: round(owned_total_need, 1)}  # what the new card and the user's cards must hold together
    # an upgrade: a card beats the user's own on memory, or on speed (by UPGRADE_MARGIN) with as much memory
    mine = [g for n in need.upgrade_from if (g := catalog.get(n))]
    mine_perf = max((p for g in mine if (p := model.relative(g, spec.family, ref)) is not None), default=None)
    mine_gb = max((usable_memory_gb(g, knowledge_dir) for g in mine), default=0.0)
    for g in pool:
        if g in mine:
            continue
        if (no_crippled or serving) and g.crippled_fp16:
            continue  # FP16 at 1/64 rate: mixed-precision training gains nothing, vLLM does not run on it
        if serving and (g.vendor == "Apple" or (g.compute_capability and float(g.compute_capability) < 7.0)):
            continue  # vLLM/SGLang need CUDA compute capability 7.0+
        if g.release_date and g.release_date > on:
            continue
        if vendors and g.vendor not in vendors:
            continue
        if g.form_factor in MODULE_FORM_FACTORS and not modules_ok:
            continue  # an SXM/OAM module needs a server board: only for those who ask for servers
        if cap and g.tdp_w and g.tdp_w > cap:
            continue
        if need.quiet and g.segment == "datacenter":
            continue  # passive, made for a server's loud fans: no card for a quiet room
        price = price_for(g, currency, need.used, on, catalog)
        if price is None or ref is None:
            continue
        block = g.not_sold_in(market, on) if price.market != "used" else None
        holds = usable_memory_gb(g, knowledge_dir)  # a Mac's GPU gets part of its unified memory
        if g.unified_memory and holds < per_card[counts[0]] * counts[0]:
            continue  # a Mac is one machine: it holds the model alone or not at all
        if owned:
            perfs = [model.relative(x, spec.family, ref, 1) for x in owned + [g]]
            if any(p is None for p in perfs) or g.form_factor != "PCIe":
                continue
            sizes_gb = [usable_memory_gb(x, knowledge_dir) for x in owned + [g]]
            perf = 1 / sum(gb / sum(sizes_gb) / p for gb, p in zip(sizes_gb, perfs, strict=True))
            c = Candidate(g, price, 1, perf, price.amount, tuple(x.name for x in owned), owned_gb,
                          sum(x.tdp_w or 0 for x in owned))
            if block is None and owned_gb + holds >= owned_total_need:
                if not budget or c.total <= budget.amount:
                    candidates.append(c)
                else:
                    over_budget.append(c)
            continue
        if (lab or need.multi_gpu) and not need.gpu_count and not runs_a_model(need, spec):
            # a machine of 4 or 8, or "several cards": the most cards the budget buys
            fitting = [k for k in counts if holds >= per_card[k] and price.amount * k <= budget.amount] \
                if budget else [k for k in counts if holds >= per_card[k]]
            sizes = fitting[-1:] or counts[:1]
        else:  # the fewest cards that hold it
            sizes = [next((k for k in counts if holds >= per_card[k]), counts[0])]
        for n in sizes:
            perf = model.relative(g, spec.family, ref, n)
            if serving and n > 1 and perf is not None:  # vLLM splits each layer: bandwidth adds up
                perf = model.relative(g, spec.family, ref) * tensor_parallel_speedup(n, knowledge_dir)
            if perf is None or (need.min_perf is not None and perf <= need.min_perf):
                continue
            if mine and not ((mine_perf is not None and perf > UPGRADE_MARGIN * mine_perf and holds * n >= mine_gb)
                             or holds * n > mine_gb):
                continue  # faster with no less memory, or more memory: else no upgrade on the user's card
            limit = None
            if need.psu_w and n > 1 and not need.gpu_count and g.tdp_w:  # the PSU feeds the whole setup
                each = (need.psu_w / PSU_HEADROOM - SYSTEM_POWER_W) / n
                if g.tdp_w > each:
                    if each < MIN_POWER_LIMIT_SHARE * g.tdp_w:
                        continue  # limited that far it loses too much speed: not a setup for this PSU
                    limit = each // 10 * 10
            c = Candidate(g, price, n, perf, price.amount * n, power_limit_w=limit)
            if block is not None:
                where = MARKET_NAMES[market]
                e = price_elsewhere(g, currency, on, catalog)
                there = e.price_text() if e else Text("", "")
                there = Text(f" ({there.en})", f"（{there.zh}）") if e else there
                not_sold.append((c, Text(f"not sold new in {where.en} since {block.since:%Y-%m}{there.en}: "
                                         f"{block.note.en}",
                                         f"{block.since:%Y-%m} 起{where.zh}不再有新卡销售{there.zh}：{block.note.zh}")))
            elif holds < per_card[n]:
                too_small.append(c)
            elif budget and c.total > budget.amount:
                over_budget.append(c)
            else:
                candidates.append(c)

    # equal speed (to the hundredth): fewer cards first (one 96 GB card before four 32 GB ones: simpler, less power),
    # then more memory, then the cheaper (a 16 GB card before its 8 GB twin)
    candidates.sort(key=lambda c: (-round(c.perf, 2), c.count, -(c.gpu.vram_gb * c.count), c.total, c.gpu.name))
    speed = _speed_reason(need, est, knowledge_dir, catalog) if spec.name == "llm_inference" and est else None
    picks = _choose(candidates, budget, currency, spec, per_card, model.reference_gpu, speed,
                    shown_beside=model.default_vendors if need.also_vendor and not need.vendor else (),
                    memory_first=bool(set(need.workloads) & set(MEMORY_BOUND_WORKLOADS)))
    exclusions = _notable_exclusions(candidates, too_small, over_budget, needed, budget, not_sold,
                                     stretch=need.max_price is None)  # "cheaper?" is a ceiling, not a budget to stretch
    cheapest_used = None
    if not picks and need.used is None and (need.gpu_count or 1) == 1:  # "look at the used market": with its price
        used_fits = [(g, p) for g in pool if (not vendors or g.vendor in vendors) and g.form_factor not in
                     MODULE_FORM_FACTORS and not ((no_crippled or serving) and g.crippled_fp16) and
                     usable_memory_gb(g, knowledge_dir) >= needed and
                     not (cap is not None and g.tdp_w and g.tdp_w > cap) and  # (a 650 W PSU feeds no 350 W card)
                     (p := g.price(currency, "used", on, catalog.fx)) is not None]
        cheapest_used = min(used_fits, key=lambda gp: gp[1].amount, default=None)
    suggestions = () if picks else _suggestions(need, est, needed, over_budget, cheapest_used)
    split = next((p.candidate.count for p in picks if p.candidate.count > 1), None) if not need.gpu_count else None
    notes: tuple[Text, ...] = ()
    if lab and picks and not runs_a_model(need, spec):
        notes = (_SHARED_NOTE if shared_only else _LAB_NOTE,)
    elif split and spec.name == "llm_inference":
        notes = (_split_note(split, serving),)
    if assumed:
        notes = (assumed,) + notes
    if serving:
        users = serving_users(need, knowledge_dir)
        notes = (serving_note(users, assumed_at_once(need, users, knowledge_dir)),) + notes
    return Ranking(need, currency, budget, count, spec, on, round(needed, 1), est, tuple(picks), tuple(candidates),
                   exclusions, suggestions, notes)


_QLORA_NOTE = Text("LoRA on this model does not fit the budget, so these are for QLoRA (4-bit base weights, a little "
                   "slower, nearly the same quality).",
                   "这个模型做 LoRA 在预算内装不下，下面按 QLoRA（4 位基座权重，稍慢，效果接近）推荐。")


_FULL_NOTE = Text("Full fine-tuning of this model does not fit the budget (every weight also needs its gradient and the "
                  "optimiser's state: about 16 bytes a parameter before activations), so these are for LoRA, which "
                  "trains small adapters on the frozen model and keeps most of the quality; for full fine-tuning, "
                  "rent multi-GPU 80 GB machines by the hour.",
                  "这个模型全参微调在预算内装不下（每个权重还要存梯度和优化器状态：激活之外约每参数 16 字节），下面按 LoRA 推荐："
                  "冻结原模型、只训练小的适配器，效果大部分保留；真要全参微调，建议按小时租多卡 80 GB 的机器。")


FULL_FINETUNE_BYTES_PER_PARAM = 16  # 16-bit weights and gradients, fp32 Adam moments and master weights


def _full_beyond_one_machine(size_b: float) -> Text:
    """Full fine-tuning with no budget said, when no setup of up to eight cards holds it: what it takes, then LoRA."""
    tb = size_b * FULL_FINETUNE_BYTES_PER_PARAM / 1000
    return Text(f"Full fine-tuning of a {size_b:g}B model needs about {tb:.1f} TB before activations (every weight also "
                f"holds its gradient and the optimiser's state: about {FULL_FINETUNE_BYTES_PER_PARAM} bytes a parameter), "
                "more than any machine of up to eight cards here: it takes several 8-GPU nodes of 80 GB cards sharded "
                "with FSDP/ZeRO-3 (or CPU offload, much slower), which people rent by the hour. What one machine can do "
                "is LoRA, which trains small adapters on the frozen model and keeps most of the quality:",
                f"{size_b:g}B 模型全参微调在激活之外就要约 {tb:.1f} TB（每个权重还要存梯度和优化器状态：约每参数 "
                f"{FULL_FINETUNE_BYTES_PER_PARAM} 字节），超过这里任何八卡以内的机器：需要几台 8 卡 80 GB 的节点用 "
                "FSDP/ZeRO-3 切分（或 CPU offload，慢很多），一般按小时租。一台机器能做的是 LoRA：冻结原模型、只训练小的适配器，"
                "效果大部分保留：")


_QLORA_BEYOND_ONE_MACHINE = Text("LoRA in 16 bits needs more than the cards below hold alone, so these are for QLoRA "
                                 "(4-bit base weights, a little slower, nearly the same quality).",
                                 "16 位 LoRA 超出下面这些卡单独能装的，所以按 QLoRA（4 位基座权重，稍慢，效果接近）推荐。")


_SHARED_NOTE = Text("For a lab's shared machine: setups of one to eight cards, the most of each card the budget buys, so "
                    "one big card competes with several smaller ones that let more people train at once. Training "
                    "spreads over the cards (data parallel: each doubling gives 1.5–1.9×, Lambda's measurements).",
                    "按实验室共用的机器来选：1 到 8 卡的方案，每种卡取预算内能买的最多张数，一张大卡和几张小卡一起比较（多张卡能让更多人"
                    "同时训练）。训练按数据并行分到各张卡上（每翻一倍约 1.5–1.9 倍，Lambda 实测）。")


_LAB_NOTE = Text("A budget this size buys a machine, not a card: these are 4- and 8-card setups (the most of each card the "
                 "budget buys). Training spreads over the cards (data parallel: each doubling gives 1.5–1.9×, Lambda's "
                 "measurements); cards without NVLink talk over PCIe.",
                 "这个预算买的是整机而不是一张卡：下面是 4 卡和 8 卡方案（预算内每种卡能买的最多张数）。训练按数据并行分到各张卡上"
                 "（每翻一倍约 1.5–1.9 倍，Lambda 实测）；没有 NVLink 的卡之间走 PCIe。")


def _split_note(n: int, serving: bool = False, training: bool = False) -> Text:
    if training:  # fine-tuning over several cards is sharded (ZeRO/FSDP, FSDP+QLoRA), not split by layers
        return Text(f"Setups of {n} cards shard the training over the cards (ZeRO/FSDP; FSDP+QLoRA for QLoRA): memory "
                    "adds up and the cards train in parallel; consumer cards talk over PCIe (no NVLink on current "
                    "GeForce cards), which slows sharded training.",
                    f"{n} 卡方案用 ZeRO/FSDP（QLoRA 用 FSDP+QLoRA）把训练分片到各张卡上：显存相加，各卡并行训练；消费级卡之间走 "
                    "PCIe（现在的 GeForce 没有 NVLink），分片训练会慢一些。")
    if serving:
        return Text(f"Setups of {n} cards split every layer across the cards (tensor parallel, vLLM's "
                    f"--tensor-parallel-size {n}): memory and bandwidth add up; consumer cards talk over PCIe, which "
                    "costs some of it (no NVLink on current GeForce cards).",
                    f"{n} 卡方案把每一层切到各张卡上（张量并行，vLLM 的 --tensor-parallel-size {n}）：显存和带宽都相加；"
                    "消费级卡之间走 PCIe，会损失一部分（现在的 GeForce 没有 NVLink）。")
    return Text(f"Setups of {n} cards hold the model split across the cards by layers: memory adds up, speed does not "
                "multiply, and consumer cards talk over PCIe (no NVLink on current GeForce cards).",
                f"{n} 卡方案把模型按层切分到各张卡上：显存相加，速度不会成倍增加；消费级卡之间走 PCIe（现在的 GeForce 没有 NVLink）。")


def serving_note(users: int, assumption: Text | None = None) -> Text:
    """What serving several users changes, for a need that says so: sized for them when their number is known (read
    from a headcount or a day's users: `assumed_at_once`, said as such)."""
    if users > 1:
        lead = Text(assumption.en + ", with vLLM or SGLang", assumption.zh + "，用 vLLM 或 SGLang") if assumption else \
            Text(f"Sized for serving {users} users at once with vLLM or SGLang",
                 f"按 vLLM 或 SGLang 同时服务 {users} 人来配")
        return Text(lead.en + ": every running request keeps its own KV cache (in the memory figure), weights are "
                    "AWQ/GPTQ or FP8, and vLLM needs compute capability 7.0 or newer (no Pascal cards such as the P40). "
                    "Speeds are what each user sees at that load.",
                    lead.zh + "：每个进行中的请求都有自己的 KV 缓存（已算进显存需求），权重用 AWQ/GPTQ 或 FP8，vLLM 要求计算能力 "
                    "7.0 及以上（P40 这类 Pascal 卡不行）。速度是这个负载下每人看到的速度。")
    return Text("These speeds are for one user at a time (llama.cpp). Serving many users with vLLM or SGLang batches "
                "requests: it wants FP16/FP8 or AWQ/GPTQ weights, KV cache for every concurrent request on top, and "
                "compute capability 7.0 or newer (no Pascal cards such as the P40); tensor cores then matter as much as "
                "bandwidth. Say how many users at once (\"20 users\") and I size the memory and speed for them.",
                "以上速度是单用户（llama.cpp）的数字。用 vLLM 或 SGLang 给多人提供服务时会把请求打包成批：需要 FP16/FP8 或 "
                "AWQ/GPTQ 权重，每个并发请求还要额外的 KV 缓存，并且要求计算能力 7.0 及以上（P40 这类 Pascal 卡不行）；这时张量核心"
                "和带宽一样重要。告诉我同时有多少人用（例如“20 人同时用”），我按这个人数算显存和速度。")


def _split_total_note(n: int, total_gb: float, workload: str | None) -> Text:
    if workload == "llm_inference":
        how, how_zh = "for an LLM split across the cards by layers", "适合把大模型按层切分到各张卡上"
    else:  # training adds memory up only when sharded
        how = "when the job splits across the cards: an LLM by layers, training sharded with ZeRO/FSDP"
        how_zh = "前提是任务能拆到各张卡上：大模型按层切分、ZeRO/FSDP 分片训练"
    return Text(f"No single card in budget has {total_gb:g} GB: these are setups of {n} cards whose memory adds up to "
                f"more, {how}. Speed does not multiply, and a model or batch that must sit on one card still needs one "
                "big card.",
                f"预算内没有单张 {total_gb:g} GB 的卡：下面是 {n} 卡方案，显存加起来超过这个数，{how_zh}。"
                f"速度不会成倍增加；必须放在一张卡上的模型或 batch 还是要一张大显存卡。")


def _qlora_by_default(need: Need, knowledge_dir: Path) -> Text | None:
    """"想微调qwen3 32b，有什么方案" (no method, no budget): when the model's 16-bit LoRA is beyond the cards people
    buy (workloads.yaml `qlora_by_default_above_gb`), QLoRA is the plan to rank for; the note saying so, else None."""
    above = load_workloads(knowledge_dir).get("llm_finetune", {}).get("qlora_by_default_above_gb")
    if not above or need.workload != "llm_finetune" or need.finetune_method or need.budget or not need.model_size_b:
        return None
    if (need.gpu_count or 0) >= 4:
        return None  # "公司要搭一个8卡训练节点，做70B的SFT": a node shards 16-bit LoRA over its cards (ZeRO-3/FSDP)
    lora = estimate(need.model_size_b, "lora", need.precision_bits, knowledge_dir).total_gb
    if lora <= above:
        return None
    return Text(f"No method said: ranked for QLoRA (4-bit base weights, a little slower, nearly the same quality), how "
                f"a {need.model_size_b:g}B model is fine-tuned on one card. LoRA on its 16-bit weights needs about "
                f"{lora:.0f} GB, more than the cards people buy hold; say \"LoRA\" to rank for that.",
                f"没说微调方法：下面按 QLoRA（4 位基座权重，稍慢，效果接近）推荐，{need.model_size_b:g}B 模型在单卡上通常这样微调。"
                f"用 16 位权重做 LoRA 约需 {lora:.0f} GB，超过一般能买到的卡；说“LoRA”就按那个推荐。")


def _alternatives(need: Need, knowledge_dir: Path | None = None):
    """What an expert tries, in order, when nothing meets the need as asked: the used market, QLoRA instead of LoRA,
    the model split over two or four identical cards, LoRA (then QLoRA) instead of full fine-tuning. Each with the
    note the reply makes of it. A model too big for LoRA on a bought card, with no method said, tries QLoRA first."""
    markets = (need.used,) if need.used is not None else (None, True)
    first = _qlora_by_default(need, knowledge_dir) if knowledge_dir is not None else None
    if first is not None:
        for used in markets:
            yield replace(need, finetune_method="qlora", used=used), (first,)
    for used in markets:
        yield replace(need, used=used), ()
    # QLoRA is LoRA over a 4-bit base: what an expert suggests before a two-card split, also to one who said "LoRA"
    if need.workload == "llm_finetune" and need.finetune_method in (None, "lora") and need.model_size_b:
        for used in markets:
            yield replace(need, finetune_method="qlora", used=used), (_QLORA_NOTE,)
    if need.gpu_count is None and need.workload == "llm_finetune" and need.model_size_b:
        for n in MULTI_CARD_COUNTS:
            for used in markets:
                yield replace(need, gpu_count=n, used=used), (_split_note(n, training=True),)
    # more memory than any card in budget ("more VRAM?" after 24 GB picks, "need 32gb under $1500 for llm
    # finetuning"): running an LLM splits its layers over cards with no setup; training big models shards over cards
    # (ZeRO/FSDP) beyond the common 24 GB cards, so the memory asked for may be the sum of two or four cards', each
    # still with what the job needs on one card. (Deep learning in general keeps the memory on one card: a vision
    # model or batch that needs 32 GB does not split.)
    if need.gpu_count is None and need.min_vram_gb and (need.workload == "llm_inference" or (
            need.workload in SHARDED_TRAINING and need.min_vram_gb >= SPLIT_ROUTE_FROM_GB)):
        for n in MULTI_CARD_COUNTS:
            for used in markets:
                yield replace(need, gpu_count=n, min_vram_gb=need.min_vram_gb / n, used=used), \
                    (_split_total_note(n, need.min_vram_gb, need.workload),)
    # full fine-tuning holds every weight's gradient and optimiser state: when no setup in budget holds that, what
    # an expert offers is LoRA, then QLoRA, saying so
    if need.workload == "llm_finetune" and need.finetune_method == "full" and need.model_size_b:
        full = _FULL_NOTE if need.budget else _full_beyond_one_machine(need.model_size_b)
        qlora = _QLORA_NOTE if need.budget else _QLORA_BEYOND_ONE_MACHINE
        for method, notes in (("lora", (full,)), ("qlora", (full, qlora))):
            for used in markets:
                yield replace(need, finetune_method=method, used=used), notes


def rank_or_used(catalog: Catalog, need: Need, knowledge_dir: Path, as_of: date | None = None,
                 lang: str = "en") -> Ranking:
    """`rank`, and when nothing meets the need as asked, the first alternative that has picks (`_alternatives`):
    flagged and noted so the reply says what changed and follow-ups carry on from it."""
    first = None
    for alt, notes in _alternatives(need, knowledge_dir):
        r = rank(catalog, alt, knowledge_dir, as_of, lang=lang)
        first = first or r
        if r.picks:
            if need.used is None and not alt.used:
                # running LLMs: used 24 GB cards are the usual buy; with no budget: the roomy "overall" pick would
                # otherwise be whatever new card has the memory, however dear (a workstation card in China)
                llm = next((w for w in need.workloads if w in LLM_WORKLOADS), None)  # "SD and an LLM" too
                # an image or video model named that no new card in budget holds comfortably ("$1500 for Flux dev")
                cramped = bool(need.model) and r.workload.name in ("diffusion", "video") and \
                    not any(p.gpu.vram_gb >= r.workload.comfortable_vram_gb for p in r.picks)
                # (a model served to a team or an app: a business buys new, with a warranty, unless it says used)
                if (llm or cramped or need.budget is None) and need.vendor != "Apple" and not need.serves_many:
                    used = _used_is_better_value(catalog, alt, r, knowledge_dir, as_of, lang, cramped)
                    if used is not None:
                        note = _USED_LLM_NOTE if llm == "llm_inference" else \
                            _USED_FINETUNE_NOTE if llm == "llm_finetune" else \
                            _USED_MODEL_NOTE if cramped else _USED_NO_BUDGET_NOTE
                        return replace(used, notes=used.notes + notes + (note,)
                                       + _mac_note(catalog, used, knowledge_dir), used_fallback=True,
                                       used_why="better_value")
                notes += _used_market_note(catalog, alt, r, knowledge_dir, as_of, lang)
            notes += _split_route_note(catalog, need, r, knowledge_dir, as_of, lang)
            notes += _mac_note(catalog, r, knowledge_dir)
            fell_back = bool(alt.used) and need.used is None
            return replace(r, notes=r.notes + notes, used_fallback=fell_back, used_why="no_new" if fell_back else None)
    return replace(first, suggestions=_what_blocks(catalog, need, knowledge_dir, as_of, lang) + first.suggestions)


def _what_blocks(catalog: Catalog, need: Need, knowledge_dir: Path, as_of: date | None, lang: str) -> tuple[Text, ...]:
    """When nothing meets the need: each limit that alone rules out every card, and what dropping it would give
    ("a 550 W PSU is what blocks it: without that limit, a 300 W card at $479"), so the reply says what to change."""
    tries = []
    if need.psu_w or need.max_power_w:
        w = f"{need.psu_w:.0f} W PSU" if need.psu_w else f"{need.max_power_w:.0f} W limit"
        wz = f"{need.psu_w:.0f} W 电源" if need.psu_w else f"{need.max_power_w:.0f} W 功耗上限"
        tries.append((replace(need, psu_w=None, max_power_w=None), Text(f"the {w}", wz)))
    if need.vendor:
        tries.append((replace(need, vendor=None), Text(f"only {need.vendor} cards", f"只看 {need.vendor}")))
    if need.min_vram_gb:
        tries.append((replace(need, min_vram_gb=None), Text(f"at least {need.min_vram_gb:g} GB",
                                                            f"至少 {need.min_vram_gb:g} GB 显存")))
    if need.form_factor:
        tries.append((replace(need, form_factor=None), Text(f"the {need.form_factor} form factor",
                                                            f"{need.form_factor} 形态")))
    out = []
    for alt, what in tries:
        r = rank(catalog, alt, knowledge_dir, as_of, lang=lang)
        if not r.picks:
            continue
        c = r.picks[0].candidate
        price = money(c.total, c.price.currency)
        out.append(Text(f"What rules everything out is {what.en}: without it, {c.setup.en} at {price}.",
                        f"卡住的是{what.zh}：放开这一条，{c.setup.zh}（{price}）就可以。"))
    if need.budget and not out:  # the budget alone: the cheapest setup that does the job at all, cards added up if need be
        for alt, _ in _alternatives(replace(need, budget=None, max_price=None)):
            r = rank(catalog, alt, knowledge_dir, as_of, lang=lang)
            if r.candidates:
                c = min(r.candidates, key=lambda c: c.total)
                price = money(c.total, c.price.currency)
                used = Text(" (used)", "二手，") if c.price.market == "used" else Text("", "")
                if need.max_price is not None and c.total >= need.max_price.amount and \
                        c.price.currency == need.max_price.currency:  # "cheaper?" below the cheapest that does it
                    out.append(Text(f"Nothing cheaper does the job: {c.setup.en}{used.en} at {price} is already the "
                                    "cheapest setup that meets it. To spend less, use a free tier (Colab, Kaggle) or "
                                    "rent by the hour, or accept less memory than the job's floor.",
                                    f"没有更便宜的能胜任：{c.setup.zh}（{used.zh}{price}）已经是满足要求的最便宜配置。想再省钱，"
                                    "可以用免费平台（Colab、Kaggle）、按小时租卡，或者接受低于这个任务下限的显存。"))
                    break
                out.append(Text(f"What rules everything out is the budget: the cheapest setup that does it is "
                                f"{c.setup.en}{used.en} at {price}.",
                                f"卡住的是预算：能做到的最便宜配置是 {c.setup.zh}（{used.zh}{price}）。"))
                break
    if not out and len(tries) >= 2:  # no single limit: say which ones do it together
        together = replace(need, psu_w=None, max_power_w=None, vendor=None, min_vram_gb=None, form_factor=None)
        r = rank(catalog, together, knowledge_dir, as_of, lang=lang)
        if r.picks:
            c, names = r.picks[0].candidate, [w for _, w in tries]
            price = money(c.total, c.price.currency)
            out.append(Text(f"No single limit rules everything out; {' and '.join(w.en for w in names)} do together: "
                            f"without them, {c.setup.en} at {price}.",
                            f"不是某一条卡住，而是{'和'.join(w.zh for w in names)}加在一起：都放开的话，"
                            f"{c.setup.zh}（{price}）就可以。"))
    return tuple(out)


_USED_FINETUNE_NOTE = Text("Used cards are ranked too: for fine-tuning LLMs memory decides the model size, and used 24 GB "
                           "cards give the most memory and speed for the money. Say \"new only\" to leave them out.",
                           "二手卡也一起排了：微调大模型时显存决定能练多大的模型，二手 24 GB 卡花同样的钱显存和速度都更多。"
                           "说“只要新卡”就不含二手。")
_USED_MODEL_NOTE = Text("Used cards are ranked too: the model you named is comfortable only with more memory than the "
                        "new cards in this budget have, and used cards give more of it for the money. Say \"new only\" "
                        "to leave them out.",
                        "二手卡也一起排了：你说的模型要更多显存才从容，这个预算内的新卡都不够，二手卡同样的钱显存更多。"
                        "说“只要新卡”就不含二手。")
_USED_LLM_NOTE = Text("Used cards are ranked too: for running LLMs at home, used 24 GB cards are what most people buy, "
                      "and here they give clearly more speed for the money. Say \"new only\" to leave them out.",
                      "二手卡也一起排了：在家跑大模型，大多数人买的就是二手 24 GB 卡，这里它们的性价比明显更高。说“只要新卡”就不含二手。")


_USED_NO_BUDGET_NOTE = Text("Used cards are ranked too: without a budget, the card with enough memory that gives the most "
                            "for the money is often a used one. Say \"new only\" to leave them out, or give a budget.",
                            "二手卡也一起排了：没给预算时，显存够用又最划算的往往是二手卡。说“只要新卡”就不含二手，或者告诉我预算。")


def _used_is_better_value(catalog: Catalog, need: Need, r: Ranking, knowledge_dir: Path, as_of: date | None,
                          lang: str, cramped: bool = False) -> Ranking | None:
    """The ranking with used prices, when its best value beats every new pick by USED_VALUE_MARGIN, or when a used
    pick holds more memory than every new pick at about the speed of the fastest (a used 24 GB card against new 16 GB
    ones: for LLMs memory decides which models run at all)."""
    used = rank(catalog, replace(need, used=True), knowledge_dir, as_of, lang=lang)
    best_new = max((p.candidate.value for p in r.picks), default=0.0)
    second_hand = [p.candidate for p in used.picks if p.candidate.price.market == "used"]
    best_used = max((c.value for c in second_hand), default=0.0)
    most_new_gb = max((p.gpu.vram_gb * p.candidate.count for p in r.picks), default=0.0)
    fastest_new = max((p.candidate.perf for p in r.picks), default=0.0)
    roomier = any(c.gpu.vram_gb * c.count > most_new_gb and c.perf >= USED_SPEED_SHARE * fastest_new
                  for c in second_hand)
    # a model named that no new pick holds comfortably: a used card that does, at a fair share of the speed
    comfortable = cramped and any(c.gpu.vram_gb * c.count >= r.workload.comfortable_vram_gb and
                                  c.perf >= ROOMIER_SPEED_SHARE * fastest_new for c in second_hand)
    return used if used.picks and (best_used >= USED_VALUE_MARGIN * best_new or roomier or comfortable) else None


def _mac_note(catalog: Catalog, r: Ranking, knowledge_dir: Path) -> tuple[Text, ...]:
    """For running an LLM: the cheapest Mac whose unified memory holds the model (within the budget), with its speed:
    the usual third answer after used cards and one big card. Never for training (no CUDA)."""
    if r.workload.name != "llm_inference" or r.need.vendor or r.need.serves_many or r.need.whole_pc is False:
        return ()  # a Mac serves one person, not a vLLM deployment; "card only" asks for a card, not a computer
    if not r.need.model_size_b:
        return _roomiest_mac(catalog, r)
    if not r.memory:
        return ()
    model = model_for(knowledge_dir, r.need.model, r.need.model_size_b)
    quant = quant_for(knowledge_dir, r.need.quant, r.memory.precision_bits)
    options = []
    for mac in catalog.systems:
        price = mac.price(r.currency, "new", r.as_of, catalog.fx)
        if price is None or mac.vendor != "Apple" or (mac.release_date and mac.release_date > r.as_of) or \
                (r.budget and price.amount > r.budget.amount):
            continue
        e = fit_estimate(mac, model, quant, knowledge_dir, 1, r.need.context_tokens)
        if e.fits and e.decode_tokens_per_s:
            options.append((price.amount, mac, price, e))
    if not options:
        return ()
    _, mac, price, e = min(options, key=lambda o: o[0])
    tps, how = _tps_text(e.decode_tokens_per_s), _BASIS[e.basis]
    mac_at = _mac_at(mac, price)
    return (Text(f"{mac_at.en} holds {model.label('en')} in unified memory and generates ~{tps} tokens/s ({how.en}); "
                 "no CUDA: good for llama.cpp/MLX inference, not for training.",
                 f"{mac_at.zh}，统一内存装得下 {model.label('zh')}，生成约 {tps} tokens/s（{how.zh}）；没有 CUDA：适合 "
                 "llama.cpp/MLX 推理，不适合训练。"),)


def _mac_at(mac: GPU, price: Price) -> Text:
    """'Or a Mac: Mac Studio … at $3,999 (2025-03)' / '也可以考虑 Mac：…，¥29,193（2025-03，由 USD 换算）'."""
    conv = price.converted_from
    return Text(f"Or a Mac: {mac.name} at {money(price.amount, price.currency)} ({price.on:%Y-%m}"
                f"{', converted from ' + conv if conv else ''})",
                f"也可以考虑 Mac：{mac.name}，{money(price.amount, price.currency)}（{price.on:%Y-%m}"
                f"{'，由 ' + conv + ' 换算' if conv else ''}）")


def _roomiest_mac(catalog: Catalog, r: Ranking) -> tuple[Text, ...]:
    """No model named: the Mac with the most unified memory within the budget, when it holds more than every pick."""
    options = []
    for mac in catalog.systems:
        price = mac.price(r.currency, "new", r.as_of, catalog.fx)
        if price is not None and mac.vendor == "Apple" and not (mac.release_date and mac.release_date > r.as_of) and \
                not (r.budget and price.amount > r.budget.amount):
            options.append((mac.vram_gb, -price.amount, mac, price))
    most = max((p.gpu.vram_gb * p.candidate.count for p in r.picks), default=0.0)
    if not options or max(options, key=lambda o: o[:2])[0] <= most:
        return ()
    gb, _, mac, price = max(options, key=lambda o: o[:2])
    mac_at = _mac_at(mac, price)
    bw_en = f" ({mac.mem_bandwidth_gbs:g} GB/s)" if mac.mem_bandwidth_gbs else ""
    bw_zh = f"（带宽 {mac.mem_bandwidth_gbs:g} GB/s）" if mac.mem_bandwidth_gbs else ""
    return (Text(f"{mac_at.en} has {gb:g} GB of unified memory{bw_en}: bigger models fit than on the cards above, but "
                 "it generates more slowly and has no CUDA (llama.cpp/MLX inference, not training).",
                 f"{mac_at.zh}，统一内存 {gb:g} GB{bw_zh}：比上面的卡装得下更大的模型，但生成更慢，也没有 CUDA（适合 "
                 "llama.cpp/MLX 推理，不适合训练）。"),)


USED_VALUE_MARGIN = 1.3  # a used setup is worth a mention when it gives this much more speed per money
USED_SPEED_SHARE = 0.9  # ... or when it holds more memory than any new pick at this share of the fastest new pick's speed


def _used_market_note(catalog: Catalog, need: Need, r: Ranking, knowledge_dir: Path, as_of: date | None,
                      lang: str) -> tuple[Text, ...]:
    """When the user has not ruled used cards in or out, and a used setup is clearly better value than every new
    pick (two used 3090s for a 70B model), say so: that is the first thing an expert would add."""
    used = rank(catalog, replace(need, used=True), knowledge_dir, as_of, lang=lang)
    best_new = max((p.candidate.value for p in r.picks), default=0.0)
    floor = min((p.candidate.perf for p in r.picks), default=0.0)
    offers = [c for c in used.candidates if c.price.market == "used" and c.value >= USED_VALUE_MARGIN * best_new
              and c.perf >= 0.9 * floor]
    # ... or the memory the job is comfortable with, which no new pick has, for no worse value (a used 12 GB card
    # against new 8 GB ones for a student's first card)
    comfortable = workload_spec(knowledge_dir, need.workload, r.as_of).comfortable_vram_gb
    most_new = max((p.candidate.gpu.vram_gb * p.candidate.count for p in r.picks), default=0.0)
    roomy = [c for c in used.candidates if c.price.market == "used" and c.value >= best_new and
             most_new < comfortable <= c.gpu.vram_gb * c.count and c.perf >= 0.6 * floor] if most_new else []
    if not offers and not roomy:
        return ()
    c = max(offers, key=lambda c: (c.value, c.perf)) if offers else max(roomy, key=lambda c: (c.value, c.perf))
    if not offers:
        return (Text(f"On the used market: {c.setup.en} for about {money(c.total, c.price.currency)} (used prices of "
                     f"{c.price.on:%Y-%m}) has {c.gpu.vram_gb * c.count:g} GB, the memory this job is comfortable with "
                     f"(the new picks have {most_new:g} GB), at relative speed {c.perf:.2f}. Say \"used is fine\" to "
                     "rank used cards.",
                     f"二手市场：{c.setup.zh} 约 {money(c.total, c.price.currency)}（{c.price.on:%Y-%m} 的二手价），有 "
                     f"{c.gpu.vram_gb * c.count:g} GB 显存，正是这类任务比较从容的大小（新卡推荐只有 {most_new:g} GB），"
                     f"相对速度 {c.perf:.2f}。说“二手也行”就按二手一起排。"),)
    setup = f"{c.count}× {c.gpu.name}" if c.count > 1 else c.gpu.name
    each = f" ({money(c.price.amount, c.price.currency)} each)" if c.count > 1 else ""
    each_zh = f"（每张 {money(c.price.amount, c.price.currency)}）" if c.count > 1 else ""
    on = PRICE_BASIS.get(c.price.currency)  # the ratio differs between markets: say whose prices it is on
    basis = Text(f" ({on.en})", f"（{on.zh}）") if on else Text("", "")
    return (Text(f"On the used market: {setup} for about {money(c.total, c.price.currency)}{each}, used prices of "
                 f"{c.price.on:%Y-%m}: relative speed {c.perf:.2f}, {c.value / best_new:.1f}× the speed per money of "
                 f"the new picks{basis.en}. Say \"used is fine\" to rank used cards.",
                 f"二手市场：{setup} 约 {money(c.total, c.price.currency)}{each_zh}（{c.price.on:%Y-%m} 的二手价），"
                 f"相对速度 {c.perf:.2f}，性价比是新卡推荐的 {c.value / best_new:.1f} 倍{basis.zh}。说“二手也行”就按二手一起排。"),)


SPLIT_ROUTE_FROM_GB = 32  # memory beyond the common 24 GB cards, where adding cards up is what experts suggest
SPLIT_ROUTE_SAVING = 0.75  # several cards are worth naming when they cost at most this share of the one-card pick
# jobs whose memory can add up over cards (an LLM split by layers, sharded training); an image pipeline or a CNN's
# data-parallel copies need the whole amount on each card
SPLITTABLE_WORKLOADS = ("general", "llm_inference", "llm_finetune", "transformer")
SHARDED_TRAINING = ("llm_finetune", "transformer")  # training whose big models are sharded over cards as a matter of course


def _split_route_note(catalog: Catalog, need: Need, r: Ranking, knowledge_dir: Path, as_of: date | None,
                      lang: str) -> tuple[Text, ...]:
    """"I need 48 GB", "cheapest way to get 48GB of VRAM": when one card with that memory is the pick and two or four
    cheaper cards add up to it for much less (two used 24 GB cards), name them, and say when memory adds up."""
    if not need.min_vram_gb or need.min_vram_gb < SPLIT_ROUTE_FROM_GB or not float(need.min_vram_gb).is_integer() \
            or need.gpu_count or r.count != 1 or not r.picks or (need.workload or "general") not in SPLITTABLE_WORKLOADS:
        return ()  # (a 'more than 24 GB' step after "more memory?" is 24.5 GB: a step up from a pick, no amount)
    top = r.picks[0].candidate
    best = None
    for n in MULTI_CARD_COUNTS:  # the fewest cards that save enough: two cards fit a desktop, four hardly
        per_card = max(r.workload.min_vram_gb, need.min_vram_gb / n)
        # priced as the one-card pick was (its currency), within the saving that makes the route worth naming
        ceiling = Budget(round(SPLIT_ROUTE_SAVING * top.total, 2), r.currency)
        split = rank(catalog, replace(need, gpu_count=n, min_vram_gb=per_card, budget=ceiling, max_price=None,
                                      used=need.used if need.used is not None else True), knowledge_dir, as_of,
                     lang=lang)
        cheap = [c for c in split.candidates if c.gpu.vram_gb * n >= need.min_vram_gb and
                 c.price.currency == top.price.currency and c.total <= SPLIT_ROUTE_SAVING * top.total]
        if cheap:
            best = min(cheap, key=lambda c: (c.total, -c.perf))
            break
    if best is None:
        return ()
    used_en, used_zh = (" used", "二手") if best.price.market == "used" else ("", "")
    total, gb = money(best.total, best.price.currency), f"{best.gpu.vram_gb * best.count:g}"
    one = money(top.total, top.price.currency)
    return (Text(f"Cheaper route to {need.min_vram_gb:g} GB: {best.count}× {best.gpu.name}{used_en} ({gb} GB in all) for "
                 f"about {total} against {one} for one card. Memory adds up only when the job splits across the cards "
                 "(an LLM by layers, sharded training with ZeRO/FSDP); a model or batch that must sit on one "
                 f"card needs the single {need.min_vram_gb:g} GB card.",
                 f"凑够 {need.min_vram_gb:g} GB 更便宜的办法：{best.count} 张{used_zh} {best.gpu.name}（共 {gb} GB），约 {total}，"
                 f"一张卡的方案要 {one}。只有任务能拆到多张卡上时显存才相加（大模型按层切分、ZeRO/FSDP 分片训练）；"
                 f"必须放在一张卡上的模型或 batch 还是要那张 {need.min_vram_gb:g} GB 的卡。"),)


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
    return Candidate(g, price, r.count, setup_perf(catalog, r, g, knowledge_dir) or 0.0, price.amount * r.count)


def setup_perf(catalog: Catalog, r: Ranking, g: GPU, knowledge_dir: Path) -> float | None:
    """The speed of `r.count` × `g` for the ranking's job, relative to one reference card (None: specs missing)."""
    model = load_perf_model(knowledge_dir)
    ref = catalog.get(model.reference_gpu)
    return model.relative(g, r.workload.family, ref, r.count) if ref else None


UPGRADE_MARGIN = 1.1  # an upgrade is this much faster than the card it replaces, or holds more
ROOMIER_SPEED_SHARE = 0.6  # more memory leads a memory-bound job's picks at this share of the fastest's speed


def _memory_of(c: Candidate) -> float:
    return c.gpu.vram_gb * c.count + c.owned_gb


def _roomier(cands: list[Candidate]) -> Candidate | None:
    """For a job whose memory decides what runs (LLMs, image generation), when no card in budget has the comfortable
    amount: the setup with the most memory more than the fastest one has, at no less than ROOMIER_SPEED_SHARE of its
    speed (a 16 GB card over a faster 12 GB one); None when the fastest has as much as any."""
    fastest = cands[0]
    more = [c for c in cands if _memory_of(c) > _memory_of(fastest) and c.perf >= ROOMIER_SPEED_SHARE * fastest.perf]
    return max(more, key=lambda c: (_memory_of(c), c.perf, -c.total)) if more else None


def _choose(cands: list[Candidate], budget: Budget | None, currency: str, spec: WorkloadSpec, per_card: dict[int, float],
            ref: str, speed=None, memory_first: bool = False, shown_beside: tuple[str, ...] = ()) -> list[Pick]:
    """With a budget: the fastest that fits, the best value, a runner-up. Without: the best value with comfortable
    memory ("best overall") and the best value of all. `shown_beside`: makers one of whose cards is the runner-up
    when no other pick is theirs ("include AMD" adds AMD to NVIDIA: both are shown, side by side)."""
    if not cands:
        return []
    # a best-value claim rests on a current price: one shown as possibly out of date (older than STALE_PRICE_MONTHS,
    # from before the 2026 memory shortage raised card prices) ranks after every card with a current one
    by_value = sorted(cands, key=lambda c: (c.price.stale, -c.value, c.total, c.gpu.name))
    roomy = [c for c in by_value if c.gpu.vram_gb + c.owned_gb >= max(spec.comfortable_vram_gb, per_card[c.count])]
    chosen: list[tuple[str, Candidate]] = []
    if budget:
        fastest_roomy = next((c for c in cands if c in roomy), None)
        roomier = _roomier(cands) if memory_first and fastest_roomy is None else None
        if memory_first and fastest_roomy is not None and fastest_roomy is not cands[0]:
            # an LLM job: memory decides which models run at all, so the fastest card with comfortable memory leads
            # (a used 24 GB card over a faster new 16 GB one) and the fastest of all follows, saying what it lacks
            chosen.append(("memory_first", fastest_roomy))
            chosen.append(("fastest", cands[0]))
        elif roomier is not None:
            # nothing in budget has comfortable memory: more of it for a little less speed leads (16 GB over 12 GB)
            chosen.append(("roomier", roomier))
            chosen.append(("fastest", cands[0]))
        elif spec.value_first and (enough := min(roomy or cands, key=lambda c: (c.total, -c.perf))) is not cands[0]:
            # the GPU waits on the CPU's simulation most of the time: the cheapest card with comfortable memory leads,
            # the rest of the money buys CPU cores; the fastest follows, for a GPU-simulated environment
            chosen.append(("enough", enough))
            chosen.append(("best", cands[0]))
        else:
            chosen.append(("best", cands[0]))
        if not any(role == "value" for role, _ in chosen):
            chosen.append(("value", by_value[0]))
        if by_value[0] not in roomy and (others := [c for c in cands if c in roomy and c is not cands[0]]):
            # the best value is short of comfortable memory (8 GB for SDXL or a Whisper fine-tune): the fastest card
            # that has it is the third pick, not the next fastest of all
            chosen.append(("roomy", others[0]))
    else:
        if speed is not None:  # running an LLM: the overall pick must also generate at reading speed
            quick = [c for c in roomy if (e := speed.tokens_per_s(c)) and e.decode_tokens_per_s >= CHAT_SPEED_TOKENS_S]
            roomy = quick or roomy
        chosen.append(("overall", roomy[0] if roomy else by_value[0]))
        chosen.append(("value", by_value[0]))
    taken = {c.gpu.name for _, c in chosen}
    missing = [v for v in shown_beside if all(c.gpu.vendor != v for _, c in chosen)]
    beside = next((c for c in (cands if budget else by_value) if c.gpu.vendor in missing and c.gpu.name not in taken),
                  None)
    if beside is not None:
        chosen.append(("runner_up", beside))
        taken.add(beside.gpu.name)
    # with a budget the runner-up is the next fastest that fits; without one, the next best value
    for c in (cands if budget else by_value) if len(taken) < 3 else ():
        if c.gpu.name not in taken:
            chosen.append(("runner_up", c))
            break
    seen, picks = set(), []
    for role, c in chosen:
        if c.gpu.name in seen:
            continue
        seen.add(c.gpu.name)
        reasons = _reasons(c, role, cands, by_value, budget, currency, spec, per_card[c.count], ref)
        extra = speed(c) if speed else None
        picks.append(Pick(c, role, reasons + ((extra,) if extra else ()), _caveats(c, spec)))
    return picks


_BASIS = {"measured": Text("measured", "实测"), "calibrated": Text("calibrated estimate", "校准估算"),
          "formula": Text("formula only", "仅公式估算")}


def _tps_text(v: float) -> str:
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def _speed_reason(need: Need, est: MemoryEstimate, knowledge_dir: Path, catalog: Catalog):
    """For running an LLM: each pick's generation speed on the need's model, from bot.fit (what it rests on said)."""
    model = model_for(knowledge_dir, need.model, est.params_b)
    quant = served_quant(need, est.precision_bits, knowledge_dir)  # (what the memory figure counted)

    users = serving_users(need, knowledge_dir)

    def reason(c: Candidate) -> Text | None:
        e = tokens_per_s(c)
        if e is None:
            return None
        if users > 1 and not c.with_owned:
            return _serving_reason(c, model, quant, users, need.context_tokens, knowledge_dir)
        tps, b = _tps_text(e.decode_tokens_per_s), _BASIS[e.basis]
        return Text(f"~{tps} tokens/s generating {model.label('en')} at {quant.label_en} ({b.en})",
                    f"{model.label('zh')} {quant.label_zh} 生成约 {tps} tokens/s（{b.zh}）")

    def tokens_per_s(c: Candidate):
        if model is None or quant is None:
            return None
        e = fit_estimate(c.gpu, model, quant, knowledge_dir, c.count, need.context_tokens)
        if c.with_owned:  # the new card and the user's own ones share the layers in proportion to their memory
            cards = [g for n in c.with_owned if (g := catalog.get(n))] + [c.gpu]
            tps = mixed_decode_speed(cards, model, quant, knowledge_dir)
            return replace(e, decode_tokens_per_s=round(tps, 1), fits=True, basis="calibrated") if tps else None
        return e if e.fits and e.decode_tokens_per_s else None

    reason.tokens_per_s = tokens_per_s
    return reason


def _serving_reason(c: Candidate, model, quant, users: int, context: int | None, knowledge_dir: Path) -> Text | None:
    """What each of the users gets, and all of them together, when the setup serves them at once (bot.fit)."""
    sv = serving_speed(c.gpu, model, quant, users, c.count, knowledge_dir, context)
    if sv is None:
        return None
    each, total = _tps_text(sv.per_user_tokens_per_s), f"{sv.total_tokens_per_s:,.0f}"
    split_en = f", split over {c.count} cards (tensor parallel)" if c.count > 1 else ""
    split_zh = f"，{c.count} 卡张量并行" if c.count > 1 else ""
    bound = Text("compute-bound at this batch", "这个并发量下受算力限制") if sv.compute_bound else \
        Text("bandwidth-bound", "受显存带宽限制")
    return Text(f"~{each} tokens/s for each of {users} users at once, ~{total} in all ({model.label('en')} at "
                f"{quant.label_en}{split_en}; formula only, vLLM-style batching, {bound.en})",
                f"{users} 人同时使用时每人约 {each} tokens/s，合计约 {total}（{model.label('zh')} {quant.label_zh}{split_zh}；"
                f"仅公式估算，按 vLLM 批处理，{bound.zh}）")


CHAT_SPEED_TOKENS_S = 10  # below this, generation is slower than people read: not a "best overall" pick


def _reasons(c: Candidate, role: str, cands: list[Candidate], by_value: list[Candidate], budget: Budget | None,
             currency: str, spec: WorkloadSpec, need: float, ref: str) -> tuple[Text, ...]:
    g = c.gpu
    out = []
    rank_perf = cands.index(c) + 1
    rank_value = by_value.index(c) + 1
    n = len(cands)
    setup = f"{c.count}× " if c.count > 1 else ""
    if role in ("best", "fastest") and budget is not None and budget.cheapest:
        out.append(Text(f"fastest of the {n} cheapest options that do it (up to about {budget}): {setup}relative "
                        f"speed {c.perf:.2f} for {spec.label.en} ({ref} = 1.00)",
                        f"能胜任的 {n} 个最便宜选项（约 {budget} 以内）中最快：{setup}相对速度 {c.perf:.2f}"
                        f"（{spec.label.zh}，{ref} = 1.00）"))
    elif role in ("best", "fastest"):
        out.append(Text(f"fastest of the {n} options within {budget}: {setup}relative speed {c.perf:.2f} "
                        f"for {spec.label.en} ({ref} = 1.00)",
                        f"预算 {budget} 内 {n} 个选项中最快：{setup}相对速度 {c.perf:.2f}"
                        f"（{spec.label.zh}，{ref} = 1.00）"))
        if role == "fastest":  # what the faster pick lacks: memory per card (a setup splits the model anyway)
            comfy, each = max(spec.comfortable_vram_gb, need), c.count > 1
            a_card, a_card_zh = (" a card", "每张") if each else ("", "")
            then = Text("more cards to split over, less room to grow", "要切分到更多张卡上，余量也小") if each else \
                Text("smaller models only", "只能跑/练更小的模型")
            out.append(Text(f"but {g.vram_gb:g} GB{a_card}, under the {comfy:g} GB{a_card} that is comfortable for "
                            f"{spec.label.en}: {then.en}",
                            f"但{a_card_zh}只有 {g.vram_gb:g} GB，低于{spec.label.zh}{a_card_zh}较从容的 {comfy:g} GB：{then.zh}"))
    elif role == "roomier":
        fastest = max(cands, key=lambda x: x.perf)
        out.append(Text(f"{_memory_of(c):g} GB against {_memory_of(fastest):g} GB on the fastest setup, at "
                        f"{c.perf / fastest.perf:.0%} of its speed: for {spec.label.en} memory decides which models run "
                        "at all", f"显存 {_memory_of(c):g} GB，最快的方案只有 {_memory_of(fastest):g} GB，速度是它的 "
                        f"{c.perf / fastest.perf:.0%}：{spec.label.zh}能跑多大的模型由显存决定"))
    elif role == "memory_first":
        out.append(Text(f"the fastest within budget with {max(spec.comfortable_vram_gb, need):g} GB or more: for "
                        f"{spec.label.en} memory decides which models run at all",
                        f"预算内显存 ≥ {max(spec.comfortable_vram_gb, need):g} GB 的卡里最快：{spec.label.zh}"
                        "能跑多大的模型由显存决定"))
    elif role == "enough":
        out.append(Text(f"the cheapest with the {max(spec.comfortable_vram_gb, need):g} GB {spec.label.en} is comfortable "
                        "with: the GPU mostly waits on the CPU here, so the rest of the money buys more CPU cores",
                        f"有{spec.label.zh}比较从容的 {max(spec.comfortable_vram_gb, need):g} GB 里最便宜的：这里 GPU 大多在等 "
                        "CPU，省下的钱买更多 CPU 核心更值"))
    elif role == "value":
        out.append(Text(f"best value: {per_thousand(c.value)} relative speed per {money(1000, currency)} "
                        f"(#{rank_value} of {n})",
                        f"性价比最高：每 {money(1000, currency)} 换 {per_thousand(c.value)} 的相对速度（{n} 个中第 {rank_value}）"))
    elif role == "roomy":
        out.append(Text(f"the fastest within budget with {max(spec.comfortable_vram_gb, need):g} GB or more "
                        f"(comfortable for {spec.label.en}): {per_thousand(c.value)} speed per {money(1000, currency)}",
                        f"预算内显存 ≥ {max(spec.comfortable_vram_gb, need):g} GB（{spec.label.zh}较从容）的卡里最快："
                        f"每 {money(1000, currency)} {per_thousand(c.value)}"))
    elif role == "overall":
        out.append(Text(f"best value among cards with {max(spec.comfortable_vram_gb, need):g} GB or more "
                        f"(comfortable for {spec.label.en}): {per_thousand(c.value)} speed per {money(1000, currency)}",
                        f"在显存 ≥ {max(spec.comfortable_vram_gb, need):g} GB（{spec.label.zh}较从容）的卡里性价比最高："
                        f"每 {money(1000, currency)} {per_thousand(c.value)}"))
    else:
        out.append(Text(f"runner-up: #{rank_perf} in speed ({c.perf:.2f}), {per_thousand(c.value)} per "
                        f"{money(1000, currency)}",
                        f"备选：速度第 {rank_perf}（{c.perf:.2f}），每 {money(1000, currency)} {per_thousand(c.value)}"))
    if role not in ("best", "fastest", "runner_up"):
        out.append(Text(f"relative speed {c.perf:.2f} ({ref} = 1.00)", f"相对速度 {c.perf:.2f}（{ref} = 1.00）"))
    if c.with_owned:
        specs_en = [f"{g.vram_gb:g} GB VRAM, {g.vram_gb + c.owned_gb:g} GB with yours (needs ≥ {round(need, 1):g} GB in all)"]
        specs_zh = [f"{g.vram_gb:g} GB 显存，加上你现有的共 {g.vram_gb + c.owned_gb:g} GB（总共需要 ≥ {round(need, 1):g} GB）"]
    else:
        specs_en = [f"{g.vram_gb:g} GB VRAM (needs ≥ {round(need, 1):g} GB)"]
        specs_zh = [f"{g.vram_gb:g} GB 显存（需要 ≥ {round(need, 1):g} GB）"]
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
    if g.form_factor == "Superchip":
        out.append(Text("a CPU-and-GPU module sold only inside servers, not a card", "CPU 与 GPU 合一的模组，只随服务器出售，不是显卡"))
    if g.form_factor in ("SXM", "OAM"):
        out.append(Text(f"{g.form_factor} module, not a PCIe card: it needs a server board or an "
                        f"{g.form_factor}-to-PCIe adapter, and its own cooling",
                        f"{g.form_factor} 模组，不是 PCIe 显卡：需要服务器主板或 {g.form_factor} 转 PCIe 转接板，并自行解决散热"))
    if g.segment == "datacenter":
        out.append(Text("data-centre card: passive cooling (needs server airflow), priced for companies",
                        "数据中心卡：被动散热（需要服务器风道），价格面向企业"))
    if g.vendor == "Apple":
        out.append(Text("Apple: no CUDA; llama.cpp (Metal) and MLX run LLMs well, PyTorch (MPS) only small training",
                        "Apple：没有 CUDA；llama.cpp（Metal）和 MLX 跑大模型很好，PyTorch（MPS）只适合小规模训练"))
    elif g.vendor != "NVIDIA":
        out.append(Text(f"{g.vendor}: no CUDA; check that your framework supports it (ROCm / oneAPI) first",
                        f"{g.vendor}：不支持 CUDA，先确认你的框架支持（ROCm / oneAPI）"))
    watts = (g.tdp_w or 0) * c.count + c.owned_w
    if c.power_limit_w:
        out.append(Text(f"for your PSU: power-limit each card to ~{c.power_limit_w:.0f} W (nvidia-smi -pl; about "
                        f"{100 - 100 * c.power_limit_w / g.tdp_w:.0f}% under its {g.tdp_w:.0f} W, costing a little speed)",
                        f"按你的电源：每张卡限功耗到约 {c.power_limit_w:.0f} W（nvidia-smi -pl；比 {g.tdp_w:.0f} W 低约 "
                        f"{100 - 100 * c.power_limit_w / g.tdp_w:.0f}%，速度略有损失）"))
    elif g.tdp_w and watts >= 300:
        psu = int(math.ceil((watts + SYSTEM_POWER_W) * PSU_HEADROOM / 50) * 50)
        out.append(Text(f"{watts:.0f} W of GPU power: plan a ~{psu} W PSU and good case airflow",
                        f"显卡功耗 {watts:.0f} W：电源建议约 {psu} W，机箱散热要好"))
    if c.count >= 8:
        out.append(Text(f"{c.count} cards make a GPU server: a 4U chassis with server airflow, two or more 2,000 W+ PSUs "
                        "and a 16–32 A circuit; GeForce cards' licence excludes data-centre deployment",
                        f"{c.count} 张卡就是一台 GPU 服务器：4U 机箱与服务器风道、两个以上 2000 W+ 电源、16–32 A 的供电线路；"
                        "GeForce 的许可不允许部署在数据中心"))
    elif c.count >= 3:
        simpler = g.segment == "consumer"  # a workstation card of more memory exists; past the largest, there is none
        out.append(Text(f"{c.count} cards need a board with {c.count} PCIe slots (or risers), a big case or open frame, and "
                        "a large PSU" + ("; two larger cards are simpler" if simpler else ""),
                        f"{c.count} 张卡需要有 {c.count} 个 PCIe 插槽的主板（或转接线）、大机箱或开放式机架和大功率电源"
                        + ("；两张大显存卡更省事" if simpler else "")))
    if c.price.market == "system":
        out.append(Text("no shop price on file for that date: this is a system builder's per-GPU price inside a "
                        "workstation or server (Lambda), which runs well above a card bought on its own",
                        "该日期没有零售价记录：这是整机厂商（Lambda）工作站或服务器里按卡折算的价格，明显高于单买一张卡"))
    if g.segment == "datacenter" and c.price.market == "new" and g.release_date and c.price.on == g.release_date:
        out.append(Text("price is an estimate (no public list price for data-centre cards)",
                        "价格为估算值（数据中心卡没有公开标价）"))
    if g.vram_gb < spec.comfortable_vram_gb and c.count == 1:
        out.append(Text(f"{g.vram_gb:g} GB is enough to start but tight for bigger models "
                        f"({spec.comfortable_vram_gb:g} GB is comfortable)",
                        f"{g.vram_gb:g} GB 够入门，但大模型会紧张（{spec.comfortable_vram_gb:g} GB 比较从容）"))
    if g.notes:
        out.append(g.notes)
    return tuple(out)


def _notable_exclusions(cands: list[Candidate], too_small: list[Candidate], over_budget: list[Candidate],
                        need: float, budget: Budget | None, not_sold: list[tuple[Candidate, Text]] = (),
                        stretch: bool = True) -> tuple[Exclusion, ...]:
    """Faster cards the user might expect, and why they are not picked."""
    top = cands[0].perf if cands else 0.0
    out = []
    for c, why in sorted(not_sold, key=lambda x: -x[0].perf)[:1]:
        if c.perf > top and c.gpu.vram_gb >= need and (not budget or c.total <= budget.amount):
            out.append(Exclusion(c.gpu, why))
    for c in sorted(too_small, key=lambda c: -c.perf)[:2]:
        if c.perf > top and (not budget or c.total <= budget.amount):
            out.append(Exclusion(c.gpu, Text(f"{c.gpu.vram_gb:g} GB VRAM, below the {round(need, 1):g} GB this job needs",
                                             f"显存 {c.gpu.vram_gb:g} GB，低于所需的 {round(need, 1):g} GB")))
    # a little over the budget for clearly more speed is what an expert mentions first ("for $40 more: two cards")
    stretches = [c for c in over_budget if stretch and budget and c.total - budget.amount >= 1 and top and
                 c.total <= STRETCH_SHARE * budget.amount and c.perf >= STRETCH_GAIN * top]
    best_stretch = max(stretches, key=lambda c: (c.perf / c.total, c.perf), default=None)
    shown = ([best_stretch] if best_stretch else []) + sorted(
        (c for c in over_budget if c is not best_stretch), key=lambda c: c.total)
    if budget and budget.cheapest:  # no budget of the user's: what paying more buys, the most speed per money first
        shown = sorted((c for c in over_budget if top and c.perf >= STRETCH_GAIN * top), key=lambda c: -c.value)
    for c in shown[:2]:
        n = f"{c.count}× for " if c.count > 1 else ""
        n_zh = f"{c.count} 张共 " if c.count > 1 else ""
        total = money(c.total, c.price.currency)
        if c is best_stretch:  # first of all: the one thing the user can act on
            over = money(c.total - budget.amount, c.price.currency)
            pct = round(100 * (c.total / budget.amount - 1))
            out.insert(0, Exclusion(c.gpu, Text(
                f"{n}{total}, {over} ({pct} %) over the budget for {c.perf / top:.1f}× the speed of the top pick: "
                "worth it if you can stretch",
                f"{n_zh}{total}，比预算多 {over}（{pct}%），速度是首选的 {c.perf / top:.1f} 倍：预算能松动的话值得考虑")))
        elif budget.cheapest:
            out.append(Exclusion(c.gpu, Text(f"{n}{total}: costs more, {c.perf / top:.1f}× the speed of the top pick",
                                             f"{n_zh}{total}：贵一些，速度是首选的 {c.perf / top:.1f} 倍")))
        else:
            out.append(Exclusion(c.gpu, Text(f"{n}{total} is over the budget", f"{n_zh}{total}，超出预算")))
    return tuple(out)


STRETCH_SHARE = 1.1  # an over-budget setup is named as a stretch up to this share of the budget...
STRETCH_GAIN = 1.2  # ... when it is at least this much faster than the top pick


def _suggestions(need_: Need, est: MemoryEstimate | None, need: float, over_budget: list[Candidate],
                 cheapest_used: tuple[GPU, Price] | None = None) -> tuple[Text, ...]:
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
    if cheapest_used:
        g, p = cheapest_used
        out.append(Text(f"look at the used market: the cheapest used card that fits is {g.name} at about "
                        f"{money(p.amount, p.currency)} ({p.on:%Y-%m})",
                        f"考虑二手市场：能装下的最便宜的二手卡是 {g.name}，约 {money(p.amount, p.currency)}（{p.on:%Y-%m}）"))
    elif need_.used is not True:
        out.append(Text("look at the used market", "考虑二手市场"))
    out.append(Text("rent a GPU by the hour instead", "按小时租用云 GPU"))
    return tuple(out)
