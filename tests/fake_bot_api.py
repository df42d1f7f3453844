"""A fake Telegram Bot API server for tests: stdlib HTTP on 127.0.0.1, in a thread.

It answers the methods python-telegram-bot calls (getMe, getUpdates with long polling, sendMessage, sendPhoto, …),
validates what a real server would reject (HTML that Telegram cannot parse, messages over 4,096 characters, callback
data over 64 bytes), records every call with its parameters, and can be told to fail the next calls of a method
(429 with retry_after, 500) or to hold one call open, unanswered, until the test releases it (`hold`: a client killed
meanwhile never gets its message delivered). Updates are queued with `push_*` helpers and served to getUpdates.
"""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import itertools
import json
import re
import select
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_JSON_PARAMS = {"reply_markup", "entities", "caption_entities", "commands", "scope", "allowed_updates",
                "link_preview_options", "reply_parameters", "media"}
_ALLOWED_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "span", "tg-spoiler",
                 "tg-emoji", "blockquote"}
_BAD_AMP = re.compile(r"&(?!(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);)")


@dataclass
class Call:
    method: str
    params: dict
    files: dict = field(default_factory=dict)  # name -> bytes
    status: int = 200
    at: float = field(default_factory=time.monotonic)
    result: object = None

    @property
    def chat_id(self) -> int | None:
        v = self.params.get("chat_id")
        try:
            return int(v)
        except (TypeError, ValueError):
            return None

    @property
    def text(self) -> str:
        return str(self.params.get("text") or self.params.get("caption") or "")

    def buttons(self) -> list[dict]:
        markup = self.params.get("reply_markup") or {}
        return [b for row in markup.get("inline_keyboard", []) for b in row]


@dataclass
class Hold:
    """One call the server keeps open (FakeBotAPI.hold). `arrived` is set when the call comes in; after `release()`
    it is answered as usual — or, when its client has gone meanwhile (its process killed), dropped: recorded with
    status 499 and nothing delivered, as if the request never reached Telegram. `done` is set once it is settled."""

    method: str
    predicate: Callable[[Call], bool]
    arrived: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    call: Call | None = None
    outcome: str | None = None  # "answered" | "dropped"
    _released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self._released.set()


HOLD_LIMIT = 120.0  # seconds a held call waits for release() at most (a test that forgot to release still ends)


def _client_gone(sock: socket.socket, wait: float = 1.0) -> bool:
    """The client closed its end of the connection (or its process died): the socket reads as end-of-file or reset.
    A live client waiting for its answer sends nothing more, so a readable socket means it has gone."""
    try:
        readable, _, _ = select.select([sock], [], [], wait)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class _HTMLCheck(HTMLParser):
    """The HTML subset Telegram accepts: known tags, properly nested and closed; visible text collected."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text: list[str] = []
        self.error: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag not in _ALLOWED_TAGS:
            self.error = self.error or f'Unsupported start tag "{tag}"'
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.error = self.error or f'Unexpected end tag "{tag}"'
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check_html(text: str) -> tuple[str | None, str]:
    """(error or None, visible text)."""
    if _BAD_AMP.search(text):
        return "Can't parse entities: character '&' is reserved and must be escaped", ""
    p = _HTMLCheck()
    p.feed(text)
    p.close()
    if p.error:
        return f"Can't parse entities: {p.error}", ""
    if p.stack:
        return f"Can't parse entities: can't find end tag corresponding to start tag \"{p.stack[-1]}\"", ""
    return None, "".join(p.text)


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


class FakeBotAPI:
    def __init__(self, token: str = "123:TEST", username: str = "gpu_advisor_test_bot", max_poll: float = 0.25):
        self.token = token
        self.username = username
        self.bot_id = int(token.split(":")[0]) if token.split(":")[0].isdigit() else 1
        self.max_poll = max_poll
        self.calls: list[Call] = []
        self._cond = threading.Condition()
        self._updates: list[dict] = []
        self._update_ids = itertools.count(1)
        self._callback_ids = itertools.count(1)
        self._message_ids: dict[int, itertools.count] = {}
        self._failures: dict[str, list[tuple[int, dict]]] = {}
        self._holds: list[Hold] = []
        self.sent: dict[tuple[int, int], dict] = {}  # (chat_id, message_id) -> message the bot sent
        self.confirmed_offset = 0
        self._listeners: list = []
        self._server: ThreadingHTTPServer | None = None
        self._connections: set[socket.socket] = set()  # open client connections, cut by stop()
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------------------------------
    def start(self) -> FakeBotAPI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes: with Nagle's algorithm on, the body would wait for the client's
            # delayed ACK (40 ms on Linux) — a stall no real Bot API server has, and one that bench/bot_load.py saw
            disable_nagle_algorithm = True

            def log_message(self, *args):  # quiet
                pass

            def setup(self):
                super().setup()
                with fake._cond:
                    fake._connections.add(self.connection)

            def finish(self):
                with fake._cond:
                    fake._connections.discard(self.connection)
                super().finish()

            def do_POST(self):
                fake._handle(self)

            do_GET = do_POST

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):  # a client that went away is not news
                import sys

                if not isinstance(sys.exc_info()[1], ConnectionError):
                    super().handle_error(request, client_address)

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-bot-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """The server is gone: no new connections, and the open (keep-alive) ones are cut."""
        if self._server:
            with self._cond:
                self._cond.notify_all()
            self._server.shutdown()
            self._server.server_close()
            with self._cond:
                connections = list(self._connections)
            for conn in connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    # --- controls --------------------------------------------------------------------------------------------------
    def fail_next(self, method: str, n: int = 1, status: int = 429, retry_after: int = 1) -> None:
        """Answer the next `n` calls of `method` with an error (429 carries retry_after, as Telegram's does)."""
        if status == 429:
            body = {"ok": False, "error_code": 429, "description": f"Too Many Requests: retry after {retry_after}",
                    "parameters": {"retry_after": retry_after}}
        else:
            body = {"ok": False, "error_code": status, "description": "Internal Server Error"}
        with self._cond:
            self._failures.setdefault(method, []).extend([(status, body)] * n)

    def end_outage(self) -> None:
        """The failures asked for with `fail_next` and not yet served are forgotten: calls succeed again."""
        with self._cond:
            self._failures.clear()

    def hold(self, method: str, predicate: Callable[[Call], bool] = lambda c: True) -> Hold:
        """Keep the next call of `method` that matches `predicate` open, unanswered, until the Hold is released: the
        client sees a request in flight (to kill it mid-send)."""
        held = Hold(method, predicate)
        with self._cond:
            self._holds.append(held)
        return held

    def push(self, update: dict, times: int = 1) -> int:
        """Queue an update for getUpdates; `times` > 1 delivers the same update_id that often in one batch (as a
        redelivery or a webhook retry would)."""
        with self._cond:
            update = dict(update, update_id=next(self._update_ids))
            self._updates.extend(dict(update) for _ in range(times))
            self._cond.notify_all()
        return update["update_id"]

    @staticmethod
    def user(user_id: int, language_code: str | None = "en", first_name: str = "Tester") -> dict:
        u = {"id": user_id, "is_bot": False, "first_name": first_name}
        if language_code:
            u["language_code"] = language_code
        return u

    def push_text(self, chat_id: int, text: str, *, user_id: int | None = None, language_code: str | None = "en",
                  chat_type: str = "private", reply_to: dict | None = None, times: int = 1) -> int:
        """A user's message, with the entities Telegram would add (a leading /command, @mentions)."""
        entities = []
        m = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if m:
            entities.append({"type": "bot_command", "offset": 0, "length": utf16_len(m.group(0))})
        for mm in re.finditer(r"@[A-Za-z0-9_]{3,}", text):
            if m and mm.start() < m.end():
                continue
            entities.append({"type": "mention", "offset": utf16_len(text[:mm.start()]),
                             "length": utf16_len(mm.group(0))})
        msg = self.user_message(chat_id, user_id, language_code, chat_type)
        msg["text"] = text
        if entities:
            msg["entities"] = entities
        if reply_to:
            msg["reply_to_message"] = reply_to
        return self.push({"message": msg}, times)

    def push_sticker(self, chat_id: int, *, user_id: int | None = None, language_code: str | None = "en") -> int:
        msg = self.user_message(chat_id, user_id, language_code, "private")
        msg["sticker"] = {"file_id": "stk1", "file_unique_id": "stk1u", "width": 512, "height": 512,
                          "is_animated": False, "is_video": False, "type": "regular"}
        return self.push({"message": msg})

    def push_photo(self, chat_id: int, *, user_id: int | None = None, language_code: str | None = "en",
                   caption: str | None = None) -> int:
        msg = self.user_message(chat_id, user_id, language_code, "private")
        msg["photo"] = [{"file_id": "ph1", "file_unique_id": "ph1u", "width": 90, "height": 90}]
        if caption:
            msg["caption"] = caption
        return self.push({"message": msg})

    def push_callback(self, chat_id: int, message_id: int, data: str, *, user_id: int | None = None,
                      language_code: str | None = "en") -> int:
        sent = self.sent.get((chat_id, message_id)) or self._bot_message(chat_id, message_id, "", None)
        cq = {"id": f"cq{next(self._callback_ids)}", "from": self.user(user_id or abs(chat_id), language_code),
              "chat_instance": f"ci{chat_id}", "data": data, "message": sent}
        return self.push({"callback_query": cq})

    def user_message(self, chat_id: int, user_id: int | None = None, language_code: str | None = "en",
                     chat_type: str = "private") -> dict:
        """A user's message as Telegram sends it (a new message id, no text yet), for building an update by hand."""
        chat = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = "Tester"
        else:
            chat["title"] = "Test group"
        return {"message_id": self._next_message_id(chat_id), "date": int(time.time()), "chat": chat,
                "from": self.user(user_id or abs(chat_id), language_code)}

    # --- looking at what the bot did -------------------------------------------------------------------------------
    def calls_of(self, method: str, chat_id: int | None = None, since: int = 0) -> list[Call]:
        with self._cond:
            calls = list(self.calls[since:])
        return [c for c in calls if c.method == method and c.status == 200
                and (chat_id is None or c.chat_id == chat_id)]

    def mark(self) -> int:
        """An index into the call log: pass it as `since` to look only at later calls."""
        with self._cond:
            return len(self.calls)

    def find(self, method: str, predicate=lambda c: True, chat_id: int | None = None, since: int = 0) -> Call | None:
        return next((c for c in self.calls_of(method, chat_id, since) if predicate(c)), None)

    async def wait_for(self, method: str, predicate=lambda c: True, chat_id: int | None = None, since: int = 0,
                       timeout: float = 20.0, count: int = 1) -> list[Call]:
        """Wait (without blocking the event loop) until `count` successful calls match; return them."""
        deadline = time.monotonic() + timeout
        while (found := self._matching(method, predicate, chat_id, since, count, deadline)) is None:
            await asyncio.sleep(0.02)
        return found

    def wait_for_sync(self, method: str, predicate=lambda c: True, chat_id: int | None = None, since: int = 0,
                      timeout: float = 60.0, count: int = 1) -> list[Call]:
        deadline = time.monotonic() + timeout
        while (found := self._matching(method, predicate, chat_id, since, count, deadline)) is None:
            time.sleep(0.05)
        return found

    def _matching(self, method: str, predicate, chat_id: int | None, since: int, count: int,
                  deadline: float) -> list[Call] | None:
        """The matching calls once there are `count` of them, None while waiting; past the deadline, an error."""
        found = [c for c in self.calls_of(method, chat_id, since) if predicate(c)]
        if len(found) >= count:
            return found
        if time.monotonic() > deadline:
            seen = [(c.method, c.chat_id, c.text[:80]) for c in self.calls[since:]]
            raise AssertionError(f"timed out waiting for {count} x {method} (chat {chat_id}); calls: {seen}")
        return None

    # --- the HTTP side ---------------------------------------------------------------------------------------------
    def _next_message_id(self, chat_id: int) -> int:
        with self._cond:
            counter = self._message_ids.setdefault(chat_id, itertools.count(1))
            return next(counter)

    def _bot_user(self) -> dict:
        return {"id": self.bot_id, "is_bot": True, "first_name": "GPU Advisor", "username": self.username,
                "can_join_groups": True, "can_read_all_group_messages": False, "supports_inline_queries": False}

    def _bot_message(self, chat_id: int, message_id: int, text: str, markup: dict | None) -> dict:
        msg = {"message_id": message_id, "date": int(time.time()),
               "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"}, "from": self._bot_user()}
        if text:
            msg["text"] = text
        if markup:
            msg["reply_markup"] = markup
        return msg

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        path = urllib.parse.urlparse(h.path).path
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        m = re.fullmatch(r"/bot([^/]+)/(\w+)", path)
        if not m:
            return self._reply(h, 404, {"ok": False, "error_code": 404, "description": "Not Found"})
        if m.group(1) != self.token:
            return self._reply(h, 401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        method = m.group(2)
        params, files = self._parse(h.headers.get("Content-Type", ""), body)
        call = Call(method, params, files)
        held = self._held(call)
        if held is not None:
            held.arrived.set()
            held._released.wait(HOLD_LIMIT)
            if _client_gone(h.connection):
                held.outcome, call.status = "dropped", 499
                h.close_connection = True
                self._record(call)
                held.done.set()
                return None
            held.outcome = "answered"
        try:
            self._answer(h, method, call)
        finally:
            if held is not None:
                held.done.set()

    def _held(self, call: Call) -> Hold | None:
        """The hold that takes this call (each takes one), or None."""
        with self._cond:
            held = next((x for x in self._holds if x.method == call.method and x.predicate(call)), None)
            if held is not None:
                self._holds.remove(held)
                held.call = call
        return held

    def _answer(self, h: BaseHTTPRequestHandler, method: str, call: Call) -> None:
        params, files = call.params, call.files
        with self._cond:
            failures = self._failures.get(method)
            failure = failures.pop(0) if failures else None
        if failure:
            call.status = failure[0]
            self._record(call)
            return self._reply(h, failure[0], failure[1])
        try:
            status, result = self._dispatch(method, params, files)
        except Exception as e:  # a bug in the fake: make it visible
            status, result = 500, {"ok": False, "error_code": 500, "description": f"fake server error: {e!r}"}
        call.status = status
        call.result = result
        if method != "getUpdates" or result.get("result"):
            self._record(call)
        self._reply(h, status, result)

    def subscribe(self, callback) -> None:
        """`callback(call)` for every recorded call, in the server's thread, right after it is recorded (benchmarks
        use it to time replies without polling the call log)."""
        self._listeners.append(callback)

    def _record(self, call: Call) -> None:
        with self._cond:
            self.calls.append(call)
        for callback in list(self._listeners):
            callback(call)

    @staticmethod
    def _reply(h: BaseHTTPRequestHandler, status: int, obj: dict) -> None:
        data = json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        try:
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (shutdown mid long-poll)
            pass

    @staticmethod
    def _value(key: str, v: str):
        if key in _JSON_PARAMS:
            try:
                return json.loads(v)
            except ValueError:
                return v
        return v

    def _parse(self, ctype: str, body: bytes) -> tuple[dict, dict]:
        params: dict = {}
        files: dict = {}
        if ctype.startswith("multipart/form-data"):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                payload = part.get_payload(decode=True) or b""
                if part.get_filename() is not None:
                    files[name] = payload
                else:
                    params[name] = self._value(name, payload.decode("utf-8"))
        elif ctype.startswith("application/json"):
            params = json.loads(body or b"{}")
        elif body:
            for k, v in urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True):
                params[k] = self._value(k, v)
        # a file sent by attach://name: the parameter names the part
        for k, v in list(params.items()):
            if isinstance(v, str) and v.startswith("attach://") and v[9:] in files:
                files[k] = files[v[9:]]
        return params, files

    def _error(self, code: int, description: str) -> tuple[int, dict]:
        return code, {"ok": False, "error_code": code, "description": description}

    def _check_markup(self, params: dict) -> str | None:
        markup = params.get("reply_markup")
        if not markup:
            return None
        for row in markup.get("inline_keyboard", []):
            for b in row:
                data = b.get("callback_data")
                if data is not None and not 1 <= len(data.encode("utf-8")) <= 64:
                    return "Bad Request: BUTTON_DATA_INVALID"
                if not b.get("text"):
                    return "Bad Request: text buttons are unallowed in the inline keyboard"
        return None

    def _check_text(self, text: str, parse_mode: str | None, limit: int) -> str | None:
        visible = text
        if parse_mode == "HTML":
            err, visible = check_html(text)
            if err:
                return "Bad Request: " + err
        if not visible.strip():
            return "Bad Request: message text is empty"
        if utf16_len(visible) > limit:
            return "Bad Request: message is too long"
        return None

    def _dispatch(self, method: str, p: dict, files: dict) -> tuple[int, dict]:
        ok = lambda result: (200, {"ok": True, "result": result})  # noqa: E731
        if method == "getMe":
            return ok(self._bot_user())
        if method in ("deleteWebhook", "setWebhook", "setMyCommands", "deleteMyCommands", "sendChatAction",
                      "answerCallbackQuery", "close", "logOut", "deleteMessage", "setMyDescription",
                      "setMyShortDescription"):
            return ok(True)
        if method == "getWebhookInfo":
            return ok({"url": "", "has_custom_certificate": False, "pending_update_count": len(self._updates)})
        if method == "getMyCommands":
            return ok([])
        if method == "getUpdates":
            return ok(self._get_updates(p))
        if method == "sendMessage":
            err = self._check_text(str(p.get("text", "")), p.get("parse_mode"), 4096) or self._check_markup(p)
            if err:
                return self._error(400, err)
            chat_id = int(p["chat_id"])
            msg = self._bot_message(chat_id, self._next_message_id(chat_id), p["text"], p.get("reply_markup"))
            self.sent[(chat_id, msg["message_id"])] = msg
            return ok(msg)
        if method == "sendPhoto":
            photo = files.get("photo")
            if not photo:
                return self._error(400, "Bad Request: there is no photo in the request")
            if p.get("caption"):
                err = self._check_text(p["caption"], p.get("parse_mode"), 1024)
                if err:
                    return self._error(400, err)
            chat_id = int(p["chat_id"])
            msg = self._bot_message(chat_id, self._next_message_id(chat_id), "", p.get("reply_markup"))
            msg["photo"] = [{"file_id": f"photo{msg['message_id']}", "file_unique_id": f"u{msg['message_id']}",
                             "width": 880, "height": 572, "file_size": len(photo)}]
            if p.get("caption"):
                msg["caption"] = p["caption"]
            self.sent[(chat_id, msg["message_id"])] = msg
            return ok(msg)
        if method in ("editMessageText", "editMessageReplyMarkup"):
            if method == "editMessageText":
                err = self._check_text(str(p.get("text", "")), p.get("parse_mode"), 4096)
                if err:
                    return self._error(400, err)
            err = self._check_markup(p)
            if err:
                return self._error(400, err)
            chat_id, message_id = int(p["chat_id"]), int(p["message_id"])
            old = self.sent.get((chat_id, message_id)) or self._bot_message(chat_id, message_id, "", None)
            msg = dict(old)
            if method == "editMessageText":
                msg["text"] = p["text"]
            msg.pop("reply_markup", None)
            if p.get("reply_markup"):
                msg["reply_markup"] = p["reply_markup"]
            self.sent[(chat_id, message_id)] = msg
            return ok(msg)
        return self._error(404, "Not Found: method not found")

    def _get_updates(self, p: dict) -> list[dict]:
        offset = int(p.get("offset") or 0)
        timeout = min(float(p.get("timeout") or 0), self.max_poll)
        limit = int(p.get("limit") or 100)
        deadline = time.monotonic() + timeout
        with self._cond:
            if offset:
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
                self.confirmed_offset = max(self.confirmed_offset, offset)
            while not self._updates:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return list(self._updates[:limit])
