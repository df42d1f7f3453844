"""The interactive CLI chat: prompt_toolkit for line editing and history, rich for tables."""

from __future__ import annotations

import json
from pathlib import Path

from bot import render
from bot.dialogue import Conversation, Session
from bot.i18n import LANG_SENTENCE, lang_choice
from bot.reply import Reply

_HELP = {
    "en": "Commands: /help  /reset  /lang zh|en  /json (toggle raw JSON)  /quit — Ctrl-C cancels a line, Ctrl-D leaves.",
    "zh": "命令：/help  /reset  /lang zh|en  /json（切换显示原始 JSON）  /quit —— Ctrl-C 取消当前行，Ctrl-D 退出。",
}


def as_words(conv: Conversation, text: str) -> str:
    """`/lang zh | en | zh-Hant | zh-Hans | zh-HK` said as the user's own words ("用繁體中文回答"), typed or piped;
    any other text as it is."""
    cmd = text.strip().lower()
    if not cmd.startswith("/lang"):
        return text
    lang = conv.session.lang or "zh"
    want = cmd.split()[-1] if len(cmd.split()) > 1 else ("en" if lang == "zh" else "zh")
    return LANG_SENTENCE[lang_choice(want) or "en"]


def print_reply(console, reply: Reply) -> None:
    from rich.markup import escape
    from rich.table import Table

    if reply.title:
        console.print(f"[bold cyan]{escape(reply.title)}[/]")
    for p in reply.paragraphs:
        console.print(escape(p))
    if reply.table:
        t = Table(show_lines=False, header_style="bold")
        for i, h in enumerate(reply.table.header):
            t.add_column(escape(h), overflow="fold", style="bold" if i == 0 else None,
                         max_width=60 if i == len(reply.table.header) - 1 else None)
        for row in reply.table.rows:
            t.add_row(*(escape(c) for c in row))
        console.print(t)
    for b in reply.bullets:
        console.print(f"  • {escape(b)}")
    for f in reply.footer:
        console.print(f"[dim]{escape(f)}[/]")
    if reply.sources:
        console.print(f"[dim]{render.source_label(reply)}:[/]")
        for s in reply.sources:
            console.print(f"[dim]  {escape(s.title)} — [link={s.url}]{escape(s.url)}[/link][/]")
    console.print()


def _preload(conv: Conversation) -> None:
    try:
        _ = conv.engine.index
        _ = conv.engine.acts
    except Exception:  # a broken index is rebuilt (or reported) when a question needs it
        import logging

        logging.getLogger(__name__).debug("preloading the index failed", exc_info=True)


def start_preload(conv: Conversation) -> None:
    """Load the retrieval index (ONNX encoder, FAISS, BM25) in the background while the user types, so the first
    free-form question does not wait for it. Engine.index is guarded by a lock: a question asked before it is ready
    simply waits."""
    import threading

    threading.Thread(target=_preload, args=(conv,), name="preload-index", daemon=True).start()


def run_chat(conv: Conversation) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from rich.console import Console

    from bot.config import get_settings

    console = Console()
    data_dir = get_settings().data_dir
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        history = FileHistory(str(Path(data_dir) / "chat-history.txt"))
    except OSError:
        history = None
    prompt = PromptSession(history=history)
    show_json = False
    console.print("[bold]gpu-advisor[/] — 深度学习显卡顾问 / GPU advisor for deep learning")
    console.print(f"[dim]{_HELP['zh']}\n{_HELP['en']}[/]\n")
    while True:
        try:
            text = prompt.prompt("> ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return 0
        cmd = text.strip().lower()
        lang = conv.session.lang or "zh"
        if cmd in ("/quit", "/exit", "/q"):
            return 0
        if cmd == "/help":
            console.print(_HELP[lang] + "\n")
            text = "help" if lang == "en" else "帮助"
        elif cmd in ("/reset", "/new"):
            conv.session = Session(lang=conv.session.lang, lang_locked=conv.session.lang_locked)
            console.print("已重新开始。\n" if lang == "zh" else "Started over.\n")
            continue
        elif cmd.startswith("/lang"):
            text = as_words(conv, text)
        elif cmd == "/json":
            show_json = not show_json
            continue
        with console.status("…"):
            reply = conv.turn(text)
        if show_json:
            console.print_json(json.dumps(render.as_json(reply), ensure_ascii=False))
        else:
            print_reply(console, reply)
