"""The button handlers: one small async function per kind of callback data, routed by its pattern (keyboards.py).

CALLBACKS is the table app.py registers them from, each as `CallbackQueryHandler(handler, pattern=…)`; data that
matches no pattern goes to `on_unknown_button`, which says the button has expired.
"""

from __future__ import annotations

import logging
from functools import partial

from telegram import CallbackQuery, Update
from telegram.error import BadRequest

from bot.i18n import LANG_SENTENCE
from bot.telegram import keyboards
from bot.telegram.advisor import Context, advisor_of
from bot.telegram.sending import send_piece
from bot.telegram.texts import T

log = logging.getLogger(__name__)


async def _pressed(update: Update, context: Context) -> tuple[CallbackQuery, int] | None:
    """(the query, its chat id) for a button press that passed the rate limit, or None when it should be ignored."""
    q, chat = update.callback_query, update.effective_chat
    if q is None or chat is None or not q.data:
        return None
    if not await advisor_of(context).gate(update, context):
        return None
    return q, chat.id


async def _ack(context: Context, q: CallbackQuery, text: str | None = None) -> None:
    """Answer the query (the spinner on the button stops); `text` shows as a small notice."""
    try:
        await advisor_of(context).call(q.answer, text)
    except BadRequest as e:  # "query is too old": the click still counts
        log.debug("answerCallbackQuery: %s", e)


async def _expired(context: Context, q: CallbackQuery, chat_id: int) -> None:
    await _ack(context, q, T["expired"].get(advisor_of(context).lang(chat_id, q.from_user)))


async def _edit(context: Context, q: CallbackQuery, text: str, markup) -> None:
    try:
        await advisor_of(context).call(q.edit_message_text, text, reply_markup=markup)
    except BadRequest as e:  # "message is not modified", a deleted message: the flow goes on
        log.debug("edit failed: %s", e)


async def _under_answer(update: Update, context: Context, usable) -> tuple[CallbackQuery, int, dict] | None:
    """For a button under an answer (its data's first number is the answer's keyboard key): (the query, its chat id,
    the stored keyboard) once the press is acknowledged; None when it is ignored, or expired (and said so) — the
    keyboard is gone or `usable(keyboard)` is false."""
    if not (pressed := await _pressed(update, context)):
        return None
    q, chat_id = pressed
    kb = advisor_of(context).store.keyboard(chat_id, int(context.matches[0].group(1)))
    if kb is None or not usable(kb):
        await _expired(context, q, chat_id)
        return None
    await _ack(context, q)
    return q, chat_id, kb


async def on_suggestion(update: Update, context: Context) -> None:
    """A suggested follow-up ("cheaper?"), asked from the state of the answer it sits under."""
    index = int(context.matches[0].group(2))
    if opened := await _under_answer(update, context, lambda kb: index < len(kb.get("s", []))):
        _, chat_id, kb = opened
        await advisor_of(context).answer(context.bot, chat_id, kb["s"][index], echo=True, base=kb.get("session"))


async def on_chart(update: Update, context: Context) -> None:
    if opened := await _under_answer(update, context, lambda kb: bool(kb.get("c"))):
        q, chat_id, kb = opened
        advisor = advisor_of(context)
        await advisor.send_chart(context.bot, chat_id, kb, advisor.lang(chat_id, q.from_user))


async def on_details(update: Update, context: Context) -> None:
    """The whole answer (notes on each card, cards not picked, how speed is measured, sources) under a compact one."""
    if opened := await _under_answer(update, context, lambda kb: bool(kb.get("d"))):
        _, chat_id, kb = opened
        for piece in kb["d"]:
            await send_piece(partial(advisor_of(context).call, context.bot.send_message), chat_id, piece)


async def on_language(update: Update, context: Context) -> None:
    if not (pressed := await _pressed(update, context)):
        return
    q, chat_id = pressed
    await _ack(context, q)
    choice = context.matches[0].group(1)
    await advisor_of(context).answer(context.bot, chat_id, LANG_SENTENCE.get(choice, LANG_SENTENCE["en"]))


async def on_recommend_step(update: Update, context: Context) -> None:
    """A choice of the guided /recommend (or ◀ Back): the next step's buttons, and after the third choice the
    sentence it makes, asked as if typed."""
    if not (pressed := await _pressed(update, context)):
        return
    q, chat_id = pressed
    lang, numbers, _ = context.matches[0].groups()  # a trailing ":b" (back) redraws the step after `numbers` too
    choices = [int(x) for x in numbers.split(":")[1:]]
    try:
        if len(choices) < 3:
            question, markup = keyboards.recommend_step(lang, choices)
            sentence = None
        else:
            sentence = keyboards.recommend_sentence(lang, *choices)
    except IndexError:
        log.info("malformed callback data %r", q.data)
        await _expired(context, q, chat_id)
        return
    await _ack(context, q)
    if sentence is None:
        await _edit(context, q, question.get(lang), markup)
        return
    await _edit(context, q, T["asking"].get(lang).format(q=sentence), None)
    await advisor_of(context).answer(context.bot, chat_id, sentence)


async def on_recommend_cancel(update: Update, context: Context) -> None:
    if pressed := await _pressed(update, context):
        q, _ = pressed
        await _ack(context, q)
        await _edit(context, q, T["cancelled"].get(context.matches[0].group(1)), None)


async def on_unknown_button(update: Update, context: Context) -> None:
    """Data no pattern matches: a forged button, or one from an older version of the bot."""
    if pressed := await _pressed(update, context):
        q, chat_id = pressed
        log.info("malformed callback data %r", q.data)
        await _expired(context, q, chat_id)


CALLBACKS = (  # (pattern of the data, handler); anything else goes to on_unknown_button
    (keyboards.SUGGESTION, on_suggestion),
    (keyboards.CHART, on_chart),
    (keyboards.DETAILS, on_details),
    (keyboards.LANGUAGE, on_language),
    (keyboards.RECOMMEND_STEP, on_recommend_step),
    (keyboards.RECOMMEND_CANCEL, on_recommend_cancel),
)
