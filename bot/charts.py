"""Relative speed vs price for the cards of an answer, as a PNG (matplotlib, Agg; imported only when a chart is drawn).

`chart_of` decides what a chart shows without matplotlib: the answer's cards (the picks highlighted) among the other
cards a buyer weighs at similar prices, priced as on the session's date, worded in the chat's language and script (the
Session carries both, so every front end gets the same chart). `figure` lays it out, `draw` makes the PNG. Chinese is
set in the packaged font (pyproject.toml), registered with matplotlib when first needed: no system font, no network."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from bot.i18n import CHART, Text, money
from bot.need import Budget
from bot.slots.text import to_script

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bot.engine import Engine
    from bot.reply import Reply
    from bot.session import Session

log = logging.getLogger(__name__)

FONT_PACKAGE = "paperang_p2_fonts_cjk"  # pinned in pyproject.toml: WenQuanYi Micro Hei, Simplified and Traditional
FONT_FILE = "fonts/wqy-microhei.ttc"
PRICE_MARGIN = 0.25  # other cards priced within 25% beyond the range of the answer's cards (and the budget)
MAX_OTHERS = 14  # more muted dots than this hide the picks
MAX_LABELLED_OTHERS = 5  # of those, only cards on the frontier are named, at most this many
# where a card's name may go relative to its dot (points; horizontal alignment), tried in this order
_LABEL_OFFSETS = ((6, 4, "left"), (6, -11, "left"), (-6, 4, "right"), (-6, -11, "right"), (0, 9, "center"),
                  (0, -16, "center"))
PICK, OTHER, FRONTIER, BUDGET = "#d62728", "#a6a6a6", "#6baed6", "#1f77b4"


@dataclass(frozen=True)
class Point:
    name: str
    price: float
    perf: float
    used: bool
    highlighted: bool  # a card the answer is about; the rest are other cards at similar prices, drawn muted
    priced_on: date
    count: int = 1  # cards in the setup: price and speed are the whole setup's, as in the answer


@dataclass(frozen=True)
class Chart:
    """What one chart shows, and in which words (lang 'zh' or 'en'; script: a zhconv locale for Traditional)."""

    points: tuple[Point, ...]
    currency: str
    family: str
    workload: Text
    reference: str
    budget: float | None
    lang: str
    script: str | None = None

    def say(self, key: str, **values) -> str:
        """A chart word of bot.i18n.CHART in the chat's language and script."""
        text = CHART[key].get(self.lang).format(**values)
        return to_script(text, self.script) if self.lang == "zh" and self.script else text

    def dates(self) -> str:
        """The months the prices were seen in: '2025-01 – 2026-10', or one month."""
        first, last = (f"{d:%Y-%m}" for d in (min(p.priced_on for p in self.points),
                                                max(p.priced_on for p in self.points)))
        return first if first == last else self.say("dates", first=first, last=last)


def chart_of(engine: Engine, session: Session, gpu_names, highlight=()) -> Chart:
    """The chart of the answer's cards (`highlight`, or all of `gpu_names`) among the other cards priced like them."""
    from bot.perf import load_perf_model
    from bot.scorer import pricing, workload_spec

    on = session.need.as_of or engine.today or date.today()
    lang = session.lang if session.lang == "zh" else "en"
    currency, budget = pricing(session.need, engine.catalog, on, lang)  # the answer's own currency and budget
    model = load_perf_model(engine.knowledge_dir)
    spec = workload_spec(engine.knowledge_dir, session.need.workload, on)
    ref = engine.catalog.get(model.reference_gpu)

    def point(name: str, highlighted: bool, count: int) -> Point | None:
        g = engine.catalog.get(name)
        if g is None or ref is None:
            return None
        new = g.price(currency, "new", on, engine.catalog.fx)
        used = g.price(currency, "used", on, engine.catalog.fx)
        price = new
        if used and (price is None or (session.need.used and used.amount < price.amount)):
            price = used
        perf = model.relative(g, spec.family, ref, count)
        if price is None or not perf:
            return None
        return Point(g.name, price.amount * count, perf, price is used, highlighted, price.on, count)

    count = max(1, session.need.gpu_count or 1)
    names = [n for n in dict.fromkeys(gpu_names) if not highlight or n in highlight]
    shown = [p for n in names if (p := point(n, True, session.pick_counts.get(n, count)))]
    prices = [p.price for p in shown] + ([x for x in (budget.amount, budget.low) if x] if budget else [])
    others: list[Point] = []
    if shown:  # the range the user is looking at: the answer's cards and the budget, widened by PRICE_MARGIN
        lo, hi = min(prices) / (1 + PRICE_MARGIN), max(prices) * (1 + PRICE_MARGIN)
        others = [p for n, k in _setups_up_to(engine, session, Budget(hi, currency), on, lang)
                  if n not in names and (p := point(n, False, k)) and p.price >= lo]
        others = sorted(others, key=lambda p: (-p.perf / p.price, p.name))[:MAX_OTHERS]  # the best buys
    return Chart(tuple(shown + others), currency, spec.family, spec.label, model.reference_gpu,
                 budget.amount if budget else None, lang, session.script)


def _setups_up_to(engine: Engine, session: Session, budget: Budget, on: date, lang: str) -> list[tuple[str, int]]:
    """The cards that meet the session's need as the scorer reads it (memory, market, vendor, date…) within
    `budget`, each with the number of them the scorer sets up (two cards for a model one cannot hold)."""
    from bot.scorer import rank

    ranking = rank(engine.catalog, replace(session.need, budget=budget), engine.knowledge_dir, on, lang=lang)
    return [(c.gpu.name, c.count) for c in ranking.candidates]


def frontier(points) -> list[Point]:
    """The points no other point beats on both counts (cheaper and at least as fast), cheapest first."""
    best, out = 0.0, []
    for p in sorted(points, key=lambda p: (p.price, -p.perf)):
        if p.perf > best:
            out.append(p)
            best = p.perf
    return out


@lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The packaged Chinese font's family name, registered with matplotlib on first use; None when it is missing
    (the chart is then drawn in English rather than in empty boxes)."""
    from importlib.resources import files

    from matplotlib import font_manager

    try:
        path = str(files(FONT_PACKAGE) / FONT_FILE)
        font_manager.fontManager.addfont(path)
    except (ModuleNotFoundError, OSError) as e:
        log.warning("no Chinese font for charts (%s): drawing them in English", e)
        return None
    return font_manager.FontProperties(fname=path).get_name()


def figure(chart: Chart) -> Figure:
    """The chart laid out on an Agg canvas: picks in colour and named, other cards muted (those on the frontier
    named too), the frontier and the budget as lines, a legend, the prices' dates under the price axis."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    font = cjk_font() if chart.lang == "zh" else None
    if chart.lang == "zh" and font is None:
        chart = replace(chart, lang="en")
    kw = {"fontfamily": [font, "DejaVu Sans"]} if font else {}
    fig = Figure(figsize=(8, 5.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_title(chart.say("title", workload=chart.workload.get(chart.lang)), **kw)
    if not chart.points:
        ax.text(0.5, 0.5, chart.say("no_data"), ha="center", va="center", transform=ax.transAxes, **kw)
        ax.set_axis_off()
        return fig
    front = frontier(chart.points)
    ax.plot([p.price for p in front], [p.perf for p in front], color=FRONTIER, linestyle=":", linewidth=1.2, zorder=1)
    for p in sorted(chart.points, key=lambda p: p.highlighted):
        ax.scatter([p.price], [p.perf], s=90 if p.highlighted else 30, color=PICK if p.highlighted else OTHER,
                   marker="D" if p.used else "o", edgecolors="black" if p.highlighted else "none", linewidths=0.6,
                   zorder=3 if p.highlighted else 2)
    handles = [Line2D([], [], marker="o", linestyle="none", color=PICK, markeredgecolor="black",
                      label=chart.say("shown")),
               Line2D([], [], marker="o", linestyle="none", color=OTHER, label=chart.say("others")),
               Line2D([], [], color=FRONTIER, linestyle=":", label=chart.say("frontier"))]
    if any(p.used for p in chart.points):
        handles.append(Line2D([], [], marker="D", linestyle="none", color="white", markeredgecolor="black",
                              label=chart.say("used_price")))
    if chart.budget:
        ax.axvline(chart.budget, color=BUDGET, linestyle="--", linewidth=1, zorder=1)
        ax.annotate(chart.say("budget", amount=money(chart.budget, chart.currency)), (chart.budget, 0.02),
                    xycoords=("data", "axes fraction"), xytext=(4, 0), textcoords="offset points", fontsize=8,
                    color=BUDGET, **kw)
    ax.axhline(1.0, color="#bbbbbb", linewidth=0.8, zorder=1)
    ax.grid(True, alpha=0.3)
    ax.set_xlim(0, max([p.price for p in chart.points] + [chart.budget or 0]) * 1.18)
    ax.set_ylim(0, max(p.perf for p in chart.points) * 1.15)
    ax.xaxis.set_major_formatter(lambda v, _pos: money(v, chart.currency))
    ax.legend(handles=handles, loc="upper left", framealpha=0.9, prop={"size": 8, **({"family": kw["fontfamily"]}
                                                                                     if font else {})})
    ax.set_xlabel(chart.say("price", currency=chart.currency, dates=chart.dates()), **kw)
    ax.set_ylabel(chart.say("speed", reference=chart.reference), **kw)
    fig.tight_layout()
    _name_points(ax, chart, kw)
    return fig


def _name_points(ax, chart: Chart, kw: dict) -> None:
    """Each pick's name beside its dot, and a few other cards' (those on the frontier), where no name, dot or the
    legend already is; an other card's name that finds no free place is left out."""
    from matplotlib.transforms import Bbox

    renderer = ax.figure.canvas.get_renderer()
    area = ax.get_window_extent(renderer)
    taken = [ax.get_legend().get_window_extent(renderer)]
    for p in chart.points:  # the dots themselves
        x, y = ax.transData.transform((p.price, p.perf))
        taken.append(Bbox.from_extents(x - 4, y - 4, x + 4, y + 4))
    on_front = {p.name for p in frontier(chart.points)}
    others = [p for p in chart.points if not p.highlighted and p.name in on_front][:MAX_LABELLED_OTHERS]
    for p in [p for p in chart.points if p.highlighted] + others:
        label = (f"{p.count}× " if p.count > 1 else "") + p.name.replace("GeForce ", "") + \
            (chart.say("used") if p.used else "")
        # the Chinese font has no bold face (matplotlib would log a warning for each name): a pick's is larger instead
        style = dict(fontsize=9.5 if kw else 9, fontweight="normal" if kw else "bold", color="black") \
            if p.highlighted else dict(fontsize=7.5, color="#555555")
        for dx, dy, ha in _LABEL_OFFSETS:
            text = ax.annotate(label, (p.price, p.perf), xytext=(dx, dy), textcoords="offset points", ha=ha,
                               **style, **kw)
            box = text.get_window_extent(renderer)
            if not any(box.overlaps(b) for b in taken) and area.contains(box.x0, box.y0) and \
                    area.contains(box.x1, box.y1):
                taken.append(box)
                break
            text.remove()
        else:  # nowhere free: a pick is named all the same, at the first place
            if p.highlighted:
                ax.annotate(label, (p.price, p.perf), xytext=_LABEL_OFFSETS[0][:2], textcoords="offset points",
                            **style, **kw)


def draw(chart: Chart) -> bytes:
    """The chart as PNG bytes."""
    buf = io.BytesIO()
    figure(chart).savefig(buf, format="png")
    return buf.getvalue()


def highlight_of(reply: Reply) -> tuple[str, ...]:
    """The GPUs to highlight: the recommended picks, else everything the reply is about."""
    return tuple(r.gpu for r in reply.recommendations) or tuple(reply.chart_gpus)


def chart_for_reply(engine: Engine, session: Session, reply: Reply, output_path) -> Path | None:
    """Write the chart of `reply.chart_gpus` to `output_path`; None when the reply has nothing to chart."""
    if not reply.chart_gpus:
        return None
    chart = chart_of(engine, session, reply.chart_gpus, highlight_of(reply))
    if not chart.points:
        return None
    path = Path(output_path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(draw(chart))
    return path
