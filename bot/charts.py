"""Relative speed vs price for a set of GPUs, as a PNG (matplotlib, Agg; imported only when a chart is drawn).

Speed is the perf model's relative speed for the session's workload family (reference card = 1.00); prices are the
catalog's dated prices in the session's currency, at the session's date. The picks are highlighted."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.engine import Engine
    from bot.reply import Reply
    from bot.session import Session

log = logging.getLogger(__name__)

# fonts that have Chinese glyphs; without one of them the chart's words are English (GPU names are anyway)
_CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "WenQuanYi Zen Hei",
              "WenQuanYi Micro Hei", "SimHei", "Microsoft YaHei", "PingFang SC", "Heiti SC", "Sarasa Gothic SC",
              "AR PL UMing CN")


@dataclass(frozen=True)
class Point:
    name: str
    price: float
    perf: float
    used: bool
    highlighted: bool


def _cjk_font() -> str | None:
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    return next((n for n in _CJK_FONTS if n in names), None)


def chart_points(engine: Engine, session: Session, gpu_names, highlight=()) -> tuple[list[Point], str, str]:
    """The points to draw, the currency and the workload family (no matplotlib needed)."""
    from bot.perf import load_perf_model
    from bot.scorer import workload_spec

    on = session.need.as_of or engine.today or date.today()
    lang = session.lang or "en"
    currency = session.need.budget.currency if session.need.budget else ("CNY" if lang == "zh" else "USD")
    model = load_perf_model(engine.knowledge_dir)
    family = workload_spec(engine.knowledge_dir, session.need.workload, on).family
    ref = engine.catalog.get(model.reference_gpu)
    count = max(1, session.need.gpu_count or 1)
    marked = set(highlight)
    points = []
    for name in dict.fromkeys(gpu_names):
        g = engine.catalog.get(name)
        if g is None or ref is None:
            continue
        new = g.price(currency, "new", on, engine.catalog.fx)
        used = g.price(currency, "used", on, engine.catalog.fx)
        price = new
        if used and (price is None or (session.need.used and used.amount < price.amount)):
            price = used
        perf = model.relative(g, family, ref, count)
        if price is None or not perf:
            continue
        points.append(Point(g.name, price.amount * count, perf, price is used, g.name in marked))
    return points, currency, family


def render_chart(engine: Engine, session: Session, gpu_names, highlight=()) -> bytes:
    """PNG bytes: relative speed (y) against price (x); highlighted GPUs in colour and bold, the budget dashed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from bot.perf import load_perf_model
    from bot.scorer import workload_spec

    points, currency, family = chart_points(engine, session, gpu_names, highlight)
    on = session.need.as_of or engine.today or date.today()
    spec = workload_spec(engine.knowledge_dir, session.need.workload, on)
    ref = load_perf_model(engine.knowledge_dir).reference_gpu
    font = _cjk_font()
    zh = (session.lang == "zh") and font is not None
    sym = "¥" if currency == "CNY" else "$"
    count = max(1, session.need.gpu_count or 1)

    fig = Figure(figsize=(8, 5.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    kw = {"fontfamily": font} if zh else {}
    if not points:
        ax.text(0.5, 0.5, "无价格或性能数据" if zh else "No price or speed data for these GPUs", ha="center",
                va="center", transform=ax.transAxes, **kw)
        ax.set_axis_off()
    else:
        for p in points:
            color = "#d62728" if p.highlighted else "#7f7f7f"
            ax.scatter([p.price], [p.perf], s=90 if p.highlighted else 36, color=color, zorder=3,
                       marker="D" if p.used else "o", edgecolors="black" if p.highlighted else "none", linewidths=0.6)
            label = p.name.replace("GeForce ", "") + (" (二手)" if zh and p.used else " (used)" if p.used else "")
            ax.annotate(label, (p.price, p.perf), xytext=(6, 4), textcoords="offset points",
                        fontsize=9 if p.highlighted else 7.5, fontweight="bold" if p.highlighted else "normal",
                        color="black" if p.highlighted else "#555555", **kw)
        if session.need.budget:
            ax.axvline(session.need.budget.amount, color="#1f77b4", linestyle="--", linewidth=1, zorder=1)
            ax.annotate(("预算 " if zh else "budget ") + f"{sym}{session.need.budget.amount:,.0f}",
                        (session.need.budget.amount, 0.02), xycoords=("data", "axes fraction"), xytext=(4, 0),
                        textcoords="offset points", fontsize=8, color="#1f77b4", **kw)
        ax.axhline(1.0, color="#bbbbbb", linewidth=0.8, zorder=1)
        ax.grid(True, alpha=0.3)
        xs = [p.price for p in points] + ([session.need.budget.amount] if session.need.budget else [])
        ax.set_xlim(0, max(xs) * 1.18)
        ax.set_ylim(0, max(p.perf for p in points) * 1.15)
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{sym}{v:,.0f}")
    setup = f"{count}× " if count > 1 else ""
    if zh:
        ax.set_xlabel(f"价格（{currency}{'，' + str(count) + ' 张' if count > 1 else ''}，{on:%Y-%m}）", **kw)
        ax.set_ylabel(f"相对速度（{setup}{ref} = 1.00）", **kw)
        ax.set_title(f"速度 vs 价格：{spec.label.zh}", **kw)
    else:
        ax.set_xlabel(f"Price ({currency}{f', {count} cards' if count > 1 else ''}, as of {on:%Y-%m})")
        ax.set_ylabel(f"Relative speed ({ref} = 1.00)")
        ax.set_title(f"Speed vs price: {spec.label.en}")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def highlight_of(reply: Reply) -> tuple[str, ...]:
    """The GPUs to highlight: the recommended picks, else everything the reply is about."""
    return tuple(r.gpu for r in reply.recommendations) or tuple(reply.chart_gpus)


def chart_for_reply(engine: Engine, session: Session, reply: Reply, output_path) -> Path | None:
    """Write the chart of `reply.chart_gpus` to `output_path`; None when the reply has nothing to chart."""
    if not reply.chart_gpus:
        return None
    points, _, _ = chart_points(engine, session, reply.chart_gpus)
    if not points:
        return None
    png = render_chart(engine, session, reply.chart_gpus, highlight_of(reply))
    path = Path(output_path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    return path
