"""Building each kind of Reply from the engine's data: recommendations, comparisons, GPU cards, retrieved passages.

Every sentence exists in both languages (Text); numbers come from the catalog, the scorer and the knowledge files."""

from __future__ import annotations

import math
import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING

from bot.catalog import Price, load_laptop_gpus
from bot.i18n import CURRENCY_NAMES, LANG_SET, SEGMENTS, Text, hourly, money, per_thousand, price_basis, source_title
from bot.knowledge import Source
from bot.need import (
    CURRENCY_SYMBOLS,
    DAYS_PER_MONTH,
    LLM_WORKLOADS,
    PRICING_CURRENCIES,
    Budget,
    Need,
    Usage,
    format_money,
)
from bot.regions import load_regions
from bot.reply import Recommendation, Reply, Table
from bot.scorer import (
    LARGEST_PSU_W,
    MIN_POWER_LIMIT_SHARE,
    MODULE_FORM_FACTORS,
    PSU_HEADROOM,
    SMALL_MODELS_SHARE,
    SPLITTABLE_WORKLOADS,
    SYSTEM_POWER_W,
    Candidate,
    Ranking,
    assumed_at_once,
    assumed_precision,
    buyer_market,
    candidate_for,
    load_workloads,
    price_elsewhere,
    price_for,
    pricing,
    psu_for,
    quant_on_a_server,
    serving_users,
    setup_perf,
    stated_pricing,
    workload_spec,
)

HEADROOM_PCT = round((PSU_HEADROOM - 1) * 100)

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.catalog import GPU
    from bot.engine import Engine
    from bot.knowledge import Platform
    from bot.models import ModelSpec, Quant
    from bot.rentals import RentalOffer

_CHEAPEST_ROLE = Text("Fastest of the cheapest", "便宜方案中最快")  # "best" when no budget was said ("cheapest?")
_ROLE = {"best": Text("Best within budget", "预算内最强"), "value": Text("Best value", "性价比之选"),
         "overall": Text("Best overall", "综合最佳"), "roomy": Text("Comfortable memory", "显存从容之选"),
         "runner_up": Text("Runner-up", "备选"), "memory_first": Text("Best for this job", "最适合这个任务"),
         "roomier": Text("More memory", "显存更大之选"),
         "fastest": Text("Fastest, less memory", "最快但显存小"), "enough": Text("Enough for the job", "够用之选")}
EXAMPLES = {
    "en": ("$1500, training CNNs", "$800 for learning deep learning", "$2000, LoRA on a 7B model",
           "Which cloud GPU platform should I use in China?"),
    "zh": ("预算5000元训练CNN", "八千块入门深度学习", "1.5万做7B模型LoRA微调", "国内用哪个云平台？"),
}


def _t(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


def _ref_name(engine: Engine) -> str:
    from bot.perf import load_perf_model

    return load_perf_model(engine.knowledge_dir).reference_gpu


# --- small replies -------------------------------------------------------------------------------------------------

def empty_input(lang: str) -> Reply:
    return Reply("help", lang, paragraphs=(_t(lang, "I didn't catch a question. Tell me your budget and what you "
                                                    "want to train or run, for example:",
                                              "没看到问题。告诉我预算和用途，例如："),),
                 bullets=EXAMPLES[lang], suggestions=EXAMPLES[lang][:2])


def reset_done(lang: str) -> Reply:
    return Reply("help", lang, paragraphs=(_t(lang, "Starting over: I've forgotten the budget, workload and picks.",
                                              "好的，重新开始：预算、用途和之前的推荐都已清空。"),),
                 suggestions=EXAMPLES[lang][:2])


def language_set(lang: str, script: str | None = None) -> Reply:
    """The language (and for Chinese the script: 'zh-tw', 'zh-hk', 'zh-cn') set, named in that script."""
    return Reply("help", lang, paragraphs=(LANG_SET[script or lang] if lang == "zh" else LANG_SET["en"],))


def help_reply(lang: str) -> Reply:
    return Reply(
        "help", lang, title=_t(lang, "GPU advisor for deep learning", "深度学习显卡顾问"),
        paragraphs=(_t(lang, "I recommend GPUs to buy or rent for deep learning, with prices, memory and the "
                             "reasons, and answer questions about GPUs and cloud platforms. Try:",
                       "我帮你挑选深度学习用的显卡（买或租），给出价格、显存和理由，也回答显卡和云平台相关的问题。试试："),
                    _t(lang, "What I cover: NVIDIA, AMD and Intel cards and Apple chips; desktop, laptop and data-centre "
                             "GPUs, new or used; renting by the hour; which models fit on a card and how fast they "
                             "run. Not games, other PC parts, or writing code.",
                       "覆盖范围：NVIDIA、AMD、Intel 显卡和苹果芯片；台式、笔记本和数据中心显卡，新卡或二手；按小时租卡；"
                       "哪些模型能在一张卡上跑、跑多快。不包括游戏、其他电脑配件和写代码。")),
        bullets=EXAMPLES[lang],
        footer=(_t(lang, "Follow-ups work too: \"cheaper?\", \"more memory?\", \"why?\", \"why not the 4090?\", "
                         "\"compare the first two\", \"used?\", \"where can I rent it?\", \"start over\".",
                   "也可以接着问：“便宜点的呢？”“显存大一点的？”“为什么？”“为什么不推荐4090？”“对比一下前两个”“二手的可以吗？”"
                   "“去哪租？”“重新开始”。"),),
        suggestions=EXAMPLES[lang][:3])


def unusable_budget(engine: Engine, rejected: tuple[str, float], lang: str) -> Reply:
    """A budget that cannot buy anything (negative, nothing, more than any purchase): say so plainly, and point at
    what does work."""
    from bot.knowledge import load_platforms

    kind, amount = rejected
    if kind == "negative":
        return Reply("help", lang, paragraphs=(_t(
            lang, f"A budget can't be negative ({amount:,.0f}). How much can you spend? For example:",
            f"预算不能是负数（{amount:,.0f}）。你打算花多少钱？例如："),), bullets=EXAMPLES[lang][:3],
            suggestions=EXAMPLES[lang][:2])
    if kind == "zero":
        free = [p for p in load_platforms(engine.knowledge_dir) if p.has_free_tier]
        text = _t(lang, "With no budget you can't buy a GPU, but you can use one for free:",
                  "预算为零买不了显卡，不过可以免费用 GPU：")
        bullets = tuple(f"{p.label.get(lang)}{_t(lang, ': ', '：')}{p.free_tier.get(lang)}" for p in free)
        sources = tuple(Source(p.label.get(lang), p.url) for p in free)
        return Reply("recommend", lang, paragraphs=(text,), bullets=bullets, sources=sources,
                     suggestions=EXAMPLES[lang][:2])
    if kind == "unsupported_currency":
        codes = ", ".join(engine.catalog.fx.currencies)
        return Reply("help", lang, paragraphs=(_t(
            lang, f"I can't convert that currency yet: I price in {codes}. Tell me the amount in one of them (for "
                  "example \"$2200\" or \"€2000\") and I'll rank what it buys.",
            f"这种货币我还换算不了：我只按 {codes} 报价。请换成其中一种告诉我（例如“$2200”或“15000元”），我再按预算排。"),),
            suggestions=EXAMPLES[lang][:2])
    huge = amount >= 1e15  # "1e308", "一亿亿": no use printing the digits
    return Reply("recommend", lang, paragraphs=(_t(
        lang, f"{'That amount' if huge else f'{amount:,.0f}'} is more than any single GPU purchase I can price. Tell me a realistic budget "
              "(for example \"$3000\" or \"2万元\"), or ask where to rent data-centre GPUs by the hour.",
        f"{'这个金额' if huge else f'{amount:,.0f} '}超出了我能报价的任何一次显卡采购。请给一个实际的预算（例如“2万元”或“$3000”），"
        "或者问我去哪按小时租数据中心 GPU。"),), suggestions=EXAMPLES[lang][:2])


def ask_budget_and_workload(lang: str) -> Reply:
    return Reply("recommend", lang, paragraphs=(_t(
        lang, "Happy to help. What's your budget, and what will you use the GPU for? For example:",
        "可以。你的预算是多少、主要用来做什么？例如："),), bullets=EXAMPLES[lang][:3],
        suggestions=EXAMPLES[lang][:3])


def laptop_gpus(engine: Engine, r: Ranking, lang: str) -> Reply:
    """A laptop for a job: laptop GPUs by memory against what the job needs (a laptop GPU is not the desktop card of
    its name, and there are no laptop prices here, so the budget cannot pick one), and what the money buys on a desk."""
    spec = r.workload
    floor = max(r.required_vram_gb, spec.min_vram_gb)
    comfortable = max(spec.comfortable_vram_gb, floor)
    laptops = load_laptop_gpus(engine.knowledge_dir)
    roomy = [g for g in laptops if g.vram_gb >= comfortable]
    enough = [g for g in laptops if floor <= g.vram_gb < comfortable]
    short = [g for g in laptops if g.vram_gb < floor]

    def named(gs: list) -> str:
        return ("、" if lang == "zh" else ", ").join(f"{g.name} ({g.vram_gb:g} GB)" for g in gs)

    job = spec.label.get(lang)
    if roomy:
        lead = _t(lang, f"For {job}, look for a laptop with an {named(roomy)}: the {comfortable:g} GB {job} is "
                        "comfortable with.", f"做{job}，选带 {named(roomy)} 的笔记本：有{job}比较从容的 {comfortable:g} GB。")
        if enough:
            lead += _t(lang, f" {named(enough)} will also do (at least {floor:g} GB), with less room.",
                       f"{named(enough)} 也行（至少 {floor:g} GB），只是余量小一些。")
    elif enough:
        lead = _t(lang, f"For {job}, the roomiest laptop GPUs, {named(enough)}, have enough ({floor:g} GB) but not the "
                        f"comfortable {comfortable:g} GB: a desktop or a rented card is the better tool.",
                  f"做{job}，显存最大的笔记本显卡 {named(enough)} 够用（{floor:g} GB），但达不到比较从容的 {comfortable:g} GB："
                  "台式机或租卡更合适。")
    else:
        lead = _t(lang, f"No laptop GPU has the {floor:g} GB {job} needs (the largest has {laptops[0].vram_gb:g} GB): use "
                        "a desktop or rent by the hour.",
                  f"没有笔记本显卡有{job}需要的 {floor:g} GB（最大的是 {laptops[0].vram_gb:g} GB）：用台式机或按小时租卡。")
    if short and (roomy or enough):
        sizes = "/".join(f"{v:g}" for v in sorted({g.vram_gb for g in short}, reverse=True))
        lead += _t(lang, f" Skip laptops whose GPU has {sizes} GB.", f"显卡只有 {sizes} GB 的笔记本就别考虑了。")
    paragraphs = [lead]
    budget = r.need.budget
    desk = r.picks[0].candidate if r.picks else None
    if budget is not None:
        money_line = _t(lang, f"I have no laptop prices, so I can't tell which of these {budget} buys: compare the laptops "
                              "you can afford by their GPU's memory first, then its power limit.",
                        f"我没有笔记本的价格，没法判断 {budget} 能买到哪一款：在买得起的笔记本里先比显卡显存，再比功耗上限。")
        if desk is not None:
            money_line += _t(lang, f" On a desk the same money buys more: {desk.setup.en} ({desk.gpu.vram_gb:g} GB) at "
                                   f"{money(desk.total, desk.price.currency)}.",
                             f"同样的钱买台式机更值：{desk.setup.zh}（{desk.gpu.vram_gb:g} GB），{money(desk.total, desk.price.currency)}。")
        paragraphs.append(money_line)
    paragraphs.append(_t(lang, "A laptop GPU is a smaller chip than the desktop card of its name (the RTX 4090 Laptop "
                               "uses the desktop RTX 4080's chip), and the same name runs at the power limit (TGP) each "
                               "maker sets: up to 20–30% apart. Look for the Max Graphics Power in reviews, and for "
                               "training, cooling that holds it for hours.",
                         "笔记本显卡比同名的台式卡芯片小（RTX 4090 Laptop 用的是台式 RTX 4080 的芯片），同一型号的速度还取决于厂商设定的"
                         "功耗上限（TGP），可差 20–30%。看评测里的“最大显卡功耗”，训练的话还要散热能长时间撑住。"))
    header = (_t(lang, "Laptop GPU", "笔记本显卡"), _t(lang, "VRAM", "显存"), _t(lang, "Bandwidth", "带宽"),
              "FP32", "TGP", _t(lang, "Chip", "芯片"))
    rows = tuple((g.name, f"{g.vram_gb:g} GB", f"{g.bandwidth_gbs:,.0f} GB/s", f"{g.fp32_tflops:g} TFLOPS",
                  f"{g.tgp_min_w}–{g.tgp_max_w} W", g.chip) for g in laptops if g.vram_gb >= floor or g is laptops[0])
    urls = list(dict.fromkeys(u for g in laptops for u in g.sources))
    sources = tuple(Source(_t(lang, "Laptop GPU specs (TechPowerUp)", "笔记本显卡规格（TechPowerUp）") if "techpowerup" in u
                           else _t(lang, "Laptop GPU memory and power ranges", "笔记本显卡显存与功耗范围"), u)
                    for u in urls)
    return Reply("recommend", lang, title=_t(lang, f"A laptop for {job}: what its GPU needs",
                                             f"笔记本做{job}：显卡要看什么"),
                 paragraphs=tuple(paragraphs), table=Table(header, rows), sources=sources,
                 suggestions=(_t(lang, "what about a desktop?", "台式机呢？"), _t(lang, "rent instead?", "租卡呢？")))


def ask_workload(lang: str, need: Need) -> Reply:
    budget = f" ({need.budget})" if need.budget else ""
    return Reply("recommend", lang, paragraphs=(_t(
        lang, f"What will you use it for{budget}? For example: CNN / computer vision, Transformer / NLP, RNN / time "
              "series, running LLMs (which size?), LoRA fine-tuning, image generation, Kaggle, or just learning.",
        f"打算用来做什么{budget}？例如：CNN/图像、Transformer/NLP、RNN/时序、大模型推理（多大的模型？）、LoRA 微调、"
        "图像生成、Kaggle 比赛，或者入门学习。"),),
        suggestions=tuple(_t(lang, en, zh) for en, zh in (("CNN", "训练CNN"), ("NLP", "NLP"),
                                                            ("LoRA on a 7B model", "7B模型LoRA微调"),
                                                            ("learning", "入门学习"),
                                                            ("general deep learning", "通用深度学习"))))


# --- recommendations -----------------------------------------------------------------------------------------------

def _jobs_label(engine: Engine, r: Ranking) -> Text:
    """"learning deep learning + image generation": every job the need names (memory is sized for the most
    demanding; speed is ranked for the first)."""
    labels = [r.workload.label] + [workload_spec(engine.knowledge_dir, w, r.as_of).label
                                   for w in r.need.workloads[1:] if w != r.workload.name]
    return Text(" + ".join(t.en for t in labels), " + ".join(t.zh for t in labels))


def _whole_pc_note(engine: Engine, r: Ranking, lang: str) -> Text:
    """A whole PC's budget: how much of it the cards were chosen within, and what the rest is for."""
    from bot.perf import load_perf_model
    from bot.scorer import whole_pc_share

    share = whole_pc_share(r.need, load_perf_model(engine.knowledge_dir))
    whole = r.need.budget or stated_pricing(replace(r.need, whole_pc=None), engine.catalog, r.as_of, lang)[1]
    return Text(f"That is a budget for the whole PC, so the cards get about {share:.0%} of it ({r.budget}); the rest "
                "is for the CPU, RAM (about twice the VRAM), board, power supply, SSD and case (our rule of thumb). "
                f'Say "card only" if {whole} is for the graphics card alone.',
                f"这是整机预算，所以显卡按约 {share:.0%}（{r.budget}）来选；其余留给 CPU、内存（约为显存的两倍）、主板、"
                f"电源、硬盘和机箱（经验比例）。如果 {whole} 只是显卡的预算，说“只买显卡”。")


def recommend(engine: Engine, r: Ranking, lang: str, notes: list[Text]) -> Reply:
    """The ranked picks of `r` as a reply: a table, the reasons and caveats, what was assumed."""
    spec = r.workload
    label = _jobs_label(engine, r)
    when = "" if r.as_of == (engine.today or r.as_of) and r.need.as_of is None else \
        _t(lang, f" as of {r.as_of:%B %Y}", f"（以 {r.as_of.year} 年 {r.as_of.month} 月为准）")
    market = _t(lang, " (used allowed)", "（可二手）") if r.need.used else ""
    stated = stated_pricing(r.need, engine.catalog, r.as_of, lang)[1]
    whole = _whole_pc_note(engine, r, lang) if r.need.whole_pc and r.budget and stated and r.budget != stated \
        else None  # (a Mac is the whole computer: the budget is its own)
    converted = stated  # the whole budget in the currency prices are compared in
    if whole is not None:
        stated = r.budget  # the cards' share, said in its own note
        notes = [whole] + list(notes)
    if r.budget and stated != r.budget:  # "cheaper?": under the last top pick, the budget as it was
        below = format_money(r.budget.amount, r.budget.currency)
        title = _t(lang, f"{label.en}, budget {r.need.budget}, under {below}{market}{when}" if r.need.budget else
                   f"{label.en}, under {below}{market}{when}",
                   f"{label.zh}，预算 {r.need.budget}，{below} 以下{market}{when}" if r.need.budget else
                   f"{label.zh}，{below} 以下{market}{when}")
    elif r.budget and r.need.budget and r.need.budget.cheapest:  # no budget said: the cheapest that does it
        title = _t(lang, f"{label.en}, the cheapest setups that do it{market}{when}",
                   f"{label.zh}，能胜任的最便宜方案{market}{when}")
    elif r.budget:
        shown = str(r.need.budget) if r.need.budget == r.budget else f"{r.need.budget} (≈ {r.budget})"
        if whole is not None:
            shown = _t(lang, f"{r.need.budget} for the whole PC, {r.budget} for the cards",
                       f"{r.need.budget}（整机），显卡 {r.budget}")
        title = _t(lang, f"{label.en}, budget {shown}{market}{when}", f"{label.zh}，预算 {shown}{market}{when}")
    else:
        title = _t(lang, f"{label.en}{market}{when}", f"{label.zh}{market}{when}")
    paragraphs = [n.get(lang) for n in notes] + [n.get(lang) for n in r.notes]
    if r.need.upgrade_from:
        mine = "、".join(r.need.upgrade_from) if lang == "zh" else " and ".join(r.need.upgrade_from)
        paragraphs.insert(0, _t(lang, f"An upgrade from your {mine}: only cards with more memory, or at least 10% "
                                      "faster with as much, are listed.",
                                f"从你的 {mine} 升级：只列显存更大、或显存不少且快 10% 以上的卡。"))
    bits = assumed_precision(r.need, engine.knowledge_dir, r.as_of)
    if bits and r.need.serves_many:
        paragraphs.append(_t(lang, f"Assumed {bits}-bit weights (AWQ/GPTQ), the smallest a served model usually runs "
                                   "in with vLLM; on cards with FP8 (compute capability 8.9 and newer) many serve FP8 "
                                   "for near-16-bit quality at about twice the weight memory: say \"8-bit\" to size "
                                   "for it, or \"16-bit\".",
                             f"按 {bits} 位权重（AWQ/GPTQ）估算，这是 vLLM 部署时最省显存的常见做法；支持 FP8 的卡（计算能力 8.9 "
                             "及以上）很多人直接跑 FP8，质量接近 16 位，权重显存约翻倍：说“8 位”就按它来配，或说“16 位”。"))
    elif bits:
        paragraphs.append(_t(lang, f"Assumed {bits}-bit quantisation (GGUF Q4_K_M / AWQ class), which is how people run "
                                   f"{r.need.model_size_b:g}B models locally; say \"8-bit\" or \"16-bit\" for more "
                                   "memory-hungry, slightly better-quality options.",
                             f"按 {bits} 位量化估算（GGUF Q4_K_M / AWQ 一类），本地跑 {r.need.model_size_b:g}B 模型通常这样做；"
                             "想要更高精度可以说“8 位”或“16 位”（更吃显存）。"))
    if r.currency not in PRICING_CURRENCIES:  # "same but in euros": converted, not a local shop's price
        paragraphs.append(_t(lang, f"Prices in {r.currency}, converted from US prices at the dated exchange rate: shops "
                                   "where you live set their own prices (with VAT or import costs).",
                             f"价格按带日期的汇率由美国价格换算成 {r.currency}：当地商店的实际售价（含增值税或进口成本）会不同。"))
    elif converted and r.need.budget and r.need.budget.currency != converted.currency:
        paragraphs.append(_t(lang, f"Your {r.need.budget} is about {converted} at the latest dated exchange rate in "
                                   f"my data; prices below are {r.currency} prices.",
                             f"你的 {r.need.budget} 按我数据里最新的带日期汇率约合 {converted}；下面按 {r.currency} 价格比较。"))
    if spec.caveat:
        paragraphs.append(spec.caveat.get(lang))
    if r.memory:
        paragraphs.append(_t(lang, f"Memory needed: about {r.memory.total_gb:g} GB in all"
                                   f"{f', {round(r.required_vram_gb, 1):g} GB per card' if r.count > 1 else ''} "
                                   f"— {r.memory.assumption_en}.",
                             f"显存需求：总共约 {r.memory.total_gb:g} GB"
                             f"{f'，每张卡 {round(r.required_vram_gb, 1):g} GB' if r.count > 1 else ''}"
                             f"——{r.memory.assumption_zh}。"))
    elif r.need.small_models and r.required_vram_gb < spec.min_vram_gb:
        paragraphs.append(_t(lang, f"Memory: {label.en} usually wants at least {spec.min_vram_gb:g} GB "
                                   f"({spec.comfortable_vram_gb:g} GB is comfortable), and nothing with that much fits "
                                   "here. The cards below have less: enough to learn on and to train small models "
                                   "with smaller batches, not for the big ones.",
                             f"显存：{label.zh}通常至少要 {spec.min_vram_gb:g} GB（{spec.comfortable_vram_gb:g} GB 比较从容），"
                             "这次没有这么大显存又合适的卡。下面的卡显存小一些：够学习、用小一点的 batch 训练小模型，跑不了大模型。"))
    elif r.count > 1 and r.need.gpu_count and r.need.min_vram_gb:  # a split: what each card holds, and in all
        each, total = round(r.required_vram_gb, 1), round(r.required_vram_gb * r.count, 1)
        paragraphs.append(_t(lang, f"Memory: at least {each:g} GB per card, {total:g} GB in all, for {label.en}.",
                             f"显存：{label.zh}每张卡至少 {each:g} GB，合计 {total:g} GB。"))
    elif r.required_vram_gb >= spec.comfortable_vram_gb:
        paragraphs.append(_t(lang, f"Memory: at least {round(r.required_vram_gb, 1):g} GB for {label.en}.",
                             f"显存：{label.zh}至少 {round(r.required_vram_gb, 1):g} GB。"))
    else:
        paragraphs.append(_t(lang, f"Memory: at least {round(r.required_vram_gb, 1):g} GB for {label.en} "
                                   f"({spec.comfortable_vram_gb:g} GB is comfortable).",
                             f"显存：{label.zh}至少 {round(r.required_vram_gb, 1):g} GB（{spec.comfortable_vram_gb:g} GB 比较从容）。"))
    ref = _ref_name(engine)
    if not r.picks:
        paragraphs.append(_t(lang, "Nothing in my catalog meets all of that.", "目录里没有同时满足这些条件的卡。"))
        bullets = tuple(x.get(lang) for x in r.suggestions)
        region = r.need.region
        china = region == "cn" or (region is None and lang == "zh")
        rent = _rent_for_the_job(engine, r, china, lang) or _rent_rows(engine, [], china=china, lang=lang, limit=3)
        if rent:
            bullets += (_t(lang, "Places to rent: ", "可以租卡的平台：") + "; ".join(rent),)
        return Reply("recommend", lang, title=title, paragraphs=tuple(paragraphs), bullets=bullets,
                     footer=_footer(r, lang, ref), sources=_scorer_sources(engine, r, lang),
                     suggestions=_followups(lang, r))
    recs = []
    rows = []
    for p in r.picks:
        c = p.candidate
        recs.append(Recommendation(
            gpu=c.gpu.name, vendor=c.gpu.vendor, role=p.role, price=round(c.total, 2), currency=c.price.currency,
            price_date=c.price.on.isoformat(), market=c.price.market, vram_gb=c.gpu.vram_gb, count=c.count,
            score=round(c.perf, 3), value=round(c.value, 3), reasons=tuple(x.get(lang) for x in p.reasons),
            caveats=tuple(x.get(lang) for x in p.caveats if x.get(lang))))
        role = _CHEAPEST_ROLE if p.role == "best" and r.budget and r.budget.cheapest else _ROLE[p.role]
        rows.append((c.setup.get(lang), role.get(lang), _price_cell(c, lang),
                     f"{c.count}× {c.gpu.vram_gb:g} GB" if c.count > 1 else f"{c.gpu.vram_gb:g} GB", f"{c.perf:.2f}",
                     p.reasons[0].get(lang)))
    header = tuple(_t(lang, *h) for h in (("GPU", "显卡"), ("Pick", "定位"), ("Price", "价格"), ("VRAM", "显存"),
                                            (f"Speed ({ref}=1)", f"速度（{ref}=1）"), ("Why", "理由")))
    bullets = []
    for p in r.picks:
        extra = [x.get(lang) for x in p.reasons[1:]] + [x.get(lang) for x in p.caveats if x.get(lang)]
        if extra:
            bullets.append(f"{p.candidate.setup.en}: " + "; ".join(extra) if lang == "en" else
                           f"{p.candidate.setup.zh}：" + "；".join(extra))
    for x in r.notable_exclusions:
        bullets.append(_t(lang, f"Not {x.gpu.name}: {x.why.en}", f"没选 {x.gpu.name}：{x.why.zh}"))
    if r.budget is None and r.need.min_perf is None:
        paragraphs.append(_t(lang, "Tell me your budget and I'll rank what fits it (e.g. \"$1200\" or \"8000元\").",
                             "告诉我预算，我按预算排出能买的卡（例如“8000元”或“$1200”）。"))
    return Reply("recommend", lang, title=title, paragraphs=tuple(paragraphs), table=Table(header, tuple(rows)),
                 bullets=tuple(bullets), footer=_footer(r, lang, ref), sources=_scorer_sources(engine, r, lang),
                 recommendations=tuple(recs), suggestions=_followups(lang, r),
                 chart_gpus=tuple(dict.fromkeys([p.gpu.name for p in r.picks] + [c.gpu.name for c in r.candidates[:12]])))


def _seen(price, lang: str) -> str:
    """When a price was seen: '2026-01', or '2024-12, may be out of date' past STALE_PRICE_MONTHS."""
    return f"{price.on:%Y-%m}" + (_t(lang, ", may be out of date", "，可能已过时") if price.stale else "")


def _market_word(price, lang: str) -> str:
    """' used', or what a system builder's per-GPU price is; nothing for a shop's new price."""
    if price.market == "used":
        return _t(lang, " used", " 二手")
    if price.market == "abroad":
        return _t(lang, " converted from its price where it is sold (not sold new there)", " 按外地售价换算、这里不卖新卡")
    if price.market == "system":
        return _t(lang, " (a system builder's per-GPU price, not retail)", "（整机厂商的单卡折算价，非零售价）")
    return ""


def _price_cell(c: Candidate, lang: str) -> str:
    each = f" ({money(c.price.amount, c.price.currency)} ×{c.count})" if c.count > 1 else ""
    used = _market_word(c.price, lang)
    return f"{money(c.total, c.price.currency)}{each}{used}, {_seen(c.price, lang)}"


def _footer(r: Ranking, lang: str, ref: str) -> tuple[str, ...]:
    out = [_t(lang, f"Speed is relative to one {ref} for {r.workload.label.en}, from specs calibrated on Lambda's "
                    "measured PyTorch training throughput; prices are typical prices on the date shown.",
              f"速度以一张 {ref} 为 1，按{r.workload.label.zh}的规格模型估算（用 Lambda 实测的 PyTorch 训练吞吐校准）；"
              "价格为所示日期的常见价格。")]
    if r.need.vendor is None and r.need.also_vendor is None:
        out.append(_t(lang, "Only NVIDIA cards are considered by default (CUDA support); say \"AMD\" to include AMD.",
                      "默认只考虑 NVIDIA（CUDA 生态）；想看 AMD 请直接说“AMD”。"))
    return tuple(out)


LAMBDA_BENCHMARK_URL = "https://github.com/lambdal/deeplearning-benchmark"  # knowledge/benchmarks/README.md


def _scorer_sources(engine: Engine, r: Ranking, lang: str) -> tuple[Source, ...]:
    out = [Source(source_title("benchmarks", lang), LAMBDA_BENCHMARK_URL)]
    if r.workload.memory_source:
        out.append(Source(source_title("memory_guidance", lang, name=r.workload.label.get(lang)), r.workload.memory_source))
    for p in r.picks[:2]:
        url = p.candidate.price.source or p.gpu.source_url
        if url:
            out.append(Source(source_title("specs_price", lang, name=p.gpu.name), url))
    return tuple(OrderedDict((s.url, s) for s in out).values())


def _followups(lang: str, r: Ranking) -> tuple[str, ...]:
    out = [_t(lang, "cheaper?", "便宜点的呢？"), _t(lang, "why?", "为什么？")]
    if len(r.picks) >= 2:
        out.append(_t(lang, "compare the first two", "对比一下前两个"))
    out.append(_t(lang, "more memory?", "显存大一点的？"))
    if not r.need.used:
        out.append(_t(lang, "used?", "二手的可以吗？"))
    out.append(_t(lang, "where can I rent it?", "去哪租？"))
    return tuple(out)


# --- comparisons and single cards ----------------------------------------------------------------------------------

def _perf_of(engine: Engine, g: GPU, family: str) -> float | None:
    from bot.perf import load_perf_model

    model = load_perf_model(engine.knowledge_dir)
    ref = engine.catalog.get(model.reference_gpu)
    return model.relative(g, family, ref) if ref else None


def price_list_currency(need: Need, lang: str) -> str:
    """The price list a card's price is shown from: the budget's, else the user's market's (CNY in mainland China)."""
    if need.budget and need.budget.currency in ("CNY", "USD"):
        return need.budget.currency
    if need.budget:  # NT$, HK$, €…: the price list of the buyer's market, as the scorer prices them
        return "CNY" if need.region == "cn" else "USD"
    return "CNY" if need.region == "cn" or (need.region is None and lang == "zh") else "USD"


def _elsewhere(engine: Engine, need: Need, g: GPU, lang: str) -> str | None:
    """A card not sold new in the user's market, priced where it is sold (and converted), or None."""
    e = price_elsewhere(g, price_list_currency(need, lang), need.as_of or engine.today or date.today(), engine.catalog)
    return e.text().get(lang) if e else None


def _imported_price(engine: Engine, need: Need, g: GPU, lang: str, count: int = 1) -> Price | None:
    """What `count` of a card not sold new in the user's market cost where it is sold, converted to the user's
    currency (market "abroad": a verdict says it weighed that), or None."""
    e = price_elsewhere(g, price_list_currency(need, lang), need.as_of or engine.today or date.today(), engine.catalog)
    if e is None:
        return None
    return Price(e.converted * count, e.currency, e.price.on, "abroad", e.price.source, converted_from=e.price.currency)


def _current_price(engine: Engine, need: Need, g: GPU, lang: str):
    cur = price_list_currency(need, lang)
    when = need.as_of or engine.today or date.today()
    new = g.price(cur, "new", when, engine.catalog.fx)
    if new is not None and new.converted_from and g.not_sold_in("cn" if cur == "CNY" else "global", when):
        new = None  # a price converted from a market the card is sold in says nothing where it is not (5090 in China)
    return new, g.price(cur, "used", when, engine.catalog.fx)


def price_per_gb(engine: Engine, need: Need, names: list[str], lang: str) -> str | None:
    """"Which is cheaper per GB of VRAM?": each card's lowest current price (new or used) over its memory, the
    cheapest per GB named first. None when fewer than two of the cards have a price."""
    rows = []
    for g in (engine.catalog.get(n) for n in names):
        if g is None or not g.vram_gb:
            continue
        offers = [p for p in _current_price(engine, need, g, lang) if p is not None]
        if offers:
            p = min(offers, key=lambda x: x.amount)
            rows.append((p.amount / g.vram_gb, g, p))
    if len(rows) < 2:
        return None
    rows.sort(key=lambda r: r[0])
    each = [_t(lang, f"{g.name} {money(per, p.currency)}/GB ({p.market} {money(p.amount, p.currency)}, {g.vram_gb:g} GB)",
               f"{g.name} {money(per, p.currency)}/GB（{'二手' if p.market == 'used' else '新卡'} "
               f"{money(p.amount, p.currency)}，{g.vram_gb:g} GB）") for per, g, p in rows]
    best, worst = rows[0], rows[-1]
    if worst[0] / best[0] < 1.05:
        return _t(lang, f"Per GB of VRAM they cost about the same: {'; '.join(each)}.",
                  f"按每 GB 显存算，两者差不多：{'；'.join(each)}。")
    return _t(lang, f"Per GB of VRAM, {best[1].name} is cheaper: {'; '.join(each)} — {worst[0] / best[0]:.1f}× apart.",
              f"按每 GB 显存算，{best[1].name} 更便宜：{'；'.join(each)}——相差 {worst[0] / best[0]:.1f} 倍。")


def has_a_price(engine: Engine, need: Need, name: str, lang: str) -> bool:
    """Whether the card has a current price, new or used, in the need's market: what ranking it needs."""
    g = engine.catalog.get(name)
    return g is not None and any(p is not None for p in _current_price(engine, need, g, lang))


def _worth_of_the_card_sold_instead(engine: Engine, need: Need, g: GPU, sold: GPU, lang: str) -> Reply:
    """Asked whether a card not sold new in the user's market is worth it: the verdict on the card sold there in its
    place, which is what the money would buy, saying so first."""
    on = need.as_of or engine.today or date.today()
    block = g.not_sold_in(buyer_market(need, price_list_currency(need, lang)), on)
    verdict = worth_it(engine, need, sold.name, lang)
    there = price_elsewhere(g, price_list_currency(need, lang), on, engine.catalog)
    there = _t(lang, f" It is {there.text().en}.", f"{g.name} {there.text().zh}。") if there else ""
    note = _t(lang, f"{g.name} is not sold new where you buy ({block.note.en.rstrip('.')}).{there} {sold.name} is "
                    "sold in its place, so this is the verdict on that card.",
              f"{g.name} 在你那里没有新卡卖（{block.note.zh.rstrip('。')}）。{there}那里卖的是 {sold.name}，下面是对它的判断。")
    return replace(verdict, paragraphs=(note,) + verdict.paragraphs)


def _sold_in_its_place(engine: Engine, need: Need, g: GPU, lang: str) -> str | None:
    """For a card with no current price (off the shelves): the cheapest card sold now at a current price with at least
    its memory and its speed for the job — the verdict on buying it, and what it is worth used."""
    from bot.scorer import rank

    job = replace(need, budget=None, used=None, gpu_count=None, min_perf=None, vendor=None, min_vram_gb=None,
                  psu_w=None, max_power_w=None, max_price=None, whole_pc=None, multi_gpu=None)
    r = rank(engine.catalog, job, engine.knowledge_dir, need.as_of or engine.today, lang=lang)
    mine = _perf_of(engine, g, r.workload.family)
    if not mine:
        return None
    alts = [c for c in r.candidates if c.count == 1 and c.gpu.vram_gb >= g.vram_gb and c.perf >= mine * 0.95 and
            c.gpu.vendor == g.vendor and c.gpu.form_factor == g.form_factor]
    b = min(alts, key=lambda c: (c.total, -c.perf), default=None)
    if b is None:
        return None
    what = r.workload.label.get(lang)
    faster = 100 * (b.perf / mine - 1)
    speed = _t(lang, f"about {faster:.0f}% faster", f"快约 {faster:.0f}%") if faster >= 5 else \
        _t(lang, "about as fast", "速度相当")
    memory = _t(lang, f"{b.gpu.vram_gb:g} GB too" if b.gpu.vram_gb == g.vram_gb else
                f"{b.gpu.vram_gb:g} GB (against {g.vram_gb:g})",
                f"同样有 {b.gpu.vram_gb:g} GB" if b.gpu.vram_gb == g.vram_gb else f"有 {b.gpu.vram_gb:g} GB（它是 {g.vram_gb:g} GB）")
    return _t(lang, f"Not new: I have no current price for {g.name} (it is likely off the shelves), and {b.gpu.name} "
                    f"({b.price}, {_seen(b.price, lang)}) has {memory} and is {speed} for {what}. "
                    f"Worth it only used, well under {b.price}.",
              f"新卡不值：我没有 {g.name} 的当前价格（多半已下架），而 {b.gpu.name}（{b.price}，{_seen(b.price, lang)}）"
              f"{memory}，做{what}{speed}。只有二手、明显低于 {b.price} 时才值得买。")


def no_upgrade_in_budget(mine: tuple[str, ...]) -> Text:
    """Said above the best picks within budget when none of them beats the card the user means to replace."""
    return Text(f"Nothing within the budget beats your {' and '.join(mine)} on memory, or on speed with as much "
                "memory; these are the best within it.",
                f"预算内没有在显存上、或显存不少且速度上胜过你的 {'、'.join(mine)} 的卡；下面是预算内最好的选择。")


def price_difference(engine: Engine, need: Need, names: list[str], lang: str) -> str | None:
    """"价格差多少" after a comparison: each card's current price where the user buys, and the gap, in one line."""
    priced = []
    for name in names:
        g = engine.catalog.get(name)
        new, used = _current_price(engine, need, g, lang) if g is not None else (None, None)
        if new or used:
            priced.append((name, new or used))
    if len(priced) == 1:  # one of them has no current price where the user buys: say what there is
        (n, p), missing = priced[0], [x for x in names if x != priced[0][0]]
        return _t(lang, f"I only have a current price for {n}: {p}{_market_word(p, lang)} ({_seen(p, lang)}); "
                        f"none for {' or '.join(missing)} where you buy, so I can't give the gap.",
                  f"我只有 {n} 的当前价格：{p}{_market_word(p, lang)}（{_seen(p, lang)}）；{'、'.join(missing)} "
                  "在你那里没有当前价格，算不出差价。")
    if not priced:
        return _t(lang, f"I have no current price for {' or '.join(names)} where you buy (likely off the shelves), so I "
                        "can't give the gap; the comparison is on speed and memory.",
                  f"{'、'.join(names)} 在你那里都没有当前价格（多半已下架），算不出差价；下面只比速度和显存。")
    priced.sort(key=lambda x: x[1].amount)
    (lo, p_lo), (hi, p_hi) = priced[0], priced[-1]
    gap = engine.catalog.fx.convert(p_hi.amount, p_hi.currency, p_lo.currency, p_hi.on) - p_lo.amount \
        if p_hi.currency != p_lo.currency else p_hi.amount - p_lo.amount
    each = _t(lang, "; ".join(f"{n} {p}{_market_word(p, lang)} ({_seen(p, lang)})" for n, p in priced),
              "；".join(f"{n} {p}{_market_word(p, lang)}（{_seen(p, lang)}）" for n, p in priced))
    return _t(lang, f"{hi} costs about {money(gap, p_lo.currency)} more than {lo} ({100 * gap / p_lo.amount:.0f}%): "
                    f"{each}.",
              f"{hi} 比 {lo} 贵约 {money(gap, p_lo.currency)}（{100 * gap / p_lo.amount:.0f}%）：{each}。")


def _sold_instead(engine: Engine, need: Need, g: GPU, lang: str) -> GPU | None:
    """The card sold new in the user's market in place of one that is not (markets.csv `instead`), if it has a price
    there."""
    block = g.not_sold_in(buyer_market(need, price_list_currency(need, lang)), need.as_of or engine.today or date.today())
    sold = engine.catalog.get(block.instead) if block is not None and block.instead else None
    return sold if sold is not None and sold.name != g.name and _current_price(engine, need, sold, lang)[0] else None


def has_current_price(engine: Engine, need: Need, name: str, lang: str) -> bool:
    g = engine.catalog.get(name)
    return g is not None and any(_current_price(engine, need, g, lang))


def _largest_llms_held(engine: Engine, gpus, n_of, label, perfs, lang: str) -> tuple[str, int] | None:
    """Setups of different memory compared for LLMs with no model named: the largest usual model each runs (the
    what-fits table's), the roomier setup first when it runs a larger one, and how the speeds compare on the models
    both run. None when every setup runs the same models."""
    largest = []
    for g, n in zip(gpus, n_of, strict=True):
        runs = what_fits(engine, g.name, n, lang).fit.get("runs") or []
        largest.append(max(runs, key=lambda r: r["total_gb"], default=None))
    if any(r is None for r in largest) or len({r["model"] for r in largest}) < 2:
        return None
    roomy = max(range(len(gpus)), key=lambda i: (largest[i]["total_gb"], gpus[i].vram_gb * n_of[i]))
    held = _t(lang, "; ", "；").join(_t(lang, f"{lab} ({g.vram_gb * n:g} GB) runs up to {r['model']} ({r['quant']}, ~{r['total_gb']:g} GB)",
                        f"{lab}（{g.vram_gb * n:g} GB）最大能跑 {r['model']}（{r['quant']}，约 {r['total_gb']:g} GB）")
                     for lab, g, n, r in zip(label, gpus, n_of, largest, strict=True))
    fastest = max(range(len(gpus)), key=lambda i: perfs[i] or 0)
    speed = ""
    if fastest != roomy and perfs[fastest] and perfs[roomy]:
        gain = 100 * (perfs[fastest] / perfs[roomy] - 1)
        speed = _t(lang, f" On models both run, {label[fastest]} is about {gain:.0f}% faster.",
                   f"两边都能跑的模型上，{label[fastest]} 快约 {gain:.0f}%。")
    return _t(lang, f"Verdict: {label[roomy]} for larger models, since memory decides what runs at all: {held}.{speed}",
              f"结论：要跑更大的模型选 {label[roomy]}，显存决定能不能跑：{held}。{speed}"), roomy


def compare(engine: Engine, need: Need, names: list[str], lang: str, counts: dict[str, int] | None = None,
            offered: tuple[str, Budget, bool] | None = None) -> Reply:
    """Cards side by side for the need; `counts` compares setups ("two 3090s or one 4090"): speed scaled by the
    measured multi-GPU efficiency of the job, memory, power and price per setup. `offered`: a card, the price the
    user was offered for it and whether used ("a used 3090 for $700 or a 5070 Ti"): weighed at that price. One of two
    cards in `need.owned_gpus` ("I have a 3090, worth upgrading to a 5090?"): the verdict is on the step up."""
    from bot.perf import load_perf_model

    gpus = [engine.catalog.get(n) for n in names]
    gpus = [g for g in gpus if g is not None]
    n_of = [max(1, (counts or {}).get(g.name, 1)) for g in gpus]
    label = [f"{n}× {g.name}" if n > 1 else g.name for g, n in zip(gpus, n_of, strict=True)]
    perf_model = load_perf_model(engine.knowledge_dir)
    spec = workload_spec(engine.knowledge_dir, need.workload, need.as_of or engine.today or date.today())
    fams = list(OrderedDict.fromkeys([spec.family, "transformer", "llm_inference"]))
    header = (_t(lang, "", ""),) + tuple(label)
    rows = [(_t(lang, "VRAM", "显存"),) + tuple(f"{n}× {g.vram_gb:g} GB" if n > 1 else f"{g.vram_gb:g} GB"
                                               for g, n in zip(gpus, n_of, strict=True)),
            (_t(lang, "Bandwidth", "带宽"),) + tuple(f"{g.mem_bandwidth_gbs:,.0f} GB/s" if g.mem_bandwidth_gbs else "?"
                                                   for g in gpus),
            (_t(lang, "FP16 tensor", "FP16 张量"),) + tuple(f"{g.tensor_fp16_tflops:g} TFLOPS" if g.tensor_fp16_tflops
                                                           else _t(lang, "none", "无") for g in gpus),
            (_t(lang, "Power", "功耗"),) + tuple(f"{n * g.tdp_w:.0f} W" if g.tdp_w else "?"
                                               for g, n in zip(gpus, n_of, strict=True))]
    if len({g.form_factor for g in gpus}) > 1:  # "A100 PCIe or SXM?": a card for any server, or a module for HGX boards
        rows.append((_t(lang, "Form factor", "形态"),) + tuple(
            _t(lang, "PCIe card", "PCIe 插卡") if g.form_factor.upper().startswith("PCIE") else
            _t(lang, f"{g.form_factor} module (needs its server board; NVLink)", f"{g.form_factor} 模组（需专用服务器主板；NVLink）")
            if g.form_factor in MODULE_FORM_FACTORS else
            _t(lang, "a whole computer (CPU and GPU share its memory)", "一整台电脑（CPU 和 GPU 共用内存）")
            if g.unified_memory else _t(lang, g.form_factor, g.form_factor)
            for g in gpus))
    perfs = {}
    for fam in fams:
        vals = [(v * perf_model.scaling(fam, n, g) if v and fam in perf_model.families else v)
                for v, n, g in ((_perf_of(engine, g, fam), n, g) for g, n in zip(gpus, n_of, strict=True))]
        perfs[fam] = vals
        fam_label = _family_label(engine, fam, lang)
        rows.append((_t(lang, f"Speed: {fam_label}", f"速度：{fam_label}"),) + tuple(f"{v:.2f}" if v else "?"
                                                                                   for v in vals))
    prices = [tuple(replace(p, amount=p.amount * n) if p else None for p in _current_price(engine, need, g, lang))
              for g, n in zip(gpus, n_of, strict=True)]
    on = need.as_of or engine.today or date.today()
    cur = price_list_currency(need, lang)
    asked = None  # the offered card's index and its price in the prices' currency
    if offered is not None and offered[0] in [g.name for g in gpus]:
        i = [g.name for g in gpus].index(offered[0])
        amount = engine.catalog.fx.convert(offered[1].amount, offered[1].currency, cur, on) * n_of[i]
        asked = i, Price(round(amount, 2), cur, on, "used" if offered[2] else "new", source="offered")
        listed = prices[i][1] if offered[2] else prices[i][0]
        prices[i] = (prices[i][0], asked[1]) if offered[2] else (asked[1], prices[i][1])
        market = ("used", "二手") if offered[2] else ("new", "新卡")
        asked_note = _t(lang, f"Weighed at the {offered[1]} you were offered for {label[i]}"
                              f"{f' (the latest {market[0]} price on file is {listed})' if listed else ''}.",
                        f"{label[i]} 按你说的 {offered[1]} 来比较{f'（资料里最新的{market[1]}价是 {listed}）' if listed else ''}。")
    rows.append((_t(lang, "Price (new)", "价格（新）"),) + tuple(
        f"{p[0]} ({_seen(p[0], lang)})" if p[0] else _elsewhere(engine, need, g, lang) or "—"
        for p, g in zip(prices, gpus, strict=True)))
    rows.append((_t(lang, "Price (used)", "价格（二手）"),) + tuple(f"{p[1]} ({_seen(p[1], lang)})" if p[1] else "—"
                                                               for p in prices))
    paragraphs = []
    said_by_verdict = []  # lines a verdict on memory at equal speed makes redundant
    chosen = gpus[0].name if gpus else None
    if len(gpus) >= 2:
        # with three or four cards: the fastest against the slowest, the most memory against the least
        speed = [(p, x) for p, x in zip(perfs[spec.family], label, strict=True) if p]
        if len(speed) >= 2:
            (pa, faster), (pb, slower) = max(speed, key=lambda x: x[0]), min(speed, key=lambda x: x[0])
            ratio = pa / pb
            if ratio < SAME_SPEED:  # the same chip in two memory sizes, or near enough: the speed does not decide
                paragraphs.append(_t(lang, f"For {spec.label.en}, they are about equally fast: memory and price "
                                           "decide.", f"{spec.label.zh}：速度基本相同，看显存和价格来选。"))
                said_by_verdict.append(paragraphs[-1])
            else:
                # a card without CUDA leads on its specs only: nobody we cite measured it (no CUDA, no Lambda runs)
                on_paper = any(g.vendor != "NVIDIA" and g.name == faster for g in gpus)
                paragraphs.append(_t(lang, f"For {spec.label.en}, {faster} is about {100 * (ratio - 1):.0f}% faster "
                                           f"than {slower}{' on paper (from specs)' if on_paper else ''}.",
                                     f"{spec.label.zh}：{faster} 比 {slower} {'按规格' if on_paper else ''}快约 "
                                     f"{100 * (ratio - 1):.0f}%{'（纸面数字）' if on_paper else ''}。"))
        macs = [g.name for g in gpus if g.vendor == "Apple"]
        if macs and len(macs) < len(gpus):
            paragraphs.append(_t(
                lang, f"{', '.join(macs)}: no CUDA. llama.cpp (Metal) and MLX run LLMs well on it, and its unified memory "
                      "holds models no single card does; PyTorch training (MPS) is slow and CUDA-only tools do not run.",
                f"{'、'.join(macs)}：没有 CUDA。llama.cpp（Metal）和 MLX 跑大模型推理很好，统一内存能装下单张显卡装不下的模型；"
                "用 PyTorch（MPS）训练很慢，只支持 CUDA 的工具也跑不了。"))
        others = [g.name for g in gpus if g.vendor not in ("NVIDIA", "Apple")]
        if others and len(others) < len(gpus):
            paragraphs.append(_t(
                lang, f"{', '.join(others)}: no CUDA. These speeds come from specs and assume its software runs PyTorch "
                      "as well as CUDA does, which it often does not (kernels, FlashAttention, bitsandbytes and many "
                      "extensions need ports); check that your stack supports it before weighing the numbers.",
                f"{'、'.join(others)}：不支持 CUDA。这里的速度按规格估算，前提是它的软件栈跑 PyTorch 和 CUDA 一样顺，而实际上常常做不到"
                "（算子、FlashAttention、bitsandbytes 和许多扩展都要移植）；先确认你的代码能在上面跑，再看这些数字。"))
        if any(n > 1 for n in n_of) and spec.family in perf_model.families:
            eff = min(perf_model.efficiency(spec.family, g) for g, n in zip(gpus, n_of, strict=True) if n > 1)
            paragraphs.append(_t(
                lang, f"Several cards: each doubling speeds {spec.label.en} up about {2 * eff:.1f}× (Lambda's measured "
                      "multi-GPU scaling), but memory does not pool for ordinary data-parallel training: the model "
                      "must fit on one card, or be split (FSDP, pipeline, or a layer split for inference).",
                f"多卡：卡数每翻一倍，{spec.label.zh}的速度约为原来的 {2 * eff:.1f} 倍（Lambda 实测的多卡扩展），但普通数据并行训练时显存"
                "不会叠加：模型要能装进一张卡，否则得切分（FSDP、流水线并行，推理可按层切分）。"))
        big, small = max(gpus, key=lambda g: g.vram_gb), min(gpus, key=lambda g: g.vram_gb)
        if big.vram_gb != small.vram_gb:
            paragraphs.append(_t(lang, f"{big.name} has more memory ({big.vram_gb:g} vs {small.vram_gb:g} GB), which "
                                       "decides which models fit at all.",
                                 f"{big.name} 显存更大（{big.vram_gb:g} 对 {small.vram_gb:g} GB），这决定了能不能装下模型。"))
            said_by_verdict.append(paragraphs[-1])
        # "二手的呢" after a comparison: weighed on used prices where a card has one; a card not sold new here and
        # never seen used, on its price where it is sold, converted (said so in the verdict)
        weighed = [(used, new) if need.used and used else (new, used) if new or used else
                   (_imported_price(engine, need, g, lang, n), None)
                   for (new, used), g, n in zip(prices, gpus, n_of, strict=True)]
        if asked is not None:
            weighed[asked[0]] = (asked[1], None)
        budget = need.budget
        if budget is not None and budget.currency != cur:  # "預算台幣五萬": checked against prices in their currency
            budget = Budget(round(engine.catalog.fx.convert(budget.amount, budget.currency, cur, on)), cur,
                            approximate=True)
        verdict = _compare_verdict(perfs[spec.family], label, weighed, lang,
                                   roomy=[g.vram_gb * n >= spec.comfortable_vram_gb for g, n in zip(gpus, n_of,
                                                                                                  strict=True)],
                                   job=(spec.label, spec.comfortable_vram_gb) if need.workloads else None,
                                   vram=[g.vram_gb * n for g, n in zip(gpus, n_of, strict=True)], budget=budget,
                                   budget_said=need.budget)
        verdict = _software_tie(gpus, n_of, perfs[spec.family], label, lang) or verdict
        owned = [i for i, g in enumerate(gpus) if g.name in need.owned_gpus]
        mine = owned[0] if owned and len(gpus) == 2 else None
        if mine is not None:
            verdict = _upgrade_verdict(mine, perfs[spec.family], label, prices,
                                       [g.vram_gb * n for g, n in zip(gpus, n_of, strict=True)], spec.label,
                                       lang) or verdict
        memories = [g.vram_gb * n for g, n in zip(gpus, n_of, strict=True)]
        held = _largest_llms_held(engine, gpus, n_of, label, perfs[spec.family], lang) \
            if spec.name == "llm_inference" and (any(n > 1 for n in n_of) or max(memories) >= 2 * min(memories)) \
            and not need.model_size_b and not need.model else None  # (single cards: the verdict weighs the job's memory against price)
        if held:  # "2x 3090 or one 4090 for LLMs?": memory decides which models run at all, speed only among those
            paragraphs.insert(0, held[0])
            chosen = gpus[held[1]].name
        elif verdict:
            others_more = [g for g in gpus if g.vram_gb > gpus[verdict[1]].vram_gb]
            if len(gpus) == 2 and others_more and not need.workloads and not need.model_size_b and \
                    verdict[0].startswith(("Verdict: ", "结论：选")):  # (a split verdict says it already)
                more = others_more[0]
                verdict = (verdict[0] + _t(lang, f" For LLMs or image generation, {more.name}'s {more.vram_gb:g} GB matters "
                                                 "more than the speed.",
                                           f"如果要跑大模型或图像生成，{more.name} 的 {more.vram_gb:g} GB 显存比速度更重要。"),
                           verdict[1])
            if len(gpus) == 2 and gpus[verdict[1]].vram_gb > min(g.vram_gb for g in gpus) and \
                    len(speed) == 2 and ratio < SAME_SPEED:  # the verdict already says: as fast, more memory
                paragraphs = [p for p in paragraphs if p not in said_by_verdict]
            paragraphs.insert(0, verdict[0])
            chosen = gpus[verdict[1]].name
    if asked is not None:
        paragraphs.insert(min(1, len(paragraphs)), asked_note)
    if buyer_market(need, price_list_currency(need, lang)) == "cn":
        # "H20和H100差多少，国内公司买H20划算吗": a card the buyer's market does not sell new is said so, after the verdict
        on = need.as_of or engine.today or date.today()
        for g in gpus:
            block = g.not_sold_in("cn", on)
            if block is not None:
                limited = block.status == "restricted"
                paragraphs.append(_t(
                    lang, f"Note: {g.name} {'sales are restricted' if limited else 'is not sold new'} in mainland China "
                          f"(since {block.since:%Y-%m}). {block.note.en}",
                    f"注意：{g.name} 自 {block.since:%Y-%m} 起{'在中国大陆销售受限' if limited else '中国大陆没有新卡销售'}。"
                    f"{block.note.zh}"))
    sources = tuple(Source(source_title("specs", lang, name=g.name), g.source_url) for g in gpus if g.source_url)
    return Reply("compare", lang, title=_t(lang, "Comparison", "对比") + ": " + " vs ".join(label),
                 paragraphs=tuple(paragraphs), table=Table(header, tuple(rows)),
                 footer=(_t(lang, f"Speed relative to one {_ref_name(engine)} (= 1.00), from specs.",
                            f"速度以一张 {_ref_name(engine)} 为 1.00，按规格估算。"),),
                 sources=sources, chart_gpus=tuple(g.name for g in gpus), chart_counts=tuple(n_of), topic="compare",
                 focus=chosen,
                 suggestions=(_t(lang, "which is better value?", "哪个性价比高？"),
                              _t(lang, "where can I rent them?", "去哪租？")))


SAME_SPEED = 1.03  # within 3 %: "about equally fast" (the same chip in two memory sizes, or near enough)
NO_CUDA_MARGIN = 1.15  # a lead on paper smaller than this does not outweigh CUDA's software (spec-based speeds)


def _software_tie(gpus: list, counts: list[int], perfs: list, labels: list[str], lang: str) -> tuple[str, int] | None:
    """A card without CUDA whose lead is on paper only (within NO_CUDA_MARGIN) loses to a CUDA card with at least as
    much memory: its speed here comes from specs, while the CUDA card runs every tool as measured."""
    if len(gpus) != 2 or not all(perfs) or {g.vendor == "NVIDIA" for g in gpus} != {True, False}:
        return None
    cuda = 0 if gpus[0].vendor == "NVIDIA" else 1
    other = 1 - cuda
    if perfs[other] > NO_CUDA_MARGIN * perfs[cuda] and \
            gpus[other].vram_gb * counts[other] >= gpus[cuda].vram_gb * counts[cuda]:
        # ahead on paper by more than the margin: still its specs against a card that runs as measured
        lead = 100 * (perfs[other] / perfs[cuda] - 1)
        return _t(lang, f"Verdict: {labels[other]} on paper (about {lead:.0f}% faster by its specs, at least as much "
                        f"memory), but no one measured that in PyTorch and non-CUDA stacks often fall well short of "
                        f"their specs. {labels[cuda]} is the safe choice if you use CUDA-only tools (FlashAttention, "
                        f"bitsandbytes, many extensions); {labels[other]} if your software is known to run on it.",
                  f"结论：纸面上是 {labels[other]}（按规格快约 {lead:.0f}%，显存不少），但这不是 PyTorch 实测，非 CUDA 的"
                  f"软件栈常常达不到规格上的速度。要用只支持 CUDA 的工具（FlashAttention、bitsandbytes、许多扩展）就选 "
                  f"{labels[cuda]}；确认你的软件能在 {labels[other]} 上跑再选它。"), other
    if gpus[cuda].vram_gb * counts[cuda] < gpus[other].vram_gb * counts[other] or \
            perfs[other] > NO_CUDA_MARGIN * perfs[cuda]:
        return None
    return _t(lang, f"Verdict: {labels[cuda]} — as fast or nearly so, at least as much memory, and CUDA runs the whole "
                    f"toolchain (PyTorch extensions, FlashAttention, bitsandbytes, vLLM); {labels[other]} only if it "
                    "costs clearly less and your software is known to run on it.",
              f"结论：{labels[cuda]}——速度相当或接近、显存不少，而且 CUDA 能跑全套工具（PyTorch 扩展、FlashAttention、"
              f"bitsandbytes、vLLM）；只有 {labels[other]} 明显更便宜、且确认你的软件能在上面跑时才选它。"), cuda


def _unpriced_verdict(perfs: list, labels: list[str], vram: list[float], roomy: list[bool] | None,
                      job: tuple[Text, float] | None, lang: str) -> tuple[str, int] | None:
    """Without today's prices for both: the fastest card when it also has the most memory, or when every card has
    the memory the stated job is comfortable with (then speed decides)."""
    if len(perfs) < 2 or not all(perfs):
        return None
    best = max(range(len(perfs)), key=lambda i: perfs[i])
    if sum(p * SAME_SPEED >= perfs[best] for p in perfs) > 1:
        # "about equally fast": speed does not decide, memory does (which models fit at all)
        if not vram or len(perfs) != 2 or vram[0] == vram[1]:
            return None
        big, small = (0, 1) if vram[0] > vram[1] else (1, 0)
        return _t(lang, f"Verdict: {labels[big]} — about as fast, with more memory ({vram[big]:g} vs {vram[small]:g} GB), "
                        f"which decides which models fit. {labels[small]} only if it costs you clearly less. I don't "
                        "have current prices for both, so weigh what each costs you.",
                  f"结论：{labels[big]}——速度差不多，显存更大（{vram[big]:g} 对 {vram[small]:g} GB），这决定了能装下哪些模型。"
                  f"只有 {labels[small]} 明显更便宜时才选它。我没有两张卡的当前价格，价钱请自己比较。"), big
    if vram[best] >= max(vram):
        why = Text("faster and at least as much memory", "更快，显存也不少")
    elif job is not None and roomy and all(roomy):
        why = Text(f"faster, and both have the {job[1]:g} GB {job[0].en} is comfortable with",
                   f"更快，两张卡都有{job[0].zh}比较从容的 {job[1]:g} GB")
    elif len(perfs) == 2:
        # faster against more memory, no prices to weigh: which one for which kind of job
        big = 1 - best
        gain = 100 * (perfs[best] / perfs[big] - 1)
        return _t(lang, f"Verdict: it depends on the job. {labels[big]} for LLMs and image generation, where its "
                        f"{vram[big]:g} GB (against {vram[best]:g} GB) decides which models fit; {labels[best]} for "
                        f"training models that fit in {vram[best]:g} GB, about {gain:.0f}% faster. I don't have current "
                        "prices for both, so weigh what each costs you.",
                  f"结论：看用途。跑大模型、图像生成选 {labels[big]}，它的 {vram[big]:g} GB（对 {vram[best]:g} GB）决定能装下哪些模型；"
                  f"训练 {vram[best]:g} GB 装得下的模型选 {labels[best]}，快约 {gain:.0f}%。我没有两张卡的当前价格，价钱请自己比较。"), big
    else:
        return None
    return _t(lang, f"Verdict: {labels[best]} — {why.en}. I don't have current prices for both, so weigh what each "
                    "costs you.",
              f"结论：{labels[best]}——{why.zh}。我没有两张卡的当前价格，价钱请自己比较。"), best


UPGRADE_WORTH = 1.25  # an upgrade less than this much faster, with no more memory, is not worth the money and bother


def _upgrade_verdict(owned: int, perfs: list, labels: list[str], prices: list[tuple], vram: list[float],
                     job: Text, lang: str) -> tuple[str, int] | None:
    """"I have a 3090, worth upgrading to a 5090?": not which to buy, but what the step up gains (speed for the job,
    memory) and what it costs after the owned card is sold used."""
    if len(labels) != 2 or not all(perfs):
        return None
    new = 1 - owned
    ratio, more_gb = perfs[new] / perfs[owned], vram[new] - vram[owned]
    price = prices[new][0] or prices[new][1]
    resale = prices[owned][1]
    gain = _t(lang, f"{100 * (ratio - 1):.0f}% faster for {job.en}" if ratio >= SAME_SPEED else
              (f"{100 * (1 - ratio):.0f}% slower for {job.en}" if ratio < 1 / SAME_SPEED else f"as fast for {job.en}"),
              f"{job.zh}快约 {100 * (ratio - 1):.0f}%" if ratio >= SAME_SPEED else
              (f"{job.zh}反而慢约 {100 * (1 - ratio):.0f}%" if ratio < 1 / SAME_SPEED else f"{job.zh}速度差不多"))
    memory = _t(lang, f", {more_gb:+g} GB of memory ({vram[new]:g} GB)" if more_gb else ", no more memory",
                f"，显存 {more_gb:+g} GB（{vram[new]:g} GB）" if more_gb else "，显存不变")
    cost = ""
    if price is not None:
        cost = _t(lang, f" It costs {price}{_market_word(price, lang)}", f"要花 {price}{_market_word(price, lang)}")
        if resale is not None and resale.currency == price.currency:
            net = format_money(max(price.amount - resale.amount, 0), price.currency)
            cost += _t(lang, f", about {net} after selling your {labels[owned]} used (~{resale}).",
                       f"，卖掉你的 {labels[owned]}（二手约 {resale}）后净花约 {net}。")
        else:
            cost += _t(lang, ".", "。")
    if ratio < UPGRADE_WORTH and more_gb <= 0:
        return _t(lang, f"Verdict: keep your {labels[owned]} — {labels[new]} is only {gain.split(' for ')[0]}"
                        f"{memory}, not worth the money and bother.{cost}",
                  f"结论：留着你的 {labels[owned]}——{labels[new]} {gain}{memory}，不值得花这个钱折腾。{cost}"), owned
    return _t(lang, f"Upgrade from your {labels[owned]} to {labels[new]}: {gain}{memory}.{cost} Worth it if that speed "
                    "or memory is what holds your work back; otherwise keep the card you have.",
              f"从你的 {labels[owned]} 升级到 {labels[new]}：{gain}{memory}。{cost}如果卡住你的正是速度或显存，就值得；"
              "否则先用着手上的卡。"), new


def _with_prices(perfs: list, labels: list[str], prices: list[tuple]) -> list[tuple]:
    """(speed, label, price — new, else used —, index) of each compared card that has a speed and a price."""
    return [(p, x, pr[0] or pr[1], i) for i, (p, x, pr) in enumerate(zip(perfs, labels, prices, strict=True))
            if p and (pr[0] or pr[1])]


BUDGET_SLACK = 1.1  # in a comparison, a card up to this much over the user's budget still counts as within it


def _compare_verdict(perfs: list, labels: list[str], prices: list[tuple], lang: str, roomy: list[bool] | None = None,
                     job: tuple[Text, float] | None = None, vram: list[float] | None = None,
                     budget: Budget | None = None, budget_said: Budget | None = None) -> tuple[str, int] | None:
    """With a budget ("5060 Ti or a used 3090, budget ~$500"): the cards over it are named as such and the verdict is
    among the others; else `_verdict_on_price`. `budget_said`: the budget as the user wrote it, when `budget` is it
    converted to the prices' currency."""
    priced = _with_prices(perfs, labels, prices)
    if budget is not None and priced and all(m.currency == budget.currency for _, _, m, _ in priced):
        over = [x for x in priced if x[2].amount > BUDGET_SLACK * budget.amount]
        within = [x for x in priced if x not in over]
        if over and not within and len(priced) == len(perfs):  # "預算台幣五萬，4090還是兩張3090": neither fits it
            found = _verdict_on_price(perfs, labels, prices, lang, roomy, job, vram)
            said = f"{budget_said} (≈ {budget})" if budget_said and budget_said != budget else f"{budget}"
            said_zh = f"{budget_said}（约 {budget}）" if budget_said and budget_said != budget else f"{budget}"
            both = len(priced) == 2
            note = _t(lang, f" {'Both cost' if both else 'All of them cost'} more than your budget of {said}, so this "
                            "assumes you stretch it.",
                      f"{'两个' if both else '这几个'}都超出你的预算 {said_zh}，这个结论是按加钱算的。")
            return (found[0] + note, found[1]) if found else None
        if over and within:
            names = ", ".join(f"{x[1]} ({x[2]}{_market_word(x[2], lang)})" for x in over)
            names_zh = "、".join(f"{x[1]}（{x[2]}{_market_word(x[2], lang)}）" for x in over)
            note = _t(lang, f" {names} is over your budget of {budget}.", f"{names_zh}超出你的预算 {budget}。")
            if len(within) == 1:
                (p, x, m, i), = within
                faster = max(over, key=lambda o: o[0])
                more = f"{100 * (faster[0] / p - 1):.0f}%" if faster[0] > p else ""
                stretch = _t(lang, f" Stretch only if {more} more speed is worth it to you.",
                             f"除非多 {more} 的速度值得你加钱。") if more else ""
                return _t(lang, f"Verdict: {x} — the one within your budget ({m}{_market_word(m, lang)}).",
                          f"结论：选 {x}——预算内只有它（{m}{_market_word(m, lang)}）。") + note + stretch, i
            mask = {x[3] for x in within}
            keep = [pr if i in mask else (None, None) for i, pr in enumerate(prices)]
            found = _verdict_on_price(perfs, labels, keep, lang, roomy, job, vram)
            return (found[0] + note, found[1]) if found else None
    return _verdict_on_price(perfs, labels, prices, lang, roomy, job, vram)


def _verdict_on_price(perfs: list, labels: list[str], prices: list[tuple], lang: str, roomy: list[bool] | None = None,
                      job: tuple[Text, float] | None = None, vram: list[float] | None = None
                      ) -> tuple[str, int] | None:
    """Which to buy, on what each costs today (new, else used): the faster one when it is also the better value or
    costs little more per unit of speed; otherwise the better value, with what the extra money buys. For a stated job,
    a card short of the memory the job is comfortable with (`roomy` false) loses to one that has it: memory decides
    what runs at all. With the index of the card chosen: what "it" means next."""
    priced = _with_prices(perfs, labels, prices)
    if len(priced) < 2 or len({m.currency for _, _, m, _ in priced}) != 1:
        return _unpriced_verdict(perfs, labels, vram, roomy, job, lang) if vram else None
    def cost(m) -> str:
        return f"{m}" + _market_word(m, lang)
    if job is not None and roomy is not None and any(roomy[i] for *_, i in priced) and \
            not all(roomy[i] for *_, i in priced):
        (what, gb), tight = job, [x for x in priced if not roomy[x[3]]]
        pick = max((x for x in priced if roomy[x[3]]), key=lambda x: x[0] / x[2].amount)
        other = max(tight, key=lambda x: x[0] / x[2].amount)
        cheaper = other[2].amount < pick[2].amount
        return _t(lang, f"Verdict: {pick[1]} ({cost(pick[2])}) — it has the {gb:g} GB {what.en} is comfortable with; "
                        f"{other[1]} ({cost(other[2])}) is "
                        f"{'cheaper but' if cheaper else 'no cheaper, and'} tight on memory for it.",
                  f"结论：选 {pick[1]}（{cost(pick[2])}）——它有{what.zh}比较从容的 {gb:g} GB 显存；{other[1]}"
                  f"（{cost(other[2])}）{'便宜，但' if cheaper else '并不更便宜，而且'}显存偏紧。"), pick[3]
    if vram and len(priced) == 2 and max(x[0] for x in priced) < SAME_SPEED * min(x[0] for x in priced) and \
            vram[priced[0][3]] != vram[priced[1][3]]:
        # the same speed in two memory sizes ("5060 Ti 16G or 8G"): the memory decides, priced
        big, small = sorted(priced, key=lambda x: -vram[x[3]])
        gb_big, gb_small = vram[big[3]], vram[small[3]]
        if big[2].amount <= small[2].amount:
            return _t(lang, f"Verdict: {big[1]} ({cost(big[2])}) — as fast, more memory ({gb_big:g} vs {gb_small:g} GB) "
                            "and no dearer.",
                      f"结论：选 {big[1]}（{cost(big[2])}）——速度一样，显存更大（{gb_big:g} 对 {gb_small:g} GB），还不更贵。"), big[3]
        diff = format_money(big[2].amount - small[2].amount, big[2].currency)
        return _t(lang, f"Verdict: {big[1]} ({cost(big[2])}) — the same speed with {gb_big:g} GB instead of "
                        f"{gb_small:g} GB for {diff} more: memory decides which models fit at all and cannot be added "
                        f"later. {small[1]} ({cost(small[2])}) only if you are sure {gb_small:g} GB is enough for what "
                        "you will run.",
                  f"结论：选 {big[1]}（{cost(big[2])}）——速度一样，多花 {diff} 换来 {gb_big:g} GB 而不是 {gb_small:g} GB 显存："
                  f"显存决定能装下哪些模型，买了以后加不了。只有确定 {gb_small:g} GB 够用时才选 {small[1]}（{cost(small[2])}）。"), big[3]
    fast = max(priced, key=lambda x: x[0])
    value = max(priced, key=lambda x: x[0] / x[2].amount)
    # value depends on the market's prices (a card costs more in one than the other): the verdict says whose
    basis = price_basis(fast[2].currency, lang)
    on = _basis_note(fast[2].currency, lang)
    if fast is value or (fast[0] / fast[2].amount) >= 0.9 * (value[0] / value[2].amount):
        return _t(lang, f"Verdict: {fast[1]} — the fastest here ({cost(fast[2])}) and about as much speed per "
                        f"unit of money as any{on}.",
                  f"结论：选 {fast[1]}——这里最快（{cost(fast[2])}），每块钱换到的速度也不输其他{on}。"), fast[3]
    share, extra = value[0] / fast[0], fast[2].amount / value[2].amount
    return _t(lang, f"Verdict: {value[1]} is the better buy — {100 * share:.0f}% of {fast[1]}'s speed for "
                    f"{cost(value[2])} against {cost(fast[2])} ({extra:.1f}× the price{', ' + basis if basis else ''}); "
                    f"{fast[1]} only if the extra {100 * (1 / share - 1):.0f}% speed is worth that to you.",
              f"结论：{value[1]} 更划算——速度是 {fast[1]} 的 {100 * share:.0f}%，价格 {cost(value[2])}，"
              f"对方 {cost(fast[2])}（{extra:.1f} 倍{'，' + basis if basis else ''}）；除非多出的 {100 * (1 / share - 1):.0f}% "
              f"速度对你值这个钱，才选 {fast[1]}。"), value[3]


def _family_label(engine: Engine, fam: str, lang: str) -> str:
    labels = {"cnn": ("CNN", "CNN"), "transformer": ("Transformer", "Transformer"), "rnn": ("RNN", "RNN"),
              "llm_inference": ("LLM inference", "大模型推理"), "llm_finetune": ("LLM fine-tuning", "大模型微调")}
    en, zh = labels.get(fam, (fam, fam))
    return _t(lang, en, zh)


PRICE_SAME_SHARE = 0.03  # two prices this close (after conversion) are "about the same"


def asked_card_in_ranking(engine: Engine, name: str, r: Ranking) -> Text:
    """A card asked about beside a budget and a job ("4060ti 16g ok 吗"): whether it holds the job and how it
    stands against the top pick, before the picks."""
    e = engine
    c = candidate_for(e.catalog, r, name, e.knowledge_dir)
    g = e.catalog.get(name)
    needed = r.required_vram_gb
    top = r.picks[0].candidate
    fits = g is not None and g.vram_gb >= needed
    yes = Text("Yes, it holds it", "可以，装得下") if fits else Text("No, too little memory", "不行，显存不够")
    have = f"{g.vram_gb:g}" if g is not None else "?"
    if c is None:
        return Text(f"{name}: {yes.en} ({have} GB against about {needed:g} GB needed); I have no price for it here.",
                    f"{name}：{yes.zh}（{have} GB，需要约 {needed:g} GB）；这里没有它的价格。")
    price = format_money(c.total, c.price.currency)
    over = r.budget is not None and c.total > r.budget.amount
    budget = Text(", over your budget", "，超出预算") if over else Text("", "")
    return Text(f"{name}: {yes.en} ({have} GB against about {needed:g} GB needed), {price}{budget.en}; speed "
                f"{c.perf:.2f} against {top.perf:.2f} for the top pick below ({top.gpu.name}).",
                f"{name}：{yes.zh}（{have} GB，需要约 {needed:g} GB），{price}{budget.zh}；速度 {c.perf:.2f}，"
                f"下面的首选 {top.gpu.name} 是 {top.perf:.2f}。")

def price_there(engine: Engine, previous: Candidate, r: Ranking, need: Need) -> list[Text]:
    """"would it be cheaper to buy in China?": the last top pick's price where the user now asks, against what it
    was, in the same currency (or that it is not sold there)."""
    e = engine
    here = candidate_for(e.catalog, r, previous.gpu.name, e.knowledge_dir)
    setup = f"{previous.count}× {previous.gpu.name}" if previous.count > 1 else previous.gpu.name
    before = format_money(previous.total, previous.price.currency)
    if here is None:
        return [Text(f"{setup} has no price there in my data (it may not be sold there); it was {before}.",
                     f"我的数据里 {setup} 在那里没有价格（可能不在那里销售）；之前是 {before}。")]
    total = here.price.amount * previous.count
    if here.price.currency == previous.price.currency:
        return []
    if here.price.converted_from:
        return [Text(f"I have no local price for {setup} there, only {before} converted, so I can't say it is "
                     "cheaper there.", f"我没有 {setup} 在那里的本地价格，只有 {before} 的换算价，所以说不出那里是否更便宜。")]
    on = need.as_of or e.today or date.today()
    same = e.catalog.fx.convert(total, here.price.currency, previous.price.currency, on)
    change = same / previous.total - 1
    now = f"{format_money(total, here.price.currency)} (≈ {format_money(same, previous.price.currency)})"
    if abs(change) < PRICE_SAME_SHARE:
        return [Text(f"{setup} there: {now}, against {before} before — about the same.",
                     f"{setup} 在那里：{now}，之前是 {before}——差不多。")]
    word = Text("cheaper", "便宜") if change < 0 else Text("dearer", "贵")
    return [Text(f"{setup} there: {now}, against {before} before — about {abs(change):.0%} {word.en}.",
                 f"{setup} 在那里：{now}，之前是 {before}——大约{word.zh} {abs(change):.0%}。")]


SLOW_BANDWIDTH_SHARE = 0.5  # under this share of the reference card's memory bandwidth, bandwidth is named as a cause


def why_slow(engine: Engine, need: Need, name: str, lang: str) -> Reply:
    """"my P40 is really slow for stable diffusion, why?": the causes the card's own figures show (FP16 at a fraction
    of FP32, no tensor cores, little bandwidth, passive cooling, a laptop's power limit), its speed for the job against
    the reference card, and the card's notes — not a fit table."""
    from bot.perf import load_perf_model

    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    on = need.as_of or engine.today or date.today()
    spec = workload_spec(engine.knowledge_dir, need.workload, on)
    model = load_perf_model(engine.knowledge_dir)
    ref = engine.catalog.get(model.reference_gpu)
    perf = model.relative(g, spec.family, ref) if ref else None
    causes = []
    if g.crippled_fp16:
        causes.append(_t(lang, f"its FP16 arithmetic runs at {g.fp16_rate or 'a fraction'} of FP32, so half precision "
                               "(what diffusion and LLM tools use by default) gains nothing or is slower: run it in "
                               "FP32 (e.g. --no-half / --precision full)",
                         f"它的 FP16 只有 FP32 的 {g.fp16_rate or '一小部分'}，半精度（扩散模型和大模型工具的默认）不但不快反而更慢："
                         "用 FP32 跑（如 --no-half / --precision full）"))
    if not g.has_tensor_cores:
        causes.append(_t(lang, "it has no tensor cores, the matrix units that make FP16/BF16 fast on RTX-era cards",
                         "它没有张量核心，而 RTX 以来的卡靠张量核心加速 FP16/BF16 矩阵运算"))
    if ref and g.mem_bandwidth_gbs and ref.mem_bandwidth_gbs and \
            g.mem_bandwidth_gbs < SLOW_BANDWIDTH_SHARE * ref.mem_bandwidth_gbs:
        causes.append(_t(lang, f"its memory bandwidth is {g.mem_bandwidth_gbs:,.0f} GB/s, "
                               f"{g.mem_bandwidth_gbs / ref.mem_bandwidth_gbs:.0%} of a {ref.name}'s",
                         f"显存带宽只有 {g.mem_bandwidth_gbs:,.0f} GB/s，是 {ref.name} 的 "
                         f"{g.mem_bandwidth_gbs / ref.mem_bandwidth_gbs:.0%}"))
    if g.segment == "datacenter" and g.form_factor == "PCIe":
        causes.append(_t(lang, "it is passively cooled: outside a server's airflow it heats up and throttles (watch "
                               "`nvidia-smi -q -d PERFORMANCE` for thermal slowdown; a fan shroud fixes it)",
                         "它是被动散热：没有服务器风道就会过热降频（用 `nvidia-smi -q -d PERFORMANCE` 看是否因温度降频；"
                         "加导风罩和风扇可解决）"))
    if g.form_factor == "Laptop":
        causes.append(_t(lang, "a laptop GPU runs at the laptop's power limit, well below the desktop card of the "
                               "same name", "笔记本 GPU 受笔记本功耗墙限制，比同名台式卡慢不少"))
    speed = _t(lang, f"For {spec.label.en} it runs at about {perf:.2f}× a {ref.name} (from specs).",
               f"{spec.label.zh}：它的速度约为 {ref.name} 的 {perf:.2f} 倍（按规格估算）。") if perf and ref else ""
    if causes:
        lead = _t(lang, f"Why the {g.name} is slow: " + "; ".join(causes) + ".",
                  f"{g.name} 慢的原因：" + "；".join(causes) + "。")
    else:
        lead = _t(lang, f"Nothing in the {g.name}'s figures explains it: check that the job runs on the GPU at all "
                        "(`nvidia-smi` while it runs), the driver and CUDA build of your framework, and the "
                        "temperatures.",
                  f"{g.name} 的规格里看不出原因：先确认任务真的在 GPU 上跑（运行时看 `nvidia-smi`）、驱动和框架的 CUDA 版本，"
                  "以及温度。")
    paras = tuple(p for p in (lead, speed, g.notes.get(lang) if g.notes else "") if p)
    return Reply("gpu", lang, title=_t(lang, f"Why {g.name} is slow", f"{g.name} 为什么慢"), paragraphs=paras,
                 sources=tuple(Source(source_title("specs", lang, name=g.name), u) for u in g.sources[:1]),
                 focus=g.name)


def gpu_card(engine: Engine, need: Need, name: str, lang: str) -> Reply:
    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    new, used = _current_price(engine, need, g, lang)
    launch = next((p for p in sorted(g.prices, key=lambda p: p.on) if p.market == "new"), None)
    rows = [
        (_t(lang, "Vendor / architecture", "厂商 / 架构"),
         f"{g.vendor} {g.architecture_label.get(lang)} ({SEGMENTS.get(g.segment, Text(g.segment, g.segment)).get(lang)})"),
        (_t(lang, "Released", "发布"), f"{g.release_date}" if g.release_date else "?"),
        (_t(lang, "VRAM", "显存"), f"{g.vram_gb:g} GB"),
        (_t(lang, "Memory bandwidth", "显存带宽"), f"{g.mem_bandwidth_gbs:,.0f} GB/s" if g.mem_bandwidth_gbs else "?"),
        (_t(lang, "FP16 tensor (FP32 acc.)", "FP16 张量（FP32 累加）"),
         f"{g.tensor_fp16_tflops:g} TFLOPS" if g.tensor_fp16_tflops else _t(lang, "no tensor cores", "没有张量核心")),
        ("FP32", f"{g.fp32_tflops:g} TFLOPS" if g.fp32_tflops else "?"),
        ("BF16 / FP8", f"{_yn(g.bf16, lang)} / {_yn(g.fp8, lang)}"),
        (_t(lang, "Power", "功耗"), f"{g.tdp_w:.0f} W" if g.tdp_w else "?"),
    ]
    if g.compute_capability:
        rows.append((_t(lang, "CUDA compute capability", "CUDA 计算能力"), g.compute_capability))
    if launch:
        label = (_t(lang, "Launch price (an estimate: no public list price)", "首发价（估算值，没有公开标价）")
                 if g.segment == "datacenter" else _t(lang, "Launch price", "首发价"))
        rows.append((label, f"{launch} ({launch.on:%Y-%m})"))
    rows.append((_t(lang, "Price now (new)", "现价（新）"),
                 f"{new}{_market_word(new, lang)} ({_seen(new, lang)}{_conv(new, lang)})" if new else
                 _elsewhere(engine, need, g, lang) or
                 _t(lang, "not on sale new / unknown", "已停售或未知")))
    if used:
        rows.append((_t(lang, "Used price", "二手价"), f"{used} ({_seen(used, lang)}{_conv(used, lang)})"))
    perf = []
    for fam in ("cnn", "transformer", "llm_inference"):
        v = _perf_of(engine, g, fam)
        if v:
            perf.append(f"{_family_label(engine, fam, lang)} {v:.2f}")
    if perf:
        rows.append((_t(lang, f"Speed ({_ref_name(engine)}=1)", f"速度（{_ref_name(engine)}=1）"), ", ".join(perf)))
    paragraphs = (g.notes.get(lang),) if g.notes else ()
    return Reply("gpu", lang, title=g.name, paragraphs=paragraphs,
                 table=Table((_t(lang, "Spec", "参数"), _t(lang, "Value", "数值")), tuple(rows)),
                 sources=tuple(Source(source_title("specs_price", lang, name=g.name), u) for u in g.sources[:3]),
                 chart_gpus=(g.name,), focus=g.name, topic=f"gpu:{g.name}",
                 suggestions=(_t(lang, f"can the {_short(g)} run a 14B model?", f"{_short(g)} 能跑 14B 模型吗？"),
                              _t(lang, f"where can I rent a {_short(g)}?", f"哪里能租 {_short(g)}？")))


def spec_values(engine: Engine, need: Need, name: str, asked: tuple[str, ...], lang: str) -> Reply:
    """"What's the memory bandwidth on the 4090?", "V100 的 fp16 算力多少": the figures asked for first, then the sheet."""
    card = gpu_card(engine, need, name, lang)
    g = engine.catalog.get(name)
    if g is None:
        return card
    lines = [line for field in asked if (line := _spec_value(g, field, lang))]
    if not lines:
        return card
    lead = _t(lang, f"{g.name}: {'; '.join(lines)} (spec sheet).", f"{g.name}：{'；'.join(lines)}（规格数据）。")
    return replace(card, paragraphs=(lead,) + card.paragraphs)


def _spec_value(g: GPU, field: str, lang: str) -> str | None:
    if field == "bandwidth" and g.mem_bandwidth_gbs:
        return _t(lang, f"memory bandwidth {g.mem_bandwidth_gbs:,.0f} GB/s", f"显存带宽 {g.mem_bandwidth_gbs:,.0f} GB/s")
    if field == "tensor":
        if not g.tensor_fp16_tflops:
            fp32 = _t(lang, f", FP32 {g.fp32_tflops:g} TFLOPS", f"，FP32 {g.fp32_tflops:g} TFLOPS") if g.fp32_tflops else ""
            return _t(lang, f"no tensor cores{fp32}", f"没有张量核心{fp32}")
        acc16 = g.tensor_fp16_tflops_fp16acc
        both = acc16 and acc16 != g.tensor_fp16_tflops
        return _t(lang, f"FP16/BF16 tensor {g.tensor_fp16_tflops:g} TFLOPS dense with FP32 accumulate"
                        + (f" ({acc16:g} with FP16 accumulate)" if both else ""),
                  f"FP16/BF16 张量算力 {g.tensor_fp16_tflops:g} TFLOPS（稠密，FP32 累加"
                  + (f"；FP16 累加为 {acc16:g}）" if both else "）"))
    if field == "fp32" and g.fp32_tflops:
        return _t(lang, f"FP32 {g.fp32_tflops:g} TFLOPS", f"FP32 算力 {g.fp32_tflops:g} TFLOPS")
    if field == "vram":
        return _t(lang, f"{g.vram_gb:g} GB of memory", f"显存 {g.vram_gb:g} GB")
    if field == "release" and g.release_date:
        return _t(lang, f"released {g.release_date}", f"发布于 {g.release_date}")
    if field == "compute_capability" and g.compute_capability:
        return _t(lang, f"CUDA compute capability {g.compute_capability}", f"CUDA 计算能力 {g.compute_capability}")
    if field == "architecture":
        return _t(lang, f"{g.vendor} {g.architecture_label.get(lang)} architecture",
                  f"{g.vendor} {g.architecture_label.get(lang)} 架构")
    if field == "form" and g.form_factor:
        module = not g.form_factor.upper().startswith("PCIE")
        return _t(lang, f"{g.form_factor} " + ("module (needs a server board made for it)" if module else "card"),
                  f"{g.form_factor} " + ("模组（需要专用服务器主板）" if module else "插卡"))
    return None


def joined(first: Reply, second: Reply) -> Reply:
    """One reply that answers two questions: `first`, then the paragraphs of `second`, and its table (as bullets
    when `first` has a table of its own)."""
    table, rows = first.table, ()
    if second.table is not None and table is None:
        table = second.table
    elif second.table is not None:
        head = second.table.header
        rows = tuple(f"{row[0]} — " + "; ".join(f"{h}: {c}" for h, c in zip(head[1:], row[1:], strict=False))
                     for row in second.table.rows)
    return replace(first, paragraphs=first.paragraphs + second.paragraphs, table=table,
                   bullets=first.bullets + second.bullets + rows,
                   sources=tuple(dict.fromkeys(first.sources + second.sources)))


def with_advice(card: Reply, guide: Reply) -> Reply:
    """A card's sheet led by the guide's advice on the question asked about it ("is a used 3090 worth it?")."""
    return replace(card, paragraphs=guide.paragraphs[:2] + card.paragraphs,
                   sources=tuple(OrderedDict((x.url, x) for x in guide.sources + card.sources).values()))


def _short(g: GPU) -> str:
    return g.name.replace("GeForce ", "")


def _conv(p, lang: str) -> str:
    return _t(lang, f", converted from {p.converted_from}", f"，由 {p.converted_from} 换算") if p.converted_from else ""


def _yn(v: bool, lang: str) -> str:
    return _t(lang, "yes", "支持") if v else _t(lang, "no", "不支持")


# --- explanations --------------------------------------------------------------------------------------------------

def why(engine: Engine, r: Ranking, lang: str, name: str | None = None) -> Reply:
    """Why a pick was made (the top one, or the one named: "第二張點解好啲"), against the others."""
    if not r.picks:
        if not r.suggestions:
            return unknown(lang)
        # "why this one?" after "nothing meets all of that": there is no pick to defend, only what stands in the way
        return Reply("recommend", lang, title=_t(lang, "Why no pick", "为什么没有推荐"),
                     paragraphs=(_t(lang, "Nothing meets everything you asked for now, so there is no pick to explain. "
                                          "What stands in the way, and what changing it would give:",
                                    "现在没有一张卡能满足你提的全部条件，所以没有可解释的推荐。卡在哪里、放开后能选什么："),),
                     bullets=tuple(x.get(lang) for x in r.suggestions), suggestions=_followups(lang, r))
    top = next((p for p in r.picks if p.gpu.name == name), r.picks[0])
    paragraphs = [_t(lang, f"Why {top.gpu.name}:", f"为什么是 {top.gpu.name}：")]
    bullets = [x.get(lang) for x in top.reasons]
    others = [c for c in r.candidates if c.gpu.name != top.gpu.name][:2]
    for c in others:
        t = top.candidate
        d_perf = 100 * (t.perf / c.perf - 1) if c.perf else 0
        bullets.append(_t(
            lang, f"vs {c.gpu.name}: {d_perf:+.0f}% speed, {money(t.total, t.price.currency)} vs "
                  f"{money(c.total, c.price.currency)}, {t.gpu.vram_gb:g} vs {c.gpu.vram_gb:g} GB, value "
                  f"{per_thousand(t.value)} vs {per_thousand(c.value)}",
            f"对比 {c.gpu.name}：速度 {d_perf:+.0f}%，价格 {money(t.total, t.price.currency)} 对 "
            f"{money(c.total, c.price.currency)}，显存 {t.gpu.vram_gb:g} 对 {c.gpu.vram_gb:g} GB，性价比 {per_thousand(t.value)} 对 "
            f"{per_thousand(c.value)}") + _basis_note(t.price.currency, lang))
    spec = r.workload
    paragraphs.append(_t(lang, f"What matters for {spec.label.en}: " + _priority(spec.family, "en"),
                         f"{spec.label.zh}看重：" + _priority(spec.family, "zh")))
    return Reply("recommend", lang, title=_t(lang, "Why this pick", "推荐理由"), paragraphs=tuple(paragraphs),
                 bullets=tuple(bullets), sources=_scorer_sources(engine, r, lang), suggestions=_followups(lang, r))


def _basis_note(currency: str, lang: str) -> str:
    """' (on US prices)' / '（按中国大陆价格计算）': after a ratio of speed per money, which differs between markets."""
    basis = price_basis(currency, lang)
    return _t(lang, f" ({basis})", f"（{basis}）") if basis else ""


def _priority(family: str, lang: str) -> str:
    orders = {
        "cnn": ("tensor cores > FLOPs > memory bandwidth > 16-bit support", "张量核心 > 算力 > 显存带宽 > 16 位支持"),
        "transformer": ("tensor cores > FLOPs > memory bandwidth > 16-bit support",
                        "张量核心 > 算力 > 显存带宽 > 16 位支持"),
        "llm_finetune": ("memory first, then tensor cores and bandwidth", "先看显存，再看张量核心和带宽"),
        "rnn": ("memory bandwidth > 16-bit support > tensor cores > FLOPs", "显存带宽 > 16 位支持 > 张量核心 > 算力"),
        "llm_inference": ("memory to fit the model, then memory bandwidth (tokens/s)",
                          "先要装得下模型，然后看显存带宽（决定每秒生成的 token 数）"),
    }
    en, zh = orders[family]
    return zh if lang == "zh" else en


def why_not(engine: Engine, r: Ranking, last_picks: list[str], name: str, lang: str, asked: str = "why_not") -> Reply:
    """Why a card is not among the picks ("why not the 4090?"), or how it does for this need ("4090呢？")."""
    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    reasons: list[str] = []
    cand = next((c for c in r.candidates if c.gpu.name == g.name), None)
    top = r.picks[0].candidate if r.picks else None
    price = price_for(g, r.currency, r.need.used, r.as_of, engine.catalog)
    vendors = (r.need.vendor,) if r.need.vendor else ("NVIDIA",)
    # how many of it this job takes: as ranked, else one when the whole job fits on it (the picks may be 2-card
    # setups of smaller cards, but a 24 GB card that holds the job alone is priced alone)
    count = cand.count if cand else 1 if (r.memory is None or r.memory.total_gb <= g.vram_gb) else r.count
    if g.name in last_picks:
        i = last_picks.index(g.name) + 1
        reasons.append(_t(lang, f"{g.name} is in the list: pick #{i}.", f"{g.name} 在推荐里：第 {i} 个。"))
    elif cand is not None and top is not None and top.gpu.name == g.name:  # asked after a comparison, not a list
        reasons.append(_t(lang, f"For this need it would be my first pick: relative speed {cand.perf:.2f}, "
                                f"{per_thousand(cand.value)} per {money(1000, cand.price.currency)} at {money(cand.total, cand.price.currency)}"
                                " — it simply wasn't among the cards you asked me to compare.",
                          f"按这个需求它正是我的首选：相对速度 {cand.perf:.2f}，{money(cand.total, cand.price.currency)} 下每 "
                          f"{money(1000, cand.price.currency)} {per_thousand(cand.value)}——只是不在你让我对比的卡里。"))
    elif g.release_date and g.release_date > r.as_of:
        reasons.append(_t(lang, f"It was not out yet ({g.release_date}).", f"当时还没发布（{g.release_date}）。"))
    elif g.vendor not in vendors and r.need.vendor is None and g.vendor != "NVIDIA":
        reasons.append(_t(lang, f"It's a {g.vendor} card; I only consider NVIDIA unless you ask (CUDA support).",
                          f"这是 {g.vendor} 的卡；除非你指定，我默认只考虑 NVIDIA（CUDA 生态）。"))
    elif cand is None and (there := price_elsewhere(g, r.currency, r.as_of, engine.catalog)) is not None:
        reasons.append(_t(lang, f"It is {there.text().en}, so I don't rank it with the cards you can buy there.",
                          f"它在{there.text().zh}，所以不和能买到的卡一起排。"))
        if not r.need.used:
            reasons.append(_t(lang, 'Ask "used?" to include second-hand prices.', "想看二手价可以问“二手的可以吗？”。"))
    elif price is None and (used := g.price(r.currency, "used", r.as_of, engine.catalog.fx)) is not None:
        over = r.budget is not None and used.amount * count > r.budget.amount
        roomier = not over and top is not None and g.vram_gb > top.gpu.vram_gb
        within = _t(lang, f" — within your budget of {r.budget}" if r.budget and not over else "",
                    f"，在预算 {r.budget} 内" if r.budget and not over else "") + (_t(
            lang, f", with {g.vram_gb:g} GB against the top pick's {top.gpu.vram_gb:g} GB",
            f"，显存 {g.vram_gb:g} GB，比首选的 {top.gpu.vram_gb:g} GB 多") if roomier else "")
        reasons.append(_t(lang, f"It is no longer sold new; used it goes for about {used} ({_seen(used, lang)})"
                                + (f", over your budget of {r.budget}." if over else
                                   f"{within}. Say \"used?\" to rank it with the other used cards."),
                          f"它已不再作为新卡销售；二手价约 {used}（{_seen(used, lang)}）"
                          + (f"，超出预算 {r.budget}。" if over else
                             f"{within}。想把它和其他二手卡一起比较，可以说“二手的可以吗？”。")))
    elif price is None:
        launch = min((p for p in g.prices if p.market == "new"), key=lambda p: p.on, default=None)
        if launch is not None and launch.currency != r.currency:
            launch = g.price(r.currency, "new", launch.on, engine.catalog.fx) or launch
        since = _t(lang, f" It launched at {launch} ({launch.on:%Y-%m}).", f"它 {launch.on:%Y-%m} 首发价 {launch}。") \
            if launch else ""
        market = _t(lang, "used", "二手") if r.need.used else _t(lang, "new", "新卡")
        reasons.append(_t(lang, f"I have no current {market} price for it, so I can't weigh it on value: "
                                f"it is no longer sold new, or no dated price is in my catalog.{since}",
                          f"我没有它当前的{market}价格，没法按性价比比较：它已不再作为新卡销售，或目录里没有带日期的价格。{since}"))
        mine, theirs = _perf_of(engine, g, r.workload.family), (_perf_of(engine, top.gpu, r.workload.family)
                                                                if top is not None else None)
        if mine and theirs and top.count == 1:  # on specs it still compares: memory and speed against the top pick
            ratio = mine / theirs
            pace = _t(lang, "about as fast as" if abs(ratio - 1) < 0.05 else
                      f"about {abs(ratio - 1):.0%} {'faster' if ratio > 1 else 'slower'} than",
                      "速度和它差不多" if abs(ratio - 1) < 0.05 else
                      f"速度比它{'快' if ratio > 1 else '慢'}约 {abs(ratio - 1):.0%}")
            memory = _t(lang, "the same" if g.vram_gb == top.gpu.vram_gb else
                        f"{'more' if g.vram_gb > top.gpu.vram_gb else 'less'} memory ({g.vram_gb:g} vs "
                        f"{top.gpu.vram_gb:g} GB)" if g.vram_gb != top.gpu.vram_gb else "the same",
                        "显存一样" if g.vram_gb == top.gpu.vram_gb else
                        f"显存{'更多' if g.vram_gb > top.gpu.vram_gb else '更少'}（{g.vram_gb:g} 对 {top.gpu.vram_gb:g} GB）")
            reasons.append(_t(lang, f"On specs, against the top pick {top.gpu.name}: {g.name} is {pace} it for "
                                    f"{r.workload.label.en}, with {memory}"
                                    + (f" {g.vram_gb:g} GB" if g.vram_gb == top.gpu.vram_gb else "")
                                    + " (spec-based estimate).",
                              f"按规格和首选 {top.gpu.name} 比：做{r.workload.label.zh}，{g.name} {pace}，{memory}"
                              + (f"（都是 {g.vram_gb:g} GB）" if g.vram_gb == top.gpu.vram_gb else "") + "（按规格估算）。"))
        if not r.need.used:
            reasons.append(_t(lang, 'Ask "used?" to include second-hand prices.', "想看二手价可以问“二手的可以吗？”。"))
    elif g.vram_gb < r.required_vram_gb:
        reasons.append(_t(lang, f"{g.vram_gb:g} GB is less than the {r.required_vram_gb:g} GB this job needs.",
                          f"{g.vram_gb:g} GB 显存少于这个任务需要的 {r.required_vram_gb:g} GB。"))
    elif r.budget and price.amount * count > r.budget.amount and r.need.max_price is not None and \
            (stated := stated_pricing(r.need, engine.catalog, r.as_of, lang)[1]) is not None and \
            price.amount * count <= stated.amount:
        # over the "cheaper than the last pick" ceiling, not over the budget the user gave
        reasons.append(_t(lang, f"It costs {money(price.amount * count, price.currency)} ({_seen(price, lang)}): "
                                f"within your budget of {stated}, but you asked for something cheaper than "
                                f"{r.budget}, and it is not.",
                          f"它要 {money(price.amount * count, price.currency)}（{_seen(price, lang)}）：在预算 {stated} 内，"
                          f"但你要的是比 {r.budget} 更便宜的，它不是。"))
    elif r.budget and price.amount * count > r.budget.amount:
        reasons.append(_t(lang, f"It costs {money(price.amount * count, price.currency)} "
                                f"({_seen(price, lang)}), over your budget of {r.budget}.",
                          f"它要 {money(price.amount * count, price.currency)}（{_seen(price, lang)}），"
                          f"超出预算 {r.budget}。"))
    elif cand and top:
        # only what is true of the two: faster, better value, or both
        speed = (f"faster ({top.perf:.2f} vs {cand.perf:.2f})", f"更快（{top.perf:.2f} 对 {cand.perf:.2f}）") \
            if top.perf > cand.perf else None
        value = (f"better value ({per_thousand(top.value)} vs {per_thousand(cand.value)} per "
                 f"{money(1000, top.price.currency)})",
                 f"性价比更高（每 {money(1000, top.price.currency)} {per_thousand(top.value)} 对 {per_thousand(cand.value)}）") \
            if top.value > cand.value else None
        said = [x for x in (speed, value) if x]
        if said:
            slower = _t(lang, f", though {cand.gpu.name} is faster ({cand.perf:.2f} vs {top.perf:.2f})",
                        f"，虽然 {cand.gpu.name} 更快（{cand.perf:.2f} 对 {top.perf:.2f}）") if not speed else ""
            reasons.append(_t(lang, f"It fits, but {top.gpu.name} is {' and '.join(e for e, _ in said)}{slower}.",
                              f"它满足条件，但 {top.gpu.name} {'，而且'.join(z for _, z in said)}{slower}。"))
        else:
            reasons.append(_t(lang, f"It fits; {top.gpu.name} came first on the pick's role (memory, power or value "
                                    "for the job).",
                              f"它满足条件；{top.gpu.name} 按这次推荐的侧重（显存、功耗或性价比）排在前面。"))
    else:
        reasons.append(_t(lang, "Its specs are incomplete in my catalog, so I can't score it.",
                          "目录里它的规格不完整，无法评分。"))
    if g.segment == "datacenter":
        reasons.append(_t(lang, "It's a data-centre card: passive cooling and pricing meant for servers.",
                          "它是数据中心卡：被动散热，价格面向服务器。"))
    title = _t(lang, f"Why not {g.name}?", f"为什么不推荐 {g.name}？") if asked == "why_not" else \
        _t(lang, f"{g.name} for this need", f"{g.name} 适合这个需求吗")
    return Reply("recommend", lang, title=title,
                 paragraphs=tuple(reasons),
                 sources=tuple(Source(source_title("specs_price", lang, name=g.name), u) for u in g.sources[:2]), focus=g.name,
                 suggestions=(_t(lang, f"compare {_short(g)} with the top pick", f"对比 {_short(g)} 和首选"),))


# --- platforms -----------------------------------------------------------------------------------------------------

def _short_names(g: GPU) -> list[str]:
    names = [g.name.replace("GeForce ", "")] + [a for a in g.aliases if len(a) >= 3 and a.isascii()]
    return [n.lower() for n in names]


def _clip(text: str, limit: int) -> str:
    """Shorten at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;(") + "…"


_SEPARATORS = (re.compile(r"\s*[;；]\s*"), re.compile(r"\s*[,，、]\s*"))


def _clip_parts(text: Text, lang: str, limit: int) -> str:
    """A bilingual list cut after the parts that fit in `limit` characters of its English ('; ' parts, else ', '
    items): the same parts in either language, since a Chinese cell cut by its own length would keep more."""
    if len(text.en) <= limit:
        return text.get(lang)
    for sep in _SEPARATORS:
        en, zh = [m.start() for m in sep.finditer(text.en)], [m.start() for m in sep.finditer(text.zh)]
        fits = [i for i, at in enumerate(en) if at <= limit]
        if fits and len(en) == len(zh):
            return (text.zh[:zh[fits[-1]]] if lang == "zh" else text.en[:en[fits[-1]]]) + "…"
    return _clip(text.get(lang), limit)


def _rent_rows(engine: Engine, gpus: list[GPU], china: bool, lang: str, limit: int = 5) -> list[str]:
    from bot.knowledge import load_platforms

    scored = []
    for p in load_platforms(engine.knowledge_dir):
        offers = [g.name for g in gpus if any(n in p.gpus.en.lower() for n in _short_names(g))]
        local = (p.region == "china") == china
        scored.append((-len(offers), not local, p.name, p))
    scored.sort(key=lambda x: x[:3])
    out = []
    for *_, p in scored[:limit]:
        price = f" {p.price_text(lang)}" if p.price else ""
        out.append(f"{p.label.get(lang)}{price} — {p.url}")
    return out


_BILLING = {"on-demand": Text("on-demand", "按需"), "community": Text("community cloud", "社区云"),
            "secure": Text("secure cloud", "安全云"), "spot": Text("spot", "竞价"),
            "interruptible": Text("interruptible", "可中断"),
            "instance": Text("multi-GPU instance, per GPU", "多卡整机，按卡折算"),
            "promo": Text("promotion", "促销价"), "compute-units": Text("compute units", "计算单元折算"),
            "free-quota": Text("free quota", "免费额度")}


def _offer_seen(o, today: date, lang: str) -> str:
    return f"{o.on:%Y-%m}" + (_t(lang, ", may be out of date", "，可能已过时") if o.stale(today) else "")


def platforms_named(engine: Engine, text: str) -> list[str]:
    """The platforms (platforms.csv names) a message names, in order of mention."""
    from bot.knowledge import platforms_named as named
    from bot.slots.text import to_script

    return named(to_script(text, "zh-cn"), engine.knowledge_dir) if text else []


def _spellings(p: Platform) -> set[str]:
    """A platform's names as rentals.csv or a user may write them (its name, Chinese name and aliases), lower case."""
    return {n.strip().lower() for n in (p.name, p.label.zh, *p.aliases) if n.strip()}


def _platforms_in(engine: Engine, text: str, offers, also: tuple[str, ...] = ()) -> tuple[list[Platform], set[str]]:
    """The platforms a message names ("AutoDL 上 4090", "恆源雲3090"), with `also` (platforms.csv names the
    conversation carries): their platforms.csv rows, and the rentals.csv platform names among `offers` that belong to
    them (by the row's names and aliases, or written as in rentals.csv)."""
    from bot.knowledge import load_platforms
    from bot.slots.text import normalise

    by_name = {p.name: p for p in load_platforms(engine.knowledge_dir)}
    names = list(OrderedDict.fromkeys([*platforms_named(engine, text), *also]))
    rows = [by_name[n] for n in names if n in by_name]
    if not rows and not text:
        return [], set()
    spellings = set().union(*(_spellings(p) for p in rows))
    low = normalise(text) if text else ""
    on = {o.platform for o in offers
          if o.platform.lower() in spellings or (len(o.platform) >= 3 and o.platform.lower() in low)}
    return rows, on


def _named_platforms_without_offers(engine: Engine, text: str, offers, lang: str,
                                    also: tuple[str, ...] = ()) -> list[str]:
    """'矩池云有4090吗': a platform the user names that has no dated offer for the card says so, not silence."""
    rows, _ = _platforms_in(engine, text, offers, also)
    out = []
    for p in rows:
        if not any(o.platform.lower() in _spellings(p) for o in offers):
            label = p.label.get(lang)
            out.append(_t(lang, f"{label}: no dated price on file for this card; its own price page ({p.url}) has "
                                "today's.", f"{label}：没有这张卡带日期的价格记录，请看它的价格页（{p.url}）。"))
    return out


def _cheaper_to_rent(engine: Engine, families: list[str], offers, cur: str, today: date, lang: str) -> list[str]:
    """'cheaper?' after a rental answer: the cheapest rows are already first, so name the cards that rent for less."""
    from bot.rentals import load_rentals

    def rate(o) -> float:
        return engine.catalog.fx.convert(o.price, o.currency, cur, today)

    floor = min((rate(o) for o in offers if o.quotable(today)), default=None)
    if floor is None:
        return []
    best: dict = {}
    for o in load_rentals(engine.knowledge_dir):
        if o.quotable(today) and o.family not in families and rate(o) < floor and \
                (o.family not in best or rate(o) < rate(best[o.family])):
            best[o.family] = o
    picks = sorted(best.values(), key=rate, reverse=True)[:3]  # the closest cheaper cards first
    if not picks:
        return [_t(lang, "These are already the cheapest dated offers I have; interruptible or spot rows are cheaper "
                         "than on-demand but can stop at any time.",
                   "这些已经是我手上最便宜的带日期报价；可中断或竞价实例比按需便宜，但随时可能被停。")]
    listed = "; ".join(f"{o.family} {hourly(rate(o), cur)} ({o.platform}, {o.on:%Y-%m})" for o in picks)
    return [_t(lang, f"The rows below are already cheapest first. Cards that rent for less: {listed} — check that "
                     "their memory fits your job.",
               f"下表已按价格从低到高排列。更便宜的卡：{listed}——先确认显存够你的任务。")]


def _display_currency(need: Need | None, lang: str, china: bool) -> str:
    """The budget's currency; else yuan for mainland China (asked about, or a Chinese speaker who named no place),
    dollars elsewhere, as the scorer prices."""
    if need is not None and need.price_currency is not None:
        return need.price_currency  # "and in RMB?": the money asked to see prices in
    if need is not None and need.budget is not None:
        return need.budget.currency
    region = need.region if need is not None else None
    return "CNY" if china or region == "cn" or (region is None and lang == "zh") else "USD"


def _hourly_cell(engine: Engine, o, cur: str, lang: str) -> str:
    """'¥2.00–3.00', or '$0.34 (≈¥2.42)' when converted; free quotas say so."""
    if o.price == 0:
        return _t(lang, "free", "免费")
    span = hourly(o.price, o.currency, o.price_high)
    if o.currency == cur:
        return span
    today = engine.today or date.today()  # one rate for every row, so the converted prices compare
    return f"{span} (≈{hourly(engine.catalog.fx.convert(o.price, o.currency, cur, today), cur)})"


def _no_local_platforms(engine: Engine, need: Need | None, region: Text | None, lang: str) -> str | None:
    """For a user in a region with no rental platform of its own on file (Taiwan, Hong Kong: `region` is its name,
    given when the region's shops price in a currency of their own), what the reply shows instead, said honestly; None
    when the region has platforms in knowledge/platforms.csv or none was given."""
    from bot.knowledge import load_platforms

    if region is None or need is None or not need.region or \
            any(p.region == need.region for p in load_platforms(engine.knowledge_dir)):
        return None
    return _t(lang, f"I have no rental platforms based in {region.en} on file: below are the international platforms' "
                    "prices in USD (the mainland-China platforms price for users there, so they are left out).",
              f"我手上没有{region.zh}本地 GPU 租用平台的记录：下面是国际平台的美元价格（中国大陆的平台面向大陆用户，这里不列出）。")


def _each_card_holds(engine: Engine, need: Need, count: int, today: date) -> float:
    """The memory each of `count` cards must hold for the need's model (or its memory floor, shared by the cards)."""
    from bot.scorer import memory_needed

    spec = workload_spec(engine.knowledge_dir, need.workload, today)
    return max(memory_needed(replace(need, gpu_count=count), spec, engine.knowledge_dir, today)[0],
               (need.min_vram_gb or 0.0) / count)


def _any_holds(engine: Engine, gpus: list, need: Need, count: int, today: date) -> bool:
    """Whether `count` of any of these cards hold the need's model (or memory floor)."""
    from bot.fit import usable_memory_gb

    each = _each_card_holds(engine, need, count, today)
    return any(usable_memory_gb(g, engine.knowledge_dir) >= each for g in gpus)


def _cheapest_rented(engine: Engine, offers, today: date) -> list[tuple[float, GPU]]:
    """The catalog cards these offers rent, each once at its cheapest offer (in USD), cheapest first."""
    from bot.rentals import card_of

    cards, fx = list(engine.catalog), engine.catalog.fx
    cheapest: dict[str, tuple[float, GPU]] = {}
    for o in offers:
        g = card_of(o, cards)
        usd = fx.convert(o.price, o.currency, "USD", today)
        if g is not None and (g.name not in cheapest or usd < cheapest[g.name][0]):
            cheapest[g.name] = (usd, g)
    return sorted(cheapest.values(), key=lambda x: (x[0], x[1].name))


def _rent_for_the_job(engine: Engine, r: Ranking, china: bool, lang: str, limit: int = 3) -> list[str]:
    """When nothing can be bought: the cheapest cards rented by the hour that have the memory the job needs (one per
    family, cheapest first, each at its cheapest dated offer in the user's market), not a list of platforms."""
    from bot.ownership import cheapest_offer
    from bot.rentals import offers_for

    today = engine.today or date.today()
    held = _rentable_cards_that_hold(engine, replace(r.need, min_vram_gb=r.required_vram_gb * max(1, r.need.gpu_count
                                                                                                  or 1)), today, china)
    if not held:
        return []
    _, count, cards, _ = held
    cur = "CNY" if china else "USD"

    def rate(o):
        return engine.catalog.fx.convert(o.price, o.currency, cur, today)

    offers = [(card, cheapest_offer(offers_for(engine.knowledge_dir, [card.name]), today, china, rate)) for card in cards]
    out = []
    for card, best in sorted(((c, o) for c, o in offers if o is not None), key=lambda x: rate(x[1]))[:limit]:
        setup = f"{count}× {card.name}" if count > 1 else card.name
        out.append(_t(lang, f"{setup} ({card.vram_gb:g} GB) from {_hourly_cell(engine, best, cur, lang)} per "
                            f"GPU-hour on {best.platform} ({best.on:%Y-%m}) — {best.url}",
                      f"{setup}（{card.vram_gb:g} GB）在 {best.platform} 每卡每小时 "
                      f"{_hourly_cell(engine, best, cur, lang)} 起（{best.on:%Y-%m}）— {best.url}"))
    return out


def _one_a_family(cards: list[GPU]) -> list[GPU]:
    """The first card of each family ("A100 80GB SXM" stands for the A100s), in order."""
    from bot.rentals import family_of

    return list(OrderedDict((family_of(g.name), g) for g in reversed(cards)).values())[::-1]


def _rentable_cards_that_hold(engine: Engine, need: Need, today: date, china: bool = False
                              ) -> tuple[float, int, list, set[str]] | None:
    """For a job with a model or a memory floor: the memory it needs, the fewest cards of one kind that hold it (1, 2,
    4 or 8), the rented cards (one per family, cheapest per hour first) that hold it as that many, and the names of
    every rented card that does (an offer of the 40 GB A100 is not one for the 80 GB); `china`: rented on a China
    platform. None when the job states no memory or nothing rented holds it."""
    from bot.fit import usable_memory_gb
    from bot.rentals import load_rentals

    if not (need.model_size_b or need.min_vram_gb):
        return None
    rented = _cheapest_rented(engine, [o for o in load_rentals(engine.knowledge_dir)
                                       if o.quotable(today) and (not china or o.region == "china")], today)
    for count in ((need.gpu_count,) if need.gpu_count else (1, 2, 4, 8)):
        each = _each_card_holds(engine, need, count, today)
        holding = [g for _, g in rented if usable_memory_gb(g, engine.knowledge_dir) >= each]
        if holding:
            return round(_each_card_holds(engine, need, 1, today), 1), count, _one_a_family(holding)[:3], \
                {g.name for g in holding}
    return None


def cards_to_hold(engine: Engine, name: str, need: Need) -> tuple[int, float] | None:
    """"How many H100s would I rent": the fewest of one card (1, 2, 4 or 8, as machines come) that hold the need's
    model or memory floor, and the memory the job needs in all; None when the job states no memory or eight do not."""
    from bot.fit import usable_memory_gb

    g = engine.catalog.get(name)
    if g is None or not (need.model_size_b or need.min_vram_gb):
        return None
    today = engine.today or date.today()
    for count in (1, 2, 4, 8):
        if usable_memory_gb(g, engine.knowledge_dir) >= _each_card_holds(engine, need, count, today):
            return count, round(_each_card_holds(engine, need, 1, today), 1)
    return None


def held_by(engine: Engine, name: str, count: int, gb: float, lang: str) -> str:
    """The answer to "how many": that many of the card hold the job's memory."""
    g = engine.catalog.get(name)
    vram = g.vram_gb if g is not None else 0
    machines = count >= 4
    return _t(lang, f"How many: {count}× {name} ({count * vram:g} GB in all) hold the ~{gb:g} GB this job needs"
                    f"{', split across the cards' if count > 1 else ''}; the prices below are for {count}"
                    f"{' (rented machines come with 1, 2, 4 or 8 GPUs)' if machines else ''}.",
              f"要几张：{count} 张 {name}（共 {count * vram:g} GB）能装下这个任务所需的约 {gb:g} GB"
              f"{'（模型切分到几张卡上）' if count > 1 else ''}；下面的价格按 {count} 张算"
              f"{'（租的整机是 1、2、4 或 8 卡）' if machines else ''}。")


def rented_on(engine: Engine, platform: str) -> list[str]:
    """The catalog cards a platform has dated offers for, one per family, cheapest offer first (up to four)."""
    from bot.rentals import offers_on

    today = engine.today or date.today()
    rented = _cheapest_rented(engine, [o for o in offers_on(engine.knowledge_dir, platform) if o.price > 0], today)
    return [g.name for g in _one_a_family([g for _, g in rented])][:4]


def _of_the_memory_said(engine: Engine, gpus, offers, text: str):
    """"An A100 80GB on Lambda": only offers of a card with the memory said, where the family has some (the A100
    40GB rate is no answer to it). A family named without its memory keeps every offer."""
    from bot.rentals import card_of, family_of
    from bot.slots.text import normalise

    said = {family_of(g.name): g.vram_gb for g in gpus if re.search(rf"(?<![\d.]){g.vram_gb:g}\s*(?:gb|g)(?![a-z])",
                                                                       normalise(text))}
    if not said:
        return offers
    cards = list(engine.catalog)

    def fits(o) -> bool:
        card = card_of(o, cards)
        return o.family not in said or card is None or card.vram_gb == said[o.family]

    kept = [o for o in offers if fits(o)]
    return kept if any(o.family in said for o in kept) else offers


def where_to_rent(engine: Engine, names: list[str], lang: str, china: bool, need: Need | None = None,
                  count: int = 1, cheaper: bool = False, text: str = "", platforms: tuple[str, ...] = (),
                  region: Text | None = None, asked: bool = True) -> Reply:
    """Dated per-GPU-hour offers for the cards asked about, cheapest first (China first for a user there); without a
    card, the platforms. `region`: the name of the user's region when its shops price in a currency of their own
    (Taiwan, Hong Kong, Europe…): with no platform of its own on file, the reply says so and shows the international
    platforms only. `asked`: the cards were named or pointed at; otherwise they are the picks on screen, and when
    those are not rented (or do not hold the job's model) the rented cards that hold it are priced instead."""
    from bot.knowledge import load_platforms
    from bot.rentals import card_of, family_of, offers_for

    gpus = [g for g in (engine.catalog.get(n) for n in names) if g is not None]
    no_local = None if china else _no_local_platforms(engine, need, region, lang)
    today = engine.today or date.today()
    job = None if gpus or platforms or need is None or platforms_named(engine, text) else \
        _rentable_cards_that_hold(engine, need, today, china)
    if job:  # "best gpu to rent for fine-tuning a 14B": the rented cards that hold the job, as many as it takes
        gpus, count, asked = job[2], job[1], False
    if not gpus:
        return _rent_platforms(engine, lang, china, need, text, platforms, no_local)
    cur = _display_currency(need, lang, china)
    fx = engine.catalog.fx

    def rate(o) -> float:
        return fx.convert(o.price, o.currency, cur, today)

    offers = offers_for(engine.knowledge_dir, [g.name for g in gpus])
    instead = None
    unrented = not offers or (china and not any(o.region == "china" for o in offers))
    held = _rentable_cards_that_hold(engine, need, today, china) if need is not None and not platforms and \
        (unrented or not asked) else None
    small = held is not None and not asked and not unrented and not _any_holds(engine, gpus, need, count, today)
    if held and (unrented or small):  # the picks are not rented by the hour, or too small for the job: cards that are
        gb, count, cards, holds = held
        was = ", ".join(g.name for g in gpus)
        where = _t(lang, " from a China platform", "国内平台") if china else ""
        these = _t(lang, f"Rented by the hour{where}, these hold the ~{gb:g} GB this job needs"
                         f"{f' as {count} cards' if count > 1 else ''}:",
                   f"{where}按小时租、{f'{count} 张' if count > 1 else ''}能装下这个任务所需约 {gb:g} GB 的卡有：")
        instead = _t(lang, f"{was}: too small for this job. ", f"{was} 装不下这个任务。") if small else \
            _t(lang, f"{was}: no dated rental price{where} on file. ", f"{was} 暂无{where}带日期的租用价格；")
        instead += these
        gpus = cards
        offers = [o for o in offers_for(engine.knowledge_dir, [g.name for g in gpus])
                  if getattr(card_of(o, list(engine.catalog)), "name", None) in holds]
    if job:
        gb, _, _, holds = job
        where = _t(lang, " from a China platform", "国内平台") if china else ""
        instead = _t(lang, f"Rented by the hour{where}, these hold the ~{gb:g} GB this job needs"
                           f"{f' as {count} cards' if count > 1 else ''}, cheapest first:",
                     f"{where}按小时租、{f'{count} 张' if count > 1 else ''}能装下这个任务所需约 {gb:g} GB 的卡（便宜的在前）：")
        offers = [o for o in offers if getattr(card_of(o, list(engine.catalog)), "name", None) in holds]
    offers = _of_the_memory_said(engine, gpus, offers, text) if asked else offers
    rows_named, named = _platforms_in(engine, text, offers, platforms)  # "AutoDL 上 4090": its rows first, it leads
    if no_local:  # not the mainland-only platforms as if they were local (unless one is asked about by name)
        offers = [o for o in offers if o.region != "china" or o.platform in named]
    offers.sort(key=lambda o: (o.platform not in named, (o.region == "china") != china, o.stale(today), rate(o)))
    families = list(OrderedDict.fromkeys(family_of(g.name) for g in gpus))
    verdict = _named_platforms_without_offers(engine, text, offers, lang, platforms)  # "矩池云有4090吗": first
    platform_rows = load_platforms(engine.knowledge_dir)
    for fam in families:
        mine = [o for o in offers if o.family == fam and o.price > 0 and o.billing != "promo"]
        recent = [o for o in mine if not o.stale(today)] or mine
        local = sorted((o for o in recent if o.region == "china"), key=rate) if china else []
        pool = recent if china else ([o for o in recent if o.region != "china"] or recent)  # abroad: abroad first
        best = min(pool, key=rate, default=None)
        mentioned = min((o for o in recent if o.platform in named), key=rate, default=None) or \
            min((o for o in mine if o.platform in named), key=rate, default=None)  # named: even an old price, marked
        stated = []  # the offers the verdict already quotes
        if mentioned is not None:
            stated.append(mentioned)
            verdict.append(_t(lang, f"{fam} on {mentioned.platform}: {_hourly_cell(engine, mentioned, cur, lang)} per "
                                    f"GPU-hour ({_BILLING[mentioned.billing].en}, {_offer_seen(mentioned, today, 'en')}).",
                              f"{fam} 在 {mentioned.platform}：每卡每小时 {_hourly_cell(engine, mentioned, cur, lang)}"
                              f"（{_BILLING[mentioned.billing].zh}，{_offer_seen(mentioned, today, 'zh')}）。"))
        if china and local and local[0] is not mentioned:
            o = local[0]
            stated.append(o)
            verdict.append(_t(lang, f"{fam} in China: {_hourly_cell(engine, o, cur, lang)} per GPU-hour on "
                                    f"{o.platform} ({_BILLING[o.billing].en}, {_offer_seen(o, today, 'en')}).",
                              f"{fam} 国内：{o.platform} 每卡每小时 {_hourly_cell(engine, o, cur, lang)}"
                              f"（{_BILLING[o.billing].zh}，{_offer_seen(o, today, 'zh')}）。"))
        elif china and not local:
            listing = [p.label.get(lang) for p in platform_rows if p.region == "china" and fam.lower() in p.gpus.en.lower()]
            where = (_t(lang, f" ({', '.join(listing)} list it)", f"（{'、'.join(listing)} 有这类卡）")
                     if listing else "")
            verdict.append(_t(lang, f"{fam}: no dated price from a China platform on file{where}; check their "
                                    "price pages.",
                              f"{fam}：暂无国内平台带日期的价格记录{where}，请到平台价格页查看。"))
        if best is not None and not any(best is x for x in stated):
            verdict.append(_t(lang, f"{fam}: cheapest dated offer {_hourly_cell(engine, best, cur, lang)} per "
                                    f"GPU-hour on {best.platform} ({_BILLING[best.billing].en}, {_offer_seen(best, today, 'en')}).",
                              f"{fam}：有日期记录的最低价是 {best.platform} 每卡每小时 "
                              f"{_hourly_cell(engine, best, cur, lang)}（{_BILLING[best.billing].zh}，"
                              f"{_offer_seen(best, today, 'zh')}）。"))
        elif best is None and not china:
            verdict.append(_t(lang, f"{fam}: no dated rental price on file.", f"{fam}：暂无带日期的租用价格记录。"))
    usable = [o for o in offers if o.quotable(today)]
    machines = [o for o in usable if o.billing == "instance"]
    # four or more cards for one job want one machine (NVLink, one network): a multi-GPU instance, not N single rentals
    lead = (machines[0] if count >= 4 and machines else None) or next(iter(usable), None)
    if count >= 4 and machines:
        verdict.append(_t(lang, f"{count} GPUs for one job (training across them) want one machine: priced below on "
                                f"a multi-GPU instance ({lead.platform}, {lead.gpu_listed.en}); single-GPU marketplace "
                                "offers are cheaper per GPU but give separate machines without NVLink.",
                          f"{count} 张卡跑同一个任务（多卡训练）要在同一台机器上：下面按多卡整机（{lead.platform}，"
                          f"{lead.gpu_listed.zh}）计价；单卡竞价报价每卡更便宜，但那是分散的机器，没有 NVLink。"))
    if lead is not None:  # what the time people rent for costs, on the first offer shown
        hour = fx.convert(lead.price, lead.currency, cur, today) * count
        n = _t(lang, f"{count} GPUs", f"{count} 张卡") if count > 1 else _t(lang, "one GPU", "一张卡")
        verdict.append(_t(lang, f"At {lead.platform}'s rate, {n}: {hourly(hour, cur)} an hour, "
                                f"{money(hour * 24, cur)} for 24 hours a day, about {money(hour * 24 * 30, cur)} "
                                f"for a month of it (about {money(hour * 8 * 30, cur)} at 8 hours a day).",
                          f"按 {lead.platform} 的价格，{n}：每小时 {hourly(hour, cur)}，全天 24 小时 {money(hour * 24, cur)}，"
                          f"连续一个月约 {money(hour * 24 * 30, cur)}（每天 8 小时约 {money(hour * 8 * 30, cur)}）。"))
        if need is not None and need.usage is not None:  # the hours the user said: what their own use costs
            verdict.append(_cost_of_usage(need.usage, hour, cur, lang))
        elif need is not None and need.budget:  # the money they said: the hours it rents
            verdict.append(_budget_in_hours(engine, need.budget, hour, cur, n, lang))
    for g in gpus:
        blocked = g.not_sold_in("cn", today) if china else None
        if blocked is not None:  # "H100 in China?": why China platforms rarely list it
            verdict.append(_t(lang, f"{g.name} in mainland China: {blocked.note.en}",
                              f"{g.name} 在中国大陆：{blocked.note.zh}"))
    if cheaper:
        verdict += _cheaper_to_rent(engine, families, offers, cur, today, lang)
    rows, stale = [], False
    for o in offers[:10]:
        stale = stale or o.stale(today)
        when = _offer_seen(o, today, lang)
        billing = _BILLING[o.billing].get(lang) + (_t(lang, "; ", "；") + o.note.get(lang) if o.note else "")
        rows.append((o.platform, o.gpu_listed.get(lang), _hourly_cell(engine, o, cur, lang), billing, when))
    header = tuple(_t(lang, *h) for h in (("Platform", "平台"), ("GPU as listed", "所列型号"),
                                            ("Per GPU-hour", "每卡每小时"), ("Billing", "计费"), ("Date", "日期")))
    names_txt = ", ".join(g.name for g in gpus)
    # "4090 on vast or runpod, which is cheaper": the platforms named weighed on the card, first
    head_to_head = _platforms_head_to_head(engine, rows_named, offers, cur, lang) if len(rows_named) >= 2 else None
    paras = ([head_to_head] if head_to_head else []) + ([no_local] if no_local else []) + \
        ([instead] if instead else []) + ([(" " if lang == "en" else "").join(verdict)] if verdict else [])
    if not offers:
        general = _rent_platforms(engine, lang, china, need, text, platforms, no_local)
        if general.topic and general.topic.startswith("platform:"):  # a platform asked about keeps its answer
            none = _t(lang, f"No dated rental price for {names_txt} on file.", f"暂无 {names_txt} 带日期的租用价格记录。")
            return replace(general, paragraphs=(none + (" " if lang == "en" else "") + general.paragraphs[0],),
                           focus=gpus[0].name if len(gpus) == 1 else None)
        none = _t(lang, f"No dated rental price for {names_txt} on file; the platforms below rent cards by the hour:",
                  f"暂无 {names_txt} 带日期的租用价格记录；以下平台按小时出租显卡：")
        return replace(general, paragraphs=(none,), focus=gpus[0].name if len(gpus) == 1 else None)
    footer = [_t(lang, "Rental prices change often (marketplaces by the hour); check the platform before you commit.",
                 "租用价格变化频繁（竞价市场按小时变动），下单前请到平台确认。")]
    if any(o.billing == "instance" for o in offers[:10]):
        footer.append(_t(lang, "A per-GPU price of a multi-GPU instance means renting the whole machine.",
                         "多卡整机按卡折算的价格，意味着要整台机器一起租。"))
    if stale:
        footer.append(_t(lang, "Prices more than 18 months old are marked: they may be out of date.",
                         "超过 18 个月的价格已标注，可能已过时。"))
    sources = tuple(OrderedDict.fromkeys(Source(f"{o.platform} — {o.gpu_listed.get(lang)} ({o.on:%Y-%m})", o.source)
                                         for o in offers[:10]))[:6]
    return Reply("rent", lang, title=_t(lang, f"Renting {names_txt} by the hour", f"按小时租 {names_txt}"),
                 paragraphs=tuple(paras), table=Table(header, tuple(rows)) if rows else None, footer=tuple(footer),
                 sources=sources, follow_up="rent", focus=gpus[0].name if len(gpus) == 1 else None)


_PER = {"day": Text("a day", "每天"), "week": Text("a week", "每周"), "month": Text("a month", "每月")}


def _usage_label(u: Usage, lang: str) -> str:
    """The user's hours as they said them: "10 hours a week", "每周 10 小时", "about 8 hours a week" (read from words
    without a number), "200 GPU-hours in total"."""
    if u.per == "total":
        return _t(lang, f"{u.hours:,g} GPU-hours in total", f"总共 {u.hours:,g} 小时")
    about = _t(lang, "about ", "大约") if u.approximate else ""
    return about + _t(lang, f"{u.hours:g} hours {_PER[u.per].en}", f"{_PER[u.per].zh} {u.hours:g} 小时")


def _per_month(u: Usage, lang: str) -> str:
    """"(≈43 hours a month)" beside a rate said per day or week; "" for a month or a total."""
    if u.per in ("month", "total"):
        return ""
    return _t(lang, f" (≈{u.hours_per_month:,.0f} hours a month)", f"（每月约 {u.hours_per_month:,.0f} 小时）")


def _cost_of_usage(u: Usage, hour: float, cur: str, lang: str) -> str:
    """What the user's own hours cost at an hourly price (for all the GPUs priced)."""
    if u.per == "total":
        return _t(lang, f"Your {_usage_label(u, lang)}: about {money(hour * u.hours, cur)}.",
                  f"按你说的{_usage_label(u, lang)}：约 {money(hour * u.hours, cur)}。")
    whole = _t(lang, f", about {money(hour * u.hours_per_month * u.months, cur)} for the {_span(u.months, lang)}",
               f"，{_span(u.months, lang)}共约 {money(hour * u.hours_per_month * u.months, cur)}") \
        if u.months and u.months != 1 else ""  # ("一个月多少钱": the month asked about is the rate's own)
    return _t(lang, f"At your {_usage_label(u, lang)}{_per_month(u, lang)}: about "
                    f"{money(hour * u.hours_per_month, cur)} a month{whole}.",
              f"按你说的{_usage_label(u, lang)}{_per_month(u, lang)}：每月约 {money(hour * u.hours_per_month, cur)}{whole}。")


def _fine(amount: float, currency: str) -> str:
    """A small hourly amount to the tenth of a cent ("$0.096", "¥0.342"): electricity an hour, which a break-even
    divides by, shown as precisely as it is used."""
    return f"{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{amount:,.3f}"


def _user_tariff(engine: Engine, need: Need, lang: str, china: bool) -> tuple[float, str, list[str]] | None:
    """(price of a kWh, its currency, notes): the user's own tariff, else their region's average, said so."""
    from bot.ownership import tariff_for

    if need.kwh_price is not None:
        return need.kwh_price.amount, need.kwh_price.currency, []
    tariff = tariff_for(engine.knowledge_dir, need.region, china)
    if tariff is None:
        return None
    cur = _display_currency(need, lang, china)
    local = load_regions(engine.knowledge_dir).get(need.region) if need.region in tariff.regions and \
        not need.budget and not need.price_currency else None  # (a region with no tariff of its own: as before)
    if local is not None and local.currency != cur:
        cur = local.currency  # "in germany": a bill in euros, as the tariff is
    per_kwh = engine.catalog.fx.convert(tariff.price_kwh, tariff.currency, cur, engine.today or date.today())
    example = f"{CURRENCY_SYMBOLS.get(cur, cur + ' ')}{round(per_kwh, 1) if per_kwh >= 0.1 else round(per_kwh, 2):g}"
    elsewhere = load_regions(engine.knowledge_dir).get(need.region) if need.region and \
        need.region not in tariff.regions else None
    if elsewhere is not None:  # "in the uk" with no UK tariff on file: said, not passed off as the user's
        return per_kwh, cur, [_t(lang, f"No household tariff for {elsewhere.name.en} on file, so this uses the "
                                       f"{tariff.name.en}, {_fine(per_kwh, cur)} per kWh ({tariff.on:%Y-%m}). Tell me "
                                       f"yours (e.g. \"{example} per kWh\") for your own figure.",
                                 f"我没有{elsewhere.name.zh}的居民电价，这里按{tariff.name.zh}：每度 {_fine(per_kwh, cur)}"
                                 f"（{tariff.on:%Y-%m}）。告诉我你的电价（例如“电费每度{example}”）可以算得更准。")]
    return per_kwh, cur, [_t(lang, f"Tariff: {tariff.name.en}, {_fine(per_kwh, cur)} per kWh ({tariff.on:%Y-%m}; "
                                   f"{tariff.note.en}). Tell me yours (e.g. \"{example} per kWh\") for your own figure.",
                             f"电价按{tariff.name.zh}：每度 {_fine(per_kwh, cur)}（{tariff.on:%Y-%m}；{tariff.note.zh}）。"
                             f"告诉我你的电价（例如“电费每度{example}”）可以算得更准。")]


_BOARD_POWER_NOTE = Text(
    "Board power is an upper bound: training usually draws 70–90% of it and chatting with an LLM much less, so this is "
    "the most it costs (general advice).",
    "这里按显卡标称功耗算，是上限：训练通常只用到 70–90%，和大模型聊天时更低，所以实际电费一般更少（一般性建议）。")


def _at_the_pace(u: Usage | None, per_hour: float, cur: str, lang: str) -> str:
    """What an hourly electricity cost comes to at the user's pace, else at 8 hours a day and around the clock."""
    if u is not None and u.per == "total":
        return _t(lang, f" For {_usage_label(u, lang)}: about {money(per_hour * u.hours, cur)}.",
                  f"按{_usage_label(u, lang)}：约 {money(per_hour * u.hours, cur)}。")
    if u is not None:
        return " " + _cost_of_usage(u, per_hour, cur, lang) if lang == "en" else _cost_of_usage(u, per_hour, cur, lang)
    day8 = Usage(8, "day")
    return _t(lang, f" At 8 hours a day: about {money(per_hour * day8.hours_per_month, cur)} a month; around the clock "
                    f"(24 hours a day) about {money(per_hour * 24 * 30, cur)}.",
              f"每天 8 小时：每月约 {money(per_hour * day8.hours_per_month, cur)}；全天 24 小时约 "
              f"{money(per_hour * 24 * 30, cur)}。")


def running_cost(engine: Engine, name: str, count: int, need: Need, lang: str, china: bool) -> Reply:
    """"電費每度1.2港幣，4090每日10個鐘，一個月幾錢？": what running the card(s) costs in electricity, an hour and at the
    user's pace, at their tariff (else their region's average, said so)."""
    from bot.ownership import running_cost as cost_of

    g = engine.catalog.get(name)
    tariff = _user_tariff(engine, need, lang, china)
    if g is None or not g.tdp_w or tariff is None:
        return unknown(lang)
    per_kwh, cur, notes = tariff
    setup = f"{count}× {g.name}" if count > 1 else g.name
    c = cost_of(g.tdp_w, count, per_kwh, cur, engine.knowledge_dir)
    pc = c.watts - g.tdp_w * count
    lead = _t(lang, f"{setup} at {_fine(per_kwh, cur)} per kWh: about {_fine(c.per_hour, cur)} an hour at full load "
                    f"({c.watts:.0f} W at the wall: {g.tdp_w * count:.0f} W for the card{'s' if count > 1 else ''}, "
                    f"~{pc:.0f} W for the rest of the PC).",
              f"{setup}，电价每度 {_fine(per_kwh, cur)}：满载每小时约 {_fine(c.per_hour, cur)}（整机约 {c.watts:.0f} W："
              f"显卡 {g.tdp_w * count:.0f} W，其余部分约 {pc:.0f} W）。")
    paras = [lead + _at_the_pace(need.usage, c.per_hour, cur, lang)] + notes + [_BOARD_POWER_NOTE.get(lang)]
    return Reply("power", lang, title=_t(lang, f"{setup}: electricity", f"{setup}：电费"), paragraphs=tuple(paras),
                 focus=g.name, sources=tuple(Source(source_title("specs", lang, name=g.name), u) for u in g.sources[:1]))


def running_cost_difference(engine: Engine, setups: list[tuple[str, int]], need: Need, lang: str,
                            china: bool) -> Reply:
    """"那电费差多少" after "两张3090和一张4090": what each setup draws at the wall and what the gap costs, at the
    user's tariff and pace."""
    from bot.ownership import running_cost as cost_of

    cards = [(engine.catalog.get(n), k) for n, k in setups]
    tariff = _user_tariff(engine, need, lang, china)
    if tariff is None or len(cards) < 2 or any(g is None or not g.tdp_w for g, _ in cards):
        return unknown(lang)
    per_kwh, cur, notes = tariff
    costs = sorted(((cost_of(g.tdp_w, k, per_kwh, cur, engine.knowledge_dir), f"{k}× {g.name}" if k > 1 else g.name)
                    for g, k in cards), key=lambda x: -x[0].watts)
    (hi, hi_name), (lo, lo_name) = costs[0], costs[-1]
    gap = hi.per_hour - lo.per_hour
    lead = _t(lang, f"{hi_name} draws about {hi.watts - lo.watts:.0f} W more at the wall than {lo_name} "
                    f"({hi.watts:.0f} W against {lo.watts:.0f} W at full load): {_fine(gap, cur)} more an hour at "
                    f"{_fine(per_kwh, cur)} per kWh.",
              f"{hi_name} 整机满载比 {lo_name} 多耗电约 {hi.watts - lo.watts:.0f} W（{hi.watts:.0f} W 对 "
              f"{lo.watts:.0f} W）：电价每度 {_fine(per_kwh, cur)} 时，每小时多 {_fine(gap, cur)}。")
    each = _t(lang, "Each: " + "; ".join(f"{name} about {_fine(c.per_hour, cur)} an hour" for c, name in costs) + ".",
              "各自：" + "；".join(f"{name} 每小时约 {_fine(c.per_hour, cur)}" for c, name in costs) + "。")
    paras = [lead + _at_the_pace(need.usage, gap, cur, lang), each] + notes + [_BOARD_POWER_NOTE.get(lang)]
    title = " vs ".join(name for _, name in costs)
    return Reply("power", lang, title=_t(lang, f"{title}: electricity", f"{title}：电费"), paragraphs=tuple(paras),
                 focus=None, sources=tuple(Source(source_title("specs", lang, name=g.name), u)
                                           for g, _ in cards for u in g.sources[:1]))


def comparison_card(engine: Engine) -> str:
    """The card a rent-or-buy answer works on when the conversation names none (knowledge/rent-vs-buy.yaml)."""
    from bot.ownership import load_assumptions

    return load_assumptions(engine.knowledge_dir).comparison_card


def _a(name: str) -> str:
    """"a" or "an" before a card's name as it is said: an A100, an RTX 4090, an H100; a GeForce RTX 4090, an Arc B580."""
    first = name.split()[0] if name.split() else name
    spelled = first.isupper() or any(c.isdigit() for c in first)  # letters said one by one: "H" is "aitch"
    digits = re.match(r"\d+", first)
    if digits:  # "an 8B model", "an 11B", "an 18B": the number as it is said
        return "an" if digits[0][0] == "8" or (len(digits[0]) == 2 and digits[0] in ("11", "18")) else "a"
    return "an" if (first[:1] in "AEFHILMNORSX" if spelled else first[:1].lower() in "aeiou") else "a"


def _span(months: float, lang: str) -> str:
    """A project's length as said: "3 months", "1.5 years"."""
    if months < 24:
        n = round(months, 1) if months < 2 else round(months)
        return _t(lang, f"{n:g} months" if n != 1 else "month", f"{n:g} 个月")
    return _t(lang, f"{months / 12:.1f} years", f"{months / 12:.1f} 年")


def _duration(months: float, lang: str) -> str:
    """"about 8 months", "about 3.4 years", "more than 10 years"."""
    if months > 120:
        return _t(lang, "more than 10 years", "超过 10 年")
    if months < 24:
        return _t(lang, f"about {max(1, round(months))} months", f"约 {max(1, round(months))} 个月")
    years = months / 12
    return _t(lang, f"about {years:.1f} years", f"约 {years:.1f} 年")


# example paces for a break-even asked without the user's hours
_PACES = (Usage(10, "week"), Usage(8, "day"), Usage(24, "day"))
_LEAVES_OUT = Text(
    "What this leaves out: resale value (a card sold after a few years returns part of its price, which brings the "
    "break-even closer); the rest of the PC if you don't have one (CPU, board, power supply, case); your time (looking "
    "after a machine, against uploading data and setting up a cloud environment each time); and availability (rented "
    "cards can be sold out and interruptible ones can stop mid-run; your own is always there).",
    "这笔账没有算进去的：转卖价值（用几年后卖掉还能收回一部分钱，回本会更早）；如果你还没有主机，其他配件的钱（CPU、主板、"
    "电源、机箱）；你的时间（自己维护机器，对比每次上传数据、配置云端环境）；以及可用性（租的卡可能被租光，可中断实例随时"
    "可能停；自己的卡随时都在）。")


def rent_vs_buy(engine: Engine, names: list[str], need: Need, lang: str, china: bool,
                chosen_for_user: bool = False) -> Reply:
    """Rent or buy worked out for the user's hours: each card's price (new, or used as the chat says or when no new
    price is on file) against the cheapest dated rental of it in the user's market, with the electricity owning costs
    at a dated household tariff: break-even GPU-hours and, at the user's pace, months. The verdict first, then the
    numbers with their dates and sources, then what the arithmetic leaves out."""
    from bot.ownership import cheapest_offer, load_assumptions, tariff_for
    from bot.rentals import offers_for

    kd, fx = engine.knowledge_dir, engine.catalog.fx
    today = need.as_of or engine.today or date.today()
    a = load_assumptions(kd)
    cur = "CNY" if china else price_list_currency(need, lang)
    tariff = tariff_for(kd, need.region, china)
    if need.kwh_price is not None:  # "电费每度0.6": the user's own tariff
        from bot.ownership import Tariff

        tariff = Tariff("user", (), Text("your tariff", "你的电价"), need.kwh_price.amount, need.kwh_price.currency,
                        today, False, "", Text("as you said", "你给的"))
    gpus = [g for g in (engine.catalog.get(n) for n in names) if g is not None]

    def rate(o) -> float:
        return fx.convert(o.price, o.currency, cur, today)

    verdicts, numbers, rows, sources, weighed = [], [], [], [], 0
    for g in gpus:
        new, used = _current_price(engine, need, g, lang)
        price = (used if need.used and used else None) or new or used
        offer = cheapest_offer(offers_for(kd, [g.name]), today, china, rate)
        stand_in = None
        if offer is None and price is not None:  # no platform rents it: what renting its work costs
            stand_in = _rental_stand_in(engine, g, need, china, rate, today)
            offer = stand_in.offer if stand_in else None
        if price is None or offer is None or tariff is None or not g.tdp_w:
            verdicts.append(_cannot_weigh(engine, g, price, offer, tariff, need.usage, cur, lang, today))
            if offer is not None:
                sources.append(Source(f"{offer.platform} — {offer.gpu_listed.get(lang)} ({offer.on:%Y-%m})", offer.source))
            continue
        weighed += 1
        verdict, paragraph, row = _weigh_one(engine, g, price, offer, stand_in, tariff, need, a, cur, rate(offer),
                                             lang, today)
        verdicts += verdict
        numbers.append(paragraph)
        rows.append(row)
        sources += [Source(source_title("specs_price", lang, name=g.name), price.source or g.source_url),
                    Source(f"{offer.platform} — {offer.gpu_listed.get(lang)} ({offer.on:%Y-%m})", offer.source)]
    if weighed and tariff.source:
        sources.append(Source(f"{tariff.name.get(lang)} ({tariff.on:%Y-%m})", tariff.source))
    paras = [(" " if lang == "en" else "").join(verdicts)] if verdicts else []
    if chosen_for_user and gpus:
        paras.append(_t(lang, f"You didn't name a card, so this works it out for the {gpus[0].name}, the guide's "
                              "example; name the card you would buy for its numbers.",
                        f"你没说是哪张卡，这里按指南里举例的 {gpus[0].name} 来算；告诉我你想买哪张卡，可以换成它的数字。"))
    if need.usage is not None and need.usage.approximate:
        paras.append(_t(lang, f"I read your hours as {_usage_label(need.usage, lang)}; tell me the number for a sharper "
                              "answer.", f"我把你的用量理解为{_usage_label(need.usage, lang)}；告诉我具体小时数可以算得更准。"))
    paras += numbers
    if weighed:
        paras.append(_LEAVES_OUT.get(lang))
    footer = [_t(lang, "Estimates from dated prices: rental prices change often and a shop's price is not always what "
                       "you'll pay; check both before you decide.",
                 "以上是按带日期的价格做的估算：租价变化频繁，店里的价格也未必是你最终的成交价，决定前请再核实。")]
    if weighed and need.region and need.region not in tariff.regions:
        footer.append(_t(lang, f"No household electricity price for your region on file: this uses the "
                               f"{tariff.name.en}.", f"没有你所在地区的居民电价记录：这里用的是{tariff.name.zh}。"))
    header = tuple(_t(lang, *h) for h in (("Card", "显卡"), ("Buy", "买价"), ("Rent from", "租价"),
                                            ("Electricity an hour", "每小时电费"), ("Break-even GPU-hours", "回本小时数"),
                                            ("At your pace", "按你的用量")))
    suggestions = (_t(lang, "what if it's 40 hours a week?", "那一周用40小时呢"), _t(lang, "and around the clock?", "全天跑呢"),
                   _t(lang, "where can I rent it?", "去哪租？"))
    if need.usage is None:
        suggestions = (_t(lang, "I'd use it about 10 hours a week", "我一周大概用10小时"),) + suggestions[1:]
    title = ", ".join(g.name for g in gpus)
    return Reply("rent", lang, title=_t(lang, f"Rent or buy: {title}", f"租还是买：{title}"), paragraphs=tuple(paras),
                 table=Table(header, tuple(rows)) if rows else None, footer=tuple(footer),
                 sources=tuple(OrderedDict.fromkeys(x for x in sources if x.url))[:6], suggestions=suggestions,
                 focus=gpus[0].name if len(gpus) == 1 else None, topic="rent-vs-buy", follow_up="rent")


def _weigh_one(engine: Engine, g: GPU, price, offer, stand_in, tariff, need: Need, a, cur: str, offer_rate: float,
               lang: str, today: date) -> tuple[list[str], str, tuple[str, ...]]:
    """One card bought against rented: its verdict (with what stood in for a card no platform rents), the numbers
    with their dates, and its table row."""
    from bot.ownership import break_even

    usage = need.usage
    # an hour of this card's work, rented: on the card itself, or on its stand-in for the time that work takes there
    hour_of_work = offer_rate * (stand_in.share if stand_in else 1)
    be = break_even(g.name, g.tdp_w, price.amount, cur, hour_of_work, tariff, a,
                    lambda x, src, dst: engine.catalog.fx.convert(x, src, dst, today))
    verdict = [_break_even_verdict(be, g, usage, a, cur, lang)]
    listed = _t(lang, f"on {offer.platform}", f"在 {offer.platform}")
    if stand_in is not None:
        card, share = stand_in.card, stand_in.share
        listed = _t(lang, f"as {share:.2f} h on {_a(card.name)} {card.name} at {offer.platform}",
                    f"在 {offer.platform} 的 {card.name} 上做 {share:.2f} 小时")
        verdict.append(_t(lang, f"(No platform on file rents the {g.name}: renting here means the same work on the "
                                f"rental where it costs least, among cards with at least its memory: the {card.name} at "
                                f"{hourly(offer_rate, cur)} an hour does an hour of the {g.name}'s work in {share:.2f} h.)",
                          f"（没有平台出租 {g.name} 的记录：这里的“租”指在显存不少于它、做同样工作最便宜的租用卡上做："
                          f"{card.name} 每小时 {hourly(offer_rate, cur)}，做完 {g.name} 一小时的工作量要 {share:.2f} 小时。）"))
    market = _t(lang, "used", "二手") if price.market == "used" else _t(lang, "new", "新卡")
    if price.market == "used" and not need.used:
        market += _t(lang, ", no new price on file", "，暂无新卡价格")
    if price.converted_from:
        src = CURRENCY_NAMES.get(price.converted_from, Text(price.converted_from, price.converted_from))
        market += _t(lang, f", converted from {src.en}", f"，由{src.zh}换算")
    billing = _BILLING[offer.billing].get(lang)
    hours = f"{be.hours:,.0f}" if be.hours is not None else "—"
    rent = (_fine if stand_in else hourly)(be.rent_per_hour, cur)  # (a stand-in's share is no listed price)
    power, kwh = _fine(be.power_per_hour, cur), _fine(be.tariff_per_kwh, cur)
    pace, at_pace = "", "—"
    if usage is not None and be.hours is not None and usage.per != "total":
        said, when = f"{_usage_label(usage, lang)}{_per_month(usage, lang)}", _duration(be.months(usage), lang)
        pace, at_pace = _t(lang, f"; at your {said} that is {when}", f"；按你说的{said}，需要{when}"), when
    elif usage is not None and be.hours is not None:
        rented, owned = money(be.renting(usage.hours), cur), money(be.owning(usage.hours), cur)
        pace = _t(lang, f"; your {_usage_label(usage, lang)} would cost {rented} rented, {owned} bought and run",
                  f"；你说的{_usage_label(usage, lang)}，租要 {rented}，买加电费要 {owned}")
        at_pace = _t(lang, f"rent {rented} / buy {owned}", f"租 {rented} / 买 {owned}")
    paragraph = _t(
        lang,
        f"{g.name}: {price} to buy ({market}, {price.on:%Y-%m}); an hour of its work rented from {rent} {listed} "
        f"({billing}, {offer.on:%Y-%m}); electricity for owning it: {be.watts:.0f} W ({g.tdp_w:.0f} W for the card at "
        f"full load + {a.pc_power_w:.0f} W for the rest of the PC, our estimate) at {kwh} per kWh ({tariff.name.en}, "
        f"{tariff.on:%Y-%m}) = {power} an hour. Break-even: {price} ÷ ({rent} − {power}) ≈ {hours} GPU-hours{pace}.",
        f"{g.name}：买 {price}（{market}，{price.on:%Y-%m}）；租来做它一小时的工作 {rent} 起，{listed}（{billing}，"
        f"{offer.on:%Y-%m}）；自己买的电费：{be.watts:.0f} W（显卡满载 {g.tdp_w:.0f} W + 主机其他部分 {a.pc_power_w:.0f} W，"
        f"估算）× 每千瓦时 {kwh}（{tariff.name.zh}，{tariff.on:%Y-%m}）= 每小时 {power}。回本点：{price} ÷（{rent} − "
        f"{power}）≈ {hours} 小时{pace}。")
    row = (g.name, f"{price} ({price.on:%Y-%m})", f"{rent} ({offer.platform}, {offer.on:%Y-%m})", power, hours, at_pace)
    return verdict, paragraph, row


@dataclass(frozen=True)
class _StandIn:
    """The rental that stands in for a card no platform rents: where the same work costs least."""

    offer: RentalOffer
    card: GPU  # the card it rents
    share: float  # hours it takes there for an hour of the other card's work


def _rental_stand_in(engine: Engine, g: GPU, need: Need, china: bool, rate, today: date) -> _StandIn | None:
    """For a card no platform rents: the rental (in the user's market first) where its work costs least, among cards
    with at least its memory; None when there is none."""
    from bot.ownership import cheapest_offer, cost_per_unit_of_work
    from bot.rentals import card_of, load_rentals

    family = workload_spec(engine.knowledge_dir, need.workload, need.as_of or today).family
    mine = _perf_of(engine, g, family)
    if not mine:
        return None
    speeds = {}
    for o in load_rentals(engine.knowledge_dir):
        card = card_of(o, engine.catalog)
        speed = _perf_of(engine, card, family) if card is not None else None
        if speed and card.vram_gb >= g.vram_gb:
            speeds[o] = (card, speed)
    best = cheapest_offer(speeds, today, china, lambda o: cost_per_unit_of_work(rate(o), speeds[o][1]))
    return _StandIn(best, speeds[best][0], mine / speeds[best][1]) if best is not None else None


def _break_even_verdict(be, g: GPU, usage: Usage | None, a, cur: str, lang: str) -> str:
    """The verdict on one card, first: rent, buy, or close, at the user's pace."""
    name = g.name
    if be.hours is None:
        return _t(lang, f"An hour of renting {_a(name)} {name} costs no more than the electricity to run your own: rent.",
                  f"租一张 {name} 每小时的钱还不到自己买来跑的电费：租。")
    if usage is None:  # "how many hours until buying pays off": the hours, and what they mean at a few paces
        paces = _t(lang, ", ", "，").join(f"{_duration(be.months(p), lang)}"
                                         + _t(lang, f" at {_usage_label(p, 'en')}", f"（{_usage_label(p, 'zh')}）")
                                         for p in _PACES)
        return _t(lang, f"Buying {_a(name)} {name} pays back after about {be.hours:,.0f} GPU-hours of use: {paces}. Tell me "
                        "roughly how many hours a week you'd use it for a verdict.",
                  f"买一张 {name} 大约用满 {be.hours:,.0f} 小时才回本：{paces}。告诉我你一周大概用多少小时，我给你结论。")
    said = _usage_label(usage, lang)
    if usage.per == "total":
        rent, own = money(be.renting(usage.hours), cur), money(be.owning(usage.hours), cur)
        if be.verdict(usage, a) == "buy":
            return _t(lang, f"For {said}, buying {_a(name)} {name} ({own} with its electricity) costs less than renting one "
                            f"({rent}): buy, and you keep the card.",
                      f"按{said}算，买一张 {name}（连电费 {own}）比租（{rent}）便宜：买，卡还是你的。")
        return _t(lang, f"For {said}, renting {_a(name)} {name} costs about {rent}, against {own} to buy and run one: rent.",
                  f"按{said}算，租 {name} 大约 {rent}，买来跑要 {own}：租。")
    if usage.months and usage.hours_per_month:  # "a 3-month project, 8 hours a day": what that project costs each way
        hours = usage.hours_per_month * usage.months
        rent, own = money(be.renting(hours), cur), money(be.owning(hours), cur)
        span = _span(usage.months, lang)
        span = "a month" if span == "month" else span  # "over a month", not "over month"
        pays = be.months(usage)
        back = _t(lang, f" Buying pays back only after {_duration(pays, lang)}." if pays else "",
                  f"买的话要{_duration(pays, lang)}才回本。" if pays else "")
        if be.renting(hours) <= be.owning(hours):
            return _t(lang, f"Rent: over {span} at {said} (~{hours:,.0f} GPU-hours), renting {_a(name)} {name} costs about "
                            f"{rent}, against {own} to buy and run one (before reselling it).{back}",
                      f"租：按{said}用 {span}（约 {hours:,.0f} 卡时），租 {name} 约 {rent}，买来跑要 {own}（未算转卖）。{back}")
        return _t(lang, f"Buy: over {span} at {said} (~{hours:,.0f} GPU-hours), buying {_a(name)} {name} ({own} with its "
                        f"electricity) costs less than renting one ({rent}), and you keep the card.",
                  f"买：按{said}用 {span}（约 {hours:,.0f} 卡时），买一张 {name}（连电费 {own}）比租（{rent}）便宜，卡还是你的。")
    months = be.months(usage)
    kind = be.verdict(usage, a)
    if kind == "rent":
        return _t(lang, f"At {said}, renting {_a(name)} {name} stays cheaper for {_duration(months, lang)}: rent.",
                  f"按{said}，买一张 {name} 要{_duration(months, lang)}才回本，这段时间里租都更便宜：租。")
    if kind == "buy":
        return _t(lang, f"At {said}, buying {_a(name)} {name} pays for itself in {_duration(months, lang)}: buy, if you'll keep "
                        "up that pace.",
                  f"按{said}，买一张 {name} {_duration(months, lang)}就回本：买，前提是你能一直用这么多。")
    return _t(lang, f"At {said}, buying {_a(name)} {name} pays back only after {_duration(months, lang)}: close. Buy if you'll "
                    "keep that pace that long and want the card at hand (reselling it later brings the break-even "
                    "closer); otherwise rent.",
              f"按{said}，买一张 {name} 要{_duration(months, lang)}才回本：差不多。如果你能一直保持这个用量、又希望卡随时在手边"
              "（以后转卖还能提前回本），就买；否则租。")


def _nearest_buy(engine: Engine, g: GPU, hour: float, usage: Usage | None, cur: str, lang: str,
                 today: date) -> tuple[str | None, str]:
    """A rented card with no shop price ("200 GPU-hours a month of A100"): the cheapest card I price with as much
    memory, and how many months of that renting its price is — the verdict ("rent", "buy", "close"; None: none) and
    the sentence, before electricity, said so."""
    per_month = usage.hours_per_month if usage else None
    if not per_month:
        return None, ""
    priced = [(p, c) for c in engine.catalog if c.vram_gb >= g.vram_gb and c.vendor == g.vendor
              for p in (c.price(cur, "new", today, engine.catalog.fx), c.price(cur, "used", today, engine.catalog.fx))
              if p is not None]
    if not priced:
        return None, ""
    p, c = min(priced, key=lambda x: x[0].amount)
    from bot.ownership import load_assumptions

    months = p.amount / (hour * per_month)
    a = load_assumptions(engine.knowledge_dir)
    kind = "buy" if months <= a.buy_within_months else "rent" if months > a.rent_beyond_months else "close"
    return kind, _t(lang, f" The cheapest card I price with {g.vram_gb:g} GB or more is {c.name} at {p}"
                          f"{_market_word(p, lang)}: about {months:.0f} months of that renting, before electricity.",
                    f"我有价格、显存不少于 {g.vram_gb:g} GB 的最便宜的卡是 {c.name}，{p}{_market_word(p, lang)}：相当于约 "
                    f"{months:.0f} 个月的租金（未计电费）。")


def _cannot_weigh(engine: Engine, g: GPU, price, offer, tariff, usage: Usage | None, cur: str, lang: str,
                  today: date) -> str:
    """A card the arithmetic lacks a figure for: which one, and what is known."""
    if tariff is None:
        return _t(lang, f"{g.name}: no household electricity price on file, so no break-even.",
                  f"{g.name}：没有居民电价记录，算不出回本点。")
    if price is None and offer is None:
        return _t(lang, f"{g.name}: no current price to buy it or dated price to rent it on file, so no break-even.",
                  f"{g.name}：没有当前的购买价格，也没有带日期的租用价格，算不出回本点。")
    if price is None:
        hour = engine.catalog.fx.convert(offer.price, offer.currency, cur, today)
        cost = (" " if lang == "en" else "") + _cost_of_usage(usage, hour, cur, lang) if usage else ""
        said = _t(lang, f"{g.name}: no current shop price on file (new or used), so no break-even of its own; renting "
                        f"it costs from {hourly(hour, cur)} per GPU-hour on {offer.platform} ({offer.on:%Y-%m}).{cost}",
                  f"{g.name}：没有当前的购买价格（新卡或二手），算不出它自己的回本点；租的话 {offer.platform} 每卡每小时 "
                  f"{hourly(hour, cur)} 起（{offer.on:%Y-%m}）。{cost}")
        kind, why = _nearest_buy(engine, g, hour, usage, cur, lang, today)
        lead = {"rent": Text("Rent. ", "租。"), "buy": Text("Buy. ", "买。"), "close": Text("Close. ", "差不多。")}
        return (lead[kind].get(lang) if kind else "") + said + why
    if offer is None:
        return _t(lang, f"{g.name}: no dated rental price on file, so no break-even; buying it costs {price} "
                        f"({price.on:%Y-%m}).",
                  f"{g.name}：没有带日期的租用价格，算不出回本点；买的话 {price}（{price.on:%Y-%m}）。")
    return _t(lang, f"{g.name}: no board power on file, so no electricity cost and no break-even.",
              f"{g.name}：没有功耗数据，算不出电费和回本点。")


def price_in_rented_hours(engine: Engine, name: str, platforms: list[str], need: Need, lang: str) -> str:
    """"Buy a 4060 or just use Colab?": the hours the card's price rents on the platforms named (of their cheapest
    cards), and what that is a week over a year; '' without a price or an offer."""
    from bot.knowledge import load_platforms
    from bot.rentals import load_rentals

    g = engine.catalog.get(name)
    if g is None:
        return ""
    new, used = _current_price(engine, need, g, lang)
    price = new or used
    named = {n.lower() for p in load_platforms(engine.knowledge_dir) if p.name in platforms for n in _spellings(p)}
    offers = [o for o in load_rentals(engine.knowledge_dir) if o.platform.lower() in named]
    shown = _cheapest_per_card(engine, offers, price.currency)[:1] if price else []
    if not shown:
        return ""
    rate, o = shown[0]
    hours = price.amount / rate
    paid = f"{price}{_t(lang, ' used', '（二手）') if price is used else ''}"
    return _t(lang, f"The price of a {g.name} ({paid}) rents about {hours:,.0f} hours of a {o.gpu_listed.en} on "
                    f"{o.platform} ({hourly(rate, price.currency)}), about {hours / 52:,.0f} hours "
                    "a week for a year; use it more than that and buying pays off sooner (electricity aside).",
              f"一张 {g.name} 的钱（{paid}）够在 {o.platform} 上租 {o.gpu_listed.zh} 约 {hours:,.0f} 小时"
              f"（{hourly(rate, price.currency)}），相当于一年里每周约 {hours / 52:,.0f} 小时；"
              "用得比这多，买卡回本更快（未计电费）。")


def rent_or_buy_guide(engine: Engine, text: str, lang: str) -> Reply:
    """"Rent or buy?" without the user's hours: the guide's rent-or-buy section (the paragraphs the question finds in
    it, else its rule and worked example), and the question that lets the advisor work it out: the hours."""
    from bot.ownership import load_assumptions

    section = load_assumptions(engine.knowledge_dir).guide_section
    reply = question(engine, text, lang, kinds=("guide",))
    if reply.topic != section:
        reply = _rent_or_buy_section(engine, lang, 2) or reply
    return ask_for_hours(reply, lang)


def rent_or_buy_rule(engine: Engine, lang: str) -> Reply | None:
    """The guide's rule of thumb on renting or buying (its section's first passage), and the question of the hours:
    what goes with picks when the user asked to rent or buy with a budget."""
    reply = _rent_or_buy_section(engine, lang, 1)
    return ask_for_hours(reply, lang) if reply else None


def _rent_or_buy_section(engine: Engine, lang: str, n: int) -> Reply | None:
    from bot.ownership import load_assumptions

    section = load_assumptions(engine.knowledge_dir).guide_section
    passages = sorted((p for p in engine.index.passages if p.section == section and p.lang == lang),
                      key=lambda p: p.position)[:n]
    if not passages:
        return None
    return Reply("question", lang, title=passages[0].title,
                 paragraphs=tuple(_titled_refs(engine, p.text, lang) for p in passages),
                 sources=tuple(Source(x.title, x.url) for x in passages[0].sources), topic=section,
                 follow_up=_follow_up(engine, section))


def ask_for_hours(reply: Reply, lang: str) -> Reply:
    """A reply about renting or buying, with the question that lets the advisor work it out: the user's hours."""
    ask = _t(lang, "Tell me roughly how many hours a week you'd keep a GPU busy (\"about 10 hours a week\", "
                   "\"around the clock\") and I'll work out when buying pays off against renting, with dated prices.",
             "告诉我你一周大概会让 GPU 跑多少小时（比如“一周10小时”“全天跑”），我用带日期的价格帮你算买卡多久回本、"
             "租和买哪个划算。")
    hint = _t(lang, "I'd use it about 10 hours a week", "我一周大概用10小时")
    return replace(reply, paragraphs=reply.paragraphs + (ask,), suggestions=(hint,) + reply.suggestions[:2])


@dataclass(frozen=True)
class _RentalOption:
    """One offer weighed for a job: what the work of an hour of the reference card costs on it."""

    cost: float  # per unit of work, in the reply's currency
    offer: RentalOffer
    card: GPU  # the catalog card its speed is the speed of
    speed: float  # relative to the reference card, for the job
    price: float  # per GPU-hour, in the reply's currency


def rental_value(engine: Engine, names: list[str], need: Need, lang: str, china: bool, text: str = "",
                 platforms: tuple[str, ...] = ()) -> Reply:
    """Which rental is better value: each offer's price per GPU-hour over its card's relative speed for the job (cost
    per unit of work), on the platform named or in the user's market; the verdict first, with the memory the job
    needs when a cheaper card has too little."""
    from bot.ownership import cost_per_unit_of_work
    from bot.rentals import card_of, family_of, offers_for
    from bot.scorer import memory_needed

    kd, fx = engine.knowledge_dir, engine.catalog.fx
    today = engine.today or date.today()
    on = need.as_of or today
    gpus = [g for g in (engine.catalog.get(n) for n in names) if g is not None]
    cur = _display_currency(need, lang, china)
    spec = workload_spec(kd, need.workload, on)
    needed = memory_needed(need, spec, kd, on)[0] if (need.workloads or need.model_size_b) else None
    offers = offers_for(kd, [g.name for g in gpus])
    _, named = _platforms_in(engine, text, offers, platforms)
    families = list(OrderedDict.fromkeys(family_of(g.name) for g in gpus))
    options, notes = [], []
    for fam in families:
        mine = [o for o in offers if o.family == fam and o.quotable(today)]
        pool = [o for o in mine if o.platform in named]
        local = [o for o in mine if (o.region == "china") == china]
        if named and mine and not pool:
            notes.append(_t(lang, f"{fam}: no dated price on the platform you named, so the cheapest in your market is "
                                  "used.", f"{fam}：你说的平台没有它带日期的价格，这里用你所在市场最便宜的报价。"))
        elif china and mine and not pool and not local:
            notes.append(_t(lang, f"{fam}: no dated price from a platform in China on file; international prices, "
                                  "converted.", f"{fam}：没有国内平台带日期的价格记录，这里是国际平台的价格（已换算）。"))
        pool = pool or local or mine
        for o in pool:
            card = card_of(o, engine.catalog, tuple(names))
            speed = _perf_of(engine, card, spec.family) if card is not None else None
            if speed:
                price = fx.convert(o.price, o.currency, cur, today)
                options.append(_RentalOption(cost_per_unit_of_work(price, speed), o, card, speed, price))
    options.sort(key=lambda x: x.cost)
    label = spec.label.get(lang)
    ref = _ref_name(engine)
    paras = []
    fits = [x for x in options if needed is None or x.card.vram_gb >= needed]
    if needed is not None and options and not fits:  # no one card holds it: several of them will, so speed decides
        paras.append(_t(lang, f"No single card here holds your job (about {needed:g} GB): it takes several of any of "
                              "them (or a lighter method such as QLoRA). Per unit of work:",
                        f"这里没有一张卡能单独装下你的任务（约 {needed:g} GB）：哪种都得多卡（或换更省显存的方法，比如 QLoRA）。"
                        "只看每单位工作量的成本："))
        fits = options
    best_of: OrderedDict[str, _RentalOption] = OrderedDict()
    for x in fits:
        best_of.setdefault(x.offer.family, x)
    ranked = list(best_of.values())
    missing = [f for f in families if f not in {x.offer.family for x in options}]
    if len(ranked) >= 2:
        b, o = ranked[0], ranked[1]
        ratio = o.cost / b.cost
        listed_b, listed_o = b.offer.gpu_listed.get(lang), o.offer.gpu_listed.get(lang)
        if ratio < 1.05:
            fast, slow = (b, o) if b.speed >= o.speed else (o, b)
            sooner = fast.speed / slow.speed
            paras.append(_t(lang, f"Per unit of {label}, {listed_b} on {b.offer.platform} ({hourly(b.cost, cur)}) and "
                                  f"{listed_o} on {o.offer.platform} ({hourly(o.cost, cur)}) cost about the same: "
                                  f"{fast.offer.gpu_listed.en} finishes the same job {sooner:.1f}× sooner for that money; "
                                  "otherwise pick on memory and availability.",
                            f"按每单位{label}的工作量算，{b.offer.platform} 的 {listed_b}（{hourly(b.cost, cur)}）和 "
                            f"{o.offer.platform} 的 {listed_o}（{hourly(o.cost, cur)}）成本差不多：同样的钱 "
                            f"{fast.offer.gpu_listed.zh} 快 {sooner:.1f} 倍做完；其余看显存和能不能租到。"))
        else:
            memory = ""
            if needed is None and b.card.vram_gb < max(x.card.vram_gb for x in options):  # no job said: say the catch
                memory = _t(lang, f", if {b.card.vram_gb:g} GB is enough for your job",
                            f"，前提是 {b.card.vram_gb:g} GB 显存够你的任务用")
            paras.append(_t(lang, f"{listed_b} on {b.offer.platform}: about {ratio:.1f}× cheaper per unit of {label} "
                                  f"than {listed_o} on {o.offer.platform}{memory} ({hourly(b.price, cur)} an hour at "
                                  f"{b.speed:.2f}× {_a(ref)} {ref}'s speed, against {hourly(o.price, cur)} at {o.speed:.2f}×).",
                            f"{b.offer.platform} 的 {listed_b}：按每单位{label}的工作量算，比 {o.offer.platform} 的 "
                            f"{listed_o} 便宜约 {ratio:.1f} 倍{memory}（每小时 {hourly(b.price, cur)}、速度是 {ref} 的 "
                            f"{b.speed:.2f} 倍，对比每小时 {hourly(o.price, cur)}、{o.speed:.2f} 倍）。"))
        for x in ranked[2:]:  # a third or fourth card: how it stands against the best
            paras.append(_t(lang, f"{x.offer.gpu_listed.en} on {x.offer.platform}: {x.cost / b.cost:.1f}× the cost per "
                                  f"unit of work of {b.offer.gpu_listed.en}.",
                            f"{x.offer.platform} 的 {x.offer.gpu_listed.zh}：每单位工作量的成本是 {b.offer.gpu_listed.zh} 的 "
                            f"{x.cost / b.cost:.1f} 倍。"))
    elif len(ranked) == 1 and len(options) > len(fits):
        x = ranked[0]
        paras.append(_t(lang, f"Of these, only the {x.offer.family} holds your job (about {needed:g} GB): rent it; per "
                              f"unit of work it costs least as {x.offer.gpu_listed.en} on {x.offer.platform} "
                              f"({hourly(x.price, cur)} an hour).",
                        f"这几张里只有 {x.offer.family} 装得下你的任务（约 {needed:g} GB）：租它；按每单位工作量算，"
                        f"{x.offer.platform} 的 {x.offer.gpu_listed.zh} 最便宜（每小时 {hourly(x.price, cur)}）。"))
    if needed is not None and fits is not options:
        small = OrderedDict.fromkeys(x.offer.gpu_listed.get(lang) for x in options if x.card.vram_gb < needed)
        if small:
            paras.append(_t(lang, f"Left out for memory: {', '.join(small)} (your job needs about {needed:g} GB).",
                            f"显存不够而排除：{'、'.join(small)}（你的任务约需 {needed:g} GB）。"))
    paras += notes
    for fam in missing:
        paras.append(_t(lang, f"{fam}: no dated rental price on file to weigh.", f"{fam}：没有带日期的租用价格，无法比较。"))
    rows = tuple((x.offer.platform, f"{x.offer.gpu_listed.get(lang)} ({_BILLING[x.offer.billing].get(lang)})",
                  f"{x.card.vram_gb:g} GB", hourly(x.price, cur),
                  f"{x.speed:.2f}", hourly(x.cost, cur), f"{x.offer.on:%Y-%m}") for x in options[:8])
    header = tuple(_t(lang, *h) for h in (("Platform", "平台"), ("GPU as listed", "所列型号"), ("Memory", "显存"),
                                            ("Per GPU-hour", "每卡每小时"), (f"Speed ({ref} = 1)", f"速度（{ref} = 1）"),
                                            ("Per unit of work", "每单位工作量"), ("Date", "日期")))
    footer = [_t(lang, f"Speed relative to one {ref}, estimated from specs for {label}; per unit of work = price per "
                       f"GPU-hour ÷ speed: what the work of one hour on {_a(ref)} {ref} costs on each. Estimates; rental "
                       "prices change often.",
                 f"速度以一张 {ref} 为 1，按规格估算（{label}）；每单位工作量成本 = 每卡每小时价格 ÷ 速度，"
                 f"即在各平台完成 {ref} 一小时工作量的花费。均为估算，租价变化频繁。")]
    if not (need.workloads or need.model_size_b):
        footer.append(_t(lang, "Tell me the job (\"LoRA on a 13B model\", \"SDXL training\") to check memory too.",
                         "告诉我具体任务（比如“13B 模型 LoRA 微调”“SDXL 训练”），我可以把显存也算进去。"))
    sources = tuple(OrderedDict.fromkeys(Source(f"{x.offer.platform} — {x.offer.gpu_listed.get(lang)} "
                                                f"({x.offer.on:%Y-%m})", x.offer.source) for x in options[:8]))[:6]
    title = " / ".join(families)
    best = ranked[0].card.name if ranked else None
    return Reply("rent", lang, title=_t(lang, f"Renting {title}: cost per unit of work", f"租 {title}：每单位工作量的成本"),
                 paragraphs=tuple(paras), table=Table(header, rows) if rows else None, footer=tuple(footer),
                 sources=sources, focus=best, follow_up="rent",
                 suggestions=(_t(lang, "for LLM fine-tuning?", "那用来微调大模型呢"), _t(lang, "rent or buy?", "租还是买划算？")))


PLATFORMS_SHOWN = 8  # the platforms a general rental answer lists


def _rent_platforms(engine: Engine, lang: str, china: bool, need: Need | None = None, text: str = "",
                    platforms: tuple[str, ...] = (), no_local: str | None = None) -> Reply:
    """Where to rent at all: the platforms, local ones first, each with a dated price where one is on file, priced in
    the region's currency. A platform the message names ("矩池云怎么收费") gets its own answer; a request for free GPUs
    puts the free quotas first."""
    from bot.knowledge import load_platforms
    from bot.rentals import card_of, offers_on
    from bot.slots.lexicon import words
    from bot.slots.text import has_any, normalise

    named, _ = _platforms_in(engine, text, (), platforms)
    if named:
        return _on_platforms(engine, named, lang, china, need)
    free = bool(text) and has_any(normalise(text), words("slots", "free_words"))
    rows = load_platforms(engine.knowledge_dir)
    if no_local:  # a region with no platform of its own: the international ones, not the mainland-only ones
        rows = [p for p in rows if p.region != "china"]
    cur = _display_currency(need, lang, china)
    today = engine.today or date.today()

    def key(p: Platform):
        local = (p.region == "china") == china
        return (not p.has_free_tier, not local, p.name) if free else (not local, not _priced(engine, p), p.name)

    table_rows, listed = [], []
    for r in sorted(rows, key=key):
        priced = sorted((o for o in offers_on(engine.knowledge_dir, r.name) if o.price > 0),
                        key=lambda o: engine.catalog.fx.convert(o.price, o.currency, cur, o.on))
        if len(table_rows) < PLATFORMS_SHOWN:
            listed += priced
        if free:
            price = _clip_parts(r.free_tier, lang, 70) if r.has_free_tier else _t(lang, "no free quota", "没有免费额度")
        elif priced:
            o = priced[0]
            price = (f"{o.gpu_listed.get(lang)} {_hourly_cell(engine, o, cur, lang)}{_t(lang, '/h', '/小时')} "
                     f"({_offer_seen(o, today, lang)})")
        else:
            price = _platform_price(r, today, lang) or "—"
        table_rows.append((r.label.get(lang), _clip_parts(r.gpus, lang, 60), price, _access(r, lang)))
    header = tuple(_t(lang, *h) for h in (("Platform", "平台"), ("GPUs", "GPU"),
                                            ("Free quota", "免费额度") if free else ("Price (date)", "价格（日期）"),
                                            ("From mainland China", "国内访问")))
    if free:
        para = _t(lang, "Platforms with a free GPU quota first (quotas change; check the site):",
                  "有免费 GPU 额度的平台排在前面（额度会调整，以官网为准）：")
    else:
        para = _t(lang, "Where to rent a GPU by the hour" + (" (China first)" if china else "") + ", platforms with a "
                        "dated price first:",
                  "按小时租 GPU 的地方" + ("（国内平台优先）" if china else "") + "，有带日期价格的排在前面：")
    shown = table_rows[:PLATFORMS_SHOWN]
    held = _rentable_cards_that_hold(engine, need, today, china) if need is not None else None
    sums = _rental_sums(engine, [o for o in listed if held is None or getattr(card_of(o, list(engine.catalog)), "name",
                                                                                 None) in held[3]], need, cur, lang)
    by_label = {x.label.get(lang): x for x in rows}
    sources = tuple(Source(r[0], by_label[r[0]].url) for r in shown[:4] if r[0] in by_label)
    return Reply("rent", lang, title=_t(lang, "Renting instead of buying", "租用而不是购买"),
                 paragraphs=((no_local,) if no_local else ()) + ((sums,) if sums else ()) + (para,),
                 table=Table(header, tuple(shown)),
                 footer=(_t(lang, "Rental prices change often; check the platform before you commit.",
                            "租用价格变化频繁，下单前请到平台确认。"),), sources=sources, follow_up="rent")


RENTED_FAMILIES_SHOWN = 3  # the cards a rental budget is counted in: its cheapest ones, each at its cheapest offer


def _cheapest_per_card(engine: Engine, offers: list, cur: str) -> list[tuple[float, object]]:
    """The lowest current offer of each card rented (its rate in `cur`), cheapest cards first."""
    today = engine.today or date.today()
    fx = engine.catalog.fx
    cheapest: dict[str, tuple[float, object]] = {}
    for o in offers:
        if o.price <= 0 or not o.quotable(today):
            continue
        rate = fx.convert(o.price, o.currency, cur, today)
        if o.family not in cheapest or rate < cheapest[o.family][0]:
            cheapest[o.family] = (rate, o)
    return sorted(cheapest.values(), key=lambda x: x[0])[:RENTED_FAMILIES_SHOWN]


def _cost_of_the_hours(engine: Engine, offers: list, hours: float, cur: str, lang: str) -> str:
    """"一共大概要花多少钱 训练10小时", "how much would 3 days cost" after a rental list: that many GPU-hours priced on
    the cheapest cards listed, each at its lowest current offer (a range where the offer is one)."""
    shown = _cheapest_per_card(engine, offers, cur)
    if not shown:
        return ""
    today = engine.today or date.today()

    def total(rate: float, o) -> str:
        hi = engine.catalog.fx.convert(o.price_high, o.currency, cur, today) * hours if o.price_high else None
        return f"{money(rate * hours, cur)}–{money(hi, cur)}" if hi and hi > rate * hours else money(rate * hours, cur)

    parts = [(o.gpu_listed.get(lang), total(rate, o), o.platform) for rate, o in shown]
    return _t(lang, f"For {hours:,.0f} GPU-hours: " + "; ".join(f"{g} about {c} ({p})" for g, c, p in parts) +
              " (at the lowest listed rate; storage and idle time extra).",
              f"{hours:,.0f} 卡时大约：" + "；".join(f"{g} {c}（{p}）" for g, c, p in parts) + "（按所列最低价，存储和空闲时间另计）。")


def _as_time(hours: float, lang: str) -> str:
    """Many GPU-hours as time around the clock ("about 7 months around the clock"): '' under two days."""
    if hours < 48:
        return ""
    days = hours / 24
    if days < 60:
        return _t(lang, f", about {days:,.0f} days around the clock", f"，约合全天候 {days:,.0f} 天")
    months = hours / (24 * DAYS_PER_MONTH)
    return _t(lang, f", about {months:,.0f} months around the clock", f"，约合全天候 {months:,.0f} 个月")


def _hours_the_budget_rents(engine: Engine, offers: list, budget, cur: str, lang: str) -> str:
    """"runpod or vast.ai for a 2 week project, budget $300", "预算500块够租多久": how many GPU-hours that money rents of
    the cheapest cards in `offers`, each at its lowest current offer."""
    today = engine.today or date.today()
    spend = engine.catalog.fx.convert(budget.amount, budget.currency, cur, today)
    shown = _cheapest_per_card(engine, offers, cur)
    if not shown:
        return ""
    parts = [(f"{spend / rate:,.0f}", o.gpu_listed.get(lang), _hourly_cell(engine, o, cur, lang), o.platform)
             for rate, o in shown]
    return _t(lang, f"Your {budget} rents about " + "; ".join(f"{h} GPU-hours of {g} at {c}/h ({p})"
                                                            for h, g, c, p in parts) + " (at the lowest listed rate).",
              f"你的 {budget} 大约能租：" + "；".join(f"{g} {h} 卡时（{p}，{c}/小时）" for h, g, c, p in parts) +
              "（按所列最低价算）。")


def _rental_sums(engine: Engine, offers: list, need: Need | None, cur: str, lang: str) -> str:
    """The user's own sum over a list of offers: the hours they said in all priced ("how much would 3 days cost"), or
    the hours their money rents ("1万块能租多久"); '' when they said neither."""
    if need is None or not offers:
        return ""
    if need.usage is not None and need.usage.per == "total":
        return _cost_of_the_hours(engine, offers, need.usage.hours, cur, lang)
    if need.budget:
        return _hours_the_budget_rents(engine, offers, need.budget, cur, lang)
    return ""


def _budget_in_hours(engine: Engine, budget, hour: float, cur: str, n: str, lang: str) -> str:
    """"1万块能租多久4090": the hours the user's money rents at the rate just quoted (for all the GPUs priced)."""
    spend = engine.catalog.fx.convert(budget.amount, budget.currency, cur, engine.today or date.today())
    hours = spend / hour
    return _t(lang, f"Your {budget} rents {n} for about {hours:,.0f} hours at that rate{_as_time(hours, lang)}.",
              f"你的 {budget} 按这个价格能租{n}约 {hours:,.0f} 小时{_as_time(hours, lang)}。")


def _platform_price(p: Platform, today: date, lang: str) -> str:
    """The platform's headline price with its date, marked when it is older than STALE_PRICE_MONTHS; '' without one."""
    from bot.catalog import STALE_PRICE_MONTHS, months_between, parse_date

    seen = parse_date(p.price_date)
    old = seen is not None and months_between(seen, today) > STALE_PRICE_MONTHS
    return p.price_text(lang, _t(lang, ", may be out of date", "，可能已过时") if old else "")


def _priced(engine: Engine, p: Platform) -> bool:
    from bot.rentals import offers_on

    return bool(p.price) or any(o.price > 0 for o in offers_on(engine.knowledge_dir, p.name))


def _access(p: Platform, lang: str) -> str:
    return {"yes": _t(lang, "yes", "可直连"), "needs-proxy": _t(lang, "needs a proxy", "需代理"),
            "unstable": _t(lang, "unstable", "不稳定")}.get(p.china_access, p.china_access)


_YES = re.compile(r"^(yes:\s*|有：)")


def _on_platforms(engine: Engine, named: list[Platform], lang: str, china: bool, need: Need | None = None) -> Reply:
    """"矩池云怎么收费", "what does RunPod cost": the platforms asked about, each with its dated per-GPU-hour offers
    (every card, cheapest first), or, with none on file, what it rents, its free quota and its price page; priced in
    the region's currency."""
    from bot.rentals import load_rentals

    cur = _display_currency(need, lang, china)
    today = engine.today or date.today()
    fx = engine.catalog.fx
    paras, rows, offers = [], [], []
    for p in named:
        label = p.label.get(lang)
        names = _spellings(p)
        mine = sorted((o for o in load_rentals(engine.knowledge_dir) if o.platform.lower() in names),
                      key=lambda o: (o.stale(today), o.price == 0, fx.convert(o.price, o.currency, cur, today)))
        offers += mine
        free = _t(lang, f" Free quota: {_YES.sub('', p.free_tier.en)}.", f"免费额度：{_YES.sub('', p.free_tier.zh)}。") \
            if p.has_free_tier else ""
        note = p.notes.get(lang)
        if mine:
            cards = list(OrderedDict.fromkeys(o.family for o in mine))
            o = next((x for x in mine if x.quotable(today)), mine[0])
            paras.append(_t(lang, f"{label}: dated per-GPU-hour prices on file for {', '.join(cards)}, from "
                                  f"{_hourly_cell(engine, o, cur, lang)} ({o.gpu_listed.en}, {_offer_seen(o, today, 'en')})."
                                  f"{free} {note}",
                            f"{label}：有 {'、'.join(cards)} 带日期的每卡每小时价格，最低 {_hourly_cell(engine, o, cur, lang)}"
                            f"（{o.gpu_listed.zh}，{_offer_seen(o, today, 'zh')}）。{free}{note}"))
        else:
            price = _platform_price(p, today, lang)
            paras.append(_t(lang, f"{label}: no dated per-GPU-hour price on file; its price page ({p.url}) has "
                                  f"today's.{f' Price: {price}.' if price else ''} GPUs: {p.gpus.en}.{free} {note}",
                            f"{label}：没有带日期的每卡每小时价格记录，请看它的价格页（{p.url}）。"
                            f"{f'价格：{price}。' if price else ''}GPU：{p.gpus.zh}。{free}{note}"))
    sums = _rental_sums(engine, offers, need, cur, lang)
    if sums:
        paras.append(sums)
    # "AutoDL 和恒源云哪个便宜": the verdict, in a paragraph of its own before each platform's description
    head_to_head = _platforms_head_to_head(engine, named, offers, cur, lang) if len(named) >= 2 else None
    for o in offers[:10]:  # the note whole, as in where_to_rent: a cut by length would differ between the languages
        billing = _BILLING[o.billing].get(lang) + (_t(lang, "; ", "；") + o.note.get(lang) if o.note else "")
        rows.append((o.platform, o.gpu_listed.get(lang), _hourly_cell(engine, o, cur, lang), billing,
                     _offer_seen(o, today, lang)))
    header = tuple(_t(lang, *h) for h in (("Platform", "平台"), ("GPU as listed", "所列型号"),
                                            ("Per GPU-hour", "每卡每小时"), ("Billing", "计费"), ("Date", "日期")))
    sources = tuple(OrderedDict.fromkeys([Source(p.label.get(lang), p.url) for p in named] +
                                         [Source(f"{o.platform} — {o.gpu_listed.get(lang)} ({o.on:%Y-%m})", o.source)
                                          for o in offers[:10]]))[:6]
    labels = [p.label.get(lang) for p in named]
    footer = [_t(lang, "Rental prices change often; check the platform before you commit.",
                 "租用价格变化频繁，下单前请到平台确认。")]
    if any(o.stale(today) for o in offers[:10]):
        footer.append(_t(lang, "Prices more than 18 months old are marked: they may be out of date.",
                         "超过 18 个月的价格已标注，可能已过时。"))
    return Reply("rent", lang, title=_t(lang, f"Renting on {', '.join(labels)}", f"在{'、'.join(labels)}租卡"),
                 paragraphs=(*([head_to_head] if head_to_head else []), " ".join(paras) if lang == "en" else "".join(paras)),
                 table=Table(header, tuple(rows)) if rows else None, footer=tuple(footer), sources=sources,
                 follow_up="rent", topic=f"platform:{named[0].name}")


def _platforms_head_to_head(engine: Engine, named: list[Platform], offers, cur: str, lang: str) -> str | None:
    """Two or more platforms weighed on price: the same card (family, form factor and memory as listed) at its
    cheapest current rate on each (the middle of a quoted range), like for like where both rent it without
    interruptions, else with the billing said; which platform is cheaper on the cards they both list and by how much,
    and the platforms with no current price to weigh. None when no platform named has a current price."""
    from bot.ownership import INTERRUPTIBLE
    from bot.rentals import listed_form, listed_memory

    today = engine.today or date.today()
    fx = engine.catalog.fx
    # card -> platform -> billing class -> (cheapest current rate in `cur`, billing)
    found: dict[str, dict[str, dict[bool, tuple[float, str]]]] = {}
    for p in named:
        names, label = _spellings(p), p.label.get(lang)
        for o in offers:
            if o.platform.lower() in names and o.quotable(today):
                gb, form = listed_memory(o), listed_form(o)
                card = " ".join(x for x in (o.family, form, f"{gb:g}GB" if gb else "") if x)
                price = fx.convert((o.price + (o.price_high or o.price)) / 2, o.currency, cur, today)
                by = found.setdefault(card, {}).setdefault(label, {})
                kind = o.billing in INTERRUPTIBLE
                if kind not in by or price < by[kind][0]:
                    by[kind] = (price, o.billing)
    # a listing that names no form factor ("A100 80GB" on AutoDL) is the same card as the one listing of that family
    # and memory that does ("A100 SXM 80GB" on vast.ai), when there is only one such
    for card in [c for c in found if " SXM " not in f" {c} " and " PCIe " not in f" {c} "]:
        family_gb = card.split()
        formed = [c for c in found if c != card and [w for w in c.split() if w not in ("SXM", "PCIe")] == family_gb]
        if len(formed) == 1:
            for label, kinds in found.pop(card).items():
                by = found[formed[0]].setdefault(label, {})
                for kind, offer in kinds.items():
                    if kind not in by or offer[0] < by[kind][0]:
                        by[kind] = offer
    # like for like: two platforms that both rent it without interruptions are weighed on those prices, not a spot
    # price against an on-demand one; otherwise the cheapest of each, its billing said
    rate: dict[str, dict[str, tuple[float, str]]] = {}
    for card, by in found.items():
        steady = all(False in kinds for kinds in by.values()) and len(by) >= 2
        rate[card] = {lbl: kinds[False] if steady else min(kinds.values()) for lbl, kinds in by.items()}
    priced = {k for r in rate.values() for k in r}
    unpriced = [p.label.get(lang) for p in named if p.label.get(lang) not in priced]
    if not priced:
        return None
    shared = {c: r for c, r in rate.items() if len(r) >= 2}
    if not shared:
        return _t(lang, f"I can't weigh them on price: {', '.join(unpriced) or 'they'} "
                        f"{'has' if len(unpriced) == 1 else 'have'} no current per-GPU-hour price on file"
                        f"{'' if unpriced else ' for a card they both list'}. What each rents and costs is below.",
                  f"没法直接比价：{'、'.join(unpriced) or '它们'} 没有{'' if unpriced else '同一张卡的'}当前每卡每小时价格记录。"
                  "各自租什么、多少钱见下文。")
    lines, winners = [], {}
    for card, r in shared.items():
        ranked = sorted(r.items(), key=lambda kv: kv[1][0])
        (best, (low, _)), (_, (high, _)) = ranked[0], ranked[-1]
        mixed = len({b for _, b in r.values()}) > 1
        each = [f"{k} {hourly(v, cur)}" + (_t(lang, f" ({_BILLING[b].en})", f"（{_BILLING[b].zh}）") if mixed else "")
                for k, (v, b) in ranked]
        pct = round((1 - low / high) * 100)
        if pct >= 3:
            winners.setdefault(best, []).append(card)
        lines.append(_t(lang, f"{card}: {', '.join(each)}" + (f" ({best} about {pct}% cheaper)" if pct >= 3 else
                                                                 " (about the same)"),
                        f"{card}：{'，'.join(each)}" + (f"（{best} 便宜约 {pct}%）" if pct >= 3 else "（差不多）")))
    if not winners:
        verdict = _t(lang, "Verdict: about the same price on the cards both list.", "结论：两边都有的卡价格差不多。")
    elif len(winners) == 1:
        (best, cards), = winners.items()
        verdict = _t(lang, f"Verdict: {best} is cheaper on {', '.join(cards)}" +
                     (", every card both list where the price differs." if len(shared) > 1 else "."),
                     f"结论：{'、'.join(cards)} 在 {best} 更便宜" + ("（两边都有且价格有差别的卡都是）。" if len(shared) > 1 else "。"))
    else:
        verdict = _t(lang, "Verdict: neither is cheaper across the board — " +
                     "; ".join(f"{w} for {', '.join(c)}" for w, c in winners.items()) + ".",
                     "结论：没有哪家全面更便宜——" + "；".join(f"{'、'.join(c)} 选 {w}" for w, c in winners.items()) + "。")
    tail = _t(lang, f" {', '.join(unpriced)}: no current per-GPU-hour price on file to weigh.",
              f"{'、'.join(unpriced)}：没有当前的每卡每小时价格可比。") if unpriced else ""
    per_hour = _t(lang, " Same card, per GPU-hour: ", "同一张卡每小时：")
    joined = _t(lang, "; ".join(lines), "；".join(lines))
    return f"{verdict}{per_hour}{joined}{_t(lang, '.', '。')}{tail}"


# --- memory questions ----------------------------------------------------------------------------------------------

def memory_question(engine: Engine, q: Need, lang: str) -> Reply:
    from bot.vram import estimate

    image = _model_of(engine, q) if q.model else None
    if image is not None and image.kind != "llm" and image.image_infer_gb:
        return _image_memory(engine, image, lang)

    finetune = q.workload == "llm_finetune" or q.finetune_method is not None
    ladder = ["full", "lora", "qlora"]
    # the method asked about, then the lighter ones: "full fine-tune vs LoRA?" and what the next step down costs
    methods = ladder[ladder.index(q.finetune_method):] if q.finetune_method else (ladder if finetune else [])
    rows = []
    if not finetune:
        from bot.fit import memory, settings
        from bot.models import load_models

        table = load_models(engine.knowledge_dir)
        model = _model_of(engine, q)
        ctx = q.context_tokens or int(settings(engine.knowledge_dir)["default_context"])
        quants = [table.quant(q.quant)] if q.quant else [table.quant_for_bits(b) for b in (
            [q.precision_bits] if q.precision_bits else [16, 8, 4])]
        for quant in quants:
            w, kv, oh = memory(model, quant, ctx, 1, engine.knowledge_dir)
            rows.append((_t(lang, f"inference, {quant.label_en}", f"推理，{quant.label_zh}"), f"~{w + kv + oh:.1f} GB",
                         _t(lang, f"{w:.1f} GB weights + {kv:.1f} GB KV cache ({ctx:,} tokens) + {oh:.1f} GB runtime",
                            f"权重 {w:.1f} GB + KV 缓存 {kv:.1f} GB（{ctx:,} token）+ 运行时 {oh:.1f} GB")))
    for m in methods:
        e = estimate(q.model_size_b, m, q.precision_bits, engine.knowledge_dir)
        label = {"full": _t(lang, "full fine-tune", "全参微调"), "lora": "LoRA", "qlora": "QLoRA"}[m]
        rows.append((label, f"~{e.total_gb:g} GB", e.assumption_en if lang == "en" else e.assumption_zh))
    need = min(float(r[1].strip("~ GB")) for r in rows)
    on = q.as_of or engine.today or date.today()
    home = "CNY" if q.region == "cn" or (q.region is None and lang == "zh") else "USD"

    def cheapest_here(g: GPU) -> float | None:
        prices = [p.amount for market in ("new", "used") if (p := g.price(home, market, on, engine.catalog.fx))
                  and not (market == "new" and g.not_sold_in(buyer_market(Need(region=q.region), home), on))]
        return min(prices, default=None)
    smallest = _smallest_card(engine, need, lambda g: any(g.price(cur, market, on) for cur in ("USD", "CNY")
                                                          for market in ("new", "used")), cheapest_here)
    fitting = [smallest.name] if smallest else []  # the smallest card still sold (new or used), not a long-gone TITAN
    header = tuple(_t(lang, *h) for h in (("Job", "任务"), ("Memory", "显存"), ("Assumption", "假设")))
    para = _t(lang, f"Memory for a {q.model_size_b:g}B-parameter model:", f"{q.model_size_b:g}B 参数模型需要的显存：")
    footer = (_t(lang, "Estimates: weights + KV cache + runtime for inference (sizes in GiB, as cards are labelled); "
                       "weights + optimizer states + activations + ~20% for fine-tuning; long contexts and larger "
                       "batches need more.", "估算：推理为权重 + KV 缓存 + 运行时（按 GiB 计，与显卡标称一致）；微调为权重 + 优化器状态 + "
                       "激活 + 约 20%；长上下文和大 batch 需要更多。"),)
    if fitting:
        footer += (_t(lang, f"Smallest consumer NVIDIA card for the lightest option: {fitting[0]}.",
                      f"最省显存方案能用的最小消费级 NVIDIA 卡：{fitting[0]}。"),)
    else:
        footer += _cards_for(engine, need, on, lang)
        if not finetune:
            china = q.region == "cn" or (q.region is None and lang == "zh")
            footer += tuple(r.get(lang) for r in routes_to_a_big_model(engine, q, lang, on, china))
    return Reply("memory", lang, title=_t(lang, "How much memory?", "需要多少显存？"), paragraphs=(para,),
                 table=Table(header, tuple(rows)), footer=footer,
                 sources=(Source(source_title("memory_anatomy", lang),
                                    "https://huggingface.co/docs/transformers/model_memory_anatomy"),
                          Source(source_title("transformer_math", lang), "https://blog.eleuther.ai/transformer-math/")),
                 suggestions=(_t(lang, f"$2000 to run a {q.model_size_b:g}B model", f"预算1万跑{q.model_size_b:g}B模型"),))


def _cards_for(engine: Engine, need_gb: float, on: date, lang: str) -> tuple[str, ...]:
    """More than any consumer card holds ("部署 671B 需要多少卡"): how many cards of the largest memory sizes on sale
    the lightest option takes, split across them (each card also needs room for its share of the cache)."""
    sizes = sorted({g.vram_gb for g in engine.catalog if g.vendor == "NVIDIA" and g.segment in ("consumer", "datacenter")
                    and any(g.price(cur, m, on) for cur in ("USD", "CNY") for m in ("new", "used"))}, reverse=True)
    consumer = max((g.vram_gb for g in engine.catalog if g.vendor == "NVIDIA" and g.segment == "consumer"
                    and any(g.price(cur, "new", on) for cur in ("USD", "CNY"))), default=None)
    # the most memory a consumer card has used (two used 24 GB cards are how most people run 70B at home)
    used = max((g.vram_gb for g in engine.catalog if g.vendor == "NVIDIA" and g.segment == "consumer"
                and any(g.price(cur, "used", on) for cur in ("USD", "CNY"))), default=None)
    big = [sz for sz in sizes if sz >= 80]  # the largest data-centre memory, and the common 80 GB class
    picks = sorted({sz for sz in (used, consumer) if sz}) + [sz for sz in big if sz == 80] + big[:1]
    counts = [(math.ceil(need_gb / sz), sz) for sz in dict.fromkeys(picks) if sz]
    if not counts:
        return ()
    each = [f"{n}× {sz:g} GB" for n, sz in counts]
    return (_t(lang, f"No consumer card holds the lightest option (~{need_gb:g} GB). It takes about "
                     f"{', '.join(each[:-1])} or {each[-1]} cards" if len(each) > 1 else
                     f"No consumer card holds the lightest option (~{need_gb:g} GB). It takes about {each[0]} cards",
               f"没有一张消费级卡装得下最省显存的方案（约 {need_gb:g} GB），大约需要 {'、'.join(each)} 的卡")
            + _t(lang, "; several cards share the model (tensor or pipeline parallel), and more than 8 means several "
                       "machines.", "（多张卡时把模型切分到各卡上：张量并行或流水线并行；超过 8 张就要多台机器）。"),)


def routes_to_a_big_model(engine: Engine, need: Need, lang: str, today: date, china: bool = False) -> tuple[Text, ...]:
    """A model that takes more than two of the largest consumer cards at its usual format (405B, 671B): the cheaper
    ways a practitioner weighs before a rig of data-centre cards, each with a number. One affordable card plus system
    RAM (llama.cpp keeps the rest of the weights there: usable for a mixture of experts, which reads little per token,
    too slow for a dense model), and renting the cards that hold it by the hour. Empty for smaller models."""
    from bot.fit import default_quant, estimate, load_models, model_for, quant_for, settings
    from bot.ownership import cheapest_offer
    from bot.rentals import offers_for

    kd = engine.knowledge_dir
    model = model_for(kd, need.model, need.model_size_b)
    if model is None or need.workload not in (None, "llm_inference") or need.finetune_method:
        return ()
    quant = quant_for(kd, need.quant, need.precision_bits) or default_quant(model, kd, load_models(kd))
    cur = _display_currency(need, lang, china)
    market = "new" if need.used is False else "used"

    def cost(g: GPU) -> Price | None:
        return g.price(cur, market, today, engine.catalog.fx) or g.price(cur, "new", today, engine.catalog.fx)

    consumer = [g for g in engine.catalog if g.vendor == "NVIDIA" and g.segment == "consumer" and cost(g)]
    if not consumer:
        return ()
    largest = max(g.vram_gb for g in consumer)
    spec = workload_spec(kd, "llm_inference", today)
    card = min((g for g in consumer if g.vram_gb >= spec.comfortable_vram_gb), key=lambda g: cost(g).amount,
               default=None)
    if card is None:
        return ()
    est = estimate(card, model, quant, kd)
    if est.total_gb <= 2 * largest:
        return ()
    out = []
    label = load_models(kd).quant(quant.code)
    if est.decode_tokens_per_s:
        sizes = settings(kd)["offload"]["ram_sizes_gb"]
        ram = next((sz for sz in sizes if sz >= est.offload_gb * 1.1), None)
        price = cost(card)
        tps = _tps(est.decode_tokens_per_s)
        slow = est.decode_tokens_per_s < CHAT_SPEED
        ram_en = f"about {ram} GB of system RAM" if ram else f"over {est.offload_gb:g} GB of system RAM"
        ram_zh = f"约 {ram} GB 内存" if ram else f"超过 {est.offload_gb:g} GB 内存"
        why_en = (f"a dense model reads all {model.params_b:g}B weights for every token, so this is too slow for chat"
                  if not model.is_moe else
                  f"it is a mixture of experts that reads only its {model.active_b:g}B active parameters per token"
                  + (", and still slow" if slow else ", which is what makes this usable"))
        why_zh = (f"稠密模型每生成一个 token 都要读完全部 {model.params_b:g}B 权重，聊天太慢" if not model.is_moe else
                  f"它是 MoE，每个 token 只读 {model.active_b:g}B 激活参数" + ("，但仍然偏慢" if slow else "，所以能用"))
        out.append(Text(
            f"Cheapest way to run it at all: one {card.name} ({card.vram_gb:g} GB, {price}{' used' if price.market == 'used' else ''}) "
            f"with {ram_en} runs {model.name} at {label.label_en} at about {tps} tokens/s, the rest of the weights in "
            f"RAM (llama.cpp offload; {why_en}). Formula only, at dual-channel desktop RAM speed: a server board with "
            "more memory channels is faster, and that much RAM needs a workstation or server board anyway.",
            f"最省钱的跑法：一张 {card.name}（{card.vram_gb:g} GB，{price}{'二手' if price.market == 'used' else ''}）"
            f"加{ram_zh}，用 {label.label_zh} 跑 {model.name} 约 {tps} tokens/s，其余权重放在内存里（llama.cpp offload；"
            f"{why_zh}）。仅公式估算，按双通道台式机内存带宽：内存通道更多的服务器主板更快，而且这么大的内存本来就要工作站或服务器主板。"))
    held = _rentable_cards_that_hold(engine, need, today, china)
    if held:
        gb, count, cards, holds = held
        fx = engine.catalog.fx
        best = cheapest_offer(offers_for(kd, [cards[0].name]), today, china,
                              lambda o: fx.convert(o.price, o.currency, cur, today))
        if best is not None:
            each = fx.convert(best.price, best.currency, cur, today)
            out.append(Text(
                f"Renting: {count}× {cards[0].name} hold the ~{gb:g} GB; from {_hourly_cell(engine, best, cur, 'en')} "
                f"per GPU-hour on {best.platform} ({best.on:%Y-%m}), about {hourly(each * count, cur)} an hour for "
                "all of them. Or call a hosted API of the model and pay per token.",
                f"租用：{count} 张 {cards[0].name} 装得下这约 {gb:g} GB；{best.platform} 每卡每小时 "
                f"{_hourly_cell(engine, best, cur, 'zh')} 起（{best.on:%Y-%m}），整台约每小时 {hourly(each * count, cur)}。"
                "也可以直接调用这个模型的在线 API，按 token 付费。"))
    return tuple(out)


def _smallest_card(engine: Engine, gb: float, on_sale: Callable[[GPU], bool],
                   cost: Callable[[GPU], float | None] | None = None) -> GPU | None:
    """The consumer NVIDIA card with the least memory that still has `gb`, among those on sale: of equals, the
    cheapest by `cost` (a used 3090 before a China-only 24 GB flagship), else the newest."""
    def key(g: GPU):
        price = cost(g) if cost else None
        return g.vram_gb, price if price is not None else float("inf"), -(g.release_date or date.min).toordinal()
    return next((g for g in sorted(engine.catalog, key=key)
                 if g.vram_gb >= gb and g.vendor == "NVIDIA" and g.segment == "consumer" and on_sale(g)), None)


def workload_memory(engine: Engine, need: Need, lang: str) -> Reply:
    """How much memory a kind of job needs ("视频生成显存要多大才够", "how much vram for speech models"): the
    workload's published minimum and comfortable sizes, and the smallest cards on sale that have them."""
    on = need.as_of or engine.today or date.today()
    spec = workload_spec(engine.knowledge_dir, need.workload, on)
    currency = pricing(need, engine.catalog, on, lang)[0]  # cards on sale where the user buys
    label = spec.label.get(lang)
    para = _t(lang, f"{label}: at least {spec.min_vram_gb:g} GB to get started; {spec.comfortable_vram_gb:g} GB is "
                    "comfortable (bigger models and batches without workarounds).",
              f"{label}：入门至少 {spec.min_vram_gb:g} GB；{spec.comfortable_vram_gb:g} GB 比较宽裕（更大的模型和 batch 不用将就）。")
    bullets = []
    for gb, what in ((spec.min_vram_gb, _t(lang, "to get started", "入门")),
                     (spec.comfortable_vram_gb, _t(lang, "comfortable", "宽裕"))):
        card = _smallest_card(engine, gb, lambda g: g.price(currency, "new", on) is not None)
        if card is not None:
            bullets.append(_t(lang, f"Smallest new consumer NVIDIA card with {gb:g} GB ({what}): {card.name} "
                                    f"({card.vram_gb:g} GB).",
                              f"有 {gb:g} GB 的最小在售消费级 NVIDIA 卡（{what}）：{card.name}（{card.vram_gb:g} GB）。"))
    if spec.caveat:
        bullets.append(spec.caveat.get(lang))
    return Reply("memory", lang, title=_t(lang, "How much memory?", "需要多少显存？"), paragraphs=(para,),
                 bullets=tuple(bullets),
                 sources=(Source(source_title("memory_guidance", lang, name=label), spec.memory_source),),
                 suggestions=(_t(lang, f"$1500 for {label}", f"预算1万做{label}"),))


def memory_enough(engine: Engine, gb: float, need: Need, lang: str) -> Reply:
    """"Is 8 GB enough for deep learning?", "12G显存够跑大模型吗": a verdict on that much memory for the job (the
    workload's minimum and comfortable sizes), then what it holds: the usual LLMs for an LLM job, else the smallest
    cards with the sizes that matter."""
    workload = need.workload or "general"
    need = replace(need, workloads=(workload,)) if not need.workloads else need
    on = need.as_of or engine.today or date.today()
    spec = workload_spec(engine.knowledge_dir, workload, on)
    verdict = workload_verdict(spec, None, gb, lang)
    title = _t(lang, f"Is {gb:g} GB enough for {spec.label.en}?", f"{gb:g} GB 显存够不够{spec.label.zh}？")
    card = typical_card(engine, gb, need, lang) if workload == "llm_inference" else None
    if card is not None:  # which models that much memory runs says more than a rule of thumb
        held = what_fits(engine, card, 1, lang)
        note = _t(lang, f"Taking the {card} as the example of {gb:g} GB: memory decides what fits; speed scales with "
                        "the memory bandwidth.",
                  f"以 {card} 作为 {gb:g} GB 的例子：装不装得下看显存，速度大致随显存带宽变化。")
        return replace(held, title=title, paragraphs=(verdict,) + held.paragraphs + (note,), intent="memory")
    sizes = workload_memory(engine, need, lang)
    return replace(sizes, title=title, paragraphs=(verdict,))  # the sizes' own paragraph says the verdict's numbers


def _image_memory(engine: Engine, model, lang: str) -> Reply:
    """How much memory an image or video model needs: the published figures of the model table."""
    rows = [(_t(lang, "inference, 16-bit", "推理，16 位"), f"~{model.image_infer_gb:g} GB")]
    if model.image_lora_gb:
        rows.append((_t(lang, "LoRA training", "LoRA 训练"), f"~{model.image_lora_gb:g} GB"))
    para = _t(lang, f"{model.name} ({model.params_b:g}B parameters) needs about {model.image_infer_gb:g} GB to generate at "
                    "16-bit; FP8/NF4/GGUF weights and CPU offload run it in less, slower.",
              f"{model.name}（{model.params_b:g}B 参数）16 位生成约需 {model.image_infer_gb:g} GB；用 FP8/NF4/GGUF 权重或 CPU "
              "offload 可以用更少显存，但更慢。")
    bullets = (model.advice.get(lang),) if model.advice else ()
    return Reply("memory", lang, title=_t(lang, "How much memory?", "需要多少显存？"), paragraphs=(para,),
                 table=Table((_t(lang, "Job", "任务"), _t(lang, "Memory", "显存")), tuple(rows)), bullets=bullets,
                 sources=tuple(Source(model.name, u) for u in model.sources[:2]))


# --- retrieval -----------------------------------------------------------------------------------------------------

def guide_on_a_part(engine: Engine, text: str, lang: str) -> Reply | None:
    """A part of a message asked of the guide on its own ("Kaggle free GPU每周多少小时"): the guide's answer when the
    section it finds is about a word the part says itself (one of the section's keywords: Kaggle), else None; a part
    with no word of its own ("which is better for deep learning") draws whatever section is nearest."""
    from bot.knowledge import load_sections
    from bot.slots.text import normalise

    reply = question(engine, text, lang, kinds=("guide",))
    if reply.intent != "question":
        return None
    section = next((x for x in load_sections(engine.knowledge_dir) if x.id == reply.topic), None)
    said = normalise(text)
    own = section is not None and any(re.search(r"(?<![a-z0-9])" + re.escape(k.lower()) + r"(?![a-z0-9])", said)
                                      for k in section.keywords["zh"] + section.keywords["en"] if len(k) >= 3)
    return reply if own else None


def question(engine: Engine, text: str, lang: str, kinds: tuple[str, ...] | None = None) -> Reply:
    """The guide's answer (`kinds=("guide",)`: from its sections only, not from a card's or a platform's sheet)."""
    from bot.retrieval import search
    from bot.slots.text import detect_language

    if not text.strip():
        return unknown(lang)
    # searched as the words are written (Chinese words weigh differently); the reply's language only picks which
    # language of the same paragraphs is shown, so a Chinese and an English reply quote the same facts
    result = search(engine.index, text, detect_language(text), engine.knowledge_dir, k=30, kinds=kinds)
    if not result.hits or result.relevance < engine.min_relevance:
        return unknown(lang)
    # retrieval ranks sections (hits come grouped, best section first): the best answers, a close second adds
    by_section: OrderedDict[str, list] = OrderedDict()
    for h in result.hits:
        by_section.setdefault(h.passage.section, []).append(h)
    ranked = [x for x in result.sections if x.section in by_section]
    ranked = _newest_edition_first(ranked, text)
    best_id = ranked[0].section if ranked else next(iter(by_section))
    paragraphs, sources, title = _section_answer(engine, best_id, by_section[best_id], lang, text=text)
    if len(ranked) > 1 and ranked[1].score >= 0.9 * ranked[0].score and ranked[1].kind == "guide":
        p2, s2, _ = _section_answer(engine, ranked[1].section, by_section[ranked[1].section], lang, max_paragraphs=1,
                                    text=text)
        paragraphs += p2
        sources += s2
    sources = tuple(OrderedDict((x.url, x) for x in sources).values())
    focus = best_id[4:] if best_id.startswith("gpu:") else None
    return Reply("question", lang, title=title, paragraphs=tuple(paragraphs), sources=sources,
                 suggestions=EXAMPLES[lang][:2], topic=best_id, focus=focus, follow_up=_follow_up(engine, best_id))


_EDITION = re.compile(r"^([a-z]+)-(\d{4})-")  # section ids of a dated source: "dettmers-2023-method"
_YEAR_ASKED = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
NEWER_EDITION_SCORE = 0.8  # a later edition of the same author ranked at least this close to the best one wins


def _newest_edition_first(ranked: list, text: str) -> list:
    """"What does Dettmers recommend on a budget?": with no year asked, the latest edition of that author's advice
    (2023) answers, not the 2019 one the words matched a little better. A year asked keeps the ranking."""
    if not ranked or _YEAR_ASKED.search(text):
        return ranked
    best = _EDITION.match(ranked[0].section)
    if best is None:
        return ranked
    later = [x for x in ranked[1:] if (m := _EDITION.match(x.section)) and m[1] == best[1] and m[2] > best[2]
             and x.score >= NEWER_EDITION_SCORE * ranked[0].score]
    if not later:
        return ranked
    newest = max(later, key=lambda x: _EDITION.match(x.section)[2])
    return [newest] + [x for x in ranked if x is not newest]


def _follow_up(engine: Engine, section_id: str) -> str | None:
    """What a bare follow-up ("paid options?", "cheaper?") to an answer from this section asks: a platform's card
    and the sections about renting mark it "rent" (their front matter's `follow_up`)."""
    from bot.knowledge import load_sections

    if section_id.startswith("platform:"):
        return "rent"
    sec = next((x for x in load_sections(engine.knowledge_dir) if x.id == section_id), None)
    return sec.follow_up if sec else None


def guide_paragraph(engine: Engine, section_id: str, lang: str, about: tuple[str, ...]) -> tuple[str, Source] | None:
    """The first paragraph of a guide section that says one of the words `about` (else its opening paragraph) and the
    section's first source, read from knowledge/guide: what a scorer turn quotes without loading the search index."""
    from bot.knowledge import load_sections
    from bot.slots.text import find_any, normalise

    section = next((x for x in load_sections(engine.knowledge_dir) if x.id == section_id), None)
    if section is None or not section.paragraphs.get(lang):
        return None
    paras = section.paragraphs[lang]
    best = next((p for p in paras if find_any(normalise(p), about)), paras[0])
    return best, section.sources_in(lang)[0]


def _section_answer(engine: Engine, section_id: str, hits: list, lang: str, max_paragraphs: int = 2,
                    text: str = ""):
    from bot.knowledge import load_sections

    passages = [p for p in engine.index.passages if p.section == section_id and p.lang == lang]
    if not passages:
        passages = [h.passage for h in hits]
    by_pos = {p.position: p for p in passages}
    ordered = []
    for h in hits:  # the hit paragraphs, mapped onto the user's language by position
        p = h.passage if h.passage.lang == lang else by_pos.get(h.passage.position)
        if p is not None and p not in ordered:
            ordered.append(p)
    if text and lang == "en":
        # an English question that names no place: a paragraph on using the service from mainland China comes after
        # the others ("can I use Colab free? limits?")
        from bot.slots.lexicon import words
        from bot.slots.text import has_any, normalise

        china = words("slots", "region", "cn")
        if not has_any(normalise(text), china):
            ordered[:max_paragraphs] = sorted(ordered[:max_paragraphs],
                                              key=lambda p: has_any(normalise(p.text[:60]), china))
    asked = _asked_in_paragraph(passages, text)
    if asked is not None and asked not in ordered[:1]:  # the guide asks the user's question itself: that answer first
        ordered = [asked] + [p for p in ordered if p is not asked]
    chosen = ordered[:max_paragraphs] or passages[:1]
    numbers = re.findall(r"(?<![\d.])\d{3,4}(?![\d.])", text)  # a model number or a year the question names
    if numbers and not any(re.search(rf"(?<!\d){n}(?!\d)", chosen[0].text) for n in numbers):
        named = next((p for p in sorted(passages, key=lambda p: p.position)
                      if any(re.search(rf"(?<!\d){n}(?!\d)", p.text) for n in numbers)), None)
        if named is not None:  # "is the 7900 XTX usable?": the paragraph on that card first
            chosen = [named] + [p for p in chosen if p is not named][:max_paragraphs - 1]
    # best match first: "ROCm usable now?" leads with the paragraph on ROCm today, not the 2019 history before it
    title = chosen[0].title  # a passage carries its section's title in its own language
    if chosen[0].lang != lang and not section_id.startswith(("gpu:", "platform:")):
        # (parsing every guide file's front matter costs ~0.1 s of a cold answer: only when the language differs)
        sec = next((x for x in load_sections(engine.knowledge_dir) if x.id == section_id), None)
        title = sec.title[lang] if sec else title
    sources = tuple(Source(x.title, x.url) for x in chosen[0].sources)
    return [_titled_refs(engine, p.text, lang) for p in chosen], sources, title


def _asked_in_paragraph(passages: list, text: str):
    """The paragraph that opens with the user's own question ("Does 4-bit quantisation make a model dumber? A
    little…"): its question shares most of the asked words (English words of 3+ letters, Chinese character pairs)."""
    if not text:
        return None
    from bot.slots.text import to_script

    text = to_script(text, "zh-cn")  # the guide's paragraphs are read in Simplified: "顯存" is "显存"

    def terms(s: str) -> set[str]:
        s = s.lower()
        return set(re.findall(r"[a-z0-9][a-z0-9-]{2,}", s)) | {s[i:i + 2] for i in range(len(s) - 1)
                                                              if re.fullmatch(r"[\u4e00-\u9fff]{2}", s[i:i + 2])}
    asked = terms(text)
    best, best_share = None, 0.0
    for p in passages:
        m = re.match(r"[^?？]{5,120}[?？]", p.text)
        if not m or not asked:
            continue
        share = len(asked & terms(m.group())) / len(asked)
        if share >= 0.5 and share > best_share:
            best, best_share = p, share
    return best


_SECTION_REF = re.compile(r'"([a-z0-9]+(?:-[a-z0-9]+)+)"')


def _titled_refs(engine: Engine, text: str, lang: str) -> str:
    """The guide refers to its other sections by id ('see the section "avoid-list"'): the reader sees their titles."""
    if not _SECTION_REF.search(text):
        return text
    from bot.knowledge import load_sections

    titles = {x.id: x.title[lang] for x in load_sections(engine.knowledge_dir)}
    return _SECTION_REF.sub(lambda m: f"“{titles[m[1]]}”" if m[1] in titles else m.group(), text)


def unknown(lang: str) -> Reply:
    """An honest "I don't know": the question is about GPUs, but my guide has no good answer to it."""
    return Reply("unknown", lang, paragraphs=(_t(
        lang, "I don't have a reliable answer to that in my guide, so I won't guess. I can rank cards for a budget, "
              "compare cards, estimate memory, or point you to rental platforms — for example:",
        "这个问题我的资料里没有可靠的答案，我不想乱猜。我可以按预算推荐显卡、对比显卡、估算显存，或者介绍租卡平台，例如："),),
        bullets=EXAMPLES[lang], suggestions=EXAMPLES[lang][:2])


def out_of_scope(lang: str) -> Reply:
    return Reply("out_of_scope", lang, paragraphs=(_t(
        lang, "I only advise on GPUs for deep learning — which card to buy or rent, memory, speed, prices and cloud "
              "platforms — so I can't help with that one. For example, you could ask:",
        "我只回答深度学习显卡相关的问题（买什么卡、租哪个平台、显存、速度、价格），这个帮不上忙。你可以这样问："),),
        bullets=EXAMPLES[lang], suggestions=EXAMPLES[lang][:2])


def feature_support(engine: Engine, name: str, features, lang: str) -> Reply:
    """'3090 能用FP8吗': yes or no for each feature asked, from the card's compute capability, then why."""
    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    paras = []
    for f in features:
        ok = f.supported_by(g)
        if ok is None and f.listed:
            paras.append(_t(lang, f"I don't have whether the {g.name} has {f.label} on file; {f.no_en}.",
                            f"我没有 {g.name} 是否支持 {f.label} 的记录；{f.no_zh}。"))
        elif ok is not None and not g.compute_capability and not f.listed:
            paras.append(_t(lang, f"{'Yes' if ok else 'No'}: the {g.name}'s hardware {'supports' if ok else 'lacks'} "
                                  f"{f.label}, but it is not an NVIDIA card: whether your framework uses it depends on "
                                  "its own software stack (not CUDA), so check that first.",
                            f"{'支持' if ok else '不支持'}：{g.name} 的硬件{'支持' if ok else '没有'} {f.label}，但它不是 NVIDIA "
                            "的卡，框架能不能用上要看它自己的软件栈（不是 CUDA），请先确认。"))
        elif ok is None:
            paras.append(_t(lang, f"{f.label} on the {g.name}: it is not an NVIDIA card, so this depends on its own "
                                  "software stack, not on CUDA; check that your framework supports it there.",
                            f"{g.name} 上的 {f.label}：它不是 NVIDIA 的卡，能不能用取决于它自己的软件栈而不是 CUDA，请先确认你的框架在上面支持。"))
        elif ok:
            paras.append(_t(lang, f"Yes: the {g.name} supports {f.label} — {f.yes_en}.",
                            f"可以：{g.name} 支持 {f.label}——{f.yes_zh}。"))
        else:
            cc = f" (compute capability {g.compute_capability})" if g.compute_capability else ""
            cc_zh = f"（计算能力 {g.compute_capability}）" if g.compute_capability else ""
            cc, cc_zh = ("", "") if f.listed else (cc, cc_zh)
            paras.append(_t(lang, f"No: the {g.name}{cc} has no {f.label} support — {f.no_en}.",
                            f"不行：{g.name}{cc_zh} 不支持 {f.label}——{f.no_zh}。"))
    sources = tuple(OrderedDict.fromkeys(Source(f.label, f.source) for f in features)) + tuple(
        Source(source_title("specs", lang, name=g.name), u) for u in g.sources[:1])
    return Reply("gpu", lang, title=g.name, paragraphs=tuple(paras), sources=sources, focus=g.name,
                 suggestions=(_t(lang, f"tell me more about the {_short(g)}", f"详细介绍 {_short(g)}"),))


def unreleased(lang: str) -> Reply:
    """Cards that are not out yet: we know what is sold and what its price was, not leaks or release plans."""
    return Reply("unknown", lang, paragraphs=(_t(
        lang, "I don't know: I only know cards that are on sale and prices I can date, not what NVIDIA or AMD will "
              "release or when (leaks and rumours change often). If you are deciding whether to buy now or wait, tell "
              "me your budget and what you will train or run, and I'll show what today's cards give you.",
        "这个我不知道：我只了解已经上市的卡和有日期的价格，不知道 NVIDIA 或 AMD 以后会推出哪些卡、什么时候推出（爆料和传闻变得很快）。"
        "如果你在纠结现在买还是再等等，告诉我预算和要训练或运行什么，我给你看现在的卡能做到什么。"),),
        suggestions=EXAMPLES[lang][:2])


def _listed(names: tuple[str, ...] | list[str], lang: str) -> str:
    return "、".join(names) if lang == "zh" else ", ".join(names)


def unknown_products(names: tuple[str, ...], nearest: dict[str, list[str]], lang: str) -> Reply:
    """Hardware I have no data on ('RTX 9090', 'DGX Spark'): said plainly, with the cards of its family or line that I
    do know, and never answered with another card's figures. A family name ('Jetson Orin') is asked about."""
    paras, suggestions = [], []
    for name in names:
        near = nearest.get(name, [])
        family = bool(near) and all(all(w in n.lower().split() for w in name.lower().split()) for n in near)
        if family:
            paras.append(_t(lang, f"\"{name}\" covers several models; which one do you mean? I have specs (no prices or "
                                  f"measured speeds) for: {_listed(near, lang)}.",
                            f"“{name}”有好几个型号，你指的是哪一款？我有这些型号的规格（没有价格和实测速度）：{_listed(near, lang)}。"))
        else:
            paras.append(_t(lang, f"I have no data on the {name}: it is neither in my curated catalog nor in the TechPowerUp "
                                  "database I take other cards' specs from, so it may be unreleased, a rumour, a name I "
                                  "don't know, or a typo. I won't guess its specs or price.",
                            f"我没有 {name} 的数据：精选显卡表和 TechPowerUp 规格库里都没有，可能还没发布、只是传闻、是我不认识的叫法，"
                            "或者是笔误。我不会去猜它的规格和价格。"))
            if near:
                paras.append(_t(lang, f"The nearest I do know: {_listed(near, lang)}.",
                                f"我有数据的、最接近的型号：{_listed(near, lang)}。"))
        suggestions += [_t(lang, f"tell me about the {n}", f"介绍一下 {n}") for n in near[:2]]
    paras.append(_t(lang, "Or tell me your budget and what you'll run, and I'll rank the cards I have data on.",
                    "也可以告诉我预算和用途，我按有数据的卡给你排。"))
    return Reply("unknown", lang, paragraphs=tuple(paras), suggestions=tuple(suggestions[:3]) or EXAMPLES[lang][:2])


def unknown_products_note(names: tuple[str, ...], lang: str) -> str:
    """Said above an answer about the other cards of a message that also names hardware I have no data on."""
    listed = _listed(names, lang)
    return _t(lang, f"I have no data on the {listed} (neither in my catalog nor in the spec database), so the answer "
                    "below covers only what I do know.",
              f"我没有 {listed} 的数据（精选表和规格库里都没有），下面只回答我有数据的部分。")


def small_talk(text: str, lang: str, has_picks: bool) -> Reply:
    """Hello, thanks, bye: answered as a person would, with a nudge towards what I can do."""
    from bot.slots.lexicon import words
    from bot.slots.text import has_any, normalise

    t = normalise(text)
    if has_any(t, words("slots", "cues", "thanks")):
        para = _t(lang, "You're welcome! Ask a follow-up any time: \"cheaper?\", \"compare the first two\", "
                        "\"where can I rent it?\".", "不客气！随时可以接着问：“便宜点的呢？”“对比一下前两个”“去哪租？”") \
            if has_picks else _t(lang, "You're welcome! Tell me your budget and what you'll run when you're ready.",
                                  "不客气！准备好了就告诉我预算和用途。")
    elif has_any(t, words("slots", "cues", "bye")):
        para = _t(lang, "Bye, and good luck with the build!", "再见，装机顺利！")
    elif has_picks:
        para = _t(lang, "Sure. Want to refine the picks? Try \"cheaper?\", \"more memory?\" or \"why?\".",
                  "好的。要调整推荐吗？可以说“便宜点的呢？”“显存大一点的？”或“为什么？”。")
    else:
        para = _t(lang, "Hi! I help you choose a GPU to buy or rent for deep learning. Tell me your budget and what "
                        "you'll use it for, for example:", "你好！我帮你挑选深度学习用的显卡（买或租）。告诉我预算和用途，例如：")
    return Reply("greeting", lang, paragraphs=(para,), bullets=() if has_picks else EXAMPLES[lang][:3],
                 suggestions=EXAMPLES[lang][:2])


def choice_made(engine: Engine, r: Ranking | None, name: str, count: int, lang: str) -> Reply:
    """"I'll go with the first one, thanks", "那就第一个吧": the card chosen, what it cost as shown, the checks before
    paying, and the follow-ups that help next (not its spec sheet again)."""
    g = engine.catalog.get(name)
    c = candidate_for(engine.catalog, r, name, engine.knowledge_dir) if r is not None else None
    setup = f"{count}× {name}" if count > 1 else name
    bits = []
    if c is not None:
        used = _t(lang, " used", "二手") if c.price.market == "used" else ""
        bits.append(_t(lang, f"{money(c.price.amount * count, c.price.currency)}{used} ({c.price.on:%Y-%m})",
                       f"{used}{money(c.price.amount * count, c.price.currency)}（{c.price.on:%Y-%m}）"))
    if g is not None:
        bits.append(_t(lang, f"{g.vram_gb * count:g} GB", f"{g.vram_gb * count:g} GB 显存"))
    what = _t(lang, f" — {', '.join(bits)}", f"——{'，'.join(bits)}") if bits else ""
    paras = [_t(lang, f"Good choice: {setup}{what}.", f"好选择：{setup}{what}。")]
    checks = []
    if g is not None and g.tdp_w:
        watts = psu_for(g.tdp_w, count)
        checks.append(_t(lang, f"it draws about {g.tdp_w * count:.0f} W, so plan a ~{watts} W PSU",
                         f"功耗约 {g.tdp_w * count:.0f} W，电源按 ~{watts} W 准备"))
    if c is not None and c.price.market == "used":
        checks.append(_t(lang, "test a used card under load before paying and ask about its history and warranty",
                         "二手卡付款前先满载测试，问清来历和保修"))
    if checks:
        paras.append(_t(lang, "Before you buy: " + "; ".join(checks) + ".", "买之前：" + "；".join(checks) + "。"))
    asks = [_t(lang, "where can I buy it?", "哪里买？"), _t(lang, "what PSU do I need?", "要多大电源？"),
            _t(lang, "how fast is it?", "速度怎么样？")]
    return Reply("greeting", lang, title=setup, paragraphs=tuple(paras), suggestions=tuple(asks), focus=name)


def setup_price(engine: Engine, r: Ranking, name: str, count: int, lang: str) -> str | None:
    """"2× GeForce RTX 3090: about $1,900 for the cards ($950 each, used, 2026-06); plan a ~1000 W PSU": what a
    setup of several cards costs as the ranking priced it, and the PSU it needs (the rest of the PC is the user's)."""
    from bot.scorer import candidate_for

    c = candidate_for(engine.catalog, r, name, engine.knowledge_dir)
    if c is None:
        return None
    used = _t(lang, ", used", "，二手") if c.price.market == "used" else ""
    psu = _t(lang, f"; plan a ~{psu_for(c.gpu.tdp_w, count)} W PSU", f"；电源按 ~{psu_for(c.gpu.tdp_w, count)} W 准备") \
        if c.gpu.tdp_w else ""
    return _t(lang, f"{count}× {name}: about {money(c.price.amount * count, c.price.currency)} for the cards "
                    f"({money(c.price.amount, c.price.currency)} each{used}, {c.price.on:%Y-%m}){psu}, plus the rest "
                    "of a PC that takes them.",
              f"{count}× {name}：显卡约 {money(c.price.amount * count, c.price.currency)}（每张 "
              f"{money(c.price.amount, c.price.currency)}{used}，价格日期 {c.price.on:%Y-%m}）{psu}，再加上能装下它们的整机其他部分。")


def budget_for_setup(engine: Engine, need: Need, name: str, count: int, lang: str) -> Reply | None:
    """"想组个4卡3090服务器，预算3万够吗": what the cards of that setup cost where the user buys (used where that is
    how they are sold), against the budget for the whole machine and the cards' usual share of it."""
    from bot.perf import load_perf_model
    from bot.scorer import whole_pc_share

    g = engine.catalog.get(name)
    on = need.as_of or engine.today or date.today()
    cur, budget = stated_pricing(replace(need, whole_pc=None), engine.catalog, on, lang)
    price = price_for(g, cur, True, on, engine.catalog) if g is not None else None
    if price is None or budget is None:
        return None
    cards = price.amount * count
    share = whole_pc_share(replace(need, gpu_count=count), load_perf_model(engine.knowledge_dir))
    each = f"{money(price.amount, cur)}{_market_word(price, lang)}"
    setup = f"{count}× {name}"
    rest = money(max(budget.amount - cards, 0), cur)
    pct = 100 * cards / budget.amount
    if cards <= share * budget.amount:
        lead = _t(lang, f"Yes: {setup} costs about {money(cards, cur)} ({each} each, {_seen(price, lang)}), {pct:.0f}% "
                        f"of {budget}, which leaves {rest} for the board, CPU, RAM, power supply and case.",
                  f"够：{setup} 约 {money(cards, cur)}（每张 {each}，{_seen(price, lang)}），占 {budget} 的 {pct:.0f}%，"
                  f"剩下 {rest} 给主板、CPU、内存、电源和机箱。")
    elif cards <= budget.amount:
        lead = _t(lang, f"Tight: {setup} alone costs about {money(cards, cur)} ({each} each, {_seen(price, lang)}), "
                        f"{pct:.0f}% of {budget}; the {rest} left is little for a platform that takes {count} cards "
                        f"(the cards are usually about {share:.0%} of such a machine).",
                  f"偏紧：光 {setup} 就约 {money(cards, cur)}（每张 {each}，{_seen(price, lang)}），占 {budget} 的 "
                  f"{pct:.0f}%；剩下的 {rest} 很难配齐能插 {count} 张卡的平台（这类机器显卡一般占 {share:.0%} 左右）。")
    else:
        lead = _t(lang, f"No: {setup} alone costs about {money(cards, cur)} ({each} each, {_seen(price, lang)}), over "
                        f"{budget}.",
                  f"不够：光 {setup} 就约 {money(cards, cur)}（每张 {each}，{_seen(price, lang)}），超过 {budget}。")
    psu = _t(lang, f"Plan a ~{psu_for(g.tdp_w, count)} W power supply for the cards and the rest.",
             f"电源按 ~{psu_for(g.tdp_w, count)} W 准备。") if g.tdp_w else ""
    return Reply("gpu", lang, title=_t(lang, f"{setup} within {budget}?", f"{budget} 配 {setup} 够吗？"),
                 paragraphs=tuple(p for p in (lead, psu) if p), focus=name, focus_count=count,
                 sources=tuple(Source(source_title("specs_price", lang, name=name), u)
                               for u in ([price.source] if price.source else [g.source_url]) if u))


def ask_which_to_compare(lang: str, names: list[str]) -> Reply:
    have = f" {names[0]}" if names else ""
    return Reply("compare", lang, paragraphs=(_t(
        lang, f"Which cards should I compare{have + ' with' if have else ''}? Name two, e.g. \"3090 vs 4090\".",
        f"要对比哪几张卡？{('和' + have.strip() + '比，') if have else ''}说出两张，例如“3090 和 4090 对比”。"),))


LLM_SIZED_B = 1.0  # a model this many billion parameters or more, trained: an LLM's ways to train apply


def _trains_an_llm(need: Need) -> bool:
    """"train a 70B", "从头训练1b" (training, no method named): full training, LoRA and QLoRA all apply."""
    return need.workload == "transformer" and not need.finetune_method and (need.model_size_b or 0) >= LLM_SIZED_B


_FULL_TRAINING = Text("full training (all weights)", "全参训练")
_METHOD_LABEL = {"full": Text("full fine-tune", "全参微调"), "lora": Text("LoRA", "LoRA"), "qlora": Text("QLoRA", "QLoRA")}


def _pretrains(need: Need) -> bool:
    """"train a 7B from scratch on 1T tokens": an LLM-sized model trained on a number of tokens, not fine-tuned."""
    return need.workload == "transformer" and bool(need.train_tokens) and need.finetune_method in (None, "full") and \
        (need.model_size_b or 0) >= LLM_SIZED_B


def _method_label(method: str, need: Need) -> Text:
    """"full fine-tune", or "full training" when the model is trained from scratch ("pretrain a 1B on 10B tokens")."""
    return _FULL_TRAINING if method == "full" and (_trains_an_llm(need) or _pretrains(need)) else _METHOD_LABEL[method]


def _model_memory_rows(engine: Engine, need: Need, lang: str) -> list[tuple[str, int | None, float]]:
    """(label, bits, GB) for the ways to run or train the need's model, lightest last."""
    from bot.vram import estimate

    size = need.model_size_b
    # "train a 70B" weighs all three ways, full training first; "fine-tune" the light two
    trains_an_llm = _trains_an_llm(need)
    if need.workload == "llm_finetune" or need.finetune_method or trains_an_llm:
        methods = [need.finetune_method] if need.finetune_method else \
            ["full", "lora", "qlora"] if trains_an_llm else ["lora", "qlora"]
        out = []
        for m in methods:
            e = estimate(size, m, need.precision_bits, engine.knowledge_dir)
            label = _FULL_TRAINING if m == "full" and trains_an_llm else _METHOD_LABEL[m]
            out.append((label.get(lang), e.precision_bits, e.total_gb))
        return out
    bits_list = [need.precision_bits] if need.precision_bits else [16, 8, 4]
    return [(f"{b}-bit", b, estimate(size, "inference", b, engine.knowledge_dir).total_gb) for b in bits_list]


def family_note(engine: Engine, family: str, have_gb: float, lang: str) -> Text | None:
    """"跑deepseek" with no size: which of the family's models the top pick's memory holds at 4-bit, and what the
    largest one needs (DeepSeek's full 671B is a server, its distilled models run on one card)."""
    from bot.models import load_models
    from bot.vram import estimate

    members = sorted({m.params_b: m for m in load_models(engine.knowledge_dir).models
                      if m.family == family and m.kind == "llm" and m.params_b}.values(), key=lambda m: m.params_b)
    if len(members) < 2:
        return None
    gb = {m.name: estimate(m.params_b, "inference", 4, engine.knowledge_dir).total_gb for m in members}
    fits = [m for m in members if gb[m.name] <= have_gb]
    largest = members[-1]
    if not fits or largest in fits:
        return None
    best = fits[-1]
    return Text(f"{family.capitalize()} comes in several sizes: with {have_gb:g} GB the largest that runs at 4-bit is "
                f"{best.name} (~{gb[best.name]:g} GB); {largest.name} needs ~{gb[largest.name]:,.0f} GB even at 4-bit, "
                "a multi-GPU server rather than a card. Name the size to size the picks for it.",
                f"{family.capitalize()} 有好几个尺寸：{have_gb:g} GB 显存按 4 位能跑的最大是 {best.name}（约 {gb[best.name]:g} GB）；"
                f"{largest.name} 即使 4 位也要约 {gb[largest.name]:,.0f} GB，是多卡服务器的活，不是一张卡能装下的。"
                "说出具体尺寸，我按它来选卡。")


def training_setups_verdict(engine: Engine, setups: list[tuple[str, int]], need: Need, lang: str) -> str | None:
    """Which setup trains the model with the heavier (better) method: "2× 3090 holds LoRA, the 4090 only QLoRA".
    None when every setup holds the same method."""
    rows = _model_memory_rows(engine, need, lang)  # heaviest first
    held = []
    for name, count in setups:
        g = engine.catalog.get(name)
        have = g.vram_gb * count if g else 0
        held.append(next((i for i, r in enumerate(rows) if r[2] <= have), None))
    if len(set(held)) < 2 or all(h is None for h in held):
        return None
    best = min((i for i, h in enumerate(held) if h is not None), key=lambda i: held[i])
    name, count = setups[best]
    label, _, gb = rows[held[best]]
    setup = f"{count}× {name}" if count > 1 else name
    lighter = [rows[h][0] for h in held if h is not None and h != held[best]]
    rest = _t(lang, f"the other setup holds only {lighter[0]}" if lighter else "the other setup holds no method",
              f"另一套只能用 {lighter[0]}" if lighter else "另一套哪种方法都装不下")
    return _t(lang, f"Verdict: {setup} — it holds {label} (~{gb:g} GB), {rest}: memory decides "
                    "how you can train. If the lighter method is enough for you, one faster card is simpler.",
              f"结论：{setup}——它装得下 {label}（约 {gb:g} GB），{rest}：能用哪种方法训练由显存决定。如果轻量方法就够用，"
              "一张更快的单卡更省事。")


_SMALL_EN = ("Small models still train with small batches, mixed precision (FP16) and gradient checkpointing; bigger "
             "ones will not fit.")
_SMALL_ZH = "小模型用小 batch、混合精度（FP16）和梯度检查点还能训练；大一点的模型就装不下了。"
# a card whose FP16 runs at a fraction of FP32 (Pascal GeForce): mixed precision gains nothing on it
_SMALL_FP32_EN = ("Small models still train in FP32 with small batches and gradient checkpointing (it has no tensor "
                  "cores and runs FP16 slowly, so mixed precision gains nothing); bigger ones will not fit.")
_SMALL_FP32_ZH = "小模型用 FP32、小 batch 和梯度检查点还能训练（它没有张量核心，FP16 很慢，混合精度没有收益）；大一点的模型就装不下了。"
# A memory verdict by tier, said of a setup ("the 4060 Laptop has 8 GB") or of the memory itself ("is 8 GB enough?")
_TIER_TEXT = {
    ("comfortable", True): ("Yes: {setup} has {have} GB, comfortable for {en} ({hi} GB is comfortable, {lo} GB the "
                            "minimum).", "够用：{setup} 有 {have} GB 显存，做{zh}比较从容（从容需 {hi} GB，最低 {lo} GB）。"),
    ("comfortable", False): ("Yes: {have} GB is comfortable for {en} ({lo} GB is the minimum, {hi} GB comfortable).",
                             "够用：{have} GB 做{zh}比较从容（最低 {lo} GB，{hi} GB 就从容）。"),
    ("tight", True): ("Yes, but tight: {setup} has {have} GB; {en} needs {lo} GB and {hi} GB is comfortable.",
                      "能用但偏紧：{setup} 有 {have} GB；{zh}最少要 {lo} GB，{hi} GB 才从容。"),
    ("tight", False): ("Yes, but tight: {have} GB meets the {lo} GB minimum for {en}; {hi} GB is comfortable.",
                       "能用但偏紧：{have} GB 达到{zh}的最低要求（{lo} GB），{hi} GB 才从容。"),
    ("small", True): ("Only for small models: {setup} has {have} GB, under the {lo} GB that {en} usually needs. "
                      + _SMALL_EN, "只适合小模型：{setup} 有 {have} GB，低于{zh}通常需要的 {lo} GB。" + _SMALL_ZH),
    ("small", False): ("Only for small models: {have} GB is under the {lo} GB that {en} usually needs. " + _SMALL_EN,
                       "只适合小模型：{have} GB 低于{zh}通常需要的 {lo} GB。" + _SMALL_ZH),
    ("no", True): ("No: {setup} has {have} GB, below the {lo} GB that {en} needs.",
                   "不够：{setup} 只有 {have} GB，{zh}至少要 {lo} GB。"),
    ("no", False): ("No: {have} GB is below the {lo} GB that {en} needs.", "不够：{have} GB 低于{zh}至少需要的 {lo} GB。"),
}


def workload_verdict(spec, setup: str | None, have: float, lang: str, fp32_only: bool = False) -> str:
    """Is this much memory enough for the workload: comfortable, tight, or not enough (the guide's memory tiers).
    `setup` None: the memory itself is the subject ("is 8 GB enough?"); `fp32_only`: a card whose FP16 is slow (no
    mixed precision advised)."""
    lo, hi = spec.min_vram_gb, spec.comfortable_vram_gb
    # under the minimum is a rule of thumb, not a wall: small models (a YOLO nano, BERT-base) still train
    tier = "comfortable" if have >= hi else "tight" if have >= lo else \
        "small" if spec.small_models_fit and have >= SMALL_MODELS_SHARE * lo else "no"
    en, zh = _TIER_TEXT[(tier, setup is not None)]
    if fp32_only:
        en, zh = en.replace(_SMALL_EN, _SMALL_FP32_EN), zh.replace(_SMALL_ZH, _SMALL_FP32_ZH)
    values = {"setup": setup, "have": f"{have:g}", "lo": f"{lo:g}", "hi": f"{hi:g}", "en": spec.label.en,
              "zh": spec.label.zh}
    return _t(lang, en.format(**values), zh.format(**values))


_MEMORY_SUFFIX = re.compile(r"\s*\d+\s*GB$")


def _roomier_twin_note(engine: Engine, g, spec, lang: str) -> str:
    """" (Its 16 GB version, GeForce RTX 4060 Ti 16GB, is comfortable for this.)": when the card is short of the job's
    comfortable memory and the same card is sold with more ("4060ti" names the 8 GB one; buyers for AI mean the 16)."""
    lo, hi = spec.min_vram_gb, spec.comfortable_vram_gb
    if g.vram_gb >= hi:
        return ""
    stem = _MEMORY_SUFFIX.sub("", g.name)
    twins = [c for c in engine.catalog if c.name != g.name and _MEMORY_SUFFIX.sub("", c.name) == stem and
             c.vram_gb > g.vram_gb and c.vendor == g.vendor]
    twin = max(twins, key=lambda c: c.vram_gb, default=None)
    if twin is None or twin.vram_gb < lo:
        return ""
    word = _t(lang, "comfortable", "比较从容") if twin.vram_gb >= hi else _t(lang, "enough", "够用")
    return _t(lang, f" (Its {twin.vram_gb:g} GB version, {twin.name}, is {word} for this.)",
              f"（同一颗芯片的 {twin.vram_gb:g} GB 版 {twin.name} 做这个{word}。）")


_MODEL_KIND_OF_WORKLOAD = {"diffusion": "image", "video": "video"}  # the models.csv kind a job's models are
_WORKLOAD_OF_MODEL_KIND = {kind: job for job, kind in _MODEL_KIND_OF_WORKLOAD.items()}


def gpu_card_for(engine: Engine, need: Need, name: str, lang: str) -> Reply:
    """A card's sheet; when the conversation has a job, led by whether the card's memory suits it ("is the 4060 Ti
    16GB good for deep learning?", "4060ti 16g 值得买吗 跑ai")."""
    card = gpu_card(engine, need, name, lang)
    g = engine.catalog.get(name)
    if g is None or not need.workloads or need.model_size_b:
        return card
    spec = workload_spec(engine.knowledge_dir, need.workload, need.as_of or engine.today or date.today())
    lead = workload_verdict(spec, g.name, g.vram_gb, lang, fp32_only=g.crippled_fp16) + \
        _roomier_twin_note(engine, g, spec, lang)
    caveat = (spec.caveat.get(lang),) if spec.caveat and spec.name != "general" else ()  # "general" explains a pick
    return replace(card, paragraphs=(lead,) + card.paragraphs + caveat)


def setup_sheet(engine: Engine, need: Need, name: str, count: int, lang: str) -> Reply:
    """"两张3090呢" after a card: that many of it as one machine, before the card's sheet: memory per card and in all
    (and when it adds up), what the set costs, whether the cards join with NVLink, and the PSU."""
    from bot.features import load_features

    card = gpu_card_for(engine, need, name, lang)
    g = engine.catalog.get(name)
    if g is None or count < 2:
        return card
    new, used = _current_price(engine, need, g, lang)
    price = new or used
    cost = _t(lang, f" about {money(price.amount * count, price.currency)}{' used' if price is used else ''} "
                    f"({count} × {money(price.amount, price.currency)}, {_seen(price, 'en')});",
              f"{'二手' if price is used else ''}约 {money(price.amount * count, price.currency)}（{count} × "
              f"{money(price.amount, price.currency)}，{_seen(price, 'zh')}）；") if price else ""
    lead = _t(lang, f"{count}× {g.name}:{cost} {g.vram_gb * count:g} GB in all, {g.vram_gb:g} GB per card. Memory adds "
                    "up only when the job splits across the cards (an LLM by layers, sharded training with ZeRO/FSDP); "
                    "plain data-parallel training keeps a whole copy of the model on each card and runs up to about "
                    f"{count}× as fast.",
              f"{count} 张 {g.name}：{cost}共 {g.vram_gb * count:g} GB，每张 {g.vram_gb:g} GB。只有任务能拆到多张卡上时显存"
              f"才相加（大模型按层切分、ZeRO/FSDP 分片训练）；普通的数据并行训练每张卡各放一份完整模型，速度最多约 {count} 倍。")
    nvlink = next((f for f in load_features(engine.knowledge_dir) if f.name == "nvlink"), None)
    joined = nvlink.supported_by(g) if nvlink is not None else None
    link = "" if joined is None else (_t(lang, f" NVLink: {nvlink.yes_en}.", f"NVLink：{nvlink.yes_zh}。") if joined else
                                      _t(lang, f" NVLink: {nvlink.no_en}.", f"NVLink：{nvlink.no_zh}。"))
    psu = power(engine, name, count, need.psu_w, lang)
    paras = (lead + link,) + (psu.paragraphs if psu.intent == "power" else ())
    return replace(card, title=_t(lang, f"{count}× {g.name}", f"{count} 张 {g.name}"),
                   paragraphs=paras + card.paragraphs, focus=g.name, focus_count=count)


def worth_it(engine: Engine, need: Need, name: str, lang: str, offered: Budget | None = None,
             offered_used: bool = False, owned: bool = False, memory_gb: float | None = None) -> Reply:
    """"4060 Ti 16GB 值得买吗", "is a used 3080 still worth it?": the card's sheet led by a verdict on what its price
    buys, against every card the same money buys for the job (the conversation's, else general deep learning).
    `offered`: the price the user was offered ("a used 3090 at $700", "闲鱼800块的P40"): weighed instead of the
    catalog's, after how it compares with the catalog's price in the same market."""
    from bot.scorer import rank

    card = gpu_card_for(engine, need, name, lang)
    g = engine.catalog.get(name)
    if g is None:
        return card
    modded = bool(memory_gb and memory_gb != g.vram_gb and offered is not None)
    if modded:
        # "3080 20G魔改 2500块": the card as sold, with its modded memory, against what the same money buys
        g = replace(g, vram_gb=memory_gb)
        card = replace(card, paragraphs=(_t(lang, f"Judged as a memory-modded {name} with {memory_gb:g} GB (an "
                                                  "unofficial mod: no warranty).",
                                            f"按 {memory_gb:g} GB 显存的魔改 {name} 来判断（非官方改装，没有保修）。"),)
                       + card.paragraphs)
    # an offer is checked against the price list of its own currency's market (NT$ and HK$ against the USD list)
    new, used = _current_price(engine, replace(need, budget=offered) if offered else need, g, lang)
    price = new or used
    if offered is not None:
        # no longer sold new: an offer now is a used card
        market = "used" if offered_used or (new is None and used is not None) else "new"
        offered = Price(offered.amount, offered.currency, need.as_of or engine.today or date.today(), market)
        # (a memory-modded card's price is not the stock card's: none to check it against)
        known = None if modded else (used or new) if offered.market == "used" else (new or used)
        card = replace(card, paragraphs=(_offer_against_data(engine, g, offered, known, lang),) + card.paragraphs)
        price = offered
    if price is None and g.reference:
        return card  # a card outside the catalog: its sheet already says it has no price here
    if price is None and offered is None and (sold := _sold_instead(engine, need, g, lang)) is not None:
        return _worth_of_the_card_sold_instead(engine, need, g, sold, lang)  # "5090值得买吗" in mainland China
    if price is None:  # what can be said (memory for the job) first, then why the price verdict is missing
        there = price_elsewhere(g, price_list_currency(need, lang), need.as_of or engine.today or date.today(),
                                engine.catalog)
        # (not for a card the user has: "our old Quadro at work, still good?" is not a purchase)
        successor = None if there or owned else _sold_in_its_place(engine, need, g, lang)
        if successor is not None:  # "4060 Ti 16GB 值得买吗", off the shelves: the card sold now that does its job
            return replace(card, paragraphs=(successor,) + card.paragraphs)
        note = _t(lang, f"{g.name} is {there.text().en}: I don't weigh it against what the same money buys where you "
                        "buy.",
                  f"{g.name} 在{there.text().zh}：不拿它和你那里同样的钱能买到的卡比。") if there else \
            _t(lang, f"I have no current price for {g.name}, so I can't say whether it is worth it against what the "
                     "same money buys today.",
               f"我没有 {g.name} 的当前价格，没法判断同样的钱花在它身上值不值。")
        return replace(card, paragraphs=card.paragraphs[:1] + (note,) + card.paragraphs[1:])
    job = replace(need, budget=Budget(price.amount, price.currency), used=True if price.market == "used" else None,
                  gpu_count=None, min_perf=None, vendor=None, min_vram_gb=None, psu_w=None, max_power_w=None,
                  also_vendor=g.vendor)  # "7900xtx值得吗": an AMD card weighed beside what the default vendors offer
    r = rank(engine.catalog, job, engine.knowledge_dir, need.as_of or engine.today, lang=lang)
    mine = next((c for c in r.candidates if c.gpu.name == g.name and c.count == 1), None)
    if offered is not None and r.budget is not None and g.vram_gb >= r.required_vram_gb and \
            not (g.crippled_fp16 and r.workload.trains):
        # at the price offered, whatever the catalog's price: the card against what the same money buys
        perf = setup_perf(engine.catalog, r, g, engine.knowledge_dir)  # the job ranks single cards: r.count is 1
        mine = Candidate(g, Price(r.budget.amount, r.currency, price.on, price.market), 1, perf,
                         r.budget.amount) if perf else None
    what = r.workload.label.get(lang)
    paid = money(price.amount, price.currency) + _market_word(price, lang)
    if mine is None:
        if g.vram_gb < r.required_vram_gb:
            lead = _t(lang, f"Not for {what}: {g.name} has {g.vram_gb:g} GB, less than this job needs "
                            f"({r.required_vram_gb:g} GB).",
                      f"做{what}不值：{g.name} 只有 {g.vram_gb:g} GB 显存，少于这个任务需要的 {r.required_vram_gb:g} GB。")
        elif g.crippled_fp16 and r.workload.trains:
            lead = _t(lang, f"Not for {what}: {g.name} runs FP16 at a small fraction of its FP32 rate, so mixed-precision "
                            "training gains nothing on it; it is a card for running LLMs on a budget, if anything.",
                      f"做{what}不值：{g.name} 的 FP16 速度只有 FP32 的零头，混合精度训练在它上面没有收益；"
                      "它顶多适合低预算跑大模型推理。")
        elif offered is None and (sold := _sold_instead(engine, need, g, lang)) is not None:
            return _worth_of_the_card_sold_instead(engine, need, g, sold, lang)  # an old price, no longer sold there
        else:
            lead = _t(lang, f"I can't weigh {g.name} for {what} against other cards (it is not sold where you buy, or "
                            "its specs are incomplete); its sheet is below.",
                      f"没法把 {g.name} 和其他卡放在一起比{what}（你那里不卖，或者规格不全）；下面是它的规格。")
        return replace(card, paragraphs=(card.paragraphs[:1] + (lead,) + card.paragraphs[1:]) if offered else
                   (lead,) + card.paragraphs)  # an offer: first whether its price is fair
    better = [c for c in r.candidates if c.count == 1 and c.perf > mine.perf * 1.05 and c.total <= mine.total]
    if not better and offered is not None:  # whether the offer is fair is said first, so no "yes" here
        lead = _t(lang, f"At {paid}, nothing faster for {what} costs the same or less.",
                  f"{paid} 这个价位，做{what}没有同价或更便宜却更快的卡。")
    elif not better:
        lead = _t(lang, f"Yes, at {paid} ({_seen(price, lang)}): nothing faster for {what} costs the same or less.",
                  f"值：{paid}（{_seen(price, lang)}）这个价位，做{what}没有同价或更便宜却更快的卡。")
        # the fastest card is trivially "worth it": what most of its speed costs says whether the asker needs it
        near = [c for c in r.candidates if c.count == 1 and c.gpu.name != g.name and c.total < 0.8 * mine.total and
                c.perf >= NEARLY_AS_FAST * mine.perf and c.gpu.vram_gb >= r.required_vram_gb]
        if near:
            c = min(near, key=lambda c: c.total)
            lead += _t(lang, f" If {100 * c.perf / mine.perf:.0f}% of the {g.name}'s speed and {c.gpu.vram_gb:g} GB "
                             f"(against {g.vram_gb:g}) will do, {c.gpu.name} costs {c.price} ({_seen(c.price, lang)}).",
                       f"如果 {g.name} {100 * c.perf / mine.perf:.0f}% 的速度、{c.gpu.vram_gb:g} GB 显存（它是 {g.vram_gb:g} GB）"
                       f"就够用，{c.gpu.name} 只要 {c.price}（{_seen(c.price, lang)}）。")
    else:
        b = max(better, key=lambda c: c.perf)
        memory = _t(lang, f", though it has {b.gpu.vram_gb:g} GB against {g.vram_gb:g} GB",
                    f"，不过显存是 {b.gpu.vram_gb:g} GB 对 {g.vram_gb:g} GB") if b.gpu.vram_gb < g.vram_gb else ""
        b_paid = f"{b.price}" + _market_word(b.price, lang)
        lead = _t(lang, f"Not the best buy for {what}: at {paid} ({_seen(price, lang)}), {b.gpu.name} ({b_paid}) is about "
                        f"{100 * (b.perf / mine.perf - 1):.0f}% faster{memory}.",
                  f"做{what}不算最划算：{paid}（{_seen(price, lang)}）的价位，{b.gpu.name}（{b_paid}）快约 "
                  f"{100 * (b.perf / mine.perf - 1):.0f}%{memory}。")
    return replace(card, paragraphs=(card.paragraphs[:1] + (lead,) + card.paragraphs[1:]) if offered else
                   (lead,) + card.paragraphs)  # an offer: first whether its price is fair


OFFER_FAIR_BAND = 0.15  # an offer within this share of the catalog's price in the same market is "about the going rate"
OFFER_SUSPICIOUS_SHARE = 0.5  # an offer under half the going price: too good to be an honest sale


def _offer_against_data(engine: Engine, g: GPU, offered: Price, known: Price | None, lang: str) -> str:
    """How a price someone was offered compares with the catalog's dated price of the same card in the same market."""
    said = money(offered.amount, offered.currency)
    if known is None:
        kind = _t(lang, "used ", "二手") if offered.market == "used" else ""
        return _t(lang, f"I have no current {kind}price of {g.name} to check {said} against.",
                  f"我没有 {g.name} 当前的{kind}价格，没法核对 {said} 这个价。")
    kind = _t(lang, "used ", "二手") if known.market == "used" else _t(lang, "new ", "新卡")
    mine = engine.catalog.fx.convert(known.amount, known.currency, offered.currency, known.on) \
        if known.currency != offered.currency else known.amount
    ratio = offered.amount / mine
    ref = money(mine, offered.currency)
    src = f"{known.on:%Y-%m}"
    if ratio < OFFER_SUSPICIOUS_SHARE:
        return _t(lang, f"{said} is {100 * (1 - ratio):.0f}% below the {kind}price in my data ({ref}, {src}): too low "
                        "to be a working card sold honestly — expect a scam, a dead or repaired card, or a different "
                        "model; pay only through a platform with buyer protection, after seeing it run.",
                  f"{said} 比我数据里的{kind}价（{ref}，{src}）低 {100 * (1 - ratio):.0f}%：低得不正常——多半是骗局、坏卡修过、"
                  "或者根本不是这个型号；只走有担保的平台，亲眼看到它跑起来再付款。")
    if ratio < 1 - OFFER_FAIR_BAND:
        return _t(lang, f"{said} is {100 * (1 - ratio):.0f}% below the {kind}price in my data ({ref}, {src}): a good "
                        "price if the card checks out — test it before paying (a full-load run, memory temperatures, "
                        "fans), and be wary of a price far below the market.",
                  f"{said} 比我数据里的{kind}价（{ref}，{src}）低 {100 * (1 - ratio):.0f}%：卡没问题的话是好价钱——付款前实测"
                  "（满载跑一段、看显存温度和风扇），价格低得离谱要当心。")
    if ratio > 1 + OFFER_FAIR_BAND:
        return _t(lang, f"{said} is {100 * (ratio - 1):.0f}% above the {kind}price in my data ({ref}, {src}): "
                        "negotiate, or look for another offer.",
                  f"{said} 比我数据里的{kind}价（{ref}，{src}）高 {100 * (ratio - 1):.0f}%：可以砍价，或者再看看别家。")
    return _t(lang, f"{said} is about the going {kind}price in my data ({ref}, {src}).",
              f"{said} 和我数据里的{kind}价（{ref}，{src}）差不多，属于正常价位。")


MOST_CARDS_IN_A_SERVER = 8  # a model that takes more cards than this takes more than one machine
SETUPS_SAME_SPEED = 1.1  # setups within 10% of each other on a model are "about as fast": memory or price decides


def compare_setups(engine: Engine, setups: list[tuple[str, int]], need: Need, lang: str) -> Reply:
    """Setups against one LLM ("2x3090 vs an M3 Ultra for 70B", "两张3090还是一张4090跑70B"): for each, whether it holds
    the model, in what format, how fast, and at what price; the verdict names the faster one that holds it."""
    from bot.fit import fit as estimate_fit
    from bot.fit import quant_for
    from bot.models import load_models

    model = _model_of(engine, need)
    if serving_users(need, engine.knowledge_dir) > 1 and model is not None and model.kind == "llm":
        return _compare_serving_setups(engine, setups, need, lang)
    table = load_models(engine.knowledge_dir)
    quant = quant_for(engine.knowledge_dir, need.quant, need.precision_bits)
    on = need.as_of or engine.today or date.today()
    currency, _ = pricing(need, engine.catalog, on, lang)
    rows, results = [], []
    from bot.fit import default_quant

    # one format for every setup (the asked one, else the usual one): "faster" at Q2 against Q4 would mislead
    common = quant or default_quant(model, engine.knowledge_dir, table)
    grown, too_many = [], []
    first = [estimate_fit(engine.catalog.get(name), model, engine.knowledge_dir, n, common, need.context_tokens,
                          need.kv_cache_bits) for name, n in setups]
    any_fits = any(a.chosen.fits for a in first)
    for i, (name, n) in enumerate(setups):
        g = engine.catalog.get(name)
        ans = first[i]
        if not ans.chosen.fits and n == 1 and not g.unified_memory and not any_fits:
            # "H20 or 4090 for DeepSeek-R1?": one card of either holds nothing; the fewest of each that hold it (a
            # server's eight at most) are what is really weighed (when one setup holds it as asked, that is the answer)
            if ans.cards_needed and ans.cards_needed <= MOST_CARDS_IN_A_SERVER:
                n = ans.cards_needed
                setups = setups[:i] + [(name, n)] + setups[i + 1:]
                ans = estimate_fit(g, model, engine.knowledge_dir, n, common, need.context_tokens, need.kv_cache_bits)
                grown.append(f"{n}× {g.name}")
            else:
                too_many.append(g.name)
        c = ans.chosen
        price = price_for(g, currency, True, on, engine.catalog)
        label = f"{n}× {g.name}" if n > 1 else g.name
        results.append((label, c, price.amount * n if price else None, price))
        q = table.quant(c.quant)
        rows.append((label, f"{c.vram_gb:g} GB", q.label(lang) + ("" if c.fits else _t(lang, " (does not fit)", "（装不下）")),
                     f"~{_tps(c.decode_tokens_per_s)}" if c.fits and c.decode_tokens_per_s else "—",
                     (money(price.amount * n, price.currency) + _market_word(price, lang)
                      + f" ({_seen(price, lang)})") if price else "—"))
    fitting = [r for r in results if r[1].fits and r[1].decode_tokens_per_s]
    name_en, name_zh = model.label("en"), model.label("zh")
    if fitting:
        best = max(fitting, key=lambda r: r[1].decode_tokens_per_s)
        cheapest = min((r for r in fitting if r[2]), key=lambda r: r[2], default=None)
        slowest = min(fitting, key=lambda r: r[1].decode_tokens_per_s)
        roomiest = max(fitting, key=lambda r: r[1].vram_gb)
        if len(fitting) > 1 and best[1].decode_tokens_per_s < SETUPS_SAME_SPEED * slowest[1].decode_tokens_per_s:
            # about as fast (speed follows bandwidth): what differs is the room left for a better format or a larger
            # model ("upgrade my 2060 to a 3060 12GB for Mistral 7B?")
            rates = _t(lang, " vs ", " 对 ").join(f"~{_tps(r[1].decode_tokens_per_s)}" for r in fitting)
            verdict = _t(lang, f"For {name_en} at {common.label_en}, about as fast ({rates} tokens/s)",
                         f"跑 {name_zh}（{common.label_zh}），速度差不多（{rates} tokens/s）")
            if roomiest[1].vram_gb > slowest[1].vram_gb and roomiest[1].vram_gb > min(r[1].vram_gb for r in fitting):
                verdict += _t(lang, f"; the difference is memory: {roomiest[0]} has {roomiest[1].vram_gb:g} GB, room for "
                                    "a better format or a larger model.",
                              f"；区别在显存：{roomiest[0]} 有 {roomiest[1].vram_gb:g} GB，能用更高精度或跑更大的模型。")
            else:
                verdict += _t(lang, ".", "。")
        else:
            verdict = _t(lang, f"For {name_en}, {best[0]} is the faster setup: about "
                               f"{_tps(best[1].decode_tokens_per_s)} tokens/s at {table.quant(best[1].quant).label_en}.",
                         f"跑 {name_zh}，{best[0]} 更快：{table.quant(best[1].quant).label_zh} 约 "
                         f"{_tps(best[1].decode_tokens_per_s)} tokens/s。")
        if cheapest and cheapest is not best:
            verdict += _t(lang, f" {cheapest[0]} costs less ({money(cheapest[2], cheapest[3].currency)}) at about "
                                f"{_tps(cheapest[1].decode_tokens_per_s)} tokens/s.",
                          f"{cheapest[0]} 更便宜（{money(cheapest[2], cheapest[3].currency)}），约 "
                          f"{_tps(cheapest[1].decode_tokens_per_s)} tokens/s。")
        left = [r[0] for r in results if not r[1].fits]
        if left:
            verdict += _t(lang, f" {', '.join(left)} cannot hold it at {common.label_en}.",
                          f"{'、'.join(left)} 用 {common.label_zh} 装不下。")
    else:
        verdict = _t(lang, f"None of these holds {name_en} at {common.label_en}.",
                     f"这几种配置用 {common.label_zh} 都装不下 {name_zh}。")
    if grown:
        verdict += _t(lang, f" One card cannot hold it, so these are the fewest that do: {', '.join(grown)}.",
                      f"一张卡装不下，所以按装得下的最少张数来比：{'、'.join(grown)}。")
    if too_many:
        verdict += _t(lang, f" {', '.join(too_many)} would take more than {MOST_CARDS_IN_A_SERVER} cards: more than one "
                            "server holds.",
                      f"{'、'.join(too_many)} 要超过 {MOST_CARDS_IN_A_SERVER} 张卡，一台服务器放不下。")
    header = (_t(lang, "Setup", "配置"), _t(lang, "Memory", "显存"), _t(lang, "Format", "格式"), "tokens/s",
              _t(lang, "Price", "价格"))
    basis = {r[1].basis for r in results}
    footer = (_t(lang, "Speeds: generation at batch 1 (" + ", ".join(sorted(_BASIS[b].en for b in basis)) + "); "
                       "several cards split the model by layers: memory adds up, speed does not.",
                 "速度：batch 1 生成速度（" + "、".join(sorted(_BASIS[b].zh for b in basis)) + "）；多卡按层切分：显存相加，"
                 "速度不叠加。"),)
    return Reply("compare", lang, title=_t(lang, f"{' vs '.join(r[0] for r in results)} for {name_en}",
                                           f"{' 对比 '.join(r[0] for r in results)}：跑 {name_zh}"),
                 paragraphs=(verdict,), table=Table(header, tuple(rows)), footer=footer,
                 sources=tuple(Source(f"{m.gpu} {m.model} {m.quant}", m.url) for r in results for m in r[1].measured[:1]),
                 chart_gpus=tuple(name for name, _ in setups), chart_counts=tuple(n for _, n in setups))


def _compare_serving_setups(engine: Engine, setups: list[tuple[str, int]], need: Need, lang: str) -> Reply:
    """Setups weighed for serving a model to several users at once ("8x H100 vs 8x H200 for serving DeepSeek-V3 to
    50 users"): each holds the weights and every user's KV cache or not (one card grows to the fewest that do, up to
    a server's eight), and what each user gets (`fit.serving_speed`, formula only); the verdict names the faster."""
    from bot.fit import default_quant, memory, serving_speed, settings, usable_memory_gb
    from bot.models import load_models

    kd = engine.knowledge_dir
    model, users = _model_of(engine, need), serving_users(need, kd)
    usual = default_quant(model, kd, load_models(kd))
    quant = quant_on_a_server(need, model.params_b, kd) or usual
    ctx = need.context_tokens or int(settings(kd)["default_context"])
    on = need.as_of or engine.today or date.today()
    currency, _ = pricing(need, engine.catalog, on, lang)

    def holds(g, n: int) -> tuple[bool, float, float]:
        """Whether `n` x `g` hold the weights and every user's cache; the memory that takes, and what they have."""
        w, kv, oh = memory(model, quant, ctx, n, kd)
        total, have = w + kv * users + oh, usable_memory_gb(g, kd) * n
        return total <= have, total, have

    results, rows, grown = [], [], []
    for name, n in setups:
        g = engine.catalog.get(name)
        if not holds(g, n)[0] and n == 1 and not g.unified_memory:
            n = next((k for k in (2, 4, MOST_CARDS_IN_A_SERVER) if holds(g, k)[0]), n)
            if n > 1:
                grown.append(f"{n}× {g.name}")
        _, total, have = holds(g, n)
        sv = serving_speed(g, model, quant, users, n, kd, ctx) if total <= have else None
        price = price_for(g, currency, True, on, engine.catalog)
        label = f"{n}× {g.name}" if n > 1 else g.name
        results.append((label, total <= have, sv, price.amount * n if price else None, price))
        rows.append((label, f"{have:g} GB", f"~{total:.0f} GB" + ("" if total <= have else _t(lang, " (does not fit)", "（装不下）")),
                     f"~{_tps(sv.per_user_tokens_per_s)} / ~{sv.total_tokens_per_s:,.0f}" if sv else "—",
                     (money(price.amount * n, price.currency) + _market_word(price, lang)) if price else "—"))
    fitting = [r for r in results if r[1] and r[2]]
    name_en, name_zh = model.label("en"), model.label("zh")
    if fitting:
        best = max(fitting, key=lambda r: r[2].per_user_tokens_per_s)
        verdict = _t(lang, f"For {users} users at once on {name_en} ({quant.label_en}), {best[0]} serves each faster: about "
                           f"{_tps(best[2].per_user_tokens_per_s)} tokens/s a user, {best[2].total_tokens_per_s:,.0f} in all.",
                     f"{users} 人同时用 {name_zh}（{quant.label_zh}），{best[0]} 每人更快：每人约 "
                     f"{_tps(best[2].per_user_tokens_per_s)} tokens/s，合计约 {best[2].total_tokens_per_s:,.0f}。")
        cheapest = min((r for r in fitting if r[3]), key=lambda r: r[3], default=None)
        if cheapest and cheapest is not best:
            verdict += _t(lang, f" {cheapest[0]} costs less ({money(cheapest[3], cheapest[4].currency)}) at about "
                                f"{_tps(cheapest[2].per_user_tokens_per_s)} tokens/s a user.",
                          f"{cheapest[0]} 更便宜（{money(cheapest[3], cheapest[4].currency)}），每人约 "
                          f"{_tps(cheapest[2].per_user_tokens_per_s)} tokens/s。")
    else:
        verdict = _t(lang, f"None of these holds {name_en} ({quant.label_en}) with {users} users' KV cache.",
                     f"这几种配置都放不下 {name_zh}（{quant.label_zh}）加 {users} 人的 KV 缓存。")
    left = [r[0] for r in results if not r[1]]
    if left and fitting:
        verdict += _t(lang, f" {', '.join(left)} cannot hold it with {users} users.",
                      f"{'、'.join(left)} 放不下 {users} 人的量。")
    if grown:
        verdict += _t(lang, f" One card cannot hold it, so these are the fewest that do: {', '.join(grown)}.",
                      f"一张卡放不下，所以按放得下的最少张数来比：{'、'.join(grown)}。")
    header = (_t(lang, "Setup", "配置"), _t(lang, "Memory", "显存"), _t(lang, f"Needed ({users} users)", f"需要（{users} 人）"),
              _t(lang, "tokens/s per user / in all", "tokens/s 每人 / 合计"), _t(lang, "Price", "价格"))
    footer = (_t(lang, f"Memory: weights + KV cache for {users} requests of {ctx:,} tokens + runtime. Speeds: formula only "
                       "(vLLM-style batching; several cards split each layer, tensor parallel).",
                 f"显存：权重 + {users} 个请求各 {ctx:,} token 的 KV 缓存 + 运行时。速度：仅公式估算（按 vLLM 批处理；多卡按张量"
                 "并行切分每一层）。"),)
    return Reply("compare", lang, title=_t(lang, f"{' vs '.join(r[0] for r in results)}: serving {name_en} to {users} users",
                                           f"{' 对比 '.join(r[0] for r in results)}：{users} 人同时用 {name_zh}"),
                 paragraphs=(verdict,), table=Table(header, tuple(rows)), footer=footer,
                 chart_gpus=tuple(name for name, _ in setups))


def typical_card(engine: Engine, gb: float, need: Need, lang: str) -> str | None:
    """The card that stands for "an N GB card": the newest consumer NVIDIA card with that much memory sold in the
    user's market (its bandwidth sets the speed)."""
    from bot.scorer import buyer_market

    on = need.as_of or engine.today or date.today()
    if need.vendor == "Apple":  # "on a 128GB mac": the newest Mac with that much unified memory
        macs = [g for g in engine.catalog.systems if g.vram_gb == gb and (g.release_date is None or g.release_date <= on)]
        return max(macs, key=lambda g: (g.release_date or date.min, g.name)).name if macs else None
    market = buyer_market(need, "CNY" if need.region == "cn" or (need.region is None and lang == "zh") else "USD")
    pool = [g for g in engine.catalog if g.vendor == "NVIDIA" and g.segment == "consumer" and g.vram_gb == gb
            and (g.release_date is None or g.release_date <= on) and g.not_sold_in(market, on) is None]
    return max(pool, key=lambda g: (g.release_date or date.min, g.name)).name if pool else None


def worth_for_llm(engine: Engine, name: str, need: Need, lang: str, offered: Budget | None = None) -> Reply:
    """"Is the P40 still worth it for LLMs?": what it runs and how fast, what it costs now, and what holds it back.
    `offered`: the price the user was quoted ("is the DGX Spark worth $3,999?"), weighed instead of the catalog's."""

    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    base = what_fits(engine, name, 1, lang)
    on = need.as_of or engine.today or date.today()
    currency, _ = pricing(need, engine.catalog, on, lang)
    price = Price(offered.amount, offered.currency, on, "new") if offered is not None else \
        price_for(g, currency, True, on, engine.catalog)
    lines = []
    if price:
        used = _market_word(price, lang)
        runs = base.fit.get("runs") or []
        best = runs[-1] if runs else None
        per = _t(lang, f" — about {money(price.amount / max(g.vram_gb, 1), price.currency)} per GB of memory",
                 f"——每 GB 显存约 {money(price.amount / max(g.vram_gb, 1), price.currency)}")
        lines.append(_t(lang, f"At the price you were quoted, {money(price.amount, price.currency)}{per}." if offered
                        else f"Price now: {money(price.amount, price.currency)}{used} ({_seen(price, lang)}){per}.",
                        f"按你说的价格 {money(price.amount, price.currency)}{per}。" if offered else
                        f"现在的价格：{used}{money(price.amount, price.currency)}（{_seen(price, lang)}）{per}。"))
        if best:
            lines.append(_t(lang, f"For the money it runs up to {best['model']} at ~{_tps(best['decode_tokens_per_s'])} "
                                  "tokens/s.",
                            f"这个价位最大能跑到 {best['model']}，约 {_tps(best['decode_tokens_per_s'])} tokens/s。"))
        if best and g.unified_memory:
            lines.insert(0, _cards_for_the_money(engine, need, g, price, best, lang))
    if g.crippled_fp16:
        lines.append(_t(lang, "Held back by its FP16 (1/64 rate): long prompts read slowly, vLLM does not support it, and "
                              "it is no training card.",
                        "短板是 FP16 只有 1/64 速率：长提示词读得慢，vLLM 不支持，也不适合训练。"))
    if g.segment == "datacenter" and g.form_factor == "PCIe":
        lines.append(_t(lang, "Passive cooling: it needs a fan shroud or server airflow in a desktop.",
                        "被动散热：装在台式机里需要加装风扇导风罩或服务器风道。"))
    if g.form_factor == "Superchip":
        lines.append(_t(lang, "A CPU-and-GPU module sold only inside servers: rent it by the hour rather than buy it.",
                        "CPU 与 GPU 合一的模组，只随服务器出售：按小时租比买现实。"))
    if g.form_factor in ("SXM", "OAM"):
        lines.append(_t(lang, f"{g.form_factor} module: it needs a server board or an adapter.",
                        f"{g.form_factor} 模组：需要服务器主板或转接板。"))
    return replace(base, title=_t(lang, f"Is the {g.name} worth it for LLMs?", f"{g.name} 跑大模型值得买吗？"),
                   paragraphs=base.paragraphs + tuple(lines))


def _cards_for_the_money(engine: Engine, need: Need, g: GPU, price: Price, best: dict, lang: str) -> str:
    """The verdict on a whole computer with unified memory: whether the same money in graphics cards holds the largest
    model it runs comfortably (in the fewest cards), and what that costs in speed or in the rest of a PC."""
    from bot.scorer import rank

    on = need.as_of or engine.today or date.today()
    for count in range(1, MACHINE_ALTERNATIVE_MAX_CARDS + 1):
        job = Need(workloads=("llm_inference",), min_total_vram_gb=best["total_gb"], gpu_count=count,
                   budget=Budget(price.amount, price.currency), used=need.used, region=need.region)
        r = rank(engine.catalog, job, engine.knowledge_dir, on, lang=lang)
        if r.picks:
            c = r.picks[0].candidate
            setup = f"{count}× {c.gpu.name}" if count > 1 else c.gpu.name
            return _t(lang, f"Worth it mainly for memory in one quiet box: the same money in cards ({setup}, "
                            f"{c.gpu.vram_gb * count:g} GB, {money(c.total, r.currency)}) holds {best['model']} too, "
                            "with each card's own fast memory, but needs a desktop PC around it"
                            + (" with room and power for several cards." if count > 1 else "."),
                      f"值不值主要看你要不要一台安静的小机器装下大模型：同样的钱买显卡（{setup}，共 {c.gpu.vram_gb * count:g} GB，"
                      f"{money(c.total, r.currency)}）也装得下 {best['model']}，每张卡有自己的高速显存，但还要一台台式机"
                      + ("，而且要能插多张卡、供得上电。" if count > 1 else "。"))
    return _t(lang, f"Worth it if you want models as big as {best['model']}: the same money in graphics cards "
                    f"(up to {MACHINE_ALTERNATIVE_MAX_CARDS} cards) does not hold it; for models that fit one card, a card "
                    "is faster.",
              f"如果要跑 {best['model']} 这么大的模型，值：同样的钱买显卡（最多 {MACHINE_ALTERNATIVE_MAX_CARDS} 张）装不下它；"
              "但单卡装得下的模型，显卡更快。")


NEARLY_AS_FAST = 0.5  # a cheaper card at this share of a card's speed is named beside a "yes, worth it"
MACHINE_ALTERNATIVE_MAX_CARDS = 4  # the most cards a desktop PC takes: beyond that the alternative is a server


def fit_mixed(engine: Engine, have: list[str], new: str, need: Need, lang: str, have_vram: float | None = None
              ) -> Reply:
    """"Add a P40 to my 3090?": the cards the user has plus a new one, the model split by layers in proportion to their
    memory; the format to use and the speed from each card's bandwidth."""
    from bot.fit import default_quant, memory, mixed_decode_speed, settings, usable_memory_gb
    from bot.models import load_models

    model = _model_of(engine, need)
    g_new = engine.catalog.get(new)
    mine = [engine.catalog.get(n) for n in have]
    if model is None or model.kind != "llm" or g_new is None or None in mine:
        return unknown(lang)
    if have_vram:
        mine = [replace(g, vram_gb=have_vram) for g in mine]
    cards = mine + [g_new]
    table = load_models(engine.knowledge_dir)
    kd = engine.knowledge_dir
    ctx = need.context_tokens or int(settings(kd)["default_context"])
    total = sum(usable_memory_gb(g, kd) for g in cards)
    rows, options = [], []
    for code in settings(kd)["ladder"]:
        q = table.quant(code)
        w, kv, oh = memory(model, q, ctx, len(cards), kd)
        fits = w + kv + oh <= total
        tps = mixed_decode_speed(cards, model, q, kd) if fits else None
        options.append((q, w + kv + oh, fits, tps))
        rows.append((q.label(lang), f"~{w + kv + oh:.1f} GB", _t(lang, "fits", "装得下") if fits else _t(lang, "no", "装不下"),
                     f"~{_tps(tps)}" if tps else "—"))
    usual = default_quant(model, kd, table)
    pick = next((o for o in options if o[0].code == (need.quant or usual.code) and o[2]), None) or \
        next((o for o in options if o[2] and o[0].bits >= 4), None)
    setup = " + ".join(dict.fromkeys(f"{have.count(n)}× {n}" if have.count(n) > 1 else n for n in have)) + f" + {new}"
    if pick:
        q, gb, _, tps = pick
        basis = _BASIS["formula" if model.is_moe else "calibrated"]  # no measured MoE rows to calibrate on
        verdict = _t(lang, f"Yes: {setup} ({total:g} GB together) runs {model.label('en')} at {q.label_en} (~{gb:.1f} GB), "
                           f"about {_tps(tps)} tokens/s when generating ({basis.en}; the slower card sets the pace "
                           "for its share of the layers).",
                     f"可以：{setup}（合计 {total:g} GB）能跑 {model.label('zh')}，{q.label_zh}（约 {gb:.1f} GB），生成约 "
                     f"{_tps(tps)} tokens/s（{basis.zh}；慢的那张卡决定它那部分层的速度）。")
    else:
        verdict = _t(lang, f"No: even together, {setup} ({total:g} GB) cannot hold {model.label('en')} at 4-bit.",
                     f"不行：{setup} 合计 {total:g} GB，4 位也装不下 {model.label('zh')}。")
    header = (_t(lang, "Format", "格式"), _t(lang, "Memory", "显存"), _t(lang, "Fits", "装得下吗"), "tokens/s")
    bullets = (_t(lang, "Mixed cards work with llama.cpp (--tensor-split by memory); vLLM wants identical cards.",
                  "不同型号混用 llama.cpp 可以（按显存 --tensor-split）；vLLM 需要相同型号的卡。"),)
    if any(g.crippled_fp16 for g in cards):
        bullets += (_t(lang, "A Pascal card (P40 class) is slow at reading long prompts and is not supported by vLLM.",
                       "Pascal 卡（P40 一类）读长提示词很慢，vLLM 也不支持。"),)
    return Reply("fit", lang, title=_t(lang, f"{setup} × {model.label('en')}", f"{setup} 跑 {model.label('zh')}"),
                 paragraphs=(verdict,), table=Table(header, tuple(rows)), bullets=bullets, focus=have[0],
                 fit={"gpus": [g.name for g in cards], "model": model.name, "vram_gb": total,
                      "fits": bool(pick), "quant": pick[0].code if pick else None,
                      "total_gb": round(pick[1], 1) if pick else None,
                      "decode_tokens_per_s": round(pick[3], 1) if pick and pick[3] else None,
                      "basis": "formula" if model.is_moe else "calibrated"})


def what_fits(engine: Engine, name: str, count: int, lang: str, vram_gb: float | None = None) -> Reply:
    """"What can it run?": the usual models from small to large on this setup, each in the best format that fits."""
    from bot.fit import fit as estimate_fit
    from bot.fit import settings
    from bot.models import load_models

    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    shown = name
    if vram_gb and vram_gb != g.vram_gb:
        g = replace(g, vram_gb=vram_gb)
        shown = f"{name} ({vram_gb:g} GB)"
    setup = f"{count}× {shown}" if count > 1 else shown
    table = load_models(engine.knowledge_dir)
    rows, runs = [], []
    for model_name in settings(engine.knowledge_dir)["capacity_examples"]:
        m = table.get(model_name)
        if m is None:
            continue
        ans = estimate_fit(g, m, engine.knowledge_dir, count)
        c = ans.chosen
        q = table.quant(c.quant)
        ok = c.fits and q.bits >= 4
        if ok:
            runs.append((m, c, q))
        rows.append((m.name, q.label(lang) if c.fits else "—", f"~{c.total_gb:g} GB" if c.fits else "—",
                     f"~{_tps(c.decode_tokens_per_s)}" if c.fits and c.decode_tokens_per_s else
                     _t(lang, "does not fit", "装不下")))
    if runs:
        m, c, q = max(runs, key=lambda r: r[0].params_b)
        verdict = _t(lang, f"{setup} runs models up to about {m.name} comfortably: {q.label_en}, ~{c.total_gb:g} GB, "
                           f"about {_tps(c.decode_tokens_per_s)} tokens/s when generating.",
                     f"{setup} 最大能比较舒服地跑到 {m.name} 这一级：{q.label_zh}，约 {c.total_gb:g} GB，生成约 "
                     f"{_tps(c.decode_tokens_per_s)} tokens/s。")
    else:
        verdict = _t(lang, f"{setup} holds only small models (under ~7B) at 4-bit or better.",
                     f"{setup} 在 4 位及以上精度只能跑小模型（约 7B 以下）。")
    header = (_t(lang, "Model", "模型"), _t(lang, "Format", "格式"), _t(lang, "Memory", "显存"), "tokens/s")
    return Reply("fit", lang, title=_t(lang, f"What {setup} can run", f"{setup} 能跑什么模型"), paragraphs=(verdict,),
                 table=Table(header, tuple(rows)),
                 footer=(_t(lang, "Each model in the best format that fits (4-bit Q4_K_M for 7B and up unless more fits "
                                  "well); 4,096-token context; speeds at batch 1, calibrated on llama.cpp measurements.",
                            "每个模型取装得下的常用格式（7B 以上默认 4 位 Q4_K_M）；上下文 4,096 token；速度为 batch 1，按 llama.cpp "
                            "实测校准。"),),
                 sources=tuple(Source(source_title("specs", lang, name=g.name), u) for u in g.sources[:1]), focus=name,
                 fit={"gpu": name, "count": count, "vram_gb": g.vram_gb * count,
                      "runs": [{"model": m.name, "quant": c.quant, "total_gb": c.total_gb,
                                "decode_tokens_per_s": c.decode_tokens_per_s} for m, c, _ in runs]})


def fit_on_memory(engine: Engine, gb: float, need: Need, count: int, lang: str) -> Reply:
    """A model on "an N GB card": the fit on a typical current card with that much memory, saying which."""
    card = typical_card(engine, gb, need, lang)
    if card is None:  # "for LoRA on a 70B, is 48GB enough?": no gaming card has 48 GB; the verdict on the memory
        reply = memory_question(engine, need, lang)
        return replace(reply, paragraphs=(_memory_verdict(reply.table.rows, gb, count, lang),) + reply.paragraphs)
    reply = fit(engine, card, need, count, lang)
    note = _t(lang, f"Taking the {card} as the example of {gb:g} GB: memory decides whether it fits; speed scales with "
                    "the memory bandwidth.",
              f"以 {card} 作为 {gb:g} GB 的例子：装不装得下看显存，速度大致随显存带宽变化。")
    return replace(reply, paragraphs=reply.paragraphs + (note,))


def _memory_verdict(rows, gb: float, count: int, lang: str) -> str:
    """Which of the memory table's jobs fit in the memory the user named (`count` cards of `gb` each), verdict first.
    Each card also holds its share of the cache, so several cards are counted as their sum, a best case."""
    total = gb * count
    said = f"{count}× {gb:g} GB" if count > 1 else f"{gb:g} GB"
    sized = [(label, float(str(need).strip("~ GB"))) for label, need, *_ in rows]
    fits = [(label, n) for label, n in sized if n <= total]
    if not fits:
        label, n = min(sized, key=lambda r: r[1])
        return _t(lang, f"No: {said} is not enough; even the lightest option here ({label}) needs ~{n:g} GB.",
                  f"不够：{said} 装不下，这里最省显存的方案（{label}）也要约 {n:g} GB。")
    if len(sized) == 1:
        return _t(lang, f"Yes: {said} holds it (~{sized[0][1]:g} GB needed).", f"够：{said} 装得下（约需 {sized[0][1]:g} GB）。")
    if len(fits) == len(sized):
        return _t(lang, f"Yes: {said} holds every option below (the largest needs ~{max(n for _, n in sized):g} GB).",
                  f"够：{said} 装得下下面每种方案（最大的约 {max(n for _, n in sized):g} GB）。")
    def listed(rows, sep, each):
        return sep.join(each.format(label=label, n=n) for label, n in rows)

    over = [(label, n) for label, n in sized if n > total]
    return _t(lang, f"Partly: {said} holds {listed(fits, ', ', '{label} (~{n:g} GB)')}, "
                    f"not {listed(over, ', ', '{label} (~{n:g} GB)')}.",
              f"部分可以：{said} 装得下{listed(fits, '、', '{label}（约 {n:g} GB）')}，"
              f"装不下{listed(over, '、', '{label}（约 {n:g} GB）')}。")


def _free_ram(engine: Engine, need: Need) -> float:
    """The user's RAM less what the system keeps (llm-inference.yaml offload.ram_reserved_gb)."""
    from bot.fit import settings

    return (need.system_ram_gb or 0) - float(settings(engine.knowledge_dir)["offload"]["ram_reserved_gb"])


def _system_ram_note(engine: Engine, need: Need, c, g: GPU, lang: str) -> str:
    """With the user's RAM said ("64GB RAM"): whether it holds what the card cannot (the system keeps a share of it)."""
    if not need.system_ram_gb or not c.offload_gb or g.unified_memory or not c.decode_tokens_per_s:
        return ""
    free, slow = _free_ram(engine, need), c.decode_tokens_per_s < CHAT_SPEED
    if c.offload_gb <= free:
        return _t(lang, f" With your {need.system_ram_gb:g} GB of RAM it runs by offloading: the {c.offload_gb:g} GB the "
                        f"card cannot hold go to RAM (room left for the system), at about {_tps(c.decode_tokens_per_s)} "
                        f"tokens/s{' (slow)' if slow else ''}.",
                  f"有 {need.system_ram_gb:g} GB 内存就能靠卸载跑：显卡放不下的 {c.offload_gb:g} GB 放进内存（系统也还有余量），"
                  f"约 {_tps(c.decode_tokens_per_s)} tokens/s{'（很慢）' if slow else ''}。")
    return _t(lang, f" Your {need.system_ram_gb:g} GB of RAM is not enough for the {c.offload_gb:g} GB offloaded (the system "
                    f"needs about {need.system_ram_gb - free:g} GB of it): use a smaller format or add RAM.",
              f"你的 {need.system_ram_gb:g} GB 内存不够放卸载的 {c.offload_gb:g} GB（系统自己要用约 {need.system_ram_gb - free:g} GB）："
              "换更小的量化格式，或者加内存。")


def fit(engine: Engine, name: str, need: Need, count: int, lang: str, vram_gb: float | None = None) -> Reply:
    """Can this card (or N of them) run or train the model / workload: a verdict first, then the numbers. `vram_gb`:
    the memory the user says their card has when it is not the catalog's (a modded 2080 Ti 22G, a laptop card)."""
    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    stated = bool(vram_gb and vram_gb != g.vram_gb)
    if stated:  # "MacBook Pro M4 Max 128GB" said with 64 GB is the 64 GB configuration
        import re

        label = re.sub(r"\d+\s*GB$", f"{vram_gb:g}GB", g.name)
        g = replace(g, vram_gb=vram_gb, name=label if label != g.name else g.name)
    reply = _fit_gpu(engine, g, need, count, lang)
    if not stated:
        return reply
    note = _t(lang, f"Counted with the {vram_gb:g} GB you gave (the {name} in my catalog has "
                    f"{engine.catalog.get(name).vram_gb:g} GB); speed from its bandwidth.",
              f"按你说的 {vram_gb:g} GB 计算（目录里的 {name} 是 {engine.catalog.get(name).vram_gb:g} GB）；速度按它的带宽估算。")
    return replace(reply, paragraphs=reply.paragraphs + (note,), focus=name,  # the catalog's card stays in focus
                   fit=(reply.fit or {}) | {"stated_vram_gb": vram_gb, "gpu": name})


def _fit_gpu(engine: Engine, g: GPU, need: Need, count: int, lang: str) -> Reply:
    training = need.workload == "llm_finetune" or need.finetune_method
    if need.model:
        model = _model_of(engine, need)
        if model is not None and model.kind != "llm" and model.image_infer_gb:
            return _image_fit(engine, g, model, count, lang, training=bool(training),
                              at_16_bit=(need.precision_bits or 0) >= 16)
    if need.model_size_b and not training and need.workload in (None, "llm_inference", "inference", "general"):
        model = _model_of(engine, need)
        if model is not None and model.kind == "llm":
            return _llm_fit(engine, g, model, need, count, lang)
    return _fit_by_memory(engine, g, need, count, lang)


@dataclass(frozen=True)
class _ServedMemory:
    """A setup serving the need's LLM with vLLM: the format it is served in and the memory it has and takes."""

    model: ModelSpec
    gpu: GPU
    quant: Quant
    context: int
    weights_gb: float
    kv_gb: float  # one user's KV cache at `context`
    overhead_gb: float
    have_gb: float
    setup: str  # "2× GeForce RTX 3090"


def _served_memory(engine: Engine, gpu_name: str, count: int, need: Need) -> _ServedMemory | None:
    """What serving_fit and serving_capacity weigh: the model at the precision a server runs it (AWQ for 4-bit), one
    user's KV cache, the weights and runtime, and the memory `count` cards have."""
    from bot.fit import memory, settings, usable_memory_gb

    model, g = _model_of(engine, need), engine.catalog.get(gpu_name)
    if model is None or model.kind != "llm" or g is None:
        return None
    kd = engine.knowledge_dir
    quant = quant_on_a_server(need, model.params_b, kd)
    if quant is None:
        return None
    ctx = need.context_tokens or int(settings(kd)["default_context"])
    w, kv, oh = memory(model, quant, ctx, count, kd)
    return _ServedMemory(model, g, quant, ctx, w, kv, oh, usable_memory_gb(g, kd) * count,
                         f"{count}× {g.name}" if count > 1 else g.name)


def serving_fit(engine: Engine, gpu_name: str, count: int, need: Need, lang: str) -> str | None:
    """"Can 2x 3090 serve a 32B model to 20 users at once?": the memory with every user's KV cache against the setup's,
    verdict first, and what each user gets (bot.fit.serving_speed, formula only)."""
    from bot.fit import serving_speed

    users = serving_users(need, engine.knowledge_dir)
    sm = _served_memory(engine, gpu_name, count, need)
    if users < 2 or sm is None:
        return None
    kd, model, g, quant, ctx = engine.knowledge_dir, sm.model, sm.gpu, sm.quant, sm.context
    w, kv, oh, have, setup = sm.weights_gb, sm.kv_gb, sm.overhead_gb, sm.have_gb, sm.setup
    total = w + kv * users + oh
    assumption = assumed_at_once(need, users, engine.knowledge_dir)  # "20 staff", "3000 daily users": the share of them at once, said so
    head = _t(lang, assumption.en + ". ", assumption.zh + "。") if assumption else ""
    head += _t(lang, f"For {users} users at once (vLLM, {quant.label_en}): {w:.1f} GB of weights + {kv * users:.1f} GB of "
                    f"KV cache ({ctx:,} tokens each) + {oh:.1f} GB = ~{total:.1f} GB against {have:g} GB",
              f"{users} 人同时使用（vLLM，{quant.label_zh}）：权重 {w:.1f} GB + KV 缓存 {kv * users:.1f} GB（每人 {ctx:,} token）"
              f"+ {oh:.1f} GB ≈ {total:.1f} GB，{setup} 有 {have:g} GB")
    if total > have:
        fewer = int((have - w - oh) // kv) if kv and have > w + oh else 0
        return head + _t(lang, f": it does not fit{f'; about {fewer} users at once do' if fewer > 1 else ''}.",
                         f"：装不下{f'；同时约 {fewer} 人可以' if fewer > 1 else ''}。")
    if g.compute_capability and float(g.compute_capability) < 7.0:
        return head + _t(lang, ", so it fits, but vLLM needs compute capability 7.0 or newer: use llama.cpp's server "
                               "(much less throughput for many users).",
                         "，装得下，但 vLLM 要求计算能力 7.0 及以上：只能用 llama.cpp 的 server（多人时吞吐低得多）。")
    sv = serving_speed(g, model, quant, users, count, kd, need.context_tokens)
    if sv is None:
        return head + _t(lang, ": it fits.", "：装得下。")
    return head + _t(lang, f": it fits, at about {_tps(sv.per_user_tokens_per_s)} tokens/s for each user, "
                           f"{sv.total_tokens_per_s:,.0f} in all (formula only: bandwidth and tensor throughput of "
                           f"batched generation{', tensor parallel' if count > 1 else ''}).",
                     f"：装得下，每人约 {_tps(sv.per_user_tokens_per_s)} tokens/s，合计约 {sv.total_tokens_per_s:,.0f}"
                     f"（仅公式估算：按批量生成的带宽和张量算力{'，张量并行' if count > 1 else ''}）。")


def serving_capacity(engine: Engine, gpu_name: str, count: int, need: Need, lang: str) -> str | None:
    """"How many users can one 4090 serve on an 8B model?": the users at once whose KV cache fits beside the weights,
    and how many of them each still get a comfortable speed (bot.fit.serving_speed, formula only)."""
    from bot.fit import serving_speed, settings

    sm = _served_memory(engine, gpu_name, count, need)
    if sm is None:
        return None
    kd, model, g, quant, ctx = engine.knowledge_dir, sm.model, sm.gpu, sm.quant, sm.context
    w, kv, oh, have, setup = sm.weights_gb, sm.kv_gb, sm.overhead_gb, sm.have_gb, sm.setup
    most = int((have - w - oh) // kv) if kv and have > w + oh else 0
    if most < 1:
        return _t(lang, f"{setup} ({have:g} GB) cannot hold {model.label('en')} at {quant.label_en} with any user's KV "
                        "cache.",
                  f"{setup}（{have:g} GB）放不下 {model.label('zh')}（{quant.label_zh}）加上任何一个用户的 KV 缓存。")
    comfortable = float(settings(kd)["serving"]["comfortable_tokens_per_s"])
    at_most = serving_speed(g, model, quant, most, count, kd, ctx)
    quick = max((n for n in range(1, most + 1) if (sv := serving_speed(g, model, quant, n, count, kd, ctx))
                 and sv.per_user_tokens_per_s >= comfortable), default=0)
    text = _t(lang, f"{setup} holds {model.label('en')} at {quant.label_en} ({w:.1f} GB) plus the KV cache of about "
                    f"{most} users at once ({kv:.2f} GB each at {ctx:,} tokens)",
              f"{setup} 放得下 {model.label('zh')}（{quant.label_zh}，{w:.1f} GB）再加约 {most} 人同时使用的 KV 缓存"
              f"（每人 {ctx:,} token 约 {kv:.2f} GB）")
    if at_most:
        text += _t(lang, f"; with all of them each gets about {_tps(at_most.per_user_tokens_per_s)} tokens/s",
                   f"；都在用时每人约 {_tps(at_most.per_user_tokens_per_s)} tokens/s")
    if quick and quick < most:
        text += _t(lang, f"; for {comfortable:g} tokens/s or more each, about {quick} at once",
                   f"；要每人 {comfortable:g} tokens/s 以上，约 {quick} 人同时")
    return text + _t(lang, " (formula only; vLLM-style batching; longer contexts hold fewer users).",
                     "（仅公式估算，按 vLLM 批处理；上下文更长，能同时服务的人更少）。")


def _model_of(engine: Engine, need: Need):
    from bot.fit import model_for

    return model_for(engine.knowledge_dir, need.model, need.model_size_b)


_BASIS = {"measured": Text("measured", "实测"), "calibrated": Text("estimate calibrated on measurements", "按实测校准的估算"),
          "formula": Text("formula only", "仅公式估算")}


CHAT_SPEED = 10  # tokens/s: slower than this, generation is slower than people read


def _tps(v: float | None) -> str:
    """Realistic precision: two significant figures for an estimate ('~35', '~4.2', '~120')."""
    if v is None:
        return "?"
    if v >= 100:
        return f"{round(v, -1):,.0f}"
    if v >= 10:
        return f"{v:.0f}"
    return f"{v:.1f}"


def _llm_fit(engine: Engine, g: GPU, model, need: Need, count: int, lang: str) -> Reply:
    """A verdict on running an LLM locally: the format to use and its speed, then every format on the ladder."""
    from bot.fit import default_quant, quant_for
    from bot.fit import fit as estimate_fit
    from bot.models import load_models

    table = load_models(engine.knowledge_dir)
    quant = quant_for(engine.knowledge_dir, need.quant, need.precision_bits)
    ans = estimate_fit(g, model, engine.knowledge_dir, count, quant, need.context_tokens, need.kv_cache_bits)
    c = ans.chosen
    q = table.quant(c.quant)
    setup = f"{count}× {g.name}" if count > 1 else g.name
    name_en, name_zh = model.label("en"), model.label("zh")
    basis = _BASIS[c.basis].get(lang)
    speed_en = f"about {_tps(c.decode_tokens_per_s)} tokens/s when generating ({basis})"
    speed_zh = f"生成速度约 {_tps(c.decode_tokens_per_s)} tokens/s（{basis}）"
    usual = next((e for e in ans.ladder if e.quant == default_quant(model, engine.knowledge_dir, table).code), None)
    ram_first = False
    if c.fits:
        squeezed = not ans.asked_quant and q.bits < 4
        if squeezed:
            verdict = _t(lang, f"Only just: {setup} ({c.vram_gb:g} GB) fits {name_en} only at {q.label_en} (~{c.total_gb:g} "
                               f"GB), {speed_en}, and quality drops noticeably at 3-bit and below.",
                         f"勉强：{setup}（{c.vram_gb:g} GB）只能用 {q.label_zh}（约 {c.total_gb:g} GB）装下 {name_zh}，"
                         f"{speed_zh}；3 位及以下量化质量下降明显。")
            if usual and usual.decode_tokens_per_s:
                uq = table.quant(usual.quant)
                size = _card_size_for(engine, usual.total_gb / count)
                verdict += _t(lang, f" At the usual {uq.label_en} it needs ~{usual.total_gb:g} GB: {usual.offload_gb:g} GB "
                                    f"would sit in system RAM and it runs at about {_tps(usual.decode_tokens_per_s)} "
                                    "tokens/s. " + (f"A {size:g} GB card runs it properly." if count == 1 else
                                                    f"{count} cards of {size:g} GB each run it properly."),
                              f"按常用的 {uq.label_zh} 要约 {usual.total_gb:g} GB：有 {usual.offload_gb:g} GB 得放在内存里，"
                              f"速度约 {_tps(usual.decode_tokens_per_s)} tokens/s。"
                              + (f"{size:g} GB 显存的卡才能跑得舒服。" if count == 1 else
                                 f"{count} 张各 {size:g} GB 的卡才能跑得舒服。"))
        else:
            verdict = _t(lang, f"Yes: {setup} ({c.vram_gb:g} GB) runs {name_en} at {q.label_en} (~{c.total_gb:g} GB), "
                               f"{speed_en}.",
                         f"可以：{setup}（{c.vram_gb:g} GB）能跑 {name_zh}，{q.label_zh}（约 {c.total_gb:g} GB），{speed_zh}。")
        better = ans.best_fitting
        if better and better.quant != c.quant and better.bits_per_weight > c.bits_per_weight and \
                better.total_gb <= 0.9 * better.vram_gb and \
                not (model.native_quant and c.quant == model.native_quant):  # released quantised: nothing to regain
            bq = table.quant(better.quant)
            verdict += _t(lang, f" There is room for {bq.label_en} too (~{better.total_gb:g} GB, "
                                f"~{_tps(better.decode_tokens_per_s)} tokens/s).",
                          f"显存还够跑 {bq.label_zh}（约 {better.total_gb:g} GB，约 {_tps(better.decode_tokens_per_s)} tokens/s）。")
    elif model.is_moe and c.decode_tokens_per_s and c.decode_tokens_per_s >= CHAT_SPEED and not g.unified_memory:
        verdict = _t(lang, f"Yes, with part of it in system RAM: {name_en} at {q.label_en} needs ~{c.total_gb:g} GB; "
                           f"{c.offload_gb:g} GB of expert weights stay in RAM (llama.cpp --n-cpu-moe) and it generates "
                           f"about {_tps(c.decode_tokens_per_s)} tokens/s (formula only; a mixture of experts reads "
                           "little per token). Plan enough system RAM for that part.",
                     f"可以，但要把一部分放在内存里：{name_zh} 用 {q.label_zh} 约需 {c.total_gb:g} GB；{c.offload_gb:g} GB 专家权重"
                     f"放在内存里（llama.cpp --n-cpu-moe），生成约 {_tps(c.decode_tokens_per_s)} tokens/s（仅公式估算；MoE 每个 "
                     "token 读取的参数少）。内存要留够这部分。")
    else:
        more = ""
        if ans.cards_needed and ans.cards_needed > MOST_CARDS_IN_A_SERVER:  # "how many 4090s for deepseek v3"
            n = ans.cards_needed
            more = _t(lang, f" It would take about {n}× {g.name} ({n * g.vram_gb:g} GB): more cards than one machine "
                            "holds, so not a practical setup; a server of cards with more memory, a Mac with a lot of "
                            "unified memory, or renting fits it better.",
                      f"大约要 {n} 张 {g.name}（共 {n * g.vram_gb:g} GB）：超过一台机器能插的卡数，不现实；用显存更大的卡组成的"
                      "服务器、统一内存很大的 Mac，或者租用更合适。")
        elif ans.cards_needed:
            n = ans.cards_needed
            more = _t(lang, f" {n}× {g.name} ({n * g.vram_gb:g} GB) would hold it, split by layers.",
                      f"{n} 张 {g.name}（共 {n * g.vram_gb:g} GB）按层切分能装下。")
        offload = ""
        if c.decode_tokens_per_s:
            slow = c.decode_tokens_per_s < 10
            offload = _t(lang, f" With {c.offload_gb:g} GB offloaded to system RAM it still runs, at about "
                               f"{_tps(c.decode_tokens_per_s)} tokens/s ({'slow' if slow else 'usable for chat'}"
                               f"{'' if not model.is_moe else '; a mixture of experts reads little per token'}).",
                         f"把 {c.offload_gb:g} GB 放到内存里（CPU 计算）也能跑，约 {_tps(c.decode_tokens_per_s)} tokens/s"
                         f"（{'很慢' if slow else '聊天够用'}{'' if not model.is_moe else '；MoE 每个 token 读取的参数少'}）。")
        ram = _system_ram_note(engine, need, c, g, lang)
        ram_first = bool(ram)
        verdict = ram.strip() + _t(lang, " ", "") if ram else ""  # "what about with 64GB RAM offload?": that first
        alone = bool(ram) and c.offload_gb <= _free_ram(engine, need)
        offload = "" if ram else offload  # (the RAM said has answered it)
        verdict += _t(lang, f"{'Not on the card alone' if alone else 'No'}: {name_en} at {q.label_en} needs about "
                            f"{c.total_gb:g} GB and {setup} has "
                            f"{c.vram_gb:g} GB.{more}{offload} Other options: a smaller model, a card with more memory, "
                            "or renting by the hour.",
                      f"{'光靠显卡装不下' if alone else '不行'}：{name_zh} 用 {q.label_zh} 也要约 {c.total_gb:g} GB，{setup} 只有 {c.vram_gb:g} GB。"
                     f"{more}{offload}也可以换小一点的模型、换大显存的卡，或者按小时租。")
    if not ram_first:  # (the RAM said, when the job does not fit, leads the verdict)
        verdict += _system_ram_note(engine, need, c, g, lang)
    if not need.kv_cache_bits and c.kv_cache_gb >= 0.25 * c.total_gb and (not c.fits or q.bits < 4):
        verdict += _t(lang, f" A q8_0 KV cache (llama.cpp -ctk q8_0 -ctv q8_0) would halve the {c.kv_cache_gb:g} GB the "
                            f"{c.context:,}-token context takes.",
                      f"把 KV 缓存量化为 q8_0（llama.cpp -ctk q8_0 -ctv q8_0）可以把 {c.context:,} token 上下文占的 "
                      f"{c.kv_cache_gb:g} GB 减半。")
    rows = []
    for e in ans.ladder:
        eq = table.quant(e.quant)
        rows.append((eq.label(lang), f"~{e.total_gb:g} GB",
                     _t(lang, "fits", "装得下") if e.fits else _t(lang, f"no (+{e.offload_gb:g} GB)", f"装不下（差 {e.offload_gb:g} GB）"),
                     f"~{_tps(e.decode_tokens_per_s)}" if e.fits and e.decode_tokens_per_s else "—"))
    header = (_t(lang, "Format", "格式"), _t(lang, "Memory", "显存"), _t(lang, "Fits", "装得下吗"),
              _t(lang, "tokens/s", "tokens/s"))
    bullets = []
    if c.prefill_tokens_per_s:
        bullets.append(_t(lang, f"Reading the prompt: about {_tps(c.prefill_tokens_per_s)} tokens/s.",
                          f"读入提示词：约 {_tps(c.prefill_tokens_per_s)} tokens/s。"))
    per_8k = model.kv_bytes_per_token() * 8192 / 2 ** 30
    if per_8k:
        bullets.append(_t(lang, f"KV cache: {c.kv_cache_gb:g} GB at a {c.context:,}-token context; every 8k tokens more "
                                f"adds {per_8k:.1f} GB (F16 cache; q8_0 cache halves it).",
                          f"KV 缓存：上下文 {c.context:,} token 时 {c.kv_cache_gb:g} GB；每多 8k token 增加 {per_8k:.1f} GB"
                          "（F16 缓存；q8_0 缓存可减半）。"))
    if model.licence or model.gated:
        bullets.append(_t(lang, f"Licence: {model.licence}" + (" (gated: accept the terms on Hugging Face)" if model.gated else ""),
                          f"许可：{model.licence}" + ("（需在 Hugging Face 上同意条款后下载）" if model.gated else "")))
    sources = [Source(source_title("specs", lang, name=g.name), u) for u in g.sources[:1]]
    sources += [Source(source_title("model_config", lang, name=model.name), u) for u in model.sources[:1]]
    sources += [Source(source_title(f"measured_{m.test}", lang, name=f"{m.gpu} {m.model} {m.quant}"), m.url)
                for m in c.measured[:2]]
    sources.append(Source(source_title("quant_bits", lang), q.source))
    data = c.to_json(lang) | {"ladder": [e.to_json(lang) for e in ans.ladder], "cards_needed": ans.cards_needed}
    return Reply("fit", lang, title=_t(lang, f"{setup} × {name_en}: will it run?", f"{setup} 跑 {name_zh} 行吗？"),
                 paragraphs=(verdict,), table=Table(header, tuple(rows)), bullets=tuple(bullets),
                 footer=tuple(a.get(lang) for a in c.assumptions), sources=tuple(dict.fromkeys(sources)),
                 focus=g.name, fit=data)


def _card_size_for(engine: Engine, gb: float) -> float:
    """The smallest memory size cards are sold with that holds `gb` (21 GB -> 24 GB)."""
    return min((g.vram_gb for g in engine.catalog if g.vram_gb >= gb and not g.unified_memory), default=math.ceil(gb))


def _speed_line(engine: Engine, g: GPU, workload: str, count: int, lang: str) -> str | None:
    """How fast the card is for the job, relative to the reference card: the spec-based estimate that ranks picks,
    said to be one (there are no measured images per second in the data)."""
    from bot.perf import load_perf_model

    perf = load_perf_model(engine.knowledge_dir)
    ref = engine.catalog.get(perf.reference_gpu)
    spec = workload_spec(engine.knowledge_dir, workload, engine.today or date.today())
    if ref is None or spec.family not in perf.families:
        return None
    rel = perf.relative(g, spec.family, ref, count)
    if not rel:
        return None
    image = _MODEL_KIND_OF_WORKLOAD.get(spec.name) is not None
    return _t(lang, f"Speed: about {rel:.2f}× a {ref.name} for {spec.label.en} (estimate from specs, calibrated on "
                    f"Lambda's training measurements; no measured {'images per second' if image else 'times per model'} "
                    "in my data).",
              f"速度：做{spec.label.zh}约为 {ref.name} 的 {rel:.2f} 倍（按规格估算，用 Lambda 的训练实测校准；我的数据里没有"
              f"{'实测的每秒出图数' if image else '按具体模型实测的时间'}）。")


def _image_fit(engine: Engine, g: GPU, model, count: int, lang: str, training: bool = False,
               at_16_bit: bool = False) -> Reply:
    """Image and video models: the memory their inference (or LoRA training) needs at 16-bit against the card (one
    card: these pipelines do not split across cards easily), with the lower-memory routes the model table names; a
    card that holds only the lightest of those is a yes that way, unless 16-bit was asked for (`at_16_bit`)."""
    need_gb = model.image_lora_gb if training and model.image_lora_gb else model.image_infer_gb
    job_en, job_zh = ("LoRA training", "LoRA 训练") if training else ("inference at 16-bit", "16 位推理")
    ok = g.vram_gb >= need_gb
    low = not ok and not training and not at_16_bit and model.image_low_gb and g.vram_gb >= model.image_low_gb
    if low:  # "can my 3060 12gb run flux dev?": not at 16-bit, yet the way cards of its size run it
        verdict = _t(lang, f"Yes, with lower-memory weights: at 16-bit {model.name} needs about {need_gb:g} GB, more "
                           f"than the {g.vram_gb:g} GB of the {g.name}, but quantised weights (FP8/NF4/GGUF) or CPU "
                           f"offload bring it down to about {model.image_low_gb:g} GB, which is how cards of this size "
                           "run it: slower than at 16-bit, with quality close to it.",
                     f"可以，用低显存方案：{model.name} 16 位推理约需 {need_gb:g} GB，超过 {g.name} 的 {g.vram_gb:g} GB；"
                     f"但用量化权重（FP8/NF4/GGUF）或 CPU offload 可以降到约 {model.image_low_gb:g} GB，这个显存级别的卡"
                     "通常就这么跑：比 16 位慢，画质接近。")
    else:
        verdict = _t(lang, f"{'Yes' if ok else 'Not as is'}: {model.name} needs about {need_gb:g} GB for {job_en} and "
                           f"{g.name} has {g.vram_gb:g} GB." + ("" if ok else " Lower-memory routes exist (FP8/NF4/"
                                                                   "GGUF weights, CPU offload, smaller batches): slower."),
                     f"{'可以' if ok else '直接跑不下'}：{model.name} {job_zh}约需 {need_gb:g} GB，{g.name} 有 {g.vram_gb:g} GB。"
                     + ("" if ok else "可以用低显存方案（FP8/NF4/GGUF 权重、CPU offload、减小 batch），速度会慢。"))
    bullets = []
    if not training and model.image_lora_gb:
        bullets.append(_t(lang, f"LoRA training needs about {model.image_lora_gb:g} GB.",
                          f"LoRA 训练约需 {model.image_lora_gb:g} GB。"))
    if training and model.image_infer_gb:
        bullets.append(_t(lang, f"Inference at 16-bit needs about {model.image_infer_gb:g} GB.",
                          f"16 位推理约需 {model.image_infer_gb:g} GB。"))
    if model.advice:
        bullets.append(model.advice.get(lang))
    speed = _speed_line(engine, g, _WORKLOAD_OF_MODEL_KIND.get(model.kind, "diffusion"), count, lang)
    if speed:
        bullets.append(speed)
    return Reply("fit", lang, title=_t(lang, f"{g.name} × {model.name}: will it run?", f"{g.name} 跑 {model.name} 行吗？"),
                 paragraphs=(verdict,), bullets=tuple(bullets),
                 sources=tuple(Source(f"{model.name}", u) for u in model.sources[:2]), focus=g.name,
                 fit={"gpu": g.name, "count": count, "model": model.name, "vram_gb": g.vram_gb, "fits": bool(ok or low),
                      "total_gb": model.image_low_gb if low else need_gb, "job": "lora" if training else "inference",
                      "basis": "published figure"})


def _fit_by_memory(engine: Engine, g: GPU, need: Need, count: int, lang: str) -> Reply:
    """Fine-tuning and workloads without a known model: memory against the formulas of bot.vram and the guide's
    memory tiers."""
    have = g.vram_gb * count
    setup = f"{count}× {g.name}" if count > 1 else g.name
    rows, bullets = [], []
    extra_sources: tuple[Source, ...] = ()
    footer = _t(lang, "Memory: weights + KV cache / optimizer states + ~20% overhead (formula only; long contexts and "
                      "bigger batches need more).",
                "显存：权重 + KV 缓存/优化器状态 + 约 20% 额外开销（仅公式估算；长上下文和大 batch 需要更多）。")
    if need.model_size_b:
        options = _model_memory_rows(engine, need, lang)
        fitting = [o for o in options if o[2] <= have]
        size = f"{need.model_size_b:g}B"
        trains = need.workload == "llm_finetune" or bool(need.finetune_method) or _trains_an_llm(need)
        if fitting:
            label, bits, gb = fitting[0]
            speed = ""
            if not trains and g.mem_bandwidth_gbs and bits:
                weights_gb = need.model_size_b * bits / 8
                tps = 0.6 * g.mem_bandwidth_gbs / weights_gb  # layer split: cards take turns, speed does not add
                speed = _t(lang, f", roughly {tps:.0f} tokens/s when generating (formula only: 60% of memory "
                                 "bandwidth over the weights read per token)",
                           f"，生成速度粗估约 {tps:.0f} tokens/s（仅公式估算：显存带宽的 60% 除以每个 token 读取的权重量）")
            verdict = _t(lang, f"Yes: {setup} ({have:g} GB) can run {_a(size)} {size} model at {label} (~{gb:g} GB){speed}.",
                         f"可以：{setup}（{have:g} GB）能跑 {size} 模型，{label}（约 {gb:g} GB）{speed}。")
            if trains:
                verdict = _t(lang, f"Yes: {setup} ({have:g} GB) can fine-tune {_a(size)} {size} model with {label} "
                                   f"(~{gb:g} GB).", f"可以：{setup}（{have:g} GB）能用 {label} 微调 {size} 模型（约 {gb:g} GB）。")
                if _trains_an_llm(need):  # "train a 1B model from scratch"
                    verdict = _t(lang, f"Yes: {setup} ({have:g} GB) can train {_a(size)} {size} model: {label} needs "
                                       f"~{gb:g} GB.", f"可以：{setup}（{have:g} GB）能训练 {size} 模型：{label}约需 {gb:g} GB。")
                speed = training_speed(engine, g, need, count, lang)
                if speed and need.dataset_samples:  # "how long for 10k samples?": the answer is the time
                    verdict += " " + speed
                elif speed:
                    bullets.append(speed)
        else:
            lightest = options[-1]
            cards = math.ceil(lightest[2] / g.vram_gb)
            more = _t(lang, f" {cards}× {g.name} ({cards * g.vram_gb:g} GB) would hold it at {lightest[0]}, split "
                            "across the cards." if cards <= 16 else "",
                      f"{cards} 张 {g.name}（共 {cards * g.vram_gb:g} GB）按 {lightest[0]} 切分后能装下。" if cards <= 16
                      else "")
            verdict = _t(lang, f"No: {_a(size)} {size} model needs about {lightest[2]:g} GB even at {lightest[0]}, and "
                               f"{setup} has {have:g} GB.{more} Other options: a smaller model, a card with more "
                               "memory, or renting by the hour.",
                         f"不行：{size} 模型即使用 {lightest[0]} 也要约 {lightest[2]:g} GB，{setup} 只有 {have:g} GB。"
                         f"{more}也可以换小一点的模型、换大显存的卡，或者按小时租。")
            from bot.fit import settings

            edge = settings(engine.knowledge_dir)["qlora_borderline"]
            if lightest[0] == _METHOD_LABEL["qlora"].get(lang) and lightest[2] <= edge["share"] * have:
                # a little over by the formula: the QLoRA paper fit a 65B model on one 48 GB card
                verdict = _t(lang, f"Borderline: QLoRA on {_a(size)} {size} model comes to ~{lightest[2]:g} GB by my "
                                   f"formula (adapters on every layer, AdamW, 2,048-token samples) against {setup}'s "
                                   f"{have:g} GB. The QLoRA paper fine-tuned a 65B model on a single 48 GB GPU, so it "
                                   "can fit with a smaller LoRA rank, shorter samples and a paged 8-bit optimizer; "
                                   f"expect to tune for it.{more}",
                             f"勉强：按我的公式，QLoRA 微调 {size} 模型约需 {lightest[2]:g} GB（每层都加适配器、AdamW、2,048 "
                             f"token 样本），{setup} 有 {have:g} GB。QLoRA 论文在单张 48 GB 显卡上微调了 65B 模型，所以调小 "
                             f"LoRA 的秩、缩短样本、用分页 8-bit 优化器可以装下，但要花点功夫调。{more}")
                extra_sources = (Source(source_title("qlora_paper", lang), edge["source"]),)
            if need.finetune_method in _LIGHTER:
                # "LoRA on a 12 GB card?": not at 16-bit, but QLoRA (the 4-bit base) is how people do it on such cards;
                # "full fine-tune of 13B on an A6000?": not in full, but LoRA (the next lighter method) fits
                lighter = next((fit for m in _LIGHTER[need.finetune_method]
                                if (fit := [o for o in _model_memory_rows(engine, replace(need, finetune_method=m), lang)
                                            if o[2] <= have])), [])
                if lighter:
                    label, _, gb = lighter[0]
                    base = Text(" on a 16-bit base", "（16 位底座）") if need.finetune_method != "full" else Text("", "")
                    verdict = _t(lang, f"Not with {lightest[0]}{base.en} (~{lightest[2]:g} GB), but yes with "
                                       f"{label} (~{gb:g} GB): {setup} ({have:g} GB) fine-tunes {_a(size)} {size} model that way, "
                                       f"the usual route on cards of this size.{more}",
                                 f"按 {lightest[0]}{base.zh}不行（约 {lightest[2]:g} GB），但用 {label} 可以（约 {gb:g} GB）："
                                 f"{setup}（{have:g} GB）这样能微调 {size} 模型，这个显存级别的卡通常就这么做。{more}")
                    options = options + [(label, _, gb)]
                    speed = training_speed(engine, g, need, count, lang)
                    if speed and need.dataset_samples:
                        verdict += " " + speed
                    elif speed:
                        bullets.append(speed)
        rows = [(label, f"~{gb:g} GB", _t(lang, "fits", "装得下") if gb <= have else _t(lang, "does not fit", "装不下"))
                for label, _, gb in options]
        if count > 1 and not any(o[2] <= g.vram_gb for o in options):
            bullets.append(_t(lang, "Sharded across the cards (ZeRO/FSDP, FSDP+QLoRA): memory adds up and they train "
                                    "in parallel; consumer cards talk over PCIe, which slows sharded training.",
                              "用 ZeRO/FSDP（或 FSDP+QLoRA）分片到多张卡：显存相加，各卡并行训练；消费级卡之间走 PCIe，"
                              "分片训练会慢一些。"))
    else:
        spec = workload_spec(engine.knowledge_dir, need.workload, need.as_of or engine.today or date.today())
        pooled = count == 1 or spec.name in SPLITTABLE_WORKLOADS
        verdict = workload_verdict(spec, setup if pooled else g.name, have if pooled else g.vram_gb, lang,
                                   fp32_only=g.crippled_fp16)
        if count == 1:
            verdict += _roomier_twin_note(engine, g, spec, lang)
        if not pooled:  # an image pipeline or a CNN's data-parallel copies need the whole model on each card
            verdict = _t(lang, f"A second card does not pool memory for {spec.label.en}: each card runs its own copy, "
                               f"so {count} cards make {count} images or batches at a time, not one faster or bigger. ",
                         f"做{spec.label.zh}时多一张卡不会把显存加在一起：每张卡各跑一份，{count} 张卡是同时出 {count} 张图"
                         "（或多跑几个 batch），单张不会更快、也装不下更大的模型。") + verdict
        kind = _MODEL_KIND_OF_WORKLOAD.get(spec.name)
        speed = _speed_line(engine, g, spec.name, count, lang)  # ("3060能训练yolov8吗" then "多快": relative speed)
        if speed:
            bullets.append(speed)
        if kind and count == 1:  # "能跑sd吗": which of the known image models it holds, not only the job's rule of thumb
            from bot.models import load_models

            known = sorted((m for m in load_models(engine.knowledge_dir).models if m.kind == kind and
                            m.image_infer_gb), key=lambda m: m.image_infer_gb)
            runs = [f"{m.name} (~{m.image_infer_gb:g} GB)" for m in known if m.image_infer_gb <= have]
            more = [f"{m.name} (~{m.image_infer_gb:g} GB)" for m in known if m.image_infer_gb > have]
            if runs and have < spec.min_vram_gb:  # under the job's rule of thumb, yet the lighter models run
                verdict = _t(lang, f"Only the lighter models: {setup} has {have:g} GB, under the {spec.min_vram_gb:g} GB "
                                   f"{spec.label.en} usually needs, but it runs {', '.join(runs)}.",
                             f"只能跑轻量的模型：{setup} 有 {have:g} GB，低于{spec.label.zh}通常需要的 {spec.min_vram_gb:g} GB，"
                             f"不过能跑 {'、'.join(runs)}。")
            elif runs:
                bullets.append(_t(lang, f"Runs as published: {', '.join(runs)}.", f"按官方需求能跑：{'、'.join(runs)}。"))
            if more:
                bullets.append(_t(lang, f"Needs more memory (or offloading/quantised weights): {', '.join(more[:4])}.",
                                  f"显存不够（要靠卸载或量化权重）：{'、'.join(more[:4])}。"))
        if spec.caveat:
            bullets.append(spec.caveat.get(lang))
        if g.unified_memory and g.notes.get(lang) and spec.name not in LLM_WORKLOADS:
            bullets.insert(0, g.notes.get(lang))  # a Mac for learning or training: no CUDA, and what it does instead
        # what the verdict rests on: the job's rule of thumb, not a model's weights and KV cache
        footer = _t(lang, f"Memory: the usual rule of thumb for {spec.label.en} (at least {spec.min_vram_gb:g} GB, "
                          f"{spec.comfortable_vram_gb:g} GB comfortable), not a measurement of your model; bigger "
                          "models, images and batches need more.",
                    f"显存：按{spec.label.zh}的常用经验值（至少 {spec.min_vram_gb:g} GB，{spec.comfortable_vram_gb:g} GB "
                    "比较从容）判断，不是按你的模型实测；模型、图片尺寸或 batch 更大就需要更多。")
    header = (_t(lang, "Option", "方案"), _t(lang, "Memory", "显存"), _t(lang, "Verdict", "结论"))
    return Reply("fit", lang, title=_t(lang, f"{setup}: will it fit?", f"{setup} 装得下吗？"), paragraphs=(verdict,),
                 table=Table(header, tuple(rows)) if rows else None, bullets=tuple(bullets),
                 footer=(footer,),
                 sources=tuple(Source(source_title("specs", lang, name=g.name), u) for u in g.sources[:1])
                 + extra_sources, focus=g.name,
                 focus_count=count if count > 1 else None)


def training_speed(engine: Engine, g: GPU, need: Need, count: int, lang: str) -> str | None:
    """The fine-tuning speed line of a setup: for the lightest-to-say method that fits it (the one asked, else LoRA,
    else QLoRA when only that fits), None when nothing fits or the card's throughput is unknown."""

    if not need.model_size_b:
        return None
    method = _method_that_fits(engine, g, need, count)
    return _finetune_speed_line(engine, g, need, method, count, lang) if method else None


def _method_that_fits(engine: Engine, g: GPU, need: Need, count: int = 1) -> str | None:
    """The fine-tuning method to time on a setup: the one asked, else LoRA, else QLoRA (then the lighter ones), the
    first whose memory fits; None when none does."""
    from bot.vram import estimate

    # training an LLM-sized model with no method named ("train a 1B from scratch") is timed as full training first
    methods = [need.finetune_method] if need.finetune_method else ["full", "lora", "qlora"] if _trains_an_llm(need) \
        else ["lora", "qlora"]
    methods += _LIGHTER.get(need.finetune_method, ())
    return next((m for m in methods if estimate(need.model_size_b, m, need.precision_bits,
                                                engine.knowledge_dir).total_gb <= g.vram_gb * count), None)


def training_tokens_per_s(engine: Engine, g: GPU, params_b: float, method: str, count: int = 1) -> float | None:
    """Training tokens a second on `count` of the card: several cards train data-parallel, with ZeRO/FSDP sharding a
    job too big for one card (how multi-GPU fine-tuning is done, FSDP+QLoRA included), at Lambda's measured scaling.
    Formula only; None when the card's throughput is unknown."""
    from bot.fit import finetune_tokens_per_s
    from bot.perf import load_perf_model

    tps = finetune_tokens_per_s(g, params_b, method, engine.knowledge_dir)
    if tps and count > 1:
        tps *= load_perf_model(engine.knowledge_dir).scaling("transformer", count, g)
    return tps


def _took(hours: float, lang: str, short: bool = False) -> str:
    """'22 minutes' / '1.5 hours' / '3.2 days' ('~22 min' / '~1.5 h' in a table cell)."""
    if hours >= 48:
        return _t(lang, f"{'~' if short else ''}{hours / 24:.1f} days", f"约 {hours / 24:.1f} 天" if short else
                  f"{hours / 24:.1f} 天")
    if hours * 60 < 1:  # "20,000 images, one epoch" on a fast card: seconds, not "0 minutes"
        return _t(lang, f"{'~' if short else ''}{max(1, round(hours * 3600))} s" if short else
                  f"{max(1, round(hours * 3600))} seconds", f"约 {max(1, round(hours * 3600))} 秒" if short else
                  f"{max(1, round(hours * 3600))} 秒")
    if short:
        return _t(lang, f"~{hours * 60:.0f} min" if hours < 1 else f"~{hours:.1f} h",
                  f"约 {hours * 60:.0f} 分钟" if hours < 1 else f"约 {hours:.1f} 小时")
    return _t(lang, f"{hours * 60:.0f} minutes" if hours < 1 else f"{hours:.1f} hours",
              f"{hours * 60:.0f} 分钟" if hours < 1 else f"{hours:.1f} 小时")


def _token_count(n: int, lang: str) -> str:
    """'20B' / '1.5T' / '300M' ('200 亿' in Chinese)."""
    if lang == "zh":
        return f"{n / 1e12:g} 万亿" if n >= 1e12 else f"{n / 1e8:g} 亿" if n >= 1e8 else f"{n / 1e4:g} 万"
    return f"{n / 1e12:g}T" if n >= 1e12 else f"{n / 1e9:g}B" if n >= 1e9 else f"{n / 1e6:g}M"


_LIGHTER = {"full": ("lora", "qlora"), "lora": ("qlora",)}  # what to try, in order, when a method does not fit


def _finetune_speed_line(engine: Engine, g: GPU, need: Need, method: str, count: int, lang: str) -> str | None:
    """"How fast would QLoRA be?", "how long for 10k samples?", "how long on 8 H100s for 20B tokens?": training tokens
    a second and the time the user's tokens (else an epoch of their dataset, else a million tokens) take. Several
    cards each holding the whole job train data-parallel (Lambda's measured scaling); a job split by layers runs at
    about one card's speed. Formula only, and said so."""
    from bot.fit import settings

    label = _method_label(method, need).get(lang)
    samples, train_tokens = need.dataset_samples, need.train_tokens
    tps = training_tokens_per_s(engine, g, need.model_size_b, method, count)
    if not tps:
        return None
    cfg = settings(engine.knowledge_dir)["finetune_speed"]
    per_sample = cfg["sample_tokens"]
    parallel = count > 1
    passes = need.epochs or 1
    times = _t(lang, f" × {passes} epochs", f" × {passes} 轮") if passes > 1 else ""
    if train_tokens:
        hours = train_tokens * passes / tps / 3600
        setup = f"{count}× {g.name}" if count > 1 else g.name
        scale = _t(lang, f" ({count} cards data-parallel, ZeRO/FSDP sharding what one card cannot hold; Lambda's "
                         "measured multi-GPU scaling)" if parallel else "",
                   f"（{count} 张卡数据并行，一张装不下的用 ZeRO/FSDP 分片；按 Lambda 实测的多卡扩展）" if parallel else "")
        cfg_basis = _t(lang, f"formula only: ~{cfg['flops_per_param'][method]} FLOPs per parameter per token at "
                             f"{cfg['mfu']:.0%} of the card's FP16 TFLOPS",
                       f"仅公式估算：每个 token 每个参数约 {cfg['flops_per_param'][method]} 次浮点运算，按显卡 FP16 算力的 "
                       f"{cfg['mfu']:.0%} 计")
        return _t(lang, f"Training time: {_token_count(train_tokens, lang)} tokens{times} with {label} on {setup} take about "
                        f"{_took(hours, lang)}, at roughly {tps:,.0f} tokens/s{scale} ({cfg_basis}; measure a few "
                        "steps before planning around it).",
                  f"训练时间：在 {setup} 上用{label}训练 {_token_count(train_tokens, lang)} token{times} 约需 {_took(hours, lang)}，"
                  f"约每秒 {tps:,.0f} 个 token{scale}（{cfg_basis}；正式规划前先跑几步实测）。")
    tokens = samples * per_sample if samples else 1e6
    hours = tokens / tps / 3600
    took = _took(hours, lang)
    flops = cfg["flops_per_param"][method]
    tflops = g.tensor_fp16_tflops or g.fp32_tflops
    slower = _t(lang, f", and QLoRA assumed {cfg['qlora_slowdown']:g}× slower than LoRA for dequantising its 4-bit "
                      "weights" if method == "qlora" else "",
                f"，QLoRA 因反量化 4 位权重按比 LoRA 慢 {cfg['qlora_slowdown']:g} 倍计" if method == "qlora" else "")
    basis = _t(lang, f"formula only: ~{flops} FLOPs per parameter per token at {cfg['mfu']:.0%} of its {tflops:g} FP16 "
                     f"TFLOPS{slower}; measure a few steps before planning around it",
               f"仅公式估算：每个 token 每个参数约 {flops} 次浮点运算，按 {tflops:g} FP16 TFLOPS 的 {cfg['mfu']:.0%} 计{slower}；"
               "正式规划前先跑几步实测")
    split = _t(lang, f" {count} cards data-parallel (ZeRO/FSDP sharding what one card cannot hold; Lambda's measured "
                     "scaling) are counted." if parallel else "",
               f"按 {count} 张卡数据并行计（一张装不下的用 ZeRO/FSDP 分片；Lambda 实测的多卡扩展）。" if parallel else "")
    if samples:
        all_of = _t(lang, f", {_took(hours * passes, lang)} for the {passes} epochs", f"，{passes} 轮共约 "
                    f"{_took(hours * passes, lang)}") if passes > 1 else ""
        return _t(lang, f"Training time: {samples:,} samples of ~{per_sample} tokens (~{tokens / 1e6:.1f}M tokens) take "
                        f"about {took} an epoch{all_of} with {label}, at roughly {tps:,.0f} tokens/s ({basis}; longer "
                        f"samples take proportionally longer).{split}",
                  f"训练时间：{samples:,} 条约 {per_sample} token 的样本（约 {tokens / 1e6:.1f}M token）用 {label} 跑一轮约 "
                  f"{took}{all_of}，约每秒 {tps:,.0f} 个 token（{basis}；样本更长，时间按比例增加）。{split}")
    per_million = round(1e6 / per_sample, -2)
    return _t(lang, f"Training speed: roughly {tps:,.0f} tokens/s with {label}, so one pass over a million training tokens "
                    f"(about {per_million:,.0f} samples of {per_sample} tokens) takes about {took} ({basis}).{split}",
              f"训练速度：用 {label} 大约每秒 {tps:,.0f} 个 token，百万训练 token（约 {per_million:,.0f} 条 {per_sample} token "
              f"的样本）跑一遍约 {took}（{basis}）。{split}")


def power_for_watts(engine: Engine, watts: float, count: int, psu_w: float | None, lang: str) -> Reply:
    """The PSU for a card whose draw the user states ("显卡功耗450w 电源要多大的"), by the same rule as for a named card."""
    paras = _power_paragraphs(watts, count, _t(lang, f"{count}× {watts:.0f} W cards" if count > 1 else
                                                  f"A {watts:.0f} W card", f"{count} 张 {watts:.0f} W 的卡" if count > 1
                                                  else f"{watts:.0f} W 的显卡"), psu_w, lang)
    return Reply("power", lang, title=_t(lang, "Power and PSU", "功耗与电源"), paragraphs=tuple(paras))


def power(engine: Engine, name: str, count: int, psu_w: float | None, lang: str) -> Reply:
    """Power draw and the PSU for one card or a setup of several."""
    return power_of_cards(engine, [name] * count, psu_w, lang)


def mixed_setup(engine: Engine, names: list[str], lang: str) -> Reply:
    """"Could I keep the old one as a second card?": two different cards in one machine — what the memory adds up to and
    for which jobs, how training runs on a pair that is not matched, and the PSU for both."""
    gpus = [g for g in (engine.catalog.get(n) for n in names) if g is not None]
    power = power_of_cards(engine, [g.name for g in gpus], None, lang)
    if len(gpus) != 2 or power.intent != "power":
        return power
    (a, b), total = gpus, sum(g.vram_gb for g in gpus)
    small = min(gpus, key=lambda g: g.vram_gb)
    lead = _t(lang, f"Yes, {a.name} + {b.name} in one machine works: {total:g} GB in all. Running LLMs split by layers "
                    "(llama.cpp, or vLLM/ExLlama across cards) uses both cards' memory, so bigger models fit than on "
                    "either alone. Training one model on both (data parallel) runs at the slower card's pace and within "
                    f"{small.name}'s {small.vram_gb:g} GB, so for training most people use the faster card alone and "
                    "give the other its own jobs (a second experiment, inference, the display). Check the board has a "
                    "second x8/x16 slot with room for both coolers.",
              f"可以，{a.name} + {b.name} 装在一台机器里：共 {total:g} GB。大模型按层切分推理（llama.cpp，或 vLLM/ExLlama "
              "多卡）能用上两张卡的显存，比单张装得下更大的模型。两张一起训练同一个模型（数据并行）时按慢的那张的速度走，"
              f"显存也受 {small.name} 的 {small.vram_gb:g} GB 限制；所以训练时多数人只用快的那张，另一张跑别的任务（第二个实验、"
              "推理、接显示器）。还要确认主板有第二个 x8/x16 插槽，两张卡的散热放得下。")
    return replace(power, title=_t(lang, f"{a.name} + {b.name} in one machine", f"{a.name} + {b.name} 装一台"),
                   paragraphs=(lead,) + power.paragraphs)


def power_of_cards(engine: Engine, names: list[str], psu_w: float | None, lang: str) -> Reply:
    """Power draw and the PSU for a setup, of one kind of card or several ("一张4090加一张3090"): draws added up."""
    cards = [engine.catalog.get(n) for n in names]
    if not cards or any(g is None or not g.tdp_w for g in cards):
        return unknown(lang)
    counted = Counter(g.name for g in cards)
    setup = " + ".join(f"{k}× {n}" if k > 1 else n for n, k in counted.items())
    paras = _power_paragraphs(sum(g.tdp_w for g in cards) / len(cards), len(cards), setup, psu_w, lang)
    one_kind = len(counted) == 1
    return Reply("power", lang, title=_t(lang, "Power and PSU", "功耗与电源"), paragraphs=tuple(paras),
                 sources=tuple(Source(source_title("specs", lang, name=g.name), u)
                               for g in {g.name: g for g in cards}.values() for u in g.sources[:1]),
                 focus=cards[0].name, focus_count=len(cards) if one_kind and len(cards) > 1 else None)


def _power_paragraphs(tdp_w: float, count: int, setup: str, psu_w: float | None, lang: str) -> list[str]:
    total = tdp_w * count
    psu = psu_for(tdp_w, count)
    paras = [_t(lang, f"{setup}: about {total:.0f} W for the card{'s' if count > 1 else ''}; plan a ~{psu} W PSU "
                      f"(the rest of the system, about {SYSTEM_POWER_W} W, plus {HEADROOM_PCT}% headroom for transient "
                      "spikes).",
                f"{setup}：显卡约 {total:.0f} W；电源建议约 {psu} W（加上整机其他部分约 {SYSTEM_POWER_W} W，"
                f"并为瞬时尖峰留 {HEADROOM_PCT}% 余量）。")]
    if psu_w:
        ok = psu_w >= psu
        # short of it: the power limit at which that PSU keeps the same headroom, when the card still works well there
        limit = int((psu_w / PSU_HEADROOM - SYSTEM_POWER_W) / count // 10 * 10)
        if not ok and limit >= MIN_POWER_LIMIT_SHARE * tdp_w:
            each = _t(lang, " each" if count > 1 else "", "每张" if count > 1 else "")
            paras.append(_t(lang, f"{psu_w:.0f} W is not enough at full power, but a good {psu_w:.0f} W unit runs it "
                                  f"with the card{'s' if count > 1 else ''} power-limited to about {limit} W{each} "
                                  f"(nvidia-smi -pl {limit}): a moderate limit costs proportionally less speed than the "
                                  "power it saves (measure it on your job). Otherwise get a bigger PSU.",
                            f"{psu_w:.0f} W 的电源满功率不够，但质量好的 {psu_w:.0f} W 电源可以带：把显卡{each}限功耗到约 "
                            f"{limit} W（nvidia-smi -pl {limit}）；适度限功耗损失的速度比省下的功耗比例小（请在自己的任务上"
                            "实测）。不想限功耗就换个更大的电源。"))
        else:
            paras.append(_t(lang, f"{psu_w:.0f} W is {'enough' if ok else 'not enough'} for that.",
                            f"{psu_w:.0f} W 的电源{'够用' if ok else '不够'}。"))
    if count > 1 and psu > LARGEST_PSU_W:  # "4x 4090": no single ATX PSU is that big
        limit = int((LARGEST_PSU_W / PSU_HEADROOM - SYSTEM_POWER_W) / count // 10 * 10)
        if limit >= MIN_POWER_LIMIT_SHARE * tdp_w:
            cut = _t(lang, f", or power-limit the cards to about {limit} W each (e.g. nvidia-smi -pl {limit}): they then "
                           f"draw {limit * count} W and a {LARGEST_PSU_W:,} W PSU does; a moderate limit costs "
                           "proportionally less speed than the power it saves (measure it on your job)",
                         f"，或者把每张卡限功耗到约 {limit} W（例如 nvidia-smi -pl {limit}）：显卡合计 {limit * count} W，"
                         f"一个 {LARGEST_PSU_W} W 电源就够；适度限功耗损失的速度比省下的功耗比例小（请在自己的任务上实测）")
        else:
            cut = ""
        paras.append(_t(lang, f"That is more than one ATX PSU gives (the biggest workstation units are about "
                              f"{LARGEST_PSU_W:,} W): use two PSUs, on separate circuits if the wall is the limit{cut}. "
                              "Several cards also need the slots, spacing and airflow for them.",
                        f"这超过了单个电源的能力（最大的工作站电源约 {LARGEST_PSU_W} W）：用两个电源，必要时分接两路电路{cut}。"
                        "多卡还要考虑主板插槽、间距和风道。"))
    elif count > 1:
        paras.append(_t(lang, f"Several cards also need the slots, spacing and airflow for them; above ~{LARGEST_PSU_W:,} W "
                              "of PSU a home circuit can become the limit.",
                        f"多卡还要考虑主板插槽、间距和风道；电源超过约 {LARGEST_PSU_W} W 时，家用电路本身可能成为限制。"))
    return paras


def where_to_buy(engine: Engine, name: str, region: str | None, lang: str) -> Reply:
    """Whether and at what price a card is sold, by market, from the catalog's dated prices and notes."""
    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    when = engine.today or date.today()
    rows = []
    markets = (("CNY", "new", _t(lang, "Mainland China, new", "中国大陆，新卡")),
               ("USD", "new", _t(lang, "Global / US, new", "海外/美国，新卡")),
               ("CNY", "used", _t(lang, "Mainland China, used", "中国大陆，二手")),
               ("USD", "used", _t(lang, "Global / US, used", "海外/美国，二手")))
    china = region == "cn"
    asked = "cn" if china else ("global" if region else None)
    # a card not sold new where the user asks: the other market's price, in the user's currency as a conversion
    there = price_elsewhere(g, "CNY" if china else "USD", when, engine.catalog) if asked else None
    for cur, market, label in markets:
        p = g.price(cur, market, when)  # native prices only: a converted price says nothing about a market
        if p is not None:
            conv = _t(lang, f"; {there.conversion_text().en}", f"；{there.conversion_text().zh}") \
                if there and there.rate_on and there.price == p else ""
            builder = _market_word(p, lang) if p.market == "system" else ""  # the row's label says new or used
            rows.append((label, f"{p}{builder} ({_seen(p, lang)}{conv})"))
    paras = []
    # asked about a place outside mainland China ("喺香港幾錢"): that market only, the mainland's rules are not theirs
    others = [m for m in ("cn", "global") if m != asked] if region in (None, "cn") else []
    for market in ([asked] if asked else []) + others:
        block = g.not_sold_in(market, when)
        where = _t(lang, "mainland China", "中国大陆") if market == "cn" else _t(lang, "outside mainland China", "中国大陆以外")
        if block is not None:
            paras.append(_t(lang, f"{'No' if market == asked else 'Note'}: {g.name} is not sold new "
                                  f"{'in ' if market == 'cn' else ''}{where} "
                                  f"(since {block.since:%Y-%m}). {block.note.en}",
                            f"{'不能' if market == asked else '注意'}：{g.name} 自 {block.since:%Y-%m} 起{where}没有新卡销售。"
                            f"{block.note.zh}"))
        elif market == asked and any(a.market == market for a in g.availability):
            rec = max((a for a in g.availability if a.market == market), key=lambda a: a.since)
            paras.append(_t(lang, f"Yes: {g.name} is sold {'in ' if market == 'cn' else ''}{where} (since "
                                  f"{rec.since:%Y-%m}). {rec.note.en}",
                            f"可以：{g.name} 自 {rec.since:%Y-%m} 起在{where}销售。{rec.note.zh}"))
    has_cny = any(p.currency == "CNY" and p.market == "new" for p in g.prices)
    if not paras and china:
        paras.append(_t(lang, f"{g.name}: I have a mainland-China price for it (below)." if has_cny else
                        f"{g.name}: I have no mainland-China price for it; check the note below and local shops "
                        "(JD, Taobao) before counting on it.",
                        f"{g.name}：我有它的国内价格（见下表）。" if has_cny else
                        f"{g.name}：我没有它的国内价格；请看下面的说明，并在京东、淘宝等确认是否有货。"))
    elif not paras:
        paras.append(_t(lang, f"Where {g.name} is sold, with the latest prices I have:",
                        f"{g.name} 的销售情况和我掌握的最新价格："))
    place = load_regions(engine.knowledge_dir).get(region) if region else None
    if place is not None and place.shops:  # where people there buy, new and used
        paras.append(place.shops.get(lang))
    if place is not None and place.note:  # how shop prices there differ, and the US price in their money
        usd = next((p for p in (g.price("USD", "new", when), g.price("USD", "used", when)) if p), None)
        about = format_money(engine.catalog.fx.convert(usd.amount, "USD", place.currency, when), place.currency) \
            if usd and place.currency != "USD" else ""
        paras.append(place.note.get(lang) + (_t(lang, f" {usd} is about {about} at the dated rate.",
                                                f"{usd} 按带日期的汇率约合 {about}。") if about else ""))
    if g.notes:
        paras.append(g.notes.get(lang))
    market_sources = tuple(Source(source_title("availability", lang, name=g.name), a.source) for a in g.availability if a.source)
    if place is not None and place.shops:
        market_sources = tuple(Source(_t(lang, f"Shops: {place.name.en}", f"购买渠道：{place.name.zh}"), u)
                               for u in place.shops_source[:1]) + market_sources
    return Reply("where_to_buy", lang, title=_t(lang, f"Buying {g.name}", f"购买 {g.name}"), paragraphs=tuple(paras),
                 table=Table((_t(lang, "Market", "市场"), _t(lang, "Price (date)", "价格（日期）")), tuple(rows))
                 if rows else None, sources=market_sources[:2] + tuple(Source(source_title("specs_price", lang, name=g.name), u)
                                                                      for u in g.sources[:3]),
                 focus=g.name)


def _images_a_second(engine: Engine, g: GPU, count: int) -> tuple[float, bool] | None:
    """(images a second training a ResNet-50, measured) on `count` cards: Lambda's one-card measurement when it has
    the card, else its measurement on the reference card scaled by the calibrated CNN speed; several cards by the
    family's measured multi-GPU scaling."""
    from bot.perf import lambda_throughput, load_perf_model

    pm = load_perf_model(engine.knowledge_dir)
    measured = lambda_throughput(engine.knowledge_dir, "resnet50")
    ref = engine.catalog.get(pm.reference_gpu)
    if g.name in measured:
        return measured[g.name] * pm.scaling("cnn", count, g), True
    rel = pm.relative(g, "cnn", ref, count) if ref is not None else None
    if rel is None or pm.reference_gpu not in measured:
        return None
    return measured[pm.reference_gpu] * rel, False


def measured_image_cards(engine: Engine) -> list[str]:
    """The cards to time an image run on when the chat has none: the reference card and the fastest consumer and
    data-centre cards Lambda measured."""
    from bot.perf import lambda_throughput, load_perf_model

    measured = lambda_throughput(engine.knowledge_dir, "resnet50")
    known = [(g, measured[g.name]) for g in (engine.catalog.get(n) for n in measured) if g is not None]
    fastest = [max((x for x in known if x[0].segment == seg), key=lambda x: x[1], default=(None, 0))[0]
               for seg in ("consumer", "datacenter")]
    out = [load_perf_model(engine.knowledge_dir).reference_gpu] + [g.name for g in fastest if g is not None]
    return list(dict.fromkeys(out))


def image_training_time(engine: Engine, need: Need, cards: list[str], lang: str) -> Reply:
    """"訓練 ResNet50 在 ImageNet 上，用一張 4090 要幾天", "200k images, 50 epochs, how long on a 3090": the images of the
    run (the dataset's, at its usual epochs unless others are said) over the images a second each card trains a
    ResNet-50 at (Lambda's measurement, or calibrated on it)."""
    from bot.models import load_datasets

    dataset = next((d for d in load_datasets(engine.knowledge_dir) if d.name == need.dataset), None)
    images = need.dataset_samples or (dataset.train_samples if dataset else None)
    if not images:
        return unknown(lang)
    epochs = need.epochs or (dataset.typical_epochs if dataset else None)
    passes = epochs or 1
    if dataset is not None and dataset.image_px and dataset.image_px < 96 and not need.dataset_samples:
        # tiny images: a throughput measured at 224 px says nothing of them; the dataset's own note does
        return Reply("fit", lang, title=_t(lang, f"Training on {dataset.name}: how long?",
                                           f"在 {dataset.name} 上训练要多久？"),
                     paragraphs=(dataset.note.get(lang),), sources=tuple(Source(dataset.name, u)
                                                                           for u in dataset.sources[:1]))
    count = max(1, need.gpu_count or 1)
    gpus = [g for g in (engine.catalog.get(n) for n in cards) if g is not None][:3]
    # images of another side than the measured 224 px: the same network's work grows with the pixels (formula)
    measured_px = int(load_workloads(engine.knowledge_dir).get("cnn", {}).get("measured_image_px", 224))
    side = need.image_px or (dataset.image_px if dataset and not need.dataset_samples else None) or measured_px
    pixels = (side / measured_px) ** 2
    rows = []
    for g in gpus:
        rate = _images_a_second(engine, g, count)
        if rate is not None:
            per_s = rate[0] / pixels
            rows.append((g, per_s, rate[1], images * passes / per_s / 3600))
    if not rows:
        return unknown(lang)
    what = dataset.name if dataset and not need.dataset_samples else _t(lang, f"{images:,} images", f"{images:,} 张图")
    run = _t(lang, f"{what} × {passes} epoch{'s' if passes > 1 else ''}" + (" (the usual recipe)" if dataset and
                                                                                 not need.epochs and epochs else ""),
             f"{what} × {passes} 个 epoch" + ("（常规训练设置）" if dataset and not need.epochs and epochs else ""))

    def setup(g: GPU) -> str:
        return f"{count}× {g.name}" if count > 1 else g.name

    g, rate, measured, hours = rows[0]
    basis = _t(lang, "measured by Lambda" if measured else "calibrated on Lambda's measurements",
               "Lambda 实测" if measured else "按 Lambda 实测校准的估算")
    if pixels != 1:
        basis += _t(lang, f", scaled to {side} px images by their pixels, formula only",
                    f"，按像素数换算到 {side} 像素的图，仅公式估算")
    lead = _t(lang, f"About {_took(hours, lang)} on {setup(g)}: {run} = {images * passes:,} images at ~{rate:,.0f} "
                    f"images/s ({basis}, ResNet-50, FP16 mixed precision).",
              f"{setup(g)} 上约 {_took(hours, lang)}：{run}，共 {images * passes:,} 张图，按每秒约 {rate:,.0f} 张"
              f"（{basis}，ResNet-50，FP16 混合精度）。")
    if not epochs:
        lead += _t(lang, " That is one epoch; multiply by the epochs you run (training from scratch usually runs 100–300 "
                         "epochs, fine-tuning a pretrained model far fewer; general advice).",
                   "这是一个 epoch 的时间，乘以你要跑的轮数（从头训练一般要 100–300 个 epoch，在预训练模型上微调少得多；一般性建议）。")
    bullets = tuple(_t(lang, f"{setup(x)}: ~{r:,.0f} images/s → {_took(h, lang)} "
                             f"({'measured' if m else 'calibrated estimate'})",
                       f"{setup(x)}：每秒约 {r:,.0f} 张 → {_took(h, lang)}（{'实测' if m else '校准估算'}）")
                    for x, r, m, h in rows[1:])
    caveat = _t(lang, f"A ResNet-50-class network at {side} px: a lighter model (ResNet-18, MobileNet) trains several times "
                      "faster, a bigger one or larger images slower. The GPU figure assumes the images arrive fast "
                      "enough: decoding JPEGs at this rate takes many CPU cores or GPU decoding (NVIDIA DALI, FFCV), "
                      "and a slow input pipeline can double the time (general advice).",
                f"以上按 ResNet-50 级别的网络、{side} 像素计：更轻的模型（ResNet-18、MobileNet）会快好几倍，更大的模型或更大的图会更慢。"
                "显卡的速度前提是图片供得上：按这个速度解码 JPEG 需要很多 CPU 核，或用 GPU 解码（NVIDIA DALI、FFCV），"
                "数据读取慢的话时间可能翻倍（一般性建议）。")
    paras = (lead, caveat) + ((dataset.note.get(lang),) if dataset and not need.dataset_samples else ())
    sources = [Source(source_title("benchmarks", lang), LAMBDA_BENCHMARK_URL)]
    if dataset and not need.dataset_samples:
        sources += [Source(dataset.name, u) for u in dataset.sources[:2]]
    return Reply("fit", lang, title=_t(lang, "How long will training take?", "训练要多久？"), paragraphs=paras,
                 bullets=bullets, focus=g.name, sources=tuple(sources))


def training_time(engine: Engine, need: Need, cards: list[str], lang: str, china: bool = False,
                  platforms: tuple[str, ...] = ()) -> Reply:
    """"How long does a 7B LoRA take?": the training time on the cards in the chat (else the rented cards that hold
    the job, cheapest per hour first) and what that time costs at the cheapest dated rental of each, on the platforms
    named when they rent the card ("autodl上租4090…要跑多久": AutoDL's price). Formula only."""
    from bot.fit import settings
    from bot.ownership import cheapest_offer
    from bot.rentals import card_of, offers_for

    today = engine.today or date.today()
    gpus = [g for g in (engine.catalog.get(n) for n in cards) if g is not None]
    if not gpus:
        held = _rentable_cards_that_hold(engine, need, today, china) or \
            _rentable_cards_that_hold(engine, need, today, False)
        gpus = held[2] if held else []

    cfg = settings(engine.knowledge_dir)["finetune_speed"]
    tokens = _job_tokens(need, cfg)
    cur = _display_currency(need, lang, china)
    fx = engine.catalog.fx
    size = f"{need.model_size_b:g}B"
    rows, lines = [], []
    for g in gpus[:3]:
        # "roughly how long on 8 of them": that many cards; else as many as the method asked needs ("全参微调8B" on
        # A100 80GB: two, not LoRA on one)
        n = max(1, need.gpu_count or _count_that_trains(engine, g, need))
        method = _method_that_fits(engine, g, need, n)
        tps = training_tokens_per_s(engine, g, need.model_size_b, method, n) if method else None
        if not tps:
            continue
        hours = tokens / tps / 3600
        took = _took(hours, lang, short=True)
        offers = offers_for(engine.knowledge_dir, [g.name])  # of this card's memory ("A100 40GB" is not the 80 GB)
        offers = [o for o in offers if getattr(card_of(o, list(engine.catalog)), "vram_gb", None) == g.vram_gb] or offers
        offers = [o for o in offers if o.platform in platforms] or offers
        best = cheapest_offer(offers, today, china, lambda o: fx.convert(o.price, o.currency, cur, today))
        cost = "—"
        if best is not None:
            each = fx.convert(best.price, best.currency, cur, today) * n
            total = each * max(hours, 1 / 60)
            spent = _job_money(total, cur)
            cost = _t(lang, f"{spent} on {best.platform} ({hourly(each, cur)}/h, {best.on:%Y-%m})",
                      f"{best.platform} 约 {spent}（每小时 {hourly(each, cur)}，{best.on:%Y-%m}）")
        rows.append((f"{n}× {g.name}" if n > 1 else g.name, _method_label(method, need).get(lang), f"{tps:,.0f}", took,
                     cost))
        lines.append((g, hours, method, cost if best is not None else None, n))
    if not rows:
        return unknown(lang)
    what = _tokens_trained(need, cfg, lang)
    g, hours, method, cost, n = lines[0]
    first = _t(lang, "~", "约 ") + _took(hours, lang)
    rented = _t(lang, f" (rented: {cost})" if cost else "", f"（租用：{cost}）" if cost else "")
    on = _t(lang, f"{n}× {g.name}" if n > 1 else f"{_a(g.name)} {g.name}", f"{n} 张 {g.name}" if n > 1 else g.name)
    label = _method_label(method, need)
    passes = _passes(need)
    verdict = _t(lang, f"{passes.en} over {what} with {label.en} on {_a(size)} {size} model take{'s' * (not need.epochs)}"
                       f" {first} on {on}{rented}{_epochs_multiply(need, 'en')}. Time and cost grow with the tokens "
                       "you train on.",
                 f"用 {label.zh} 训练 {size} 模型，{what}{passes.zh}在 {on} 上{first}{rented}{_epochs_multiply(need, 'zh')}。"
                 "时间和费用随训练的 token 数成正比增加。")
    if n > 1:
        verdict += _t(lang, f" The {n} cards train data-parallel, with ZeRO/FSDP sharding a job too big for one card "
                            "(Lambda's measured multi-GPU scaling; over PCIe, sharded training runs slower than this).",
                      f"{n} 张卡按数据并行计，一张装不下的用 ZeRO/FSDP 分片（Lambda 实测的多卡扩展；走 PCIe 时分片训练会比这慢）。")
    flops = cfg["flops_per_param"][method]
    basis = _t(lang, f"Formula only: ~{flops} FLOPs per parameter per token at {cfg['mfu']:.0%} of "
                     f"each card's FP16 tensor throughput (QLoRA {cfg['qlora_slowdown']:g}× slower); measure a few steps "
                     "before planning around it. Rental cost is time × the cheapest dated hourly price, at least a minute.",
               f"仅公式估算：每个 token 每个参数约 {flops} 次浮点运算，按各卡 FP16 张量算力的 "
               f"{cfg['mfu']:.0%} 计（QLoRA 慢 {cfg['qlora_slowdown']:g} 倍）；正式规划前先跑几步实测。租用费用 = 时间 × "
               "有日期记录的最低小时价。")
    header = tuple(_t(lang, *h) for h in (("Card", "显卡"), ("Method", "方法"), ("Tokens/s", "token/秒"),
                                          ("Time", "时间"), ("Rented", "租用费用")))
    title = _t(lang, "How long will the training take?", "训练要多久？") if _trains_an_llm(need) or _pretrains(need) else \
        _t(lang, "How long will the fine-tune take?", "微调要多久？")
    return Reply("fit", lang, title=title, paragraphs=(verdict,),
                 table=Table(header, tuple(rows)), footer=(basis,), focus=g.name, focus_count=n if n > 1 else None,
                 sources=(Source(_t(lang, "Kaplan et al. 2020 — FLOPs per parameter per training token",
                                    "Kaplan 等 2020 — 每个训练 token 每个参数的浮点运算量"),
                                 "https://arxiv.org/abs/2001.08361"),))


def _lighter_method_that_fits(engine: Engine, need: Need, have_gb: float) -> tuple[str, float] | None:
    """A fine-tune that does not fit `have_gb` as asked: the first lighter method (LoRA, then QLoRA) that does, with
    its memory; None for other jobs or when none fits."""
    from bot.vram import estimate

    if need.workload != "llm_finetune" or not need.model_size_b:
        return None
    for method in _LIGHTER.get(need.finetune_method or "lora", ()):
        gb = round(estimate(need.model_size_b, method, need.precision_bits, engine.knowledge_dir).total_gb, 1)
        if gb <= have_gb:
            return method, gb
    return None


def free_tier_of(engine: Engine, platform: str) -> list:
    """The platform's free GPUs on file (its free-quota offers in rentals.csv)."""
    from bot.rentals import offers_on

    return [o for o in offers_on(engine.knowledge_dir, platform) if o.billing == "free-quota"]


def free_tier_cards(engine: Engine, platform: str) -> set[str]:
    """The catalog names of the platform's free GPUs ("Kaggle gives me free P100/T4": those cards)."""
    from bot.rentals import card_of

    return {g.name for o in free_tier_of(engine, platform) if (g := card_of(o, list(engine.catalog))) is not None}


def free_tier_verdict(engine: Engine, platform: str, need: Need, lang: str) -> str | None:
    """"is colab enough instead", "kaggle免费的够不够我训练CNN": whether the platform's free GPU (its free-quota offers
    in rentals.csv) holds the job in the chat, with the free tier's limits and the platform's framework limits. None
    when the platform has no free GPU on file or no job is known."""
    from bot.knowledge import load_platforms
    from bot.rentals import card_of
    from bot.scorer import memory_needed

    if not need.workloads:
        return None
    today = engine.today or date.today()
    free = [(o, g) for o in free_tier_of(engine, platform) if (g := card_of(o, list(engine.catalog))) is not None]
    row = next((p for p in load_platforms(engine.knowledge_dir) if p.name == platform), None)
    if not free or row is None:
        return None
    o, g = max(free, key=lambda x: x[1].vram_gb)
    spec = workload_spec(engine.knowledge_dir, need.workload, need.as_of or today)
    gb = round(memory_needed(need, spec, engine.knowledge_dir, today)[0], 1)
    have = g.vram_gb
    job = spec.label.get(lang)
    card = f"{o.family} ({have:g} GB)"
    limits = re.sub(r"^(?:yes|有)\s*[:：]\s*", "", row.free_tier.get(lang).strip(), flags=re.I)
    frameworks = row.framework_limits.get(lang)
    paddle = "" if frameworks.lower().startswith(("none", "无")) else _t(lang, f" Mind the software: {frameworks}.",
                                                                       f"注意软件限制：{frameworks}。")
    when = _t(lang, f" (as of {o.on:%Y-%m}; free tiers change, check before you plan on it)",
              f"（{o.on:%Y-%m} 的信息；免费档会变，动手前先确认）")
    if have >= gb:
        comfy = have >= spec.comfortable_vram_gb or bool(need.model_size_b)
        return _t(lang, f"Yes{'' if comfy else ', for small models'}: the free {card} on {row.label.en} is "
                        f"{'enough for' if comfy else 'the minimum for'} {job} (about {gb:g} GB needed"
                        f"{'' if comfy else f', {spec.comfortable_vram_gb:g} GB comfortable'}). Limits: {limits}{when}."
                        f"{paddle}",
                  f"{'够用' if comfy else '小模型够用'}：{row.label.zh}免费的 {card} "
                  f"{'满足' if comfy else '刚够'}{job}（约需 {gb:g} GB"
                  f"{'' if comfy else f'，{spec.comfortable_vram_gb:g} GB 比较从容'}）。限制：{limits}{when}。{paddle}")
    lighter = _lighter_method_that_fits(engine, need, have)
    if lighter is not None:  # "跑得動7B LoRA嗎" on 16 GB: not at 16-bit, yes the way 16 GB cards fine-tune it
        method, lighter_gb = lighter
        label = _METHOD_LABEL[method]
        return _t(lang, f"Yes, with {label.en}: the free {card} on {row.label.en} is under the ~{gb:g} GB "
                        f"{_METHOD_LABEL[need.finetune_method or 'lora'].en} needs here, but {label.en} needs about "
                        f"{lighter_gb:g} GB, which fits. Limits: {limits}{when}.{paddle}",
                  f"可以，用 {label.zh}：{row.label.zh}免费的 {card} 装不下{_METHOD_LABEL[need.finetune_method or 'lora'].zh}"
                  f"需要的约 {gb:g} GB，但 {label.zh} 约需 {lighter_gb:g} GB，装得下。限制：{limits}{when}。{paddle}")
    return _t(lang, f"Not for this: the free {card} on {row.label.en} is under the ~{gb:g} GB "
                    f"{job} needs here; its paid GPUs or a rented card with more memory are the way{when}.{paddle}",
              f"不够：{row.label.zh}免费的 {card} 低于这里{job}需要的约 {gb:g} GB；"
              f"得用它的付费 GPU 或租显存更大的卡{when}。{paddle}")


def _count_that_trains(engine: Engine, g: GPU, need: Need) -> int:
    """How many of a card a fine-tune asks for when none was said ("rent H100s for that"): the fewest (1, 2, 4 or 8,
    as machines come) that hold the method asked, else one (which is timed with the lighter method that fits)."""
    from bot.vram import estimate

    if not need.finetune_method:
        return 1
    gb = estimate(need.model_size_b, need.finetune_method, need.precision_bits, engine.knowledge_dir).total_gb
    return next((n for n in (1, 2, 4, 8) if gb <= g.vram_gb * n), 1)


def training_cost(engine: Engine, need: Need, name: str | None, count: int | None, lang: str, china: bool = False,
                  text: str = "", platforms: tuple[str, ...] = ()) -> Reply:
    """"那在autodl租4090跑完要多少钱" after a training time: the time of that job on that many of the card, times each
    dated hourly price of the card (the platforms named first), so the answer is the job's cost, not a rate card.
    No card (`name` None): the cheapest rented card that holds the job (on the platform named). Formula only, like
    the time it rests on."""
    from bot.fit import settings
    from bot.ownership import INTERRUPTIBLE
    from bot.rentals import card_of, family_of, load_rentals, offers_for

    today = engine.today or date.today()
    if name is None:
        held = _rentable_cards_that_hold(engine, need, today, china) or _rentable_cards_that_hold(engine, need, today)
        if not held:
            return training_time(engine, need, [], lang, china)
        name, count = held[2][0].name, count or held[1]
    g = engine.catalog.get(name)
    if g is None:
        return unknown(lang)
    instead = ""
    asked_for = platforms_named(engine, text) or list(platforms)
    mine = [o for o in offers_for(engine.knowledge_dir, [g.name]) if o.quotable(today)]
    _, on_asked = _platforms_in(engine, text, mine, platforms)
    if not mine or asked_for and not on_asked:
        held = _rentable_cards_that_hold(engine, need, today, china) or _rentable_cards_that_hold(engine, need, today)
        there = [o for o in load_rentals(engine.knowledge_dir) if o.quotable(today)]
        _, names_there = _platforms_in(engine, text, there, platforms)
        there = [o for o in there if o.platform in names_there and held and
                 getattr(card_of(o, list(engine.catalog)), "name", None) in held[3]] if asked_for else []
        card = card_of(min(there, key=lambda o: engine.catalog.fx.convert(o.price, o.currency, "USD", today)),
                       list(engine.catalog)) if there else (held[2][0] if held and not mine else None)
        if card is not None and card.name != g.name:  # a card nobody (or not the platform asked) rents: one that is
            where = ", ".join(asked_for) if there else ""
            instead = _t(lang, f"{g.name}: no dated rental price{f' on {where}' if where else ''} on file, so here is "
                               f"a card {f'on {where}' if where else 'rented by the hour'} that holds the job. ",
                         f"{g.name} 暂无{f' {where} 上' if where else ''}带日期的租用价格，下面换成"
                         f"{f' {where} 上' if where else ''}能租到、装得下这个任务的卡。")
            g, count = card, held[1]
    n = max(1, count or _count_that_trains(engine, g, need))
    method = _method_that_fits(engine, g, need, n)
    tps = training_tokens_per_s(engine, g, need.model_size_b, method, n) if method else None
    if not tps:
        return training_time(engine, need, [name], lang, china)
    cfg = settings(engine.knowledge_dir)["finetune_speed"]
    tokens = _job_tokens(need, cfg)
    hours = tokens / tps / 3600
    cur = _display_currency(need, lang, china)
    fx = engine.catalog.fx
    offers = offers_for(engine.knowledge_dir, [g.name])
    offers = [o for o in offers if getattr(card_of(o, list(engine.catalog)), "vram_gb", None) == g.vram_gb] or offers
    offers = [o for o in offers if o.price > 0 and o.billing not in ("promo", "compute-units")]
    _, named = _platforms_in(engine, text, offers, platforms)
    on_named = [o for o in offers if o.platform in named]
    machines = [o for o in offers if o.billing == "instance"] if n >= 4 else []

    def rate(o) -> float:
        return fx.convert(o.price, o.currency, cur, today)

    def job(o, high: bool = False) -> float:
        return fx.convert(o.price_high if high and o.price_high else o.price, o.currency, cur, today) * n * \
            max(hours, 1 / 60)

    def spent(o) -> str:
        low, top = job(o), job(o, high=True)
        return _job_money(low, cur) + (f"–{_job_money(top, cur)}" if top > low * 1.005 else "")

    offers.sort(key=lambda o: (o.platform not in named, o.billing != "instance" if machines else False,
                               (o.region == "china") != china, o.stale(today), rate(o)))
    steady = [o for o in offers if o.billing not in INTERRUPTIBLE and not o.stale(today)]
    lead = (on_named[0] if on_named else None) or (machines[0] if machines else None) or \
        next((o for o in steady if (o.region == "china") == china), None) or next(iter(steady or offers), None)
    size = f"{need.model_size_b:g}B"
    what = _tokens_trained(need, cfg, lang)
    setup = _t(lang, f"{n}× {g.name}" if n > 1 else f"{_a(g.name)} {g.name}", f"{n} 张 {g.name}" if n > 1 else g.name)
    label = _method_label(method, need)
    passes = _passes(need)
    paras = [instead + _t(lang, f"{passes.en} over {what} with {label.en} on {_a(size)} {size} model "
                                f"take{'s' * (not need.epochs)} ~{_took(hours, lang)} on {setup}.",
                          f"用 {label.zh} 训练 {size} 模型，{what}{passes.zh}在 {setup} 上约 {_took(hours, lang)}。")]
    if hours > MONTH_OF_TRAINING_H and not need.gpu_count:
        paras[0] += _spread_over_more_cards(engine, g, n, hours, lang)
    if asked_for and not on_named:
        asked = ", ".join(asked_for)
        paras[0] += _t(lang, f" {asked}: no dated price for the {family_of(g.name)} on file.",
                       f"{asked}：暂无 {family_of(g.name)} 带日期的价格记录。")
    if lead is not None:
        paras[0] += _t(lang, f" Rented on {lead.platform} that costs about {spent(lead)} "
                             f"({_hourly_cell(engine, lead, cur, lang)} per GPU-hour × {n} × {hours:.1f} h, "
                             f"{_BILLING[lead.billing].en}, {_offer_seen(lead, today, 'en')}){_epochs_multiply(need, 'en')}.",
                       f"在 {lead.platform} 租，约 {spent(lead)}（每卡每小时 {_hourly_cell(engine, lead, cur, lang)} × "
                       f"{n} 张 × {hours:.1f} 小时，{_BILLING[lead.billing].zh}，{_offer_seen(lead, today, 'zh')}）"
                       f"{_epochs_multiply(need, 'zh')}。")
        cheapest = min([o for o in offers if (o.region == "china") == china and not o.stale(today)] or offers, key=job)
        if cheapest is not lead and job(cheapest) < job(lead) * 0.9:
            risky = cheapest.billing in INTERRUPTIBLE
            paras[0] += _t(lang, f" Cheapest on file: {spent(cheapest)} on {cheapest.platform} "
                                 f"({_BILLING[cheapest.billing].en}" + ("; it can be reclaimed mid-run, so save "
                                                                         "checkpoints)." if risky else ")."),
                           f"有记录的最低价：{cheapest.platform} 约 {spent(cheapest)}（{_BILLING[cheapest.billing].zh}"
                           + ("，随时可能被收回，要勤存检查点）。" if risky else "）。"))
    else:
        paras[0] += _t(lang, f" No dated rental price for the {family_of(g.name)} on file.",
                       f"暂无 {family_of(g.name)} 带日期的租用价格记录。")
    if n >= 4 and machines and lead is machines[0]:
        paras.append(_t(lang, f"{n} cards training one job want one machine (NVLink, one network): priced on a "
                              "multi-GPU instance; single-GPU offers are cheaper per GPU but are separate machines.",
                        f"{n} 张卡训练同一个任务要在同一台机器上（NVLink、同一网络）：按多卡整机计价；单卡报价每卡更便宜，但那是分散的机器。"))
    rows = tuple((o.platform, o.gpu_listed.get(lang), _hourly_cell(engine, o, cur, lang),
                  _BILLING[o.billing].get(lang), spent(o), _offer_seen(o, today, lang)) for o in offers[:8])
    header = tuple(_t(lang, *h) for h in (("Platform", "平台"), ("GPU as listed", "所列型号"),
                                            ("Per GPU-hour", "每卡每小时"), ("Billing", "计费"),
                                            (f"This job ({n} GPU{'s' if n > 1 else ''})", f"这个任务（{n} 张卡）"),
                                            ("Date", "日期")))
    flops = cfg["flops_per_param"][method]
    basis = _t(lang, f"Formula only: ~{flops} FLOPs per parameter per token at {cfg['mfu']:.0%} of the card's FP16 "
                     "tensor throughput; job cost = that time × the dated hourly price (a range where the platform "
                     "quotes one). Measure a few steps before you commit; prices change often.",
               f"仅公式估算：每个 token 每个参数约 {flops} 次浮点运算，按该卡 FP16 张量算力的 {cfg['mfu']:.0%} 计；"
               "任务费用 = 这个时间 × 有日期记录的小时价（平台给的是区间就按区间）。正式开跑前先跑几步实测；租价变化频繁。")
    sources = (Source(_t(lang, "Kaplan et al. 2020 — FLOPs per parameter per training token",
                         "Kaplan 等 2020 — 每个训练 token 每个参数的浮点运算量"), "https://arxiv.org/abs/2001.08361"),) + \
        tuple(OrderedDict.fromkeys(Source(f"{o.platform} — {o.gpu_listed.get(lang)} ({o.on:%Y-%m})", o.source)
                                   for o in offers[:8]))[:5]
    return Reply("rent", lang, title=_t(lang, f"What the training run costs rented on {setup}",
                                        f"租 {setup} 跑完这次训练要多少钱"),
                 paragraphs=tuple(paras), table=Table(header, rows) if rows else None, footer=(basis,),
                 sources=sources, follow_up="rent", focus=g.name, focus_count=n if n > 1 else None)


def _job_tokens(need: Need, cfg: dict) -> float:
    """The tokens a run trains on: those said, else the samples said at a typical length, else a million; times the
    epochs said."""
    once = need.train_tokens or (need.dataset_samples * cfg["sample_tokens"] if need.dataset_samples else 1e6)
    return once * (need.epochs or 1)


def _passes(need: Need) -> Text:
    """"One pass" or "3 epochs", as a training time says what it is for."""
    return Text(f"{need.epochs} epochs", f"跑 {need.epochs} 轮") if need.epochs and need.epochs > 1 else \
        Text("One pass", "跑一遍")


MONTH_OF_TRAINING_H = 30 * 24  # a run longer than this is said with the cards that bring it to about a month


def _spread_over_more_cards(engine: Engine, g: GPU, n: int, hours: float, lang: str) -> str:
    """"738 days on 2 H100s": the cards (a multiple of 8, as servers come) that bring the run to about a month at the
    measured multi-GPU scaling, whose GPU-hours, and so rented cost, grow only by what scaling loses."""
    from bot.perf import load_perf_model

    pm = load_perf_model(engine.knowledge_dir)
    base = pm.scaling("transformer", n, g)
    cards = next((k for k in range(8, 4097, 8) if hours * base / pm.scaling("transformer", k, g) <= MONTH_OF_TRAINING_H),
                 None)
    if cards is None:
        return ""
    took = hours * base / pm.scaling("transformer", cards, g)
    extra = cards * took / (n * hours) - 1
    return _t(lang, f" Spread over {cards} cards it takes ~{_took(took, lang)}, for about {extra:.0%} more GPU-hours "
                    "(formula only, at the measured multi-GPU scaling).",
              f"分到 {cards} 张卡上约 {_took(took, lang)}，GPU 小时数多约 {extra:.0%}（仅公式估算，按实测的多卡扩展效率）。")


def _epochs_multiply(need: Need, lang: str) -> str:
    """"; a few epochs multiply it", unless the epochs were said."""
    return "" if need.epochs else _t(lang, "; a few epochs multiply it", "；跑几轮就乘以轮数")


def _job_money(amount: float, cur: str) -> str:
    """What a rented job costs: whole units from 100 up, cents below ("$0.91", "¥21.40", "$247")."""
    return money(amount, cur) if amount >= 100 else f"{CURRENCY_SYMBOLS.get(cur, '$')}{amount:.2f}"


def _tokens_trained(need: Need, cfg: dict, lang: str) -> str:
    """What a training time is for: the tokens said, the samples said, else a million tokens."""
    if need.train_tokens:
        return _t(lang, f"{_token_count(need.train_tokens, 'en')} tokens", f"{_token_count(need.train_tokens, 'zh')} token")
    if need.dataset_samples:
        return _t(lang, f"{need.dataset_samples:,} samples of ~{cfg['sample_tokens']} tokens",
                  f"{need.dataset_samples:,} 条约 {cfg['sample_tokens']} token 的样本")
    return _t(lang, f"a million training tokens (about {round(1e6 / cfg['sample_tokens'], -2):,.0f} samples of "
                    f"{cfg['sample_tokens']} tokens)",
              f"百万训练 token（约 {round(1e6 / cfg['sample_tokens'], -2):,.0f} 条 {cfg['sample_tokens']} token 的样本）")


def power_efficiency(engine: Engine, need: Need, names: list[str], counts: list[int], lang: str) -> str | None:
    """Cards weighed on power ("which one uses less power?"): which draws least, and which does the most work per
    watt for the job (so uses the least energy for the same work). Board power (TDP) and the spec-based speeds."""
    gpus = [engine.catalog.get(n) for n in names]
    if len(gpus) < 2 or any(g is None or not g.tdp_w for g in gpus):
        return None
    spec = workload_spec(engine.knowledge_dir, need.workload, need.as_of or engine.today or date.today())
    watts = [g.tdp_w * n for g, n in zip(gpus, counts, strict=True)]
    perfs = [_perf_of(engine, g, spec.family) for g in gpus]
    order = sorted(range(len(gpus)), key=lambda i: watts[i])
    low = order[0]
    label = [f"{n}× {g.name}" if n > 1 else g.name for g, n in zip(gpus, counts, strict=True)]
    others_en = ", ".join(f"{label[i]} {watts[i]:.0f} W" for i in order[1:])
    others_zh = "，".join(f"{label[i]} {watts[i]:.0f} W" for i in order[1:])
    draw = _t(lang, f"{label[low]} draws {'less' if len(gpus) == 2 else 'the least'}: {watts[low]:.0f} W against "
                    f"{others_en if len(gpus) > 2 else f'{watts[order[1]]:.0f} W'} (board power).",
              f"{label[low]} 功耗{'更' if len(gpus) == 2 else '最'}低：{watts[low]:.0f} W，对 "
              f"{others_zh if len(gpus) > 2 else f'{watts[order[1]]:.0f} W'}（整卡功耗）。")
    if not all(perfs):
        return draw
    per_watt = [p * n / w for p, n, w in zip(perfs, counts, watts, strict=True)]
    ranked = sorted(range(len(gpus)), key=lambda i: per_watt[i], reverse=True)
    best, runner = ranked[0], ranked[1]
    gain = 100 * (per_watt[best] / per_watt[runner] - 1)
    two = len(gpus) == 2
    if gain < 5:
        work = _t(lang, " Per unit of work they are about as efficient, so for the same job they use about the same "
                        "energy." if two else " Per unit of work the most efficient are about even, so for the same "
                        "job they use about the same energy.",
                  "按每单位工作量算，两者能效差不多，同样的任务耗电也差不多。" if two else
                  "按每单位工作量算，能效最高的几张差不多，同样的任务耗电也差不多。")
    else:
        than_en, than_zh = ("", "") if two else (f" than {label[runner]}", f"比 {label[runner]} ")
        work = _t(lang, f" Per unit of work, {label[best]} is about {gain:.0f}% more efficient for {spec.label.en}"
                        f"{than_en}: the same job takes less energy on it"
                        + (", even though it draws more while running." if best != low else "."),
                  f"按每单位工作量算，{label[best]} 做{spec.label.zh}的能效{than_zh}高约 {gain:.0f}%，同样的任务耗电更少"
                  + ("（虽然运行时功率更高）。" if best != low else "。"))
    tip = _t(lang, " Either can be power-limited (nvidia-smi -pl) to 70–80 % for a small loss of speed." if two else
             " Any of them can be power-limited (nvidia-smi -pl) to 70–80 % for a small loss of speed.",
             "两张卡都可以限功耗（nvidia-smi -pl）到 70–80 %，速度损失不大。" if two else
             "这些卡都可以限功耗（nvidia-smi -pl）到 70–80 %，速度损失不大。")
    return _t(lang, "Verdict on power: ", "功耗结论：") + draw + work + tip
