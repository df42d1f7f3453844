"""Extractors for the circumstances of a need and for the words a follow-up turns on: dates, used or new, region,
direction, positions in the last list, a language request, cue words."""

from __future__ import annotations

import functools
import re
from datetime import date

from bot.slots.lexicon import load, words
from bot.slots.text import find_any, has_any, mask, words_pattern

Spans = list[tuple[int, int]]

_DATE = re.compile(r"(?<![\d$¥.])(20[12]\d)(?:\s*年\s*(\d{1,2})\s*月|-(\d{1,2})(?:-(\d{1,2}))?|\s*年|(?![\d.]))")
_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")
_EN_MONTH_DATE = re.compile(r"\b(" + "|".join(m[:3] + r"[a-z]*" for m in _EN_MONTHS) + r")\.?\s+(20[12]\d)\b")
_MONEY_AFTER_YEAR = re.compile(r"\s*(?:[kw](?![a-z])|千|万|块|元|刀|dollars|bucks|usd|欧|euros?)")


def as_of(text: str, today: date) -> tuple[date | None, Spans]:
    """'in 2019', '2020年', '2019年4月', '2019-04-03', 'April 2019' -> a date in the past (None for this year on)."""
    found, spans = None, []
    for m in _DATE.finditer(text):
        if _MONEY_AFTER_YEAR.match(text, m.end(1)) or re.search(r"[$¥€£]\s*$", text[:m.start(1)]):
            continue  # "$2020", "2020元": money
        y, month, day = int(m[1]), int(m[2] or m[3] or 0), int(m[4] or 0)
        spans.append(m.span())
        try:
            d = date(y, month, day or 1) if month else date(y, 7, 1)
        except ValueError:
            continue
        if y < 2012 or d >= today or (y >= today.year and not month):
            continue
        if y == today.year - 1 and not month and has_any(text, words("slots", "still_now")):
            continue  # "is a used 3090 still worth it in 2025": the asker's now, not a look back
        found = d
    for m in _EN_MONTH_DATE.finditer(text):
        month = next(i for i, name in enumerate(_EN_MONTHS, 1) if name.startswith(m[1][:3]))
        d = date(int(m[2]), month, 1)
        spans.append(m.span())
        if d < today:
            found = d
    return found, spans


_NOT_USED = re.compile(r"(?<!为什么)(?<!为啥)(?<!why)(?:别|不要|不想要|不想|不买|不考虑|不接受|避免|避开|avoid|no|not|don't|dont|do not|"
                       r"never|without|rather not|prefer not to|no more)\s*"
                       r"(?:买|要|用|考虑|碰|buy|buying|get|want|consider|deal with|bother with|mess with|touch|trust|risk)?"
                       r"\s*(?:a\s+|any\s+)?"
                       r"(?:二手|矿卡|拆机|used|second[\s-]?hand|refurb\w*)")
_USED_WORD = re.compile(r"(?:(?:buy|buying|go|get|getting|consider|considering|allow|allowing|including|include|new or|"
                        r"or|ok with|fine with|open to|a|some|any|cheap)\s+used\b|\bused\s+(?:@|cards?\b|gpus?\b|"
                        r"market\b|prices?\b|ones?\b|is\b|ok\b|okay\b|fine\b|allowed\b|or\b|graphics\b|rtx\b|gtx\b|"
                        r"tesla\b|too\b|instead\b|server\b|workstation\b|datacenter\b|enterprise\b|quadro\b|radeon\b|amd\b|"
                        r"nvidia\b|options?\b|choices?\b|deals?\b|listings?\b|units?\b|versions?\b|stuff\b|的|也|ok|okay)|(?:[\d@,;(?]|^)\s*used\b|\bused\s*[?？]|\bused\s*$)")


_USED_CJK = re.compile(r"(?<![a-z])used(?=\s*(?:的|也|卡|可以|行|吗|呢|嘅|得唔得|啦|ok))|(?:what about|how about|and)\s+used\b")


def used(text: str) -> bool | None:
    """True: second-hand is wanted or allowed; False: new only; None: not said. ('used' alone is usually a verb.)"""
    new = has_any(text, words("slots", "new_only")) or _NOT_USED.search(text) is not None
    plain = [w for w in words("slots", "used") if w != "used"]
    old = has_any(text, plain) or _USED_WORD.search(text) is not None or _USED_CJK.search(text) is not None
    if new and old and _NOT_USED.search(text) is None:
        return None  # "二手3090 vs 全新4070": both are on the table
    return False if new else True if old else None


def region(text: str) -> str | None:
    for code, ws in words("slots", "region").items():
        if has_any(text, ws):
            return code
    return None


def region_of(currency: str | None, script: str | None) -> str | None:
    """The market a message implies when it names no place: its budget's currency ("NT$30000": Taiwan), else
    Cantonese written in Traditional characters (Hong Kong, not the mainland)."""
    by_currency = load("slots").get("region_of_currency", {})
    if currency in by_currency:
        return by_currency[currency]
    return "hk" if script == "zh-hk" else None


def local_currency(region_code: str | None) -> str | None:
    """The currency people of a region price in, when it is not the mainland's or the US's ("我在台灣 預算3萬": NT$)."""
    by_currency = load("slots").get("region_of_currency", {})
    return next((c for c, r in by_currency.items() if r == region_code), None) if region_code else None


def direction(text: str) -> str | None:
    """cheaper / pricier / faster / more_memory / less_power, when the message asks to move that way (the first one said:
    '凉快一点' is cooler, not '快一点')."""
    found = []
    text = mask(text, find_any(text, words("slots", "direction_statement", "not_asked")))
    for name, ws in words("slots", "direction").items():
        for a, b in find_any(text, ws):
            if not _describes(text[:a]):
                found.append((a, a - b, name))
                break
    if not found and _more_memory_phrase().search(text):
        return "more_memory"
    return min(found)[2] if found else None


@functools.cache
def _more_memory_phrase() -> re.Pattern:
    """A memory word with bigger/more said as a comparison after it (lexicon `more_memory_phrase`)."""
    w = load("slots")["more_memory_phrase"]
    alt = lambda key: "|".join(sorted(map(re.escape, w[key]), key=len, reverse=True))  # noqa: E731
    return re.compile(rf"(?:{alt('memory')})\s*(?:(?:{alt('between')})\s*)*?(?:(?:{alt('before')})\s*(?:{alt('bigger')})"
                      rf"|(?:{alt('bigger')})\s*(?:{alt('after')}))", re.I)


def _describes(before: str) -> bool:
    """The direction word is said of something ("is AMD ok? it's cheaper", "since they're faster"), not asked for:
    it follows a subject and verb ("it's", "they are", "因为它") with only degree words between ("way", "更")."""
    t = before.rstrip()
    degree = words("slots", "direction_statement", "degree")
    while (w := next((w for w in degree if _ends_with_word(t, w)), None)) is not None:
        t = t[:-len(w)].rstrip()
    clause = re.split(r"[，,。.!?！？;；]", before)[-1]
    return any(_ends_with_word(t, w) for w in words("slots", "direction_statement", "subjects")) or \
        has_any(clause, words("slots", "direction_statement", "reasons"))  # "听说A卡便宜", "since AMD is cheaper"


_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3,
                "4th": 4, "5th": 5}
_ORDINAL_ZH = re.compile(r"第\s*(\d{1,2})\s*(?:个|张|款|名|种|和|跟|与|、)?|(?<![\d.])(\d{1,2})\s*号(?:卡)?")
_ORDINAL_HASH = re.compile(r"#\s*(\d{1,2})(?!\d)|\bno\.\s*(\d)\b|\bnumber\s+(\d|one|two|three)\b|\boption\s+(\d)\b")
_PAIR_OF_POSITIONS = re.compile(r"(?:compare|between|比较|对比|比一下|比)\s*#?(\d)\s*(?:and|&|vs\.?|with|和|与|跟|、)\s*"
                                r"#?(\d)(?![\d.])|(?:options?|picks?|numbers?)\s*(\d)\s*(?:and|&|vs\.?)\s*(\d)(?![\d.])")
_FIRST_N = re.compile(r"(?:前|头|这|(?<![a-z])(?:first|top|these))\s*(\d{1,2}(?![\d.])|two|three)\s*"
                      r"(?:个|张|款|名|ones|picks|cards|gpus)?")  # not "desktop 4070", "这3张" only as a group
_AND_ORDINAL = re.compile(r"第\s*\d{1,2}\s*(?:个|张)?\s*(?:和|跟|与|、|,|，)\s*(?:第\s*)?(\d{1,2})(?:\s*个|\s*张)?")
_NOT_ORDINAL = re.compile(r"(?:per|a|each|one|tokens?/)\s*second|seconds|second[\s-]?hand|third[\s-]?party|last (?:year|gen\w*|time|month|week)|at first|first time|first gpu|"
                          r"my first|first of all|at last")
_WORD_NUM = {"one": 1, "two": 2, "three": 3}


def group_spans(text: str) -> list[tuple[int, int]]:
    """Where the text names positions in the list on screen ("头两张", "these three", "top 3", "第二张"): not a count."""
    return [m.span() for m in _FIRST_N.finditer(text) if not re.search(r"第", text[max(0, m.start() - 1):m.start()])] \
        + [m.span() for m in _ORDINAL_ZH.finditer(text)]


def ordinals(text: str) -> tuple[int, ...]:
    """Positions in the last list: 'the first two' (1, 2), '#3', '第一和第三个' (1, 3), 'the last one' (-1)."""
    out: list[int] = []
    m = _FIRST_N.search(text)
    if m and not re.search(r"第", text[max(0, m.start() - 1):m.start()]):
        k = _WORD_NUM.get(m[1]) or int(m[1])
        out = list(range(1, min(k, 5) + 1))
    else:
        for m in _ORDINAL_ZH.finditer(text):
            out.append(int(m[1] or m[2]))
        for m in _AND_ORDINAL.finditer(text):
            out.append(int(m[1]))
        for m in _PAIR_OF_POSITIONS.finditer(text):
            out += [int(m[1] or m[3]), int(m[2] or m[4])]
        for m in _ORDINAL_HASH.finditer(text):
            v = next(g for g in m.groups() if g)
            out.append(_WORD_NUM.get(v) or int(v))
        plain = _NOT_ORDINAL.sub(" ", text)
        for word, k in _ORDINALS_EN.items():
            if re.search(r"(?<![a-z0-9])" + word + r"(?![a-z0-9])", plain):
                out.append(k)
        if has_any(text, ("top pick", "the top one", "your top pick", "首选", "第一推荐")):
            out.append(1)
        if has_any(text, ("最后一个", "最后那个", "the last one", "最后一张", "最后1个", "最后1张", "the last card",
                          "the last pick", "last one", "the last option", "最后嗰张", "最后嗰个", "最后个", "最尾")):
            out.append(-1)
    return tuple(o for o in dict.fromkeys(out) if -1 <= o <= 10 and o != 0)


def language_request(text: str) -> str | None:
    """'in English please' -> 'en'; '用中文' -> 'zh'; 'can you speak chinese', '以后都用英语跟我说' -> the language."""
    tails = words_pattern(words("slots", "language_tails"))
    for lang, ws in words("slots", "language").items():
        if any(_only_tails(text[b:], tails) for _, b in find_any(text, ws)):
            return lang
    verbs = words_pattern(words("slots", "language_verbs"))
    for lang, names in words("slots", "language_names").items():
        for m in words_pattern(names).finditer(text):
            before = text[: m.start()].rstrip()
            spoken = not before.strip(_PUNCTUATION) or any(
                len(before[v.end():].strip()) <= _LANGUAGE_GAP for v in verbs.finditer(before))
            if spoken and _only_tails(text[m.end():], tails):
                return lang
    return None


_PUNCTUATION = " ,.!?~:;，。！？、…：；"
_LANGUAGE_GAP = 4  # characters between the word of replying and the language: "answer me in", "以后都用"


def _only_tails(rest: str, tails: re.Pattern[str]) -> bool:
    """Whether a language's name ends the request: nothing but words of asking ("please", "from now on", "吗",
    "跟我说") follow it before the end or a punctuation mark ("in English please, what's the best…"). "用中文写个脚本"
    and "my english is bad" ask for something else."""
    before = ""
    while rest:
        stripped = rest.lstrip(" ")
        if not stripped or stripped[0] in _PUNCTUATION:
            return True
        if stripped is not rest and (_CJK.match(stripped) or (_CJK.match(before[-1:]) and stripped[0].isascii())):
            return True  # a new clause after a space ("English please 我同事睇唔明中文", "说中文 看不懂英文")
        m = tails.match(stripped)
        if m is None:
            return False
        before, rest = stripped[:m.end()], stripped[m.end():]
    return True


_CJK = re.compile(r"[\u4e00-\u9fff]")


def script_request_spans(text: str) -> list[tuple[int, int]]:
    """Where a message asks for a script ("用香港繁體回答"): its place name is a wording, not where the user buys."""
    return [span for ws in words("slots", "script_request").values() for span in find_any(text, ws)]


def script_request(text: str) -> str | None:
    """'用繁體中文回答' -> 'zh-tw', '用简体' -> 'zh-cn' (zhconv locales): the script a message asks replies to use."""
    refused = None
    for script, ws in words("slots", "script_request").items():
        for a, _ in find_any(text, ws):
            if not has_any(text[max(0, a - 4): a], words("slots", "script_refused")):
                return script
            refused = refused or script
    if refused is not None:  # "唔好用簡體字", "别用繁体": the other script
        return "zh-cn" if refused != "zh-cn" else ("zh-hk" if has_any(text, words("slots", "cantonese")) else "zh-tw")
    return None


def budget_move(text: str, amounts: tuple[tuple[int, int], ...]) -> str | None:
    """'up' or 'down' when an amount moves the budget on the table ("再加1000", "$500 more", "少2000", "cut it by 300")
    instead of stating one: a move word right before or right after the amount (`amounts`: the money extractor's
    spans in `text`). "more than 700" and "more like €1200" state a budget."""
    table = words("slots", "budget_move")
    for a, b in amounts:
        before, after = text[:a].rstrip(), text[b:].lstrip()
        if any(_ends_with_word(before, w) for w in table["not_before"]):
            continue
        for move in ("up", "down"):
            if any(_ends_with_word(before, w) for w in table[move]["before"]) or \
                    any(_starts_with_word(after, w) for w in table[move]["after"]):
                return move
    return None


def _ends_with_word(text: str, w: str) -> bool:
    return text.endswith(w) and (not w.isascii() or len(text) == len(w) or not text[-len(w) - 1].isalnum())


def _starts_with_word(text: str, w: str) -> bool:
    return text.startswith(w) and (not w.isascii() or len(text) == len(w) or not text[len(w)].isalnum())


SMALL_TALK_CUES = frozenset({"greeting", "help", "reset", "thanks", "bye"})  # cue names of small talk


def cues(text: str, with_cards: str | None = None) -> frozenset[str]:
    """The follow-up words a message carries (why, compare, rent, power, …): the dialogue policy's conditions.
    Entries with "@" stand for a card's name ("what can a @ run") and are looked for in `with_cards`, the text
    with each card named replaced by "@"."""
    if with_cards and "@" in with_cards:
        with_cards = re.sub(r"@\w*\s*", "@ ", with_cards)  # "a @    run", "two @s run": one "@" and a space
        with_cards = re.sub(r"@ (?=[\u4e00-\u9fff])", "@", with_cards)  # "跟@比", "@能跑啥": Chinese has no space
    guards = words("slots", "cue_guards")
    found = {name for name, ws in words("slots", "cues").items()
             if has_any(mask(text, find_any(text, guards[name])) if name in guards else text, ws)
             or (with_cards and "@" in with_cards and has_any(with_cards, [w for w in ws if "@" in w]))}
    for small in SMALL_TALK_CUES & found:  # "很有帮助" thanks, it does not ask for help
        spans = find_any(text, words("slots", "cues", small))
        others = [sp for c in SMALL_TALK_CUES - {small} for sp in find_any(text, words("slots", "cues", c))]
        if spans and all(any(a <= x and y <= b and b - a > y - x for a, b in others) for x, y in spans):
            found.discard(small)
    if "offtopic" in found:  # "is it safe to buy a mining card": a used GPU, not crypto mining
        rest = mask(text, find_any(text, words("slots", "offtopic_in_domain")))
        if "dl" in found or has_any(text, words("slots", "card_classes")) or \
                ("compare" in found and with_cards and "@" in with_cards):
            # "游戏卡跑深度学习行吗", "为什么游戏卡比专业卡性价比高", "游戏卡和A100有啥区别": a gaming card for machine
            # learning, or against other cards
            rest = mask(rest, find_any(rest, words("slots", "offtopic_in_domain_with_ml")))
        if with_cards and "@" in with_cards:  # "筆電4090跟桌機4090差多少": a laptop's card
            rest = mask(rest, find_any(rest, words("slots", "offtopic_in_domain_with_card")))
        rest = mask(rest, clauses_from(rest, words("slots", "topic_dropped")))  # "ok forget gaming. cheaper?"
        if not has_any(rest, words("slots", "cues", "offtopic")):
            found.discard("offtopic")
    return frozenset(found)


def clauses_from(text: str, starters) -> list[tuple[int, int]]:
    """Spans from each of `starters` ("forget", "不做") to the end of its clause: punctuation or a word that says
    what replaces it (workload_negation's ends: "改成", "just", "now")."""
    # "跑唔跑到", "做不做得了": a question of the A-not-A form asks, it does not drop anything
    found = [(a, b) for a, b in find_any(text, starters)
             if not (a > 0 and text[a] in "不唔" and b - a >= 2 and text[a - 1] == text[a + 1])]
    if not found:
        return []
    ends = find_any(text, words("slots", "workload_negation", "ends"))
    return [(a, min((ea for ea, _ in ends if ea >= b), default=len(text))) for a, b in found]


def specs_asked(text: str) -> tuple[str, ...]:
    """Which figures of a spec sheet a message asks for ('bandwidth', 'tensor', 'release'…), in the lexicon's order."""
    return tuple(field for field, ws in words("slots", "spec_asked").items() if has_any(text, ws))
