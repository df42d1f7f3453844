"""The message and command handlers: one small async function per command and message kind (buttons: buttons.py).

Each reads the shared state through `advisor_of(context)` and turns what the user did into the sentence a person
would type, answered by the same Conversation.turn as the CLI. COMMANDS is the table app.py registers them from; the
handlers that run around every update, and the error handler, are here too.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass, replace

from telegram import Message, MessageEntity, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import ApplicationHandlerStop

from bot.i18n import LANG_SENTENCE, Text, lang_choice
from bot.reply import Reply
from bot.slots.text import to_script
from bot.telegram import keyboards
from bot.telegram.advisor import Context, advisor_of, begin_update, handled
from bot.telegram.texts import T

log = logging.getLogger(__name__)

ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]  # what the bot handles; Telegram sends only these


def _in_group(update: Update) -> bool:
    return update.effective_chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def addressed_text(msg: Message, bot) -> str | None:
    """In a group: the text (or caption) without the @mention when the message is for the bot, else None."""
    text = msg.text or msg.caption or ""
    username = (bot.username or "").lower()
    reply = msg.reply_to_message
    if reply is not None and reply.from_user is not None and reply.from_user.id == bot.id:
        return text
    entities = msg.parse_entities([MessageEntity.MENTION]) if msg.text else \
        msg.parse_caption_entities([MessageEntity.MENTION])
    mentioned = [t for t in entities.values() if t.lstrip("@").lower() == username]
    if not username or not mentioned:
        return None
    for t in mentioned:
        text = text.replace(t, " ")
    return " ".join(text.split())


# --- messages ----------------------------------------------------------------------------------------------------------
def _addressed(update: Update, bot) -> tuple[str | None, int | None] | None:
    """(the question, the message to answer in the thread of) — in a group only for a message meant for the bot,
    else None. The question is the text, or a photo's or document's caption (None without one)."""
    msg = update.effective_message
    if not _in_group(update):
        return (msg.text if msg.text is not None else msg.caption), None
    text = addressed_text(msg, bot)
    return None if text is None else (text, msg.message_id)


async def on_text(update: Update, context: Context) -> None:
    msg, chat = update.effective_message, update.effective_chat
    if msg is None or chat is None or msg.text is None:
        return
    addressed = _addressed(update, context.bot)
    if addressed is None or not await advisor_of(context).gate(update, context):
        return  # group chatter not meant for the bot, or over the rate limit
    text, reply_to = addressed
    await advisor_of(context).answer(context.bot, chat.id, text, reply_to=reply_to, update_id=update.update_id)


async def on_other(update: Update, context: Context) -> None:
    """Stickers, photos, voice, documents …: a caption is read as the question ("a screenshot: can this run
    llama 70b?"); without one, a friendly 'text only'."""
    msg, chat = update.effective_message, update.effective_chat
    if msg is None or chat is None:
        return
    addressed = _addressed(update, context.bot)
    advisor = advisor_of(context)
    if addressed is None or not await advisor.gate(update, context):
        return
    text, reply_to = addressed
    if text and text.strip():
        await advisor.answer(context.bot, chat.id, text, reply_to=reply_to, update_id=update.update_id)
        return
    await _say(context, chat.id, T["text_only"].get(advisor.lang(chat.id, update.effective_user)))


# --- commands ----------------------------------------------------------------------------------------------------------
async def _opened(update: Update, context: Context, prefer_client: bool = False) -> tuple[int, str, str] | None:
    """(chat id, language, the command's arguments as one string) for a command that passed the rate limit, or
    None when it should be ignored."""
    if not await advisor_of(context).gate(update, context):
        return None
    chat = update.effective_chat
    return (chat.id, advisor_of(context).lang(chat.id, update.effective_user, prefer_client=prefer_client),
            " ".join(context.args or []).strip())


async def _say(context: Context, chat_id: int, text: str, **kwargs) -> None:
    """A prompt or notice of the bot's own (not an answer: not queued)."""
    await advisor_of(context).call(context.bot.send_message, chat_id, text, **kwargs)


def _in_chats_script(context: Context, chat_id: int, update: Update, words: str) -> str:
    """A command's Chinese words in the script the chat is in, or, new chat, the client's ("zh-hant", "zh-hk"), so
    that /help in a Traditional chat is answered in Traditional and does not switch it to Simplified."""
    script = advisor_of(context).store.get(chat_id).script
    code = (getattr(update.effective_user, "language_code", None) or "").lower()
    if script is None and code.startswith(("zh-hant", "zh-tw", "zh-hk", "zh-mo")):
        script = "zh-hk" if code.startswith(("zh-hk", "zh-mo")) else "zh-tw"
    return to_script(words, script) if script else words


async def start(update: Update, context: Context) -> None:
    opened = await _opened(update, context, prefer_client=True)
    if opened is None:
        return
    chat_id, lang, _ = opened
    welcome = T["welcome"].get(lang)

    def decorate(reply: Reply) -> Reply:
        return replace(reply, title=to_script(welcome, reply.script) if reply.script else welcome)

    said = _in_chats_script(context, chat_id, update, "帮助") if lang == "zh" else "help"
    await advisor_of(context).answer(context.bot, chat_id, said, decorate=decorate)


async def help_(update: Update, context: Context) -> None:
    if opened := await _opened(update, context):
        chat_id, lang, _ = opened
        said = _in_chats_script(context, chat_id, update, "帮助") if lang == "zh" else "help"
        await advisor_of(context).answer(context.bot, chat_id, said)


async def reset(update: Update, context: Context) -> None:
    if opened := await _opened(update, context):
        chat_id, lang, _ = opened
        said = _in_chats_script(context, chat_id, update, "重新开始") if lang == "zh" else "start over"
        await advisor_of(context).answer(context.bot, chat_id, said)


async def compare(update: Update, context: Context) -> None:
    """`/compare A B`; `/compare` alone compares the first two picks of the last answer."""
    if not (opened := await _opened(update, context)):
        return
    chat_id, lang, args = opened
    advisor = advisor_of(context)
    if args:
        await advisor.answer(context.bot, chat_id, f"对比 {args}" if lang == "zh" else f"compare {args}")
    elif advisor.store.get(chat_id).last_picks:
        await advisor.answer(context.bot, chat_id, "对比一下前两个" if lang == "zh" else "compare the first two")
    else:
        await _say(context, chat_id, T["usage_compare"].get(lang))


async def gpu(update: Update, context: Context) -> None:
    """`/gpu NAME`: one card; a name that is no card is said so with the nearest names, the chat left alone."""
    if not (opened := await _opened(update, context)):
        return
    chat_id, lang, args = opened
    if not args:
        await _say(context, chat_id, T["usage_gpu"].get(lang))
        return
    advisor = advisor_of(context)
    catalog = advisor.engine.catalog
    if catalog.lookup(args) is None and not catalog.find_mentions(args):
        near = ", ".join(catalog.closest_names(args))
        await _say(context, chat_id, T["unknown_gpu"].get(lang).format(
            name=html.escape(args[:60], quote=False), near=html.escape(near, quote=False)), parse_mode=ParseMode.HTML)
        return
    await advisor.answer(context.bot, chat_id, f"介绍一下 {args}" if lang == "zh" else f"tell me more about {args}")


async def platforms(update: Update, context: Context) -> None:
    if not (opened := await _opened(update, context)):
        return
    chat_id, lang, args = opened
    if args:
        text = f"租GPU的云平台：{args}" if lang == "zh" else f"cloud GPU platforms: {args}"
    else:
        text = "国内用哪个云平台租GPU？" if lang == "zh" else "Which cloud GPU platform should I use?"
    await advisor_of(context).answer(context.bot, chat_id, text)


async def language(update: Update, context: Context) -> None:
    """`/lang zh-Hant` sets it at once; `/lang` alone offers the choices as buttons."""
    if not (opened := await _opened(update, context)):
        return
    chat_id, lang, _ = opened
    choice = lang_choice((context.args or [""])[0])
    if choice:
        await advisor_of(context).answer(context.bot, chat_id, LANG_SENTENCE[choice])
        return
    await _say(context, chat_id, T["choose_lang"].get(lang), reply_markup=keyboards.language_keyboard())


async def recommend(update: Update, context: Context) -> None:
    """The guided flow's first step: budget → workload → new/used, as buttons."""
    if opened := await _opened(update, context):
        chat_id, lang, _ = opened
        question, markup = keyboards.recommend_step(lang, [])
        await _say(context, chat_id, question.get(lang), reply_markup=markup)


async def chart(update: Update, context: Context) -> None:
    """`/chart`: the speed-vs-price chart of the latest answer with picks; `/chart <question>` answers the
    question first, then charts it."""
    if not (opened := await _opened(update, context)):
        return
    chat_id, lang, args = opened
    advisor = advisor_of(context)
    if args:
        await advisor.answer(context.bot, chat_id, args, update_id=update.update_id)
    kb = advisor.store.latest_chart(chat_id)
    if kb is None:
        await _say(context, chat_id, T["no_chart"].get(lang))
        return
    await advisor.send_chart(context.bot, chat_id, kb, lang)


async def unknown_command(update: Update, context: Context) -> None:
    chat, msg = update.effective_chat, update.effective_message
    if chat is None or msg is None:
        return
    if _in_group(update):
        first = (msg.text or "").split()[0] if msg.text else ""
        if "@" not in first or first.split("@", 1)[1].lower() != (context.bot.username or "").lower():
            return  # another bot's command
    if opened := await _opened(update, context):
        await _say(context, opened[0], T["unknown_command"].get(opened[1]))


@dataclass(frozen=True)
class Command:
    """A command: its handler, and its line in the command menu (setMyCommands, in English and Chinese)."""

    name: str
    handler: object  # async (update, context) -> None
    description: Text


COMMANDS = (
    Command("start", start, Text("Welcome and examples", "欢迎和示例")),
    Command("help", help_, Text("What I can do", "使用说明")),
    Command("recommend", recommend, Text("Guided recommendation: budget → workload → new/used",
                                         "引导式推荐：预算 → 用途 → 新/二手")),
    Command("compare", compare, Text("Compare GPUs, e.g. /compare 4090 3090", "对比显卡，例如 /compare 4090 3090")),
    Command("gpu", gpu, Text("Specs and prices of one GPU, e.g. /gpu 4090", "单卡参数和价格，例如 /gpu 4090")),
    Command("platforms", platforms, Text("Where to rent GPUs in the cloud", "云上租卡平台")),
    Command("chart", chart, Text("Speed vs price chart of the last answer", "上一个回答的速度-价格图")),
    Command("lang", language, Text("Answer in 中文 or English", "切换回答语言（中文 / English）")),
    Command("reset", reset, Text("Start over (forget budget and picks)", "重新开始（清空预算和推荐）")),
    Command("new", reset, Text("Start a new conversation", "开始新对话")),
)


# --- around every update -----------------------------------------------------------------------------------------------
async def claim_update(update: Update, context: Context) -> None:
    """Before any handler: the update is claimed in the store, in one step, so a second delivery of it (twice in one
    getUpdates batch, a webhook retry racing the first, a redelivery after a crash) is not answered twice. A claim
    whose run died before the reply was queued is taken over after the restart, and the update answered then."""
    begin_update()
    if update.update_id is not None and not advisor_of(context).store.claim(update.update_id):
        log.info("update %s was answered already (or is being answered); skipped", update.update_id)
        raise ApplicationHandlerStop


async def mark_answered(update: Update, context: Context) -> None:
    """After the handlers: the update is handled (a turn marks its update with its reply, in one transaction), and
    logged in one INFO line if no turn did."""
    if update.update_id is not None:
        advisor_of(context).store.mark_seen(update.update_id)
    handled(update.effective_chat.id if update.effective_chat else None, f"{kind_of(update)} handled without a turn")


MESSAGE_KINDS = ("sticker", "photo", "animation", "video", "video_note", "voice", "audio", "document", "location",
                 "contact", "poll")


def kind_of(update: Update) -> str:
    """What the update was, for the log (never its text): 'button', '/gpu', 'text', 'sticker', 'photo' …"""
    if update.callback_query is not None:
        return "button"
    msg = update.effective_message
    if msg is None:
        return "update"
    if msg.text:
        command = msg.text.split(maxsplit=1)[0].split("@", 1)[0]
        return command[:32] if command.startswith("/") and command[1:].replace("_", "").isalnum() else "text"
    return next((k for k in MESSAGE_KINDS if getattr(msg, k, None)), "message")


async def on_error(update: object, context: Context) -> None:
    """Anything a handler did not expect: logged with its traceback, and the user told (never shown a traceback)."""
    err = context.error
    if isinstance(err, (NetworkError, TimedOut, RetryAfter)) and not isinstance(err, BadRequest):
        log.warning("Telegram API problem (will retry): %s", err)
    else:
        log.error("error while handling an update", exc_info=err)
    if isinstance(update, Update) and update.effective_chat:
        try:
            lang = advisor_of(context).lang(update.effective_chat.id, update.effective_user)
            await context.bot.send_message(update.effective_chat.id, T["error"].get(lang))
        except Exception as e:  # the error handler itself must not raise
            log.warning("could not tell the user about the error: %s", e)
