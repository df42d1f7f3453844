"""Extractors for the job: model size, precision, fine-tuning method and the workloads."""

from __future__ import annotations

import re
from functools import lru_cache

from bot.need import LLM_WORKLOADS, WORKLOADS
from bot.slots.context import clauses_from
from bot.slots.lexicon import load, words
from bot.slots.text import has_any, mask, search_any, words_pattern

Spans = list[tuple[int, int]]

_MODEL_SIZE = re.compile(r"(?:(?<![a-z0-9.$¥€£])|(?<=glm)|(?<=qwen)|(?<=llama)|(?<=gemma)|(?<=phi)|(?<=yi)|"
                         r"(?<=mistral)|(?<=deepseek)|(?<=baichuan)|(?<=internlm))"
                         r"(\d{1,4}(?:\.\d+)?)\s*(b|billion|亿)(?![a-z])(?:\s*(?:参数|params?\b|parameters?\b))?")
_MOE = re.compile(r"(?<![a-z0-9.])(\d{1,3})\s*x\s*(\d{1,4}(?:\.\d+)?)\s*b(?![a-z])")
_MOE_ACTIVE = re.compile(r"(?<![a-z0-9.])(\d{1,4})b[-\s]?a(\d{1,3}(?:\.\d+)?)b(?![a-z])")  # qwen3-30b-a3b


def model_size(text: str) -> tuple[float | None, Spans]:
    """Billions of parameters: '14B', '70亿参数' (7), '8x7b' (56), 'qwen3-30b-a3b' (30). '$1.5 billion' and
    '预算一亿' are money."""
    for rx in (_MOE_ACTIVE, _MOE):
        m = rx.search(text)
        if m:
            size = float(m[1]) if rx is _MOE_ACTIVE else float(m[1]) * float(m[2])
            return (size if 0.05 <= size <= 5000 else None), [m.span()]
    found = []
    for m in _MODEL_SIZE.finditer(text):
        before = text[max(0, m.start() - 3):m.start()]
        if re.search(r"[$¥€£]\s*$", before) or re.match(r"\s*(?:dollars|usd|美元|rmb|元|euros?)", text[m.end():]):
            continue  # "$1.5 billion" is money talk, not a model
        if m[2] == "亿" and not m.group(0).rstrip().endswith("参数") and \
                re.search(r"预算|块|元|钱|花", text[max(0, m.start() - 6):m.end() + 3]):
            continue  # "预算一亿": money; "70亿参数" is a model
        v = float(m[1])
        found.append((v / 10 if m[2] == "亿" else v, m.span()))
    if not found:
        return None, []
    # "13B换成32B", "from 13b to 32b", "32B instead of 13B": the size it changes to, not the one it leaves
    kept = [f for f in found if len(found) > 1 and not _left_behind(text, *f[1])]
    size, span = kept[-1] if kept and len(kept) < len(found) else found[0]
    return (size if 0.05 <= size <= 5000 else None), [span]


def _left_behind(text: str, start: int, end: int) -> bool:
    """A size the message moves away from: followed by a word of change ("13B换成…", "13b to …") or after a word
    that turns it down ("instead of 13B", "不要13B")."""
    rest = text[end:].lstrip()
    rest = re.sub(r"^(?:的|models?|模型)\s*", "", rest)
    return bool(words_pattern(tuple(words("slots", "size_change"))).match(rest) or
                re.search(f"(?:{words_pattern(tuple(words('slots', 'turned_down'))).pattern})\\s*$",
                          text[max(0, start - 14):start]))


def precision(text: str) -> int | None:
    """4, 8 or 16 bits when the message states it ('Q4_K_M', 'AWQ', 'fp16', '不量化')."""
    for bits, ws in words("slots", "precision").items():
        if has_any(text, ws):
            return int(bits)
    return None


def finetune_method(text: str) -> str | None:
    """The method named first ('full finetune instead of lora' is full)."""
    found = []
    for method in ("qlora", "lora", "full"):
        m = search_any(text, words("slots", "finetune_method", method))
        if m:
            found.append((m.start(), -len(m.group()), method))
    return min(found)[2] if found else None


_GENERIC_FINETUNE = ("微调", "fine-tune", "fine tune", "finetune", "fine-tuning", "finetuning", "fine tuning", "sft")
_SIZED_MODEL = re.compile(r"(?<![a-z0-9.])\d+(?:\.\d+)?\s*b\s*(?:的|參數的|参数的)?\s*(?:模型|model\b|models\b|param)")
_DOMAINS = ("diffusion", "video", "speech", "rl", "recsys", "scientific", "rnn", "cnn", "kaggle")


def _first_match(text: str, ws: tuple[str, ...]) -> int | None:
    m = search_any(text, ws)
    return m.start() if m else None


def _without_dropped(text: str) -> str:
    """The text with each dropped workload's clause masked: from a negation ("不做", "forget", "not") to the end
    of its clause or the word that names what replaces it ("改成", "just", "now")."""
    spans = clauses_from(text, words("slots", "workload_negation", "words"))
    return mask(text, spans) if spans else text


def workloads(text: str, size: float | None, method: str | None, named_llm: bool = False) -> tuple[str, ...]:
    """The workloads the text names, in the order it names them. Generic words ('微调', 'inference') mean LLM work
    only when an LLM is meant (an LLM word or a model size); 'deep learning' alone is `general`."""
    text = words_pattern(words("slots", "platform_names")).sub(" ", text)
    text = _without_dropped(text)
    lex = load("workloads")
    spans = {w: m.span() for w in WORKLOADS if w in lex and (m := search_any(text, lex[w]))}
    # a word inside a longer one names nothing of its own ("图像" in "图像生成" is not computer vision)
    at = {w: a for w, (a, b) in spans.items()
          if not any(o != w and oa <= a and b <= ob and (ob - oa) > (b - a) for o, (oa, ob) in spans.items())}
    llm_pos = _first_match(text, words("slots", "llm_words"))
    if llm_pos is None and named_llm:
        llm_pos = 0  # "qwen3-30b-a3b on an 8GB card": the model table knows it is an LLM
    image_sized = bool(size) and _image_model_sized(text, size)  # "flux 12b": the image model's size, no LLM
    llm = llm_pos is not None or bool(size and size >= 0.5 and not image_sized)
    runs = has_any(text, words("slots", "run_words"))
    trains = has_any(text, words("slots", "cues", "train_words"))
    domains = [d for d in at if d in _DOMAINS]
    if llm_pos is None and domains and (m := _SIZED_MODEL.search(text)):
        llm_pos = m.start()  # "想跑SD和本地7B模型": beside another job, a model called by its size is an LLM
    if llm_pos is None and domains and size and size >= 1 and not image_sized and runs:
        llm_pos = model_size(text)[1][0][0]  # "run a 32B for coding and also do SDXL": the size is an LLM's
    # a method written beside another job is that job's ("跑 Qwen 32B，又想 train 下 SDXL LoRA": the LoRA is SDXL's,
    # the LLM is run)
    method_at = _first_match(text, tuple(w for ws in words("slots", "finetune_method").values() for w in ws)) \
        if method else None
    near = min(domains, key=lambda d: abs(method_at - at[d]), default=None) if method_at is not None else None
    domain_tuned = near is not None and llm_pos is not None and abs(method_at - at[near]) < abs(method_at - llm_pos)
    found: dict[str, int] = {}
    first = min(at.values(), default=0)
    generic = has_any(text, _GENERIC_FINETUNE)
    # a transformer named by a word that is no LLM's ("fine-tuning BERT", "微调T5") is the domain a fine-tune is of
    named_transformer = "transformer" in at and not llm and _first_match(
        text, tuple(w for w in lex["transformer"] if w not in words("slots", "llm_words"))) is not None
    tuned = domains or (["transformer"] if named_transformer else [])
    if domain_tuned:
        found[near] = at[near]
    elif (method or "llm_finetune" in at) and (llm or tuned or generic):
        # a method alone ("改成LoRA", "5090训练LoRA") names no job: the conversation's workload stands; "LoRA微调"
        # with no other domain is an LLM fine-tune
        found["llm_finetune" if llm or not tuned else tuned[0]] = at.get("llm_finetune", first)
    strong_inference = has_any(text, words("slots", "cues", "inference_strong"))
    if "llm_inference" in at and "llm_finetune" in found and not strong_inference:
        del at["llm_inference"]  # "跑大模型微调": running a fine-tune, not serving a model
    if "llm_inference" in at:
        if llm:
            found.setdefault("llm_inference", at["llm_inference"])
        elif not domains:
            found["inference"] = at["llm_inference"]
    if "inference" in at and not llm:
        found.setdefault("inference", at["inference"])
    if (not method and "llm_finetune" not in at or domain_tuned) and size and size >= 1 and not image_sized and \
            (not domains and runs and not trains or llm_pos is not None):  # "想跑 qwen 14b and some SD": both jobs
        # ("训练一个1B的小模型，用8张4090要多久": a size with a word of training is trained, not run)
        found.setdefault("llm_inference", llm_pos if llm_pos is not None else first)
    if "transformer" in at:
        llm_work = set(found) & set(LLM_WORKLOADS)
        explicit = _first_match(text, tuple(w for w in lex["transformer"] if w not in words("slots", "llm_words")))
        if explicit is not None and not (size and size >= 1 and not has_any(text, ("bert", "vit"))):
            found["transformer"] = explicit  # "train small transformers and play with LLMs": both
            if llm_pos is not None and llm_pos != explicit and not llm_work:
                found["llm_inference"] = llm_pos  # "做NLP，BERT和LLM都会用": an LLM named besides
        elif size and size >= 1 and not has_any(text, ("bert", "vit")) and not llm_work:
            found["llm_inference" if runs or not trains else "transformer"] = at["transformer"]
        elif llm and not llm_work and not trains:
            found["llm_inference"] = at["transformer"]  # "what about for LLMs?": running one, unless training
        elif not llm_work:
            found["transformer"] = at["transformer"]
    for w in at:
        if w in ("llm_finetune", "llm_inference", "inference", "general", "transformer") or w in found:
            continue
        if w in _DOMAINS and "llm_finetune" in found and not llm and w == next(iter(found)):
            continue
        found[w] = at[w]
    if not found and size and size >= 0.1 and trains and not domains:
        found["transformer"] = first  # "training a 1B model from scratch"
    if not found and llm_pos is not None and not trains and not domains and not has_any(text, _GENERIC_FINETUNE):
        found["llm_inference"] = llm_pos  # "best gpu for qwen, $1500": an LLM named is one to run
    if not found and "general" in at:
        found["general"] = at["general"]
    return tuple(w for w, _ in sorted(found.items(), key=lambda kv: kv[1]))


def _image_model_sized(text: str, size: float) -> bool:
    """Whether the size written is the image or video model's named beside it ("flux 12b")."""
    found = _table().find_mention(text)
    return found is not None and found[0].kind != "llm" and bool(found[0].params_b) and \
        abs(size / found[0].params_b - 1) <= 0.15


def _table():
    from bot.models import load_models
    from bot.slots.lexicon import LEXICON_DIR

    return load_models(LEXICON_DIR.parent)


def named_model(text: str) -> tuple[str | None, float | None, Spans]:
    """A model from knowledge/models.csv named in the text ('qwen2.5-32b-instruct', '千问 72B', 'deepseek r1'):
    its canonical name and, for a language model, its total parameters (an image model's size is not an LLM size)."""
    table = _table()
    found = table.find_mention(text)
    size, _ = model_size(text)
    if found is not None:
        spec, span = found
        if size is None and spec.kind == "llm" and "distill" not in spec.name.lower() and \
                has_any(text, words("slots", "distilled")):
            return None, None, []  # "r1 蒸馏版" without a size: one of the small distilled models, not the full one
        if not (size and spec.kind == "llm" and abs(size / spec.params_b - 1) > 0.15 and
                table.of_family(spec.family, size)):
            return spec.name, spec.params_b if spec.kind == "llm" else None, [span]
        # "deepseek r1 distill 32b": a name and a size that disagree; the size and the family decide
        other = table.of_family(spec.family, size)
        return other.name, other.params_b, [span]
    if size:
        for family, ws in load("slots")["model_families"].items():
            m = search_any(text, ws)
            spec = table.of_family(family, size) if m else None
            if spec is not None:
                return spec.name, spec.params_b, [m.span()]
    return None, None, []


def named_dataset(text: str) -> tuple[str | None, Spans]:
    """A public dataset named ("resnet50 on imagenet", "cifar10跑多久"): its name in knowledge/datasets.csv."""
    from bot.models import find_dataset
    from bot.slots.lexicon import LEXICON_DIR

    found, span = find_dataset(LEXICON_DIR.parent, text)
    return (found.name, [span]) if found else (None, [])


_IMAGE_SIDE = re.compile(r"(?<![\d.])(\d{3,4})\s*(?:[x×*]\s*\d{3,4}\s*)?(?:px|pixels?|分辨率|像素|resolution|的图)(?![a-z])|"
                         r"(?:分辨率|resolution|imgsz\s*=?|image size|img size)\s*(?:of|是|为|:)?\s*(\d{3,4})(?![\d.])")


def image_side(text: str) -> tuple[int | None, Spans]:
    """The side of the images trained on ("640分辨率", "at 1024px", "imgsz=640", "512x512 pixels"); else the default of a
    vision model family named ("yolov8m": 640, knowledge/workloads.yaml `image_px_by_model`), with no span."""
    m = _IMAGE_SIDE.search(text)
    if m:
        side = int(m[1] or m[2])
        if 32 <= side <= 4096:
            return side, [m.span()]
    for name, side in _image_px_by_model():
        if name in text and re.search(r"(?<![a-z])" + re.escape(name), text):
            return side, []
    return None, []


@lru_cache(maxsize=1)
def _image_px_by_model() -> tuple[tuple[str, int], ...]:
    from bot.catalog import load_workloads
    from bot.slots.lexicon import LEXICON_DIR

    by_model = (load_workloads(LEXICON_DIR.parent) or {}).get("cnn", {}).get("image_px_by_model", {})
    return tuple(sorted(((str(k), int(v)) for k, v in by_model.items()), key=lambda kv: -len(kv[0])))


def named_family(text: str) -> str | None:
    """A model family named without a model or size ("跑deepseek", "for qwen"): its key in the lexicon."""
    for family, ws in load("slots")["model_families"].items():
        if search_any(text, ws):
            return family
    return None


def _quant_matches(text: str) -> list[tuple[int, int, str]]:
    """(start, alias length, code) for each format named, by the first of its spellings found."""
    found = []
    for q in _table().quants:
        for a in sorted((q.code.lower(),) + q.aliases, key=len, reverse=True):
            m = re.search(r"(?<![a-z0-9])" + re.escape(a) + r"(?![a-z0-9])", text) if a in text else None
            if m:
                found.append((m.start(), len(a), q.code))
                break
    return found


def quant_formats(text: str) -> tuple[str, ...]:
    """Every quantisation format the text names, in order ('Q4_K_M 和 Q8_0 差多少' -> Q4_K_M, Q8_0)."""
    return tuple(dict.fromkeys(code for _, _, code in sorted(_quant_matches(text))))


def quant_format(text: str) -> str | None:
    """The quantisation format the text names ('Q5_K_M', 'awq', '4-bit' -> Q4_K_M), by the longest alias."""
    found = _quant_matches(text)
    return max(found, key=lambda f: f[1])[2] if found else None


_CONTEXT = re.compile(r"(\d{1,4})\s*k\s*(?:tokens?\s*)?(?:context|ctx|上下文|的上下文)|"
                      r"(?:context|ctx|上下文)\s*(?:length|长度|window|窗口)?\s*(?:of|=|:|：|is|为|是|到|开到)?\s*"
                      r"(\d{1,4})\s*k(?![a-z])")


def context_tokens(text: str) -> tuple[int | None, Spans]:
    """A context length ('32k context', '上下文 128k'; a long context without a number is the lexicon's): tokens."""
    m = _CONTEXT.search(text)
    if not m:
        long = search_any(text, words("slots", "long_context", "words"))  # "长上下文", "long prompts": no number
        return (int(words("slots", "long_context", "tokens")), [long.span()]) if long else (None, [])
    k = int(m[1] or m[2])
    return (k * 1024 if 1 <= k <= 2048 else None), [m.span()]


def kv_cache_bits(text: str) -> tuple[int | None, Spans]:
    """A quantised KV cache ('q8 kv cache', 'kv cache q4'): its bits, and where it is said (so the weights' format
    extractor does not read it)."""
    for bits, key in ((8, "kv8"), (4, "kv4")):
        m = search_any(text, words("slots", "cues", key))
        if m:
            return bits, [m.span()]
    return None, []


def train_tokens(text: str) -> tuple[int | None, Spans]:
    """Tokens to train on ("20B tokens", "200亿token", "1T tokens"): never a model's size. At least a million."""
    mult = load("slots")["train_tokens"]["multipliers"]
    muls = "|".join(re.escape(k) for k in sorted(mult, key=len, reverse=True))
    # (a Chinese word may touch the number: "数据大概5亿token"; a Latin one may not: "v5", "$5")
    m = re.search(rf"(?<![a-z0-9_$¥€£.])(\d+(?:\.\d+)?)\s*({muls})\s*(?:个\s*)?(?:training\s+)?(?:tokens?|tok|词元)(?![a-z])",
                  text)
    if not m or re.match(r"\s*(?:of\s+)?(?:context|ctx|window|上下文|长上下文|的上下文)", text[m.end():]):
        return None, []  # "1M tokens context" is a context length
    n = float(m[1]) * float(mult[m[2]])
    if n < 1e6:
        return None, []  # "每条1k token": a sample's length, read by tokens_per_sample
    return (int(n), [m.span()]) if n <= 1e15 else (None, [m.span()])


_LENGTH = r"(\d{1,6}(?:\.\d+)?)\s*(k)?\s*"  # "1000", "1k", "1.5k"
_PER_SAMPLE = re.compile(rf"每(?:条|个样本|个)\s*(?:大概|约|平均)?\s*{_LENGTH}(?:个\s*)?(?:tokens?|词元)(?![a-z])|"
                         rf"(?<![\d.]){_LENGTH}tokens?\s+(?:each|per (?:sample|example|row|conversation)|apiece)\b|"
                         rf"\bof\s+{_LENGTH}tokens?\b|"
                         rf"(?:平均)?(?:长度|每条长度|样本长度)\s*(?:大概|约|平均)?\s*{_LENGTH}(?:个\s*)?(?:tokens?|词元)(?![a-z])|"
                         rf"\baverag(?:e|ing)\s+(?:length\s+)?(?:of\s+)?(?:about\s+|~)?{_LENGTH}tokens?\b")


def tokens_per_sample(text: str) -> tuple[int | None, Spans]:
    """How long each sample is ("每条1000 token", "1000 tokens each", "20k samples of 1000 tokens", "平均长度1k token",
    "averaging 800 tokens"): with the count of samples it makes the tokens trained on."""
    m = _PER_SAMPLE.search(text)
    if not m:
        return None, []
    groups = [g for g in m.groups()]
    for i in range(0, len(groups), 2):
        if groups[i]:
            n = float(groups[i]) * (1000 if groups[i + 1] else 1)
            return (int(n), [m.span()]) if 10 <= n <= 1_000_000 else (None, [m.span()])
    return None, []


_EPOCHS = re.compile(r"(?<![\d.])(\d{1,3})\s*(?:full\s+)?(?:epochs?|passes|个\s*epochs?|個\s*epochs?|轮|輪|遍|个轮次)"
                     r"(?![a-z])|(?:跑|训|訓|练|練|训练|訓練)\s*(\d{1,3})\s*(?:个|個)?\s*(?:轮|輪|遍|epochs?)")


def epochs(text: str) -> tuple[int | None, Spans]:
    """Passes over the data ("3 epochs", "跑3轮", "训练 5 个 epoch"): the tokens trained on are that many times the
    dataset's. One to a hundred."""
    m = _EPOCHS.search(text)
    if not m:
        return None, []
    n = int(m[1] or m[2])
    return (n, [m.span()]) if 1 <= n <= 100 else (None, [m.span()])


MIN_SAMPLES = 100


def training_samples(text: str) -> tuple[int | None, Spans, str | None]:
    """A fine-tuning dataset's size ("10k samples", "1万条数据", "5,000 conversations"): samples, where it is said
    (so the money and count extractors do not read the number), and the job its unit names ("200k images": CNN
    training; None for samples of any kind)."""
    lex = load("slots")["training_samples"]
    mult = lex["multipliers"]
    units = "|".join(re.escape(u) for u in sorted(lex["units"], key=len, reverse=True))
    muls = "|".join(re.escape(m) for m in sorted(mult, key=len, reverse=True))
    # one describing word may stand between ("10k instruction samples", "50k labelled images"); never an amount of
    # money ("$50k")
    m = re.search(rf"(?<![$¥€£\d.])(?<!\d,)(\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)\s*({muls})?\s*(?:多|来|個|个)?\s*"
                  rf"(?:[a-z][a-z-]{{1,15}}\s+)?(?P<unit>{units})(?![a-z])", text)
    if not m:
        return None, [], None
    n = float(m[1].replace(",", "")) * (mult[m[2]] if m[2] else 1)
    if not MIN_SAMPLES <= n <= 1e9:
        return None, [], None  # "give me 3 examples" is no dataset
    kind = next((k for k, us in lex.get("kinds", {}).items() if m["unit"] in us), None)
    return int(n), [m.span()], kind
