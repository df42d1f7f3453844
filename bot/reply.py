"""The Reply: what the engine answers, as structure; renderers turn it into plain text, Telegram HTML or JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.knowledge import Source

INTENTS = ("recommend", "compare", "gpu", "question", "help", "unknown", "out_of_scope", "fit", "memory", "rent",
           "where_to_buy", "power", "greeting")


@dataclass(frozen=True)
class Table:
    """Rows of cells under a header; the first column names the row."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Recommendation:
    """One pick as scripts see it (`recommendations` in the JSON reply)."""

    gpu: str
    vendor: str
    role: str
    price: float
    currency: str
    price_date: str
    market: str
    vram_gb: float
    count: int
    score: float  # relative speed of the setup, reference card = 1.0
    value: float  # relative speed per 1,000 of the currency
    reasons: tuple[str, ...]
    caveats: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reply:
    intent: str
    lang: str
    title: str = ""
    paragraphs: tuple[str, ...] = ()
    table: Table | None = None
    bullets: tuple[str, ...] = ()
    footer: tuple[str, ...] = ()  # assumptions, price dates, what to ask next
    sources: tuple[Source, ...] = ()
    query: dict = field(default_factory=dict)
    recommendations: tuple[Recommendation, ...] = ()
    suggestions: tuple[str, ...] = ()  # follow-ups a person might send next (keyboard buttons in Telegram)
    chart_gpus: tuple[str, ...] = ()  # candidates worth charting (speed vs price), picks first
    chart_counts: tuple[int, ...] = ()  # a comparison of setups: how many of each charted card ("2× 3090 vs 2× 4090")
    focus: str | None = None  # the one card this reply is about: what "it" means next turn
    focus_count: int | None = None  # how many of it the reply was about ("4× 4090": "PSU?" next means all four)
    topic: str | None = None  # the guide section or card the reply drew on
    follow_up: str | None = None  # the act a bare follow-up continues ("rent" after a platform answer)
    fit: dict | None = None  # a fit answer's numbers (`fit` in the JSON reply; `gpu-advisor fit --json`)
    script: str | None = None  # a Chinese reply's Traditional variant ("zh-tw", "zh-hk"); None: Simplified
