"""Text plumbing the extractors share: normalisation, Chinese numerals, word lists as regexes, masking."""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> str:
    """'zh' when the text has Chinese characters in meaningful share, else 'en'."""
    cjk = len(CJK.findall(text))
    latin_words = len(re.findall(r"[A-Za-z]{2,}", text))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= 2 or cjk >= latin_words else "en"


def is_traditional(text: str) -> bool:
    """True when the Chinese in `text` is written in Traditional characters (it changes under conversion to
    Simplified, and does not under conversion to Traditional)."""
    if not CJK.search(text):
        return False
    zhconv = _zhconv()
    return zhconv.convert(text, "zh-cn") != text and zhconv.convert(text, "zh-tw") == text




def chinese_script(text: str) -> str | None:
    """The script the Chinese in `text` is written in, as a zhconv locale: 'zh-tw' (Traditional), 'zh-hk'
    (Traditional with Cantonese), 'zh-cn' (Simplified); None when its characters are the same in both."""
    if not CJK.search(text):
        return None
    zhconv = _zhconv()
    # characters only Traditional writes (they change going to Simplified) against those only Simplified writes
    traditional = _changed(text, zhconv.convert(text, "zh-hans"))
    simplified = _changed(text, zhconv.convert(text, "zh-hant"))
    # a Traditional-only character is strong evidence (a Simplified writer never types 灣, 雲, 費); some characters
    # count as Simplified-only though Taiwan writes them every day (台 in 平台/台灣), so a tie is Traditional
    # Cantonese particles (咩, 嘅, 唔…, knowledge/lexicon/slots.yaml `cantonese`) are the same in both scripts, but Hong
    # Kong writes Traditional: each counts for it, and a message with them gets Hong Kong wording
    cantonese = _cantonese(text)
    if traditional + cantonese and traditional + cantonese >= simplified:
        return "zh-hk" if cantonese else "zh-tw"
    return "zh-cn" if simplified > traditional else None


def _cantonese(text: str) -> int:
    """How many Cantonese particles and words `text` uses (as written)."""
    from bot.slots.lexicon import words  # the lexicon reads text helpers: imported when first needed

    return sum(text.count(w) for w in words("slots", "cantonese"))


def _changed(a: str, b: str) -> int:
    if len(a) != len(b):
        return abs(len(a) - len(b)) + 1
    return sum(x != y for x, y in zip(a, b, strict=True))


def to_script(text: str, script: str) -> str:
    """`text` (Simplified) in `script`, with that region's wording ('显卡' -> '顯示卡', '带宽' -> '頻寬' in zh-tw):
    zhconv's tables plus knowledge/lexicon/script-terms.yaml."""
    if not text or not CJK.search(text):
        return text
    out = _zhconv().convert(text, script, update=_script_terms(script) or None)
    return _read_as_mainland(out) if script == "zh-cn" else out


@lru_cache(maxsize=4)
def _script_terms(script: str) -> dict[str, str]:
    from bot.slots.lexicon import load  # the lexicon reads text helpers: imported when first converting

    return dict(load("script-terms").get(script) or {})


@lru_cache(maxsize=1)
def _zhconv():
    import zhconv

    return zhconv


_MARKUP_BLOCK = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.I | re.S)
_MARKUP_TAG = re.compile(r"</?[a-z][a-z0-9-]*(?:\s[^<>]{0,300})?/?>", re.I)


def without_markup(text: str) -> str:
    """Text pasted from a web page or sent as HTML: tags and script/style blocks dropped, entities decoded
    ("<b>best gpu?</b>" asks "best gpu?"). A "<" that opens no tag ("预算<5000", "<16GB") is kept."""
    if "<" not in text and "&" not in text:
        return text
    import html

    out = _MARKUP_TAG.sub(" ", _MARKUP_BLOCK.sub(" ", text))
    return html.unescape(out) if "&" in out else out


@lru_cache(maxsize=1024)
def normalise(text: str) -> str:
    """Full-width to half-width, Traditional to Simplified, control characters to spaces, lower-case."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") else c for c in text)
    if CJK.search(text):
        text = _read_as_mainland(_zhconv().convert(text, "zh-cn").replace("𠮶", "嗰"))  # Cantonese "that": 嗰
    return text.lower()


def _read_as_mainland(text: str) -> str:
    """Simplified text with Taiwan's words that zhconv turned into a mainland word of another meaning put right:
    "顯示卡記憶體" is the card's memory (显存), not a PC's RAM (内存). knowledge/lexicon/script-terms.yaml `read`."""
    for tw, cn in _script_terms("read").items():
        text = text.replace(tw, cn)
    return text


def word_alternation(words) -> str:
    """One regex alternative for a word list, longest first, its Chinese numerals read as digits (as the parser's text
    has them); a word that starts or ends with a Latin letter must not run into another letter ("h" is not the h of
    "hbm", "a day" not the end of "today"; "8h" is eight hours)."""
    parts = []
    for w in sorted({chinese_numerals_to_digits(w) for w in words}, key=len, reverse=True):
        head = r"(?<![a-z])" if w[:1].isascii() and w[:1].isalpha() else ""
        tail = r"(?![a-z])" if w[-1:].isascii() and w[-1:].isalpha() else ""
        parts.append(head + re.escape(w) + tail)
    return "(?:" + "|".join(parts) + ")"


@lru_cache(maxsize=512)
def words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for a word list: Chinese (and symbol-led) words as substrings, English words on word boundaries."""
    parts = []
    for w in sorted(words, key=len, reverse=True):
        head = r"(?<![a-z0-9])" if w[:1].isascii() and w[:1].isalnum() else ""
        tail = r"(?![a-z0-9])" if w[-1:].isascii() and w[-1:].isalnum() else ""
        if tail and w[-1:].isalpha() and w[-1:] not in "s" and len(w) > 2 and " " not in w[-4:]:
            tail = r"(?:s|es)?" + tail  # "resnets", "transformers", "gpus": plurals name the same thing
        parts.append(head + re.escape(w) + tail)
    return re.compile("|".join(parts) or r"(?!)")


def search_any(text: str, words) -> re.Match[str] | None:
    """The first word of the list in `text`, as a match. A word can only match where it occurs as plain text, so a
    list none of whose words occurs is answered without compiling its regex (most lists, for most messages: a cold
    start compiles a tenth of them)."""
    words = tuple(words)
    if not any(map(text.__contains__, words)):
        return None
    return words_pattern(words).search(text)


def has_any(text: str, words) -> bool:
    return search_any(text, words) is not None


def find_any(text: str, words) -> list[tuple[int, int]]:
    words = tuple(words)
    if not any(map(text.__contains__, words)):
        return []
    return [m.span() for m in words_pattern(words).finditer(text)]


def mask(text: str, spans, fill: str = " ") -> str:
    """Blank out spans (the first character of each becomes `fill`), keeping every offset."""
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            chars[i] = fill if i == a else " "
    return "".join(chars)


# --- Chinese numerals ----------------------------------------------------------------------------------------------

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_RUN = re.compile(r"(?<![万千百亿])[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*")
_CN_PAIR = re.compile(r"([一二两三四五六七八九])([二两三四五六七八九])([十百千万])")
# "四五个小时", "两三张": two neighbouring numbers said together, with no scale word, are a range ("4-5")
_CN_PAIR_BARE = re.compile(r"(?<![零〇一二两三四五六七八九十百千万亿])([一二两三四五六七八])([二三四五六七八九])"
                           r"(?![零〇一二两三四五六七八九十百千万亿])")


@lru_cache(maxsize=1)
def _cn2an():
    import logging

    import cn2an

    logging.getLogger("cn2an").setLevel(logging.ERROR)  # it warns on every conversion it finds ambiguous
    return cn2an


def _cn_value(run: str) -> float | None:
    """The value of a run of Chinese numerals, spoken short forms included ('一万五' = 15000, '三千五' = 3500)."""
    if len(run) > 12:  # no amount, size or count anyone types is this long
        return None
    if len(run) == 1:  # "二手", "两张", "十": most runs are one character, and importing cn2an costs ~0.1 s
        value = _CN_DIGITS.get(run, 10 if run == "十" else 0)
        return float(value) if value > 0 else None
    try:
        value = float(_cn2an().cn2an(run, "smart"))
    except (ValueError, KeyError, IndexError, OverflowError):  # '一二' and other runs that are not one number
        head = run.rstrip("万亿")
        if head == run or not head:
            return None
        # "一亿亿", "十万亿亿": scale words stacked past what cn2an reads; they multiply (an absurd budget, said so)
        base = _cn_value(head)
        return base * math.prod(1e4 if c == "万" else 1e8 for c in run[len(head):]) if base else None
    return value if value > 0 else None


def _cn_render(run: str, value: float) -> str:
    """Digits with the run's own largest scale word kept, so the money extractor still sees '万'/'千'/'亿'."""
    for word, size in (("亿", 1e8), ("万", 1e4), ("千", 1e3)):
        if word in run and value >= size:
            return f"{value / size:.15g}{word}"
    return f"{value:.15g}"  # never '1e+06': the money extractor reads plain digits


def chinese_numerals_to_digits(text: str) -> str:
    """'八千块' -> '8千块', '一万五' -> '1.5万', '第一个' -> '第1个', '三四千' -> '3千-4千', '四五个' -> '4-5个'; words that only look
    numeric ('千万别', '万一') are left alone because a number starts with a digit or 十."""
    text = _CN_PAIR.sub(lambda m: (f"{m[1]}{m[3]}-{m[2]}{m[3]}" if _CN_DIGITS[m[2]] == _CN_DIGITS[m[1]] + 1
                                   else m.group()), text)
    text = _CN_PAIR_BARE.sub(lambda m: (f"{_CN_DIGITS[m[1]]}-{_CN_DIGITS[m[2]]}"
                                        if _CN_DIGITS[m[2]] == _CN_DIGITS[m[1]] + 1 else m.group()), text)

    def one(m: re.Match) -> str:
        value = _cn_value(m.group())
        if value is None:
            return m.group()
        out = _cn_render(m.group(), value)
        # never glue digits onto a neighbour's: "4090一小时" is "4090 1小时", not "40901小时"
        if m.start() > 0 and (m.string[m.start() - 1].isdigit() or m.string[m.start() - 1].isascii()
                              and m.string[m.start() - 1].isalpha()):
            out = " " + out
        return out

    text = _CN_RUN.sub(one, text)
    # mixed forms: '1万5' = 15000, '3千5' = 3500, '1w5' = 15000
    return re.sub(r"(?<![\d.])(\d+)([万千w])([1-9])(?![\d.千百万a-z])",
                  lambda m: f"{int(m[1]) + int(m[3]) / 10:g}{m[2]}", text)
