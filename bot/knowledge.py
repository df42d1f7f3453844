"""knowledge/ -> passages: guide sections (one passage per paragraph and language) and table rows (GPUs, platforms).

Passages are plain dataclasses; the index turns them into langchain Documents. Nothing here loads a model."""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from bot.catalog import Catalog, parse_yaml
from bot.i18n import SEGMENTS, Text, source_title, text_of

DOCS_FORMAT = 4  # bump when the way passages are built changes: the index is rebuilt


@dataclass(frozen=True)
class Source:
    title: str
    url: str


@dataclass(frozen=True)
class Section:
    id: str
    title: dict[str, str]  # lang -> title
    sources: tuple[Source, ...]
    keywords: dict[str, tuple[str, ...]]
    paragraphs: dict[str, tuple[str, ...]]  # lang -> paragraphs
    follow_up: str | None = None  # the act a bare follow-up to this section continues ("rent": "paid options?")
    sources_zh: tuple[Source, ...] = ()  # the same sources as a Chinese reply labels them (`title_zh`, else `title`)

    def sources_in(self, lang: str) -> tuple[Source, ...]:
        return self.sources_zh if lang == "zh" and self.sources_zh else self.sources


@dataclass(frozen=True)
class Passage:
    id: str  # "<section>#<lang>#<n>", "gpu:<name>#<lang>", "platform:<name>#<lang>"
    section: str
    lang: str
    kind: str  # "guide" | "gpu" | "platform"
    title: str
    text: str
    search_text: str  # what BM25 and the embedding see: title, keywords and text
    sources: tuple[Source, ...]
    position: int = 0  # paragraph number within its section and language


class KnowledgeError(ValueError):
    pass


_SPLIT = re.compile(r"^##\s*(zh|en)\s*$", re.MULTILINE)


def parse_section(path: Path) -> Section:
    text = path.read_text(encoding="utf-8")
    m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.DOTALL)
    if not m:
        raise KnowledgeError(f"{path}: missing '---' front matter")
    try:
        meta = parse_yaml(m.group(1))
    except yaml.YAMLError as e:
        raise KnowledgeError(f"{path}: front matter is not valid YAML: {e}") from None
    parts = _SPLIT.split(m.group(2))
    paragraphs: dict[str, tuple[str, ...]] = {}
    for lang, body in zip(parts[1::2], parts[2::2], strict=False):
        paras = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
        paragraphs[lang] = tuple(paras)
    if set(paragraphs) != {"zh", "en"}:
        raise KnowledgeError(f"{path}: needs both a '## zh' and a '## en' part")
    if meta.get("id") != path.stem:
        raise KnowledgeError(f"{path}: id '{meta.get('id')}' differs from the file name")
    sources = tuple(Source(str(s["title"]), str(s["url"])) for s in meta.get("sources") or ())
    sources_zh = tuple(Source(str(s.get("title_zh") or s["title"]), str(s["url"])) for s in meta.get("sources") or ())
    if not sources:
        raise KnowledgeError(f"{path}: every section needs at least one source")
    return Section(
        id=meta["id"], title={"zh": str(meta["title_zh"]), "en": str(meta["title_en"])}, sources=sources,
        keywords={"zh": tuple(str(k) for k in meta.get("keywords_zh") or ()),
                  "en": tuple(str(k) for k in meta.get("keywords_en") or ())},
        paragraphs=paragraphs, follow_up=str(meta["follow_up"]) if meta.get("follow_up") else None,
        sources_zh=sources_zh,
    )


def load_sections(knowledge_dir: Path) -> tuple[Section, ...]:
    """All guide sections; re-read when a file changes (cached on names, sizes and modification times)."""
    files = sorted((knowledge_dir / "guide").glob("*.md"))
    return _load_sections(tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files))


@lru_cache(maxsize=4)
def _load_sections(signature: tuple[tuple[str, int, int], ...]) -> tuple[Section, ...]:
    return tuple(parse_section(Path(name)) for name, _, _ in signature)


def section_passages(section: Section) -> list[Passage]:
    out = []
    for lang in ("zh", "en"):
        other = "en" if lang == "zh" else "zh"
        keys = " ".join(section.keywords[lang] + section.keywords[other])
        for i, para in enumerate(section.paragraphs[lang]):
            out.append(Passage(
                id=f"{section.id}#{lang}#{i}", section=section.id, lang=lang, kind="guide",
                title=section.title[lang], text=para,
                search_text=f"{section.title[lang]} / {section.title[other]}\n{keys}\n{para}",
                sources=section.sources_in(lang), position=i,
            ))
    return out


def _gpu_passages(catalog: Catalog) -> list[Passage]:
    out = []
    for g in catalog:
        alias = ", ".join(g.aliases)
        tc_en = f"{g.tensor_fp16_tflops:g} TFLOPS FP16 tensor" if g.tensor_fp16_tflops else "no tensor cores"
        tc_zh = f"张量核心 FP16 {g.tensor_fp16_tflops:g} TFLOPS" if g.tensor_fp16_tflops else "没有张量核心"
        segment = SEGMENTS.get(g.segment, Text(g.segment, g.segment))
        en = (f"{g.name} ({g.vendor}, {g.architecture_label.en}, {g.segment}, released {g.release_date}): {g.vram_gb:g} GB "
              f"VRAM, {g.mem_bandwidth_gbs or '?'} GB/s memory bandwidth, {tc_en}, {g.tdp_w or '?'} W.")
        zh = (f"{g.name}（{g.vendor}，{g.architecture_label.zh} 架构，{segment.zh}，发布于 {g.release_date}）：显存 "
              f"{g.vram_gb:g} GB，"
              f"带宽 {g.mem_bandwidth_gbs or '?'} GB/s，{tc_zh}，功耗 {g.tdp_w or '?'} W。")
        for lang, text in (("en", en), ("zh", zh)):
            src = tuple(Source(source_title("specifications", lang, name=g.name), u) for u in g.sources[:2])
            out.append(Passage(f"gpu:{g.name}#{lang}", f"gpu:{g.name}", lang, "gpu", g.name, text,
                               f"{g.name} {alias} 显卡 GPU specs 参数\n{text}", src))
    return out


def load_platform_rows(knowledge_dir: Path) -> list[dict[str, str]]:
    path = knowledge_dir / "platforms.csv"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


@dataclass(frozen=True)
class Platform:
    """A place to rent GPUs (knowledge/platforms.csv): what a reply says about it, in both languages."""

    name: str  # the row's id: "platform:<name>" sections, rentals.csv's platform
    label: Text  # what a reply calls it (`name` / `name_zh`)
    aliases: tuple[str, ...]
    region: str  # china | international
    china_access: str  # yes | needs-proxy | unstable
    gpus: Text
    free_tier: Text  # "yes: …" / "no" in English, said in Chinese too
    price: str  # the headline price, empty when none is known
    price_currency: str
    price_unit: Text
    price_date: str
    framework_limits: Text
    notes: Text
    url: str
    sources: tuple[str, ...]

    @property
    def has_free_tier(self) -> bool:
        return self.free_tier.en.lower().startswith("yes")

    def price_text(self, lang: str, dated: str = "") -> str:
        """'9.99 USD per month (…) (2024-04)', or '' without a headline price; `dated` follows the date (', may be
        out of date')."""
        return f"{self.price} {self.price_currency} {self.price_unit.get(lang)} ({self.price_date}{dated})" \
            if self.price else ""


def load_platforms(knowledge_dir: Path) -> tuple[Platform, ...]:
    return tuple(Platform(
        r["name"], text_of(r, "name"), tuple(a for a in r["aliases"].split("|") if a), r["region"], r["china_access"],
        text_of(r, "gpus"), text_of(r, "free_tier"), r["price"], r["price_currency"], text_of(r, "price_unit"),
        r["price_date"], text_of(r, "framework_limits"), text_of(r, "notes_en"), r["url"],
        tuple(u.strip() for u in r["sources"].split(";") if u.strip())) for r in load_platform_rows(knowledge_dir))


_REGION = {"china": Text("China", "国内"), "international": Text("international", "海外")}


def _platform_passages(knowledge_dir: Path) -> list[Passage]:
    out = []
    for p in load_platforms(knowledge_dir):
        region = _REGION.get(p.region, Text(p.region, p.region))
        en_parts = [f"{p.name} — {region.en} GPU platform.", f"GPUs: {p.gpus.en}." if p.gpus else "",
                    f"Free tier: {p.free_tier.en}." if p.free_tier else "",
                    f"Price: {p.price_text('en')}." if p.price else "",
                    f"Limits: {p.framework_limits.en}." if p.framework_limits else "", p.notes.en]
        zh_parts = [f"{p.label.zh}（{region.zh}GPU 平台）。", f"GPU：{p.gpus.zh}。" if p.gpus else "",
                    f"免费额度：{p.free_tier.zh}。" if p.free_tier else "",
                    f"价格：{p.price_text('zh')}。" if p.price else "",
                    f"限制：{p.framework_limits.zh}。" if p.framework_limits else "", p.notes.zh]
        en = " ".join(x for x in en_parts if x)
        zh = "".join(x for x in zh_parts if x)
        alias = " ".join(p.aliases)
        for lang, text in (("en", en), ("zh", zh)):
            src = tuple(Source(p.label.get(lang), u) for u in (p.url, *p.sources)[:2] if u)
            out.append(Passage(f"platform:{p.name}#{lang}", f"platform:{p.name}", lang, "platform",
                               p.label.get(lang), text, f"{p.name} {alias}\n{text}", src))
    return out


def load_passages(knowledge_dir: Path, catalog: Catalog) -> list[Passage]:
    out: list[Passage] = []
    for s in load_sections(knowledge_dir):
        out.extend(section_passages(s))
    out.extend(_gpu_passages(catalog))
    out.extend(_platform_passages(knowledge_dir))
    return out


def domain_words(knowledge_dir: Path) -> list[str]:
    """Chinese domain words for jieba's dictionary: section keywords and the glossary."""
    words = set()
    for s in load_sections(knowledge_dir):
        words.update(k for k in s.keywords["zh"] if re.search(r"[\u4e00-\u9fff]", k))
    words.update(zh for zh, _ in load_glossary(knowledge_dir))
    return sorted(words)


@lru_cache(maxsize=4)
def load_glossary(knowledge_dir: Path) -> tuple[tuple[str, str], ...]:
    path = knowledge_dir / "glossary.csv"
    if not path.exists():
        return ()
    with open(path, encoding="utf-8") as f:
        return tuple((r["zh"], r["en"]) for r in csv.DictReader(f))


def content_hash(knowledge_dir: Path) -> str:
    """Hash of every file under knowledge/ (names and bytes) and the passage format."""
    h = hashlib.sha256(f"format={DOCS_FORMAT}".encode())
    h.update(Path(__file__).read_bytes())  # how passages are built is part of what the index holds
    for p in sorted(knowledge_dir.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(knowledge_dir)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


# --- rental platforms a message names (light: no index, no numpy, so a rental follow-up stays cheap) -----------

@lru_cache(maxsize=4)
def platform_pattern(knowledge_dir: Path) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """One pattern for every platform name and alias (platforms.csv), and the name each spelling means."""
    names: dict[str, str] = {}
    for r in load_platform_rows(knowledge_dir):
        for n in [r["name"], r.get("name_zh", "")] + r.get("aliases", "").split("|"):
            n = n.strip()
            if len(n) >= 2:
                names.setdefault(n.lower(), r["name"])
    if not names:
        return None, {}
    def part(n: str) -> str:  # an English name stands alone ("p5", not "p50"); a Chinese one may touch a number
        head = r"(?<![a-z0-9])" if n[:1].isascii() and n[:1].isalnum() else ""
        tail = r"(?![a-z0-9])" if n[-1:].isascii() and n[-1:].isalnum() else ""
        return head + re.escape(n).replace(r"\ ", r"[\s\-_]*") + tail

    parts = [part(n) for n in sorted(names, key=len, reverse=True)]
    # ASCII case-folding only: Chinese names have no case, and full Unicode folding makes this pattern five times
    # slower to compile (a cold start compiles it)
    return re.compile("(" + "|".join(parts) + ")", re.IGNORECASE | re.ASCII), names


def platforms_named(text: str, knowledge_dir: Path) -> list[str]:
    """The platforms (platforms.csv names) a message names, by name or alias, in order of mention. `text` in
    Simplified script (the caller converts Traditional spellings: "恆源雲" is 恒源云)."""
    pat, names = platform_pattern(knowledge_dir)
    out: list[str] = []
    for m in pat.finditer(text) if pat is not None else ():
        if names[m.group(1).lower()] not in out:
            out.append(names[m.group(1).lower()])
    return out
