"""Text -> Query: the language, the Need a message states, and the words a follow-up turns on.

Each slot has its own extractor in `bot.slots`; this module runs them in order on the normalised text, masking what
one has taken (a card's name, a model size, a date) so the next does not read it again. Nothing here guesses: a slot
the text does not state stays empty, and the dialogue decides what to ask."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING

from bot.need import Budget, Need
from bot.slots import audience, context, hardware, model, money, pinyin, spelling, usage
from bot.slots.text import chinese_numerals_to_digits, chinese_script, detect_language, is_traditional, mask, normalise

if TYPE_CHECKING:
    from bot.catalog import Catalog

log = logging.getLogger(__name__)

__all__ = ["Budget", "Query", "chinese_numerals_to_digits", "detect_language", "normalise", "parse"]


@dataclass(frozen=True)
class Query:
    """What one message says: the need it states and the follow-up words it carries."""

    text: str
    lang: str
    need: Need = field(default_factory=Need)
    traditional: bool = False  # written in Traditional Chinese
    bare_number: float | None = None  # a number with no unit ("5000"): a budget only if the dialogue asked for one
    rejected_money: tuple[str, float] | None = None  # ("negative" | "zero" | "too_large", amount)
    currency_written: bool = False  # the budget's currency is written, not assumed from the language
    gpus: tuple[str, ...] = ()
    unknown_products: tuple[str, ...] = ()  # hardware named by its line that I have no data on ("RTX 9090", "DGX Spark")
    ordinals: tuple[int, ...] = ()
    direction: str | None = None
    cues: frozenset[str] = field(default_factory=frozenset)
    lang_request: str | None = None
    card_memory_gb: float | None = None  # memory written after the card named, when it is not that card's ("22G")
    memory_gb: float | None = None  # a memory size the message mentions, asked for or not ("a gtx 1650 4gb")
    card_counts: dict = field(default_factory=dict)  # cards of each named model: "2x3090 vs an A100" -> {3090: 2}
    quant_formats: tuple[str, ...] = ()  # every quantisation format named ("Q4_K_M vs Q8_0")
    delexicalised: str = ""  # the normalised text with cards as "@" and digits as "9": what the act classifier reads
    model_family: str | None = None  # a family named with no model or size ("跑deepseek"): which of it fits is asked
    market: str | None = None  # the region the message implies without naming a place ("NT$30000", HK Cantonese)
    machines: tuple[tuple[str, str], ...] = ()  # of `gpus`, the Macs (macs.csv): (name, maker)

    @property
    def without_cards(self) -> str:
        """The message with the cards' names left out: how the guide is asked about a topic a card is named in (the
        name would draw that card's own sheet)."""
        return self.delexicalised.replace("@", " ")

    def slots(self) -> dict:
        """The labelled-slot view (knowledge/intents/README.md): what the message states, JSON-ready."""
        out = {}
        for k, v in self.need.stated().items():
            if k in ("model", "quant", "context_tokens", "owned_gpus", "serving", "concurrent_users", "headcount",
                     "daily_users", "kv_cache_bits", "usage", "dataset_samples", "dataset", "image_px", "train_tokens", "epochs",
                     "kwh_price", "price_currency", "quiet", "min_total_vram_gb", "system_ram_gb", "multi_gpu", "whole_pc", "upgrade_from",
                     "shared"):
                continue  # not labelled in knowledge/intents (the model table's own tests cover them)
            if k == "budget":
                v = {"amount": v.amount, "currency": v.currency, **({"low": v.low} if v.low else {})}
            elif k == "as_of":
                v = v.isoformat()
            elif k == "workloads":
                v = list(v)
            elif k == "vendor" and v == "Huawei":
                continue  # read for the dialogue, not a labelled value (knowledge/intents/README.md)
            out[k] = v
        # the labelled sets name cards (gpus.csv), and a computer alone by its maker ("MacBook Pro M3 Pro 18G": Apple)
        machines = dict(self.machines)
        cards = [g for g in self.gpus if g not in machines]
        if machines and not cards and "vendor" not in out and len(set(machines.values())) == 1:
            out["vendor"] = next(iter(machines.values()))
        if cards:
            out["gpus"] = cards
        if self.ordinals:
            out["ordinals"] = list(self.ordinals)
        if self.direction:
            out["direction"] = self.direction
        return out


def parse(text: str, catalog: Catalog | None = None, today: date | None = None) -> Query:
    """Read one message. Never raises: anything not understood is left empty."""
    raw = text if isinstance(text, str) else str(text)
    try:
        lang = detect_language(raw)
    except Exception:  # pragma: no cover - detect_language is plain regex work
        lang = "en"
    try:
        return _parse(pinyin.as_characters(raw), lang, catalog, today or date.today())
    except Exception:  # a bug must not take the conversation down: the message is then simply not understood
        log.exception("nlu.parse failed on %r", raw[:200])
        return Query(text=raw, lang=lang)


_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e\+?(\d{1,3})(?![\w.])")


def _plain_number(m: re.Match) -> str:
    """'1e9' -> '1000000000'; beyond 10^18 a number that long is absurd as any amount, and is said to be."""
    exp = min(int(m[2]), 299)  # the money reader takes up to 300 digits: a float stays finite
    return f"{float(m[1]) * 10 ** min(exp, 18):.0f}" + "0" * max(0, exp - 18)


def _parse(raw: str, lang: str, catalog: Catalog | None, today: date) -> Query:
    t = spelling.corrected(normalise(raw))  # "lerning" is "learning"
    t = re.sub(r"(?<=\d)\s*(vs\.?|versus)\s*(?=[a-z]*\s*\d)", r" \1 ", t)  # "4090vs3090"
    # "2000ish", "2k ish", "two thousand-ish": about that much (a word needs the hyphen: "english", "reddish")
    t = re.sub(r"(?:(?<=\d)|(?<=\dk))[\s-]?ish\b|(?<=[a-z])-ish\b", " ", t)
    # "2x3090", "8xH100", "4xa100": that many of the card
    t = re.sub(r"(?<![\d.a-z])(\d{1,2})\s*[x×]\s*(?=(?:[a-z]{1,3}\s*)?\d{2,4}(?!\d))", r"\1 x ", t)
    t = _SCIENTIFIC.sub(_plain_number, t)  # "$1e9", "1.5e3 dollars": the amounts the notation writes
    n = chinese_numerals_to_digits(t)  # numbers, names and sizes are read from here; words from `t`

    # "a 500 person company", "500人": people, not the RTX 500 (read before the cards, whose names are numbers too)
    _, _, audience_spans = audience.audience(n)
    gpus, gpu_spans = hardware.gpus(mask(n, audience_spans), catalog)
    tokens, token_spans = model.train_tokens(mask(n, gpu_spans))  # "20B tokens": data, not a model's size
    gpu_spans_and_tokens = gpu_spans + token_spans
    size, size_spans = model.model_size(mask(n, gpu_spans_and_tokens))
    model_name, model_params, name_spans = model.named_model(mask(n, gpu_spans_and_tokens))
    if model_params is not None and (size is None or abs(size / model_params - 1) > 0.15):
        size = model_params  # "deepseek r1", "mixtral 8x7b" (46.7B, not 56B): the table knows the size
    ctx, ctx_spans = model.context_tokens(mask(n, gpu_spans))
    kv_bits, kv_spans = model.kv_cache_bits(n)
    spans = gpu_spans + token_spans + size_spans + name_spans + ctx_spans + kv_spans + hardware.cpu_spans(n)
    ram, ram_spans = hardware.system_ram(mask(n, spans))  # "64GB RAM": the computer's memory, not the card's
    spans += ram_spans
    min_vram, vram_spans = hardware.min_vram(mask(n, spans))
    memory_said = hardware.memory_mentioned(mask(n, spans))
    if min_vram and len(gpus) == 1 and catalog is not None and (g := catalog.get(gpus[0])) is not None and \
            g.vram_gb == min_vram:
        min_vram = None  # "a Mac Studio M2 Ultra with 192GB": the named machine's own memory, not a need
    spans += vram_spans
    as_of, date_spans = context.as_of(mask(n, spans), today)
    spans += date_spans
    cap_w, psu_w, power_spans = hardware.power(mask(n, spans))
    spans += power_spans
    hours, usage_spans = usage.usage(mask(n, spans))  # "10 hours a week": no budget, no count
    spans += usage_spans
    per_sample, per_sample_spans = model.tokens_per_sample(mask(n, spans))  # "每条1000 token": no budget either
    spans += per_sample_spans
    passes, epoch_spans = model.epochs(mask(n, spans))  # "3 epochs", "跑3轮": no count, no budget
    spans += epoch_spans
    samples, sample_spans, samples_job = model.training_samples(mask(n, spans))  # "10k samples": no budget, no count
    spans += sample_spans
    dataset, dataset_spans = model.named_dataset(mask(n, spans))  # "on ImageNet": its images and usual epochs
    spans += dataset_spans
    image_px, px_spans = model.image_side(mask(n, spans))  # "640分辨率", a YOLO's 640: what an image costs to train
    spans += px_spans
    if samples and per_sample and not tokens:
        tokens = samples * per_sample  # "2万条，每条1000 token": the tokens one pass trains on
    region = context.region(mask(t, context.script_request_spans(t)))
    local = context.local_currency(region)
    # "电费每度0.6": no budget; "台灣電費一度大概4塊多": in the money of the place named
    kwh, kwh_spans = money.kwh_price(mask(n, spans), lang, default=local)
    spans += kwh_spans
    users, counted, user_spans = audience.audience(mask(n, spans))  # "20 staff", "并发50": no budget, no count
    spans += user_spans
    # a card's name reads "@" for the count grammar ("2x @", "@ ×2", "两张@")
    with_cards = mask(mask(n, gpu_spans, "@"), [s for s in spans if s not in gpu_spans])
    count, count_spans = hardware.gpu_count(mask(with_cards, context.group_spans(with_cards)))
    found = money.extract_money(mask(with_cards, count_spans), lang)

    method = model.finetune_method(t)
    workloads = model.workloads(mask(n, gpu_spans), size, method, named_llm=model_params is not None)
    if samples_job and not workloads:
        workloads = (samples_job,)  # "20万张图片 4060ti够用吗": training on that many images
    masked = mask(n, spans)
    cues = context.cues(t, mask(n, gpu_spans, "@"))
    if hardware.form_factor_choice(t):
        # "笔记本还是台式": a question the guide answers, whatever else is on screen ("笔电" is no word of another topic here)
        cues = (cues - {"offtopic"}) | {"form_factor_choice"}
    if hardware.memory_asked_whether(mask(n, gpu_spans)) is not None:
        cues = cues | {"memory_whether"}  # "也要48G吗": whether the job needs that much (the dialogue answers it)
    move = context.budget_move(mask(with_cards, count_spans), found.spans)
    if move:
        cues = cues | {f"budget_{move}"}  # "再加一千", "$500 more": the dialogue moves the budget on the table
    vendor = hardware.vendor(mask(n, gpu_spans))
    also_vendor = hardware.included_vendor(mask(n, gpu_spans))
    if gpus or ("offtopic" in cues and "dl" not in cues):
        vendor = also_vendor = None  # "nvidia h100 price" names a card, "nvidia stock" a company: no vendor asked for
    used = context.used(t)
    if used is None:
        used = context.used(mask(n, gpu_spans, "@"))
    # no place named: the budget's currency, else Cantonese in Traditional characters (Hong Kong), for a message that
    # asks about cards or money (not "唔好用簡體字", which asks for a script)
    market = None if region else context.region_of(
        found.budget.currency if found.budget else None,
        chinese_script(raw) if is_traditional(raw) and (gpus or found.budget or workloads) else None)
    budget = found.budget
    if budget and local and not found.currency_written and budget.currency != local and \
            not money.too_small(budget.amount, local):
        budget = replace(budget, currency=local)  # "我在台灣 預算3萬", "im in germany, budget 1500": the place's money
    need = Need(budget=budget, workloads=workloads, model_size_b=size, finetune_method=method,
                precision_bits=model.precision(masked), gpu_count=count, used=used,
                vendor=vendor, also_vendor=also_vendor, as_of=as_of, min_vram_gb=min_vram, system_ram_gb=ram, max_power_w=cap_w,
                psu_w=psu_w, region=region, form_factor=hardware.form_factor(t), model=model_name,
                quant=model.quant_format(masked), context_tokens=ctx, owned_gpus=hardware.owned_cards(n, catalog),
                serving=True if "serving" in cues else None, concurrent_users=users if counted == audience.AT_ONCE else None,
                headcount=users if counted == audience.HEADCOUNT else None,
                daily_users=users if counted == audience.DAILY else None, kv_cache_bits=kv_bits, usage=hours,
                dataset_samples=samples, dataset=dataset, image_px=image_px, train_tokens=tokens, epochs=passes, kwh_price=kwh,
                price_currency=money.price_currency(t) if found.budget is None and found.rejected is None else None,
                quiet=True if "quiet" in cues else None,
                multi_gpu=True if "multi_gpu" in cues and count is None else None,
                shared=True if "shared_machine" in cues else None,
                whole_pc=False if "card_only" in cues else True if "whole_pc" in cues else None)
    return Query(
        text=raw, lang=lang, need=need, traditional=is_traditional(raw), bare_number=found.bare_number,
        rejected_money=found.rejected, currency_written=found.currency_written, gpus=gpus,
        unknown_products=hardware.unknown_products(n, catalog, gpu_spans), ordinals=context.ordinals(n),
        direction=context.direction(t) if len(gpus) < 2 else None,
        cues=cues, lang_request=context.language_request(t), card_memory_gb=hardware.stated_card_memory(n, catalog),
        memory_gb=memory_said, card_counts=hardware.card_counts(n, catalog), quant_formats=model.quant_formats(masked),
        delexicalised=re.sub(r"\d+(?:[.,]\d+)*", "9", mask(n, gpu_spans, "@")).strip(), market=market,
        model_family=model.named_family(masked) if not (size or model_name) else None,
        machines=tuple((g.name, g.vendor) for n in gpus if catalog is not None and (g := catalog.get(n)) is not None
                       and g.segment == "mac"))
