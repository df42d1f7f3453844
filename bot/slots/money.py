"""Money: the budget a message states, in any currency the advisor understands (`bot.need.CURRENCIES`).

`extract_money(text, lang)` reads text normalised by the parser (NFKC, lower-case, Simplified, Chinese numerals as
digits with their scale words kept, card names as "@", card counts masked). The words are data
(knowledge/lexicon/money.yaml); the grammar is here:

    amount := [sign] [currency before] [sign] number [scale [digit]] ["and a half"] [[in|of] currency after]
    number := "5000" | "1,500" | "1.5" | English number words ("two", "twenty five", "a couple", "half a")
    range  := amount separator amount  ("3k-4k", "3-4k", "5千-6千", "3000到5000元", "between 1000 and 1500 bucks")

An amount is a budget when a currency is written next to it, or a scale or a budget word stands by it ("8k",
"预算5000", "under 800"), in the message's default currency (CNY for Chinese, USD for English) when none is written.
A unit-less number alone ("5000", "5000呢") is a bare number: a budget only if the dialogue asked for one. A stated
amount that cannot be a budget (negative, zero, beyond any purchase) is `rejected`, never a budget. Numbers that count
something else ("32k context", "300w电源", "100万张图片", "24gb", "70b", "2020年", "1080p", "第2个", "#2", "resnet50")
are not money at all."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache

from bot.need import CURRENCIES, Budget
from bot.slots.lexicon import LEXICON_DIR, load
from bot.slots.text import words_pattern

Span = tuple[int, int]

MAX_AMOUNT = 1e8  # more than this in any currency is no budget for a workstation
MAX_USD = 1e8  # nor is more than this many dollars' worth (the tighter bound for EUR and GBP)
JPY_SYMBOL_MIN = 20_000  # "¥" in an English message with no CNY word is yen from here up ("¥150,000")
MIN_USD = 10  # an amount worth less, with no budget word, is the price of something else
BARE_MIN = 50  # a unit-less number below this is a count, a version or a size, never a budget
UNSUPPORTED = "?"  # the currency of an amount in a currency the advisor does not price in ("₹5000", "a$800")

_PUNCT = ",，;；。!！?？\n"


@dataclass(frozen=True)
class MoneyFinding:
    budget: Budget | None = None  # the budget the text states (amount = upper end, ISO currency, low for ranges)
    bare_number: float | None = None  # a unit-less number (>= 50): a budget only if the dialogue asked for one
    rejected: tuple[str, float] | None = None  # ("negative" | "zero" | "too_large" | "unsupported_currency", value):
    # stated, but no budget
    spans: tuple[Span, ...] = ()  # the amounts read, so other extractors skip them
    currency_written: bool = False  # the budget's currency is in the text, not the message language's default


# --- the lexicon as regexes ----------------------------------------------------------------------------------------

def _alternation(words, lead: str = "", trail: str = r"(?![a-z])") -> str:
    """One regex for a word list, longest first; `lead`/`trail` guard an English word's edges (a word must not
    start or end inside another word)."""
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        ascii_alpha = [c.isascii() and c.isalpha() for c in (w[:1], w[-1:])]
        parts.append((lead if ascii_alpha[0] else "") + re.escape(w) + (trail if ascii_alpha[1] else ""))
    return "|".join(parts) or r"(?!)"


@dataclass(frozen=True)
class _Grammar:
    amount: re.Pattern[str]
    after: re.Pattern[str]  # a currency word right after an amount
    before_code: dict[str, str]  # currency word written before -> ISO code (UNSUPPORTED for the others)
    after_code: dict[str, str]
    generic: frozenset[str]  # words that yield to a specific currency on the other side ("元", "$")
    unit_guards: dict[str, tuple[str, ...]]
    scales: dict[str, float]
    currency_only_scales: frozenset[str]
    money_scales: frozenset[str]
    scale_currency: dict[str, str]  # a scale that names its currency when none is written ("2万": CNY, "1 lakh": INR)
    watts_scale: str
    number_words: dict[str, float]
    cues: re.Pattern[str]
    cue_start: re.Pattern[str]  # a budget word at the start of a text
    cue_end: re.Pattern[str]  # a budget word at the end of a text ("budget2万")
    named_currency: re.Pattern[str]  # a currency's name anywhere ("for euros, say 900")
    idioms: re.Pattern[str]
    idiom_values: dict[str, float]
    approx_before: re.Pattern[str]
    not_approximate: re.Pattern[str]
    approx_after: re.Pattern[str]
    approx_after_guards: dict[str, tuple[str, ...]]
    separators: re.Pattern[str]
    range_and: re.Pattern[str]
    range_openers: re.Pattern[str]
    range_closers: re.Pattern[str]
    not_money_after: re.Pattern[str]
    not_money_before: re.Pattern[str]
    resolutions: frozenset[float]  # "4k", "8k": screen sizes, when a word of screens or video is near
    image_sizes: frozenset[float]  # "at 1024": an image's side in pixels
    processor_words: re.Pattern[str]  # "14700k" is a processor in a message about processors
    resolution_before: re.Pattern[str]  # "gaming at 4k", "剪4K": a screen's resolution, not $4,000
    resolution_near: re.Pattern[str]
    cny_words: re.Pattern[str]


@lru_cache(maxsize=1)
def _grammar() -> _Grammar:
    lex = load("money")
    before_code: dict[str, str] = {}
    after_code: dict[str, str] = {}
    for code, sides in lex["currencies"].items():
        before_code.update({w: code.upper() for w in sides.get("before", ())})
        after_code.update({w: code.upper() for w in sides.get("after", ())})
    unsupported = lex["unsupported_currencies"]
    before_code.update({w: UNSUPPORTED for w in unsupported["before"] if w not in before_code})
    after_code.update({w: UNSUPPORTED for w in unsupported["after"] if w not in after_code})

    scales = {str(k).lower(): float(v) for k, v in lex["scales"].items()}
    # "k" may run on into "ish" ("5kish") or a single digit ("2k5"), never into a letter ("5kg") or a longer number
    scale_alt = _alternation(scales, trail=r"(?=ish(?![a-z])|[^a-z0-9]|[1-9](?![\d.])|$)")
    number_words = {str(k).lower(): float(v) for k, v in lex["number_words"].items()}
    word = _alternation(number_words, trail="")
    words_number = rf"half\s+an?|(?:{word})(?:[\s-]+(?:{word}|hundred))*(?:\s+and\s+a\s+half)?"
    sign_alt = "|".join(re.escape(w) + (r"\s+" if w.isascii() and w.isalpha() else "")
                        for w in sorted(lex["negative_signs"], key=len, reverse=True))
    before_alt = _alternation(before_code, lead=r"(?<![a-z])", trail="")
    amount = re.compile(
        rf"(?P<sign>(?<![a-z])(?:{sign_alt}))?"
        rf"(?:(?P<pre>{before_alt}|(?<![a-z])[a-z]{{1,3}}\$)\s{{0,2}})?"
        r"(?P<sign2>[-−])?"
        # grouped by thousands, or the Indian way by lakhs ("1,20,000"), or not at all
        # ... or with a decimal comma before a scale, the European way ("2,5k€")
        r"(?:(?P<n>(?<![\d.])(?<!\d,)(?:\d{1,3},\d{1,2}(?=\s?[kK](?![a-z]))|\d{1,2}(?:,\d{2})+,\d{3}|\d{1,3}(?:,\d{3})+|\d{1,300})"
        r"(?:\.\d+)?(?!\d)(?!\.\d)"
        r"(?!,\d{3}(?!\d)))"
        rf"|(?<![a-z])(?P<w>{words_number})(?![a-z$]))"  # ("a$2k" is Australian dollars, not "a")
        rf"(?:\s{{0,2}}(?P<scale>{scale_alt}))?"
        r"(?:(?<=[kw])(?P<tail>[1-9])(?![\d.]))?"
        r"(?P<half>\s+and\s+a\s+half)?")
    joiners = "|".join(re.escape(j) for j in lex["after_joiners"])
    after = re.compile(rf"\s{{0,2}}(?:(?:{joiners})\s+(?=\S))?(?P<cur>{_alternation(after_code)})")
    cues = tuple(lex["budget_cues"]) + tuple(lex["upper_bound"]) + tuple(lex["approximate_before"])
    # a currency named on its own: a word (not a symbol, not one generic or single character) of a supported one
    names = tuple(w for w, c in {**before_code, **after_code}.items()
                  if c != UNSUPPORTED and len(w) > (2 if w.isascii() else 1) and w not in lex["generic_units"]
                  and not w.endswith("$"))
    nonascii_after = [w for w in lex["not_money_after"] if not w.isascii()]
    ascii_after = [w for w in lex["not_money_after"] if w.isascii()]
    return _Grammar(
        amount=amount, after=after, before_code=before_code, after_code=after_code,
        generic=frozenset(lex["generic_units"]),
        unit_guards={k: tuple(v) for k, v in lex.get("unit_guards", {}).items()}, scales=scales,
        currency_only_scales=frozenset(lex["currency_only_scales"]), money_scales=frozenset(lex["money_scales"]),
        scale_currency={**{w: "INR" for w in lex["inr_scales"]}, **{w: "CNY" for w in lex["cny_scales"]}},
        watts_scale=str(lex["watts_scale"]), number_words=number_words,
        cues=words_pattern(cues), cue_start=re.compile(_alternation(cues)),
        cue_end=re.compile("(?:" + _alternation(cues, lead=r"(?<![a-z])", trail="") + ")$"),
        named_currency=re.compile(_alternation(names, lead=r"(?<![a-z])")),
        idioms=re.compile(_alternation(lex.get("idioms", {}))),
        idiom_values={str(k): float(v) for k, v in lex.get("idioms", {}).items()},
        approx_before=words_pattern(tuple(lex["approximate_before"])),
        not_approximate=words_pattern(tuple(lex.get("not_approximate", ()))),
        approx_after=re.compile(r"\s{0,2}(?P<w>" + _alternation(lex["approximate_after"]) + ")"),
        approx_after_guards={k: tuple(v) for k, v in lex.get("approximate_after_guards", {}).items()},
        separators=re.compile(r"\s*(?:" + _alternation(lex["range_separators"], lead=r"(?<![a-z])") + r")\s*"),
        range_and=re.compile(r"\s*(?:" + _alternation(lex["range_and"], lead=r"(?<![a-z])") + r")\s*"),
        range_openers=words_pattern(tuple(lex["range_openers"])),
        range_closers=words_pattern(tuple(lex["range_closers"])),
        not_money_after=re.compile("(?:" + _alternation(nonascii_after) + r")|\s{0,2}(?:" +
                                   _alternation(ascii_after) + ")"),
        not_money_before=re.compile(r"(?:" + _alternation(lex["not_money_before"], lead=r"(?<![a-z0-9])") +
                                    r")\s*(?:of|=|:|为|是|is|size)?\s*$"),
        cny_words=words_pattern(tuple(w for w, c in {**before_code, **after_code}.items() if c == "CNY" and w != "¥")),
        resolutions=frozenset(float(v) for v in lex["resolutions"]["sizes"]),
        image_sizes=frozenset(float(v) for v in lex["image_sizes"]),
        processor_words=re.compile(_alternation(lex["processor_words"])),  # "7800x3d": inside a word too
        resolution_before=re.compile(r"(?:" + _alternation(lex["resolutions"]["before"], lead=r"(?<![a-z0-9])")
                                     + r")\s*$"),
        resolution_near=re.compile(r"[\s,]*(?:[a-z0-9]+[\s,]+){0,2}?(?:" +
                                   _alternation(lex["resolutions"]["words"], lead=r"(?<![a-z0-9])") + ")"))


@lru_cache(maxsize=1)
def _per_usd() -> dict[str, float]:
    """The latest units of each currency per USD, for the dollars'-worth ceiling: the catalog's own reading of
    knowledge/fx.csv (an unreadable file leaves only the per-currency ceiling)."""
    from bot.catalog import CatalogError, load_fx

    try:
        fx = load_fx(LEXICON_DIR.parent / "fx.csv")
    except (CatalogError, OSError):
        return {}
    return {cur: fx.per_usd(cur, date.max) for cur in fx.currencies}


def too_small(amount: float, currency: str) -> bool:
    """Less than MIN_USD dollars' worth: no GPU costs that, so without a budget word it is some other price."""
    rate = _per_usd().get(currency)
    return bool(rate) and amount / rate < MIN_USD


def too_large(amount: float, currency: str) -> bool:
    """More than MAX_AMOUNT of its currency, or more than MAX_USD dollars' worth: no budget for a workstation."""
    if amount > MAX_AMOUNT:
        return True
    rate = _per_usd().get(currency)
    return bool(rate) and amount / rate > MAX_USD


# --- one amount ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Amount:
    m: re.Match[str]
    start: int  # first character read (a minus sign or a currency written before included)
    num_end: int  # end of the number and its scale
    end: int  # end of the currency written after, if any
    value: float  # unsigned
    negative: bool
    dash_at: int | None  # where a "-" before the number is (a minus, or the dash of a range)
    scale: str | None
    words: bool  # written in English number words
    currency: str | None  # ISO code, UNSUPPORTED, or None
    generic: bool  # the currency came from a word that yields to a specific one ("元", "$")


def _number_from_words(phrase: str, g: _Grammar) -> float:
    """'two' 2, 'twenty five' 25, 'two hundred fifty' 250, 'a couple' 2, 'one and a half' 1.5, 'half a' 0.5."""
    if phrase.startswith("half"):
        return 0.5
    half = 0.5 if phrase.endswith("half") else 0.0
    phrase = re.sub(r"\s+and\s+a\s+half$", "", phrase)
    tokens = [t for t in re.split(r"[\s-]+", phrase) if t]
    if len(tokens) > 1 and tokens[0] in ("a", "an"):
        tokens = tokens[1:]  # "a hundred", "a couple"
    value = 0.0
    for t in tokens:
        value = (value or 1) * 100 if t == "hundred" else value + g.number_words.get(t, 0)
    return value + half


def _currency_after(text: str, end: int, g: _Grammar) -> tuple[str, str, int] | None:
    """(word, code, end) of a currency written right after position `end`."""
    m = g.after.match(text, end)
    if not m:
        return None
    word = m["cur"]
    rest = text[m.end():].lstrip()
    if any(rest.startswith(x) for x in g.unit_guards.get(word, ())):
        return None  # "3块卡" counts cards, "2000欧洲" is a place
    if not word[-1].isalnum() and rest[:1].isdigit():
        return None  # "a $500 card": the "$" belongs to the next amount
    return word, g.after_code[word], m.end()


def _read(m: re.Match[str], text: str, lang: str, g: _Grammar) -> _Amount | None:
    """The amount a match reads (None when the match holds no number)."""
    if m["n"] is None and m["w"] is None:
        return None
    currency, generic, yen_symbol = None, False, False
    if m["pre"]:
        pre = m["pre"].strip()
        currency = g.before_code.get(pre, UNSUPPORTED)  # an unknown "<letters>$": "a$", "c$"
        generic, yen_symbol = pre in g.generic, pre == "¥"
    end = m.end()
    after = _currency_after(text, m.end(), g)
    if after:
        word, code, end = after
        if currency is None or (generic and word not in g.generic) or code == UNSUPPORTED:
            currency, generic, yen_symbol = code, word in g.generic, word == "¥"
    if m["n"] is None:
        value = _number_from_words(m["w"], g)
    elif currency == "EUR" and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", m["n"]):
        value = float(m["n"].replace(".", ""))  # "2.000€", "€1.500": a European thousands point
    else:
        n = m["n"]
        value = float(n.replace(",", ".")) if re.fullmatch(r"\d{1,3},\d{1,2}", n) else float(n.replace(",", ""))
    scale = m["scale"]
    if scale:
        value *= g.scales[scale]
        if m["tail"]:
            value += int(m["tail"]) * g.scales[scale] / 10  # "2k5" = 2,500
    if m["half"]:
        value += 0.5 * g.scales.get(scale or "", 1.0)  # "a grand and a half"
    if yen_symbol and lang == "en" and value >= JPY_SYMBOL_MIN and not g.cny_words.search(text):
        currency, generic = "JPY", False
    start, negative, dash_at = m.start(), False, None
    if m["sign2"] and m["pre"]:
        negative = True  # "$-500"
    elif m["sign"] or m["sign2"]:
        sign = "sign" if m["sign"] else "sign2"
        negative = True
        if m[sign].strip() in ("-", "−"):
            dash_at = m.start(sign)  # a dash if it follows an amount: see extract_money
            if re.search(r"[a-z0-9]$", text[:dash_at]):
                negative = False  # glued to a word or a number: "gpt-4", "3k-4k", "2024-01"
        if not negative:
            start = m.end(sign)
    return _Amount(m=m, start=start, num_end=m.end(), end=end, value=value, negative=negative, dash_at=dash_at,
                   scale=scale, words=m["w"] is not None, currency=currency, generic=generic)


def _counts_something(a: _Amount, text: str, lang: str, g: _Grammar, before: bool = True, after: bool = True
                      ) -> bool:
    """The number counts something other than money: '32k context', '300w', '100万张', '24gb', 'resnet50', '第2个'."""
    if a.scale in g.currency_only_scales and a.currency is None:
        return True  # "70b" is a model, "100m" a distance
    if a.currency is not None:
        return False
    if a.scale == g.watts_scale:
        number = a.m["n"] or ""
        # a budget word before it, or right after it ("预算100w", "100w预算"), not one further on: "750w带得动的 预算六千"
        cue = bool(g.cues.search(_before(text, a.start)) or g.cues.match(_after(text, a.end).lstrip(" 的")))
        value = float(number.replace(",", "") or 0)
        if (value >= 100 and not (lang == "zh" and cue)) or \
                (lang != "zh" and "." not in number and not a.m["tail"] and not cue and value >= 10):
            # "300w", "850w psu", "65w": watts ("1.5w", "1w?", "预算2w", "预算100w": 15,000 … 1,000,000 yuan; no
            # graphics card draws under 10 W)
            return True
    if after and (g.not_money_after.match(text, a.num_end) or re.match(r"[a-z]", text[a.num_end:a.num_end + 1])):
        return True
    if a.scale is None and a.value in g.image_sizes and re.search(r"(?:\bat|\bin|@)\s*$", text[:a.start]):
        return True  # "can it do SDXL at 1024", "flux @ 2048": an image size in pixels
    if a.scale == "k" and a.currency is None:
        written = text[a.m.start("n"):a.num_end] if a.m["n"] is not None else ""
        if (re.fullmatch(r"\d{3,5}\s?k", written) and g.processor_words.search(text)) or \
                (re.fullmatch(r"\d{4,5}k", written) and not a.negative and
                 not g.cue_end.search(_before(text, a.start).rstrip())):  # ("-1010k" is a negative amount)
            # "7800x3d or 265k", "i9 13900k", "4070ti super加13900k": a processor, not 13.9 million (nobody writes a
            # budget as thousands of thousands)
            return True
        if a.value / 1000 in g.resolutions and (g.resolution_near.match(text, a.num_end) or
                                                g.resolution_before.search(text[:a.start])):
            return True  # "4k 144hz gaming", "8k video", "gaming at 4k": a resolution
    if before:
        begin = a.m.start("n") if a.m["n"] is not None else a.m.start("w")
        head = text[max(0, begin - 20):begin]
        if re.search(r"[a-z]$|[a-z][a-z0-9]*[-_]$", head) and not g.cue_end.search(head):
            return True  # "resnet50", "gpt-4", "llama-2-70b" (but "budget2万")
        if g.not_money_before.search(text[max(0, a.m.start() - 20):a.m.start()]):
            return True
    return False


def _before(text: str, start: int) -> str:
    """The words before an amount, back to the nearest punctuation."""
    head = text[max(0, start - 14):start]
    cut = max(head.rfind(p) for p in _PUNCT)
    return head[cut + 1:]


def _after(text: str, end: int) -> str:
    tail = text[end:end + 12]
    cuts = [i for i in (tail.find(p) for p in _PUNCT) if i >= 0]
    return tail[:min(cuts)] if cuts else tail


def _has_cue(text: str, start: int, end: int, g: _Grammar) -> bool:
    return bool(g.cues.search(_before(text, start)) or g.cues.search(_after(text, end)))


def _approximate(text: str, start: int, end: int, g: _Grammar) -> bool:
    if g.approx_before.search(g.not_approximate.sub(" ", _before(text, start))):
        return True
    m = g.approx_after.match(text, end)
    return bool(m) and not any(text[m.end():].startswith(x) for x in g.approx_after_guards.get(m["w"], ()))


# --- readings: a budget, a rejection, a bare number ----------------------------------------------------------------

@dataclass(frozen=True)
class _Reading:
    span: Span
    budget: Budget | None = None
    rejected: tuple[str, float] | None = None
    bare: float | None = None
    written: bool = False  # its currency is written in the text


def _classify(value: float, negative: bool, currency: str | None, evidence: bool, lang: str, span: Span,
              approximate: bool, low: float | None = None, default: str | None = None,
              named: str | None = None) -> _Reading | None:
    """What an amount of `value` (a range's upper end) is, given its currency and whether a scale or a budget word
    says it is money. With no currency written it is in `default`, else the message's (CNY for zh, USD for en)."""
    cur = currency or default or ("CNY" if lang == "zh" else "USD")
    stated = bool(currency) or evidence
    value, low = round(value, 2), (round(low, 2) if low else None)  # "1.1k" is 1,100, not 1,100.0000000000002
    if value == 0:
        return _Reading(span, rejected=("zero", 0.0)) if stated else None
    if negative:
        return _Reading(span, rejected=("negative", -value)) if stated or value >= BARE_MIN else None
    if too_large(value, cur):
        return _Reading(span, rejected=("too_large", value)) if stated else None
    if currency or (evidence and value >= BARE_MIN):
        return _Reading(span, budget=Budget(value, cur, low=low or None, approximate=approximate),
                        written=bool(currency) or (named is not None and cur == named))
    if value >= BARE_MIN and low is None:
        return _Reading(span, bare=value)
    return None


_NOT_MONEY = _Reading((0, 0))  # a range of numbers that counts something else: neither end is money


def _range(a: _Amount, b: _Amount, text: str, lang: str, g: _Grammar, named: str | None) -> _Reading | None:
    """'3k-4k', '3-4k', '5000到8000元', 'between 1000 and 1500 bucks' -> a budget with its low end; _NOT_MONEY for
    '2019-2021年', '32k-64k context'; None when the two amounts are not a range."""
    between = text[a.end:b.start]
    if b.negative or not (g.separators.fullmatch(between) or _range_and(between, a, b, text, g)):
        return None
    if a.negative or UNSUPPORTED in (a.currency, b.currency):
        return None
    currencies = {a.currency, b.currency} - {None}
    if len(currencies) > 1:
        specific = {c for c, generic in ((a.currency, a.generic), (b.currency, b.generic)) if c and not generic}
        if len(specific) != 1:
            return None  # "$1000-2000元": two currencies, no range
        currencies = specific
    currency = next(iter(currencies), None)
    lo, hi = a.value, b.value
    if a.scale is None and b.scale and lo * g.scales[b.scale] <= hi:
        lo *= g.scales[b.scale]  # "3-4k", "1-2万" (but "500-2k" is 500 to 2,000)
    if (a.words or b.words) and not (currency or b.scale):
        return None
    if _counts_something(replace(b, currency=currency), text, lang, g, before=False) or \
            _counts_something(replace(a, currency=currency), text, lang, g, after=False):
        return _NOT_MONEY
    if not hi > lo >= 0:
        return None
    approximate = _approximate(text, a.start, b.end, g)
    evidence = bool(a.scale or b.scale or approximate or named) or _has_cue(text, a.start, b.end, g)
    if not currency and not evidence and (hi < 100 or (lo == int(lo) and hi == int(hi) and 1900 <= lo < hi <= 2100)):
        return _NOT_MONEY  # "2019-2021": years
    return _classify(hi, False, currency, True, lang, (a.start, b.end), approximate, low=lo,
                     default=_scale_currency(b.scale or a.scale, g) or named, named=named)


def _range_and(between: str, a: _Amount, b: _Amount, text: str, g: _Grammar) -> bool:
    """'between 1000 and 1500', '1万和2万之间'."""
    return bool(g.range_and.fullmatch(between)) and bool(
        g.range_openers.search(text[max(0, a.start - 12):a.start]) or g.range_closers.search(text[b.end:b.end + 6]))


def _single(a: _Amount, text: str, lang: str, g: _Grammar, named: str | None) -> _Reading | None:
    span = (a.start, a.end)
    if a.currency == UNSUPPORTED:  # read, so nothing else takes the number; no budget, and the reply says why
        return _Reading(span, rejected=("unsupported_currency", a.value)) if a.value > 0 else _Reading(span)
    if _counts_something(a, text, lang, g):
        return None
    cue = _has_cue(text, a.start, a.end, g)
    approximate = _approximate(text, a.start, a.end, g)
    if a.words and not a.currency:
        # "two grand" alone, "two thousand" by a budget word; a zero by a budget word ("预算零", not "零基础")
        zero = a.value == 0 and cue and _ends_phrase(text, a.end, g)
        scaled = a.scale or "hundred" in a.m["w"]  # "three hundred"
        if not (zero or (scaled and (a.scale in g.money_scales or cue))):
            return None
    evidence = cue or approximate or bool(a.scale or named)
    if a.currency and not evidence and 0 < a.value and too_small(a.value, a.currency) and text.strip() != text[a.start:a.end].strip() \
            and not g.range_openers.search(_before(text, a.start)) and not _ends_phrase(text, a.end, g):
        return None  # "一元二次方程", "a 5-dollar fan": the price of something else, unless a budget word says so
    return _classify(a.value, a.negative, a.currency, evidence, lang, span, approximate,
                     default=_scale_currency(a.scale, g) or named, named=named)


def _scale_currency(scale: str | None, g: _Grammar) -> str | None:
    """'1.5w', '2万' with no currency written mean yuan, in any language; '1 lakh' means rupees."""
    return g.scale_currency.get(scale) if scale else None


def _named_currency(text: str, amounts: list[_Amount], g: _Grammar) -> str | None:
    """The one currency a message names apart from its amounts ("for euros, say 900"), if it names exactly one."""
    taken = [(a.start, a.end) for a in amounts if a.currency]
    codes = set()
    for m in g.named_currency.finditer(text):
        if not any(s <= m.start() < e for s, e in taken):
            codes.add(g.before_code.get(m.group()) or g.after_code[m.group()])
    return codes.pop() if len(codes) == 1 else None


def _ends_phrase(text: str, end: int, g: _Grammar) -> bool:
    """Only punctuation, space or a budget word follows."""
    rest = text[end:].lstrip()
    return not rest or rest[0] in _PUNCT or bool(g.cue_start.match(rest))


# --- the extractor ---------------------------------------------------------------------------------------------------

def extract_money(text: str, lang: str) -> MoneyFinding:
    """The money a normalised message states (see the module docstring). The first budget in the text wins; a
    rejection or a bare number is reported only when there is no budget."""
    g = _grammar()
    amounts = [a for m in g.amount.finditer(text) if (a := _read(m, text, lang, g)) is not None]
    for i in range(1, len(amounts)):
        a, b = amounts[i - 1], amounts[i]
        if b.negative and b.dash_at is not None and not text[a.end:b.dash_at].strip():
            amounts[i] = replace(b, negative=False, start=b.dash_at + 1)  # "5000 - 8000", "5千-6千": a range's dash
    named = _named_currency(text, amounts, g)
    readings: list[_Reading] = []
    i = 0
    while i < len(amounts):
        if i + 1 < len(amounts):
            r = _range(amounts[i], amounts[i + 1], text, lang, g, named)
            if r is not None:
                if r is not _NOT_MONEY:
                    readings.append(r)
                i += 2
                continue
        r = _single(amounts[i], text, lang, g, named)
        if r is not None:
            readings.append(r)
        i += 1
    for m in g.idioms.finditer(text):  # "预算万把块"
        if any(a.start < m.end() and m.start() < a.end for a in amounts):
            continue
        after = _currency_after(text, m.end(), g)
        code = after[1] if after else None
        end = after[2] if after else m.end()
        r = _classify(g.idiom_values[m.group()], False, code, True, lang, (m.start(), end), True, default=named, named=named)
        if r is not None and code != UNSUPPORTED:
            readings.append(r)
    readings.sort(key=lambda r: r.span)
    first = next((r for r in readings if r.budget), None)
    budget = first.budget if first else None
    rejected = None if budget else next((r.rejected for r in readings if r.rejected), None)
    bare = None if budget or rejected else next((r.bare for r in readings if r.bare is not None), None)
    return MoneyFinding(budget=budget, bare_number=bare, rejected=rejected,
                        spans=tuple(sorted({r.span for r in readings})), currency_written=bool(first and first.written))


# --- an electricity price --------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _kwh_patterns() -> tuple[tuple[re.Pattern[str], ...], float]:
    """The two ways a kWh price is written, and the largest number that can be one."""
    g, lex = _grammar(), load("money")["kwh"]
    units = "|".join(re.escape(u) for u in sorted(lex["units"], key=len, reverse=True))
    per = "|".join(re.escape(w) for w in sorted(lex["per"], key=len, reverse=True))
    before = "|".join(re.escape(w) for w in sorted(g.before_code, key=len, reverse=True))
    after = "|".join(re.escape(w) for w in sorted(g.after_code, key=len, reverse=True))
    spoken = "|".join(re.escape(u) + (r"(?![a-z])" if u.isascii() else "")
                      for u in sorted(lex["spoken_units"], key=len, reverse=True))
    # a range ("一度 3-5 塊", "0.5到0.6"): weighed at its middle
    num = r"(?P<n>\d+(?:\.\d+)?|\.\d+)(?:\s*(?:-|–|~|～|到|至)\s*(?P<n2>\d+(?:\.\d+)?))?"
    # "6毛", "1块2", "2块半": a spoken amount, its next unit down said after it (one digit, or half)
    money_rx = rf"(?P<b>{before})?\s*{num}\s*(?:(?P<u>{spoken})(?P<sub>\d|半|多)?钱?)?\s*(?P<a>{after})?"
    return (re.compile(rf"{money_rx}\s*(?:{per})\s*(?:{units})(?![a-z])"),  # "0.35€/kWh", "$0.15 per kwh"
            re.compile(rf"(?:{per})\s*(?:{units})\s*(?:电|電)?\s*(?:是|要|约|約|大概)?\s*{money_rx}")), \
        float(lex["max_per_kwh"])  # (the second: "每度1.2港币")


def kwh_price(text: str, lang: str, default: str | None = None) -> tuple[Budget | None, list[tuple[int, int]]]:
    """What a kWh costs the user ("电费每度0.6", "每度1.2港幣", "0.35€/kWh", "$0.15 per kwh"), in the currency written
    (else `default`, the money of the place named, else the message language's: yuan in Chinese, dollars in English),
    and where it is said (so the number is no budget). The words are knowledge/lexicon/money.yaml `kwh`."""
    g, (patterns, most) = _grammar(), _kwh_patterns()
    for rx in patterns:
        m = rx.search(text)
        if m is None:
            continue
        code = g.before_code.get(m["b"] or "") or g.after_code.get(m["a"] or "") or \
            load("money")["kwh"]["spoken_currency"].get(m["u"] or "")
        if code == UNSUPPORTED:
            return None, [m.span()]
        said = (float(m["n"]) + float(m["n2"])) / 2 if m["n2"] else float(m["n"])
        value = _spoken_value(said, m["u"], m["sub"])
        if not 0 < value < most:
            return None, [m.span()]
        return Budget(value, code or default or ("CNY" if lang == "zh" else "USD")), [m.span()]
    return None, []


def _spoken_value(number: float, unit: str | None, sub: str | None) -> float:
    """'6毛' 0.6, '5毛5' 0.55, '1块2' 1.2, '2块半' 2.5, '4块多' ~4.5: the amount a spoken unit and what follows it make."""
    if not unit:
        return number
    worth = float(load("money")["kwh"]["spoken_units"][unit])
    below = 0.5 if sub in ("半", "多") else int(sub) / 10 if sub else 0.0  # "4块多": about 4.5
    return round((number + below) * worth, 4)


@lru_cache(maxsize=1)
def _price_currency_patterns() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, str]]:
    g, lex = _grammar(), load("money")["price_currency"]
    before = re.compile(r"(?:" + _alternation(lex["before"], lead=r"(?<![a-z])", trail="") + r")\s*$")
    after = re.compile(r"\s*(?:" + _alternation(lex["after"]) + ")")
    return before, after, {**g.before_code, **g.after_code}


def price_currency(text: str) -> str | None:
    """The currency a message asks prices to be shown in, with no amount ("same but in euros", "换成人民币价格",
    "用港币计几钱", "and in yen?"): its ISO code, or None. Call it only when the message states no budget."""
    for m in _grammar().named_currency.finditer(text):
        before, after, codes = _price_currency_patterns()  # (compiled only when a currency is named)
        code = codes.get(m.group(0).strip())
        if code in CURRENCIES and (before.search(text[:m.start()]) or after.match(text, m.end())):
            return code
    return None



def more_than_said(text: str, amount: float) -> float:
    """'一千多' ≈ 1,500, '3000多' ≈ 3,500, '两万出头' ≈ 21,000: the middle of what an amount said as "more than it" covers
    (lexicon `more_than_after`), for weighing an offered price; `amount` itself when no such word follows it. `text`
    is the parser's (Chinese numerals as digits)."""
    words_ = load("money")["more_than_after"]
    after = "|".join(re.escape(w) for w in sorted(words_, key=len, reverse=True))
    for m in re.finditer(rf"(?<![\d.])(\d+(?:\.\d+)?)\s*(千|万|k|w)?\s*(?P<w>{after})", text):
        value = float(m[1]) * {"千": 1e3, "k": 1e3, "万": 1e4, "w": 1e4}.get(m[2] or "", 1)
        if abs(value - amount) > 1e-6:
            continue
        how = words_[m["w"]]
        if how == "half_unit":
            digits = f"{value:.0f}"
            unit = 10 ** (len(digits) - len(digits.rstrip("0"))) if value >= 10 and value == int(value) else 1
            return value + unit / 2
        return value * (1 + float(how))
    return amount
