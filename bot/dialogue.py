"""Session (the need so far, the last picks) and Conversation.turn(text) -> Reply, shared by every front end.

A turn is read three ways: the slots a message states (bot.nlu), the dialogue act it performs (the learned layer in
bot.acts, with word rules behind it when it is unsure), and the state of the conversation. The dialogue policy is an
ordered table of named rules, (acts, condition, handler): the first whose acts and condition match answers, and its
name is logged and shown in `--json` (`query.rule`)."""

from __future__ import annotations

import functools
import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import date

from bot import acts, answers
from bot.acts import ActGuess
from bot.engine import Engine
from bot.i18n import Text
from bot.need import LLM_WORKLOADS, Budget, Need, format_money
from bot.nlu import Query, parse
from bot.regions import load_regions, region_of_currency
from bot.reply import Reply
from bot.scorer import (
    candidate_for,
    default_vendors,
    fine_tuning_floor,
    load_workloads,
    low_power_w,
    rank_or_used,
    serving_note,
    with_assumed_serving_model,
    workload_spec,
)
from bot.session import Session
from bot.slots import context, money
from bot.slots.lexicon import load, words
from bot.slots.text import (
    CJK,
    chinese_numerals_to_digits,
    chinese_script,
    detect_language,
    find_any,
    has_any,
    mask,
    normalise,
    to_script,
    without_markup,
    words_pattern,
)

log = logging.getLogger(__name__)

__all__ = ["POLICY", "Conversation", "Engine", "Rule", "Session", "Turn", "rule_act"]

# Below this the classifier's act is not trusted on its own: the word rules decide.
MIN_GUESS_OVER_STATED_CHANGE = 0.5  # a "question" guess over a message that changes the need of the picks shown
MIN_ACT_CONFIDENCE = 0.35  # over a rule that only guessed from what is stated ("refine" when slots appear)
MIN_GUESS_OVER_DEFAULT = 0.25  # over the rules' catch-all "question"
MIN_GUESS_OVER_CUE = 0.7  # over a rule that found a word naming the act ("psu", "why not", "compare", "rent")
NEVER = 2.0  # above any probability: the guess does not overrule the rules
MIN_REFUSAL_CONFIDENCE = 0.4  # an out-of-scope guess with no words of another topic: a refusal needs this much
SURE_SMALL_TALK = 0.5  # a greeting/help/reset guess on a message with no such word needs this much
# an out-of-scope guess this sure is overruled only by words of machine learning, a card, a position or direction
# named, or a short follow-up: not by a place, a date, a vendor, a budget, noise or "it" in a sentence about something
# else (five-fold CV)
SURE_OUT_OF_SCOPE = 0.8
SHORT = 40  # characters: a message this short that carries a command word is that command
SHORT_PRICE_FOLLOW_UP = 24  # characters: a price asked this briefly ("how much for that") is the card on screen's
SHORT_FORM_FACTOR_FOLLOW_UP = 30  # characters: a follow-up naming only a kind of computer ("which laptop then?")
SHORT_FOLLOW_UP = 12  # characters: a message this short with a GPU word ("Windows 下呢", "PSU?") follows the card on screen
SHORT_TOPIC_FOLLOW_UP = 48  # characters: a message this short that points back ("do they…", "那pro呢") asks on the topic
COMMANDS = ("language", "reset", "help", "greeting")
DECLINED_MESSAGE_SLOTS = ("gpus", "budget", "gpu_count", "psu_w")
_SMALL_CUES = context.SMALL_TALK_CUES


@dataclass(frozen=True)
class Turn:
    """One message as the policy sees it."""

    q: Query
    act: str  # the act the policy acts on
    guess: ActGuess | None  # what the classifier said
    lang: str
    referred: tuple[str, ...]  # cards meant: named, by position in the last list, or by pronoun
    need: Need  # what this message states, read in context (a bare "5000" after we asked is a budget)

    def slots(self) -> dict:
        """The labelled-slot view of what this message states (knowledge/intents/README.md)."""
        # "cheapest cloud?" or "why not the cheaper one?" is not a move away from the picks
        direction = self.q.direction if self.act in ("refine", "recommend") else None
        # a market implied by the money or the writing ("NT$30000") is used, not stated: no region in this view
        need = replace(self.need, region=None) if self.q.market and self.need.region == self.q.market and \
            self.q.need.region is None else self.need
        slots = replace(self.q, need=need, direction=direction).slots()
        if self.act == "out_of_scope":
            # declined: only the cards, money and counts it names are read ("a 4090 for 4k gaming"); its place, job,
            # vendor or date set no context ("weather in Berlin" is no region for the next question)
            slots = {k: v for k, v in slots.items() if k in DECLINED_MESSAGE_SLOTS}
        return slots

    @property
    def text(self) -> str:
        return self.q.text.strip()

    @property
    def short(self) -> bool:
        return len(self.text) <= SHORT

    def cue(self, name: str) -> bool:
        return name in self.q.cues


@dataclass(frozen=True)
class Rule:
    name: str
    acts: frozenset[str]  # empty: any act
    when: Callable[[Conversation, Turn], bool]
    answer: Callable[[Conversation, Turn], Reply]


def _ml_evidence(q: Query) -> bool:
    """The message is about machine learning: a workload, a model, a method, or words of the field. "For
    beginners" / "入门" (the learning workload) and a generic "general" do not prove it beside another topic's words:
    a workout plan for beginners is not a first deep-learning card."""
    n = q.need
    return bool(set(n.workloads) - {"learning", "general"} or n.model_size_b or n.finetune_method
                or n.precision_bits or n.min_vram_gb or "dl" in q.cues or _names_training_data(n))


def _names_training_data(n: Need) -> bool:
    """Epochs, samples, tokens or a public dataset: the data of a training run ("3 epochs on 20k samples")."""
    return bool(n.epochs or n.dataset_samples or n.train_tokens or n.dataset)


def _strong_evidence_of_ours(q: Query) -> bool:
    """What overrules a very sure out-of-scope guess: words of machine learning, a card, a position or a way to move
    the picks named, a product we do not know, or a follow-up too short to be about anything else ("in the UK?")."""
    return _ml_evidence(q) or bool(q.gpus or q.ordinals or q.direction or q.unknown_products) or \
        len(q.text.strip()) <= SHORT_FOLLOW_UP


_SMALL_TALK_ACTS = ("greeting", "help", "reset")
# the acts a question in a message of several may have, and the kind of reply that answers each
_ANSWER_OF_ACT = {"fit": "fit", "rent": "rent", "power": "power", "compare": "compare", "memory": "memory",
                  "where_to_buy": "where_to_buy", "gpu_info": "gpu"}
_MORE_QUESTIONS = 2  # questions answered besides the one the rule chose: more makes a reply nobody reads
# the kinds of answer a question beside the one answered may add to it: renting, buying and power are never part of
# another answer; whether it fits or which to buy is not part of an answer on renting, buying, power or specs; specs
# and memory only beside renting, buying or power (a fit or a verdict already says the memory and the card's specs)
_LOGISTICS = ("rent", "power", "where_to_buy")
_ADDED_TO = {**{kind: _LOGISTICS + ("fit", "compare", "gpu", "memory") for kind in _LOGISTICS},
             "gpu": _LOGISTICS + ("fit", "compare"), "fit": _LOGISTICS, "compare": _LOGISTICS, "memory": _LOGISTICS}
# where a message's questions part: punctuation, or a space between Chinese words ("…变笨很多吗 我想用…"; not the
# space of "cifar10 跑一个epoch要多久", which joins an English name to its sentence)
_CLAUSE_BREAK = re.compile(r"[，,;；?？。!！]+|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")


def _questions_in(text: str) -> list[tuple[str, bool]]:
    """The clauses of a message, each with whether it is asked ("…吗", "how much…", a question mark after it)."""
    pieces = re.split(f"({_CLAUSE_BREAK.pattern})", text)
    out = []
    for clause, mark in zip(pieces[::2], [*pieces[1::2], ""], strict=False):
        if clause and clause.strip():
            out.append((clause.strip(), "?" in mark or "？" in mark or _asks(clause)))
    return out


def _any_content(q: Query) -> bool:
    """A need, a number, a card, a memory size, a direction or a position: what no greeting, thanks or "start over"
    carries."""
    return bool(not q.need.is_empty() or q.bare_number is not None or q.gpus or q.direction or q.ordinals or
                q.memory_gb)  # "12G够吗"


def _off_topic_gate(q: Query, act: str, guess: ActGuess | None, about_the_focus: bool = False) -> str:
    """A request about another topic ("机械键盘推荐", "what gpu for fortnite?", "NVDA earnings?") is declined, not
    answered with GPU picks: words of another topic and none of machine learning. A refinement that states nothing
    ("whats 2+2") is no refinement."""
    if act in COMMANDS or act == "out_of_scope":
        return act
    if _says(q.text, "support_we_do_not_give"):
        return "out_of_scope"  # "write a CUDA kernel for...", "驱动安装失败怎么办": help we do not give
    if _says(q.text, "service_request", "words") and not (q.gpus or "rent" in q.cues or
                                                         _says(q.text, "service_request", "unless")):
        return "out_of_scope"  # "AI绘画网站推荐", "best llm api for coding": a service to use, not hardware
    if _says(q.text, "media_words") and not (q.gpus or q.need.budget or q.need.model_size_b or q.unknown_products or
                                             q.need.model or "memory_question" in q.cues):
        # ("想生成影片，用Wan 2.1，要幾多VRAM": a model to run, or its memory asked, is a job of ours)
        return "out_of_scope"  # "recommend a good movie about AI", "推荐几本深度学习的书": things to watch or read
    if _says(q.text, "tasks_we_do_not_do") and not (q.need.budget or
                                                                                "pick_request" in q.cues):
        return "out_of_scope"  # "write me a DDP script", "帮我写个训练代码": a task, not advice on hardware
    if "offtopic" in q.cues and not _ml_evidence(q) and not about_the_focus:  # "Windows 下呢" after an AMD card
        # a question about a named card's power, stock or memory ("is the 3090 Ti a space heater?", "which retailer
        # has the 4070 Super?") and a confident guide question in GPU words ("为什么游戏卡比专业卡性价比高") stay in scope
        about_a_card = bool(q.gpus) and act in ("power", "where_to_buy", "memory", "fit", "rent")
        sure_question = act == "question" and "domain" in q.cues and guess is not None and \
            guess.act == "question" and guess.confidence >= 0.8
        if act in ("recommend", "refine", "gpu_info") or (guess and "out_of_scope" in (guess.act, guess.runner_up)
                                               and not (about_a_card or sure_question)):
            return "out_of_scope"
    if act == "refine" and q.need.is_empty() and q.bare_number is None and not q.direction and not q.cues - {
            "domain", "offtopic", "dl"} and not q.gpus and not q.ordinals:
        act = "question"
    return act


_GPU_CUES = frozenset({"domain", "dl", "rent", "form_factor_choice", "power", "memory_question", "what_fits", "speed", "finetune",
                       "train_words", "serving", "software", "add_card", "same_memory", "guide_source", "quality",
                       "more_info", "why_not", "buy_where"})


def _about_something_else(q: Query) -> bool:
    """Nothing in the message is about GPUs or machine learning (no card, no GPU or ML word, no job, no model, no
    position or direction in the list on screen), and it says more than a follow-up would: a budget or a place beside
    words of its own ("best running shoes under $100", "is it going to rain in london this weekend")."""
    n = q.need
    beginner = set(n.workloads) <= {"learning", "general"}  # "books for learning stoicism": no GPU job by itself
    if q.gpus or q.unknown_products or q.ordinals or q.direction or q.cues & _GPU_CUES or q.bare_number is not None or \
            not replace(n, budget=None, region=None, as_of=None, vendor=None,
                        workloads=() if beginner else n.workloads).is_empty() or \
            _says(q.text, "which_of_them"):  # "which one should I buy then": a choice among the cards on screen
        return False
    cue_words = words("slots", "cues")
    return len(q.text.strip()) > 12 and _words_besides(q.text, [cue_words[c] for c in q.cues if c in cue_words])


def _a_sentence_about_a_place(q: Query, s: Session) -> bool:
    """"台北到高雄搭高鐵要多久？": a whole Chinese sentence with a place and nothing of GPUs, money or ML in it, with
    nothing on the table it could refine (too short for the length rule of `_about_something_else`, which is there
    for "in the UK?")."""
    if s.last_picks or s.focus or q.gpus or q.bare_number is not None or q.cues - {"duration"}:
        return False
    return q.need.region is not None and replace(q.need, region=None).is_empty() and len(CJK.findall(q.text)) >= 8


def _times_the_job(q: Query, s: Session) -> bool:
    """"how long would one 5 sec clip take on that", "how long would that take on it": a time asked in a chat about a
    job, with a card on the table and no word of another topic, is that job's time on that card."""
    return "duration" in q.cues and "offtopic" not in q.cues and bool(s.need.workloads) and \
        bool(s.focus or s.last_picks) and ("pronoun" in q.cues or _says(q.text, "topic_follow_up"))


def _about_the_focus(q: Query, s: Session) -> bool:
    """A question about the card on the table: by pronoun with a word of what we answer about it (price, power,
    memory, speed…: "how much should I pay for it?", "它功耗多大"), or a short fragment with a GPU word or an operating
    system ("PSU?", "Windows 下呢" after an AMD card). Words of another topic rule it out, but for an operating system."""
    if not s.focus or ("offtopic" in q.cues and "operating_system" not in q.cues):
        return False
    if q.need.finetune_method and "pronoun" not in q.cues:
        return False  # "为什么不用QLoRA": the method is what is asked about
    if "pronoun" in q.cues:  # ("how long would that take on it": a time asked of the card on the table)
        return bool(q.cues & (_GPU_CUES | {"price", "worth", "operating_system", "duration"}))
    if "price" in q.cues and q.need.is_empty() and not q.gpus and len(q.text.strip()) <= SHORT_PRICE_FOLLOW_UP:
        return True  # "how much for that", "多少钱啊": the price of what is on the table
    # ("domain" alone is not enough: "剪片用邊張卡好" names cards, but for another job)
    return len(q.text.strip()) <= SHORT_FOLLOW_UP and bool(q.cues & (_GPU_CUES - {"domain", "dl"} | {"operating_system"}))


def _follows_the_topic(q: Query, s: Session) -> bool:
    """A short follow-up to an answer from the guide or about a platform, by pronoun or ellipsis ("how many hours do
    they give" after Kaggle's free GPUs, "那pro呢" after Colab): a question on the same topic, never out of scope."""
    if not s.last_topic or s.last_act not in ("question", "rent") or "offtopic" in q.cues or q.gpus or \
            not q.need.is_empty():
        return False
    return len(q.text.strip()) <= SHORT_TOPIC_FOLLOW_UP and _says(q.text, "topic_follow_up") and \
        not _says(q.text, "topic_elsewhere")


def _memory_asked_about(e: Engine, need: Need, r, asked: float) -> Text:
    """"那训练CV呢，也要48G吗": yes or no for that job, from the memory the ranking required of it (the memory line of
    the reply gives the figures)."""
    label = workload_spec(e.knowledge_dir, need.workload, need.as_of or e.today or date.today()).label
    if r.required_vram_gb < asked:
        return Text(f"No, {label.en} does not need {asked:g} GB.", f"不用 {asked:g} GB：{label.zh}用不了这么多。")
    return Text(f"Yes, {label.en} needs that much.", f"要，{label.zh}需要这么多。")


def _next_step_up(c, lang: str) -> Text:
    """' The next step up: 2× RTX 5090 at $5,398.' for a setup faster than the picks, over the budget."""
    setup = f"{c.count}× {c.gpu.name}" if c.count > 1 else c.gpu.name
    paid = format_money(c.total, c.price.currency)
    return Text(f" The next step up: {setup} at {paid}.", f"再往上一档：{setup}，{paid}。")


def _chooses_among_the_shown(q: Query, s: Session) -> bool:
    """"which is best per dollar", "which would you pick" right after a comparison or a list of picks: a choice among
    the cards on screen, never out of scope and never a question for the guide."""
    shown = (s.last_act == "compare" and len(s.compared) >= 2) or \
        (s.last_act in ("recommend", "refine") and len(s.last_picks) >= 2 and
         not q.cues - {"pronoun", "domain", "dl", "pick_request", "greeting"})
    return shown and not (q.gpus or q.ordinals or "offtopic" in q.cues) and replace(q.need, used=None).is_empty() \
        and _says(q.text, "which_of_them")


def _asks_about_power_limiting(text: str) -> bool:
    """"功耗限制到300W会慢多少", "can I cap them at 250W each": a question about power limiting a card."""
    return _says(text, "power_limit", "words") and (_says(text, "power_limit", "cost") or _asks(text))


def _topic_words(topic: str) -> str:
    """The words a topic id stands for, to ask the guide again: 'platform:Kaggle Notebooks' -> 'Kaggle Notebooks',
    'rent-vs-buy' -> 'rent vs buy'."""
    return topic.split(":", 1)[-1].replace("-", " ")


def _states_a_need(q: Query, confidence: float, follow_up: bool = False) -> bool:
    """The message states something only a deep-learning GPU question would: a workload, a model size, a method.
    A card, a budget or a count alone ("4090 for Cyberpunk?", "phone under $800") counts only when the classifier
    is unsure (`confidence`: how sure it is that the message is out of scope)."""
    n = q.need
    if n.model_size_b or n.finetune_method:
        return True
    if _names_training_data(n) and "offtopic" not in q.cues:
        return True  # a training run's data: "how long would 3 epochs on 20k samples take" (not "translate: …10 epochs")
    if n.workloads and n.workloads != ("general",):
        # a job's words with no hardware in the message, when the classifier is sure it is about something else:
        # "explain how attention in transformers works", "gpt-4o API price per million tokens" ask about ML, not GPUs
        # ("which AI image app is best on iphone": a GPU-ish word beside a word of another topic is no hardware)
        return confidence < SURE_OUT_OF_SCOPE or _names_hardware(q, domain="offtopic" not in q.cues)
    if "offtopic" in q.cues:
        return False  # "4090 for 4K gaming?", "32gb ram for gaming", "phone under $800": not for deep learning
    if n.min_vram_gb:
        return True
    # a place, a date, a form factor or a vendor alone is a refinement only in a short message ("in the UK?",
    # "laptop?", "AMD?"); in a longer one it is a word of another topic ("taxes in Germany", "a job at NVIDIA")
    # ("台积电还能进场吗？AI热潮会不会退": "AI" alone, when the classifier is sure, is a word of the other topic too)
    general = n.workloads == ("general",) and confidence >= SURE_OUT_OF_SCOPE
    weak = replace(n, region=None, as_of=None, form_factor=None, vendor=None,
                   workloads=() if general else n.workloads).is_empty()
    if follow_up and confidence >= 0.7 and "pick_request" in q.cues and not (q.gpus or q.ordinals or q.direction):
        follow_up = False  # "2000块的游戏显卡推荐" after picks: a new request, for something else, not a refinement
    if follow_up and weak and confidence >= SURE_OUT_OF_SCOPE and not n.budget:
        follow_up = False  # "北京到上海多远", "旺角有咩好嘢食" after picks: a place in a sentence about something else
    # (a form factor reads as ours a little further: "which laptop specifically" after picks for a job)
    short = len(q.text.strip()) <= (SHORT_FORM_FACTOR_FOLLOW_UP if n.form_factor else 15)
    if follow_up and ((not n.is_empty() and (not weak or short)) or q.gpus or q.direction
                      or q.ordinals or (q.bare_number is not None and len(q.text.strip()) <= 15)):
        return True  # "nevermind, show me nvidia again", "再多五百" after picks
    return confidence < 0.6 and bool(q.gpus or n.budget or n.gpu_count or q.direction)


def _names_hardware(q: Query, domain: bool = True) -> bool:
    """A card, money, memory, a count, a GPU word (`domain`: whether one counts), a position in the list or a move
    away from it."""
    n = q.need
    return bool(q.gpus or n.budget or n.min_vram_gb or n.gpu_count or n.multi_gpu or q.bare_number is not None or
                q.direction or q.ordinals or q.unknown_products or (domain and "domain" in q.cues))


def rule_act(q: Query, s: Session) -> str:
    """The act the word rules read, for when the classifier is unsure (or absent)."""
    return rule_act_and_strength(q, s)[0]


def rule_act_and_strength(q: Query, s: Session) -> tuple[str, str]:
    """The word rules' act and how much it rests on: "command" (a short message that is only that word), "cue" (a
    word that names the act: why, compare, rent, psu…) or "default" (a guess from what is stated, or the catch-all
    question): the classifier overrules a cue when sure, and a default even when only fairly sure."""
    if (s.awaiting == "budget" and (q.bare_number or q.need.budget)) or \
            (s.awaiting == "workload" and q.need.workloads and not q.gpus):
        return "refine", "command"  # the answer to the question we just asked ("5000", "NLP")
    if _says(q.text, "about_the_bot") and not (q.need.budget or q.need.model_size_b or q.gpus or q.ordinals or
                                               q.direction):
        return "help", "command"  # "do you only do nvidia stuff", "can you help with laptops too": what we cover
    if "form_factor_choice" in q.cues and not (q.gpus or q.need.budget or q.ordinals):
        return "question", "command"  # "笔记本还是台式", "laptop or desktop?" after picks: the guide's answer, not picks
    act = _rule_act(q, s)
    if act in COMMANDS:
        # "hi", "ok thanks", "start over": only that; "ok but I'm in Canada", "sounds good, any AMD?" carry more, so
        # the classifier may read the rest
        return act, "command" if act == "language" or not _more_than_small_talk(q.text) else "cue"
    if act == "gpu_info" and "pronoun" in q.cues and q.cues & {"memory_question", "more_info"} and \
            q.need.is_empty() and not q.direction:
        return act, "command"  # "它显存多大", "tell me more about it": a question about the card in focus
    if act in ("question", "refine", "recommend", "gpu_info") and not _cue_for(act, q):
        return act, "default"
    return act, "cue"


def _reply_in_script(reply: Reply, script: str) -> Reply:
    """Every text of the reply in `script`; names, numbers and units are the same in both."""
    conv = lambda t: to_script(t, script)  # noqa: E731
    table = replace(reply.table, header=tuple(map(conv, reply.table.header)),
                    rows=tuple(tuple(map(conv, r)) for r in reply.table.rows)) if reply.table else None
    return replace(reply, script=script, title=conv(reply.title), paragraphs=tuple(map(conv, reply.paragraphs)), table=table,
                   bullets=tuple(map(conv, reply.bullets)), footer=tuple(map(conv, reply.footer)),
                   suggestions=tuple(map(conv, reply.suggestions)),
                   sources=tuple(replace(x, title=conv(x.title)) for x in reply.sources))


def _a_machine_for_llms(c: Conversation, t: Turn) -> bool:
    """A whole computer with unified memory (a DGX Spark, a Mac) asked about with no job of its own is weighed on the
    models it runs: that is what its memory is bought for."""
    g = c.engine.catalog.get(t.referred[0]) if t.referred else None
    return g is not None and g.unified_memory and not t.need.workloads and not c.session.need.workloads


def _counts_a_setup_for_llms(c: Conversation, t: Turn) -> bool:
    """"那两张3090呢？" after a comparison for running LLMs with no model named: what that many of the card run."""
    s = c.session
    return len(t.q.gpus) == 1 and bool(t.q.need.gpu_count and t.q.need.gpu_count >= 2) and \
        s.last_act in ("compare", "fit") and s.need.workload in LLM_WORKLOADS and not s.need.model_size_b and \
        replace(t.q.need, gpu_count=None).is_empty()


def _asked_as(topic: str, text: str, written: str | None = None) -> str:
    """`text` as a question of a topic the guide knows (`multi_gpu_query`, `cooling_query` in the lexicon), in the
    language the message is `written` in: both reply languages then quote the same paragraphs."""
    return words("slots", topic, detect_language(written or text))[0] + text


def _offered_price(catalog, raw: str) -> bool:
    """An amount written beside the card, as what it sells for ("tesla p40 24gb for $180 — good for local llms?",
    "闲鱼2800的3090能买吗"), is the price to check, not a budget, unless a budget word says otherwise."""
    if "budget_words" in context.cues(normalise(raw)) or not _asks(raw):  # ("a good budget card?" names no budget)
        return False
    text = chinese_numerals_to_digits(normalise(raw))  # "两百多块" is an amount too (and 二手 reads "2手")
    mentions = catalog.find_mentions(text)
    if not mentions:
        return False
    between = "|".join(re.escape(w) for w in sorted(words("slots", "offer_between"), key=len, reverse=True))
    start, end = mentions[0][0], mentions[0][1]
    after, before = text[end:], text[:start]
    unit = r"(?:块钱|块|元|rmb|刀|美元|usd|dollars|bucks)"
    return bool(re.match(rf"\s*(?:\d+\s*gb?\s*)?(?:used\s*|[二2]手\s*)?(?:{between})\s*(?:only\s*|just\s*)?"
                         rf"(?:[a-z]{{0,3}}\$|[¥€£])?\s*\d", after)
                # "P40 两百多块 能买吗", "4090 2000刀值吗": an amount with its unit right after the card
                or re.match(rf"\s*(?:\d+\s*gb?\s*)?(?:[二2]手\s*|used\s*)?(?:[a-z]{{0,3}}\$|[¥€£])?\s*\d[\d,.]*\s*"
                            rf"(?:k|千|百)?\s*多?\s*{unit}", after)  # ("V100 16G 二手800块": its memory first)
                # "闲鱼2800的3090能买吗", "a $600 3090, worth it?": the amount right before it
                or re.search(r"(?:\d[\d,.]*\s*(?:k|千)?\s*(?:块钱|块|元)?\s*的|(?:[a-z]{0,3}\$|[¥€£])\s*\d[\d,.]*)\s*"
                             r"(?:[二2]手\s*|used\s*)?$", before))


_TRAINED_AS = {"llm_inference": "llm_finetune", "inference": "general"}  # a job that runs a model -> training one


def _training_of(s: Session, t: Turn) -> str | None:
    """"For training instead?" with no job named, after one that runs a model: the training job it turns into."""
    if t.need.workloads or not t.cue("train_words") or not t.short:
        return None
    return _TRAINED_AS.get(s.need.workload)


def _comparison_open(s: Session) -> bool:
    """A comparison is still what the talk is about: it was the last answer, or the last answer was about one of its
    cards (its power, its sheet, why not it): "for training instead?" after "7900 XTX vs 4090" and "the 4090's power
    draw" weighs the two again for training."""
    return s.last_act == "compare" or (s.last_act in ("power", "gpu_info", "why_not", "where_to_buy") and
                                       s.focus in s.compared) or \
        (s.last_act == "power" and s.focus is None and len(s.compared) >= 2)  # "compare their power draw": both


def _says(text: str, *path: str) -> bool:
    """Whether the (normalised) message uses a word of the lexicon list at `path` of knowledge/lexicon/slots.yaml."""
    return has_any(normalise(text), words("slots", *path))


_GENERIC_JOBS = frozenset({"inference", "llm_inference", "llm_finetune", "transformer", "general"})
_TERM_SLOTS = {"precision_bits": None, "quant": None, "kv_cache_bits": None, "finetune_method": None,
               "context_tokens": None, "multi_gpu": None}  # what naming a term ("FP8", "LoRA", "KV cache") sets


def _offers_instead(q: Query, s: Session) -> bool:
    """A card offered in place of the one on the table ("那还不如买新的5070ti？", "what about the 5070 Ti instead") with no
    picks on screen; not after a rental, where "H100 instead" rents that card."""
    return "instead" in q.cues and len(q.gpus) == 1 and bool(s.focus) and s.focus != q.gpus[0] and \
        not s.last_picks and not q.need.budget and s.follow_up != "rent"


def _owned(c: Conversation, t: Turn) -> tuple[str, ...]:
    """The cards the user has: said in this message ("worth upgrading from my 4070"), else earlier."""
    return t.q.need.owned_gpus or c.session.need.owned_gpus


def _describes_a_machine(q: Query) -> bool:
    """A message that says what a machine is for or who shares it ("实验室要配一台服务器给8个人用，训练为主"): a need the
    picks answer (asking the budget when there is none), when the guide has no section on its words."""
    n = q.need
    return bool(n.workloads or n.shared or n.form_factor or n.headcount or n.concurrent_users or n.daily_users or
                n.whole_pc)


@functools.lru_cache(maxsize=1)
def _definition_lead() -> re.Pattern[str]:
    """"whats …", "什么是 …" at the start of a message (after a "so", "ok", "请问"): group 2 is what follows."""
    lead = "|".join(re.escape(w) for w in words("slots", "definition_asked", "lead"))
    return re.compile(r"^\W*(?:(?:so|ok|okay|and|hey|hi|那|请问|問下|问下)\W+)?(" + lead + r")\s*(.*)")


def _asks_what_a_term_means(q: Query) -> bool:
    """"whats FP8 and do i need a card that supports it", "什么是TF32", "NVLink是啥": what a term means, with nothing of a
    purchase stated (no card, budget or job); "what is the best gpu for me" asks for picks."""
    generic = set(q.need.workloads) <= _GENERIC_JOBS  # "KV cache 是什麼，為什麼長上下文推理很吃顯存": the term's own setting
    if q.gpus or not replace(q.need, **_TERM_SLOTS, workloads=() if generic else q.need.workloads).is_empty():
        return False
    text = normalise(q.text)
    lead = _definition_lead().match(text)
    if lead:
        return not any(lead[2].startswith(w) for w in words("slots", "definition_asked", "not_after_lead"))
    return has_any(text, words("slots", "definition_asked", "tail"))


def _asks_how_many(q: Query) -> bool:
    """"需要几张", "how many H100s would I need": how many of a card the job takes (the card's name set aside, so
    "how many 4090s do I need" reads as "how many do I need")."""
    return _says(q.text, "count_question") or _says(" ".join(q.without_cards.split()), "count_question")


def _asks_about_another_part(text: str) -> bool:
    """"4090配什么主板", "which cpu for two 3090s": a part other than the GPU. A part named as the GPU's constraint
    ("小机箱，电源550W，买什么卡", "itx case") is a form factor, not the question."""
    t = normalise(text)
    t = mask(t, find_any(t, [w for ws in words("slots", "form_factor").values() for w in ws]))
    t = _CARD_VARIANT.sub(" ", t)  # "the h100 pcie", "V100 32G PCIe版": a card's version, not a slot
    return has_any(t, words("slots", "other_parts"))


_CARD_VARIANT = re.compile(r"(?<=\d)(?:\s*\d{2,3}\s*g(?:b)?)?\s*(?:pcie|pci-e)(?![a-z0-9])")


def _words_besides(text: str, word_lists) -> bool:
    """Whether the message has words besides those of `word_lists`: two or more Latin words, or three or more Chinese
    characters."""
    t = normalise(text)
    rest = mask(t, [sp for ws in word_lists for sp in find_any(t, ws)])
    return len(re.findall(r"[a-z]{2,}", rest)) >= 2 or len(CJK.findall(rest)) >= 3


def _more_than_small_talk(text: str) -> bool:
    """Whether the message has words besides its greeting/thanks/help/reset words."""
    return _words_besides(text, [words("slots", "cues", cue) for cue in _SMALL_CUES])


def _asks(text: str) -> bool:
    """A question rather than a statement: "is my 1000w enough?", "电源够吗", "will my psu handle that"."""
    t = normalise(text).strip()
    first = re.match(r"[a-z']+", t)
    return _says(t, "asks") or bool(first and first.group() in words("slots", "asks_openers"))


def _names_other_things(text: str) -> bool:
    """A comparison of things that are not cards: words besides the comparing ones ("vs", "哪个好", "compare") and
    fillers ("please", "一下")."""
    return _words_besides(text, [words("slots", "cues", "compare"), words("slots", "compare_fillers")])


def _cue_for(act: str, q: Query) -> bool:
    return (act == "recommend" and "pick_request" in q.cues) or (act == "refine" and q.direction is not None) or \
        (act == "question" and "why" in q.cues) or \
        (act == "gpu_info" and bool(q.cues & {"memory_question", "more_info"} or len(q.ordinals) == 1))


def _on_screen(s: Session) -> list[str]:
    """The list 'the first two' counts in: the cards just compared, else the last picks."""
    return s.compared if s.last_act == "compare" and s.compared else s.last_picks


def _rule_act(q: Query, s: Session) -> str:
    n, t = q.need, normalise(q.text)
    pronoun = has_any(t, words("slots", "cues", "pronoun")) and bool(s.focus or s.last_picks)
    short = len(q.text.strip()) <= SHORT
    stated = not n.is_empty() or q.bare_number is not None
    if stated and len(q.text.strip()) > 15 and q.bare_number is None and \
            replace(n, region=None, as_of=None, form_factor=None).is_empty():
        stated = False  # a place or a date alone in a longer message ("best ramen in Hong Kong") is no refinement
    if q.lang_request and short and not stated and not q.ordinals and not q.gpus and \
            not (q.cues - _SMALL_CUES - {"domain", "dl", "offtopic", "pronoun"}):
        return "language"
    for act in ("reset", "help", "greeting"):
        if act in q.cues and short and not stated and not q.gpus and q.cues <= _SMALL_CUES and not q.direction \
                and not q.ordinals:  # "ok, cheaper then", "ok the first one" are follow-ups
            return act
    if "why_not" in q.cues and (q.gpus or q.ordinals):
        return "why_not"
    if "why" in q.cues and q.gpus and s.last_picks and not set(q.gpus) & set(s.last_picks) and not n.model_size_b:
        return "why_not"  # "why leave out the 5090", "5070 Ti 为什么被刷掉了": a card the picks do not have
    if "why" in q.cues and not stated:
        return "why"
    if "why" in q.cues and not (n.budget or q.gpus or q.ordinals or pronoun or n.model_size_b) and \
            replace(n, workloads=tuple(w for w in n.workloads if w not in ("general", "learning")), vendor=None,
                    region=None).is_empty():
        return "question"  # "为什么深度学习都推荐N卡": why people choose something, not a request for picks
    if ("compare" in q.cues and (len(q.gpus) >= 2 or len(q.ordinals) >= 2 or _on_screen(s))) or \
            (len(q.ordinals) >= 2 and _on_screen(s)):
        return "compare"
    if "rent" in q.cues:
        return "rent"
    if "buy_where" in q.cues:
        return "where_to_buy"
    if "power" in q.cues and not n.max_power_w:
        return "power"
    if (q.gpus or pronoun) and "what_fits" in q.cues and not (n.model_size_b or n.model or n.budget):
        return "fit"  # "what can two 3090s run?", "它能跑什么模型"
    if (q.gpus or pronoun) and (n.model_size_b or (pronoun and (n.precision_bits or n.workloads) and not n.budget)):
        return "fit"  # "can it run it in 4-bit?", "is it good for LLMs too?"
    if (pronoun or (q.ordinals and s.last_picks)) and ("memory_question" in q.cues or "more_info" in q.cues) \
            and not n.model_size_b:
        return "gpu_info"
    if n.model_size_b and "memory_question" in q.cues and not n.budget:
        return "memory"
    if len(q.gpus) == 1 and not n.budget and not q.direction and not n.gpu_count and "pick_request" not in q.cues:
        return "gpu_info"  # "二手3090值得买吗", "is a used 3090 still worth it for deep learning?"
    if stated or q.direction:
        return "refine" if (s.last_picks or not s.need.is_empty()) and not (n.budget and n.workloads) else "recommend"
    if "pick_request" in q.cues and not q.gpus:
        return "recommend"
    if len(q.gpus) >= 2:
        return "compare"
    if q.gpus or (q.ordinals and s.last_picks):
        return "gpu_info"
    return "question"


class Conversation:
    """Turns of one chat. `turn(text)` never raises: anything unexpected becomes a polite error reply."""

    def __init__(self, engine: Engine, session: Session | None = None):
        self.engine = engine
        self.session = session or Session()

    def turn(self, text: str) -> Reply:
        try:
            return self._in_users_script(text, self._turn(text))
        except Exception:  # the user sees a message, the log sees the traceback
            log.exception("turn failed")
            lang = self.session.lang or "en"
            return Reply("unknown", lang, paragraphs=(Text(
                "Sorry, something went wrong while answering that. Please try again or rephrase it.",
                "抱歉，回答时出了点问题。请再试一次，或换个说法。").get(lang),))

    def _in_users_script(self, text: str, reply: Reply) -> Reply:
        """Traditional in, Traditional out (Taiwan or Hong Kong wording); Simplified in, Simplified out; remembered
        for the chat, and fixed once chosen with /lang. Replies are built in Simplified and converted last."""
        s = self.session
        asked = context.script_request(normalise(text)) if isinstance(text, str) and len(text.strip()) <= SHORT else None
        if asked is not None:  # "用繁體中文回答", "/lang zh-Hant": fixed for the chat
            s.script, s.script_locked = (None if asked == "zh-cn" else asked), True
            s.lang = s.lang_locked = "zh"
            reply = replace(reply, lang="zh") if reply.lang == "zh" else reply
        elif not s.script_locked and isinstance(text, str):
            script = chinese_script(text)
            if script is not None:
                s.script = None if script == "zh-cn" else script
        if reply.lang != "zh" or not s.script:
            return reply
        return _reply_in_script(reply, s.script)

    def understand(self, text: str) -> Turn:
        """Slots, act and referred cards of one message, without answering it (the bench measures this)."""
        s = self.session
        q = parse(text, self.engine.catalog, self.engine.today)
        has_letters = any(c.isalpha() for c in text)
        lang = q.lang_request  # the language's name ends what it asks ("…, answer in English"): any length
        mixed = any("\u4e00" <= c <= "\u9fff" for c in text) and any(c.isascii() and c.isalpha() for c in text)
        # "more vram 呢" in a Chinese chat: a message in both scripts keeps the chat's language
        # a message in both scripts keeps the chat's language ("more vram 呢"), unless it is a Chinese sentence with a
        # word or two of English in it ("如果租的话呢，AutoDL上哪个划算", "那CPU要多少核"): that is Chinese
        cjk, latin = len(CJK.findall(text)), len(re.findall(r"[A-Za-z]+", text))
        chinese = mixed and cjk >= 4 and cjk >= 2 * latin
        lang = lang or s.lang_locked or ("zh" if chinese else
                                         q.lang if has_letters and not (mixed and s.lang) else (s.lang or q.lang))
        guess = None
        model = self.engine.acts if q.delexicalised else None
        if model is not None:
            guess = model.predict(acts.model_input(q), lambda: self.engine.sentence_vector(text))
        act, strength = rule_act_and_strength(q, s)
        needed = {"command": NEVER, "cue": MIN_GUESS_OVER_CUE,
                  "default": MIN_GUESS_OVER_DEFAULT if act == "question" else MIN_ACT_CONFIDENCE}[strength]
        if guess and guess.act == "out_of_scope" and "offtopic" in q.cues and not _states_a_need(q, 1.0) and \
                strength != "command":
            needed = min(needed, MIN_GUESS_OVER_DEFAULT)  # words of another topic back the guess
        elif guess and guess.act == "out_of_scope":
            needed = max(needed, MIN_REFUSAL_CONFIDENCE)
        # "ok, and 8000?": small talk states nothing, so a message that does is not small talk, however sure the guess
        content = guess is not None and guess.act in _SMALL_TALK_ACTS and _any_content(q)
        if guess is not None and guess.act in _SMALL_TALK_ACTS and strength == "default" and not q.cues & _SMALL_CUES:
            needed = max(needed, SURE_SMALL_TALK)  # "梅西拿过几次金球奖": a weak "help" guess is no reason to answer with help
        if guess and guess.read_the_sentence and strength == "cue":
            needed = NEVER  # a word naming the act ("psu", "rent", "it" with a job) over n-grams that were unsure
        if guess and guess.act == "question" and act == "refine" and strength == "default" and s.last_picks and \
                not q.need.is_empty():
            needed = max(needed, MIN_GUESS_OVER_STATED_CHANGE)  # "返嚟講張卡 二手得唔得": a change to the picks on screen
        if guess and guess.act == "power" and not q.cues & {"power", "cooling", "quiet"} and strength == "default":
            needed = max(needed, SURE_SMALL_TALK)  # "what about two 3090s?": no word of power, heat or noise in it
        if guess and ((guess.act == "rent" and "rent" not in q.cues and s.follow_up != "rent" and
                       not (q.need.usage and q.need.usage.per == "total")) or  # "20 hours of A100 time" is rented
                      (guess.act == "language" and not q.lang_request)):
            needed = NEVER  # asked in words: renting (rent, hourly, cloud, a platform; "cheapest card for 70B" buys),
            # a language ("in English please"; "怎样才能提高英语口语" is not one)
        if guess and guess.confidence >= needed and not content:
            # "hi", "start over", "help", "in English" (a short message with only that word) are never overruled
            if guess.act != "out_of_scope" or not (_states_a_need(q, guess.confidence, bool(s.last_picks)) or
                                                   ((q.gpus or q.need.budget) and _ml_evidence(q)) or
                                                   # "3090 for gaming and pytorch", "a laptop for school that can also
                                                   # run pytorch, budget 1500"
                                                   q.unknown_products or  # "jetson thor for robotics": hardware
                                                   _about_the_focus(q, s) or  # "how much should I pay for it?"
                                                   _times_the_job(q, s) or  # "how long would one clip take on that"
                                                   _follows_the_topic(q, s) or  # "how many hours do they give"
                                                   _chooses_among_the_shown(q, s)):  # "which is best per dollar"
                act = guess.act  # an out-of-scope guess never refuses a message that states a GPU need
        if guess is not None and guess.act == "out_of_scope" and act not in COMMANDS and \
                (_about_something_else(q) or _a_sentence_about_a_place(q, s)) and not _times_the_job(q, s) \
                and not _about_the_focus(q, s) and not _follows_the_topic(q, s) and not _chooses_among_the_shown(q, s):
            act = "out_of_scope"  # "best running shoes under $100", "推荐几部好看的美剧": nothing of GPUs or ML in it
        if guess is not None and guess.act == "out_of_scope" and guess.confidence >= SURE_OUT_OF_SCOPE and \
                (strength != "command" or len(text.strip()) > SHORT) and not _strong_evidence_of_ours(q) and \
                not _times_the_job(q, s):
            act = "out_of_scope"  # "black friday deals on gaming gpus under 600", "my car makes a squeaking noise"
        need = self._need_in_context(q, lang)
        referred = self._referred(q, act)
        act = self._act_in_context(q, need, act, referred)
        act = _off_topic_gate(q, act, guess, _about_the_focus(q, s))
        if act in ("recommend", "refine", "memory") and _asks_what_a_term_means(q):
            act = "question"  # "whats FP8 and do i need a card that supports it": the term explained, no budget asked
        if act in ("refine", "recommend") and q.cues & {"budget_up", "budget_down"} and q.need.is_empty() and \
                s.need.budget is None and not q.gpus and q.bare_number is None and not q.cues - {
                    "budget_up", "budget_down", "domain", "dl", "now"} and (guess is None or guess.confidence < 0.6):
            act = "question"  # "怎样才能提高英语口语": 'raise' moves a budget only when there is one
        if act in ("why", "question") and len(q.ordinals) >= 2 and _says(q.text, "which_of_them") and \
                len(self._referred(q, "compare")) >= 2:
            act = "compare"  # "这两个哪个更值" after two cards were asked about one by one: which of those two
        if act in ("recommend", "refine") and s.last_act == "rent" and q.need.price_currency and \
                replace(q.need, price_currency=None).is_empty() and not q.gpus and len(text.strip()) <= SHORT:
            act = "rent"  # "and in RMB?" after rental prices: the same rentals, in that money
        if "on_cpu" in q.cues and act in ("recommend", "refine", "fit", "memory") and not q.gpus and \
                not q.need.budget and "pick_request" not in q.cues:
            act = "question"  # "用 CPU 跑 7B llm 会有多慢啊，我没显卡": the guide on CPUs (llama.cpp, memory bandwidth)
        if act == "power" and s.last_picks and (q.direction == "less_power" or q.need.psu_w or q.need.max_power_w) and \
                _says(q.text, "options_asked") and (q.need.psu_w or not _says(q.text, "psu_asked")):
            act = "refine"  # "any lower power options? it gets hot in my room", "my psu is only 650w, pick something"
        if act in ("question", "refine") and s.last_act == "rent" and len(text.strip()) <= SHORT and \
                has_any(normalise(text), words("slots", "rent_or_buy_shape", "buy")) and not _rent_or_buy_asked(q) and \
                "rent" not in q.cues and not q.gpus:
            act = "recommend"  # "那自己买呢", "咁自己買呢？", "what if I buy one instead" after renting: the job, bought
        if act in ("rent", "question") and _rent_or_buy_asked(q):
            # whether to rent at all is a question; where, or what an hour costs, is renting ("rent or buy for 3 months?"
            # against "renting vs buying — what would renting that card cost me per hour")
            act = "rent" if _says(q.text, "asks_where") or "price" in q.cues else "question"
        return Turn(q, act, guess, lang, tuple(self._referred(q, act)), need)

    def _relative_budget(self, q: Query, need: Need) -> Need:
        """"再加一千呢", "$500 more", "少两千": the amount moves the budget on the table, it is not a new budget."""
        old = self.session.need.budget
        if old is None or need.budget is None or _says(q.text, "budget_to"):
            return need
        up, down = "budget_up" in q.cues, "budget_down" in q.cues
        if up == down or need.budget.amount >= old.amount and not up:
            return need
        delta = need.budget.amount if need.budget.currency == old.currency else self.engine.catalog.fx.convert(
            need.budget.amount, need.budget.currency, old.currency, self.engine.today or date.today())
        amount = old.amount + delta if up else old.amount - delta
        return replace(need, budget=Budget(round(amount, 2), old.currency)) if amount > 0 else need

    def _another_card_same_question(self, q: Query) -> bool:
        """"那5090呢", "what about H100?", "and the 3090?" right after an answer about one card (is it worth it, can it
        run the model, its power, where to buy or rent it): the same question, of the card named now."""
        s = self.session
        return s.last_rule in _CARD_RULES and len(q.gpus) == 1 and q.gpus[0] != s.focus and q.need.is_empty() and \
            not q.ordinals and not q.direction and not (q.cues - {"domain", "dl", "pronoun"}) and \
            len(q.text.strip()) <= 24 and not _says(q.text, "rent_or_buy")  # "同買一張4090比邊個抵": another question

    def _act_in_context(self, q: Query, need: Need, act: str, referred: list[str]) -> str:
        """What the act means in this conversation: a fit question without a card is a request for one, a memory
        question about a named card is about that card, a bare modifier after a fit or memory answer continues
        it, and a need message starts or refines a recommendation."""
        s = self.session
        if act in ("refine", "recommend", "question") and "what_fits" in q.cues and s.focus and not q.gpus and \
                not q.ordinals and not (need.budget or need.model_size_b or need.model or q.direction) and \
                "pick_request" not in q.cues:
            return "fit"  # "能跑多大的模型" after what the user's card runs, or after picks: the card in focus
        if act in ("why_not", "why") and q.need.finetune_method and not (q.gpus or q.ordinals or need.budget) and \
                s.focus and s.last_act in ("fit", "memory"):
            return "fit"  # "why not QLoRA" after "will a 3080 work": that method on the card, not why not the card
        if act in ("why_not", "why") and q.need.finetune_method and not (q.gpus or q.ordinals or need.budget):
            return "question"  # "为什么不用QLoRA" elsewhere: the guide on the method, not the card on the table
        if act in ("question", "memory", "fit") and len(q.gpus) == 1 and (q.need.gpu_count or 0) >= 2 and \
                _says(q.text, "memory_pooled") and not (need.model_size_b or need.model or need.budget):
            return "gpu_info"  # "能用两张3060凑24g吗": that setup's sheet, which says when the memory adds up
        if act in ("refine", "recommend", "question", "memory") and q.need.system_ram_gb and s.last_act == "fit" and \
                s.focus and not (q.gpus or q.ordinals or need.budget or "pick_request" in q.cues):
            return "fit"  # "what about with 64GB RAM offload?" after a fit: the same job, the offload checked against it
        if act == "gpu_info" and len(q.gpus) == 1 and "software" in q.cues and _asks(q.text) and \
                not (need.budget or q.ordinals or context.specs_asked(normalise(q.text))) and \
                (_says(q.text, "run_words") or _says(q.text, "works_on_it")):
            return "fit"  # "6800xt pytorch ok?", "A770能跑pytorch训练吗": whether the framework runs on that card
        if act in ("gpu_info", "refine", "recommend", "question", "where_to_buy", "why_not") and _offers_instead(q, s):
            return "compare"  # "那还不如买新的5070ti？" after a used 3090's price: the two weighed
        if "alternative" in q.cues and len(q.gpus) == 1 and act in ("gpu_info", "question", "compare") and \
                not q.ordinals:
            return "recommend"  # "4090平替 24g": cards that stand in for it
        if act in ("recommend", "refine") and q.need.vendor and replace(q.need, vendor=None).is_empty() and \
                not (q.gpus or q.ordinals or q.direction or s.last_picks or need.budget) and \
                s.last_act in ("question", "compare", "gpu_info", "why", "why_not", "fit"):
            return "question"  # "Mac 呢", "what about intel?" after a talk about makers: the guide on that maker
        if (act in ("recommend", "refine") or act == "question" and len(q.text.strip()) <= SHORT_FOLLOW_UP and
                (s.need.workloads or s.last_picks)) and _says(q.text, "free_words") and \
                not (q.gpus or need.budget or q.direction):
            return "rent"  # "broke student, a GPU for a Kaggle comp, any free options?", "免费的有哪些" after picks:
            # the free quotas, not cards to buy
        if act in ("gpu_info", "question", "where_to_buy") and len(q.gpus) == 1 and {"compare", "pronoun"} <= q.cues \
                and s.focus and s.focus != q.gpus[0] and not q.ordinals:
            return "compare"  # "is it worth it over a used 4090?" after the 5090: the card on the table against that one
        if act in ("why", "why_not") and not s.last_picks and not (need.budget or q.ordinals):
            if len(q.gpus) == 1 and "worth" in q.cues:
                return "gpu_info"  # "为啥大家都说别买4060", "4060为什么不适合深度学习": the verdict on that card
            if len(q.gpus) >= 2:
                return "compare"  # "why not just buy a 4090 instead of 5090 for training": the two weighed
        if act not in ("reset", "language") and _chooses_among_the_shown(q, s):
            # "which would you pick", "你會揀邊張" after a comparison: its verdict (not the guide's "why", not help);
            # after picks: the top pick and why
            return "question" if s.last_act == "compare" else "why"
        if act in ("rent", "refine", "recommend") and (s.last_topic or "").startswith("platform:") and \
                _follows_the_topic(q, s) and not q.direction:
            return "question"  # "那pro呢", "国内能用吗" after Colab's free tier: that platform again, not a price list
        if act == "question" and len(q.gpus) == 1 and not (q.need.model_size_b or q.need.model or q.need.budget or
                                                            q.need.workloads or q.ordinals or q.need.gpu_count) and \
                (context.specs_asked(normalise(q.text)) or (self._features_in(q.text) and (
                    _says(q.text, "has_feature") or not _says(q.text, "how_cards_connect")))):
            return "gpu_info"  # "memory bandwidth of the h100 pcie?", "A6000有NVLink嗎": a fact about that card
        if act == "recommend" and len(q.gpus) == 1 and not (q.need.budget or q.direction or q.need.gpu_count or
                                                            q.need.owned_gpus) and "pick_request" not in q.cues \
                and _asks(q.text) and not s.last_picks:
            return "gpu_info"  # "Ryzen AI Max+ 395 128GB for local LLMs — good idea?": about that machine
        if s.last_act == "compare" and len(s.compared) >= 2 and "quiet" in q.cues and not (q.gpus or q.ordinals) and \
                replace(q.need, quiet=None).is_empty() and act not in COMMANDS:
            return "power"  # "噪音呢 放在卧室" after a comparison: which of them runs cooler, and how to quiet it
        if act == "compare" and len(q.gpus) == 1 and not q.ordinals and not (s.focus and s.focus != q.gpus[0]):
            g = self.engine.catalog.get(q.gpus[0])
            if g is not None and g.unified_memory and _says(q.text, "not_a_mac"):
                return "gpu_info"  # "Mac Studio 192GB for big LLMs, worth it vs nvidia?": what the machine runs
        if len(q.gpus) >= 2 and (act in ("recommend", "refine") or act == "where_to_buy" and not _says(q.text, "asks_where")) \
                and _says(q.text, "choice_between") and not q.need.gpu_count:
            return "compare"  # "預算三千五，5060ti 16g 定係二手3090": a choice between the cards named, in that budget
        if q.need.price_currency and s.last_picks and act not in COMMANDS and not q.gpus and \
                replace(q.need, price_currency=None, region=None).is_empty():
            return "refine"  # "same but in euros", "换成人民币价格": the picks again, priced in that currency
        if _says(q.text, "than_mine") and s.need.owned_gpus and act not in COMMANDS and not q.need.budget:
            return "compare"  # "how much faster is it than my card?": the card meant against the one the user has
        if "duration" in q.cues and s.focus and s.need.model_size_b and (
                s.need.finetune_method or "llm_finetune" in s.need.workloads) and act not in COMMANDS and \
                not (q.gpus or q.need.budget):
            return "fit"  # "how long would 10k samples take?" after a fine-tuning fit: its training speed
        if len(q.gpus) == 1 and q.need.gpu_count and (s.need.model_size_b or s.need.model) and not q.need.budget \
                and s.last_act in ("compare", "fit", "memory") and act in ("refine", "recommend", "gpu_info", "compare") \
                and replace(q.need, gpu_count=None).is_empty():
            return "fit"  # "两张 5090 呢" with a 70B model on the table: can that setup run it
        if q.gpus and "speed" in q.cues and (s.need.model_size_b or s.need.model) and not q.need.budget and \
                (act in ("power", "gpu_info", "refine", "recommend") or act == "compare" and len(q.gpus) == 1) and \
                "power" not in q.cues:
            return "fit"  # "ok and two 3090s, how fast" with a 70B model on the table
        if act not in COMMANDS and act != "out_of_scope" and self._another_card_same_question(q):
            return s.last_act or act
        if q.need.usage and s.last_rule in _RENT_BUY_RULES and act not in COMMANDS and \
                not (q.gpus or q.need.budget or q.need.workloads or "pick_request" in q.cues):
            return "rent"  # "what if it's 40 hours a week?", "那一天用10小时呢" after a rent-or-buy answer: the same sum
        if act == "greeting" and "duration" in q.cues and (s.need.model_size_b or s.need.model or s.last_picks):
            return "question"  # "ok and how long would that take roughly" after a job: its time, not a hello
        if act == "question" and "worth" in q.cues and not q.gpus and not q.need.budget and \
                not _says(q.text, "enough_question") and not _says(q.text, "free_words") and \
                answers.platforms_named(self.engine, q.text):  # ("Colab 免费版够用吗": the guide on free tiers)
            return "rent"  # "is colab pro worth it for a student": the platform's prices and quota, not a guide passage
        if q.need.usage and q.need.usage.per == "total" and s.follow_up == "rent" and act not in COMMANDS and \
                not (q.gpus or q.need.budget or "pick_request" in q.cues):
            return "rent"  # "how much would 3 days cost" after a rental list: those hours, priced on it
        if q.need.budget and "duration" in q.cues and s.follow_up == "rent" and act not in COMMANDS and \
                not (q.need.workloads or q.need.model_size_b or "pick_request" in q.cues):
            return "rent"  # "I have $200, how many hours is that", "那500块能租多久" after a rental list: hours it rents
        if s.focus and (s.need.model_size_b or s.need.model) and _says(q.text, "enough_question") and \
                len(q.text.strip()) <= 24 and not (q.gpus or need.budget or q.direction or q.need.psu_w):
            return "fit"  # "够吗", "is that enough?" after a fit or a pick: the card and the model on the table
        rest = q.need.stated().keys() - {"region"}
        if need.region and s.last_picks and not (rest or q.gpus or q.ordinals or q.direction) and \
                _says(q.text, "price_or_buy") and len(q.text.strip()) <= 40 and act not in ("rent", "where_to_buy"):
            return "refine"  # "in china how much is that", "what about buying one in HK": the picks, priced there
        if s.follow_up == "rent" and _says(q.text, "rent_time") and act not in COMMANDS and \
                not (q.gpus or q.need.workloads or q.need.budget or q.need.model_size_b):
            return "rent"  # "how much per month roughly" after a rental answer
        if _asks_how_many(q) and act != "rent" and len(q.gpus) <= 1 and not need.budget and (q.gpus or s.focus) and \
                (need.model_size_b or s.need.model_size_b):
            return "fit"  # "需要几张", "how many H100s would I need" with a model on the table: that card, counted
        if act in ("fit", "memory", "question", "recommend") and not referred and (need.model_size_b or need.model) \
                and q.memory_gb and not need.budget and "pick_request" not in q.cues and not q.gpus:
            return "fit"  # "Qwen3-30B-A3B on an 8GB card?", "14B 在 16G 卡上能跑吗": the rule fit-on-memory
        if (len(q.quant_formats) >= 2 or (q.quant_formats and "quality" in q.cues)) and len(q.gpus) <= 1 and \
                not need.budget and "memory_question" not in q.cues and not (q.gpus and need.model_size_b) and \
                not (act == "refine" and _says(q.text, "turned_down")):  # "其实不用fp16，8bit就够了": a change
            return "question"  # "is Q4_K_M much worse than Q8?", "Q4_K_M vs AWQ on a 4090?": the quantisation section
        if act == "question" and need.model and "memory_question" in q.cues and not referred and not need.budget:
            return "memory"  # "flux.1 dev fp16 需要多大显存": the model table answers, not the guide
        if s.last_rule == "what-fits" and (q.cues & {"add_card", "what_fits"} or need.gpu_count) and \
                not (need.model_size_b or need.model or need.budget) and set(q.gpus) <= {s.focus}:
            return "fit"  # "加一张3060呢", "and with two of them?" after "what can my 3060 run": the same, counted
        if need.context_tokens and s.focus and (s.need.model_size_b or s.need.model) and not (q.gpus or need.budget
                                                                                             or need.model_size_b):
            return "fit"  # "那个显存够不够长上下文", "will it handle 32k context?": the card and model on the table
        if s.focus and s.last_picks and s.last_act in ("recommend", "refine") and not (
                q.gpus or q.ordinals or q.need.budget or q.need.model_size_b or q.need.model) and (
                "what_fits" in q.cues or "speed" in q.cues and "llm_inference" in s.need.workloads and
                not (s.need.model_size_b or s.need.model)):
            return "fit"  # "能跑多大的模型", "速度大概多少" after picks for local LLMs: what the top pick runs, how fast
        if s.last_act in ("fit", "recommend", "refine", "compare") and \
                ("speed" in q.cues or "duration" in q.cues and s.last_act == "fit") and not q.gpus and \
                not q.need.budget and not q.need.model_size_b and not q.need.model and s.focus and \
                (s.need.model_size_b or s.need.model or s.last_act == "fit" and s.need.workloads):
            return "fit"  # "how fast?", "速度多少", "慢不慢" after a fit or a pick: the setup on the table, its speed
        if s.last_act in ("fit", "gpu_info") and s.focus and not s.last_picks and \
                act in ("refine", "recommend", "question") and \
                (q.need.workloads or q.need.model_size_b or q.need.model) and not (q.gpus or q.ordinals or
                                                                             q.need.budget) and \
                "pick_request" not in q.cues and len(q.text.strip()) <= SHORT:
            return "fit"  # "那跑SD呢", "and for training CNNs?" after "is my 4060 laptop enough?": the same card, that job
        if (q.need.gpu_count or 0) >= 2 and not q.gpus and s.focus and s.last_act in ("fit", "gpu_info") and \
                act in ("refine", "recommend", "question", "compare") and len(q.text.strip()) <= SHORT and \
                not replace(q.need, gpu_count=None, used=None).stated():
            return "fit"  # "兩張會唔會好啲", "would two of them be better?" after a card's answer: that many of it
        if "serving" in q.cues and s.last_picks and act in ("question", "refine", "recommend") and not q.gpus and \
                not q.need.budget and s.need.workload in LLM_WORKLOADS:
            return "refine"  # "要是用vLLM并发服务几个人呢" after picks for an LLM: the picks again, for serving
        if s.follow_up == "rent" and q.gpus and act in ("refine", "recommend", "gpu_info") and \
                len(q.text.strip()) <= SHORT and not (q.need.budget or q.need.workloads or q.need.model_size_b or
                                                      q.cues & {"pick_request", "compare"}):
            return "rent"  # "what about H100 instead" after a rental answer: renting that card
        rent_words = (q.need.gpu_count or q.need.region or _says(q.text, "abroad") or _says(q.text, "rent_time")) \
            and not (q.need.workloads or q.need.model_size_b)
        if s.follow_up == "rent" and (act in ("refine", "recommend", "question") or
                                      (act == "out_of_scope" and rent_words)) and \
                not (q.gpus or q.ordinals or q.need.budget or "pick_request" in q.cues) and \
                (((q.direction or _says(q.text, "platform_follow_up")) and not (q.need.workloads or q.need.model_size_b))
                 or q.direction == "cheaper" or _says(q.text, "which_of_them") or rent_words):
            # "what about paid options?", "cheaper?", "还有别的吗", "which one is cheapest for fine-tuning a 70B?",
            # "那8张呢", "and in China?", "国外呢", "for 3 months?" after a platform answer
            return "rent"
        if act in ("recommend", "refine", "where_to_buy", "gpu_info") and len(q.gpus) >= 2 and not need.model_size_b \
                and _says(q.text, "choice_between") and "buy_where" not in q.cues:
            return "compare"  # "预算两万做微调，4090还是5090D": two cards offered as the choice are weighed, not re-listed
        if act in ("compare", "gpu_info", "recommend", "refine", "fit") and not q.need.budget and (
                (len(q.gpus) >= 2 and act != "fit" and _says(q.text, "mixing_cards")) or
                (len(q.gpus) <= 1 and not q.need.workloads and _says(q.text, "mixing_different"))):
            return "question"  # "can I mix a 3090 and a 4090 in one machine?", "我有一张3060，mix不同型号的gpu可以吗":
            # running them together, not which to buy
        if act in ("compare", "gpu_info", "fit", "memory") and not need.budget and \
                _says(q.text, "how_cards_connect") and not (len(q.gpus) == 1 and not q.need.gpu_count and
                                                            _says(q.text, "has_feature")) and \
                not (len(q.gpus) == 1 and (q.need.model_size_b or q.need.model)) and \
                not (len(q.gpus) >= 2 and "compare" in q.cues and (q.need.model_size_b or q.need.model)):
            # a setup and a model: the fit ("a pair of 3090s with nvlink vs one 4090 for fine tuning 13b": the setups)
            # leads, the guide's word on the link follows ("两张4090能跑70b吗 要nvlink吗")
            # (but "does the 3090 have nvlink" asks the card's sheet)
            return "question"  # "does NVLink matter for 2x 3090 fine-tuning", "PCIe x8 够不够": the guide's answer
        if act == "compare" and not (q.gpus or q.ordinals or "pronoun" in q.cues) and _names_other_things(q.text):
            return "question"  # "lora vs qlora?", "spot vs on-demand", "A卡和N卡哪个好": the guide compares them
        if act in ("gpu_info", "recommend", "refine", "fit") and not q.need.budget and _asks_about_another_part(q.text) \
                and not (q.need.model_size_b or q.need.model or q.direction):  # "温度低一点的 我机箱散热不好": the card
            return "question"  # "4090配什么主板", "多卡训练要买什么主板": another part, which the guide may not cover
        oom = _says(q.text, "ran_out_of_memory")  # ("CUDA out of memory when fine-tuning": the job is only context)
        if act in ("recommend", "refine", "memory") and (_says(q.text, "what_to_do") or oom) and not (
                q.gpus or need.budget or need.model_size_b or need.model or (need.workloads and not oom)):
            return "question"  # "显存不够怎么办", "how do I fix running out of memory": the guide's advice
        if act == "rent" and _says(q.text, "rent_judgement"):
            return "question"  # "rent or buy?", "租卡平台数据安全吗": the guide's judgement, not a price table
        if q.direction and s.last_picks and s.last_act != "rent" and act in ("gpu_info", "fit") \
                and not (q.gpus or q.ordinals or q.need.model_size_b or q.need.model or q.memory_gb):
            return "refine"  # "sorry, back to it - can I get more memory for the same money?": the picks, moved
        if act == "where_to_buy" and len(q.gpus) == 1 and (q.need.budget or q.bare_number) and \
                _offered_price(self.engine.catalog, q.text):
            return "gpu_info"  # "闲鱼 3090 卖3500 靠谱吗": the price asked about, not where to buy
        if act == "fit" and not referred:
            act = "recommend"  # "I want to run Llama 3 70B at home": what to buy for it
        if act in ("power", "fit", "memory", "gpu_info", "refine", "recommend") and _asks_about_power_limiting(q.text) \
                and not (need.budget or need.workloads or need.model_size_b) and \
                (_says(q.text, "power_limit", "cost") or act not in ("recommend", "refine") or
                 ("pick_request" not in q.cues and (s.last_picks or s.focus))):
            # "功耗限制到300W会慢多少", "and the power limit thing, can I cap them at 250W each": a power question the
            # guide's advice on power limiting answers (rule power-limit), not picks under that many watts
            return "power"
        if act == "memory" and referred and not need.model_size_b:
            act = "gpu_info"  # "how much memory does it have?"
        if act == "where_to_buy" and "what_fits" in q.cues and q.gpus and not need.budget:
            return "fit"  # "got 2 p40s off ebay, what llms can i run on them": what the cards run
        if act in ("where_to_buy", "gpu_info") and "cooling" in q.cues and q.gpus and not need.budget:
            return "power"  # "bought a p40 off ebay, how do I keep it cool": its power and cooling, not shops
        if act == "power" and need.psu_w and (need.budget or need.workloads or "pick_request" in q.cues):
            act = "recommend"  # "I have a 650 W PSU and $1000 for CV": a need with a power limit
        if act in ("recommend", "refine") and len(q.gpus) == 1 and _says(q.text, "psu_asked") and not (
                q.need.budget or q.need.model_size_b or q.need.model or "pick_request" in q.cues):
            return "power"  # "whats a good psu for a 4090 ml rig? 850w enough?": that card's PSU, not picks
        if s.last_act == "power" and act in ("recommend", "refine", "gpu_info") and q.gpus and not (
                q.need.budget or q.need.workloads or q.need.model_size_b or q.cues & {"pick_request", "more_info"}):
            return "power"  # "那换成两张4090呢" after "两张3090要多大的电源": the same question of other cards
        if q.need.psu_w and act in ("fit", "memory", "question") and _asks(q.text) and (s.last_picks or s.focus or
                                                                                     q.gpus) and not (
                q.need.budget or q.need.workloads or q.need.model_size_b or q.need.model or "pick_request" in q.cues):
            return "power"  # "我個火牛係650W 夠唔夠", "is my 650w psu enough?": that PSU for the card(s) on the table
        if s.last_act == "power" and s.focus and q.need.psu_w and act in ("power", "recommend", "refine") and not (
                q.gpus or q.ordinals or need.budget or need.workloads or "pick_request" in q.cues):
            return "power"  # "我电源只有750w 不想换" after "3090要多大电源": is that PSU enough for it
        if act == "power" and (need.psu_w or s.need.psu_w) and not (q.gpus or q.ordinals) and \
                _says(q.text, "best_that_works"):
            return "recommend"  # "ok what's the best that works with my current psu then": cards that PSU runs
        if act == "power" and s.last_picks and (q.need.psu_w or q.need.max_power_w or
                                               (q.direction == "less_power" and "quiet" not in q.cues)) \
                and not (q.gpus or q.ordinals) and not _asks(q.text):
            # "我电源只有650W", "功耗别超过300W", "keep it under 200 watts", "lower power please, my breaker trips":
            # the picks again
            return "refine"
        if "add_card" in q.cues and (need.owned_gpus or (s.focus and q.gpus and q.gpus[0] != s.focus)) and \
                (need.model_size_b or s.need.model_size_b):
            # a card joins the one(s) on the table; "i have a 3090. if i add a second one can i run 70b?" asks of two
            return "recommend" if need.owned_gpus and ("pick_request" in q.cues or not _asks(q.text)) else "fit"
        if "add_card" in q.cues and s.last_act == "fit" and s.focus and set(q.gpus) <= {s.focus} and \
                not (need.budget or q.ordinals) and act not in COMMANDS:
            return "fit"  # "再加一张4070有用吗" after a fit answer about the 4070: two of it, the same question
        if "price" in q.cues and "rent" not in q.cues and not q.gpus and s.focus and not need.budget and \
                (len(q.text) <= 30 or "pronoun" in q.cues):
            return "where_to_buy"  # "价格多少" about the card on the table (not "租卡一小时多少钱": a rental price)
        modifier_only = not need.budget and (set(need.workloads) <= set(LLM_WORKLOADS) or bool(need.model)) and bool(
            need.precision_bits or need.finetune_method or need.model_size_b or q.gpus or need.gpu_count or
            need.context_tokens or need.quant or need.kv_cache_bits or need.model or "finetune" in q.cues)
        # "4-bit 量化呢", "那4060 Ti 16G呢" after "can a 3060 run 14B?", "and flux dev?" after SDXL on a card; a short
        # question of the same kind too ("4bit量化的话能跑吗")
        asked_again = act in ("recommend", "refine") or (act == "question" and len(q.text.strip()) <= SHORT_FOLLOW_UP
                                                          and _asks(q.text))
        if asked_again and s.last_act in ("fit", "memory") and modifier_only and "pick_request" not in q.cues:
            return s.last_act
        if act in ("recommend", "refine"):
            act = self._new_or_refined(q, need, act)
        return act

    def _new_or_refined(self, q: Query, need: Need, act: str) -> str:
        """A need message starts a new recommendation or refines the one on screen: that is the conversation's
        state, not the classifier's call."""
        s = self.session
        if s.awaiting:
            return "refine"  # the answer to the question we asked
        if need.budget and (need.workloads or "pick_request" in q.cues) and \
                not (s.last_picks and need.workloads and set(need.workloads) == set(s.need.workloads)):
            return "recommend"  # a whole new need (the same job with another budget changes the picks on the table)
        if s.last_picks:
            return act  # picks on the table: the classifier tells a new request ("what gpu for video generation")
            # from a change to them ("what about 32b", "ok, for two cards")
        # none yet (after a fit, a comparison, a question): a message with a budget or asking for a card is the first
        # recommendation ("what should I replace it with, $700"), one that only changes the job is a refinement of
        # the need on the table ("what about with QLoRA", "便宜一點的呢")
        if not (need.budget or "pick_request" in q.cues or s.need.is_empty()):
            return "refine"
        return "recommend"

    def _need_in_context(self, q: Query, lang: str) -> Need:
        """The message's need, with a bare number read as a budget when it can only be one: the answer to our
        budget question, or a short follow-up ("5000呢？", "what about 1200?"), in the chat's currency."""
        s, need = self.session, q.need
        if need.region is None and q.market and s.need.region is None:
            need = replace(need, region=q.market)  # "NT$30000", Hong Kong Cantonese: that market, unless one was named
        # the chat's currency, else that of the place the user said they are in ("我在台灣" then "預算3萬")
        chat_currency = s.need.budget.currency if s.need.budget else context.local_currency(s.need.region)
        if need.budget is None and q.bare_number and not q.gpus and (
                s.awaiting == "budget" or len(q.text.strip()) <= 16 or not s.need.is_empty()):
            need = replace(need, budget=Budget(q.bare_number, chat_currency or ("CNY" if lang == "zh" else "USD")))
        elif need.budget and not q.currency_written and chat_currency and chat_currency != need.budget.currency and \
                not context.local_currency(q.need.region) and not money.too_small(need.budget.amount, chat_currency):
            need = replace(need, budget=replace(need.budget, currency=chat_currency))  # "what about 1500?" after €
        need = self._relative_budget(q, need)
        if "add_card" in q.cues and not (q.gpus or need.gpu_count or need.owned_gpus) and s.last_picks and \
                s.last_act in ("recommend", "refine") and (need.model_size_b or s.need.model_size_b):
            # "加一张呢", "add another one" after picks for a model: the setups one card larger
            have = s.pick_counts.get(s.last_picks[0], 1) if s.pick_counts else (s.need.gpu_count or 1)
            need = replace(need, gpu_count=have + 1)
        if need.budget and not q.currency_written and s.last_act == "fit" and len(q.text.strip()) <= 16 and \
                need.budget.amount in _CONTEXT_SIZES and not s.need.budget and "budget_words" not in q.cues and \
                re.search(r"\d\s*k(?![a-z])", q.text, re.IGNORECASE):  # ("预算4000" after a fit is money)
            # "and 128k?" after a fit answer: a context length, not $128,000
            need = replace(need, budget=None, context_tokens=int(need.budget.amount / 1000 * 1024))
        if need.workloads == ("llm_finetune",) and s.need.workload and \
                load_workloads(self.engine.knowledge_dir).get(s.need.workload, {}).get("fine_tuned_in_place") \
                and not (need.model_size_b or need.model or _says(q.text, "llm_words")):
            need = replace(need, workloads=())  # "and to fine-tune it?" after Whisper, "LoRA呢" after SD: the same job
        if not need.workloads and q.cues & {"finetune", "train_words"} and \
                set(s.need.workloads) & set(LLM_WORKLOADS):
            need = replace(need, workloads=("llm_finetune",))  # "what about for fine-tuning?" of the LLM at hand
        if need.workloads == ("inference",) and (set(s.need.workloads) & set(LLM_WORKLOADS) or s.need.model_size_b):
            need = replace(need, workloads=("llm_inference",))  # "如果改成跑推理呢" of the LLM at hand: serving it
        if need.workloads == ("llm_inference",) and s.need.workload == "llm_finetune" and need.model_size_b and \
                "inference_strong" not in q.cues and len(q.text.strip()) <= SHORT:
            need = replace(need, workloads=())  # "换成跑70B呢" while fine-tuning: the size changes, the job stays
        if need.workloads == ("cnn",) and set(s.need.workloads) & {"diffusion", "video"} and \
                _says(q.text, "image_data_words") and not _says(q.text, "vision_job_words"):
            need = replace(need, workloads=())  # "how long for like 30 images" while training a Flux LoRA: its data
        return need

    def _turn(self, text: str) -> Reply:
        s = self.session
        # the context a question asked before the one the rule answers is read in (a message of one clause has none)
        earlier = s.to_dict() if isinstance(text, str) and _CLAUSE_BREAK.search(text) else None
        raw = without_markup(text) if isinstance(text, str) else ""
        truncated = len(raw) > self.engine.max_input_chars
        raw = raw[: self.engine.max_input_chars]
        t = self.understand(raw)
        if t.q.lang_request and (t.act == "language" or t.short):
            s.lang_locked = t.q.lang_request
        s.lang = t.lang
        s.turns += 1
        job = t.need
        if t.act in ("fit", "gpu_info", "compare") and not job.workloads and not s.need.workloads and \
                "train_words" in t.q.cues:
            job = replace(job, workloads=("general",))  # "4090和5090哪个好 做训练": training, then "预算只有1万呢"
        if t.act in ("fit", "memory", "gpu_info", "compare") and not job.is_empty():
            # the job a user asks about is their context: "can a 3060 run 14B?" then "what should I buy?"
            s.need = s.need.merge(job)
        elif t.act in ("rent", "where_to_buy", "power"):
            # a job named in passing is context too: "训练一个7B模型LoRA要多久" then "还是买卡吧，预算两万" (not in a
            # question to the guide: "多卡训练 Transformer 划算吗" asks about a topic, not the user's own job)
            n = t.need
            job = Need(workloads=n.workloads, model_size_b=n.model_size_b, finetune_method=n.finetune_method,
                       model=n.model, precision_bits=n.precision_bits)
            if not job.is_empty() and job.workloads != ("general",):
                s.need = s.need.merge(job)
        if "now" in t.q.cues and t.act == "refine" and s.need.as_of:
            s.need = replace(s.need, as_of=None)  # "and today?"
        again = self._another_card_same_question(t.q) and t.act == s.last_act
        rule = next(r for r in POLICY if (r.name == s.last_rule if again else
                                          (not r.acts or t.act in r.acts) and r.when(self, t)))
        log.debug("turn %d: act=%s (%s) rule=%s", s.turns, t.act,
                  f"{t.guess.act} {t.guess.confidence:.2f}" if t.guess else "rules", rule.name)
        reply = rule.answer(self, t)
        whole = self._the_other_half(t, rule.name, reply)
        self._remember(t, whole)
        if whole is reply and earlier is not None:
            whole = self._the_other_questions(t, reply, earlier)
        reply = whole
        if rule.answer is not POLICY_RECOMMEND and self.session.awaiting and t.act not in ("greeting", "help"):
            self.session.awaiting = None  # the question we asked was passed over
        if t.q.unknown_products and rule.name != "unknown-card" and reply.intent != "out_of_scope":
            reply = replace(reply, paragraphs=(answers.unknown_products_note(t.q.unknown_products, t.lang),)
                            + reply.paragraphs)
        if truncated:
            note = Text(f"(Your message was longer than {self.engine.max_input_chars:,} characters; I read the "
                        "beginning.)", f"（消息超过 {self.engine.max_input_chars:,} 个字符，我只读了开头部分。）").get(t.lang)
            reply = replace(reply, footer=(note,) + reply.footer)
        if t.act in ("language", "greeting") and rule.name in ("language", "small-talk"):
            # "换成中文说", "thanks" say nothing of the cards: the comparison or picks on the table stay the context
            return replace(reply, query=self._query_json(t, rule.name))
        self.session.last_act = "compare" if reply.intent == "compare" else t.act  # a verdict shown is a comparison
        if reply.recommendations or reply.intent == "compare" or reply.focus:
            self.session.cards_act = self.session.last_act
        self.session.last_rule = rule.name
        return replace(reply, query=self._query_json(t, rule.name))

    def _the_other_half(self, t: Turn, rule: str, reply: Reply) -> Reply:
        """Two questions in one message: the half the rule did not answer, added. "Is a used 3090 still worth it, and
        what PSU?" (whether it is worth it, then its power), "对比3090和4080，顺便问下电源" (the power of each card
        compared), "4090能跑671B吗？不行的话租什么卡" (a no, then the rented cards that hold the job)."""
        s = self.session
        if reply.intent in ("out_of_scope", "unknown", "clarify", "help") or reply.recommendations:
            return reply
        if rule == "power" and t.cue("worth") and _says(t.text, "psu_asked") and len(t.referred) == 1 and \
                not t.q.need.model_size_b:  # (not "装进台式机能用吗，散热呢": cooling is the question, not the price)
            worth = self._worth(t)  # "worth it, and what PSU": the verdict first, the power after it
            return answers.joined(worth, reply) if worth.intent == "gpu" else reply
        cards = list(reply.chart_gpus[:2]) if reply.intent == "compare" else [reply.focus] if reply.focus else []
        if reply.intent == "compare" and len(reply.chart_gpus) >= 2 and _says(t.text, "electricity_cost"):
            # "is 2x used 3090 better than 1x 4090 for a 13B qlora? power bill matters to me too": the bills' gap after
            setups = list(zip(reply.chart_gpus, reply.chart_counts or (1,) * len(reply.chart_gpus), strict=False))
            bill = answers.running_cost_difference(self.engine, setups[:4], s.need.merge(t.q.need), t.lang,
                                                   self._rents_in_china(t))
            return answers.joined(reply, bill) if bill.intent == "power" else reply
        if reply.intent == "compare" and len(reply.chart_gpus) >= 2 and _says(t.text, "power_words") and \
                not _says(t.text, "psu_asked"):
            # "这两张哪张更省电", "which one uses less power?": the draw and the work per watt lead
            lead = answers.power_efficiency(self.engine, s.need, list(reply.chart_gpus),
                                            list(reply.chart_counts or (1, 1)), t.lang)
            return replace(reply, paragraphs=(lead,) + reply.paragraphs) if lead else reply
        if rule != "power" and cards and _says(t.text, "psu_asked") and self.engine.catalog.get(cards[0]) is not None:
            fitted = (reply.fit or {}).get("count")  # the setup the answer is about: "我有一张3090，想再加一张" is two
            count = t.q.need.gpu_count or fitted or 1
            powers = [answers.power(self.engine, n, fitted if fitted and len(cards) == 1 else
                                    t.q.card_counts.get(n, count), t.q.need.psu_w or s.need.psu_w, t.lang) for n in cards]
            return functools.reduce(answers.joined, powers, reply)
        if rule.startswith("fit") and t.cue("rent") and reply.fit and reply.fit.get("fits") is False:
            rented = answers.where_to_rent(self.engine, cards, t.lang, china=self._rents_in_china(t),
                                           need=s.need.merge(t.need), asked=False)
            return answers.joined(reply, rented) if rented.intent == "rent" else reply
        return self._a_second_question(t, reply)

    def _a_second_question(self, t: Turn, reply: Reply) -> Reply:
        """"Kaggle free GPU每周多少小时，T4 x2和P100选哪个", "什麼是 NVLink？兩張 4090 可以接嗎": a part of the message that
        is a question to the guide by itself, which the rule's answer left out, answered after it (its best paragraphs,
        when the guide is sure of it)."""
        if reply.intent not in ("gpu", "compare", "fit", "power", "rent", "where_to_buy", "memory"):
            return reply  # (a guide answer was searched with the whole message: its parts are in that search)
        clauses = [c.strip() for c in _CLAUSE_BREAK.split(t.q.text) if c and c.strip()]
        if len(clauses) < 2:
            return reply
        shown, context = set(reply.paragraphs), self.session.to_dict()
        for clause in clauses:
            if len(CJK.findall(clause)) < 4 and len(clause.split()) < 4:
                continue  # too little to be a question of its own ("好用吗", "and why")
            alone = Conversation(self.engine, Session.from_dict(context)).understand(clause)
            if alone.act != "question" or (reply.intent in ("fit", "memory") and "memory_question" in alone.q.cues):
                continue  # ("8G的3060ti能跑flux嗎，會不會直接爆顯存": whether it fits is what the fit answered)
            guide = answers.guide_on_a_part(self.engine, clause, t.lang)
            if guide is None or guide.paragraphs[0] in shown:
                continue
            return answers.joined(reply, replace(guide, paragraphs=guide.paragraphs[:2], table=None, bullets=()))
        return reply

    def _the_other_questions(self, t: Turn, reply: Reply, earlier: dict) -> Reply:
        """"4090 能跑 Qwen2.5 32B 吗？要是不行，租卡一小时多少钱", "3090和4090哪个好…另外租的话哪里便宜": a message of
        several questions of different kinds (whether it fits, what renting costs, which card, what PSU) is answered
        in full: each question the rule's reply did not answer is asked alone, in the context the reply leaves, and its
        answer is placed where the user asked it (at most two more). A question before the one answered is read in the
        context before this message; one after it, in the context the answer leaves ("4090要多大电源？它能跑70B吗")."""
        if reply.intent not in _ANSWER_OF_ACT.values() or reply.recommendations:
            return reply
        parts = _questions_in(t.q.text)
        if len(parts) < 2:
            return reply
        later, shown = self.session.to_dict(), set(reply.paragraphs)
        before, after, main_seen = [], [], False
        for clause, asked in parts:
            context = later if main_seen else earlier
            alone = Conversation(self.engine, Session.from_dict(context)).understand(clause)
            kind = _ANSWER_OF_ACT.get(alone.act)
            if kind == reply.intent:
                main_seen = True
                continue
            if kind not in _ADDED_TO.get(reply.intent, ()) or not (asked or kind == "compare") or \
                    len(before) + len(after) >= _MORE_QUESTIONS:
                # (a comparison asked for is a question: "5090和4090对比一下，顺便问问哪里能租到5090")
                continue
            if len(CJK.findall(clause)) < 4 and len(clause.split()) < 3 or \
                    not alone.q.cues - {"pronoun", "domain", "dl"} and alone.q.need.is_empty():
                continue  # too little to stand alone ("PSU?", "为什么"), or no word of what it asks ("…to rent for
                # training, an A100 or a 4090?": the cards the other part asks about): the rule read it with the rest
            other = Conversation(self.engine, Session.from_dict(context)).turn(clause)
            if other.intent != kind or other.recommendations or not other.paragraphs or \
                    other.paragraphs[0] in shown:
                continue
            shown.update(other.paragraphs)
            (after if main_seen else before).append(other)
        if not before and not after:
            return reply
        whole = functools.reduce(answers.joined, before + [reply] + after)
        return replace(whole, intent=reply.intent, focus=reply.focus, focus_count=reply.focus_count, fit=reply.fit,
                       chart_gpus=reply.chart_gpus, chart_counts=reply.chart_counts, topic=reply.topic,
                       follow_up=reply.follow_up, suggestions=reply.suggestions, footer=reply.footer)

    def _remember(self, t: Turn, reply: Reply) -> None:
        """What the reply showed becomes the context of the next turn."""
        s = self.session
        if reply.recommendations:
            picks = list(dict.fromkeys(r.gpu for r in reply.recommendations))
            if picks != s.last_picks and s.last_picks:
                s.earlier_picks = s.last_picks
            s.last_picks = picks
            s.pick_counts = {r.gpu: r.count for r in reply.recommendations if r.count > 1}
            s.discussed = []
            s.focus = s.last_picks[0]
            s.focus_count, s.focus_vram_gb = reply.recommendations[0].count, None
        elif reply.focus:
            if reply.focus != s.focus or reply.fit:
                s.focus_count = reply.fit.get("count") if reply.fit else None
                s.focus_vram_gb = reply.fit.get("stated_vram_gb") if reply.fit else None
            if reply.focus_count:
                s.focus_count = reply.focus_count  # "4卡4090的训练机" then "电源要多大": still four
            if not reply.fit and t.q.card_memory_gb and t.q.gpus[:1] == (reply.focus,):
                s.focus_vram_gb = t.q.card_memory_gb  # "I have an M3 Max with 64GB": what "it" has from now on
            s.focus = reply.focus
        elif len(t.q.gpus) == 1:
            s.focus = t.q.gpus[0]  # "thinking about a used 3090" answered with a question: "it" is still that card
        if reply.topic:
            s.last_topic = reply.topic
        s.follow_up = reply.follow_up if reply.intent in ("question", "rent") else None
        if reply.intent == "compare":
            s.compared = list(reply.chart_gpus[:4])
            s.compared_counts = {g: n for g, n in zip(reply.chart_gpus, reply.chart_counts, strict=False) if n > 1}
        elif reply.focus and not reply.recommendations and reply.focus not in s.discussed:
            s.discussed = (s.discussed + [reply.focus])[-4:]

    def _query_json(self, t: Turn, rule: str) -> dict:
        s = self.session
        n = s.need
        out = {"budget": asdict(n.budget) if n.budget else None,
               "max_price": asdict(n.max_price) if n.max_price else None,  # "cheaper?": under the last top pick
               "currency": n.budget.currency if n.budget else None,
               "workload": n.workload, "workloads": list(n.workloads), "model_size_b": n.model_size_b,
               "finetune_method": n.finetune_method, "precision_bits": n.precision_bits, "gpu_count": n.gpu_count,
               "used": n.used, "vendor": n.vendor, "as_of": n.as_of.isoformat() if n.as_of else None,
               "min_vram_gb": n.min_vram_gb, "max_power_w": n.max_power_w, "psu_w": n.psu_w, "region": n.region,
               "form_factor": n.form_factor, "model": n.model, "quant": n.quant, "context_tokens": n.context_tokens,
               "usage": asdict(n.usage) if n.usage else None,
               "usage_hours_month": round(n.usage.hours_per_month, 1) if n.usage and n.usage.hours_per_month else None,
               "lang": s.lang, "gpus": list(t.q.gpus), "cues": sorted(t.q.cues),
               "act": t.act, "rule": rule, "message_slots": t.q.slots()}
        if t.guess:
            out["act_confidence"] = round(t.guess.confidence, 3)
        return out

    def _referred(self, q: Query, act: str) -> list[str]:
        """Cards meant: named in the text, by position in the last list ('the first two', '#2'), or by a pronoun."""
        s = self.session
        out = list(q.gpus)
        # "first or second?" after asking about two other cards one by one: those two, not the picks before them
        back = "back_to_earlier" in q.cues and bool(s.earlier_picks) and not q.gpus
        listed = s.earlier_picks if back else s.discussed if len(s.discussed) >= 2 and \
            set(s.discussed) - set(s.last_picks) and max(q.ordinals, default=0) <= len(s.discussed) and \
            s.last_act not in ("recommend", "refine", "compare") else _on_screen(s)
        if back and not q.ordinals:  # "the one you first recommended": the top of that list
            out.append(listed[0])
        for o in q.ordinals:
            if listed:
                i = len(listed) - 1 if o == -1 else o - 1
                if 0 <= i < len(listed) and listed[i] not in out:
                    out.append(listed[i])
        if _says(q.text, "than_mine") and s.need.owned_gpus:  # the card meant (else the top pick) and the user's
            meant = out or s.last_picks[:1] or ([s.focus] if s.focus else [])
            return list(dict.fromkeys(meant[:1] + [s.need.owned_gpus[0]]))
        if not out and s.focus and not q.unknown_products and (  # "DGX Spark 值得买吗" is not about the card in focus
                _says(q.text, "cues", "pronoun") or act in ("fit", "power", "where_to_buy", "rent", "gpu_info", "why_not")) \
                and (act == "rent" or _says(q.text, "cues", "pronoun") or
                     not answers.platforms_named(self.engine, q.text)):  # "能用 colab 吗": the platform, not the card
            out.append(s.focus)
        return out

    # --- handlers ----------------------------------------------------------------------------------------------
    def _reset(self, t: Turn) -> Reply:
        self.session = Session(lang=t.lang, lang_locked=self.session.lang_locked)
        return answers.reset_done(t.lang)

    def _feature(self, t: Turn) -> Reply:
        """"does my 4090 support fp8?": yes or no for the card; asked with what the terms are ("whats the difference
        between fp8 and bf16 and…"), the guide's answer on them follows."""
        reply = answers.feature_support(self.engine, t.referred[0], self._features_asked(t), t.lang)
        if not (_says(t.text, "definition_asked", "difference") or _says(t.text, "definition_asked", "tail") or
                _definition_lead().match(normalise(t.text)) or _says(t.text, "feature_matters")):
            return reply  # ("does fp8 on h100 actually matter for training or is bf16 fine": whether it is worth it too)
        clauses = [c for c in re.split(r"[,，。;；?？!！]", t.q.text) if c.strip()]
        asked = next((c for c in clauses if _says(c, "definition_asked", "difference") or
                      _says(c, "definition_asked", "tail") or _definition_lead().match(normalise(c.strip())) or
                      _says(c, "feature_matters")),
                     t.q.text)  # the clause that asks what the terms are, not the one about the card
        asked = re.sub(r"(?i)(?<![a-z0-9])(?:rtx|gtx)?\s?[a-z]?\d{3,4}[a-z0-9]*", " ", asked)  # (the card's name
        # would draw its sheet)
        guide = answers.question(self.engine, asked, t.lang, kinds=("guide",))
        if guide.intent != "question" or not guide.paragraphs:
            return reply
        return replace(reply, paragraphs=reply.paragraphs + guide.paragraphs[:2],
                       sources=tuple(dict.fromkeys(reply.sources + guide.sources[:2])))

    def _features_asked(self, t: Turn):
        return self._features_in(t.q.text)

    def _features_in(self, text: str):
        from bot.features import asked

        return asked(self.engine.knowledge_dir, text)

    def _rents_in_china(self, t: Turn) -> bool:
        """A mainland-China user's rental market: said so, or a Chinese speaker who named no place; "国外呢",
        "and in Europe?" ask about the international platforms."""
        s = self.session
        if _says(t.q.text, "abroad") or bool(t.q.need.region and t.q.need.region != "cn"):
            return False
        return t.q.need.region == "cn" or s.need.region == "cn" or (t.lang == "zh" and s.need.region is None)

    def _platform_choice(self, t: Turn) -> Reply:
        """"which platform would you use", "你推荐哪个平台" after a rental list: the guide's section on the platforms of
        the user's market (mainland China's, else the international ones), which says which suits what."""
        topic = "platform_choice_query_cn" if self._rents_in_china(t) else "platform_choice_query_global"
        return answers.question(self.engine, _asked_as(topic, t.q.text), t.lang, kinds=("guide",))

    def _rent_vs_buy(self, t: Turn) -> Reply:
        """The cards in question, bought against rented at the user's hours (which the session keeps for the next
        "what if 40 hours a week?"): the cards named (or meant: "it", "the second one"); else the ones the last
        rent-or-buy answer weighed; else the picks just shown; else the card in focus; else the guide's example card."""
        s = self.session
        s.need = s.need.merge(t.need)
        meant = list(t.referred) if t.q.gpus or t.q.ordinals or t.cue("pronoun") else []
        names = meant or (s.compared if s.last_rule == "rent-vs-buy" else []) or \
            (s.last_picks[:3] if s.last_act in ("recommend", "refine") else []) or ([s.focus] if s.focus else [])
        chosen = not names
        names = names or [answers.comparison_card(self.engine)]
        s.compared = names[:3]
        return answers.rent_vs_buy(self.engine, names[:3], s.need, t.lang, china=self._rents_in_china(t),
                                   chosen_for_user=chosen)

    def _fit_setups_for_training(self, t: Turn, names: list[str], need: Need) -> Reply:
        """"2x 3090 or 1x 4090 for training 13B?": which fine-tuning method each setup holds (memory decides what
        trains at all), one verdict line a setup, then each setup's memory table."""
        if need.workload != "llm_finetune":
            need = replace(need, workloads=("llm_finetune",))  # training a model of billions at home is a fine-tune
        setups = [(n, t.q.card_counts.get(n, 1)) for n in names[:3]]
        fits = [answers.fit(self.engine, n, need, k, t.lang) for n, k in setups]
        verdict = answers.training_setups_verdict(self.engine, setups, need, t.lang)
        speeds = [(f"{k}× {n}" if k > 1 else n, answers.training_speed(self.engine, self.engine.catalog.get(n), need, k,
                                                                        t.lang)) for n, k in setups]
        return replace(fits[0], intent="compare", title=" vs ".join(f"{k}× {n}" if k > 1 else n for n, k in setups),
                       paragraphs=((verdict,) if verdict else ()) + tuple(r.paragraphs[0] for r in fits if r.paragraphs),
                       bullets=tuple(f"{label}: {line}" for label, line in speeds if line),  # how fast each trains
                       table=None, focus=None, fit=None,
                       # the setups weighed: what "the first option" and "which one?" count in next
                       chart_gpus=tuple(n for n, _ in setups), chart_counts=tuple(k for _, k in setups),
                       sources=tuple(dict.fromkeys(x for r in fits for x in r.sources)))

    def _choose_from_comparison(self, t: Turn) -> Reply:
        """"Which one would you buy?" after a comparison: its verdict and the lines that decide it, not the table again."""
        s = self.session
        full = self._compare_the_compared(t, {n: c for n, c in s.compared_counts.items() if c > 1})
        per_gb = answers.price_per_gb(self.engine, s.need, s.compared, t.lang) if _says(t.text, "per_gb") else None
        if per_gb and full.intent == "compare":  # "which is cheaper per GB of VRAM?": that sum before the verdict
            full = replace(full, paragraphs=(per_gb,) + full.paragraphs)
        if s.need.model_size_b:  # setups for a model: the table is each one's tokens/s, the answer itself
            return full
        return replace(full, table=None, footer=()) if full.intent == "compare" and full.paragraphs else full

    def _rent_or_buy_without_hours(self, t: Turn) -> Reply:
        """"AutoDL租4090一小时多少钱？和自己买比哪个划算？": the card's dated rentals first, then the question of the
        user's hours that the arithmetic needs; with no card or platform named, the guide's word on renting or buying."""
        guide = answers.rent_or_buy_guide(self.engine, t.q.text, t.lang)
        if t.q.need.workloads or t.q.need.model_size_b:  # "…for a one-off 70b finetune": the job stays for what follows
            self.session.need = self.session.need.merge(replace(t.q.need, budget=None))
        named = answers.platforms_named(self.engine, t.q.text)
        if not (t.q.gpus or named):
            return guide
        rent = self._rent(t)
        if rent.intent != "rent":
            return guide
        # "buy a 4060 or just use colab": the card's price counted in hours on the platform, before its offers
        hours = answers.price_in_rented_hours(self.engine, t.q.gpus[0], named, self.session.need.merge(t.need),
                                              t.lang) if t.q.gpus and named else ""
        return replace(rent, paragraphs=((hours,) if hours else ()) + rent.paragraphs + guide.paragraphs[-1:])

    def _picks_then_rent_or_buy(self, t: Turn) -> Reply:
        """Rent or buy asked with a budget and a job: the picks the budget buys, led by the guide's rule of thumb and
        followed by its question of the hours (with them, the next turn works out the top pick bought against
        rented)."""
        picks = self._recommend(t)
        if not picks.recommendations:
            return picks
        guide = answers.rent_or_buy_rule(self.engine, t.lang)
        if guide is None:
            return picks
        return replace(picks, paragraphs=guide.paragraphs[:1] + picks.paragraphs + guide.paragraphs[-1:],
                       sources=picks.sources + tuple(x for x in guide.sources if x not in picks.sources))

    def _price_per_gb_of_picks(self, t: Turn) -> Reply:
        s = self.session
        names = s.last_picks[:4]
        counts = {n: c for n, c in s.pick_counts.items() if n in names and c > 1}
        reply = answers.compare(self.engine, s.need, names, t.lang, counts=counts or None)
        per_gb = answers.price_per_gb(self.engine, s.need, names, t.lang)
        if per_gb and reply.intent == "compare":
            reply = replace(reply, paragraphs=(per_gb,) + reply.paragraphs)
        return reply

    def _free_tier(self, t: Turn) -> Reply:
        """"is colab enough instead": the verdict on its free GPU for the job in the chat, before what the platform
        offers."""
        s = self.session
        need = s.need.merge(replace(t.q.need, budget=None))
        if len(need.workloads) > 1 and "kaggle" in need.workloads:  # Kaggle named as the platform, with the job beside
            need = replace(need, workloads=tuple(w for w in need.workloads if w != "kaggle"))
        platform = _free_tier_named(self, t)
        verdict = answers.free_tier_verdict(self.engine, platform, need, t.lang)
        reply = self._rent(t)
        if verdict is None:
            return reply
        return replace(reply, paragraphs=(verdict,) + reply.paragraphs)

    def _training_job(self, t: Turn) -> Need:
        """The training job in the chat with this turn's words on it (not its money): trained whole when tokens and
        no fine-tune were said ("10B tokens, 1B model"), else an LLM fine-tune."""
        need = self.session.need.merge(replace(t.q.need, budget=None))
        if need.train_tokens and not (need.finetune_method or "llm_finetune" in need.workloads):
            # pretraining ("train a 7B from scratch on 1T tokens") trains every weight: no adapter method applies
            return replace(need, workloads=("transformer",), finetune_method="full")
        if not (need.finetune_method or "llm_finetune" in need.workloads):
            return replace(need, workloads=("llm_finetune",))
        return need

    def _training_time(self, t: Turn) -> Reply:
        s = self.session
        need = s.need = self._training_job(t)
        china = need.region == "cn" or (need.region is None and t.lang == "zh")
        again = s.last_rule in ("training-time", "training-cost", "training-again") and s.focus
        cards = list(t.referred) or ([s.focus] if again else s.last_picks[:2]) or ([s.focus] if s.focus else [])
        return answers.training_time(self.engine, need, cards, t.lang, china,
                                     tuple(answers.platforms_named(self.engine, t.q.text)))

    def _image_training_time(self, t: Turn) -> Reply:
        s = self.session
        need = s.need = s.need.merge(replace(t.q.need, budget=None))
        cards = list(t.referred) or ([s.focus] if s.focus and s.last_rule == "image-training-time" else
                                     s.last_picks[:3]) or answers.measured_image_cards(self.engine)
        return answers.image_training_time(self.engine, need, cards, t.lang)

    def _training_cost(self, t: Turn) -> Reply:
        """"那在autodl租4090跑完要多少钱", "and the cost if I rent on RunPod" after a training time: that job's cost
        on the card named (else the one in focus, as many as it was), on the platform named (else each one)."""
        s = self.session
        need = s.need = self._training_job(t)
        china = self._rents_in_china(t)
        cards = list(dict.fromkeys([*t.q.gpus, *t.referred])) or ([s.focus] if s.focus else s.last_picks[:1])
        if len(cards) > 1:  # two cards weighed ("租4090和A100哪个跑完便宜"): each one's time and cheapest cost
            return answers.training_time(self.engine, need, cards, t.lang, china)
        named = answers.platforms_named(self.engine, t.q.text) or \
            (s.rent_platforms if s.last_rule in ("training-cost", "training-again") else [])
        s.rent_platforms = list(named)
        kept = cards and cards[0] == s.focus and not t.q.gpus and not (t.q.need.finetune_method or t.q.need.model_size_b)
        count = t.q.need.gpu_count or (s.focus_count if kept else None)  # (a new method or size: as many as it needs)
        return answers.training_cost(self.engine, need, cards[0] if cards else None, count, t.lang, china,
                                     text=t.q.text, platforms=tuple(named))

    def _rental_value(self, t: Turn) -> Reply:
        """Rentals weighed per unit of work: the cards named (with the ones just weighed, for "and the H100?"), on the
        platform named (or still the one of the last answer)."""
        s = self.session
        again = s.last_rule == "rental-value"
        cards = _rental_cards(self, t)
        names = list(dict.fromkeys([*(s.compared if again and len(cards) < 2 else []), *cards]))
        named = answers.platforms_named(self.engine, t.q.text) or (s.rent_platforms if again else [])
        if not t.q.gpus and not t.q.ordinals and named and len(names) < 2 + again:
            names = answers.rented_on(self.engine, named[0])  # "autodl上租哪个划算": what that platform rents
        s.need = s.need.merge(replace(t.need, budget=None))
        s.rent_platforms, s.compared = list(named), names[:4]
        return answers.rental_value(self.engine, names[:4], s.need, t.lang, china=self._rents_in_china(t),
                                    text=t.q.text, platforms=tuple(named))

    def _rent(self, t: Turn) -> Reply:
        s = self.session
        china = self._rents_in_china(t)
        abroad = _says(t.q.text, "abroad") or bool(t.q.need.region and t.q.need.region != "cn")
        if t.need.usage:  # "I'd use it 20 hours a week": kept for a rent-or-buy question next
            s.need = replace(s.need, usage=t.need.usage)
        if t.q.need.region:  # "where would we rent 4 of those in the us": where the user is, for what follows
            s.need = replace(s.need, region=t.q.need.region)
        if t.q.need.workloads or t.q.need.model_size_b:  # "best gpu to rent for a 14B LoRA": the job, for "how long?"
            s.need = s.need.merge(replace(t.q.need, budget=None, usage=None))
        names = list(t.q.gpus) or list(t.referred) or (s.last_picks[:3] if s.last_picks else []) or \
            ([s.focus] if s.last_act == "rent" and s.focus else [])  # "what about vast" after the A100 on RunPod
        if _says(t.q.text, "free_words") and not (t.q.gpus or t.q.ordinals or "pronoun" in t.q.cues):
            names = []  # "免费的有哪些" after picks: the platforms with free quotas, not the picks' rentals
        # "or should I just rent?" after 2× 3090 for 70B: that many of the card, as the setup on screen had
        shown = s.pick_counts.get(names[0]) if names and not t.q.gpus and names[0] in s.last_picks else None
        count = t.q.need.gpu_count or (s.need.gpu_count if s.last_act == "rent" else None) or shown or \
            (s.focus_count if names and names[0] == s.focus and not t.q.gpus else None) or 1  # ("8张A100要多久" first)
        need = s.need.merge(t.need)
        if t.q.need.budget and not t.q.need.usage:
            need = replace(need, usage=None)  # "how many hours does $200 rent": the money said now, not the pace before
        elif s.rent_budget and s.last_act == "rent" and not t.q.need.usage:
            need = replace(need, budget=Budget(**s.rent_budget))  # "100块能租多久" then "那4090呢": the same money
        s.rent_budget = asdict(t.q.need.budget) if t.q.need.budget else \
            (s.rent_budget if s.last_act == "rent" and not t.q.need.usage else None)
        held = answers.cards_to_hold(self.engine, names[0], need) if names and not t.q.need.gpu_count and \
            (_asks_how_many(t.q) or _says(t.text, "plural_pronoun") and not t.q.gpus) else None
        # ("monthly cost if I rent those on runpod" after "6× H100 would hold it": as many as hold the job)
        if held:  # "how many H100s would I rent" after the memory a job needs: as many as hold it, priced
            count = held[0]
        cheaper = t.q.direction == "cheaper" and s.last_act == "rent"
        named = answers.platforms_named(self.engine, t.q.text)
        if not named and s.last_act == "rent" and (self._another_card_same_question(t.q) or
                                                   not (t.q.gpus or t.q.direction or abroad or t.q.need.region)):
            named = s.rent_platforms  # "AutoDL 上 4090" then "那8张呢", "那4090呢": still on AutoDL
        s.rent_platforms = named
        # a region whose shops price in a currency of their own (Taiwan, Hong Kong): its name, for what the reply says
        region = load_regions(self.engine.knowledge_dir).get(need.region) if need.region else None
        local = region.name if region is not None and region.currency != region.price_list else None
        reply = answers.where_to_rent(self.engine, names, t.lang, china=china, need=need, count=count,
                                      cheaper=cheaper, text=t.q.text, platforms=tuple(named), region=local,
                                      asked=bool(t.q.gpus or t.q.ordinals or _says(t.q.text, "cues", "pronoun")))
        if held and reply.intent == "rent" and reply.focus == names[0]:
            reply = replace(reply, paragraphs=(answers.held_by(self.engine, names[0], *held, t.lang),)
                            + reply.paragraphs)
        return reply

    def _compare(self, t: Turn) -> Reply:
        s = self.session
        names = list(t.referred)
        if len(names) == 1 and s.last_act == "compare" and s.compared and names[0] not in s.compared:
            names = [*s.compared[-3:], names[0]]  # the cards just compared, and the one asked about now
        elif len(names) == 1 and not t.q.gpus and s.last_act == "compare" and len(s.compared) >= 2:
            names = list(s.compared[:4])  # "is the price difference worth it" after "4090 vs 5090": those again
        if len(names) == 1:
            other = s.focus if s.focus and s.focus != names[0] else (s.last_picks[0] if s.last_picks else None)
            if other and other != names[0]:
                names = [other, names[0]]
        if len(names) < 2 and len(s.last_picks) >= 2:
            # "compare all three", "三个都比一下": every pick; otherwise the first two
            names = s.last_picks[:4] if _says(t.text, "all_of_them") else s.last_picks[:2]
        if len(names) < 2:
            return answers.ask_which_to_compare(t.lang, names)
        need = s.need
        # "two 3090s or one 4090": setups as written; "compare the first two": the picks as they were shown (2× 3090)
        counts = {n: s.pick_counts[n] for n in names if n in s.pick_counts and n not in t.q.gpus}
        counts.update(t.q.card_counts)
        if need.model_size_b and need.workload in (None, "llm_inference", "general"):  # "2x3090 vs M3 Ultra for 70B"
            return self._compare_setups(t, names, need, counts)
        if need.model_size_b and len(t.q.gpus) >= 2 and (need.finetune_method or need.workload in (
                "llm_finetune", "transformer")):  # "两张3090还是一张4090，微调14B": which method each setup holds
            return self._fit_setups_for_training(t, list(t.q.gpus), need)
        counts = {n: c for n, c in counts.items() if c > 1}
        price = self._price_offered(t) if len(t.q.gpus) >= 2 else None
        offered = None
        if price is not None:  # "is a used 3090 for $700 a good deal or should i get a 5070 ti": the first card at it
            offered = (t.q.gpus[0], price, bool(t.q.need.used))
            need = replace(need, budget=s.need.budget if s.need.budget != t.q.need.budget else None)
        if t.q.need.owned_gpus:  # "I have a 3090, worth upgrading to a 5090?": the step up from the card owned
            need = replace(need, owned_gpus=t.q.need.owned_gpus)
        reply = answers.compare(self.engine, need, names[:4], t.lang, counts=counts or None, offered=offered)
        per_gb = answers.price_per_gb(self.engine, need, names[:4], t.lang) if _says(t.text, "per_gb") else None
        if per_gb and reply.intent == "compare":  # "compare the first two on price per GB of vram": that sum first
            reply = replace(reply, paragraphs=(per_gb,) + reply.paragraphs)
        return reply

    def _compare_again_for(self, t: Turn) -> Reply:
        """The cards just compared, weighed again for the job, market or currency this message names ("in euros?"
        after mainland-China prices: the place that pays in euros, not China priced in euros)."""
        s = self.session
        need = s.need.merge(t.need)
        if not t.need.workloads and _training_of(s, t):  # "for training instead?" after a comparison for inference
            need = replace(need, workloads=(_training_of(s, t),))
        paid_in = region_of_currency(self.engine.knowledge_dir, t.need.price_currency) if t.need.price_currency else None
        if paid_in != need.region and t.need.price_currency and not t.need.region and need.region:
            need = replace(need, region=paid_in)
        s.need = need
        return self._compare_the_compared(t, dict(s.compared_counts))  # setups stay setups ("2× 3090", then "for LLMs")

    def _why_the_verdict(self, t: Turn) -> Reply:
        """The comparison just made, again, under a title that says it answers "why": its verdict leads with the
        speed, price and memory it rests on."""
        reply = self._compare_the_compared(t, dict(self.session.compared_counts))
        return replace(reply, title=Text("Why that verdict: the numbers behind it", "为什么这么判断：依据的数字").get(t.lang))

    def _price_gap(self, t: Turn) -> Reply:
        """The cards just compared, again, led by what separates them in price."""
        reply = self._compare_the_compared(t, {})
        gap = answers.price_difference(self.engine, self.session.need, list(self.session.compared), t.lang)
        return replace(reply, paragraphs=((gap,) if gap else ()) + reply.paragraphs)

    def _setup_instead_of_the_pick(self, t: Turn) -> Reply:
        """"a pair of 3090s instead?", "两张3090呢" after picks: that setup against the top pick, for the job on the
        table (not a new ranking that drops the card named)."""
        s = self.session
        top, named = s.last_picks[0], t.q.gpus[0]
        counts = {named: t.q.need.gpu_count, top: s.pick_counts.get(top, 1)}
        need = s.need.merge(replace(t.q.need, gpu_count=None)) if t.q.need.used else s.need
        if need.model_size_b and need.workload in (None, "llm_inference", "general"):
            return self._compare_setups(t, [named, top], need, counts)
        return answers.compare(self.engine, need, [named, top], t.lang, counts=counts)

    def _compare_the_compared(self, t: Turn, counts: dict[str, int]) -> Reply:
        """The cards of the last comparison again (as setups of `counts`), for the job on the table."""
        s = self.session
        names = list(s.compared)
        if s.need.model_size_b and s.need.workload in (None, "llm_inference", "general"):
            return self._compare_setups(t, names, s.need, counts)
        return answers.compare(self.engine, s.need, names, t.lang, counts=counts or None)

    def _unusable_money(self, t: Turn) -> Reply:
        """An amount that is no budget (negative, nothing, beyond any purchase, a currency we do not price in): say so,
        and keep the rest of what the message said ("₹1,20,000 for YOLO training": the job stays for the next turn)."""
        s = self.session
        if not t.need.is_empty():
            s.need = s.need.merge(replace(t.need, budget=None))
            s.awaiting = "budget"
        return answers.unusable_budget(self.engine, t.q.rejected_money, t.lang)

    def _mac_for(self, need: Need, lang: str) -> str | None:
        """The cheapest Mac in the catalog that holds the need's model (a Mac named only as "a Mac Studio")."""
        r = self._ranking(replace(need, vendor="Apple", budget=None, gpu_count=None), lang)
        return min(r.candidates, key=lambda c: c.total).gpu.name if r.candidates else None

    def _compare_again_used(self, t: Turn) -> Reply:
        s = self.session
        s.need = s.need.merge(t.q.need)
        return answers.compare(self.engine, s.need, s.compared[:4], t.lang, counts=s.compared_counts or None)

    def _compare_setups(self, t: Turn, names: list[str], need: Need, counts: dict[str, int] | None = None) -> Reply:
        counts = t.q.card_counts if counts is None else counts
        need = replace(need, workloads=("llm_inference",) + tuple(w for w in need.workloads if w != "llm_inference"))
        return answers.compare_setups(self.engine, [(n, counts.get(n, 1)) for n in names[:4]], need, t.lang)

    def _why_not(self, t: Turn, asked: str = "why_not") -> Reply:
        s = self.session
        name = next((g for g in t.referred if g not in s.last_picks[:1]), t.referred[0])
        need = s.need
        card = self.engine.catalog.get(name)
        if asked == "what_about" and card is not None and need.vendor is None and \
                card.vendor not in default_vendors(self.engine.knowledge_dir):
            need = replace(need, vendor=card.vendor)  # "what about AMD, the 7900 XTX?": weighed among its own kind
            r = self._ranking(need, t.lang)
            return self._with_vendor_advice(t, answers.why_not(self.engine, r, s.last_picks, name, t.lang,
                                                               asked=asked), card.vendor,
                                            text=Text("is it usable for PyTorch, software support",
                                                      "能用 PyTorch 吗 软件支持").get(t.lang))
        if asked == "why_not" and not s.last_picks and s.last_act == "compare" and s.focus and s.focus != name and \
                self.engine.catalog.get(s.focus) is not None and \
                (name in s.compared or not answers.has_a_price(self.engine, need, name, t.lang)):
            # "4090和5090哪个好" then "为什么不选4090": the comparison's verdict is the pick it was not; "为什么不是4090d"
            # (a card the comparison left out, with no price to rank it by): that card against the verdict's pick
            reply = answers.compare(self.engine, need, [s.focus, name], t.lang)
            return replace(reply, title=Text(f"Why not the {name}? Against the {s.focus}",
                                             f"为什么不选 {name}？和 {s.focus} 比").get(t.lang))
        r = self._ranking(need, t.lang)
        return answers.why_not(self.engine, r, s.last_picks, name, t.lang, asked=asked)

    def _setup_precautions(self, t: Turn, name: str | None, count: int | None) -> Reply:
        """What to watch for with `count` of one card: their power and PSU first (the number people get wrong), then
        the guide's section on multi-GPU machines (slots, cooling, PCIe, how training splits). With no card named
        ("四卡服务器要注意什么"), the guide's section alone."""
        guide = answers.question(self.engine, _asked_as("multi_gpu_query", t.q.without_cards, t.q.text), t.lang,
                                 kinds=("guide",))
        if name is None:
            return guide
        power = answers.power(self.engine, name, count, self.session.need.psu_w, t.lang)
        if guide.intent != "question":
            return power
        return replace(guide, title=Text(f"{count}× {name}: what to watch for", f"{count} 张 {name}：要注意什么").get(t.lang),
                       paragraphs=power.paragraphs + guide.paragraphs, sources=guide.sources + power.sources,
                       focus=power.focus, focus_count=power.focus_count)

    def _guide_question(self, t: Turn) -> Reply:
        """The guide answers; when it has nothing, the cards named still get their numbers. A short follow-up about
        the card on screen ("Windows 下呢" after an AMD card) is asked of the guide with that card's maker."""
        text, s = t.q.text, self.session
        card = self.engine.catalog.get(s.focus) if s.focus else None
        several = max(s.focus_count or 1, s.need.gpu_count or 1) >= 2
        if t.cue("multi_gpu") and _says(text, "memory_pooled") and not t.q.gpus:
            text = _asked_as("multi_gpu_query", text)  # "多張卡的顯存可以加起來用嗎？": the guide on several cards
        elif _follows_the_topic(t.q, s):
            text = f"{_topic_words(s.last_topic)} {text}"  # "how many hours do they give": of the topic just answered
        elif card is not None and not t.q.gpus and len(text.strip()) <= SHORT_FOLLOW_UP and \
                _about_the_focus(t.q, s) and not several and \
                not answers.platforms_named(self.engine, text):  # "能用 colab 吗": about the platform
            text = f"{card.vendor} {card.name} {text}"
        if _says(t.q.text, "mixing_different") or len(t.q.gpus) >= 2 and _says(t.q.text, "mixing_cards"):
            mixing = answers.question(self.engine, _asked_as("mixing_query", t.q.without_cards, t.q.text), t.lang,
                                      kinds=("guide",))  # "I have a 3060, keep it as a second card?": mixing cards
            if mixing.intent == "question":
                return mixing
        reply = answers.question(self.engine, text, t.lang)
        vendor = t.q.need.vendor
        if vendor and not t.q.gpus and (reply.intent == "unknown" or reply.intent == "question" and
                                        _vendor_at(reply.paragraphs[0], vendor) > VENDOR_SUBJECT_SHARE):
            # "intel显卡能训练模型吗": a question about a maker whose words the search matched elsewhere (laptops):
            # the guide's paragraphs about that maker answer it (asked again in the maker's name if none came)
            # (asked in English whatever the reply's language: the search ranks the same sections for both replies)
            asked = f"{vendor} ({' '.join(_vendor_names(vendor)[:5])}) GPUs for deep learning: PyTorch software support"
            about = answers.question(self.engine, asked, t.lang, kinds=("guide",))
            if about.intent == "question" and _mentions_vendor(about.paragraphs, vendor):
                reply = about  # (its title and sources are that section's)
        if vendor and not t.q.gpus and reply.intent == "question":
            reply = _about_the_maker(reply, vendor)
        if reply.focus and t.q.gpus:
            # "A卡（7900XTX）跑深度学习行不行？ROCm在国内好用吗", "兩張3090用NVLink會快很多嗎": a question about a topic that
            # names a card is answered by the guide's section on the topic, asked without the card's name (which draws
            # the card's own sheet); the sheet stays when the guide has nothing on the rest of the words
            topical = answers.question(self.engine, t.q.without_cards, t.lang, kinds=("guide",))
            if topical.intent == "question":
                reply = topical
        if reply.intent == "unknown" and several and not t.q.gpus and len(text.strip()) <= 40 and \
                "offtopic" not in t.q.cues:
            # "主板有要求吗", "does the motherboard matter?" after two 3090s: asked again as a multi-GPU question
            reply = answers.question(self.engine, _asked_as("multi_gpu_query", text), t.lang)
        if _says(t.q.text, "other_parts") and (reply.focus or reply.intent == "unknown") and not several:
            return answers.unknown(t.lang)  # "which CPU for a 4090?": an honest "I don't know", not the 4090's numbers
        if reply.intent == "unknown" and not t.q.gpus and "offtopic" not in t.q.cues and (
                _describes_a_machine(t.q) or t.cue("upgrade") and bool(s.need.owned_gpus)):
            # "实验室要配一台服务器给8个人用，训练为主": a machine to spec, not a fact to look up; "那升级成什么好" after the
            # user's 3060 could not run a model: the cards that beat it
            return self._recommend(t)
        if reply.intent != "unknown" or not t.q.gpus:
            return reply
        if len(t.q.gpus) >= 2:
            return answers.compare(self.engine, self.session.need, list(t.q.gpus[:4]), t.lang)
        return answers.gpu_card(self.engine, self.session.need, t.q.gpus[0], t.lang)

    def _recommend_with_vendor_advice(self, t: Turn) -> Reply:
        reply = self._recommend(t)
        vendor = t.q.need.vendor
        makers_card = [g.name for g in [*self.engine.catalog, *self.engine.catalog.systems] if g.vendor == vendor] if vendor else []
        priced_beyond = any(name in b for b in reply.bullets for name in makers_card) and \
            (vendor != "Apple" or self.session.need.workload == "llm_inference")
        if reply.intent == "recommend" and not reply.recommendations and not priced_beyond:
            return self._guide_question(t)  # a maker none of whose cards is priced here (Huawei's): the guide on it
        # (its cards only beyond the budget: what stands in the way, "the cheapest that fits is a Mac Studio M3 Ultra
        # 96GB at $3,999", then the guide's word on the maker; a Mac for training is the guide's word on Macs)
        return self._with_vendor_advice(t, reply, t.q.need.vendor)

    def _with_card_software(self, t: Turn, reply: Reply, card) -> Reply:
        guide = answers.question(self.engine, f"{card.name} PyTorch", t.lang, kinds=("guide",))
        about = [p for p in guide.paragraphs if _mentions_vendor((p,), card.vendor)]
        if guide.intent != "question" or not about:
            return reply
        number = re.search(r"\d{3,4}", card.name)
        named = [p for p in about if number and re.search(rf"(?<!\d){number[0]}(?!\d)", p)]
        chosen = tuple(named[:1] or about[-1:])
        return replace(reply, paragraphs=reply.paragraphs[:1] + chosen + reply.paragraphs[1:],
                       sources=tuple(OrderedDict((x.url, x) for x in reply.sources + guide.sources).values()))

    def _with_vendor_advice(self, t: Turn, reply: Reply, vendor: str, text: str | None = None) -> Reply:
        """The guide's latest word on a maker's software beside an answer about its cards."""
        guide = answers.question(self.engine, f"{text or t.q.text} {vendor}", t.lang, kinds=("guide",))
        about = [p for p in guide.paragraphs if _mentions_vendor((p,), vendor)]
        if guide.intent != "question" or not about:
            return reply
        return answers.with_advice(reply, replace(guide, paragraphs=tuple(about[-2:])))  # the latest word on it

    def _price_offered(self, t: Turn) -> Budget | None:
        """The amount written beside the first card as what it sells for ("a used 3090 for $700", "闲鱼2800的3090"),
        in the chat's money when it names none; None when there is no such amount."""
        if not _offered_price(self.engine.catalog, t.q.text):
            return None
        if t.q.need.budget is not None:
            return t.q.need.budget
        if t.q.bare_number:  # "闲鱼 3090 卖3500 靠谱吗": in the chat's money
            chat = self.session.need.budget.currency if self.session.need.budget else None
            return Budget(t.q.bare_number, chat or ("CNY" if t.lang == "zh" else "USD"))
        return None

    def _worth(self, t: Turn) -> Reply:
        """The verdict on what the card's price buys; for a used card, a maker or its software, also the guide's
        advice on that ("二手3090值得买吗", "7900xtx值得买吗 能跑pytorch吗")."""
        b = t.q.need.budget if t.q.need.budget is not None else self._price_offered(t)
        # an amount beside a card and "worth it / good deal" is what the card costs the user, not a budget
        offered = b if b is not None and not _says(t.q.text, "cues", "budget_words") else None
        if offered is not None and offered.approximate:  # "P40 才一千多块": about ¥1,500, not ¥1,000
            offered = replace(offered, amount=money.more_than_said(chinese_numerals_to_digits(normalise(t.q.text)),
                                                                   offered.amount))
        need = self.session.need.merge(replace(t.need, budget=None) if offered else t.need)
        if offered:  # a price offered now ("a used 3090 for $700 … in 2025") is judged against the latest prices
            need = replace(need, as_of=None)
        card = self.engine.catalog.get(t.referred[0])
        if offered and card is not None and card.unified_memory and offered.currency in ("USD", "CNY"):
            # "is the DGX Spark worth $3,999?": a whole computer, weighed on the LLMs it runs at that price
            return answers.worth_for_llm(self.engine, card.name, need, t.lang, offered=offered)
        if t.q.card_memory_gb is not None and t.q.gpus and not offered:
            return self._card_advice(t)  # "4090 48g 魔改 靠谱吗": the mod's risks; the stock card's price is no verdict
        reply = answers.worth_it(self.engine, need, t.referred[0], t.lang, offered=offered,
                                 offered_used=bool(t.q.need.used), owned="owned" in t.q.cues,
                                 memory_gb=t.q.card_memory_gb if t.q.gpus else None)
        if t.q.card_memory_gb is not None and t.q.gpus:
            # "3080 20G魔改 2500块": the offer weighed with its memory, then what the guide says of memory mods
            mod_words = words("slots", "mod_words")
            mods = tuple(p for p in self._card_advice(t).paragraphs if has_any(normalise(p), mod_words) and
                         p not in reply.paragraphs)  # (the card's own note on mods is already in its sheet)
            return replace(reply, paragraphs=reply.paragraphs + mods[:2])
        if t.q.gpus and (t.need.used is not None or t.need.vendor is not None or t.cue("software")):
            advice = self._card_advice(t)
            own = tuple(p for p in reply.paragraphs if p not in set(advice.paragraphs))[:2 if offered else 1]
            if answers.has_current_price(self.engine, self.session.need, t.referred[0], t.lang):
                return replace(advice, paragraphs=own + advice.paragraphs)  # the verdict, then the advice
            # no price, no verdict: the advice leads, then why there is no verdict
            return replace(advice, paragraphs=advice.paragraphs[:2] + own + advice.paragraphs[2:])
        return reply

    def _worth_for_llm(self, t: Turn) -> Reply:
        """Whether a card is worth it for LLMs; a modded one ("2080ti魔改22G靠谱吗，跑大模型推理"): the guide's word on
        the mod, then what its own memory runs (not the stock card's)."""
        if t.q.card_memory_gb is not None and t.q.gpus:
            runs = answers.what_fits(self.engine, t.referred[0], 1, t.lang, vram_gb=t.q.card_memory_gb)
            guide = self._guide_on_card(t)
            return answers.with_advice(runs, guide) if guide is not None else runs
        return answers.worth_for_llm(self.engine, t.referred[0], self.session.need, t.lang)

    def _card_advice(self, t: Turn) -> Reply:
        """The card's sheet, led by the guide's advice on what the message asks of it, when the guide has some."""
        card = answers.gpu_card_for(self.engine, self.session.need, t.q.gpus[0], t.lang)
        guide = self._guide_on_card(t)
        return answers.with_advice(card, guide) if guide is not None else card

    def _with_mod_advice(self, t: Turn, reply: Reply) -> Reply:
        """"4090 48G魔改版靠谱吗，听说跑70b很香": a card modded to more memory is first the guide on the mod, then
        what it runs."""
        if t.q.card_memory_gb is None or not t.q.gpus or not _says(t.q.text, "mod_words") or \
                not (t.cue("worth") or _says(t.q.text, "reliability_asked")):
            return reply  # ("4090 魔改48G 能跑 Qwen2.5-72B 吗": only whether it runs is asked)
        guide = self._guide_on_card(t)
        return answers.with_advice(reply, guide) if guide is not None else reply

    def _guide_on_card(self, t: Turn) -> Reply | None:
        """The guide's paragraphs on what the message asks of the card it names (its maker's software, the used
        market, a memory mod); None when the guide has nothing better than the card's own numbers."""
        # the guide's sections only: the card's own sheet is already here ("7900 XTX 能跑 pytorch 吗" wants ROCm)
        # asked about the card's maker, which the guide's sections are written about ("AMD", not "7900 XTX": a model
        # number only matches the sections' tables of numbers)
        gpu = self.engine.catalog.get(t.q.gpus[0])
        if t.q.card_memory_gb is not None and _says(t.q.text, "mod_words"):
            # "2080ti魔改22G靠谱吗，跑大模型推理": the guide on the mod (not on the job), with the card as written
            text = _asked_as("modded_card_query", f"{gpu.name if gpu else ''} {t.q.card_memory_gb:g}G", t.q.text)
        elif t.need.used is not None and t.q.card_memory_gb is not None:
            text = t.q.text  # "4090 48g 魔改": the message as written (a mod, not a model number)
        elif t.need.used is not None:  # "闲鱼 3090 卖3500 靠谱吗": the used market, not the sections naming the card
            text = (t.q.delexicalised or t.q.text).replace("@", " ") + " " + Text("used GPU", "二手显卡").get(t.q.lang)
        else:
            text = (t.q.delexicalised or t.q.text).replace("@", " ")
            text = f"{text} {gpu.vendor}" if gpu is not None else text
        guide = answers.question(self.engine, text, t.lang, kinds=("guide",))
        if guide.intent != "question":
            return None  # the guide has nothing better than the card's own numbers
        if t.need.used is None and gpu is not None and not any(gpu.vendor.lower() in p.lower() for p in guide.paragraphs):
            return None  # a software question about a maker the guide does not discuss (Intel): no borrowed advice
        if gpu is not None and t.q.card_memory_gb is not None:
            # "4090 48g 魔改 靠谱吗": the paragraphs on that mod, not the card's China variant
            gb = f"{t.q.card_memory_gb:g}"
            mod = tuple(p for p in guide.paragraphs if re.search(rf"(?<!\d){gb}\s*G", p) or
                        has_any(normalise(p), words("slots", "mod_words")) or
                        {g.name for g in self.engine.catalog.mentions(p)} == {gpu.name})
            guide = replace(guide, paragraphs=mod) if mod else guide
        elif gpu is not None:
            # "used 3090 for $600, good deal?": not the guide's paragraph on another card (the 22 GB 2080 Ti's price)
            catalog = self.engine.catalog
            own = tuple(p for p in guide.paragraphs
                        if not (names := {g.name for g in catalog.mentions(p)}) or gpu.name in names)
            guide = replace(guide, paragraphs=own) if own else guide
        return _about_the_maker(guide, gpu.vendor) if gpu is not None and t.need.used is None else guide

    def _fit(self, t: Turn) -> Reply:
        s = self.session
        if len(t.q.gpus) >= 2 and t.cue("add_card") and (t.need.model_size_b or s.need.model_size_b):
            need = s.need.merge(replace(t.q.need, gpu_count=None, budget=None))  # "mix a 4090 and a 3090 for 70B"
            first, second = t.q.gpus[0], t.q.gpus[1]
            return answers.fit_mixed(self.engine, [first] * t.q.card_counts.get(first, 1), second, need, t.lang)
        if len(t.q.gpus) >= 2 and (t.need.model_size_b or s.need.model_size_b):  # "两张3090还是一张4090跑70B"
            need = s.need.merge(replace(t.q.need, gpu_count=None))
            if need.finetune_method or need.workload in ("llm_finetune", "transformer"):
                return self._fit_setups_for_training(t, list(t.q.gpus), need)
            return self._compare_setups(t, list(t.q.gpus), need)
        if t.cue("add_card") and s.focus and t.q.gpus and t.q.gpus[0] != s.focus:  # "add a p40?" to the card on the table
            need = s.need.merge(replace(t.q.need, gpu_count=None, budget=None))
            have = [s.focus] * (s.focus_count or 1)
            return answers.fit_mixed(self.engine, have, t.q.gpus[0], need, t.lang, s.focus_vram_gb)
        need = s.need.merge(replace(t.q.need, gpu_count=None, budget=None))
        named = self.engine.catalog.get(t.q.gpus[0]) if len(t.q.gpus) == 1 else None
        if named is not None and named.vendor != "Apple" and (need.model_size_b or need.model) and \
                need.workload in (None, "llm_inference") and _says(t.q.text, "vendor", "Apple"):
            mac = self._mac_for(need, t.lang)  # "Mac Studio or a PC with 2x3090 for 70B?": both setups weighed
            if mac:
                return self._compare_setups(t, [t.q.gpus[0], mac], need)
        same = t.referred[0] == s.focus  # the card on the table: its count and stated memory carry over
        count = t.q.need.gpu_count or (s.need.gpu_count if not t.q.gpus else None) or \
            (s.focus_count if same else None) or 1
        owned = t.q.need.owned_gpus
        if t.cue("add_card") and owned and set(t.q.gpus) <= set(owned) and not t.q.need.gpu_count:
            count = len(owned) + 1  # "i have a 3090. if i add a second one…": one more of the same
        elif t.cue("add_card") and same and s.last_act == "fit" and not t.q.need.gpu_count:
            count = (s.focus_count or 1) + 1  # "would adding a second 4070 help" after a fit: the job on one more
        need = s.need.merge(replace(t.q.need, gpu_count=None, budget=None))
        if not (need.workloads or need.model_size_b or need.model):
            need = replace(need, workloads=("general",))  # "能拿来跑pytorch训练吗": deep learning in general
        asks_capacity = _says(t.text, "capacity_asked")
        if asks_capacity and need.workload in (None, "llm_inference", "inference", "general"):
            need = replace(need, serving=True, workloads=("llm_inference",))  # "A800能撑多少并发": an LLM served
        # a served assistant with no model named ("客服系统，并发20" then "can an L40S handle it?"): the model its picks
        # were sized for
        need, assumed = with_assumed_serving_model(need, self.engine.knowledge_dir)
        vram = t.q.card_memory_gb or (s.focus_vram_gb if same and not t.q.gpus else None)
        if _asks_how_many(t.q) and not t.q.need.gpu_count and vram is None:  # "how many would I need?": that many
            held = answers.cards_to_hold(self.engine, t.referred[0], need)
            count = held[0] if held else count
        reply = answers.fit(self.engine, t.referred[0], need, count, t.lang, vram_gb=vram)
        card = self.engine.catalog.get(t.referred[0])
        if card is not None and card.vendor not in ("NVIDIA", "Apple"):
            # "6800xt 跑 pytorch", "rx 580 可以学深度学习吗": whether the maker's software runs on this card at all,
            # after the verdict on memory: the guide's paragraph that names the card's model number, else its latest
            # word on the maker's software
            reply = self._with_card_software(t, reply, card)
        capacity = answers.serving_capacity(self.engine, t.referred[0], count, need, t.lang) \
            if asks_capacity and (need.model_size_b or need.model) else None
        if capacity:  # "how many users can one 4090 handle on an 8B model?", "A800能撑多少并发"
            reply = replace(reply, paragraphs=(capacity,) + reply.paragraphs + ((assumed.get(t.lang),) if assumed else ()))
        elif need.serves_many:
            # "serve it to 20 people at once?", "用H20可以吗" after picks for a team: the memory and speed for them,
            # else what serving changes
            served = answers.serving_fit(self.engine, t.referred[0], count, need, t.lang)
            if served:  # the verdict for them first: one user's "yes" does not answer "for 40 at once?"
                reply = replace(reply, paragraphs=(served,) + reply.paragraphs + ((assumed.get(t.lang),) if assumed else ()))
            else:
                reply = replace(reply, paragraphs=reply.paragraphs[:1] + (serving_note(1).get(t.lang),)
                                + reply.paragraphs[1:])
        if need.psu_w and card is not None and card.tdp_w and card.vendor != "Apple":
            # "my psu is 750w" earlier, "would a 5090 work?" now: the job and the power supply the user has
            psu = answers.power(self.engine, card.name, count, need.psu_w, t.lang)
            if psu.intent == "power":
                reply = replace(reply, paragraphs=reply.paragraphs + psu.paragraphs[1:2])
        if _says(t.q.text, "how_cards_connect"):  # "…要nvlink吗": the guide's word on the link after the fit
            asked = Text("several GPUs without NVLink: PCIe, splitting a model by layers for inference",
                         "多卡没有 NVLink：PCIe，推理按层把模型分到几张卡上").get(t.lang)
            guide = answers.question(self.engine, asked, t.lang, kinds=("guide",))
            hits = {p: len(find_any(normalise(p), words("slots", "how_cards_connect"))) for p in guide.paragraphs}
            link = tuple(sorted((p for p in guide.paragraphs if hits[p]), key=lambda p: -hits[p]))  # most on it
            if guide.intent == "question" and link:
                reply = replace(reply, paragraphs=reply.paragraphs + link[:2],
                                sources=reply.sources + tuple(x for x in guide.sources if x not in reply.sources))
        return reply

    def _what_fits(self, t: Turn) -> Reply:
        s = self.session
        same = t.referred[0] == s.focus
        count = t.q.need.gpu_count or (s.focus_count if same else None) or 1
        if same and t.cue("add_card") and not t.q.need.gpu_count:
            count += 1  # "加一张3060呢": one more of the card on the table
        vram = t.q.card_memory_gb or (s.focus_vram_gb if same and not t.q.gpus else None)
        if not s.need.workloads:  # the answer is about running LLMs: "想升级，预算4000" next is a card for that
            s.need = replace(s.need, workloads=("llm_inference",))
        return answers.what_fits(self.engine, t.referred[0], count, t.lang, vram_gb=vram)

    def _memory_enough(self, t: Turn) -> Reply:
        """"Is 12 GB enough?": for the job this message names, else the one on the table."""
        need = self.session.need.merge(replace(t.q.need, min_vram_gb=None))  # the place and date asked about stay
        return answers.memory_enough(self.engine, t.q.memory_gb, need, t.lang)

    def _fit_on_memory(self, t: Turn) -> Reply:
        """A model on "an N GB card": the fit on a typical current card with that much memory."""
        s = self.session
        need = s.need.merge(replace(t.q.need, gpu_count=None, budget=None, min_vram_gb=None))
        return answers.fit_on_memory(self.engine, t.q.memory_gb, need, t.q.need.gpu_count or 1, t.lang)

    def _power(self, t: Turn) -> Reply:
        s = self.session
        names = list(t.referred) or ([s.focus] if s.last_act == "power" and s.focus else s.last_picks[:1])
        same = bool(names) and names[0] == s.focus and not t.q.gpus
        count = t.q.need.gpu_count or (s.focus_count if same else None) or s.need.gpu_count or 1
        psu = t.q.need.psu_w or s.need.psu_w
        if t.q.need.psu_w:  # "I have a 650w": the user's PSU, kept for the picks that follow
            s.need = replace(s.need, psu_w=t.q.need.psu_w)
        compared = s.last_act == "compare" or s.last_act == "question" and s.cards_act == "compare"
        if (compared or s.last_rule == "keep-the-old-card") and len(s.compared) >= 2 and \
                not (t.q.gpus or t.q.ordinals) and _says(t.text, "together_words") and \
                set(s.compared[:2]) & set(s.need.owned_gpus):
            # "PSU for both?" after "I have a 3090, upgrade to a 5090?": the owned card kept beside the new one
            return answers.power_of_cards(self.engine, s.compared[:2], psu, t.lang)
        if compared and s.focus in s.compared and not (t.q.gpus or t.q.ordinals) and \
                _says(t.text, "one_card_pronoun") and not (_says(t.text, "together_words") or _says(t.text, "plural_pronoun")) and \
                not (t.cue("quiet") or t.cue("cooling")):  # ("what about noise, it's in my bedroom": which is quieter)
            names, count = [s.focus], s.compared_counts.get(s.focus) or 1  # "what PSU does it need": the card chosen
        elif compared and len(s.compared) >= 2 and not (t.q.gpus or t.q.ordinals):
            # "PSU?" after "3090 vs 4090" (and "do I need NVLink?" between them): the power of each card compared,
            # not of the first pick before it
            # (in "2× 3090 or one 5090" the card without a count was compared as one)
            counts = [s.compared_counts.get(n) or (1 if s.compared_counts else s.pick_counts.get(n) or count)
                      for n in s.compared[:3]]
            each = [answers.power(self.engine, n, k, psu, t.lang) for n, k in zip(s.compared[:3], counts, strict=True)]
            lead = ()
            if t.cue("quiet"):  # "what about noise, it's in my bedroom": which runs cooler, and how to make it quiet
                draw = answers.power_efficiency(self.engine, s.need, s.compared[:3], counts, t.lang)
                lead = tuple(x for x in (draw, QUIET_ADVICE.get(t.lang)) if x)
            return replace(each[0], paragraphs=lead + tuple(p for r in each for p in r.paragraphs),
                           sources=tuple(dict.fromkeys(x for r in each for x in r.sources)))
        mixed = list(dict.fromkeys(t.q.gpus))
        if len(mixed) >= 2:  # "电源多大才够，一张4090加一张3090": every card named, their draws added up
            reply = answers.power_of_cards(self.engine, [n for n in mixed for _ in range(t.q.card_counts.get(n, 1))],
                                           psu, t.lang)
        else:
            reply = answers.power(self.engine, names[0], count, psu, t.lang)
        if t.cue("quiet") and len(mixed) < 2:  # "how loud is a 4090 under load? it's in my bedroom": how to quiet it
            reply = replace(reply, paragraphs=(QUIET_ADVICE.get(t.lang),) + reply.paragraphs)
        elif t.cue("cooling"):  # "how do I keep it cool in a normal case": the guide's cooling advice leads
            guide = answers.question(self.engine, _asked_as("cooling_query", t.q.without_cards, t.q.text), t.lang,
                                     kinds=("guide",))
            if guide.intent == "question":
                reply = answers.with_advice(reply, guide)
        if t.q.need.model_size_b or t.q.need.model:
            # "两张3090做QLoRA微调32B，可行吗，电源要多大": whether the setup does the job, then its power
            s.need = s.need.merge(replace(t.q.need, budget=None))
            fit = answers.fit(self.engine, names[0], replace(s.need, gpu_count=None), count, t.lang)
            return replace(fit, paragraphs=fit.paragraphs + reply.paragraphs,
                           sources=fit.sources + tuple(x for x in reply.sources if x not in fit.sources))
        return reply

    def _out_of_scope(self, t: Turn) -> Reply:
        """Declined; a budget said for a graphics card all the same ("1440p gaming card under $600") stays for the
        deep-learning question that often follows ("ok forget games, what about for pytorch then")."""
        if t.q.need.budget and "domain" in t.q.cues:
            self.session.need = replace(self.session.need, budget=t.q.need.budget)
        return answers.out_of_scope(t.lang)

    def _shown_count(self, name: str) -> int:
        """How many of the card the answer on screen was about ("2× 3090" as a pick or as the setup in focus)."""
        s = self.session
        return s.pick_counts.get(name) or (s.focus_count if name == s.focus else None) or 1

    def _running_cost(self, t: Turn) -> Reply:
        """"电费每度0.6，3090一天跑10小时一个月多少钱", "and the power bill?" after a pick: the card on the table."""
        s = self.session
        s.need = s.need.merge(Need(usage=t.q.need.usage, kwh_price=t.q.need.kwh_price, region=t.q.need.region))
        if not t.q.gpus and s.last_act in ("compare", "power") and len(s.compared) >= 2 and \
                not _says(t.text, "one_card_pronoun"):
            # "那电费差多少" after "两张3090和一张4090": the setups compared, and what separates them
            setups = [(n, s.compared_counts.get(n, 1)) for n in s.compared[:4]]
            return answers.running_cost_difference(self.engine, setups, s.need, t.lang, self._rents_in_china(t))
        names = list(t.referred) or ([s.focus] if s.focus else s.last_picks[:1])
        count = t.q.need.gpu_count or self._shown_count(names[0])
        return answers.running_cost(self.engine, names[0], count, s.need, t.lang, self._rents_in_china(t))

    def _where_to_buy(self, t: Turn) -> Reply:
        region = t.q.need.region or self.session.need.region or ("cn" if t.lang == "zh" else None)
        reply = answers.where_to_buy(self.engine, t.referred[0], region, t.lang)
        s = self.session
        count = self._shown_count(t.referred[0])
        if count > 1 and not t.q.gpus and (s.need.workloads or s.need.budget):
            # "how much would that setup cost me?" after 2× 3090: the setup's price first
            total = answers.setup_price(self.engine, self._ranking(s.need, t.lang), t.referred[0], count, t.lang)
            if total:
                reply = replace(reply, paragraphs=(total,) + reply.paragraphs)
        if t.q.need.used and _says(t.text, "used_precautions"):
            # "哪里买二手3090靠谱", "is a used 3090 safe on ebay?": the guide's used-market advice too
            guide = answers.question(self.engine, _asked_as("used_market_query", t.q.text), t.lang, kinds=("guide",))
            if guide.intent == "question" and not guide.focus and guide.topic == USED_MARKET_TOPIC:
                reply = answers.with_advice(reply, guide)  # (not another section the words drew: 2020's picks)
        if t.cue("worth") and len(t.referred) == 1:
            # "二手3090喺香港幾錢 抵唔抵買": where and for how much, led by the verdict on buying it
            worth = self._worth(t)
            if worth.intent == "gpu" and worth.paragraphs:
                reply = replace(reply, paragraphs=worth.paragraphs[:1] + reply.paragraphs)
        return reply

    def _ranking(self, need: Need, lang: str):
        e = self.engine
        return rank_or_used(e.catalog, need, e.knowledge_dir, as_of=need.as_of or e.today, lang=lang)

    def _recommend(self, t: Turn) -> Reply:
        s, e, q, lang = self.session, self.engine, t.q, t.lang
        # the cards the user has are built on only when a card is to be added ("我有一张3090，再加一张什么卡"); an
        # upgrade or a new need is ranked on its own
        adding = t.cue("add_card")

        def rank(n: Need):
            # (not adding; an upgrade: the cards the user has are what a pick must beat — "要升级的话买啥" after
            # "我有一张3060")
            beat = n.owned_gpus if t.cue("upgrade") else ()
            r = self._ranking(n if adding else replace(n, owned_gpus=(), upgrade_from=beat), lang)
            if beat and not adding and not r.picks:  # nothing in budget beats it: the best within budget, saying so
                r = self._ranking(replace(n, owned_gpus=()), lang)
                if r.picks:
                    r = replace(r, notes=(answers.no_upgrade_in_budget(beat),) + r.notes)
            return r
        turn_need, before = t.need, s.need
        previous = self._previous_top(lang) if s.last_picks else None
        quiet_cap = None
        need = s.need.merge(turn_need)
        if turn_need.gpu_count and turn_need.gpu_count > 1 and not turn_need.min_vram_gb and s.need.min_vram_gb and \
                need.workload == "llm_inference" and not s.need.gpu_count:
            # "what about two 3090s then" after "more vram?": an LLM split over the cards, so the memory asked for
            # is what they hold together
            need = replace(need, min_vram_gb=round(s.need.min_vram_gb / turn_need.gpu_count, 1))
        notes: list[Text] = []
        d = q.direction
        if "alternative" in q.cues and len(q.gpus) == 1 and turn_need.budget is None and previous is None:
            need = self._cheaper_than_the_card(q.gpus[0], need, lang, notes)
            d = None if need.budget else d
        if d == "cheaper" and turn_need.region and turn_need.budget is None:
            d = None  # "would it be cheaper to buy in China?": the same need priced there, not a lower ceiling
        if d and d != "cheaper":  # "more memory?" after "cheaper?": the ceiling was for that list
            need = replace(need, max_price=None)
        if previous is not None and turn_need.budget is None:
            top = previous
            if d == "cheaper":
                need = replace(need, max_price=Budget(top.total - 0.01, top.price.currency), min_perf=None)
                if "same_memory" in q.cues:  # "cheaper alternative with the same VRAM"
                    need = replace(need, min_vram_gb=max(need.min_vram_gb or 0, top.gpu.vram_gb))
                paid = format_money(top.total, top.price.currency)
                setup = f"{top.count}× {top.gpu.name}" if top.count > 1 else top.gpu.name
                notes.append(Text(f"Looking below your previous top pick's {paid} ({setup}).",
                                  f"在上次首选 {setup}（{paid}）的价格以下找。"))
            elif d == "more_memory" and (turn_need.gpu_count or 1) > (top.count or 1):
                pass  # "显存不够的话双卡可以吗": more memory from more cards, not a bigger card
            elif d == "more_memory" and top.count > 1 and need.workload == "llm_inference":
                # after "2× 16 GB" for an LLM split over cards: more memory is more in all, however many cards
                held = top.gpu.vram_gb * top.count
                need = replace(need, min_total_vram_gb=held + 0.5, gpu_count=None)
                notes.append(Text(f"Asking for more than {held:g} GB in all.", f"要求显存总共超过 {held:g} GB。"))
            elif d == "more_memory":
                need = replace(need, min_vram_gb=top.gpu.vram_gb + 0.5, min_total_vram_gb=None)
                notes.append(Text(f"Asking for more than {top.gpu.vram_gb:g} GB.",
                                  f"要求显存超过 {top.gpu.vram_gb:g} GB。"))
            elif d == "faster":
                # budget aside (kept for the next refinement), but still priced where the user buys
                region = need.region or (region_of_currency(e.knowledge_dir, need.budget.currency)
                                         if need.budget else None)
                if need.budget:
                    s.budget_aside = asdict(need.budget)
                need = replace(need, min_perf=top.perf, budget=None, region=region)
                notes.append(Text(f"Looking for cards faster than {top.gpu.name}, budget aside.",
                                  f"不看预算，找比 {top.gpu.name} 更快的卡。"))
            elif d == "pricier" and need.budget:
                # "something pricier?", "加点钱能上什么": what half as much again buys over the top pick
                double = _says(q.text, "budget_double")
                raised = Budget(round(need.budget.amount * (2 if double else 1.5)), need.budget.currency)
                need = replace(need, budget=raised, min_perf=top.perf)
                notes.append(Text(f"{'Doubling the budget' if double else 'Raising the budget by half'}, to {raised}: "
                                  f"cards faster than {top.gpu.name}.", f"预算提高{'一倍' if double else '一半'}到 {raised}："
                                  f"找比 {top.gpu.name} 更快的卡。"))
            elif d == "less_power" and top.gpu.tdp_w and turn_need.quiet:
                # "make it quiet, it sits in my bedroom": as much memory as before, drawing less if something does;
                # the cap is this list's, not the conversation's (a new job next is not held to it)
                quiet_cap = top.gpu.tdp_w - 1
                need = replace(need, min_vram_gb=max(need.min_vram_gb or 0, top.gpu.vram_gb))
            elif d == "less_power" and top.gpu.tdp_w:
                need = replace(need, max_power_w=top.gpu.tdp_w - 1)
                notes.append(Text(f"Looking for cards under {top.gpu.tdp_w:.0f} W.",
                                  f"找功耗低于 {top.gpu.tdp_w:.0f} W 的卡。"))
        if d == "less_power" and previous is None and need.max_power_w is None and need.psu_w is None and \
                not (turn_need.quiet and not _says(q.text, "power_words")):
            # "$1.2k, low power" in a first message: a cap from data, said so ("must be quiet" alone is no cap: noise
            # is the cooler's, and a power limit quiets a bigger card, as the advice under the picks says)
            cap = low_power_w(e.knowledge_dir)
            need = replace(need, max_power_w=cap)
            notes.append(Text(f"Quiet and low power: cards up to {cap:.0f} W of board power (say a number to change "
                              "it).", f"按安静、低功耗来选：显卡功耗不超过 {cap:.0f} W（可以直接说一个瓦数来改）。"))
        if d != "faster" and turn_need.budget is None and s.budget_aside:  # (set aside by "faster?", stretched by
            # "more memory?": the next refinement is back within the budget the user gave)
            need = replace(need, budget=Budget(**s.budget_aside), min_perf=None)
            notes.append(Text(f"Back within your budget of {need.budget}.", f"回到你的预算 {need.budget} 以内。"))
        if d != "faster":
            s.budget_aside = None
        if turn_need.region == "cn" and need.budget and need.budget.currency == "USD" and turn_need.budget is None:
            on = need.as_of or e.today or date.today()
            converted = e.catalog.fx.convert(need.budget.amount, "USD", "CNY", on)
            need = replace(need, budget=Budget(round(converted), "CNY", approximate=True))
            notes.append(Text(f"In China: the same budget is about ¥{converted:,.0f}; prices below are Chinese "
                              "prices where I have them.", f"换成国内：同样预算约 ¥{converted:,.0f}，下面尽量用国内价格。"))
        if turn_need.region:
            need = self._priced_abroad(need, turn_need, notes)
        trained_here = bool(need.workload) and bool(
            load_workloads(e.knowledge_dir).get(need.workload, {}).get("fine_tuned_in_place"))
        if q.cues & {"finetune", "train_words"} and (previous is not None and not turn_need.workloads or trained_here) \
                and need.workload and need.workload not in LLM_WORKLOADS and not turn_need.min_vram_gb:
            # "and for fine-tuning whisper?" after picks, "€2,500 for SDXL fine-tuning": training the kind of model
            # the job runs takes the memory that is comfortable, not the minimum for running it
            spec = workload_spec(e.knowledge_dir, need.workload, need.as_of or e.today or date.today())
            floor, model = fine_tuning_floor(need, spec, e.knowledge_dir)
            if floor > (need.min_vram_gb or spec.min_vram_gb):
                need = replace(need, min_vram_gb=floor)
                notes.append(Text(f"For fine-tuning{f' {model}' if model else ''}: cards with at least {floor:g} GB.",
                                  f"按微调{f' {model} ' if model else ''}来选：显存至少 {floor:g} GB。"))
        if need.size_names_an_llm:  # "cheapest card for 70B", "a card for a 14B model"
            need = replace(need, workloads=("llm_finetune" if need.finetune_method else "llm_inference",))
        s.need = need
        if need.workload is None and need.budget is None and need.min_vram_gb is None and len(q.gpus) == 1 and \
                "alternative" not in q.cues and d is None:
            # nothing to rank on, and a card named ("想buy个二手A100 40G，多少钱合理"): the card, not "what budget?";
            # several of it ("两张3090呢"): that setup
            if turn_need.gpu_count and turn_need.gpu_count > 1:
                return answers.setup_sheet(e, need, q.gpus[0], turn_need.gpu_count, lang)
            return answers.gpu_card_for(e, need, q.gpus[0], lang)
        if need.workload is None and need.budget is None and need.min_vram_gb is None:
            s.awaiting = "budget"
            return answers.ask_budget_and_workload(lang)
        if need.workload is None and need.min_vram_gb is None and not _says_generic(q) and \
                not (q.gpus and "alternative" in q.cues) and \
                not ((s.last_picks or s.last_rule == "recommend" and not s.awaiting) and need.budget) and \
                not _asks_for_a_pick_in_context(t, need, s) and \
                s.awaiting != "workload":  # asked once and answered with something else: assume, never ask twice
            s.awaiting = "workload"
            return answers.ask_workload(lang, need)
        r = rank(need)  # (no job named: general deep learning, whose caveat says so and asks for the job)
        if need.form_factor == "laptop" and need.vendor in (None, "NVIDIA") and need.gpu_count in (None, 1):
            return answers.laptop_gpus(e, r, lang)  # laptop GPUs, which have no prices here: not desktop picks
        if d == "pricier" and previous is not None and not r.picks and need.min_perf:
            # "what if I double the budget" when nothing faster costs that much: the top pick stays, and what the
            # next step up would cost, rather than "nothing fits"
            faster = rank(replace(need, budget=None))
            step = min(faster.candidates, key=lambda c: c.total, default=None)
            r = rank(replace(need, min_perf=None))
            s.need = need = replace(need, min_perf=None)
            up = _next_step_up(step, lang) if step is not None else Text("", "")
            notes.append(Text(f"Nothing faster than {previous.gpu.name} costs up to {need.budget}, so it stays the "
                              f"pick.{up.en}", f"{need.budget} 以内没有比 {previous.gpu.name} 更快的卡，所以它还是首选。{up.zh}"))
        if quiet_cap is not None and previous is not None:
            # quieter is less power in all (four 170 W cards are no quieter than two 250 W ones), from cards with fans
            def drawn(c):
                return c.count * (c.gpu.tdp_w or 0)
            quieter = rank(replace(need, max_power_w=quiet_cap))
            w = f"{drawn(previous):.0f}"
            if quieter.picks and drawn(quieter.picks[0].candidate) < drawn(previous):
                r = quieter
                notes.append(Text(f"Quieter: setups with as much memory that draw less than {w} W in all.",
                                  f"更安静：显存不少于之前、总功耗低于 {w} W 的方案。"))
            elif r.picks and r.picks[0].candidate.gpu == previous.gpu:
                notes.append(Text(f"Nothing with as much memory draws less than {w} W in your budget, so these stay "
                                  "the picks: make them quiet as below.",
                                  f"预算内没有显存一样大、总功耗又低于 {w} W 的方案，所以推荐不变，按下面的办法让它安静。"))
            elif previous.gpu.segment == "datacenter":
                notes.append(Text(f"{previous.gpu.name} is out: a passive server card needs a server's loud fans.",
                                  f"{previous.gpu.name} 不再推荐：被动散热的服务器卡要靠服务器里很吵的风扇。"))
        if need.quiet and r.picks:
            notes.append(QUIET_ADVICE)
        if len(q.gpus) == 1 and r.picks and t.act in ("fit", "gpu_info", "compare", "question", "memory") and \
                q.gpus[0] != r.picks[0].candidate.gpu.name:  # "预算5k, qlora 8b, 4060ti 16g ok 吗": that card first
            notes.insert(0, answers.asked_card_in_ranking(e, q.gpus[0], r))
        if turn_need.region and previous is not None and turn_need.budget is None:
            notes.extend(answers.price_there(e, previous, r, need))
        if d == "cheaper" and previous is None and need.budget is None and r.candidates:
            # "the cheapest card that runs a 7B model", "cheap as possible": the cheap end of what does the job, used
            # cards included unless the user said new (the cheapest way to the memory is usually a used card)
            if need.used is None:
                need = replace(need, used=True)
                r = rank(need)
            low = min(c.total for c in r.candidates)
            need = replace(need, budget=Budget(round(low * 1.3), r.currency, approximate=True, cheapest=True))
            s.need = need
            r = rank(need)
            notes.append(Text(f"Looking at the cheapest cards that do the job (up to about {need.budget}), used ones "
                              "included unless you say \"new only\".",
                              f"只看能胜任的最便宜的卡（约 {need.budget} 以内），含二手；只要新卡请说“只要新卡”。"
                              if need.used else f"只看能胜任的最便宜的卡（约 {need.budget} 以内）。"))
        elif d == "more_memory" and previous is not None and not r.picks and need.budget and \
                turn_need.budget is None:
            # "more memory?" when the budget holds nothing bigger: the cheapest cards that have it, over the budget
            unbounded = rank(replace(need, budget=None))
            low = min((c.total for c in unbounded.candidates if c.price.currency == need.budget.currency),
                      default=None)
            if low is not None and low <= 2 * need.budget.amount:  # a stretch, not another class of card
                s.budget_aside = asdict(need.budget)
                over = Budget(round(low * 1.15), unbounded.currency, approximate=True)
                notes.append(Text(f"Nothing within your budget of {need.budget} has more memory; the cheapest cards "
                                  f"that do, over budget (up to about {over}):",
                                  f"你的预算 {need.budget} 以内没有显存更大的卡；超出预算、显存更大的最便宜选择（约 {over} 以内）："))
                need = replace(need, budget=over)
                s.need = need
                r = rank(need)
        elif d == "cheaper" and previous is not None and not r.picks and need.min_vram_gb and turn_need.budget is None:
            # "cheaper?" when the top pick is already the cheapest with the memory asked for: say so, and what less
            # memory would cost (the floor stays in the conversation's need)
            lower = rank(replace(need, min_vram_gb=None))
            if lower.picks:
                top = previous
                paid = format_money(top.total, top.price.currency)
                notes.append(Text(f"Nothing with {need.min_vram_gb:g} GB costs less: {top.gpu.name} ({paid}) is already "
                                  f"the cheapest that has it. Cheaper cards with less memory, if you can live with it:",
                                  f"显存 {need.min_vram_gb:g} GB 的卡里没有更便宜的：{top.gpu.name}（{paid}）已经是最便宜的。"
                                  "如果能接受更小的显存，更便宜的选择："))
                r = lower
        elif _says(q.text, "best_that_works") and need.budget is None and r.candidates:
            # "what's the best that works with my current psu": the fastest cards within the limits said, price aside
            top = max(r.candidates, key=lambda c: c.perf)
            need = replace(need, budget=Budget(round(top.total), top.price.currency, approximate=True))
            s.need = need
            r = rank(need)
            limit = Text(f" with your {need.psu_w:.0f} W PSU", f"（电源 {need.psu_w:.0f} W）") if need.psu_w else Text("", "")
            notes.append(Text(f"The fastest cards that work{limit.en}, price aside (up to about {need.budget}).",
                              f"能用的最快的卡{limit.zh}，不考虑价格（约 {need.budget} 以内）。"))
        elif d == "faster" and previous is None and need.budget is None and r.candidates:
            # "不差钱", "money is no object", "the fastest card for SD": the fastest that does the job, whatever it costs
            top = max(r.candidates, key=lambda c: c.perf)
            need = replace(need, budget=Budget(round(top.total), top.price.currency, approximate=True))
            s.need = need
            r = rank(need)
            notes.append(Text(f"Price aside: the fastest cards for this job (up to about {need.budget}).",
                              f"不考虑价格：这类任务最快的卡（约 {need.budget} 以内）。"))
        floor = workload_spec(e.knowledge_dir, need.workload, need.as_of or e.today or date.today()) \
            if trained_here else None
        if not r.picks and floor is not None and need.min_vram_gb == floor.comfortable_vram_gb and \
                not turn_need.min_vram_gb:
            # the training floor ("for fine-tuning: at least 24 GB") rules everything out ("new only", a smaller
            # budget): what has less, said plainly, rather than nothing
            lower = rank(replace(need, min_vram_gb=None))
            if lower.picks:
                notes.append(Text(f"Nothing with {need.min_vram_gb:g} GB fits this; the cards below have less. "
                                  "Fine-tuning on them works with smaller batches, gradient checkpointing or 8-bit "
                                  "optimizers (slower, and the largest models may not fit).",
                                  f"满足 {need.min_vram_gb:g} GB 的卡这次都不合适；下面的卡显存小一些。在它们上面微调要用更小的 "
                                  "batch、梯度检查点或 8 位优化器（更慢，最大的模型可能装不下）。"))
                r = lower
        if not r.picks and not (need.min_vram_gb or need.min_total_vram_gb or need.model_size_b or need.model):
            # the job's usual floor ("deep learning in general: at least 12 GB") rules everything out (a school's
            # ¥3,000 new cards): the cards that train its small models, said plainly, rather than nothing
            lower = rank(replace(need, small_models=True))
            if lower.picks:
                r = lower
        if t.cue("memory_whether") and q.memory_gb and r.picks and need.workload:
            notes.append(_memory_asked_about(e, need, r, q.memory_gb))
        if q.model_family and need.workload in LLM_WORKLOADS and not need.model_size_b and r.picks:
            top = r.picks[0].candidate  # "跑deepseek": which of the family the top pick holds
            family = answers.family_note(e, q.model_family, top.gpu.vram_gb * top.count, lang)
            if family:
                notes.append(family)
        if q.traditional and turn_need.budget and turn_need.budget.currency == "CNY" and not q.currency_written and \
                need.region is None:
            # "預算兩萬以內": written in Traditional characters, so perhaps NT$ or HK$; say how it was read
            notes.append(Text(f"I read {turn_need.budget} as yuan; in Taiwan or Hong Kong write NT$ or HK$ (\"NT$30000\").",
                              f"這筆預算按人民幣（{turn_need.budget}）理解；如果是新台幣或港幣，寫上 NT$ 或 HK$（例如「NT$3萬」）。"))
        if need.form_factor == "laptop":
            notes.append(Text("My catalog has desktop cards; a laptop GPU of the same name draws less power and often "
                              "has less memory, so take these as an upper bound.",
                              "我的目录里是台式机显卡；同名的笔记本显卡功耗更低、显存常常更小，下面的结果只能当上限参考。"))
        if need.vendor == "Apple" and need.workload != "llm_inference":
            notes.append(Text("Macs have no CUDA: they are an option for running LLMs (their unified memory holds big "
                              "models), not for training; ask e.g. \"which Mac for a 70B model?\".",
                              "Mac 没有 CUDA：它们的统一内存适合跑大模型推理，不适合训练；可以问“跑 70B 用哪台 Mac？”。"))
        if r.used_fallback:
            s.need = replace(s.need, used=True)  # follow-ups ("cheaper?", "faster?") continue from what was shown
            if r.used_why == "no_new":
                notes.append(Text("No new card fits, so these include used-market prices.",
                                  "没有新卡能满足，下面包含二手价格。"))
        if previous is not None and [p.candidate.gpu.name for p in r.picks] == s.last_picks and \
                r.picks[0].candidate.count == previous.count:  # (2× → 4× of one card is a change)
            same = _unchanged(before, need, turn_need, replace(q, direction=d))
            if same is not None:
                notes.append(same)
        if turn_need.model or turn_need.model_size_b or d == "cheaper":  # 405B, 671B: what costs less than a rig
            china = need.region == "cn" or (need.region is None and lang == "zh")
            notes.extend(answers.routes_to_a_big_model(e, need, lang, need.as_of or e.today or date.today(), china))
        reply = answers.recommend(e, r, lang, notes)
        if turn_need.used and previous is not None and _asks(q.text) and r.picks:
            # "used ok?", "二手的可以吗" after picks: whether it is, in the guide's words (its paragraph on what to check,
            # read from the file: a scorer turn does not load the search index), after the picks with used cards
            advice = answers.guide_paragraph(e, USED_MARKET_TOPIC, lang, words("slots", "used_checklist"))
            if advice is not None:
                para, source = advice
                reply = replace(reply, paragraphs=reply.paragraphs + (para,),
                                sources=reply.sources + tuple(x for x in (source,) if x not in reply.sources))
        s.awaiting = "budget" if need.budget is None and need.min_perf is None else None
        return reply

    def _cheaper_than_the_card(self, name: str, need: Need, lang: str, notes: list[Text]) -> Need:
        """"cheaper alternative to 4090 with 24gb?", "4090平替": cards with at least its memory for less than it costs
        where the user buys (new, else used), used ones included."""
        e = self.engine
        g = e.catalog.get(name)
        cur = answers.price_list_currency(need, lang)
        on = need.as_of or e.today or date.today()
        price = g and (g.price(cur, "new", on, e.catalog.fx) or g.price(cur, "used", on, e.catalog.fx))
        if g is None or price is None:
            return need
        notes.append(Text(f"Cheaper than {g.name} ({price}{' used' if price.market == 'used' else ''}) with at least "
                          f"its {g.vram_gb:g} GB, used cards included:",
                          f"比 {g.name}（{price}{' 二手' if price.market == 'used' else ''}）便宜、显存不少于它的 "
                          f"{g.vram_gb:g} GB（含二手）："))
        return replace(need, budget=Budget(round(price.amount * 0.95), price.currency, cheapest=True),
                       min_vram_gb=max(need.min_vram_gb or 0, g.vram_gb), used=need.used if need.used is not None else True)

    def _priced_abroad(self, need: Need, turn_need: Need, notes: list[Text]) -> Need:
        """"在台湾买的话呢", "I'm in Germany": a region served by the US price list. A budget in yuan from earlier in
        the chat becomes dollars; the reply says which prices it shows and what the budget is in the local currency."""
        e = self.engine
        region = load_regions(e.knowledge_dir).get(turn_need.region)
        if region is None or region.price_list == "CNY":
            return need
        on = need.as_of or e.today or date.today()
        b = stated = need.budget
        if b and b.currency == "CNY" and turn_need.budget is None:
            amount = round(e.catalog.fx.convert(b.amount, b.currency, region.price_list, on))
            need = replace(need, budget=Budget(amount, region.price_list, approximate=True))
            b = need.budget
        about = [format_money(e.catalog.fx.convert(b.amount, b.currency, cur, on), cur)
                 for cur in dict.fromkeys((b.currency, region.currency)) if cur != stated.currency] if b else []
        name, about = region.name, " / ".join(about)
        said = Text(f"For {name.en}: prices below are US market prices in USD" +
                    (f"; your budget of {stated} is about {about}." if about else "."),
                    f"按{name.zh}来看：下面是美国市场价（美元）" + (f"；你的预算 {stated} 约合 {about}。" if about else "。"))
        notes.append(said)
        if region.note:
            notes.append(region.note)
        return need

    def _previous_top(self, lang: str):
        s = self.session
        r = self._ranking(s.need, lang)
        return candidate_for(self.engine.catalog, r, s.last_picks[0], self.engine.knowledge_dir)



USED_MARKET_TOPIC = "used-market"  # the guide's section on buying used cards (knowledge/guide)

QUIET_ADVICE = Text(
    "Noise comes mostly from the cooler: choose a model with a large triple-fan cooler (many stop their fans at idle), "
    "not a blower or a passive server card, and cap the power at 70–80 % (nvidia-smi -pl, or an undervolt): about "
    "5–10 % slower, much quieter and cooler.",
    "噪音主要来自散热器：选大三风扇的型号（很多待机时风扇停转），不要涡轮卡或被动散热的服务器卡；再把功耗限制在 70–80 %"
    "（nvidia-smi -pl 或降压），速度只慢约 5–10 %，声音和温度都低很多。")

_ALREADY = {"used": Text("used cards are already included", "已经包含二手卡"),
            "workloads": Text("they are already for this job", "已经是按这个用途选的"),
            "budget": Text("the budget is the same", "预算没变"),
            "vendor": Text("they are already from this maker", "已经是这个品牌的卡")}


def _unchanged(before: Need, need: Need, turn: Need, q: Query) -> Text | None:
    """A follow-up that leaves the picks as they were ("what about used?" when used cards are in, "cheaper?" at the
    bottom of the range) is told so, rather than shown the same answer as if it were new. None when the need moved
    and the same cards still win: the reply's own lines say what changed."""
    stated = turn.stated()
    why = [_ALREADY[k] for k, v in stated.items() if k in _ALREADY and getattr(before, k) == v]
    if why and all(getattr(before, k) == v for k, v in stated.items()) and not q.cues & {"finetune", "serving"}:
        return Text("Same picks: " + "; ".join(w.en for w in why) + ".", "推荐不变：" + "；".join(w.zh for w in why) + "。")
    if q.direction:
        return Text("Nothing else fits that better, so the picks stay the same.", "没有更合适的卡，推荐保持不变。")
    if need == before:
        return Text("That doesn't change the picks: they stay the same.", "这一点不影响推荐，结果和上次一样。")
    return None


def _says_generic(q: Query) -> bool:
    """Deep learning with nothing more specific: "for ML", a framework ("best card for PyTorch under $700"), or
    training with no model named ("a 4-GPU workstation for training, $10k")."""
    return "general" in q.need.workloads or _says(q.text, "frameworks") or "train_words" in q.cues


def _asks_for_a_pick_in_context(t: Turn, need: Need, s: Session) -> bool:
    """"Which AMD card is best for $1000?" after a question about deep learning, or with a vendor chosen, or "recommend
    me the best card, $1000": a budget in a request for a pick is enough to answer for general deep learning (the reply says so and offers the workloads as
    next steps) instead of asking what it is for."""
    asks = t.act == "recommend" or "pick_request" in t.q.cues
    return bool(need.budget) and asks and bool(need.vendor or s.last_act in ("question", "rent", "power", "gpu_info") or
                                               "pick_request" in t.q.cues)


def _has_a_job(c: Conversation, t: Turn) -> bool:
    """A model or workload to check a card against: this message's, or the conversation's; a framework or a word of
    training is deep learning in general ("我有张6800xt，能拿来跑pytorch训练吗")."""
    n, s = t.need, c.session.need
    return bool(n.model_size_b or n.workloads or s.model_size_b or s.workloads or _says_generic(t.q))


def _asks_about_a_vendor(t: Turn) -> bool:
    """A question about a maker other than NVIDIA with nothing else stated ("is AMD ok? its cheaper", "A卡能用吗"), or
    a move to it ("ok but i dont want to leave macos"): besides the maker's cards, the answer owes what the guide says
    of its software."""
    n = t.q.need
    return n.vendor not in (None, "NVIDIA") and replace(n, vendor=None, used=None, workloads=()).is_empty() and \
        (_asks(t.text) or t.act in ("refine", "why_not")) and _words_besides(t.text, [words("slots", "vendor", n.vendor)])
    # ("is huawei ascend usable for pytorch training?", "华为的卡能跑大模型吗": a job named with the maker is still this)


def _has_picks(c: Conversation, t: Turn) -> bool:
    return bool(c.session.last_picks)


def _asks_about_the_guide(c: Conversation, t: Turn) -> bool:
    """A question about what a source said ('What did Lambda recommend for $8000?'), not a need of one's own."""
    n = t.q.need
    return "guide_source" in t.q.cues and not (n.budget and n.workloads) and \
        not ((t.q.gpus or len(answers.platforms_named(c.engine, t.q.text)) >= 2) and "rent" in t.q.cues)
    # ("A100 price on vast.ai vs Lambda", "lambda cloud和autodl比": Lambda the cloud, a rental asked)


def _always(c: Conversation, t: Turn) -> bool:
    return True


# rules that answer a question about one card: a bare "and the 5090?" after one of them asks it of that card
_CARD_RULES = frozenset({"worth-for-llm", "worth", "gpu-card", "card-advice", "fit", "what-fits", "power", "where-to-buy",
                         "rent", "rent-vs-buy"})
# rules whose answer is about renting against buying: hours said next ("what if 40 hours a week?") work it out again
_RENT_BUY_RULES = frozenset({"rent-vs-buy", "rent-or-buy", "rent-or-buy-with-a-need"})

_CONTEXT_SIZES = {float(k * 1000) for k in (4, 8, 16, 32, 64, 128, 256, 512)}

@functools.lru_cache(maxsize=1)
def _rent_or_buy_shape() -> re.Pattern[str]:
    """"租GPU定買GPU好", "rent a gpu or buy a used one": renting, a few words, "or", buying (or buying first: "buy a
    4060 or just use colab")."""
    shape = words("slots", "rent_or_buy_shape")
    rent, either, buy = (words_pattern(tuple(shape[k])).pattern for k in ("rent", "or", "buy"))
    return re.compile(f"(?:{rent}).{{0,8}}?(?:{either}).{{0,4}}?(?:{buy})|(?:{buy}).{{0,10}}?(?:{either}).{{0,8}}?(?:{rent})")


USED_TRUST_WINDOW = 8  # characters between a used market's word and the question whether to trust it


def _trust_in_used_asked(text: str) -> bool:
    """"咸鱼上买靠谱吗", "is ebay legit for gpus": a used market or card named, then whether it can be trusted."""
    t = normalise(text)
    asks = find_any(t, words("slots", "used_safety_ask"))
    return any(0 <= a - b <= USED_TRUST_WINDOW for _, b in find_any(t, words("slots", "used")) for a, _ in asks)


def _rent_or_buy_asked(q: Query) -> bool:
    """"Rent or buy?", "租卡还是买卡划算", "买3090还是租" (read with the card as "@"), "how many hours until buying pays
    off" (not a miner's payback)."""
    cards_as_at = re.sub(r"(?<=@)\s+|\s+(?=@)", "", q.delexicalised)  # the mask keeps a name's length in spaces
    asked = _says(q.text, "rent_or_buy") or has_any(cards_as_at, words("slots", "rent_or_buy")) or \
        _says(q.text, "break_even") or _rent_or_buy_shape().search(normalise(q.text)) is not None
    return asked and "offtopic" not in q.cues


def _upgrade_or_rent(t: Turn) -> bool:
    """"I've got a 1660 super, it's getting slow, my friend says rent on vast.ai, budget 600-800": a card owned, money
    and a job beside a word of renting weigh a new card against renting, not the hours the money rents."""
    return t.act == "rent" and bool(t.q.need.owned_gpus and t.q.need.budget and t.q.need.workloads) and \
        not (t.cue("duration") or _says(t.text, "hourly_price_asked"))


def _works_out_rent_or_buy(c: Conversation, t: Turn) -> bool:
    """Rent or buy with numbers: asked with the user's hours (now or earlier in the chat), asked as "how many hours until
    it pays off", or hours said right after a rent-or-buy answer ("what if it's 40 hours a week?", "那一天用10小时呢").
    A new need that mentions hours in passing ("$1500 for CNNs, 8 hours a day") is a request for picks."""
    s = c.session
    if t.need.budget and t.need.workloads:
        return False
    if _rent_or_buy_asked(t.q):
        return bool(t.need.usage or s.need.usage) or _says(t.text, "break_even")
    if s.last_act == "rent" and s.focus and (t.need.usage or s.need.usage) and _says(t.text, "which_is_cheaper") and \
            not t.q.gpus:
        return True  # "一年下来哪个划算，我大概每天用6小时" after a rental's price: that card, rented against bought
    if s.last_rule == "rent-vs-buy" and s.need.usage and t.short and "pick_request" not in t.q.cues and \
            not (t.q.need.budget or t.q.need.workloads or t.q.direction) and t.act not in COMMANDS and \
            not _says(t.text, "hourly_price_asked") and (len(t.q.gpus) == 1 or answers.platforms_named(c.engine, t.q.text) or t.q.need.region):
        return True  # "what about a 3090 instead", "in china with autodl prices?" after the sum: the sum again
    return t.need.usage is not None and s.last_rule in _RENT_BUY_RULES and "pick_request" not in t.q.cues


def _rental_cards(c: Conversation, t: Turn) -> list[str]:
    """The cards a rental comparison is about: those referred to, and the card in focus when "it" is one of them
    ("compare it with the A100" after a rental answer about the H100)."""
    s = c.session
    cards = list(t.referred)
    if "pronoun" in t.q.cues and s.focus and s.focus not in cards:
        cards.insert(0, s.focus)
    return cards


def _speed_of_llm_picks(c: Conversation, t: Turn) -> bool:
    """"速度大概多少" after picks for running LLMs with no model named: the top pick's models and their tokens/s."""
    s = c.session
    return t.cue("speed") and s.last_act in ("recommend", "refine") and bool(s.last_picks) and \
        "llm_inference" in s.need.workloads and not (s.need.model_size_b or s.need.model) and not t.q.gpus


def _asks_about_a_free_tier(c: Conversation, t: Turn) -> bool:
    """One notebook platform named with a job in the chat, asked whether it does ("enough", "跑得动吗", "worth it") or
    about its free GPUs."""
    if t.act == "out_of_scope" or not (t.need.workloads or c.session.need.workloads):
        return False
    if not (_says(t.text, "enough_question") or _says(t.text, "enough_word") or _says(t.text, "will_it_do") or
            _says(t.text, "free_tier_asked") or t.q.cues & {"what_fits", "worth"}):
        return False  # (the words first: looking the platforms up reads their table, on every scorer turn otherwise)
    platform = _free_tier_named(c, t)
    if platform is None:
        return False
    # the cards named are that free tier's ("Kaggle gives me free P100/T4 - is that enough…"), not another card
    return set(t.q.gpus) <= answers.free_tier_cards(c.engine, platform)


def _free_tier_named(c: Conversation, t: Turn) -> str | None:
    """The platform whose free GPUs the message asks about: the first named that has a free tier on file ("Kaggle
    gives me free P100/T4 - enough, or should i pay for colab pro?": Kaggle)."""
    return next((p for p in answers.platforms_named(c.engine, t.q.text) if answers.free_tier_of(c.engine, p)), None)


_TRAINING_JOB_SLOTS = ("finetune_method", "model_size_b", "model", "train_tokens", "dataset_samples", "epochs",
                       "gpu_count", "precision_bits")


def _changes_the_timed_job(c: Conversation, t: Turn) -> bool:
    """A short turn right after a training time or cost that changes only the job (method, model, data, epochs, how
    many cards): "换成LoRA呢", "3 epochs?", "what about with 8 of them"."""
    stated = set(t.q.need.stated()) - {"workloads"}
    return c.session.last_rule in ("training-time", "training-cost", "training-again") and t.short and \
        bool(stated) and stated <= set(_TRAINING_JOB_SLOTS) and t.act != "out_of_scope" and \
        not t.q.gpus and not _says(t.text, "break_even") and not _rent_or_buy_asked(t.q)


def _trains_on_images(c: Conversation, t: Turn) -> bool:
    """A run over images to time: a public image dataset named, or a number of images for a vision job; not an LLM."""
    n = c.session.need.merge(t.q.need)
    return not n.model_size_b and bool(t.q.need.dataset or t.q.need.dataset_samples and "cnn" in n.workloads or
                                       n.dataset and c.session.last_rule == "image-training-time" and t.short)


def _prices_the_timed_job(c: Conversation, t: Turn) -> bool:
    """A rental question ("用租的话呢", "ok what if I rent H100s for that", "and the cost if I rent on RunPod") or a
    question of the total ("跑完要多少钱") right after a training job was timed: what that job costs rented, not a
    rate card. A rate asked ("一小时多少钱"), new money, rent-or-buy and break-even have answers of their own."""
    s = c.session
    timed = s.last_rule in ("training-time", "training-cost", "training-again") or \
        bool(s.need.train_tokens or s.need.dataset_samples) and s.last_act in ("fit", "rent") or \
        bool(t.q.need.train_tokens or t.q.need.dataset_samples) and (t.cue("price") or _says(t.text, "total_cost"))
    # ("how much would it cost to fine tune llama 3 70b with qlora on runpod? dataset is ~50k samples": said at once)
    trained = _fine_tune_in_view(c, t) or bool(s.need.model_size_b and s.need.train_tokens)  # (or from scratch)
    if not timed or t.q.need.budget or t.act == "out_of_scope" or not trained:
        return False
    if _says(t.text, "break_even") or _rent_or_buy_asked(t.q) or \
            _says(t.text, "hourly_price_asked") and not _says(t.text, "total_cost"):
        return False
    # "and the cost in total" right after the times of several cards: that answer's table already prices each
    again = s.last_rule == "training-time" and not t.q.gpus and not answers.platforms_named(c.engine, t.q.text)
    # ("一个epoch大概多少钱，数据大概5亿token" after a fit of that fine-tune: the data and a price asked together)
    data_priced = bool(t.q.need.train_tokens or t.q.need.dataset_samples) and t.cue("price")
    return t.act == "rent" or (_says(t.text, "total_cost") or data_priced) and not again


def _fine_tune_in_view(c: Conversation, t: Turn) -> bool:
    """A model size and a fine-tune, said now or earlier in the chat."""
    need = c.session.need.merge(replace(t.q.need, budget=None))
    return bool(need.model_size_b) and bool(need.finetune_method or "llm_finetune" in need.workloads or
                                            t.cue("finetune") or t.q.need.train_tokens)  # ("10B tokens": trained on)


def _weighs_rentals(c: Conversation, t: Turn) -> bool:
    """Two cards (or more) weighed as rentals: named with a rental word (a platform's name is one: "AutoDL 上 A100 和
    4090 哪个划算") or after a rental answer, and asked which is better value or compared ("renting: H100 vs A100?");
    or, right after such an answer, another card or another job ("and the H100?", "for LLM fine-tuning?"). (Not by
    looking the platforms up: that loads retrieval, a tenth of a second of every cold "4090 vs 3090".)"""
    s, q = c.session, t.q
    if q.need.budget:
        return False
    if not q.gpus and not q.ordinals and _says(t.text, "rental_value") and \
            len(answers.platforms_named(c.engine, q.text)) == 1:
        return True  # "autodl上租哪个划算", "on runpod which gpu is the best value": that platform's cards, per unit of work
        # (two platforms, "AutoDL vs RunPod which is cheaper", are weighed against each other by the rent answer)
    if "pick_request" in q.cues:
        return False
    if len(_rental_cards(c, t)) >= 2:
        # "compare the first two" means the picks as bought unless it says rent: a rental answer lists no ordinals
        rental = "rent" in q.cues or (s.follow_up == "rent" and not q.ordinals)
        return rental and (_says(t.text, "rental_value") or t.cue("compare") or _says(t.text, "which_of_them"))
    return s.last_rule == "rental-value" and t.short and not q.ordinals and not t.cue("price") and (
        (len(q.gpus) == 1 and replace(t.need, usage=None).is_empty()) or
        (not q.gpus and bool(t.need.workloads or t.need.model_size_b)))


def _vendor_names(vendor: str) -> tuple[str, ...]:
    """A maker by any of its names ("Mac", "苹果", "A卡"); one the lexicon has no words for, by its own name."""
    return tuple(load("slots")["vendor"].get(vendor, ())) or (vendor.lower(),)


def _mentions_vendor(paragraphs: tuple[str, ...], vendor: str) -> bool:
    return any(has_any(normalise(p), _vendor_names(vendor)) for p in paragraphs)


VENDOR_SUBJECT_SHARE = 0.3  # a paragraph naming a maker in its first 30 % is about that maker


def _about_the_maker(reply: Reply, vendor: str) -> Reply:
    """A guide answer to a question about a maker ("为什么大家都推荐N卡", "7900xtx 能跑 pytorch 吗"): the paragraphs
    about that maker, first named earliest, not those naming it in passing at their end (unchanged when none is)."""
    about_it = tuple(sorted((p for p in reply.paragraphs if _vendor_at(p, vendor) <= VENDOR_SUBJECT_SHARE),
                            key=lambda p: _vendor_at(p, vendor)))
    return replace(reply, paragraphs=about_it) if about_it else reply


def _vendor_at(paragraph: str, vendor: str) -> float:
    """Where a paragraph first names the maker, as a share of its length (1.0: not at all)."""
    found = find_any(normalise(paragraph), _vendor_names(vendor))
    return min((a for a, _ in found), default=len(paragraph)) / max(1, len(paragraph))


def _makes_a_choice(c: Conversation, t: Turn) -> bool:
    """"alright I'll go with the first one, ty", "那就第一个吧 谢了": one card of those on screen chosen, asking
    nothing more ("I'll take the 4090, where do I buy it?" asks where)."""
    s, q = c.session, t.q
    return len(t.referred) == 1 and t.referred[0] in s.last_picks + s.compared and \
        (_says(t.text, "choice_made") or (_says(t.text, "cues", "thanks") and bool(q.ordinals or "pronoun" in q.cues))) \
        and not _asks(t.text) and replace(q.need, used=None).is_empty() and not q.direction


def _memory_of_the_job_on_own_card(c: Conversation, t: Turn) -> bool:
    """"那用LoRA要多少显存，我是4070 12g": the memory the job on the table needs, asked with the card the user has: the
    job on that card, not the card's memory figure."""
    return t.cue("memory_question") and bool(t.q.gpus) and set(t.q.gpus) <= set(t.q.need.owned_gpus) and \
        _has_a_job(c, t)


def _upgrade_on_screen(s: Session) -> tuple[str, str] | None:
    """The card the user owns and the one just weighed as its upgrade: the comparison just shown, or the top pick of an
    upgrade's ranking."""
    mine = set(s.need.owned_gpus) | set(s.need.upgrade_from)
    if s.last_act in ("recommend", "refine") and s.last_picks and len(mine) == 1 and s.last_picks[0] not in mine:
        return next(iter(mine)), s.last_picks[0]  # "不够的话升级什么" then "旧卡留着当第二张卡有用吗": the top pick beside it
    if s.last_act != "compare" or len(s.compared) != 2:
        return None
    owned = [n for n in s.compared if n in mine]
    return (owned[0], next(n for n in s.compared if n != owned[0])) if len(owned) == 1 else None


def _acts(*names: str) -> frozenset[str]:
    return frozenset(names)


# The dialogue policy: the first rule whose acts include the turn's act and whose condition holds answers.
POLICY: tuple[Rule, ...] = (
    Rule("empty", _acts(), lambda c, t: not any(ch.isalnum() for ch in t.text),
         lambda c, t: answers.empty_input(t.lang)),
    Rule("unusable-money", _acts(), lambda c, t: t.q.rejected_money is not None and t.q.need.budget is None,
         lambda c, t: c._unusable_money(t)),
    Rule("language", _acts("language"), lambda c, t: t.q.need.is_empty(), lambda c, t: answers.language_set(
        t.lang, context.script_request(normalise(t.text)) if t.lang == "zh" else None)),
    Rule("reset", _acts("reset"), lambda c, t: t.short, lambda c, t: c._reset(t)),
    Rule("help", _acts("help"), lambda c, t: t.q.need.is_empty() or _says(t.text, "about_the_bot"),
         lambda c, t: answers.help_reply(t.lang)),
    Rule("choice-made", _acts("greeting", "gpu_info", "recommend", "refine", "question", "fit", "compare"),
         _makes_a_choice, lambda c, t: answers.choice_made(
             c.engine, c._ranking(c.session.need, t.lang) if c.session.need.workloads or c.session.need.budget
             else None, t.referred[0], c._shown_count(t.referred[0]), t.lang)),
    Rule("small-talk", _acts("greeting"), lambda c, t: t.q.need.is_empty() and not t.q.gpus and not (
        c.session.last_act == "compare" and (_says(t.text, "power_words") or _says(t.text, "which_of_them"))),
         lambda c, t: answers.small_talk(t.q.text, t.lang, bool(c.session.last_picks))),
    # "那每GB显存多少钱，哪个最划算" after picks: each pick's price over its memory, then the picks weighed
    Rule("price-per-gb", _acts(), lambda c, t: _says(t.text, "per_gb") and not t.q.gpus and not t.q.need.budget and
         len(c.session.last_picks) >= 2 and not _comparison_open(c.session) and t.act != "out_of_scope",
         lambda c, t: c._price_per_gb_of_picks(t)),
    # "is colab enough instead", "kaggle免费的够我训练CNN吗", "Kaggle 免費GPU每週可以用多久？跑得動7B LoRA嗎": whether its
    # free GPU holds the job in the chat, then what the platform offers
    Rule("rental-budget", _acts("recommend", "refine", "rent"),
         lambda c, t: c.session.last_act == "rent" and bool(t.q.need.budget) and not t.q.gpus and
         not t.q.need.workloads and _says(t.text, "usage", "per", "month"), lambda c, t: c._rent(t)),
    # "预算改成每月3000元呢" after rentals: what a month of that money rents, not cards to buy with it
    Rule("free-tier-enough", _acts(), _asks_about_a_free_tier, lambda c, t: c._free_tier(t)),
    # "那在autodl租4090跑完要多少钱" after a training time: that job on that card, time × rate
    Rule("training-cost", _acts(), _prices_the_timed_job, lambda c, t: c._training_cost(t)),
    # "换成LoRA呢", "and with 3 epochs?", "what about a 14B" right after a training time or cost: the same answer again
    Rule("training-again", _acts(), _changes_the_timed_job,
         lambda c, t: c._training_cost(t) if c.session.follow_up == "rent" else c._training_time(t)),
    # "训练一个7b lora大概要多久", "how long would it take roughly" with a fine-tune in the chat: the time on the cards
    # that hold it and what that costs rented (a card in focus with the fine-tune already on it: the fit answer says)
    Rule("image-training-time", _acts(), lambda c, t: t.cue("duration") and _trains_on_images(c, t) and
         not t.need.budget and (t.act != "out_of_scope" or t.short), lambda c, t: c._image_training_time(t)),
    # "訓練 ResNet50 在 ImageNet 上，用一張 4090 要幾天", "200k images, 50 epochs, how long on a 3090"
    Rule("training-time", _acts(), lambda c, t: (t.cue("duration") or c.session.last_rule == "training-time" and
                                                  _says(t.text, "total_cost") and t.short) and
         not _says(t.text, "break_even") and
         not t.need.budget and (t.act != "out_of_scope" or t.short) and _fine_tune_in_view(c, t) and
         not (c.session.focus and c.session.need.model_size_b and not t.q.need.model_size_b and
              c.session.last_act == "fit"), lambda c, t: c._training_time(t)),
    Rule("out-of-scope", _acts("out_of_scope"), _always, lambda c, t: c._out_of_scope(t)),
    Rule("keep-the-old-card", _acts("question", "refine", "recommend", "fit", "compare", "power", "gpu_info"),
         lambda c, t: (t.cue("add_card") or _says(t.text, "together_words")) and _upgrade_on_screen(c.session) is not None
         and set(t.q.gpus) <= set(_upgrade_on_screen(c.session)[:1]),  # ("这张能和我的3060一起用吗": the one owned)
         lambda c, t: answers.mixed_setup(c.engine, list(_upgrade_on_screen(c.session)), t.lang)),
    # "could I keep the old one as a second card?" after "I have a 3090, worth upgrading to a 5090?": both in one box
    Rule("feature", _acts("gpu_info", "fit", "memory", "question", "compare", "refine", "recommend"),
         lambda c, t: len(t.referred) == 1 and not t.q.need.model_size_b and not t.q.need.model and
         not t.q.need.budget and (len(t.q.quant_formats) < 2 or _says(t.text, "has_feature") or
                                  _says(t.text, "feature_matters")) and
         bool(c._features_asked(t)) and
         not (max([t.q.need.gpu_count or 1, *t.q.card_counts.values()]) > 1 and not _says(t.text, "has_feature")),
         # ("does NVLink matter for 2x 3090", "双3090要不要买NVLink桥": the guide on the link, not a card's yes/no)
         lambda c, t: c._feature(t)),
    Rule("unreleased", _acts("question", "recommend", "refine", "gpu_info", "compare"),
         lambda c, t: t.cue("speculation") and t.q.need.budget is None and not t.q.need.workloads,
         lambda c, t: answers.unreleased(t.lang)),
    Rule("spec-value", _acts("gpu_info", "question"),
         lambda c, t: len(t.referred) == 1 and not t.q.need.model_size_b and not t.q.need.model and
         not t.q.need.budget and not t.q.need.workloads and bool(context.specs_asked(normalise(t.q.text))) and
         not _memory_of_the_job_on_own_card(c, t),
         lambda c, t: answers.spec_values(c.engine, c.session.need, t.referred[0],
                                          context.specs_asked(normalise(t.q.text)), t.lang)),
    Rule("used-safety", _acts("recommend", "refine", "question", "where_to_buy", "gpu_info"),
         lambda c, t: (_says(t.text, "used_safety") or _trust_in_used_asked(t.text)) and not t.q.gpus and
         not t.q.need.budget and not t.q.ordinals,
         # "Is it safe to buy used?": the guide's advice on used cards (mining, testing, warranty), not a budget asked
         lambda c, t: answers.question(c.engine, _asked_as("used_market_query", t.q.text), t.lang, kinds=("guide",))),
    Rule("laptop-or-desktop", _acts("question"), lambda c, t: t.cue("form_factor_choice"),
         # "笔记本还是台式", "laptop or desktop?": the guide's verdict on laptop GPUs, not the picks again
         lambda c, t: answers.question(c.engine, _asked_as("laptop_or_desktop_query", t.q.text), t.lang,
                                       kinds=("guide",))),
    Rule("need-a-gpu-at-all", _acts("recommend", "refine", "question", "fit", "gpu_info"),
         lambda c, t: _says(t.text, "need_a_gpu_at_all") and not t.q.need.budget and not t.q.gpus and
         not t.q.need.model_size_b and not t.q.need.model,
         # "do I even need a GPU or is my laptop fine?": start free, and when buying pays (not a list of cards)
         lambda c, t: answers.question(c.engine, _asked_as("start_without_a_gpu_query", t.q.text), t.lang,
                                       kinds=("guide",))),
    Rule("why-slow", _acts("gpu_info", "fit", "memory", "question", "why", "why_not", "compare"),
         lambda c, t: len(t.referred) == 1 and t.cue("slow") and t.cue("why") and  # ("is it slow?" asks how fast)
         not t.need.budget, lambda c, t: answers.why_slow(
             c.engine, c.session.need.merge(t.need), t.referred[0], t.lang)),  # "my P40 is really slow for SD, why?"
    Rule("unknown-card", _acts("gpu_info", "fit", "memory", "question", "compare", "refine", "recommend", "why_not",
                               "where_to_buy", "power", "rent"),
         lambda c, t: bool(t.q.unknown_products) and not t.referred and not t.need.budget,
         lambda c, t: answers.unknown_products(t.q.unknown_products, {
             n: c.engine.catalog.names_like(n) for n in t.q.unknown_products}, t.lang)),
    Rule("guide-source", _acts(), _asks_about_the_guide, lambda c, t: c._guide_question(t)),
    Rule("rent-vs-buy", _acts(), _works_out_rent_or_buy, lambda c, t: c._rent_vs_buy(t)),
    Rule("rent-or-buy", _acts(), lambda c, t: _rent_or_buy_asked(t.q) and not (t.need.budget and t.need.workloads),
         lambda c, t: c._rent_or_buy_without_hours(t)),  # no hours yet: the guide (or the card's rentals), and ask
    Rule("rent-or-buy-with-a-need", _acts(), lambda c, t: (_rent_or_buy_asked(t.q) or _upgrade_or_rent(t)) and
         bool(t.need.budget and t.need.workloads),
         lambda c, t: c._picks_then_rent_or_buy(t)),  # "doing RL, rent or buy? ~£1000": what the money buys, and how
    # to weigh renting it
    Rule("rental-value", _acts(), _weighs_rentals, lambda c, t: c._rental_value(t)),
    Rule("platform-choice", _acts("question", "recommend", "refine", "rent", "why", "compare", "greeting", "help"),
         lambda c, t: (c.session.last_act == "rent" or c.session.follow_up == "rent" or
                       _says(t.text, "platform_words") and not t.cue("rent")) and  # ("我在香港，哪个平台方便" after
         # picks; "租的话呢，国内哪个平台好" rents the cards on screen)
         _says(t.text, "which_platform") and not t.q.gpus and not t.need.budget and not t.q.direction and
         not t.cue("price") and not answers.platforms_named(c.engine, t.q.text),  # ("哪个平台最便宜": the prices)
         lambda c, t: c._platform_choice(t)),  # "which platform would you use" after a rental list: the guide's word
    Rule("platform-after-rent", _acts("question", "recommend", "refine", "greeting", "gpu_info", "where_to_buy"),
         lambda c, t: c.session.last_act == "rent" and not t.q.gpus and not t.need.budget and
         bool(answers.platforms_named(c.engine, t.q.text)) and len(t.text) <= SHORT,
         lambda c, t: c._rent(t)),  # "what about vast", "AutoDL呢" after a rental: the same card there
    Rule("instead-of-the-card", _acts("gpu_info", "refine", "recommend", "question", "compare", "where_to_buy", "why_not"),
         lambda c, t: _offers_instead(t.q, c.session),
         # "那还不如买新的5070ti？" after a used 3090's price: the two weighed, not the new card's spec sheet
         # (the card offered first: "it" next is that one)
         lambda c, t: answers.compare(c.engine, c.session.need.merge(t.need), [t.q.gpus[0], c.session.focus],
                                      t.lang)),
    Rule("why-not-a-maker", _acts("why_not"), lambda c, t: not t.q.gpus and _asks_about_a_vendor(t) and
         bool(c.session.last_picks), lambda c, t: c._recommend_with_vendor_advice(t)),
    # "why not an AMD card" after picks: the maker's cards for the job, and the guide on its software
    Rule("why-not", _acts("why_not"), lambda c, t: bool(t.referred) and bool(c.session.need.workload
                                                                               or c.session.last_picks),
         lambda c, t: c._why_not(t)),
    Rule("why-not-without-picks", _acts("why_not"), _always, lambda c, t: c._guide_question(t)),
    Rule("why", _acts("why"), lambda c, t: _has_picks(c, t) and t.q.need.is_empty(),
         lambda c, t: answers.why(c.engine, c._ranking(c.session.need, t.lang), t.lang,
                                  name=t.referred[0] if t.q.ordinals and t.referred else None)),
    Rule("why-comparison", _acts("why"), lambda c, t: c.session.last_act == "compare" and
         len(c.session.compared) >= 2 and t.q.need.is_empty() and not t.q.gpus,
         lambda c, t: c._why_the_verdict(t)),  # "why?" after "3090 vs 4090 vs 5090 for SD": the verdict's reasons
    Rule("why-from-guide", _acts("why"), lambda c, t: t.q.need.is_empty(), lambda c, t: c._guide_question(t)),
    Rule("why-about-cards", _acts("compare", "gpu_info", "why"), lambda c, t: t.cue("why") and not c.session.last_picks
         and not (len(t.q.gpus) == 1 and t.cue("worth"))  # "为啥大家都说别买4060": the verdict on it (rule worth)
         and not (len(t.q.gpus) >= 2 and t.cue("why_not"))  # "why not a 4090 instead of the 5090": the two weighed
         # "M4 Max 128gb vs a 5090 for 70b - which one and why": a choice asked, and why follows from the verdict
         and not (len(t.q.gpus) >= 2 and t.act == "compare" and _says(t.text, "which_of_them")),
         lambda c, t: c._guide_question(t)),
    Rule("compare", _acts("compare"), lambda c, t: len(t.referred) >= 1 or len(c.session.last_picks) >= 2,
         lambda c, t: c._compare(t)),
    Rule("rent", _acts("rent"), lambda c, t: not (t.q.need.budget and t.q.need.workloads) or
         bool(answers.platforms_named(c.engine, t.q.text)),  # "runpod or vast.ai for 2 weeks, budget $300": to spend
         lambda c, t: c._rent(t)),
    # "best gpu to rent for fine-tuning qwen3 14b": a pick asked of the rentals (the cards rented that hold the job)
    Rule("pick-to-rent", _acts("recommend", "refine"), lambda c, t: t.cue("rent") and t.cue("pick_request") and
         not t.q.need.budget and not t.q.gpus and not _rent_or_buy_asked(t.q), lambda c, t: c._rent(t)),
    Rule("setup-precautions", _acts("recommend", "refine", "fit", "question", "gpu_info", "power", "memory"),
         lambda c, t: len(t.q.gpus) <= 1 and ((t.q.need.gpu_count or 1) >= 2 or not t.q.gpus and bool(
             t.q.need.multi_gpu or t.q.need.form_factor == "server")) and _says(t.text, "setup_precautions")
         and not (t.q.need.budget or t.q.need.used or t.q.need.model_size_b or t.q.need.model),
         lambda c, t: c._setup_precautions(t, t.q.gpus[0] if t.q.gpus else None, t.q.need.gpu_count)),
    # "两张4090做训练要注意什么": the guide on several cards, and their power; then "改成四张呢": the same for four
    Rule("setup-precautions-again", _acts("recommend", "refine", "fit", "question", "power", "memory"),
         lambda c, t: (c.session.last_rule or "").startswith("setup-precautions") and not t.q.gpus and
         bool(t.q.need.gpu_count) and replace(t.q.need, gpu_count=None).is_empty() and t.short,
         lambda c, t: c._setup_precautions(t, c.session.focus if c.session.focus_count else None,
                                           t.q.need.gpu_count)),
    Rule("budget-for-a-setup", _acts("recommend", "refine", "question", "gpu_info", "fit", "power"),
         lambda c, t: len(t.q.gpus) == 1 and (t.q.need.gpu_count or 1) >= 2 and bool(t.q.need.budget) and
         not t.q.need.workloads and (_says(t.text, "enough_question") or _says(t.text, "enough_word")),
         lambda c, t: answers.budget_for_setup(c.engine, c.session.need.merge(t.need), t.q.gpus[0],
                                               t.q.need.gpu_count, t.lang) or c._recommend(t)),
    Rule("price-gap-after-a-comparison", _acts("recommend", "refine", "question", "gpu_info", "where_to_buy"),
         lambda c, t: c.session.last_act == "compare" and len(c.session.compared) >= 2 and not t.q.gpus and
         not t.q.ordinals and t.need.is_empty() and len(t.text) <= SHORT and t.cue("price"),
         lambda c, t: c._price_gap(t)),  # "价格差多少" after "4070 Ti Super 和 4080 Super 哪个好"
    Rule("where-to-buy", _acts("where_to_buy"), lambda c, t: bool(t.referred) and
         not (t.cue("worth") and t.q.need.budget and len(t.q.gpus) == 1),  # ("…3080 from ebay for $350 a bad idea": its
         lambda c, t: c._where_to_buy(t)),  # price weighed, rule price-check)
    Rule("running-cost", _acts(), lambda c, t: _says(t.text, "electricity_cost") and not t.q.need.budget and
         len(t.q.gpus) < 2 and bool(t.referred or c.session.focus or c.session.last_picks),
         lambda c, t: c._running_cost(t)),  # (two cards named: their comparison, the bill's difference after it)
    Rule("power-limit", _acts("power"), lambda c, t: _asks_about_power_limiting(t.text) and not t.q.need.psu_w,
         lambda c, t: c._guide_question(t)),  # "功耗限制到300W会慢多少", "can I cap them at 250W each"
    Rule("power", _acts("power"), lambda c, t: bool(t.referred or c.session.last_picks),
         lambda c, t: c._power(t)),
    # "显卡功耗450w 电源要多大的", "my gpu pulls 320w, what psu": the PSU for the card's stated draw, no card named
    Rule("power-for-watts", _acts("power", "question", "recommend", "refine"),
         lambda c, t: not t.referred and bool(t.q.need.max_power_w) and _says(t.text, "psu_asked") and
         not (t.need.budget or t.need.workloads or t.cue("pick_request")),
         lambda c, t: answers.power_for_watts(c.engine, t.q.need.max_power_w, t.q.need.gpu_count or 1,
                                              t.q.need.psu_w, t.lang)),
    Rule("worth-upgrading", _acts("refine", "recommend", "fit", "compare", "gpu_info", "question", "why"),
         lambda c, t: t.cue("upgrade") and set(t.q.gpus) <= set(_owned(c, t)) and not t.q.need.budget and
         bool(_owned(c, t)) and bool(c.session.focus) and c.session.focus not in _owned(c, t),
         # "值得升级吗" after asking about another card for the job, "so is it worth upgrading from my 4070" after the
         # 5070: the user's card against that one
         lambda c, t: answers.compare(c.engine, c.session.need.merge(t.need), [_owned(c, t)[0], c.session.focus],
                                      t.lang)),
    Rule("upgrade-to-a-named-card", _acts("refine", "recommend", "fit", "compare", "gpu_info", "question", "why"),
         lambda c, t: t.cue("upgrade") and len(t.q.gpus) == 1 and bool(_owned(c, t)) and
         t.q.gpus[0] not in _owned(c, t) and not t.q.need.budget and
         not (c.session.need.model or c.session.need.model_size_b or t.need.model_size_b),
         # "is it worth upgrading to a 5070 for that" with a 3070 for SD: the two weighed for the job (with a model on
         # the table, rule upgrade-to-a-card weighs both on it)
         lambda c, t: answers.compare(c.engine, c.session.need.merge(t.need), [_owned(c, t)[0], t.q.gpus[0]],
                                      t.lang)),
    Rule("worth-for-llm", _acts("gpu_info", "question", "recommend", "fit", "where_to_buy"),
         lambda c, t: len(t.referred) == 1 and t.cue("worth") and not t.q.need.model_size_b and not t.need.budget and (
             "llm_inference" in t.need.workloads or "llm_inference" in c.session.need.workloads or
             _says(t.text, "llm_words") or _a_machine_for_llms(c, t)),
         lambda c, t: c._worth_for_llm(t)),
    Rule("price-check", _acts("gpu_info", "question", "recommend", "refine", "where_to_buy", "fit"),
         lambda c, t: len(t.q.gpus) == 1 and (t.cue("worth") or _offered_price(c.engine.catalog, t.q.text)) and
         bool(t.q.need.budget or (t.q.bare_number and _offered_price(c.engine.catalog, t.q.text)))
         and not t.q.need.model_size_b and not t.cue("compare"), lambda c, t: c._worth(t)),  # "a used 3090 at $700, good deal?", "闲鱼800块的P40值得吗"
    Rule("worth", _acts("gpu_info", "question", "recommend", "refine", "where_to_buy", "fit"),
         lambda c, t: len(t.referred) == 1 and t.cue("worth") and not t.q.need.model_size_b and not t.need.budget and
         not _says(t.text, "how_cards_connect") and  # "Is NVLink worth it for 2x3090?": the link, not the card
         not t.cue("compare") and len(t.q.gpus) <= 1 and not (t.q.need.workloads and t.act == "fit" and
                                                               _says(t.text, "enough_question")),
         lambda c, t: c._worth(t)),  # (but "my 4060 laptop, enough to learn DL?" is whether it fits that job)
    Rule("comparison-used", _acts("refine", "recommend", "where_to_buy", "question"),
         lambda c, t: c.session.last_act == "compare" and len(c.session.compared) >= 2 and t.q.need.used is True and
         not c.session.last_picks and  # (after "compare the first two" of a list, "used is fine" widens the list)
         set(t.q.need.stated()) <= {"used", "region"} and not t.q.gpus and not t.q.ordinals,
         # "二手的呢" after "3090和4090比较一下": the same cards weighed on used prices, not a new list
         lambda c, t: c._compare_again_used(t)),
    Rule("upgrade-to-a-card", _acts("refine", "recommend", "fit", "compare", "gpu_info", "question"),
         lambda c, t: t.cue("upgrade") and len(t.q.gpus) == 1 and bool(c.session.need.owned_gpus) and
         t.q.gpus[0] not in c.session.need.owned_gpus and not t.q.need.budget and
         bool(c.session.need.model or c.session.need.model_size_b) and
         c.session.need.workload in (None, "llm_inference", "inference"),
         # "what if I upgrade to a 3060 12GB?" after "can my 2060 run Mistral 7B?": both cards on that model
         lambda c, t: c._compare_setups(t, [c.session.need.owned_gpus[0], t.q.gpus[0]], c.session.need)),
    Rule("own-card-for-llms", _acts("recommend", "refine", "gpu_info", "question", "fit"),
         lambda c, t: len(t.q.gpus) == 1 and t.q.need.owned_gpus == t.q.gpus and bool(t.referred) and
         bool(set(t.need.workloads) & set(LLM_WORKLOADS)) and not (
             t.need.budget or t.need.model_size_b or t.need.model or t.need.gpu_count or t.q.direction or
             t.q.cues & {"pick_request", "upgrade", "add_card"} or
             (c.session.need.model_size_b and _memory_of_the_job_on_own_card(c, t))),
         # "想跑本地大模型，现在用的是4060ti 16g": what the card they have runs, before anything to buy
         lambda c, t: c._what_fits(t)),
    # "I've got an M3 MacBook Air 16GB, want to learn AI", "我有一张3060，想学深度学习": whether theirs does that job
    Rule("own-card-for-a-job", _acts("recommend", "refine", "gpu_info", "question"),
         lambda c, t: len(t.q.gpus) == 1 and t.q.need.owned_gpus == t.q.gpus and bool(t.referred) and
         bool(t.need.workloads) and not set(t.need.workloads) & set(LLM_WORKLOADS) and not (
             t.need.budget or t.need.gpu_count or t.q.direction or t.q.cues & {"pick_request", "upgrade", "add_card"}),
         lambda c, t: c._fit(t)),
    Rule("what-fits", _acts("fit", "memory", "gpu_info", "question", "recommend", "refine"),
         lambda c, t: bool(t.referred) and (t.cue("what_fits") or _counts_a_setup_for_llms(c, t) or
                                            # (a job named is that job on the card: "跑SD出图大概多快")
                                            c.session.last_rule == "what-fits" and not t.q.need.workloads or
                                            _speed_of_llm_picks(c, t)) and
         not t.q.need.model_size_b and not t.q.need.model and not t.need.budget,
         lambda c, t: c._what_fits(t)),
    Rule("fit-on-memory", _acts("fit"), lambda c, t: not t.referred and bool((t.need.model_size_b or t.need.model)
                                                                            and t.q.memory_gb)
         and not t.need.budget and not t.q.gpus, lambda c, t: c._fit_on_memory(t)),
    Rule("memory-enough", _acts("memory", "fit", "question", "recommend", "refine", "gpu_info"),
         lambda c, t: bool(t.q.memory_gb) and not _says(t.text, "memory_floor") and not t.q.gpus and not t.q.ordinals and
         not t.q.need.budget and "pick_request" not in t.q.cues and
         not t.need.model_size_b and not t.need.model and (_says(t.text, "memory_enough") or
                                                           _says(t.text, "enough_question")),
         lambda c, t: c._memory_enough(t)),  # "8G显存够学深度学习吗"
    Rule("two-cards-for-a-job", _acts("fit", "gpu_info", "question", "recommend"),
         lambda c, t: len(t.q.gpus) == 2 and t.cue("instead") and not t.need.budget and bool(t.need.workloads) and
         not t.need.model_size_b, lambda c, t: c._compare(t)),
    # "does a 4060 ti 16gb make sense for sdxl + flux? or should i just save up for a 4070 ti super": the two weighed
    Rule("fit", _acts("fit", "memory", "gpu_info", "question"),
         lambda c, t: bool(t.referred) and not t.need.budget and (
             _says(t.text, "capacity_asked") and len(t.q.gpus) <= 1 or  # "A800能撑多少并发": the users it serves
             _has_a_job(c, t) and t.act != "question" and
             (t.act != "gpu_info" or _says(t.text, "will_it_do") and not t.cue("more_info") or  # "用H20可以吗"
              _memory_of_the_job_on_own_card(c, t))),
         lambda c, t: c._with_mod_advice(t, c._fit(t))),
    Rule("memory", _acts("memory", "fit"),
         lambda c, t: bool(t.need.model_size_b or c.session.need.model_size_b or t.need.model) and not t.need.budget,
         lambda c, t: answers.memory_question(c.engine, c.session.need, t.lang)),
    Rule("workload-memory", _acts("memory"), lambda c, t: bool(t.q.need.workloads) and not t.q.gpus and
         not t.need.budget and t.need.workload not in LLM_WORKLOADS and t.need.workload != "general",
         lambda c, t: answers.workload_memory(c.engine, c.session.need, t.lang)),  # "视频生成显存要多大才够"
    Rule("setup-instead-of-the-pick", _acts("refine", "recommend", "compare", "gpu_info"),
         lambda c, t: len(t.q.gpus) == 1 and bool(c.session.last_picks) and bool(t.q.need.gpu_count) and
         t.q.gpus[0] != c.session.last_picks[0] and not t.q.ordinals and "offtopic" not in t.q.cues and
         replace(t.q.need, gpu_count=None, used=None).is_empty() and len(t.text) <= SHORT,
         lambda c, t: c._setup_instead_of_the_pick(t)),  # "a pair of 3090s instead?" after picks: against the top one
    Rule("card-in-context", _acts("refine", "recommend"), lambda c, t: len(t.q.gpus) == 1 and t.need.is_empty() and
         bool(c.session.last_picks) and bool(c.session.need.workload) and not t.cue("compare"),
         lambda c, t: c._why_not(t, asked="what_about")),  # "4090呢？" after picks: that card against this need
    Rule("choose-from-comparison", _acts("recommend", "refine", "question", "compare", "why", "greeting", "power"),
         lambda c, t: _comparison_open(c.session) and len(c.session.compared) >= 2 and not t.q.gpus and
         not t.q.ordinals and replace(t.need, used=None).is_empty() and (
             _says(t.text, "which_of_them") or _says(t.text, "per_gb") or
             _says(t.text, "power_words") and not _says(t.text, "psu_asked")),
         lambda c, t: c._choose_from_comparison(t)),  # "which should I buy?"
    Rule("count-after-a-comparison", _acts("recommend", "refine", "compare", "question"),
         lambda c, t: c.session.last_act == "compare" and len(c.session.compared) >= 2 and not t.q.gpus and
         not t.q.ordinals and bool(t.q.need.gpu_count) and replace(t.q.need, gpu_count=None).is_empty() and
         len(t.text) <= SHORT,  # "买两张呢", "and for two of them?": the compared cards as setups of that many
         lambda c, t: c._compare_the_compared(t, dict.fromkeys(c.session.compared, t.q.need.gpu_count))),
    Rule("job-after-a-comparison", _acts("recommend", "refine", "question", "fit", "memory"),
         lambda c, t: _comparison_open(c.session) and len(c.session.compared) >= 2 and not t.q.gpus and
         not t.q.ordinals and not t.need.budget and bool(t.need.workloads or t.need.model_size_b or
                                                         _training_of(c.session, t)) and
         len(t.text) <= SHORT, lambda c, t: c._compare_again_for(t)),  # "训练用", "for LLM" after "4090 vs 5090"
    Rule("market-after-a-comparison", _acts("recommend", "refine", "question", "gpu_info", "where_to_buy"),
         lambda c, t: c.session.last_act == "compare" and len(c.session.compared) >= 2 and not t.q.gpus and
         not t.q.ordinals and t.need.used is not None and replace(t.need, used=None).is_empty() and
         len(t.text) <= SHORT and _says(t.text, "price_or_buy"),
         lambda c, t: c._compare_again_for(t)),  # "ok and used prices?" after "3090 vs 4080" (its prices)
    Rule("place-after-a-comparison", _acts("recommend", "refine", "question", "gpu_info", "where_to_buy"),
         lambda c, t: c.session.last_act == "compare" and len(c.session.compared) >= 2 and not t.q.gpus and
         not t.q.ordinals and bool(t.need.region or t.need.price_currency) and
         replace(t.need, region=None, price_currency=None).is_empty() and not t.cue("rent"),
         lambda c, t: c._compare_again_for(t)),  # "what about in china, prices in rmb", "欧元呢": the same cards there
    Rule("card-after-a-comparison", _acts("refine", "recommend", "gpu_info"), lambda c, t: len(t.q.gpus) == 1 and
         t.need.is_empty() and c.session.last_act == "compare" and bool(c.session.compared),
         lambda c, t: c._compare(t)),  # "那5090呢", "and the 5090?" after "3090 vs 4090": it joins the comparison
    Rule("vendor-asked", _acts("recommend", "refine", "question"),
         lambda c, t: _asks_about_a_vendor(t) and (t.act != "question" or bool(c.session.last_picks)
                                                   and "software" not in t.q.cues),
         lambda c, t: c._recommend_with_vendor_advice(t)),  # "is AMD ok?", "A卡能用吗": the picks and the software
    Rule("recommend", _acts("recommend", "refine"), _always, lambda c, t: c._recommend(t)),
    Rule("a-need-in-passing", _acts(), lambda c, t: bool(t.need.budget) or (
        c.session.awaiting is not None and bool(t.need.workloads) and not _asks_about_a_vendor(t)),
         lambda c, t: c._recommend(t)),
    Rule("card-advice", _acts("gpu_info"), lambda c, t: bool(t.q.gpus) and (
        t.need.used is not None or t.need.vendor is not None or t.cue("software")),
         lambda c, t: c._card_advice(t)),  # "二手矿卡3090能买吗", "7900 XTX with ROCm ok?": the guide's advice + the card
    Rule("gpu-card", _acts("gpu_info", "fit", "memory", "where_to_buy", "power", "why_not", "compare", "rent"),
         lambda c, t: bool(t.referred), lambda c, t: answers.setup_sheet(
             c.engine, c.session.need, t.referred[0], t.q.need.gpu_count, t.lang) if (t.q.need.gpu_count or 1) > 1
         else answers.gpu_card_for(c.engine, c.session.need, t.referred[0], t.lang)),  # "两张呢": that many of it
    Rule("question", _acts(), _always, lambda c, t: c._guide_question(t)),
)
POLICY_RECOMMEND = next(r.answer for r in POLICY if r.name == "recommend")
