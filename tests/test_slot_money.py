"""bot.slots.money: budgets as people write them, in Chinese (Simplified and Traditional) and English; the exchange
rates behind the dollars'-worth ceiling (knowledge/fx.csv, bot.catalog.FxTable); bot.i18n.money.

Inputs go through the parser's own normalisation first (bot.nlu.normalise, then chinese_numerals_to_digits), as they
do in bot.nlu.parse; a card's name reads "@" there, so cases that name a card write "@" for it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.catalog import CatalogError, FxRate, FxTable, load_fx
from bot.i18n import money
from bot.need import CURRENCIES, Budget
from bot.nlu import chinese_numerals_to_digits, detect_language, normalise
from bot.slots.money import MAX_AMOUNT, MoneyFinding, extract_money, too_large

KNOWLEDGE = Path(__file__).resolve().parent.parent / "knowledge"


def read(text: str, lang: str | None = None) -> MoneyFinding:
    """What the extractor finds in a raw message, normalised the way the parser normalises it."""
    return extract_money(chinese_numerals_to_digits(normalise(text)), lang or detect_language(text))


def budget(amount, currency, low=None, approximate=False):
    return ("budget", Budget(amount, currency, low, approximate))


def bare(value):
    return ("bare", value)


def rejected(kind, value):
    return ("rejected", (kind, value))


NOTHING = ("nothing", None)


def outcome(f: MoneyFinding):
    if f.budget is not None:
        return ("budget", f.budget)
    if f.rejected is not None:
        return ("rejected", f.rejected)
    if f.bare_number is not None:
        return ("bare", f.bare_number)
    return NOTHING


CNY, USD, TWD, HKD, EUR, GBP, JPY, KRW, AUD, CAD, SGD, INR = CURRENCIES

CASES = [
    # --- Chinese, Simplified: yuan by default, scales, ranges, bounds -----------------------------------------------
    ("5000元", budget(5000, CNY)),
    ("八千块", budget(8000, CNY)),
    ("一万五", budget(15000, CNY)),
    ("1.5万", budget(15000, CNY)),
    ("1.5w", budget(15000, CNY)),
    ("1w5", budget(15000, CNY)),
    ("2w以内", budget(20000, CNY)),
    ("5k左右", budget(5000, CNY, approximate=True)),
    ("预算两千美元", budget(2000, USD)),
    ("预算三千到五千", budget(5000, CNY, low=3000)),
    ("一两千块", budget(2000, CNY, low=1000)),
    ("1-2万", budget(20000, CNY, low=10000)),
    ("五六千", budget(6000, CNY, low=5000)),
    ("三四千块", budget(4000, CNY, low=3000)),
    ("8千到1万", budget(10000, CNY, low=8000)),
    ("人民币五千", budget(5000, CNY)),
    ("不超过三千五", budget(3500, CNY)),
    ("预算1万2", budget(12000, CNY)),
    ("手头只有两千块钱", budget(2000, CNY)),
    ("预算5000左右，训练yolo", budget(5000, CNY, approximate=True)),
    ("最多3000", budget(3000, CNY)),
    ("不到4000的卡", budget(4000, CNY)),
    ("4000以下", budget(4000, CNY)),
    ("大概六千", budget(6000, CNY, approximate=True)),
    ("两千多", budget(2000, CNY, approximate=True)),
    ("1万出头", budget(10000, CNY, approximate=True)),
    ("手头千把块钱", budget(1000, CNY, approximate=True)),
    ("¥8000", budget(8000, CNY)),
    ("软妹币五千", budget(5000, CNY)),
    ("800刀", budget(800, USD)),
    ("美金八百", budget(800, USD)),
    ("降到2500能买啥", budget(2500, CNY)),
    ("预算8000，@   还是@   ", budget(8000, CNY)),  # two cards named: "@" each
    ("训练100万张图片 预算2万", budget(20000, CNY)),
    ("预算5000 显存大点", budget(5000, CNY)),
    # --- Chinese: the other currencies ------------------------------------------------------------------------------
    ("预算3万台币", budget(30000, TWD)),
    ("新台币5千元", budget(5000, TWD)),  # "元" yields to the currency named
    ("港币八千", budget(8000, HKD)),
    ("8千港元", budget(8000, HKD)),
    ("港纸一万", budget(10000, HKD)),
    ("yusuan 3wan taibi", budget(30000, TWD)),  # pinyin
    ("yusuan 1.5wan", budget(15000, CNY)),
    ("8000 gangbi", budget(8000, HKD)),
    ("budget goes up to 1 lakh", budget(100000, INR)),  # Indian scales mean rupees
    ("₹1.5 lakh for llm", budget(150000, INR)),
    ("欧元两千", budget(2000, EUR)),
    ("2000欧", budget(2000, EUR)),
    ("九百英镑", budget(900, GBP)),
    ("15万日元", budget(150000, JPY)),
    ("日币十万", budget(100000, JPY)),
    ("预算¥150000", budget(150000, CNY)),  # "¥" in a Chinese message is always yuan
    # --- Chinese, Traditional (converted to Simplified by the parser) -----------------------------------------------
    ("預算五千元", budget(5000, CNY)),
    ("八千塊", budget(8000, CNY)),
    ("一萬五", budget(15000, CNY)),
    ("預算三萬台幣", budget(30000, TWD)),
    ("新臺幣五千元", budget(5000, TWD)),
    ("港幣八千", budget(8000, HKD)),
    ("港紙一萬", budget(10000, HKD)),
    ("歐元兩千", budget(2000, EUR)),
    ("英鎊九百", budget(900, GBP)),
    ("日圓十五萬", budget(150000, JPY)),
    ("軟妹幣五千", budget(5000, CNY)),
    ("三四千塊", budget(4000, CNY, low=3000)),
    ("一兩萬", budget(20000, CNY, low=10000)),
    ("預算不到一萬", budget(10000, CNY)),
    ("最多兩千五", budget(2500, CNY)),
    ("預算八千塊左右", budget(8000, CNY, approximate=True)),
    ("兩千多", budget(2000, CNY, approximate=True)),
    ("手頭萬把塊", budget(10000, CNY, approximate=True)),
    ("負五千", rejected("negative", -5000)),
    ("預算零", rejected("zero", 0)),
    ("預算兩億", rejected("too_large", 2e8)),
    ("一百萬張圖片", NOTHING),
    ("兩張卡", NOTHING),
    # --- English: dollars by default, scales, words, ranges, bounds --------------------------------------------------
    ("$800", budget(800, USD)),
    ("under $400", budget(400, USD)),
    ("5000-8000", budget(8000, USD, low=5000)),
    ("5000 - 8000", budget(8000, USD, low=5000)),
    ("1,500 dollars", budget(1500, USD)),
    ("my budget is around 1.2k", budget(1200, USD, approximate=True)),
    ("8k", budget(8000, USD)),
    ("5 grand", budget(5000, USD)),
    ("two grand", budget(2000, USD)),
    ("a grand and a half", budget(1500, USD)),
    ("1.5 grand", budget(1500, USD)),
    ("half a grand", budget(500, USD)),
    ("a couple grand", budget(2000, USD)),
    ("fifty bucks", budget(50, USD)),
    ("twenty five hundred dollars", budget(2500, USD)),
    ("budget of two thousand", budget(2000, USD)),
    ("budget: two hundred fifty", budget(250, USD)),
    ("2k5", budget(2500, USD)),
    ("$1k-$2k", budget(2000, USD, low=1000)),
    ("3k-4k", budget(4000, USD, low=3000)),
    ("3-4k", budget(4000, USD, low=3000)),
    ("500-2k", budget(2000, USD, low=500)),
    ("between 1000 and 1500 bucks", budget(1500, USD, low=1000)),
    ("about 3k-4k to spend", budget(4000, USD, low=3000, approximate=True)),
    ("USD 2,500 max", budget(2500, USD)),
    ("up to $1200", budget(1200, USD)),
    ("below 900 dollars", budget(900, USD)),
    ("~5000", budget(5000, USD, approximate=True)),
    ("5k-ish", budget(5000, USD, approximate=True)),
    ("$2k or so", budget(2000, USD, approximate=True)),
    ("how about 1800 then", budget(1800, USD)),
    ("used is ok and i can go to 1200", budget(1200, USD)),
    ("a 100 dollar card", budget(100, USD)),
    ("I have 2 kids and $900", budget(900, USD)),
    ("rtx @    under $900", budget(900, USD)),
    ("@    for 1500 or @    for 2000, budget 1800", budget(1800, USD)),
    ("budget 1.5w", budget(15000, CNY)),  # "w" is 万 wherever it is written: yuan
    ("training cnns, budget三万", budget(30000, CNY)),
    # --- English: the other currencies --------------------------------------------------------------------------------
    ("¥150,000", budget(150000, JPY)),  # "¥" in English, 20,000 or more, no yuan word: yen
    ("¥5000", budget(5000, CNY)),
    ("¥150,000 rmb", budget(150000, CNY)),
    ("JP¥150,000", budget(150000, JPY)),
    ("150000 yen", budget(150000, JPY)),
    ("NT$30,000", budget(30000, TWD)),
    ("30000 twd", budget(30000, TWD)),
    ("HK$5,000", budget(5000, HKD)),
    ("5000 hkd", budget(5000, HKD)),
    ("€2k", budget(2000, EUR)),
    ("about 1500 euros", budget(1500, EUR, approximate=True)),
    ("eur 800", budget(800, EUR)),
    ("budget 2.000€ for a gpu", budget(2000, EUR)),  # a European thousands point
    ("£900", budget(900, GBP)),
    ("900 quid", budget(900, GBP)),
    ("gbp 900", budget(900, GBP)),
    ("5k RMB", budget(5000, CNY)),
    ("rmb 5000", budget(5000, CNY)),
    ("6000 yuan", budget(6000, CNY)),
    ("US$800", budget(800, USD)),
    ("800usd", budget(800, USD)),
    ("can you redo that for euros, say 900", budget(900, EUR)),  # the one currency the message names
    # --- numbers that are not money -----------------------------------------------------------------------------------
    ("32k context", NOTHING),
    ("128k tokens", NOTHING),
    ("4k显示器", NOTHING),
    ("27寸4K显示器", NOTHING),
    ("300w电源", NOTHING),
    ("850w psu", NOTHING),
    ("65w charger", NOTHING),
    ("300-500w", NOTHING),
    ("100万张图片", NOTHING),
    ("24g显存", NOTHING),
    ("24gb", NOTHING),
    ("70b", NOTHING),
    ("70亿参数", NOTHING),
    ("2020年", NOTHING),
    ("2019-2021", NOTHING),
    ("1080p", NOTHING),
    ("第2个", NOTHING),
    ("第100个", NOTHING),
    ("#2", NOTHING),
    ("top 100", NOTHING),
    ("resnet50", NOTHING),
    ("resnet-50", NOTHING),
    ("gpt-4", NOTHING),
    ("llama-2-70b", NOTHING),
    ("训练1000轮", NOTHING),
    ("3块卡", NOTHING),
    ("能再便宜两千吗", NOTHING),  # a step down, not a budget
    ("零基础入门", NOTHING),
    ("no budget", NOTHING),  # not a zero budget
    ("two thousand", NOTHING),  # words alone, no currency, no budget word
    ("a million questions", NOTHING),
    ("batch size 256", NOTHING),
    ("€800", budget(800, EUR)),
    ("5000卢布", rejected("unsupported_currency", 5000)),  # a currency the advisor does not convert: said so
    ("nz$2000 for a gpu", rejected("unsupported_currency", 2000)),
    ("2,5k€ for a deep learning gpu", budget(2500, EUR)),  # a European decimal comma before a scale
    ("budget 1,5k euro", budget(1500, EUR)),
    ("₹50000", budget(50000, INR)),  # converted at the dated rate, shown in both currencies
    ("₹1,20,000", budget(120000, INR)),  # lakh grouping
    ("rs. 80000 for a gpu", budget(80000, INR)),
    ("a$800", budget(800, AUD)),
    ("1500 australian dollars for ML", budget(1500, AUD)),
    ("3000 cad for a gpu", budget(3000, CAD)),
    ("S$1,800 budget", budget(1800, SGD)),
    ("韩币200万买什么显卡", budget(2_000_000, KRW)),
    ("₩1,500,000 gpu for llms", budget(1_500_000, KRW)),
    ("預算150萬韓元", budget(1_500_000, KRW)),
    # --- bare numbers: a budget only if the dialogue asked for one ---------------------------------------------------
    ("5000", bare(5000)),
    ("5000呢", bare(5000)),
    ("那6000的呢", bare(6000)),
    ("12", NOTHING),
    # --- stated, but no budget ----------------------------------------------------------------------------------------
    ("-500", rejected("negative", -500)),
    ("-$500", rejected("negative", -500)),
    ("$-500", rejected("negative", -500)),
    ("minus 200 dollars", rejected("negative", -200)),
    ("负5000", rejected("negative", -5000)),
    ("预算-800", rejected("negative", -800)),
    ("0元", rejected("zero", 0)),
    ("预算0", rejected("zero", 0)),
    ("预算零", rejected("zero", 0)),
    ("$0", rejected("zero", 0)),
    ("zero dollars", rejected("zero", 0)),
    ("budget: 0", rejected("zero", 0)),
    ("预算2亿", rejected("too_large", 2e8)),
    ("$200 million", rejected("too_large", 2e8)),
    ("1.5 billion dollars", rejected("too_large", 1.5e9)),
    ("€99,000,000", rejected("too_large", 99e6)),  # over $100M's worth
    ("¥200,000,000", rejected("too_large", 2e8)),
    ("预算1亿", budget(1e8, CNY)),  # the ceiling itself is still a (silly) budget
    # what an amount buys makes it a budget
    ("what can 800 buy me for ML", budget(800, USD)),
    ("what gpu does 1200 get me", budget(1200, USD)),
    ("1500能买什么显卡", budget(1500, CNY)),
    ("3000可以買啥卡", budget(3000, CNY)),
]


def test_table_size_and_languages():
    zh = [t for t, _ in CASES if detect_language(t) == "zh"]
    traditional = [t for t in zh if normalise(t) != t.lower()]
    assert len(CASES) >= 60 and len(zh) >= 25 and len(CASES) - len(zh) >= 25 and len(traditional) >= 15
    kinds = {o[0] for _, o in CASES}
    assert kinds == {"budget", "bare", "rejected", "nothing"}
    assert {o[1].currency for _, o in CASES if o[0] == "budget"} == set(CURRENCIES)


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_phrasings(text, expected):
    assert outcome(read(text)) == expected


def test_traditional_reads_like_simplified():
    for trad, simp in (("預算三萬台幣", "预算三万台币"), ("港幣八千", "港币八千"), ("預算一萬五左右", "预算一万五左右"),
                       ("歐元兩千", "欧元两千"), ("負五千", "负五千")):
        assert read(trad) == read(simp)


def test_spans_cover_the_amounts_read():
    text = chinese_numerals_to_digits(normalise("预算五千元，显存要大"))
    f = extract_money(text, "zh")
    assert [text[a:b] for a, b in f.spans] == ["5千元"]
    text = "@    for 1500 or @    for 2000, budget 1800"
    assert [text[a:b] for a, b in extract_money(text, "en").spans] == ["1500", "2000", "1800"]
    text = "5000-8000 rmb"
    assert [text[a:b] for a, b in extract_money(text, "en").spans] == ["5000-8000 rmb"]
    assert extract_money("32k context, 24gb", "en").spans == ()  # not money: left to the other extractors
    text = "5000卢布"
    assert [text[a:b] for a, b in extract_money(text, "zh").spans] == ["5000卢布"]  # read, though not a budget


def test_a_budget_wins_over_a_rejection_and_a_bare_number():
    f = read("预算0……不对，预算5000")
    assert f.budget == Budget(5000, "CNY") and f.rejected is None and f.bare_number is None
    f = read("5000, or -300")
    assert f.budget is None and f.rejected == ("negative", -300) and f.bare_number is None


def test_the_message_language_sets_the_default_currency():
    assert read("预算5000", "zh").budget.currency == "CNY"
    assert read("budget 5000", "en").budget.currency == "USD"
    assert read("¥30000", "zh").budget.currency == "CNY"
    assert read("¥30000", "en").budget.currency == "JPY"
    assert read("¥30000 (yuan)", "en").budget.currency == "CNY"


def test_ceiling():
    assert not too_large(MAX_AMOUNT, "CNY") and too_large(MAX_AMOUNT + 1, "CNY")
    assert too_large(9.9e7, "EUR") and not too_large(9.9e7, "USD")  # €99M is more than $100M's worth
    assert too_large(2e8, "JPY")


# --- properties ------------------------------------------------------------------------------------------------------

# how each currency is written before and after an amount (Traditional spellings included: the parser converts them)
_BEFORE = {"USD": ["$", "us$", "usd ", "USD ", "美金"], "CNY": ["¥", "rmb ", "RMB", "cny ", "人民币", "人民幣"],
           "TWD": ["nt$", "NT$", "twd ", "新台币", "新臺幣", "台幣"], "HKD": ["hk$", "HK$", "hkd ", "港币", "港幣"],
           "EUR": ["€", "eur ", "EUR ", "歐元"], "GBP": ["£", "gbp ", "英鎊"], "JPY": ["jp¥", "JP¥", "jpy ", "日元", "日圓"],
           "KRW": ["₩", "krw ", "韩币", "韓元"], "AUD": ["a$", "A$", "aud ", "澳元"], "CAD": ["c$", "C$", "cad ", "加币"],
           "SGD": ["s$", "S$", "sgd ", "新币"], "INR": ["₹", "inr ", "INR "]}
_AFTER = {"USD": [" dollars", " bucks", "刀", "美元", "美金", " usd", " USD"],
          "CNY": ["元", "块", "塊", " rmb", " yuan", "人民币", " cny", " CNY"],
          "TWD": [" twd", "台币", "新台币", "台幣", " ntd", " TWD"], "HKD": [" hkd", "港币", "港元", "港纸", "港幣", " HKD"],
          "EUR": ["€", " euros", " eur", "欧元", "歐元", " EUR"], "GBP": [" pounds", " quid", " gbp", "英镑", "英鎊", "£"],
          "JPY": [" yen", " jpy", "日元", "日币", "日圓", "円", " JPY"],
          "KRW": [" won", " krw", "韩元", "韓幣", " KRW"], "AUD": [" aud", " australian dollars", "澳元", " AUD"],
          "CAD": [" cad", " canadian dollars", "加元", " CAD"], "SGD": [" sgd", " singapore dollars", "新加坡元"],
          "INR": [" rupees", " inr", "卢比", " INR"]}
# (template, says "about"): the amount said in a sentence
_TEMPLATES = [("{}", False), ("预算{}", False), ("budget {}", False), ("under {}", False), ("{}以内", False),
              ("around {}", True), ("{}左右", True), ("i can spend {} on a gpu", False), ("我有{}，买什么卡", False)]


def _expected_currency(currency: str, written: str, amount: float, lang: str) -> str:
    if written == "¥" and lang == "en" and amount >= 20000:
        return "JPY"  # the ISO code drawn was CNY, but a bare "¥" in English from 20,000 up is yen
    return currency


@st.composite
def _amount_text(draw):
    """(amount, number as written): plain, with thousands commas, or with a scale (k, K, 千, 万, 萬, w, W, thousand)."""
    form = draw(st.sampled_from(["plain", "comma", "k", "K", "千", "万", "萬", "w", "W", "thousand"]))
    if form in ("plain", "comma"):
        amount = draw(st.integers(min_value=1, max_value=10**9))
        return amount, (f"{amount:,}" if form == "comma" else str(amount))
    tenths = draw(st.integers(min_value=1, max_value=99_999))
    number = f"{tenths / 10:g}"
    size = 10_000 if form in "万萬wW" else 1000
    return tenths * size // 10, f"{number}{form if form != 'thousand' else ' thousand'}"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), currency=st.sampled_from(CURRENCIES), lang=st.sampled_from(["zh", "en"]),
       side=st.sampled_from(["before", "after"]), template=st.sampled_from(_TEMPLATES))
def test_round_trip(data, currency, lang, side, template):
    amount, number = data.draw(_amount_text())
    written = data.draw(st.sampled_from((_BEFORE if side == "before" else _AFTER)[currency]))
    said = f"{written}{number}" if side == "before" else f"{number}{written}"
    text = normalise(template[0].format(said))
    f = extract_money(text, lang)
    number = normalise(number)
    expected = _expected_currency(currency, written, amount, lang)
    if too_large(amount, expected):
        assert f.budget is None and f.rejected == ("too_large", amount), text
    else:
        assert f.budget == Budget(amount, expected, approximate=template[1]), text
        assert f.rejected is None and f.bare_number is None
    assert any(text[a:b].strip() and a <= text.index(number) < b for a, b in f.spans), text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), currency=st.sampled_from(CURRENCIES), lang=st.sampled_from(["zh", "en"]),
       form=st.sampled_from(["{b}{lo}-{b}{hi}", "{lo}-{hi}{a}", "{lo}到{hi}{a}", "{b}{lo} to {hi}",
                             "between {lo} and {hi}{a}", "{lo}k-{hi}k{a}", "{lo}-{hi}k{a}", "{b}{lo}k-{b}{hi}k",
                             "{lo}万-{hi}万{a}", "{lo}-{hi}万{a}"]))
def test_ranges_round_trip(data, currency, lang, form):
    lo = data.draw(st.integers(min_value=1, max_value=5000))
    hi = data.draw(st.integers(min_value=lo + 1, max_value=20000))
    before = data.draw(st.sampled_from([w for w in _BEFORE[currency] if w != "¥"]))
    after = data.draw(st.sampled_from(_AFTER[currency]))
    text = normalise(form.format(lo=lo, hi=hi, b=before, a=after))
    size = 10_000 if "万" in form else 1000 if "k" in form else 1
    assume(not too_large(hi * size, currency))
    f = extract_money(text, lang)
    assert f.budget == Budget(hi * size, currency, low=lo * size), text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), currency=st.sampled_from(CURRENCIES), lang=st.sampled_from(["zh", "en"]),
       sign=st.sampled_from(["-", "负", "minus ", "−"]), side=st.sampled_from(["before", "after", "none"]),
       template=st.sampled_from(_TEMPLATES))
def test_negative_amounts_are_rejected(data, currency, lang, sign, side, template):
    amount, number = data.draw(_amount_text())
    # with no currency: a number big enough to be money, and no "-300w" (watts)
    assume(side != "none" or (amount >= 50 and not number.lower().endswith("w")))
    if side == "before":
        said = f"{sign}{data.draw(st.sampled_from(_BEFORE[currency]))}{number}"
    elif side == "after":
        said = f"{sign}{number}{data.draw(st.sampled_from(_AFTER[currency]))}"
    else:
        said = f"{sign}{number}"
    f = extract_money(normalise(template[0].format(said)), lang)
    assert f.budget is None and f.rejected == ("negative", -amount), said


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(amount=st.integers(min_value=10**8 + 1, max_value=10**15), currency=st.sampled_from(CURRENCIES),
       lang=st.sampled_from(["zh", "en"]), side=st.sampled_from(["before", "after"]), data=st.data())
def test_absurd_amounts_are_rejected(amount, currency, lang, side, data):
    words = (_BEFORE if side == "before" else _AFTER)[currency]
    written = data.draw(st.sampled_from(words))
    number = data.draw(st.sampled_from([str(amount), f"{amount:,}"]))
    said = f"{written}{number}" if side == "before" else f"{number}{written}"
    f = extract_money(normalise(f"预算{said}" if lang == "zh" else f"budget {said}"), lang)
    assert f.budget is None and f.rejected == ("too_large", amount), said


_PIECES = st.sampled_from(["0", "9", "5000", ".", ",", "-", "−", "~", "$", "¥", "€", "£", "nt$", "hk$", "jp¥", "a$",
                           "k", "w", "万", "千", "亿", "百万", "grand", "thousand", "a", "half", "and", "two", "零", "负",
                           "minus", "元", "块", "刀", "欧", "yen", "rmb", "usd", " ", "@", "预算", "budget", "以内",
                           "左右", "多", "到", "to", "between", "张", "卡", "b", "g", "p", "x", "#", "第", "年", "万把",
                           "\n", "🙂", "1,000", "1.5", "ish", "of", "in"])
_TEXTS = st.one_of(st.text(max_size=300), st.lists(_PIECES, max_size=40).map("".join),
                   st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=200),
                   st.just("9" * 5000), st.just("1," * 2000), st.just("-" * 3000 + "5"))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXTS, lang=st.sampled_from(["zh", "en"]), normalised=st.booleans())
def test_never_raises_and_never_a_nonsense_budget(text, lang, normalised):
    if normalised:
        text = chinese_numerals_to_digits(normalise(text))
    f = extract_money(text, lang)
    if f.budget is not None:
        b = f.budget
        assert b.currency in CURRENCIES and 0 < b.amount and not too_large(b.amount, b.currency)
        assert b.low is None or 0 < b.low < b.amount
        assert f.rejected is None and f.bare_number is None
    if f.rejected is not None:
        kind, value = f.rejected
        assert (kind, value < 0, value == 0) in (("negative", True, False), ("zero", False, True),
                                                 ("too_large", False, False), ("unsupported_currency", False, False))
    assert f.bare_number is None or f.bare_number >= 50
    assert all(0 <= a < b <= len(text) for a, b in f.spans)


# --- exchange rates (knowledge/fx.csv) -------------------------------------------------------------------------------

def test_fx_file_has_every_currency_for_2024_and_2025():
    fx = load_fx(KNOWLEDGE / "fx.csv")
    assert set(fx.currencies) == set(CURRENCIES)
    for year in (2024, 2025):
        on = date(year, 1, 31)
        for cur in CURRENCIES:
            r = fx.rate(cur, on)
            assert cur == "USD" or (r.on == date(year, 1, 1) and "federalreserve.gov/releases/h10/hist/" in r.source)
    # rough sanity: a euro and a pound are worth more than a dollar, the others less
    assert fx.per_usd("EUR", date(2025, 1, 1)) < 1 and fx.per_usd("GBP", date(2025, 1, 1)) < 1
    assert 100 < fx.per_usd("JPY", date(2025, 1, 1)) < 200 and 7 < fx.per_usd("HKD", date(2025, 1, 1)) < 8


def test_fx_converts_every_pair_through_usd():
    fx = FxTable((FxRate("CNY", date(2024, 1, 1), 7.0), FxRate("EUR", date(2024, 1, 1), 0.5),
                  FxRate("CNY", date(2025, 1, 1), 8.0)))
    on = date(2024, 6, 1)
    assert fx.convert(100, "USD", "CNY", on) == 700 and fx.convert(700, "CNY", "USD", on) == 100
    assert fx.convert(100, "EUR", "CNY", on) == pytest.approx(1400)
    assert fx.convert(100, "CNY", "CNY", on) == 100
    assert fx.cny_per_usd(date(2025, 3, 1)) == 8.0 and fx.cny_per_usd(date(2020, 1, 1)) == 7.0  # before: the first
    for src in fx.currencies:
        for dst in fx.currencies:
            assert fx.convert(fx.convert(123.0, src, dst, on), dst, src, on) == pytest.approx(123.0)
    with pytest.raises(KeyError):
        fx.convert(1, "GBP", "USD", on)
    assert FxTable(((date(2000, 1, 1), 7.0),)).convert(7, "CNY", "USD", on) == 1  # plain (date, CNY) pairs


def test_the_catalog_still_converts_prices(catalog):
    g = catalog.get("GeForce RTX 2070")
    cny = g.price("CNY", as_of=date(2019, 4, 3), fx=catalog.fx)
    assert cny.converted_from == "USD" and cny.amount == pytest.approx(500 * catalog.fx.cny_per_usd(cny.on))
    assert catalog.fx.convert(1000, "TWD", "CNY", date(2025, 6, 1)) == pytest.approx(1000 / 32.9 * 7.30)


@pytest.mark.parametrize(("csv", "line", "column"), [
    ("date,cny_per_usd,source\n2024-01,7.1,x\n", 1, "currency"),  # the old wide format
    ("date,currency,per_usd,source\n2024-01,XYZ,7.1,x\n", 2, "currency"),
    ("date,currency,per_usd,source\n2024-01,CNY,7.1,x\n2024-13,EUR,0.9,x\n", 3, "date"),
    ("date,currency,per_usd,source\n,CNY,7.1,x\n", 2, "date"),
    ("date,currency,per_usd,source\n2024-01,CNY,seven,x\n", 2, "per_usd"),
    ("date,currency,per_usd,source\n2024-01,CNY,0,x\n", 2, "per_usd"),
    ("date,currency,per_usd,source\n2024-01,CNY,-7,x\n", 2, "per_usd"),
    ("date,currency,per_usd,source\n2024-01,CNY,7.1,x\n2024-01,cny,7.2,y\n", 3, "date"),
    ("date,currency,per_usd,source\n2024-01,CNY,7.1,x\n2024-01,USD,2,x\n", 3, "per_usd"),
    ("date,currency,per_usd,source\n2024-01,EUR,0.9,x\n", None, "currency"),  # no CNY
    ("date,currency,per_usd,source\n", None, None),
])
def test_fx_file_errors_name_the_place(tmp_path, csv, line, column):
    p = tmp_path / "fx.csv"
    p.write_text(csv, encoding="utf-8")
    with pytest.raises(CatalogError) as e:
        load_fx(p)
    assert (e.value.line, e.value.column) == (line, column)


def test_money_formats_every_currency():
    assert [money(1500, c) for c in CURRENCIES] == ["¥1,500", "$1,500", "NT$1,500", "HK$1,500", "€1,500", "£1,500",
                                                    "JP¥1,500", "₩1,500", "A$1,500", "C$1,500", "S$1,500", "₹1,500"]


@pytest.mark.parametrize("text, code", [
    ("same but in euros", "EUR"), ("and in yen?", "JPY"), ("prices in gbp please", "GBP"), ("换成人民币价格", "CNY"),
    ("用港幣計幾錢", "HKD"), ("换成美元报价", "USD"), ("折合台币多少", "TWD"), ("what's that in rupees", "INR"),
    ("is it cheaper to buy in china", None), ("in stock?", None), ("how much in total", None),
])
def test_a_currency_asked_for_with_no_amount_is_the_currency_prices_are_shown_in(text, code):
    from bot.slots.money import price_currency
    from bot.slots.text import normalise

    assert price_currency(normalise(text)) == code
