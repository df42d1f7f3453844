"""Open models, quantisation formats and public datasets: knowledge/models.csv, knowledge/quants.csv and
knowledge/datasets.csv as typed values, with lookup by the names people type ("llama3 70b", "千问 72B",
"qwen2.5-32b-instruct", "Q4_K_M", "ImageNet")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from bot.catalog import CatalogError, _num, _rows
from bot.i18n import NO_TEXT, Text, text_of

MODEL_KINDS = ("llm", "image", "video")
# Suffixes that name a release of the same weights, not another model.
_RELEASE_WORDS = re.compile(r"[-_ ]?(instruct|chat|it|base|hf|gguf|awq|gptq|exl2|mlx|preview)\b")


@dataclass(frozen=True)
class Quant:
    code: str  # "Q4_K_M"
    bits_per_weight: float  # as stored, scales included
    bits: int  # the nominal width people say ("4-bit")
    kind: str  # float | gguf | gptq
    aliases: tuple[str, ...]
    label_en: str
    label_zh: str
    source: str
    notes: str = ""

    def label(self, lang: str) -> str:
        return self.label_zh if lang == "zh" else self.label_en


@dataclass(frozen=True)
class ModelSpec:
    name: str
    aliases: tuple[str, ...]
    family: str
    kind: str  # llm | image | video
    params_b: float
    active_params_b: float | None  # MoE: parameters read per token
    layers: int | None
    hidden: int | None
    kv_heads: int | None
    head_dim: int | None
    context: int | None
    vocab: int | None
    licence: str
    gated: bool
    released: str
    image_infer_gb: float | None
    image_lora_gb: float | None
    sources: tuple[str, ...]
    image_low_gb: float | None = None  # inference by the lightest published route (quantised weights, offload)
    notes: str = ""  # for maintainers: where the shape and figures come from; replies do not show it
    advice: Text = NO_TEXT  # what a reply adds about running it (image and video models: the lower-memory routes)
    native_quant: str = ""  # the format the weights are released in, when it is a quantised one (gpt-oss: MXFP4)
    generic: bool = False  # "a 14B model": a size, shaped like a known model

    def label(self, lang: str) -> str:
        if self.generic:
            if lang == "zh":
                return f"{self.name} 模型"
            return f"{'an' if self.name.startswith(('8', '11', '18', '80')) else 'a'} {self.name} model"
        return self.name

    @property
    def active_b(self) -> float:
        return self.active_params_b or self.params_b

    @property
    def is_moe(self) -> bool:
        return bool(self.active_params_b and self.active_params_b < self.params_b)

    @property
    def has_shape(self) -> bool:
        return bool(self.layers and self.kv_heads and self.head_dim)

    def kv_bytes_per_token(self, bytes_per_value: float = 2.0) -> float:
        """K and V for one token across all layers (grouped-query attention: only the KV heads are cached)."""
        if not self.has_shape:
            return 0.0
        return 2 * self.layers * self.kv_heads * self.head_dim * bytes_per_value


def _norm(text: str) -> str:
    """'Qwen2.5-32B-Instruct' -> 'qwen2.532b': lower case, no spaces, hyphens or underscores, no release words."""
    text = _RELEASE_WORDS.sub("", text.lower())
    return re.sub(r"[\s\-_/]+", "", text)


class ModelTable:
    """The models the advisor knows and the quantisation formats, with name lookup."""

    def __init__(self, models: list[ModelSpec], quants: list[Quant]):
        self.models = models
        self.quants = quants
        self._by_name = {m.name: m for m in models}
        self._quant_by_code = {q.code: q for q in quants}
        self._nearest: dict[tuple[float, str, bool], ModelSpec | None] = {}  # a ranking sizes every card's model

    def __iter__(self):
        return iter(self.models)

    def get(self, name: str) -> ModelSpec | None:
        return self._by_name.get(name)

    def quant(self, code: str) -> Quant | None:
        return self._quant_by_code.get(code)

    def quant_for_bits(self, bits: int) -> Quant | None:
        """The usual format for a nominal width: 4 -> Q4_K_M, 8 -> Q8_0, 16 -> F16 (the first listed)."""
        return next((q for q in self.quants if q.bits == bits), None)

    @cached_property
    def _names(self) -> dict[str, ModelSpec]:
        """Every name and alias, lower case, to its model (canonical names win over aliases)."""
        names: dict[str, ModelSpec] = {}
        for m in self.models:
            names.setdefault(m.name.lower(), m)
        for m in self.models:
            for a in m.aliases:
                names.setdefault(a.lower(), m)
        return names

    @cached_property
    def _mention_pattern(self) -> re.Pattern[str]:
        """Every name and alias, longest first, loose about spaces, hyphens and underscores between its parts, on
        token boundaries ('llama 3 70b' is not found inside 'llama 3.1 70b'); release words may follow."""
        pieces = sorted({_loose(n) for n in self._names if len(_norm(n)) >= 3}, key=lambda p: (-len(p), p))
        return re.compile(r"(?<![a-z0-9.])(" + "|".join(pieces) + r")(?![0-9]|\.[0-9]|[a-z]*\d)", re.IGNORECASE)

    @cached_property
    def _by_norm(self) -> dict[str, ModelSpec]:
        return {_norm(n): m for n, m in self._names.items()}

    @cached_property
    def _openings(self) -> tuple[str, ...]:
        """The word each name begins with ('llama', 'qwen', '千问'): a text with none of them names no model, and the
        big pattern (0.1-0.2 s to compile on a cold start) is not needed."""
        out = set()
        for n in self._names:
            m = re.match(r"[0-9a-z]+|[\u4e00-\u9fff]+", n.lower())
            out.add(m.group() if m else n.lower())
        return tuple(out)

    def find_mention(self, text: str) -> tuple[ModelSpec, tuple[int, int]] | None:
        """The first model named in `text` (lower-case), with where it is."""
        if not any(w in text for w in self._openings):
            return None
        for hit in self._mention_pattern.finditer(text):
            m = self._by_norm.get(_norm(hit.group(1)))
            if m is not None:
                return m, hit.span()
        return None

    def find(self, text: str) -> ModelSpec | None:
        found = self.find_mention(text.lower())
        return found[0] if found else None

    def nearest(self, params_b: float, kind: str = "llm", dense: bool = True) -> ModelSpec | None:
        """The known model of `kind` closest in size (by ratio), for a bare size such as '8b'."""
        key = (params_b, kind, dense)
        if key not in self._nearest:
            self._nearest[key] = self._find_nearest(params_b, kind, dense)
        return self._nearest[key]

    def _find_nearest(self, params_b: float, kind: str, dense: bool) -> ModelSpec | None:
        import math

        pool = [m for m in self.models if m.kind == kind and m.has_shape and (not dense or not m.is_moe)]
        if not pool:
            return None
        closest = min(abs(math.log(m.params_b / params_b)) for m in pool)
        near = [m for m in pool if abs(math.log(m.params_b / params_b)) <= closest + 0.1]
        return max(near, key=lambda m: (m.released, -abs(math.log(m.params_b / params_b)), m.name))

    def of_family(self, family: str, params_b: float) -> ModelSpec | None:
        """The newest model of a family with this size (±12%): '千问 72B' -> Qwen2.5 72B. A model whose name carries
        the size as written comes first: 'llama 405b' is Llama 3.1 405B, not the newer Llama 4 Maverick (400B)."""
        near = [m for m in self.models if m.family == family and abs(m.params_b / params_b - 1) <= 0.12]
        named = [m for m in near if re.search(rf"(?<![\d.]){params_b:g}b(?![a-z0-9])", m.name.lower())]
        return max(named or near, key=lambda m: (m.released, m.name), default=None)


def _loose(name: str) -> str:
    """A regex for a model name as people type it: 'qwen2.5 32b' also matches 'Qwen2.5-32B' and 'qwen2.5_32b'."""
    tokens = re.findall(r"[^\W\d_]+|\d+(?:\.\d+)?|[^\w\s]", name.lower())
    return r"[\s\-_]*".join(re.escape(t) for t in tokens)


def _int(path: Path, line: int, row: dict[str, str], col: str) -> int | None:
    v = _num(path, line, row, col)
    return int(v) if v is not None else None


def _split(cell: str, sep: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in (cell or "").split(sep) if s.strip())


def _load_quants(path: Path) -> list[Quant]:
    _, rows = _rows(path)
    out = []
    for line, row in rows:
        bpw, bits = _num(path, line, row, "bits_per_weight"), _int(path, line, row, "bits")
        if not row.get("code") or not bpw or not bits:
            raise CatalogError(path, line, "code", "code, bits_per_weight and bits are required")
        out.append(Quant(row["code"], bpw, bits, row.get("kind", ""), _split(row.get("aliases", ""), "|"),
                         row.get("label_en") or row["code"], row.get("label_zh") or row["code"],
                         row.get("source", ""), row.get("notes", "")))
    return out


def _load_models(path: Path) -> list[ModelSpec]:
    _, rows = _rows(path)
    out, seen = [], {}
    for line, row in rows:
        name = row.get("name", "")
        params = _num(path, line, row, "params_b")
        if not name or not params:
            raise CatalogError(path, line, "name" if not name else "params_b", "name and params_b are required")
        if name in seen:
            raise CatalogError(path, line, "name", f"'{name}' is already on line {seen[name]}")
        seen[name] = line
        kind = row.get("kind", "llm") or "llm"
        if kind not in MODEL_KINDS:
            raise CatalogError(path, line, "kind", f"'{kind}' is not one of {', '.join(MODEL_KINDS)}")
        out.append(ModelSpec(
            name=name, aliases=_split(row.get("aliases", ""), "|"), family=row.get("family", "").lower(), kind=kind,
            params_b=params, active_params_b=_num(path, line, row, "active_params_b"),
            layers=_int(path, line, row, "layers"), hidden=_int(path, line, row, "hidden"),
            kv_heads=_int(path, line, row, "kv_heads"), head_dim=_int(path, line, row, "head_dim"),
            context=_int(path, line, row, "context"), vocab=_int(path, line, row, "vocab"),
            licence=row.get("licence", ""), gated=row.get("gated", "").strip().lower() == "yes",
            released=row.get("released", ""), image_infer_gb=_num(path, line, row, "image_infer_gb"),
            image_lora_gb=_num(path, line, row, "image_lora_gb"), sources=_split(row.get("source", ""), ";"),
            image_low_gb=_num(path, line, row, "image_low_gb"),
            notes=row.get("notes", ""), advice=text_of(row, "advice_en"), native_quant=row.get("native_quant", "")))
    return out


@lru_cache(maxsize=4)
def load_models(knowledge_dir: Path) -> ModelTable:
    """knowledge/models.csv and knowledge/quants.csv. Raises CatalogError naming the file and line."""
    return ModelTable(_load_models(knowledge_dir / "models.csv"), _load_quants(knowledge_dir / "quants.csv"))


# --- public datasets ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Dataset:
    """A public training set: how many samples an epoch is, at what image size, and the epochs its usual recipe runs."""
    name: str
    aliases: tuple[str, ...]
    kind: str
    train_samples: int
    image_px: int | None
    typical_epochs: int | None
    sources: tuple[str, ...]
    note: Text


@lru_cache(maxsize=4)
def load_datasets(knowledge_dir: Path) -> tuple[Dataset, ...]:
    """knowledge/datasets.csv (absent: none). Raises CatalogError naming the file and line."""
    path = knowledge_dir / "datasets.csv"
    if not path.exists():
        return ()
    _, rows = _rows(path)
    out = []
    for line, row in rows:
        samples = _int(path, line, row, "train_samples")
        if not row.get("name") or not samples:
            raise CatalogError(path, line, "name" if not row.get("name") else "train_samples",
                               "name and train_samples are required")
        out.append(Dataset(row["name"], _split(row.get("aliases", ""), "|"), row.get("kind", "image") or "image",
                           samples, _int(path, line, row, "image_px"), _int(path, line, row, "typical_epochs"),
                           _split(row.get("source", ""), ";") + _split(row.get("epochs_source", ""), ";"),
                           text_of(row, "note_en")))
    return tuple(out)


def find_dataset(knowledge_dir: Path, text: str) -> tuple[Dataset | None, tuple[int, int] | None]:
    """The dataset a lower-case text names ("resnet50 on imagenet", "cifar10跑多久"), and where."""
    for d in load_datasets(knowledge_dir):
        for alias in sorted((d.name.lower(), *d.aliases), key=len, reverse=True):
            m = re.search(r"(?<![a-z0-9])" + _loose(alias) + r"(?![a-z0-9])", text)
            if m:
                return d, m.span()
    return None, None
