"""Inline keyboards and their callback data.

A button's data is `<kind>:<fields>` (Telegram allows 64 bytes); each kind has one pattern below and one handler in
handlers.py, routed by `CallbackQueryHandler(pattern=…)`. Data that matches no pattern (a forged button, one from an
older version) is answered "expired". An answer's buttons carry the key of the stored state they act on, so a button
under an older answer acts on that answer.
"""

from __future__ import annotations

import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import Text
from bot.reply import Reply
from bot.slots.text import to_script
from bot.telegram.texts import T

MAX_BUTTONS = 6  # suggestions under one answer

SUGGESTION = re.compile(r"^s:(\d+):(\d+)$")  # s:<keyboard key>:<suggestion index>
CHART = re.compile(r"^c:(\d+)$")  # c:<keyboard key>
DETAILS = re.compile(r"^d:(\d+)$")  # d:<keyboard key>
LANGUAGE = re.compile(r"^l:(.*)$")  # l:<a key of i18n.LANG_SENTENCE>
# the guided /recommend: r:<lang>[:<budget>[:<workload>[:<market>]]], ':b' to redraw that step ("back"), ':x' cancels
RECOMMEND_STEP = re.compile(r"^r:(zh|en)((?::\d+){0,3})(:b)?$")
RECOMMEND_CANCEL = re.compile(r"^r:(zh|en)(?::\d+)*:x$")

# the guided /recommend flow: every choice becomes the sentence a person would type, then the same turn
BUDGETS = {"zh": [("≤ ¥3,000", "3000元"), ("≤ ¥6,000", "6000元"), ("≤ ¥10,000", "10000元"),
                  ("≤ ¥20,000", "20000元"), ("≤ ¥50,000", "50000元")],
           "en": [("≤ $500", "$500"), ("≤ $1,000", "$1000"), ("≤ $2,000", "$2000"), ("≤ $4,000", "$4000"),
                  ("≤ $8,000", "$8000")]}
WORKLOADS = [  # (id, en label, en phrase, zh label, zh phrase)
    ("cnn", "CNN / vision", "training CNNs", "CNN / 图像", "训练CNN"),
    ("transformer", "Transformer / NLP", "training Transformers for NLP", "Transformer / NLP", "训练Transformer/NLP模型"),
    ("llm_inference", "Run a 7B LLM", "LLM inference with a 7B model", "跑 7B 大模型", "本地跑7B大模型推理"),
    ("llm_finetune", "LoRA on a 7B LLM", "LoRA fine-tuning a 7B model", "7B 模型 LoRA 微调", "7B模型LoRA微调"),
    ("diffusion", "Image generation", "image generation (Stable Diffusion)", "图像生成", "图像生成（Stable Diffusion）"),
    ("learning", "Learning DL", "learning deep learning", "入门学习", "入门学习深度学习"),
]
MARKETS = [("new", Text("New only", "只看新卡"), Text("new only", "只要新卡")),
           ("used", Text("Used is fine", "二手也行"), Text("used is fine", "二手也可以"))]


def recommend_sentence(lang: str, budget: int, workload: int, market: int) -> str:
    """The sentence the guided flow sends to Conversation.turn (the same one a person could type)."""
    amount = BUDGETS[lang][budget][1]
    wl = WORKLOADS[workload]
    phrase = wl[4] if lang == "zh" else wl[2]
    m = MARKETS[market][2].get(lang)
    return f"预算{amount}，{phrase}，{m}" if lang == "zh" else f"Budget {amount}, {phrase}, {m}"


def recommend_data(lang: str, choices: list[int], then: str = "") -> str:
    """The data of a /recommend button: the language, the choices so far, and 'b' or 'x' for back and cancel."""
    return ":".join(["r", lang, *map(str, choices), *([then] if then else [])])


def recommend_step(lang: str, choices: list[int]) -> tuple[Text, InlineKeyboardMarkup]:
    """The question and buttons of the step after `choices` (none, a budget, a budget and a workload).

    An index past the end of its list raises IndexError (a forged or outdated button)."""
    cancel = InlineKeyboardButton(T["cancel"].get(lang), callback_data=recommend_data(lang, [], "x"))
    if not choices:
        buttons = [InlineKeyboardButton(label, callback_data=recommend_data(lang, [i]))
                   for i, (label, _) in enumerate(BUDGETS[lang])]
        return T["ask_budget"], InlineKeyboardMarkup([buttons[:3], buttons[3:], [cancel]])
    back = InlineKeyboardButton(T["back"].get(lang), callback_data=recommend_data(lang, choices[:-1], "b"))
    if len(choices) == 1:
        BUDGETS[lang][choices[0]]  # noqa: B018 — validates the index
        buttons = [InlineKeyboardButton(w[3] if lang == "zh" else w[1], callback_data=recommend_data(lang, [*choices, i]))
                   for i, w in enumerate(WORKLOADS)]
        return T["ask_workload"], InlineKeyboardMarkup([buttons[i:i + 2] for i in range(0, len(buttons), 2)] +
                                                       [[back, cancel]])
    WORKLOADS[choices[1]]  # noqa: B018
    buttons = [InlineKeyboardButton(m[1].get(lang), callback_data=recommend_data(lang, [*choices, i]))
               for i, m in enumerate(MARKETS)]
    return T["ask_market"], InlineKeyboardMarkup([buttons, [back, cancel]])


def language_keyboard() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("简体中文", callback_data="l:zh-cn"),
                                  InlineKeyboardButton("繁體中文", callback_data="l:zh-tw"),
                                  InlineKeyboardButton("English", callback_data="l:en")]])


def reply_rows(reply: Reply, key: int | None, details: bool = False) -> list[list[list[str]]]:
    """An answer's buttons as rows of [label, callback data] (JSON, for the outbox): its suggestions, the chart,
    and with `details` the button that sends the whole answer under a compact one. No key, no buttons."""
    if key is None:
        return []
    buttons = [[_label(s), f"s:{key}:{i}"] for i, s in enumerate(reply.suggestions[:MAX_BUTTONS])]
    rows = [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
    if reply.chart_gpus:
        rows.append([[_in_script(T["chart_button"].get(reply.lang), reply), f"c:{key}"]])
    if details:
        rows.append([[_in_script(T["details_button"].get(reply.lang), reply), f"d:{key}"]])
    return rows


def _in_script(label: str, reply: Reply) -> str:
    """A button's label in the script of the answer it sits under (its suggestions already are)."""
    return to_script(label, reply.script) if reply.script else label


def markup(rows: list[list[list[str]]]) -> InlineKeyboardMarkup | None:
    """The keyboard of stored rows (reply_rows)."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in row]
                                 for row in rows]) if rows else None


def _label(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
