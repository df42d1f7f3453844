"""Reply -> plain text (CLI, JSON `reply`), Telegram HTML (escaped, split under 4,096 characters), JSON object."""

from __future__ import annotations

import html
from dataclasses import asdict

from bot.reply import Reply, Table

TELEGRAM_LIMIT = 4096


def source_label(reply: Reply) -> str:
    """'Sources' / '来源' / '來源': the one label of the render's own, in the reply's language and script."""
    if reply.lang != "zh":
        return "Sources"
    return "來源" if reply.script else "来源"  # the reply's own text is already in its script


def _table_plain(t: Table) -> list[str]:
    """Each row as 'name — header: value; …' (reads well in any font and in chat apps)."""
    lines = []
    for row in t.rows:
        head = row[0]
        if len(row) == 2:  # a key/value table: "• key: value"
            lines.append(f"• {head}: {row[1]}")
            continue
        parts = [f"{h}: {v}" for h, v in zip(t.header[1:], row[1:], strict=False) if v]
        if not t.header[0] and not any(t.header[1:]):
            parts = [v for v in row[1:] if v]
        lines.append(f"• {head} — " + "; ".join(parts) if parts else f"• {head}")
    return lines


def plain(reply: Reply) -> str:
    out: list[str] = []
    if reply.title:
        out.append(reply.title)
        out.append("")
    out.extend(reply.paragraphs)
    if reply.table:
        if reply.paragraphs:
            out.append("")
        out.extend(_table_plain(reply.table))
    if reply.bullets:
        out.append("")
        out.extend(f"- {b}" for b in reply.bullets)
    if reply.footer:
        out.append("")
        out.extend(reply.footer)
    if reply.sources:
        out.append("")
        out.append(source_label(reply) + ":")
        out.extend(f"  {s.title} — {s.url}" for s in reply.sources)
    return "\n".join(out).strip() or "…"


def _e(text: str) -> str:
    return html.escape(text, quote=False)


def telegram_html(reply: Reply) -> list[str]:
    """Telegram messages in HTML parse mode, every piece of text escaped, each under the 4,096-character limit.

    Messages are split between lines, and tags never span lines, so no split can break a tag."""
    lines: list[str] = []
    if reply.title:
        lines += [f"<b>{_e(reply.title)}</b>", ""]
    for p in reply.paragraphs:
        lines += [_e(line) for line in p.splitlines()] + [""]
    if reply.table:
        for row in reply.table.rows:
            if len(row) == 2:
                lines.append(f"• <b>{_e(row[0])}</b>: {_e(row[1])}")
                continue
            parts = [f"{_e(h)}: {_e(v)}" for h, v in zip(reply.table.header[1:], row[1:], strict=False) if v]
            if not any(reply.table.header[1:]):
                parts = [_e(v) for v in row[1:] if v]
            lines.append(f"• <b>{_e(row[0])}</b> — " + "; ".join(parts))
        lines.append("")
    for b in reply.bullets:
        lines.append(f"– {_e(b)}")
    if reply.bullets:
        lines.append("")
    for f in reply.footer:
        lines.append(f"<i>{_e(f)}</i>")
    if reply.sources:
        lines.append("")
        lines.append(f"<b>{source_label(reply)}</b>:")
        for s in reply.sources:
            if s.url.startswith(("http://", "https://")):
                lines.append(f'• <a href="{html.escape(s.url, quote=True)}">{_e(s.title)}</a>')
            else:
                lines.append(f"• {_e(s.title)}")
    return split_lines(lines)


COMPACT_REASON_CHARS = 140  # one reason per pick on a phone; the whole reason is in the details


def telegram_compact(reply: Reply) -> list[str] | None:
    """A recommendation laid out for a phone: the title and what the reply says first, then a short block per pick
    (name and role; price with its date, memory, speed; one reason). None for replies that are not a ranked list:
    they are sent whole. The rest — the notes on each card, cards not picked, how speed is measured, sources — is
    what `telegram_html` gives, behind a "details" button; the CLI and JSON are always complete."""
    t = reply.table
    if reply.intent != "recommend" or t is None or len(t.header) < 5 or not t.rows or \
            any(len(r) != len(t.header) for r in t.rows):
        return None  # (a recommendation's table: card, role, price, memory, …, speed, reason)
    lines: list[str] = []
    if reply.title:
        lines += [f"<b>{_e(reply.title)}</b>", ""]
    for para in reply.paragraphs[:2]:
        lines += [_e(line) for line in para.splitlines()] + [""]
    for n, row in enumerate(t.rows, 1):
        role = row[1] if len(t.header) > 1 else ""
        lines.append(f"<b>{n}. {_e(row[0])}</b>" + (f" — {_e(role)}" if role else ""))
        facts = [row[i] for i in range(2, len(row) - 2) if row[i]]
        if row[-2]:
            facts.append(f"{_short_header(t.header[-2])} {row[-2]}")
        if facts:
            lines.append(_e(" · ".join(facts)))
        reason = row[-1]
        if reason:
            lines.append(_e(reason if len(reason) <= COMPACT_REASON_CHARS else reason[:COMPACT_REASON_CHARS - 1] + "…"))
        lines.append("")
    return split_lines(lines)


def _short_header(header: str) -> str:
    """'Speed (GeForce RTX 3090=1)' -> 'speed', '速度（GeForce RTX 3090=1）' -> '速度'."""
    import re

    head = re.split(r"[（(]", header, maxsplit=1)[0].strip()
    return head.lower() if head.isascii() else head


def split_lines(lines: list[str], limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Pack lines into messages of at most `limit` characters; a single over-long line is cut at a space,
    outside any tag (it then loses its tags: they are stripped from the pieces)."""
    messages: list[str] = []
    current = ""
    for line in lines:
        pieces = [line] if len(line) <= limit else _cut_long_line(line, limit)
        for piece in pieces:
            candidate = f"{current}\n{piece}" if current else piece
            if len(candidate) <= limit:
                current = candidate
            else:
                if current.strip():
                    messages.append(current.strip())
                current = piece
    if current.strip():
        messages.append(current.strip())
    return messages or ["…"]


def _cut_long_line(line: str, limit: int) -> list[str]:
    import re

    text = re.sub(r"<[^>]+>", "", line)  # plain text only; entities stay whole below
    out = []
    while len(text) > limit:
        cut = text.rfind(" ", 0, limit)
        cut = cut if cut > limit // 2 else limit
        amp = text.rfind("&", 0, cut)  # never split inside &amp; &lt; …
        if amp != -1 and ";" not in text[amp:cut]:
            cut = amp
        out.append(text[:cut])
        text = text[cut:].lstrip()
    if text:
        out.append(text)
    return out


def as_json(reply: Reply) -> dict:
    """The object scripts rely on (docs/architecture.md, "The JSON interface"): reply, lang, intent, sources, query,
    recommendations."""
    return {
        "reply": plain(reply),
        "lang": reply.lang,
        "script": reply.script,
        "intent": reply.intent,
        "sources": [{"title": s.title, "url": s.url} for s in reply.sources],
        "query": reply.query,
        "recommendations": [asdict(r) | {"reasons": list(r.reasons), "caveats": list(r.caveats)}
                            for r in reply.recommendations],
        "suggestions": list(reply.suggestions),
    } | ({"fit": reply.fit} if reply.fit is not None else {})
