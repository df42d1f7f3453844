"""Bilingual text values: every sentence the advisor says exists in Chinese and English."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.need import CURRENCY_SYMBOLS, format_money


@dataclass(frozen=True)
class Text:
    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def __bool__(self) -> bool:
        return bool(self.en or self.zh)


NO_TEXT = Text("", "")

# The catalog's `segment` codes as a reply says them.
SEGMENTS = {"consumer": Text("consumer", "消费级"), "workstation": Text("workstation", "工作站"),
            "datacenter": Text("data centre", "数据中心"), "mac": Text("Mac", "Mac"),
            "system": Text("computer with unified memory", "统一内存整机")}


def bilingual_columns(header: Sequence[str]) -> list[tuple[str, str]]:
    """(English, Chinese) column pairs of a knowledge table: `x_zh` goes with `x_en`, else with `x` (`name` /
    `name_zh`, `note_en` / `note_zh`). One rule for the loaders and for `knowledge check`, which fails a row that fills
    one side and not the other."""
    cols = set(header)
    out = []
    for zh in header:
        if zh.endswith("_zh"):
            base = zh[:-3]
            en = f"{base}_en" if f"{base}_en" in cols else base
            if en in cols:
                out.append((en, zh))
    return out


def text_of(row: Mapping[str, str], column: str) -> Text:
    """A table cell in both languages: `column` names the English side (`notes`, `note_en`), `<base>_zh` the Chinese.
    A side left empty shows the other (a user's own CSV may have one language; the shipped files are checked)."""
    base = column[:-3] if column.endswith("_en") else column
    en, zh = (row.get(column) or "").strip(), (row.get(f"{base}_zh") or "").strip()
    return Text(en or zh, zh or en)


def money(amount: float, currency: str) -> str:
    """An amount in any currency the advisor understands: '¥8,000', '$1,500', 'NT$30,000', '€2,000', 'JP¥150,000'."""
    return format_money(amount, currency)


def hourly(amount: float, currency: str, high: float | None = None) -> str:
    """A rental price: '$0.34', '¥2.00–3.00', 'NT$10.50'."""
    top = f"–{high:,.2f}" if high else ""
    return f"{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{amount:,.2f}{top}"


# What `/lang` sends as the user's own words (the CLI chat and Telegram alike): the dialogue understands them, and
# the chat keeps the choice (a language; for Chinese, a script: zh-tw / zh-hk Traditional, zh-cn Simplified).
LANG_SENTENCE = {"zh": "用中文回答", "en": "answer in English", "zh-tw": "用繁體中文回答", "zh-hk": "用香港繁體回答",
                  "zh-cn": "用简体中文回答"}


def lang_choice(arg: str) -> str | None:
    """What `/lang <arg>` asks for: a key of LANG_SENTENCE ('zh-Hant' and '繁' are Traditional), or None."""
    a = arg.strip().lower()
    if a.startswith(("zh-hk", "hk", "港")):
        return "zh-hk"
    if a.startswith(("zh-hant", "zh-tw", "tw", "繁", "正")):
        return "zh-tw"
    if a.startswith(("zh-hans", "zh-cn", "简", "簡")):
        return "zh-cn"
    return "zh" if a.startswith(("zh", "cn", "中")) else "en" if a.startswith(("en", "英")) else None


# The speed-vs-price chart's words (bot/charts.py). Chinese is written in Simplified; a Traditional chat's chart is
# converted from it when drawn, like every reply.
CHART = {
    "title": Text("Speed vs price: {workload}", "速度与价格：{workload}"),
    "price": Text("Price ({currency}; prices dated {dates})", "价格（{currency}；价格日期 {dates}）"),
    "dates": Text("{first} – {last}", "{first} 至 {last}"),
    "speed": Text("Relative speed (one {reference} = 1.00)", "相对速度（一张 {reference} = 1.00）"),
    "used": Text(" (used)", "（二手）"),
    "budget": Text("budget {amount}", "预算 {amount}"),
    "shown": Text("this answer's cards", "本次回答的显卡"),
    "others": Text("other cards at similar prices", "价位相近的其他显卡"),
    "used_price": Text("used price", "二手价"),
    "frontier": Text("fastest for the money", "同等价位最快"),
    "caption": Text("Relative speed vs price — the answer's cards in red, other cards at similar prices in grey "
                    "(◆ = used price).",
                    "相对速度与价格——本次回答的显卡为红色，价位相近的其他显卡为灰色（◆ 为二手价）。"),
    "no_data": Text("No price or speed data for these GPUs", "这些显卡没有价格或性能数据"),
}


# How a source is labelled where a reply cites it: the label of our own making around the card, model or workload it
# is about (a cited document keeps its own title). Chinese is written in Simplified; a Traditional reply converts it.
SOURCE_LABELS = {
    "specs": Text("{name} — specs", "{name} — 规格"),
    "qlora_paper": Text("Dettmers et al. — QLoRA: Efficient Finetuning of Quantized LLMs (2023)",
                        "Dettmers 等 — QLoRA：量化大模型的高效微调（2023）"),
    "specs_price": Text("{name} — specs / price", "{name} — 规格 / 价格"),
    "specifications": Text("{name} — specifications", "{name} — 规格参数"),
    "availability": Text("{name} — availability", "{name} — 销售情况"),
    "memory_guidance": Text("Memory guidance: {name}", "显存建议：{name}"),
    "benchmarks": Text("Lambda — deep learning GPU benchmarks", "Lambda — 深度学习 GPU 基准测试"),
    "memory_anatomy": Text("Hugging Face — model memory anatomy", "Hugging Face — 模型训练的显存构成"),
    "transformer_math": Text("EleutherAI — Transformer math 101", "EleutherAI — Transformer 计算入门"),
    "model_config": Text("{name} — config", "{name} — 模型配置"),
    "quant_bits": Text("llama.cpp quantize — bits per weight", "llama.cpp 量化 — 每个权重的位数"),
    "measured_decode": Text("{name} — measured generation speed", "{name} — 实测生成速度"),
    "measured_prefill": Text("{name} — measured prompt speed", "{name} — 实测读入提示词速度"),
}


def source_title(key: str, lang: str, **names: str) -> str:
    """A source's label in `lang`: SOURCE_LABELS[key] with the names filled in."""
    return SOURCE_LABELS[key].get(lang).format(**names)


# Which prices a ratio of speed per money was computed on (it differs between markets), by price-list currency.
PRICE_BASIS = {"CNY": Text("on mainland-China prices", "按中国大陆价格计算"),
               "USD": Text("on US prices", "按美国价格计算")}


# A price list as a reply names it, by its currency: where a card not sold in the user's market is priced instead.
PRICE_LIST = {"CNY": Text("mainland-China price", "中国大陆价格"), "USD": Text("US price", "美国价格")}
CURRENCY_NAMES = {"CNY": Text("CNY", "人民币"), "USD": Text("USD", "美元")}
MARKET_WHERE = {"cn": Text("in mainland China", "中国大陆"), "global": Text("outside mainland China", "中国大陆以外")}


def price_basis(currency: str, lang: str) -> str:
    """'on US prices' / '按中国大陆价格计算'; '' for a currency with no price list of its own."""
    basis = PRICE_BASIS.get(currency)
    return basis.get(lang) if basis else ""


# What the advisor says when `/lang` (or "用繁體中文回答") set the language: the script is named in that script (the
# Chinese is written in Simplified and converted with the reply, so a Traditional chat reads 繁體).
LANG_SET = {"en": "OK, I'll answer in English.", "zh": "好的，之后用中文回答。", "zh-cn": "好的，之后用简体中文回答。",
            "zh-tw": "好的，之后用繁体中文回答。", "zh-hk": "好的，之后用繁体中文（香港用语）回答。"}


def per_thousand(value: float) -> str:
    """Speed per 1,000 of a currency: two decimals, or two significant digits where a thousand buys little (yen, won:
    '0.0067', not '0.01')."""
    return f"{value:.2f}" if value >= 0.095 else f"{value:.2g}"

