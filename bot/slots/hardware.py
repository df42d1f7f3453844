"""Extractors for the hardware a message names or asks for: cards, count, vendor, memory, power, form factor."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from bot.slots.lexicon import words
from bot.slots.text import find_any, has_any, mask, words_pattern

if TYPE_CHECKING:
    from bot.catalog import Catalog

Spans = list[tuple[int, int]]

_MONEY_AFTER = re.compile(r"\s*(?:元|块钱|块(?!\s*(?:卡|显卡|@))|刀|美元|美金|人民币|dollars?\b|bucks\b|yuan\b|rmb\b|"
                          r"usd\b|欧|€|£|英镑)")


def gpus(text: str, catalog: Catalog | None) -> tuple[tuple[str, ...], Spans]:
    """Catalog cards named in the text, in order ('1080元' and '$2080' are money, not cards)."""
    if catalog is None:
        return (), []
    names: list[str] = []
    spans: Spans = []
    for start, end, g in catalog.find_mentions(text):
        if _MONEY_AFTER.match(text, end) or re.search(r"[$¥€£]\s*$", text[:start]) or \
                (text[start:end].strip().isdigit() and _HOURS_AFTER.match(text, end)) or \
                (text[start:end].strip().isdigit() and _BUDGET_BEFORE.search(text[max(0, start - 12):start])):
            continue  # "预算2000 能跑AI吗", "budget 2000": money, not the RTX PRO 2000
        spans.append((start, end))
        g = _laptop_variant(text, g, catalog, start, end)
        g = _form_factor_variant(text, g, catalog, start, end)
        if g.name not in names:
            names.append(g.name)
        other = _other_memory_variant(text, catalog, start, end) or _other_form_variant(text, g, catalog, end)
        if other is not None and other[0].name not in names:
            names.append(other[0].name)
            spans.append(other[1])
    # a reference card's full name without a number ('jetson nano')
    for m in _product_pattern().finditer(text) if _names_a_line(text) else ():
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        more = re.match(r"(?:[\s\-]+[a-z0-9]+){0,3}", text[m.end():])[0]  # 'jetson orin' + ' nano super'
        for end in sorted({m.end()} | {m.end() + w.end() for w in re.finditer(r"[a-z0-9]+", more)}, reverse=True):
            if (g := catalog.reference_named(text[m.start():end])) is not None:
                spans.append((m.start(), end))
                if g.name not in names:
                    names.append(g.name)
                break
    return tuple(names), spans


_HOURS_AFTER = re.compile(r"\s*(?:gpu[- ]?hours?|gpu[- ]?hrs?|hours?(?!ly)|hrs?|h(?![a-z0-9])|个?小时|gpu时|个?卡时|机时)")  # "500 GPU-hours"
_BUDGET_BEFORE = re.compile(r"(?:预算|budget|budget is|budget of)\s*(?:是|有|大概|大约|只有|就|才|约|"
                            r"差不多|around|about|~|of|is|:|：)?\s*$")
# "A100 40G 和 80G", "4060 Ti 8GB or 16GB": a second memory size right after a card names the same card with it
_SECOND_SIZE = re.compile(r"\s*(?:和|与|跟|同|还是|還是|或者?|定係|vs\.?|versus|or|and|/)\s*(\d{1,3})\s*(?:gb|g)(?![a-z0-9])")
_SIZE_IN_NAME = re.compile(r"(\d{1,3})\s*(?:gb|g)(?![a-z0-9])")


def _other_memory_variant(text: str, catalog: Catalog, start: int, end: int):
    m = _SECOND_SIZE.match(text, end)
    said = _SIZE_IN_NAME.search(text, start, end)
    if not m or not said:
        return None
    mention = text[start:end]
    renamed = mention[:said.start() - start] + m[1] + "gb" + mention[said.end() - start:]
    found = [g for _, _, g in catalog.find_mentions(renamed)]
    return (found[0], m.span()) if found else None


def _other_form_variant(text: str, g, catalog: Catalog, end: int):
    first = _FORM_AFTER.match(text, end)  # "A100 80G 係 PCIe 定 SXM": the second form after the first
    m = _SECOND_FORM.match(text, first.end() if first else end)
    other = _with_form(g, catalog, m[1]) if m else g
    return (other, m.span()) if other is not g else None




def _laptop_variant(text: str, g, catalog: Catalog, start: int, end: int):
    """'my laptop has a 4070', '笔记本 4060': the laptop GPU of that name (less memory, less power), when the
    catalog has one and the message speaks of a laptop; with a desktop named too ('游戏本 4090 和台式 4090'), only the
    mention next to the laptop word."""
    laptop, desktop = words("slots", "form_factor", "laptop"), words("slots", "form_factor", "desktop")
    if g.form_factor == "Laptop" or not has_any(text, laptop):
        return g
    if has_any(text, desktop):
        def distance(spans):
            return min((max(a - end, start - b, 0) for a, b in spans), default=len(text))
        if distance(find_any(text, laptop)) >= distance(find_any(text, desktop)):
            return g  # the nearer word says desktop
    return next((c for c in catalog if c.form_factor == "Laptop" and c.name.startswith(g.name + " ")), None) or \
        catalog.laptop_reference(g) or g


_FORM_WORD = re.compile(r"(?<![a-z0-9])(pcie|pci-e|sxm\d?)(?![a-z0-9])")
# ("A100 係 PCIe", "V100 32G，PCIe版本": a comma between is still the same card)
_FORM_AFTER = re.compile(r"\s*[,，、]?\s*(?:版本?的?|version|系|是|要|买|选)?\s*(pcie|pci-e|sxm\d?)(?![a-z0-9])")
_FORM_BEFORE = re.compile(r"(?<![a-z0-9])(pcie|pci-e|sxm\d?)\s*(?:版本?的?|version of( the)?)?\s*$")
# "h100 sxm vs pcie", "A100 PCIe 和 SXM 差多少": the other form factor right after a card names that card in it
_SECOND_FORM = re.compile(r"\s*(?:版本?)?\s*(?:和|与|跟|同|还是|還是|或者?|定係|定系|定|vs\.?|versus|or|and|/)\s*(?:the\s+)?"
                          r"(pcie|pci-e|sxm\d?)(?![a-z0-9])")
_MODEL_NUMBER = re.compile(r"\b[A-Z]{1,2}\d{2,4}\b")


def _form_factor_variant(text: str, g, catalog: Catalog, start: int, end: int):
    """'V100 32G PCIe', 'SXM版 H100': the card of that model, memory and form factor when a word right next to the
    name says PCIe or SXM and the name matched is the other one (its alias 'V100 32G' belongs to the SXM2 card)."""
    if _FORM_WORD.search(text, start, end):
        return g  # the mention says it ("h100 sxm")
    near = _FORM_AFTER.match(text, end) or _FORM_BEFORE.search(text[max(0, start - 24):start])
    return _with_form(g, catalog, near[1]) if near else g


def _with_form(g, catalog: Catalog, word: str):
    """The card of `g`'s model and memory in the form factor `word` says ('pcie', 'sxm5'), or `g`."""
    number = _MODEL_NUMBER.search(g.name)
    if number is None or not g.form_factor:
        return g
    wanted = "PCIe" if word.startswith("pci") else "SXM"
    if g.form_factor.upper().startswith(wanted.upper()):
        return g
    same = [c for c in catalog if c.vendor == g.vendor and c.vram_gb == g.vram_gb and c.form_factor and
            c.form_factor.upper().startswith(wanted.upper()) and re.search(rf"\b{number[0]}\b", c.name)]
    return same[0] if len(same) == 1 else g


_CARD_COUNT_BEFORE = re.compile(r"(?:(\d{1,2})\s*([x×*张块片卡])?|(two|dual|pair of|双卡|两卡|双|两张|两块|一对|2张)|"
                           r"(three|三张|三卡)|(four|quad|四张|4张|四卡))"
                           # a word between the count and the card: "two used 3090s", "两张二手3090", "2 rtx 3090"
                           r"(?:\s*(?:used|second[- ]hand|refurbished|new|[二2]手的?|全新的?|rtx|geforce|nvidia))?\s*$")
_CARD_COUNT_AFTER = re.compile(r"\s*(?:x|×|\*)\s*(\d{1,2})(?![\d.])")


def card_counts(text: str, catalog: Catalog | None) -> dict[str, int]:
    """How many of each named card a message means: '2x3090 vs one A100', 'M3 Ultra vs 两张3090', '4090 x2'."""
    out: dict[str, int] = {}
    if catalog is None:
        return out
    for start, end, g in catalog.find_mentions(text):
        before = _CARD_COUNT_BEFORE.search(text[max(0, start - 22):start])
        after = _CARD_COUNT_AFTER.match(text, end)
        n = 1
        if after:
            n = int(after[1])
        elif before and before.group(0).strip():
            if before[1]:
                n = int(before[1]) if before[2] or text[start - 1:start] in "x×*" else 1
            else:
                n = 2 if before[3] else 3 if before[4] else 4
        out.setdefault(g.name, n if 1 <= n <= 16 else 1)
    return out


def owned_cards(text: str, catalog: Catalog | None) -> tuple[str, ...]:
    """The cards the user says they already have: the first card named right after 'I already have', '我有', '手上有'
    (one entry per card: '我有两张3090' -> two)."""
    from bot.slots.lexicon import words
    from bot.slots.text import words_pattern

    if catalog is None:
        return ()
    mentions = catalog.find_mentions(text)
    if not mentions:
        return ()
    start, _, g = mentions[0]
    cue = None
    for m in words_pattern(words("slots", "cues", "owned")).finditer(text[:start]):
        cue = m
    if cue is None or start - cue.end() > 40 or (start - cue.end() > 12 and not (
            has_any(text[cue.end():start], words("slots", "owned_machine")) and
            not re.search(r"[.!?。！？;；]", text[cue.end():start]))):
        return ()  # ("i've got an old gaming pc with a gtx 1660 super": the machine's card)
    return (g.name,) * card_counts(text, catalog).get(g.name, 1)


_CARD_MEMORY = re.compile(r"\s*[-(（]?\s*(\d{1,3})\s*(?:gb|g|gib)(?![a-z0-9])")


def stated_card_memory(text: str, catalog: Catalog | None) -> float | None:
    """Memory written right after the first card named, when it differs from that card's: '2080 Ti 22G' (a modded
    card), '4090 48G', 'laptop 4070 8gb'. The catalog's own variants ('3060 12G') are names, not this."""
    if catalog is None:
        return None
    mentions = catalog.find_mentions(text)
    if not mentions:
        return None
    _, end, g = mentions[0]
    mod = re.match(r"\s*(?:" + "|".join(re.escape(w) for w in sorted(words("slots", "mod_words"), key=len, reverse=True))
                   + ")", text[end:])
    if mod:  # "4090 魔改48G", "2080ti modded 22gb": the memory after the word for a mod
        end += mod.end()
    m = _CARD_MEMORY.match(text, end)
    if m is None:
        # "M3 Max with 64GB": a Mac's memory after "with" (its unified memory); a card's only when said to be VRAM
        # ("4090 with 64GB RAM" is the rest of the PC)
        m = _MEMORY_WITH.match(text, end)
        if m and not (g.segment == "mac" or m["vram"]):
            m = None
    return float(m[1]) if m and 2 <= float(m[1]) <= 512 and float(m[1]) != g.vram_gb else None


_MEMORY_WITH = re.compile(r"(?:\s*(?:with|w/|and|带|配|,|，)){1,2}\s*(?:unified memory of\s*)?(\d{1,3})\s*(?:gb|g|gib)(?![a-z0-9])"
                          r"\s*(?P<vram>vram|显存|of vram)?")


# "2张", "4 gpus", "@ x2" (a card name reads "@"), "4卡", "8-gpu"
_COUNT = re.compile(r"(?<![\d.第])(\d{1,3})\s*(?:(?=@)|张(?!\s*(?:图|照|片|纸|表|票|脸|画|样本))|块(?=\s*(?:@|卡|显卡))|块卡|卡|"
                    r"x\s*(?=@)|×\s*(?=@)|\*\s*(?=@)|(?:\s*[x×]\s*|-)?gpus?(?![a-z0-9])|cards?(?![a-z0-9])|graphics cards(?![a-z0-9])|块显卡|路|"
                    r"台(?=\s*@))")  # not \b after "gpus": "4 GPUs的话呢" has a Chinese letter there
_COUNT_AFTER = re.compile(r"@\s*(?:[x×*]\s*(\d{1,2})(?![\d.])|\s*(?:,|，)?\s*(\d{1,2})\s*(?:张|块|片))")
_COUNT_NUMBER_WORDS = re.compile(r"\b(one|two|three|four|five|six|seven|eight|single)\s+(?:@|(?:[a-z\-]+\s+){0,2}"
                                 r"(?:gpus|cards|graphics cards)(?![a-z0-9]))|(?<![\d.])(\d{1,2})\s+(?:of them|of those|of these)\b|"
                                 r"\b(two|three|four|eight) of (?:them|those|these)\b")
_NUMBER_WORDS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def _options_asked(text: str, m: re.Match) -> bool:
    """"给我推荐3张卡", "recommend me 3 gpus": a count of cards right after a word that asks for suggestions, with no
    word of one machine after it ("推荐4卡服务器", "推荐两张卡的方案", "show me 2x 3090 builds" are setups)."""
    if not re.search(r"张|gpus?|cards?", m.group(0)) or re.search(r"[x×*]", m.group(0)):
        return False
    head = text[max(0, m.start() - 16):m.start()].rstrip()
    tail = text[m.end():m.end() + 24]
    return any(head.endswith(w) for w in words("slots", "options_asked_before")) and \
        not has_any(tail, words("slots", "setup_words"))


def gpu_count(text: str) -> tuple[int | None, Spans]:
    """How many cards: '双卡', 'a pair of 3090s', '4x @', '8-GPU node' (card names read '@' here)."""
    for m in _COUNT.finditer(text):
        n = int(m[1])
        if _options_asked(text, m):
            continue  # "给我推荐3张卡", "recommend me 3 gpus": three options to choose from, not a three-card rig
        if 2 <= n <= 64:  # "一张卡" / "a card" is an article, not a count: only 单卡 / "a single card" say 1
            return n, [m.span()]
    for m in _COUNT_AFTER.finditer(text):
        n = int(m[1] or m[2])
        if 1 <= n <= 16:
            return n, [m.span()]
    m = _COUNT_NUMBER_WORDS.search(text)
    if m:
        n = int(m[2]) if m[2] else _NUMBER_WORDS[m[1] or m[3]]
        if 1 <= n <= 64:
            return n, [m.span()]
    for n in ("8", "4", "3", "2", "1"):
        spans = find_any(text, words("slots", "count_words", n))
        if spans:
            return int(n), spans
    return None, []


def vendor(text: str) -> str | None:
    """Only when exactly one vendor is asked for ('AMD vs NVIDIA?' sets none). Card names must be masked."""
    mentions = _mentions(text, "vendor")
    if not mentions or included_vendor(text) is not None:
        return None  # "include AMD options", "AMD也可以考虑": another maker on the table, not the only one
    # "不想要amd 换成nvidia的", "no amd, nvidia only", "apple算了": the one not turned down
    named = [v for v in words("slots", "vendor") if any(name == v for name, _ in mentions)]
    down = {name for name, turned in mentions if turned}
    kept = [v for v in named if v not in down]
    if not kept:  # "actually no AMD, ROCm scares me": CUDA, the maker nearly everyone else means
        return "NVIDIA" if "NVIDIA" not in down else None
    named = kept
    if named == ["Apple"] and has_any(text, words("slots", "not_a_mac")):
        return None  # "Mac vs PC for local LLMs", "买mac studio还是pc": both are on the table
    return named[0] if len(named) == 1 else None


def included_vendor(text: str) -> str | None:
    """'include AMD options', 'AMD也可以考虑', 'open to intel too': a maker added to the usual ones (card names masked)."""
    named = [v for v, ws in words("slots", "vendor").items() if has_any(text, ws)]
    if len(named) != 1:
        return None
    included = words_pattern(words("slots", "vendor_included"))
    spans = find_any(text, words("slots", "vendor", named[0]))
    if all(included.search(text[max(0, a - 12):a]) or included.match(text[b:].lstrip()) for a, b in spans):
        return named[0]
    return None


_MEMORY = re.compile(r"(?<![a-z0-9.])(\d{1,4}(?:\.\d+)?)\s*(gb|g|gib|gigs?)(?![a-z])\s*(显存|vram|memory|ram|以上|及以上|"
                     r"or more|\+|起步|at least|的显存|of vram|of memory|cards?\b|gpus?\b|min\b|minimum\b|的卡|嘅卡|卡(?!上)|"
                     r"显卡|起|or bigger|or larger|or above|and up|is the floor|is my floor|is the minimum|is a must|"
                     r"at minimum|是底线|是最低|是下限|的选项|选项|的选择|options?\b)?")
_MEMORY_MIN_BEFORE = re.compile(r"(?:至少|最少|起码|不少于|at least|minimum|min\.?|need|needs|需要|要|want|with|has|have|"
                                r"大于|超过|more than|over|显存|~|about|around|>=|≥|大概|约)\s*$")


def _asked_whether(text: str, m: re.Match) -> bool:
    """"也要48G吗", "do I still need 48gb for that?": the amount is the question, not a need."""
    head = text[max(0, m.start() - 18):m.start()].rstrip()
    tail = text[m.end():m.end() + 12]
    return any(head.endswith(w) for w in words("slots", "memory_asked_before")) and \
        has_any(tail, words("slots", "memory_asked_after"))


def memory_asked_whether(text: str) -> float | None:
    """The amount of memory a question asks whether the job needs ("那训练CV呢，也要48G吗"), or None."""
    return next((float(m[1]) for m in _MEMORY.finditer(text) if _asked_whether(text, m)), None)


_RAM = re.compile(r"(?<![a-z0-9.])(\d{1,4})\s*(?:gb|g|gib|gigs?)(?![a-z])\s*(?:of\s+)?(?:system\s+|cpu\s+)?"
                  r"(?:ddr[345]\s*)?(?:ram\b|内存|memory on the (?:cpu|system|motherboard))|"
                  r"(?<!统一)(?:\bram|系统内存|内存)\s*(?:是|有|is|:|：)?\s*(\d{1,4})\s*(?:gb|g|gib)(?![a-z])")


def system_ram(text: str) -> tuple[float | None, Spans]:
    """The computer's own memory ('64GB RAM', '内存32G', '128g ddr5'), which holds the layers offloaded from the card:
    never a need for video memory. Unified memory ('统一内存') is a Mac's and is not this."""
    found, spans = None, []
    for m in _RAM.finditer(text):
        v = float(m[1] or m[2])
        if 2 <= v <= 4096:
            found = max(found or 0, v)
            spans.append(m.span())
    return found, spans


def min_vram(text: str) -> tuple[float | None, Spans]:
    """Memory the user asks for: 'I need 48 GB', '至少16G显存', '24G以上'. A size with no ask ('4060 Ti 16G' is a
    card) and a size asked about ('也要48G吗') are masked but not a need."""
    found, spans = None, []
    for m in _MEMORY.finditer(text):
        v = float(m[1])
        asks = (m[3] or _MEMORY_MIN_BEFORE.search(text[max(0, m.start() - 12):m.start()])) and \
            not _asked_whether(text, m)
        if 1 <= v <= 4096 and asks:
            found = max(found or 0, v)
        spans.append(m.span())
    return found, spans


def memory_mentioned(text: str) -> float | None:
    """The first memory size in the text, asked for or not ('on a gtx 1650 4gb', '16G 卡上')."""
    m = _MEMORY.search(text)
    return float(m[1]) if m and 1 <= float(m[1]) <= 1024 else None


_WATTS = re.compile(r"(?<![\d.])(\d{2,4})\s*(?:w|瓦|watts?|瓦特)(?![a-z])")
_PSU_NEAR = re.compile(r"电源|psu|power supply|供电|金牌|白金|铜牌|电供|火牛|带得动|带的动|带得起|帶得動|帶得起|\bhandle|\bunit\b|\bgold\b|\bplatinum\b|\bi have\b|\bonly have\b|\bhave a\b|\benough\b|够不够|够吗|够用|夠唔夠|夠不夠|\bmy\b|我的|i've got|got a")
_PSU_BARE = re.compile(r"(?:电源|电供|psu)\s*(?:是|只有|才|有)?\s*(\d{3,4})(?![\d.w瓦])|"
                       r"(?<![\d.$¥€£])(\d{3,4})\s*(?:gold|platinum|bronze|titanium|金牌|白金|铜牌)?\s*"
                       r"(?:unit\b|psu\b|power supply|电源)")
_CAP_NEAR = re.compile(r"最多|不超过|以内|以下|under|below|at most|max|less than|up to|<|≤|cap|limit|限制|不要超过|只能|"
                       r"别超过|不能超过|不高于|低于|至多|唔好超过|唔超过|唔可以超过|no more than|not more than|not over")
_CAP_AFTER = re.compile(r"\s*(?:max\b|maximum\b|or less\b|or lower\b|at most\b|tops\b|cap\b|limit\b|以内|以下|之内|封顶|"
                        r"最多|左右以内)")  # "300w max for the card", "250瓦以内"


# A processor's model number ("13900k", "i7-14700kf", "7950x3d", "ryzen 9 9950x"): hardware, never an amount of money.
_CPU = re.compile(r"(?<![\w$¥€£.])(?:i[3579][- ]?)?1[0-4]\d{2}0(?:k|kf|ks|f|t)\b|"
                  r"(?<![\w$¥€£.])[3-9]\d{2}0x(?:3d)?\b|\b(?:ryzen\s*[3579]\s*|i[3579][- ])\d{4,5}\w*")


def cpu_spans(text: str) -> Spans:
    """Where the message names a processor by its model number."""
    return [m.span() for m in _CPU.finditer(text)]


_CARD_POWER_BEFORE = re.compile(r"功耗|tdp|draws|pulls|uses|rated at|board power|tgp")


def power(text: str) -> tuple[float | None, float | None, Spans]:
    """(max GPU power in W, the PSU the user has in W): '最多 250 瓦' caps the card; 'my PSU is 550 W' is a PSU."""
    cap = psu = None
    spans: Spans = []
    for m in _WATTS.finditer(text):
        w = float(m[1])
        if not 30 <= w <= 3000:
            continue
        around = text[max(0, m.start() - 16):m.end() + 8]
        before = text[max(0, m.start() - 8):m.start()]
        if _CARD_POWER_BEFORE.search(before) and not _PSU_NEAR.search(before):
            cap = w  # "显卡功耗450w 电源要多大的", "my gpu pulls 320w": the card's draw, whatever is asked after it
        elif _PSU_NEAR.search(around):
            psu = w
        elif _CAP_NEAR.search(text[max(0, m.start() - 14):m.start()]) or _CAP_AFTER.match(text, m.end()) or \
                any(w in around for w in ("功耗", "功率", "tdp", "power", "wattage")):
            cap = w
        else:
            continue
        spans.append(m.span())
    if psu is None:
        m = _PSU_BARE.search(text)
        if m and 200 <= int(m[1] or m[2]) <= 3000:
            psu = float(m[1] or m[2])
            spans.append(m.span(1) if m[1] else m.span(2))
    return cap, psu, spans


def form_factor(text: str) -> str | None:
    """'a 4U server', '笔记本', 'itx case': the kind of computer; one turned down ("no server access", "不用服务器")
    is not it."""
    if form_factor_choice(text):
        return None  # "笔记本还是台式", "laptop or desktop?": which kind of computer is the question, not a need
    text = mask(text, find_any(text, words("slots", "cloud_machine")))  # "也可能考虑租云服务器": renting, not a server
    mine = [(a, b) for ws in words("slots", "form_factor").values() for a, b in find_any(text, ws)
            if any(text[:a].rstrip().endswith(w) for w in words("slots", "own_machine_before"))]
    text = mask(text, mine)  # "自己笔记本是3050 4G，想自己攒一台": the laptop they have, not the one they want
    kept = {name for name, turned in _mentions(text, "form_factor") if not turned}  # ("不要笔记本 要台式": desktop)
    return next((name for name in words("slots", "form_factor") if name in kept), None)


def form_factor_choice(text: str) -> bool:
    """The message asks which kind of computer to get ("笔记本还是台式", "laptop or desktop for DL?"): two kinds
    named, neither turned down, and a word of choice between them."""
    kept = {name for name, turned in _mentions(text, "form_factor") if not turned}
    if len(kept) < 2:
        return False
    at = sorted((a, b) for ws in words("slots", "form_factor").values() for a, b in find_any(text, ws))
    # Cantonese "A 定 B" ("買 laptop 定 desktop 好"): 定 right between two kinds asks which
    joined = any(re.fullmatch(r"\s*定系?\s*", text[b1:a2]) for (_, b1), (a2, _) in zip(at, at[1:], strict=False))
    return joined or has_any(text, words("slots", "choice_between"))


def _mentions(text: str, table: str) -> list[tuple[str, bool]]:
    """Each mention of an entry of the lexicon table `table` ('vendor', 'form_factor'), in order, and whether a word
    turns it down ("no amd", "不要笔记本", "apple算了"): a word before a mention reaches back to the previous mention,
    no further."""
    turned_down = words_pattern(words("slots", "turned_down"))
    asked_why = words_pattern(words("slots", "why_not_asked"))  # "why not an AMD card" asks about it, keeps it
    dropped_after = words_pattern(words("slots", "turned_down_after"))
    clause_end = _turned_down_at_clause_end()
    at = sorted((a, b, name) for name, ws in words("slots", table).items() for a, b in find_any(text, ws))
    return [(name, bool(turned_down.search(text[max(0, a - 8, at[i - 1][1] if i else 0):a]) and
                        not asked_why.search(text[max(0, a - 14, at[i - 1][1] if i else 0):a]) or
                        dropped_after.match(text[b:].lstrip()) or clause_end.match(text[b:].lstrip())))
            for i, (a, b, name) in enumerate(at)]


@lru_cache(maxsize=1)
def _turned_down_at_clause_end() -> re.Pattern[str]:
    """A word that turns down the mention before it when it ends the clause ("A卡不要", "AMD no thanks,")."""
    return re.compile(f"(?:{words_pattern(words('slots', 'turned_down_clause_end')).pattern})\\s*(?:$|[,，。.;；!！?？])")


@lru_cache(maxsize=1)
def _product_pattern() -> re.Pattern[str]:
    """A product named by its line ('rtx 9090', 'mi400', 'dgx station'), with variant words after it ('super')."""
    def alt(ws):
        return "|".join(re.escape(w).replace(r"\ ", r"\s*") for w in sorted(ws, key=len, reverse=True))
    variants = alt(words("slots", "product_lines", "variants"))
    numbered = alt(words("slots", "product_lines", "numbered"))
    glued = alt(words("slots", "product_lines", "glued"))
    named = alt(words("slots", "product_lines", "named"))
    named_models = alt(words("slots", "product_lines", "named_models"))
    model = r"[a-z]{0,2}\d{2,5}[a-z]{0,3}"
    return re.compile(rf"(?<![a-z0-9])(?:(?:{numbered})[\s\-]*(?P<num>{model})|(?:{glued})(?P<glued>\d{{2,4}}[a-z]{{0,2}})|"
                      rf"(?:{named})\+?(?P<word>(?:[\s\-]+(?:{named_models}|\d{{2,4}}(?:gb?)?))+|[\s\-]+[a-z]+\+?(?:\s+\d{{2,4}})?))"
                      rf"(?P<variant>(?:[\s\-]*(?:{variants}))*)(?![a-z0-9])")


def _names_a_line(text: str) -> bool:
    """A word of a hardware line occurs in the text (a substring test, before any regex is compiled for it)."""
    lines = words("slots", "product_lines")
    keys = ("numbered", "glued", "named") if any(c.isdigit() for c in text) else ("named",)  # a number names a model
    return any(w.split()[0] in text for key in keys for w in lines[key])


def unknown_products(text: str, catalog: Catalog | None, card_spans: Spans) -> tuple[str, ...]:
    """Hardware named by its line that the catalog and the spec database do not know ('RTX 9090', 'RTX 5080 Super',
    'DGX Station'), as written: the reply says I have no data on it, rather than answering about another card."""
    if catalog is None or not _names_a_line(text):
        return ()
    out: list[str] = []
    for m in _product_pattern().finditer(text):
        known = [(a, b) for a, b in card_spans if a < m.end() and m.start() < b]
        if known and (not m["variant"].strip() or max(b for _, b in known) >= m.end()):
            continue  # the card named is the catalog's or the spec database's ('rtx 3090', 'gtx 1660 super')
        if known and not any(c.isalpha() for c in text[max(b for _, b in known):m.end()]):
            continue
        upper = words("slots", "product_lines", "upper")
        name = " ".join(w.upper() if w.rstrip("+") in upper or any(c.isdigit() for c in w) else
                        "Ti" if w == "ti" else w.capitalize() for w in re.split(r"[\s\-]+", m[0].strip()))
        if name not in out:
            out.append(name)
    return tuple(out)

