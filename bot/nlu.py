"""Text -> Query: language, money, workload, model size, precision, GPU mentions and follow-up cues.

Nothing here guesses: a slot the text does not state stays None, and the dialogue asks for it."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.catalog import Catalog

WORKLOADS = ("cnn", "transformer", "rnn", "llm_inference", "llm_finetune", "diffusion", "kaggle", "learning")
FINETUNE_METHODS = ("full", "lora", "qlora")

# Words people use for each workload (lower-case; Chinese matched as substrings, English on word boundaries).
_WORKLOAD_WORDS: dict[str, tuple[str, ...]] = {
    "llm_finetune": ("微调", "fine-tune", "fine tune", "finetune", "fine-tuning", "finetuning", "lora", "qlora",
                     "sft", "全参", "训练大模型", "train an llm", "train a llm", "训练llm"),
    "llm_inference": ("推理", "inference", "部署", "本地跑", "跑大模型", "run llm", "run an llm", "run a llm",
                      "serve", "serving", "chatbot", "ollama", "llama.cpp", "vllm", "local llm", "本地大模型",
                      "run llama", "run qwen", "跑模型"),
    "diffusion": ("diffusion", "stable diffusion", "sd", "sdxl", "flux", "图像生成", "生成图", "画图", "文生图", "ai绘画",
                  "绘图", "image generation", "midjourney", "comfyui"),
    "rnn": ("rnn", "lstm", "gru", "时序", "时间序列", "time series", "time-series", "recurrent", "循环神经网络", "语音"),
    "transformer": ("transformer", "transformers", "nlp", "bert", "gpt", "自然语言", "文本", "language model",
                    "语言模型", "attention", "vit", "大模型", "llm", "llms"),
    "cnn": ("cnn", "cnns", "卷积", "图像", "cv", "computer vision", "视觉", "resnet", "yolo", "检测", "分割",
            "image classification", "images", "目标检测", "图像分类", "vision", "convolutional"),
    "kaggle": ("kaggle", "比赛", "竞赛", "competition"),
    "learning": ("入门", "学习深度学习", "learning", "beginner", "新手", "学生", "初学", "练手", "student", "learn",
                 "course", "课程", "小白", "getting started"),
}

_CUE_WORDS: dict[str, tuple[str, ...]] = {
    "cheaper": ("便宜", "cheaper", "less expensive", "省钱", "低一点", "更低", "cheapest", "lower price", "实惠",
                "lower budget", "budget option", "预算少"),
    "more_memory": ("显存大", "更大显存", "大显存", "显存更大", "more memory", "more vram", "bigger memory",
                    "more ram", "显存多", "更多显存", "larger memory", "显存大一点"),
    "faster": ("更快", "faster", "性能更好", "更强", "more powerful", "quicker", "性能更强", "快一点", "best performance"),
    "lower_power": ("省电", "功耗低", "低功耗", "quieter", "安静", "lower power", "less power", "power efficient",
                    "电费", "噪音", "quiet", "功耗小", "efficient"),
    "why": ("为什么", "why", "理由", "原因", "为啥", "凭什么", "how come"),
    "compare": ("对比", "比较", "compare", "comparison", " vs", "vs.", "versus", "哪个好", "哪个更好", "区别",
                "difference", "差别", "还是"),
    "more_info": ("详细", "more about", "tell me more", "展开", "多说", "介绍一下", "details", "detail"),
    "rent": ("租", "rent", "renting", "cloud", "云", "在线", "online", "by the hour", "按小时", "平台", "platform"),
    "china": ("国内", "in china", "中国", "大陆", "mainland"),
    "reset": ("重新开始", "start over", "reset", "清空", "重来", "new conversation", "新对话", "/reset", "/new"),
    "help": ("help", "帮助", "你能做什么", "what can you do", "怎么用", "how do i use", "/help", "/start", "使用说明"),
    "recommend": ("推荐", "买", "buy", "recommend", "which gpu", "what gpu", "哪张", "什么卡", "哪款", "选", "purchase",
                  "should i get", "get for", "建议", "配什么", "装机", "选购", "显卡", "gpu for", "card for"),
}
_LANG_SWITCH = {
    "en": ("in english", "english please", "speak english", "用英文", "说英文", "英文回答", "英语"),
    "zh": ("in chinese", "用中文", "说中文", "中文回答", "chinese please", "讲中文"),
}

_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3,
                "4th": 4, "5th": 5, "top": 1, "last": -1}
_NUMBER_WORDS_EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "single": 1,
                    "dual": 2, "a pair of": 2}


@dataclass(frozen=True)
class Budget:
    amount: float  # the upper bound
    currency: str  # "CNY" | "USD"
    low: float | None = None  # a range's lower end ("5000-8000")
    approximate: bool = False  # "左右", "around": a little over is still in the spirit

    def __str__(self) -> str:
        sym = "¥" if self.currency == "CNY" else "$"
        return f"{sym}{self.low:,.0f}–{sym}{self.amount:,.0f}" if self.low else f"{sym}{self.amount:,.0f}"


@dataclass(frozen=True)
class Query:
    """What one message says. Slots the text does not state are None."""

    text: str
    lang: str
    budget: Budget | None = None
    bare_number: float | None = None  # a number with no unit ("5000"): a budget only if the dialogue asked for one
    workload: str | None = None
    finetune_method: str | None = None
    model_size_b: float | None = None
    precision_bits: int | None = None
    gpu_count: int | None = None
    used: bool | None = None
    vendor: str | None = None
    as_of: date | None = None
    min_vram_gb: float | None = None
    gpus: tuple[str, ...] = ()
    ordinals: tuple[int, ...] = ()
    cues: frozenset[str] = field(default_factory=frozenset)
    lang_request: str | None = None

    def slots(self) -> dict:
        d = asdict(self)
        d.pop("text")
        d["cues"] = sorted(self.cues)
        d["budget"] = asdict(self.budget) if self.budget else None
        d["as_of"] = self.as_of.isoformat() if self.as_of else None
        return d


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def detect_language(text: str) -> str:
    """'zh' when the text has Chinese characters in meaningful share, else 'en'."""
    cjk = len(_CJK.findall(text))
    latin_words = len(re.findall(r"[A-Za-z]{2,}", text))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= 2 or cjk >= latin_words else "en"


@lru_cache(maxsize=1)
def _zhconv():
    import zhconv

    return zhconv


def normalise(text: str) -> str:
    """Full-width to half-width, Traditional to Simplified, control characters to spaces, lower-case."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text)
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") else c for c in text)
    if _CJK.search(text):
        text = _zhconv().convert(text, "zh-cn")
    return text.lower()


def _has_word(text: str, word: str) -> bool:
    if _CJK.search(word) or not word[:1].isalnum():
        return word in text
    return re.search(r"(?<![a-z0-9])" + re.escape(word) + r"(?![a-z0-9])", text) is not None


def _any(text: str, words) -> bool:
    return any(_has_word(text, w) for w in words)


# --- numbers -----------------------------------------------------------------------------------------------------

_NUM = r"\d+(?:\.\d+)?"
_SCALE = {"k": 1e3, "千": 1e3, "w": 1e4, "万": 1e4, "m": 1e6, "百万": 1e6, "million": 1e6, "thousand": 1e3, "grand": 1e3}
_CNY_WORDS = ("元", "块", "rmb", "cny", "人民币", "¥", "￥", "yuan", "大洋")
_USD_WORDS = ("$", "usd", "dollar", "dollars", "刀", "美元", "美金", "bucks", "us$")
_BUDGET_WORDS = ("预算", "budget", "以内", "以下", "之内", "under", "below", "up to", "at most", "less than", "max",
                 "maximum", "左右", "around", "about", "roughly", "approximately", "有", "have", "got", "spend", "花",
                 "不超过", "within", "价位", "价格")
_APPROX_WORDS = ("左右", "around", "about", "roughly", "approximately", "~", "上下", "大概", "差不多")

_AMOUNT = (rf"(?P<pre>\$|us\$|¥|￥|usd\s*|rmb\s*|cny\s*)?(?P<n>{_NUM})\s*(?P<scale>k|w|千|万|百万|million|thousand|grand)?"
           r"(?![\d.])")
_RANGE = re.compile(rf"{_AMOUNT}\s*(?:-|–|~|到|至|to)\s*{_AMOUNT.replace('?P<', '?P<r_')}")
_SINGLE = re.compile(_AMOUNT)
_CN_NUMERAL = re.compile(r"[零一二两三四五六七八九十百千万亿]+")


def _chinese_numerals_to_digits(text: str) -> str:
    """'八千' -> '8000', '一万五' -> '15000'; leaves everything else alone."""
    if not _CN_NUMERAL.search(text):
        return text
    import cn2an

    try:
        return cn2an.transform(text, "cn2an")
    except Exception:  # cn2an raises on odd input; keep the text as it was
        return text


def _value(n: str, scale: str | None) -> float:
    return float(n) * _SCALE.get(scale or "", 1.0)


def _currency_near(text: str, start: int, end: int) -> str | None:
    """The currency written next to an amount: up to 12 characters either side."""
    before, after = text[max(0, start - 6):start], text[end:end + 12]
    for words, cur in ((_USD_WORDS, "USD"), (_CNY_WORDS, "CNY")):
        for w in words:
            if w in before[-5:] and w in ("$", "us$", "¥", "￥", "usd", "rmb", "cny"):
                return cur
            if after.lstrip().startswith(w):
                return cur
    return None


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            chars[i] = " "
    return "".join(chars)


_MODEL_SIZE = re.compile(rf"(?<![a-z0-9.])({_NUM})\s*(b|billion|亿)(?![a-z])(?:\s*参数)?")
_MOE = re.compile(rf"(\d+)\s*x\s*({_NUM})\s*b(?![a-z])")
_MEMORY = re.compile(rf"({_NUM})\s*(gb|g|gib)(?![a-z])\s*(?:显存|vram|memory|ram|以上|及以上|or more|\+)?")
_YEAR = re.compile(r"(?<!\d)(20[12]\d)(?:\s*年|\b)")
_COUNT = re.compile(r"(\d+)\s*(?:张|块卡|卡|x\s*(?=[a-z]*\s*\d)|×|gpus|cards|块显卡|路)")
_ORDINAL_ZH = re.compile(r"第\s*(\d+)\s*(?:个|张|款|名|种)?|(\d+)\s*号")
_ORDINAL_HASH = re.compile(r"#\s*(\d+)")
_FIRST_N = re.compile(r"(?:前|first|top)\s*(\d+|two|three)\s*(?:个|张|款|名|ones|picks|cards|gpus)?")


def _parse_money(text: str, lang: str) -> tuple[Budget | None, float | None]:
    """The budget, or a bare number the dialogue may take as one."""
    m = _RANGE.search(text)
    if m:
        lo = _value(m["n"], m["scale"] or m["r_scale"])
        hi = _value(m["r_n"], m["r_scale"])
        cur = (_currency_near(text, m.start(), m.end()) or _prefix_currency(m["pre"]) or
               _prefix_currency(m["r_pre"]))
        if hi > lo > 0 and (cur or _any(text, _BUDGET_WORDS) or hi >= 100):
            return Budget(hi, cur or _default_currency(lang), low=lo), None
    bare = None
    for m in _SINGLE.finditer(text):
        value = _value(m["n"], m["scale"])
        if value <= 0:
            continue
        cur = _prefix_currency(m["pre"]) or _currency_near(text, m.start(), m.end())
        approx = _any(text[max(0, m.start() - 8):m.end() + 8], _APPROX_WORDS)
        if cur:
            return Budget(value, cur, approximate=approx), None
        context = text[max(0, m.start() - 12):m.end() + 8]
        if m["scale"] or _any(context, _BUDGET_WORDS):
            if value >= 50:
                return Budget(value, _default_currency(lang), approximate=approx), None
        if bare is None and value >= 50:
            bare = value
    return None, bare


def _prefix_currency(pre: str | None) -> str | None:
    if not pre:
        return None
    pre = pre.strip()
    return "USD" if pre in ("$", "us$", "usd") else "CNY"


def _default_currency(lang: str) -> str:
    return "CNY" if lang == "zh" else "USD"


# --- the parser --------------------------------------------------------------------------------------------------

def parse(text: str, catalog: Catalog | None = None, today: date | None = None) -> Query:
    """Read one message. Never raises: anything not understood is left empty."""
    raw = text if isinstance(text, str) else str(text)
    lang = detect_language(raw)
    t = normalise(raw)
    today = today or date.today()

    spans: list[tuple[int, int]] = []
    gpus: list[str] = []
    if catalog is not None:
        for m in catalog._mention_pattern.finditer(t):
            g = catalog.lookup(m.group(1))
            if g:
                spans.append(m.span())
                if g.name not in gpus:
                    gpus.append(g.name)
    masked = _mask(t, spans)

    model_size = None
    for m in _MOE.finditer(masked):
        model_size = float(m[1]) * float(m[2])
        spans.append(m.span())
    if model_size is None:
        for m in _MODEL_SIZE.finditer(masked):
            v = float(m[1])
            model_size = v / 10 if m[2] == "亿" else v
            spans.append(m.span())
            break
    min_vram = None
    for m in _MEMORY.finditer(masked):
        v = float(m[1])
        if 1 <= v <= 4096:
            min_vram = max(min_vram or 0, v) if _any(m.group(0), ("显存", "vram", "memory", "以上", "or more", "+"))\
                else min_vram
        spans.append(m.span())
    as_of = None
    for m in _YEAR.finditer(masked):
        y = int(m[1])
        if 2016 <= y <= today.year:
            as_of = date(y, 7, 1) if y < today.year else None
        spans.append(m.span())
    masked = _mask(t, spans)

    digits = _chinese_numerals_to_digits(masked)
    gpu_count = None
    for m in _COUNT.finditer(digits):
        n = int(m[1])
        if 1 <= n <= 64:
            gpu_count = n
            break
    if gpu_count is None:
        if _any(t, ("双卡", "两卡", "dual gpu", "dual-gpu", "two gpus", "two cards", "2 gpus", "a pair of")):
            gpu_count = 2
        elif _any(t, ("four gpus", "four cards", "四卡")):
            gpu_count = 4
        elif _any(t, ("单卡", "one gpu", "a single gpu", "single gpu", "one card")):
            gpu_count = 1
    count_spans = [m.span() for m in _COUNT.finditer(digits)]
    budget, bare = _parse_money(_mask(digits, count_spans), lang)

    workload = None
    for name, words in _WORKLOAD_WORDS.items():
        if _any(t, words):
            workload = name
            break
    method = None
    if _any(t, ("qlora",)):
        method = "qlora"
    elif _any(t, ("lora",)):
        method = "lora"
    elif _any(t, ("全参", "full fine-tune", "full finetune", "full fine-tuning", "full parameter", "全量微调")):
        method = "full"
    if method and workload not in ("llm_finetune",):
        workload = "llm_finetune"
    if workload in ("transformer",) and model_size and model_size >= 1 and not _any(t, ("bert",)):
        workload = "llm_inference" if _any(t, ("run", "跑", "推理", "inference")) else workload

    precision = None
    for bits, words in ((4, ("4-bit", "4bit", "4 bit", "int4", "q4", "4位", "nf4", "awq", "gptq")),
                        (8, ("8-bit", "8bit", "8 bit", "int8", "q8", "8位", "fp8")),
                        (16, ("fp16", "bf16", "16-bit", "16bit", "半精度", "half precision"))):
        if _any(t, words):
            precision = bits
            break

    used = None
    if _any(t, ("二手", "used", "second-hand", "second hand", "secondhand", "矿卡", "闲鱼", "refurbished", "ebay")):
        used = True
    elif _any(t, ("全新", "brand new", "new only", "只要新")):
        used = False
    vendor = None
    for v, words in (("AMD", ("amd", "a卡", "radeon", "rocm", "mi300", "mi250")),
                     ("Intel", ("intel", "英特尔", "arc", "i卡")),
                     ("NVIDIA", ("nvidia", "n卡", "英伟达", "cuda"))):
        if _any(t, words):
            vendor = v
            break

    cues = {c for c, words in _CUE_WORDS.items() if _any(t, words)}
    if re.search(r"\bwhy not\b|为什么不|为啥不|why isn't|why is(n't| not)|why no\b|怎么没有|why didn't", t):
        cues.add("why_not")
    lang_request = next((lg for lg, words in _LANG_SWITCH.items() if _any(t, words)), None)

    ordinals: list[int] = []
    m = _FIRST_N.search(digits)
    if m:
        n = {"two": 2, "three": 3}.get(m[1]) or int(m[1])
        ordinals = list(range(1, min(n, 5) + 1))
    else:
        for m in _ORDINAL_ZH.finditer(digits):
            ordinals.append(int(m[1] or m[2]))
        for m in _ORDINAL_HASH.finditer(t):
            ordinals.append(int(m[1]))
        for word, n in _ORDINALS_EN.items():
            if _has_word(t, word) and word != "top":
                ordinals.append(n)
        if _any(t, ("最后一个", "the last one")):
            ordinals.append(-1)
    ordinals = [o for o in dict.fromkeys(ordinals) if -1 <= o <= 10 and o != 0]

    return Query(
        text=raw, lang=lang, budget=budget, bare_number=bare, workload=workload, finetune_method=method,
        model_size_b=model_size if model_size and 0.05 <= model_size <= 5000 else None, precision_bits=precision,
        gpu_count=gpu_count, used=used, vendor=vendor, as_of=as_of, min_vram_gb=min_vram, gpus=tuple(gpus),
        ordinals=tuple(ordinals), cues=frozenset(cues), lang_request=lang_request,
    )
