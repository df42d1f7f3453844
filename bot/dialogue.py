"""Session (the need so far, the last picks) and Conversation.turn(text) -> Reply, shared by every front end."""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import date
from pathlib import Path

from bot import answers
from bot.catalog import Catalog
from bot.i18n import Text
from bot.nlu import Budget, Query, parse
from bot.reply import Reply

log = logging.getLogger(__name__)

_NEED_SLOTS = ("budget", "workload", "model_size_b", "finetune_method", "precision_bits", "gpu_count", "used", "vendor",
               "as_of", "min_vram_gb")
_REFINE_CUES = ("cheaper", "more_memory", "faster", "lower_power")


_PICK_REQUEST = re.compile(r"推荐|recommend|买什么|买哪|选什么|选哪|配什么|(which|what) (gpu|graphics card|card) "
                           r"(should|to|do)|what should i (buy|get)|help me (choose|pick)")


_REFINEMENT_WORDS = re.compile(r"呢|what about|how about|instead|换成|改成|如果|and in|and with|what if|可以吗|行吗|行不行|也行|"
                               r"\bok\b|okay|is fine|are fine|would do")
_QUESTION_WORDS = re.compile(r"吗|是否|怎么|为什么|如何|哪个好|^(is|are|does|do|can|could|how|why|what|which|should)\b")


def _reads_as_refinement(q: Query) -> bool:
    """'AMD?', 'what about for LLMs?', '如果做大模型微调呢？' change the need; 'is AMD usable for PyTorch?' and
    '多卡训练 Transformer 划算吗？' are questions that merely name a vendor or a workload."""
    text = q.text.strip().lower()
    if _REFINEMENT_WORDS.search(text):
        return True
    if _QUESTION_WORDS.search(text):
        return False
    return len(text) <= 24


_PICK_REFERENCE = re.compile(r"\b(it|them|these|this one|that one)\b|它|这张|这个|这些|这款|那张|那个")


_GUIDE_SOURCES = re.compile(r"\b(lambda|dettmers)\b|知乎|zhihu|这篇(文章|指南)|the (article|guide)\b")


def _asks_about_the_guide(q: Query) -> bool:
    """A question about what a source said ('What did Lambda recommend for $8000?', 'Lambda 2020年推荐什么卡'),
    not a need of one's own (which states both a budget and a workload)."""
    return _GUIDE_SOURCES.search(q.text.lower()) is not None and not (q.budget and q.workload)


def _refers_to_picks(q: Query) -> bool:
    """'where can I rent it?', '去哪租？' point at the last picks; '国内用哪个云平台？' is a general question."""
    text = q.text.strip().lower()
    return bool(q.ordinals) or _PICK_REFERENCE.search(text) is not None or len(text) <= 8


def _asks_for_a_pick(q: Query) -> bool:
    """A bare request for a recommendation, not a question that happens to contain 'buy' ('Colab 免费版是什么卡？',
    '为什么不建议买 Tesla？')."""
    return (_PICK_REQUEST.search(q.text.lower()) is not None and not q.gpus and len(q.text) <= 40
            and not {"why", "why_not", "rent"} & q.cues)


@dataclass
class Session:
    """One conversation's memory. Plain data, so it can be stored as JSON and survive a restart."""

    lang: str | None = None
    lang_locked: str | None = None
    budget: Budget | None = None
    workload: str | None = None
    model_size_b: float | None = None
    finetune_method: str | None = None
    precision_bits: int | None = None
    gpu_count: int | None = None
    used: bool | None = None
    vendor: str | None = None
    as_of: date | None = None
    min_vram_gb: float | None = None
    max_tdp_w: float | None = None
    min_perf: float | None = None
    awaiting: str | None = None  # "budget" | "workload": the question we asked
    last_picks: list[str] = field(default_factory=list)
    last_intent: str | None = None
    last_topic: str | None = None
    turns: int = 0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["as_of"] = self.as_of.isoformat() if self.as_of else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Session:
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in (d or {}).items() if k in known}
        if d.get("budget"):
            d["budget"] = Budget(**d["budget"])
        if d.get("as_of"):
            d["as_of"] = date.fromisoformat(d["as_of"])
        return cls(**d)

    def need_slots(self) -> dict:
        out = {k: getattr(self, k) for k in _NEED_SLOTS}
        out["budget"] = asdict(self.budget) if self.budget else None
        out["as_of"] = self.as_of.isoformat() if self.as_of else None
        out["max_tdp_w"] = self.max_tdp_w
        out["currency"] = self.budget.currency if self.budget else None
        return out


@dataclass
class Engine:
    """The loaded things a conversation needs. Retrieval loads lazily: a budget question never imports torch."""

    catalog: Catalog
    knowledge_dir: Path
    index_dir: Path
    model_path_fn: object  # () -> str
    min_relevance: float
    max_input_chars: int = 2000
    today: date | None = None
    _index: object = None

    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def index(self):
        """Loaded (or rebuilt) on first use, once, even when several threads ask at the same time."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    from bot import index as index_mod

                    self._index = index_mod.ensure(self.index_dir, self.knowledge_dir, self.catalog,
                                                   self.model_path_fn())
        return self._index

    @classmethod
    def from_settings(cls, settings=None) -> Engine:
        from bot.catalog import load_catalog
        from bot.config import get_settings

        s = settings or get_settings()
        return cls(load_catalog(s.knowledge_dir, s.catalog), s.knowledge_dir, s.index_dir, s.model_path,
                   s.min_relevance, s.max_input_chars)


class Conversation:
    """Turns of one chat. `turn(text)` never raises: anything unexpected becomes a polite error reply."""

    def __init__(self, engine: Engine, session: Session | None = None):
        self.engine = engine
        self.session = session or Session()

    def turn(self, text: str) -> Reply:
        try:
            return self._turn(text)
        except Exception:  # the user sees a message, the log sees the traceback
            log.exception("turn failed")
            lang = self.session.lang or "en"
            return Reply("unknown", lang, paragraphs=(Text(
                "Sorry, something went wrong while answering that. Please try again or rephrase it.",
                "抱歉，回答时出了点问题。请再试一次，或换个说法。").get(lang),))

    def _turn(self, text: str) -> Reply:
        s = self.session
        raw = text if isinstance(text, str) else ""
        truncated = len(raw) > self.engine.max_input_chars
        raw = raw[: self.engine.max_input_chars]
        q = parse(raw, self.engine.catalog, self.engine.today)
        if q.lang_request:
            s.lang_locked = q.lang_request
        has_letters = any(c.isalpha() for c in raw)
        lang = s.lang_locked or (q.lang if has_letters else (s.lang or q.lang))
        s.lang = lang
        s.turns += 1
        reply = self._route(q, lang)
        if truncated:
            note = Text(f"(Your message was longer than {self.engine.max_input_chars:,} characters; I read the "
                        "beginning.)", f"（消息超过 {self.engine.max_input_chars:,} 个字符，我只读了开头部分。）").get(lang)
            reply = replace(reply, footer=(note,) + reply.footer)
        s.last_intent = reply.intent
        return replace(reply, query=self._query_json(q))

    def _query_json(self, q: Query) -> dict:
        out = self.session.need_slots()
        out["lang"] = self.session.lang
        out["gpus"] = list(q.gpus)
        out["cues"] = sorted(q.cues)
        return out

    # --- routing ---------------------------------------------------------------------------------------------------
    def _route(self, q: Query, lang: str) -> Reply:
        s, e = self.session, self.engine
        stripped = q.text.strip()
        if not stripped or not any(c.isalnum() for c in stripped):
            return answers.empty_input(lang)
        if "reset" in q.cues and len(stripped) <= 40:
            keep = s.lang_locked
            self.session = Session(lang=lang, lang_locked=keep)
            return answers.reset_done(lang)
        if q.lang_request and len(stripped) <= 30 and not self._has_need(q):
            return answers.language_set(lang)
        if "help" in q.cues and not self._has_need(q) and len(stripped) <= 40:
            return answers.help_reply(lang)

        if q.unusable_budget is not None:
            return answers.unusable_budget(self.engine, q.unusable_budget, lang)
        # a bare answer to the question we asked last turn
        if s.awaiting == "budget" and q.budget is None and q.bare_number:
            q = replace(q, budget=Budget(q.bare_number, s.budget.currency if s.budget else
                                         ("CNY" if lang == "zh" else "USD")))
        if q.budget is None and q.bare_number and len(stripped) <= 16 and not q.gpus:
            # "5000呢？" / a bare "5000" to open with: a budget, in the currency of the chat so far
            q = replace(q, budget=Budget(q.bare_number, s.budget.currency if s.budget else
                                         ("CNY" if lang == "zh" else "USD")))

        picks = s.last_picks
        referred = self._referred_gpus(q)
        if _asks_about_the_guide(q) or ("why" in q.cues and not picks and "why_not" not in q.cues):
            # "RTX 2060 的性价比为什么比 V100 高？", "What did Lambda recommend in 2020?": the guide answers;
            # when it has nothing, the cards named still get their numbers
            reply = answers.question(e, s, q, lang)
            if reply.intent != "unknown" or not q.gpus:
                return reply
            return answers.compare(e, s, list(q.gpus[:4]), lang) if len(q.gpus) >= 2 else \
                answers.gpu_card(e, s, q.gpus[0], lang)
        if "compare" in q.cues and len(referred) >= 2:
            return answers.compare(e, s, referred[:4], lang)
        if "compare" in q.cues and len(referred) == 1 and picks and referred[0] != picks[0]:
            return answers.compare(e, s, [picks[0], referred[0]], lang)
        if "why_not" in q.cues and q.gpus and picks:
            return answers.why_not(e, s, q.gpus[0], lang)
        if "why" in q.cues and picks and not q.gpus and not self._changes_need(q):
            return answers.why(e, s, lang)
        if "rent" in q.cues and (q.gpus or (picks and _refers_to_picks(q))) and not self._changes_need(q):
            return answers.where_to_rent(e, s, list(q.gpus) or picks, lang, china="china" in q.cues or lang == "zh")
        if len(referred) == 1 and ("more_info" in q.cues or q.ordinals) and not self._changes_need(q):
            return answers.gpu_card(e, s, referred[0], lang)
        if self._is_memory_question(q):
            return answers.memory_question(e, q, lang)
        if self._wants_recommendation(q):
            return self._recommend(q, lang)
        if len(q.gpus) == 1:
            return answers.gpu_card(e, s, q.gpus[0], lang)
        if len(q.gpus) >= 2 and ("compare" in q.cues or len(stripped) < 40):
            return answers.compare(e, s, list(q.gpus[:4]), lang)
        if s.awaiting == "workload" and q.workload:
            return self._recommend(q, lang)
        return answers.question(e, s, q, lang)

    def _referred_gpus(self, q: Query) -> list[str]:
        """GPUs named in the text, then the ones meant by 'the first two' / '#2' from the last picks."""
        out = list(q.gpus)
        for o in q.ordinals:
            if self.session.last_picks:
                i = len(self.session.last_picks) - 1 if o == -1 else o - 1
                if 0 <= i < len(self.session.last_picks) and self.session.last_picks[i] not in out:
                    out.append(self.session.last_picks[i])
        return out

    @staticmethod
    def _has_need(q: Query) -> bool:
        return any(getattr(q, k) is not None for k in _NEED_SLOTS if k != "gpu_count") or bool(q.bare_number)

    def _changes_need(self, q: Query) -> bool:
        return self._has_need(q) or any(c in q.cues for c in _REFINE_CUES)

    def _is_memory_question(self, q: Query) -> bool:
        asks_memory = any(w in q.text.lower() for w in ("显存", "memory", "vram", "多少g", "how many gb", "内存"))
        return bool(q.model_size_b) and asks_memory and q.budget is None and "recommend" not in q.cues

    def _wants_recommendation(self, q: Query) -> bool:
        s = self.session
        if q.budget is not None:
            return True
        if s.awaiting and (q.workload or q.bare_number):
            return True
        active = s.workload is not None or s.budget is not None
        if not active and _asks_for_a_pick(q):
            return True  # "推荐一张显卡" / "which GPU should I buy?": ask what we need to know
        if not active:
            return q.workload is not None and "recommend" in q.cues
        if any(c in q.cues for c in _REFINE_CUES):
            return True
        if q.workload or q.model_size_b or q.finetune_method:  # "what about for LLMs?" / "如果做大模型微调呢？"
            return "recommend" in q.cues or _reads_as_refinement(q)
        # "AMD?", "二手的可以吗？", "in 2019?" change the need; "is AMD usable for PyTorch?" is a question
        changes = (q.used is not None or q.gpu_count is not None or q.vendor is not None or q.as_of is not None
                   or ("china" in q.cues and "rent" not in q.cues))
        return changes and _reads_as_refinement(q)

    # --- recommending ----------------------------------------------------------------------------------------------
    def _recommend(self, q: Query, lang: str) -> Reply:
        s = self.session
        previous_top = answers.top_pick(self.engine, s) if s.last_picks else None
        if q.workload and q.workload != s.workload:
            # another workload: the sizes and methods of the old one no longer apply
            s.finetune_method = None if q.workload != "llm_finetune" else s.finetune_method
            s.min_perf = None
        for k in _NEED_SLOTS:
            v = getattr(q, k)
            if v is not None:
                setattr(s, k, v)
        if q.budget is not None:
            s.min_perf = None
            s.max_tdp_w = None
        notes: list[Text] = []
        if previous_top is not None:
            top_c, top_g = previous_top
            if "cheaper" in q.cues and q.budget is None:
                s.budget = Budget(top_c.total - 0.01, top_c.price.currency)
                s.min_perf = None
                notes.append(Text(f"Looking below your previous top pick's {top_c.price} ({top_g.name}).",
                                  f"在上次首选 {top_g.name}（{top_c.price}）的价格以下找。"))
            if "more_memory" in q.cues:
                s.min_vram_gb = top_g.vram_gb + 0.5
                notes.append(Text(f"Asking for more than {top_g.vram_gb:g} GB.", f"要求显存超过 {top_g.vram_gb:g} GB。"))
            if "faster" in q.cues and q.budget is None:
                s.min_perf = top_c.perf
                s.budget = None  # faster than the fastest that fit means spending more: show what it costs
                notes.append(Text(f"Looking for cards faster than {top_g.name}, budget aside.",
                                  f"不看预算，找比 {top_g.name} 更快的卡。"))
            if "lower_power" in q.cues and top_g.tdp_w:
                s.max_tdp_w = top_g.tdp_w - 1
                notes.append(Text(f"Looking for cards under {top_g.tdp_w:.0f} W.", f"找功耗低于 {top_g.tdp_w:.0f} W 的卡。"))
        if "china" in q.cues and s.budget and s.budget.currency != "CNY" and q.budget is None:
            converted = self.engine.catalog.fx.convert(s.budget.amount, s.budget.currency, "CNY",
                                                       s.as_of or self.engine.today or date.today())
            s.budget = Budget(round(converted), "CNY", approximate=True)
            notes.append(Text(f"In China: the same budget is about ¥{converted:,.0f}; prices below are Chinese "
                              "prices where I have them.", f"换成国内：同样预算约 ¥{converted:,.0f}，下面尽量用国内价格。"))
        if s.workload is None and s.budget is None:
            s.awaiting = "budget"
            return answers.ask_budget_and_workload(lang)
        if s.workload is None:
            s.awaiting = "workload"
            return answers.ask_workload(lang, s)
        reply = answers.recommend(self.engine, s, lang, notes)
        s.awaiting = "budget" if s.budget is None and s.min_perf is None else None
        return reply
