"""Text -> Query: language, money, workload, model size, precision, GPU mentions and follow-up cues.

Nothing here guesses: a slot the text does not state stays None, and the dialogue asks for it."""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.catalog import Catalog

log = logging.getLogger(__name__)

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
    "rnn": ("rnn", "rnns", "lstm", "lstms", "gru", "时序", "时间序列", "time series", "time-series", "recurrent",
            "循环神经网络", "语音", "forecasting", "序列模型"),
    "transformer": ("transformer", "transformers", "nlp", "bert", "gpt", "自然语言", "文本", "language model",
                    "语言模型", "attention", "vit", "大模型", "llm", "llms"),
    "cnn": ("cnn", "cnns", "卷积", "图像", "cv", "computer vision", "视觉", "resnet", "yolo", "检测", "分割",
            "image classification", "images", "目标检测", "图像分类", "vision", "convolutional", "图像识别",
            "image recognition", "object detection", "segmentation", "卷积神经网络"),
    "kaggle": ("kaggle", "比赛", "竞赛", "competition", "competitions", "天池"),
    # not "learning" alone: "deep learning" / "machine learning" name the field, not a beginner
    "learning": ("入门", "学习深度学习", "学深度学习", "学习用", "自学", "beginner", "beginners", "新手", "学生", "初学",
                 "练手", "student", "learn", "learning deep learning", "for learning", "just learning",
                 "learning purposes", "course", "课程", "小白", "getting started", "get started", "hobby", "hobbyist"),
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
    unusable_budget: float | None = None  # a stated budget of 0 or beyond any purchase: the reply says so, never guesses

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


@lru_cache(maxsize=256)
def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for a word list: Chinese (and symbol-led) words as substrings, English words on word boundaries."""
    parts = []
    for w in sorted(words, key=len, reverse=True):
        if _CJK.search(w) or not w[:1].isalnum():
            parts.append(re.escape(w))
        else:
            parts.append(r"(?<![a-z0-9])" + re.escape(w) + r"(?![a-z0-9])")
    return re.compile("|".join(parts))


def _any(text: str, words) -> bool:
    return _words_pattern(tuple(words)).search(text) is not None


# --- numbers -----------------------------------------------------------------------------------------------------

# A plain number: "5000", "1.5", "1,500" (thousands separators), never a piece of a longer number or name.
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.\d+)?"
_SCALE = {"k": 1e3, "千": 1e3, "w": 1e4, "万": 1e4, "百万": 1e6, "亿": 1e8, "million": 1e6, "billion": 1e9,
          "thousand": 1e3, "grand": 1e3}
_CNY_WORDS = ("元", "块", "rmb", "cny", "人民币", "¥", "yuan", "大洋", "软妹币")
_USD_WORDS = ("$", "usd", "us dollars", "dollars", "dollar", "刀", "美元", "美金", "bucks", "us$")
# Money in currencies the advisor does not price in: such an amount is not read as a budget at all.
_OTHER_CURRENCY_AFTER = ("港币", "港元", "hkd", "新台币", "台币", "twd", "ntd", "日元", "日币", "円", "yen", "jpy", "euro",
                         "euros", "eur", "€", "欧元", "pounds", "pound", "gbp", "£", "英镑", "卢布", "rub", "rubles",
                         "rupees", "inr", "₹", "韩元", "won", "krw", "aud", "cad", "sgd", "新币", "澳元", "加元")
_OTHER_CURRENCY_BEFORE = ("€", "£", "₹", "₩", "nt$", "hk$", "a$", "c$", "s$", "au$", "ca$", "eur", "gbp", "jpy", "hkd",
                          "twd", "inr", "aud", "cad")
_BUDGET_WORDS = ("预算", "budget", "以内", "以下", "之内", "under", "below", "up to", "at most", "less than", "max",
                 "maximum", "左右", "around", "about", "roughly", "approximately", "有", "have", "got", "spend", "花",
                 "不超过", "within", "价位", "价格", "afford", "spending", "手头", "只有", "钱", "price range", "for less")
_APPROX_WORDS = ("左右", "around", "about", "roughly", "approximately", "~", "上下", "大概", "差不多", "ish", "或者",
                 "approx")
# What a number counts when it is not money: images, tokens, hours, watts, pixels...
_NOT_MONEY_AFTER = re.compile(
    r"\s*(?:张(?!卡|显卡)|个|条|幅|篇|句|层|倍|%|次|轮|步|小时|天|年|月|周|分钟|秒|瓦|w(?:att)?s?\b|度|帧|fps|p\b|hz|"
    r"mhz|ghz|mb|tb|tops|tflops|flops|核|线程|cores?\b|threads?\b|images?\b|samples?\b|photos?\b|pictures?\b|"
    r"steps?\b|epochs?\b|tokens?\b|token|上下文|context|ctx|hours?\b|hrs?\b|h\b|days?\b|years?\b|months?\b|weeks?\b|"
    r"layers?\b|times\b|x\b|×|people|users|人|参数|params?\b|parameters?\b|分辨率|resolution|显示器|monitor|屏|"
    r"video|视频|游戏|gaming|display|rows|行|维|dims?\b|batch|seq|序列|长度|mm|cm|米|公斤|kg|岁|号|楼|分|点)")
_NOT_MONEY_BEFORE = re.compile(r"(?:context|ctx|上下文|长度|length|batch|seq|序列|分辨率|resolution|第|top|前|"
                               r"batch size|bs|lr|epoch|step)\s*(?:of|=|:|为|是|size)?\s*$")

_AMOUNT = (rf"(?P<pre>us\$|\$|¥|usd|rmb|cny)?\s*(?<![\d.])(?<!\d,)(?P<n>{_NUM})(?![\d.])(?!,\d{3}(?!\d))\s*"
           r"(?P<scale>(?:k|w)(?![a-z])|千|百万|万|亿|million|billion|thousand|grand)?")
_RANGE = re.compile(rf"{_AMOUNT}\s*(?:-|–|—|~|到|至|to|and)\s*{_AMOUNT.replace('?P<', '?P<r_')}")
_SINGLE = re.compile(_AMOUNT)
_MONEY_AFTER = re.compile(r"\s*(?:元|块钱|块(?!\s*(?:卡|显卡|@))|刀|美元|美金|人民币|dollars?\b|bucks\b|yuan\b|rmb\b|"
                         r"usd\b)")
_MAX_MONEY = 1e8  # bigger "budgets" are not budgets for one workstation: left alone, never guessed

# Chinese numerals: "八千" -> "8千", "一万五" -> "1.5万", "两张" -> "2张", "七十亿" -> "70亿", "三四千" -> "3千-4千".
_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_RUN = re.compile(r"(?<![万千百亿])[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*")
_CN_PAIR = re.compile(r"([一二两三四五六七八九])([二两三四五六七八九])([十百千万])")


def _cn_value(run: str) -> float | None:
    """The value of a run of Chinese numerals, spoken short forms included ('一万五' = 15000, '三千五' = 3500)."""
    if len(run) > 12:  # no amount, size or count anyone types is this long
        return None
    cn2an = _cn2an()
    try:
        value = float(cn2an.cn2an(run, "smart"))
    except (ValueError, KeyError, IndexError, OverflowError):  # '一二' and other runs that are not one number
        return None
    return value if value > 0 else None


@lru_cache(maxsize=1)
def _cn2an():
    import logging as _logging

    import cn2an

    _logging.getLogger("cn2an").setLevel(_logging.ERROR)  # it warns on every conversion it finds ambiguous
    return cn2an


def _cn_render(run: str, value: float) -> str:
    """Digits with the run's own largest scale word kept, so the money parser still sees '万'/'千'/'亿'."""
    for word, size in (("亿", 1e8), ("万", 1e4), ("千", 1e3)):
        if word in run and value >= size:
            return f"{value / size:.15g}{word}"
    return f"{value:.15g}"  # never '1e+06': the money parser reads plain digits


def chinese_numerals_to_digits(text: str) -> str:
    """'八千块' -> '8千块', '一万五' -> '1.5万', '第一个' -> '第1个'; words that only look numeric ('千万别', '万一')
    are left alone because a number starts with a digit or 十."""
    text = _CN_PAIR.sub(lambda m: (f"{m[1]}{m[3]}-{m[2]}{m[3]}" if _CN_DIGITS[m[2]] == _CN_DIGITS[m[1]] + 1
                                   else m.group()), text)

    def one(m: re.Match) -> str:
        value = _cn_value(m.group())
        return m.group() if value is None else _cn_render(m.group(), value)

    text = _CN_RUN.sub(one, text)
    # mixed forms: '1万5' = 15000, '3千5' = 3500
    return re.sub(r"(?<![\d.])(\d+)([万千])([1-9])(?![\d.千百万])",
                  lambda m: f"{int(m[1]) + int(m[3]) / 10:g}{m[2]}", text)


def _value(n: str, scale: str | None) -> float:
    return float(n.replace(",", "")) * _SCALE.get(scale or "", 1.0)


def _currency_near(text: str, start: int, end: int) -> str | None:
    """The currency written right after an amount ("5000元", "800 dollars"), or just before it ("$800", "rmb 5000")."""
    after = text[end:end + 12].lstrip()
    before = text[max(0, start - 5):start].rstrip()
    for words, cur in ((_USD_WORDS, "USD"), (_CNY_WORDS, "CNY")):
        for w in words:
            if after.startswith(w) and (not w.isascii() or not w[-1].isalpha()
                                        or not after[len(w):len(w) + 1].isalpha()):
                return cur
    for w, cur in (("us$", "USD"), ("usd", "USD"), ("$", "USD"), ("¥", "CNY"), ("rmb", "CNY"), ("cny", "CNY")):
        if before.endswith(w):
            return cur
    return None


def _other_currency(text: str, start: int, end: int) -> bool:
    after = text[end:end + 10].lstrip()
    before = text[max(0, start - 4):start].rstrip()
    if any(after.startswith(w) for w in _OTHER_CURRENCY_AFTER):
        return True
    if re.search(r"[a-z]\$\s*$", text[max(0, start - 4):start]) and not before.endswith("us$"):
        return True  # NT$, HK$, A$...
    return any(before.endswith(w) for w in _OTHER_CURRENCY_BEFORE)


def _counts_something(text: str, start: int, end: int) -> bool:
    """'32k context', '100万张图片', '300w电源', '4k显示器': a number of something other than money."""
    if _NOT_MONEY_AFTER.match(text, end):
        return True
    return bool(_NOT_MONEY_BEFORE.search(text[max(0, start - 16):start]))


def _mask(text: str, spans: list[tuple[int, int]], fill: str = " ") -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            chars[i] = fill if i == a else " "
    return "".join(chars)


def _parse_money(text: str, lang: str) -> tuple[Budget | None, float | None]:
    """The budget, or a bare number the dialogue may take as one (the text has GPU names, sizes and counts masked)."""
    for m in _RANGE.finditer(text):
        if _other_currency(text, m.start(), m.end()) or _counts_something(text, m.start(), m.end()):
            continue
        lo = _value(m["n"], m["scale"])
        hi = _value(m["r_n"], m["r_scale"])
        if m["scale"] is None and m["r_scale"] and lo * _SCALE[m["r_scale"]] <= hi:
            lo *= _SCALE[m["r_scale"]]  # "1-2万", "3到5k" (but "500-2k" is 500 to 2,000)
        cur = (_currency_near(text, m.start(), m.end()) or _prefix_currency(m["pre"]) or
               _prefix_currency(m["r_pre"]))
        if hi > lo > 0 and hi <= _MAX_MONEY and (cur or _any(text, _BUDGET_WORDS) or hi >= 100):
            return Budget(hi, cur or _default_currency(lang), low=lo), None
    bare = None
    for m in _SINGLE.finditer(text):
        value = _value(m["n"], m["scale"])
        if value <= 0 or value > _MAX_MONEY:
            continue
        if m["scale"] == "w" and float(m["n"].replace(",", "")) >= 100:
            continue  # "300w": watts, not 3,000,000
        if _other_currency(text, m.start("n"), m.end()):
            continue
        cur = _prefix_currency(m["pre"]) or _currency_near(text, m.start("n"), m.end())
        if not cur and _counts_something(text, m.start("n"), m.end()):
            continue
        approx = _any(text[max(0, m.start() - 8):m.end() + 8], _APPROX_WORDS)
        if cur:
            return Budget(value, cur, approximate=approx), None
        context = text[max(0, m.start() - 12):m.end() + 8]
        if (m["scale"] or _any(context, _BUDGET_WORDS)) and value >= 50:
            return Budget(value, _default_currency(lang), approximate=approx), None
        if bare is None and value >= 50:
            bare = value
    return None, bare


def _unusable_budget(text: str) -> float | None:
    """A budget that is stated as money but cannot buy anything: zero, or more than _MAX_MONEY."""
    for m in _SINGLE.finditer(text):
        try:
            value = _value(m["n"], m["scale"])
        except (ValueError, OverflowError):
            continue
        if 0 < value <= _MAX_MONEY:
            continue
        cur = _prefix_currency(m["pre"]) or _currency_near(text, m.start("n"), m.end())
        if cur or _any(text[max(0, m.start() - 12):m.end() + 8], ("预算", "budget", "我有", "i have")):
            return value
    return None


def _prefix_currency(pre: str | None) -> str | None:
    if not pre:
        return None
    pre = pre.strip()
    return "USD" if pre in ("$", "us$", "usd") else "CNY"


def _default_currency(lang: str) -> str:
    return "CNY" if lang == "zh" else "USD"


# --- other slots -------------------------------------------------------------------------------------------------

_MODEL_SIZE = re.compile(r"(?<![a-z0-9.$¥])(\d{1,4}(?:\.\d+)?)\s*(b|billion|亿)(?![a-z])(?:\s*(?:参数|params?\b|"
                         r"parameters?\b))?")
_MOE = re.compile(r"(?<![a-z0-9.])(\d{1,3})\s*x\s*(\d{1,4}(?:\.\d+)?)\s*b(?![a-z])")
_MEMORY = re.compile(r"(?<![a-z0-9.])(\d{1,4}(?:\.\d+)?)\s*(gb|g|gib)(?![a-z])\s*(显存|vram|memory|ram|以上|及以上|"
                     r"or more|\+|起步|at least)?")
_MEMORY_MIN_BEFORE = re.compile(r"(?:至少|最少|起码|不少于|at least|minimum|min\.?|need|needs|需要|要)\s*$")
_DATE = re.compile(r"(?<![\d$¥.])(20[12]\d)(?:\s*年\s*(\d{1,2})\s*月|-(\d{1,2})(?:-(\d{1,2}))?|\s*年|(?![\d.]))")
_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")
_EN_MONTH_DATE = re.compile(r"\b(" + "|".join(m[:3] + r"[a-z]*" for m in _EN_MONTHS) + r")\.?\s+(20[12]\d)\b")
_COUNT = re.compile(r"(?<![\d.])(\d{1,3})\s*(?:张(?!\s*(?:图|照|片|纸|表|票|脸|画|样本))|块(?=\s*(?:@|卡|显卡))|块卡|卡|"
                    r"x\s*(?=@)|×\s*(?=@)|\*\s*(?=@)|gpus\b|cards\b|graphics cards\b|块显卡|路|台)")
_COUNT_AFTER = re.compile(r"@\s*(?:[x×*]\s*(\d{1,2})(?![\d.])|\s*(?:,|，)?\s*(\d{1,2})\s*(?:张|块|片))")
_NUMBER_WORDS = r"(one|two|three|four|five|six|seven|eight|single|dual|twin|a pair of|a couple of|quad)"
_COUNT_WORDS = re.compile(_NUMBER_WORDS + r"\s+(?:@|(?:[a-z\-]+\s+){0,2}(?:gpus|cards|graphics cards)\b)")
_ORDINAL_ZH = re.compile(r"第\s*(\d{1,2})\s*(?:个|张|款|名|种)?|(?<![\d.])(\d{1,2})\s*号")
_ORDINAL_HASH = re.compile(r"#\s*(\d{1,2})(?!\d)")
_FIRST_N = re.compile(r"(?:前|first|top)\s*(\d{1,2}|two|three)\s*(?:个|张|款|名|ones|picks|cards|gpus)?")

_LLM_WORDS = ("llm", "llms", "大模型", "大语言模型", "language model", "语言模型", "gpt", "llama", "qwen", "千问", "通义",
              "chatglm", "glm", "mistral", "mixtral", "deepseek", "baichuan", "百川", "gemma", "phi", "yi", "vicuna",
              "chatbot", "ollama", "vllm", "llama.cpp", "gguf")
_RUN_WORDS = ("run", "running", "跑", "运行", "推理", "inference", "部署", "deploy", "serve", "serving", "host", "chat with",
              "load", "加载", "装下", "fit")
_GENERIC_FINETUNE = ("微调", "fine-tune", "fine tune", "finetune", "fine-tuning", "finetuning", "fine tuning", "sft")
_DOMAINS = ("diffusion", "rnn", "cnn")
_PRECISION = ((4, ("4-bit", "4bit", "4 bit", "int4", "q4", "4位", "4比特", "nf4", "awq", "gptq", "4-bits", "4 bits",
                   "fp4", "nvfp4", "w4a16")),
              (8, ("8-bit", "8bit", "8 bit", "int8", "q8", "8位", "8比特", "fp8", "8-bits", "8 bits", "w8a8")),
              (16, ("fp16", "bf16", "16-bit", "16bit", "16 bit", "16位", "半精度", "half precision", "float16",
                    "bfloat16", "16-bits", "unquantized", "unquantised", "不量化", "full precision"
                    )))
_USED = re.compile(r"二手|矿卡|闲鱼|咸鱼|拆机|second[\s-]?hand|secondhand|refurbished|pre-?owned|ebay|"
                   r"(?:buy|buying|go|get|getting|consider|considering|allow|allowing|including|include|new or|"
                   r"or|ok with|fine with|open to|a)\s+used\b|\bused\s+(?:@|cards?\b|gpus?\b|market\b|prices?\b|ones?\b|"
                   r"is\b|ok\b|okay\b|fine\b|allowed\b|or\b|graphics\b|rtx\b|gtx\b|tesla\b)|(?:[\d@,;(]|^)\s*used\b")
_NEW_ONLY = ("全新", "brand new", "new only", "只要新", "only new", "no used", "not used", "新卡")
_NOT_USED = re.compile(r"(?:别|不要|不想|不买|不考虑|不接受|避免|避开|avoid|no|not|don't|do not|never|without)\s*"
                       r"(?:买|要|用|考虑|buy|buying|get|want|consider)?\s*(?:a\s+)?(?:二手|矿卡|拆机|used|second[\s-]?hand)")
_VENDOR_WORDS = (("AMD", ("amd", "a卡", "radeon", "rocm", "锐龙", "镭龙", "超威")),
                 ("Intel", ("intel", "英特尔", "i卡", "锐炫", "oneapi", "intel arc", "arc gpu", "arc card")),
                 ("NVIDIA", ("nvidia", "n卡", "英伟达", "老黄家", "geforce", "quadro")))


def _workload(t: str, model_size: float | None, method: str | None) -> str | None:
    """The workload the text names; generic words ('微调', 'inference') lean to LLMs only without another domain."""
    found = {name for name, words in _WORKLOAD_WORDS.items() if _any(t, words)}
    if not found and not method:
        if model_size and model_size >= 1 and _any(t, _RUN_WORDS):
            return "llm_inference"  # "能跑7B吗", "run a 70B"
        return None
    llm = _any(t, _LLM_WORDS) or bool(model_size and model_size >= 0.5)
    domains = [d for d in _DOMAINS if d in found]
    if method or "llm_finetune" in found:
        if llm or not domains:
            return "llm_finetune"
        return domains[0]  # "LoRA for Stable Diffusion", "fine-tune a ResNet"
    if "llm_inference" in found:
        if llm or not domains:
            return "llm_inference"
        return domains[0]
    if "transformer" in found and model_size and model_size >= 1 and not _any(t, ("bert", "vit")):
        return "llm_inference" if _any(t, _RUN_WORDS) else "transformer"
    for name in _WORKLOAD_WORDS:
        if name in found:
            return name
    return None


def _dates(masked: str, today: date) -> tuple[date | None, list[tuple[int, int]]]:
    """'in 2019', '2020年', '2019年4月', '2019-04-03', 'April 2019' -> a date in the past (None for this year on)."""
    found, spans = None, []
    for m in _DATE.finditer(masked):
        money = re.match(r"\s*(?:[kw](?![a-z])|千|万|块|元|刀)", masked[m.end(1):])
        if money or _currency_near(masked, m.start(1), m.end(1)):
            continue  # "$2020", "2020元": money
        y, month, day = int(m[1]), int(m[2] or m[3] or 0), int(m[4] or 0)
        spans.append(m.span())
        try:
            d = date(y, month, day or 1) if month else date(y, 7, 1)
        except ValueError:
            continue
        if y < 2012 or d >= today or (y >= today.year and not month):
            continue
        found = d
    for m in _EN_MONTH_DATE.finditer(masked):
        month = next(i for i, name in enumerate(_EN_MONTHS, 1) if name.startswith(m[1][:3]))
        d = date(int(m[2]), month, 1)
        spans.append(m.span())
        if d < today:
            found = d
    return found, spans


def _gpu_count(digits: str) -> int | None:
    for m in _COUNT.finditer(digits):
        n = int(m[1])
        if 1 <= n <= 64:
            return n
    for m in _COUNT_AFTER.finditer(digits):
        n = int(m[1] or m[2])
        if 1 <= n <= 16:
            return n
    m = _COUNT_WORDS.search(digits)
    if m:
        return {"one": 1, "single": 1, "two": 2, "dual": 2, "twin": 2, "a pair of": 2, "a couple of": 2,
                "three": 3, "four": 4, "quad": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}[m[1]]
    if _any(digits, ("双卡", "两卡", "dual gpu", "dual-gpu", "multi-gpu pair", "2卡", "双显卡", "双路")):
        return 2
    if _any(digits, ("四卡", "4卡", "quad gpu", "quad-gpu", "四路")):
        return 4
    if _any(digits, ("八卡", "8卡", "八路")):
        return 8
    if _any(digits, ("单卡", "单张", "one gpu", "a single gpu", "single gpu", "one card", "single card", "一张卡")):
        return 1
    return None


def _vendor(masked: str) -> str | None:
    """Only when exactly one vendor is asked for ('AMD vs NVIDIA?' sets none)."""
    named = [v for v, words in _VENDOR_WORDS if _any(masked, words)]
    return named[0] if len(named) == 1 else None


# --- the parser --------------------------------------------------------------------------------------------------

def parse(text: str, catalog: Catalog | None = None, today: date | None = None) -> Query:
    """Read one message. Never raises: anything not understood is left empty."""
    raw = text if isinstance(text, str) else str(text)
    try:
        lang = detect_language(raw)
    except Exception:  # pragma: no cover - detect_language is plain regex work
        lang = "en"
    try:
        return _parse(raw, lang, catalog, today or date.today())
    except Exception:  # a bug must not take the conversation down: the message is then simply not understood
        log.exception("nlu.parse failed on %r", raw[:200])
        return Query(text=raw, lang=lang)


def _parse(raw: str, lang: str, catalog: Catalog | None, today: date) -> Query:
    t = normalise(raw)
    t = re.sub(r"(?<=\d)\s*(vs\.?|versus)\s*(?=[a-z]*\s*\d)", r" \1 ", t)  # "4090vs3090"
    n = chinese_numerals_to_digits(t)  # numbers, names and sizes are read from here; words from `t`

    spans: list[tuple[int, int]] = []
    gpus: list[str] = []
    if catalog is not None:
        for start, end, g in catalog.find_mentions(n):
            if _MONEY_AFTER.match(n, end) or re.search(r"[$¥]\s*$", n[:start]):
                continue  # "1080元", "$2080": money, not a GTX 1080 / RTX 2080
            spans.append((start, end))
            if g.name not in gpus:
                gpus.append(g.name)
    gpu_spans = list(spans)
    masked = _mask(n, spans)

    model_size = None
    for m in _MOE.finditer(masked):
        model_size = float(m[1]) * float(m[2])
        spans.append(m.span())
    if model_size is None:
        for m in _MODEL_SIZE.finditer(masked):
            if _currency_near(masked, m.start(1), m.start(2)) or re.match(r"\s*(?:dollars|usd|美元|rmb|元)",
                                                                           masked[m.end():]):
                continue  # "$1.5 billion" is money talk, not a model
            if m[2] == "亿" and not m.group(0).rstrip().endswith("参数") and \
                    re.search(r"预算|块|元|钱|花", masked[max(0, m.start() - 6):m.end() + 3]):
                continue  # "预算一亿": money; "70亿参数" is a model
            v = float(m[1])
            model_size = v / 10 if m[2] == "亿" else v
            spans.append(m.span())
            break
    min_vram = None
    for m in _MEMORY.finditer(masked):
        v = float(m[1])
        asks = m[3] or _MEMORY_MIN_BEFORE.search(masked[max(0, m.start() - 12):m.start()])
        if 1 <= v <= 4096 and asks:
            min_vram = max(min_vram or 0, v)
        spans.append(m.span())
    as_of, date_spans = _dates(_mask(n, spans), today)
    spans += date_spans
    masked = _mask(n, spans)

    with_gpus = _mask(_mask(n, gpu_spans, "@"), [s for s in spans if s not in gpu_spans])  # a GPU name reads "@"
    gpu_count = _gpu_count(with_gpus)
    count_spans = [m.span() for m in _COUNT.finditer(with_gpus)] + [m.span() for m in _COUNT_AFTER.finditer(with_gpus)]
    budget, bare = _parse_money(_mask(with_gpus, count_spans), lang)
    unusable = _unusable_budget(_mask(with_gpus, count_spans)) if budget is None else None

    method = None
    if _any(t, ("qlora", "q-lora")):
        method = "qlora"
    elif _any(t, ("lora",)):
        method = "lora"
    elif _any(t, ("全参", "full fine-tune", "full finetune", "full fine-tuning", "full fine tuning", "full parameter",
                  "全量微调", "全量", "full-parameter", "fully fine-tune", "full ft")):
        method = "full"
    size = model_size if model_size and 0.05 <= model_size <= 5000 else None
    workload = _workload(t, size, method)
    if method and workload != "llm_finetune":
        method = method if workload is None else None

    precision = None
    for bits, words in _PRECISION:
        if _any(masked, words):
            precision = bits
            break

    used = None
    if _any(t, _NEW_ONLY) or _NOT_USED.search(t):
        used = False
    elif _USED.search(t) or _USED.search(_mask(n, gpu_spans, "@")):  # '二手' reads '2手' once numerals are digits
        used = True
    vendor = _vendor(_mask(n, gpu_spans))

    cues = {c for c, words in _CUE_WORDS.items() if _any(t, words)}
    if re.search(r"\bwhy not\b|为什么不|为啥不|why isn't|why is(n't| not)|why no\b|怎么没有|why didn't", t):
        cues.add("why_not")
    lang_request = next((lg for lg, words in _LANG_SWITCH.items() if _any(t, words)), None)

    ordinals: list[int] = []
    m = _FIRST_N.search(n)
    if m:
        k = {"two": 2, "three": 3}.get(m[1]) or int(m[1])
        ordinals = list(range(1, min(k, 5) + 1))
    else:
        for m in _ORDINAL_ZH.finditer(n):
            ordinals.append(int(m[1] or m[2]))
        for m in _ORDINAL_HASH.finditer(t):
            ordinals.append(int(m[1]))
        plain = re.sub(r"second[\s-]?hand|last (?:year|gen\w*|time|month|week)|at first|first time|first gpu|"
                       r"my first", " ", t)
        for word, k in _ORDINALS_EN.items():
            if _has_word(plain, word) and word != "top":
                ordinals.append(k)
        if _any(t, ("最后一个", "the last one")):
            ordinals.append(-1)
    ordinals = [o for o in dict.fromkeys(ordinals) if -1 <= o <= 10 and o != 0]

    return Query(
        text=raw, lang=lang, budget=budget, bare_number=bare, unusable_budget=unusable, workload=workload,
        finetune_method=method,
        model_size_b=size, precision_bits=precision, gpu_count=gpu_count, used=used, vendor=vendor, as_of=as_of,
        min_vram_gb=min_vram, gpus=tuple(gpus), ordinals=tuple(ordinals), cues=frozenset(cues),
        lang_request=lang_request,
    )
